"""What ``fudasim bench`` measures of Tensho (see ``simcore.bench``)."""

from __future__ import annotations

from simcore.bench import BenchCase, RunCase

__all__ = ["cases", "run_case"]


# The strong players of issue 20, with the budgets its speed targets name (rounds/s on one
# thread: heuristic-heuristic 200,000; pimc, 32 worlds of random rollouts, against greedy 2,000;
# ismcts, 1,000 iterations, against greedy 150); each plays a share of the rounds in proportion.
SEARCH_CASES = (
    (("heuristic", "heuristic"), 10, 10),
    (("pimc:worlds=32,rollout=random", "greedy"), 500, 100),
    (("ismcts:iterations=1000,rollout=random", "greedy"), 5000, 1000),
    (("learned", "learned"), 10, 10),  # issue 31's target: 50,000 rounds/s on one thread
)


def cases() -> list[BenchCase]:
    """Both fixed yaku sets, random and greedy seats (greedy play plays a quarter of the rounds),
    then heuristic against heuristic, pimc against greedy, ismcts against greedy and the learned
    player in both seats on yaku set 1.

    Returns
    -------
    list of BenchCase
        ``fixed_1`` and ``fixed_2`` (``tensho.yaku_set_choice``), each with random and greedy
        seats; then ``fixed_1`` with each of ``SEARCH_CASES``.
    """
    return [
        BenchCase(yaku_set, "tensho-ise", (policy, policy), {"tensho.yaku_set_choice": yaku_set},
                  rounds_divisor=1 if policy == "random" else 4)
        for yaku_set in ("fixed_1", "fixed_2")
        for policy in ("random", "greedy")
    ] + [
        BenchCase("fixed_1", "tensho-ise", policies, {"tensho.yaku_set_choice": "fixed_1"},
                  rounds_divisor=rounds_divisor, reference_divisor=reference_divisor)
        for policies, rounds_divisor, reference_divisor in SEARCH_CASES
    ]


def run_case() -> RunCase:
    """``fudasim run``'s default: tensho-ise, yaku set 1, random seats, full sizes.

    Returns
    -------
    RunCase
        The run whose end-to-end rate, peak memory and start-up time are measured.
    """
    return RunCase("fixed_1", "tensho-ise", "random-random")
