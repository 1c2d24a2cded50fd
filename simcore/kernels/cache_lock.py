"""numba's on-disk cache written safely by several processes at once.

numba saves a compiled function's entry by reading its index file, picking the first data file
name the index does not use, writing the index and then the data file, with no lock.  Two
processes that save different signatures of one function at the same moment (two games' general
kernels share ``units_nb.play_units_nb``; ``fudasim compile`` and a tournament's helper compile
kernels in parallel, and so do the tests) can then pick the same data file name, and the index
can end up naming, for one signature, the code compiled for the other, which a later run would
load and call.  A reader can also find the new index entry before its data file is written.

``install()`` makes numba's ``IndexDataCacheFile.save`` hold an exclusive lock (``fcntl.flock``
on ``fudasim-cache.lock`` in the cache folder) while it reads the index, picks the name and
writes, and write the data file before the index that names it.  Without ``fcntl`` (Windows)
the lock is left out.

A process stopped in the middle of a save (SIGTERM or Ctrl-C) leaves a ``*.tmp.*`` file behind;
``stop_between_saves()`` makes such a stop wait for the save under way to finish.  Processes that
are stopped while they compile call it (``fudasim compile``'s workers, a tournament's helper).
"""

from __future__ import annotations

import contextlib
import itertools
import os
import signal
from collections.abc import Iterator
from typing import Any

__all__ = ["LOCK_NAME", "install", "stop_between_saves"]

LOCK_NAME = "fudasim-cache.lock"
_STATE = {"installed": False, "saving": 0, "stop": 0}


@contextlib.contextmanager
def _locked(folder: str) -> Iterator[None]:
    """Hold the exclusive lock of the cache folder ``folder`` (module docstring)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        yield
        return
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, LOCK_NAME), "a+b") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _save(self: Any, key: Any, data: Any) -> None:
    """``IndexDataCacheFile.save`` (``_save_locked``); a stop that arrives meanwhile waits for it
    (``stop_between_saves``)."""
    _STATE["saving"] += 1
    try:
        _save_locked(self, key, data)
    finally:
        _STATE["saving"] -= 1
        if _STATE["stop"] and not _STATE["saving"]:
            signum, _STATE["stop"] = _STATE["stop"], 0
            _stop(signum)


def _save_locked(self: Any, key: Any, data: Any) -> None:
    """The save under the folder's lock, the data file before the index entry that names it."""
    with _locked(self._cache_path):
        overloads = self._load_index()
        name = overloads.get(key)
        if name is not None:  # the same signature again: its data file is replaced whole
            self._save_data(name, data)
            return
        taken = set(overloads.values())
        name = next(self._data_name(i) for i in itertools.count(1) if self._data_name(i) not in taken)
        self._save_data(name, data)
        overloads[key] = name
        self._save_index(overloads)


def _stop(signum: int) -> None:
    """What ``signum`` does without ``stop_between_saves``: Ctrl-C raises ``KeyboardInterrupt``,
    another signal ends the process (exit status 128 plus its number)."""
    if signum == signal.SIGINT:
        raise KeyboardInterrupt
    os._exit(128 + signum)


def stop_between_saves(signals: tuple[int, ...] = (signal.SIGTERM, signal.SIGINT)) -> None:
    """Let ``signals`` stop this process (``_stop``) except in the middle of a cache save, which is
    finished first (module docstring)."""
    def stop(signum: int, frame: Any) -> None:
        if _STATE["saving"]:
            _STATE["stop"] = signum
        else:
            _stop(signum)

    for number in signals:
        signal.signal(number, stop)


def install() -> bool:
    """Make numba's cache saves hold the lock (module docstring); returns whether they do (False on
    a numba whose cache file class lacks the methods used). Calling it again changes nothing."""
    if _STATE["installed"]:
        return True
    from numba.core import caching

    cache_file = getattr(caching, "IndexDataCacheFile", None)
    needed = ("save", "_load_index", "_save_index", "_save_data", "_data_name")
    if cache_file is None or not all(hasattr(cache_file, name) for name in needed):
        return False
    cache_file.save = _save
    _STATE["installed"] = True
    return True
