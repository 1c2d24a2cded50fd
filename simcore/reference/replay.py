"""What replaying a scripted round needs in every game: the queue of scripted decisions and the
parsing and checking of an explicit deck.

A game's own replay module (``simcore.games.<game>.replay``, handed out by ``Game.replay()``)
seats a scripted player of its decisions over ``ScriptedDecisions`` and plays the deck given.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from simcore.cards import ids_of
from simcore.errors import DealError, DecisionError

__all__ = ["DecisionError", "EventLines", "ScriptedDecisions", "ScriptedSeat", "capture_line", "card_names", "check_deck",
           "check_dealer", "deal_lines", "event_lines", "match_heading", "parse_deck", "play_deal", "round_of_run",
           "round_trace", "run_replayer", "yaku_fields"]

# What a game's readable trace prints for one kind of event: a line, lines, or None for none.
EventLines = Callable[[dict[str, Any]], "str | list[str] | None"]


class ScriptedDecisions:
    """A shared queue of scripted decisions, consumed in order whoever decides; a game's replay
    seats a scripted player over it in every seat."""

    def __init__(self, decisions: list[Any], compiled: Any) -> None:
        if not isinstance(decisions, list):
            raise DecisionError("decisions must be a JSON list")
        self.decisions = decisions
        self.position = 0
        self.compiled = compiled

    def take(self, what: str) -> Any:
        """The next decision of the list (``DecisionError`` naming ``what`` if there is none)."""
        if self.position >= len(self.decisions):
            raise DecisionError(f"decision {self.position + 1} ({what}) is missing: the list has "
                                f"only {len(self.decisions)} decisions")
        value = self.decisions[self.position]
        self.position += 1
        return value

    def fail(self, what: str, value: Any, why: str) -> DecisionError:
        """The error for decision ``value`` of kind ``what``, illegal because ``why``."""
        return DecisionError(f"decision {self.position} ({what}): {value!r} is illegal: {why}")

    def skip_if_next_is(self, *cards: int) -> None:
        """Consume the next decision if it names one of ``cards`` (a forced play written out).

        Unambiguous: the decision after a seat's last play is never that card (it has left the
        hand, and it is not on the field either since it was just played).
        """
        if self.position < len(self.decisions):
            value = self.decisions[self.position]
            if isinstance(value, int) and not isinstance(value, bool) and value in cards:
                self.position += 1

    def check_all_used(self) -> None:
        """``DecisionError`` if decisions are left over once the round has ended."""
        if self.position != len(self.decisions):
            extra = len(self.decisions) - self.position
            raise DecisionError(f"{extra} decision(s) left unused after the round ended "
                                f"(first unused: decision {self.position + 1}, {self.decisions[self.position]!r})")


class ScriptedSeat:
    """A seat that plays the decisions of a script (``ScriptedDecisions``) that fall to it: the
    play of a card and the choice of a field card, which every game asks alike. A game's replay
    subclasses it with the decisions of its own."""

    name = "scripted"

    def __init__(self, script: ScriptedDecisions, seat: int) -> None:
        self.script = script
        self.seat = seat

    def card(self, value: Any, what: str) -> int:
        """``value`` if it is a card id (``DecisionError`` about ``what`` if not)."""
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 64:
            raise self.script.fail(what, value, "expected a card id")
        return value

    def play(self, obs: Any) -> int:
        """The card played from ``obs.hand`` (a mask) on turn ``obs.turn``: the script's next
        decision, or the last card in hand, which is forced and takes none (a script that spells
        it out is accepted too)."""
        if obs.hand.bit_count() == 1:
            last = ids_of(obs.hand)[0]
            self.script.skip_if_next_is(last)
            return last
        what = f"seat {self.seat} plays a card, turn {obs.turn}"
        value = self.script.take(what)
        if not (obs.hand >> self.card(value, what)) & 1:
            raise self.script.fail(what, value, f"not in the hand {ids_of(obs.hand)}")
        return value

    def field_card(self, obs: Any, card: int, options: list[int], allow_decline: bool = False) -> int | None:
        """The option (a mask of field cards) that holds the field card the script takes with
        ``card``; None when the script says ``"decline"`` and ``allow_decline``."""
        what = f"seat {self.seat} chooses the field card taken with card {card}, turn {obs.turn}"
        value = self.script.take(what)
        if value == "decline":
            if not allow_decline:
                raise self.script.fail(what, value, "capturing is mandatory")
            return None
        if not isinstance(value, bool) and isinstance(value, int) and 0 <= value < 64:
            for option in options:
                if (option >> value) & 1:
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
    check_deck(ids, deck_size, "--deck")
    return ids


def check_deck(ids: list[int], deck_size: int = 45, label: str = "deck") -> None:
    """Raise ``DealError`` unless ``ids`` holds each card id of the deck exactly once."""
    if len(ids) != deck_size:
        raise DealError(f"{label} has {len(ids)} card ids; a deal needs all {deck_size}")
    seen: dict[int, int] = {}
    for position, card in enumerate(ids):
        if not 0 <= card < deck_size:
            raise DealError(f"{label} position {position}: card id {card} is outside 0..{deck_size - 1}")
        if card in seen:
            raise DealError(f"{label} position {position}: card id {card} already at position {seen[card]}")
        seen[card] = position


def check_dealer(dealer: int, seats: int) -> None:
    """Raise ``DealError`` unless ``dealer`` is one of the ``seats`` seats."""
    if not 0 <= dealer < seats:
        where = "0 or 1" if seats == 2 else f"0 to {seats - 1}, with {seats} players"
        raise DealError(f"dealer {dealer} is not a seat ({where})")


def round_of_run(play_unit: Callable[..., list[Any]], compiled: Any, specs: list[Any], seed: int,
                 round_index: int, rounds_per_match: int | None, stride: int) -> Any:
    """Round ``round_index`` of a run, traced, from the game's ``play_unit``: an independent round,
    or the round of a match (``stride`` rows a match) replayed from the match's start."""
    if rounds_per_match is None:
        return play_unit(compiled, specs, seed, round_index, None, trace=True)[0]
    unit, k = divmod(round_index, stride)
    results = play_unit(compiled, specs, seed, unit, rounds_per_match, trace=True)
    if k >= len(results):
        raise DealError(f"round {round_index} was not played: match {unit} ended after {len(results)} rounds")
    return results[k]


def run_replayer(play_unit: Callable[..., list[Any]],
                 stride: Callable[[Any, int], int] | None = None) -> Callable[..., Any]:
    """A game's ``replay_from_run`` over its ``play_unit``: ``round_of_run`` with a match's rows
    ``stride(compiled, rounds_per_match)`` apart (``rounds_per_match`` when ``stride`` is None)."""

    def replay_from_run(compiled: Any, specs: list[Any], seed: int, round_index: int,
                        rounds_per_match: int | None = None) -> Any:
        """The round ``round_index`` of a run, traced (a match is replayed from its start)."""
        if rounds_per_match is None:
            rows = 1
        else:
            rows = rounds_per_match if stride is None else stride(compiled, rounds_per_match)
        return round_of_run(play_unit, compiled, specs, seed, round_index, rounds_per_match, rows)

    return replay_from_run


def yaku_fields(rules: Any, yaku: int) -> dict[str, list[str]]:
    """A seat's yaku (a bitset over ``rules.yaku``) in a JSON trace: English names and keys."""
    made = [rules.yaku[i] for i in ids_of(yaku)]
    return {"yaku": [y.english for y in made], "yaku_keys": [y.key for y in made]}


Script = TypeVar("Script", bound=ScriptedDecisions)


def play_deal(play_round: Callable[..., Any], compiled: Any, setup: Any, seats: int,
              policies: Callable[[], list[Any]], script: Script | None,
              scripted_seat: Callable[[Script, int], Any], **deal: Any) -> Any:
    """An explicit deal played traced by the game's ``play_round`` (``deal``: its deck keywords):
    by the seats' ``policies()`` when ``script`` is None, otherwise by ``scripted_seat(script,
    seat)``, players of the script's decisions, every one of which must be used."""
    if script is None:
        return play_round(compiled, setup, policies(), trace=True, **deal)
    result = play_round(compiled, setup, [scripted_seat(script, s) for s in range(seats)], trace=True, **deal)
    script.check_all_used()
    return result


def round_trace(game: str, rules: Any, result: Any, seats: int, end_reasons: tuple[str, ...],
                head: dict[str, Any], seat_fields: Callable[[int], dict[str, Any]]) -> dict[str, Any]:
    """The machine-readable trace of ``fudasim replay --json``: the round's fields every game
    has, then the game's ``head``; each seat's fields every game has around the game's
    ``seat_fields(seat)``; the events."""
    return {
        "game": game,
        "rules": rules.name,
        "round": result.round_index,
        "match": result.match,
        "dealer": result.dealer,
        "winner": result.winner,
        "end_reason": end_reasons[result.end_reason],
        "end_turn": result.end_turn,
        "redeals": result.redeals,
        "field_dealt": ids_of(result.field_dealt),
        **head,
        "seats": [{"seat": s, "hand_dealt": ids_of(result.hand_dealt[s]), "captured": ids_of(result.captured[s]),
                   **seat_fields(s), "score": result.score[s], "payoff": result.payoff[s]} for s in range(seats)],
        "events": result.events,
    }


def capture_line(event: dict[str, Any], who: str, cards: Callable[[list[int]], str]) -> str:
    """A traced play or draw (``event``) in words: ``who`` plays or turns the card, to the field
    or taking the cards it captures (``cards`` names a list of card ids)."""
    verb = "plays" if event["type"] == "play" else "turns"
    head = f"Turn {event['turn']:>2}  {who} {verb} {cards([event['card']])}"
    if event["to"] == "field":
        return f"{head} -> field" + (" (declines the capture)" if event.get("declined") else "")
    if event["captured"] == [event["card"]]:
        return f"{head} -> straight to the capture pile"
    return f"{head}, takes {cards(event['captured'][1:])}"


def deal_lines(event: dict[str, Any], who: Callable[[int], str], cards: Callable[[list[int]], str]) -> list[str]:
    """A traced two-seat deal's hands, the dealer's marked, and its draw pile, a line each
    (``who(seat)`` names a seat at the start of a line)."""
    lines = []
    for seat, hand in enumerate(event["hands"]):
        role = "dealer" if seat == event["dealer"] else "non-dealer"
        lines.append(f"{who(seat)} hand ({role}): {cards(hand)}")
    lines.append(f"Draw pile, top first: {cards(event['draw'])}")
    return lines


def card_names(rules: Any) -> Callable[[list[int]], str]:
    """``cards(ids)``: card ids named in ``rules``' skin (``card_label``), comma-separated, "-" for
    none."""
    return lambda ids: ", ".join(rules.card_label(card) for card in ids) or "-"


def match_heading(rules: Any, result: Any, dealer: str) -> str:
    """A traced round's first line where rounds make matches: the game, the round, its place in
    its match, and who deals (``dealer``)."""
    return (f"{rules.title}: round {result.round_index} (match {result.match}, round {result.round_in_match} "
            f"of the match), dealer {dealer}")


def event_lines(events: list[dict[str, Any]], lines_of: Mapping[str, EventLines], who: Callable[[int], str],
                cards: Callable[[list[int]], str]) -> list[str]:
    """A traced round's events in words, in order: a play or a draw as ``capture_line`` says it
    (``who(seat)`` names the seat), any other kind by its entry in ``lines_of``; a kind without
    one prints nothing."""
    lines: list[str] = []
    for event in events:
        kind = event["type"]
        if kind in ("play", "draw"):
            lines.append(capture_line(event, who(event["seat"]), cards))
            continue
        made = lines_of[kind](event) if kind in lines_of else None
        if isinstance(made, str):
            lines.append(made)
        elif made:
            lines.extend(made)
    return lines
