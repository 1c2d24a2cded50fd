"""What ``fudasim bench`` measures of Tensho (see ``simcore.bench``)."""

from __future__ import annotations

from simcore.bench import BenchCase, RunCase

__all__ = ["RUN_CASE", "cases"]


# The strong players with their defaults (docs/policies.md; the target for pimc is 1,000 rounds/s
# on one thread against greedy), and heuristic against heuristic; each plays a share of the
# rounds in proportion to its cost.
SEARCH_CASES = (
    (("heuristic", "heuristic"), 10, 10),
    (("pimc", "greedy"), 1000, 200),
    (("ismcts", "greedy"), 2000, 400),
    (("learned", "learned"), 10, 10),  # issue 31's target: 50,000 rounds/s on one thread
)


def cases() -> list[BenchCase]:
    """Both fixed yaku sets, random and greedy seats (greedy play plays a quarter of the rounds),
    then heuristic against heuristic, pimc against greedy and ismcts against greedy (the search
    players with their defaults) and the learned player in both seats on yaku set 1.

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


# ``fudasim run``'s default measured end to end (rate, peak memory, start-up): tensho-ise, yaku set 1,
# random seats, full sizes.
RUN_CASE = RunCase("fixed_1", "tensho-ise", "random-random")
