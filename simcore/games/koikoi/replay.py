"""Replay koi-koi: one round of a run (seed, round), an explicit deck and decisions, or a whole
match from a game record in KoiKoi-AI's format (``replay_record``, docs/koikoi.md#game-records).

Decisions (``--decisions FILE``) are a JSON list consumed in order as decisions arise, whoever
makes them: a play is the id of the hand card; a choice between two matching field cards is the
id of the field card taken; koi-koi or stop is ``"koikoi"`` or ``"stop"``. A seat's last card
is a forced play and consumes no decision (a list that writes it out is accepted too).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from simcore.cards import ids_of
from simcore.errors import DealError
from simcore.games.koikoi import enums as E
from simcore.games.koikoi.compile import CompiledRules
from simcore.games.koikoi.policies import Observation
from simcore.games.koikoi.records import Match, RecordRound, RecordTurn, card_text, parse_record
from simcore.games.koikoi.reference import (
    N_SEATS,
    RoundResult,
    RoundSetup,
    RoundState,
    match_over,
    next_dealer,
    play_round,
    play_unit,
    seat_policies,
)
from simcore.hanafuda import month_of
from simcore.policies import PolicySpec
from simcore.reference.replay import (
    ScriptedDecisions,
    ScriptedSeat,
    card_names,
    check_dealer,
    check_deck,
    deal_lines,
    event_lines,
    match_heading,
    play_deal,
    round_trace,
    run_replayer,
    yaku_fields,
)

__all__ = ["REDRAW", "RecordReplay", "dealing_order", "format_trace", "replay_deck", "replay_from_run", "replay_record",
           "trace_json"]

REDRAW = False  # a koi-koi deal never redraws its draw pile mid-round


class _ScriptedSeat(ScriptedSeat):
    """Koi-koi's decisions from a script, besides the play and the field card."""

    def choose_capture(self, obs: Observation, card: int, options: list[int]) -> int | None:
        return self.field_card(obs, card, options)

    def koikoi(self, obs: Observation) -> bool:
        what = f"seat {self.seat} calls koi-koi or stops, turn {obs.turn}"
        value = self.script.take(what)
        if value not in ("koikoi", "stop"):
            raise self.script.fail(what, value, 'expected "koikoi" or "stop"')
        return value == "koikoi"


def dealing_order(deck: list[int]) -> list[int]:
    """A ``--deck`` (the field first) in the engine's dealing order: the dealer's hand, the other
    hand, the field, then the draw pile (``reference``: the shuffle's places 0..47)."""
    field = E.FIELD_SIZE
    hands = field + 2 * E.HAND_SIZE
    return list(deck[field:hands]) + list(deck[:field]) + list(deck[hands:])


replay_from_run = run_replayer(play_unit)
"""The round ``round_index`` of a run, traced (a match is replayed from its start)."""


def replay_deck(compiled: CompiledRules, deck: list[int], decisions: list[Any] | None,
                specs: list[PolicySpec], seed: int = 0, dealer: int = 0) -> RoundResult:
    """Play an explicit deal (48 ids: the field, the dealer's hand, the other hand, the draw pile
    top first, the order of every game's ``--deck`` and of ``fudasim play``'s saved decks);
    decisions from the list, or from the seats' policies if None."""
    check_deck([int(card) for card in deck], E.DECK_SIZE)
    check_dealer(dealer, N_SEATS)
    script = None if decisions is None else ScriptedDecisions(decisions, compiled)
    result: RoundResult = play_deal(play_round, compiled, RoundSetup(seed=seed, round_index=0, dealer=dealer), N_SEATS,
                                    lambda: seat_policies(compiled, specs, seed, 0), script,
                                    _ScriptedSeat, deck=dealing_order(deck))
    return result


def trace_json(compiled: CompiledRules, result: RoundResult) -> dict[str, Any]:
    """The machine-readable trace of ``fudasim replay --json``."""
    rules = compiled.rules

    def seat(s: int) -> dict[str, Any]:
        return {**yaku_fields(rules, result.yaku[s]),
                "yaku_points": result.yaku_points[s], "koikoi": result.koikoi[s]}

    head = {"exhausted": result.exhausted, "last_koikoi": result.last_koikoi}
    return round_trace("koikoi", rules, result, N_SEATS, E.END_REASONS, head, seat)

def format_trace(compiled: CompiledRules, result: RoundResult, names: tuple[str, str] = ("seat 0", "seat 1"),
                 heading: str | None = None) -> str:
    """A readable account of a traced round: the deal, every play and draw, yaku, koi-koi calls,
    the scoring; ``names`` are what the seats are called."""
    rules = compiled.rules
    cards = card_names(rules)

    def who(event: dict[str, Any]) -> str:
        return names[event["seat"]]

    def stop(event: dict[str, Any]) -> str:
        forced = " (the rules allow no koi-koi here)" if event["forced"] else ""
        return f"         {who(event)} stops{forced}"

    lines = [heading or match_heading(rules, result, names[result.dealer]), *event_lines(result.events, {
        "redeal": lambda event: f"Redeal: {event['reason']}",
        "deal": lambda event: [f"Field:  {cards(event['field'])}",
                               *deal_lines(event, lambda s: names[s].capitalize(), cards), ""],
        "dealt_yaku": lambda event: f"{who(event).capitalize()} was dealt {event['english']}",
        "yaku": lambda event: f"         {who(event)} makes {event['english']} ({event['name']})",
        "koikoi": lambda event: f"         {who(event)} calls koi-koi ({event['calls']})",
        "stop": stop,
    }, lambda s: names[s], cards)]
    lines.append("")
    for seat in range(N_SEATS):
        names_of = ", ".join(rules.yaku[i].english for i in ids_of(result.yaku[seat])) or "none"
        lines.append(f"{names[seat].capitalize()}: {len(ids_of(result.captured[seat]))} cards captured; yaku: "
                     f"{names_of} ({result.yaku_points[seat]} points); koi-koi calls {result.koikoi[seat]}")
    reason = E.END_REASONS[result.end_reason]
    payoff = ", ".join(f"{names[s]} {result.payoff[s]:+d}" for s in range(N_SEATS))
    if result.winner < 0:
        lines.append(f"Result: nobody wins ({reason}, turn {result.end_turn}); {payoff}.")
    else:
        lines.append(f"Result: {names[result.winner]} wins ({reason}, turn {result.end_turn}); {payoff}.")
    return "\n".join(lines)


# --- game records ---------------------------------------------------------------------------------


class _Divergence(Exception):
    """The record and the rules part ways (``RecordReplay.divergence`` says where)."""

    def __init__(self, round_number: int, turn: int, message: str) -> None:
        super().__init__(f"round {round_number}, turn {turn}: {message}")


@dataclass
class RecordReplay:
    """A game record replayed: each round's result (record numbering: player ``p`` is seat
    ``p - 1``), the match points, and the first divergence from the rules (None: none)."""

    rules: str
    start_points: list[int]
    rounds: list[tuple[RecordRound, RoundResult, list[int]]] = field(default_factory=list)
    final_points: list[int] = field(default_factory=list)
    divergence: str | None = None

    @property
    def winner(self) -> int:
        """The match's winner by the points reached: 1, 2, or 0 for equal points."""
        first, second = self.final_points
        return 1 if first > second else (2 if second > first else 0)

    def json(self, compiled: CompiledRules) -> dict[str, Any]:
        """``{"rounds": [...], "final_points": [...], "winner": ...}`` (and ``divergence`` when
        the record parts from the rules), in the record's player numbering."""
        rules = compiled.rules
        rounds = []
        for recorded, result, _ in self.rounds:
            rounds.append({
                "round": recorded.number,
                "dealer": recorded.dealer,
                "winner": 0 if result.exhausted or result.winner < 0 else result.winner + 1,
                "points": list(result.payoff),
                "yaku": [[rules.yaku[i].english for i in ids_of(result.yaku[s])] for s in range(N_SEATS)],
            })
        out: dict[str, Any] = {"rounds": rounds, "final_points": list(self.final_points), "winner": self.winner}
        if self.divergence is not None:
            out["divergence"] = self.divergence
        return out

    def text(self, compiled: CompiledRules) -> str:
        """Each round step by step, the match points after it, then the match's result."""
        blocks = []
        names = ("player 1", "player 2")
        for recorded, result, points in self.rounds:
            heading = (f"{compiled.rules.title}: round {recorded.number} of the record, dealer "
                       f"player {recorded.dealer}")
            blocks.append(format_trace(compiled, result, names, heading)
                          + f"\nMatch points: player 1 {points[0]}, player 2 {points[1]}")
        first, second = self.final_points
        if self.divergence is None:
            outcome = {0: "a draw", 1: "player 1 wins", 2: "player 2 wins"}[self.winner]
            blocks.append(f"Match over after {len(self.rounds)} rounds: player 1 {first}, player 2 {second} "
                          f"({outcome}). Every move and result of the record agrees with {self.rules}.")
        else:
            blocks.append(f"The record parts from {self.rules}: {self.divergence}")
        return "\n\n".join(blocks)


def replay_record(compiled: CompiledRules, text: str, source: str) -> RecordReplay:
    """Replay a game record move by move under ``compiled``'s rules.

    The match starts from the record's starting points and length (``info``), else the rules'.
    Every card played must be in the hand, every capture must be the one the rules make (or, of
    two field cards, one of them), every drawn card the stock's next, a koi-koi decision must be
    recorded exactly where the rules ask one, and every recorded round result, dealer and match
    result must be reproduced; the first that is not ends the replay, as ``divergence``.
    ``RecordError`` if the record cannot be read.
    """
    match = parse_record(text, source)
    start = match.start_points or (compiled.param(E.P_START_POINTS),) * 2
    replay = RecordReplay(rules=compiled.rules.name, start_points=list(start), final_points=list(start))
    try:
        _replay_match(compiled, match, replay)
    except _Divergence as divergence:
        replay.divergence = str(divergence)
    return replay


def _replay_match(compiled: CompiledRules, match: Match, replay: RecordReplay) -> None:
    planned = match.rounds_planned or compiled.param(E.P_ROUNDS)
    points = list(replay.start_points)
    dealer = -1
    for recorded in match.rounds:
        number = recorded.number
        if number > planned:
            raise _Divergence(number, 0, f"the match has {planned} rounds, but the record goes on")
        if match_over(compiled, points):
            raise _Divergence(number, 0, f"the match is over after round {number - 1} (player 1 {points[0]}, "
                                         f"player 2 {points[1]}), but the record goes on")
        if dealer >= 0 and recorded.dealer != dealer + 1:
            raise _Divergence(number, 0, f"player {recorded.dealer} deals, but the rules give the deal to "
                                         f"player {dealer + 1}")
        result = _replay_round(compiled, recorded, points)
        points = [points[s] + result.payoff[s] for s in range(N_SEATS)]
        replay.rounds.append((recorded, result, list(points)))
        replay.final_points = list(points)
        dealer = next_dealer(compiled, recorded.dealer - 1, result.winner)
    last = match.rounds[-1].number
    if match.over and last < planned and not match_over(compiled, points):
        raise _Divergence(last, match.rounds[-1].turns[-1].number if match.rounds[-1].turns else 0,
                          f"the record ends the match after round {last}, but the rules play {planned} rounds "
                          f"unless a seat has 0 points or fewer (player 1 {points[0]}, player 2 {points[1]})")
    if match.end_points is not None and list(match.end_points) != points:
        raise _Divergence(last, 0, f"the match ends with player 1 {points[0]} and player 2 {points[1]}, but the "
                                   f"record says {match.end_points[0]} and {match.end_points[1]}")
    if match.winner is not None and match.winner != replay.winner:
        raise _Divergence(last, 0, f"the match's winner is {replay.winner} (0: a draw), but the record says "
                                   f"{match.winner}")


def _replay_round(compiled: CompiledRules, recorded: RecordRound, points: list[int]) -> RoundResult:
    number = recorded.number
    dealer = recorded.dealer - 1
    deck = list(recorded.hands[dealer] + recorded.hands[1 - dealer] + recorded.field) + list(reversed(recorded.pile))
    setup = RoundSetup(seed=0, round_index=number - 1, round_in_match=number - 1, dealer=dealer,
                       match_points=tuple(points))
    try:
        state = RoundState(compiled, setup, deck=deck, trace=True)
    except DealError as error:
        raise _Divergence(number, 0, str(error)) from None
    for turn in recorded.turns:
        _replay_turn(compiled, state, number, turn)
    result = state.result
    if result is None:
        at = recorded.turns[-1].number if recorded.turns else 0
        raise _Divergence(number, at, f"the record's round ends here, but under the rules it goes on "
                                      f"(nobody stopped, {E.TURNS} turns not played)")
    winner = 0 if result.exhausted or result.winner < 0 else result.winner + 1
    if recorded.winner is not None and recorded.winner != winner:
        raise _Divergence(number, result.end_turn, f"the round's winner is {winner} (0: exhausted or nobody), "
                                                   f"but the record says {recorded.winner}")
    if recorded.points is not None and list(recorded.points) != list(result.payoff):
        raise _Divergence(number, result.end_turn, f"the round scores player 1 {result.payoff[0]:+d} and player 2 "
                                                   f"{result.payoff[1]:+d}, but the record says "
                                                   f"{recorded.points[0]:+d} and {recorded.points[1]:+d}")
    return result


def _label(compiled: CompiledRules, card: int) -> str:
    return f"{compiled.rules.card_label(card)} {card_text(card)}"


def _replay_turn(compiled: CompiledRules, state: RoundState, number: int, turn: RecordTurn) -> None:
    t = turn.number
    player = turn.player
    decision = state.decision()
    if decision is None:
        assert state.result is not None
        raise _Divergence(number, t, f"the round is over ({E.END_REASONS[state.result.end_reason]} at turn "
                                     f"{state.result.end_turn}), but the record goes on")
    if decision.seat != player - 1 or state.turn != t:
        raise _Divergence(number, t, f"player {player} plays, but the rules have player {decision.seat + 1} play "
                                     f"turn {state.turn}")
    if turn.played not in decision.actions:
        raise _Divergence(number, t, f"player {player} plays {_label(compiled, turn.played)}, which is not in "
                                     f"its hand")
    stock_next = state.draw[0]
    state.apply(turn.played)
    _check_capture(compiled, state, number, turn, "play", turn.played, turn.collected)
    if turn.drawn != stock_next:
        raise _Divergence(number, t, f"player {player} draws {_label(compiled, turn.drawn)}, but the stock's next "
                                     f"card is {_label(compiled, stock_next)}")
    _check_capture(compiled, state, number, turn, "draw", turn.drawn, turn.collected_drawn)
    pending = state.decision()
    if pending is not None and pending.kind == "koikoi":
        if turn.koikoi is None:
            raise _Divergence(number, t, f"player {player}'s yaku rose to {pending.info['points']} points: a "
                                         "koi-koi decision is due, but the record has none")
        state.apply(turn.koikoi)
        return
    result = state.result
    forced = result is not None and result.end_reason == E.END_FORCED_STOP and result.end_turn == t
    if turn.koikoi is True or (turn.koikoi is False and not forced):
        call = "koi-koi" if turn.koikoi else "stop"
        why = "the rules stop the round here" if forced else "its yaku did not rise"
        raise _Divergence(number, t, f"player {player} calls {call} where no koi-koi decision is due ({why})")
    if turn.koikoi is None and forced:
        raise _Divergence(number, t, f"player {player}'s yaku rose on its last turn, which stops the round, but "
                                     "the record has no stop (isKoiKoi false)")


def _check_capture(compiled: CompiledRules, state: RoundState, number: int, turn: RecordTurn, source: str,
                   card: int, recorded: tuple[int, ...]) -> None:
    """The capture of the played or drawn ``card``: the recorded choice of two field cards is
    applied; otherwise the engine's capture must be the recorded one."""
    what = "played" if source == "play" else "drawn"
    where = f"player {turn.player}'s {what} card {_label(compiled, card)}"
    stray = [x for x in recorded[1:] if month_of(x) != month_of(card)]
    if stray or (recorded and recorded[0] != card):
        if recorded and recorded[0] != card:
            problem = f"the record's capture starts with {_label(compiled, recorded[0])}, not the card itself"
        else:
            problem = f"it takes {_label(compiled, stray[0])}, a card of another month"
        raise _Divergence(number, turn.number, f"{where}: {problem}")
    pending = state.decision()
    if pending is not None and pending.kind == "capture" and pending.info["card"] == card:
        chosen = recorded[1] if len(recorded) == 2 else -1
        if chosen < 0 or (1 << chosen) not in pending.actions:
            options = " or ".join(_label(compiled, ids_of(o)[0]) for o in pending.actions)
            taken = ", ".join(_label(compiled, x) for x in recorded[1:]) or "nothing"
            raise _Divergence(number, turn.number, f"{where} must take one of {options}, but the record has it "
                                                   f"take {taken}")
        state.apply(1 << chosen)
        return
    event = next(e for e in reversed(state.events) if e["type"] == source)
    if sorted(event["captured"]) != sorted(recorded):
        taken = ", ".join(_label(compiled, x) for x in recorded[1:]) or "nothing"
        rules_take = ", ".join(_label(compiled, x) for x in event["captured"][1:]) or "nothing (it joins the field)"
        raise _Divergence(number, turn.number, f"{where} takes {taken} in the record, but {rules_take} under the "
                                               "rules")
