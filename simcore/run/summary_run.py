"""Executing a summary run on this machine (``simcore.run.runner`` calls ``execute``), and the parts a
Dask task shares with it (``shard_file``).

Each shard's units are played chunk by chunk, one chunk a thread, into each thread's reused
buffers, and counted at once (``simcore.run.summary_shard.ShardCounter``); the shard's cells are then written under the shard's name,
committed atomically (fsync, rename) and listed in the manifest with their size and sha256,
like a row shard.  Nothing of the rows is kept.
"""

from __future__ import annotations

import collections
import threading
import time
from pathlib import Path
from typing import Any

import numba
import numpy as np

from simcore import dataset as ds
from simcore.run import summary_shard as ss
from simcore.run.shards import ManifestWriter, Progress, new_summary, shard_metadata, shards_to_do

__all__ = ["execute", "shard_file", "count_cells", "count_present", "players_engine", "as_cells",
           "write_summary_file"]


def players_engine(game: Any, compiled: Any, specs: list, engine: str, seed: int, rounds_per_match: int | None,
                   buffers: tuple[np.ndarray, np.ndarray]):
    """``play(first_unit, n_units)``: the engine's output matrices (int64[n_int, rows],
    uint64[n_mask, rows]) on ``buffers`` (as ``game.output_buffers`` makes them)."""
    def play(first_unit: int, n_units: int):
        return game.play_units(engine, compiled, specs, seed, first_unit, n_units, rounds_per_match, out=buffers)

    return play


def shard_file(out: Path, shard: int, first_unit: int, n_units: int, aggregate: ss.ShardAggregate,
               spec: ss.SummarySpec, shard_info: dict[str, Any], rules_text: str,
               attempt: str | None = None) -> tuple[dict[str, Any], list[tuple[str, int, int]]]:
    """Write and commit a shard's cells; return its manifest entry and the cells."""
    cells = ss.aggregate_cells(aggregate, spec)
    info = dict(shard_info, shard=shard, first_unit=first_unit, n_units=n_units, rounds=aggregate.rounds,
                first_round=None, last_round=None)
    table = ss.summary_table(cells, info, rules_text)
    temporary, final = write_summary_file(out, shard, table, attempt)
    _, size, sha256 = ds.commit_shard_with_digest(temporary, final)
    entry = ds.shard_entry(shard, info, len(cells), size, sha256)
    entry["rounds"] = aggregate.rounds
    return entry, cells


def write_summary_file(out: Path, shard: int, table: Any, attempt: str | None = None) -> tuple[Path, Path]:
    """Write a summary shard under its temporary name (as ``simcore.dataset.write_shard_file``
    names it); returns (temporary, final) for ``commit_shard_with_digest``.

    The Arrow schema is not stored again in the footer (``store_schema=False``): it would repeat
    the run metadata and rules text, which are most of a summary shard's bytes.
    """
    import os

    import pyarrow as pa
    import pyarrow.parquet as pq

    final = out / ds.SHARD_PATTERN.format(shard)  # a local folder: summary runs are refused in a store
    suffix = f"{os.getpid()}" if attempt is None else f"{os.getpid()}-{attempt}"
    temporary = final.with_name(f".{final.name}.tmp-{suffix}")
    try:
        with pq.ParquetWriter(temporary, table.schema.remove_metadata(), compression="zstd", compression_level=3,
                              store_schema=False) as writer:
            writer.write_table(table.replace_schema_metadata(None))
            writer.add_key_value_metadata(table.schema.metadata)
    except (OSError, pa.ArrowException) as error:
        temporary.unlink(missing_ok=True)
        raise ds.DatasetError(f"{final}: cannot write shard: {' '.join(str(error).split())}") from None
    return temporary, final


def count_cells(summary: Any, cells: dict[str, dict[int, int]]) -> None:
    """Add a shard's cells to the runner's ``RunSummary`` (what ``fudasim run`` prints)."""
    scalar = lambda name: cells.get(f"scalar.{name}", {}).get(0, 0)  # noqa: E731
    summary.rounds += scalar("rounds")
    summary.dealer_wins += scalar("dealer_wins")
    summary.dealer_rounds += scalar("dealer_rounds")
    summary.draws += scalar("conv_draws")
    for seat in range(summary.seats):
        summary.wins[seat] += cells.get("seat_wins", {}).get(seat, 0)
        summary.seat_rounds[seat] += cells.get("seat_rounds", {}).get(seat, 0)
        for bit, count in cells.get(f"yaku_seat_{seat}", {}).items():
            if bit < summary.yaku_counts.shape[1]:
                summary.yaku_counts[seat, bit] += count
    for code, count in cells.get("end_reason", {}).items():
        if code < len(summary.end_reasons):
            summary.end_reasons[code] += count


def as_cells(cells: list[tuple[str, int, int]]) -> dict[str, dict[int, int]]:
    """Cells as ``{key: {index: value}}`` (as ``simcore.run.summary_shard.read_cells`` returns them)."""
    out: dict[str, dict[int, int]] = {}
    for key, index, value in cells:
        out.setdefault(key, {})[index] = value
    return out


def count_present(summary: Any, out: Path, present: dict[int, dict[str, Any]]) -> None:
    """Count the summary shards already present (a resumed run) into the runner's summary."""
    for index in sorted(present):
        count_cells(summary, ss.read_cells(ds.shard_path(out, index)))


def execute(config: Any, plan: dict[str, Any], game: Any, compiled: Any, specs: list, out: Path,
            present: dict[int, dict[str, Any]]) -> Any:
    """Run the missing shards of a summary run in this process; returns the runner's summary."""

    units = int(plan["units"])
    per_shard = int(plan["units_per_shard"])
    rounds_per_match = plan["rounds_per_match"]
    count, todo = shards_to_do(plan, present)
    summary = new_summary(plan, out)
    players = int(plan["players"])
    summary.shards_skipped = int(plan["shards"]) - count
    count_present(summary, out, present)
    summary.rounds_present = summary.rounds
    shard_info = shard_metadata(plan, config.engine)
    baseline = None
    if plan.get("paired_with"):
        baseline = ss.load_baseline(str(plan["paired_with"]["path"]), plan)
    spec = ss.summary_spec(plan, game, compiled, baseline)
    rows_per_block = spec.block_units * int(plan["round_stride"])
    progress = Progress(units, int(plan["round_stride"]) if rounds_per_match is None else rounds_per_match,
                                config.progress)
    progress.update(sum(min(per_shard, units - k * per_shard) for k in present if k < int(plan["shards"])))
    shown = threading.Lock()

    def new_play():
        engine_play = players_engine(game, compiled, specs, config.engine, int(plan["seed"]), rounds_per_match,
                                     game.output_buffers(rows_per_block))

        def play(first_unit: int, n_units: int):
            result = engine_play(first_unit, n_units)
            with shown:
                progress.update(n_units)
            return result

        return play

    new_baseline_play = None
    if baseline is not None:
        base_game, base_compiled, base_specs = ss.baseline_engine(baseline, config.engine)

        def new_baseline_play():
            return ss.baseline_units_only(players_engine(base_game, base_compiled, base_specs, config.engine,
                                                         baseline.seed, rounds_per_match,
                                                         base_game.output_buffers(rows_per_block)), baseline)

    manifest = ManifestWriter(out, plan, present)
    start = time.perf_counter()
    # The reference engine is Python: more threads would only take turns at the interpreter.
    threads = 1 if config.engine == "reference" else numba.get_num_threads()
    try:
        with ss.ShardCounter(game, compiled, spec, players, new_play, new_baseline_play, threads) as counter:
            # Two shards in hand: the threads play the next while this one's file is written.
            ahead: collections.deque[tuple[int, int, int, int]] = collections.deque()
            waiting = todo

            def submit_next() -> None:
                shard_index = next(waiting, None)
                if shard_index is not None:
                    first_unit = shard_index * per_shard
                    n_units = min(per_shard, units - first_unit)
                    ahead.append((shard_index, first_unit, n_units, counter.submit(first_unit, n_units)))

            submit_next()
            submit_next()
            while ahead:
                shard_index, first_unit, n_units, key = ahead.popleft()
                aggregate = counter.result(key)
                submit_next()
                entry, cells = shard_file(out, shard_index, first_unit, n_units, aggregate, spec, shard_info,
                                          compiled.rules.text)
                manifest.commit(shard_index, entry)
                count_cells(summary, as_cells(cells))
                summary.shards_written += 1
    finally:
        manifest.write_if_unfinished()
    progress.update(0, final=True)
    summary.seconds = time.perf_counter() - start
    summary.units = units
    manifest.finish()
    return summary
