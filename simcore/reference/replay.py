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

A forced move (one legal option) consumes no decision.
"""

from __future__ import annotations

from typing import Any

from simcore.cards import ids_of
from simcore.kernels import enums as E
from simcore.policies import PolicySpec, TenshoObservation
from simcore.reference.tensho import (
    N_SEATS,
    DealError,
    RoundResult,
    RoundSetup,
    _seat_policies,
    play_round,
    play_unit,
)
from simcore.rules.compile import CompiledTensho

__all__ = ["DecisionError", "ScriptedDecisions", "replay_from_run", "replay_deck", "parse_deck", "trace_json"]


class DecisionError(ValueError):
    """A scripted decision is missing or illegal; the message names the step."""


class ScriptedDecisions:
    """A shared queue of decisions; ``seat_view(seat)`` gives each seat a policy over it."""

    def __init__(self, decisions: list[Any], compiled: CompiledTensho) -> None:
        if not isinstance(decisions, list):
            raise DecisionError("decisions must be a JSON list")
        self.decisions = decisions
        self.position = 0
        self.compiled = compiled

    def seat_view(self, seat: int) -> _ScriptedSeat:
        return _ScriptedSeat(self, seat)

    def take(self, what: str) -> Any:
        if self.position >= len(self.decisions):
            raise DecisionError(f"decision {self.position + 1} ({what}) is missing: the list has "
                                f"only {len(self.decisions)} decisions")
        value = self.decisions[self.position]
        self.position += 1
        return value

    def fail(self, what: str, value: Any, why: str) -> DecisionError:
        return DecisionError(f"decision {self.position} ({what}): {value!r} is illegal: {why}")

    def check_all_used(self) -> None:
        if self.position != len(self.decisions):
            extra = len(self.decisions) - self.position
            raise DecisionError(f"{extra} decision(s) left unused after the round ended "
                                f"(first unused: decision {self.position + 1}, {self.decisions[self.position]!r})")


class _ScriptedSeat:
    name = "scripted"

    def __init__(self, script: ScriptedDecisions, seat: int) -> None:
        self.script = script
        self.seat = seat

    def _card(self, value: Any, what: str) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.script.fail(what, value, "expected a card id")
        return value

    def choose_yaku_set(self, obs: TenshoObservation) -> int:
        what = f"seat {self.seat} chooses the yaku set"
        value = self.script.take(what)
        if value not in (1, 2) or isinstance(value, bool):
            raise self.script.fail(what, value, "expected 1 or 2")
        return value

    def opening_claim(self, obs: TenshoObservation, rank: int, pairs: list[tuple[int, int]]):
        what = f"seat {self.seat} opening claim on the rank-{rank} field cards {ids_of(obs.field & sum(1 << x for p in pairs for x in p))}"
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

    def bank_six(self, obs: TenshoObservation) -> bool:
        what = f"seat {self.seat} banks the 6 of clubs or keeps it"
        value = self.script.take(what)
        if value not in ("bank", "keep"):
            raise self.script.fail(what, value, 'expected "bank" or "keep"')
        return value == "bank"

    def play(self, obs: TenshoObservation) -> int:
        what = f"seat {self.seat} plays a card, turn {obs.turn}"
        card = self._card(self.script.take(what), what)
        if not (0 <= card < 64 and (obs.hand >> card) & 1):
            raise self.script.fail(what, card, f"not in the hand {ids_of(obs.hand)}")
        return card

    def choose_capture(self, obs: TenshoObservation, card: int, options: list[int], allow_decline: bool):
        what = f"seat {self.seat} chooses the field card taken with card {card}, turn {obs.turn}"
        value = self.script.take(what)
        if value == "decline":
            if not allow_decline:
                raise self.script.fail(what, value, "capturing is mandatory")
            return None
        chosen = self._card(value, what)
        for option in options:
            if 0 <= chosen < 64 and (option >> chosen) & 1:
                return option
        legal = sorted({x for option in options for x in ids_of(option)})
        raise self.script.fail(what, value, f"not one of the matching field cards {legal}")


def parse_deck(text: str, deck_size: int = 45) -> list[int]:
    """Parse a comma-separated deck; it must be a permutation of the deck's ids."""
    parts = [p.strip() for p in text.split(",") if p.strip()]
    ids = []
    for position, part in enumerate(parts):
        try:
            ids.append(int(part))
        except ValueError:
            raise DealError(f"--deck position {position}: {part!r} is not a card id") from None
    if len(ids) != deck_size:
        raise DealError(f"--deck has {len(ids)} card ids; a deal needs all {deck_size}")
    seen: dict[int, int] = {}
    for position, card in enumerate(ids):
        if not 0 <= card < deck_size:
            raise DealError(f"--deck position {position}: card id {card} is outside 0..{deck_size - 1}")
        if card in seen:
            raise DealError(f"--deck position {position}: card id {card} already at position {seen[card]}")
        seen[card] = position
    return ids


def replay_from_run(compiled: CompiledTensho, specs: list[PolicySpec], seed: int, round_index: int,
                    rounds_per_match: int | None = None) -> RoundResult:
    """The round ``round_index`` of a run, traced (matches are replayed from their start)."""
    if rounds_per_match is None:
        return play_unit(compiled, specs, seed, round_index, None, trace=True)[0]
    from simcore.reference.tensho import unit_layout

    stride = unit_layout(compiled, rounds_per_match)
    unit, k = divmod(round_index, stride)
    results = play_unit(compiled, specs, seed, unit, rounds_per_match, trace=True)
    if k >= len(results):
        raise DealError(f"round {round_index} was not played: match {unit} ended after {len(results)} rounds")
    return results[k]


def replay_deck(compiled: CompiledTensho, deck: list[int], decisions: list[Any] | None,
                specs: list[PolicySpec], seed: int = 0, dealer: int = 0) -> RoundResult:
    """Play an explicit deal; decisions from the list, or from the seats' policies if None."""
    setup = RoundSetup(seed=seed, round_index=0, dealer=dealer)
    if decisions is None:
        policies = _seat_policies(compiled, specs, seed, 0)
        return play_round(compiled, setup, policies, deck=deck, trace=True)
    script = ScriptedDecisions(decisions, compiled)
    policies = [script.seat_view(s) for s in range(N_SEATS)]
    result = play_round(compiled, setup, policies, deck=deck, trace=True)
    script.check_all_used()
    return result


def trace_json(compiled: CompiledTensho, result: RoundResult) -> dict[str, Any]:
    """The machine-readable trace of ``fudasim replay --json``."""
    rules = compiled.rules
    seats = []
    for s in range(N_SEATS):
        seats.append({
            "seat": s,
            "hand_dealt": ids_of(result.hand_dealt[s]),
            "captured": ids_of(result.captured[s]),
            "yaku": [rules.yaku[i].key for i in ids_of(result.yaku[s])],
            "yaku_names": [rules.yaku[i].name for i in ids_of(result.yaku[s])],
            "yaku_points": result.yaku_points[s],
            "chaff": result.chaff[s],
            "card_points": result.card_points[s],
            "score": result.score[s],
            "payoff": result.payoff[s],
        })
    return {
        "game": "tensho",
        "rules": rules.name,
        "round": result.round_index,
        "match": result.match,
        "dealer": result.dealer,
        "first_player": result.first_player,
        "yaku_set": result.yaku_set,
        "winner": result.winner,
        "end_reason": E.END_REASONS[result.end_reason],
        "end_turn": result.end_turn,
        "redeals": result.redeals,
        "field_dealt": ids_of(result.field_dealt),
        "opening_claim": ids_of(result.opening_claim),
        "seats": seats,
        "events": result.events,
    }
