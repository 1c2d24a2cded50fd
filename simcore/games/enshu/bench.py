"""What ``fudasim bench`` measures of Enshu-bana (see ``simcore.bench``)."""

from __future__ import annotations

from simcore.bench import BenchCase, RunCase

__all__ = ["RUN_CASE", "cases"]

# (rule set, players, case label): each variant at its default player count, and C with five
# players, which adds the dropout phase
_VARIANTS = (("enshu-w", 3, "W 3p"), ("enshu-s", 3, "S 3p"), ("enshu-c", 3, "C 3p"), ("enshu-c", 5, "C 5p"))


# The search player's case (issue 20's target: 300 rounds/s on one thread): pimc with 32 worlds
# and random rollouts (pimc's defaults then, spelled out) against two greedy seats in W with 3
# players. It plays the minimum of rounds in both engines (the kernel's 1,000 take a few
# seconds; the reference's 50 far longer).
PIMC_CASE = BenchCase("W 3p", "enshu-w",
                      ("pimc:worlds=32,rollout=random,crn=0,z=0,confirm=0", "greedy", "greedy"),
                      {"enshu.players": "3"}, rounds_divisor=1_000_000, reference_divisor=1_000_000)

# The learned player's case (the players issue's target: 10,000 rounds/s on one thread): the
# shipped model in every seat of C with 5 players; a few thousand kernel rounds, the reference's
# minimum.
LEARNED_CASE = BenchCase("C 5p", "enshu-c", ("learned",) * 5, {"enshu.players": "5"},
                         rounds_divisor=200, reference_divisor=1_000_000)


def cases() -> list[BenchCase]:
    """Each variant with random and greedy seats, at a tenth (random) and a twentieth (greedy) of
    Tensho's kernel rounds, and a quarter of its reference-engine rounds; then ``PIMC_CASE`` and
    ``LEARNED_CASE``.

    Returns
    -------
    list of BenchCase
        W, S and C with 3 players and C with 5, each with every seat random, then every seat
        greedy; then pimc (32 worlds, random rollouts) against two greedy seats in W, 3 players;
        then the learned player in every seat of C, 5 players.
    """
    return [
        BenchCase(label, rules, (policy,) * players, {"enshu.players": str(players)},
                  rounds_divisor=10 if policy == "random" else 20, reference_divisor=4)
        for rules, players, label in _VARIANTS
        for policy in ("random", "greedy")
    ] + [PIMC_CASE, LEARNED_CASE]


# Measured end to end (rate, peak memory, start-up): ``fudasim run enshu-c`` (3 random seats) at a
# tenth of Tensho's run sizes.
RUN_CASE = RunCase("C 3p", "enshu-c", "random-random-random", rounds_divisor=10)
