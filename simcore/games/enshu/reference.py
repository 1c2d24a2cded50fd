"""The readable Enshu-bana reference engine (docs/enshu.md), variants W, S and C.

This is the truth a numba kernel will be held to: the state is bit masks and small integer
arrays, every decision is taken in the fixed order below, and all arithmetic is integer.
``docs/enshu.md`` states the rules as implemented, option by option.

Seats are absolute (0 .. players-1); turn order is ``seat -> (seat + 1) % players``, so "seat
order from the dealer" is ``dealer, dealer + 1, ...``.

Order of a round
----------------
1. (C) **mizu-kotsu**: seats in order from the dealer, until three have declared (later seats
   are not asked).  With 2-3 players only if ``enshu.c.kotsu_small_games = true``.
2. **Deal** from the deal stream (``DEAL_STREAM``): a fresh shuffle of the 48 ids (Fisher-Yates,
   ``for i in 0..46: j = i + uniform(48 - i)``, drawn in batches by ``Stream.shuffle_places``),
   cut into the field (first F cards), then the hands of H cards for the dealer and the
   following seats in turn order, then the draw pile (top first).  A misdeal (field four of a
   month; with C or ``w_misdeal = as_variant_C`` also three cards of an I/C/P month on the field
   or four of one in any hand) reshuffles from the same stream.
3. (C) field multiplier ``M = 1 + Brights on the field + mizu-kotsu``; **kotsu** in seat order
   from the dealer (``M += 1`` each).
4. (C, 4-5 players) **dropout** passes in seat order from the dealer (see
   ``RoundState._phase_dropout_pass``); the acting dealer is the first active seat from the
   dealer.  (C with ``icp_four_check =
   at_teyaku_active_hands``: an active hand holding four I/C/P cards now redeals, back to step 2
   with the mizu-kotsu kept.)  The dropped hands, each ascending, in seat order from the dealer,
   are appended to the draw pile, which is then shuffled with Fisher-Yates from ``RULES_STREAM``.
5. **Teyaku**: (W) every hand holding a stopping teyaku exposes its best one and the highest
   (earliest seat in turn order on equal values) ends the round; otherwise each seat in turn
   order decides group A, then group B.  (S, when ``enshu.s.teyaku = on``; C for the active
   seats from the acting dealer) the same decisions.
6. **Turns** from the acting dealer among active seats: play a hand card and resolve it, turn the
   top draw card and resolve it.  A round-stopping yaku in the player's pile ends the round
   (``enshu.uchikiri_check``).
7. **Score** by variant; (C) **Fuke** offered to the eligible active seats in turn order from the
   acting dealer, the first who declares voiding the round; **payments**.

Random streams: ``DEAL_STREAM`` (deals and redeals), ``RULES_STREAM`` (the draw-pile shuffle
after a dropout), ``seat_stream(seat)`` (every decision of that seat, in the order above).

The round is a forward model (``simcore.reference.forward.State``): ``RoundState`` steps through
this order and pauses at each decision a seat takes (``mizu_kotsu``, ``kotsu``, ``join``,
``declare_teyaku``, ``play``, ``capture``, ``fuke``); ``play_round`` plays it through, asking each
seat's policy object (``ask_policy``) in the same order and with the same arguments as ever.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from simcore.cards import ids_of, mask_of
from simcore.errors import DealError  # one error type for unplayable explicit decks
from simcore.games.enshu import enums as E
from simcore.games.enshu.compile import CompiledRules, TeyakuOption, teyaku_options
from simcore.games.enshu.decisions import action_key, ask_policy
from simcore.games.enshu.learned import LearnedPolicy
from simcore.games.enshu.policies import Observation, make_policy
from simcore.games.enshu.record import LAYOUT
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
from simcore.rng import DEAL_STREAM, RULES_STREAM, Stream

__all__ = [*REFERENCE_NAMES, "DealError", "action_key", "ask_policy", "deal_slots", "misdeal_at_deal", "shuffle_in_place"]

DECK_SIZE = E.DECK_SIZE


@dataclass(kw_only=True)
class RoundResult(BaseRoundResult):
    """Everything the dataset records about one round (per-seat lists have ``players`` entries)."""

    players: int
    multiplier: int
    field_brights: int
    mizu_kotsu_count: int
    kotsu_count: int
    dropout_passes: int
    fuke: int
    stopping_yaku: int
    stopping_teyaku: int
    active: list[bool]
    mizu_kotsu: list[bool]
    kotsu: list[bool]
    teyaku_dealt: list[int]
    teyaku_declared: list[int]
    exposed: list[int]
    teyaku_points: list[int]
    yaku_multiplier: list[int]


# Who deals, and the match state the round starts from.
RoundSetup = BaseRoundSetup


def shuffle_in_place(cards: list[int], stream: Stream) -> list[int]:
    """Fisher-Yates: ``for i in 0..len-2: j = i + uniform(len - i)``, swap, the draws taken in
    batches by ``Stream.shuffle_places`` (returns ``cards``)."""
    stream.shuffle_places(cards, 0, len(cards))
    return cards


def deal_slots(compiled: CompiledRules, slots: list[int], dealer: int) -> tuple[int, list[int], list[int]]:
    """Cut a 48-card order into (field mask, hand mask per seat, draw pile top first)."""
    p = compiled.params
    players, hand_size, field_size = int(p[E.P_PLAYERS]), int(p[E.P_HAND]), int(p[E.P_FIELD])
    field_mask = mask_of(slots[:field_size])
    hands = [0] * players
    for k in range(players):
        start = field_size + k * hand_size
        hands[(dealer + k) % players] = mask_of(slots[start:start + hand_size])
    return field_mask, hands, list(slots[field_size + players * hand_size:])


def misdeal_at_deal(compiled: CompiledRules, field_mask: int, hands: list[int]) -> str:
    """Why this deal must be redealt right after dealing ("" if it stands)."""
    p = compiled.params
    month_mask = [int(m) for m in compiled.month_mask]
    icp = int(compiled.icp_mask)
    for m in range(1, 13):
        on_field = (field_mask & month_mask[m]).bit_count()
        if p[E.P_MISDEAL_FIELD_FOUR] and on_field == 4:
            return f"four cards of month {m} on the field"
        if p[E.P_MISDEAL_FIELD_ICP_THREE] and on_field >= 3 and month_mask[m] & icp:
            return f"three cards of month {m} on the field"
    if p[E.P_MISDEAL_HAND_ICP_FOUR] == E.HAND_FOUR_AT_DEAL:
        for seat, hand in enumerate(hands):
            reason = _icp_four(compiled, hand)
            if reason:
                return f"seat {seat} holds the four cards of month {reason}"
    return ""


def _icp_four(compiled: CompiledRules, hand: int) -> int:
    """The first I/C/P month whose four cards are all in ``hand`` (0: none)."""
    icp = int(compiled.icp_mask)
    for m in range(1, 13):
        mask = int(compiled.month_mask[m])
        if mask & icp and hand & mask == mask:
            return m
    return 0


def _combine(values: list[int], mode: int) -> int:
    """Combine multipliers or stakes: ``COMBO_SUM``, ``COMBO_MAX`` or ``COMBO_PRODUCT``."""
    if mode == E.COMBO_SUM:
        return sum(values)
    if mode == E.COMBO_MAX:
        return max(values)
    out = 1
    for v in values:
        out *= v
    return out


class RoundState(PausedRound, TracedRound):
    """An Enshu-bana round as a forward model (``simcore.reference.forward.State``).

    The round steps through the order of the module docstring and pauses at each decision a
    seat's policy takes.  A decision's ``kind`` is the policy method that answers it, its
    ``actions`` the legal answers in the order the policies index them, its ``info`` the other
    arguments of that method:

    - ``mizu_kotsu``, ``kotsu``, ``join``, ``fuke``: actions ``(False, True)``;
    - ``declare_teyaku``: the seat's options of one group, then None (decline);
      info ``group`` ("A" or "B") and ``options``;
    - ``play``: the hand's card ids, ascending;
    - ``capture``: the field cards the resolved card may take (one-card masks); info ``card``
      and ``source`` (``"play"`` or ``"draw"``).

    Every other step is taken by the rules as soon as the decision before it is applied.  Where
    the round is between decisions is kept in ``phase`` and in the position of the loop that
    phase runs (``mizu_index``, ``kotsu_index``; the dropout pass's ``pool``, ``pool_index``
    and ``joined``; ``teyaku_index``; the turn's ``seat``; ``fuke_index``), so that a clone
    carries on from any pause.  A played or turned card that waits for its seat's capture
    choice is in ``in_play`` (it has left the hand or the draw pile and is on neither the field
    nor a pile).  ``on_step(state)``, if given, is called after every step that moves a card
    and at every pause (the invariant harness checks the cards there).
    """

    cloned_lists = ("hands", "piles", "draw", "active", "mizu", "kotsu", "exposed", "known_yaku", "hand_dealt",
                    "teyaku_dealt", "joined", "events")
    cloned_nested_lists = ("declared",)
    cloned_streams = ("deal_stream", "rules_stream")
    cloned_deep = ("count",)

    def __init__(self, compiled: CompiledRules, setup: RoundSetup, *, deck: list[int] | None = None,
                 redraw: list[int] | None = None, trace: bool = False,
                 on_step: Callable[[RoundState], None] | None = None) -> None:
        self.c = compiled
        self.rules = compiled.rules
        self.setup = setup
        self.trace = trace
        self.on_step = on_step
        self.redraw = redraw
        self.events: list[dict[str, Any]] = []
        p = compiled.params
        self.p = p
        self.variant = int(p[E.P_VARIANT])
        self.c_variant = self.variant == E.VARIANT_C
        self.n = int(p[E.P_PLAYERS])
        self.capture_three_all = int(p[E.P_CAPTURE_THREE]) == 0
        self.each_capture = int(p[E.P_UCHIKIRI_CHECK]) == 1
        self.month = [int(m) for m in compiled.month]
        self.month_mask = [int(m) for m in compiled.month_mask]
        self.card_points = [int(v) for v in compiled.card_points]
        self.yaku_mask = [int(m) for m in compiled.yaku_mask]
        self.yaku_kind = [int(k) for k in compiled.yaku_kind]
        self.yaku_value = [int(v) for v in compiled.yaku_value]
        self.supersedes = [int(s) for s in compiled.supersedes]
        self.stopping_mask = sum(1 << i for i, k in enumerate(self.yaku_kind) if k == E.YAKU_UCHIKIRI)
        self.dealer = setup.dealer
        self.acting_dealer = setup.dealer
        n = self.n
        self.hands = [0] * n
        self.piles = [0] * n
        self.field = 0
        self.draw: list[int] = []
        self.set_aside = 0
        self.seen = 0
        self.turn = 0
        self.active = [True] * n
        self.mizu = [False] * n
        self.kotsu = [False] * n
        self.multiplier = 1
        self.dropout_passes = 0
        self.declared: list[list[TeyakuOption]] = [[] for _ in range(n)]
        self.exposed = [0] * n
        self.known_yaku = [0] * n
        self.scores: tuple[int, ...] = ()
        self.winner = -1
        self.field_dealt = 0
        self.hand_dealt = [0] * n
        self.teyaku_dealt = [0] * n
        self.redeals = 0
        self.gathered = False  # the dropped hands have gone into the draw pile (or aside)
        self._deck = deck
        self.deal_stream = None if deck is not None else Stream(setup.seed, setup.round_index, DEAL_STREAM)
        self.rules_stream: Stream | None = None  # None: RULES_STREAM of the round, made when needed
        # where the round is: the phase and the position of the loop it runs
        self.phase = "mizu_kotsu" if self.c_variant and self.raises_allowed() else "deal"
        self.mizu_index = 0
        self.mizu_count = 0
        self.kotsu_index = 0
        self.pool: tuple[int, ...] = ()
        self.pool_index = 0
        self.remaining = n
        self.joined: list[int] = []
        self.teyaku_seats: tuple[int, ...] = ()
        self.teyaku_index = 0  # 2 * (position in teyaku_seats) + (0: group A, 1: group B)
        self.teyaku_policy_decides = True
        self.stop_teyaku: TeyakuOption | None = None
        self.stopping = 0
        self.seat = setup.dealer  # the seat whose turn it is
        self.in_play = 0
        self.count: _Count | None = None
        self.fuke_seats: tuple[int, ...] = ()
        self.fuke_index = 0
        self.pending: Decision | None = None
        self.result: RoundResult | None = None
        self._advance()

    # --- the forward model ------------------------------------------------------------------

    def card_places(self) -> dict[str, int]:
        """Every place a card can be, as masks: all empty before the deal, afterwards disjoint
        and together the whole deck (the harness checks this at every pause)."""
        places = {f"hand {seat}": hand for seat, hand in enumerate(self.hands)}
        places.update({f"pile {seat}": pile for seat, pile in enumerate(self.piles)})
        places.update({"field": self.field, "draw": sum(1 << c for c in self.draw), "set aside": self.set_aside,
                       "in play": self.in_play})
        return places

    def sample_hidden(self, seat: int, stream: Stream) -> RoundState:
        """A copy in which the cards ``seat`` has not seen are dealt anew from ``stream``.

        What ``seat`` has seen, and keeps in place in the copy: its own hand; the field; every
        capture pile; the cards exposed by a declared teyaku while they are still in their
        holder's hand (docs/enshu.md#variant-w, #variant-c step 5; with ``enshu.c.exposure =
        junk_only_for_group_B`` only the junk of a group-B teyaku is exposed); every card played
        or turned (it is on the field or in a pile, or is the card in play awaiting a capture
        choice).  A seat that dropped out (variant C, 4-5 players) has also seen its own
        dropped hand: set aside (``enshu.c.dropped_hands = set_aside``) those cards stay where
        they are; shuffled into the draw pile they stay in it, at places it does not know.

        What it has not seen, and is dealt anew: the other seats' unexposed hand cards, the
        draw pile (its order too) and the set-aside cards of the other dropped seats.  Those
        card ids, sorted, are shuffled with ``stream.shuffle_places`` and dealt back to the
        other hands in seat order, then to the draw pile from the top, then to the set-aside
        cards, each place keeping its size, so every placement of them is equally likely.  (For
        a dropped seat whose hand went into the draw pile, the new draw pile is shuffled once
        more, so its own cards lie at uniform places in it.)  The placement is not conditioned
        on what the rules reveal without showing a card: that no hand was dealt a misdeal
        (four I/C/P cards, variant C), that no hand holds a stopping teyaku (variant W exposes
        them all) or an undeclared Triplet (``enshu.w.triplet_declare = always``), that the
        unexposed card of a Lone Animal or Lone Ribbon declared with ``junk_only_for_group_B``
        is an Animal or a Ribbon.  A copy may hold such a hand.

        A pending decision of another seat that depends on that seat's hand (``play``,
        ``declare_teyaku``) is asked afresh of the hand it holds in the copy (a teyaku decision
        the new hand does not qualify for is skipped, as the rules would).

        The random steps still to come are the copy's own: its deal stream (a redeal, or the
        deal itself before it) and its draw-pile reshuffle after the dropout are new streams
        seeded from ``stream``, never the round's.  The copy keeps no trace and no explicit
        deck or redraw, and of the other seats' dealt hands it keeps only the exposed cards
        (scoring's triplet bonus needs those) and of their dealt teyaku only those declared.

        Parameters
        ----------
        seat : the seat whose view the copy keeps (any seat, deciding or not)
        stream : the ``Stream`` the new deal is drawn from

        Returns
        -------
        RoundState
            An independent state, paused at the same decision (or, for a decision of another
            seat that its new hand changes, at that decision asked afresh).
        """
        other = self.clone()
        other.trace = False
        other.events = []
        other._deck = None
        other.redraw = None
        n = self.n
        own_former = self.hand_dealt[seat] if self.gathered and not self.active[seat] else 0
        others = [s for s in range(n) if s != seat]
        hidden_hands = [self.hands[s] & ~self.exposed[s] for s in others]
        hidden_aside = self.set_aside & ~own_former
        hidden_draw = [card for card in self.draw if not (own_former >> card) & 1]
        unseen = ids_of(sum(hidden_hands) | hidden_aside) + hidden_draw
        unseen.sort()
        stream.shuffle_places(unseen, 0, max(len(unseen) - 1, 0))
        at = 0
        for s, hidden in zip(others, hidden_hands, strict=True):
            size = hidden.bit_count()
            other.hands[s] = (self.hands[s] & ~hidden) | mask_of(unseen[at:at + size])
            at += size
        draw = unseen[at:at + len(hidden_draw)]
        at += len(hidden_draw)
        if len(draw) < len(self.draw):  # the dropped seat's own cards are in it, at unknown places
            draw += [card for card in self.draw if (own_former >> card) & 1]
            stream.shuffle_places(draw, 0, len(draw) - 1)
        other.draw = draw
        other.set_aside = (self.set_aside & own_former) | mask_of(unseen[at:])
        for s in others:
            other.hand_dealt[s] = self.hand_dealt[s] & self.exposed[s]
            other.teyaku_dealt[s] = self.teyaku_dealt[s] & self.declared_bits(s)
        other.deal_stream = Stream(stream.next_u64(), self.setup.round_index, DEAL_STREAM)
        other.rules_stream = Stream(stream.next_u64(), self.setup.round_index, RULES_STREAM)
        pending = self.pending
        if pending is not None and pending.seat != seat and other.hands[pending.seat] != self.hands[pending.seat]:
            # another seat's decision that depends on its hand, now dealt anew: ask it afresh
            if pending.kind == "play":
                other.pending = Decision("play", pending.seat, tuple(ids_of(other.hands[pending.seat])))
            elif pending.kind == "declare_teyaku":
                other.pending = None  # its options, if it has any, are those of the new hand
                other._advance()
        return other

    def rehand(self, now: RoundState, world: RoundState, seat: int) -> RoundState | None:
        """This past state's decision as ``world`` (a ``sample_hidden`` of ``now``, for ``seat``)
        deals it, for a search player's inference (``simcore.search``): a copy in which each
        other seat's hand is the cards it has played since (seen by all) and its hand in
        ``world``, the draw pile below what has been turned since and the set-aside cards are
        ``world``'s, and a ``play`` of another seat lists its hand there. None unless the
        decision is a card played or a capture chosen, with no seat dropped out or hands gathered
        since (variant C)."""
        pending = self.pending
        if pending is None or pending.kind not in ("play", "capture"):
            return None
        if self.gathered != now.gathered or self.active != now.active:
            return None
        past = self.clone()
        past.trace = False
        past.events = []
        past._deck = None
        past.redraw = None
        for s in range(self.n):
            if s != seat:
                past.hands[s] = (self.hands[s] & ~now.hands[s]) | world.hands[s]
                past.hand_dealt[s] = world.hand_dealt[s]
                past.teyaku_dealt[s] = world.teyaku_dealt[s]
        past.draw = self.draw[:len(self.draw) - len(now.draw)] + list(world.draw)
        past.set_aside = world.set_aside
        if pending.kind == "play" and pending.seat != seat:
            past.pending = Decision("play", pending.seat, tuple(ids_of(past.hands[pending.seat])))
        return past

    def apply(self, action: Any) -> None:
        """Take ``action`` for the pending decision and step on to the next one (or the end)."""
        decision = self.take_pending(action)
        _APPLY[decision.kind](self, decision, action)
        self._advance()

    def _advance(self) -> None:
        """Take the rules' own steps, phase by phase, until a decision or the end."""
        while self.pending is None and self.result is None:
            _PHASES[self.phase](self)

    def _ask(self, kind: str, seat: int, actions: tuple[Any, ...], info: dict[str, Any] | None = None) -> None:
        self.pending = Decision(kind, seat, actions, {} if info is None else info)
        self.step()

    # --- helpers -----------------------------------------------------------------------------

    def step(self) -> None:
        """Call the ``on_step`` hook, if any, with this state."""
        if self.on_step is not None:
            self.on_step(self)

    def seats_from(self, start: int) -> list[int]:
        """Every seat in turn order from ``start``."""
        return [(start + k) % self.n for k in range(self.n)]

    def active_from(self, start: int) -> list[int]:
        """The active seats in turn order from ``start``."""
        return [s for s in self.seats_from(start) if self.active[s]]

    def observe(self, seat: int) -> Observation:
        """What ``seat`` may see now (guarantee 6 of docs/guarantees.md)."""
        n = self.n
        return Observation(
            seat=seat,
            players=n,
            variant=E.VARIANTS[self.variant],
            dealer=self.dealer,
            acting_dealer=self.acting_dealer,
            active=tuple(self.active),
            round_in_match=self.setup.round_in_match,
            match_points=tuple(self.setup.match_points) or (0,) * n,
            multiplier=self.multiplier,
            hand=self.hands[seat],
            field=self.field,
            piles=tuple(self.piles),
            exposed=tuple(self.exposed[s] & self.hands[s] for s in range(n)),
            seen=self.seen,
            draw_size=len(self.draw),
            turn=self.turn,
            declared=tuple(self.declared_bits(s) for s in range(n)),
            mizu_kotsu=tuple(self.mizu),
            kotsu=tuple(self.kotsu),
            dropout_pass=self.dropout_passes,
            scores=self.scores,
            winner=self.winner,
        )

    def declared_bits(self, seat: int) -> int:
        """The bitset of the teyaku ``seat`` declared."""
        return _index_bits(self.declared[seat])

    def completed_yaku(self, pile: int) -> int:
        """Bitset of the yaku contained in ``pile``, after supersession."""
        completed = 0
        for i, mask in enumerate(self.yaku_mask):
            if mask & pile == mask:
                completed |= 1 << i
        cancelled = 0
        for i in ids_of(completed):
            cancelled |= self.supersedes[i]
        return completed & ~cancelled

    def note_new_yaku(self, seat: int) -> None:
        """Trace the yaku ``seat``'s pile completed since the last call (only when tracing)."""
        if self.trace:
            self.trace_new_yaku(seat, self.completed_yaku(self.piles[seat]),
                                lambda yaku: {"kind": yaku.kind, "value": yaku.value})

    def hand_points(self, mask: int) -> int:
        """The card points of the cards in ``mask``."""
        return sum(self.card_points[x] for x in ids_of(mask))

    # --- 1. (C) mizu-kotsu --------------------------------------------------------------------

    def raises_allowed(self) -> bool:
        """(C) Whether mizu-kotsu and kotsu are played (4-5 players, or ``kotsu_small_games``)."""
        return self.n >= 4 or int(self.p[E.P_C_KOTSU_SMALL_GAMES]) == 0

    def _phase_mizu_kotsu(self) -> None:
        if self.mizu_index < self.n and self.mizu_count < E.MAX_MIZU_KOTSU:
            self._ask("mizu_kotsu", (self.dealer + self.mizu_index) % self.n, YES_NO)
        else:
            self.phase = "deal"

    def _apply_mizu_kotsu(self, decision: Decision, action: Any) -> None:
        seat = decision.seat
        if action:
            self.mizu[seat] = True
            self.mizu_count += 1
        self.emit("mizu_kotsu", seat=seat, declared=self.mizu[seat])
        self.mizu_index += 1

    # --- 2. the deal ----------------------------------------------------------------------------

    def deal(self, deck: list[int] | None, stream: Stream | None, redeals: int) -> int:
        """Deal until the deal stands (misdeals redeal); returns the updated redeal count."""
        while True:
            if deck is not None:
                slots = list(deck)
            else:
                assert stream is not None  # the caller passes one whenever no deck is given
                slots = shuffle_in_place(list(range(DECK_SIZE)), stream)
            field_mask, hands, draw = deal_slots(self.c, slots, self.dealer)
            reason = misdeal_at_deal(self.c, field_mask, hands)
            if reason and redeals < E.MAX_REDEALS:
                if deck is not None:
                    raise DealError(f"the rules redeal this deck: {reason}")
                redeals += 1
                self.emit("redeal", reason=reason, field=ids_of(field_mask))
                continue
            break
        self.field = field_mask
        self.hands = hands
        self.draw = draw
        self.field_dealt = field_mask
        self.hand_dealt = list(hands)
        self.piles = [0] * self.n
        self.set_aside = 0
        self.seen = field_mask
        self.emit("deal", dealer=self.dealer, field=ids_of(field_mask),
                  hands=[ids_of(h) for h in hands], draw=list(draw))
        self.step()
        return redeals

    def _phase_deal(self) -> None:
        self.redeals = self.deal(self._deck, self.deal_stream, self.redeals)
        if not self.c_variant:
            self.phase = "teyaku_start"
            return
        n = self.n
        self.active = [True] * n
        self.kotsu = [False] * n
        self.dropout_passes = 0
        # --- 3. (C) the field multiplier and kotsu
        brights = (self.field & int(self.c.bright_mask)).bit_count()
        self.multiplier = 1 + brights + sum(self.mizu)
        self.emit("multiplier", multiplier=self.multiplier, field_brights=brights, mizu_kotsu=sum(self.mizu))
        self.kotsu_index = 0
        self.phase = "kotsu" if self.raises_allowed() else "dropout_start"

    def _phase_kotsu(self) -> None:
        if self.kotsu_index < self.n:
            self._ask("kotsu", (self.dealer + self.kotsu_index) % self.n, YES_NO)
        else:
            self.phase = "dropout_start"

    def _apply_kotsu(self, decision: Decision, action: Any) -> None:
        seat = decision.seat
        self.kotsu[seat] = bool(action)
        if self.kotsu[seat]:
            self.multiplier += 1
        self.emit("kotsu", seat=seat, declared=self.kotsu[seat], multiplier=self.multiplier)
        self.kotsu_index += 1

    # --- 4. (C, 4-5 players) the dropout ---------------------------------------------------------

    def _phase_dropout_start(self) -> None:
        if self.n >= 4:
            self.pool = tuple(self.seats_from(self.dealer))
            self.remaining = self.n
            self.phase = "dropout_pass"
        else:
            self.phase = "acting_dealer"

    def _phase_dropout_pass(self) -> None:
        """A dropout pass (docs/enshu.md#variant-c, step 4) over ``pool``; the dropout leaves three
        active.

        Each pass asks the pool in seat order from the dealer: a mizu-kotsu seat joins without
        a decision, and once only three seats are not dropped the rest join without a decision.
        Four or more joiners raise ``M`` by one and the joiners are asked again; after
        ``enshu.c.dropout_pass_cap`` passes the joiners who are not mizu-kotsu are forced out in
        reverse seat order until three remain (no further raise).
        """
        self.dropout_passes += 1
        self.joined = []
        self.pool_index = 0
        self.phase = "dropout_ask"

    def _phase_dropout_ask(self) -> None:
        while self.pool_index < len(self.pool):
            seat = self.pool[self.pool_index]
            if self.remaining == 3 or self.mizu[seat]:
                self.joined.append(seat)
                self.emit("join", seat=seat, forced=True, dropout_pass=self.dropout_passes)
                self.pool_index += 1
                continue
            self._ask("join", seat, YES_NO)
            return
        joined = self.joined
        if len(joined) <= 3:
            self.phase = "acting_dealer"
            return
        if self.dropout_passes >= int(self.p[E.P_C_DROPOUT_PASS_CAP]):
            for seat in reversed(joined):
                if self.remaining == 3:
                    break
                if not self.mizu[seat]:
                    self.active[seat] = False
                    self.remaining -= 1
                    self.emit("drop", seat=seat, forced=True, dropout_pass=self.dropout_passes)
            self.phase = "acting_dealer"
            return
        self.multiplier += 1
        self.emit("dropout_raise", joined=joined, multiplier=self.multiplier)
        self.pool = tuple(joined)
        self.phase = "dropout_pass"

    def _apply_join(self, decision: Decision, action: Any) -> None:
        seat = decision.seat
        if action:
            self.joined.append(seat)
            self.emit("join", seat=seat, forced=False, dropout_pass=self.dropout_passes)
        else:
            self.active[seat] = False
            self.remaining -= 1
            self.emit("drop", seat=seat, forced=False, dropout_pass=self.dropout_passes)
        self.pool_index += 1

    def _phase_acting_dealer(self) -> None:
        self.acting_dealer = self.active_from(self.dealer)[0]
        if int(self.p[E.P_MISDEAL_HAND_ICP_FOUR]) == E.HAND_FOUR_AT_TEYAKU and self.redeals < E.MAX_REDEALS:
            four = [(s, _icp_four(self.c, self.hands[s])) for s in self.active_from(self.dealer)]
            four = [(s, m) for s, m in four if m]
            if four:
                reason = f"seat {four[0][0]} holds the four cards of month {four[0][1]}"
                if self._deck is not None:
                    raise DealError(f"the rules redeal this deck: {reason}")
                self.redeals += 1
                self.emit("redeal", reason=reason, field=ids_of(self.field))
                self.phase = "deal"
                return
        self.emit("acting_dealer", seat=self.acting_dealer, active=list(self.active))
        self.gather_dropped_hands()
        self.phase = "teyaku_start"

    def gather_dropped_hands(self) -> None:
        """Dropped hands go into the draw pile, which is reshuffled (or are set aside)."""
        self.gathered = True
        dropped = [s for s in self.seats_from(self.dealer) if not self.active[s]]
        if not dropped:
            return
        cards = []
        for seat in dropped:
            cards += ids_of(self.hands[seat])
            self.hands[seat] = 0
        if int(self.p[E.P_C_DROPPED_HANDS]) == 1:
            self.set_aside = mask_of(cards)
            self.emit("set_aside", cards=cards)
        else:
            pile = self.draw + cards
            if self.redraw is not None:
                if sorted(self.redraw) != sorted(pile):
                    raise DealError(f"the draw pile after the dropout holds {sorted(pile)}, "
                                    f"the given order holds {sorted(self.redraw)}")
                pile = list(self.redraw)
            else:
                stream = self.rules_stream
                if stream is None:
                    stream = Stream(self.setup.seed, self.setup.round_index, RULES_STREAM)
                shuffle_in_place(pile, stream)
            self.draw = pile
            self.emit("reshuffle", added=cards, draw=list(pile))
        self.step()

    # --- 5. teyaku ----------------------------------------------------------------------------

    def declare(self, seat: int, option: TeyakuOption) -> None:
        """``seat`` declares the teyaku ``option``, exposing its cards."""
        self.declared[seat].append(option)
        self.exposed[seat] |= option.cards
        self.seen |= option.cards
        self.emit("teyaku", seat=seat, teyaku=option.key, label=option.label(), value=option.value,
                  stops=option.stops, exposed=ids_of(option.cards))

    def _phase_teyaku_start(self) -> None:
        self.teyaku_dealt = [_index_bits(teyaku_options(self.c, h, None)) for h in self.hand_dealt]
        self.phase = "turns_start"
        if self.variant == E.VARIANT_W:
            self.stop_teyaku = self.stopping_teyaku_w()
            if self.stop_teyaku is not None:
                self.phase = "score"
                return
            mode = int(self.p[E.P_W_TRIPLET_DECLARE])
            if mode != 2:
                self._start_teyaku(self.seats_from(self.dealer), policy_decides=mode == 0)
        elif self.variant == E.VARIANT_S:
            if int(self.p[E.P_S_TEYAKU]) == 0:
                self._start_teyaku(self.seats_from(self.dealer))
        else:
            self._start_teyaku(self.active_from(self.acting_dealer))

    def _start_teyaku(self, seats: list[int], policy_decides: bool = True) -> None:
        self.teyaku_seats = tuple(seats)
        self.teyaku_index = 0
        self.teyaku_policy_decides = policy_decides
        self.phase = "teyaku"

    def _phase_teyaku(self) -> None:
        """Each seat of ``teyaku_seats`` decides group A, then group B (if it holds options)."""
        while self.teyaku_index < 2 * len(self.teyaku_seats):
            seat = self.teyaku_seats[self.teyaku_index >> 1]
            group = "B" if self.teyaku_index & 1 else "A"
            options = [o for o in teyaku_options(self.c, self.hands[seat], group) if not o.stops]
            if options:
                if self.teyaku_policy_decides:
                    self._ask("declare_teyaku", seat, (*options, None), {"group": group, "options": tuple(options)})
                    return
                self._teyaku_chosen(seat, group, options, _best_option(options))
            self.teyaku_index += 1
        self.phase = "turns_start"

    def _apply_declare_teyaku(self, decision: Decision, action: Any) -> None:
        seat, options = decision.seat, list(decision.info["options"])
        if action is not None and action not in options:
            raise ValueError(f"seat {seat} cannot declare {action!r}")
        self._teyaku_chosen(seat, decision.info["group"], options, action)
        self.teyaku_index += 1

    def _teyaku_chosen(self, seat: int, group: str, options: list[TeyakuOption],
                       chosen: TeyakuOption | None) -> None:
        if chosen is None:
            self.emit("teyaku_declined", seat=seat, group=group, options=[o.label() for o in options])
        else:
            self.declare(seat, chosen)

    def stopping_teyaku_w(self) -> TeyakuOption | None:
        """Variant W: every stopping teyaku is exposed; returns the one that ends the round."""
        best, best_seat = None, -1
        for seat in self.seats_from(self.dealer):
            options = [o for o in teyaku_options(self.c, self.hands[seat], None) if o.stops]
            if not options:
                continue
            chosen = _best_option(options)
            self.declare(seat, chosen)
            if best is None or chosen.value > best.value:
                best, best_seat = chosen, seat
        self.winner = best_seat
        return best

    # --- 6. the turns -----------------------------------------------------------------------------

    def _phase_turns_start(self) -> None:
        self.seat = self.acting_dealer
        self.phase = "turn"

    def _phase_turn(self) -> None:
        if not any(self.hands[s] for s in range(self.n) if self.active[s]):
            self.phase = "score"
            return
        self.turn += 1
        self._ask("play", self.seat, tuple(ids_of(self.hands[self.seat])))

    def _apply_play(self, decision: Decision, action: Any) -> None:
        seat, card = decision.seat, int(action)
        if not (self.hands[seat] >> card) & 1:
            raise ValueError(f"seat {seat} cannot play card {card}: not in hand")
        self.hands[seat] &= ~(1 << card)
        self.phase = "after_play"
        self.resolve(seat, card, "play")

    def _phase_after_play(self) -> None:
        seat = self.seat
        if self.each_capture and self.stopping_yaku(seat):
            self.stop(seat)
            return
        self.phase = "after_draw"
        if self.draw:
            self.resolve(seat, self.draw.pop(0), "draw")

    def _phase_after_draw(self) -> None:
        seat = self.seat
        if self.stopping_yaku(seat):
            self.stop(seat)
            return
        seat = (seat + 1) % self.n
        while not self.active[seat]:
            seat = (seat + 1) % self.n
        self.seat = seat
        self.phase = "turn"

    def resolve(self, seat: int, card: int, source: str) -> None:
        """Resolve a played (``source='play'``) or turned (``'draw'``) card against the field;
        a choice between matching field cards pauses the round at a ``capture`` decision."""
        self.seen |= 1 << card
        outcome = capture(self.field, card, self.capture_three_all)
        if outcome.kind == CAPTURE_NONE:
            self.field |= 1 << card
            self.emit(source, seat=seat, turn=self.turn, card=card, captured=[], to="field")
            self.step()
            return
        if outcome.kind == CAPTURE_ALL:
            self.take(seat, card, source, outcome.matches)
            return
        self.in_play = 1 << card
        self._ask("capture", seat, outcome.options, {"card": card, "source": source})

    def _apply_capture(self, decision: Decision, action: Any) -> None:
        seat, card = decision.seat, decision.info["card"]
        if action not in decision.actions:
            raise ValueError(f"seat {seat} cannot take {ids_of(action)} with card {card}")
        self.take(seat, card, decision.info["source"], action)

    def take(self, seat: int, card: int, source: str, taken: int) -> None:
        """``seat`` captures ``card`` with the field cards ``taken``."""
        self.in_play = 0
        self.field &= ~taken
        self.piles[seat] |= (1 << card) | taken
        self.emit(source, seat=seat, turn=self.turn, card=card, captured=[card] + ids_of(taken), to="pile")
        self.note_new_yaku(seat)
        self.step()

    def stopping_yaku(self, seat: int) -> int:
        """The round-stopping yaku in ``seat``'s pile (bitset)."""
        return self.completed_yaku(self.piles[seat]) & self.stopping_mask

    def stop(self, seat: int) -> None:
        """``seat`` made a round-stopping yaku: the round ends at once."""
        self.winner = seat
        bits = self.stopping_yaku(seat)
        self.emit("uchikiri", seat=seat, turn=self.turn, yaku=[self.rules.yaku[i].key for i in ids_of(bits)])
        self.stopping = bits
        self.phase = "score"

    # --- 7. scoring -------------------------------------------------------------------------------

    def triplet_months(self, seat: int) -> set[int]:
        """Months of the triplets ``seat`` declared that upgrade a four-of-a-month yaku."""
        months = set()
        in_four_three = int(self.p[E.P_C_TRIPLET_BONUS_IN_FOUR_THREE]) == 0
        for option in self.declared[seat]:
            if option.pattern == E.PATTERN_TRIPLET or (option.pattern == E.PATTERN_FOUR_THREE and in_four_three):
                months.add(option.triplet_month)
        return months

    def bonus_earned(self, seat: int, month: int, hand_dealt: int) -> bool:
        """Whether ``seat`` earned the triplet bonus of ``month`` (``triplet_bonus_condition``)."""
        month_mask = self.month_mask[month]
        pile = self.piles[seat]
        if int(self.p[E.P_C_TRIPLET_BONUS_CONDITION]) == 1:
            return pile & month_mask == month_mask
        rest = month_mask & ~hand_dealt
        return rest != 0 and pile & rest == rest

    def tally(self, seat: int, hand_dealt: int) -> tuple[int, int, int, int, list[int]]:
        """(yaku bitset, card points, yaku points, teyaku points, multiplier values) of a seat."""
        pile = self.piles[seat]
        bits = self.completed_yaku(pile)
        cards = self.hand_points(pile)
        upgrade = int(self.p[E.P_TRIPLET_UPGRADE]) == 1
        months = self.triplet_months(seat) if upgrade else set()
        yaku_points = 0
        multipliers = []
        for i in ids_of(bits):
            if self.yaku_kind[i] == E.YAKU_POINTS:
                upgraded = int(self.c.yaku_upgraded[i])
                if upgraded and int(self.c.yaku_month[i]) in months:
                    yaku_points += upgraded
                else:
                    yaku_points += self.yaku_value[i]
            else:
                multipliers.append(self.yaku_value[i])
        teyaku_points = 0
        for option in self.declared[seat]:
            if not option.stops:
                teyaku_points += option.value
            bonus = int(self.c.teyaku_bonus[option.index])
            month = option.triplet_month
            if bonus and month and (int(self.c.teyaku_bonus_months[option.index]) >> month) & 1:
                if self.bonus_earned(seat, month, hand_dealt):
                    teyaku_points += bonus
                    self.emit("triplet_bonus", seat=seat, month=month, points=bonus)
        return bits, cards, yaku_points, teyaku_points, multipliers

    def tie_order(self, start: int) -> list[int]:
        """Active seats from ``start``: in turn order, or (``dealer_then_left``) the dealer then reverse."""
        if self.variant != E.VARIANT_W and int(self.p[E.P_TIE_ORDER]) == 1:
            order = [(start - k) % self.n for k in range(self.n)]
        else:
            order = self.seats_from(start)
        return [s for s in order if self.active[s]]

    def _phase_score(self) -> None:
        """Score the ended round; variant C then offers Fuke (``fuke``) before the payments."""
        if self.stop_teyaku is not None:
            reason = E.END_TEYAKU_STOP
        elif self.stopping:
            reason = E.END_UCHIKIRI
        else:
            reason = E.END_SCORE
        n = self.n
        p = self.p
        hand_dealt = self.hand_dealt
        yaku = [0] * n
        cards = [0] * n
        yaku_points = [0] * n
        teyaku_points = [0] * n
        multipliers: list[list[int]] = [[] for _ in range(n)]
        for s in range(n):
            if self.active[s]:
                yaku[s], cards[s], yaku_points[s], teyaku_points[s], multipliers[s] = self.tally(s, hand_dealt[s])
        count = _Count(reason=reason, yaku=yaku, cards=cards, yaku_points=yaku_points, teyaku_points=teyaku_points,
                       yaku_multiplier=[1] * n, score=[0] * n, payoff=[0] * n, winner=self.winner)
        self.count = count
        self.phase = "finish"
        if self.variant == E.VARIANT_W:
            stake = int(p[E.P_W_STAKE])
            if reason == E.END_SCORE:
                count.score = [cards[s] + yaku_points[s] + teyaku_points[s] for s in range(n)]
                count.payoff, count.winner = self.pot_w(count.score, stake)
            else:
                if reason == E.END_TEYAKU_STOP:
                    assert self.stop_teyaku is not None
                    k = self.stop_teyaku.value
                else:
                    k = _combine([self.yaku_value[i] for i in ids_of(self.stopping)], int(p[E.P_W_UCHIKIRI_COMBO]))
                per_loser = (k + int(p[E.P_W_UCHIKIRI_PAYMENT])) * stake  # total_k: k; ante_plus_k: k + 1
                count.payoff = [-per_loser] * n
                count.payoff[count.winner] = per_loser * (n - 1)
        elif self.variant == E.VARIANT_S:
            combination = int(p[E.P_S_COMBINATION])
            score, yaku_multiplier = count.score, count.yaku_multiplier
            for s in range(n):
                total = cards[s] + yaku_points[s] + teyaku_points[s]
                if combination == 2:
                    yaku_multiplier[s] = sum(multipliers[s]) if multipliers[s] else 1
                    score[s] = total * yaku_multiplier[s]
                else:
                    yaku_multiplier[s] = _combine(multipliers[s], E.COMBO_PRODUCT)
                    if combination == 0:
                        score[s] = total * yaku_multiplier[s]
                    else:
                        score[s] = cards[s] * yaku_multiplier[s] + yaku_points[s] + teyaku_points[s]
            count.winner = self.top_score(score, self.dealer)
            count.payoff = list(score)
        else:
            active = [s for s in range(n) if self.active[s]]
            own = [yaku_points[s] + teyaku_points[s] for s in range(n)]
            zero_sum = int(p[E.P_C_SCORE_FORMULA]) == 1
            combo = E.COMBO_PRODUCT if int(p[E.P_C_UCHIKIRI_COMBO]) == 0 else E.COMBO_MAX
            score, yaku_multiplier = count.score, count.yaku_multiplier
            for s in active:
                opponents = sum(own[q] for q in active if q != s)
                base = cards[s] - opponents + ((len(active) - 1) * own[s] if zero_sum else 0)
                yaku_multiplier[s] = _combine(multipliers[s], combo) if multipliers[s] else 1
                score[s] = base * self.multiplier * yaku_multiplier[s]
            if reason != E.END_UCHIKIRI:
                count.winner = self.top_score(score, self.acting_dealer)
            self.scores, self.winner = tuple(score), count.winner
            self.emit("count", scores=list(score), winner=count.winner, multiplier=self.multiplier)
            self.phase = "settle"
            if reason != E.END_UCHIKIRI or int(p[E.P_C_FUKE_ON_UCHIKIRI]) == 1:
                self.fuke_seats = tuple(self.active_from(self.acting_dealer))
                self.fuke_index = 0
                self.phase = "fuke"

    def _phase_fuke(self) -> None:
        """(C) Fuke offered to the eligible active seats in turn order from the acting dealer."""
        willow = int(self.c.willow_mask)
        while self.fuke_index < len(self.fuke_seats):
            seat = self.fuke_seats[self.fuke_index]
            if not self.declared[seat] and self.hand_points(self.piles[seat] & ~willow) <= E.FUKE_LIMIT:
                self._ask("fuke", seat, YES_NO)
                return
            self.fuke_index += 1
        self.phase = "settle"

    def _apply_fuke(self, decision: Decision, action: Any) -> None:
        seat = decision.seat
        declared = bool(action)
        self.emit("fuke", seat=seat, declared=declared)
        if declared:
            assert self.count is not None
            self.count.fuke = seat
            self.phase = "settle"
        else:
            self.fuke_index += 1

    def _phase_settle(self) -> None:
        """(C) The payments, or nothing after a Fuke."""
        count = self.count
        assert count is not None
        n = self.n
        if count.fuke >= 0:
            count.reason, count.winner, count.score = E.END_FUKE, -1, [0] * n
        else:
            paid = count.score[count.winner]
            if int(self.p[E.P_C_NEGATIVE_SCORE]) == 0:
                paid = max(paid, 0)
            for s in range(n):
                if self.active[s]:
                    count.payoff[s] = -paid
            count.payoff[count.winner] = paid * (sum(self.active) - 1)
        self.phase = "finish"

    def _phase_finish(self) -> None:
        """The round's result (``self.result``): the round is over."""
        count = self.count
        assert count is not None
        n = self.n
        stop_teyaku = self.stop_teyaku
        self.emit("score", winner=count.winner, end_reason=E.END_REASONS[count.reason], card_points=count.cards,
                  yaku_points=count.yaku_points, teyaku_points=count.teyaku_points, score=count.score,
                  payoff=count.payoff)
        result = RoundResult(
            round_index=self.setup.round_index, match=self.setup.match, round_in_match=self.setup.round_in_match,
            dealer=self.dealer, first_player=self.acting_dealer,
            players=n, winner=count.winner, end_reason=count.reason, end_turn=self.turn, redeals=self.redeals,
            multiplier=self.multiplier, field_brights=(self.field_dealt & int(self.c.bright_mask)).bit_count(),
            mizu_kotsu_count=sum(self.mizu), kotsu_count=sum(self.kotsu), dropout_passes=self.dropout_passes,
            fuke=count.fuke, field_dealt=self.field_dealt, stopping_yaku=self.stopping,
            stopping_teyaku=(1 << stop_teyaku.index) if stop_teyaku is not None else 0,
            active=list(self.active), mizu_kotsu=list(self.mizu), kotsu=list(self.kotsu),
            hand_dealt=list(self.hand_dealt), captured=list(self.piles), yaku=list(count.yaku),
            teyaku_dealt=list(self.teyaku_dealt),
            teyaku_declared=[self.declared_bits(s) for s in range(n)], exposed=list(self.exposed),
            yaku_points=list(count.yaku_points), teyaku_points=list(count.teyaku_points),
            card_points=list(count.cards), yaku_multiplier=list(count.yaku_multiplier), score=list(count.score),
            payoff=list(count.payoff), events=self.events,
        )
        self.result = result
        self.step()

    def top_score(self, score: list[int], start: int) -> int:
        """The active seat with the highest score, ties in ``tie_order(start)``."""
        order = self.tie_order(start)
        best = order[0]
        for s in order[1:]:
            if score[s] > score[best]:
                best = s
        return best

    def pot_w(self, score: list[int], stake: int) -> tuple[list[int], int]:
        """Variant W normal end: the top score takes the pot (``enshu.w.tie`` on equal scores)."""
        n = self.n
        order = self.seats_from(self.dealer)
        top = max(score)
        tied = [s for s in order if score[s] == top]
        payoff = [-stake] * n
        if int(self.p[E.P_W_TIE]) == 0 or len(tied) == 1:
            payoff[tied[0]] = stake * (n - 1)
            return payoff, tied[0]
        won = stake * (n - len(tied))  # the losers' antes, shared; odd units to the earliest tied seats
        for k, s in enumerate(tied):
            payoff[s] = won // len(tied) + (1 if k < won % len(tied) else 0)
        return payoff, tied[0]


@dataclass
class _Count:
    """The count of an ended round (``RoundState`` phases ``score``, ``fuke``, ``settle``)."""

    reason: int
    yaku: list[int]
    cards: list[int]
    yaku_points: list[int]
    teyaku_points: list[int]
    yaku_multiplier: list[int]
    score: list[int]
    payoff: list[int]
    winner: int
    fuke: int = -1


YES_NO = (False, True)

_PHASES: dict[str, Callable[[RoundState], None]] = {
    "mizu_kotsu": RoundState._phase_mizu_kotsu,
    "deal": RoundState._phase_deal,
    "kotsu": RoundState._phase_kotsu,
    "dropout_start": RoundState._phase_dropout_start,
    "dropout_pass": RoundState._phase_dropout_pass,
    "dropout_ask": RoundState._phase_dropout_ask,
    "acting_dealer": RoundState._phase_acting_dealer,
    "teyaku_start": RoundState._phase_teyaku_start,
    "teyaku": RoundState._phase_teyaku,
    "turns_start": RoundState._phase_turns_start,
    "turn": RoundState._phase_turn,
    "after_play": RoundState._phase_after_play,
    "after_draw": RoundState._phase_after_draw,
    "score": RoundState._phase_score,
    "fuke": RoundState._phase_fuke,
    "settle": RoundState._phase_settle,
    "finish": RoundState._phase_finish,
}

_APPLY: dict[str, Callable[[RoundState, Decision, Any], None]] = {
    "mizu_kotsu": RoundState._apply_mizu_kotsu,
    "kotsu": RoundState._apply_kotsu,
    "join": RoundState._apply_join,
    "declare_teyaku": RoundState._apply_declare_teyaku,
    "play": RoundState._apply_play,
    "capture": RoundState._apply_capture,
    "fuke": RoundState._apply_fuke,
}



def _index_bits(options: list[TeyakuOption]) -> int:
    """The teyaku bitset of some options (two triplets of one hand share a bit)."""
    bits = 0
    for option in options:
        bits |= 1 << option.index
    return bits


def _best_option(options: list[TeyakuOption]) -> TeyakuOption:
    """The highest-valued option (ties: the first)."""
    best = options[0]
    for option in options[1:]:
        if option.value > best.value:
            best = option
    return best


def new_state(compiled: CompiledRules, setup: RoundSetup, *, deck: list[int] | None = None,
              redraw: list[int] | None = None, trace: bool = False,
              on_step: Callable[[RoundState], None] | None = None) -> RoundState:
    """The round of ``setup`` at its first decision (``RoundState`` may be replaced in tests).

    Parameters
    ----------
    compiled : the compiled rule set
    setup : the round's seed, index, dealer and match state
    deck : an explicit 48-card order (field, hands from the dealer in turn order, draw pile top
        first) instead of the deal stream's shuffle
    redraw : the draw pile's order after a dropout instead of the rules stream's shuffle
    trace : whether to record the trace events
    on_step : called with the state after every step that moves a card and at every pause
    """
    return RoundState(compiled, setup, deck=deck, redraw=redraw, trace=trace, on_step=on_step)


def play_round(compiled: CompiledRules, setup: RoundSetup, policies, *, deck: list[int] | None = None,
               redraw: list[int] | None = None, trace: bool = False,
               on_step: Callable[[Any], None] | None = None) -> RoundResult:
    """Play one round with policy objects (one per seat) already bound to their streams.

    ``deck`` replays an explicit 48-card order (field, hands from the dealer in turn order,
    draw pile top first); ``redraw`` gives the draw pile's order after a dropout instead of the
    shuffle; ``on_step(state)`` is called after every step that moves a card and at every
    decision (for invariant checks).  The round is played through ``RoundState``, each decision
    answered by ``ask_policy``.
    """
    state = play_through(new_state(compiled, setup, deck=deck, redraw=redraw, trace=trace, on_step=on_step),
                         policies, ask_policy)
    assert state.result is not None
    return state.result


def seat_policies(compiled: CompiledRules, specs, seed: int, round_index: int):
    """One policy per seat, each bound to its own stream of round ``round_index``."""
    return bind_policies(make_policy, LearnedPolicy, compiled, specs, seed, round_index, compiled.players)


def _match_contribution(compiled: CompiledRules, result: RoundResult) -> list[int]:
    """What a round adds to the match totals: payments (W, C), scores or round wins (S)."""
    if int(compiled.params[E.P_VARIANT]) == E.VARIANT_S and int(compiled.params[E.P_S_MATCH_SCORING]) == 1:
        return [int(result.winner == s) for s in range(result.players)]
    return list(result.payoff)


def play_unit(compiled: CompiledRules, specs, seed: int, unit: int, rounds_per_match: int | None,
              *, trace: bool = False) -> list[RoundResult]:
    """Play one unit of a run: a single independent round, or a whole match.

    ``rounds_per_match=None``: unit ``u`` is round ``u``, dealt by seat ``u % players``.
    Otherwise unit ``u`` is match ``u`` of ``rounds_per_match`` rounds with round indices
    ``u * rounds_per_match + k``, first dealt by seat ``u % players``; the next dealer is the
    round winner (``enshu.next_dealer = rotate``: the next seat), a voided round keeps its
    dealer.  Match points carry the payments (W, C) or the scores or round wins (S).
    """
    players = compiled.players
    if rounds_per_match is None:
        setup = RoundSetup(seed=seed, round_index=unit, match=unit, dealer=unit % players)
        result = play_round(compiled, setup, seat_policies(compiled, specs, seed, unit), trace=trace)
        result.match_points = _match_contribution(compiled, result)
        return [result]
    rotate = int(compiled.params[E.P_NEXT_DEALER]) == 1
    points = [0] * players
    dealer = unit % players
    results = []
    for k in range(rounds_per_match):
        round_index = unit * rounds_per_match + k
        setup = RoundSetup(seed=seed, round_index=round_index, match=unit, round_in_match=k,
                                dealer=dealer, match_points=tuple(points))
        result = play_round(compiled, setup, seat_policies(compiled, specs, seed, round_index), trace=trace)
        for s, add in enumerate(_match_contribution(compiled, result)):
            points[s] += add
        result.match_points = list(points)
        result.match_end = False
        results.append(result)
        if result.winner >= 0:
            dealer = (dealer + 1) % players if rotate else result.winner
    results[-1].match_end = True
    return results


def play_units(compiled: CompiledRules, specs, seed: int, first_unit: int, n_units: int,
               rounds_per_match: int | None,
               out: tuple[np.ndarray, np.ndarray] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Play units ``first_unit .. first_unit + n_units - 1`` into output matrices.

    Returns ``(ints, masks)``: column-major int64[N_INT_COLUMNS, n_units * stride] and
    uint64[N_MASK_COLUMNS, n_units * stride] (``stride`` = 1, or ``rounds_per_match``), every
    row valid (``C_VALID`` = 1); per-seat columns of seats beyond the player count are 0.
    ``out``: optional reusable flat buffers (``simcore.record.output_buffers``).
    """
    stride = 1 if rounds_per_match is None else rounds_per_match
    return units.play_units(LAYOUT, play_unit, stride, compiled, specs, seed, first_unit, n_units, rounds_per_match,
                            out)
