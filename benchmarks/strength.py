"""How strong each policy is: head-to-head tournaments on duplicate deals, as a table.

For each case (a rule set, its options and player count) this plays two-policy ``fudasim
tournament``s on the same deals (one seed: every pairing sees the same deals, each deal once per
seating): each adjacent pair of the chain (``greedy -> heuristic`` by default), then each of
``--versus`` against ``heuristic``: ``pimc`` and ``ismcts`` with their defaults, ``pimc`` with
four times its default budget (``--strong``) and ``learned`` (only in a case a model ships for);
with ``--ismcts-vs-pimc`` also ``ismcts`` against ``pimc``. It prints the second policy's mean
payoff gap per round and its win-rate gap, each with a 95% interval paired over deals, each
policy's time per decision (the tournament's, see docs/tournament.md) and the rounds per second;
then, per case, the strongest of the policies played, and whether it beats the heuristic by at
least as much as the heuristic beats greedy. The table in docs/policies.md is this script's
output::

    python -m benchmarks.strength --scale 2 --out strength-runs > strength.md

Each case plays its own number of deals (``Case.deals``, sized so that its intervals are of use),
times ``--scale``; ``--deals`` gives every case the same number instead. ``--cases``,
``--chain``, ``--versus``, ``--pimc``, ``--ismcts`` and ``--strong`` change what is played;
``--engine reference`` plays the reference engine (slow; for checking). Finished tournament
folders under ``--out`` are reused, so an interrupted table resumes.
"""

from __future__ import annotations

import argparse
import math
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

__all__ = ["CASES", "Case", "main", "margins", "strength_rows", "strongest"]

Z95 = 1.959963984540054


@dataclass(frozen=True)
class Case:
    """A rule set to measure on: its name in the table, rules, options and players."""

    label: str
    rules: str
    options: tuple[tuple[str, str], ...] = ()
    players: int | None = None
    deals: int = 2000  # at --scale 1
    model: str | None = None  # the shipped learned model's case (``simcore.models``), if one ships


CASES = {
    "tensho-set1": Case("Tensho (Ise), yaku set 1", "tensho-ise", (("tensho.yaku_set_choice", "fixed_1"),),
                        deals=4000, model="tensho-set1"),
    "tensho-set2": Case("Tensho (Ise), yaku set 2", "tensho-ise", (("tensho.yaku_set_choice", "fixed_2"),),
                        deals=4000, model="tensho-set2"),
    "enshu-w2": Case("Enshu-bana W, 2 players", "enshu-w", players=2, deals=2000, model="enshu-w2"),
    "enshu-w3": Case("Enshu-bana W, 3 players", "enshu-w", players=3, deals=1000, model="enshu-w3"),
    "enshu-s2": Case("Enshu-bana S, 2 players", "enshu-s", players=2, deals=4000, model="enshu-s2"),
    "enshu-s3": Case("Enshu-bana S, 3 players", "enshu-s", players=3, deals=1000, model="enshu-s3"),
    "enshu-c2": Case("Enshu-bana C, 2 players", "enshu-c", players=2, deals=2000, model="enshu-c2"),
    "enshu-c3": Case("Enshu-bana C, 3 players", "enshu-c", players=3, deals=1000, model="enshu-c3"),
    "enshu-c5": Case("Enshu-bana C, 5 players", "enshu-c", players=5, deals=600, model="enshu-c5"),
    "koikoi": Case("Koi-koi (Nintendo-style values)", "koikoi", deals=4000, model="koikoi-koikoi"),
    "koikoi-kkj": Case("Koi-koi (KoiKoi-Japan)", "koikoi-kkj", deals=4000, model="koikoi-kkj"),
}
DEFAULT_CHAIN = "greedy,heuristic"
DEFAULT_VERSUS = "PIMC,ISMCTS,STRONG,learned"
DEFAULT_PIMC = "pimc"
DEFAULT_ISMCTS = "ismcts"
DEFAULT_STRONG = "pimc:worlds=64,confirm=64"  # pimc with four times its default budget


def _interval(values: np.ndarray) -> tuple[float, float]:
    """Mean and the half-width of its normal 95% interval."""
    n = len(values)
    if n < 2:
        return float(values.mean()) if n else math.nan, math.nan
    return float(values.mean()), Z95 * float(values.std(ddof=1)) / math.sqrt(n)


def strength_rows(case: Case, pairs: list[tuple[str, str]], deals: int, seed: int, out: Path, engine: str,
                  threads: int | None) -> list[dict]:
    """Play each (weaker, stronger) pair of ``case`` on the same deals; one result row per pair."""
    from analysis.tournament import decision_times, open_tournament
    from simcore.games import game_of
    from simcore.rules import load_rules
    from simcore.run.tournament import TournamentConfig, run_tournament

    options = dict(case.options)
    if case.players is not None:
        game = game_of(load_rules(case.rules))
        if game.players_option is not None:
            options[game.players_option] = str(case.players)
    rows = []
    for weak, strong in pairs:
        # the folder is named by the pairing, so that a rerun with other pairs resumes only its own
        pairing = re.sub(r"[^A-Za-z0-9=.-]+", "_", f"{weak}--{strong}")
        folder = out / f"{case.rules}-{case.players or 2}p-{'-'.join(v for _, v in case.options) or 'default'}-{pairing}"
        config = TournamentConfig(rules=case.rules, options=options, policies=(weak, strong), deals=deals, seed=seed,
                                  engine=engine, threads=threads, out=str(folder), resume=folder.exists())
        result = run_tournament(config)
        data = open_tournament(folder)
        (pair,) = data.pairs
        keep = pair.present
        sign = -1.0 if pair.first == 0 else 1.0  # policy 1 (stronger) minus policy 0
        payoff = sign * pair.payoff_diff[keep]
        wins = sign * (pair.a_wins[keep] - pair.b_wins[keep]) / len(pair.seatings)
        share = (pair.b_wins[keep] if pair.first == 0 else pair.a_wins[keep]).sum() / (keep.sum() * len(pair.seatings))
        timings = result.manifest.get("timing") or {}
        seconds = sum(float(t.get("seconds", 0.0)) for t in timings.values()) if isinstance(timings, dict) else 0.0
        rounds = int(keep.sum()) * len(pair.seatings)
        _, per_decision = decision_times(result.manifest, 2)
        rows.append({"case": case.label, "weaker": weak, "stronger": strong, "deals": int(keep.sum()),
                     "payoff": _interval(payoff), "wins": _interval(wins), "share": float(share),
                     "rounds_per_s": rounds / seconds if seconds > 0 else math.nan,
                     "us_weaker": float(per_decision[0]), "us_stronger": float(per_decision[1])})
    return rows


def _cell(estimate: tuple[float, float], scale: float = 1.0, digits: int = 3) -> str:
    mean, half = estimate
    if not math.isfinite(half):
        return f"{mean * scale:.{digits}f}"
    verdict = "" if abs(mean) > half else " (n.s.)"
    return f"{mean * scale:+.{digits}f} ± {half * scale:.{digits}f}{verdict}"


def _us(value: float) -> str:
    return "" if not math.isfinite(value) else f"{value:,.0f}" if value >= 10 else f"{value:.1f}"


def markdown(rows: list[dict]) -> str:
    """The result rows as a Markdown table (``(n.s.)``: the interval contains 0)."""
    lines = ["| case | weaker → stronger | deals | payoff gap per round | win-rate gap (points) | stronger wins | "
             "µs per decision | rounds/s |",
             "|---|---|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        rate = "" if not math.isfinite(r["rounds_per_s"]) else f"{r['rounds_per_s']:,.0f}"
        times = f"{_us(r.get('us_weaker', math.nan))} / {_us(r.get('us_stronger', math.nan))}"
        lines.append(f"| {r['case']} | {r['weaker']} → {r['stronger']} | {r['deals']:,} | {_cell(r['payoff'])} | "
                     f"{_cell(r['wins'], 100, 1)} | {100 * r['share']:.1f}% | {times} | {rate} |")
    return "\n".join(lines) + "\n"


def strongest(rows: list[dict]) -> list[tuple[str, str, str]]:
    """Per case, the policy ahead on payoff (point estimates) of every policy it was played
    against (of several such, the one played most, then the one of the largest smallest gap),
    and whether all its gaps are clear of 0:
    ``(case, policy or "none", "clear"|"not resolved"|"")``."""
    out = []
    for case in dict.fromkeys(r["case"] for r in rows):
        mine = [r for r in rows if r["case"] == case]
        best: tuple[int, float, str, str] = (0, 0.0, "none", "")
        for name in dict.fromkeys(n for r in mine for n in (r["weaker"], r["stronger"])):
            gaps = [r["payoff"] if r["stronger"] == name else (-r["payoff"][0], r["payoff"][1])
                    for r in mine if name in (r["weaker"], r["stronger"])]
            margin = min(mean for mean, _ in gaps) if gaps else 0.0
            if all(mean > 0 for mean, _ in gaps) and (len(gaps), margin) > best[:2]:
                clear = all(mean - half > 0 for mean, half in gaps)
                best = (len(gaps), margin, name, "clear" if clear else "not resolved")
        out.append((case, best[2], best[3]))
    return out


def _gap(rows: list[dict], case: str, weak: str, strong: str) -> tuple[float, float] | None:
    for r in rows:
        if r["case"] == case and r["weaker"] == weak and r["stronger"] == strong:
            return r["payoff"]
    return None


def margins(rows: list[dict], case: str, policy: str) -> tuple[str, str, str]:
    """``policy``'s payoff gap over ``heuristic`` in ``case``, the heuristic's over ``greedy`` (as
    table cells, "" where not played) and whether the first is at least the second (point
    estimates: "yes" or "no"; "" where either was not played)."""
    over, under = _gap(rows, case, "heuristic", policy), _gap(rows, case, "greedy", "heuristic")
    verdict = "" if over is None or under is None else "yes" if over[0] >= under[0] else "no"
    return ("" if over is None else _cell(over), "" if under is None else _cell(under), verdict)


def _revision() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True,
                              cwd=Path(__file__).resolve().parents[1]).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def main(argv: list[str] | None = None) -> int:
    """Run the strength tournaments and print the table (see the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", default=",".join(CASES), help=f"comma-separated, of {', '.join(CASES)}")
    parser.add_argument("--chain", default=DEFAULT_CHAIN,
                        help="policies weakest first; PIMC, ISMCTS and STRONG stand for --pimc, --ismcts and --strong")
    parser.add_argument("--versus", default=DEFAULT_VERSUS,
                        help="each played against heuristic when the chain holds it ('' for none)")
    parser.add_argument("--pimc", default=DEFAULT_PIMC)
    parser.add_argument("--ismcts", default=DEFAULT_ISMCTS, help="'' to play no ismcts")
    parser.add_argument("--strong", default=DEFAULT_STRONG, help="a search with a larger budget ('' for none)")
    parser.add_argument("--ismcts-vs-pimc", action="store_true", help="also --ismcts against --pimc")
    parser.add_argument("--deals", type=int, default=None, help="every case's deals (default: its own, scaled)")
    parser.add_argument("--scale", type=float, default=1.0, help="times each case's own deals")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--engine", default="kernel", choices=("kernel", "reference"))
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--out", type=Path, default=Path("strength-runs"), help="tournament folders (resumed if present)")
    args = parser.parse_args(argv)
    from simcore.models import shipped_models
    from simcore.run.tournament import split_policies

    def named(policy: str) -> str:
        return {"PIMC": args.pimc, "ISMCTS": args.ismcts, "STRONG": args.strong}.get(policy, policy)

    chain = [p for p in (named(p) for p in split_policies(args.chain)) if p]
    pairs = list(zip(chain, chain[1:], strict=False))
    if "heuristic" in chain and args.versus:
        for other in (named(p) for p in split_policies(args.versus)):
            if other and ("heuristic", other) not in pairs:
                pairs.append(("heuristic", other))
    if args.ismcts_vs_pimc and args.ismcts and (args.pimc, args.ismcts) not in pairs:
        pairs.append((args.pimc, args.ismcts))
    models = {f"{m.game}-{m.case}" for m in shipped_models()}
    rows = []
    for name in args.cases.split(","):
        if name not in CASES:
            parser.error(f"--cases: unknown case {name!r} (known: {', '.join(CASES)})")
        case = CASES[name]
        deals = args.deals if args.deals is not None else max(1, round(case.deals * args.scale))
        mine = [(weak, strong) for weak, strong in pairs
                if "learned" not in (weak.partition(":")[0], strong.partition(":")[0]) or case.model in models]
        rows += strength_rows(case, mine, deals, args.seed, args.out, args.engine, args.threads)
    command = " ".join(["python -m benchmarks.strength", *(argv if argv is not None else sys.argv[1:])])
    sys.stdout.write(markdown(rows))
    sys.stdout.write("\n| case | strongest policy | its gaps | its gap over heuristic | heuristic's over greedy | "
                     "at least as large |\n|---|---|---|---:|---:|---|\n")
    for label, policy, verdict in strongest(rows):
        over, under, at_least = margins(rows, label, policy)
        sys.stdout.write(f"| {label} | {policy} | {verdict} | {over} | {under} | {at_least} |\n")
    sys.stdout.write(f"\n`{command}` at {_revision()}, seed {args.seed}; ± is the 95% interval paired over deals; "
                     f"µs per decision: weaker / stronger.\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
