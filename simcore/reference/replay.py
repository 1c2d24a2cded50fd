"""What replaying a scripted round needs in every game: the queue of scripted decisions and the
parsing and checking of an explicit deck.

A game's own replay module (``simcore.games.<game>.replay``, handed out by ``Game.replay()``)
seats a scripted player of its decisions over ``ScriptedDecisions`` and plays the deck given.
"""

from __future__ import annotations

from typing import Any

from simcore.errors import DealError, DecisionError

__all__ = ["DecisionError", "ScriptedDecisions", "check_deck", "parse_deck"]


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
