"""Replay one Tensho round: from a run (seed, round) or from an explicit deck and decisions.

Decisions (``--decisions FILE``) are a JSON list consumed in order as decisions arise, whoever
makes them:

* a play: the id of the hand card;
* a choice between matching field cards: the id of the field card taken (for a three-card
  capture under ``tensho.triple_match = all``, any of the three), or ``"decline"`` to leave the
  played card on the field (only with ``tensho.capture_mandatory = false``);
* an opening claim: a list of the two ids taken, or ``"decline"``;
* the yaku set (``tensho.yaku_set_choice = dealer_policy``): 1 or 2;
* banking the 6 of clubs (``tensho.six_in_hand = bank_at_deal``): ``"bank"`` or ``"keep"``.

A forced move (one legal option: a seat's last card, a card matching a single field card)
consumes no decision.  A list that writes out each seat's last card anyway is accepted too
(that entry cannot be mistaken for the next decision).
"""

from __future__ import annotations

from typing import Any

from simcore.cards import ids_of
from simcore.games.tensho import enums as E
from simcore.games.tensho.compile import CompiledRules
from simcore.games.tensho.policies import Observation
from simcore.games.tensho.reference import (
    N_SEATS,
    RoundResult,
    RoundSetup,
    play_round,
    play_unit,
    seat_policies,
    unit_layout,
)
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

__all__ = ["REDRAW", "format_trace", "replay_deck", "replay_from_run", "trace_json"]

# Whether ``replay --deck`` takes a draw pile redrawn mid-round (``--redraw``): never in Tensho.
REDRAW = False


class _ScriptedSeat(ScriptedSeat):
    """Tensho's decisions from a script, besides the play and the field card."""

    def choose_yaku_set(self, obs: Observation) -> int:
        what = f"seat {self.seat} chooses the yaku set"
        value = self.script.take(what)
        if value not in (1, 2) or isinstance(value, bool):
            raise self.script.fail(what, value, "expected 1 or 2")
        return value

    def opening_claim(self, obs: Observation, rank: int, pairs: list[tuple[int, int]]):
        what = f"seat {self.seat} opening claim on the rank-{rank} field cards {sorted({x for p in pairs for x in p})}"
        value = self.script.take(what)
        if value == "decline":
            return None
        if not isinstance(value, list) or len(value) != 2 or not all(
            isinstance(x, int) and not isinstance(x, bool) for x in value
        ):
            raise self.script.fail(what, value, 'expected two card ids or "decline"')
        pair = tuple(sorted(value))
        if pair not in pairs:
            raise self.script.fail(what, value, f"not two of the field cards {sorted({x for p in pairs for x in p})}")
        return pair

    def bank_six(self, obs: Observation) -> bool:
        what = f"seat {self.seat} banks the 6 of clubs or keeps it"
        value = self.script.take(what)
        if value not in ("bank", "keep"):
            raise self.script.fail(what, value, 'expected "bank" or "keep"')
        return value == "bank"

    def choose_capture(self, obs: Observation, card: int, options: list[int], allow_decline: bool):
        return self.field_card(obs, card, options, allow_decline)


replay_from_run = run_replayer(play_unit, unit_layout)
"""The round ``round_index`` of a run, traced (a match is replayed from its start)."""


def replay_deck(compiled: CompiledRules, deck: list[int], decisions: list[Any] | None,
                specs: list[PolicySpec], seed: int = 0, dealer: int = 0) -> RoundResult:
    """Play an explicit deal; decisions from the list, or from the seats' policies if None."""
    check_deck([int(card) for card in deck])
    check_dealer(dealer, N_SEATS)
    script = None if decisions is None else ScriptedDecisions(decisions, compiled)
    result: RoundResult = play_deal(play_round, compiled, RoundSetup(seed=seed, round_index=0, dealer=dealer), N_SEATS,
                                    lambda: seat_policies(compiled, specs, seed, 0), script,
                                    _ScriptedSeat, deck=deck)
    return result


def trace_json(compiled: CompiledRules, result: RoundResult) -> dict[str, Any]:
    """The machine-readable trace of ``fudasim replay --json``."""
    rules = compiled.rules

    def seat(s: int) -> dict[str, Any]:
        return {**yaku_fields(rules, result.yaku[s]),
                "yaku_romaji": [rules.yaku[i].name for i in ids_of(result.yaku[s])], "yaku_points": result.yaku_points[s],
                "chaff": result.chaff[s], "card_points": result.card_points[s]}

    head = {"first_player": result.first_player, "yaku_set": result.yaku_set,
            "opening_claim": ids_of(result.opening_claim)}
    return round_trace("tensho", rules, result, N_SEATS, E.END_REASONS, head, seat)

SET_NAMES = {1: 'Set 1 "Seven Parts" (shichi-bu yaku)', 2: 'Set 2 "Half" (han yaku)'}


def format_trace(compiled: CompiledRules, result: RoundResult) -> str:
    """A readable account of a traced round: the deal, every play and draw, yaku, the scoring."""
    rules = compiled.rules
    cards = card_names(rules)

    def deal(event: dict[str, Any]) -> list[str]:
        return [f"Field:              {cards(event['field'])}", *deal_lines(event, lambda s: f"Seat {s}", cards),
                f"Dead cards:         {cards(event['dead'])}", ""]

    def completes(event: dict[str, Any]) -> str:
        worth = "INSTANT WIN" if event["instant"] else f"{event['points']} points"
        return f"         seat {event['seat']} completes {event['english']} ({event['name']}): {worth}"

    lines = [match_heading(rules, result, f"seat {result.dealer}"), *event_lines(result.events, {
        "yaku_set": lambda event: f"Yaku set: {SET_NAMES[event['set']]} ({event['how']})",
        "redeal": lambda event: f"Redeal: {event['reason']} ({cards(event['field'])})",
        "deal": deal,
        "six_to_dealer": lambda event: (f"The dealer (seat {event['seat']}) takes {cards([event['card']])} "
                                        "from the field"),
        "opening_claim": lambda event: (f"Opening: the dealer (seat {event['seat']}) takes {cards(event['cards'])} "
                                        f"from the rank-{event['rank']} field triple and will play second"),
        "opening_decline": lambda event: (f"Opening: the dealer (seat {event['seat']}) leaves the "
                                          f"rank-{event['rank']} triple"),
        "bank_six": lambda event: f"Seat {event['seat']} banks the 6 of clubs",
        "keep_six": lambda event: f"Seat {event['seat']} keeps the 6 of clubs",
        "yaku": completes,
        "instant_win": lambda event: f"Seat {event['seat']} wins at once with an instant-win yaku (turn {event['turn']}).",
    }, lambda s: f"seat {s}", cards)]
    lines.append("")
    for seat in range(N_SEATS):
        yaku = [rules.yaku[i] for i in ids_of(result.yaku[seat])]
        names = ", ".join(f"{y.english} ({'instant' if y.is_instant(result.yaku_set) else y.points(result.yaku_set)})"
                          for y in yaku) or "none"
        lines.append(f"Seat {seat}: {len(ids_of(result.captured[seat]))} cards captured; yaku: {names}")
        lines.append(f"        yaku points {result.yaku_points[seat]}, chaff {result.chaff[seat]}, "
                     f"card points {result.card_points[seat]}")
    reason = E.END_REASONS[result.end_reason]
    why = {
        "yaku": "more yaku points",
        "chaff": "equal yaku points, more chaff cards",
        "card_value": "equal yaku points and chaff, higher card values",
        "instant_win": "an instant-win yaku",
        "final_tie_rule": "a tie on every count, settled by tensho.final_tie",
        "draw": "a tie on every count",
    }[reason]
    if result.winner < 0:
        lines.append(f"Result: drawn round ({why}); the dealer keeps the deal.")
    else:
        lines.append(f"Result: seat {result.winner} wins on {why} (end reason {reason}, turn {result.end_turn}).")
    return "\n".join(lines)
