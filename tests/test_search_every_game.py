"""The search players' newer settings (common draws, a threshold, a confirming stage, the
seat's own tree, paired roots, normalised means, the order a node expands in, progressive widening,
inference) in every registered game: the kernel and the
reference engine write the same rows, cell for cell, in independent rounds and in a match.

The search is written once (``simcore.kernels.search_nb``, ``simcore.search``), so a game added
later gets these settings by being registered; this checks that each game's forward model and
state machine give both engines the same worlds, rollouts and choices under them.
"""

from __future__ import annotations

import numpy as np
import pytest

from simcore.games import get_game, known_game_names
from simcore.policies import parse_policy
from simcore.rules import load_rules, shipped_rules

SEED = 20261203

SETTINGS = ("pimc:worlds=3,confirm=4,rollout=heuristic,crn=1,z=1",
            "pimc:worlds=3,rollout=random,crn=1,z=0.5",
            "ismcts:iterations=12,root=paired,tree=own,rollout=heuristic,c=1.4,norm=1,z=1,confirm=4",
            "ismcts:iterations=10,tree=own,rollout=greedy,norm=1,z=1",
            # a node's first child: the rollout policy's action (random: drawn), or the first legal
            "ismcts:iterations=12,root=paired,tree=own,rollout=random,expand=rollout,confirm=4",
            "ismcts:iterations=12,root=paired,tree=own,rollout=heuristic,expand=first,confirm=4",
            # progressive widening below the root, paired and not, own tree and every seat's
            "ismcts:iterations=24,root=paired,tree=own,rollout=heuristic,widen=2,confirm=4",
            "ismcts:iterations=16,root=ucb,tree=all,rollout=random,widen=3,c=1",
            # playing for the margin over the other seats (koi-koi's default)
            "pimc:worlds=3,rollout=greedy,objective=margin",
            "ismcts:iterations=10,tree=own,rollout=heuristic,norm=1,objective=margin",
            # inference: worlds drawn again until the other seats' plays agree with the rollout
            # policy's (the greedy seats here: a heuristic model disagrees, a greedy one agrees)
            "pimc:worlds=3,confirm=4,rollout=heuristic,infer=6",
            "ismcts:iterations=12,root=paired,tree=own,rollout=greedy,confirm=4,infer=4",
            # pimc confirming in blocks: given up or taken before the last block
            "pimc:worlds=3,confirm=6,race=2,rollout=heuristic,crn=1,z=0.5")


def _first_rules() -> list[str]:
    """One shipped rule set per registered game."""
    seen: dict[str, str] = {}
    for name in shipped_rules():
        game = load_rules(name).game
        if game in known_game_names():
            seen.setdefault(game, name)
    return sorted(seen.values())


# the settings of the fast subset: pimc's confirm and z, a paired ismcts root, every seat's tree,
# the margin and inference in each search, pimc's race
FAST = (0, 2, 7, 9, 10, 11, 12)


def _cases() -> list:
    """Every (rules, setting) pair, each with the units it plays (``None``: independent rounds,
    else the match length; and how many); the fast subset (``-m "not slow"``) plays each of the
    ``FAST`` settings in one game (setting ``i`` in game ``i`` modulo the games), on fewer units,
    the full suite every pair."""
    rules = _first_rules()
    fast, full = ((None, 3), (3, 1)), ((None, 6), (3, 2))
    return [pytest.param(name, policy, fast, id=f"{name}-{policy}") if i in FAST and i % len(rules) == j
            else pytest.param(name, policy, full, marks=pytest.mark.slow, id=f"{name}-{policy}")
            for j, name in enumerate(rules) for i, policy in enumerate(SETTINGS)]


@pytest.mark.parametrize(("rules_name", "policy", "plays"), _cases())
def test_the_new_search_settings_write_the_same_rows_in_both_engines(rules_name, policy, plays):
    rules = load_rules(rules_name)
    game = get_game(rules.game)
    compiled = game.compile(rules)
    players = game.players(compiled)
    specs = [parse_policy(policy, game.name)] + [parse_policy("greedy", game.name)] * (players - 1)
    for rounds_per_match, units in plays:
        kernel = game.play_units("kernel", compiled, specs, SEED, 5, units, rounds_per_match)
        reference = game.play_units("reference", compiled, specs, SEED, 5, units, rounds_per_match)
        for kernel_matrix, reference_matrix in zip(kernel, reference, strict=True):
            np.testing.assert_array_equal(kernel_matrix, reference_matrix)


def test_every_registered_game_is_searched():
    assert {load_rules(name).game for name in _first_rules()} == set(known_game_names())


@pytest.mark.parametrize("policy", ("pimc:worlds=3,rollout=greedy,objective=margin",
                                    "ismcts:iterations=10,tree=all,rollout=greedy,objective=margin"))
def test_the_margin_over_two_other_seats_is_the_same_in_both_engines(policy):
    """Enshu-bana S pays every seat its own score, so with three seats the margin (own payoff
    minus each other seat's, summed) orders actions differently from the payoff."""
    rules = load_rules("enshu-s", {"enshu.players": "3"})
    game = get_game(rules.game)
    compiled = game.compile(rules)
    specs = [parse_policy(policy, game.name), parse_policy("greedy", game.name), parse_policy("heuristic", game.name)]
    kernel = game.play_units("kernel", compiled, specs, SEED, 5, 6, None)
    reference = game.play_units("reference", compiled, specs, SEED, 5, 6, None)
    for kernel_matrix, reference_matrix in zip(kernel, reference, strict=True):
        np.testing.assert_array_equal(kernel_matrix, reference_matrix)


def test_the_margin_sums_the_lead_over_every_other_seat():
    from simcore.search import objective

    assert objective([5, 0], 0, "margin") == 5
    assert objective([0, 5], 0, "margin") == -5
    assert objective([3, -1, -2], 0, "margin") == 4 + 5
    assert objective([3, -1, -2], 2, "margin") == -5 - 1
    assert objective([3, -1, -2], 2, "score") == -2
    assert objective([3, -1, -2], 2, "win") == -1
