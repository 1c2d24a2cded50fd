"""What the play screen (``simcore.play``) shows of a koi-koi round beyond the cards: the koi-koi
decision asked in words, each seat's yaku points and calls as the round stands, koi-koi calls
and stops as they happen, and how the round was scored.

Everything here is computed from what the person may see (guarantee 6 of docs/guarantees.md):
the capture piles and the koi-koi calls during the round, the round's result at its end.
"""

from __future__ import annotations

from typing import Any

from simcore.cards import ids_of
from simcore.games.koikoi import enums as E
from simcore.games.koikoi.compile import CompiledRules
from simcore.games.koikoi.scoring import pile_yaku, stop_score
from simcore.lines import keep
from simcore.reference.forward import Decision

__all__ = ["Screen", "make_screen"]


def make_screen(compiled: CompiledRules) -> Screen:
    """The play screen's koi-koi part for these rules."""
    return Screen(compiled)


class Screen:
    """The koi-koi part of the play screen (the methods of ``simcore.play.RoundScreen``)."""

    def __init__(self, compiled: CompiledRules) -> None:
        self.c = compiled

    def start_round(self) -> None:
        """A round begins (nothing to reset: the screen reads each position afresh)."""

    def see(self, event: dict[str, Any]) -> None:
        """Trace events are not followed: the piles and calls say everything."""

    def event_note(self, event: dict[str, Any]) -> str:
        """Nothing is added to an event's line."""
        return ""

    def pile_note(self, seat: int, pile: int) -> str:
        """Nothing is added after a pile's size (the yaku points are on their own line)."""
        return ""

    def question_text(self, decision: Decision) -> str | None:
        """The koi-koi decision, in words."""
        if decision.kind != "koikoi":
            return None
        return (f"Your yaku are worth {decision.info['points']} points: stop and score now, or call "
                "koi-koi and play on for more (if your opponent stops first, you score nothing)?")

    def option_label(self, decision: Decision, action: Any) -> str | None:
        """Stop, or call koi-koi."""
        if decision.kind != "koikoi":
            return None
        return "call koi-koi" if action else "stop and score"

    def decision_entry(self, decision: Decision, action: Any) -> Any:
        """The replay's entry (``simcore.games.koikoi.replay``): the card played, the field card
        taken, ``"koikoi"`` or ``"stop"``."""
        if decision.kind == "koikoi":
            return "koikoi" if action else "stop"
        if decision.kind == "capture":
            return ids_of(int(action))[0]
        return int(action)

    def describe(self, event: dict[str, Any], who: str) -> str | None:
        """Yaku made, koi-koi calls, stops and dealt hands, in words."""
        kind = event.get("type")
        if kind == "yaku":
            return f"{who} makes the yaku {keep(str(event['english']))} ({keep(str(event['name']))})"
        if kind == "koikoi":
            return f"{who} calls koi-koi ({event['calls']})!"
        if kind == "stop":
            forced = " (no koi-koi is allowed here)" if event.get("forced") else ""
            return f"{who} stops{forced}."
        if kind == "dealt_yaku":
            return f"{who} was dealt {keep(str(event['english']))}."
        return None

    def count_lines(self, obs: Any, names: list[str]) -> list[str]:
        """Each seat's yaku points now, its koi-koi calls, and what a stop would score."""
        lines = []
        for seat, name in enumerate(names):
            own, other = obs.calls[seat], obs.calls[1 - seat]
            _, points = pile_yaku(self.c, obs.piles[seat], own, obs.month)
            score = stop_score(self.c, points, own, other) if points else 0
            lines.append(f"{name}: yaku points {points}, koi-koi calls {own}, a stop now scores {score}")
        return lines

    def settlement(self, result: Any, names: list[str]) -> list[str]:
        """How the round was scored: each seat's yaku, calls, score and payoff."""
        lines = ["Score:"]
        reason = E.END_REASONS[int(result.end_reason)]
        for seat, name in enumerate(names):
            yaku = ", ".join(keep(self.c.rules.yaku[i].english) for i in range(E.N_YAKU)
                             if (int(result.yaku[seat]) >> i) & 1) or "none"
            lines.append(f"  {name}: yaku {yaku} ({result.yaku_points[seat]} points); koi-koi calls "
                         f"{result.koikoi[seat]}; score {result.score[seat]}; payoff {int(result.payoff[seat]):+d}")
        if reason == "exhausted":
            lines.append("  The hands ran out with nobody stopping (koikoi.exhausted = "
                         f"{self.c.rules.options['koikoi.exhausted']}).")
        return lines
