"""The Parquet dataset: schema, atomic shard writing, run metadata, reading.

A run writes a directory::

    OUT/_run.json               the run plan (written first; resume reads it)
    OUT/part-000000.parquet     shards, one per chunk of units, each complete or absent
    OUT/part-000001.parquet
    ...

Every shard carries the run metadata (DESIGN.md invariant 7) in its Parquet key-value metadata:
``fudasim.run`` (JSON: engine version, game, seed, unit and round range, policies, options,
command line, yaku table in bit order, ...) and ``fudasim.rules`` (the rules file text).
The columns are documented in ``docs/dataset.md``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from simcore.kernels import enums as E

__all__ = [
    "DatasetError",
    "ColumnStore",
    "SHARD_PATTERN",
    "RUN_FILE",
    "columns_from_matrices",
    "output_buffers",
    "output_matrices",
    "shard_table",
    "write_shard",
    "write_shard_file",
    "commit_shard",
    "shard_path",
    "read_run_info",
    "read_dataset",
    "existing_shards",
]

SHARD_PATTERN = "part-{:06d}.parquet"
RUN_FILE = "_run.json"
N_SEATS = 2


class DatasetError(ValueError):
    """A path is not a (complete, readable) fudasim dataset."""


# Column name, source matrix ("int" or "mask"), index, Arrow type.
_SCALAR_INT = [
    ("round", E.C_ROUND, pa.int64()),
    ("match", E.C_MATCH, pa.int64()),
    ("round_in_match", E.C_ROUND_IN_MATCH, pa.int16()),
    ("dealer", E.C_DEALER, pa.int8()),
    ("first_player", E.C_FIRST_PLAYER, pa.int8()),
    ("yaku_set", E.C_YAKU_SET, pa.int8()),
    ("winner", E.C_WINNER, pa.int8()),
    ("end_turn", E.C_END_TURN, pa.int8()),
    ("redeals", E.C_REDEALS, pa.int16()),
]
_SEAT_INT = [
    ("yaku_points", E.C_YAKU_POINTS, pa.int32()),
    ("card_points", E.C_CARD_POINTS, pa.int32()),
    ("chaff", E.C_CHAFF, pa.int16()),
    ("score", E.C_SCORE, pa.int32()),
    ("payoff", E.C_PAYOFF, pa.int32()),
    ("match_points", E.C_MATCH_POINTS, pa.int32()),
]
_SCALAR_MASK = [("field_dealt", E.M_FIELD_DEALT), ("opening_claim", E.M_OPENING_CLAIM)]
_SEAT_MASK = [("hand_dealt", E.M_HAND_DEALT), ("captured", E.M_CAPTURED), ("yaku", E.M_YAKU)]

END_REASON_TYPE = pa.dictionary(pa.int8(), pa.string())


def schema() -> pa.Schema:
    fields = [pa.field(name, typ) for name, _, typ in _SCALAR_INT]
    fields.insert(7, pa.field("end_reason", END_REASON_TYPE))
    fields.append(pa.field("match_end", pa.bool_()))
    fields += [pa.field(name, pa.uint64()) for name, _ in _SCALAR_MASK]
    for name, _ in _SEAT_MASK:
        fields += [pa.field(f"{name}_{s}", pa.uint64()) for s in range(N_SEATS)]
    for name, _, typ in _SEAT_INT:
        fields += [pa.field(f"{name}_{s}", typ) for s in range(N_SEATS)]
    # No nulls ever: required columns spare Parquet its definition levels.
    return pa.schema([f.with_nullable(False) for f in fields])


class ColumnStore:
    """Reusable column arrays, so that a writer copying shard after shard faults in no new memory.

    Columns taken from a store stay valid until the next shard is taken from it: the writer
    takes, writes and summarises one shard at a time.
    """

    def __init__(self) -> None:
        self._arrays: dict[tuple, np.ndarray] = {}

    def take(self, key: tuple, dtype, rows: int) -> np.ndarray:
        dtype = np.dtype(dtype)
        array = self._arrays.get((key, dtype))
        if array is None or array.size < rows:
            array = np.empty(rows, dtype=dtype)
            self._arrays[(key, dtype)] = array
        return array[:rows]


def column_reader(ints: np.ndarray, masks: np.ndarray, valid_column: int, store: ColumnStore | None = None):
    """``column(matrix, index, dtype)``: a copied column of the valid rows of ``ints``/``masks``.

    Without ``store`` every column is a fresh array; with it, a reused one (see ``ColumnStore``).
    The copy is needed either way: the engines reuse their output buffers.
    """
    keep = ints[valid_column] == 1
    rows = None if keep.all() else np.flatnonzero(keep)  # matches may leave extra-round room unused
    n = ints.shape[1] if rows is None else len(rows)

    def column(matrix: np.ndarray, index: int, dtype) -> np.ndarray:
        values = matrix[index] if rows is None else matrix[index, rows]
        if store is None:
            return np.array(values, dtype=dtype, copy=True)
        out = store.take(("mask" if matrix is masks else "int", index), dtype, n)
        np.copyto(out, values, casting="unsafe")
        return out

    return column


def columns_from_matrices(ints: np.ndarray, masks: np.ndarray,
                          store: ColumnStore | None = None) -> dict[str, np.ndarray]:
    """Named per-round columns from the engines' output matrices (valid rows only, copied).

    Parameters
    ----------
    ints : int64[N_INT_COLUMNS, rows]
    masks : uint64[N_MASK_COLUMNS, rows]
    store : optional ``ColumnStore`` whose arrays are reused for the copies
    """
    column = column_reader(ints, masks, E.C_VALID, store)

    out: dict[str, np.ndarray] = {}
    for name, index, typ in _SCALAR_INT:
        out[name] = column(ints, index, typ.to_pandas_dtype())
    out["end_reason"] = column(ints, E.C_END_REASON, np.int8)
    out["match_end"] = column(ints, E.C_MATCH_END, np.bool_)
    for name, index in _SCALAR_MASK:
        out[name] = column(masks, index, np.uint64)
    for name, index in _SEAT_MASK:
        for s in range(N_SEATS):
            out[f"{name}_{s}"] = column(masks, index + s, np.uint64)
    for name, index, typ in _SEAT_INT:
        for s in range(N_SEATS):
            out[f"{name}_{s}"] = column(ints, index + s, typ.to_pandas_dtype())
    return out


def output_buffers(rows: int, n_int: int = E.N_INT_COLUMNS,
                   n_mask: int = E.N_MASK_COLUMNS) -> tuple[np.ndarray, np.ndarray]:
    """Flat, reusable storage for the engines' output matrices of up to ``rows`` rows."""
    return np.empty(n_int * rows, dtype=np.int64), np.empty(n_mask * rows, dtype=np.uint64)


def output_matrices(rows: int, out: tuple[np.ndarray, np.ndarray] | None = None,
                    n_int: int = E.N_INT_COLUMNS, n_mask: int = E.N_MASK_COLUMNS):
    """C-contiguous ``int64[n_int, rows]`` and ``uint64[n_mask, rows]`` matrices (column-major rows).

    With ``out`` (from ``output_buffers``) they are views of its first cells, uninitialised;
    without, fresh zero-filled arrays.  The defaults are Tensho's column counts.
    """
    if out is None:
        return np.zeros((n_int, rows), dtype=np.int64), np.zeros((n_mask, rows), dtype=np.uint64)
    if out[0].size < n_int * rows or out[1].size < n_mask * rows:
        raise ValueError(f"output buffers hold fewer than {rows} rows")
    return out[0][: n_int * rows].reshape(n_int, rows), out[1][: n_mask * rows].reshape(n_mask, rows)


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
                table_schema: pa.Schema | None = None, end_reasons: tuple[str, ...] = E.END_REASONS) -> pa.Table:
    """An Arrow table of named columns with the run metadata and rules text attached.

    ``table_schema`` and ``end_reasons`` default to Tensho's; other games pass their own.
    """
    sch = schema() if table_schema is None else table_schema
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


def shard_path(out_dir: Path, shard_index: int) -> Path:
    return Path(out_dir) / SHARD_PATTERN.format(shard_index)


def write_shard(out_dir: Path, shard_index: int, table: pa.Table) -> Path:
    """Write a shard atomically: a temporary name in the same directory, fsync, then rename."""
    return commit_shard(*write_shard_file(out_dir, shard_index, table))


def write_shard_file(out_dir: Path, shard_index: int, table: pa.Table) -> tuple[Path, Path]:
    """Write a shard under its temporary name; returns (temporary, final) for ``commit_shard``.

    Until committed the shard is a hidden ``.part-*.tmp-*`` file, which readers ignore and
    ``--resume`` deletes.
    """
    final = shard_path(out_dir, shard_index)
    temporary = final.with_name(f".{final.name}.tmp-{os.getpid()}")
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
    pq.write_table(table, temporary, compression="zstd", compression_level=1, use_dictionary=dictionary_columns,
                   column_encoding=encodings, write_statistics=sequential, row_group_size=1 << 20)
    return temporary, final


def commit_shard(temporary: Path, final: Path) -> Path:
    """Make a written shard durable (fsync) and give it its final name (atomic rename)."""
    with open(temporary, "rb") as handle:
        os.fsync(handle.fileno())
    os.replace(temporary, final)
    return final


def write_json_atomic(path: Path, data: dict[str, Any]) -> None:
    temporary = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    temporary.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    os.replace(temporary, path)


def existing_shards(out_dir: Path) -> dict[int, Path]:
    out = {}
    for path in Path(out_dir).glob("part-*.parquet"):
        stem = path.name[len("part-") : -len(".parquet")]
        if stem.isdigit():
            out[int(stem)] = path
    return out


def read_run_info(path: str | os.PathLike) -> dict[str, Any]:
    """The run metadata of a dataset directory (or of one shard file)."""
    path = Path(path)
    if path.is_dir():
        run_file = path / RUN_FILE
        if run_file.is_file():
            try:
                return json.loads(run_file.read_text(encoding="utf-8"))
            except (OSError, json.JSONDecodeError) as error:
                raise DatasetError(f"{run_file}: unreadable run file: {error}") from None
        shards = existing_shards(path)
        if not shards:
            raise DatasetError(f"{path}: not a fudasim dataset (no {RUN_FILE} and no part-*.parquet)")
        path = shards[min(shards)]
    if not path.exists():
        raise DatasetError(f"{path}: no such file or directory")
    try:
        metadata = pq.read_schema(path).metadata or {}
    except (OSError, pa.ArrowInvalid) as error:
        raise DatasetError(f"{path}: not a Parquet file: {error}") from None
    if b"fudasim.run" not in metadata:
        raise DatasetError(f"{path}: Parquet file without fudasim run metadata")
    return json.loads(metadata[b"fudasim.run"])


def dataset_files(path: str | os.PathLike) -> list[Path]:
    path = Path(path)
    if path.is_file():
        return [path]
    if not path.is_dir():
        raise DatasetError(f"{path}: no such dataset directory")
    shards = existing_shards(path)
    if not shards:
        raise DatasetError(f"{path}: not a fudasim dataset (no part-*.parquet shards)")
    return [shards[k] for k in sorted(shards)]


def read_dataset(path: str | os.PathLike, columns: list[str] | None = None):
    """Read a dataset (directory or shard) into a pandas DataFrame, rows in round order."""
    files = dataset_files(path)
    try:
        tables = [pq.read_table(f, columns=columns) for f in files]
    except (OSError, pa.ArrowInvalid, KeyError) as error:
        raise DatasetError(f"{path}: cannot read dataset: {error}") from None
    table = pa.concat_tables(tables)
    frame = table.to_pandas()
    if "round" in frame.columns:
        frame = frame.sort_values("round", kind="stable").reset_index(drop=True)
    return frame
