"""Does a game need two numba engines? The general kernel (``simcore.kernels.units_nb`` over the
game's state machine) against the game's fast kernel (``kernel_nb``), random and greedy seats.

Both kernels write the same rows for random and greedy seats (checked here on the timed rounds);
the fast kernel exists only for speed. This times the two in one process, interleaved (A B, B A,
...) on the same rounds, one thread, after an untimed warm-up that compiles both, and prints each
side's median time per round and the ratio general / fast. The rule of the architecture: the fast
kernel goes when the general one is at least 0.8x as fast (docs/architecture.md).

Run with ``python -m benchmarks.general_vs_fast [--rules tensho-ise enshu-c] [--policy random]
[--rounds 50000] [--repeat 7]``.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numba
import numpy as np

from simcore.games import game_of
from simcore.policies import parse_policy
from simcore.rules import load_rules


def measure(rules_name: str, policy: str, rounds: int, repeat: int) -> tuple[float, float, bool]:
    """Median seconds per round of the fast and the general kernel, and whether their rows agree."""
    rules = load_rules(rules_name, {})
    game = game_of(rules)
    compiled = game.compile(rules)
    specs = [parse_policy(policy, game.name)] * game.players(compiled)
    kernel = __import__(f"simcore.games.{game.name}.kernel", fromlist=["play_units", "play_units_general"])
    sides = {"fast": kernel.play_units, "general": kernel.play_units_general}
    rows = {name: play(compiled, specs, 1, 0, min(rounds, 20_000), None) for name, play in sides.items()}
    same = all(np.array_equal(a, b) for a, b in zip(rows["fast"], rows["general"], strict=True))
    times: dict[str, list[float]] = {name: [] for name in sides}
    for rep in range(repeat):
        order = ("fast", "general") if rep % 2 == 0 else ("general", "fast")
        for name in order:
            start = time.perf_counter()
            sides[name](compiled, specs, 1, rep * rounds, rounds, None)
            times[name].append(time.perf_counter() - start)
    return statistics.median(times["fast"]) / rounds, statistics.median(times["general"]) / rounds, same


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.general_vs_fast", description=__doc__.split("\n\n")[0])
    parser.add_argument("--rules", nargs="+", default=["tensho-ise", "enshu-w", "enshu-c", "koikoi"])
    parser.add_argument("--policy", default="random", choices=("random", "greedy"))
    parser.add_argument("--rounds", type=int, default=50_000)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args(argv)
    numba.set_num_threads(1)
    print(f"{args.policy} at every seat, one thread, median of {args.repeat} interleaved runs of "
          f"{args.rounds:,} rounds")
    print(f"  {'rules':<14}{'fast ns':>10}{'general ns':>12}{'general/fast speed':>20}  rows")
    for name in args.rules:
        fast, general, same = measure(name, args.policy, args.rounds, args.repeat)
        print(f"  {name:<14}{fast * 1e9:10.0f}{general * 1e9:12.0f}{fast / general:20.2f}  "
              f"{'identical' if same else 'DIFFER'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
