"""What ``fudasim bench`` measures of koi-koi (see ``simcore.bench``)."""

from __future__ import annotations

from simcore.bench import BenchCase, RunCase

__all__ = ["RUN_CASE", "cases"]

# The strong players with their defaults against greedy, with the budgets of Tensho's cases; each
# plays a share of the rounds in proportion to its cost.
SEARCH_CASES = (
    (("heuristic", "heuristic"), 10, 10),
    (("pimc", "greedy"), 1000, 200),
    (("ismcts", "greedy"), 2000, 400),
    (("learned", "learned"), 10, 10),  # the shipped model in both seats (Tensho's target: 50,000 rounds/s)
)


def cases() -> list[BenchCase]:
    """Both shipped rule sets with random and greedy seats (greedy play a quarter of the rounds),
    then heuristic against heuristic, pimc against greedy, ismcts against greedy and the learned
    player in both seats under ``koikoi``.

    Returns
    -------
    list of BenchCase
        ``koikoi`` and ``koikoi-kkj``, each with random and greedy seats; then ``koikoi`` with
        each of ``SEARCH_CASES``.
    """
    return [
        BenchCase(rules, rules, (policy, policy), {}, rounds_divisor=1 if policy == "random" else 4)
        for rules in ("koikoi", "koikoi-kkj")
        for policy in ("random", "greedy")
    ] + [
        BenchCase("koikoi", "koikoi", policies, {}, rounds_divisor=rounds_divisor,
                  reference_divisor=reference_divisor)
        for policies, rounds_divisor, reference_divisor in SEARCH_CASES
    ]


# Measured end to end (rate, peak memory, start-up): ``fudasim run koikoi`` with random seats, full sizes.
RUN_CASE = RunCase("koikoi", "koikoi", "random-random")
