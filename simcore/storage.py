"""Where a dataset lives: a local folder (``pathlib.Path``) or a prefix in an object store.

``location(text)`` turns what a user gave (``runs/demo``, ``s3://bucket/prefix``, or the same URI
after ``pathlib`` collapsed its ``//``) into a ``Path`` or a ``StorePath``.  ``StorePath`` offers
the few ``Path`` methods the dataset layer uses (``/``, ``name``, ``exists``, ``is_file``,
``is_dir``, ``stat``, ``open``, ``read_text``, ``unlink``), each done through a pyarrow file
system (``pyarrow.fs.FileSystem.from_uri``: ``s3://``, ``gs://``, ``abfs://``, ``hdfs://``...).
``file://`` URIs are local folders.  The Parquet helpers (``read_metadata``, ``read_table``,
``parquet_file``...) take either kind.

An object store has no rename and no ``flock``: shards are written under their final, write-once
names in one whole-object PUT (``simcore.dataset.commit_shard_with_digest``), the manifest is
replaced as a whole, and a marker object stands in for the lock (docs/distributed.md, "Object
stores").  The endpoint and credentials come from the environment as for any AWS client
(``AWS_ENDPOINT_URL``, ``AWS_ACCESS_KEY_ID``, ``AWS_PROFILE``, ...) or from the URI's query
(``?endpoint_override=HOST:PORT&scheme=http``).
"""

from __future__ import annotations

import os
import re
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeAlias

import pyarrow as pa
import pyarrow.fs as pafs
import pyarrow.parquet as pq

from simcore.errors import DatasetError

__all__ = ["Location", "StorePath", "StoreStat", "is_uri", "location", "listdir", "children", "read_metadata",
           "read_schema", "read_table", "parquet_file", "is_store", "display", "check_bucket"]

# scheme://rest, or scheme:/rest as pathlib writes it; a scheme of one letter is a drive (C:/).
_URI = re.compile(r"([A-Za-z][A-Za-z0-9+.-]+):/+(.*)", re.DOTALL)


# Schemes of pyarrow's object stores and remote file systems (``s3://`` alone becomes ``s3:``).
_STORE_SCHEMES = ("s3", "gs", "gcs", "hdfs", "viewfs", "abfs", "abfss")


def is_uri(text: str | os.PathLike | StorePath) -> bool:
    """Whether ``text`` names a location by URI (``s3://bucket/prefix``, ``file:///tmp/x``...)."""
    if isinstance(text, StorePath):
        return True
    return _URI.fullmatch(os.fspath(text)) is not None


@dataclass(frozen=True)
class StoreStat:
    """What ``StorePath.stat()`` gives: the object's size in bytes."""

    st_size: int


_file_systems: dict[tuple[str, tuple[tuple[str, str], ...]], tuple[Any, str]] = {}
_file_systems_lock = threading.Lock()


def _file_system(uri: str) -> tuple[Any, str]:
    """(pyarrow file system, path inside it) of a URI; one file system per URI and process (and
    per set of ``AWS_*`` variables, which pyarrow reads when it makes one)."""
    key = (uri, tuple(sorted((k, v) for k, v in os.environ.items() if k.startswith("AWS_"))))
    with _file_systems_lock:
        found = _file_systems.get(key)
        if found is None:
            try:
                found = pafs.FileSystem.from_uri(uri)
            except (pa.ArrowException, OSError, ValueError) as error:
                raise DatasetError(f"{uri}: not a usable location ({_one_line(error)})") from None
            _file_systems[key] = found
        return found


def _one_line(error: BaseException) -> str:
    return " ".join(str(error).split())


class StorePath:
    """A dataset folder, or an object in it, in an object store (see the module docstring).

    Immutable and picklable (as its URI); the file system is made from the URI on first use, once
    per process.  ``key`` is the path inside the file system (``bucket/prefix/name``).
    """

    __slots__ = ("_base", "_query", "_parts", "_size")

    def __init__(self, uri: str, _parts: tuple[str, ...] = (), _size: int | None = None) -> None:
        base, _, query = uri.partition("?")
        self._base = base.rstrip("/")
        self._query = query
        self._parts = _parts
        self._size = _size  # known from a listing; None: ask the store

    def __reduce__(self) -> tuple[Any, ...]:
        return (StorePath, (self.root_uri, self._parts))

    @property
    def root_uri(self) -> str:
        """The URI of the dataset folder this path is in (with its query, if any)."""
        return self._base + (f"?{self._query}" if self._query else "")

    def _file_system(self) -> tuple[Any, str]:
        fs, root = _file_system(self.root_uri)
        return fs, "/".join([root.rstrip("/"), *self._parts]) if self._parts else root.rstrip("/")

    @property
    def fs(self) -> Any:
        """The pyarrow file system."""
        return self._file_system()[0]

    @property
    def key(self) -> str:
        """The path inside the file system (``bucket/prefix/name`` for S3)."""
        return self._file_system()[1]

    def __truediv__(self, name: str) -> StorePath:
        return StorePath(self.root_uri, (*self._parts, str(name)))

    def __str__(self) -> str:
        return "/".join([self._base, *self._parts]) + (f"?{self._query}" if self._query else "")

    def __repr__(self) -> str:
        return f"StorePath({str(self)!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, StorePath) and str(self) == str(other)

    def __hash__(self) -> int:
        return hash(str(self))

    def __lt__(self, other: StorePath) -> bool:
        return str(self) < str(other)

    @property
    def name(self) -> str:
        """The last part of the path (the dataset folder's own name for the folder)."""
        return self._parts[-1] if self._parts else self._base.rsplit("/", 1)[-1]

    def resolve(self) -> StorePath:
        """Itself (a URI is absolute)."""
        return self

    def with_name(self, name: str) -> StorePath:
        """The path with its last part replaced."""
        if not self._parts:
            raise DatasetError(f"{self}: the dataset folder itself cannot be renamed")
        return StorePath(self.root_uri, (*self._parts[:-1], name))

    def _info(self) -> Any:
        fs, key = self._file_system()
        try:
            return fs.get_file_info(key)
        except (OSError, pa.ArrowException) as error:
            raise DatasetError(f"{self}: cannot reach the object store ({_one_line(error)})") from None

    def exists(self) -> bool:
        """Whether an object, or objects under this prefix, exist."""
        return self._info().type != pafs.FileType.NotFound

    def is_file(self) -> bool:
        """Whether this is an object."""
        return self._size is not None or self._info().type == pafs.FileType.File

    def is_dir(self) -> bool:
        """Whether objects exist under this prefix."""
        return self._size is None and self._info().type == pafs.FileType.Directory

    def is_symlink(self) -> bool:
        """False: object stores have no links."""
        return False

    def stat(self) -> StoreStat:
        """The object's size (``OSError`` if there is no object)."""
        if self._size is not None:
            return StoreStat(self._size)
        info = self._info()
        if info.type != pafs.FileType.File:
            raise FileNotFoundError(2, "No such object", str(self))
        return StoreStat(int(info.size))

    def open(self, mode: str = "rb") -> Any:
        """A binary input stream of the object (``mode`` must be ``"rb"``)."""
        if mode != "rb":
            raise ValueError(f"{self}: objects open only for reading (mode 'rb')")
        fs, key = self._file_system()
        return fs.open_input_stream(key)

    def read_bytes(self) -> bytes:
        """The object's bytes."""
        with self.open("rb") as handle:
            return bytes(handle.read())

    def read_text(self, encoding: str = "utf-8") -> str:
        """The object's text."""
        return self.read_bytes().decode(encoding)

    def write_bytes(self, data: bytes) -> None:
        """Replace the object with ``data`` in one whole-object upload (no reader sees a part)."""
        fs, key = self._file_system()
        with fs.open_output_stream(key) as handle:
            handle.write(data)

    def unlink(self, missing_ok: bool = False) -> None:
        """Delete the object."""
        fs, key = self._file_system()
        try:
            fs.delete_file(key)
        except FileNotFoundError:
            if not missing_ok:
                raise

    def mkdir(self, parents: bool = False, exist_ok: bool = False) -> None:
        """Nothing: a prefix exists once an object is written under it."""


Location: TypeAlias = Path | StorePath


def location(where: str | os.PathLike | StorePath) -> Location:
    """The ``Path`` or ``StorePath`` that ``where`` names (see the module docstring).

    Raises
    ------
    DatasetError
        A URI that no pyarrow file system accepts, or an object-store URI without a bucket.
    """
    if isinstance(where, StorePath):
        return where
    text = os.fspath(where)
    match = _URI.fullmatch(text)
    if match is None:
        if text.rstrip(":/").lower() in _STORE_SCHEMES and text.endswith(":"):  # s3:// as pathlib writes it
            raise DatasetError(f"{text}//: name a bucket (and a prefix): {text}//BUCKET/PREFIX")
        return Path(text)
    scheme, rest = match.group(1).lower(), match.group(2)
    if scheme == "file":
        return Path("/" + rest.partition("?")[0].lstrip("/"))
    uri = f"{scheme}://{rest}"
    _, path = _file_system(uri)
    if not path.strip("/"):
        raise DatasetError(f"{uri}: name a bucket (and a prefix): {scheme}://BUCKET/PREFIX")
    return StorePath(uri)


def is_store(path: Any) -> bool:
    """Whether ``path`` is in an object store."""
    return isinstance(path, StorePath)


def display(path: str | os.PathLike | StorePath) -> str:
    """``path`` as a user wrote it: a URI keeps its ``//`` (which ``pathlib`` collapses)."""
    if isinstance(path, StorePath):
        return str(path)
    match = _URI.fullmatch(os.fspath(path))
    return os.fspath(path) if match is None else f"{match.group(1)}://{match.group(2)}"


def check_bucket(path: StorePath) -> None:
    """``DatasetError`` unless the store answers and ``path``'s bucket (first part) exists."""
    fs, key = path._file_system()
    bucket = key.split("/", 1)[0]
    try:
        info = fs.get_file_info(bucket)
    except (OSError, pa.ArrowException) as error:
        raise DatasetError(f"{path}: cannot reach the object store ({_one_line(error)}; is AWS_ENDPOINT_URL "
                           f"or the URI's endpoint_override right?)") from None
    if info.type == pafs.FileType.NotFound:
        raise DatasetError(f"{path}: bucket {bucket!r} does not exist (or these credentials cannot see it)")


def children(directory: Location) -> list[Location]:
    """The entries directly in ``directory`` (a folder, or a prefix: objects and sub-prefixes), by
    name.  An object's size comes with it from the listing.  An absent prefix is empty."""
    if isinstance(directory, Path):
        return [directory / name for name in sorted(os.listdir(directory))]
    fs, key = directory._file_system()
    try:
        infos = fs.get_file_info(pafs.FileSelector(key, recursive=False, allow_not_found=True))
    except (OSError, pa.ArrowException) as error:
        raise DatasetError(f"{directory}: cannot list ({_one_line(error)})") from None
    out: list[Location] = []
    for info in sorted(infos, key=lambda i: i.base_name):
        size = int(info.size) if info.type == pafs.FileType.File else None
        out.append(StorePath(directory.root_uri, (*directory._parts, info.base_name), size))
    return out


def listdir(directory: Location) -> list[str]:
    """Names of the entries directly in ``directory`` (see ``children``), sorted."""
    return [entry.name for entry in children(directory)]


def _source(path: Location) -> tuple[Any, dict[str, Any]]:
    if isinstance(path, StorePath):
        fs, key = path._file_system()
        return key, {"filesystem": fs}
    return path, {}


def read_metadata(path: Location) -> Any:
    """``pyarrow.parquet.read_metadata`` of a shard in a folder or a store."""
    source, kwargs = _source(path)
    return pq.read_metadata(source, **kwargs)


def read_schema(path: Location) -> pa.Schema:
    """``pyarrow.parquet.read_schema`` of a shard in a folder or a store."""
    source, kwargs = _source(path)
    return pq.read_schema(source, **kwargs)


def read_table(path: Location, columns: list[str] | None = None, **options: Any) -> pa.Table:
    """``pyarrow.parquet.read_table`` of a shard in a folder or a store (``options``: its others)."""
    source, kwargs = _source(path)
    return pq.read_table(source, columns=columns, **kwargs, **options)


def parquet_file(path: Location) -> pq.ParquetFile:
    """``pyarrow.parquet.ParquetFile`` of a shard in a folder or a store."""
    source, kwargs = _source(path)
    return pq.ParquetFile(source, **kwargs)
