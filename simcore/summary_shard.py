"""Summary runs (``fudasim run --summary``): per shard, the exact counts every report table needs
instead of the rows.

A summary shard is a small Parquet file with the name, atomic commit, manifest entry (rows,
size, sha256) and footer metadata (``fudasim.run``, ``fudasim.rules``) of a row shard; its rows
are *cells* ``(key, index, value)``: ``value`` (int64) is the count of ``key`` at ``index``
(a seat, a yaku bit, an end-reason code, a histogram's value, a convergence checkpoint...),
and only non-zero cells are stored.  Cells of several shards add up exactly; ``analysis``
(``analysis.summary_io``) turns their sum into the report's ``RunSummary``.

The counts come from the engines' output matrices by one numba pass per block of units
(``simcore.summary_nb``), never by writing or copying the rows.  A shard plays its units in
blocks of ``BLOCK_ROWS`` rows, so memory stays that of one block whatever the shard's size.

With ``--paired-with BASELINE`` each block is also played as the baseline run played it (its
plan is in the baseline's manifest, its rules text in its shards) and the sums, sums of squares
and cross terms of the per-round differences of ``fudasim compare``'s metrics are kept (cells
``pair.<metric>``), so that ``fudasim compare BASELINE RUN`` gives its paired tables.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from simcore import dataset as ds
from simcore import storage
from simcore import summary_layout as layout
from simcore.errors import RunError
from simcore.summary_layout import CONVERGENCE_FLAGS, PAIR_FIELDS, SCALARS, checkpoints

__all__ = ["SUMMARY_ROWS_PER_SHARD", "BLOCK_ROWS", "SummarySpec", "BaselineSpec", "ShardAggregate",
           "summary_spec", "compute_summary_shard", "summary_table", "read_cells",
           "STOPPING_REASONS", "checkpoints", "PAIR_FIELDS"]

# Rows per summary shard by default: 16 times a row shard's, so a run of 10^9 rounds has a few
# hundred small files (see docs/summary-runs.md for the sizes).
SUMMARY_ROWS_PER_SHARD = 1 << 22
BLOCK_ROWS = 1 << 18
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
    block_units = max(1, BLOCK_ROWS // stride)
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


def _count_overflow(aggregate: ShardAggregate, columns: dict[str, np.ndarray], overflow: np.ndarray,
                    seats: int) -> None:
    """Count the histogram values the numba pass could not hold (rare: outside -4096..4095)."""
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


def compute_summary_shard(game: Any, compiled: Any, spec: SummarySpec, players: int, first_unit: int,
                          n_units: int, play, baseline_play=None, halves: bool = False) -> ShardAggregate:
    """Play a shard's units block by block and count them.

    Parameters
    ----------
    game, compiled : the run's game and compiled rules
    spec : SummarySpec
    players : int
    first_unit, n_units : int
        The shard's units.
    play : callable ``(first_unit, n_units) -> (int64[n_int, rows], uint64[n_mask, rows])``
        The run's engine on reused buffers.
    baseline_play : callable like ``play``, optional
        The baseline run's engine (``--paired-with``) on buffers of its own; None for a block
        the baseline does not have.
    halves : bool
        Count each block of two units or more in two halves at once (the second on a thread of
        its own, into arrays of its own, added in at the end), so that the counting uses both
        cores as the engine does.  The convergence totals of each half are its own running totals
        plus the other half's counts before it.

    Returns
    -------
    ShardAggregate
    """
    from simcore.summary_nb import summarise_block_nb

    stops = len(spec.stop_codes)
    aggregate = ShardAggregate.empty(players, stops)
    columns, seat_columns, _ = _slots(game, players, spec.match_play)
    stop_codes = np.array(spec.stop_codes, dtype=np.int64)
    allowed = np.array(spec.stop_allowed, dtype=np.uint64)
    grid = (checkpoints(spec.total_rows) if spec.total_rows is not None
            else np.zeros(0, dtype=np.int64))
    a = aggregate.arrays

    second = ShardAggregate.empty(players, stops).arrays if halves else None
    names = list(a)

    def count_range(arrays, ints, masks, local, lo, hi):
        convergence = np.zeros((5, len(local)), dtype=np.int64)
        overflow = np.zeros(4, dtype=np.int64)
        summarise_block_nb(ints, masks, columns, seat_columns, stop_codes, spec.stop_mode, allowed, local,
                           *[arrays[name] for name in names], convergence, overflow, lo, hi)
        return convergence, overflow

    def count(unit: int, block: int, ints: np.ndarray, masks: np.ndarray) -> None:
        rows = ints.shape[1]
        if spec.rows_per_unit is not None:
            offset = unit * spec.rows_per_unit  # global rows before this block
            inside = grid[(grid > offset) & (grid <= offset + rows)]
        else:
            offset, inside = 0, np.zeros(0, dtype=np.int64)
        # The running totals are the shard's: checkpoints count this block's rows.
        local = inside - offset
        if second is None or block < 2:
            convergence, overflow = count_range(a, ints, masks, local, 0, rows)
        else:
            # Split at a unit's first row; with checkpoints every row is valid (fixed rows a unit).
            split = (block // 2) * (rows // block)
            second_before = second["scalars"][_CONV:_CONV + 5].copy()
            later = _counter().submit(count_range, second, ints, masks, local[local > split] - split, split, rows)
            first_part, overflow = count_range(a, ints, masks, local[local <= split], 0, split)
            second_part, second_overflow = later.result()
            first_part += second_before[:, None]
            second_part += a["scalars"][_CONV:_CONV + 5][:, None]
            convergence = np.concatenate([first_part, second_part], axis=1)
            overflow |= second_overflow
        for position, row in enumerate(inside.tolist()):
            aggregate.convergence[row] = convergence[:, position].copy()
        if overflow.any():
            _count_overflow(aggregate, game.columns(ints, masks, players), overflow, players)

    for unit, block in [(first_unit + done, min(spec.block_units, n_units - done))
                        for done in range(0, n_units, spec.block_units)]:
        ints, masks = play(unit, block)
        count(unit, block, ints, masks)
        baseline_block = baseline_play(unit, block) if baseline_play is not None else None
        if baseline_block is not None:
            named = game.columns(ints, masks, players)
            base_named = game.columns(baseline_block[0], baseline_block[1], players)
            _add_pairs(aggregate, spec, base_named, named, players)
    if second is not None:
        for name in names:
            a[name] += second[name]
    aggregate.rounds = int(a["scalars"][0])
    return aggregate


_COUNTER: list[Any] = []
_CONV = SCALARS.index("conv_seat0_wins")  # the first of the five convergence running totals


def _counter() -> Any:
    """The thread that counts blocks beside the engine (one per process)."""
    if not _COUNTER:
        from concurrent.futures import ThreadPoolExecutor

        _COUNTER.append(ThreadPoolExecutor(1, thread_name_prefix="fudasim-summary"))
    return _COUNTER[0]


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
    specs = [parse_policy(p, game.name) for p in baseline.policies]
    for spec in specs:
        check_engine(spec, game.name, engine)
    return game, game.compile(rules), specs
