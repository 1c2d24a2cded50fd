"""The reference engine's search players (``simcore.search``): ``pimc`` and ``ismcts``.

- they decide from what their seat can see: at each of their decisions, the real position and a
  world dealt anew from it (same seat's view) get the same answer from the same stream;
- a forced decision draws nothing; keys name every legal action uniquely;
- they play better than the policy they roll out with (a search that maximised the wrong thing,
  or looked at nothing, would not);
- the objective and the log table are what the module documents.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from simcore.games import get_game
from simcore.policies import parse_policy
from simcore.rng import Stream, seat_stream
from simcore.rules import load_rules
from simcore.search import log_table, objective

SEED = 4242

CASES = [("tensho", "tensho-ise", 2), ("tensho", "tensho-hanafuda", 2), ("enshu", "enshu-w", 2),
         ("enshu", "enshu-s", 3), ("enshu", "enshu-c", 3), ("enshu", "enshu-c", 5)]
IDS = [f"{rules}-{players}p" for _, rules, players in CASES]


def _compiled(game_name: str, rules_name: str, players: int):
    game = get_game(game_name)
    overrides = {} if game.players_option is None else {game.players_option: str(players)}
    return game, game.compile(load_rules(rules_name, overrides))


def _reference_module(game_name: str):
    import importlib

    return importlib.import_module(f"simcore.games.{game_name}.reference")


@pytest.mark.parametrize("policy", ["pimc:worlds=2", "ismcts:iterations=6"])
@pytest.mark.parametrize(("game_name", "rules_name", "players"), CASES, ids=IDS)
@pytest.mark.slow
def test_search_decides_alike_in_a_world_it_cannot_tell_from_the_real_one(game_name, rules_name, players, policy):
    game, compiled = _compiled(game_name, rules_name, players)
    ref = _reference_module(game_name)
    specs = [parse_policy(policy if seat == 0 else "greedy", game_name) for seat in range(players)]
    checked = 0
    for r in range(3):
        state = game.new_state(compiled, SEED, r, r % players)
        policies = game.seat_policies(compiled, specs, SEED, r)
        step = 0
        while (decision := state.decision()) is not None:
            keys = [ref.action_key(decision, a) for a in decision.actions]
            assert len(set(keys)) == len(keys), decision
            if decision.seat == 0 and len(decision.actions) > 1:
                world = state.sample_hidden(0, Stream(SEED, r, 7000 + step))
                fresh = [game.seat_policies(compiled, specs, SEED, 10_000 + step)[0] for _ in range(2)]
                assert game.ask_policy(fresh[0], state, decision) == game.ask_policy(fresh[1], world, decision)
                checked += 1
            state.apply(game.ask_policy(policies[decision.seat], state, decision))
            step += 1
    assert checked >= 3


@pytest.mark.parametrize("policy", ["pimc:worlds=3", "ismcts:iterations=5"])
def test_a_forced_decision_draws_nothing(policy):
    game, compiled = _compiled("tensho", "tensho-ise", 2)
    spec = parse_policy(policy, "tensho")
    found = 0
    for r in range(20):
        state = game.new_state(compiled, SEED, r, r % 2)
        rollout = game.seat_policies(compiled, [parse_policy("random", "tensho")] * 2, SEED, r)
        while (decision := state.decision()) is not None:
            if len(decision.actions) == 1:
                stream = Stream(SEED, r, seat_stream(decision.seat))
                searcher = game.seat_policies(compiled, [spec, spec], SEED, r)[decision.seat]
                searcher.stream = stream
                searcher.rollout_policy.stream = stream
                assert game.ask_policy(searcher, state, decision) == decision.actions[0]
                assert stream.draws == 0
                found += 1
            state.apply(game.ask_policy(rollout[decision.seat], state, decision))
    assert found > 0


def _win_share(game_name, rules_name, players, strong, weak, rounds):
    """The strong policy's share of rounds won (payoff > 0), seats swapped on every other round."""
    game, compiled = _compiled(game_name, rules_name, players)
    wins = 0
    for r in range(rounds):
        seat = r % 2
        specs = [parse_policy(strong if s == seat else weak, game_name) for s in range(players)]
        state = game.new_state(compiled, SEED, r, (r // 2) % players)
        policies = game.seat_policies(compiled, specs, SEED, r)
        while (decision := state.decision()) is not None:
            state.apply(game.ask_policy(policies[decision.seat], state, decision))
        wins += state.returns()[seat] > 0
    return wins / rounds


@pytest.mark.parametrize(("strong", "weak", "at_least"), [
    ("pimc:worlds=12,rollout=greedy", "random", 0.60),
    ("ismcts:iterations=60,rollout=greedy", "random", 0.60),
])
@pytest.mark.slow
def test_search_beats_random_play_in_tensho(strong, weak, at_least):
    # greedy alone wins about 67% against random (so do these); a search that minimised instead of
    # maximising, or ignored its results, would win about half or less
    assert _win_share("tensho", "tensho-ise", 2, strong, weak, 120) >= at_least


@pytest.mark.slow
def test_pimc_maximising_the_payoff_beats_random_in_enshu():
    assert _win_share("enshu", "enshu-w", 2, "pimc:worlds=6,rollout=greedy", "random", 60) >= 0.6


def test_objective_and_log_table():
    assert [objective([3.0, -3.0], 0, "win"), objective([3.0, -3.0], 1, "win"), objective([0.0, 0.0], 0, "win")] \
        == [1, -1, 0]
    assert objective([3.0, -3.0], 1, "score") == -3
    table = log_table(10)
    assert table.shape == (11,) and table[0] == 0.0 and table[1] == 0.0
    assert all(abs(table[k] - math.log(k)) < 1e-15 for k in range(1, 11))
    assert table.dtype == np.float64


def test_a_world_sampled_before_the_deal_holds_other_cards():
    # with the yaku set left to the dealer's policy, the dealer decides before the deal: a world
    # sampled then must deal its own cards, not the round's (which nobody has seen yet)
    game, compiled = _compiled("tensho", "tensho-ise", 2)
    compiled = game.compile(load_rules("tensho-ise", {"tensho.yaku_set_choice": "dealer_policy"}))
    differ = 0
    for r in range(10):
        state = game.new_state(compiled, SEED, r, r % 2)
        assert state.decision().kind == "yaku_set"
        world = state.sample_hidden(state.decision().seat, Stream(SEED, r, 5000))
        state.apply(1)
        world.apply(1)
        differ += world.card_places() != state.card_places()
    assert differ == 10
