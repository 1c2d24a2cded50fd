"""The Parquet dataset: schema, atomic shard writing, run metadata, reading.

A run writes a directory::

    OUT/_run.json               the manifest: the run plan (written first; resume reads it) and
                                one entry per committed shard (rows, units, size, sha256)
    OUT/.fudasim.lock           the writer's lock (an flock; holds the writer's pid)
    OUT/part-000000.parquet     shards, one per chunk of units, each complete or absent
    OUT/part-000001.parquet
    ...

Every shard carries the run metadata (guarantee 7 of docs/guarantees.md) in its Parquet key-value
metadata: ``fudasim.run`` (JSON: engine version, game, seed, unit and round range, policies,
options, command line, yaku table in bit order, ...) and ``fudasim.rules`` (the rules file text).
The columns are documented in ``docs/dataset.md``.

``OUT`` may also be a prefix in an object store (``s3://bucket/prefix``, ``simcore.storage``):
there shards are uploaded under their final, write-once names (no temporary files), the manifest
is replaced whole, and a marker object stands in for the lock (``StoreMarker``).
"""

from __future__ import annotations

import errno
import fcntl
import hashlib
import json
import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from simcore import storage
from simcore.errors import DatasetError
from simcore.storage import Location, StorePath

__all__ = [
    "DatasetError",
    "SHARD_PATTERN",
    "RUN_FILE",
    "shard_table",
    "write_shard",
    "write_shard_file",
    "commit_shard",
    "shard_path",
    "read_run_info",
    "read_dataset",
    "refuse_without_manifest",
    "existing_shards",
    "LOCK_FILE",
    "DatasetLock",
    "lock_holder",
    "lock_dataset",
    "read_manifest",
    "is_manifest",
    "claims_manifest",
    "file_digest",
    "commit_shard_with_digest",
    "shard_entry",
    "ShardCheck",
    "DatasetCheck",
    "check_dataset",
    "verify_dataset",
    "foreign_file",
    "own_files",
    "write_manifest",
    "decode_problem",
    "run_difference",
    "PendingObject",
    "StoreMarker",
    "mark_writer",
    "marker_holder",
    "is_summary_manifest",
    "refuse_summary",
]

SHARD_PATTERN = "part-{:06d}.parquet"
RUN_FILE = "_run.json"
LOCK_FILE = ".fudasim.lock"
SHARD_FILES = "shard_files"  # the manifest's per-shard entries
SHARD_NAME = re.compile(r"part-(\d{6,})\.parquet")
# ``tmp-<pid>``, or ``tmp-<pid>-<hex>`` for a Dask task's attempt (pids repeat across machines).
TEMPORARY_NAME = re.compile(r"\.(part-\d{6,}\.parquet|_run\.json)\.tmp-\d+(?:-[0-9a-f]+)?")
# Keys of the plan that every fudasim manifest has (the first version of the plan had them all).
MANIFEST_KEYS = ("engine_version", "game", "seed", "rules_sha256", "policies", "units", "units_per_shard",
                 "shards")
# Keys whose values make a shard's rows: a shard belongs to a run when they all agree.
RUN_IDENTITY = ("seed", "rules_sha256", "options", "policies", "engine_version", "summary", "paired_with")




END_REASON_TYPE = pa.dictionary(pa.int8(), pa.string())


def _arrow_array(values: np.ndarray, typ: pa.DataType) -> pa.Array:
    """A numpy column as an Arrow array, built from its buffer.

    (``pa.array`` on numpy input imports pandas, which costs most of a second at start-up.)
    """
    if typ == pa.bool_():
        bits = np.packbits(np.asarray(values, dtype=np.bool_), bitorder="little")
        return pa.Array.from_buffers(typ, len(values), [None, pa.py_buffer(bits)])
    data = np.ascontiguousarray(values, dtype=typ.to_pandas_dtype())
    return pa.Array.from_buffers(typ, len(data), [None, pa.py_buffer(data)])


def _string_array(values) -> pa.Array:
    """A string array built from buffers (``pa.array`` on a list imports pandas)."""
    encoded = [str(v).encode("utf-8") for v in values]
    offsets = np.zeros(len(encoded) + 1, dtype=np.int32)
    offsets[1:] = np.cumsum([len(e) for e in encoded])
    return pa.Array.from_buffers(pa.string(), len(encoded),
                                 [None, pa.py_buffer(offsets), pa.py_buffer(b"".join(encoded))])


def shard_table(columns: dict[str, np.ndarray], run_info: dict[str, Any], rules_text: str,
                table_schema: pa.Schema, end_reasons: tuple[str, ...]) -> pa.Table:
    """An Arrow table of a game's named columns (``table_schema``, ``end_reason`` coded into
    ``end_reasons``) with the run metadata and rules text attached.

    ``columns`` holds one array per column of the schema, one element per round, each in (or
    castable to) its column's dtype (``end_reason`` int8 codes).
    """
    sch = table_schema
    arrays = []
    reasons = _string_array(end_reasons)
    for f in sch:
        values = columns[f.name]
        if f.name == "end_reason":
            arrays.append(pa.DictionaryArray.from_arrays(_arrow_array(values, pa.int8()), reasons))
        else:
            arrays.append(_arrow_array(values, f.type))
    metadata = {
        b"fudasim.run": json.dumps(run_info, sort_keys=True).encode("utf-8"),
        b"fudasim.rules": rules_text.encode("utf-8"),
    }
    return pa.Table.from_arrays(arrays, schema=sch.with_metadata(metadata))


def shard_path(out_dir: Location, shard_index: int) -> Location:
    """Where shard ``shard_index`` of the dataset in ``out_dir`` (a folder or a store) is written."""
    return storage.location(out_dir) / SHARD_PATTERN.format(shard_index)


@dataclass
class PendingObject:
    """A shard encoded in memory and not yet uploaded: an object store has no temporary names and
    no rename, so ``commit_shard_with_digest`` uploads it under its final name in one PUT."""

    data: pa.Buffer


def write_shard(out_dir: Path, shard_index: int, table: pa.Table) -> Path:
    """Write a shard atomically: a temporary name in the same directory, fsync, then rename."""
    return commit_shard(*write_shard_file(out_dir, shard_index, table))


def _unlink_quietly(path: Path) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def _why(error: BaseException) -> str:
    if isinstance(error, OSError) and error.strerror:
        return error.strerror
    return " ".join(str(error).split())


def write_shard_file(out_dir: Location, shard_index: int, table: pa.Table,
                     attempt: str | None = None) -> tuple[Any, Any]:
    """Write a shard under its temporary name; returns (temporary, final) for ``commit_shard``.

    Until committed the shard is a hidden ``.part-*.tmp-*`` file, which readers ignore and
    ``--resume`` deletes.  A failed write (a full disk, ...) removes its temporary file and
    raises ``DatasetError`` naming the shard.  ``attempt`` (lowercase hex) makes the temporary
    name unique to one attempt when several processes, on several machines, may write the same
    shard at once (a retried or duplicated Dask task): each writes its own file, then renames it.
    In an object store the shard is encoded in memory instead (a ``PendingObject``).
    """
    final = shard_path(out_dir, shard_index)
    if isinstance(final, StorePath):
        sink = pa.BufferOutputStream()
        try:
            _write_parquet(table, sink)
        except (OSError, pa.ArrowException) as error:
            raise DatasetError(f"{final}: cannot write shard: {_why(error)}") from None
        return PendingObject(sink.getvalue()), final
    suffix = f"{os.getpid()}" if attempt is None else f"{os.getpid()}-{attempt}"
    temporary = final.with_name(f".{final.name}.tmp-{suffix}")
    try:
        _write_parquet(table, temporary)
    except (OSError, pa.ArrowException) as error:
        _unlink_quietly(temporary)
        raise DatasetError(f"{final}: cannot write shard: {_why(error)}") from None
    return temporary, final


def _write_parquet(table: pa.Table, where: Any) -> None:
    """Write a shard's Parquet bytes to ``where`` (a local path or a pyarrow output stream)."""
    # Encodings chosen per column by what they cost to write and what they save: delta encoding
    # for the consecutive round and match numbers; byte-stream-split for the card masks and the
    # small integers (it groups their mostly-zero high bytes, which zstd then compresses fast:
    # together under half the time of dictionary encoding, for ~7% larger files); dictionary
    # encoding only where the type is a dictionary (end_reason); booleans stay plain.
    # zstd level 1 keeps files small at close to uncompressed writing speed.
    names = [f.name for f in table.schema]
    sequential = [name for name in ("round", "match") if name in names]
    encodings = {}
    for f in table.schema:
        if f.name in sequential:
            encodings[f.name] = "DELTA_BINARY_PACKED"
        elif pa.types.is_integer(f.type):
            encodings[f.name] = "BYTE_STREAM_SPLIT"
    dictionary_columns = [f.name for f in table.schema if pa.types.is_dictionary(f.type)]
    pq.write_table(table, where, compression="zstd", compression_level=1,
                   use_dictionary=dictionary_columns, column_encoding=encodings,
                   write_statistics=sequential, row_group_size=1 << 20)


def commit_shard(temporary: Any, final: Any) -> Any:
    """Make a written shard durable (fsync) and give it its final name (atomic rename); in an
    object store, upload it under its final name (see ``commit_shard_with_digest``)."""
    if isinstance(temporary, PendingObject):
        return commit_shard_with_digest(temporary, final)[0]
    try:
        with open(temporary, "rb") as handle:
            os.fsync(handle.fileno())
        os.replace(temporary, final)
    except OSError as error:
        _unlink_quietly(temporary)
        raise DatasetError(f"{final}: cannot commit shard: {_why(error)}") from None
    return final


_HASH_BLOCK = 1 << 20


def commit_shard_with_digest(temporary: Any, final: Any) -> tuple[Any, int, str]:
    """``commit_shard``, also returning the shard's size and the sha256 of its bytes.

    The bytes are hashed while still in the page cache, just before the fsync, from the same
    open file: one read of a file just written costs little next to writing it.

    In an object store (``temporary`` a ``PendingObject``) the name is written once: the shard
    is uploaded in one PUT unless an object of that name exists.  An existing object with the
    same bytes (a retried or duplicated task got there first) is kept as it is; one with other
    bytes is never replaced (``DatasetError``).  Two attempts racing both upload the same
    bytes, so one object with those bytes remains either way.

    Parameters
    ----------
    temporary, final : Path
        As returned by ``write_shard_file``.

    Returns
    -------
    (Path, int, str)
        The final path, its size in bytes and its sha256 (hex).  On failure the temporary file
        is removed and ``DatasetError`` names the shard.
    """
    if isinstance(temporary, PendingObject):
        return _put_once(temporary.data, final)
    digest = hashlib.sha256()
    size = 0
    try:
        with open(temporary, "rb") as handle:
            while True:
                block = handle.read(_HASH_BLOCK)
                if not block:
                    break
                digest.update(block)
                size += len(block)
            os.fsync(handle.fileno())
        os.replace(temporary, final)
    except OSError as error:
        _unlink_quietly(temporary)
        raise DatasetError(f"{final}: cannot commit shard: {_why(error)}") from None
    return final, size, digest.hexdigest()


def _put_once(data: pa.Buffer, final: StorePath) -> tuple[StorePath, int, str]:
    """Upload a shard's bytes under its write-once name (see ``commit_shard_with_digest``)."""
    sha256 = hashlib.sha256(memoryview(data)).hexdigest()
    try:
        try:
            existing: int | None = final.stat().st_size
        except FileNotFoundError:
            existing = None
        if existing is not None:
            if existing == data.size and file_digest(final)[1] == sha256:
                return final, data.size, sha256  # another attempt of this task uploaded it
            raise DatasetError(f"{final}: an object with other bytes already has this shard's name (another "
                               f"writer?); a shard object is never replaced")
        final.write_bytes(data)
    except (OSError, pa.ArrowException) as error:
        raise DatasetError(f"{final}: cannot upload shard: {_why(error)}") from None
    return final, data.size, sha256


def file_digest(path: Location) -> tuple[int, str]:
    """Size in bytes and sha256 (hex) of a file (or of an object in a store).

    Parameters
    ----------
    path : Path or StorePath

    Returns
    -------
    (int, str)
    """
    digest = hashlib.sha256()
    size = 0
    with storage.location(path).open("rb") as handle:
        while True:
            block = handle.read(_HASH_BLOCK)
            if not block:
                break
            digest.update(block)
            size += len(block)
    return size, digest.hexdigest()


def write_json_atomic(path: Location, data: dict[str, Any]) -> None:
    """Write JSON atomically (temporary file, fsync, rename); a failure leaves no temporary file.

    Raises ``DatasetError`` naming ``path`` when the file system refuses (a full disk, ...).
    """
    text = json.dumps(data, indent=2, sort_keys=True) + "\n"
    if isinstance(path, StorePath):
        try:
            path.write_bytes(text.encode("utf-8"))  # one whole-object PUT replaces it
        except (OSError, pa.ArrowException) as error:
            raise DatasetError(f"{path}: cannot write: {_why(error)}") from None
        return
    path = Path(path)
    temporary = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    try:
        with open(temporary, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except OSError as error:
        _unlink_quietly(temporary)
        raise DatasetError(f"{path}: cannot write: {_why(error)}") from None


def write_manifest(directory: Location, manifest: dict[str, Any]) -> None:
    """Write ``directory/_run.json`` atomically (in a store: one whole-object PUT)."""
    write_json_atomic(storage.location(directory) / RUN_FILE, manifest)


def shard_entry(shard_index: int, info: dict[str, Any], rows: int, size: int, sha256: str) -> dict[str, Any]:
    """The manifest's entry for one committed shard.

    Parameters
    ----------
    shard_index : int
    info : dict
        The shard's ``fudasim.run`` metadata (its unit and round range).
    rows, size : int
        Rows in the shard; bytes in its file.
    sha256 : str
        Hex digest of the file's bytes.

    Returns
    -------
    dict
        ``shard``, ``file``, ``rows``, ``first_unit``, ``n_units``, ``first_round``,
        ``last_round``, ``bytes``, ``sha256``.
    """
    return {"shard": shard_index, "file": SHARD_PATTERN.format(shard_index), "rows": int(rows),
            "first_unit": info.get("first_unit"), "n_units": info.get("n_units"),
            "first_round": info.get("first_round"), "last_round": info.get("last_round"),
            "bytes": int(size), "sha256": sha256}


# --- the writer's lock ---------------------------------------------------------------------------


class DatasetLock:
    """An exclusive ``flock`` on ``OUT/.fudasim.lock``, held by one writer until ``release()``.

    The kernel drops the lock when its process ends however it ends, so a killed run never
    leaves a stale lock; the file itself stays (deleting it would let two writers lock two files).
    """

    def __init__(self, path: Path, descriptor: int) -> None:
        self.path = path
        self._descriptor: int | None = descriptor

    def release(self) -> None:
        """Release the lock (a second call does nothing)."""
        if self._descriptor is not None:
            os.close(self._descriptor)
            self._descriptor = None

    def __enter__(self) -> DatasetLock:
        return self

    def __exit__(self, *exc) -> None:
        self.release()


def lock_holder(directory: str | os.PathLike | StorePath) -> str | None:
    """The pid of the process writing a dataset now, or None if no one holds its lock.

    Parameters
    ----------
    directory : path
        A dataset directory.

    Returns
    -------
    str or None
        The pid as the lock file holds it (``"unknown"`` if the holder has not written it yet).
        In an object store: who the marker object says is writing (see ``mark_writer``).
    """
    where = storage.location(directory)
    if isinstance(where, StorePath):
        return marker_holder(where)
    path = Path(where) / LOCK_FILE
    try:
        descriptor = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        fcntl.flock(descriptor, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError:
        return os.pread(descriptor, 32, 0).decode("ascii", "replace").strip() or "unknown"
    finally:
        os.close(descriptor)  # also drops a shared lock just taken
    return None


def lock_dataset(directory: str | os.PathLike) -> DatasetLock:
    """Take the writer's lock of a dataset directory (which must exist), or refuse.

    Raises
    ------
    DatasetError
        Another process holds the lock (the message names its pid), or the lock file cannot be
        created (the message names it).
    """
    directory = Path(directory)
    path = directory / LOCK_FILE
    try:
        descriptor = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as error:
        raise DatasetError(f"{path}: cannot create the lock file: {_why(error)}") from None
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as error:
        if error.errno not in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
            os.close(descriptor)
            raise DatasetError(f"{path}: cannot lock: {_why(error)}") from None
        holder = ""
        for _ in range(20):  # the holder writes its pid just after locking
            holder = os.pread(descriptor, 32, 0).decode("ascii", "replace").strip()
            if holder:
                break
            time.sleep(0.01)
        os.close(descriptor)
        raise DatasetError(f"{directory}: another fudasim process (pid {holder or 'unknown'}) is writing "
                           f"this dataset; wait for it to end, or stop it and finish with --resume") from None
    try:
        os.ftruncate(descriptor, 0)
        os.pwrite(descriptor, f"{os.getpid()}\n".encode("ascii"), 0)
    except OSError as error:
        os.close(descriptor)
        raise DatasetError(f"{path}: cannot write the lock file: {_why(error)}") from None
    return DatasetLock(path, descriptor)


class StoreMarker(DatasetLock):
    """What stands in for the lock in an object store: a marker object ``.fudasim.lock`` naming
    the writer (host, pid, start time), deleted by ``release()`` if it still names this writer.

    It is not a lock: object stores give pyarrow no conditional write, so two writers that
    start at once both succeed.  It makes ``--overwrite`` refuse while a writer may be live,
    and ``verify`` say who is writing.  A killed run leaves it; ``--resume`` replaces it.
    """

    def __init__(self, path: StorePath, text: str) -> None:
        self.path = path  # type: ignore[assignment]
        self._descriptor = None
        self._text: str | None = text

    def release(self) -> None:
        """Delete the marker if it still names this writer (a second call does nothing)."""
        text, self._text = self._text, None
        if text is None:
            return
        try:
            if self.path.read_text() == text:
                self.path.unlink(missing_ok=True)
        except (OSError, pa.ArrowException, DatasetError):
            pass  # left behind: the next --resume replaces it


def mark_writer(directory: StorePath) -> StoreMarker:
    """Write the marker object of a run starting to write ``directory`` (see ``StoreMarker``)."""
    import socket
    from datetime import UTC, datetime

    path = directory / LOCK_FILE
    started = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    text = f"{os.getpid()} on {socket.gethostname()} since {started}\n"
    try:
        path.write_bytes(text.encode("utf-8"))
    except (OSError, pa.ArrowException) as error:
        raise DatasetError(f"{path}: cannot write the writer's marker: {_why(error)}") from None
    return StoreMarker(path, text)


def marker_holder(directory: StorePath) -> str | None:
    """Who the marker object of ``directory`` says is writing it (pid, host, start), or None."""
    try:
        return (directory / LOCK_FILE).read_text().strip() or "unknown"
    except FileNotFoundError:
        return None
    except (OSError, pa.ArrowException) as error:
        raise DatasetError(f"{directory / LOCK_FILE}: cannot read: {_why(error)}") from None


def existing_shards(out_dir: Location) -> dict[int, Location]:
    """The shard files present in ``out_dir``, by shard index (whatever the manifest says)."""
    out: dict[int, Location] = {}
    directory = storage.location(out_dir)
    if isinstance(directory, Path) and not directory.is_dir():
        return out
    for path in storage.children(directory):
        if path.name.startswith("part-") and path.name.endswith(".parquet"):
            stem = path.name[len("part-") : -len(".parquet")]
            if stem.isdigit():
                out[int(stem)] = path
    return out


def read_run_info(path: str | os.PathLike | StorePath) -> dict[str, Any]:
    """The run metadata of a dataset directory (or of one shard file), in a folder or a store."""
    path = storage.location(path)
    if path.is_dir():
        run_file = path / RUN_FILE
        if run_file.is_file():
            try:
                return json.loads(run_file.read_text(encoding="utf-8"))
            except (OSError, json.JSONDecodeError) as error:
                raise DatasetError(f"{run_file}: unreadable run file: {error}") from None
        refuse_without_manifest(path)
        raise DatasetError(f"{path}: not a fudasim dataset (no {RUN_FILE} and no part-*.parquet)")
    if not path.exists():
        raise DatasetError(f"{path}: no such file or directory")
    try:
        metadata = storage.read_schema(path).metadata or {}
    except (OSError, pa.ArrowInvalid) as error:
        raise DatasetError(f"{path}: not a Parquet file: {error}") from None
    if b"fudasim.run" not in metadata:
        raise DatasetError(f"{path}: Parquet file without fudasim run metadata")
    return json.loads(metadata[b"fudasim.run"])


def refuse_without_manifest(directory: Location) -> None:
    """``DatasetError`` if ``directory`` holds shards but no manifest (``_run.json``), saying how
    to recover; nothing if it holds no shard.

    Without the manifest nothing says which shards the run wrote, nor their sizes and checksums,
    so no reader trusts them: the rows are made again from the command the shards record (the
    same arguments give the same rows), into another folder.
    """
    shards = existing_shards(directory)
    if not shards:
        return
    command = None
    found: list[tuple[Location, dict[str, Any] | None, str | None]] = []
    for index in sorted(shards)[:3]:  # the first shards whose footer can be read name the command
        info, _, why = _shard_run_info(shards[index])
        found.append((shards[index], info, why))
        if info is not None and isinstance(info.get("command"), str) and info["command"].strip():
            command = " ".join(info["command"].split())
            break
    if all(info is None for _, info, _ in found):
        first, _, why = found[0]
        raise DatasetError(f"{directory}: not a fudasim dataset (no {RUN_FILE}; {first.name}: "
                           f"{why})")
    again = f"`{command}`" if command else "the command that wrote it"
    raise DatasetError(f"{directory}: its manifest {RUN_FILE} is missing, so its shards cannot "
                       f"be checked (which belong to the run, their sizes and checksums) and are "
                       f"not read; to recover, run {again} again with another --out (the same "
                       f"arguments give the same rows)")


def dataset_files(path: str | os.PathLike | StorePath) -> list[Location]:
    """The shard files to read for ``path`` (one shard file, or a dataset directory's shards in order).

    ``DatasetError`` if ``path`` is neither a file nor a directory holding shards.
    """
    path = storage.location(path)
    if path.is_file():
        return [path]
    if not path.is_dir():
        raise DatasetError(f"{path}: no such dataset directory")
    shards = existing_shards(path)
    if not shards:
        raise DatasetError(f"{path}: not a fudasim dataset (no part-*.parquet shards)")
    return [shards[k] for k in sorted(shards)]


def is_summary_manifest(info: Any) -> bool:
    """Whether run metadata (a manifest or a shard's ``fudasim.run``) is a summary run's: its
    shards hold counts (``simcore.run.summary_shard``), not rows."""
    return isinstance(info, dict) and info.get("summary") is True


def refuse_summary(path: str | os.PathLike | StorePath, info: Any, needs: str) -> None:
    """``DatasetError`` (one line) if ``info`` is a summary run's: ``needs`` the rows it did not keep."""
    if is_summary_manifest(info):
        raise DatasetError(f"{path}: a summary run (fudasim run --summary) keeps counts, not rows; {needs} needs "
                           f"rows: run it again without --summary")


def read_dataset(path: str | os.PathLike | StorePath, columns: list[str] | None = None, allow_incomplete: bool = False):
    """Read a dataset (directory or shard) into a pandas DataFrame, rows in round order.

    Parameters
    ----------
    path : path
        A dataset directory written by ``fudasim run``, or one shard file.
    columns : list of str, optional
        Columns to read (default: all).
    allow_incomplete : bool
        Read only the intact shards of a directory that fails the manifest's checks (sizes,
        footers and checksums, see ``check_dataset``) instead of raising.

    Raises
    ------
    DatasetError
        Not a dataset, unreadable, or (unless ``allow_incomplete``) incomplete, damaged or mixed.
    """
    path = storage.location(path)
    if path.is_dir() and not (path / RUN_FILE).is_file():
        refuse_without_manifest(path)
    if path.is_dir() and (path / RUN_FILE).is_file() and claims_manifest(read_run_info(path)):
        refuse_summary(path, read_run_info(path), "read_dataset")
        check = check_dataset(path, checksums=True)
        problems = [line for kind, line in check.problems if kind not in ("temporary", "stray")]
        if problems and not allow_incomplete:
            raise DatasetError(f"{path}: incomplete or damaged dataset: {problems[0]} (see `fudasim verify {path}`)")
        files = [shard.path for shard in check.good_shards()]
        if not files:
            raise DatasetError(f"{path}: no intact shard to read")
    else:
        files = dataset_files(path)
        refuse_summary(path, read_run_info(files[0]), "read_dataset")
    try:
        tables = [storage.read_table(f, columns=columns) for f in files]
    except (OSError, pa.ArrowInvalid, KeyError) as error:
        raise DatasetError(f"{path}: cannot read dataset: {error}") from None
    table = pa.concat_tables(tables)
    frame = table.to_pandas()
    if "round" in frame.columns:
        frame = frame.sort_values("round", kind="stable").reset_index(drop=True)
    return frame


# --- the manifest and the checks that use it -------------------------------------------------------


def _count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def is_manifest(data: Any) -> bool:
    """Whether ``data`` (a parsed ``_run.json``) is a fudasim run manifest.

    It must have every key of ``MANIFEST_KEYS``, with whole-number ``units``, ``units_per_shard``
    and ``shards``, and a list for ``shard_files`` if it has one.
    """
    return (isinstance(data, dict) and all(key in data for key in MANIFEST_KEYS)
            and all(_count(data[key]) for key in ("units", "units_per_shard", "shards"))
            and data["units_per_shard"] > 0
            and isinstance(data.get(SHARD_FILES, []), list))


def claims_manifest(data: Any) -> bool:
    """Whether a parsed ``_run.json`` was written as a fudasim manifest (valid or not).

    Readers check such a dataset against it (and refuse a damaged one); a ``_run.json`` of other
    tools, with none of the manifest's own keys, is only run metadata.
    """
    return isinstance(data, dict) and any(key in data for key in ("engine_version", "units_per_shard", "shards",
                                                                  SHARD_FILES))


def read_manifest(directory: str | os.PathLike | StorePath) -> dict[str, Any]:
    """The manifest (``_run.json``) of a dataset directory.

    Raises
    ------
    DatasetError
        The directory holds no ``_run.json``, or one that is not a fudasim manifest.
    """
    directory = storage.location(directory)
    run_file = directory / RUN_FILE
    if not directory.is_dir():
        raise DatasetError(f"{directory}: not a dataset directory")
    if not run_file.is_file():
        refuse_without_manifest(directory)
        raise DatasetError(f"{directory}: not a fudasim dataset (no {RUN_FILE})")
    try:
        data = json.loads(run_file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise DatasetError(f"{run_file}: not a fudasim manifest: {_why(error)}") from None
    if not is_manifest(data):
        raise DatasetError(f"{run_file}: not a fudasim manifest (it needs {', '.join(MANIFEST_KEYS)}; "
                           f"units, units_per_shard and shards whole numbers)")
    return data


def _first_difference(expected: Any, found: Any, key: str) -> str:
    """``key``, or ``key.sub``, with the two values, at the first place they differ."""
    if isinstance(expected, dict) and isinstance(found, dict):
        for sub in sorted(set(expected) | set(found)):
            if expected.get(sub) != found.get(sub):
                return _first_difference(expected.get(sub), found.get(sub), sub)
    if isinstance(expected, list) and isinstance(found, list) and len(expected) == len(found):
        for index, (a, b) in enumerate(zip(expected, found, strict=True)):
            if a != b:
                return _first_difference(a, b, f"{key}[{index}]")
    return f"{key} {found!r}, not {expected!r}"


def run_difference(manifest: dict[str, Any], info: dict[str, Any]) -> str | None:
    """None if a shard's ``fudasim.run`` belongs to the manifest's run, else the first difference."""
    for key in RUN_IDENTITY:
        if key in manifest and info.get(key) != manifest[key]:
            return _first_difference(manifest[key], info.get(key), key)
    return None


def _shard_run_info(path: Location) -> tuple[dict[str, Any] | None, int, str | None]:
    """(``fudasim.run``, rows) from a shard's footer, or (None, 0, why it is not a fudasim shard)."""
    try:
        metadata = storage.read_metadata(path)
    except (OSError, pa.ArrowException) as error:
        return None, 0, f"not a readable Parquet file ({_why(error)})"
    raw = (metadata.metadata or {}).get(b"fudasim.run")
    if raw is None:
        return None, 0, "a Parquet file without fudasim run metadata"
    try:
        info = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        return None, 0, "fudasim run metadata that is not JSON"
    if not isinstance(info, dict):
        return None, 0, "fudasim run metadata that is not a JSON object"
    return info, int(metadata.num_rows), None


@dataclass
class ShardCheck:
    """What the checks found about one shard-named file of a dataset."""

    index: int
    path: Location
    entry: dict[str, Any] | None  # the manifest's entry, if listed
    info: dict[str, Any] | None = None  # its fudasim.run, if readable
    rows: int = 0
    problem: str | None = None
    kind: str | None = None  # of the problem: size, checksum, foreign, other-run, duplicate, rows, unlisted

    @property
    def ok(self) -> bool:
        """Whether the shard passed every check."""
        return self.problem is None


@dataclass
class DatasetCheck:
    """The result of ``check_dataset``: the manifest, every shard-named file, every problem."""

    directory: Location
    manifest: dict[str, Any]
    shards: dict[int, ShardCheck] = field(default_factory=dict)  # index < manifest["shards"]
    problems: list[tuple[str, str]] = field(default_factory=list)  # (kind, one line)
    notes: list[str] = field(default_factory=list)

    @property
    def listed(self) -> bool:
        """Whether the manifest lists its shards (those of older fudasim versions do not)."""
        return isinstance(self.manifest.get(SHARD_FILES), list)

    @property
    def complete(self) -> bool:
        """Whether the manifest says the run finished."""
        return self.manifest.get("complete") is True

    @property
    def expected_shards(self) -> int:
        """The number of shards the manifest says the run has."""
        return int(self.manifest["shards"])

    def good_shards(self) -> list[ShardCheck]:
        """Shards that passed every check made, in shard order."""
        return [self.shards[k] for k in sorted(self.shards) if self.shards[k].ok]

    def rounds(self, shards: list[ShardCheck]) -> int:
        """The rounds ``shards`` hold: their rows, or in a summary run (whose shards hold counts)
        the rounds their metadata gives."""
        if self.manifest.get("summary") is True:
            return sum(int((shard.info or {}).get("rounds", 0)) for shard in shards)
        return sum(shard.rows for shard in shards)

    def unit_range(self, index: int) -> tuple[int, int]:
        """The first unit and the number of units of shard ``index``."""
        per_shard = int(self.manifest["units_per_shard"])
        first = index * per_shard
        return first, min(per_shard, int(self.manifest["units"]) - first)


def _entries(manifest: dict[str, Any]) -> dict[int, dict[str, Any]]:
    out = {}
    raw = manifest.get(SHARD_FILES)
    if isinstance(raw, list):
        for entry in raw:
            if isinstance(entry, dict) and isinstance(entry.get("shard"), int):
                out[entry["shard"]] = entry
    return out


def decode_problem(path: Location, info: dict[str, Any], rows: int, manifest: dict[str, Any]) -> str | None:
    """Decode a whole shard; None if its rows are what its unit range says, else the problem.

    ``info`` is the shard's ``fudasim.run`` and ``rows`` its footer's row count.
    """
    try:
        table = storage.read_table(path)
    except (OSError, pa.ArrowException) as error:
        return f"cannot be decoded ({_why(error)})"
    if table.num_rows != rows:
        return f"decodes to {table.num_rows:,} rows, its footer says {rows:,}"
    if is_summary_manifest(manifest):
        return None if table.column_names == ["key", "index", "value"] else "is not a summary shard"
    if "round" not in table.column_names:
        return "has no round column"
    rounds = table.column("round").to_numpy()
    first_unit, n_units = int(info.get("first_unit", 0)), int(info.get("n_units", 0))
    stride = int(manifest.get("round_stride") or 1)
    if manifest.get("unit_kind", "round") == "round" and stride == 1:
        if not np.array_equal(rounds, np.arange(first_unit, first_unit + n_units)):
            return f"round column is not rounds {first_unit:,}..{first_unit + n_units - 1:,}"
    else:
        units = rounds // stride
        if (len(rounds) and np.any(np.diff(rounds) <= 0)) or not np.array_equal(
                np.unique(units), np.arange(first_unit, first_unit + n_units)):
            return f"round column does not cover matches {first_unit:,}..{first_unit + n_units - 1:,} once each"
    if rounds.size and (int(rounds[0]) != info.get("first_round") or int(rounds[-1]) != info.get("last_round")):
        return "round column disagrees with its first_round/last_round metadata"
    return None


def _check_shard(check: DatasetCheck, index: int, path: Location, entry: dict[str, Any] | None,
                 checksums: bool, deep: bool) -> ShardCheck:
    shard = ShardCheck(index, path, entry)

    def bad(kind: str, text: str) -> ShardCheck:
        shard.kind, shard.problem = kind, f"{path.name}: {text}"
        return shard

    try:
        size = path.stat().st_size
    except OSError as error:
        return bad("unreadable", f"cannot be read ({_why(error)})")
    if entry is not None:
        if size != entry.get("bytes"):
            listed = entry.get("bytes")
            listed = f"{listed:,}" if isinstance(listed, int) else repr(listed)
            return bad("size", f"{size:,} bytes, the manifest lists {listed} (truncated or changed)")
        if checksums:
            try:
                _, sha = file_digest(path)
            except OSError as error:
                return bad("unreadable", f"cannot be read ({_why(error)})")
            if sha != entry.get("sha256"):
                return bad("checksum", "checksum mismatch (the bytes changed since the run wrote them)")
    info, rows, why = _shard_run_info(path)
    if info is None:
        return bad("foreign", f"{why}; not a shard of this run")
    shard.info, shard.rows = info, rows
    difference = run_difference(check.manifest, info)
    if difference is not None:
        return bad("other-run", f"a shard of another run ({difference})")
    first_unit, n_units = check.unit_range(index)
    if info.get("first_unit", first_unit) != first_unit or info.get("n_units", n_units) != n_units:
        other = info.get("first_unit", first_unit)  # absent: read as this shard's, like the test above
        return bad("duplicate", f"holds units {other}..{other + int(info.get('n_units', 1)) - 1} (shard "
                                f"{info.get('shard')}'s), not {first_unit}..{first_unit + n_units - 1}: "
                                f"duplicate units, and this shard's are missing")
    if entry is not None and entry.get("rows") != rows:
        return bad("rows", f"{rows:,} rows, the manifest lists {entry.get('rows')!r}")
    if deep:
        problem = decode_problem(path, info, rows, check.manifest)
        if problem is not None:
            return bad("rows", problem)
    if entry is None and check.listed:
        return bad("unlisted", "not listed in the manifest (committed after its last update?)")
    return shard


MISSING_LINES = 100  # unlisted missing shards of a finished run named one by one; the rest counted


def _missing_indices(known: list[int], n: int, limit: int) -> tuple[list[int], int]:
    """The first ``limit`` numbers of ``0 .. n - 1`` that are not in ``known`` (sorted, distinct,
    each below ``n``), and how many others there are: in time linear in ``len(known)``, whatever
    ``n`` is."""
    first: list[int] = []
    total = start = 0
    for stop in [*known, n]:
        if stop > start:
            first.extend(range(start, min(stop, start + limit - len(first))))
            total += stop - start
        start = stop + 1
    return first, total - len(first)


def check_dataset(directory: str | os.PathLike | StorePath, *, checksums: bool = True, deep: bool = False) -> DatasetCheck:
    """Check a dataset directory against its manifest.

    Parameters
    ----------
    directory : path
        A directory written by ``fudasim run``.
    checksums : bool
        Also hash every listed shard and compare with the manifest (reads every byte).
    deep : bool
        Also decode every shard and check its rows against its unit range.

    Returns
    -------
    DatasetCheck
        ``problems`` lists every problem as ``(kind, line)``; kinds: incomplete, missing, extra
        (a shard-named file), stray (any other file), foreign, temporary, size, checksum, rows,
        other-run, duplicate, unlisted, unreadable.

    Raises
    ------
    DatasetError
        ``directory`` is not a fudasim dataset (no manifest, or not a fudasim one).
    """
    directory = storage.location(directory)
    check = DatasetCheck(directory, read_manifest(directory))
    entries = _entries(check.manifest)
    n_shards = check.expected_shards
    if not check.listed:
        check.notes.append(f"{RUN_FILE} lists no shard files (written by an older fudasim): "
                           f"sizes and checksums unavailable")
    try:
        paths = storage.children(directory)
    except OSError as error:
        raise DatasetError(f"{directory}: cannot list: {_why(error)}") from None
    for path in paths:
        name = path.name
        if name in (RUN_FILE, LOCK_FILE):
            continue
        if TEMPORARY_NAME.fullmatch(name):
            check.problems.append(("temporary", f"{name}: a temporary file left by an interrupted write "
                                                f"(--resume of the command that wrote it removes it)"))
            continue
        match = SHARD_NAME.fullmatch(name)
        if match and path.is_file() and int(match.group(1)) < n_shards:
            shard = _check_shard(check, int(match.group(1)), path, entries.get(int(match.group(1))),
                                 checksums, deep)
            check.shards[shard.index] = shard
            if shard.problem:
                check.problems.append((shard.kind or "foreign", shard.problem))
            continue
        what = "directory" if path.is_dir() else "file"
        if match and path.is_file():
            check.problems.append(("extra", f"{name}: extra shard file (the run has shards 0..{n_shards - 1})"))
        else:
            check.problems.append(("stray", f"{name}: extra {what} (not part of this dataset)"))
    # Only what the manifest lists and what the folder holds is walked, never every planned shard:
    # a run may plan more shards than could be counted one by one.
    listed = {index for index in entries if 0 <= index < n_shards}
    missing = [(index, " (listed in the manifest)") for index in listed
               if index not in check.shards]
    more = 0
    if check.complete:  # every shard was written: one not listed is missing too
        known = sorted(listed | set(check.shards))
        unlisted, more = _missing_indices(known, n_shards, MISSING_LINES)
        missing += [(index, "") for index in unlisted]
    for index, where in sorted(missing):
        check.problems.append(("missing", f"{SHARD_PATTERN.format(index)}: missing{where}"))
    if more:
        check.problems.append(("missing", f"{more:,} more shards missing (the run has shards "
                                          f"0..{n_shards - 1:,})"))
    if not check.complete:
        present = len(check.good_shards())
        check.problems.insert(0, ("incomplete", f"the run is not complete: {present:,} of "
                                                f"{n_shards:,} shards present and intact"))
        holder = lock_holder(directory)
        if holder is not None and isinstance(directory, StorePath):
            check.notes.append(f"its {LOCK_FILE} object says a fudasim run (pid {holder}) is writing it (or "
                               f"was, if that run was killed)")
        elif holder is not None:
            check.notes.append(f"a fudasim run (pid {holder}) is writing this dataset now")
    return check


def verify_dataset(path: str | os.PathLike | StorePath, deep: bool = False) -> list[str]:
    """Every problem of a dataset directory, one line each (empty: the dataset is intact).

    Checks the manifest against the files: missing, extra, foreign and unlisted files, sizes,
    checksums, shards of another run, duplicate or missing units, completeness; with ``deep``
    also decodes every shard and checks its rows against its unit range.

    Raises
    ------
    DatasetError
        ``path`` is not a fudasim dataset.
    """
    return [line for _, line in check_dataset(path, checksums=True, deep=deep).problems]


def own_files(directory: str | os.PathLike | StorePath) -> tuple[list[Location], str | None]:
    """Files of ``directory`` that its dataset owns, and the first foreign one (or None).

    Own: the manifest, the lock file, the shards the manifest lists, fudasim temporary files,
    and shard-named Parquet files whose ``fudasim.run`` belongs to the manifest's run.  Anything
    else (a ``_run.json`` that is not a fudasim manifest, a sub-directory, another file) is foreign.

    Parameters
    ----------
    directory : path
        An existing directory.

    Returns
    -------
    (list of Path, str or None)
        Every own file, and the name of the first foreign entry in name order; when there is a
        foreign entry the list is empty (``--overwrite`` deletes nothing then).
    """
    directory = storage.location(directory)
    paths = storage.children(directory)
    names = [path.name for path in paths]
    manifest = None
    if RUN_FILE in names:
        try:
            manifest = read_manifest(directory)
        except DatasetError:
            return [], RUN_FILE
    listed = {entry.get("file") for entry in _entries(manifest or {}).values()}
    own: list[Location] = []
    for path in paths:
        name = path.name
        if path.is_symlink() or path.is_dir():
            return [], name
        if name in (RUN_FILE, LOCK_FILE) or TEMPORARY_NAME.fullmatch(name):
            own.append(path)
            continue
        if manifest is not None and SHARD_NAME.fullmatch(name):
            if name in listed:
                own.append(path)
                continue
            info, _, _ = _shard_run_info(path)
            if info is not None and run_difference(manifest, info) is None:
                own.append(path)
                continue
        return [], name
    return own, None


def foreign_file(directory: str | os.PathLike | StorePath) -> str | None:
    """The first file of ``directory`` that its dataset does not own (see ``own_files``), or None."""
    return own_files(directory)[1]
