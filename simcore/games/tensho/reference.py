"""The readable Tensho reference engine (docs/tensho.md), with step-by-step events.

This is the truth the numba kernel is held to: the same rule tables, the same streams consumed
in the same order, the same outcome for every round.

Order of play in a round (docs/tensho.md#a-round, with its options):

1. the yaku set is fixed (option ``tensho.yaku_set_choice``);
2. the deal: the deal stream shuffles (Fisher-Yates over positions 0..38, ``j = i +
   uniform(45 - i)``, drawn by ``Stream.shuffle_places`` for positions 0..32, then 33..38) and
   the deck is cut into field 9, dealer's hand 6, other hand 6, draw 18 (top first) and dead 6;
   four cards of one rank on the field redeal (option);
3. a field-dealt 6 of clubs goes to the dealer (only with ``six_on_field = dealer_captures``);
4. the dealer's opening claims, per field triple in ascending rank; a claim makes the non-dealer
   play first;
5. banking the 6 of clubs (only with ``six_in_hand = bank_at_deal``);
6. turns: play a hand card and resolve it, then turn the top draw card and resolve it; an
   instant-win yaku in the active player's pile ends the round;
7. scoring: yaku points after supersession, then chaff, then card values, then the final-tie rule.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations
from typing import TYPE_CHECKING, Any

from simcore.cards import ids_of
from simcore.errors import DealError
from simcore.games.tensho import enums as E
from simcore.games.tensho.compile import CompiledRules
from simcore.games.tensho.decisions import action_key, ask_policy
from simcore.games.tensho.learned import LearnedPolicy
from simcore.games.tensho.policies import Observation, make_policy
from simcore.games.tensho.record import LAYOUT
from simcore.reference import units
from simcore.reference.forward import (
    REFERENCE_NAMES,
    BaseRoundResult,
    BaseRoundSetup,
    Decision,
    PausedRound,
    TracedRound,
    bind_policies,
    play_through,
)
from simcore.rng import DEAL_STREAM, RULES_STREAM, Stream

if TYPE_CHECKING:
    import numpy as np

__all__ = [*REFERENCE_NAMES, "N_SEATS", "DealError", "action_key", "ask_policy", "shuffled_deck", "unit_layout"]

N_SEATS = 2
DECK_SIZE = 45
SHUFFLED_POSITIONS = 39  # positions 39..44 are the dead cards; their order never matters


@dataclass(kw_only=True)
class RoundResult(BaseRoundResult):
    """Everything the dataset records about one round (seats indexed 0 and 1)."""

    yaku_set: int
    opening_claim: int
    chaff: list[int]
    match_points: list[int] = field(default_factory=lambda: [0, 0])


@dataclass(kw_only=True)
class RoundSetup(BaseRoundSetup):
    """Who deals, and the match state the round starts from."""

    match_points: tuple[int, ...] = (0, 0)
    alternate_index: int = 0  # round number that ``yaku_set_choice = alternate`` alternates on


def shuffled_deck(stream: Stream) -> list[int]:
    """One shuffle of the 45 ids from the deal stream (partial Fisher-Yates, 39 draws): the
    positions a round can show (0..32: field, hands and the turned draw cards of canonical
    slots) first, then the rest, so that the kernel may leave the rest for a redeal."""
    deck = list(range(DECK_SIZE))
    stream.shuffle_places(deck, 0, E.SEEN_SLOTS)
    stream.shuffle_places(deck, E.SEEN_SLOTS, SHUFFLED_POSITIONS)
    return deck


class RoundState(PausedRound, TracedRound):
    """A Tensho round as a forward model (``simcore.reference.forward.State``).

    The round steps through the order of the module docstring and pauses at each decision a
    player takes: ``yaku_set`` (the dealer, under ``yaku_set_choice = dealer_policy``; actions 1
    and 2), ``opening_claim`` (the dealer, per field triple; None or a pair of card ids),
    ``bank_six`` (the holder of the 6 of clubs, under ``six_in_hand = bank_at_deal``; False or
    True), ``play`` (a hand card's id) and ``capture`` (a field-card mask, or None to leave a
    played card on the field where capturing is optional). Every other step is taken by the
    rules as soon as the decision before it is applied. The steps that move cards (``deal``,
    ``claim``, ``bank``, ``place``) and ``finish`` are methods, so that a test may check the
    round after each.
    """

    cloned_lists = ("hands", "piles", "draw", "known_yaku", "hand_dealt", "events")

    def __init__(self, compiled: CompiledRules, setup: RoundSetup, *, deck: list[int] | None = None,
                 trace: bool = False) -> None:
        self.c = compiled
        self.rules = compiled.rules
        self.setup = setup
        self.trace = trace
        self.events: list[dict[str, Any]] = []
        p = compiled.params
        self.triple_all = int(p[E.P_TRIPLE_MATCH]) == 0
        self.highest_value_first = int(p[E.P_DOUBLE_MATCH]) == 1
        self.capture_optional = int(p[E.P_CAPTURE_MANDATORY]) == 1
        self.one_triple = int(p[E.P_OPENING_SCOPE]) == 1
        self.field_four = int(p[E.P_FIELD_FOUR])
        self.six_to_dealer = int(p[E.P_SIX_ON_FIELD]) == 1
        self.bank_at_deal = int(p[E.P_SIX_IN_HAND]) == 1
        self.check_each_capture = int(p[E.P_INSTANT_CHECK]) == 0
        self.values_only = int(p[E.P_NO_YAKU_TIEBREAK]) == 1
        self.final_tie = int(p[E.P_FINAL_TIE])
        self.six = int(p[E.P_SIX_CARD])
        self.rank = [int(r) for r in compiled.rank]
        self.rank_mask = [int(m) for m in compiled.rank_mask]
        self.yaku_mask = [int(m) for m in compiled.yaku_mask]
        self.card_value = [int(v) for v in compiled.card_value]
        self.chaff_mask = int(compiled.chaff_mask)
        self.yaku_set = 0
        self.deal_seed: int | None = None  # a world's own deal (sample_hidden before the deal)
        self.dealer = setup.dealer
        self.hands = [0, 0]
        self.piles = [0, 0]
        self.field = 0
        self.seen = 0
        self.draw: list[int] = []
        self.dead = 0
        self.turn = 0
        self.known_yaku = [0, 0]
        self.redeals = 0
        self.field_dealt = 0
        self.hand_dealt = [0, 0]
        self.claimed = 0
        self.first = setup.dealer
        self.seat = setup.dealer  # the seat whose turn it is
        self.winner = -1
        self.reason = -1
        self.in_play = 0  # a played or turned card waiting for its seat's capture decision
        self.pending: Decision | None = None
        self.result: RoundResult | None = None
        self._deck = deck
        self._begin()

    # --- the forward model ------------------------------------------------------------------

    def card_places(self) -> dict[str, int]:
        """Every place a card can be, as masks: all empty before the deal, afterwards disjoint
        and together the whole deck (the harness checks this at every pause)."""
        return {"hand 0": self.hands[0], "hand 1": self.hands[1], "field": self.field,
                "pile 0": self.piles[0], "pile 1": self.piles[1], "draw": sum(1 << c for c in self.draw),
                "dead": self.dead, "in play": self.in_play}

    def sample_hidden(self, seat: int, stream: Stream) -> RoundState:
        """A copy in which the cards ``seat`` has not seen (the other hand, the draw pile and the
        dead cards) are shuffled anew from ``stream`` and dealt back to those places, each place
        keeping its size: every deal consistent with what ``seat`` has seen is equally likely.
        Before the deal (a yaku set still to choose) the copy will deal from its own stream,
        seeded by one more word of ``stream``.
        The copy keeps no trace and no record of the other hand as dealt. A pending decision of
        the other seat that depends on its hand is asked afresh of the hand it holds in the copy:
        a ``play`` lists that hand, and the banking of the 6 of clubs is offered to whoever holds
        it there (or to nobody)."""
        other = self.clone()
        other.trace = False
        other.events = []
        opponent = 1 - seat
        unseen = ids_of(self.hands[opponent] | self.dead) + list(self.draw)
        unseen.sort()
        stream.shuffle_places(unseen, 0, max(len(unseen) - 1, 0))
        n_hand = self.hands[opponent].bit_count()
        other.hands[opponent] = sum(1 << card for card in unseen[:n_hand])
        other.draw = unseen[n_hand:n_hand + len(self.draw)]
        other.dead = sum(1 << card for card in unseen[n_hand + len(self.draw):])
        other.hand_dealt[opponent] = 0
        if self.yaku_set == 0:
            # before the deal (the dealer's policy picks the yaku set first): the copy deals its
            # own cards, from a deal stream seeded from ``stream``, never the round's
            other.deal_seed = stream.next_u64()
        pending = self.pending
        if pending is not None and pending.seat == opponent:
            if pending.kind == "play":
                other.pending = Decision("play", opponent, tuple(ids_of(other.hands[opponent])))
            elif pending.kind == "bank_six":
                other.pending = None
                other._bank_from(pending.info["index"])
        return other

    def rehand(self, now: RoundState, world: RoundState, seat: int) -> RoundState | None:
        """This past state's decision as ``world`` (a ``sample_hidden`` of ``now``, for ``seat``)
        deals it, for a search player's inference (``simcore.search``): a copy in which the other
        seat's hand is the cards it has played since (seen by all) and its hand in ``world``, the
        draw pile below what has been turned since and the dead cards are ``world``'s, and a
        ``play`` of the other seat lists that hand. None unless the decision is a card played or
        a capture chosen (what ``seat`` saw taken)."""
        pending = self.pending
        if pending is None or pending.kind not in ("play", "capture"):
            return None
        past = self.clone()
        past.trace = False
        past.events = []
        opponent = 1 - seat
        past.hands[opponent] = (self.hands[opponent] & ~now.hands[opponent]) | world.hands[opponent]
        past.hand_dealt[opponent] = 0
        past.dead = world.dead
        past.draw = self.draw[:len(self.draw) - len(now.draw)] + list(world.draw)
        if pending.kind == "play" and pending.seat == opponent:
            past.pending = Decision("play", opponent, tuple(ids_of(past.hands[opponent])))
        return past

    def apply(self, action: Any) -> None:
        """Take ``action`` for the pending decision and step on to the next one (or the end)."""
        decision = self.take_pending(action)
        if decision.kind == "play":
            self._apply_play(decision, action)
        elif decision.kind == "capture":
            self._apply_capture(decision, action)
        elif decision.kind == "opening_claim":
            self._apply_claim(decision, action)
        elif decision.kind == "bank_six":
            self._apply_bank(decision, action)
        else:
            self._apply_yaku_set(decision, action)

    # --- helpers -----------------------------------------------------------------------------

    def label(self, card: int) -> str:
        return self.rules.card_label(card)

    def observe(self, seat: int) -> Observation:
        return Observation(
            seat=seat,
            dealer=self.dealer,
            yaku_set=self.yaku_set,
            round_in_match=self.setup.round_in_match,
            match_points=tuple(self.setup.match_points),
            hand=self.hands[seat],
            field=self.field,
            piles=(self.piles[0], self.piles[1]),
            seen=self.seen,
            draw_size=len(self.draw),
            turn=self.turn,
        )

    def completed_yaku(self, pile: int) -> int:
        """Bitset of the set's yaku contained in ``pile``, after supersession."""
        members = int(self.c.yaku_in_set[self.yaku_set - 1])
        completed = 0
        for i in ids_of(members):
            if self.yaku_mask[i] & pile == self.yaku_mask[i]:
                completed |= 1 << i
        cancelled = 0
        for i in ids_of(completed):
            cancelled |= int(self.c.supersedes[i])
        return completed & ~cancelled

    def yaku_points(self, yaku_bits: int) -> int:
        points = self.c.yaku_points[self.yaku_set - 1]
        return sum(int(points[i]) for i in ids_of(yaku_bits))

    def has_instant(self, seat: int) -> bool:
        instant = int(self.c.yaku_instant[self.yaku_set - 1])
        return any(self.yaku_mask[i] & self.piles[seat] == self.yaku_mask[i] for i in ids_of(instant))

    def note_new_yaku(self, seat: int) -> None:
        """Trace the yaku ``seat``'s pile completed since the last call (only when tracing)."""
        if self.trace:
            self.trace_new_yaku(seat, self.completed_yaku(self.piles[seat]), lambda yaku: {
                "instant": yaku.is_instant(self.yaku_set), "points": yaku.points(self.yaku_set)})

    def capture(self, seat: int, cards: int) -> None:
        self.piles[seat] |= cards
        self.note_new_yaku(seat)

    # --- 1. the yaku set ----------------------------------------------------------------------

    def _begin(self) -> None:
        choice = int(self.c.params[E.P_YAKU_SET_CHOICE])
        if choice == E.SET_FIXED_1:
            self._set_chosen(1)
        elif choice == E.SET_FIXED_2:
            self._set_chosen(2)
        elif choice == E.SET_RANDOM:
            self._set_chosen(1 + Stream(self.setup.seed, self.setup.round_index, RULES_STREAM).uniform_below(2))
        elif choice == E.SET_ALTERNATE:
            self._set_chosen(1 + self.setup.alternate_index % 2)
        else:
            self.pending = Decision("yaku_set", self.dealer, (1, 2))

    def _apply_yaku_set(self, decision: Decision, action: Any) -> None:
        if action not in (1, 2):
            raise ValueError(f"policy chose yaku set {action}")
        self._set_chosen(int(action))

    def _set_chosen(self, yaku_set: int) -> None:
        self.yaku_set = yaku_set
        self.emit("yaku_set", set=self.yaku_set, how=str(self.rules.options["tensho.yaku_set_choice"]))
        self.redeals = self.deal(self._deck)
        self.field_dealt = self.field
        self.hand_dealt = list(self.hands)
        if self.six_to_dealer and (self.field >> self.six) & 1:
            self.field &= ~(1 << self.six)
            self.capture(self.dealer, 1 << self.six)
            self.emit("six_to_dealer", seat=self.dealer, card=self.six)
        self._opening_from(1)

    # --- 2. the deal ----------------------------------------------------------------------------

    def deal(self, deck: list[int] | None) -> int:
        """Deal (and redeal); returns the number of redeals."""
        redeals = 0
        seed = self.setup.seed if self.deal_seed is None else self.deal_seed
        stream = None if deck is not None else Stream(seed, self.setup.round_index, DEAL_STREAM)
        order = [int(i) for i in self.c.deal_order]
        while True:
            if deck is not None:
                slots = list(deck)
            else:
                assert stream is not None  # made above whenever no deck is given
                shuffled = shuffled_deck(stream)
                slots = [shuffled[order[i]] for i in range(DECK_SIZE)]
            field = slots[0:9]
            four = self.four_of_a_rank(field)
            if four and self.field_four == E.FIELD_FOUR_REDEAL and redeals < E.MAX_REDEALS:
                if deck is not None:
                    raise DealError(
                        f"the rules redeal this deck: four cards of rank {four} are on the field "
                        f"(tensho.field_four_of_rank = redeal)"
                    )
                redeals += 1
                self.emit("redeal", reason=f"four cards of rank {four} on the field",
                          field=[int(x) for x in field])
                continue
            break
        other = 1 - self.dealer
        self.field = sum(1 << x for x in field)
        self.hands[self.dealer] = sum(1 << x for x in slots[9:15])
        self.hands[other] = sum(1 << x for x in slots[15:21])
        self.draw = slots[21:39]
        self.dead = sum(1 << x for x in slots[39:45])
        self.seen = self.field
        self.emit("deal", dealer=self.dealer, field=ids_of(self.field),
                  hands=[ids_of(self.hands[0]), ids_of(self.hands[1])],
                  draw=list(self.draw), dead=ids_of(self.dead))
        return redeals

    def four_of_a_rank(self, field: list[int]) -> int:
        counts: dict[int, int] = {}
        for card in field:
            counts[self.rank[card]] = counts.get(self.rank[card], 0) + 1
        for rank in sorted(counts):
            if counts[rank] == 4:
                return rank
        return 0

    # --- 3.-5. the dealer's opening claims and banking the 6 of clubs ------------------------

    def _opening_from(self, first_rank: int) -> None:
        for rank in range(first_rank, 13):
            on_field = self.field & self.rank_mask[rank]
            count = on_field.bit_count()
            if count == 3 or (count == 4 and self.field_four == E.FIELD_FOUR_OPENING):
                pairs = tuple(combinations(ids_of(on_field), 2))
                self.pending = Decision("opening_claim", self.dealer, (None,) + pairs,
                                        {"rank": rank, "pairs": pairs})
                return
        self._after_opening()

    def _apply_claim(self, decision: Decision, action: Any) -> None:
        rank, pairs = decision.info["rank"], decision.info["pairs"]
        if action is None:
            self.emit("opening_decline", seat=self.dealer, rank=rank,
                      cards=ids_of(self.field & self.rank_mask[rank]))
            self._opening_from(rank + 1)
            return
        pair = tuple(sorted(int(x) for x in action))
        if pair not in pairs:
            raise ValueError(f"opening claim {pair} is not a pair of the rank-{rank} field cards")
        self.claim(rank, pair)
        if self.one_triple:
            self._after_opening()
        else:
            self._opening_from(rank + 1)

    def claim(self, rank: int, pair: tuple[int, ...]) -> None:
        """The dealer takes ``pair`` of a field triple of ``rank``."""
        mask = (1 << pair[0]) | (1 << pair[1])
        self.field &= ~mask
        self.claimed |= mask
        self.emit("opening_claim", seat=self.dealer, rank=rank, cards=list(pair))
        self.capture(self.dealer, mask)

    def _after_opening(self) -> None:
        dealer = self.dealer
        self.first = 1 - dealer if self.claimed else dealer
        if self.has_instant(dealer):  # cannot happen with the shipped yaku; kept for custom files
            self.winner, self.reason = dealer, E.END_INSTANT_WIN
        if self.winner < 0 and self.bank_at_deal:
            self._bank_from(0)
        else:
            self._start_turns()

    def _bank_from(self, index: int) -> None:
        order = (self.dealer, 1 - self.dealer)
        for i in range(index, len(order)):
            if (self.hands[order[i]] >> self.six) & 1:
                self.pending = Decision("bank_six", order[i], (False, True), {"index": i})
                return
        for seat in order:
            if self.winner < 0 and self.has_instant(seat):
                self.winner, self.reason = seat, E.END_INSTANT_WIN
        self._start_turns()

    def _apply_bank(self, decision: Decision, action: Any) -> None:
        if action:
            self.bank(decision.seat)
        else:
            self.emit("keep_six", seat=decision.seat)
        self._bank_from(decision.info["index"] + 1)

    def bank(self, seat: int) -> None:
        """``seat`` banks the 6 of clubs from its hand."""
        self.hands[seat] &= ~(1 << self.six)
        self.seen |= 1 << self.six
        self.emit("bank_six", seat=seat, card=self.six)
        self.capture(seat, 1 << self.six)

    # --- 6. the turns -------------------------------------------------------------------------

    def _start_turns(self) -> None:
        self.seat = self.first
        self._next_turn()

    def _next_turn(self) -> None:
        if self.winner >= 0 or not (self.hands[0] or self.hands[1]):
            self.finish()
            return
        if not self.hands[self.seat]:
            self.seat = 1 - self.seat  # only after the 6 of clubs was banked at the deal
        self.turn += 1
        self.pending = Decision("play", self.seat, tuple(ids_of(self.hands[self.seat])))

    def _apply_play(self, decision: Decision, action: Any) -> None:
        seat, card = decision.seat, int(action)
        if not (self.hands[seat] >> card) & 1:
            raise ValueError(f"seat {seat} cannot play card {card}: not in hand")
        self.hands[seat] &= ~(1 << card)
        if self._resolve(seat, card, "play"):
            self._after_play()

    def _after_play(self) -> None:
        seat = self.seat
        if self.check_each_capture and self.has_instant(seat):
            self.winner, self.reason = seat, E.END_INSTANT_WIN
            self.finish()
            return
        drawn = self.draw.pop(0)
        if self._resolve(seat, drawn, "draw"):
            self._after_draw()

    def _after_draw(self) -> None:
        if self.has_instant(self.seat):
            self.winner, self.reason = self.seat, E.END_INSTANT_WIN
            self.finish()
            return
        self.seat = 1 - self.seat
        self._next_turn()

    def _resolve(self, seat: int, card: int, source: str) -> bool:
        """Resolve a played (``source='play'``) or turned (``'draw'``) card against the field;
        False when the seat must first choose what it takes (a ``capture`` decision)."""
        self.seen |= 1 << card
        if card == self.six:
            self.place(seat, card, source, 1 << card, 0)
            return True
        matches = self.field & self.rank_mask[self.rank[card]]
        n = matches.bit_count()
        if n == 0:
            self.place(seat, card, source, None, 0)
            return True
        if n == 1:
            options = [matches]
        elif n == 2 and self.highest_value_first:
            best, best_value = 0, -1
            for x in ids_of(matches):
                if self.card_value[x] > best_value:
                    best, best_value = 1 << x, self.card_value[x]
            options = [best]
        elif n >= 3 and self.triple_all:
            options = [matches]
        else:
            options = [1 << x for x in ids_of(matches)]
        allow_decline = self.capture_optional and source == "play"
        if len(options) == 1 and not allow_decline:
            self.place(seat, card, source, options[0], 1)
            return True
        actions = tuple(options) + ((None,) if allow_decline else ())
        self.in_play = 1 << card
        self.pending = Decision("capture", seat, actions, {"card": card, "source": source, "options": tuple(options),
                                                           "allow_decline": allow_decline})
        return False

    def _apply_capture(self, decision: Decision, action: Any) -> None:
        seat, card = decision.seat, decision.info["card"]
        options, allow_decline = decision.info["options"], decision.info["allow_decline"]
        if action is None and not allow_decline:
            raise ValueError(f"seat {seat} must capture with card {card}")
        if action is not None and action not in options:
            raise ValueError(f"seat {seat} cannot take {ids_of(action)} with card {card}")
        self.place(seat, card, decision.info["source"], None if action is None else int(action),
                   len(options) + int(allow_decline), declined=action is None)
        if decision.info["source"] == "play":
            self._after_play()
        else:
            self._after_draw()

    def place(self, seat: int, card: int, source: str, taken: int | None, choices: int,
              declined: bool = False) -> None:
        """Move a resolved card: to ``seat``'s pile with the field cards ``taken`` (the 6 of
        clubs: ``taken`` is the card itself, alone), or to the field (``taken`` None)."""
        self.in_play = 0
        if card == self.six and taken == 1 << card:
            self.emit(source, seat=seat, turn=self.turn, card=card, captured=[card], to="pile")
            self.capture(seat, 1 << card)
            return
        if taken is None:
            self.field |= 1 << card
            if declined:
                self.emit(source, seat=seat, turn=self.turn, card=card, captured=[], to="field",
                          declined=True)
            else:
                self.emit(source, seat=seat, turn=self.turn, card=card, captured=[], to="field")
            return
        self.field &= ~taken
        self.emit(source, seat=seat, turn=self.turn, card=card,
                  captured=[card] + ids_of(taken), to="pile", choices=choices)
        self.capture(seat, (1 << card) | taken)

    # --- 7. scoring ---------------------------------------------------------------------------

    def finish(self) -> None:
        """Score the ended round into ``self.result``."""
        setup = self.setup
        result = self.score(self.winner, self.reason)
        result.redeals = self.redeals
        result.field_dealt = self.field_dealt
        result.hand_dealt = list(self.hand_dealt)
        result.opening_claim = self.claimed
        result.first_player = self.first
        result.round_index = setup.round_index
        result.match = setup.match
        result.round_in_match = setup.round_in_match
        result.events = self.events
        self.result = result

    def score(self, winner: int, reason: int) -> RoundResult:
        yaku = [self.completed_yaku(self.piles[s]) for s in range(N_SEATS)]
        points = [self.yaku_points(y) for y in yaku]
        chaff = [(self.piles[s] & self.chaff_mask).bit_count() for s in range(N_SEATS)]
        values = [sum(self.card_value[x] for x in ids_of(self.piles[s])) for s in range(N_SEATS)]
        dealer = self.dealer
        if reason == E.END_INSTANT_WIN:
            score = [0, 0]
            score[winner] = int(self.c.params[E.P_INSTANT_WIN_SCORE])
            self.emit("instant_win", seat=winner, turn=self.turn)
        else:
            score = list(points)
            if points[0] != points[1]:
                winner, reason = (0 if points[0] > points[1] else 1), E.END_YAKU
            elif not (self.values_only and points[0] == 0) and chaff[0] != chaff[1]:
                winner, reason = (0 if chaff[0] > chaff[1] else 1), E.END_CHAFF
            elif values[0] != values[1]:
                winner, reason = (0 if values[0] > values[1] else 1), E.END_CARD_VALUE
            elif self.final_tie == 1:
                winner, reason = dealer, E.END_FINAL_TIE_RULE
            elif self.final_tie == 2:
                winner, reason = 1 - dealer, E.END_FINAL_TIE_RULE
            else:
                winner, reason = -1, E.END_DRAW
        if int(self.c.params[E.P_MATCH_SCORING]) == 0:
            payoff = [0, 0]
            if winner >= 0:
                payoff[winner], payoff[1 - winner] = 1, -1
        else:
            payoff = [score[0] - score[1], score[1] - score[0]]
        self.emit("score", winner=winner, end_reason=E.END_REASONS[reason], yaku_points=points,
                  chaff=chaff, card_points=values, score=score, payoff=payoff)
        return RoundResult(
            round_index=0, match=0, round_in_match=0, dealer=dealer, first_player=0,
            yaku_set=self.yaku_set, winner=winner, end_reason=reason, end_turn=self.turn,
            redeals=0, field_dealt=0, opening_claim=0, hand_dealt=[0, 0],
            captured=list(self.piles), yaku=yaku, yaku_points=points, card_points=values,
            chaff=chaff, score=score, payoff=payoff,
        )


def play_round(compiled: CompiledRules, setup: RoundSetup, policies, *, deck: list[int] | None = None,
               trace: bool = False) -> RoundResult:
    """Play one round with policy objects already bound to their seats' streams."""
    state = play_through(new_state(compiled, setup, deck=deck, trace=trace), policies, ask_policy)
    assert state.result is not None
    return state.result


def new_state(compiled: CompiledRules, setup: RoundSetup, *, deck: list[int] | None = None,
              trace: bool = False) -> RoundState:
    """The round of ``setup`` at its first decision (``RoundState`` may be replaced in tests)."""
    return RoundState(compiled, setup, deck=deck, trace=trace)


def seat_policies(compiled: CompiledRules, specs, seed: int, round_index: int):
    """Each seat's policy for round ``round_index``, drawing from its own stream of the round."""
    return bind_policies(make_policy, LearnedPolicy, compiled, specs, seed, round_index, N_SEATS)


def unit_layout(compiled: CompiledRules, rounds_per_match: int) -> int:
    """Round-index stride of one unit (match): room for extra rounds when a tie extends it."""
    extra = int(compiled.params[E.P_MATCH_TIE]) == 1 and rounds_per_match > 0
    return rounds_per_match * (2 if extra else 1)


def play_unit(compiled: CompiledRules, specs, seed: int, unit: int, rounds_per_match: int | None,
              *, trace: bool = False) -> list[RoundResult]:
    """Play one unit of a run: a single independent round, or a whole match.

    ``rounds_per_match=None`` is independent-round play: unit ``u`` is round ``u``, dealt by
    seat ``u % 2``.  Otherwise unit ``u`` is match ``u`` of ``rounds_per_match`` rounds (plus
    extra rounds when ``tensho.match_tie = extra_round``), first dealt by seat ``u % 2``, the
    round winner dealing the next round.  Round ``k`` of match ``u`` has round index
    ``u * stride + k`` (``stride = unit_layout(...)``), which keys its random streams.
    """
    if rounds_per_match is None:
        setup = RoundSetup(seed=seed, round_index=unit, match=unit, round_in_match=0,
                           dealer=unit % N_SEATS, alternate_index=unit)
        result = play_round(compiled, setup, seat_policies(compiled, specs, seed, unit), trace=trace)
        if int(compiled.params[E.P_MATCH_SCORING]) == 0:
            result.match_points = [int(result.winner == s) for s in range(N_SEATS)]
        else:
            result.match_points = list(result.score)
        result.match_end = True
        return [result]
    stride = unit_layout(compiled, rounds_per_match)
    by_wins = int(compiled.params[E.P_MATCH_SCORING]) == 0
    points = [0, 0]
    dealer = unit % N_SEATS
    results = []
    for k in range(stride):
        if k >= rounds_per_match and points[0] != points[1]:
            break
        round_index = unit * stride + k
        setup = RoundSetup(seed=seed, round_index=round_index, match=unit, round_in_match=k,
                           dealer=dealer, match_points=(points[0], points[1]), alternate_index=k)
        result = play_round(compiled, setup, seat_policies(compiled, specs, seed, round_index), trace=trace)
        if by_wins:
            if result.winner >= 0:
                points[result.winner] += 1
        else:
            points[0] += result.score[0]
            points[1] += result.score[1]
        result.match_points = list(points)
        result.match_end = False
        results.append(result)
        if result.winner >= 0:
            dealer = result.winner
    results[-1].match_end = True
    return results


def play_units(compiled: CompiledRules, specs, seed: int, first_unit: int, n_units: int,
               rounds_per_match: int | None,
               out: tuple[np.ndarray, np.ndarray] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Play units ``first_unit .. first_unit + n_units - 1`` into output matrices.

    Returns ``(ints, masks)``: int64[N_INT_COLUMNS, n_units * stride] and
    uint64[N_MASK_COLUMNS, n_units * stride] (column-major: each column is contiguous), with
    ``C_VALID`` marking the rows played (a match that ends before its extra-round room is used
    leaves rows unused).
    """
    stride = 1 if rounds_per_match is None else unit_layout(compiled, rounds_per_match)
    return units.play_units(LAYOUT, play_unit, stride, compiled, specs, seed, first_unit, n_units, rounds_per_match,
                            out)
