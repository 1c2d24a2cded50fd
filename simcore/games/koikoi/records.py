"""Game records in guansanghai/KoiKoi-AI's JSON format (docs/koikoi.md#game-records), read and
checked for form; ``replay.replay_record`` replays them.

A record is one match: ``info`` (players' starting points ``player1InitPts``/``player2InitPts``,
``numRound``), ``result`` (``isOver``, ``gameWinner``, ``player1EndPts``/``player2EndPts``) and
``record``: ``round1``, ``round2``, ... each with ``basic`` (``Dealer`` 1 or 2; ``initHand1``,
``initHand2`` and ``initBoard``, 8 cards each; ``initPile``, the 24 stock cards, drawn from its
end; ``roundWinner`` and ``player1RoundPts``/``player2RoundPts``) and ``turn1``, ``turn2``, ...
(``playerInTurn``, ``discardCard``, ``collectCard``, ``drawCard``, ``collectCard2``,
``isKoiKoi``). A card is ``[month, k]``, month 1..12 and k 1..4 (the month's first card is
``k = 1``): card id ``4 * (month - 1) + k - 1``. The point and result fields may be missing
(the record then replays and scores without them); anything else missing or out of form is a
``RecordError``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from simcore.errors import FudasimError

__all__ = ["Match", "RecordError", "RecordRound", "RecordTurn", "card_id", "card_text", "parse_record"]

MAX_RECORD_BYTES = 4 * 1024 * 1024  # a KoiKoi-AI match is about 20 kB


class RecordError(FudasimError):
    """A game record cannot be read: not JSON, or a field missing or out of form (one line)."""


@dataclass(frozen=True)
class RecordTurn:
    """One recorded turn (players 1 and 2; cards as ids)."""

    number: int
    player: int
    played: int
    collected: tuple[int, ...]  # () when the played card joined the field, else the card first
    drawn: int
    collected_drawn: tuple[int, ...]
    koikoi: bool | None  # None: no decision recorded; True koi-koi; False stop


@dataclass(frozen=True)
class RecordRound:
    """One recorded round: the deal and its turns; the recorded result where given."""

    number: int
    dealer: int  # 1 or 2
    hands: tuple[tuple[int, ...], tuple[int, ...]]  # players 1 and 2
    field: tuple[int, ...]
    pile: tuple[int, ...]  # as recorded: drawn from its end
    winner: int | None  # 0 (exhausted), 1 or 2
    points: tuple[int, int] | None
    turns: tuple[RecordTurn, ...]


@dataclass(frozen=True)
class Match:
    """A recorded match."""

    start_points: tuple[int, int] | None
    rounds_planned: int | None
    over: bool | None
    winner: int | None  # 0 (a draw), 1 or 2
    end_points: tuple[int, int] | None
    rounds: tuple[RecordRound, ...]


def card_id(month: int, k: int) -> int:
    """The hanafuda48 id of the record's card ``[month, k]``."""
    return 4 * (month - 1) + k - 1


def card_text(card: int) -> str:
    """A card id as the record writes it: ``[month, k]``."""
    return f"[{card // 4 + 1},{card % 4 + 1}]"


class _Reader:
    """Reads the fields of a record, failing with the path of the field at fault."""

    def __init__(self, source: str) -> None:
        self.source = source

    def fail(self, where: str, problem: str) -> RecordError:
        return RecordError(f"{self.source}: {where}: {problem}")

    def table(self, data: Any, key: str, where: str) -> dict:
        value = data.get(key) if isinstance(data, dict) else None
        if not isinstance(value, dict):
            raise self.fail(f"{where}{key}", "missing" if value is None else f"expected an object, got {value!r}")
        return value

    def optional(self, data: dict, key: str, where: str, allowed: range | None = None) -> int | None:
        return None if data.get(key) is None else self.integer(data, key, where, allowed)

    def integer(self, data: dict, key: str, where: str, allowed: range | None = None) -> int:
        value = data.get(key)
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(f"{where}{key}", "missing" if value is None else f"expected an integer, got {value!r}")
        if allowed is not None and value not in allowed:
            raise self.fail(f"{where}{key}", f"{value} is not one of {allowed.start}..{allowed.stop - 1}")
        return value

    def card(self, value: Any, where: str) -> int:
        if (not isinstance(value, list) or len(value) != 2
                or not all(isinstance(x, int) and not isinstance(x, bool) for x in value)):
            raise self.fail(where, f"expected a card [month, k], got {value!r}")
        month, k = value
        if not (1 <= month <= 12 and 1 <= k <= 4):
            raise self.fail(where, f"{value!r} is not a card (month 1..12, k 1..4)")
        return card_id(month, k)

    def cards(self, data: dict, key: str, where: str, count: int | None = None) -> tuple[int, ...]:
        value = data.get(key)
        if not isinstance(value, list):
            raise self.fail(f"{where}{key}", "missing" if value is None else f"expected a list of cards, got {value!r}")
        if count is not None and len(value) != count:
            raise self.fail(f"{where}{key}", f"expected {count} cards, got {len(value)}")
        return tuple(self.card(item, f"{where}{key}[{i}]") for i, item in enumerate(value))


def _numbered(reader: _Reader, data: dict, prefix: str, where: str, skip: set[str]) -> list[tuple[int, Any]]:
    """The entries ``PREFIX1, PREFIX2, ...`` of ``data``, numbered 1..n without a gap."""
    numbered: dict[int, Any] = {}
    for key, value in data.items():
        if key in skip:
            continue
        number = key[len(prefix):]
        if not key.startswith(prefix) or not number.isdecimal() or number != str(int(number)) or int(number) < 1:
            raise reader.fail(f"{where}{key}", f"unknown key (expected {prefix}1, {prefix}2, ...)")
        numbered[int(number)] = value
    for expected, number in enumerate(sorted(numbered), start=1):
        if number != expected:
            raise reader.fail(f"{where}{prefix}{expected}", f"missing (the record has {prefix}{number})")
    return sorted(numbered.items())


def parse_record(text: str, source: str) -> Match:
    """Read a record's text (``RecordError`` naming ``source`` and the field if it is malformed)."""
    reader = _Reader(source)
    if len(text.encode("utf-8")) > MAX_RECORD_BYTES:
        raise RecordError(f"{source}: larger than a game record may be ({MAX_RECORD_BYTES:,} bytes)")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise RecordError(f"{source}: not valid JSON: {error}") from None
    if not isinstance(data, dict):
        raise RecordError(f"{source}: expected a JSON object (a KoiKoi-AI game record)")
    info = data.get("info")
    info = info if isinstance(info, dict) else {}
    result = data.get("result")
    result = result if isinstance(result, dict) else {}
    starts = _pair([reader.optional(info, f"player{p}InitPts", "info.") for p in (1, 2)])
    ends = _pair([reader.optional(result, f"player{p}EndPts", "result.") for p in (1, 2)])
    over = result.get("isOver")
    if over is not None and not isinstance(over, bool):
        raise reader.fail("result.isOver", f"expected true or false, got {over!r}")
    record = reader.table(data, "record", "")
    rounds = []
    for number, body in _numbered(reader, record, "round", "record.", set()):
        rounds.append(_round(reader, number, body))
    if not rounds:
        raise reader.fail("record", "holds no round")
    return Match(start_points=starts, rounds_planned=reader.optional(info, "numRound", "info.", range(1, 1001)),
                 over=over, winner=reader.optional(result, "gameWinner", "result.", range(0, 3)), end_points=ends,
                 rounds=tuple(rounds))


def _pair(values: list[int | None]) -> tuple[int, int] | None:
    """Both players' values, or None unless the record gives both."""
    first, second = values
    return None if first is None or second is None else (first, second)


def _round(reader: _Reader, number: int, body: Any) -> RecordRound:
    where = f"record.round{number}."
    if not isinstance(body, dict):
        raise reader.fail(where[:-1], f"expected an object, got {body!r}")
    basic = reader.table(body, "basic", where)
    at = f"{where}basic."
    dealer = reader.integer(basic, "Dealer", at, range(1, 3))
    hands = (reader.cards(basic, "initHand1", at, 8), reader.cards(basic, "initHand2", at, 8))
    field = reader.cards(basic, "initBoard", at, 8)
    pile = reader.cards(basic, "initPile", at, 24)
    deal = hands[0] + hands[1] + field + pile
    seen: set[int] = set()
    for card in deal:
        if card in seen:
            raise reader.fail(at[:-1], f"the deal holds card {card_text(card)} twice: it is not the 48 cards")
        seen.add(card)
    winner = reader.optional(basic, "roundWinner", at, range(0, 3))
    points = _pair([reader.optional(basic, f"player{p}RoundPts", at) for p in (1, 2)])
    turns = []
    for turn_number, turn in _numbered(reader, body, "turn", where, {"basic"}):
        turns.append(_turn(reader, turn_number, turn, f"{where}turn{turn_number}."))
    if len(turns) > 16:
        raise reader.fail(f"{where}turn17", "a round has at most 16 turns")
    return RecordRound(number=number, dealer=dealer, hands=hands, field=field, pile=pile, winner=winner,
                       points=points, turns=tuple(turns))


def _turn(reader: _Reader, number: int, turn: Any, where: str) -> RecordTurn:
    if not isinstance(turn, dict):
        raise reader.fail(where[:-1], f"expected an object, got {turn!r}")
    koikoi = turn.get("isKoiKoi", "missing")
    if koikoi == "missing":
        raise reader.fail(f"{where}isKoiKoi", "missing (null when no decision was due)")
    if koikoi is not None and not isinstance(koikoi, bool):
        raise reader.fail(f"{where}isKoiKoi", f"expected null, true or false, got {koikoi!r}")
    return RecordTurn(
        number=number,
        player=reader.integer(turn, "playerInTurn", where, range(1, 3)),
        played=reader.card(turn.get("discardCard"), f"{where}discardCard"),
        collected=reader.cards(turn, "collectCard", where),
        drawn=reader.card(turn.get("drawCard"), f"{where}drawCard"),
        collected_drawn=reader.cards(turn, "collectCard2", where),
        koikoi=koikoi,
    )
