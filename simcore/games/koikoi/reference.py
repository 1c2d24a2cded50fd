"""The readable koi-koi reference engine (docs/koikoi.md), with step-by-step events.

This is the truth the numba state machine is held to: the same rule tables, the same streams
consumed in the same order, the same outcome for every round.

A round (docs/koikoi.md#a-round):

1. the deal: the deal stream shuffles the 48 ids (Fisher-Yates over every place,
   ``Stream.shuffle_places``) and the deck is cut into the dealer's hand (places 0..7), the
   other hand (8..15), the field (16..23) and the draw pile (24..47, place 24 turned first);
   a deal the rules redeal (a dealt hand with ``teshi`` or ``kuttsuki = redeal``, a field with
   ``field_four`` or ``field_pairs = redeal``) is shuffled again from the same stream;
2. dealt hands that score (``teshi``, ``kuttsuki = score``) end the round at once: one holder
   takes its points, two holders draw;
3. sixteen turns, the dealer first: play a hand card and resolve it against the field (no card
   of its month: it joins the field; one or three: it takes them; two: the seat chooses one),
   then turn the draw pile's top card and resolve it the same way;
4. after each turn, if the seat's yaku rose (``koikoi_trigger``) it stops or calls koi-koi, or
   stops where the rules allow no call (its last turn with ``last_turn = forced_stop``, the
   ``koikoi_limit``): a stop ends the round and scores (``scoring.stop_score``);
5. after the sixteenth turn with nobody stopping, the round is exhausted (``exhausted``).

Decisions: ``play`` (a hand card's id), ``capture`` (the mask of the field card taken, one of
two) and ``koikoi`` (False: stop; True: koi-koi), each of the seat that acts.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from simcore.cards import ids_of
from simcore.errors import DealError
from simcore.games.koikoi import enums as E
from simcore.games.koikoi.compile import CompiledRules
from simcore.games.koikoi.decisions import ask_policy
from simcore.games.koikoi.learned import LearnedPolicy
from simcore.games.koikoi.policies import Observation, make_policy
from simcore.games.koikoi.record import LAYOUT
from simcore.games.koikoi.scoring import dealt_hand, field_misdeal, pile_yaku, stop_score
from simcore.hanafuda import CAPTURE_ALL, CAPTURE_NONE, capture
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
from simcore.rng import DEAL_STREAM, Stream

if TYPE_CHECKING:
    import numpy as np

__all__ = [*REFERENCE_NAMES, "N_SEATS", "match_over", "next_dealer", "round_month", "shuffled_deck"]

N_SEATS = 2


@dataclass(kw_only=True)
class RoundResult(BaseRoundResult):
    """Everything the dataset records about one round (seats indexed 0 and 1)."""

    exhausted: bool
    koikoi: list[int]  # each seat's koi-koi calls
    last_koikoi: int  # the seat that called last (-1: nobody called)
    match_points: list[int] = field(default_factory=lambda: [0, 0])


@dataclass(kw_only=True)
class RoundSetup(BaseRoundSetup):
    """Who deals, and the match state the round starts from."""

    match_points: tuple[int, ...] = (0, 0)


def round_month(round_in_match: int) -> int:
    """The month of a round (1..12, Tsuki-fuda): its place in its match, January first (an
    independent round is a match's first)."""
    return 1 + round_in_match % 12


def shuffled_deck(stream: Stream) -> list[int]:
    """One shuffle of the 48 ids from the deal stream (Fisher-Yates over every place)."""
    deck = list(range(E.DECK_SIZE))
    stream.shuffle_places(deck, 0, E.DECK_SIZE)
    return deck


class RoundState(PausedRound, TracedRound):
    """A koi-koi round as a forward model (``simcore.reference.forward.State``): the steps of
    the module docstring, paused at each ``play``, ``capture`` and ``koikoi`` decision. ``deck``
    (48 ids in dealing order) replaces the shuffled deal."""

    cloned_lists = ("hands", "piles", "draw", "calls", "known_yaku", "hand_dealt", "dealt_yaku", "events")

    def __init__(self, compiled: CompiledRules, setup: RoundSetup, *, deck: list[int] | None = None,
                 trace: bool = False) -> None:
        self.c = compiled
        self.rules = compiled.rules
        self.setup = setup
        self.trace = trace
        self.events: list[dict[str, Any]] = []
        self.dealer = setup.dealer
        self.month = round_month(setup.round_in_match)
        self.hands = [0, 0]
        self.piles = [0, 0]
        self.field = 0
        self.draw: list[int] = []
        self.turn = 0
        self.seat = setup.dealer
        self.calls = [0, 0]
        self.last_caller = -1
        self.turn_bits = 0  # the acting seat's yaku and points when its turn began
        self.turn_points = 0
        self.known_yaku = [0, 0]
        self.redeals = 0
        self.field_dealt = 0
        self.hand_dealt = [0, 0]
        self.dealt_yaku = [0, 0]  # a scoring dealt hand's yaku bit, per seat
        self.in_play = 0
        self.pending: Decision | None = None
        self.result: RoundResult | None = None
        self._deal(deck)

    # --- the forward model ------------------------------------------------------------------

    def card_places(self) -> dict[str, int]:
        """Every place a card can be, as masks: disjoint and together the whole deck."""
        return {"hand 0": self.hands[0], "hand 1": self.hands[1], "field": self.field,
                "pile 0": self.piles[0], "pile 1": self.piles[1], "draw": sum(1 << c for c in self.draw),
                "in play": self.in_play}

    def sample_hidden(self, seat: int, stream: Stream) -> RoundState:
        """A copy in which the cards ``seat`` cannot see (the other hand and the draw pile) are
        shuffled anew from ``stream`` (ascending ids, then ``shuffle_places`` over every place but
        the last) and dealt back, the other hand first, then the draw pile top first: every deal
        consistent with what ``seat`` has seen is equally likely. The copy keeps no trace and no
        record of the other hand as dealt; a pending ``play`` of the other seat lists the hand it
        holds in the copy."""
        other = self.clone()
        other.trace = False
        other.events = []
        opponent = 1 - seat
        unseen = sorted(ids_of(self.hands[opponent]) + self.draw)
        stream.shuffle_places(unseen, 0, max(len(unseen) - 1, 0))
        n_hand = self.hands[opponent].bit_count()
        other.hands[opponent] = sum(1 << card for card in unseen[:n_hand])
        other.draw = unseen[n_hand:]
        other.hand_dealt[opponent] = 0
        pending = self.pending
        if pending is not None and pending.seat == opponent and pending.kind == "play":
            other.pending = Decision("play", opponent, tuple(ids_of(other.hands[opponent])))
        return other

    def rehand(self, now: RoundState, world: RoundState, seat: int) -> RoundState:
        """This past state's decision as ``world`` (a ``sample_hidden`` of ``now``, for ``seat``)
        deals it, for a search player's inference (``simcore.search``): a copy in which the other
        seat's hand is the cards it has played since (seen by both) and its hand in ``world``,
        the draw pile below what has been turned since is ``world``'s, and a ``play`` of the
        other seat lists that hand. Every koi-koi decision (a card played, a capture chosen, a
        call) is seen by both seats."""
        past = self.clone()
        past.trace = False
        past.events = []
        opponent = 1 - seat
        past.hands[opponent] = (self.hands[opponent] & ~now.hands[opponent]) | world.hands[opponent]
        past.hand_dealt[opponent] = 0
        past.draw = self.draw[:len(self.draw) - len(now.draw)] + list(world.draw)
        pending = self.pending
        if pending is not None and pending.seat == opponent and pending.kind == "play":
            past.pending = Decision("play", opponent, tuple(ids_of(past.hands[opponent])))
        return past

    def apply(self, action: Any) -> None:
        """Take ``action`` for the pending decision and step on to the next one (or the end)."""
        decision = self.take_pending(action, check=True)
        if decision.kind == "play":
            card = int(action)
            self.hands[decision.seat] &= ~(1 << card)
            if self._resolve(decision.seat, card, "play"):
                self._after_play()
        elif decision.kind == "capture":
            self._place(decision.seat, decision.info["card"], decision.info["source"], int(action), 2)
            if decision.info["source"] == "play":
                self._after_play()
            else:
                self._after_draw()
        else:
            self._apply_koikoi(decision.seat, bool(action))

    # --- helpers -----------------------------------------------------------------------------

    def observe(self, seat: int) -> Observation:
        """What ``seat`` may see (``policies.Observation``)."""
        return Observation(
            seat=seat, dealer=self.dealer, round_in_match=self.setup.round_in_match,
            match_points=tuple(self.setup.match_points), month=self.month, hand=self.hands[seat],
            field=self.field, piles=(self.piles[0], self.piles[1]), calls=(self.calls[0], self.calls[1]),
            draw_size=len(self.draw), turn=self.turn,
        )

    def yaku(self, seat: int) -> tuple[int, int]:
        """``(bits, points)`` of ``seat``'s pile now (``scoring.pile_yaku``)."""
        return pile_yaku(self.c, self.piles[seat], self.calls[seat], self.month)

    def _note_yaku(self, seat: int) -> None:
        if self.trace:
            self.trace_new_yaku(seat, self.yaku(seat)[0], lambda yaku: {})

    # --- 1, 2. the deal and the dealt hands ---------------------------------------------------

    def _deal(self, deck: list[int] | None) -> None:
        stream = None if deck is not None else Stream(self.setup.seed, self.setup.round_index, DEAL_STREAM)
        while True:
            if deck is not None:
                slots = list(deck)
            else:
                assert stream is not None
                slots = shuffled_deck(stream)
            hands = [0, 0]
            hands[self.dealer] = sum(1 << x for x in slots[0:8])
            hands[1 - self.dealer] = sum(1 << x for x in slots[8:16])
            field_cards = sum(1 << x for x in slots[16:24])
            why = self._misdeal(hands, field_cards)
            if why is None or self.redeals >= E.MAX_REDEALS:
                break
            if deck is not None:
                raise DealError(f"the rules redeal this deck: {why}")
            self.redeals += 1
            self.emit("redeal", reason=why, hands=[ids_of(h) for h in hands], field=ids_of(field_cards))
        self.hands = hands
        self.field = field_cards
        self.draw = slots[24:]
        self.field_dealt = field_cards
        self.hand_dealt = list(hands)
        self.emit("deal", dealer=self.dealer, month=self.month, hands=[ids_of(h) for h in hands],
                  field=ids_of(field_cards), draw=list(self.draw))
        holders = []
        for seat in (self.dealer, 1 - self.dealer):
            kind = dealt_hand(self.c, hands[seat])
            option = E.P_TESHI if kind == E.Y_TESHI else E.P_KUTTSUKI
            if kind >= 0 and self.c.param(option) == E.DEALT_SCORE and self.c.yaku_value[kind] > 0:
                self.dealt_yaku[seat] = 1 << kind
                holders.append(seat)
                self.emit("dealt_yaku", seat=seat, yaku=self.rules.yaku[kind].key,
                          english=self.rules.yaku[kind].english)
        if len(holders) == 2:
            self._finish(-1, E.END_TEYAKU_DRAW, [0, 0])
        elif holders:
            seat = holders[0]
            score = [0, 0]
            score[seat] = int(self.c.yaku_value[ids_of(self.dealt_yaku[seat])[0]])
            self._finish(seat, E.END_TEYAKU, score)
        else:
            self.next_turn()

    def _misdeal(self, hands: list[int], field_cards: int) -> str | None:
        """Why the rules redeal this deal, or None."""
        for seat in (self.dealer, 1 - self.dealer):
            kind = dealt_hand(self.c, hands[seat])
            if kind == E.Y_TESHI and self.c.param(E.P_TESHI) == E.DEALT_REDEAL:
                return f"four cards of a month in seat {seat}'s hand (koikoi.teshi = redeal)"
            if kind == E.Y_KUTTSUKI and self.c.param(E.P_KUTTSUKI) == E.DEALT_REDEAL:
                return f"four pairs in seat {seat}'s hand (koikoi.kuttsuki = redeal)"
        return field_misdeal(self.c, field_cards)

    # --- 3, 4. the turns ------------------------------------------------------------------------

    def next_turn(self) -> None:
        """Begin turn ``turn + 1`` (or, after the last, end the round exhausted); a test may set
        a position (hands, field, piles, draw pile, calls, ``turn``) and call it."""
        if self.turn == E.TURNS:
            self._exhausted()
            return
        self.turn += 1
        self.seat = self.dealer if self.turn % 2 == 1 else 1 - self.dealer
        self.turn_bits, self.turn_points = self.yaku(self.seat)
        self.pending = Decision("play", self.seat, tuple(ids_of(self.hands[self.seat])))

    def _resolve(self, seat: int, card: int, source: str) -> bool:
        """Resolve a played (``source='play'``) or turned (``'draw'``) card against the field;
        False when the seat must first choose which of two field cards it takes."""
        outcome = capture(self.field, card)
        if outcome.kind == CAPTURE_NONE:
            self._place(seat, card, source, 0, 0)
            return True
        if outcome.kind == CAPTURE_ALL:
            self._place(seat, card, source, outcome.matches, 1)
            return True
        self.in_play = 1 << card
        self.pending = Decision("capture", seat, outcome.options, {"card": card, "source": source})
        return False

    def _place(self, seat: int, card: int, source: str, taken: int, choices: int) -> None:
        """Move a resolved card: with the field cards ``taken`` to ``seat``'s pile, or (nothing
        taken) to the field."""
        self.in_play = 0
        if taken == 0:
            self.field |= 1 << card
            self.emit(source, seat=seat, turn=self.turn, card=card, captured=[], to="field")
            return
        self.field &= ~taken
        self.piles[seat] |= (1 << card) | taken
        self.emit(source, seat=seat, turn=self.turn, card=card, captured=[card] + ids_of(taken), to="pile",
                  choices=choices)
        self._note_yaku(seat)

    def _after_play(self) -> None:
        drawn = self.draw.pop(0)
        if self._resolve(self.seat, drawn, "draw"):
            self._after_draw()

    def _after_draw(self) -> None:
        seat = self.seat
        bits, points = self.yaku(seat)
        if self.c.param(E.P_KOIKOI_TRIGGER) == E.TRIGGER_POINTS_RISE:
            rose = points > self.turn_points
        else:
            rose = bits & ~self.turn_bits != 0
        if not rose:
            self.next_turn()
            return
        if self._koikoi_allowed(seat):
            self.pending = Decision("koikoi", seat, (False, True), {"points": points})
            return
        self.emit("stop", seat=seat, turn=self.turn, forced=True)
        self._finish_stop(seat, E.END_FORCED_STOP)

    def _koikoi_allowed(self, seat: int) -> bool:
        """Whether ``seat``, whose yaku rose, may call koi-koi (else it stops)."""
        if self.hands[seat] == 0 and self.c.param(E.P_LAST_TURN) == 0:
            return False
        limit = self.c.param(E.P_KOIKOI_LIMIT)
        if limit == E.LIMIT_ONCE_PER_SEAT:
            return self.calls[seat] == 0
        if limit == E.LIMIT_ONCE_PER_TABLE:
            return self.calls[0] + self.calls[1] == 0
        return True

    def _apply_koikoi(self, seat: int, koikoi: bool) -> None:
        if not koikoi:
            self.emit("stop", seat=seat, turn=self.turn, forced=False)
            self._finish_stop(seat, E.END_STOP)
            return
        self.calls[seat] += 1
        self.last_caller = seat
        self.emit("koikoi", seat=seat, turn=self.turn, calls=self.calls[seat])
        self.next_turn()

    # --- 4, 5. the end of the round -------------------------------------------------------------

    def _finish_stop(self, seat: int, reason: int) -> None:
        _, points = self.yaku(seat)
        score = [0, 0]
        score[seat] = stop_score(self.c, points, self.calls[seat], self.calls[1 - seat])
        self._finish(seat, reason, score)

    def _exhausted(self) -> None:
        rule = self.c.param(E.P_EXHAUSTED)
        score = [0, 0]
        winner = -1
        if rule == E.EXHAUSTED_DEALER_POINTS:
            winner = self.dealer
            score[winner] = self.c.param(E.P_DEALER_PRIORITY)
        elif rule == E.EXHAUSTED_HIGHEST_YAKU:
            points = [self.yaku(s)[1] for s in range(N_SEATS)]
            if points[0] != points[1]:
                winner = 0 if points[0] > points[1] else 1
                score[winner] = stop_score(self.c, points[winner], self.calls[winner], self.calls[1 - winner])
        self._finish(winner, E.END_EXHAUSTED, score)

    def _finish(self, winner: int, reason: int, score: list[int]) -> None:
        """Score the ended round into ``self.result``."""
        self.pending = None
        yaku = []
        points = []
        for s in range(N_SEATS):
            bits, worth = self.yaku(s)
            yaku.append(bits | self.dealt_yaku[s])
            points.append(worth)
        payoff = list(score)
        if winner >= 0 and self.c.param(E.P_SCORING) == E.SCORING_ZERO_SUM:
            payoff[1 - winner] = -score[winner]
        self.emit("score", winner=winner, end_reason=E.END_REASONS[reason], yaku_points=points, score=score,
                  payoff=payoff, koikoi=list(self.calls))
        setup = self.setup
        self.result = RoundResult(
            round_index=setup.round_index, match=setup.match, round_in_match=setup.round_in_match,
            dealer=self.dealer, first_player=self.dealer, winner=winner, end_reason=reason, end_turn=self.turn,
            redeals=self.redeals, field_dealt=self.field_dealt, hand_dealt=list(self.hand_dealt),
            captured=list(self.piles), yaku=yaku, yaku_points=points, card_points=[0, 0], score=score,
            payoff=payoff, exhausted=reason == E.END_EXHAUSTED, koikoi=list(self.calls),
            last_koikoi=self.last_caller, events=self.events,
        )


def new_state(compiled: CompiledRules, setup: RoundSetup, *, deck: list[int] | None = None,
              trace: bool = False) -> RoundState:
    """The round of ``setup`` at its first decision (or ended, after a scoring dealt hand)."""
    return RoundState(compiled, setup, deck=deck, trace=trace)


def play_round(compiled: CompiledRules, setup: RoundSetup, policies, *, deck: list[int] | None = None,
               trace: bool = False) -> RoundResult:
    """Play one round with policy objects already bound to their seats' streams."""
    state = play_through(new_state(compiled, setup, deck=deck, trace=trace), policies, ask_policy)
    assert state.result is not None
    return state.result


def seat_policies(compiled: CompiledRules, specs, seed: int, round_index: int):
    """Each seat's policy for round ``round_index``, drawing from its own stream of the round."""
    return bind_policies(make_policy, LearnedPolicy, compiled, specs, seed, round_index, N_SEATS)


def next_dealer(compiled: CompiledRules, dealer: int, winner: int) -> int:
    """The next round's dealer: the winner; after a round nobody won, by ``exhausted_dealer``."""
    if winner >= 0:
        return winner
    return 1 - dealer if compiled.param(E.P_EXHAUSTED_DEALER) == 1 else dealer


def match_over(compiled: CompiledRules, points: list[int]) -> bool:
    """Whether a match ends early at these match points (``early_end = at_zero``)."""
    return compiled.param(E.P_EARLY_END) == 1 and min(points) <= 0


def play_unit(compiled: CompiledRules, specs, seed: int, unit: int, rounds_per_match: int | None,
              *, trace: bool = False) -> list[RoundResult]:
    """Play one unit of a run: an independent round, or a whole match.

    ``rounds_per_match=None``: unit ``u`` is round ``u``, dealt by seat ``u % 2``. Otherwise
    unit ``u`` is match ``u`` of at most ``rounds_per_match`` rounds (fewer when it ends early),
    round ``k`` of it has round index ``u * rounds_per_match + k``; seat ``u % 2`` deals first,
    then ``next_dealer``. Match points start at ``start_points`` and add each round's payoff.
    """
    start = compiled.param(E.P_START_POINTS)
    if rounds_per_match is None:
        setup = RoundSetup(seed=seed, round_index=unit, match=unit, dealer=unit % N_SEATS,
                           match_points=(start, start))
        result = play_round(compiled, setup, seat_policies(compiled, specs, seed, unit), trace=trace)
        result.match_points = [start + p for p in result.payoff]
        return [result]
    points = [start, start]
    dealer = unit % N_SEATS
    results = []
    for k in range(rounds_per_match):
        round_index = unit * rounds_per_match + k
        setup = RoundSetup(seed=seed, round_index=round_index, match=unit, round_in_match=k, dealer=dealer,
                           match_points=(points[0], points[1]))
        result = play_round(compiled, setup, seat_policies(compiled, specs, seed, round_index), trace=trace)
        points = [points[s] + result.payoff[s] for s in range(N_SEATS)]
        result.match_points = list(points)
        result.match_end = False
        results.append(result)
        dealer = next_dealer(compiled, dealer, result.winner)
        if match_over(compiled, points):
            break
    results[-1].match_end = True
    return results


def play_units(compiled: CompiledRules, specs, seed: int, first_unit: int, n_units: int,
               rounds_per_match: int | None,
               out: tuple[np.ndarray, np.ndarray] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Play units ``first_unit .. first_unit + n_units - 1`` into output matrices
    ``(int64[N_INT_COLUMNS, rows], uint64[N_MASK_COLUMNS, rows])``, ``rows = n_units * stride``
    (``stride``: 1, or ``rounds_per_match``); ``C_VALID`` marks the rows played (a match that
    ends early leaves its last rows unused)."""
    stride = 1 if rounds_per_match is None else rounds_per_match
    return units.play_units(LAYOUT, play_unit, stride, compiled, specs, seed, first_unit, n_units, rounds_per_match,
                            out)
