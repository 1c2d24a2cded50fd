"""How strong each policy is: head-to-head tournaments along a chain of policies, as a table.

For each case (a rule set, its options and player count) and each adjacent pair of the chain
(``random -> greedy -> heuristic -> pimc`` by default), plus ``ismcts`` against ``pimc``, this
plays a two-policy ``fudasim tournament`` on the same deals (one seed: every pairing sees the same
deals, each deal once per seating) and prints the stronger policy's mean payoff gap per round and
its win-rate gap, each with a 95% interval paired over deals, and the rounds per second. The
table in docs/policies.md is this script's output::

    python -m benchmarks.strength --deals 20000 --out strength-runs > strength.md

``--cases``, ``--chain``, ``--pimc`` and ``--ismcts`` change what is played; ``--engine
reference`` plays the reference engine (slow; for checking).
"""

from __future__ import annotations

import argparse
import math
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

__all__ = ["CASES", "Case", "main", "strength_rows"]

Z95 = 1.959963984540054


@dataclass(frozen=True)
class Case:
    """A rule set to measure on: its name in the table, rules, options and players."""

    label: str
    rules: str
    options: tuple[tuple[str, str], ...] = ()
    players: int | None = None


CASES = {
    "tensho-set1": Case("Tensho (Ise), yaku set 1", "tensho-ise", (("tensho.yaku_set_choice", "fixed_1"),)),
    "tensho-set2": Case("Tensho (Ise), yaku set 2", "tensho-ise", (("tensho.yaku_set_choice", "fixed_2"),)),
    "enshu-w2": Case("Enshu-bana W, 2 players", "enshu-w", players=2),
    "enshu-s3": Case("Enshu-bana S, 3 players", "enshu-s", players=3),
    "enshu-c3": Case("Enshu-bana C, 3 players", "enshu-c", players=3),
    "enshu-c5": Case("Enshu-bana C, 5 players", "enshu-c", players=5),
}
DEFAULT_CHAIN = "random,greedy,heuristic,PIMC"
DEFAULT_PIMC = "pimc:worlds=64,rollout=heuristic"
DEFAULT_ISMCTS = "ismcts:iterations=256,rollout=heuristic"


def _interval(values: np.ndarray) -> tuple[float, float]:
    """Mean and the half-width of its normal 95% interval."""
    n = len(values)
    if n < 2:
        return float(values.mean()) if n else math.nan, math.nan
    return float(values.mean()), Z95 * float(values.std(ddof=1)) / math.sqrt(n)


def strength_rows(case: Case, pairs: list[tuple[str, str]], deals: int, seed: int, out: Path, engine: str,
                  threads: int | None) -> list[dict]:
    """Play each (weaker, stronger) pair of ``case`` on the same deals; one result row per pair."""
    from analysis.tournament import open_tournament
    from simcore.games import game_of
    from simcore.rules import load_rules
    from simcore.run.tournament import TournamentConfig, run_tournament

    options = dict(case.options)
    if case.players is not None:
        game = game_of(load_rules(case.rules))
        if game.players_option is not None:
            options[game.players_option] = str(case.players)
    rows = []
    for k, (weak, strong) in enumerate(pairs):
        folder = out / f"{case.rules}-{case.players or 2}p-{'-'.join(v for _, v in case.options) or 'default'}-{k}"
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
        rows.append({"case": case.label, "weaker": weak, "stronger": strong, "deals": int(keep.sum()),
                     "payoff": _interval(payoff), "wins": _interval(wins), "share": float(share),
                     "rounds_per_s": rounds / seconds if seconds > 0 else math.nan})
    return rows


def _cell(estimate: tuple[float, float], scale: float = 1.0, digits: int = 3) -> str:
    mean, half = estimate
    if not math.isfinite(half):
        return f"{mean * scale:.{digits}f}"
    verdict = "" if abs(mean) > half else " (n.s.)"
    return f"{mean * scale:+.{digits}f} ± {half * scale:.{digits}f}{verdict}"


def markdown(rows: list[dict]) -> str:
    """The result rows as a Markdown table (``(n.s.)``: the interval contains 0)."""
    lines = ["| case | weaker → stronger | deals | payoff gap per round | win-rate gap (points) | stronger wins | rounds/s |",
             "|---|---|---:|---:|---:|---:|---:|"]
    for r in rows:
        rate = "" if not math.isfinite(r["rounds_per_s"]) else f"{r['rounds_per_s']:,.0f}"
        lines.append(f"| {r['case']} | {r['weaker']} → {r['stronger']} | {r['deals']:,} | {_cell(r['payoff'])} | "
                     f"{_cell(r['wins'], 100, 1)} | {100 * r['share']:.1f}% | {rate} |")
    return "\n".join(lines) + "\n"


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
    parser.add_argument("--chain", default=DEFAULT_CHAIN, help="policies weakest first; PIMC stands for --pimc")
    parser.add_argument("--pimc", default=DEFAULT_PIMC)
    parser.add_argument("--ismcts", default=DEFAULT_ISMCTS, help="played against --pimc ('' to skip)")
    parser.add_argument("--deals", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--engine", default="kernel", choices=("kernel", "reference"))
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--out", type=Path, default=Path("strength-runs"), help="tournament folders (resumed if present)")
    args = parser.parse_args(argv)
    from simcore.run.tournament import split_policies

    chain = [args.pimc if p == "PIMC" else p for p in split_policies(args.chain)]
    pairs = list(zip(chain, chain[1:], strict=False))
    if args.ismcts:
        pairs.append((args.pimc, args.ismcts))
    rows = []
    for name in args.cases.split(","):
        if name not in CASES:
            parser.error(f"--cases: unknown case {name!r} (known: {', '.join(CASES)})")
        rows += strength_rows(CASES[name], pairs, args.deals, args.seed, args.out, args.engine, args.threads)
    command = " ".join(["python -m benchmarks.strength", *(argv if argv is not None else sys.argv[1:])])
    sys.stdout.write(markdown(rows))
    sys.stdout.write(f"\n`{command}` at {_revision()}, seed {args.seed}; ± is the 95% interval paired over deals.\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
