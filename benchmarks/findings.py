"""The findings page: what the games look like under random, greedy and search players.

Runs everything ``docs/findings.md`` reports and writes the page and its plots::

    python -m benchmarks.findings --out findings-runs --doc docs/findings.md

Sections (every number with its 95% interval; each table names the command and commit):

* Tensho (Ise with yaku set 1 and 2; the hanafuda skin): the dealer's edge, how rounds end, the
  most frequent yaku, and the card-value tables T2 and T3 against T1 (a sweep on the same deals),
  each under every policy of ``--policies`` in both seats;
* Enshu-bana W, S and C at every player count: the dealer's edge, how rounds end (uchikiri,
  teyaku stops, Fuke), the win rate by seat order, the most frequent yaku;
* the skill measures (``fudasim skill``) of every game and variant side by side;
* where random play gives a different answer from the strongest policy (intervals apart).

``--rounds`` and ``--search-rounds`` set the sizes (the search players are far slower),
``--deals`` the skill tournaments' size; folders under ``--out`` are reused when present, so an
interrupted page resumes.
"""

from __future__ import annotations

import argparse
import io
import math
import subprocess
import sys
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["Setting", "main", "settings"]

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


def _options(setting: Setting) -> dict[str, str]:
    from simcore.runner import with_players

    return with_players(setting.rules, dict(setting.options), setting.players)


ENGINE = {"engine": "kernel"}  # set by main: the engine of every run


def _run(setting: Setting, policy: str, rounds: int, seed: int, out: Path, extra: dict[str, str] | None = None) -> Path:
    """One run of ``setting`` with ``policy`` in every seat (reused when already complete)."""
    from simcore.dataset import check_dataset
    from simcore.runner import RunConfig, run

    path = out / f"{setting.slug()}-{policy.replace(':', '_').replace(',', '_').replace('=', '')}" \
        f"{'-' + '-'.join(extra.values()) if extra else ''}"
    if path.is_dir() and (path / "_run.json").is_file():
        check = check_dataset(path, checksums=False)
        if check.complete and not check.problems:
            return path
    seats = setting.players or 2
    run(RunConfig(rules=setting.rules, options={**_options(setting), **(extra or {})}, seed=seed, rounds=rounds,
                  policies={s: policy for s in range(seats)}, out=str(path), resume=path.is_dir(),
                  engine=ENGINE["engine"]))
    return path


def _rate(k: float, n: int) -> str:
    p = k / n if n else math.nan
    half = Z95 * math.sqrt(max(p * (1 - p), 1e-300) / n) if n else math.nan
    return f"{100 * p:.2f} ± {100 * half:.2f}"


def _mean(values: np.ndarray) -> str:
    n = len(values)
    half = Z95 * float(values.std(ddof=1)) / math.sqrt(n) if n > 1 else math.nan
    return f"{float(values.mean()):+.3f} ± {half:.3f}"


def describe_run(path: Path) -> dict[str, Any]:
    """The page's numbers of one run: dealer's edge, end reasons, win rate by seat order, yaku."""
    from analysis.reader import open_run
    from simcore.dataset import read_dataset

    dataset = open_run(path)
    players = dataset.seats
    frame = read_dataset(path, columns=["dealer", "winner", "end_reason",
                                        *[f"yaku_{s}" for s in range(players)]])
    n = len(frame)
    dealer = frame["dealer"].to_numpy()
    winner = frame["winner"].to_numpy()
    won = winner >= 0
    edge = np.where(winner == dealer, 1.0, np.where(won, -1.0 / (players - 1), 0.0))
    order = (winner - dealer) % players
    yaku_any = np.zeros(n, dtype=np.uint64)
    for s in range(players):
        yaku_any |= frame[f"yaku_{s}"].to_numpy()
    names = {y.bit: y.name for y in dataset.yaku}
    counts = {names[b]: int(((yaku_any >> np.uint64(b)) & np.uint64(1)).sum()) for b in names}
    top = sorted(counts.items(), key=lambda kv: -kv[1])[:5]
    return {
        "rounds": n,
        "players": players,
        "dealer_wins": _rate(int((winner == dealer).sum()), n),
        "dealer_edge": _mean(edge),
        "dealer_edge_value": (float(edge.mean()), Z95 * float(edge.std(ddof=1)) / math.sqrt(n)),
        "ends": {str(r): _rate(int((frame["end_reason"] == r).sum()), n)
                 for r in frame["end_reason"].cat.categories if (frame["end_reason"] == r).any()},
        "by_order": [_rate(int(((order == k) & won).sum()), n) for k in range(players)],
        "top_yaku": [(name, _rate(count, n)) for name, count in top],
    }


def _revision() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True,
                              cwd=Path(__file__).resolve().parents[1]).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    return ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)] + \
        ["| " + " | ".join(str(c) for c in row) + " |" for row in rows] + [""]


def tensho_section(page: Page, settings_: list[Setting], policies: list[str], sizes: dict[str, int], seed: int,
                   out: Path) -> list[tuple[str, str, tuple[float, float]]]:
    """Tensho's tables; returns (setting, policy, dealer edge) for the misleading-random check."""
    from analysis.sweep import build_sweep_report
    from simcore.sweep import SweepConfig, run_sweep

    edges = []
    page.add("## Tensho", "")
    for setting in settings_:
        rows, ends, yaku, values = [], [], [], []
        for policy in policies:
            described = describe_run(_run(setting, policy, sizes[policy], seed, out))
            edges.append((setting.label, policy, described["dealer_edge_value"]))
            rows.append([policy, f"{described['rounds']:,}", described["dealer_wins"], described["dealer_edge"]])
            ends.append([policy, *[f"{k}: {v}" for k, v in described["ends"].items()]])
            yaku.append([policy, *[f"{k} {v}" for k, v in described["top_yaku"][:3]]])
            folder = out / f"sweep-{setting.slug()}-{policy.replace(':', '_').replace(',', '_').replace('=', '')}"
            if not (folder / "_tournament.json").is_file() or not _complete(folder):
                run_sweep(SweepConfig(rules=setting.rules, options=_options(setting),
                                      vary=[("tensho.card_values", ["T1_ise", "T2_alt", "T3_hanafuda"])],
                                      policies={0: policy, 1: policy}, rounds=sizes[policy], seed=seed,
                                      out=str(folder), resume=folder.is_dir(), engine=ENGINE["engine"]))
            differences = build_sweep_report(folder).table("sweep_differences").frame
            for _, r in differences[differences["metric"].isin(["dealer wins", "seat 0 wins"])].iterrows():
                values.append([policy, r["combination"].split(",")[0], r["metric"], r["difference"]])
        page.add(f"### {setting.label}", "", "Dealer's win rate (%) and edge (dealer's mean result per round: "
                 "+1 a win, -1/(players-1) a loss, 0 a draw):", "")
        page.add(*_table(["players' policy", "rounds", "dealer wins %", "dealer's edge"], rows))
        page.add("How rounds end (% of rounds):", "", *_table(["policy", "end reasons"], [[r[0], "; ".join(r[1:])]
                                                                                         for r in ends]))
        page.add("Most frequent yaku (% of rounds, either seat):", "",
                 *_table(["policy", "first", "second", "third"], yaku))
        page.add("Card-value tables against T1 (paired on the same deals; points, * significant after Holm):", "",
                 *_table(["policy", "table", "outcome", "difference"], values))
    return edges


def _complete(folder: Path) -> bool:
    import json

    try:
        return json.loads((folder / "_tournament.json").read_text()).get("complete") is True
    except (OSError, ValueError):
        return False


def enshu_section(page: Page, settings_: list[Setting], policies: list[str], sizes: dict[str, int], seed: int,
                  out: Path) -> list[tuple[str, str, tuple[float, float]]]:
    """Enshu-bana's tables; returns (setting, policy, dealer edge)."""
    edges = []
    page.add("## Enshu-bana", "")
    for setting in settings_:
        rows, orders = [], []
        for policy in policies:
            d = describe_run(_run(setting, policy, sizes[policy], seed, out))
            edges.append((setting.label, policy, d["dealer_edge_value"]))
            ends = d["ends"]
            rows.append([policy, f"{d['rounds']:,}", d["dealer_wins"], d["dealer_edge"],
                         ends.get("uchikiri", "0"), ends.get("teyaku_stop", "0"), ends.get("fuke", "0"),
                         ", ".join(f"{k} {v}" for k, v in d["top_yaku"][:2])])
            orders.append([policy, *d["by_order"]])
        page.add(f"### {setting.label}", "")
        page.add(*_table(["policy", "rounds", "dealer wins %", "dealer's edge", "uchikiri %", "teyaku stop %",
                          "Fuke %", "most frequent yaku %"], rows))
        page.add("Win rate by seat order (% of rounds; 0 = the dealer, then in playing order):", "",
                 *_table(["policy", *[str(k) for k in range(setting.players or 2)]], orders))
    return edges


def skill_section(page: Page, settings_: list[Setting], chain: list[str], deals: int, seed: int, out: Path,
                  engine: str) -> list[tuple[str, str]]:
    """The skill measures of every setting side by side; returns (setting, RS against random)."""
    from analysis.skill_report import build_skill_report
    from simcore.tournament import TournamentConfig, run_tournament

    rows, found = [], []
    for setting in settings_:
        folder = out / f"skill-{setting.slug()}"
        if not _complete(folder):
            run_tournament(TournamentConfig(rules=setting.rules, options=_options(setting), policies=tuple(chain),
                                            deals=deals, seed=seed, engine=engine, out=str(folder),
                                            resume=folder.is_dir()))
        report = build_skill_report(folder)
        relative = report.table("skill_relative").frame
        gaps = report.table("skill_gaps").frame
        lead = report.table("skill_rounds_to_lead").frame
        shares = report.table("skill_variance").frame
        rs = relative["RS"].iloc[0] if len(relative) else "n/a"
        found.append((setting.label, rs))
        rows.append([setting.label, rs, gaps["payoff gap per round"].iloc[0], lead["n* (formula)"].iloc[0],
                     f"{shares['deal %'].iloc[0]} / {shares['policy %'].iloc[0]}"])
    page.add("## Skill against luck", "", f"Policies, weakest first: {' -> '.join(chain)}; {deals:,} deals per "
             "pairing. RS: relative skill against the first policy as beginner (docs/skill.md).", "")
    page.add(*_table(["setting", "RS", f"{chain[0]} -> {chain[1]} payoff gap", "n* (rounds to lead)",
                      "deal % / policy % of the variance"], rows))
    return found


def misleading(page: Page, edges: list[tuple[str, str, tuple[float, float]]], weakest: str, strongest: str) -> None:
    """Say where the weakest policy's dealer edge lies outside the strongest policy's interval."""
    page.add("## Where random play misleads", "")
    lines = []
    by = {(s, p): v for s, p, v in edges}
    for setting in dict.fromkeys(s for s, _, _ in edges):
        if (setting, weakest) not in by or (setting, strongest) not in by:
            continue
        (a, ha), (b, hb) = by[(setting, weakest)], by[(setting, strongest)]
        if abs(a - b) > ha + hb:
            lines.append(f"* {setting}: the dealer's edge is {a:+.3f} ± {ha:.3f} under {weakest} play but "
                         f"{b:+.3f} ± {hb:.3f} under {strongest} play.")
    page.add(*(lines or [f"* No dealer's edge differs between {weakest} and {strongest} play beyond the intervals."]),
             "")


def plot_edges(edges: list[tuple[str, str, tuple[float, float]]]) -> bytes:
    """The dealer's edge of every setting and policy, with intervals, as a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    settings_ = list(dict.fromkeys(s for s, _, _ in edges))
    policies = list(dict.fromkeys(p for _, p, _ in edges))
    fig, ax = plt.subplots(figsize=(9, 0.4 + 0.35 * len(settings_) * len(policies) / 2))
    for j, policy in enumerate(policies):
        values = [(i, v) for i, s in enumerate(settings_) for s2, p, v in edges if s2 == s and p == policy]
        ys = [i + (j - (len(policies) - 1) / 2) * 0.2 for i, _ in values]
        ax.errorbar([v[0] for _, v in values], ys, xerr=[v[1] for _, v in values], fmt="o", capsize=2, label=policy)
    ax.axvline(0, color="grey", lw=0.8)
    ax.set_yticks(range(len(settings_)), settings_)
    ax.set_xlabel("dealer's edge per round (95% interval)")
    ax.legend()
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=100)
    plt.close(fig)
    return buffer.getvalue()


def main(argv: list[str] | None = None) -> int:
    """Run everything and write the page (see the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--policies", default="random,greedy,pimc:worlds=16,rollout=greedy",
                        help="the players described (weakest first; the same policy in every seat)")
    parser.add_argument("--chain", default="random,greedy,heuristic,pimc:worlds=16,rollout=greedy,"
                                           "omniscient:worlds=16,rollout=greedy",
                        help="the skill tournaments' policies, weakest first, omniscient last")
    parser.add_argument("--rounds", type=int, default=1_000_000, help="rounds per run of a fast policy")
    parser.add_argument("--search-rounds", type=int, default=20_000, help="rounds per run of a search policy")
    parser.add_argument("--deals", type=int, default=5_000, help="deals per pairing of the skill tournaments")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--engine", default="kernel", choices=("kernel", "reference"))
    parser.add_argument("--out", type=Path, default=Path("findings-runs"))
    parser.add_argument("--doc", type=Path, default=Path("docs/findings.md"))
    parser.add_argument("--quick", action="store_true", help="one setting per game (for a smoke test)")
    parser.add_argument("--no-skill", action="store_true", help="leave out the skill tournaments")
    args = parser.parse_args(argv)
    from simcore.policies import POLICY_KINDS, HiddenCardsWarning
    from simcore.tournament import split_policies

    policies = split_policies(args.policies)
    chain = split_policies(args.chain)
    sizes = {p: (args.rounds if POLICY_KINDS[p.partition(":")[0]].policy_id <= 2 else args.search_rounds)
             for p in policies}
    tensho, enshu = settings(args.quick)
    ENGINE["engine"] = args.engine
    warnings.simplefilter("once", HiddenCardsWarning)  # the omniscient player is named in the page itself
    args.out.mkdir(parents=True, exist_ok=True)
    command = " ".join(["python -m benchmarks.findings", *(argv if argv is not None else sys.argv[1:])])
    page = Page()
    page.add("# Findings", "", f"Generated by `{command}` at commit {_revision()} (seed {args.seed}). Every ± is "
             "a 95% interval. Rerun the command to check any number: a fresh run agrees within its interval.", "",
             "![The dealer's edge by game and policy](findings-dealer-edge.png)", "")
    edges = tensho_section(page, tensho, policies, sizes, args.seed, args.out)
    edges += enshu_section(page, enshu, policies, sizes, args.seed, args.out)
    misleading(page, edges, policies[0], policies[-1])
    if not args.no_skill:
        skill_section(page, tensho + enshu, chain, args.deals, args.seed, args.out, args.engine)
    page.plots["findings-dealer-edge.png"] = plot_edges(edges)
    args.doc.parent.mkdir(parents=True, exist_ok=True)
    args.doc.write_text("\n".join(page.parts) + "\n", encoding="utf-8")
    for name, png in page.plots.items():
        (args.doc.parent / name).write_bytes(png)
    print(f"wrote {args.doc} and {len(page.plots)} plot(s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
