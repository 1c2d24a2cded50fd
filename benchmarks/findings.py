"""The findings page: what the games look like under random, greedy and search players.

Runs everything ``docs/findings.md`` reports and writes the page and its plots::

    python -m benchmarks.findings --out findings-runs --doc docs/findings.md --threads 1 --check 2027

Sections (every number with its 95% interval; the page names the command and commit):

* Tensho (Ise with yaku set 1 and 2; the hanafuda skin): the dealer's edge, how rounds end, the
  most frequent yaku, and the card-value tables T2 and T3 against T1 (a sweep on the same deals;
  the setting's own table is its main run), each under every policy of ``--policies``;
* Enshu-bana W, S and C at every player count: the dealer's edge, how rounds end (uchikiri,
  teyaku stops, Fuke), the win rate by seat order, the most frequent yaku;
* the skill measures (``fudasim skill``) of every game and variant side by side;
* where the weakest policy (random) gives a different answer from the strongest: every quantity
  the page reports under both, compared within the combined interval;
* with ``--check SEED``: every number again from a fresh seed (the search players and skill
  tournaments at ``--check-search-rounds`` and ``--check-deals``), and whether each pair agrees
  within the combined interval ``|a - b| <= z * sqrt(se_a^2 + se_b^2)``.

``--rounds`` and ``--search-rounds`` set the sizes (the search players are far slower),
``--deals`` the skill tournaments' size. Folders under ``--out`` are reused when complete, so an
interrupted page resumes and a finished one re-renders without computing anything; ``--no-run``
writes the page from the complete folders only and names the parts still missing.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import math
import re
import subprocess
import sys
import time
import warnings
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["Number", "Setting", "agreement", "main", "misleading_lines", "settings"]

Z95 = 1.959963984540054


@dataclass(frozen=True)
class Setting:
    """A rule set to describe: its label, rules, options and player count."""

    label: str
    rules: str
    options: tuple[tuple[str, str], ...] = ()
    players: int | None = None

    def slug(self) -> str:
        """A folder name for its runs."""
        extra = "-".join(v for _, v in self.options)
        return f"{self.rules}{'-' + extra if extra else ''}{'-' + str(self.players) + 'p' if self.players else ''}"


@dataclass(frozen=True)
class Number:
    """One number of the page with its 95% interval.

    ``kind`` says how it reads: ``rate`` (a share, shown in %), ``points`` (a difference of
    shares, in percentage points), ``mean`` (a mean per round), ``boot`` (a bootstrap estimate
    with its percentile interval ``low``..``high``). ``half`` is the interval's half-width (for
    ``boot``, half the interval's width), in the number's own unit.
    """

    setting: str
    policy: str
    quantity: str
    value: float
    half: float
    kind: str = "rate"
    low: float = math.nan
    high: float = math.nan

    def key(self) -> tuple[str, str, str]:
        """What identifies it across runs of the page."""
        return self.setting, self.policy, self.quantity

    def text(self) -> str:
        """The number and its interval as the page prints it."""
        if self.kind == "rate":
            return f"{100 * self.value:.2f} ± {100 * self.half:.2f}"
        if self.kind == "points":
            return f"{100 * self.value:+.2f} ± {100 * self.half:.2f}"
        if self.kind == "boot":
            return f"{self.value:.3f} [{self.low:.3f}, {self.high:.3f}]"
        return f"{self.value:+.3f} ± {self.half:.3f}"


def settings(quick: bool = False) -> tuple[list[Setting], list[Setting]]:
    """The Tensho settings and the Enshu-bana settings of the page."""
    tensho = [Setting("Tensho (Ise), yaku set 1", "tensho-ise", (("tensho.yaku_set_choice", "fixed_1"),)),
              Setting("Tensho (Ise), yaku set 2", "tensho-ise", (("tensho.yaku_set_choice", "fixed_2"),)),
              Setting("Tensho (hanafuda)", "tensho-hanafuda")]
    enshu = [Setting(f"Enshu-bana {v.upper()}, {p} players", f"enshu-{v}", players=p)
             for v in ("w", "s", "c") for p in range(2, 6)]
    if quick:
        return tensho[:1], [s for s in enshu if s.players == 3 and s.rules == "enshu-c"]
    return tensho, [s for s in enshu if _allowed(s)]


def _allowed(setting: Setting) -> bool:
    from simcore.games import game_of
    from simcore.rules import load_rules

    rules = load_rules(setting.rules)
    return game_of(rules).players_problem(rules, setting.players or 2) is None


@dataclass
class Page:
    """The page being written: Markdown parts and the PNG plots to save next to it."""

    parts: list[str] = field(default_factory=list)
    plots: dict[str, bytes] = field(default_factory=dict)

    def add(self, *lines: str) -> None:
        """Append lines."""
        self.parts.extend(lines)


@dataclass
class Findings:
    """Everything one seed's runs give the page: the numbers with intervals, and the rest."""

    numbers: dict[tuple[str, str, str], Number] = field(default_factory=dict)
    rounds: dict[tuple[str, str], int] = field(default_factory=dict)  # (setting, policy) -> rounds
    skill: dict[str, dict[str, Any]] = field(default_factory=dict)  # setting -> n*, variance shares
    seconds: float = 0.0
    deals: dict[str, str] = field(default_factory=dict)  # setting -> fingerprint of its first deals
    missing: list[str] = field(default_factory=list)  # parts left out (``--no-run`` and not computed yet)

    def put(self, number: Number) -> None:
        """Add one number."""
        self.numbers[number.key()] = number

    def get(self, setting: str, policy: str, quantity: str) -> Number | None:
        """The number, or None when this run of the page has none."""
        return self.numbers.get((setting, policy, quantity))


@dataclass(frozen=True)
class Plan:
    """How large each part is and where it goes."""

    policies: list[str]
    chain: list[str]
    rounds: int
    search_rounds: int
    deals: int
    seed: int
    out: Path
    engine: str = "kernel"
    threads: int | None = None
    compute: bool = True  # False: use only the folders already complete

    def size(self, policy: str) -> int:
        """Rounds per run of ``policy`` (the search players get ``search_rounds``)."""
        from simcore.policies import POLICY_KINDS

        fast = POLICY_KINDS[policy.partition(":")[0]].policy_id <= 2
        return self.rounds if fast else self.search_rounds


def _options(setting: Setting) -> dict[str, str]:
    from simcore.run.runner import with_players

    return with_players(setting.rules, dict(setting.options), setting.players)


def _policy_slug(policy: str) -> str:
    return policy.replace(":", "_").replace(",", "_").replace("=", "")


def _run(setting: Setting, policy: str, plan: Plan) -> Path | None:
    """One run of ``setting`` with ``policy`` in every seat (reused when already complete; None
    when it is not and the plan computes nothing)."""
    from simcore.dataset import check_dataset
    from simcore.run.runner import RunConfig, run

    path = plan.out / f"{setting.slug()}-{_policy_slug(policy)}"
    if path.is_dir() and (path / "_run.json").is_file():
        check = check_dataset(path, checksums=False)
        if check.complete and not check.problems:
            return path
    if not plan.compute:
        return None
    seats = setting.players or 2
    run(RunConfig(rules=setting.rules, options=_options(setting), seed=plan.seed, rounds=plan.size(policy),
                  policies={s: policy for s in range(seats)}, out=str(path), resume=path.is_dir(),
                  engine=plan.engine, threads=plan.threads))
    return path


def _complete(folder: Path) -> bool:
    try:
        return json.loads((folder / "_tournament.json").read_text()).get("complete") is True
    except (OSError, ValueError):
        return False


CARD_VALUES = ("T1_ise", "T2_alt", "T3_hanafuda")


def _sweep(setting: Setting, policy: str, plan: Plan) -> Path | None:
    """The card-value sweep of a Tensho setting (T1, T2, T3 on the same deals), reused when complete
    (None when it is not and the plan computes nothing)."""
    from simcore.run.sweep import SweepConfig, run_sweep

    folder = plan.out / f"sweep-{setting.slug()}-{_policy_slug(policy)}"
    if not _complete(folder) and not plan.compute:
        return None
    if not _complete(folder):
        seats = setting.players or 2
        run_sweep(SweepConfig(rules=setting.rules, options=_options(setting),
                              vary=[("tensho.card_values", list(CARD_VALUES))],
                              policies={s: policy for s in range(seats)}, rounds=plan.size(policy), seed=plan.seed,
                              out=str(folder), resume=folder.is_dir(), engine=plan.engine, threads=plan.threads))
    return folder


def _own_combination(setting: Setting, folder: Path) -> Path:
    """The sweep's run with the setting's own card-value table: the setting's main run."""
    from simcore.rules import load_rules

    own = load_rules(setting.rules, dict(setting.options)).option("tensho.card_values")
    return folder / f"combo-{CARD_VALUES.index(own):03d}"


def _rate(setting: str, policy: str, quantity: str, k: float, n: int) -> Number:
    """The share ``k / n`` with the Agresti-Coull half-width (which stays above 0 when ``k`` is 0 or ``n``)."""
    if not n:
        return Number(setting, policy, quantity, math.nan, math.nan, "rate")
    n_tilde = n + Z95 ** 2
    p_tilde = (k + Z95 ** 2 / 2) / n_tilde
    return Number(setting, policy, quantity, k / n, Z95 * math.sqrt(p_tilde * (1 - p_tilde) / n_tilde), "rate")


def _mean(setting: str, policy: str, quantity: str, values: np.ndarray, kind: str = "mean") -> Number:
    n = len(values)
    half = Z95 * float(values.std(ddof=1)) / math.sqrt(n) if n > 1 else math.nan
    return Number(setting, policy, quantity, float(values.mean()), half, kind)


def describe_run(path: Path, setting: str, policy: str, findings: Findings) -> None:
    """The numbers of one run: dealer's edge, end reasons, win rate by seat order, every yaku."""
    from analysis.reader import open_run
    from simcore.dataset import read_dataset

    dataset = open_run(path)
    players = dataset.seats
    frame = read_dataset(path, columns=["dealer", "winner", "end_reason", "field_dealt", "hand_dealt_0",
                                        *[f"yaku_{s}" for s in range(players)]])
    n = len(frame)
    first = frame[["field_dealt", "hand_dealt_0"]].head(1000).to_numpy(dtype=np.uint64)
    findings.deals.setdefault(setting, hashlib.sha256(first.tobytes()).hexdigest()[:16])
    findings.rounds[(setting, policy)] = n
    dealer = frame["dealer"].to_numpy()
    winner = frame["winner"].to_numpy()
    won = winner >= 0
    put = findings.put
    put(_rate(setting, policy, "dealer wins", int((winner == dealer).sum()), n))
    edge = np.where(winner == dealer, 1.0, np.where(won, -1.0 / (players - 1), 0.0))
    put(_mean(setting, policy, "dealer's edge", edge))
    reasons = frame["end_reason"].astype(str).to_numpy()
    for reason in frame["end_reason"].cat.categories:
        put(_rate(setting, policy, f"ends by {reason}", int((reasons == str(reason)).sum()), n))
    order = (winner - dealer) % players
    for k in range(players):
        put(_rate(setting, policy, f"seat order {k} wins", int(((order == k) & won).sum()), n))
    last_minus_dealer = (((order == players - 1) & won).astype(np.float64)
                         - ((order == 0) & won).astype(np.float64))
    put(_mean(setting, policy, "seat-order effect", last_minus_dealer, "points"))
    yaku_any = np.zeros(n, dtype=np.uint64)
    for s in range(players):
        yaku_any |= frame[f"yaku_{s}"].to_numpy().astype(np.uint64)
    for y in dataset.yaku:
        count = int(((yaku_any >> np.uint64(y.bit)) & np.uint64(1)).sum())
        put(_rate(setting, policy, f"yaku {y.name}", count, n))


_CELL = re.compile(r"^\s*([+-]?[\d.]+)\s*\[\s*([+-]?[\d.]+),\s*([+-]?[\d.]+)\]")


def _parse_interval(cell: str, scale: float = 1.0) -> tuple[float, float, float] | None:
    """``value [low, high]`` of a report cell, divided by ``scale``; None for ``n/a``."""
    match = _CELL.match(str(cell))
    if not match:
        return None
    value, low, high = (float(x) / scale for x in match.groups())
    return value, low, high


SWEEP_METRICS = {"dealer wins": "dealer wins", "ends by card_value": "rounds ending by card value"}


def describe_sweep(folder: Path, setting: str, policy: str, findings: Findings) -> None:
    """The card-value tables' differences from T1 (paired, points) of one sweep folder."""
    from analysis.sweep import build_sweep_report

    differences = build_sweep_report(folder).table("sweep_differences").frame
    for _, row in differences.iterrows():
        if row["metric"] not in SWEEP_METRICS:
            continue
        parsed = _parse_interval(row["difference"], 100.0)
        if parsed is None:
            continue
        value, low, high = parsed
        table = str(row["combination"]).split("=")[-1].split("_")[0]
        findings.put(Number(setting, policy, f"{table} − T1: {SWEEP_METRICS[row['metric']]}", value,
                            (high - low) / 2, "points"))


def describe_skill(folder: Path, setting: str, chain: list[str], findings: Findings) -> None:
    """The skill measures of one tournament folder (bootstrap intervals; n* and shares without).

    Its rows are named after ``chain`` (the policies as the page lists them), step by step.
    """
    from analysis.skill_report import build_skill_report

    report = build_skill_report(folder)
    relative = report.table("skill_relative").frame
    gaps = report.table("skill_gaps").frame
    lead = report.table("skill_rounds_to_lead").frame
    shares = report.table("skill_variance").frame
    steps = [f"{a} -> {b}" for a, b in zip(chain, chain[1:], strict=False)]
    for beginner, (_, row) in zip(chain, relative.iterrows(), strict=False):
        for column, name in (("RS", "RS"), ("LE (learning effect)", "LE"), ("RE (random effect)", "RE")):
            parsed = _parse_interval(row[column])
            if parsed is not None:
                value, low, high = parsed
                findings.put(Number(setting, f"beginner {beginner}", name, value, (high - low) / 2, "boot",
                                    low, high))
    for step, (_, row) in zip(steps, gaps.iterrows(), strict=True):
        for column, name in (("payoff gap per round", "payoff gap"), ("win-rate gap %", "win-rate gap")):
            parsed = _parse_interval(row[column])
            if parsed is not None:
                value, low, high = parsed
                findings.put(Number(setting, step, name, value, (high - low) / 2, "boot", low, high))
    findings.skill[setting] = {
        "n*": {step: str(r["n* (formula)"]) for step, (_, r) in zip(steps, lead.iterrows(), strict=True)},
        "shares": {step: (str(r["deal %"]), str(r["policy %"]))
                   for step, (_, r) in zip(steps, shares.iterrows(), strict=True)},
    }


def gather(plan: Plan, tensho: list[Setting], enshu: list[Setting], skill: bool, log: Any = None) -> Findings:
    """Every run, sweep and skill tournament of the page (reusing complete folders), and their numbers."""
    from simcore.run.tournament import TournamentConfig, run_tournament

    started = time.monotonic()
    findings = Findings()
    plan.out.mkdir(parents=True, exist_ok=True)

    def note(text: str) -> None:
        if log is not None:
            print(f"[{time.monotonic() - started:7.0f}s] {text}", file=log, flush=True)

    for setting in tensho:
        for policy in plan.policies:
            folder = _sweep(setting, policy, plan)
            if folder is None:
                findings.missing.append(f"{setting.label} / {policy}")
                continue
            describe_run(_own_combination(setting, folder), setting.label, policy, findings)
            describe_sweep(folder, setting.label, policy, findings)
            note(f"{setting.label} / {policy}")
    for setting in enshu:
        for policy in plan.policies:
            path = _run(setting, policy, plan)
            if path is None:
                findings.missing.append(f"{setting.label} / {policy}")
                continue
            describe_run(path, setting.label, policy, findings)
            note(f"{setting.label} / {policy}")
    if skill:
        for setting in tensho + enshu:
            folder = plan.out / f"skill-{setting.slug()}"
            if not _complete(folder) and not plan.compute:
                findings.missing.append(f"skill {setting.label}")
                continue
            if not _complete(folder):
                run_tournament(TournamentConfig(rules=setting.rules, options=_options(setting),
                                                policies=tuple(plan.chain), deals=plan.deals, seed=plan.seed,
                                                engine=plan.engine, threads=plan.threads, out=str(folder),
                                                resume=folder.is_dir()))
            describe_skill(folder, setting.label, plan.chain, findings)
            note(f"skill {setting.label}")
    findings.seconds = time.monotonic() - started
    return findings


def save_numbers(findings: Findings, path: Path) -> None:
    """Write the numbers as JSON (one object per number)."""
    path.write_text(json.dumps([asdict(n) for n in findings.numbers.values()], indent=0), encoding="utf-8")


# ---------------------------------------------------------------------------------------------
# Comparisons: random against the strongest policy, and the page against a fresh seed


def differ(a: Number, b: Number, z: float = Z95) -> bool:
    """True when ``a`` and ``b`` differ beyond their combined interval.

    ``|a - b| > z * sqrt(se_a^2 + se_b^2)`` with ``se = half / 1.96`` (a 95% half-width), so at
    ``z = 1.96`` the test is ``|a - b| > sqrt(half_a^2 + half_b^2)``.
    """
    se_a, se_b = a.half / Z95, b.half / Z95
    if not (math.isfinite(se_a) and math.isfinite(se_b)):
        return False
    return abs(a.value - b.value) > z * math.sqrt(se_a ** 2 + se_b ** 2) + 1e-12


def agreement(main: Iterable[Number], fresh: Findings, z: float = Z95) -> tuple[list[tuple[Number, Number]],
                                                                                 list[tuple[Number, Number]]]:
    """Pairs (page, fresh) that agree within their combined interval, and those that do not.

    Only numbers with an interval in both runs are compared; a number the fresh run lacks is left out.
    """
    agree: list[tuple[Number, Number]] = []
    disagree: list[tuple[Number, Number]] = []
    for a in main:
        b = fresh.numbers.get(a.key())
        if b is None or not (math.isfinite(a.half) and math.isfinite(b.half)):
            continue
        (disagree if differ(a, b, z) else agree).append((a, b))
    return agree, disagree


def _signed(number: Number) -> bool:
    return number.kind in ("mean", "points")


def _clear_sign(number: Number) -> int:
    """+1 or -1 when the interval excludes 0, else 0."""
    if number.value - number.half > 0:
        return 1
    if number.value + number.half < 0:
        return -1
    return 0


def misleading_lines(findings: Findings, settings_: list[str], quantities: dict[str, list[str]], weak: str,
                     strong: str) -> list[str]:
    """Plain sentences: where ``weak`` play gives a different answer from ``strong`` play.

    ``quantities`` gives, per setting, the quantities the page reports (in page order); every one
    present under both policies is compared within the combined interval.
    """
    lines = []
    for setting in settings_:
        sentences, compared, flips = [], 0, 0
        for quantity in quantities.get(setting, []):
            a, b = findings.get(setting, weak, quantity), findings.get(setting, strong, quantity)
            if a is None or b is None or not (math.isfinite(a.half) and math.isfinite(b.half)):
                continue
            compared += 1
            if not differ(a, b):
                continue
            what = _readable(quantity)
            if _signed(a) and _clear_sign(a) * _clear_sign(b) < 0:
                flips += 1
                sentences.append(f"{weak} play gets the sign of {what} wrong: {a.text()} under {weak}, "
                                 f"{b.text()} under {strong}")
            else:
                side = "too high" if a.value > b.value else "too low"
                sentences.append(f"{weak} play puts {what} {side}: {a.text()} against {b.text()}")
        if not compared:
            continue
        ranking = _top_yaku_change(findings, setting, weak, strong, quantities.get(setting, []))
        head = (f"**{setting}**: {len(sentences)} of the {compared} numbers reported under both differ beyond "
                f"their intervals" + (f", {flips} with the opposite sign" if flips else "") + ".")
        if ranking:
            head += " " + ranking
        lines.append(f"* {head}" + ("" if not sentences else ""))
        lines.extend(f"  * {s[0].upper() + s[1:]}." for s in sentences)
    return lines


def _readable(quantity: str) -> str:
    if quantity.startswith("ends by "):
        return f"the share of rounds ending by {quantity[8:].replace('_', ' ')} (%)"
    if quantity.startswith("yaku "):
        return f"the frequency of {quantity[5:]} (% of rounds)"
    if quantity.startswith("seat order "):
        k = int(quantity.split()[2])
        return "the dealer's win rate (%)" if k == 0 else f"the win rate of seat {k} after the dealer (%)"
    if quantity == "seat-order effect":
        return "the seat-order effect (last seat's win rate minus the dealer's, points)"
    if " − T1: " in quantity:
        table, what = quantity.split(" − T1: ")
        return f"the change {table} makes to the {what} against T1 (points)"
    if quantity == "dealer wins":
        return "the dealer's win rate (%)"
    return f"the {quantity}"


def _top_yaku_change(findings: Findings, setting: str, weak: str, strong: str, quantities: list[str]) -> str:
    yaku = [q for q in quantities if q.startswith("yaku ")]
    def top(policy: str) -> str | None:
        values = [(findings.get(setting, policy, q), q) for q in yaku]
        present = [(n.value, q) for n, q in values if n is not None]
        return max(present)[1] if present else None

    a, b = top(weak), top(strong)
    if not (a and b) or a == b:
        return ""
    a_strong, b_strong = findings.get(setting, strong, a), findings.get(setting, strong, b)
    a_weak, b_weak = findings.get(setting, weak, a), findings.get(setting, weak, b)
    if None in (a_strong, b_strong, a_weak, b_weak):
        return ""
    assert a_strong and b_strong and a_weak and b_weak
    if differ(a_strong, b_strong) and differ(a_weak, b_weak):  # the order changes beyond the intervals
        return (f"The most frequent yaku is {a[5:]} under {weak} play ({a_weak.text()} against {b[5:]}'s "
                f"{b_weak.text()}) but {b[5:]} under {strong} play ({b_strong.text()} against {a_strong.text()}).")
    return ""


# ---------------------------------------------------------------------------------------------
# The page


def _revision() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True,
                              cwd=Path(__file__).resolve().parents[1]).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    return ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)] + \
        ["| " + " | ".join(str(c) for c in row) + " |" for row in rows] + [""]


def _cell(findings: Findings, setting: str, policy: str, quantity: str, shown: list[Number]) -> str:
    number = findings.get(setting, policy, quantity)
    if number is None:
        return "—"
    shown.append(number)
    return number.text()


def _shown_yaku(findings: Findings, setting: str, policies: list[str], top: int = 4) -> list[str]:
    """The yaku among the ``top`` most frequent under any policy, most frequent first."""
    best: dict[str, float] = {}
    for policy in policies:
        yaku = sorted(((n.value, q) for (s, p, q), n in findings.numbers.items()
                       if s == setting and p == policy and q.startswith("yaku ")), reverse=True)[:top]
        for value, quantity in yaku:
            best[quantity] = max(best.get(quantity, 0.0), value)
    return [q for q, _ in sorted(best.items(), key=lambda kv: -kv[1])]


def _ends(findings: Findings, setting: str, policies: list[str]) -> list[str]:
    """The end reasons that occur under some policy, in the dataset's order."""
    reasons = [q for (s, _, q), n in findings.numbers.items() if s == setting and q.startswith("ends by ")]
    return [q for q in dict.fromkeys(reasons)
            if any((n := findings.get(setting, p, q)) is not None and n.value > 0 for p in policies)]


def setting_tables(page: Page, findings: Findings, setting: Setting, policies: list[str], tensho: bool,
                   shown: list[Number]) -> list[str]:
    """The tables of one setting; returns the quantities shown (for the comparisons)."""
    label = setting.label
    quantities = ["dealer wins", "dealer's edge"]
    page.add(f"### {label}", "")
    rows = [[p, f"{findings.rounds.get((label, p), 0):,}", _cell(findings, label, p, "dealer wins", shown),
             _cell(findings, label, p, "dealer's edge", shown)] for p in policies]
    page.add(*_table(["policy", "rounds", "dealer wins %", "dealer's edge"], rows))
    ends = _ends(findings, label, policies)
    quantities += ends
    page.add("How rounds end (% of rounds):", "",
             *_table(["policy", *[q[8:].replace("_", " ") for q in ends]], [[p, *[_cell(findings, label, p, q, shown) for q in ends]]
                                                           for p in policies]))
    if not tensho:
        players = setting.players or 2
        orders = [f"seat order {k} wins" for k in range(players)]
        quantities += [*orders[1:], "seat-order effect"]
        page.add("Win rate by seat order (% of rounds; 0 = the dealer, then in playing order) and the seat-order "
                 "effect (the last seat's win rate minus the dealer's, points):", "",
                 *_table(["policy", *[str(k) for k in range(players)], "last − dealer"],
                         [[p, _cell(findings, label, p, orders[0], []),  # the dealer's win rate again
                           *[_cell(findings, label, p, q, shown) for q in [*orders[1:], "seat-order effect"]]]
                          for p in policies]))
    yaku = _shown_yaku(findings, label, policies)
    quantities += yaku
    page.add("Most frequent yaku (% of rounds, made by either seat; the four most frequent under each policy):", "",
             *_table(["yaku", *policies], [[q[5:], *[_cell(findings, label, p, q, shown) for p in policies]]
                                           for q in yaku]))
    if tensho:
        sweep = [f"{t} − T1: {what}" for t in ("T2", "T3") for what in SWEEP_METRICS.values()]
        quantities += sweep
        page.add("Card-value tables T2 and T3 against T1 (paired on the same deals; percentage points):", "",
                 *_table(["policy", *sweep], [[p, *[_cell(findings, label, p, q, shown) for q in sweep]]
                                              for p in policies]))
    return quantities


def skill_tables(page: Page, findings: Findings, settings_: list[Setting], chain: list[str], deals: int,
                 shown: list[Number]) -> None:
    """The skill measures of every setting side by side."""
    from analysis.skill_report import skill_chain
    from simcore.policies import sees_hidden

    fair, _ = skill_chain(chain)
    best = chain[fair[-1]]
    steps = [f"{a} -> {b}" for a, b in zip(chain, chain[1:], strict=False) if not sees_hidden(b)]
    page.add("## Skill against luck", "",
             f"Policies, weakest first: {' -> '.join(chain)}; {deals:,} deals per pairing, every seating. RS: relative "
             f"skill of the best fair policy ({best}) against random as beginner, and against greedy "
             "(docs/skill.md); LE and RE its learning and random effects (payoff per round). Intervals: 95% "
             "bootstrap over deals.", "")
    rows = []
    for setting in settings_:
        label = setting.label
        rows.append([label, *[_cell(findings, label, f"beginner {b}", q, shown)
                              for b in (chain[0], chain[1]) for q in ("RS",)],
                     _cell(findings, label, f"beginner {chain[0]}", "LE", shown),
                     _cell(findings, label, f"beginner {chain[0]}", "RE", shown)])
    page.add(*_table(["setting", f"RS ({chain[0]})", f"RS ({chain[1]})", f"LE ({chain[0]})", "RE"], rows))
    page.add(*skill_ranking(findings, [s.label for s in settings_], f"beginner {chain[0]}"), "",
             "![Relative skill by game and variant](findings-skill.png)", "")
    page.add("Payoff gap per round along the chain (stronger minus weaker, head to head):", "")
    short = [s.replace(best, "best") for s in steps]
    page.add(*_table(["setting", *short], [[s.label, *[_cell(findings, s.label, step, "payoff gap", shown)
                                                        for step in steps]] for s in settings_]))
    page.add("Rounds until the stronger leads with probability 0.95 (n*, Fiedler & Rock) and the share of the "
             "variance of a seat's payoff explained by its deal / by the policy (%), for each step (no intervals):",
             "")
    rows = []
    for setting in settings_:
        info = findings.skill.get(setting.label, {})
        rows.append([setting.label, *[f"{info.get('n*', {}).get(step, '—')}; "
                                      f"{' / '.join(info.get('shares', {}).get(step, ('—', '—')))}"
                                      for step in steps]])
    page.add(*_table(["setting", *short], rows))


def skill_ranking(findings: Findings, settings_: list[str], beginner: str) -> list[str]:
    """A sentence on which setting rewards skill most: the highest and lowest RS, and whether their
    intervals separate them (from the page's numbers)."""
    ranked = sorted(((n, s) for s in settings_ if (n := findings.get(s, beginner, "RS")) is not None),
                    key=lambda ns: -ns[0].value)
    if len(ranked) < 2:
        return []
    (top, top_setting), (low, low_setting) = ranked[0], ranked[-1]
    apart = [s for n, s in ranked[1:] if n.high < top.low]
    text = (f"Skill counts most in {top_setting} (RS {top.text()}) and least in {low_setting} (RS {low.text()}); ")
    if len(apart) == len(ranked) - 1:
        text += "the first is above every other setting beyond the intervals."
    elif apart:
        text += (f"the first is above {len(apart)} of the other {len(ranked) - 1} settings beyond the intervals "
                 f"({', '.join(f'*{s}*' for s in apart)}).")
    else:
        text += "the intervals of all settings overlap, so no setting is clearly first."
    return [text]


def misleading_section(page: Page, findings: Findings, quantities: dict[str, list[str]], weak: str,
                       strong: str) -> None:
    """Where random play gives a misleading answer."""
    page.add("## Where random play misleads", "",
             f"Every number the tables above give under both {weak} and {strong} play, compared: a number differs "
             "when the two are further apart than their combined interval (|a − b| > √(h_a² + h_b²), h the 95% "
             "half-widths); the sign is wrong when both intervals exclude 0 on opposite sides.", "")
    lines = misleading_lines(findings, list(quantities), quantities, weak, strong)
    page.add(*(lines or [f"* No number differs between {weak} and {strong} play beyond the intervals."]), "")


def _shared_deals(deals: dict[str, str]) -> str:
    """The groups of settings whose first deals are identical, as text ('' when none)."""
    groups: dict[str, list[str]] = {}
    for setting, fingerprint in deals.items():
        groups.setdefault(fingerprint, []).append(setting)
    return "; ".join(", ".join(f"*{s}*" for s in g[:-1]) + f" and *{g[-1]}*" for g in groups.values() if len(g) > 1)


def check_section(page: Page, shown: list[Number], fresh: Findings, command: str, sizes: str,
                  deals: dict[str, str] | None = None) -> None:
    """How many of the page's numbers a fresh seed reproduces within the combined interval."""
    agree, disagree = agreement(shown, fresh)
    total = len(agree) + len(disagree)
    page.add("## Agreement with a fresh run", "",
             f"`{command}` also ran every part again with seed {sizes}, and compared each number of this page "
             "that has an interval with its fresh value: the two agree when |a − b| ≤ 1.96 √(se_a² + se_b²). About "
             "95% should agree by chance alone.", "",
             f"**{len(agree)} of {total} numbers agree ({100 * len(agree) / max(total, 1):.1f}%)**; "
             f"{len(disagree)} do not.", "")
    if disagree:
        runs = {(a.setting, a.policy) for a, _ in disagree}
        shared = _shared_deals(deals or {})
        page.add(f"The {len(disagree)} disagreements come from {len(runs)} of the "
                 f"{len({(a.setting, a.policy) for a, _ in agree + disagree})} runs compared. The numbers of one run "
                 "are not independent (its dealer's win rate, dealer's edge and seat-order numbers move together)"
                 + (f", and settings that play the same deals at the same seed (common random numbers: {shared}) "
                    "share their luck" if shared else "")
                 + ", so one unusual sample of deals shows up as several disagreements. Those that do not agree:", "")
    if disagree:
        rows = [[a.setting, a.policy, a.quantity.replace("_", " "), a.text(), b.text(),
                 f"{abs(a.value - b.value) / math.sqrt((a.half / Z95) ** 2 + (b.half / Z95) ** 2):.2f}"]
                for a, b in disagree]
        page.add(*_table(["setting", "policy", "number", "page", "fresh run", "difference / se"], rows))


def plot_edges(findings: Findings, settings_: list[str], policies: list[str]) -> bytes:
    """The dealer's edge of every setting and policy, with intervals, as a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(9, 0.6 + 0.3 * len(settings_) * max(len(policies), 2) / 2))
    for j, policy in enumerate(policies):
        values = [(i, n) for i, s in enumerate(settings_) if (n := findings.get(s, policy, "dealer's edge"))]
        ys = [i + (j - (len(policies) - 1) / 2) * 0.18 for i, _ in values]
        ax.errorbar([n.value for _, n in values], ys, xerr=[n.half for _, n in values], fmt="o", capsize=2,
                    label=policy)
    ax.axvline(0, color="grey", lw=0.8)
    ax.set_yticks(range(len(settings_)), settings_)
    ax.invert_yaxis()
    ax.set_xlabel("dealer's edge per round (95% interval)")
    ax.legend(fontsize=8, loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=len(policies), frameon=False)
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=100)
    plt.close(fig)
    return buffer.getvalue()


def plot_skill(findings: Findings, settings_: list[str], beginner: str) -> bytes | None:
    """The relative skill RS of every setting, with its bootstrap interval, as a PNG (None without RS)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    values = [(s, n) for s in settings_ if (n := findings.get(s, beginner, "RS")) is not None]
    if not values:
        return None
    fig, ax = plt.subplots(figsize=(8, 0.6 + 0.32 * len(values)))
    ys = range(len(values))
    ax.errorbar([n.value for _, n in values], list(ys), fmt="o", capsize=3,
                xerr=[[n.value - n.low for _, n in values], [n.high - n.value for _, n in values]])
    ax.set_yticks(list(ys), [s for s, _ in values])
    ax.invert_yaxis()
    ax.set_xlabel(f"relative skill RS, {beginner} (95% bootstrap interval)")
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=100)
    plt.close(fig)
    return buffer.getvalue()


def render(findings: Findings, plan: Plan, tensho: list[Setting], enshu: list[Setting], skill: bool,
           command: str, fresh: Findings | None = None, fresh_plan: Plan | None = None) -> Page:
    """The page of ``findings`` (and the agreement with ``fresh``, when given)."""
    page = Page()
    shown: list[Number] = []
    policies = plan.policies
    sizes = (f"{plan.rounds:,} rounds per run of {', '.join(p for p in policies if plan.size(p) == plan.rounds)}, "
             f"{plan.search_rounds:,} per run of {', '.join(p for p in policies if plan.size(p) != plan.rounds)}"
             + (f", {plan.deals:,} deals per pairing of the skill tournaments" if skill else ""))
    page.add("# Findings", "",
             f"Generated by `{command}` at commit {_revision()} (seed {plan.seed}): {sizes}, every seat playing "
             "the named policy. Every ± is a 95% interval" + ("; the last section reruns everything with another "
                                                                 "seed and says how many numbers agree." if fresh else "."),
             "",
             "The policies are described, and their strength measured, in [policies.md](policies.md); the skill measures in [skill.md](skill.md), the card-value comparison in "
             "[sweep.md](sweep.md).", "",
             "![The dealer's edge by game and policy](findings-dealer-edge.png)", "")
    quantities: dict[str, list[str]] = {}
    intro = ("The dealer's edge is the dealer's mean result per round: +1 a win, −1/(players − 1) a loss, "
             "0 a draw. Each setting's runs are the card-value sweep's run with the setting's own table.")
    if any(setting.rules == "tensho-hanafuda" for setting in tensho):
        intro += (" Tensho (hanafuda) is Tensho (Ise) with yaku set 1 and card-value table T3 in the hanafuda skin: "
                  "its rounds are those of yaku set 1's run with T3 (the T3 − T1 columns there compare the two), "
                  "so it is not a third, independent setting.")
    page.add("## Tensho", "", intro, "")
    for setting in tensho:
        quantities[setting.label] = setting_tables(page, findings, setting, policies, True, shown)
    page.add("## Enshu-bana", "")
    for setting in enshu:
        quantities[setting.label] = setting_tables(page, findings, setting, policies, False, shown)
    misleading_section(page, findings, quantities, policies[0], policies[-1])
    if skill:
        skill_tables(page, findings, tensho + enshu, plan.chain, plan.deals, shown)
    if fresh is not None and fresh_plan is not None:
        fresh_sizes = (f"{fresh_plan.seed} ({fresh_plan.rounds:,} rounds per fast run, {fresh_plan.search_rounds:,} "
                       f"per search run" + (f", {fresh_plan.deals:,} deals per skill pairing" if skill else "") + ")")
        check_section(page, shown, fresh, command, fresh_sizes, findings.deals)
    left_out = findings.missing + ([f"check: {m}" for m in fresh.missing] if fresh is not None else [])
    if left_out:
        page.parts[6:6] = [f"**Not computed yet, so left out of this page:** {'; '.join(left_out)}.", ""]
    page.plots["findings-dealer-edge.png"] = plot_edges(findings, [s.label for s in tensho + enshu], policies)
    if skill and (png := plot_skill(findings, [s.label for s in tensho + enshu], f"beginner {plan.chain[0]}")):
        page.plots["findings-skill.png"] = png
    return page


def main(argv: list[str] | None = None) -> int:
    """Run everything and write the page (see the module docstring)."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--policies", default="random,greedy,heuristic,pimc:worlds=64,rollout=heuristic",
                        help="the players described (weakest first; the same policy in every seat)")
    parser.add_argument("--chain", default="random,greedy,heuristic,pimc:worlds=64,rollout=heuristic,"
                                           "omniscient:worlds=1,rollout=heuristic",
                        help="the skill tournaments' policies, weakest first, omniscient last")
    parser.add_argument("--rounds", type=int, default=1_000_000, help="rounds per run of a fast policy")
    parser.add_argument("--search-rounds", type=int, default=5_000, help="rounds per run of a search policy")
    parser.add_argument("--deals", type=int, default=1_000, help="deals per pairing of the skill tournaments")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--check", type=int, metavar="SEED", help="rerun everything with this seed and compare")
    parser.add_argument("--check-rounds", type=int, help="--rounds of the check (default: --rounds)")
    parser.add_argument("--check-search-rounds", type=int, help="--search-rounds of the check (default: the page's)")
    parser.add_argument("--check-deals", type=int, help="--deals of the check (default: --deals)")
    parser.add_argument("--engine", default="kernel", choices=("kernel", "reference"))
    parser.add_argument("--threads", type=int, help="threads per run (default: every core)")
    parser.add_argument("--out", type=Path, default=Path("findings-runs"))
    parser.add_argument("--doc", type=Path, default=Path("docs/findings.md"))
    parser.add_argument("--log", type=Path, help="append progress lines to this file")
    parser.add_argument("--quick", action="store_true", help="one setting per game (for a smoke test)")
    parser.add_argument("--no-skill", action="store_true", help="leave out the skill tournaments")
    parser.add_argument("--no-run", action="store_true",
                        help="compute nothing: write the page from the complete folders under --out, naming the rest")
    args = parser.parse_args(argv)
    from simcore.policies import HiddenCardsWarning
    from simcore.run.tournament import split_policies

    plan = Plan(policies=split_policies(args.policies), chain=split_policies(args.chain), rounds=args.rounds,
                search_rounds=args.search_rounds, deals=args.deals, seed=args.seed, out=args.out, engine=args.engine,
                threads=args.threads, compute=not args.no_run)
    tensho, enshu = settings(args.quick)
    warnings.simplefilter("ignore", HiddenCardsWarning)  # the omniscient player is named in the page itself
    command = " ".join(["python -m benchmarks.findings", *(argv if argv is not None else sys.argv[1:])])
    log = args.log.open("a", encoding="utf-8") if args.log else None
    skill = not args.no_skill
    findings = gather(plan, tensho, enshu, skill, log)
    save_numbers(findings, args.out / f"numbers-seed{plan.seed}.json")
    fresh = fresh_plan = None
    if args.check is not None:
        fresh_plan = Plan(policies=plan.policies, chain=plan.chain, rounds=args.check_rounds or plan.rounds,
                          search_rounds=args.check_search_rounds or plan.search_rounds,
                          deals=args.check_deals or plan.deals, seed=args.check,
                          out=args.out / f"check-seed{args.check}", engine=plan.engine, threads=plan.threads,
                          compute=plan.compute)
        fresh = gather(fresh_plan, tensho, enshu, skill, log)
        save_numbers(fresh, fresh_plan.out / f"numbers-seed{args.check}.json")
    page = render(findings, plan, tensho, enshu, skill, command, fresh, fresh_plan)
    args.doc.parent.mkdir(parents=True, exist_ok=True)
    args.doc.write_text("\n".join(page.parts) + "\n", encoding="utf-8")
    for name, png in page.plots.items():
        (args.doc.parent / name).write_bytes(png)
    print(f"wrote {args.doc} and {len(page.plots)} plot(s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
