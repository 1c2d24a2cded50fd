"""The findings page: answers to the questions players ask, from strong play at scale.

Runs everything ``docs/findings.md`` reports and writes the page and its plots::

    python -m benchmarks.findings --out findings-runs --doc docs/findings.md --threads 2 --processes 2 \
        --check 2027 --seeds 10

The page opens with the answers (each a sentence with a number, its 95% interval and the policy
it holds for), a glossary and the policy that plays "good play" in each setting, then the
tables behind the answers:

* **good play** is the strongest fair policy of each setting as measured by its skill tournament
  (``fudasim skill``'s measured strength; ``--strongest SLUG=POLICY`` fixes one instead, and
  plays in the setting's tournament where ``--chain`` does not name it); the
  reference policies (``--policies``, random and greedy) stay as reference columns;
* dealer and seats: by seat order (the dealer, then turn order) the share of rounds played,
  the win rate over rounds played and the mean payoff per round; how often the first dealer
  wins a match in which the winner deals next (``--matches`` of ``--match-rounds`` rounds);
* how rounds end; complete yaku tables (how often made, how often the round's winner holds it,
  points), Tensho's T3 table (the hanafuda skin) folded into yaku set 1's tables;
* card-value tables T2 and T3 against T1 (a sweep on the same deals): paired differences with
  Holm-adjusted p-values over the page's family, and the share of rounds whose winner changes;
* skill (``analysis.skill_report.measure_skill``, what ``fudasim skill`` reports): RS with greedy
  and random as beginners and its range over the fictive players, the effects as win
  probabilities, match odds, rounds to lead;
* where random play misleads: random against the strongest policy, paired on the same deals,
  Holm-adjusted over the section;
* koi-koi: the value of a first call over a stop by points held and turn, every koi-koi decision
  of ``--calls`` rounds answered both ways (``simcore.games.koikoi.calling``) under the strongest
  fast policy; and its rule variants (``KOIKOI_VARIANTS``: each option changed alone, a sweep on
  the same deals under the strongest policy, or the heuristic where that is the learned player,
  whose models know only the shipped rules), Holm-adjusted over the section;
* calibration: with ``--check SEED`` every number again from a fresh seed, as deduplicated
  z-scores (mean z^2, a QQ plot); with ``--seeds K`` the headline numbers from K more seeds, their
  spread against the stated standard errors.

Folders under ``--out`` are reused when complete, so an interrupted page resumes and a finished
one re-renders without computing anything; a complete folder that ``--resume`` would refuse to
finish as the page now asks (other sizes, seeds, rules or policies: a default or a model version
changed since; the runner's, tournament's and sweep's own ``resume_conflict``) stops the page with
a line naming it and what differs, and is left as it is. ``--no-run`` writes the page from the
complete folders only and names the parts still missing. ``--estimate`` computes nothing: it times each policy
briefly in each setting and prints every part's rounds and expected time (the search players set
it: a page whose good play is a search player at the sizes that give +-0.3 points takes days).
``--processes 2`` gathers two settings at once, each in a process of its own (a setting's fresh-seed
check starts once its page part is done), so that one setting's reading and single-threaded steps
leave no core idle. The skill tournaments play one general kernel per game that holds every
policy (``FUDASIM_ALL_POLICY_KINDS``; the same rows), instead of one kernel for each set of
policies a pairing seats, which from a cold numba cache meant compiling 43 kernels. The header
command of docs/findings.md, run into an empty ``--out`` from a fresh clone (2 cores, every kernel
compiled, the fresh-seed check included), took 55 min 59 s at 198 % CPU (6,590 s of user time) at
3f647b7 with Enshu-bana C 5p's good play at 440,000 rounds; the command as it stands plays
480,000 there, at most about 50 s more (docs/performance.md).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import importlib
import io
import json
import math
import os
import subprocess
import sys
import time
import warnings
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from statistics import NormalDist
from typing import Any

import numpy as np

__all__ = ["Number", "Setting", "Findings", "Plan", "calibration_z", "main", "settings", "render"]

Z95 = 1.959963984540054
QUESTIONS = ("How big is the dealer's advantage?", "Do the card-value tables T1, T2 and T3 differ in fairness?",
             "Which yaku are made and won with, and how often?",
             "How much does the seat order matter with 3-5 players?", "How much does skill matter?",
             "When does calling koi-koi pay?", "How do koi-koi's rule variants change the game?")
CARD_VALUES = ("T1_ise", "T2_alt", "T3_hanafuda")
CARD_METRICS = {"dealer wins": "dealer's win rate", "ends by card_value": "rounds ended by card values"}
# Koi-koi's rule variants: each option changed alone from the setting's rules, on the same deals
# (docs/koikoi.md#options gives every value's sources); a value that is the setting's own is skipped.
KOIKOI_VARIANTS = (("koikoi.koikoi_bonus", ("opponent_double", "own_double", "calls_plus_one",
                                            "own_add_then_multiply", "none")),
                   ("koikoi.seven_double", ("true", "false")),
                   ("koikoi.koikoi_limit", ("unlimited", "once_per_seat")),
                   ("koikoi.rain_off", ("none", "rain_man")),
                   ("koikoi.last_turn", ("forced_stop", "koikoi_allowed")),
                   ("koikoi.exhausted", ("nothing", "dealer_points")))
VARIANT_METRICS = {"dealer wins": "dealer's win rate", "ends by exhausted": "rounds exhausted",
                   "ends by stop": "rounds ended by a stop"}


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

    @property
    def koikoi(self) -> bool:
        """Koi-koi (the value of calling applies)."""
        return self.rules.startswith("koikoi")

    @property
    def zero_sum(self) -> bool:
        """Whether every round's payoffs sum to zero: not in Enshu-bana S (each seat scores its
        own points) nor under koi-koi's winner-only scoring."""
        if self.rules.startswith("enshu-s"):
            return False
        if self.koikoi:
            from simcore.rules import load_rules

            return load_rules(self.rules, dict(self.options)).option("koikoi.scoring") == "zero_sum"
        return True

    @property
    def tensho(self) -> bool:
        """Tensho (the card-value tables apply)."""
        return self.rules.startswith("tensho")

    @property
    def seats(self) -> int:
        """Players."""
        return self.players or 2


def settings(quick: bool = False) -> list[Setting]:
    """The settings of the page: Tensho with yaku sets 1 and 2 (the hanafuda skin is set 1 with T3,
    folded into set 1's tables), Enshu-bana W, S and C at every player count, and koi-koi under
    its two shipped rule sets."""
    tensho = [Setting("Tensho (Ise), yaku set 1", "tensho-ise", (("tensho.yaku_set_choice", "fixed_1"),)),
              Setting("Tensho (Ise), yaku set 2", "tensho-ise", (("tensho.yaku_set_choice", "fixed_2"),))]
    enshu = [Setting(f"Enshu-bana {v.upper()}, {p} players", f"enshu-{v}", players=p)
             for v in ("w", "s", "c") for p in range(2, 6)]
    koikoi = [Setting("Koi-koi (Nintendo-style values)", "koikoi"), Setting("Koi-koi (KoiKoi-Japan)", "koikoi-kkj")]
    if quick:
        return tensho[:1] + [s for s in enshu if s.players == 4 and s.rules == "enshu-c"] + koikoi[:1]
    return tensho + [s for s in enshu if _allowed(s)] + koikoi


def _allowed(setting: Setting) -> bool:
    from simcore.games import game_of
    from simcore.rules import load_rules

    rules = load_rules(setting.rules)
    return game_of(rules).players_problem(rules, setting.seats) is None


# ---------------------------------------------------------------------------------------------
# Numbers


def _digits(half: float) -> int:
    """Decimals that show an interval's half-width with one or two significant digits."""
    if not (math.isfinite(half) and half > 0):
        return 2
    return int(min(4, max(0, 1 - math.floor(math.log10(half)))))


@dataclass(frozen=True)
class Number:
    """One number of the page with its 95% interval ``low`` .. ``high`` (never ``value +- half``).

    ``kind``: ``rate`` (a share, shown in %, Wilson interval inside [0, 1]), ``points`` (a
    difference of shares, in percentage points), ``mean`` (a mean per round, normal interval),
    ``boot`` (a bootstrap estimate, percentile interval). ``se`` is the standard error used to
    compare it with another run's value (z-scores); ``n`` its sample size.
    """

    setting: str
    policy: str
    quantity: str
    value: float
    low: float
    high: float
    kind: str = "rate"
    se: float = math.nan
    n: int = 0

    def key(self) -> tuple[str, str, str]:
        """What identifies it across runs of the page."""
        return self.setting, self.policy, self.quantity

    def text(self, unit: bool = False) -> str:
        """``52.40 [52.30, 52.50]`` (rates in %, points in pp: with ``unit``, ``52.40 % [52.30, 52.50]``)."""
        if not math.isfinite(self.value):
            return "—"
        scale = 100.0 if self.kind in ("rate", "points") else 1.0
        value, low, high = self.value * scale, self.low * scale, self.high * scale
        digits = _digits((high - low) / 2)
        sign = "+" if self.kind in ("points", "mean") else ""
        mark = {"rate": " %", "points": " pp"}.get(self.kind, "") if unit else ""
        if not (math.isfinite(low) and math.isfinite(high)):
            return f"{value:{sign}.{digits}f}{mark}"
        return f"{value:{sign}.{digits}f}{mark} [{low:{sign}.{digits}f}, {high:{sign}.{digits}f}]"

    def holds_zero(self) -> bool:
        """Whether its interval holds 0."""
        return self.low <= 0 <= self.high


def rate(setting: str, policy: str, quantity: str, k: int, n: int) -> Number:
    """The share ``k / n`` with its Wilson interval."""
    from analysis.intervals import wilson_interval

    if not n:
        return Number(setting, policy, quantity, math.nan, math.nan, math.nan, "rate")
    value, low, high = wilson_interval(int(k), int(n))
    return Number(setting, policy, quantity, value, low, high, "rate", math.sqrt(value * (1 - value) / n), int(n))


def interval(setting: str, policy: str, quantity: str, value: Any, low: Any, high: Any, kind: str,
             n: int = 0) -> Number:
    """A number whose interval is given (its standard error is the half-width / 1.96)."""
    return Number(setting, policy, quantity, float(value), float(low), float(high), kind,
                  (float(high) - float(low)) / (2 * Z95), int(n))


@dataclass(frozen=True)
class YakuRow:
    """One yaku of a setting: how often made (any seat), how often the round's winner held it."""

    key: str
    name: str
    english: str
    family: str
    points: str
    made: Number
    won: Number


@dataclass
class Findings:
    """Everything one seed's runs give the page."""

    numbers: dict[tuple[str, str, str], Number] = field(default_factory=dict)
    rounds: dict[tuple[str, str], int] = field(default_factory=dict)  # (setting, policy) -> rounds
    strongest: dict[str, tuple[str, str]] = field(default_factory=dict)  # setting -> (policy, how chosen)
    skill: dict[str, Any] = field(default_factory=dict)  # setting -> analysis.skill_report.SkillMeasures
    yaku: dict[tuple[str, str], list[YakuRow]] = field(default_factory=dict)
    reasons: dict[str, list[str]] = field(default_factory=dict)  # setting -> end reasons declared
    card_values: list[tuple[Number, float]] = field(default_factory=list)  # difference, raw p-value
    misleading: list[tuple[Number, Number, Number, float]] = field(default_factory=list)  # weak, strong, diff, p
    # first dealer's wins and draws, rounds per match, matches
    matches: dict[tuple[str, str], tuple[Number, Number, int, int]] = field(default_factory=dict)
    calling: dict[str, tuple[str, int, list[Any]]] = field(default_factory=dict)  # setting -> policy, rounds, rows
    variants: list[tuple[Number, float]] = field(default_factory=list)  # koi-koi variant - rules, raw p-value
    variant_policy: dict[str, str] = field(default_factory=dict)  # setting -> the policy of its variant sweeps
    missing: list[str] = field(default_factory=list)  # parts left out (``--no-run`` and not computed yet)
    spread: list[dict[str, Any]] = field(default_factory=list)  # the multi-seed check's rows
    seconds: float = 0.0

    def put(self, number: Number) -> None:
        """Add one number."""
        self.numbers[number.key()] = number

    def get(self, setting: str, policy: str, quantity: str) -> Number | None:
        """The number, or None when this run of the page has none."""
        return self.numbers.get((setting, policy, quantity))

    def strong(self, setting: str) -> str | None:
        """The strongest fair policy of ``setting`` (the page's good play)."""
        return self.strongest.get(setting, (None, ""))[0]


@dataclass(frozen=True)
class Plan:
    """How large each part is and where it goes."""

    policies: list[str]  # reference policies (random, greedy)
    chain: list[str]  # the skill tournaments' policies (fair candidates and fictive players)
    rounds: int
    search_rounds: int
    deals: int
    seed: int
    out: Path
    matches: int = 0
    match_rounds: int = 12
    strongest: dict[str, str] = field(default_factory=dict)  # slug -> policy (given, not measured)
    engine: str = "kernel"
    threads: int | None = None
    compute: bool = True  # False: use only the folders already complete
    calls: int = 0  # koi-koi rounds whose every koi-koi decision is answered both ways
    variants: bool = True  # koi-koi's rule variants (``KOIKOI_VARIANTS``)
    search_rounds_for: dict[str, int] = field(default_factory=dict)  # slug -> a setting's own search_rounds
    variant_rounds: int | None = None  # rounds per koi-koi rule variant of a search policy, at most ``size``
    search_matches: int | None = None  # matches of a search policy, at most (None: as many rounds as its runs)
    search_matches_for: dict[str, int] = field(default_factory=dict)  # slug -> a setting's own search_matches
    learned_rounds: int | None = None  # rounds per run of a learned policy, at most ``rounds`` (None: ``rounds``)
    learned_rounds_for: dict[str, int] = field(default_factory=dict)  # slug -> a setting's own learned_rounds

    def size(self, policy: str, setting: Setting | None = None) -> int:
        """Rounds per run of ``policy`` in ``setting`` (the search players get ``search_rounds``,
        or the setting's own where ``search_rounds_for`` names it; a learned player
        ``learned_rounds`` where given, or the setting's own where ``learned_rounds_for`` names it,
        at most ``rounds``)."""
        if fast_policy(policy):
            if not _learned(policy):
                return self.rounds
            own = self.learned_rounds_for.get(setting.slug()) if setting else None
            return self.learned_size if own is None else min(own, self.rounds)
        return self.search_rounds_for.get(setting.slug(), self.search_rounds) if setting else self.search_rounds

    @property
    def learned_size(self) -> int:
        """Rounds per run of a learned policy: ``learned_rounds``, at most ``rounds``."""
        return self.rounds if self.learned_rounds is None else min(self.learned_rounds, self.rounds)

    def match_count(self, policy: str, setting: Setting | None = None) -> int:
        """Matches of ``policy`` in every seat: ``matches``, or for a search player no more rounds
        than its runs play (``size``) and at most ``search_matches`` (the setting's own where
        ``search_matches_for`` names it)."""
        if fast_policy(policy):
            return self.matches
        most = self.size(policy, setting) // self.match_rounds
        cap = self.search_matches_for.get(setting.slug(), self.search_matches) if setting else self.search_matches
        if cap is not None:
            most = min(most, cap)
        return min(self.matches, max(1, most))

    def variant_size(self, policy: str, setting: Setting) -> int:
        """Rounds per koi-koi rule variant of ``policy``: its ``size``, or for a search player
        ``variant_rounds`` where given (at most its ``size``)."""
        size = self.size(policy, setting)
        return size if fast_policy(policy) or self.variant_rounds is None else min(size, self.variant_rounds)

    def chain_for(self, setting: Setting) -> list[str]:
        """The skill tournament's policies in ``setting``: the chain's that can play there (the
        learned player only where a model of the setting ships), and the setting's ``--strongest``
        where the chain does not name it, after the fair ones, so that the tournament measures it
        against them too."""
        from simcore.policies import sees_hidden

        chain = [p for p in self.chain if playable(setting, p)]
        given = self.strongest.get(setting.slug())
        if given is not None and full_name(setting, given) not in {full_name(setting, p) for p in chain}:
            at = next((i for i, p in enumerate(chain) if sees_hidden(p)), len(chain))
            chain.insert(at, given)
        return chain


def _policy_id(policy: str) -> int:
    """The kernel's id of ``policy``'s kind."""
    from simcore.policies import POLICY_KINDS

    return POLICY_KINDS[policy.partition(":")[0]].policy_id


def _learned(policy: str) -> bool:
    """Whether ``policy`` is the learned player."""
    from simcore.kernels.policy_ids import POLICY_LEARNED

    return _policy_id(policy) == POLICY_LEARNED


def fast_policy(policy: str) -> bool:
    """A policy that decides without search (random, greedy, heuristic, learned)."""
    return _policy_id(policy) <= 2 or _learned(policy)


def full_name(setting: Setting, policy: str) -> str:
    """``policy`` as ``setting``'s runs record it (every parameter named: ``learned`` is
    ``learned:version=6`` in Enshu-bana)."""
    from simcore.games import game_of
    from simcore.policies import parse_policy
    from simcore.rules import load_rules

    return str(parse_policy(policy, game_of(load_rules(setting.rules, _options(setting))).name))


def playable(setting: Setting, policy: str) -> bool:
    """Whether ``policy`` can play ``setting`` (a learned player needs a model of its rules)."""
    from simcore.errors import PolicyError
    from simcore.games import game_of
    from simcore.kernels.policy_ids import POLICY_LEARNED
    from simcore.learned import learned_table
    from simcore.policies import parse_policy
    from simcore.rules import load_rules

    rules = load_rules(setting.rules, _options(setting))
    game = game_of(rules)
    spec = parse_policy(policy, game.name)
    if spec.policy_id != POLICY_LEARNED:
        return True
    try:
        learned_table(game.name, game.compile(rules), spec)
    except PolicyError:
        return False
    return True


# ---------------------------------------------------------------------------------------------
# Runs


def _options(setting: Setting) -> dict[str, str]:
    from simcore.run.runner import with_players

    return with_players(setting.rules, dict(setting.options), setting.players)


def _policy_slug(policy: str) -> str:
    return policy.replace(":", "_").replace(",", "_").replace("=", "")


def _run(setting: Setting, policy: str, plan: Plan, rounds: int | None = None, seed: int | None = None,
         matches: int | None = None, tag: str = "") -> Path | None:
    """One run of ``setting`` with ``policy`` in every seat (reused when complete; None when it is
    not and the plan computes nothing)."""
    from simcore.dataset import check_dataset
    from simcore.run import runner

    path = plan.out / f"{setting.slug()}-{_policy_slug(policy)}{tag}"
    common = dict(rules=setting.rules, options=_options(setting), seed=plan.seed if seed is None else seed,
                  policies={s: policy for s in range(setting.seats)}, out=str(path), resume=path.is_dir(),
                  engine=plan.engine, threads=plan.threads)
    if matches:
        config = runner.RunConfig(matches=matches, rounds_per_match=plan.match_rounds, **common)  # type: ignore[arg-type]
    else:
        config = runner.RunConfig(rounds=rounds or plan.size(policy, setting), **common)  # type: ignore[arg-type]
    if path.is_dir() and (path / "_run.json").is_file():
        check = check_dataset(path, checksums=False)
        if check.complete and not check.problems:
            _refuse_stale(runner.resume_conflict(config))
            return path
    if not plan.compute:
        return None
    runner.run(config)
    return path


def _refuse_stale(conflict: str | None) -> None:
    """Stop where a complete run, sweep or tournament the page would reuse is not the one it asks
    for now (``conflict``: what ``--resume`` would refuse, in its words, from the module's
    ``resume_conflict``; None: the same): its numbers would stand under the page's stated sizes,
    seeds and policies (a changed default or a new model version counts). The folder is left as
    it is."""
    if conflict is not None:
        raise SystemExit(f"{conflict}; move or remove the folder (or give another --out) to make it again")


def _complete(folder: Path) -> bool:
    try:
        return json.loads((folder / "_tournament.json").read_text()).get("complete") is True
    except (OSError, ValueError):
        return False


def _sweep(setting: Setting, option: str, values: list[str], policy: str, plan: Plan, folder: Path,
           rounds: int) -> Path | None:
    """A sweep of one option's values (the baseline first) under ``policy`` in every seat,
    ``rounds`` rounds each, in ``folder``, reused when complete (None: not complete and nothing
    may be computed)."""
    from simcore.run import sweep

    config = sweep.SweepConfig(rules=setting.rules, options=_options(setting), vary=[(option, values)],
                               policies={s: policy for s in range(setting.seats)}, rounds=rounds,
                               seed=plan.seed, out=str(folder), resume=folder.is_dir(), engine=plan.engine,
                               threads=plan.threads)
    if _complete(folder):
        _refuse_stale(sweep.resume_conflict(config))
        return folder
    if not plan.compute:
        return None
    sweep.run_sweep(config)
    return folder


def variant_policy(strong: str) -> str:
    """The policy of a koi-koi setting's variant sweeps: its strongest, unless that is the learned
    player, whose models are trained for the shipped rules alone (then the heuristic)."""
    return "heuristic" if strong.partition(":")[0] == "learned" else strong


def variant_values(setting: Setting, option: str, values: tuple[str, ...]) -> list[str]:
    """The setting's own value of ``option`` first (the sweep's baseline), then the others listed."""
    from simcore.rules import load_rules

    own = str(load_rules(setting.rules, dict(setting.options)).option(option))
    return [own, *[v for v in values if v != own]]


def describe_variants(folder: Path, setting: Setting, policy: str, findings: Findings) -> None:
    """Each value of a variant sweep against the setting's own (paired on the same deals)."""
    from analysis.sweep import build_sweep_report

    report = build_sweep_report(folder)
    for _, row in report.table("sweep_differences").frame.iterrows():
        if row["metric"] not in VARIANT_METRICS:
            continue
        number = interval(setting.label, policy, f"{row['combination']}: {VARIANT_METRICS[row['metric']]}",
                          row["estimate"], row["lower"], row["upper"], "points")
        findings.put(number)
        findings.variants.append((number, float(row["p_value"])))
    for _, row in report.table("sweep_winner_changes").frame.iterrows():
        findings.put(rate(setting.label, policy, f"{row['combination']}: winner changes", int(row["changed"]),
                          int(row["paired_rounds"])))


def _combination(setting: Setting, folder: Path, table: str | None = None) -> Path:
    """The sweep's run with ``table`` (default: the setting's own card-value table)."""
    from simcore.rules import load_rules

    own = table or load_rules(setting.rules, dict(setting.options)).option("tensho.card_values")
    return folder / f"combo-{CARD_VALUES.index(own):03d}"


# ---------------------------------------------------------------------------------------------
# What a run gives


def _points(yaku: Any, options: dict[str, Any]) -> str:
    values = getattr(yaku, "values", None)
    if values is not None:  # Tensho: the value in the setting's yaku set
        chosen = str(options.get("tensho.yaku_set_choice", ""))
        shown = [values[1]] if chosen == "fixed_2" else [values[0]] if chosen == "fixed_1" else list(values)
        return " / ".join("instant win" if v == "instant" else "—" if v is None else str(v) for v in shown)
    value, kind = getattr(yaku, "value", None), getattr(yaku, "kind", "points")
    return f"{value}" + ("" if kind == "points" else f" ({kind})")


def _family(yaku: Any) -> str:
    face = getattr(yaku, "face", None)
    if face is not None:
        return {"front": "omote", "back": "ura"}.get(face, str(face))
    return str(getattr(yaku, "kind", ""))


def _won_with(dataset: Any) -> np.ndarray:
    """int64[64]: rounds whose winner holds yaku bit ``b``."""
    from analysis.accumulate import BitCounter

    counter = BitCounter()
    seats = dataset.seats
    for batch in dataset.iter_batches(["winner", *[f"yaku_{s}" for s in range(seats)]]):
        winner = batch["winner"].astype(np.int64)
        held = np.zeros(len(winner), dtype=np.uint64)
        for seat in range(seats):
            mine = winner == seat
            held[mine] = batch[f"yaku_{seat}"][mine].astype(np.uint64)
        counter.add(held)
    return counter.bit_counts()


def describe_run(path: Path, setting: Setting, policy: str, findings: Findings, yaku: bool = True) -> None:
    """The numbers of one run: by seat order, how rounds end, every yaku."""
    from analysis.intervals import mean_interval
    from analysis.reader import open_run
    from analysis.report import build_report

    dataset = open_run(path)
    report = build_report(dataset)
    summary = report.summary
    assert summary is not None and summary.seat_order is not None
    label, n = setting.label, summary.rounds
    findings.rounds[(label, policy)] = n
    put = findings.put
    for k, counts in enumerate(summary.seat_order):
        put(rate(label, policy, f"order {k} plays", counts.rounds, n))
        put(rate(label, policy, f"order {k} wins", counts.wins, counts.rounds))
        total = counts.payoff_all.sums()
        mean, low, high, _ = mean_interval(*total)
        put(interval(label, policy, f"order {k} payoff", mean, low, high, "mean", n))
    findings.reasons[label] = list(summary.end_reasons)
    for reason, count in summary.end_reasons.items():
        put(rate(label, policy, f"ends by {reason}", count, n))
    if yaku:
        frame = report.table("yaku_frequencies").frame
        won = _won_with(dataset)
        rules = dataset.rules(required=False)
        by_key = {y.key: y for y in rules.yaku} if rules is not None else {}
        rows = []
        for _, row in frame.iterrows():
            info = next(y for y in dataset.yaku if y.key == row["key"])
            made = rate(label, policy, f"yaku {row['yaku']} made", int(row["any_count"]), int(row["rounds"]))
            held = rate(label, policy, f"yaku {row['yaku']} won with", int(won[info.bit]), int(row["rounds"]))
            put(made)
            put(held)
            source = by_key.get(row["key"])
            rows.append(YakuRow(row["key"], row["yaku"], row["english"], _family(source) if source else "",
                                _points(source, dataset.options) if source else "", made, held))
        findings.yaku[(label, policy)] = rows


def describe_matches(path: Path, setting: Setting, policy: str, findings: Findings) -> None:
    """How often the first dealer of a match wins it (the winner of a round deals the next)."""
    from analysis.report import build_report

    frame = build_report(path).table("match_outcomes").frame.set_index("who")
    row = frame.loc["first dealer"].to_dict()
    matches = int(row["matches"])
    wins = int(round(float(row["win_rate"]) * matches))
    draws = int(round(float(row["draw_rate"]) * matches))
    number = rate(setting.label, policy, "first dealer wins the match", wins, matches)
    drawn = rate(setting.label, policy, "first dealer draws the match", draws, matches)
    findings.put(number)
    findings.put(drawn)
    from analysis.reader import open_run

    findings.matches[(setting.label, policy)] = (number, drawn, int(open_run(path).rounds_per_match or 0), matches)


def match_text(wins: Number, draws: Number, seats: int) -> str:
    """How often the first dealer wins a match (and draws it, where matches are drawn), beside the
    share that would be equal: of the matches not drawn, one in ``seats``."""
    if draws.value == 0:
        return f"the first dealer wins {wins.text(True)} of matches (an equal share: {100 / seats:.1f} %)"
    return (f"the first dealer wins {wins.text(True)} of matches and draws {draws.text(True)} (equal chances: "
            f"{100 * (1 - draws.value) / seats:.1f} %, an equal share of the matches not drawn)")


def describe_sweep(folder: Path, setting: Setting, policy: str, findings: Findings) -> None:
    """T2 and T3 against T1 (paired on the same deals): differences, raw p-values, winner changes."""
    from analysis.sweep import build_sweep_report

    report = build_sweep_report(folder)
    for _, row in report.table("sweep_differences").frame.iterrows():
        if row["metric"] not in CARD_METRICS:
            continue
        table = str(row["combination"]).split("=")[-1].split("_")[0]
        number = interval(setting.label, policy, f"{table} - T1: {CARD_METRICS[row['metric']]}", row["estimate"],
                          row["lower"], row["upper"], "points")
        findings.put(number)
        findings.card_values.append((number, float(row["p_value"])))
    for _, row in report.table("sweep_winner_changes").frame.iterrows():
        table = str(row["combination"]).split("=")[-1].split("_")[0]
        findings.put(rate(setting.label, policy, f"{table} - T1: winner changes", int(row["changed"]),
                          int(row["paired_rounds"])))


def describe_misleading(weak_path: Path, strong_path: Path, setting: Setting, weak: str, strong: str,
                        findings: Findings) -> None:
    """Every rate both runs give, weak against strong play, each over the rounds both played
    (``fudasim compare``'s paired table) and their paired difference."""
    from analysis.compare import compare_runs

    report = compare_runs([weak_path, strong_path], labels=["weak", "strong"])
    paired = report.table("paired_strong").frame
    label = setting.label
    for _, row in paired.iterrows():
        metric = str(row["metric"])
        if row["kind"] != "rate" or not (metric == "dealer wins" or metric.startswith(("ends by ", "yaku "))):
            continue
        n = int(row["paired_rounds"])
        a = interval(label, weak, metric, row["weak"], row["weak_low"], row["weak_high"], "rate", n)
        b = interval(label, strong, metric, row["strong"], row["strong_low"], row["strong_high"], "rate", n)
        if a.value == b.value == 0:
            continue  # never happens under either policy: nothing to compare
        diff = interval(label, f"{strong} - {weak}", metric, row["difference_diff"], row["difference_low"],
                        row["difference_high"], "points", n)
        findings.misleading.append((a, b, diff, float(row["p_value"])))


def _calling() -> Any:
    """Koi-koi's value-of-calling module, reached through the registry."""
    from simcore.registry import REGISTRY

    return importlib.import_module(f"{REGISTRY['koikoi']}.calling")


def _koikoi(setting: Setting, policy: str) -> tuple[Any, list[Any]]:
    """A koi-koi setting's compiled rules and ``policy`` in every seat."""
    from simcore.games import game_of
    from simcore.policies import parse_policy
    from simcore.rules import load_rules

    rules = load_rules(setting.rules, _options(setting))
    game = game_of(rules)
    return game.compile(rules), [parse_policy(policy, game.name)] * setting.seats


def _calls(setting: Setting, policy: str, plan: Plan) -> list[dict[str, Any]] | None:
    """Every koi-koi decision of ``plan.calls`` rounds answered both ways
    (``simcore.games.koikoi.calling``), kept in a JSON file under ``--out`` and reused (None when
    it is missing and the plan computes nothing)."""
    path = plan.out / f"calls-{setting.slug()}-{_policy_slug(policy)}-{plan.calls}.json"
    if path.is_file():
        made = json.loads(path.read_text())
        asked = {"policy": policy, "rounds": plan.calls, "seed": plan.seed}
        _refuse_stale(next((f"{path} was made with a different {key}: {made.get(key)!r} then, {now!r} now"
                            for key, now in asked.items() if made.get(key) != now), None))
        return list(made["decisions"])
    if not plan.compute:
        return None
    compiled, specs = _koikoi(setting, policy)
    rows = [asdict(d) for d in _calling().call_decisions(compiled, specs, plan.seed, plan.calls,
                                                         workers=_workers(plan))]
    path.write_text(json.dumps({"policy": policy, "rounds": plan.calls, "seed": plan.seed, "decisions": rows}))
    return rows


def _workers(plan: Plan) -> int:
    """Processes of the value-of-calling study (the reference engine): one a thread of the plan,
    where each has 1,000 rounds or more (a process takes a second or two to start)."""
    return max(1, min(plan.threads or os.cpu_count() or 1, plan.calls // 1000))


def _band(band: tuple[int, int], unit: str) -> str:
    return f"{band[0]}+ {unit}" if band[1] >= 10**6 else f"{band[0]}-{band[1]} {unit}"


def describe_calling(rows: list[dict[str, Any]], setting: Setting, policy: str, rounds: int,
                     findings: Findings) -> None:
    """The value of a first call over a stop, by points held and turn."""
    module = _calling()
    table = module.call_table([module.CallDecision(**r) for r in rows])
    findings.calling[setting.label] = (policy, rounds, table)
    for row in table:
        where = f"{_band(row.points, 'points')}, turns {row.turns[0]}-{row.turns[1]}"
        findings.put(interval(setting.label, policy, f"call - stop at {where}", row.gain, row.low, row.high,
                              "mean", row.n))
        findings.put(rate(setting.label, policy, f"calls at {where}", row.called, row.n))


def describe_skill(folder: Path, setting: Setting, findings: Findings) -> None:
    """The skill measures of one tournament folder (what ``fudasim skill`` reports)."""
    from analysis.skill_report import measure_skill

    measures = measure_skill(folder)
    findings.skill[setting.label] = measures
    for r in measures.relative:
        for name in ("rs", "le", "re"):
            estimate = getattr(r, name)
            findings.put(interval(setting.label, f"{r.beginner} / {r.fictive}", name.upper(), estimate.value,
                                  estimate.low, estimate.high, "boot"))


def _strongest(setting: Setting, plan: Plan, findings: Findings) -> str:
    """The page's good play in ``setting``: given, measured, or (without either) the last reference."""
    if setting.slug() in plan.strongest:
        choice = (plan.strongest[setting.slug()], "given with --strongest" + _against_best(setting, plan, findings))
    elif setting.label in findings.skill and findings.skill[setting.label].best:
        choice = (findings.skill[setting.label].best, "the strongest fair policy of the skill tournament")
    else:
        choice = (plan.policies[-1], "not measured (no skill tournament): the last of --policies")
    findings.strongest[setting.label] = choice
    return choice[0]


def _against_best(setting: Setting, plan: Plan, findings: Findings) -> str:
    """`` (plays as POLICY)`` where the given text is not the policy's full name, and ``; head to head
    against BEST ...``: the given policy against the skill tournament's strongest fair policy,
    where the tournament has both and they differ."""
    from analysis.skill_report import head_to_head

    text = plan.strongest[setting.slug()]
    given = full_name(setting, text)
    plays = f" (plays as {given})" if given != text else ""
    measures = findings.skill.get(setting.label)
    if measures is None or measures.best is None or given == measures.best or given not in measures.policies:
        return plays
    deals, payoff, wins = head_to_head(plan.out / f"skill-{setting.slug()}", given, measures.best)
    payoff_, wins_ = (interval(setting.label, given, f"{what} against {measures.best}", e.value, e.low, e.high, kind)
                      for what, e, kind in (("payoff", payoff, "mean"), ("seatings won", wins, "points")))
    return (f"{plays}; head to head against the tournament's strongest ({measures.best}) over {deals:,} deals: "
            f"{payoff_.text()} a round, {wins_.text()} points of seatings won")


def gather(plan: Plan, settings_: list[Setting], skill: bool, log: Path | None = None,
           started: float | None = None) -> Findings:
    """Every tournament, run and sweep of the page (reusing complete folders), and their numbers,
    one setting after another (``log``: progress lines appended to this file, timed from the
    ``time.monotonic()`` value ``started``)."""
    began = time.monotonic()
    findings = Findings()
    for setting in settings_:
        merge(findings, gather_setting(plan, setting, skill, log, began if started is None else started))
    findings.seconds = time.monotonic() - began
    return findings


def merge(into: Findings, part: Findings) -> None:
    """Add ``part``'s numbers and tables to ``into`` after its own (the settings' order is the page's)."""
    for f in dataclasses.fields(Findings):
        mine, theirs = getattr(into, f.name), getattr(part, f.name)
        if isinstance(mine, dict):
            mine.update(theirs)
        elif isinstance(mine, list):
            mine.extend(theirs)


def gather_setting(plan: Plan, setting: Setting, skill: bool, log: Path | None = None,
                   started: float | None = None) -> Findings:
    """The tournament, runs and sweeps of one setting (reusing complete folders), and their numbers;
    what it computes depends on ``plan`` and ``setting`` alone, so settings may be gathered in any
    order or at once (``gather_all``)."""
    from analysis.skill_report import play_skill, skill_complete
    from simcore.policies import HiddenCardsWarning
    from simcore.run import tournament

    warnings.simplefilter("ignore", HiddenCardsWarning)  # the omniscient players are named in the page itself
    started = time.monotonic() if started is None else started
    findings = Findings()
    plan.out.mkdir(parents=True, exist_ok=True)

    def note(text: str) -> None:
        if log is not None:
            with log.open("a", encoding="utf-8") as file:
                print(f"[{time.monotonic() - started:7.0f}s] seed {plan.seed}: {text}", file=file)

    if skill:
        config = _skill_config(plan, setting, plan.chain_for(setting))
        folder = Path(config.out)
        if tournament.is_tournament(folder):
            _refuse_stale(tournament.resume_conflict(config))
        complete = skill_complete(folder)  # reads the fair pairings of a folder of some pairings only
        if not complete and plan.compute:
            with _one_kernel():
                play_skill(config)  # complete when it returns
            complete = True
        if complete:
            describe_skill(folder, setting, findings)
            note(f"skill {setting.label}")
        else:
            findings.missing.append(f"skill {setting.label}")
    strong = _strongest(setting, plan, findings)
    paths: dict[str, Path] = {}
    for policy in dict.fromkeys([*plan.policies, strong]):
        if setting.tensho:
            sweep = _sweep(setting, "tensho.card_values", list(CARD_VALUES), policy, plan,
                           plan.out / f"sweep-{setting.slug()}-{_policy_slug(policy)}", plan.size(policy, setting))
            if sweep is None:
                findings.missing.append(f"{setting.label} / {policy}")
                continue
            paths[policy] = _combination(setting, sweep)
            describe_run(paths[policy], setting, policy, findings)
            describe_sweep(sweep, setting, policy, findings)
            if setting.options == (("tensho.yaku_set_choice", "fixed_1"),):  # the hanafuda skin: T3
                describe_run(_combination(setting, sweep, "T3_hanafuda"), setting, f"{policy}, T3", findings)
        else:
            path = _run(setting, policy, plan)
            if path is None:
                findings.missing.append(f"{setting.label} / {policy}")
                continue
            paths[policy] = path
            describe_run(path, setting, policy, findings)
        note(f"{setting.label} / {policy}")
    if plan.matches:
        path = _run(setting, strong, plan, matches=plan.match_count(strong, setting), tag=f"-matches{plan.match_rounds}")
        if path is None:
            findings.missing.append(f"{setting.label} / {strong} matches")
        else:
            describe_matches(path, setting, strong, findings)
    weak = plan.policies[0]
    if weak != strong and weak in paths and strong in paths:
        describe_misleading(paths[weak], paths[strong], setting, weak, strong, findings)
    if plan.calls and setting.koikoi:
        policy = strong if fast_policy(strong) else "heuristic"
        rows = _calls(setting, policy, plan)
        if rows is None:
            findings.missing.append(f"{setting.label} / value of calling")
        else:
            describe_calling(rows, setting, policy, plan.calls, findings)
            note(f"{setting.label} / value of calling")
    if plan.variants and setting.koikoi:
        policy = variant_policy(strong)
        findings.variant_policy[setting.label] = policy
        for option, values in KOIKOI_VARIANTS:
            swept = _sweep(setting, option, variant_values(setting, option, values), policy, plan,
                           plan.out / f"variants-{setting.slug()}-{option.split('.')[-1]}-{_policy_slug(policy)}",
                           plan.variant_size(policy, setting))
            if swept is None:
                findings.missing.append(f"{setting.label} / {option}")
                continue
            describe_variants(swept, setting, policy, findings)
            note(f"{setting.label} / {option}")
    return findings


def multi_seed(plan: Plan, settings_: list[Setting], seeds: int, rounds: int, policy: str,
               findings: Findings) -> None:
    """The headline numbers (dealer's win rate and payoff per round) from ``seeds`` more seeds:
    their spread between seeds against the standard errors the page states."""
    for setting in settings_:
        merge(findings, seed_spread(plan, setting, seeds, rounds, policy))


def seed_spread(plan: Plan, setting: Setting, seeds: int, rounds: int, policy: str) -> Findings:
    """``multi_seed`` for one setting: its spread rows (and the runs missing, if any)."""
    findings = Findings()
    values: dict[str, list[Number]] = {"dealer's win rate": [], "dealer's payoff per round": []}
    for k in range(seeds):
        seed = plan.seed + 1000 + k
        path = _run(setting, policy, plan, rounds=rounds, seed=seed, tag=f"-seed{seed}")
        if path is None:
            findings.missing.append(f"{setting.label} / {policy} seed {seed}")
            continue
        found = Findings()
        describe_run(path, setting, policy, found, yaku=False)
        values["dealer's win rate"].append(found.numbers[(setting.label, policy, "order 0 wins")])
        values["dealer's payoff per round"].append(found.numbers[(setting.label, policy, "order 0 payoff")])
    for name, numbers in values.items():
        if len(numbers) >= 2:
            findings.spread.append(spread_row(setting.label, policy, name, numbers))
    return findings


def gather_all(plan: Plan, settings_: list[Setting], skill: bool, seeds: tuple[int, int, str] | None = None,
               check: Any = None, log: Path | None = None,
               processes: int = 1) -> tuple[Findings, Findings | None, Plan | None]:
    """The page's findings, the multi-seed check's spread among them (``seeds``: how many seeds, their
    rounds and policy), and the fresh-seed check's findings and plan (``check``: its plan from the
    page's strongest policy of each setting, or None), as ``gather``, ``multi_seed`` and ``gather``
    again would give them one after another. With ``processes`` > 1 that many settings are gathered at
    once, each in a process of its own (spawned: the kernels run threads): one setting's Python
    reading and its runs' last spans leave cores idle that another's runs then use; a setting's
    check starts once its page part is done (its good play may be the page's measured strongest).
    The numbers do not depend on the order."""
    started = time.monotonic()
    if processes <= 1 or not plan.compute:
        findings = gather(plan, settings_, skill, log, started)
        if seeds is not None:
            multi_seed(plan, settings_, *seeds, findings)
        fresh_plan = check(findings) if check is not None else None
        fresh = gather(fresh_plan, settings_, skill, log, started) if fresh_plan is not None else None
        return findings, fresh, fresh_plan
    import multiprocessing
    from concurrent.futures import Future, ProcessPoolExecutor, as_completed

    pages: dict[Future[Findings], int] = {}
    spreads: dict[int, Future[Findings]] = {}
    checks: dict[int, Future[Findings]] = {}
    parts: dict[int, Findings] = {}
    with ProcessPoolExecutor(processes, mp_context=multiprocessing.get_context("spawn")) as pool:
        try:
            pages = {pool.submit(gather_setting, plan, s, skill, log, started): i for i, s in enumerate(settings_)}
            if seeds is not None:
                spreads = {i: pool.submit(seed_spread, plan, s, *seeds) for i, s in enumerate(settings_)}
            for future in as_completed(pages):
                i = pages[future]
                parts[i] = future.result()
                if check is not None:
                    checks[i] = pool.submit(gather_setting, check(parts[i]), settings_[i], skill, log, started)
            findings = Findings()
            for i in range(len(settings_)):
                merge(findings, parts[i])
            for i in range(len(settings_)):
                if i in spreads:
                    merge(findings, spreads[i].result())
            fresh_plan = check(findings) if check is not None else None
            fresh = None
            if checks:
                fresh = Findings()
                for i in range(len(settings_)):
                    merge(fresh, checks[i].result())
        except BaseException:  # a setting failed (or Ctrl-C): stop the others' runs now
            processes_ = list((getattr(pool, "_processes", None) or {}).values())  # no public way before 3.14
            pool.shutdown(wait=False, cancel_futures=True)
            for process in processes_:
                process.terminate()
            raise
    findings.seconds = time.monotonic() - started
    if fresh is not None:
        fresh.seconds = findings.seconds
    return findings, fresh, fresh_plan


def spread_row(setting: str, policy: str, name: str, numbers: list[Number]) -> dict[str, Any]:
    """Between-seed standard deviation against the stated standard errors (their root mean square),
    with the ratio's 95% interval under a chi-square with ``seeds - 1`` degrees of freedom."""
    values = np.array([n.value for n in numbers])
    stated = float(np.sqrt(np.mean([n.se ** 2 for n in numbers])))
    observed = float(values.std(ddof=1))
    k = len(numbers) - 1
    low_q, high_q = (_chi2_quantile(q, k) for q in (0.975, 0.025))
    ratio = observed / stated if stated > 0 else math.nan
    return {"setting": setting, "policy": policy, "number": name, "seeds": len(numbers),
            "mean": float(values.mean()), "observed": observed, "stated": stated, "ratio": ratio,
            "low": ratio * math.sqrt(k / low_q), "high": ratio * math.sqrt(k / high_q)}


def _chi2_cdf(x: float, k: int) -> float:
    """P(chi-square with ``k`` degrees of freedom <= ``x``): the regularized lower incomplete gamma
    function P(k/2, x/2), from its power series."""
    if x <= 0:
        return 0.0
    a, half = k / 2.0, x / 2.0
    term = total = 1.0 / a
    n = 0
    while term > total * 1e-15 and n < 100_000:
        n += 1
        term *= half / (a + n)
        total += term
    return min(1.0, math.exp(a * math.log(half) - half - math.lgamma(a)) * total)


def _chi2_quantile(q: float, k: int) -> float:
    """The ``q`` quantile of a chi-square with ``k`` degrees of freedom (bisection on its CDF)."""
    low, high = 0.0, k + 20.0 * math.sqrt(2.0 * k) + 20.0
    for _ in range(200):
        middle = (low + high) / 2
        if _chi2_cdf(middle, k) < q:
            low = middle
        else:
            high = middle
    return (low + high) / 2


# ---------------------------------------------------------------------------------------------
# How long the page takes


def _seconds_per_round(setting: Setting, policy: str, plan: Plan, cache: dict[tuple[str, str], float],
                       scratch: Path) -> float:
    """Wall seconds per round of ``policy`` in every seat of ``setting`` (threads as the plan runs them),
    after an untimed run that compiles what it needs: the difference between a short run and one
    five times as long, over the rounds between them, so that what every run costs besides its
    rounds (writing the dataset, starting threads) is not counted as rounds."""
    from simcore.run.runner import RunConfig, run

    key = (setting.slug(), policy)
    if key not in cache:
        rounds = 20_000 if fast_policy(policy) else 40
        seats = {s: policy for s in range(setting.seats)}
        common = dict(rules=setting.rules, options=_options(setting), policies=seats, engine=plan.engine,
                      threads=plan.threads, overwrite=True)
        run(RunConfig(rounds=10, seed=1, out=str(scratch / "warm"), **common))  # type: ignore[arg-type]
        seconds = []
        for n in (rounds, 5 * rounds):
            started = time.perf_counter()
            run(RunConfig(rounds=n, seed=2, out=str(scratch / "timed"), **common))  # type: ignore[arg-type]
            seconds.append(time.perf_counter() - started)
        cache[key] = max(seconds[1] - seconds[0], seconds[1] / 50) / (4 * rounds)
    return cache[key]


def _calling_seconds(setting: Setting, policy: str, plan: Plan, cache: dict[tuple[str, str], float]) -> float:
    """Seconds per round of the value-of-calling study (the reference engine), timed on 50 rounds."""
    key = (setting.slug(), f"calling {policy}")
    if key not in cache:
        compiled, specs = _koikoi(setting, policy)
        started = time.perf_counter()
        _calling().call_decisions(compiled, specs, 1, 50)
        cache[key] = (time.perf_counter() - started) / 50
    return cache[key]


def estimate(plan: Plan, settings_: list[Setting], skill: bool, seeds: int, seed_rounds: int, seed_policy: str,
             scratch: Path, cache: dict[tuple[str, str], float] | None = None) -> list[tuple[str, int, float]]:
    """``(part, rounds, seconds)`` of every part of the page, from each policy's measured speed: a
    pairing's round costs each policy's share of the seats times its own cost per round. The strongest
    policy of a setting is taken to be ``--strongest``'s, else the strongest fair policy of the
    setting's complete skill tournament under ``--out`` (the page's choice, ``_measured_best``; one made
    for another chain, seed or size is not read), else
    the last fair policy of ``--chain``."""
    from analysis.skill_report import skill_chain, skill_pairs
    from simcore.run.tournament import seatings

    cache = {} if cache is None else cache
    parts: list[tuple[str, int, float]] = []
    for s in settings_:
        def cost(policy: str, setting: Setting = s) -> float:
            return _seconds_per_round(setting, policy, plan, cache, scratch)

        chain = plan.chain_for(s)
        fair, _ = skill_chain(chain)
        best = _measured_best(plan, s, chain)
        best = fair[-1] if best is None and fair else best
        strong = plan.strongest.get(s.slug(), plan.policies[-1] if best is None else chain[best])
        if skill:
            rounds, seconds = 0, 0.0
            # the omniscient configurations meet the strongest fair policy only (play_skill)
            pairs = skill_pairs(chain, chain.index(strong) if strong in chain else best)
            every = [(a, b) for a in range(len(chain)) for b in range(a + 1, len(chain))]
            for i, j in pairs or every:
                for seating in seatings(s.seats):
                    share = seating.count("A") / s.seats
                    rounds += plan.deals
                    seconds += plan.deals * (share * cost(chain[i]) + (1 - share) * cost(chain[j]))
            parts.append((f"{s.label}: skill tournament", rounds, seconds))
        tables = len(CARD_VALUES) if s.tensho else 1
        for policy in dict.fromkeys([*plan.policies, strong]):
            rounds = plan.size(policy, s) * tables
            parts.append((f"{s.label}: {policy}" + (" (T1, T2, T3)" if tables > 1 else ""), rounds,
                          rounds * cost(policy)))
        if plan.matches:
            rounds = plan.match_count(strong, s) * plan.match_rounds
            parts.append((f"{s.label}: {strong}, matches", rounds, rounds * cost(strong)))
        if plan.calls and s.koikoi:
            policy = strong if fast_policy(strong) else "heuristic"
            parts.append((f"{s.label}: value of calling ({policy})", plan.calls,
                          plan.calls * _calling_seconds(s, policy, plan, cache) / _workers(plan)))
        if plan.variants and s.koikoi:
            policy = variant_policy(strong)
            rounds = plan.variant_size(policy, s) * sum(len(variant_values(s, o, v)) for o, v in KOIKOI_VARIANTS)
            parts.append((f"{s.label}: rule variants ({policy})", rounds, rounds * cost(policy)))
        if seeds:
            rounds = seeds * seed_rounds
            parts.append((f"{s.label}: {seed_policy}, {seeds} more seeds", rounds, rounds * cost(seed_policy)))
    return parts


@contextlib.contextmanager
def _one_kernel() -> Iterator[None]:
    """Within it, every run plays its game's one general kernel that holds every policy
    (``policy_rows.ALL_KINDS_ENV``): a skill tournament's pairings would otherwise compile a kernel
    for each set of policies they seat (some 40 over the page from a cold cache), and what a seat
    plays is the same either way. The page's long runs of one policy keep their own kernels
    (a learned player's runs a few per cent faster there)."""
    from simcore.kernels.policy_rows import ALL_KINDS_ENV

    before = os.environ.get(ALL_KINDS_ENV)
    os.environ[ALL_KINDS_ENV] = "1"
    try:
        yield
    finally:
        if before is None:
            del os.environ[ALL_KINDS_ENV]
        else:
            os.environ[ALL_KINDS_ENV] = before


def _skill_config(plan: Plan, setting: Setting, chain: list[str]) -> Any:
    """The ``TournamentConfig`` of ``setting``'s skill tournament of ``chain`` under ``plan.out``."""
    from simcore.run import tournament

    folder = plan.out / f"skill-{setting.slug()}"
    return tournament.TournamentConfig(rules=setting.rules, options=_options(setting), policies=tuple(chain),
                                       deals=plan.deals, seed=plan.seed, engine=plan.engine, threads=plan.threads,
                                       out=str(folder), resume=folder.is_dir())


def _measured_best(plan: Plan, setting: Setting, chain: list[str]) -> int | None:
    """The index in ``chain`` of the strongest fair policy of the complete skill tournament under
    ``plan.out`` that the page would read (None: none there, or one the page refuses as stale)."""
    from analysis.skill_report import skill_complete, strongest_fair
    from simcore.run import tournament

    config = _skill_config(plan, setting, chain)
    if not skill_complete(config.out) or tournament.resume_conflict(config) is not None:
        return None
    return strongest_fair(config.out)


# ---------------------------------------------------------------------------------------------
# Calibration: the page against a fresh seed


def _independent(numbers: list[Number], players: dict[str, int], zero_sum: dict[str, bool]) -> list[Number]:
    """One number per independent quantity: the dealer's win rate once (not again as a seat order in
    two-player games), a zero-sum two-player game's dealer payoff once (the other seat's is its
    negative), a yaku's share made (not again as won with, nor under T3, which replays the same
    rounds), no share that is 0 or 1 (nothing to compare), no number without an interval, and a
    number the same as one kept (LE does not depend on the fictive player, RE not on the beginner)."""
    out, seen = [], set()
    for number in numbers:
        quantity, seats = number.quantity, players.get(number.setting, 2)
        if not (math.isfinite(number.se) and number.se > 0):
            continue
        if number.policy.endswith(", T3") or quantity.endswith(" won with"):
            continue
        same = (number.setting, number.quantity, round(number.value, 12), round(number.se, 12))
        if same in seen:
            continue
        seen.add(same)
        if number.kind == "rate" and number.value in (0.0, 1.0):
            continue
        if quantity.endswith(" plays") and number.value == 1.0:
            continue
        if seats == 2 and quantity in ("order 1 wins", "order 1 plays", "order 0 plays"):
            continue
        if seats == 2 and zero_sum.get(number.setting) and quantity == "order 1 payoff":
            continue
        if number.kind == "boot" and number.quantity == "RS":
            continue  # a function of LE and RE
        out.append(number)
    return out


def calibration_z(page: list[Number], fresh: Findings, players: dict[str, int],
                  zero_sum: dict[str, bool]) -> list[tuple[Number, Number, float]]:
    """``(page, fresh, z)`` for every independent number both runs give: ``z = (a - b) / sqrt(se_a^2 + se_b^2)``."""
    out = []
    for a in _independent(page, players, zero_sum):
        b = fresh.numbers.get(a.key())
        if b is None or not (math.isfinite(b.se) and b.se > 0):
            continue
        out.append((a, b, (a.value - b.value) / math.sqrt(a.se ** 2 + b.se ** 2)))
    return out


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


def _p(value: float) -> str:
    return "<0.001" if value < 0.001 else f"{value:.3f}"


@dataclass
class Page:
    """The page being written: Markdown parts and the PNG plots to save next to it."""

    parts: list[str] = field(default_factory=list)
    plots: dict[str, bytes] = field(default_factory=dict)

    def add(self, *lines: str) -> None:
        """Append lines."""
        self.parts.extend(lines)


GLOSSARY = [
    ("Tensho", "the 45-card Ise mekurifuda fishing game, two players ([tensho.md](tensho.md))."),
    ("yaku set 1, 2", "Tensho's two tables of yaku (scoring combinations); the dealer may choose, the page fixes one."),
    ("omote, ura", "the front (omote) and back (ura) form of a Tensho yaku: the same cards of the front or back "
                   "suits; ura yaku score less."),
    ("T1, T2, T3", "Tensho's card-value tables, which break ties after yaku points and chaff: T1 the Ise table, "
                   "T2 an alternative, T3 the hanafuda table. Tensho (hanafuda) is Tensho (Ise) with yaku set 1 "
                   "and T3: its numbers are the T3 rows of yaku set 1."),
    ("chaff", "the plain cards; more chaff breaks a tie in yaku points."),
    ("instant win", "a Tensho yaku that ends the round at once."),
    ("Enshu-bana W, S, C", "the 48-card hanafuda game of Enshu in three variants: W (wagers: matchsticks change "
                           "hands), S (points: a round pays its score), C (comprehensive: with kotsu, multipliers "
                           "and, with 4-5 players, dropping out) ([enshu.md](enshu.md))."),
    ("uchikiri", "an Enshu-bana yaku that stops the round at once."),
    ("teyaku", "a dealt hand that scores (or stops the round) before play."),
    ("Fuke", "an Enshu-bana declaration that voids the round."),
    ("dropping out", "in Enshu-bana C with 4-5 players, two seats sit each round out (the dealer among those "
                     "that may); a seat that sits out pays nothing that round."),
    ("koi-koi", "the two-player 48-card hanafuda game most players know: a seat that makes a yaku stops "
                "and scores, or calls koi-koi and plays on ([koikoi.md](koikoi.md)); the page plays it "
                "under the Nintendo-style values (`koikoi`) and as KoiKoi-Japan plays it (`koikoi-kkj`)."),
    ("dealer, seat order", "the round's dealer, then the seats in turn order (dealer + 1, dealer + 2, ...)."),
    ("payoff", "a seat's net result of a round: Tensho +1 / -1 (0 drawn), W and C matchsticks (zero-sum), "
               "S the seat's score (not zero-sum), koi-koi points (zero-sum as KoiKoi-Japan plays; under the "
               "Nintendo-style rules only the round's winner scores)."),
    ("good play", "the strongest fair policy of the setting, as measured by its skill tournament."),
    ("RS, LE, RE", "relative skill RS = LE / (LE + RE) (Dreef, Borm & van der Genugten 2004): LE what the best "
                   "fair policy gains over a beginner, RE what knowing the cards would add ([skill.md](skill.md))."),
    ("n*", "rounds after which the better player is ahead with probability 0.95 (Fiedler & Rock 2009)."),
    ("interval", "every [low, high] is a 95% interval: Wilson for shares (asymmetric, inside 0-100 %), normal for "
                 "means and differences, percentile bootstrap over deals for the skill measures."),
    ("Holm", "Holm's step-down adjustment of a family of p-values: a difference called significant after it keeps "
             "the chance of any false alarm in the family under 5%."),
]


def _label_policy(findings: Findings, setting: str) -> str:
    policy = findings.strong(setting)
    return policy or "—"


def answers(findings: Findings, settings_: list[Setting], plan: Plan) -> list[str]:
    """The answers section: each question answered in sentences with numbers, intervals and policies."""
    out = ["## Answers", ""]
    # 1. the dealer's advantage
    lines = []
    for s in settings_:
        policy = findings.strong(s.label)
        if policy is None or findings.get(s.label, policy, "order 0 wins") is None:
            continue
        wins = findings.get(s.label, policy, "order 0 wins")
        payoff = findings.get(s.label, policy, "order 0 payoff")
        plays = findings.get(s.label, policy, "order 0 plays")
        assert wins is not None and payoff is not None and plays is not None
        text = (f"*{s.label}* ({policy}, {findings.rounds.get((s.label, policy), 0):,} rounds): the dealer wins "
                f"{wins.text(True)} of the rounds it plays and earns {payoff.text()} per round")
        others = [findings.get(s.label, policy, f"order {k} payoff") for k in range(1, s.seats)]
        if not s.zero_sum and all(o is not None for o in others):
            # payoffs that do not sum to zero: the dealer's own says nothing of an advantage
            text += " (" + ", ".join(f"dealer + {k}: {o.text()}" for k, o in enumerate(others, 1) if o) + ")"
        if plays.value < 1:
            text += f", playing {plays.text(True)} of rounds"
        match = findings.matches.get((s.label, policy))
        if match is not None:
            number, drawn, length, _ = match
            text += f"; in {length}-round matches where the winner deals next, {match_text(number, drawn, s.seats)}"
        lines.append(f"* {text}.")
    out += [f"**{QUESTIONS[0]}** The dealer's payoff per round, under the strongest fair policy of each setting "
            "(payoffs in each game's own unit: Tensho +1 or -1 a round, W and C matchsticks, S and koi-koi points):", "", *lines, ""]
    # 2. card values
    holm = _holm(findings.card_values)
    lines = []
    for s in [s for s in settings_ if s.tensho]:
        policy = findings.strong(s.label)
        rows = [(n, p) for (n, _), p in zip(findings.card_values, holm, strict=True)
                if n.setting == s.label and n.policy == policy and "dealer's win rate" in n.quantity]
        if not rows:
            continue
        largest, largest_p = max(rows, key=lambda r: abs(r[0].value))
        changes = [findings.get(s.label, policy or "", f"{t} - T1: winner changes") for t in ("T2", "T3")]
        shown = [c for c in changes if c is not None]
        significant = sum(p < 0.05 for (n, _), p in zip(findings.card_values, holm, strict=True)
                          if n.setting == s.label)
        text = (f"*{s.label}* ({policy}): the largest change in the dealer's win rate against T1 is "
                f"{largest.quantity.split(':')[0]}, {largest.text(True)} (Holm p = {_p(largest_p)})")
        if shown:
            text += "; " + " and ".join(f"{c.quantity.split(':')[0]} changes the winner of {c.text(True)} of rounds"
                                        for c in shown)
        text += (f"; {significant} of the setting's card-value differences are significant after Holm's adjustment "
                 f"over the page's {len(findings.card_values)}")
        lines.append(f"* {text}.")
    out += [f"**{QUESTIONS[1]}**", "", *lines, ""]
    # 3. yaku
    lines = []
    for s in settings_:
        policy = findings.strong(s.label)
        yaku = findings.yaku.get((s.label, policy or ""))
        if not yaku:
            continue
        made = sorted(yaku, key=lambda r: -r.made.value)
        seen = [r for r in made if r.made.value > 0] or made
        never = [r.name for r in made if r.made.value == 0]
        won = max(yaku, key=lambda r: r.won.value)
        lines.append(f"* *{s.label}* ({policy}): most often made {made[0].name} ({made[0].made.text(True)} of "
                     f"rounds), least often {seen[-1].name} ({seen[-1].made.text(True)})"
                     + (f", never {', '.join(never)} (switched off or redealt under these rules, or too rare "
                        f"for these rounds)" if never else "")
                     + f"; the winner most often holds {won.name} ({won.won.text(True)} of rounds). All {len(yaku)} in "
                     "[Yaku](#yaku).")
    out += [f"**{QUESTIONS[2]}**", "", *lines, ""]
    # 4. seat order
    lines = []
    for s in [s for s in settings_ if s.seats >= 3]:
        policy = findings.strong(s.label)
        payoffs = [(k, findings.get(s.label, policy or "", f"order {k} payoff")) for k in range(s.seats)]
        present = [(k, n) for k, n in payoffs if n is not None]
        if not present:
            continue
        best, worst = max(present, key=lambda kn: kn[1].value), min(present, key=lambda kn: kn[1].value)
        plays = findings.get(s.label, policy or "", "order 0 plays")
        text = (f"*{s.label}* ({policy}): the best-paid place is {_who(best[0])} ({best[1].text()} per round), "
                f"the worst {_who(worst[0])} ({worst[1].text()})")
        if plays is not None and plays.value < 1:
            text += f"; the dealer plays {plays.text(True)} of rounds"
        lines.append(f"* {text}.")
    out += [f"**{QUESTIONS[3]}**", "", *(lines or ["* No setting with 3-5 players on this page."]), ""]
    # 5. skill
    lines = []
    for s in settings_:
        m = findings.skill.get(s.label)
        if m is None or not m.relative:
            continue
        beginner = m.beginners[0]
        r = m.rs(beginner)
        odds = next((o for o in m.matches if o.weaker == beginner), None)
        if r is None:
            continue
        text = (f"*{s.label}*: the best fair policy ({m.best}) wins {_boot_rate(r.le_win)} of rounds against "
                f"{beginner}")
        if odds is not None and 12 in odds.odds:
            text += f" and a 12-round match {_boot_rate(odds.odds[12])} of the time"
        text += f"; RS({beginner}) = {_boot(r.rs)}"
        span = m.rs_range(beginner)
        if span is not None and len(m.fictive_strength) > 1:
            text += f" ({span[0]:.3f} to {span[1]:.3f} over the fictive players)"
        lines.append(f"* {text}.")
    out += [f"**{QUESTIONS[4]}** (skill tournaments: [Skill against luck](#skill-against-luck))", "",
            *(lines or ["* No skill tournament on this page."]), ""]
    # 6. calling koi-koi
    lines = []
    for s in settings_:
        if s.label not in findings.calling:
            continue
        policy, rounds, table = findings.calling[s.label]
        gains: list[tuple[Any, Number]] = []
        for row in table:
            gain = findings.get(s.label, policy, f"call - stop at {_band(row.points, 'points')}, turns "
                                                 f"{row.turns[0]}-{row.turns[1]}")
            if gain is not None and row.n >= 30:
                gains.append((row, gain))
        if not gains:
            continue
        pays = [(row, n) for row, n in gains if n.low > 0]
        costs = [(row, n) for row, n in gains if n.high < 0]
        called = sum(row.called for row in table) / max(1, sum(row.n for row in table))

        def where(row: Any) -> str:
            return f"{_band(row.points, 'points')} on turns {row.turns[0]}-{row.turns[1]}"

        text = f"*{s.label}* ({policy} in both seats, {rounds:,} rounds): "
        if pays:
            top = max(pays, key=lambda rn: rn[1].value)
            text += (f"a first call gains over stopping in {len(pays)} of {len(gains)} bands of points and turns, "
                     f"most with {where(top[0])} ({top[1].text()} points a round)")
        else:
            text += f"a first call gains over stopping in none of {len(gains)} bands of points and turns"
        if costs:
            low = min(costs, key=lambda rn: rn[1].value)
            text += f"; it costs in {len(costs)}, most with {where(low[0])} ({low[1].text()})"
        text += f"; {policy} calls at {100 * called:.0f} % of its first decisions"
        lines.append(f"* {text}.")
    out += [f"**{QUESTIONS[5]}** (the value of a first call over a stop: [Calling koi-koi](#calling-koi-koi))", "",
            *(lines or ["* No koi-koi setting on this page."]), ""]
    # 7. koi-koi's rule variants
    holm = _holm(findings.variants)
    lines = []
    for s in [s for s in settings_ if s.label in findings.variant_policy]:
        policy = findings.variant_policy[s.label]
        rows = [(n, h) for (n, _), h in zip(findings.variants, holm, strict=True)
                if n.setting == s.label and n.quantity.endswith(VARIANT_METRICS["dealer wins"])]
        if not rows:
            continue
        largest, largest_h = max(rows, key=lambda r: abs(r[0].value))
        exhausted = [n for n, _ in findings.variants if n.setting == s.label
                     and n.quantity.endswith(VARIANT_METRICS["ends by exhausted"])]
        most = max(exhausted, key=lambda n: abs(n.value)) if exhausted else None
        mine = [h for (n, _), h in zip(findings.variants, holm, strict=True) if n.setting == s.label]
        text = (f"*{s.label}* ({policy}, {findings.rounds.get((s.label, policy), 0) or plan.size(policy, s):,} rounds a "
                f"variant): the largest change in the dealer's win rate is {_variant(largest.quantity)}, "
                f"{largest.text(True)} (Holm p = {_p(largest_h)})")
        if most is not None:
            text += f"; the largest in rounds exhausted {_variant(most.quantity)}, {most.text(True)}"
        text += (f"; {sum(h < 0.05 for h in mine)} of its {len(mine)} differences are significant after Holm's "
                 f"adjustment over the page's {len(holm)}")
        lines.append(f"* {text}.")
    out += [f"**{QUESTIONS[6]}** (each option changed alone, on the same deals: [Koi-koi's rule variants]"
            "(#koi-kois-rule-variants))", "", *(lines or ["* No koi-koi variant on this page."]), ""]
    return out


def _variant(quantity: str) -> str:
    """``koikoi.seven_double=false`` of a variant number's quantity, as ``seven_double = false``."""
    return "`" + quantity.split(":")[0].removeprefix("koikoi.").replace("=", " = ") + "`"


def variants_section(page: Page, findings: Findings, settings_: list[Setting], plan: Plan,
                     shown: list[Number]) -> None:
    """Koi-koi's rule variants against the setting's rules: paired differences, Holm, winner changes."""
    if not findings.variants:
        return
    holm = _holm(findings.variants)
    page.add("## Koi-koi's rule variants", "",
             "Each option changed alone from the setting's rules, every variant played on the same deals "
             "(a sweep per option) by the same policy in both seats: the paired difference from the setting's "
             f"rules (percentage points) with its interval and its p-value (McNemar) with Holm's adjustment over "
             f"all {len(holm)} differences of this section (* below 0.05), and the share of rounds whose winner "
             "changes. [koikoi.md](koikoi.md#options) describes every value.", "")
    header = ["variant", *[f"{what} (pp)" for what in VARIANT_METRICS.values()], "p (Holm)", "winner changes %"]
    for s in [s for s in settings_ if s.label in findings.variant_policy]:
        policy = findings.variant_policy[s.label]
        combos = list(dict.fromkeys(n.quantity.split(":")[0] for n, _ in findings.variants if n.setting == s.label))
        rows = []
        for combo in combos:
            cells, ps = _holm_cells(findings.variants, holm, [(s.label, policy, f"{combo}: {what}")
                                                             for what in VARIANT_METRICS.values()], shown)
            rows.append([_variant(combo + ":"), *cells, "; ".join(ps),
                         _cell(findings, s.label, policy, f"{combo}: winner changes", shown)])
        if rows:
            page.add(f"### {s.label}", "", f"{policy} in both seats, {plan.variant_size(policy, s):,} rounds a variant.", "",
                     *_table(header, rows), "")


def _who(order: int) -> str:
    return "the dealer" if order == 0 else f"dealer + {order}"


def _boot(estimate: Any, digits: int | None = None) -> str:
    """A bootstrap estimate and its interval, the decimals following the interval's width (at most 3)."""
    if not math.isfinite(estimate.value):
        return "—"
    if digits is None:
        digits = min(3, _digits((estimate.high - estimate.low) / 2))
    if not math.isfinite(estimate.low):
        return f"{estimate.value:.{digits}f}"
    return f"{estimate.value:.{digits}f} [{estimate.low:.{digits}f}, {estimate.high:.{digits}f}]"


def _boot_rate(estimate: Any) -> str:
    if not math.isfinite(estimate.low):
        return f"{100 * estimate.value:.1f} %"
    return f"{100 * estimate.value:.1f} % [{100 * estimate.low:.1f}, {100 * estimate.high:.1f}]"


def _holm(rows: list[tuple[Number, float]]) -> list[float]:
    from analysis.intervals import holm_adjusted

    return [float(v) for v in holm_adjusted([p for _, p in rows])] if rows else []


def _holm_cells(rows: list[tuple[Number, float]], holm: list[float], keys: list[tuple[str, str, str]],
                shown: list[Number]) -> tuple[list[str], list[str]]:
    """For each key, the cell of its difference in ``rows`` (marked * where Holm's adjusted p is
    below 0.05) and its ``raw (adjusted)`` p-values; "—" where the page has none."""
    cells, ps = [], []
    for key in keys:
        found = [(n, p, h) for (n, p), h in zip(rows, holm, strict=True) if n.key() == key]
        if found:
            number, raw, adjusted = found[0]
            shown.append(number)
            cells.append(number.text() + (" *" if adjusted < 0.05 else ""))
            ps.append(f"{_p(raw)} ({_p(adjusted)})")
        else:
            cells.append("—")
            ps.append("—")
    return cells, ps


def _cell(findings: Findings, setting: str, policy: str, quantity: str, shown: list[Number]) -> str:
    number = findings.get(setting, policy, quantity)
    if number is None:
        return "—"
    shown.append(number)
    return number.text()


def _policies(findings: Findings, setting: Setting, plan: Plan) -> list[str]:
    """The strongest policy first, then the reference policies."""
    strong = findings.strong(setting.label)
    return list(dict.fromkeys([p for p in [strong, *reversed(plan.policies)] if p]))


def seat_section(page: Page, findings: Findings, settings_: list[Setting], plan: Plan, shown: list[Number]) -> None:
    """Dealer and seats: by seat order, each setting's table; match play."""
    page.add("## Dealer and seats", "",
             "By place in turn order from the round's dealer (dealer + k: the seat k places after the dealer): the "
             "share of rounds it plays (below 100 % only where seats drop out), its win rate over the rounds it "
             "plays and its mean payoff per round (a round sat out pays 0). The strongest fair policy first; the "
             "reference policies' payoffs as further columns.", "")
    for s in settings_:
        policies = _policies(findings, s, plan)
        strong = policies[0] if policies else ""
        if findings.get(s.label, strong, "order 0 wins") is None:
            continue
        dropout = any((n := findings.get(s.label, strong, f"order {k} plays")) is not None and n.value < 1
                      for k in range(s.seats))
        variants = [strong] + ([f"{strong}, T3"] if findings.get(s.label, f"{strong}, T3", "order 0 wins") else [])
        header = ["place"]
        for v in variants:
            header += ([f"plays %, {v}"] if dropout else []) + [f"wins % (of rounds played), {v}", f"payoff, {v}"]
        header += [f"payoff, {p}" for p in policies[1:]]
        rows = []
        for k in range(s.seats):
            row = [_who(k)]
            for v in variants:
                row += ([_cell(findings, s.label, v, f"order {k} plays", shown)] if dropout else [])
                row += [_cell(findings, s.label, v, f"order {k} wins", shown),
                        _cell(findings, s.label, v, f"order {k} payoff", shown)]
            row += [_cell(findings, s.label, p, f"order {k} payoff", shown) for p in policies[1:]]
            rows.append(row)
        sizes = ", ".join(f"{p} {findings.rounds.get((s.label, p), 0):,}" for p in policies)
        page.add(f"### {s.label}", "", f"Rounds: {sizes}" + (" (T3: the same rounds under the hanafuda table)"
                                                             if len(variants) > 1 else "") + ".", "",
                 *_table(header, rows))
        match = findings.matches.get((s.label, strong))
        if match is not None:
            number, drawn, length, count = match
            shown += [number, drawn]
            page.add(f"Match play ({strong}, {count:,} matches of {length} rounds, the winner of a round dealing the "
                     f"next): {match_text(number, drawn, s.seats)}.", "")
    if png := plot_seats(findings, settings_):
        page.plots["findings-seat-payoff.png"] = png
        page.add("![Payoff per round by seat order, strongest fair policy](findings-seat-payoff.png)", "")


def ends_section(page: Page, findings: Findings, settings_: list[Setting], plan: Plan, shown: list[Number]) -> None:
    """How rounds end: one table per setting with more than one way to end."""
    page.add("## How rounds end", "", "Share of all rounds (%) ending each way; a way no policy reached is left out.",
             "")
    for s in settings_:
        policies = _policies(findings, s, plan)
        if s.tensho and policies and findings.get(s.label, f"{policies[0]}, T3", "order 0 wins"):
            policies.insert(1, f"{policies[0]}, T3")
        reasons = [r for r in findings.reasons.get(s.label, [])
                   if any((n := findings.get(s.label, p, f"ends by {r}")) is not None and n.value > 0 for p in policies)]
        if not reasons:
            continue
        if len(reasons) == 1:
            page.add(f"*{s.label}*: every round ends by {reasons[0].replace('_', ' ')}.", "")
            continue
        rows = [[p, f"{findings.rounds.get((s.label, p.split(', T3')[0]), 0):,}",
                 *[_cell(findings, s.label, p, f"ends by {r}", shown) for r in reasons]] for p in policies]
        page.add(f"*{s.label}*:", "", *_table(["policy", "rounds", *[r.replace("_", " ") for r in reasons]], rows))


def yaku_section(page: Page, findings: Findings, settings_: list[Setting], plan: Plan, shown: list[Number]) -> None:
    """Complete yaku tables: made, won with, points; reference policies as columns."""
    page.add("## Yaku", "",
             "Every yaku of each setting: the share of rounds (%) in which any seat made it, and in which the round's "
             "winner held it, under the strongest fair policy; made under the reference policies as further columns. "
             "Points as the rules give them.", "")
    for s in settings_:
        policies = _policies(findings, s, plan)
        if not policies or (s.label, policies[0]) not in findings.yaku:
            continue
        strong = policies[0]
        t3 = f"{strong}, T3" if (s.label, f"{strong}, T3") in findings.yaku else None
        header = ["yaku", "", "points", f"made %, {strong}", f"won with %, {strong}"]
        header += [f"made %, {t3}"] if t3 else []
        header += [f"made %, {p}" for p in policies[1:]]
        rows = []
        for row in sorted(findings.yaku[(s.label, strong)], key=lambda r: (r.family, -r.made.value)):
            cells = [f"{row.name} ({row.english})", row.family, row.points, row.made.text(), row.won.text()]
            shown += [row.made, row.won]
            if t3:
                cells.append(_cell(findings, s.label, t3, f"yaku {row.name} made", shown))
            cells += [_cell(findings, s.label, p, f"yaku {row.name} made", shown) for p in policies[1:]]
            rows.append(cells)
        page.add(f"### {s.label}", "", f"{strong}, {findings.rounds.get((s.label, strong), 0):,} rounds.", "",
                 *_table(header, rows))
    if png := plot_yaku(findings, settings_):
        page.plots["findings-yaku.png"] = png
        page.add("![How often each yaku is made, strongest fair policy](findings-yaku.png)", "")


def calling_section(page: Page, findings: Findings, settings_: list[Setting], shown: list[Number]) -> None:
    """Koi-koi: what a first call is worth against a stop, by points held and turn."""
    present = [s for s in settings_ if s.label in findings.calling]
    if not present:
        return
    page.add("## Calling koi-koi", "",
             "Every koi-koi decision of a sample of rounds answered both ways from the real position: a stop scores "
             "at once; a call plays the round out with the same policy in both seats (`simcore.games.koikoi.calling`). "
             "*gain* is the caller's mean round payoff after a call minus after a stop, in points, over a seat's first "
             "decision of the round (no call of its own before), by the points its yaku were worth when asked and "
             "the round's turn (1-16; each seat plays 8). *calls %* is how often the policy itself called there; "
             "*better* and *worse* count the decisions where the call did better or worse than the stop.", "")
    for s in present:
        policy, rounds, table = findings.calling[s.label]
        rows = []
        for row in table:
            where = f"{_band(row.points, 'points')}, turns {row.turns[0]}-{row.turns[1]}"
            gain = findings.get(s.label, policy, f"call - stop at {where}")
            called = findings.get(s.label, policy, f"calls at {where}")
            assert gain is not None and called is not None
            shown += [gain, called]
            rows.append([_band(row.points, "points"), f"{row.turns[0]}-{row.turns[1]}", f"{row.n:,}", gain.text(),
                         called.text(), f"{row.better:,}", f"{row.worse:,}"])
        page.add(f"### {s.label}", "", f"{policy} in both seats, {rounds:,} rounds.", "",
                 *_table(["points held", "turns", "decisions", "gain", "calls %", "better", "worse"], rows), "")


def card_value_section(page: Page, findings: Findings, settings_: list[Setting], plan: Plan,
                       shown: list[Number]) -> None:
    """T2 and T3 against T1: paired differences, Holm over the page's family, winner changes."""
    rows_in = findings.card_values
    if not rows_in:
        return
    holm = _holm(rows_in)
    page.add("## Card-value tables", "",
             f"T2 and T3 against T1, on the same deals (a sweep: every policy plays each table on the same rounds): "
             f"the paired difference (percentage points) with its interval, its p-value (McNemar) and Holm's "
             f"adjustment over all {len(rows_in)} differences of this section; and the share of rounds whose winner "
             f"changes (the rows of the same deals).", "")
    header = ["policy", "table", *[f"{what} (pp)" for what in CARD_METRICS.values()], "p (Holm)", "winner changes %"]
    for s in [s for s in settings_ if s.tensho]:
        rows = []
        for policy in _policies(findings, s, plan):
            for table in ("T2", "T3"):
                cells, ps = _holm_cells(rows_in, holm, [(s.label, policy, f"{table} - T1: {what}")
                                                        for what in CARD_METRICS.values()], shown)
                changes = _cell(findings, s.label, policy, f"{table} - T1: winner changes", shown)
                rows.append([policy, table, *cells, "; ".join(ps), changes])
        if rows:
            size = findings.rounds.get((s.label, findings.strong(s.label) or ""), 0)
            page.add(f"*{s.label}* ({size:,} rounds under the strongest policy):", "",
                     *_table(header, rows))
    significant = sum(h < 0.05 for h in holm)
    largest = max(rows_in, key=lambda r: abs(r[0].value))[0] if rows_in else None
    text = (f"**Conclusion.** {significant} of the {len(rows_in)} differences are significant after Holm's "
            f"adjustment (marked *)")
    if largest is not None:
        text += (f"; the largest is {largest.quantity} under {largest.policy} in {largest.setting}, "
                 f"{largest.text(True)}")
    page.add(text + ".", "")


def skill_section(page: Page, findings: Findings, settings_: list[Setting], plan: Plan, shown: list[Number]) -> None:
    """The skill measures of every setting side by side (analysis.skill_report.measure_skill)."""
    measured = [(s, findings.skill[s.label]) for s in settings_ if s.label in findings.skill]
    if not measured:
        return
    page.add("## Skill against luck", "",
             f"Skill tournaments ({plan.deals:,} deals per pairing, every seating) of {', '.join(plan.chain)} "
             "(every pairing of the fair policies, each omniscient one against the strongest fair policy); "
             "what `fudasim skill` reports ([skill.md](skill.md), which lists how these measures depart from the "
             "literature). RS with greedy as the beginner (the headline) and random (the extreme), the strongest "
             "fictive player, and its range over the fictive players; LE and RE on Dreef's scale where the "
             "tournament allows it (column scale), and as the stronger's share of rounds won.", "")
    rows = []
    for s, m in measured:
        cells = [s.label, m.best or "—"]
        for beginner in ("greedy", "random"):
            r = m.rs(beginner)
            span = m.rs_range(beginner)
            cells.append("—" if r is None else _boot(r.rs) + (f" (range {span[0]:.3f} to {span[1]:.3f})"
                                                             if span and len(m.fictive_strength) > 1 else ""))
        r = m.rs(m.beginners[0]) if m.beginners else None
        if r is not None:
            cells += [r.beginner, r.scale, _boot(r.le), _boot(r.re), _boot_rate(r.le_win), _boot_rate(r.re_win)]
        else:
            cells += ["—"] * 6
        rows.append(cells)
    page.add(*_table(["setting", "best fair policy", "RS (greedy)", "RS (random)", "beginner", "scale", "LE", "RE",
                      "best beats the beginner", "fictive beats best"], rows))
    rows = []
    for s, m in measured:
        for odds in m.matches:
            rows.append([s.label, f"{odds.weaker} -> {odds.stronger}",
                         *[_boot_rate(odds.odds[n]) for n in sorted(odds.odds)]])
    lengths = sorted(next(iter(o.odds for _, m in measured for o in m.matches), {1: 0, 12: 0, 100: 0}))
    page.add("How often the stronger policy wins a match of n rounds (its payoff over the match above the weaker's, "
             "a tie counting half; simulated from the tournament's rounds):", "",
             *_table(["setting", "weaker -> stronger", *[f"{n} rounds" for n in lengths]], rows))
    rows = []
    for s, m in measured:
        for lead in m.leads:
            rows.append([s.label, f"{lead.weaker} -> {lead.stronger}", _boot(lead.critical.edge, 4),
                         lead.critical.text()])
    page.add("Rounds until the stronger leads with probability 0.95 (n*, Fiedler & Rock, lambda = 1.645): "
             "unresolved where the tournament cannot tell the edge from 0 (then n* is at least the number given):", "",
             *_table(["setting", "weaker -> stronger", "edge per round", "n*"], rows))
    if png := plot_skill(findings, [s.label for s, _ in measured]):
        page.plots["findings-skill.png"] = png
        page.add("![Relative skill by setting, greedy and random as beginner](findings-skill.png)", "")


def misleading_section(page: Page, findings: Findings, settings_: list[Setting], plan: Plan) -> None:
    """Where random play misleads: paired differences, Holm over the section."""
    rows_in = findings.misleading
    if not rows_in:
        return
    holm = _holm([(d, p) for _, _, d, p in rows_in])
    weak = plan.policies[0]
    page.add("## Where random play misleads", "",
             f"Every share reported under both {weak} and the strongest fair policy, each over the rounds both "
             f"played (the same deals), and their paired difference (McNemar's test), with Holm's adjustment over "
             f"all {len(rows_in)} comparisons of this section. A number differs when its adjusted p-value is below "
             f"0.05.",
             "")
    for s in settings_:
        mine = [(a, b, d, p, h) for (a, b, d, p), h in zip(rows_in, holm, strict=True) if a.setting == s.label]
        if not mine:
            continue
        flagged = [r for r in mine if r[4] < 0.05]
        both = max(r[2].n for r in mine)
        page.add(f"* **{s.label}** ({mine[0][1].policy}, on the {both:,} rounds both played): "
                 f"{len(flagged)} of the {len(mine)} shares differ.")
        for a, b, d, _, h in sorted(flagged, key=lambda r: r[4])[:12]:
            side = "too low" if d.value > 0 else "too high"  # the paired difference, strong - weak, decides
            # where seats sit rounds out, a rate over the rounds the dealer played is over the rounds it
            # played in both runs (fewer than the section's)
            where = "" if d.n == both else f", over the {d.n:,} rounds the dealer played in both runs"
            page.add(f"  * {weak} play puts {a.quantity.replace('_', ' ')} {side}{where}: {a.text(True)} against "
                     f"{b.text(True)} (difference {d.text(True)}, Holm p = {_p(h)}).")
        if len(flagged) > 12:
            page.add(f"  * ... and {len(flagged) - 12} more.")
    page.add("")


def calibration_section(page: Page, shown: list[Number], fresh: Findings | None, fresh_plan: Plan | None,
                        findings: Findings, settings_: list[Setting], command: str) -> None:
    """How well the intervals are calibrated: z-scores against a fresh seed, and the multi-seed spread."""
    if fresh is None and not findings.spread:
        return
    page.add("## Calibration", "")
    if fresh is not None and fresh_plan is not None:
        players = {s.label: s.seats for s in settings_}
        zero_sum = {s.label: s.zero_sum for s in settings_}
        unique = list({n.key(): n for n in shown}.values())
        pairs = calibration_z(unique, fresh, players, zero_sum)
        z = np.array([p[2] for p in pairs])
        m = len(z)
        if m:
            mean_z2 = float(np.mean(z ** 2))
            low, high = _chi2_quantile(0.025, m) / m, _chi2_quantile(0.975, m) / m
            outside = int((np.abs(z) > Z95).sum())
            learned = (f", {fresh_plan.learned_size:,} per learned run" if fresh_plan.learned_size != fresh_plan.rounds
                       else "")
            calls = f", {fresh_plan.calls:,} koi-koi rounds answered both ways" if fresh_plan.calls else ""
            page.add(f"`{command}` ran every part again with seed {fresh_plan.seed} ({fresh_plan.rounds:,} rounds per "
                     f"fast run{learned}, {fresh_plan.search_rounds:,} per search run, {fresh_plan.deals:,} deals per "
                     f"skill pairing{calls}). For each of the page's numbers, z = (page - fresh) / sqrt(se_page² + se_fresh²), "
                     f"one number per independent quantity (the dealer's win rate once, not again as a seat order or "
                     f"edge; no share of 0 or 100 %; LE and RE, not RS, which follows from them). If the intervals are "
                     f"right, z is standard normal: mean z² is 1 and about 5 % of |z| exceed 1.96.", "",
                     f"**{m} numbers: mean z² = {mean_z2:.2f}** (independent numbers would give {low:.2f} to "
                     f"{high:.2f} 95 % of the time); {outside} have |z| > 1.96 ({100 * outside / m:.1f} %, 5 % "
                     f"expected). Numbers of one run share its deals, and settings dealt alike share their luck "
                     f"(W and S; the policies of one setting), so the spread of mean z² is wider than independent "
                     f"numbers give.", "")
            if png := plot_qq(z):
                page.plots["findings-calibration.png"] = png
                page.add("![z-scores of the fresh run against the normal distribution](findings-calibration.png)", "")
            worst = sorted(pairs, key=lambda p: -abs(p[2]))[:10]
            page.add("The largest |z|:", "", *_table(["setting", "policy", "number", "page", "fresh run", "z"],
                                                     [[a.setting, a.policy, a.quantity, a.text(), b.text(),
                                                       f"{zv:+.2f}"] for a, b, zv in worst]))
    if findings.spread:
        page.add("The headline numbers from more seeds: the standard deviation between seeds against the standard "
                 "error each run states (their root mean square). A ratio near 1 (its 95% interval holding 1) says "
                 "the stated intervals have the right width.", "",
                 *_table(["setting", "policy", "number", "seeds", "mean", "sd between seeds", "stated se",
                          "ratio [95%]"],
                         [_spread_cells(r) for r in findings.spread]))


def _spread_cells(row: dict[str, Any]) -> list[str]:
    scale, unit = (100.0, " %") if "rate" in row["number"] else (1.0, "")
    digits = _digits(scale * row["stated"] / 10)
    return [row["setting"], row["policy"], row["number"], str(row["seeds"]),
            f"{scale * row['mean']:.{digits}f}{unit}", f"{scale * row['observed']:.{digits}f}{unit}",
            f"{scale * row['stated']:.{digits}f}{unit}", f"{row['ratio']:.2f} [{row['low']:.2f}, {row['high']:.2f}]"]


def strongest_section(page: Page, findings: Findings, settings_: list[Setting], plan: Plan) -> None:
    """Which policy plays good play in each setting, how it was chosen, and the sizes."""
    rows = []
    for s in settings_:
        policy, how = findings.strongest.get(s.label, ("—", ""))
        m = findings.skill.get(s.label)
        strength = "; ".join(f"{p} {_boot(e)}" for p, e in reversed(m.strength)) if m is not None else "—"
        rows.append([s.label, policy, how, f"{findings.rounds.get((s.label, policy), 0):,}", strength])
    page.add("## Good play", "",
             "The strongest fair policy of each setting plays every \"good play\" number of this page. Strength: each "
             "fair policy's mean payoff per round head to head against the other fair policies of the skill "
             "tournament (strongest first). A policy given with --strongest plays in place of the tournament's "
             "strongest: one that [policies.md](policies.md#strength) measures as strong on thousands of deals "
             f"and that plays the sizes this page needs in its time; it plays in the tournament too, and where "
             f"the tournament's strongest is another policy, their head to head over the tournament's "
             f"{plan.deals:,} deals stands beside it.", "",
             *_table(["setting", "strongest fair policy", "chosen", "rounds", "strength"], rows))


def _own_sizes(plan: Plan, settings_: list[Setting]) -> str:
    """`` (SETTING: N, ...)``: the settings whose search runs have a size of their own."""
    own = [f"{s.label}: {plan.search_rounds_for[s.slug()]:,}" for s in settings_ if s.slug() in plan.search_rounds_for]
    return f" ({'; '.join(own)})" if own else ""


def _own_learned(plan: Plan, settings_: list[Setting]) -> str:
    """``; SETTING: N, ...``: the settings whose learned runs have a size of their own."""
    own = [f"{s.label}: {plan.size('learned', s):,}" for s in settings_ if s.slug() in plan.learned_rounds_for]
    return f"; {'; '.join(own)}" if own else ""


def _own_matches(plan: Plan, settings_: list[Setting]) -> str:
    """``; at most N in SETTING, ...``: the settings whose search matches have a cap of their own."""
    own = [f"{plan.search_matches_for[s.slug()]:,} in {s.label}" for s in settings_ if s.slug() in plan.search_matches_for]
    return f"; at most {', '.join(own)}" if own else ""


def render(findings: Findings, plan: Plan, settings_: list[Setting], command: str, fresh: Findings | None = None,
           fresh_plan: Plan | None = None) -> Page:
    """The page of ``findings`` (and its calibration against ``fresh``, when given)."""
    page = Page()
    shown: list[Number] = []
    page.add("# Findings", "",
             f"Made by `{command}` at commit {_revision()} (seed {plan.seed}; `--no-run` re-renders it from the "
             f"folders under `--out`). Sizes: {plan.rounds:,} rounds per run of a fast policy"
             + (f" (a learned one: {plan.learned_size:,}{_own_learned(plan, settings_)})"
                if plan.learned_rounds is not None or plan.learned_rounds_for else "")
             + ", "
             f"{plan.search_rounds:,} per run of a search policy{_own_sizes(plan, settings_)}, {plan.deals:,} deals "
             f"per pairing of the skill "
             f"tournaments" + (f", {plan.matches:,} matches of {plan.match_rounds} rounds (a search policy: as many rounds as its runs"
                               + (f", at most {plan.search_matches:,} matches" if plan.search_matches is not None else "")
                               + _own_matches(plan, settings_)
                               + ")"
                            if plan.matches else "")
             + ". Every [low, high] is a 95% interval; every table names its policy and size.", "")
    if findings.missing:
        page.add(f"**Not computed yet, so left out of this page:** {'; '.join(findings.missing)}.", "")
    page.add(*answers(findings, settings_, plan))
    page.add("## Glossary", "", *[f"* **{term}**: {text}" for term, text in GLOSSARY], "")
    strongest_section(page, findings, settings_, plan)
    seat_section(page, findings, settings_, plan, shown)
    ends_section(page, findings, settings_, plan, shown)
    yaku_section(page, findings, settings_, plan, shown)
    card_value_section(page, findings, settings_, plan, shown)
    skill_section(page, findings, settings_, plan, shown)
    calling_section(page, findings, settings_, shown)
    variants_section(page, findings, settings_, plan, shown)
    misleading_section(page, findings, settings_, plan)
    shown += [n for n in findings.numbers.values() if n.kind == "boot"]  # the skill measures
    calibration_section(page, shown, fresh, fresh_plan, findings, settings_, command)
    return page


# ---------------------------------------------------------------------------------------------
# Plots


def _figure(width: float, height: float) -> Any:
    from matplotlib.figure import Figure as MatplotlibFigure

    return MatplotlibFigure(figsize=(width, height), layout="constrained")


def _png(figure: Any) -> bytes:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=100)
    return buffer.getvalue()


def plot_seats(findings: Findings, settings_: list[Setting]) -> bytes | None:
    """Payoff per round by seat order, one panel per setting (each in its game's unit)."""
    panels = [(s, findings.strong(s.label)) for s in settings_
              if findings.get(s.label, findings.strong(s.label) or "", "order 0 payoff") is not None]
    if not panels:
        return None
    columns = min(4, len(panels))
    rows = -(-len(panels) // columns)
    figure = _figure(3.2 * columns, 2.4 * rows)
    for index, (s, policy) in enumerate(panels):
        axes = figure.add_subplot(rows, columns, index + 1)
        numbers = [findings.get(s.label, policy or "", f"order {k} payoff") for k in range(s.seats)]
        values = [(k, n) for k, n in enumerate(numbers) if n is not None]
        axes.errorbar([k for k, _ in values], [n.value for _, n in values],
                      yerr=[[n.value - n.low for _, n in values], [n.high - n.value for _, n in values]],
                      fmt="o", capsize=3)
        axes.axhline(0, color="grey", lw=0.8)
        axes.set_xticks(range(s.seats), ["D"] + [f"+{k}" for k in range(1, s.seats)])
        axes.set_title(f"{s.label}\n({policy})", fontsize=8)
        axes.tick_params(labelsize=7)
    figure.supylabel("payoff per round (95% interval)", fontsize=8)
    figure.supxlabel("seat order (D: dealer, +k: k places after)", fontsize=8)
    return _png(figure)


def plot_yaku(findings: Findings, settings_: list[Setting]) -> bytes | None:
    """How often each yaku is made under the strongest policy, one panel per game (first setting of each)."""
    chosen: dict[str, tuple[Setting, list[YakuRow]]] = {}
    for s in settings_:
        rows = findings.yaku.get((s.label, findings.strong(s.label) or ""))
        if rows:
            chosen.setdefault(s.rules, (s, rows))
    if not chosen:
        return None
    heights = [0.5 + 0.18 * len(rows) for _, rows in chosen.values()]
    figure = _figure(8, sum(heights) + 0.5)
    grid = figure.add_gridspec(len(chosen), 1, height_ratios=heights)
    for index, (s, rows) in enumerate(chosen.values()):
        axes = figure.add_subplot(grid[index])
        ordered = sorted(rows, key=lambda r: r.made.value)
        ys = np.arange(len(ordered))
        made = np.array([100 * r.made.value for r in ordered])
        axes.barh(ys, made, xerr=[made - [100 * r.made.low for r in ordered],
                                  [100 * r.made.high for r in ordered] - made], color="tab:blue", alpha=0.8,
                  label="made")
        axes.barh(ys, [100 * r.won.value for r in ordered], height=0.4, color="tab:orange", label="won with")
        axes.set_yticks(ys, [r.name for r in ordered], fontsize=7)
        axes.set_title(f"{s.label} ({findings.strong(s.label)})", fontsize=9)
        axes.legend(fontsize=7, loc="lower right")
    figure.supxlabel("% of rounds (95% interval)", fontsize=8)
    return _png(figure)


def plot_skill(findings: Findings, settings_: list[str]) -> bytes | None:
    """RS of every setting with greedy and random as beginner, bootstrap intervals, on an axis that
    starts at 0 (or below, where an interval does)."""
    entries = []
    for setting in settings_:
        m = findings.skill[setting]
        for j, beginner in enumerate(("greedy", "random")):
            r = m.rs(beginner)
            if r is not None and math.isfinite(r.rs.value):
                entries.append((setting, j, beginner, r.rs))
    if not entries:
        return None
    figure = _figure(8, 0.8 + 0.35 * len(settings_))
    axes = figure.add_subplot(1, 1, 1)
    for j, beginner in enumerate(("greedy", "random")):
        points = [(settings_.index(s), e) for s, jj, _, e in entries if jj == j]
        if not points:
            continue
        ys = [i + (0.15 if j else -0.15) for i, _ in points]
        low = [max(0.0, e.value - e.low) if math.isfinite(e.low) else 0.0 for _, e in points]
        high = [max(0.0, e.high - e.value) if math.isfinite(e.high) else 0.0 for _, e in points]
        axes.errorbar([e.value for _, e in points], ys, xerr=[low, high], fmt="o", capsize=3,
                      label=f"beginner {beginner}")
    lows = [e.low for *_, e in entries if math.isfinite(e.low)] + [0.0]
    highs = [e.high for *_, e in entries if math.isfinite(e.high)] + [1.0]
    axes.set_xlim(min(lows) - 0.02, max(highs) + 0.02)
    axes.axvline(0, color="grey", lw=0.8)
    axes.set_yticks(range(len(settings_)), settings_, fontsize=8)
    axes.invert_yaxis()
    axes.set_xlabel("relative skill RS (95% bootstrap interval)")
    axes.legend(fontsize=8)
    return _png(figure)


def plot_qq(z: np.ndarray) -> bytes | None:
    """The z-scores against the standard normal's quantiles."""
    if len(z) < 3:
        return None
    ordered = np.sort(z)
    expected = np.array([NormalDist().inv_cdf((i + 0.5) / len(z)) for i in range(len(z))])
    figure = _figure(4.5, 4.5)
    axes = figure.add_subplot(1, 1, 1)
    axes.plot(expected, ordered, "o", ms=3)
    edge = float(max(np.abs(ordered).max(), np.abs(expected).max())) + 0.3
    axes.plot([-edge, edge], [-edge, edge], color="grey", lw=0.8)
    axes.set_xlabel("standard normal quantile")
    axes.set_ylabel("z, page against the fresh seed")
    return _png(figure)


# ---------------------------------------------------------------------------------------------


def save_numbers(findings: Findings, path: Path) -> None:
    """Write the numbers as JSON (one object per number)."""
    path.write_text(json.dumps([asdict(n) for n in findings.numbers.values()], indent=0), encoding="utf-8")


def _sizes(values: list[str], flag: str = "--search-rounds-for", unit: str = "rounds") -> dict[str, int]:
    """``flag``'s ``SLUG=N`` values (``--search-rounds-for``, ``--learned-rounds-for``, ``--search-matches-for``): a setting's
    slug -> its own size."""
    out = {}
    for slug, size in _pairs(values, flag, "N").items():
        if not size.strip().isdigit() or int(size) < 1:
            raise SystemExit(f"{flag} {slug}={size}: give SLUG=N (N a whole number of {unit})")
        out[slug] = int(size)
    return out


def _pairs(values: list[str], flag: str, what: str = "POLICY") -> dict[str, str]:
    """``flag``'s ``SLUG=WHAT`` values: a setting's slug -> the text after ``=``."""
    out = {}
    for value in values:
        slug, sep, text = value.partition("=")
        if not sep or not slug or not text:
            raise SystemExit(f"{flag} {value!r}: give SLUG={what} (a setting's slug, e.g. enshu-c-4p)")
        out[slug] = text
    return out


def main(argv: list[str] | None = None) -> int:
    """Run everything and write the page (see the module docstring)."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--policies", default="random,greedy",
                        help="the reference policies, the weakest first (the same policy in every seat)")
    parser.add_argument("--chain", default="random,greedy,heuristic,learned,pimc,ismcts,"
                                           "omniscient:worlds=1,rollout=heuristic,omniscient:worlds=64,rollout=random",
                        help="the skill tournaments' policies: the fair candidates for good play and the fictive "
                             "players (omniscient configurations); a setting leaves out those that cannot play it "
                             "(learned without a model of its rules)")
    parser.add_argument("--strongest", action="append", default=[], metavar="SLUG=POLICY",
                        help="good play in a setting, instead of the measured strongest (repeatable)")
    parser.add_argument("--rounds", type=int, default=1_000_000, help="rounds per run of a fast policy")
    parser.add_argument("--search-rounds", type=int, default=110_000, help="rounds per run of a search policy")
    parser.add_argument("--learned-rounds", type=int,
                        help="rounds per run of a learned policy, at most --rounds (default: --rounds)")
    parser.add_argument("--learned-rounds-for", action="append", default=[], metavar="SLUG=N",
                        help="a setting's own --learned-rounds, at most --rounds (repeatable), e.g. where seats "
                             "sit out rounds and its learned player is fast")
    parser.add_argument("--search-rounds-for", action="append", default=[], metavar="SLUG=N",
                        help="a setting's own --search-rounds (repeatable), e.g. where its search player is fast")
    parser.add_argument("--deals", type=int, default=1_000, help="deals per pairing of the skill tournaments")
    parser.add_argument("--matches", type=int, default=10_000, help="matches of the strongest policy (0: none)")
    parser.add_argument("--match-rounds", type=int, default=12, help="rounds per match")
    parser.add_argument("--search-matches", type=int,
                        help="at most this many matches of a search policy (default: as many rounds as its runs)")
    parser.add_argument("--search-matches-for", action="append", default=[], metavar="SLUG=N",
                        help="a setting's own --search-matches (repeatable), e.g. where its search player is fast")
    parser.add_argument("--variant-rounds", type=int,
                        help="rounds per koi-koi rule variant of a search policy, at most its runs' (default: those)")
    parser.add_argument("--calls", type=int, default=20_000,
                        help="koi-koi rounds whose every koi-koi decision is answered both ways (0: none)")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--check", type=int, metavar="SEED", help="rerun everything with this seed: z-scores")
    parser.add_argument("--check-rounds", type=int, help="--rounds of the check (default: --rounds)")
    parser.add_argument("--check-search-rounds", type=int, help="--search-rounds of the check (default: the page's)")
    parser.add_argument("--check-deals", type=int, help="--deals of the check (default: --deals)")
    parser.add_argument("--check-matches", type=int, help="--matches of the check (default: --matches)")
    parser.add_argument("--check-learned-rounds", type=int,
                        help="--learned-rounds of the check, at most its --rounds (default: --learned-rounds)")
    parser.add_argument("--check-calls", type=int, help="--calls of the check (default: --calls)")
    parser.add_argument("--seeds", type=int, default=0, help="seeds of the multi-seed check of the headline numbers")
    parser.add_argument("--seed-rounds", type=int, default=200_000, help="rounds per run of the multi-seed check")
    parser.add_argument("--seed-policy", default="greedy", help="the policy of the multi-seed check")
    parser.add_argument("--engine", default="kernel", choices=("kernel", "reference"))
    parser.add_argument("--threads", type=int, help="threads per run (default: every core)")
    parser.add_argument("--processes", type=int, default=1,
                        help="settings gathered at once, each in a process of its own (its runs' threads: --threads)")
    parser.add_argument("--out", type=Path, default=Path("findings-runs"))
    parser.add_argument("--doc", type=Path, default=Path("docs/findings.md"))
    parser.add_argument("--log", type=Path, help="append progress lines to this file")
    parser.add_argument("--quick", action="store_true", help="two settings (for a smoke test)")
    parser.add_argument("--no-skill", action="store_true", help="leave out the skill tournaments")
    parser.add_argument("--no-variants", action="store_true", help="leave out koi-koi's rule variants")
    parser.add_argument("--no-run", action="store_true",
                        help="compute nothing: write the page from the complete folders under --out, naming the rest")
    parser.add_argument("--estimate", action="store_true",
                        help="compute nothing: time each policy briefly and print how long every part would take")
    args = parser.parse_args(argv)
    for flag, value in (("--learned-rounds", args.learned_rounds), ("--check-learned-rounds", args.check_learned_rounds)):
        if value is not None and value < 1:
            parser.error(f"{flag} {value}: must be at least 1")
    if args.processes < 1:
        parser.error(f"--processes {args.processes}: must be at least 1")
    for flag, value in (("--calls", args.calls), ("--check-calls", args.check_calls)):
        if value is not None and value < 0:
            parser.error(f"{flag} {value}: must be at least 0 (0: none)")
    from simcore.policies import HiddenCardsWarning
    from simcore.run.tournament import split_policies

    plan = Plan(policies=split_policies(args.policies), chain=split_policies(args.chain), rounds=args.rounds,
                search_rounds=args.search_rounds, deals=args.deals, seed=args.seed, out=args.out,
                matches=args.matches, match_rounds=args.match_rounds,
                strongest=_pairs(args.strongest, "--strongest"), engine=args.engine, threads=args.threads,
                compute=not args.no_run, calls=args.calls,
                variants=not args.no_variants, search_rounds_for=_sizes(args.search_rounds_for),
                variant_rounds=args.variant_rounds, search_matches=args.search_matches,
                search_matches_for=_sizes(args.search_matches_for, "--search-matches-for", "matches"),
                learned_rounds=args.learned_rounds,
                learned_rounds_for=_sizes(args.learned_rounds_for, "--learned-rounds-for"))
    settings_ = settings(args.quick)
    slugs = [s.slug() for s in settings(False)]
    unknown = sorted((set(plan.search_rounds_for) | set(plan.strongest) | set(plan.search_matches_for)
                      | set(plan.learned_rounds_for)) - set(slugs))
    if unknown:
        raise SystemExit(f"no setting has the slug {', '.join(unknown)} (settings: {', '.join(slugs)})")
    warnings.simplefilter("ignore", HiddenCardsWarning)  # the omniscient players are named in the page itself
    # the command that makes the page: a re-render (--no-run) gives the same page from the same folders
    command = " ".join(["python -m benchmarks.findings",
                        *[a for a in (argv if argv is not None else sys.argv[1:]) if a != "--no-run"]])
    skill = not args.no_skill
    if args.estimate:
        return _print_estimate(plan, settings_, skill, args)
    def check(found: Findings) -> Plan:
        """The fresh-seed check's plan, given the page's strongest policies ``found`` so far."""
        return _check_plan(plan, args, args.out / f"check-seed{args.check}", {
            **plan.strongest, **{s.slug(): p for s in settings_ if (p := found.strong(s.label)) is not None}})

    findings, fresh, fresh_plan = gather_all(
        plan, settings_, skill, (args.seeds, args.seed_rounds, args.seed_policy) if args.seeds else None,
        check if args.check is not None else None, args.log, args.processes)
    save_numbers(findings, args.out / f"numbers-seed{plan.seed}.json")
    if fresh is not None and fresh_plan is not None:
        save_numbers(fresh, fresh_plan.out / f"numbers-seed{args.check}.json")
    page = render(findings, plan, settings_, command, fresh, fresh_plan)
    args.doc.parent.mkdir(parents=True, exist_ok=True)
    args.doc.write_text("\n".join(page.parts) + "\n", encoding="utf-8")
    for name, png in page.plots.items():
        (args.doc.parent / name).write_bytes(png)
    print(f"wrote {args.doc} and {len(page.plots)} plot(s)")
    return 0


def _check_plan(plan: Plan, args: argparse.Namespace, out: Path, strongest: dict[str, str]) -> Plan:
    """The fresh-seed check's plan: ``plan`` with the ``--check-*`` sizes and seed, writing to ``out``
    (the settings' own search and learned sizes are the page's alone: the check's search runs are all
    ``--check-search-rounds``, its learned runs ``--check-learned-rounds``)."""
    return dataclasses.replace(
        plan, search_rounds_for={}, search_matches_for={}, learned_rounds_for={},
        rounds=args.check_rounds or plan.rounds, search_rounds=args.check_search_rounds or plan.search_rounds,
        deals=args.check_deals or plan.deals, seed=args.check, out=out,
        matches=plan.matches if args.check_matches is None else args.check_matches, strongest=strongest,
        learned_rounds=plan.learned_rounds if args.check_learned_rounds is None else args.check_learned_rounds,
        calls=plan.calls if args.check_calls is None else args.check_calls)


def _print_estimate(plan: Plan, settings_: list[Setting], skill: bool, args: argparse.Namespace) -> int:
    """``--estimate``: every part's rounds and estimated time, the check's, and the total."""
    import tempfile

    cache: dict[tuple[str, str], float] = {}
    with tempfile.TemporaryDirectory() as scratch:
        parts = estimate(plan, settings_, skill, args.seeds, args.seed_rounds, args.seed_policy, Path(scratch), cache)
        if args.check is not None:
            check = _check_plan(plan, args, plan.out, plan.strongest)
            parts += [(f"check: {p}", r, t) for p, r, t in estimate(check, settings_, skill, 0, 0, args.seed_policy,
                                                                    Path(scratch), cache)]
    print("part,rounds,seconds")
    for part, rounds, seconds in parts:
        print(f"\"{part}\",{rounds},{seconds:.0f}")
    total = sum(t for _, _, t in parts)
    print(f"total: {sum(r for _, r, _ in parts):,} rounds, about {total / 3600:.1f} hours "
          f"(threads: {plan.threads or 'every core'}; the page's own reading and rendering not counted)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
