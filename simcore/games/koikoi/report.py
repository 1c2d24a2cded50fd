"""Koi-koi's own tables in ``fudasim report`` (a ``simcore.games.ReportSection``): how often each
seat calls koi-koi, what a call brings the caller, and the points of a stop by the turn it came.

Counted from the columns every koi-koi run has (docs/koikoi.md#dataset-columns). A seat's
koi-koi decisions in a round are its calls (``koikoi_s``) and, when it ended the round by
choosing to stop (``end_reason = stop``), that stop: a decision ends in one or the other, and a
stop the rules impose (``forced_stop``) is no decision.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["COLUMNS", "KoikoiCounts", "columns", "new_counts", "tables"]

COLUMNS = ("dealer", "winner", "end_reason", "end_turn", "exhausted", "last_koikoi")
SEAT_COLUMNS = ("koikoi", "score", "payoff")

# The rows of the calls and after-a-call tables: the two roles, then the two seats.
WHO = ("dealer", "non-dealer", "seat 0", "seat 1")
TURNS = 17  # end_turn 0 (a dealt hand) to 16


def columns(seats: int) -> tuple[str, ...]:
    """The columns the counts read."""
    return COLUMNS + tuple(f"{name}_{s}" for name in SEAT_COLUMNS for s in range(seats))


def _zeros() -> np.ndarray:
    return np.zeros(len(WHO), dtype=np.int64)  # one count per row of WHO


def _sums() -> np.ndarray:
    return np.zeros((len(WHO), 3), dtype=np.int64)  # n, sum, sum of squares per row of WHO


@dataclass
class KoikoiCounts:
    """Exact counts for the koi-koi tables, per row of ``WHO`` (the dealer, the non-dealer, seat
    0, seat 1) and per ``end_turn``; they add up batch by batch in fixed memory."""

    end_reasons: Sequence[str]
    rounds: np.ndarray = field(default_factory=_zeros)
    called_rounds: np.ndarray = field(default_factory=_zeros)
    calls: np.ndarray = field(default_factory=_sums)  # koikoi_s over every round
    stops: np.ndarray = field(default_factory=_zeros)  # the stops the seat chose
    # Over the rounds in which the seat called at least once:
    caller_wins: np.ndarray = field(default_factory=_zeros)
    opponent_wins: np.ndarray = field(default_factory=_zeros)
    exhausted: np.ndarray = field(default_factory=_zeros)
    points: np.ndarray = field(default_factory=_sums)  # payoff_s
    won_points: np.ndarray = field(default_factory=_sums)  # score_s when the caller won
    # Stops the seat chose at its first decision (no call of its own in the round): score_s.
    first_stop: np.ndarray = field(default_factory=_sums)
    # Per end_turn, over the rounds a seat stopped (stop or forced_stop):
    turn_stops: np.ndarray = field(default_factory=lambda: np.zeros(TURNS, dtype=np.int64))
    turn_points: np.ndarray = field(default_factory=lambda: np.zeros((TURNS, 2), dtype=np.int64))
    turn_after_call: np.ndarray = field(default_factory=lambda: np.zeros(TURNS, dtype=np.int64))
    exhausted_rounds: int = 0
    other_rounds: int = 0  # dealt hands and anything else neither stopped nor exhausted

    def _code(self, name: str) -> int:
        return self.end_reasons.index(name) if name in self.end_reasons else -1

    def add(self, batch: dict[str, np.ndarray]) -> None:
        """Count one batch of rows: each column as the reader yields it (``end_reason`` as int16
        codes into ``end_reasons``; the others in their Arrow types, int8 to int32, ``exhausted``
        bool)."""
        dealer = batch["dealer"].astype(np.int64)
        winner = batch["winner"].astype(np.int64)
        reason = batch["end_reason"].astype(np.int64)
        turn = batch["end_turn"].astype(np.int64)
        exhausted = batch["exhausted"].astype(bool)
        n = len(winner)
        rows = np.arange(n)

        def both(name: str) -> np.ndarray:
            return np.stack([batch[f"{name}_0"], batch[f"{name}_1"]], axis=1).astype(np.int64)

        calls, score, payoff = both("koikoi"), both("score"), both("payoff")
        chosen = reason == self._code("stop")
        stopped = chosen | (reason == self._code("forced_stop"))
        seat_of_row = (dealer, 1 - dealer, np.zeros(n, np.int64), np.ones(n, np.int64))
        for row, seat in enumerate(seat_of_row):
            mine = calls[rows, seat]
            won = (winner == seat) & ~exhausted
            lost = (winner == 1 - seat) & ~exhausted
            called = mine > 0
            self.rounds[row] += n
            self.called_rounds[row] += int(called.sum())
            _add(self.calls, row, mine)
            self.stops[row] += int((chosen & (winner == seat)).sum())
            self.caller_wins[row] += int((called & won).sum())
            self.opponent_wins[row] += int((called & lost).sum())
            self.exhausted[row] += int((called & exhausted).sum())
            _add(self.points, row, payoff[rows, seat][called])
            _add(self.won_points, row, score[rows, seat][called & won])
            _add(self.first_stop, row, score[rows, seat][chosen & (winner == seat) & ~called])
        at = np.clip(turn[stopped], 0, TURNS - 1)
        self.turn_stops += np.bincount(at, minlength=TURNS)
        points = score[rows[stopped], winner[stopped]]
        for column, values in enumerate((points, points * points)):
            sums = np.bincount(at, weights=values, minlength=TURNS)  # exact below 2**53
            self.turn_points[:, column] += np.rint(sums).astype(np.int64)
        any_call = calls.sum(axis=1) > 0
        self.turn_after_call += np.bincount(at[any_call[stopped]], minlength=TURNS)
        self.exhausted_rounds += int(exhausted.sum())
        self.other_rounds += int((~stopped & ~exhausted).sum())


def _add(sums: np.ndarray, row: int, values: np.ndarray) -> None:
    sums[row] += (len(values), int(values.sum()), int((values * values).sum()))


def new_counts(seats: int, end_reasons: Sequence[str]) -> KoikoiCounts:
    """Empty counts (koi-koi has two seats)."""
    return KoikoiCounts(end_reasons=end_reasons)


def tables(counts: KoikoiCounts, confidence: float, kit: Any) -> list[Any]:
    """The calls, what they bring, and stops by turn."""
    return [_calls(counts, confidence, kit), _after_call(counts, confidence, kit),
            _stop_turns(counts, confidence, kit)]


def _mean(frame: Any, name: str, sums: np.ndarray, confidence: float, kit: Any) -> None:
    kit.add_mean(frame, name, sums[:, 0], sums[:, 1], sums[:, 2], confidence)


def _calls(counts: KoikoiCounts, confidence: float, kit: Any) -> Any:
    import pandas as pd

    Table, add_rate, warn_small = kit.Table, kit.add_rate, kit.warn_small

    decisions = counts.calls[:, 1] + counts.stops
    frame = pd.DataFrame({"who": WHO, "rounds": counts.rounds})
    add_rate(frame, "called", counts.called_rounds, counts.rounds, confidence)
    _mean(frame, "calls", counts.calls, confidence, kit)
    frame["decisions"] = decisions
    add_rate(frame, "call_per_decision", counts.calls[:, 1], decisions, confidence)
    note = ("called: rounds in which the seat called koi-koi at least once; calls: its calls per "
            "round; decisions: the times it chose between koi-koi and stop (its calls, and the "
            "stop it chose to end the round with; a stop the rules impose is no choice), and how "
            "many of them were calls. A seat may decide several times in a round; the interval "
            "treats decisions as independent.")
    return warn_small(Table("koikoi_calls", "Koi-koi calls", frame, note, hidden=_sd(frame),
                            keys=["who"]))


def _after_call(counts: KoikoiCounts, confidence: float, kit: Any) -> Any:
    import pandas as pd

    Table, add_rate, warn_small = kit.Table, kit.add_rate, kit.warn_small

    n = counts.called_rounds
    frame = pd.DataFrame({"who": WHO, "rounds": n})
    add_rate(frame, "caller_wins", counts.caller_wins, n, confidence)
    add_rate(frame, "opponent_wins", counts.opponent_wins, n, confidence)
    add_rate(frame, "exhausted", counts.exhausted, n, confidence)
    _mean(frame, "points", counts.points, confidence, kit)
    _mean(frame, "points_when_won", counts.won_points, confidence, kit)
    frame["first_stops"] = counts.first_stop[:, 0]
    _mean(frame, "first_stop_points", counts.first_stop, confidence, kit)
    note = ("Over the rounds in which the seat called koi-koi at least once (rounds): how the "
            "round ended (the caller stopped or scored, the opponent stopped first, nobody "
            "stopped), the caller's points from the round (its payoff: a loss where the other "
            "seat's win costs it), and its points in the rounds it won. first stop points: the "
            "seat's points when it stopped at its first decision without calling (first stops: "
            "those rounds), for comparison; they are other rounds, not what stopping would have "
            "scored at the call: the rows do not record the points held when a seat called.")
    return warn_small(Table("koikoi_after_call", "After a koi-koi call", frame, note,
                            hidden=_sd(frame), keys=["who"]))


def _stop_turns(counts: KoikoiCounts, confidence: float, kit: Any) -> Any:
    import pandas as pd

    Table, add_mean, add_rate, warn_small = kit.Table, kit.add_mean, kit.add_rate, kit.warn_small

    turns = np.flatnonzero(counts.turn_stops)
    stops = counts.turn_stops[turns]
    total = int(counts.turn_stops.sum())
    frame = pd.DataFrame({"end_turn": turns, "stops": stops})
    add_rate(frame, "share", stops, np.full(len(turns), total), confidence)
    add_mean(frame, "points", stops, counts.turn_points[turns, 0], counts.turn_points[turns, 1],
             confidence)
    add_rate(frame, "after_call", counts.turn_after_call[turns], stops, confidence)
    note = (f"Rounds a seat ended by stopping (chosen or imposed), by the turn it stopped in "
            f"(1-16; the dealer plays the odd turns): their share of the {total:,} stops, the "
            f"winner's points, and how many came after a koi-koi call by either seat. Left out: "
            f"{counts.exhausted_rounds:,} exhausted rounds and {counts.other_rounds:,} ended by a "
            f"dealt hand.")
    return warn_small(Table("koikoi_stop_turn", "Points by the turn of the stop", frame, note,
                            hidden=_sd(frame), keys=["end_turn"]))


def _sd(frame: Any) -> list[str]:
    """The standard deviations: in the JSON and CSV outputs, not in the text, Markdown or HTML."""
    return [c for c in frame.columns if c.endswith("_sd")]
