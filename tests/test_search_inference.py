"""Inference (``infer``): a search player draws each world again until the other seats' plays
of the round agree with what its rollout policy would have played in their place
(``simcore.search``'s module docstring), in every registered game.

* ``rehand`` (each game's, in both engines) gives a past decision as a world deals it: given the
  real deal it gives the past back, and it depends on nothing the searching seat cannot see;
* the real deal always agrees with other seats that play the rollout policy;
* on a chosen position the worlds inference keeps change pimc's choice, worked out from their
  gains (the numbers in the comments), and the kernel writes the reference engine's rows with
  inference on (also in ``test_search_every_game``).
"""

from __future__ import annotations

import numpy as np
import pytest

from simcore.errors import PolicyError
from simcore.games import get_game
from simcore.policies import parse_policy
from simcore.rng import Stream, seat_stream
from simcore.rules import load_rules

SEED = 9
CASES = [("tensho-ise", {}), ("koikoi", {}), ("enshu-w", {"enshu.players": "3"}),
         ("enshu-c", {"enshu.players": "4"})]
FIELDS = ("hands", "draw", "dead", "set_aside", "pending")


def setup(rules_name: str, options: dict):
    rules = load_rules(rules_name, options)
    game = get_game(rules.game)
    compiled = game.compile(rules)
    return game, compiled, game.players(compiled)


def heuristic_round(game, compiled, players: int, round_index: int, infer: str = "pimc:infer=8,worlds=1"):
    """Yield ``(state, decision, searcher)`` at each decision of a round played by heuristic in
    every seat, ``searcher`` seat 0's search player (``infer``) told of every decision so far."""
    heuristic = parse_policy("heuristic", game.name, recorded=True)
    seats = game.seat_policies(compiled, [heuristic] * players, SEED, round_index)
    searcher = game.seat_policies(compiled, [parse_policy(infer, game.name)] * players, SEED, round_index)[0]
    state = game.new_state(compiled, SEED, round_index, round_index % players)
    while (decision := state.decision()) is not None:
        yield state, decision, searcher
        action = game.ask_policy(seats[decision.seat], state, decision)
        searcher.watch(state, decision, action)
        state.apply(action)


def fields(state) -> dict:
    return {name: getattr(state, name) for name in FIELDS if hasattr(state, name)}


@pytest.mark.parametrize("rules_name, options", CASES, ids=[c[0] + "-" + str(len(c[1])) for c in CASES])
def test_rehanding_by_the_real_deal_gives_the_past_back_and_the_real_deal_agrees(rules_name, options):
    game, compiled, players = setup(rules_name, options)
    checked = agreed = 0
    for round_index in range(3):
        for state, decision, searcher in heuristic_round(game, compiled, players, round_index):
            if decision.seat != 0:
                continue
            for past, _, _ in searcher.past:
                then = past.rehand(state, state, 0)
                if then is not None:
                    assert fields(then) == fields(past)
                    checked += 1
            # every other seat played the heuristic, which is the rollout policy: no disagreement
            assert searcher.disagreements(state, 0, state, 10**6) == 0
            agreed += 1
    assert checked > 20 and agreed > 5


@pytest.mark.parametrize("rules_name, options", CASES, ids=[c[0] + "-" + str(len(c[1])) for c in CASES])
def test_a_rehanded_past_depends_on_nothing_the_searching_seat_cannot_see(rules_name, options):
    # Two deals seat 0 cannot tell apart (the real one, and a world ``other`` it might be) give
    # every past decision alike as a third world deals it: rehanding the past as ``other`` deals
    # it, then from ``other`` to ``world``, is rehanding it from the real deal to ``world``.
    game, compiled, players = setup(rules_name, options)
    stream = Stream(SEED, 1, seat_stream(0))
    checked = differs = 0
    for state, decision, searcher in heuristic_round(game, compiled, players, 1):
        if decision.seat != 0 or not searcher.past:
            continue
        other, world = state.sample_hidden(0, stream), state.sample_hidden(0, stream)
        for past, _, _ in searcher.past:
            direct = past.rehand(state, world, 0)
            if direct is None:
                continue
            assert fields(past.rehand(state, other, 0).rehand(other, world, 0)) == fields(direct)
            checked += 1
            differs += any(direct.hands[s] != past.hands[s] for s in range(1, players))
    assert checked > 10 and differs > 5  # the worlds dealt the other hands otherwise


GAME = get_game("tensho")
COMPILED = GAME.compile(load_rules("tensho-ise", {}))
HEURISTIC = parse_policy("heuristic", "tensho", recorded=True)


def position(round_index: int, step: int, text: str):
    """Tensho round ``round_index`` of seed 9 after ``step`` decisions of heuristic play, and the
    searcher ``text`` of the deciding seat, told of them."""
    state = GAME.new_state(COMPILED, SEED, round_index, round_index % 2)
    players = GAME.seat_policies(COMPILED, [HEURISTIC, HEURISTIC], SEED, round_index)
    spec = parse_policy(text, "tensho")
    searchers = GAME.seat_policies(COMPILED, [spec, spec], SEED, round_index)
    for _ in range(step):
        decision = state.decision()
        action = GAME.ask_policy(players[decision.seat], state, decision)
        for searcher in searchers:
            searcher.watch(state, decision, action)
        state.apply(action)
    decision = state.decision()
    return state, decision, searchers[decision.seat]


def agrees(past_decisions, state, world, seat: int) -> bool:
    """Whether heuristic, deciding for the other seat at each of its past plays and captures as
    ``world`` deals them, takes what it took (worked out here apart from ``simcore.search``)."""
    rollout = GAME.seat_policies(COMPILED, [HEURISTIC, HEURISTIC], 0, 0)[0]
    for past, who, key in past_decisions:
        if who == seat or past.decision().kind not in ("play", "capture"):
            continue
        then = past.rehand(state, world, seat)
        decision = then.decision()
        if GAME.module("decisions").action_key(decision, GAME.ask_policy(rollout, then, decision)) != key:
            return False
    return True


def gains(state, decision, worlds) -> tuple[list[int], list[int]]:
    """Each action's paired gain over the heuristic's and its square, summed over ``worlds``
    (objective win: +1, 0, -1), the rest played by heuristic in both seats."""
    rollout = GAME.seat_policies(COMPILED, [HEURISTIC, HEURISTIC], 0, 0)[0]
    base = list(decision.actions).index(GAME.ask_policy(rollout, state, decision))
    values = []
    for world in worlds:
        row = []
        for action in decision.actions:
            copy = world.clone()
            copy.apply(action)
            while (pending := copy.decision()) is not None:
                copy.apply(GAME.ask_policy(rollout, copy, pending))
            payoff = int(copy.returns()[decision.seat])
            row.append((payoff > 0) - (payoff < 0))
        values.append(row)
    n = len(decision.actions)
    return ([sum(v[i] - v[base] for v in values) for i in range(n)],
            [sum((v[i] - v[base]) ** 2 for v in values) for i in range(n)])


def test_inference_changes_pimcs_choice_where_the_agreeing_worlds_favour_another_card():
    # Round 1 of seed 9, decision 5: seat 0 holds two cards to play; heuristic plays the second
    # (index 1). In the 8 worlds the seat's stream deals first, neither card wins or loses a
    # round the other does not (gains [0, 0]): pimc keeps heuristic's card. Inference draws
    # again each world in which heuristic, in the other seat's place, would not have made that
    # seat's plays so far; every one of the 8 worlds it keeps agrees (drawn up to 16 times each),
    # and in those the first card wins twice where the second does not (gain 2, squares 4):
    # pimc with inference plays the first.
    plain = "pimc:worlds=8,confirm=0,z=0,rollout=heuristic"
    state, decision, searcher = position(1, 5, plain + ",infer=16")
    seat = decision.seat
    assert seat == 0 and len(decision.actions) == 2
    stream = Stream(SEED, 1, seat_stream(seat))
    uniform = [state.sample_hidden(seat, stream) for _ in range(8)]
    assert gains(state, decision, uniform) == ([0, 0], [0, 0])
    stream = Stream(SEED, 1, seat_stream(seat))
    inferred, tries = [], []
    for _ in range(8):
        drawn = 0
        while drawn < 16:
            world = state.sample_hidden(seat, stream)
            drawn += 1
            if agrees(searcher.past, state, world, seat):
                break
        else:
            raise AssertionError("a world with no agreeing draw: the worked answer does not hold")
        inferred.append(world)
        tries.append(drawn)
    assert max(tries) > 1  # some worlds drawn first disagree with the other seat's play
    assert gains(state, decision, inferred) == ([2, 0], [4, 0])
    _, _, plain_searcher = position(1, 5, plain)
    assert GAME.ask_policy(plain_searcher, state, decision) == decision.actions[1]
    assert GAME.ask_policy(searcher, state, decision) == decision.actions[0]


def test_inference_needs_a_rollout_policy_that_models_play():
    with pytest.raises(PolicyError, match="infer=4 needs rollout=greedy or rollout=heuristic"):
        parse_policy("pimc:infer=4,rollout=random", "tensho")
    assert str(parse_policy("ismcts:infer=1,rollout=random", "koikoi")).startswith("ismcts:")


@pytest.mark.slow
@pytest.mark.parametrize("rules_name, options, policies", [
    ("tensho-ise", {}, ("pimc:worlds=3,confirm=3,infer=8", "heuristic")),
    ("koikoi", {}, ("heuristic", "ismcts:iterations=8,confirm=2,infer=8")),
    ("enshu-c", {"enshu.players": "4"}, ("pimc:worlds=2,confirm=2,infer=6", "heuristic", "greedy", "heuristic")),
], ids=["tensho", "koikoi", "enshu-c-4p"])
def test_the_kernel_infers_as_the_reference_engine_against_heuristic_seats(rules_name, options, policies):
    # heuristic seats agree with the model in the real deal, so the worlds kept are those that
    # agree with them; in C with 4 players seats drop out, after which earlier plays are not read
    game, compiled, players = setup(rules_name, options)
    specs = [parse_policy(p, game.name) for p in policies]
    kernel = game.play_units("kernel", compiled, specs, SEED, 3, 8, None)
    reference = game.play_units("reference", compiled, specs, SEED, 3, 8, None)
    for kernel_matrix, reference_matrix in zip(kernel, reference, strict=True):
        np.testing.assert_array_equal(kernel_matrix, reference_matrix)
