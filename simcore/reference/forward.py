"""The forward model every game's reference engine offers: a round as a state one steps through.

A game's round ``State`` is paused at each decision a player takes (``decision()``: who decides
what, among which ``legal_actions()``), moves on with ``apply(action)`` through every step the rules
take by themselves (deals, forced captures, scoring) to the next decision, and ends in a terminal
state whose ``returns()`` are the seats' payoffs. ``clone()`` copies a state; ``sample_hidden(seat,
stream)`` copies it with the cards ``seat`` cannot see dealt anew, uniformly among the deals
consistent with what that seat has seen (guarantee 6 of docs/guarantees.md), so a search player can
play a position forward in worlds it cannot tell apart from the real one.

The reference engines play every round through their ``State`` (``play_through``), asking each
seat's policy object at each decision, so every parity test exercises the forward model.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar, runtime_checkable

from simcore.cards import ids_of
from simcore.rng import Stream, seat_stream

__all__ = ["REFERENCE_NAMES", "BaseRoundResult", "BaseRoundSetup", "Decision", "PausedRound", "State", "TracedRound",
           "bind_policies", "play_through", "watch"]

REFERENCE_NAMES = ("RoundResult", "RoundSetup", "RoundState", "new_state", "seat_policies", "play_round", "play_unit",
                   "play_units")
"""What every game's ``reference`` module defines (docs/architecture.md, "Adding a game"), the start
of its ``__all__``: its round's result, setup and paused state, the state at a round's first
decision, the seats' policy objects, and a round, a unit (a match, or one round) and a span of
units played through."""


@dataclass(kw_only=True)
class BaseRoundSetup:
    """Who deals a round, and the match state it starts from (a game's ``RoundSetup`` may add
    fields of its own)."""

    seed: int
    round_index: int
    match: int = 0
    round_in_match: int = 0
    dealer: int = 0
    match_points: tuple[int, ...] = ()


@dataclass(kw_only=True)
class BaseRoundResult:
    """What every game's dataset records of a round (per-seat lists have one entry a seat); a
    game's ``RoundResult`` adds its own columns. Built by keyword."""

    round_index: int
    match: int
    round_in_match: int
    dealer: int
    first_player: int
    winner: int
    end_reason: int
    end_turn: int
    redeals: int
    field_dealt: int
    hand_dealt: list[int]
    captured: list[int]
    yaku: list[int]
    yaku_points: list[int]
    card_points: list[int]
    score: list[int]
    payoff: list[int]
    match_points: list[int] = field(default_factory=list)
    match_end: bool = True
    events: list[dict[str, Any]] = field(default_factory=list)


@dataclass(frozen=True)
class Decision:
    """One decision a seat takes: its kind, the seat, the legal actions in a fixed order.

    ``info`` holds what the policy call for this kind needs besides the observation (for
    example the rank of an opening claim, or the card a capture choice is made with).
    """

    kind: str
    seat: int
    actions: tuple[Any, ...]
    info: dict[str, Any] = field(default_factory=dict)


@runtime_checkable
class State(Protocol):
    """A round of a game, paused at a decision or ended."""

    def clone(self) -> State:
        """An independent copy: applying actions to it leaves this state unchanged."""
        ...

    def decision(self) -> Decision | None:
        """The pending decision, or None once the round is over."""
        ...

    def card_places(self) -> dict[str, int]:
        """Every place a card can be (hands, field, piles, draw pile, ...) as masks: all empty
        before the deal, afterwards disjoint and together the whole deck."""
        ...

    def current_seat(self) -> int:
        """The seat that decides next (-1 once the round is over)."""
        ...

    def legal_actions(self) -> list[Any]:
        """The actions of the pending decision, in the order the policies index them."""
        ...

    def apply(self, action: Any) -> None:
        """Take ``action`` for the pending decision and step on to the next one (or the end)."""
        ...

    def is_terminal(self) -> bool:
        """Whether the round is over."""
        ...

    def returns(self) -> list[float]:
        """Each seat's payoff for the round (only once it is over)."""
        ...

    def observation(self, seat: int | None = None) -> Any:
        """What ``seat`` (by default the deciding seat) may see."""
        ...

    def sample_hidden(self, seat: int, stream: Any) -> State:
        """A copy with the cards ``seat`` cannot see dealt anew from ``stream`` (a ``Stream``)."""
        ...


PausedT = TypeVar("PausedT", bound="PausedRound")


class PausedRound:
    """The parts of ``State`` every game's round shares: a round that keeps its pending
    ``Decision`` in ``pending``, its result (with a ``payoff`` per seat) in ``result`` once over,
    and makes a seat's observation with ``observe(seat)``."""

    pending: Decision | None
    result: Any
    # What ``clone`` copies, by attribute name: lists (one level), lists of lists, streams
    # (``simcore.rng.Stream`` or None) and anything else mutable (deep copies). Every other
    # attribute is immutable, or shared between clones on purpose.
    cloned_lists: tuple[str, ...] = ()
    cloned_nested_lists: tuple[str, ...] = ()
    cloned_streams: tuple[str, ...] = ()
    cloned_deep: tuple[str, ...] = ()

    def clone(self: PausedT) -> PausedT:
        """An independent copy: applying actions to it leaves this state unchanged."""
        other = copy.copy(self)
        for name in self.cloned_lists:
            setattr(other, name, list(getattr(self, name)))
        for name in self.cloned_nested_lists:
            setattr(other, name, [list(item) for item in getattr(self, name)])
        for name in self.cloned_streams:
            stream = getattr(self, name)
            setattr(other, name, None if stream is None else stream.copy())
        for name in self.cloned_deep:
            setattr(other, name, copy.deepcopy(getattr(self, name)))
        return other

    def observe(self, seat: int) -> Any:  # pragma: no cover - every game defines it
        """The observation of ``seat`` (each game's own)."""
        raise NotImplementedError

    def decision(self) -> Decision | None:
        """The pending decision, or None once the round is over."""
        return self.pending

    def take_pending(self, action: Any, *, check: bool = False) -> Decision:
        """The pending decision, which ``action`` now answers, cleared (a game's ``apply`` starts
        here); with ``check``, an action not among the decision's is refused first."""
        decision = self.pending
        if decision is None:
            raise ValueError("the round is over: no decision to apply an action to")
        if check and action not in decision.actions:
            raise ValueError(f"{action!r} is not one of the {decision.kind} actions {decision.actions}")
        self.pending = None
        return decision

    def current_seat(self) -> int:
        """The seat that decides next (-1 once the round is over)."""
        return -1 if self.pending is None else self.pending.seat

    def legal_actions(self) -> list[Any]:
        """The actions of the pending decision, in the order the policies index them."""
        return [] if self.pending is None else list(self.pending.actions)

    def is_terminal(self) -> bool:
        """Whether the round is over."""
        return self.result is not None

    def returns(self) -> list[float]:
        """Each seat's payoff for the round (its result's ``payoff``)."""
        if self.result is None:
            raise ValueError("the round is not over: it has no returns yet")
        return [float(p) for p in self.result.payoff]

    def observation(self, seat: int | None = None) -> Any:
        """What ``seat`` (by default the deciding seat) may see: ``observe(seat)``."""
        return self.observe(self.current_seat() if seat is None else seat)


class TracedRound:
    """A round that records what happens, as events, when ``trace`` is set (``fudasim replay``):
    ``emit`` one event, ``trace_new_yaku`` the yaku a seat's pile has completed since it last
    said so."""

    trace: bool
    events: list[dict[str, Any]]
    known_yaku: list[int]  # the yaku ids each seat's pile had completed when last traced, a bit set
    turn: int
    rules: Any

    def emit(self, event_type: str, /, **data: Any) -> None:
        """Record a trace event (only when tracing)."""
        if self.trace:
            self.events.append({"type": event_type, **data})

    def trace_new_yaku(self, seat: int, completed: int, worth: Callable[[Any], dict[str, Any]]) -> None:
        """Trace each yaku of ``completed`` (``seat``'s, now: a bit set of yaku ids) not traced
        before, with what ``worth(yaku)`` adds to its event."""
        for i in ids_of(completed & ~self.known_yaku[seat]):
            yaku = self.rules.yaku[i]
            self.emit("yaku", seat=seat, turn=self.turn, yaku=yaku.key, name=yaku.name, english=yaku.english,
                      **worth(yaku))
        self.known_yaku[seat] = completed


StateT = TypeVar("StateT", bound=State)


def play_through(state: StateT, policies: Sequence[Any],
                 ask: Callable[[Any, StateT, Decision], Any]) -> StateT:
    """Play ``state`` to the end, each decision answered by ``ask(policies[seat], state, decision)``
    (and every policy told of it, ``watch``)."""
    while True:
        decision = state.decision()
        if decision is None:
            return state
        action = ask(policies[decision.seat], state, decision)
        watch(policies, state, decision, action)
        state.apply(action)


def watch(policies: Sequence[Any], state: State, decision: Decision, action: Any) -> None:
    """Tell each policy that watches the round's play (a search player's inference,
    ``simcore.search``) of ``action`` taken at ``decision`` of ``state``, before it is applied."""
    for policy in policies:
        seen = getattr(policy, "watch", None)
        if seen is not None:
            seen(state, decision, action)


def bind_policies(make_policy: Any, learned_policy: Any, compiled: Any, specs: Sequence[Any], seed: int,
                  round_index: int, seats: int) -> list[Any]:
    """Each of the ``seats`` seats' policy objects for round ``round_index`` of a run with
    ``seed``, each drawing from its own stream of the round: the game's ``make_policy(spec,
    compiled, stream)``, or its learned player's class for a ``learned`` seat."""
    if len(specs) != seats:
        raise ValueError(f"{seats} players need {seats} policies, got {len(specs)}")
    return [(learned_policy if spec.name == "learned" else make_policy)(spec, compiled,
                                                                      Stream(seed, round_index, seat_stream(s)))
            for s, spec in enumerate(specs)]
