"""One invariant harness for every Enshu-bana variant and player count (STYLE.md, pgx-style).

After every step of the reference engine that moves a card, and at every decision it pauses at:
the hands, the field, the capture piles, the draw pile, any set-aside cards and the card in play
(played or turned, awaiting its seat's capture choice) are disjoint and cover the 48 cards (before
the deal, at the mizu-kotsu decisions, every place is empty).  After every round: termination within
the deal's turns, payments that sum to zero (W, C), dropped seats untouched, the winner
consistent with the end reason, declared teyaku a subset of the dealt ones, and every policy
observation limited to what its seat may see.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from simcore.cards import ids_of
from simcore.games.enshu import enums as E
from simcore.games.enshu.compile import compile_rules
from simcore.games.enshu.reference import RoundSetup, play_round, play_unit, seat_policies
from simcore.policies import parse_policy
from simcore.rules.loader import load_rules

FULL = (1 << 48) - 1


def check_cards(state) -> None:
    parts = [*state.hands, state.field, *state.piles, sum(1 << c for c in state.draw), state.set_aside,
             state.in_play]
    decision = state.decision()
    if decision is not None and decision.kind == "mizu_kotsu":
        assert not any(parts), "cards dealt before the mizu-kotsu decisions"
        return
    union = 0
    for part in parts:
        assert union & part == 0, "a card is in two places"
        union |= part
    assert union == FULL, f"cards missing: {ids_of(FULL & ~union)}"
    assert len(state.draw) == len(set(state.draw))
    if state.in_play:
        assert decision is not None and decision.kind == "capture" and state.in_play == 1 << decision.info["card"]
    if decision is not None:
        assert decision.actions and decision.seat == state.current_seat()


class Watch:
    """Wraps a policy: checks each observation against the round state it was taken from."""

    def __init__(self, policy, seat: int, state_ref: list) -> None:
        self.policy = policy
        self.seat = seat
        self.state_ref = state_ref

    def _check(self, obs) -> None:
        state = self.state_ref[0]
        assert obs.seat == self.seat
        if state is None:
            return
        assert obs.hand == state.hands[self.seat]
        for other in range(obs.players):
            # Only exposed cards of another hand are visible, and only while still in that hand.
            assert obs.exposed[other] == state.exposed[other] & state.hands[other]
        assert obs.draw_size == len(state.draw)
        assert obs.seen & ~(state.seen) == 0

    def __getattr__(self, name):
        method = getattr(self.policy, name)

        def wrapped(obs, *args):
            self._check(obs)
            return method(obs, *args)

        return wrapped


def run_checked(compiled, specs, seed: int, round_index: int, dealer: int):
    state_ref = [None]

    def on_step(state):
        state_ref[0] = state
        check_cards(state)

    policies = [Watch(p, s, state_ref) for s, p in enumerate(seat_policies(compiled, specs, seed, round_index))]
    result = play_round(compiled, RoundSetup(seed=seed, round_index=round_index, dealer=dealer), policies,
                        on_step=on_step)
    check_result(compiled, result)
    return result


def check_result(compiled, result) -> None:
    p = compiled.params
    variant = int(p[E.P_VARIANT])
    n = result.players
    hand_size = int(p[E.P_HAND])
    active = [s for s in range(n) if result.active[s]]
    reason = E.END_REASONS[result.end_reason]
    assert len(active) == (min(n, 3) if variant == E.VARIANT_C else n)
    assert 0 <= result.end_turn <= hand_size * len(active)
    if reason == "score":
        assert result.end_turn == hand_size * len(active)
    for s in range(n):
        assert result.teyaku_declared[s] & ~result.teyaku_dealt[s] == 0
        assert result.exposed[s] & ~result.hand_dealt[s] == 0
        if not result.active[s]:
            assert result.captured[s] == 0 and result.payoff[s] == 0 and result.score[s] == 0
    if variant != E.VARIANT_S:
        assert sum(result.payoff) == 0
    if reason == "fuke":
        assert result.winner == -1 and result.fuke in active and not any(result.payoff)
        assert result.teyaku_declared[result.fuke] == 0
    else:
        assert result.winner in active and result.fuke == -1
    if reason == "uchikiri":
        stopping = result.stopping_yaku
        assert stopping and stopping & ~result.yaku[result.winner] == 0
    if reason == "teyaku_stop":
        assert variant == E.VARIANT_W and result.stopping_teyaku & ~result.teyaku_declared[result.winner] == 0
    if reason == "score" and variant != E.VARIANT_W:
        assert result.score[result.winner] == max(result.score[s] for s in active)
    if variant == E.VARIANT_C:
        assert result.multiplier >= 1 + result.field_brights + result.mizu_kotsu_count + result.kotsu_count
        assert result.mizu_kotsu_count <= E.MAX_MIZU_KOTSU
        if reason != "fuke":
            paid = -min(result.payoff[s] for s in active if s != result.winner)
            assert paid == max(result.score[result.winner], 0) or int(p[E.P_C_NEGATIVE_SCORE]) == 1
    else:
        assert result.multiplier == 1 and result.kotsu_count == 0 and result.mizu_kotsu_count == 0


CONFIGS = [("enshu-w", 2), ("enshu-w", 3), ("enshu-s", 2), ("enshu-s", 3),
           ("enshu-c", 2), ("enshu-c", 3), ("enshu-c", 4), ("enshu-c", 5)]


@pytest.mark.slow
def test_invariants_after_every_step_for_every_variant_and_player_count():
    for name, players in CONFIGS:
        compiled = compile_rules(load_rules(name, {"enshu.players": players}))
        mixed = [parse_policy("random" if s % 2 == 0 else "greedy") for s in range(players)]
        for specs in ([parse_policy("random")] * players, [parse_policy("greedy")] * players, mixed):
            for r in range(25):
                run_checked(compiled, specs, 77, r, r % players)


OPTION_CHOICES = {
    "W": {"enshu.deal_2p": ["8_8", "7_6"], "enshu.w_misdeal": ["field_four", "none", "as_variant_C"],
          "enshu.uchikiri_check": ["end_of_turn", "after_each_capture"], "enshu.capture_three": ["all", "one"],
          "enshu.w.uchikiri_payment": ["total_k", "ante_plus_k"], "enshu.w.tie": ["turn_order", "split"],
          "enshu.w.uchikiri_combo": ["sum", "max", "product"], "enshu.w.stake": [1, 2, 7]},
    "S": {"enshu.s.teyaku": ["on", "off"], "enshu.s.multipliers": ["3_2_2", "5_3_3"],
          "enshu.s.combination": ["total_times_product", "cards_times_product_plus_yaku", "total_times_sum"],
          "enshu.tie_order": ["turn_order", "dealer_then_left"], "enshu.sokuyaku_stacking": ["supersede", "additive"]},
    "C": {"enshu.c.score_formula": ["literal", "zero_sum"], "enshu.c.negative_score": ["clamp_zero", "literal"],
          "enshu.c.triplet_bonus_mode": ["separate", "upgrade"],
          "enshu.c.icp_four_check": ["at_deal_all_hands", "at_teyaku_active_hands"],
          "enshu.c.junk_def": ["lightning_excluded", "lightning_is_junk"],
          "enshu.c.dropped_hands": ["shuffle_into_draw", "set_aside"], "enshu.c.dropout_pass_cap": [1, 2, 20],
          "enshu.c.fuke_on_uchikiri": ["false", "true"], "enshu.c.kotsu_small_games": ["true", "false"],
          "enshu.tie_order": ["turn_order", "dealer_then_left"]},
}


@st.composite
def rule_sets(draw):
    variant = draw(st.sampled_from("WSC"))
    players = draw(st.sampled_from([2, 3] if variant != "C" else [2, 3, 4, 5]))
    options = {"enshu.players": players}
    for name, choices in OPTION_CHOICES[variant].items():
        options[name] = draw(st.sampled_from(choices))
    return f"enshu-{variant.lower()}", options


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rule_sets(), st.integers(min_value=0, max_value=2**63 - 1), st.sampled_from(["random", "greedy"]))
@pytest.mark.slow
def test_invariants_hold_under_any_options_and_seed(rule_set, seed, policy):
    name, options = rule_set
    compiled = compile_rules(load_rules(name, options))
    players = compiled.players
    specs = [parse_policy(policy)] * players
    for r in range(3):
        run_checked(compiled, specs, seed, r, r % players)


def test_a_round_is_a_pure_function_of_seed_and_index():
    compiled = compile_rules(load_rules("enshu-c", {"enshu.players": 5}))
    specs = [parse_policy("random")] * 5
    first = [play_unit(compiled, specs, 3, u, None)[0] for u in range(20)]
    again = [play_unit(compiled, specs, 3, u, None)[0] for u in reversed(range(20))][::-1]
    assert [vars(a) for a in first] == [vars(b) for b in again]


def test_the_deal_does_not_depend_on_the_policies():
    # Common random numbers (guarantee 2 of docs/guarantees.md): the deal stream is the same under
    # every policy, so the first deal (and, under variant W, the standing deal) is shared.
    compiled = compile_rules(load_rules("enshu-w"))
    for r in range(20):
        a = play_unit(compiled, [parse_policy("random")] * 3, 9, r, None)[0]
        b = play_unit(compiled, [parse_policy("greedy")] * 3, 9, r, None)[0]
        assert (a.field_dealt, a.hand_dealt) == (b.field_dealt, b.hand_dealt)


def test_greedy_ignores_hidden_information():
    # Guarantee 6 of docs/guarantees.md: reversing the draw pile and swapping an unexposed card
    # between the two other hands (neither hand holding a teyaku before or after) changes nothing
    # the dealer can see before its first play, so its first play must not change.
    import random

    from simcore.games.enshu.compile import teyaku_options
    from simcore.games.enshu.reference import deal_slots, misdeal_at_deal
    from simcore.games.enshu.replay import replay_deck

    compiled = compile_rules(load_rules("enshu-c"))
    specs = [parse_policy("greedy")] * 3

    def first_play(deck):
        result = replay_deck(compiled, deck, None, specs=specs)
        return next(e["card"] for e in result.events if e["type"] == "play")

    def playable(deck):
        field, hands, _ = deal_slots(compiled, deck, 0)
        return not misdeal_at_deal(compiled, field, hands) and not any(
            teyaku_options(compiled, hand, None) for hand in hands[1:])

    checked = 0
    for r in range(60):
        deck = random.Random(r).sample(range(48), 48)
        other = deck[:6] + deck[6:13] + [deck[20]] + deck[14:20] + [deck[13]] + deck[21:27] + deck[27:][::-1]
        if not (playable(deck) and playable(other)):
            continue
        assert first_play(deck) == first_play(other)
        checked += 1
    assert checked >= 30
