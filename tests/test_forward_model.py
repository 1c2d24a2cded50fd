"""The forward model (``simcore.reference.forward.State``) of every game that has one.

Checks, on rounds played by the shipped policies:
- the reference engine's round is the forward model's: the actions recorded while a round is
  played, applied again to a fresh state of the same round, give the same result;
- ``clone()`` is independent of the state it was copied from;
- ``sample_hidden(seat, stream)`` moves no card the seat has seen, keeps every place's size,
  leaves the seat's observation as it was, deals each unseen card to each hidden place with
  the probability the place's size gives, and yields a state that plays to the end;
- ``returns()`` are the round's payoffs.

Games: Tensho (two option sets) and Enshu-bana (variant W with 3 players, S with 2, C with 5,
which adds mizu-kotsu, kotsu, the dropout and Fuke), each with greedy and random seats.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_enshu_invariants import check_cards, rule_sets

from simcore.cards import ids_of, mask_of
from simcore.games.enshu import compile as enshu_compile
from simcore.games.enshu import reference as enshu
from simcore.games.enshu.compile import teyaku_options
from simcore.games.tensho import reference as tensho
from simcore.games.tensho.compile import compile_rules
from simcore.policies import parse_policy
from simcore.reference.forward import State, play_through
from simcore.rng import Stream
from simcore.rules import load_rules

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
    kinds: frozenset[str]  # the decision kinds its rounds take (60 of them take every one)
    zero_sum: bool = True  # whether the payoffs of a round sum to zero


def _tensho(options: dict[str, str], policies: tuple[str, str], kinds: frozenset[str]) -> GameUnderTest:
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
                         lambda r: tensho.seat_policies(compiled, specs, SEED, r), tensho.ask_policy,
                         seen_by, hidden_by, kinds)


def _enshu_dropped(state, seat: int) -> int:
    """The cards of ``seat``'s own hand once it dropped out and the hand left it (variant C)."""
    return state.hand_dealt[seat] if state.gathered and not state.active[seat] else 0


def _enshu(rules_name: str, policies: tuple[str, ...], kinds: frozenset[str],
           options: dict[str, str] | None = None) -> GameUnderTest:
    players = len(policies)
    compiled = enshu_compile.compile_rules(load_rules(rules_name, {"enshu.players": players, **(options or {})}))
    specs = [parse_policy(p) for p in policies]

    def new_state(round_index: int) -> State:
        setup = enshu.RoundSetup(seed=SEED, round_index=round_index, dealer=round_index % players)
        return enshu.new_state(compiled, setup)

    def seen_by(state, seat):
        own = _enshu_dropped(state, seat)
        seen = {"hand": state.hands[seat], "field": state.field, "seen": state.seen, "in_play": state.in_play,
                "own_in_draw": mask_of(state.draw) & own, "own_set_aside": state.set_aside & own}
        for s in range(players):
            seen[f"pile{s}"] = state.piles[s]
            seen[f"exposed{s}"] = state.exposed[s] & state.hands[s]
        return seen

    def hidden_by(state, seat):
        own = _enshu_dropped(state, seat)
        hidden = {f"hand{s}": state.hands[s] & ~state.exposed[s] for s in range(players) if s != seat}
        hidden["draw"] = mask_of(state.draw) & ~own
        hidden["set_aside"] = state.set_aside & ~own
        return hidden

    return GameUnderTest(f"{rules_name} {options or {}} {policies}", new_state,
                         lambda r: enshu.seat_policies(compiled, specs, SEED, r), enshu.ask_policy,
                         seen_by, hidden_by, kinds, zero_sum=compiled.rules.variant != "S")


ENSHU_PLAY = frozenset({"declare_teyaku", "play", "capture"})
ENSHU_C = ENSHU_PLAY | {"mizu_kotsu", "kotsu", "join", "fuke"}

GAMES = [
    _tensho({}, ("random", "random"), frozenset({"play", "capture", "opening_claim"})),
    _tensho({"tensho.capture_mandatory": "false", "tensho.triple_match": "one",
             "tensho.six_in_hand": "bank_at_deal", "tensho.yaku_set_choice": "dealer_policy"},
            ("greedy", "random"), frozenset({"play", "capture", "opening_claim", "bank_six", "yaku_set"})),
    _enshu("enshu-w", ("greedy", "random", "random"), ENSHU_PLAY),
    _enshu("enshu-s", ("random", "greedy"), ENSHU_PLAY),
    _enshu("enshu-c", ("random", "greedy", "random", "greedy", "random"), ENSHU_C),
    _enshu("enshu-c", ("random", "random", "greedy", "random", "random"), ENSHU_C,
           {"enshu.c.dropped_hands": "set_aside", "enshu.c.icp_four_check": "at_teyaku_active_hands"}),
]
ENSHU_W, ENSHU_C5, ENSHU_C5_ASIDE = GAMES[2], GAMES[4], GAMES[5]


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
        if game.zero_sum:
            assert sum(again.returns()) == 0
    assert kinds == game.kinds


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
def test_a_clone_at_any_pause_plays_on_to_the_same_round(game):
    for r in range(10):
        state, steps = _played(game, r)
        for k, (before, _, _) in enumerate(steps):
            copy = before.clone()
            for _, decision, action in steps[k:]:
                assert copy.decision() == decision
                copy.apply(action)
            assert copy.is_terminal() and copy.result == state.result


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.name)
@pytest.mark.slow
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


def _at_first(game: GameUnderTest, round_index: int, kind: str) -> State:
    """The round ``round_index`` at its first decision of ``kind``."""
    state = game.new_state(round_index)
    while state.decision().kind != kind:
        state.apply(game.ask(game.policies(round_index)[state.current_seat()], state, state.decision()))
    return state


def _check_uniform(game: GameUnderTest, state: State, seat: int, n: int = 6000) -> dict[str, int]:
    """Sample ``n`` worlds for ``seat``: each card it has not seen lies in each hidden place with
    probability (place size) / (cards not seen), and the draw pile's top card is each card that
    may lie there with the probability that gives (a card the seat knows is in the draw pile, at
    a place it does not know: 1 / draw size).  Each frequency within 4.5 sd.  Returns the sizes."""
    hidden = game.hidden_by(state, seat)
    unseen = ids_of(sum(hidden.values()))
    known_in_draw = [card for card in state.draw if not (hidden["draw"] >> card) & 1]
    sizes = {name: cards.bit_count() for name, cards in hidden.items()}
    counts = {name: dict.fromkeys(unseen, 0) for name in sizes}
    top = dict.fromkeys(unseen + known_in_draw, 0)
    for k in range(n):
        world = state.sample_hidden(seat, Stream(SEED, 7, 5000 + k))
        for name, cards in game.hidden_by(world, seat).items():
            for card in ids_of(cards):
                counts[name][card] += 1
        top[world.draw[0]] += 1

    def close(frequency: int, p: float) -> bool:
        return abs(frequency / n - p) <= 4.5 * math.sqrt(p * (1 - p) / n)

    for name, size in sizes.items():
        for card in unseen:
            assert close(counts[name][card], size / len(unseen)), (name, card)
    for card in unseen:
        assert close(top[card], sizes["draw"] / len(unseen) / len(state.draw)), card
    for card in known_in_draw:
        assert close(top[card], 1 / len(state.draw)), card
    return sizes


@pytest.mark.slow
def test_sample_hidden_deals_each_unseen_card_uniformly():
    """At the first play of a Tensho round, each of the 30 cards the seat has not seen lies in
    the other hand with probability 6/30, in the draw pile with 18/30 and among the dead with
    6/30; the draw pile's top card is each of them with probability 1/30."""
    state = _at_first(GAMES[0], 7, "play")
    sizes = _check_uniform(GAMES[0], state, state.current_seat())
    assert sizes == {"other_hand": 6, "draw": 18, "dead": 6}


@pytest.mark.slow
def test_enshu_sample_hidden_deals_each_unseen_card_uniformly():
    """Enshu-bana at the first play: variant W with 3 players (the two other hands of 7 less
    their exposed cards, a draw pile of 21); variant C with 5 players whose dropped hands are set
    aside (two other active hands less their exposed cards, a draw pile of 7, 14 cards set
    aside)."""
    state = _at_first(ENSHU_W, 10, "play")  # another seat exposed a triplet: those 3 cards stay
    seat = state.current_seat()
    sizes = _check_uniform(ENSHU_W, state, seat)
    exposed = sum((state.exposed[s] & state.hands[s]).bit_count() for s in range(3) if s != seat)
    assert exposed == 3 and sizes["draw"] == 21 and sum(sizes.values()) == 35 - exposed
    state = _at_first(ENSHU_C5_ASIDE, 5, "play")  # here too
    seat = state.current_seat()
    sizes = _check_uniform(ENSHU_C5_ASIDE, state, seat)
    exposed = sum((state.exposed[s] & state.hands[s]).bit_count() for s in range(5) if s != seat)
    assert exposed == 3 and (sizes["draw"], sizes["set_aside"]) == (7, 14)
    assert sum(sizes.values()) == 7 + 14 + 14 - exposed


@pytest.mark.slow
def test_enshu_sample_hidden_for_a_dropped_seat():
    """A seat that dropped out knows its own cards went into the draw pile (variant C, 5
    players): they stay in it, each at a uniform place; the rest is dealt as for any seat."""
    state = _at_first(ENSHU_C5, 3, "play")
    dropped = [s for s in range(5) if not state.active[s]]
    assert len(dropped) == 2
    for seat in dropped:
        own = state.hand_dealt[seat]
        assert own.bit_count() == 7 and own & ~mask_of(state.draw) == 0 and state.hands[seat] == 0
        sizes = _check_uniform(ENSHU_C5, state, seat, n=4000)
        assert sizes["draw"] == len(state.draw) - 7 and sizes["set_aside"] == 0


@pytest.mark.parametrize("game", [ENSHU_W, ENSHU_C5_ASIDE], ids=lambda g: g.name)
@pytest.mark.slow
def test_enshu_world_for_another_seat_asks_the_decider_afresh(game):
    """A world sampled for a seat that is not deciding deals the decider a new hand: its
    pending play or teyaku decision is asked of that hand (a teyaku decision it no longer
    qualifies for is skipped: the world steps on to the next decision, no card moving), and the
    world plays to the end."""
    kinds = set()
    for r in range(12):
        _, steps = _played(game, r)
        for k, (before, decision, _) in enumerate(steps):
            for seat in range(len(before.hands)):
                if seat == decision.seat or not before.active[seat]:
                    continue
                world = before.sample_hidden(seat, Stream(SEED, r, 3000 + k))
                assert game.seen_by(world, seat) == game.seen_by(before, seat)
                pending = world.decision()
                if pending.kind == decision.kind:
                    assert world.observation(seat) == before.observation(seat)
                if decision.kind == "play":
                    assert pending.actions == tuple(ids_of(world.hands[decision.seat]))
                elif pending.kind == "declare_teyaku":
                    options = [o for o in teyaku_options(world.c, world.hands[pending.seat], pending.info["group"])
                               if not o.stops]
                    assert pending.actions == (*options, None)
                if pending != decision:
                    kinds.add(decision.kind)
                play_through(world, game.policies(r), game.ask)
                assert world.is_terminal()
    assert {"play", "declare_teyaku"} <= kinds


def test_enshu_worlds_keep_no_hidden_record_and_deal_from_their_own_streams():
    """A world keeps no trace, of the other seats' dealt hands only their exposed cards, and
    the random steps still to come (the deal itself, before it) are its own."""
    game = ENSHU_C5
    setup = enshu.RoundSetup(seed=SEED, round_index=5, dealer=0)
    compiled = enshu_compile.compile_rules(load_rules("enshu-c", {"enshu.players": 5}))
    traced = enshu.new_state(compiled, setup, trace=True)
    assert traced.decision().kind == "mizu_kotsu" and traced.hands == [0] * 5
    deals = set()
    for k in range(20):
        world = traced.sample_hidden(0, Stream(SEED, 5, 100 + k))
        assert world.events == [] and not world.trace
        play_through(world, game.policies(5), game.ask)
        deals.add((world.result.field_dealt, tuple(world.result.hand_dealt)))
    real = play_through(game.new_state(5), game.policies(5), game.ask).result
    assert len(deals) == 20 and (real.field_dealt, tuple(real.hand_dealt)) not in deals
    state = _at_first(game, 3, "play")
    seat = state.current_seat()
    world = state.sample_hidden(seat, Stream(SEED, 3, 1))
    assert world.hand_dealt[seat] == state.hand_dealt[seat]
    for s in range(5):
        if s != seat:
            assert world.hand_dealt[s] == state.hand_dealt[s] & state.exposed[s]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rule_sets(), st.integers(min_value=0, max_value=2**63 - 1), st.sampled_from(["random", "greedy"]))
@pytest.mark.slow
def test_enshu_forward_model_under_any_options(rule_set, seed, policy):
    """Any Enshu-bana rule set: at every decision a world sampled for the deciding seat keeps
    its observation and plays to the end with every card in one place after every step (the
    invariant harness's check rides along in clones and worlds), and a clone taken there plays
    on to the round ``play_round`` plays."""
    name, options = rule_set
    compiled = enshu_compile.compile_rules(load_rules(name, options))
    players = compiled.players
    specs = [parse_policy(policy if s % 2 == 0 else "random") for s in range(players)]
    for r in range(2):
        setup = enshu.RoundSetup(seed=seed, round_index=r, dealer=r % players)
        state = enshu.new_state(compiled, setup, on_step=check_cards)
        policies = enshu.seat_policies(compiled, specs, seed, r)
        steps = []
        while not state.is_terminal():
            decision = state.decision()
            world = state.sample_hidden(decision.seat, Stream(seed, r, 900 + len(steps)))
            assert world.observation(decision.seat) == state.observation(decision.seat)
            assert world.decision() == decision
            play_through(world, enshu.seat_policies(compiled, specs, seed, r), enshu.ask_policy)
            assert world.is_terminal()
            action = enshu.ask_policy(policies[decision.seat], state, decision)
            steps.append((state.clone(), action))
            state.apply(action)
        expected = enshu.play_round(compiled, setup, enshu.seat_policies(compiled, specs, seed, r))
        assert state.result == expected
        for k, (before, _) in enumerate(steps):
            for _, action in steps[k:]:
                before.apply(action)
            assert before.result == expected


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.name)
def test_the_forward_model_is_a_state(game):
    assert isinstance(game.new_state(0), State)


@pytest.mark.parametrize("game", GAMES[:2], ids=lambda g: g.name)
@pytest.mark.slow
def test_tensho_world_for_the_other_seat_asks_the_decider_afresh(game):
    """Sampled for the seat that is not deciding, a world deals the decider a new hand: a
    pending play lists that hand, a pending banking of the 6 of clubs goes to whoever holds it
    in the world (or to nobody), and the world plays to the end."""
    kinds = set()
    for r in range(40):
        _, steps = _played(game, r)
        for k, (before, decision, _) in enumerate(steps):
            seat = 1 - decision.seat
            world = before.sample_hidden(seat, Stream(SEED, r, 7000 + k))
            assert game.seen_by(world, seat) == game.seen_by(before, seat)
            pending = world.decision()
            if decision.kind == "play":
                assert pending.actions == tuple(ids_of(world.hands[decision.seat]))
            if pending is not None and pending.kind == "bank_six":
                assert world.hands[pending.seat] >> world.six & 1
            if decision.kind == "bank_six" and pending != decision:
                assert not world.hands[decision.seat] >> world.six & 1
            if pending != decision:
                kinds.add(decision.kind)
            play_through(world, game.policies(r), game.ask)
            assert world.is_terminal()
    assert "play" in kinds
    if game is GAMES[1]:  # six_in_hand = bank_at_deal
        assert "bank_six" in kinds


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.name)
@pytest.mark.slow
def test_decisions_do_not_change_when_only_hidden_cards_do(game):
    """Guarantee 6 of docs/guarantees.md for every game and built-in policy: at each decision of a
    played round, the deciding seat's policy (fresh, its stream at the same place) takes the same
    action in the real state and in a world where every card it cannot see was dealt anew."""
    kinds = set()
    for r in range(25):
        _, steps = _played(game, r)
        for k, (before, decision, _) in enumerate(steps):
            world = before.sample_hidden(decision.seat, Stream(SEED, r, 9000 + k))
            assert world.decision() == decision
            real = game.ask(game.policies(r)[decision.seat], before, decision)
            sampled = game.ask(game.policies(r)[decision.seat], world, world.decision())
            assert real == sampled, (r, k, decision.kind)
            kinds.add(decision.kind)
    assert "play" in kinds
