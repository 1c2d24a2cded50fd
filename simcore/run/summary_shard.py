"""Summary runs (``fudasim run --summary``): per shard, the exact counts every report table needs
instead of the rows.

A summary shard is a small Parquet file with the name, atomic commit, manifest entry (rows,
size, sha256) and footer metadata (``fudasim.run``, ``fudasim.rules``) of a row shard; its rows
are *cells* ``(key, index, value)``: ``value`` (int64) is the count of ``key`` at ``index``
(a seat, a yaku bit, an end-reason code, a histogram's value, a convergence checkpoint...),
and only non-zero cells are stored.  Cells of several shards add up exactly; ``analysis``
(``analysis.summary_io``) turns their sum into the report's ``RunSummary``.

The counts come from the engines' output matrices by one numba pass per chunk of units
(``simcore.summary_nb``), never by writing or copying the rows.  A shard plays its units in
chunks of at most ``CHUNK_BYTES`` of output, one thread a chunk (``ShardCounter``), so memory stays
that of one chunk a thread whatever the shard's size.

With ``--paired-with BASELINE`` each chunk is also played as the baseline run played it (its
plan is in the baseline's manifest, its rules text in its shards) and the sums, sums of squares
and cross terms of the per-round differences of ``fudasim compare``'s metrics are kept (cells
``pair.<metric>``), so that ``fudasim compare BASELINE RUN`` gives its paired tables.
"""

from __future__ import annotations

import json
import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from simcore import dataset as ds
from simcore import storage
from simcore import summary_layout as layout
from simcore.errors import RunError
from simcore.kernels.stack import roomy
from simcore.record import whole
from simcore.summary_layout import CONVERGENCE_FLAGS, PAIR_FIELDS, SCALARS, checkpoints

__all__ = ["SUMMARY_ROWS_PER_SHARD", "BLOCK_ROWS", "CHUNK_BYTES", "SummarySpec", "BaselineSpec", "ShardAggregate",
           "summary_spec", "compute_summary_shard", "ShardCounter", "baseline_units_only", "summary_table",
           "read_cells", "STOPPING_REASONS", "checkpoints", "PAIR_FIELDS"]

# Rows per summary shard by default: 16 times a row shard's, so a run of 10^9 rounds has a few
# hundred small files (see docs/summary-runs.md for the sizes).
SUMMARY_ROWS_PER_SHARD = 1 << 22
# A counting thread plays and counts a chunk of at most CHUNK_BYTES of output (and BLOCK_ROWS
# rows) at a time: its buffers then stay in the processor's cache between the engine's writing
# and the count's reading, the engine's per-call cost is a fraction of a percent, and the
# threads' last chunks end close together (benchmarks/summary.py measures the choice).
CHUNK_BYTES = 1 << 22
BLOCK_ROWS = 1 << 15
STOPPING_REASONS = ("instant_win", "uchikiri")


@dataclass(frozen=True)
class BaselineSpec:
    """The run a summary run is paired with (``--paired-with``): enough to play its units again."""

    path: str
    rules_text: str
    rules_name: str
    rules_source: str
    rules_sha256: str
    overrides: dict[str, Any]
    policies: tuple[str, ...]
    seed: int
    units: int
    plan: dict[str, Any]  # the baseline's manifest without its shard entries


@dataclass(frozen=True)
class SummarySpec:
    """How a summary run's shards count: what the numba pass reads and where it checkpoints."""

    rows_per_unit: int | None  # every unit fills exactly this many rows (None: it varies)
    total_rows: int | None
    block_units: int
    stop_codes: tuple[int, ...]
    stop_mode: int
    stop_allowed: tuple[int, ...]
    stopping_known: bool
    end_reasons: tuple[str, ...]
    yaku: tuple[tuple[str, int], ...]  # (key, bit)
    match_play: bool
    baseline: BaselineSpec | None = None


def _yaku_bits(plan: dict[str, Any]) -> tuple[tuple[str, int], ...]:
    out = []
    for position, entry in enumerate(plan.get("yaku") or []):
        if isinstance(entry, dict):
            out.append((str(entry.get("key", f"bit{position}")), int(entry.get("bit", position))))
        else:
            out.append((str(entry), position))
    return tuple(out)


def summary_spec(plan: dict[str, Any], game: Any, compiled: Any, baseline: BaselineSpec | None = None) -> SummarySpec:
    """The ``SummarySpec`` of a planned summary run."""
    players = int(plan["players"])
    names = set(game.schema(players).names)
    reasons = tuple(plan["end_reasons"])
    stop_codes = tuple(reasons.index(r) if r in reasons else -1 for r in STOPPING_REASONS)
    allowed = [0] * layout.MAX_YAKU_SETS
    sets = game.yaku_sets(compiled.rules)
    instant = {} if sets is None else {k: int(bits) for k, (_, bits) in sets.items()}
    if "stopping_yaku" in names:
        mode = 3
    elif instant and "yaku_set" in names:
        mode = 1
        for yaku_set, bits in instant.items():
            if 0 <= yaku_set < layout.MAX_YAKU_SETS:
                allowed[yaku_set] = bits
    elif instant:
        mode = 2
        for bits in instant.values():
            allowed[0] |= bits
    else:
        mode = 0
    stride = int(plan["round_stride"])
    fixed = plan.get("rounds") is not None
    row_bytes = 8 * (game.n_int + game.n_mask)
    block_units = max(1, min(BLOCK_ROWS, CHUNK_BYTES // row_bytes) // stride)
    return SummarySpec(rows_per_unit=stride if fixed else None,
                       total_rows=int(plan["rounds"]) if fixed else None,
                       block_units=block_units, stop_codes=stop_codes, stop_mode=mode,
                       stop_allowed=tuple(allowed), stopping_known=bool(instant) or mode == 3,
                       end_reasons=reasons, yaku=_yaku_bits(plan), match_play=plan.get("rounds_per_match") is not None,
                       baseline=baseline)


# --- where the summary's columns are in the engines' matrices ------------------------------------

_SOURCES: dict[tuple[str, int], tuple[int, dict[str, tuple[str, int]]]] = {}


def column_sources(game: Any, players: int) -> tuple[int, dict[str, tuple[str, int]]]:
    """The valid-row flag's matrix row, and ``{column: ("int" | "mask", matrix row)}``.

    Found by asking the game's own ``columns`` about two-row probe matrices, one matrix row
    changed at a time: the record layout stays the game's business.
    """
    key = (game.name, players)
    if key in _SOURCES:
        return _SOURCES[key]
    n_int, n_mask = game.n_int, game.n_mask
    base_ints = np.ones((n_int, 2), dtype=np.int64)
    base_masks = np.zeros((n_mask, 2), dtype=np.uint64)
    base = game.columns(base_ints, base_masks, players)
    sources: dict[str, tuple[str, int]] = {}
    valid = -1
    for index in range(n_int):
        ints = base_ints.copy()
        ints[index, 1] = 0
        probe = game.columns(ints, base_masks, players)
        if len(probe["winner"]) == 1:
            valid = index
            continue
        for name, values in probe.items():
            if values[1] != base[name][1]:
                sources[name] = ("int", index)
    for index in range(n_mask):
        masks = base_masks.copy()
        masks[index, 1] = 1
        probe = game.columns(base_ints, masks, players)
        for name, values in probe.items():
            if values[1] != base[name][1]:
                sources[name] = ("mask", index)
    _SOURCES[key] = (valid, sources)
    return valid, sources


# --- one shard ------------------------------------------------------------------------------------


@dataclass
class ShardAggregate:
    """The counts of one shard (or of several merged), as named int64 arrays."""

    seats: int
    arrays: dict[str, np.ndarray] = field(default_factory=dict)
    extra: dict[str, dict[int, int]] = field(default_factory=dict)  # histogram values outside the window
    convergence: dict[int, np.ndarray] = field(default_factory=dict)  # global row -> in-shard totals
    pairs: dict[str, np.ndarray] = field(default_factory=dict)
    changes: np.ndarray = field(default_factory=lambda: np.zeros(3, dtype=np.int64))
    rounds: int = 0

    @classmethod
    def empty(cls, seats: int, stops: int) -> ShardAggregate:
        """Zeroed arrays for ``seats`` seats and ``stops`` stopping reasons."""
        bins = layout.HISTOGRAM_BINS
        arrays = {
            "scalars": np.zeros(len(layout.SCALARS), dtype=np.int64),
            "seat_counts": np.zeros((3, seats), dtype=np.int64),
            "advantage": np.zeros(seats + 1, dtype=np.int64),
            "reasons": np.zeros(64, dtype=np.int64),
            "yaku_seat": np.zeros((seats, 64), dtype=np.int64),
            "yaku_any": np.zeros((1, 64), dtype=np.int64),
            "stopping": np.zeros((max(stops, 1), 64), dtype=np.int64),
            "yaku_sets": np.zeros(layout.MAX_YAKU_SETS, dtype=np.int64),
            "seat_yaku_sets": np.zeros((seats, layout.MAX_YAKU_SETS), dtype=np.int64),
            "scores": np.zeros((seats, bins), dtype=np.int64),
            "payoffs": np.zeros((seats, bins), dtype=np.int64),
            "end_turns": np.zeros((1, bins), dtype=np.int64),
            "rounds_per_match": np.zeros((1, bins), dtype=np.int64),
            "match_seat_wins": np.zeros(seats, dtype=np.int64),
        }
        return cls(seats=seats, arrays=arrays)

    def add(self, other: ShardAggregate) -> None:
        """Add ``other``'s counts, out-of-window values and paired sums (not its convergence)."""
        for name, values in other.arrays.items():
            self.arrays[name] += values
        for key, bucket in other.extra.items():
            mine = self.extra.setdefault(key, {})
            for value, count in bucket.items():
                mine[value] = mine.get(value, 0) + count
        for name, sums in other.pairs.items():
            self.pairs[name] = self.pairs[name] + sums if name in self.pairs else sums.copy()
        self.changes += other.changes
        self.rounds += other.rounds


def _slots(game: Any, players: int, matches: bool) -> tuple[np.ndarray, np.ndarray, int]:
    valid, sources = column_sources(game, players)
    if not matches:  # single rounds: the match columns say nothing the report shows
        sources = {k: v for k, v in sources.items() if k not in ("match_end", "round_in_match", "match")}
    columns = np.full(len(layout.COLUMN_SLOTS), -1, dtype=np.int64)
    for position, name in enumerate(layout.COLUMN_SLOTS):
        if name == "valid":
            columns[position] = valid
        elif name in sources:
            columns[position] = sources[name][1]
    seat_columns = np.full((len(layout.SEAT_SLOTS), players), -1, dtype=np.int64)
    for position, name in enumerate(layout.SEAT_SLOTS):
        rows = [sources.get(f"{name}_{seat}") for seat in range(players)]
        if all(row is not None for row in rows):
            seat_columns[position] = [row[1] for row in rows if row is not None]
    return columns, seat_columns, valid


SPILL_ROWS = 4096  # values outside the histograms' window listed per chunk before the numpy fallback
_SPILL_KEYS = ("score_{}", "payoff_{}", "end_turn", "rounds_per_match")


def _count_spill(aggregate: ShardAggregate, spill: np.ndarray, overflow: np.ndarray) -> None:
    """Add the values outside the histograms' window that the numba pass listed, as rows (kind,
    seat, value), except those of a kind it flagged (``_count_overflow`` counts those anew)."""
    keep = overflow[spill[:, 0]] == 0
    rows, counts = np.unique(spill[keep], axis=0, return_counts=True)
    for (kind, seat, value), count in zip(rows.tolist(), counts.tolist(), strict=True):
        bucket = aggregate.extra.setdefault(_SPILL_KEYS[kind].format(seat), {})
        bucket[value] = bucket.get(value, 0) + count


def _count_overflow(aggregate: ShardAggregate, columns: dict[str, np.ndarray], overflow: np.ndarray,
                    seats: int) -> None:
    """Count the histogram values of the kinds the numba pass flagged (values outside -4096..4095
    beyond those it could list): every value outside the window of those columns."""
    low, high = -layout.HISTOGRAM_OFFSET, layout.HISTOGRAM_OFFSET

    def extra(key: str, values: np.ndarray) -> None:
        values = values.astype(np.int64)
        outside = values[(values < low) | (values >= high)]
        if outside.size:
            unique, counts = np.unique(outside, return_counts=True)
            bucket = aggregate.extra.setdefault(key, {})
            for value, count in zip(unique.tolist(), counts.tolist(), strict=True):
                bucket[value] = bucket.get(value, 0) + count

    active = [columns[f"active_{s}"].astype(bool) if f"active_{s}" in columns else None for s in range(seats)]
    for slot, name in ((0, "score"), (1, "payoff")):
        if overflow[slot]:
            for seat in range(seats):
                values = columns[f"{name}_{seat}"]
                extra(f"{name}_{seat}", values if active[seat] is None else values[active[seat]])
    if overflow[2]:
        extra("end_turn", columns["end_turn"])
    if overflow[3]:
        last = columns["match_end"].astype(bool)
        extra("rounds_per_match", columns["round_in_match"][last].astype(np.int64) + 1)


Play = Callable[[int, int], "tuple[np.ndarray, np.ndarray] | None"]


def compute_summary_shard(game: Any, compiled: Any, spec: SummarySpec, players: int, first_unit: int,
                          n_units: int, new_play: Callable[[], Play], new_baseline_play: Callable[[], Play] | None = None,
                          threads: int = 1) -> ShardAggregate:
    """Play a shard's units chunk by chunk and count them (``ShardCounter`` for one shard)."""
    with ShardCounter(game, compiled, spec, players, new_play, new_baseline_play, threads) as counter:
        return counter.count(first_unit, n_units)


@dataclass
class _Worker:
    """What one counting thread owns: the engine on buffers of its own, and counts of its own
    for each shard it is counting chunks of (by the shard's submission key)."""

    play: Play
    baseline_play: Play | None
    aggregates: dict[int, ShardAggregate] = field(default_factory=dict)


class ShardCounter:
    """Plays a run's shards and counts them, chunk by chunk, on ``threads`` threads.

    A shard's units are cut into chunks of at most ``spec.block_units`` units (and at least
    ``CHUNKS_PER_THREAD`` chunks a thread, so a short shard of slow units still uses every
    thread).  Each thread plays a chunk on the engine single-threaded, into buffers of its own
    small enough to stay in the processor's cache, counts it at once into counts of its own
    (``simcore.summary_nb``), and takes the next chunk; a shard's counts are the sum of the
    threads'.  Counts are sums, so the order the chunks are played in changes nothing; the
    convergence totals (running totals at given rows) are chained in chunk order at the end.

    Parameters
    ----------
    game, compiled : the run's game and compiled rules
    spec : SummarySpec
    players : int
    new_play : callable returning ``play(first_unit, n_units) -> (int64[n_int, rows], uint64[n_mask, rows])``
        Called once per thread: the run's engine on buffers of its own with room for
        ``spec.block_units`` units.
    new_baseline_play : callable like ``new_play``, optional
        The baseline run's engine (``--paired-with``); its ``play`` returns None for units the
        baseline does not have.
    threads : int
        Counting threads; each plays with one engine thread (1: the calling thread alone, the
        engine with its own threads).
    """

    def __init__(self, game: Any, compiled: Any, spec: SummarySpec, players: int, new_play: Callable[[], Play],
                 new_baseline_play: Callable[[], Play] | None = None, threads: int = 1) -> None:
        self.game, self.compiled, self.spec, self.players = game, compiled, spec, players
        self.threads = max(1, int(threads))
        self.columns, self.seat_columns, _ = _slots(game, players, spec.match_play)
        self.stop_codes = np.array(spec.stop_codes, dtype=np.int64)
        self.allowed = np.array(spec.stop_allowed, dtype=np.uint64)
        self.grid = (checkpoints(spec.total_rows) if spec.total_rows is not None
                     else np.zeros(0, dtype=np.int64))
        self.last_checkpoint = int(self.grid[-1]) if len(self.grid) else -1
        self.workers = [_Worker(new_play(), new_baseline_play() if new_baseline_play is not None else None)
                        for _ in range(self.threads)]
        # (shard key, chunk index, first unit, units, where the result goes), or None: stop
        self.tasks: queue.SimpleQueue[tuple[int, int, int, int, queue.SimpleQueue] | None] = queue.SimpleQueue()
        self.submitted: dict[int, tuple[list[tuple[int, int]], queue.SimpleQueue]] = {}
        self.next_key = 0
        self.stopping = False
        self.pool = [threading.Thread(target=roomy, args=(self._serve, worker), name=f"fudasim-summary-{k}",
                                      daemon=True) for k, worker in enumerate(self.workers)] if self.threads > 1 else []
        for thread in self.pool:
            thread.start()

    def __enter__(self) -> ShardCounter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop the counting threads (a chunk being played is finished, no other is begun)."""
        self.stopping = True
        for _ in self.pool:
            self.tasks.put(None)
        for thread in self.pool:
            thread.join()
        self.pool = []

    def chunks(self, n_units: int) -> list[tuple[int, int]]:
        """``[(lo, hi), ...]``: the shard's chunks of units, in order."""
        count = max(1, -(-n_units // self.spec.block_units))
        if self.threads > 1:
            count = max(count, min(self.threads * CHUNKS_PER_THREAD, n_units))
        return [(k * n_units // count, (k + 1) * n_units // count) for k in range(count)]

    def count(self, first_unit: int, n_units: int) -> ShardAggregate:
        """The counts of units ``first_unit .. first_unit + n_units - 1``."""
        return self.result(self.submit(first_unit, n_units))

    def submit(self, first_unit: int, n_units: int) -> int:
        """Hand a shard's chunks to the counting threads; returns the key ``result`` takes.

        Shards submitted ahead keep the threads busy while the caller writes the last one's
        file, and no thread waits for another's last chunk between shards.  (With one thread the
        chunks are played by ``result``.)
        """
        key = self.next_key
        self.next_key += 1
        parts = [(first_unit + lo, hi - lo) for lo, hi in self.chunks(n_units) if hi > lo]
        results: queue.SimpleQueue = queue.SimpleQueue()
        self.submitted[key] = (parts, results)
        if self.pool:
            for index, (unit, size) in enumerate(parts):
                self.tasks.put((key, index, unit, size, results))
        return key

    def result(self, key: int) -> ShardAggregate:
        """The counts of the shard ``submit`` returned ``key`` for (raises the error of a chunk
        that failed; the shard's counts are then dropped)."""
        parts, results = self.submitted.pop(key)
        try:
            if not self.pool:
                worker = self.workers[0]
                # one frame with room for every kernel call (simcore/kernels/stack.py)
                traces = roomy(lambda: [self._chunk(worker, key, unit, size) for unit, size in parts])
            else:
                done: dict[int, Any] = dict(results.get() for _ in parts)
                traces = [done[index] for index in range(len(parts))]
                for trace in traces:
                    if isinstance(trace, BaseException):
                        raise trace
        finally:
            pieces = [worker.aggregates.pop(key, None) for worker in self.workers]
        aggregate = ShardAggregate.empty(self.players, len(self.spec.stop_codes))
        for piece in pieces:
            if piece is not None:
                aggregate.add(piece)
        # Chain the convergence totals: each chunk's are its own running totals from zero.
        before = np.zeros(5, dtype=np.int64)
        for (rows, values), total in traces:
            for position, row in enumerate(rows):
                aggregate.convergence[row] = values[:, position] + before
            before = before + total
        aggregate.rounds = int(aggregate.arrays["scalars"][0])
        return aggregate

    def _serve(self, worker: _Worker) -> None:
        """A counting thread: play and count the chunks it takes, with one engine thread."""
        import numba

        numba.set_num_threads(1)  # per thread in numba: the engine plays this chunk alone
        while (task := self.tasks.get()) is not None:
            key, index, unit, size, results = task
            if self.stopping:
                continue
            try:
                results.put((index, self._chunk(worker, key, unit, size)))
            except BaseException as error:  # handed to result(), which raises it
                results.put((index, error))

    def _chunk(self, worker: _Worker, key: int, unit: int,
               n_units: int) -> tuple[tuple[list[int], np.ndarray], np.ndarray]:
        """Play and count one chunk of shard ``key``; returns its convergence trace (global rows
        and running totals from the chunk's start) and its five convergence totals."""
        from simcore.summary_nb import summarise_block_nb

        counts = worker.aggregates.get(key)
        if counts is None:
            counts = worker.aggregates[key] = ShardAggregate.empty(self.players, len(self.spec.stop_codes))
        spec, a = self.spec, counts.arrays
        ints, masks = worker.play(unit, n_units)  # type: ignore[misc]
        rows = ints.shape[1]
        offset = unit * spec.rows_per_unit if spec.rows_per_unit is not None else None  # rows before the chunk
        if offset is not None and offset < self.last_checkpoint:
            inside = self.grid[(self.grid > offset) & (self.grid <= offset + rows)]
            local = inside - offset
        else:
            inside = local = _NO_ROWS
        convergence = np.zeros((5, len(local)), dtype=np.int64)
        overflow = np.zeros(5, dtype=np.int64)
        spill = np.empty((SPILL_ROWS, 3), dtype=np.int64)
        start = a["scalars"][_CONV:_CONV + 5].copy()
        summarise_block_nb(whole(ints), whole(masks), self.columns, self.seat_columns, self.stop_codes,
                           spec.stop_mode, self.allowed, local, *[a[name] for name in _ARRAY_ORDER], convergence,
                           overflow, spill, 0, rows)
        total = a["scalars"][_CONV:_CONV + 5] - start
        convergence -= start[:, None]
        if overflow[4]:
            _count_spill(counts, spill[:overflow[4]], overflow)
        if overflow[4] == SPILL_ROWS and overflow[:4].any():  # a full spill: recount those columns
            _count_overflow(counts, self.game.columns(ints, masks, self.players), overflow, self.players)
        if worker.baseline_play is not None:
            baseline_block = worker.baseline_play(unit, n_units)
            if baseline_block is not None:
                named = self.game.columns(ints, masks, self.players)
                base_named = self.game.columns(baseline_block[0], baseline_block[1], self.players)
                _add_pairs(counts, spec, base_named, named, self.players)
        return (inside.tolist(), convergence), total


CHUNKS_PER_THREAD = 4
_NO_ROWS = np.zeros(0, dtype=np.int64)
_CONV = SCALARS.index("conv_seat0_wins")  # the first of the five convergence running totals
# The order of summarise_block_nb's count arguments.
_ARRAY_ORDER = ("scalars", "seat_counts", "advantage", "reasons", "yaku_seat", "yaku_any", "stopping", "yaku_sets",
                "seat_yaku_sets", "scores", "payoffs", "end_turns", "rounds_per_match", "match_seat_wins")
assert tuple(ShardAggregate.empty(1, 1).arrays) == _ARRAY_ORDER


# --- paired sums (fudasim compare's metrics, analysis/compare.py) ---------------------------------


def pair_metric_values(spec_reasons: tuple[str, ...], yaku: tuple[tuple[str, int], ...],
                       other_reasons: tuple[str, ...], other_yaku: tuple[tuple[str, int], ...],
                       batch: dict[str, np.ndarray], players: int) -> dict[str, tuple[np.ndarray, np.ndarray | None]]:
    """Each compare metric's per-round values in ``batch``, and the rounds it counts (or None).

    ``spec_reasons``/``yaku`` are this batch's run's end reasons and ``(key, bit)`` yaku;
    ``other_reasons``/``other_yaku`` the other run's (metrics are those both runs can give).
    The names and values are those of ``analysis.compare.comparison_metrics``: rates as bool
    arrays, means as int64.
    """
    winner = batch["winner"].astype(np.int64)
    n = len(winner)
    active = all(f"active_{s}" in batch for s in range(players))
    played = [batch[f"active_{s}"].astype(bool) if active else None for s in range(players)]
    out: dict[str, tuple[np.ndarray, np.ndarray | None]] = {}
    for seat in range(players):
        out[f"win_{seat}"] = (winner == seat, played[seat])
    out["draw"] = (winner < 0, None)
    if "dealer" in batch:
        dealer = batch["dealer"].astype(np.int64)
        dealer_played = None
        if active:
            flags = np.stack([p for p in played if p is not None], axis=1)
            dealer_played = flags[np.arange(n), dealer]
        out["dealer_win"] = (winner == dealer, dealer_played)
    if "end_reason" in batch:
        codes = batch["end_reason"].astype(np.int64)
        for reason in dict.fromkeys(spec_reasons + other_reasons):
            values = codes == spec_reasons.index(reason) if reason in spec_reasons else np.zeros(n, dtype=bool)
            out[f"end_{reason}"] = (values, None)
    if all(f"yaku_{s}" in batch for s in range(players)):
        bits = dict(yaku)
        # "any seat completed it": one test on the union of the seats' yaku.
        union = np.bitwise_or.reduce([batch[f"yaku_{s}"].astype(np.uint64) for s in range(players)])
        for key in dict.fromkeys([k for k, _ in yaku] + [k for k, _ in other_yaku]):
            values = ((union & np.uint64(1 << bits[key])) != 0) if key in bits else np.zeros(n, dtype=bool)
            out[f"yaku_{key}"] = (values, None)
    for seat in range(players):
        out[f"score_{seat}"] = (batch[f"score_{seat}"].astype(np.int64), played[seat])
    if all(f"payoff_{s}" in batch for s in range(players)):
        for seat in range(players):
            out[f"payoff_{seat}"] = (batch[f"payoff_{seat}"].astype(np.int64), played[seat])
    if "end_turn" in batch:
        out["end_turn"] = (batch["end_turn"].astype(np.int64), None)
    return out


def _pair_sums(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``PAIR_FIELDS`` of paired values: counts for 0/1 (bool) values, sums of products otherwise."""
    if x.dtype == np.bool_:
        only_x = int(np.count_nonzero(x & ~y))
        only_y = int(np.count_nonzero(y & ~x))
        total_x, total_y = int(np.count_nonzero(x)), int(np.count_nonzero(y))
        return np.array([len(x), total_x, total_x, total_y, total_y, only_y - only_x, only_x + only_y],
                        dtype=np.int64)
    d = y - x
    return np.array([len(x), x.sum(), (x * x).sum(), y.sum(), (y * y).sum(), d.sum(), (d * d).sum()],
                    dtype=np.int64)


def _add_pairs(aggregate: ShardAggregate, spec: SummarySpec, base: dict[str, np.ndarray],
               other: dict[str, np.ndarray], players: int) -> None:
    baseline = spec.baseline
    assert baseline is not None
    base_rounds, other_rounds = base["round"], other["round"]
    if np.array_equal(base_rounds, other_rounds):  # the usual case: the same rounds in both
        common = base_rounds
    else:
        common = np.intersect1d(base_rounds, other_rounds, assume_unique=True)
        base = {k: v[np.searchsorted(base_rounds, common)] for k, v in base.items()}
        other = {k: v[np.searchsorted(other_rounds, common)] for k, v in other.items()}
    if not len(common):
        return
    base_reasons = tuple(baseline.plan.get("end_reasons") or ())
    base_yaku = _yaku_bits(baseline.plan)
    xs = pair_metric_values(base_reasons, base_yaku, spec.end_reasons, spec.yaku, base, players)
    ys = pair_metric_values(spec.end_reasons, spec.yaku, base_reasons, base_yaku, other, players)
    for name, (x, played_x) in xs.items():
        if name not in ys:
            continue
        y, played_y = ys[name]
        if played_x is not None and played_y is not None:
            both = played_x & played_y
            x, y = x[both], y[both]
        sums = _pair_sums(x, y)
        if name in aggregate.pairs:
            aggregate.pairs[name] += sums
        else:
            aggregate.pairs[name] = sums
    changes = aggregate.changes
    changes[0] += len(common)
    changes[1] += int((other["winner"] != base["winner"]).sum())
    same = np.ones(len(common), dtype=bool)
    if "field_dealt" in base:
        same &= other["field_dealt"] == base["field_dealt"]
    hands = [f"hand_dealt_{s}" for s in range(players) if f"hand_dealt_{s}" in base]
    if hands:
        mine = np.bitwise_or.reduce([other[c] for c in hands])
        theirs = np.bitwise_or.reduce([base[c] for c in hands])
        same &= mine == theirs
    changes[2] += int(same.sum())


# --- cells: the shard file's rows ------------------------------------------------------------------


def _histogram_cells(key: str, histogram: np.ndarray, extra: dict[int, int] | None) -> list[tuple[str, int, int]]:
    present = np.flatnonzero(histogram)
    counts: dict[int, int] = dict(zip((present - layout.HISTOGRAM_OFFSET).tolist(), histogram[present].tolist(),
                                      strict=True))
    for value, count in (extra or {}).items():
        counts[value] = counts.get(value, 0) + count
    return [(key, value, count) for value, count in sorted(counts.items())]


def _array_cells(key: str, values: np.ndarray) -> list[tuple[str, int, int]]:
    present = np.flatnonzero(values)
    return [(key, int(i), int(values[i])) for i in present.tolist()]


def aggregate_cells(aggregate: ShardAggregate, spec: SummarySpec) -> list[tuple[str, int, int]]:
    """The shard's non-zero counts as ``(key, index, value)`` cells (the file's rows).

    Keys: ``scalar.<name>`` (``simcore.summary_nb.SCALARS``); ``seat_rounds``, ``seat_wins``,
    ``seat_draws`` by seat; ``advantage`` (0: the dealer won; k: a non-dealer won with k other
    seats playing; over rounds the dealer played); ``end_reason`` by code (the run's
    ``end_reasons``); ``yaku_seat_<s>``, ``yaku_any``, ``stopping_<reason>`` by yaku bit;
    ``yaku_set``, ``seat_yaku_set_<s>`` by yaku set; ``score_<s>``, ``payoff_<s>``, ``end_turn``,
    ``rounds_per_match`` by value; ``match_seat_wins`` by seat; ``convergence_<flag>`` by global
    row (the shard's running total after that many rows of the run); ``pair.<metric>`` by
    ``PAIR_FIELDS`` position; ``pair_changes`` (paired rounds, winner changed, same deal).
    """
    a = aggregate.arrays
    cells: list[tuple[str, int, int]] = []
    for position, name in enumerate(layout.SCALARS):
        if not a["scalars"][position]:
            continue
        cells.append((f"scalar.{name}", 0, int(a["scalars"][position])))
    for position, name in enumerate(("seat_rounds", "seat_wins", "seat_draws")):
        cells += _array_cells(name, a["seat_counts"][position])
    cells += _array_cells("advantage", a["advantage"])
    cells += _array_cells("end_reason", a["reasons"])
    for seat in range(aggregate.seats):
        cells += _array_cells(f"yaku_seat_{seat}", a["yaku_seat"][seat])
    cells += _array_cells("yaku_any", a["yaku_any"][0])
    for position, code in enumerate(spec.stop_codes):
        if code >= 0:
            cells += _array_cells(f"stopping_{STOPPING_REASONS[position]}", a["stopping"][position])
    cells += _array_cells("yaku_set", a["yaku_sets"])
    for seat in range(aggregate.seats):
        cells += _array_cells(f"seat_yaku_set_{seat}", a["seat_yaku_sets"][seat])
    for seat in range(aggregate.seats):
        cells += _histogram_cells(f"score_{seat}", a["scores"][seat], aggregate.extra.get(f"score_{seat}"))
        cells += _histogram_cells(f"payoff_{seat}", a["payoffs"][seat], aggregate.extra.get(f"payoff_{seat}"))
    cells += _histogram_cells("end_turn", a["end_turns"][0], aggregate.extra.get("end_turn"))
    cells += _histogram_cells("rounds_per_match", a["rounds_per_match"][0], aggregate.extra.get("rounds_per_match"))
    cells += _array_cells("match_seat_wins", a["match_seat_wins"])
    for row in sorted(aggregate.convergence):
        totals = aggregate.convergence[row]
        for position, flag in enumerate(CONVERGENCE_FLAGS):
            cells.append((f"convergence_{flag}", int(row), int(totals[position])))
    for name in sorted(aggregate.pairs):
        for position, value in enumerate(aggregate.pairs[name].tolist()):
            cells.append((f"pair.{name}", position, int(value)))
    if spec.baseline is not None:
        for position, value in enumerate(aggregate.changes.tolist()):
            cells.append(("pair_changes", position, int(value)))
    return cells


CELL_SCHEMA = pa.schema([pa.field("key", pa.dictionary(pa.int16(), pa.string()), nullable=False),
                         pa.field("index", pa.int64(), nullable=False),
                         pa.field("value", pa.int64(), nullable=False)])


def summary_table(cells: list[tuple[str, int, int]], info: dict[str, Any], rules_text: str) -> pa.Table:
    """The shard file's Arrow table: one row per cell, with the run metadata and rules text."""
    keys = [c[0] for c in cells]
    names = list(dict.fromkeys(keys))
    lookup = {name: code for code, name in enumerate(names)}
    codes = np.array([lookup[k] for k in keys], dtype=np.int16)
    dictionary = pa.array(names, type=pa.string())
    key_column = pa.DictionaryArray.from_arrays(pa.array(codes, type=pa.int16()), dictionary)
    index = pa.array(np.array([c[1] for c in cells], dtype=np.int64))
    value = pa.array(np.array([c[2] for c in cells], dtype=np.int64))
    metadata = {b"fudasim.run": json.dumps(info, sort_keys=True).encode("utf-8"),
                b"fudasim.rules": rules_text.encode("utf-8")}
    return pa.Table.from_arrays([key_column, index, value], schema=CELL_SCHEMA.with_metadata(metadata))


def read_cells(path: str | Path | storage.StorePath) -> dict[str, dict[int, int]]:
    """A summary shard's cells as ``{key: {index: value}}``.

    Raises
    ------
    DatasetError
        The file cannot be read or is not a summary shard.
    """
    try:
        table = storage.read_table(storage.location(path))
    except (OSError, pa.ArrowException) as error:
        raise ds.DatasetError(f"{path}: cannot read summary shard: {' '.join(str(error).split())}") from None
    if table.column_names != ["key", "index", "value"]:
        raise ds.DatasetError(f"{path}: not a summary shard (columns {', '.join(table.column_names)})")
    keys = table.column("key").to_pylist()
    indices = table.column("index").to_numpy().tolist()
    values = table.column("value").to_numpy().tolist()
    out: dict[str, dict[int, int]] = {}
    for key, index, value in zip(keys, indices, values, strict=True):
        bucket = out.setdefault(str(key), {})
        bucket[int(index)] = bucket.get(int(index), 0) + int(value)
    return out


# --- the baseline of a paired summary run -----------------------------------------------------------


def load_baseline(path: str, plan: dict[str, Any]) -> BaselineSpec:
    """The run at ``path`` as the baseline of the summary run ``plan`` (``--paired-with``).

    Raises ``RunError`` (one line) unless it is a complete fudasim run of the same game, seed,
    deck, unit kind and engine version.
    """
    flag = f"--paired-with {path}"
    try:
        manifest = ds.read_manifest(path)
    except ds.DatasetError as error:
        raise RunError(f"{flag}: {error}") from None
    entries = manifest.get(ds.SHARD_FILES) or []
    if not entries:
        raise RunError(f"{flag}: the run has no shard to read its rules from")
    first = Path(path) / str(entries[0].get("file"))
    try:
        metadata = ds.pq.read_schema(first).metadata or {}
        rules_text = metadata[b"fudasim.rules"].decode("utf-8")
    except (OSError, KeyError, pa.ArrowException, UnicodeDecodeError):
        raise RunError(f"{flag}: {first} holds no rules text (fudasim.rules)") from None
    for key, what in (("game", "game"), ("seed", "seed"), ("engine_version", "engine version"),
                      ("unit_kind", "unit kind"), ("rounds_per_match", "rounds per match"),
                      ("players", "number of players")):
        if manifest.get(key) != plan.get(key):
            raise RunError(f"{flag}: a different {what} ({manifest.get(key)!r} there, {plan.get(key)!r} here); "
                           f"pairing needs the same deals")
    overrides = manifest.get("option_overrides")
    return BaselineSpec(path=str(Path(path).resolve()), rules_text=rules_text,
                        rules_name=str(manifest.get("rules_name")), rules_source=str(manifest.get("rules_source")),
                        rules_sha256=str(manifest.get("rules_sha256")),
                        overrides=dict(overrides) if isinstance(overrides, dict) else dict(manifest.get("options") or {}),
                        policies=tuple(str(p) for p in manifest["policies"]), seed=int(manifest["seed"]),
                        units=int(manifest["units"]),
                        plan={k: v for k, v in manifest.items() if k != ds.SHARD_FILES})


def baseline_identity(baseline: BaselineSpec) -> dict[str, Any]:
    """What a summary run's manifest records of its baseline (``paired_with``)."""
    plan = baseline.plan
    return {"path": baseline.path, **{key: plan.get(key) for key in ds.RUN_IDENTITY}, "units": plan.get("units"),
            "game": plan.get("game"), "rules_name": plan.get("rules_name")}


def baseline_units_only(play: Play, baseline: BaselineSpec) -> Play:
    """``play`` limited to the units the baseline run has: units past its end are played as
    none (None for a chunk wholly past it), since they pair with nothing."""
    def baseline_play(first_unit: int, n_units: int):
        n_units = max(0, min(n_units, baseline.units - first_unit))
        return play(first_unit, n_units) if n_units > 0 else None

    return baseline_play


def baseline_engine(baseline: BaselineSpec, engine: str) -> tuple[Any, Any, list]:
    """The baseline's game, compiled rules and policies, loaded from its stored rules text."""
    from simcore.games import game_of
    from simcore.policies import check_engine, parse_policy
    from simcore.rules import load_rules_text

    try:
        rules = load_rules_text(baseline.rules_text, baseline.rules_name, f"{baseline.path}: fudasim.rules",
                                dict(baseline.overrides))
    except ValueError as error:
        raise RunError(f"--paired-with {baseline.path}: its rules cannot be loaded: {error}") from None
    if rules.sha256 != baseline.rules_sha256:
        raise RunError(f"--paired-with {baseline.path}: its stored rules text does not match its rules_sha256")
    game = game_of(rules)
    specs = [parse_policy(p, game.name, recorded=True) for p in baseline.policies]  # as its metadata meant them
    for spec in specs:
        check_engine(spec, game.name, engine)
    return game, game.compile(rules), specs
