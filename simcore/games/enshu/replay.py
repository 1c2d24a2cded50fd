"""Replay one Enshu-bana round: from a run (seed, round) or from an explicit deck and decisions.

An explicit deck (``--deck``) is 48 card ids in dealing order: the field, then the hands of the
dealer and of the following seats in turn order, then the draw pile from the top
(docs/enshu.md#a-round).

Decisions (``--decisions FILE``) are a JSON list consumed in order as decisions arise, whoever
makes them (the order of ``simcore.games.enshu.reference``):

* mizu-kotsu, kotsu, join (``"yes"`` joins, ``"no"`` drops) and Fuke: ``"yes"`` or ``"no"``;
* a teyaku group: ``"no"`` declines; otherwise the option's label ``KEY``, ``KEY:MONTH`` or
  ``KEY:FOUR_MONTH:THREE_MONTH`` (e.g. ``"sanbon:12"``, ``"shisou:1:2"``), or just ``KEY``
  or ``"yes"`` when that names a single qualifying option;
* a play: the id of the hand card (the last card in hand is forced and takes no entry; a list
  that writes it out anyway is accepted, as for Tensho);
* a choice between matching field cards: the id of the field card taken.

A decision with a single legal option (a forced join, a lone capture) takes no entry.
"""

from __future__ import annotations

from typing import Any

from simcore.cards import ids_of
from simcore.games.enshu import enums as E
from simcore.games.enshu.compile import CompiledRules, TeyakuOption
from simcore.games.enshu.policies import Observation
from simcore.games.enshu.reference import (
    RoundResult,
    RoundSetup,
    play_round,
    play_unit,
    seat_policies,
)
from simcore.policies import PolicySpec
from simcore.reference.replay import (
    DecisionError,
    ScriptedDecisions,
    ScriptedSeat,
    card_names,
    check_dealer,
    check_deck,
    event_lines,
    parse_deck,
    play_deal,
    round_trace,
    run_replayer,
)

__all__ = [
    "REDRAW",
    "DecisionError",
    "EnshuScriptedDecisions",
    "parse_enshu_deck",
    "replay_from_run",
    "replay_deck",
    "trace_json",
]

# Whether ``replay --deck`` takes a draw pile redrawn mid-round (``--redraw``): with 4-5
# players, dropped hands are shuffled into the draw pile.
REDRAW = True

YES, NO = "yes", "no"


class EnshuScriptedDecisions(ScriptedDecisions):
    """The shared decision queue; ``seat_view(seat)`` gives each seat a policy over it."""

    def seat_view(self, seat: int) -> _ScriptedEnshuSeat:
        """The policy of ``seat``: it takes that seat's decisions from the shared queue."""
        return _ScriptedEnshuSeat(self, seat)


class _ScriptedEnshuSeat(ScriptedSeat):
    """Enshu-bana's decisions from a script, besides the play and the field card."""

    def _yes_no(self, what: str) -> bool:
        value = self.script.take(what)
        if value not in (YES, NO):
            raise self.script.fail(what, value, 'expected "yes" or "no"')
        return value == YES

    def mizu_kotsu(self, obs: Observation) -> bool:
        return self._yes_no(f"seat {self.seat} declares mizu-kotsu")

    def kotsu(self, obs: Observation) -> bool:
        return self._yes_no(f"seat {self.seat} declares kotsu, multiplier {obs.multiplier}")

    def join(self, obs: Observation) -> bool:
        return self._yes_no(f"seat {self.seat} joins (yes) or drops (no), dropout pass {obs.dropout_pass}")

    def fuke(self, obs: Observation) -> bool:
        return self._yes_no(f"seat {self.seat} declares Fuke")

    def declare_teyaku(self, obs: Observation, group: str, options: list[TeyakuOption]):
        labels = [o.label() for o in options]
        what = f"seat {self.seat} declares a group-{group} teyaku ({', '.join(labels)}) or no"
        value = self.script.take(what)
        if value == NO:
            return None
        if value == YES and len(options) == 1:
            return options[0]
        if isinstance(value, str):
            matches = [o for o in options if value in (o.label(), o.key)]
            if len(matches) == 1:
                return matches[0]
        raise self.script.fail(what, value, f'expected "no" or one of {labels}')

    def choose_capture(self, obs: Observation, card: int, options: list[int]) -> int | None:
        return self.field_card(obs, card, options)


def parse_enshu_deck(text: str) -> list[int]:
    """Parse a comma-separated 48-card deck (a permutation of 0..47)."""
    return parse_deck(text, E.DECK_SIZE)


replay_from_run = run_replayer(play_unit)
"""The round ``round_index`` of a run, traced (a match is replayed from its start)."""


def replay_deck(compiled: CompiledRules, deck: list[int], decisions: list[Any] | None,
                specs: list[PolicySpec] | None = None, seed: int = 0, dealer: int = 0,
                redraw: list[int] | None = None) -> RoundResult:
    """Play an explicit deal; decisions from the list, or from the seats' policies if None.

    ``redraw`` is the draw pile, top first, after the dropped hands were shuffled into it (4-5
    players); without it the pile is shuffled from the rules stream of ``seed``, round 0.
    """
    check_deck([int(card) for card in deck], E.DECK_SIZE)
    check_dealer(dealer, compiled.players)
    if decisions is None and specs is None:
        raise ValueError("replay_deck needs decisions or policy specs")
    script = None if decisions is None else EnshuScriptedDecisions(decisions, compiled)
    result: RoundResult = play_deal(play_round, compiled, RoundSetup(seed=seed, round_index=0, dealer=dealer),
                                    compiled.players, lambda: seat_policies(compiled, specs or [], seed, 0), script,
                                    EnshuScriptedDecisions.seat_view, deck=deck, redraw=redraw)
    return result


def trace_json(compiled: CompiledRules, result: RoundResult) -> dict[str, Any]:
    """The machine-readable trace of ``fudasim replay --json`` for Enshu-bana."""
    rules = compiled.rules

    def seat(s: int) -> dict[str, Any]:
        return {
            "active": result.active[s],
            "mizu_kotsu": result.mizu_kotsu[s],
            "kotsu": result.kotsu[s],
            "teyaku_dealt": [rules.teyaku[i].key for i in ids_of(result.teyaku_dealt[s])],
            "teyaku_declared": [rules.teyaku[i].key for i in ids_of(result.teyaku_declared[s])],
            "exposed": ids_of(result.exposed[s]),
            "yaku": [rules.yaku[i].key for i in ids_of(result.yaku[s])],
            "yaku_points": result.yaku_points[s],
            "teyaku_points": result.teyaku_points[s],
            "card_points": result.card_points[s],
            "yaku_multiplier": result.yaku_multiplier[s],
        }

    head = {
        "variant": rules.variant,
        "players": result.players,
        "first_player": result.first_player,
        "multiplier": result.multiplier,
        "field_brights": result.field_brights,
        "dropout_passes": result.dropout_passes,
        "fuke": result.fuke,
        "stopping_yaku": [rules.yaku[i].key for i in ids_of(result.stopping_yaku)],
        "stopping_teyaku": [rules.teyaku[i].key for i in ids_of(result.stopping_teyaku)],
    }
    return round_trace("enshu", rules, result, result.players, E.END_REASONS, head, seat)

def format_trace(compiled: CompiledRules, result: RoundResult) -> str:
    """A readable account of a traced Enshu-bana round."""
    rules = compiled.rules
    cards = card_names(rules)

    def actor(event: dict[str, Any]) -> str:
        return f"Seat {event.get('seat')}"

    def deal(event: dict[str, Any]) -> list[str]:
        return [f"Field:        {cards(event['field'])}",
                *(f"Seat {s} hand:  {cards(hand)}" for s, hand in enumerate(event["hands"])),
                f"Draw pile, top first: {cards(event['draw'])}", ""]

    def kotsu(event: dict[str, Any]) -> str | None:
        if not event["declared"]:
            return None
        return (f"{actor(event)} declares {event['type'].replace('_', '-')}"
                + (f" (multiplier {event['multiplier']})" if "multiplier" in event else ""))

    def multiplier(event: dict[str, Any]) -> str:
        brights = event["field_brights"]
        return (f"Field multiplier {event['multiplier']} ({brights} Bright{'' if brights == 1 else 's'} "
                f"on the field, {event['mizu_kotsu']} mizu-kotsu)")

    def join_or_drop(event: dict[str, Any]) -> str:
        forced = " (forced)" if event["forced"] else ""
        return (f"{actor(event)} {'joins' if event['type'] == 'join' else 'drops out'}{forced}, "
                f"pass {event['dropout_pass']}")

    def teyaku(event: dict[str, Any]) -> str:
        return (f"{actor(event)} declares teyaku {event['label']} ({event['value']}"
                + (", stops the round" if event.get("stops") else "") + f"), exposing {cards(event['exposed'])}")

    def score(event: dict[str, Any]) -> list[str]:
        lines = [""]
        for s in range(result.players):
            if not result.active[s]:
                lines.append(f"Seat {s}: dropped out")
                continue
            yaku = [rules.yaku[i].english for i in ids_of(result.yaku[s])]
            lines.append(f"Seat {s}: card points {event['card_points'][s]}, yaku points {event['yaku_points'][s]}, "
                         f"teyaku {event['teyaku_points'][s]}, score {event['score'][s]}, payoff {event['payoff'][s]}"
                         + (f"; yaku: {', '.join(yaku)}" if yaku else ""))
        return lines

    heading = f"{rules.title}: round {result.round_index}, {result.players} players, dealer seat {result.dealer}"
    lines = [heading, *event_lines(result.events, {
        "deal": deal,
        "redeal": lambda event: f"Redeal: {event['reason']}",
        "mizu_kotsu": kotsu,
        "kotsu": kotsu,
        "multiplier": multiplier,
        "join": join_or_drop,
        "drop": join_or_drop,
        "dropout_raise": lambda event: (f"{event['joined']} joined: multiplier {event['multiplier']}, "
                                        "another pass"),
        "acting_dealer": lambda event: (f"Active seats {[s for s, a in enumerate(event['active']) if a]}; "
                                        f"seat {event.get('seat')} acts as dealer"),
        "reshuffle": lambda event: f"Dropped hands shuffled into the draw pile ({len(event['added'])} cards)",
        "set_aside": lambda event: f"Dropped hands set aside ({len(event['cards'])} cards)",
        "teyaku": teyaku,
        "teyaku_declined": lambda event: f"{actor(event)} does not declare its group-{event.get('group')} teyaku",
        "yaku": lambda event: (f"         seat {event.get('seat')} completes {event['english']} ({event['name']}): "
                               f"{event['kind']} {event['value']}"),
        "uchikiri": lambda event: f"{actor(event)} stops the round with {', '.join(event['yaku'])} (uchikiri)",
        "triplet_bonus": lambda event: (f"{actor(event)} earns the triplet bonus of month {event['month']}: "
                                        f"{event['points']}"),
        "fuke": lambda event: f"{actor(event)} declares Fuke: the round is void" if event["declared"] else None,
        "score": score,
    }, lambda s: f"seat {s}", cards)]
    reason = E.END_REASONS[result.end_reason]
    if result.winner < 0:
        lines.append(f"Result: the round is void ({reason}); the dealer keeps the deal.")
    else:
        lines.append(f"Result: seat {result.winner} wins ({reason}, turn {result.end_turn}).")
    return "\n".join(lines)
