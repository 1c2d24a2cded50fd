"""What ``fudasim bench`` measures of Tensho (see ``simcore.bench``)."""

from __future__ import annotations

from simcore.bench import BenchCase, RunCase

__all__ = ["cases", "run_case"]


def cases() -> list[BenchCase]:
    """Both fixed yaku sets, random and greedy seats; greedy play plays a quarter of the rounds.

    Returns
    -------
    list of BenchCase
        ``fixed_1`` and ``fixed_2`` (``tensho.yaku_set_choice``), each with random and greedy seats.
    """
    return [
        BenchCase(yaku_set, "tensho-ise", (policy, policy), {"tensho.yaku_set_choice": yaku_set},
                  rounds_divisor=1 if policy == "random" else 4)
        for yaku_set in ("fixed_1", "fixed_2")
        for policy in ("random", "greedy")
    ]


def run_case() -> RunCase:
    """``fudasim run``'s default: tensho-ise, yaku set 1, random seats, full sizes.

    Returns
    -------
    RunCase
        The run whose end-to-end rate, peak memory and start-up time are measured.
    """
    return RunCase("fixed_1", "tensho-ise", "random-random")
