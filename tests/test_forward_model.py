"""The forward model (``simcore.reference.forward.State``) of every game that has one.

Checks, on rounds played by the shipped policies:
- the reference engine's round is the forward model's: the actions recorded while a round is
  played, applied again to a fresh state of the same round, give the same result;
- ``clone()`` is independent of the state it was copied from;
- ``sample_hidden(seat, stream)`` moves no card the seat has seen, keeps every place's size,
  leaves the seat's observation as it was, deals each unseen card to each hidden place with
  the probability the place's size gives, and yields a state that plays to the end;
- ``returns()`` are the round's payoffs.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import pytest

from simcore.cards import ids_of, mask_of
from simcore.policies import parse_policy
from simcore.reference import tensho
from simcore.reference.forward import State, play_through
from simcore.rng import Stream
from simcore.rules import compile_rules, load_rules

SEED = 4242


@dataclass
class GameUnderTest:
    """How the tests make a game's round state, its policies and its policy calls."""

    name: str
    new_state: Callable[[int], State]
    policies: Callable[[int], list]
    ask: Callable
    seen_by: Callable[[State, int], dict]  # what a seat sees: place name -> cards
    hidden_by: Callable[[State, int], dict]  # the places the seat cannot see: name -> cards


def _tensho(options: dict[str, str], policies: tuple[str, str]) -> GameUnderTest:
    compiled = compile_rules(load_rules("tensho-ise", options))
    specs = [parse_policy(p) for p in policies]

    def new_state(round_index: int) -> State:
        setup = tensho.RoundSetup(seed=SEED, round_index=round_index, dealer=round_index % 2)
        return tensho.new_state(compiled, setup)

    def seen_by(state, seat):
        return {"hand": state.hands[seat], "field": state.field, "pile0": state.piles[0],
                "pile1": state.piles[1], "seen": state.seen, "in_play": state.in_play}

    def hidden_by(state, seat):
        return {"other_hand": state.hands[1 - seat], "draw": mask_of(state.draw), "dead": state.dead}

    return GameUnderTest(f"tensho {options} {policies}", new_state,
                         lambda r: tensho._seat_policies(compiled, specs, SEED, r), tensho.ask_policy,
                         seen_by, hidden_by)


GAMES = [
    _tensho({}, ("random", "random")),
    _tensho({"tensho.capture_mandatory": "false", "tensho.triple_match": "one",
             "tensho.six_in_hand": "bank_at_deal", "tensho.yaku_set_choice": "dealer_policy"},
            ("greedy", "random")),
]


def _played(game: GameUnderTest, round_index: int):
    """Play a round, recording (state before, decision, action) at every decision."""
    state = game.new_state(round_index)
    policies = game.policies(round_index)
    steps = []

    def ask(policy, state, decision):
        action = game.ask(policy, state, decision)
        steps.append((state.clone(), decision, action))
        return action

    play_through(state, policies, ask)
    return state, steps


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.name)
def test_replaying_the_actions_reproduces_the_round(game):
    kinds = set()
    for r in range(60):
        state, steps = _played(game, r)
        again = game.new_state(r)
        for _, decision, action in steps:
            assert again.decision() == decision
            assert action in again.legal_actions()
            again.apply(action)
            kinds.add(decision.kind)
        assert again.is_terminal() and again.decision() is None and again.current_seat() == -1
        assert again.result == state.result
        assert again.returns() == [float(p) for p in state.result.payoff]
        assert sum(again.returns()) == 0
    assert {"play", "capture", "opening_claim"} <= kinds


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.name)
def test_a_clone_is_independent(game):
    for r in range(20):
        _, steps = _played(game, r)
        before, decision, action = steps[len(steps) // 2]
        copy = before.clone()
        snapshot = (before.decision(), dict(game.seen_by(before, 0)), dict(game.hidden_by(before, 0)), before.turn)
        play_through(copy, game.policies(r), game.ask)
        assert copy.is_terminal()
        assert (before.decision(), game.seen_by(before, 0), game.hidden_by(before, 0), before.turn) == snapshot


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.name)
def test_sample_hidden_moves_only_what_the_seat_cannot_see(game):
    for r in range(40):
        _, steps = _played(game, r)
        for k, (before, decision, _) in enumerate(steps):
            seat = decision.seat
            world = before.sample_hidden(seat, Stream(SEED, r, 1000 + k))
            assert game.seen_by(world, seat) == game.seen_by(before, seat)
            assert world.observation(seat) == before.observation(seat)
            assert world.decision() == decision
            hidden_before, hidden_after = game.hidden_by(before, seat), game.hidden_by(world, seat)
            assert {k: v.bit_count() for k, v in hidden_after.items()} == \
                {k: v.bit_count() for k, v in hidden_before.items()}
            union = 0
            for cards in hidden_after.values():
                assert cards & union == 0
                union |= cards
            assert union == mask_of(ids_of(sum(hidden_before.values())))
            play_through(world, game.policies(r), game.ask)
            assert world.is_terminal()


def test_sample_hidden_deals_each_unseen_card_uniformly():
    """At the first play of a round, each of the 30 cards the seat has not seen lies in the other
    hand with probability 6/30, in the draw pile with 18/30 and among the dead with 6/30; the
    draw pile's top card is each of them with probability 1/30."""
    game = GAMES[0]
    state = game.new_state(7)
    while state.decision().kind != "play":
        state.apply(game.ask(game.policies(7)[state.current_seat()], state, state.decision()))
    seat = state.current_seat()
    hidden = game.hidden_by(state, seat)
    unseen = ids_of(hidden["other_hand"] | hidden["draw"] | hidden["dead"])
    sizes = {name: cards.bit_count() for name, cards in hidden.items()}
    n = 6000
    counts = {name: dict.fromkeys(unseen, 0) for name in sizes}
    top = dict.fromkeys(unseen, 0)
    for k in range(n):
        world = state.sample_hidden(seat, Stream(SEED, 7, 5000 + k))
        for name, cards in game.hidden_by(world, seat).items():
            for card in ids_of(cards):
                counts[name][card] += 1
        top[world.draw[0]] += 1
    for name, size in sizes.items():
        p = size / len(unseen)
        bound = 4.5 * math.sqrt(p * (1 - p) / n)  # each of 90 cells within 4.5 sd
        for card in unseen:
            assert abs(counts[name][card] / n - p) <= bound, (name, card)
    p = 1 / len(unseen)
    for card in unseen:
        assert abs(top[card] / n - p) <= 4.5 * math.sqrt(p * (1 - p) / n)


def test_the_forward_model_is_a_state():
    assert isinstance(GAMES[0].new_state(0), State)
