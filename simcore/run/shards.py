"""What a run's machinery shares (the local runner, Dask runs and summary runs): the run's
summary, the shards still to do, the manifest writer, the progress bar and the shards' metadata.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from simcore import dataset as ds
from simcore import storage

__all__ = ["MANIFEST_SHARE", "ManifestWriter", "Progress", "RunSummary", "bit_counts", "new_summary",
           "shard_metadata", "shards_to_do", "warm_up"]



@dataclass
class RunSummary:
    """Counts over the whole dataset (the CLI prints them).

    Gathered while the shards stream past, plus, after a resume, from the shards already
    present; ``rounds - rounds_present`` rounds were computed in ``seconds``.
    """

    out: storage.Location
    end_reason_names: tuple[str, ...]
    yaku_names: list[str]
    policies: list[str]
    rounds: int = 0
    units: int = 0
    rounds_present: int = 0  # of ``rounds``, those in shards already present (a resumed run)
    shards_written: int = 0
    shards_skipped: int = 0
    seconds: float = 0.0
    # Seconds the engine took to be ready before ``seconds`` began: numba compiling its kernel on
    # a first run (or loading it from the cache), timed apart so that the rate is the rounds'.
    compile_seconds: float = 0.0
    # Dask runs only: seconds the workers spent warming up before ``seconds`` began, and
    # computing and writing the shards in their tasks, summed over shards: wall clock, and the
    # CPU time the tasks' threads got; and the number of tasks (each of one or more shards).
    warmup_seconds: float = 0.0
    task_seconds: float = 0.0
    task_cpu_seconds: float = 0.0
    tasks: int = 0
    dealer_wins: int = 0
    dealer_rounds: int = 0  # rounds the dealer played (Enshu-bana's dealer may sit a round out)
    draws: int = 0
    wins: np.ndarray = field(init=False)
    seat_rounds: np.ndarray = field(init=False)  # rounds each seat played
    end_reasons: np.ndarray = field(init=False)
    yaku_counts: np.ndarray = field(init=False)  # [seat, bit]

    def __post_init__(self) -> None:
        self.wins = np.zeros(len(self.policies), dtype=np.int64)
        self.seat_rounds = np.zeros(len(self.policies), dtype=np.int64)
        self.end_reasons = np.zeros(len(self.end_reason_names), dtype=np.int64)
        self.yaku_counts = np.zeros((len(self.policies), len(self.yaku_names)), dtype=np.int64)

    @property
    def seats(self) -> int:
        """The number of seats."""
        return len(self.policies)

    def add(self, columns: dict[str, np.ndarray]) -> None:
        """Count a batch of rows (``winner``, ``dealer``, ``end_reason``, ``yaku_*`` and, where
        seats may sit a round out, ``active_*``): the dataset's columns, one element per round,
        in their schema's dtypes (int8 ``winner``, uint64 ``yaku_*``, ...)."""
        winner = columns["winner"]
        dealer = columns["dealer"]
        self.rounds += len(winner)
        dealer_played = np.zeros(len(winner), dtype=bool)
        for seat in range(self.seats):
            self.wins[seat] += int(np.count_nonzero(winner == seat))
            played = columns.get(f"active_{seat}")
            if played is None:
                self.seat_rounds[seat] += len(winner)
                dealer_played |= dealer == seat
            else:
                played = played.astype(bool)
                self.seat_rounds[seat] += int(np.count_nonzero(played))
                dealer_played |= (dealer == seat) & played
        self.draws += int(np.count_nonzero(winner < 0))
        self.dealer_wins += int(np.count_nonzero(winner == dealer))
        self.dealer_rounds += int(np.count_nonzero(dealer_played))
        n_reasons = len(self.end_reason_names)
        self.end_reasons += np.bincount(columns["end_reason"], minlength=n_reasons)[:n_reasons]
        for seat in range(self.seats):
            self.yaku_counts[seat] += bit_counts(columns[f"yaku_{seat}"], len(self.yaku_names))

    def merge(self, other: RunSummary) -> None:
        """Add the counts of ``other``, a summary of other rows of the same run."""
        self.rounds += other.rounds
        self.dealer_wins += other.dealer_wins
        self.dealer_rounds += other.dealer_rounds
        self.draws += other.draws
        self.wins += other.wins
        self.seat_rounds += other.seat_rounds
        self.end_reasons += other.end_reasons
        self.yaku_counts += other.yaku_counts


_BYTE_BITS = (np.arange(256)[:, None] >> np.arange(8)[None, :]) & 1  # [byte value, bit]


def bit_counts(masks: np.ndarray, n_bits: int) -> np.ndarray:
    """How many of ``masks`` (uint64) have each of bits ``0 .. n_bits - 1`` set.

    One histogram per byte of the masks instead of one pass per bit.
    """
    as_bytes = np.ascontiguousarray(masks, dtype=np.uint64).view(np.uint8).reshape(-1, 8)
    if sys.byteorder == "big":
        as_bytes = as_bytes[:, ::-1]
    counts = np.zeros(8 * -(-n_bits // 8), dtype=np.int64)
    for byte in range(len(counts) // 8):
        histogram = np.bincount(as_bytes[:, byte], minlength=256)
        counts[8 * byte: 8 * byte + 8] = histogram @ _BYTE_BITS
    return counts[:n_bits]


def shards_to_do(plan: dict[str, Any], present: Collection[int]) -> tuple[int, Iterator[int]]:
    """How many of the planned shards are not ``present``, and those shards in order.

    The shards are generated one at a time, never listed: a run may plan more shards than
    memory could list (up to ``MAX_ROUNDS`` rounds), and what is in memory is what was written.
    """
    shards = int(plan["shards"])
    done = sum(1 for k in present if 0 <= k < shards)
    return shards - done, (k for k in range(shards) if k not in present)


# The manifest is rewritten after a shard commits unless that would make rewriting it take more
# than this share of the time (it grows with each shard: 2 ms for 200 shards), so runs of many
# shards list them in batches.  The writer shares the cores with the shards' work (a Dask
# client with its workers, the local runner's threads), so the share is kept small.  A shard
# committed but not yet listed when a run is killed is checked and listed by --resume.
MANIFEST_SHARE = 0.01


class ManifestWriter:
    """A run's manifest while its shards commit: their entries (those ``present`` to begin with),
    rewritten after a commit only as often as keeps the rewriting under ``MANIFEST_SHARE`` of the
    time, and once more at the end."""

    def __init__(self, out: storage.Location, plan: dict[str, Any], present: dict[int, dict[str, Any]]) -> None:
        self.out, self.plan, self.entries = out, plan, dict(present)
        self._written, self._took = time.monotonic(), 0.0  # when last written, and how long it took

    def write(self) -> None:
        """Rewrite the manifest with every shard entry so far (atomically: ``ds.write_manifest``)."""
        began = time.monotonic()
        self.plan[ds.SHARD_FILES] = [self.entries[k] for k in sorted(self.entries)]
        ds.write_manifest(self.out, self.plan)
        self._written, self._took = time.monotonic(), time.monotonic() - began

    def commit(self, index: int, entry: dict[str, Any]) -> None:
        """Shard ``index`` is committed: list it (the manifest now, if that is cheap enough)."""
        self.entries[index] = entry
        if self._took <= MANIFEST_SHARE * (time.monotonic() - self._written):
            self.write()

    def write_if_unfinished(self, failed: bool = False) -> None:
        """Interrupted or ``failed``: list every shard committed so far, if the disk allows."""
        if failed or len(self.entries) < int(self.plan["shards"]):
            try:
                self.write()
            except ds.DatasetError:
                pass

    def finish(self) -> None:
        """Every shard is committed: write the manifest with ``complete`` true."""
        self.plan["complete"] = True
        self.write()


COMPILING_NOTICE_AFTER = 1.0  # seconds of warm-up after which "compiling" is said


def warm_up(play: Any, announce: bool) -> float:
    """Call ``play()`` (the engine on one unit, whose rows are thrown away) so that numba compiles
    or loads the kernel before the run's clock starts; returns the seconds it took. With
    ``announce``, a warm-up that lasts more than ``COMPILING_NOTICE_AFTER`` seconds says on
    stderr that the kernel is compiling, so a first run does not look like a hang."""
    said = threading.Event()

    def notice() -> None:
        said.set()
        sys.stderr.write("compiling the kernel (first run only; later runs load it from the cache, and "
                         "`fudasim compile` compiles kernels ahead) ...")
        sys.stderr.flush()

    timer = threading.Timer(COMPILING_NOTICE_AFTER, notice) if announce else None
    start = time.perf_counter()
    if timer is not None:
        timer.daemon = True
        timer.start()
    try:
        play()
    finally:
        if timer is not None:
            timer.cancel()
    seconds = time.perf_counter() - start
    if said.is_set():
        sys.stderr.write(f" {seconds:.1f} s\n")
        sys.stderr.flush()
    return seconds


class Progress:
    """The progress bar on stderr: rounds done, rounds/s and the time left, redrawn at most five
    times a second (``enabled`` false: silent)."""

    def __init__(self, total_units: int, rounds_per_unit: int, enabled: bool) -> None:
        self.total = total_units
        self.rounds_per_unit = rounds_per_unit
        self.enabled = enabled
        self.start = time.perf_counter()
        self.done = 0
        self.last = 0.0

    def update(self, units: int, final: bool = False) -> None:
        """Count ``units`` more units done and redraw (``final``: draw once more and end the line)."""
        self.done += units
        now = time.perf_counter()
        if not self.enabled or (not final and now - self.last < 0.2):
            return
        self.last = now
        elapsed = max(now - self.start, 1e-9)
        rate = self.done * self.rounds_per_unit / elapsed
        left = (self.total - self.done) * self.rounds_per_unit / rate if rate > 0 else 0.0
        width = 30
        filled = int(width * self.done / max(self.total, 1))
        bar = "#" * filled + "-" * (width - filled)
        rounds = self.done * self.rounds_per_unit
        sys.stderr.write(f"\r[{bar}] {rounds:,} rounds  {rate:,.0f} rounds/s  {left:,.0f} s left ")
        if final:
            sys.stderr.write("\n")
        sys.stderr.flush()


def shard_metadata(plan: dict[str, Any], engine: str) -> dict[str, Any]:
    """The ``fudasim.run`` metadata every shard of a run carries, before its per-shard keys."""
    info = {k: v for k, v in plan.items() if k not in ("complete", "resumed_by", ds.SHARD_FILES)}
    info["engine"] = engine
    return info


def new_summary(plan: dict[str, Any], out: storage.Location) -> RunSummary:
    """An empty summary of the run ``plan`` describes."""
    return RunSummary(out=out, end_reason_names=tuple(plan["end_reasons"]),
                      yaku_names=[f"{y['key']} {y['english']}" for y in plan["yaku"]],
                      policies=list(plan["policies"]))
