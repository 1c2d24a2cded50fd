"""Tensho's ``heuristic`` policy: the reference class and its numba twin decide alike at every
decision of many reference rounds, it never draws from its stream, and it takes the right action
on hand-built positions worked out by hand below.

Hand computations use the defaults of ``HEURISTIC_PARAMS`` (chances per mille, worths in tenths
of a point) and tensho-ise's tables (yaku set 1, card values T1, chaff set B).
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
from tensho_cards import (
    COIN,
    CUP,
    EIGHT_OF_SWORDS,
    FIVE_OF_CLUBS,
    FIVE_OF_SWORDS,
    FOUR_OF_SWORDS,
    HORSE_OF_SWORDS,
    KING_OF_SWORDS,
    NINE_OF_SWORDS,
    ONE_OF_CLUBS,
    RANKS_OF_FOUR,
    SEVEN_OF_SWORDS,
    SIX_OF_CLUBS,
    TEN_OF_SWORDS,
    TWO_OF_CLUBS,
    TWO_OF_COINS,
    TWO_OF_CUPS,
    TWO_OF_SWORDS,
    rank,
)

from simcore.cards import mask_of
from simcore.games.tensho import heuristic_nb as H
from simcore.games.tensho.compile import compile_rules
from simcore.games.tensho.decisions import action_key, ask_policy
from simcore.games.tensho.policies import (
    HEURISTIC_PARAMS,
    HeuristicPolicy,
    Observation,
    make_policy,
)
from simcore.games.tensho.reference import RoundSetup, new_state
from simcore.kernels.internal import python_entry
from simcore.policies import parse_policy
from simcore.rng import Stream, seat_stream
from simcore.rules import load_rules

# the kernel's parts compiled for numba callers only, called from here through python_entry
H_ = SimpleNamespace(**{name: python_entry(getattr(H, name)) for name in ("heuristic_choose_nb",)})

# Rule sets and options whose decisions differ: every shipped Tensho rule set, both yaku sets
# and the dealer's choice, optional captures, banking the 6 of clubs, both double- and triple-
# match rules, claims on a four of a rank, the 6 of clubs to the dealer, additive yaku.
VARIANTS = [
    ("tensho-ise", {}),
    ("tensho-ise", {"tensho.yaku_set_choice": "fixed_2"}),
    ("tensho-ise", {"tensho.yaku_set_choice": "dealer_policy"}),
    ("tensho-hanafuda", {"tensho.yaku_set_choice": "alternate"}),
    ("tensho-hanafuda", {"tensho.back_two_card": "rain_man", "tensho.yaku_set_choice": "fixed_2"}),
    ("tensho-ise", {"tensho.capture_mandatory": "false"}),
    ("tensho-ise", {"tensho.capture_mandatory": "false", "tensho.yaku_set_choice": "fixed_2"}),
    ("tensho-ise", {"tensho.six_in_hand": "bank_at_deal", "tensho.yaku_set_choice": "dealer_policy"}),
    ("tensho-ise", {"tensho.double_match": "highest_value_first"}),
    ("tensho-ise", {"tensho.triple_match": "one", "tensho.field_four_of_rank": "opening_rule_applies"}),
    ("tensho-ise", {"tensho.opening_claim_scope": "one_triple", "tensho.field_four_of_rank": "stuck"}),
    ("tensho-ise", {"tensho.six_on_field": "dealer_captures", "tensho.supersession": "none",
                    "tensho.ten_horse_king": "10_9_12"}),
]

MIXES = [("heuristic", "heuristic"), ("heuristic", "random"), ("random", "heuristic"),
         ("heuristic:yaku_set=2,claim=50,risk=500", "greedy")]


def decide_both(state, decision, policy, tables):
    """The reference policy's action at ``decision`` and the numba twin's, as action keys."""
    action = ask_policy(policy, state, decision)
    keys = np.array([H.tensho_action_key(decision, a) for a in decision.actions], dtype=np.int64)
    card = decision.info["card"] if decision.kind == "capture" else -1
    obs = H.pack_observation(state.observe(decision.seat), card)
    index = H_.heuristic_choose_nb(H.kind_code(decision.kind), obs, keys, len(keys), tables)
    return H.tensho_action_key(decision, action), int(keys[index])


def play_checked(compiled, specs, seed, round_index, dealer):
    """Play one reference round; at every heuristic decision compare the two engines.
    Returns the number of decisions compared."""
    streams = [Stream(seed, round_index, seat_stream(s)) for s in range(2)]
    policies = [make_policy(specs[s], compiled, streams[s]) for s in range(2)]
    tables = [H.heuristic_tables(compiled, spec) if spec.name == "heuristic" else None for spec in specs]
    state = new_state(compiled, RoundSetup(seed=seed, round_index=round_index, dealer=dealer))
    compared = 0
    while (decision := state.decision()) is not None:
        seat = decision.seat
        assert [H.tensho_action_key(decision, a) for a in decision.actions] == \
            [action_key(decision, a) for a in decision.actions]
        if specs[seat].name == "heuristic":
            reference, twin = decide_both(state, decision, policies[seat], tables[seat])
            assert reference == twin, (round_index, decision.kind, decision.actions)
            compared += 1
            action = decision.actions[[H.tensho_action_key(decision, a) for a in decision.actions].index(reference)]
        else:
            action = ask_policy(policies[seat], state, decision)
        state.apply(action)
    return compared


@pytest.mark.parametrize("rules, options", VARIANTS)
@pytest.mark.slow
def test_twin_decides_as_the_reference(rules, options):
    compiled = compile_rules(load_rules(rules, options))
    compared = 0
    for m, (a, b) in enumerate(MIXES):
        specs = [parse_policy(a, "tensho"), parse_policy(b, "tensho")]
        for r in range(60):
            compared += play_checked(compiled, specs, 11 + m, r, r % 2)
    assert compared > 1500


def test_it_never_draws_from_its_stream():
    compiled = compile_rules(load_rules("tensho-ise", {"tensho.yaku_set_choice": "dealer_policy",
                                                       "tensho.six_in_hand": "bank_at_deal"}))
    specs = [parse_policy("heuristic", "tensho"), parse_policy("heuristic", "tensho")]
    for r in range(20):
        streams = [Stream(5, r, seat_stream(s)) for s in range(2)]
        policies = [make_policy(specs[s], compiled, streams[s]) for s in range(2)]
        state = new_state(compiled, RoundSetup(seed=5, round_index=r, dealer=r % 2))
        while (decision := state.decision()) is not None:
            state.apply(ask_policy(policies[decision.seat], state, decision))
        for s in range(2):
            assert streams[s].uniform_below(1 << 30) == Stream(5, r, seat_stream(s)).uniform_below(1 << 30)


@pytest.mark.slow
def test_decisions_ignore_what_the_seat_cannot_see():
    """Guarantee 6 of docs/guarantees.md: the same decision in every world ``sample_hidden``
    deals."""
    compiled = compile_rules(load_rules("tensho-ise", {"tensho.capture_mandatory": "false"}))
    spec = parse_policy("heuristic", "tensho")
    policy = make_policy(spec, compiled, Stream(3, 0, seat_stream(0)))
    checked = 0
    for r in range(15):
        state = new_state(compiled, RoundSetup(seed=3, round_index=r, dealer=r % 2))
        while (decision := state.decision()) is not None:
            action = ask_policy(policy, state, decision)
            for w in range(3):
                world = state.sample_hidden(decision.seat, Stream(99, r * 10 + w, 7))
                assert ask_policy(policy, world, world.decision()) == action
                checked += 1
            state.apply(action)
    assert checked > 300


def test_make_policy_builds_it_with_its_parameters():
    compiled = compile_rules(load_rules("tensho-ise"))
    policy = make_policy(parse_policy("heuristic:chaff=7,yaku_set=2", "tensho"), compiled, Stream(0, 0, 0))
    assert isinstance(policy, HeuristicPolicy)
    assert policy.params["chaff"] == 7 and policy.choose_yaku_set(None) == 2
    defaults = make_policy(parse_policy("heuristic", "tensho"), compiled, Stream(0, 0, 0)).params
    assert defaults == {name: default for name, (default, _) in HEURISTIC_PARAMS.items()}
    tables = H.heuristic_tables(compiled, parse_policy("heuristic:chaff=7", "tensho"))
    assert tables.dtype == np.int64 and tables.shape == (H.T_SIZE,) and tables[H.T_W_CHAFF] == 7


# --- hand-built positions ------------------------------------------------------------------------
# Seat 0 decides in the middle of a round. ``observation`` pads the piles with filler pairs (the
# coin and cup of ranks of which neither the hand nor the field holds a card: chaff in no yaku)
# up to a round's size for the hands held (``6 - h`` turns taken by a seat holding h cards), and
# the draw pile holds what is left after the 6 dead cards, so every count the policy reads adds
# up to the 45 cards.


def observation(hand, field, mine, theirs, *, opp_hand=None, in_play=0, yaku_set=1):
    """Seat 0's observation with these cards (ids); the opponent holds ``opp_hand`` cards (as
    many as seat 0 by default) and ``in_play`` cards are being resolved."""
    mine, theirs = list(mine), list(theirs)
    opp_hand = len(hand) if opp_hand is None else opp_hand
    turns_taken = 12 - len(hand) - opp_hand - in_play
    target = 9 + 2 * turns_taken  # field and piles: the 9 dealt, two cards more per turn taken
    named = set(hand) | set(field) | set(mine) | set(theirs)
    busy_ranks = {rank(c) for c in list(hand) + list(field)}
    fillers = [c for r in RANKS_OF_FOUR if r not in busy_ranks and COIN[r] not in named and CUP[r] not in named
               for c in (COIN[r], CUP[r])]
    while len(field) + len(mine) + len(theirs) < target and fillers:
        (mine if len(mine) <= len(theirs) else theirs).extend(fillers[:2])
        del fillers[:2]
    placed = len(field) + len(mine) + len(theirs)
    draw_size = 45 - 6 - len(hand) - opp_hand - in_play - placed
    assert 6 < draw_size <= 18, draw_size
    hand_mask, field_mask, mine_mask, theirs_mask = (mask_of(x) for x in (hand, field, mine, theirs))
    return Observation(seat=0, dealer=0, yaku_set=yaku_set, round_in_match=0, match_points=(0, 0),
                             hand=hand_mask, field=field_mask, piles=(mine_mask, theirs_mask),
                             seen=field_mask | mine_mask | theirs_mask, draw_size=draw_size,
                             turn=1 + turns_taken)


def both_decide(kind, obs, actions, keys, *, card=-1, rules="tensho-ise", spec="heuristic"):
    """The action both engines take at ``obs`` (``actions`` and their ``keys`` in legal order)."""
    compiled = compile_rules(load_rules(rules))
    policy = HeuristicPolicy(parse_policy(spec, "tensho"), compiled)
    if kind == H.KIND_PLAY:
        reference = policy.play(obs)
    elif kind == H.KIND_CAPTURE:
        reference = policy.choose_capture(obs, card, [a for a in actions if a is not None], None in actions)
    else:
        rank_of = None
        reference = policy.opening_claim(obs, rank_of, [a for a in actions if a is not None])
    tables = H.heuristic_tables(compiled, parse_policy(spec, "tensho"))
    packed = H.pack_observation(obs, card)
    twin = actions[H_.heuristic_choose_nb(kind, packed, np.array(keys, dtype=np.int64), len(keys), tables)]
    assert twin == reference
    return reference


def both_play(obs, **kwargs):
    """The card both engines play at ``obs``."""
    hand = [c for c in range(45) if (obs.hand >> c) & 1]
    return both_decide(H.KIND_PLAY, obs, hand, [(H.KIND_PLAY << 56) | c for c in hand], **kwargs)


def test_completes_a_yaku_rather_than_take_the_most_valuable_card():
    """Seat 0 holds the 7 and 8 of swords in its pile: the 9 of swords on the field completes
    Front Nakazō (100 points) with the 9 of coins. The other capture takes the 1 of clubs, the
    most valuable card of the deck (15), with the 1 of cups. 100 points now beat any card value
    (which only breaks ties of points and chaff): play the 9 of coins."""
    obs = observation(hand=[COIN[9], CUP[1], COIN[4]], field=[NINE_OF_SWORDS, ONE_OF_CLUBS, CUP[12]],
                      mine=[SEVEN_OF_SWORDS, EIGHT_OF_SWORDS], theirs=[])
    assert both_play(obs) == COIN[9]


def test_denies_the_card_that_completes_two_opponent_yaku():
    """The opponent holds the 10, Horse and 4 of swords: the King of swords on the field would
    complete Front Ten-Horse-King and Front Four-Horse-King (200 points). Seat 0 can take it with
    the King of cups (one chaff card), or take the 5 of coins with the 5 of cups (two chaff
    cards). Left on the field, the King of swords goes to the opponent as soon as it holds or
    turns one of the two unseen Kings; one chaff card does not weigh against 200 points: take
    the King of swords."""
    obs = observation(hand=[CUP[12], CUP[5], COIN[7]], field=[KING_OF_SWORDS, COIN[5], COIN[1]],
                      mine=[], theirs=[TEN_OF_SWORDS, HORSE_OF_SWORDS, FOUR_OF_SWORDS])
    assert both_play(obs) == CUP[12]


def test_takes_the_denying_card_of_a_double_match():
    """Seat 0 turned the King of cups onto a field holding the King of swords and the King of
    coins; the opponent needs the King of swords for Front Ten-Horse-King and Four-Horse-King.
    Either capture brings seat 0 one chaff card; the King of swords also denies 200 points."""
    obs = observation(hand=[CUP[5], COIN[7]], field=[KING_OF_SWORDS, COIN[12], COIN[1]],
                      mine=[], theirs=[TEN_OF_SWORDS, HORSE_OF_SWORDS, FOUR_OF_SWORDS], opp_hand=3, in_play=1)
    options = [1 << KING_OF_SWORDS, 1 << COIN[12]]
    keys = [(H.KIND_CAPTURE << 56) | o for o in options]
    assert both_decide(H.KIND_CAPTURE, obs, options, keys, card=CUP[12]) == 1 << KING_OF_SWORDS


def test_keeps_back_the_card_the_opponent_needs_when_a_safe_card_can_be_left():
    """Nothing in seat 0's hand captures. The opponent holds the 7 and 8 of swords: the 9 of
    swords completes its Front Nakazō, and three 9s are unseen, so left on the field it is
    likely taken. Every other 2 (clubs, swords, coins) is in a pile, so the 2 of cups left on
    the field can never be captured by anyone (the 10 and King of coins, chaff of ranks with
    unseen cards, offer the opponent a chaff card): leave the 2 of cups."""
    obs = observation(hand=[NINE_OF_SWORDS, TWO_OF_CUPS, COIN[10], COIN[12]], field=[COIN[1], COIN[3], COIN[11]],
                      mine=[TWO_OF_SWORDS, CUP[11]], theirs=[SEVEN_OF_SWORDS, EIGHT_OF_SWORDS, TWO_OF_CLUBS,
                                                             TWO_OF_COINS])
    assert both_play(obs) == TWO_OF_CUPS


def test_leaves_the_card_of_a_rank_nobody_can_still_capture():
    """Two chaff cards, neither in any yaku nor capturing: the 5 of coins and the 7 of coins.
    The other 5s are all in the piles, while the three other 7s are unseen: whatever the
    opponent holds or turns, the 5 of coins offers it nothing. Leave the 5 of coins."""
    obs = observation(hand=[COIN[5], COIN[7]], field=[COIN[1], COIN[3], COIN[11]],
                      mine=[CUP[5], FIVE_OF_SWORDS, CUP[1]], theirs=[FIVE_OF_CLUBS, CUP[3]])
    assert both_play(obs) == COIN[5]


def test_plays_the_six_of_clubs_for_an_instant_win():
    """Set 1: the 5 and 10 of swords in seat 0's pile and the 6 of clubs in its hand make Front
    Elder, an instant win, the moment the 6 is played; capturing the 1 of clubs (15) waits."""
    obs = observation(hand=[SIX_OF_CLUBS, CUP[1]], field=[ONE_OF_CLUBS, COIN[3], COIN[11]],
                      mine=[FIVE_OF_SWORDS, TEN_OF_SWORDS], theirs=[])
    assert both_play(obs) == SIX_OF_CLUBS


def test_claims_the_two_yaku_cards_of_a_field_triple():
    """At the deal, the field holds the 2 of clubs, the 2 of swords and the 2 of coins. The clubs
    and swords 2s each belong to two yaku (One-Two-Three and One-Two-Ten, Back and Front) and the
    2 of clubs is worth 10; the 2 of coins is worth 10 too but belongs to no yaku (and is not
    chaff in set B). Claim the clubs and swords pair: it is the only one that starts four yaku for
    the dealer and takes them from the opponent."""
    field = [TWO_OF_CLUBS, TWO_OF_SWORDS, TWO_OF_COINS, COIN[1], COIN[3], COIN[4], COIN[5], COIN[7], COIN[8]]
    hand = [CUP[1], CUP[3], CUP[4], CUP[5], CUP[7], CUP[8]]
    obs = Observation(seat=0, dealer=0, yaku_set=1, round_in_match=0, match_points=(0, 0),
                            hand=mask_of(hand), field=mask_of(field), piles=(0, 0), seen=mask_of(field),
                            draw_size=18, turn=0)
    pairs = [(TWO_OF_CLUBS, TWO_OF_SWORDS), (TWO_OF_CLUBS, TWO_OF_COINS), (TWO_OF_SWORDS, TWO_OF_COINS)]
    actions = [None] + pairs
    keys = [H.KIND_OPENING_CLAIM << 56] + [(H.KIND_OPENING_CLAIM << 56) | (1 << a) | (1 << b) for a, b in pairs]
    assert both_decide(H.KIND_OPENING_CLAIM, obs, actions, keys) == (TWO_OF_CLUBS, TWO_OF_SWORDS)
    # with a claim threshold above any pair's gain, both engines decline
    assert both_decide(H.KIND_OPENING_CLAIM, obs, actions, keys, spec="heuristic:claim=100000") is None


def test_rules_for_the_six_and_the_yaku_set():
    """It never banks the 6 of clubs (banking costs a turn's draw; a held 6 is safe in hand) and
    picks its ``yaku_set`` parameter; the twin takes the same keys."""
    compiled = compile_rules(load_rules("tensho-ise"))
    for spec, wanted in (("heuristic", 1), ("heuristic:yaku_set=2", 2)):
        policy = HeuristicPolicy(parse_policy(spec, "tensho"), compiled)
        tables = H.heuristic_tables(compiled, parse_policy(spec, "tensho"))
        obs = np.full(H.OBS_SIZE, 0, dtype=np.int64)
        assert policy.choose_yaku_set(None) == wanted
        assert H_.heuristic_choose_nb(H.KIND_YAKU_SET, obs, np.array([1, 2], dtype=np.int64), 2, tables) == wanted - 1
        assert policy.bank_six(None) is False
        bank_keys = np.array([(H.KIND_BANK_SIX << 56), (H.KIND_BANK_SIX << 56) | 1], dtype=np.int64)
        assert H_.heuristic_choose_nb(H.KIND_BANK_SIX, obs, bank_keys, 2, tables) == 0


