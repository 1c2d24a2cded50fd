"""Koi-koi's kernel speed, one thread, as ratios against kernels timed in the same run.

Times, interleaved in one process (each side in turn, rotating the order) after an untimed
warm-up that compiles them: koi-koi's fast kernel (``simcore.games.koikoi.kernel_nb``) and its
general kernel (``simcore.kernels.units_nb`` over ``state_nb``) with the same seats, and
Tensho's fast kernel with random seats (``tensho-ise``). Prints each side's best and median
rounds/s of ``--repeat`` runs and the ratios koi-koi fast / general and koi-koi fast / Tensho,
which see the same machine load; and whether the fast and the general kernel wrote identical
rows for the timed rounds.

Run with ``python -m benchmarks.koikoi_bench [--rules koikoi koikoi-kkj] [--policy random]
[--rounds 200000] [--repeat 9]``.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import numba
import numpy as np

from simcore.games import game_of
from simcore.games.koikoi import kernel as koikoi_kernel
from simcore.games.tensho import kernel as tensho_kernel
from simcore.policies import parse_policy
from simcore.rules import load_rules

Side = Callable[[int, int], tuple[np.ndarray, np.ndarray]]


def side(play, rules_name: str, policy: str) -> Side:
    """``(first_unit, n_units) -> rows`` of ``play`` under ``rules_name``, ``policy`` at both
    seats."""
    rules = load_rules(rules_name, {})
    game = game_of(rules)
    compiled = game.compile(rules)
    specs = [parse_policy(policy, game.name)] * 2
    return lambda first, n: play(compiled, specs, 1, first, n, None)


def tenth(play: Side) -> Side:
    """``play`` on a tenth of the rounds asked (the general kernel's runs)."""
    return lambda first, n: play(first, max(1, n // 10))


def timed(sides: dict[str, Side], rounds: int, repeat: int) -> dict[str, list[float]]:
    """Rounds/s of each side in ``repeat`` interleaved runs of ``rounds`` fresh rounds."""
    names = list(sides)
    rates: dict[str, list[float]] = {name: [] for name in names}
    for rep in range(repeat):
        shift = rep % len(names)
        for name in names[shift:] + names[:shift]:
            start = time.perf_counter()
            sides[name](rep * rounds, rounds)
            rates[name].append(rounds / (time.perf_counter() - start))
    return rates


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.koikoi_bench",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--rules", nargs="+", default=["koikoi", "koikoi-kkj"])
    parser.add_argument("--policy", default="random", choices=("random", "greedy"))
    parser.add_argument("--rounds", type=int, default=200_000)
    parser.add_argument("--repeat", type=int, default=9)
    args = parser.parse_args(argv)
    numba.set_num_threads(1)
    general_rounds = max(1, args.rounds // 10)  # the general kernel is slower: fewer rounds a run
    tensho_side = side(tensho_kernel.play_units, "tensho-ise", "random")
    sides: dict[str, Side] = {"tensho-ise fast (random)": tensho_side}
    identical = {}
    for name in args.rules:
        fast = side(koikoi_kernel.play_units, name, args.policy)
        general = side(koikoi_kernel.play_units_general, name, args.policy)
        identical[name] = all(np.array_equal(a, b) for a, b in
                              zip(fast(0, general_rounds), general(0, general_rounds), strict=True))
        sides[f"{name} fast"] = fast
        sides[f"{name} general"] = tenth(general)
    sides["tensho-ise fast (random)"](0, 1000)  # compile
    rates = timed(sides, args.rounds, args.repeat)
    for name in args.rules:  # the general kernel's runs played a tenth of the rounds
        rates[f"{name} general"] = [r / 10 for r in rates[f"{name} general"]]
    print(f"{args.policy} at both koi-koi seats, one thread, {args.repeat} interleaved runs of "
          f"{args.rounds:,} rounds (the general kernel: {args.rounds // 10:,})")
    print(f"  {'kernel':<28}{'best rounds/s':>15}{'median':>12}")
    for name, values in rates.items():
        print(f"  {name:<28}{max(values):15,.0f}{statistics.median(values):12,.0f}")
    tensho = rates["tensho-ise fast (random)"]
    for name in args.rules:
        fast_rates, general_rates = rates[f"{name} fast"], rates[f"{name} general"]
        print(f"  {name}: fast / general {max(fast_rates) / max(general_rates):.2f}x best, "
              f"{statistics.median(fast_rates) / statistics.median(general_rates):.2f}x median; "
              f"fast / tensho-ise fast {max(fast_rates) / max(tensho):.2f} best, "
              f"{statistics.median(fast_rates) / statistics.median(tensho):.2f} median; rows "
              f"{'identical' if identical[name] else 'DIFFER'}")
    return 0 if all(identical.values()) else 1


if __name__ == "__main__":
    raise SystemExit(main())
