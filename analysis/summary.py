"""One pass over a run: every count, sum and histogram that the report's tables need.

``summarise_rows`` reads only the columns the run has and the report uses, batch by batch, and
returns a ``RunSummary`` of plain counts.  The tables (``analysis.tables``) are computed from
the summary, never from the rows, so memory does not grow with the number of rounds.

Seat count comes from the per-seat columns; game-specific parts (yaku, end reasons, round
length, matches, active seats) are gathered only when their columns are present.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from analysis.accumulate import BitCounter, IntegerHistogram
from analysis.reader import AnalysisError, RunDataset, open_run
from simcore.games import get_game, known_game_names

__all__ = ["RunSummary", "SeatCounts", "SeatOrderCounts", "MatchCounts", "summarise_rows", "convergence_checkpoints",
           "match_winners"]

# End reasons that stop a round at once because a yaku was made (Tensho instant win,
# Enshu-bana uchikiri); the report breaks them down by the yaku that did it.
STOPPING_REASONS = ("instant_win", "uchikiri")
CONVERGENCE_POINTS = 60
CONVERGENCE_COLUMNS = ("rounds", "seat0_wins", "seat0_rounds", "dealer_wins", "dealer_rounds", "draws")


@dataclass
class SeatCounts:
    """Round outcomes of one seat (rounds in which the seat took part)."""

    rounds: int = 0
    wins: int = 0
    draws: int = 0

    @property
    def losses(self) -> int:
        """Rounds played and neither won nor drawn."""
        return self.rounds - self.wins - self.draws


@dataclass
class SeatOrderCounts:
    """Outcomes of the seat ``k`` places after the dealer in turn order (``k = 0``: the dealer).

    ``rounds`` counts the rounds that seat played, ``wins`` and ``draws`` are over those rounds;
    ``payoff_played`` holds its payoff in the rounds it played and ``payoff_all`` its recorded
    payoff in every round of the run (a seat that sat a round out has the payoff the game records
    for it, 0 in Enshu-bana).
    """

    rounds: int = 0
    wins: int = 0
    draws: int = 0
    payoff_played: IntegerHistogram = field(default_factory=IntegerHistogram)
    payoff_all: IntegerHistogram = field(default_factory=IntegerHistogram)


def match_winners(points: np.ndarray) -> np.ndarray:
    """The winner of each match from its final match points (int64 ``[matches, seats]``): the
    seat with the most points, or -1 where several share the most (a tied match)."""
    if not len(points):
        return np.zeros(0, dtype=np.int64)
    best = points.max(axis=1)
    leaders = (points == best[:, None]).sum(axis=1)
    return np.where(leaders == 1, points.argmax(axis=1), -1).astype(np.int64)


@dataclass
class MatchCounts:
    """Match outcomes, from each match's last row (``match_end``) and its first dealer."""

    matches: int = 0
    seat_wins: list[int] = field(default_factory=list)
    draws: int = 0
    first_dealer_wins: int = 0
    first_dealer_draws: int = 0
    first_dealer_matches: int = 0
    rounds_per_match: IntegerHistogram = field(default_factory=IntegerHistogram)
    unpaired_ends: int = 0


@dataclass
class RunSummary:
    """Counts from one pass over a run (see ``summarise_run``).

    Attributes
    ----------
    dataset : RunDataset
    rounds : int
        Rows read.
    seats : list of SeatCounts
        Per seat, over the rounds the seat played (``active_s``; every round when a game has no
        such columns).
    dealer, non_dealer : SeatCounts
        Outcomes of the dealer over the rounds the dealer played, and of the non-dealer seats
        over the seat-rounds they played.
    dealer_advantage_sums : (float, float)
        Sum and sum of squares, over the rounds the dealer played, of
        ``1{dealer wins} - 1{non-dealer wins} / (a - 1)`` with ``a`` the seats playing the round
        (computed from ``dealer_advantage_counts``).
    dealer_advantage_counts : dict int -> int
        Over the rounds the dealer played: at 0 the rounds the dealer won, at ``k`` the rounds a
        non-dealer won with ``k`` other seats playing (exact counts, which merge across shards).
    end_reasons : dict str -> int
        Rounds per end reason (every reason the dataset declares, also those with no rounds).
    yaku_seat : list of int64[64] or None
        Rounds (played by the seat) in which each seat completed yaku bit ``b``.
    yaku_any : int64[64] or None
        Rounds in which at least one seat completed yaku bit ``b``.
    yaku_set_rounds : dict int -> int
        Rounds per yaku set (empty when the dataset has no ``yaku_set`` column).
    seat_yaku_set_rounds : list of dict int -> int
        Per seat, the rounds it played per yaku set (empty lists without ``yaku_set``).
    stopping_yaku : dict end_reason -> int64[64]
        Rounds stopped at once (``STOPPING_REASONS``) by yaku bit ``b``: the dataset's
        ``stopping_yaku`` column where it has one (Enshu-bana), else the winner's yaku (only the
        stopping yaku when ``stopping_bits_known``).
    scores : list of IntegerHistogram
        Per seat, over the rounds the seat played.
    payoffs : list of IntegerHistogram or None
        Per seat, over the rounds the seat played (None when the game records no payoff).
    round_length : IntegerHistogram or None
        ``end_turn``.
    matches : MatchCounts or None
    draws : int
        Rounds without a winner.
    seat_order : list of SeatOrderCounts or None
        By place in turn order from the round's dealer (0: the dealer, 1: the next seat, ...):
        rounds played, wins, draws and payoffs (None without a ``dealer`` column, and in a
        summary run, which keeps no counts by seat order).
    convergence : pandas.DataFrame
        ``CONVERGENCE_COLUMNS`` at checkpoints as rounds accumulate: rows read, seat 0's wins and
        rounds played, the dealer's wins and rounds played, drawn rounds.
    section, section_counts : ReportSection and its counts, or None
        The game's own report tables (``simcore.games.ReportSection``) and what they were counted
        from; None when the game has none, the run lacks its columns, or it is a summary run.
    """

    dataset: RunDataset
    rounds: int = 0
    seats: list[SeatCounts] = field(default_factory=list)
    dealer: SeatCounts = field(default_factory=SeatCounts)
    non_dealer: SeatCounts = field(default_factory=SeatCounts)
    dealer_advantage_sums: tuple[float, float] = (0.0, 0.0)
    dealer_advantage_counts: dict[int, int] = field(default_factory=dict)
    end_reasons: dict[str, int] = field(default_factory=dict)
    yaku_seat: list[np.ndarray] | None = None
    yaku_any: np.ndarray | None = None
    yaku_set_rounds: dict[int, int] = field(default_factory=dict)
    seat_yaku_set_rounds: list[dict[int, int]] = field(default_factory=list)
    stopping_yaku: dict[str, np.ndarray] = field(default_factory=dict)
    stopping_bits_known: bool = False
    scores: list[IntegerHistogram] = field(default_factory=list)
    payoffs: list[IntegerHistogram] | None = None
    round_length: IntegerHistogram | None = None
    matches: MatchCounts | None = None
    seat_order: list[SeatOrderCounts] | None = None
    convergence: Any = None
    draws: int = 0
    section: Any = None
    section_counts: Any = None


def convergence_checkpoints(total_rows: int, points: int = CONVERGENCE_POINTS) -> np.ndarray:
    """Round counts (int64, ascending), roughly evenly spaced on a log scale from 10 (or fewer) to ``total_rows``.

    A summary run's shards count at the same checkpoints (``simcore.summary_layout.checkpoints``).
    """
    from simcore.summary_layout import checkpoints

    return checkpoints(total_rows, points)


def advantage_sums(counts: dict[int, int]) -> tuple[float, float]:
    """Sum and sum of squares of the dealer's per-round advantage from ``dealer_advantage_counts``.

    A round the dealer won adds 1 (and 1); one a non-dealer won with ``k`` other seats playing
    adds ``-1/k`` (and ``1/k^2``); other rounds add 0.
    """
    wins = counts.get(0, 0)
    total, squares = float(wins), float(wins)
    for others in sorted(k for k in counts if k > 0):
        total -= counts[others] / others
        squares += counts[others] / (others * others)
    return total, squares


def _columns_for(dataset: RunDataset) -> dict[str, bool]:
    has = dataset.has_columns
    seats = range(dataset.seats)
    wants = {
        "dealer": has("dealer"),
        "end_reason": has("end_reason"),
        "end_turn": has("end_turn"),
        "yaku_set": has("yaku_set"),
        "yaku": all(has(f"yaku_{s}") for s in seats),
        "payoff": all(has(f"payoff_{s}") for s in seats),
        "active": all(has(f"active_{s}") for s in seats),
        # Enshu-bana records the yaku that stopped the round; Tensho's come from the rules.
        "stopping_yaku": has("stopping_yaku"),
        "matches": dataset.rounds_per_match is not None
        and has("match", "round_in_match", "match_end", "dealer")
        and all(has(f"match_points_{s}") for s in seats),
    }
    return wants


class _MatchJoiner:
    """Pairs each match's first round (its first dealer) with its last row (its result).

    Both ends usually fall in the same batch; the few matches cut by a batch boundary are
    carried to the next batch, so the carried arrays stay small.
    """

    def __init__(self, seats: int) -> None:
        self.seats = seats
        self.counts = MatchCounts(seat_wins=[0] * seats)
        self.start_match = np.zeros(0, dtype=np.int64)
        self.start_dealer = np.zeros(0, dtype=np.int64)
        self.end_match = np.zeros(0, dtype=np.int64)
        self.end_winner = np.zeros(0, dtype=np.int64)

    def add(self, batch: dict[str, np.ndarray]) -> None:
        first = batch["round_in_match"] == 0
        last = batch["match_end"].astype(bool)
        points = np.stack([batch[f"match_points_{s}"].astype(np.int64) for s in range(self.seats)], axis=1)
        winner = match_winners(points[last])
        rounds = batch["round_in_match"][last].astype(np.int64) + 1
        self.counts.rounds_per_match.add(rounds)
        self.counts.matches += int(last.sum())
        self.counts.draws += int((winner < 0).sum())
        for seat in range(self.seats):
            self.counts.seat_wins[seat] += int((winner == seat).sum())
        self.start_match = np.concatenate([self.start_match, batch["match"][first].astype(np.int64)])
        self.start_dealer = np.concatenate([self.start_dealer, batch["dealer"][first].astype(np.int64)])
        self.end_match = np.concatenate([self.end_match, batch["match"][last].astype(np.int64)])
        self.end_winner = np.concatenate([self.end_winner, winner.astype(np.int64)])
        self._join()

    def _join(self) -> None:
        if not len(self.start_match) or not len(self.end_match):
            return
        order = np.argsort(self.start_match, kind="stable")
        starts, dealers = self.start_match[order], self.start_dealer[order]
        position = np.searchsorted(starts, self.end_match)
        position = np.minimum(position, len(starts) - 1)
        found = starts[position] == self.end_match
        matched_dealer = dealers[position[found]]
        self.counts.first_dealer_matches += int(found.sum())
        self.counts.first_dealer_wins += int((self.end_winner[found] == matched_dealer).sum())
        self.counts.first_dealer_draws += int((self.end_winner[found] < 0).sum())
        used = np.zeros(len(starts), dtype=bool)
        used[position[found]] = True
        self.start_match, self.start_dealer = starts[~used], dealers[~used]
        self.end_match, self.end_winner = self.end_match[~found], self.end_winner[~found]

    def finish(self) -> MatchCounts:
        self.counts.unpaired_ends = len(self.end_match)
        return self.counts


def summarise_rows(dataset: RunDataset | str, *, instant_yaku_bits: dict[int, int] | None = None) -> RunSummary:
    """Aggregate a run in one bounded-memory pass.

    Parameters
    ----------
    dataset : RunDataset or path
    instant_yaku_bits : dict yaku_set -> uint64 bitset, optional
        Which yaku are instant wins in each yaku set; the instant-win table counts only these
        bits of the winner's yaku.  Default: read from the run's rules when available, else
        every yaku the instant winner holds is counted.

    Returns
    -------
    RunSummary
    """
    if not isinstance(dataset, RunDataset):
        dataset = open_run(dataset)
    if dataset.summary:
        raise AnalysisError(f"{dataset.path}: a summary run holds counts, not rows (analysis.summary_io.summarise_run "
                            "reads either)")
    seats = dataset.seats
    wants = _columns_for(dataset)
    if instant_yaku_bits is None:
        instant_yaku_bits = _instant_bits(dataset)
    columns = ["winner"]
    columns += [name for name in ("dealer", "end_reason", "end_turn", "yaku_set") if wants[name]]
    columns += [f"score_{s}" for s in range(seats)]
    if wants["yaku"]:
        columns += [f"yaku_{s}" for s in range(seats)]
    if wants["payoff"]:
        columns += [f"payoff_{s}" for s in range(seats)]
    if wants["active"]:
        columns += [f"active_{s}" for s in range(seats)]
    if wants["stopping_yaku"]:
        columns.append("stopping_yaku")
    if wants["matches"]:
        columns += ["match", "round_in_match", "match_end"] + [f"match_points_{s}" for s in range(seats)]
    section = _report_section(dataset)
    if section is not None:
        columns += [c for c in section.columns(seats) if c not in columns]

    summary = RunSummary(dataset=dataset, seats=[SeatCounts() for _ in range(seats)])
    if section is not None:
        summary.section = section
        summary.section_counts = section.new_counts(seats, dataset.end_reason_names)
    declared = dataset.declared_end_reasons() if wants["end_reason"] else []
    for reason in declared:
        dataset._reason_code(reason)
    reason_counts = np.zeros(0, dtype=np.int64)
    yaku_seat = [BitCounter() for _ in range(seats)] if wants["yaku"] else None
    yaku_any = BitCounter() if wants["yaku"] else None
    instant = ({reason: BitCounter() for reason in STOPPING_REASONS}
               if wants["yaku"] and wants["end_reason"] else None)
    scores = [IntegerHistogram() for _ in range(seats)]
    payoffs = [IntegerHistogram() for _ in range(seats)] if wants["payoff"] else None
    round_length = IntegerHistogram() if wants["end_turn"] else None
    yaku_sets = IntegerHistogram()
    seat_yaku_sets = [IntegerHistogram() for _ in range(seats)]
    matches = _MatchJoiner(seats) if wants["matches"] else None
    advantage = IntegerHistogram()
    seat_order = [SeatOrderCounts() for _ in range(seats)] if wants["dealer"] else None
    checkpoints = convergence_checkpoints(dataset.n_rows)
    trace: dict[str, list[int]] = {key: [] for key in CONVERGENCE_COLUMNS}
    running = dict.fromkeys(CONVERGENCE_COLUMNS[1:], 0)

    for batch in dataset.iter_batches(columns):
        winner = batch["winner"].astype(np.int64)
        n = len(winner)
        offset = summary.rounds
        summary.rounds += n
        active = (np.stack([batch[f"active_{s}"].astype(bool) for s in range(seats)], axis=1)
                  if wants["active"] else np.ones((n, seats), dtype=bool))
        drawn = winner < 0
        for seat in range(seats):
            counts = summary.seats[seat]
            present = active[:, seat]
            counts.rounds += int(present.sum())
            counts.wins += int((winner == seat).sum())  # only a seat that played can win
            counts.draws += int((drawn & present).sum())
            scores[seat].add(batch[f"score_{seat}"][present])
            if payoffs is not None:
                payoffs[seat].add(batch[f"payoff_{seat}"][present])
        if wants["dealer"]:
            dealer = batch["dealer"].astype(np.int64)
            # The dealer's role counts only in the rounds the dealer played (in Enshu-bana C with
            # 4-5 players the dealer may drop out; the round is then played without them).
            dealer_played = active[np.arange(n), dealer]
            dealer_won = winner == dealer
            other_won = (winner >= 0) & ~dealer_won
            others = active.sum(axis=1) - dealer_played
            summary.dealer.rounds += int(dealer_played.sum())
            summary.dealer.wins += int(dealer_won.sum())
            summary.dealer.draws += int((drawn & dealer_played).sum())
            summary.non_dealer.rounds += int(others.sum())
            summary.non_dealer.wins += int(other_won.sum())
            summary.non_dealer.draws += int(others[drawn].sum())
            # Per round the dealer played: 1{dealer wins} - 1{a non-dealer wins} / (a - 1), kept as
            # counts by outcome and by the number of other seats (exact, and they merge).
            advantage.add(np.zeros(int((dealer_won & dealer_played).sum()), dtype=np.int64))
            advantage.add(np.maximum(others, 1)[other_won & dealer_played])
            if seat_order is not None:
                _count_seat_order(seat_order, batch, dealer, winner, active, payoffs is not None)
        else:
            dealer_played = np.zeros(n, dtype=bool)
            dealer_won = np.zeros(n, dtype=bool)
        if wants["end_reason"]:
            codes = batch["end_reason"].astype(np.int64)
            counted = np.bincount(codes, minlength=len(dataset.end_reason_names))
            reason_counts = np.concatenate([reason_counts, np.zeros(len(counted) - len(reason_counts), dtype=np.int64)])
            reason_counts += counted
        if yaku_seat is not None and yaku_any is not None:  # both or neither
            any_seat = np.zeros(n, dtype=np.uint64)
            for seat in range(seats):
                masks = batch[f"yaku_{seat}"].astype(np.uint64, copy=False)
                present = active[:, seat]
                yaku_seat[seat].add(masks[present])
                any_seat |= np.where(present, masks, np.uint64(0))
            yaku_any.add(any_seat)
            if instant is not None:
                for reason, counter in instant.items():
                    if reason in dataset.end_reason_names:
                        stopped = (codes == dataset.end_reason_names.index(reason)) & (winner >= 0)
                        if stopped.any() and wants["stopping_yaku"]:
                            counter.add(batch["stopping_yaku"][stopped])
                        elif stopped.any():
                            counter.add(_stopping_yaku(batch, winner, stopped, seats, instant_yaku_bits,
                                                       wants["yaku_set"]))
        if wants["yaku_set"]:
            yaku_sets.add(batch["yaku_set"])
            for seat in range(seats):
                seat_yaku_sets[seat].add(batch["yaku_set"][active[:, seat]])
        if round_length is not None:
            round_length.add(batch["end_turn"])
        if matches is not None:
            matches.add(batch)
        if summary.section_counts is not None:
            summary.section_counts.add(batch)
        flag_columns = {"seat0_wins": winner == 0, "seat0_rounds": active[:, 0], "dealer_wins": dealer_won,
                        "dealer_rounds": dealer_played, "draws": drawn}
        inside = checkpoints[(checkpoints > offset) & (checkpoints <= offset + n)]
        if len(inside):
            at = inside - offset - 1
            for key, flags in flag_columns.items():
                cumulative = np.cumsum(flags, dtype=np.int64)
                trace[key].extend((running[key] + cumulative[at]).tolist())
            trace["rounds"].extend(inside.tolist())
        for key, flags in flag_columns.items():
            running[key] += int(flags.sum())

    if summary.rounds == 0:
        raise AnalysisError(f"{dataset.path}: the dataset has no rounds")
    summary.draws = running["draws"]
    summary.dealer_advantage_counts = dict(sorted(advantage.counts.items()))
    summary.dealer_advantage_sums = advantage_sums(summary.dealer_advantage_counts)
    if wants["end_reason"]:
        summary.end_reasons = {name: int(reason_counts[i]) if i < len(reason_counts) else 0
                               for i, name in enumerate(dataset.end_reason_names)}
    if yaku_seat is not None and yaku_any is not None:
        summary.yaku_seat = [counter.bit_counts() for counter in yaku_seat]
        summary.yaku_any = yaku_any.bit_counts()
    if instant is not None:
        summary.stopping_yaku = {reason: counter.bit_counts() for reason, counter in instant.items()
                                 if reason in summary.end_reasons}
    summary.stopping_bits_known = bool(instant_yaku_bits) or wants["stopping_yaku"]
    summary.yaku_set_rounds = dict(sorted(yaku_sets.counts.items()))
    summary.seat_yaku_set_rounds = [dict(sorted(h.counts.items())) for h in seat_yaku_sets]
    summary.scores = scores
    summary.payoffs = payoffs
    summary.round_length = round_length
    summary.matches = matches.finish() if matches is not None else None
    summary.seat_order = seat_order
    import pandas as pd

    summary.convergence = pd.DataFrame(trace, columns=list(CONVERGENCE_COLUMNS))
    return summary


def _count_seat_order(counts: list[SeatOrderCounts], batch: dict[str, np.ndarray], dealer: np.ndarray,
                      winner: np.ndarray, active: np.ndarray, has_payoff: bool) -> None:
    """Add one batch to the counts by place in turn order from the dealer (turn order is
    ``seat -> seat + 1``, so the seat ``k`` places after the dealer is ``(dealer + k) % seats``)."""
    seats = len(counts)
    rows = np.arange(len(dealer))
    drawn = winner < 0
    payoffs = np.stack([batch[f"payoff_{s}"] for s in range(seats)], axis=1) if has_payoff else None
    for k, order in enumerate(counts):
        seat = (dealer + k) % seats
        played = active[rows, seat]
        order.rounds += int(played.sum())
        order.wins += int((winner == seat).sum())  # only a seat that played can win
        order.draws += int((drawn & played).sum())
        if payoffs is not None:
            payoff = payoffs[rows, seat]
            order.payoff_played.add(payoff[played])
            order.payoff_all.add(payoff)


def _stopping_yaku(batch, winner, stopped, seats, instant_yaku_bits, has_yaku_set) -> np.ndarray:
    """The winner's yaku in stopped rounds, restricted to the stopping yaku when known."""
    rows = np.flatnonzero(stopped)
    held = np.zeros(len(rows), dtype=np.uint64)
    for seat in range(seats):
        mine = winner[rows] == seat
        held[mine] = batch[f"yaku_{seat}"][rows[mine]]
    if instant_yaku_bits and has_yaku_set:
        sets = batch["yaku_set"][rows].astype(np.int64)
        allowed = np.array([instant_yaku_bits.get(s, 0) for s in range(int(sets.max()) + 1)], dtype=np.uint64)
        held &= allowed[sets]
    elif instant_yaku_bits:
        union = 0
        for bits in instant_yaku_bits.values():
            union |= int(bits)
        held &= np.uint64(union)
    return held


def _report_section(dataset: RunDataset) -> Any:
    """The game's own report section (``simcore.games.ReportSection``), when the run has every
    column it reads; else None."""
    if dataset.game not in known_game_names():
        return None
    section = get_game(dataset.game).report_section()
    if section is None or not dataset.has_columns(*section.columns(dataset.seats)):
        return None
    return section


def _yaku_sets(dataset: RunDataset) -> dict[int, tuple[int, int]] | None:
    """(members, instant-win members) bitsets per yaku set, from the run's game and rules (None
    if the game has no yaku sets or the rules cannot be read)."""
    if dataset.game not in known_game_names():
        return None
    rules = dataset.rules(required=False)
    return None if rules is None else get_game(dataset.game).yaku_sets(rules)


def _instant_bits(dataset: RunDataset) -> dict[int, int]:
    """Instant-win yaku per yaku set, from the run's rules (empty if unknown)."""
    sets = _yaku_sets(dataset)
    return {} if sets is None else {yaku_set: instant for yaku_set, (_, instant) in sets.items()}


def yaku_in_set(dataset: RunDataset) -> dict[int, int] | None:
    """Member bitset of each yaku set, from the run's rules (None if unknown)."""
    sets = _yaku_sets(dataset)
    return None if sets is None else {yaku_set: members for yaku_set, (members, _) in sets.items()}
