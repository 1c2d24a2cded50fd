"""Name the kernels' functions in a Linux ``perf`` profile: run a fudasim command in this process,
then write ``/tmp/perf-PID.map``, the map of the process's compiled code that ``perf report``
reads to name the addresses it sampled::

    perf record -F 999 -o perf.data -- python -m benchmarks.perf_map run koikoi --rounds 3000 \\
        --policy 0=pimc --policy 1=pimc --threads 1 -o /tmp/perf-run --overwrite --no-progress
    perf report -i perf.data --sort symbol

Everything after ``benchmarks.perf_map`` is the command, as ``fudasim`` takes it. numba names
a function by its module and name (``simcore.games.koikoi.state_nb.pile_yaku_nb`` reads as
``_ZN7simcore5games6koikoi8state_nb12pile_yaku_nb...``); a function numba inlined
(``inline="always"``) has no name of its own, and its time is its caller's. A kernel loaded
from numba's cache has no code this can read, so the command compiles its kernels afresh into
a temporary cache (a minute or two, which the profile shows as time in the Python
interpreter and LLVM: read the kernels' share of the samples, or give the command enough
rounds to outweigh it).
"""

from __future__ import annotations

import gc
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

__all__ = ["jit_symbols", "main", "write_map"]


def jit_symbols() -> dict[int, str]:
    """The address of every function numba compiled in this process (``{address: name}``)."""
    from numba.core.registry import CPUDispatcher

    libraries = {cres.library for obj in _dispatchers(CPUDispatcher) for cres in obj.overloads.values()}
    symbols: dict[int, str] = {}
    for library in libraries:
        module = getattr(library, "_final_module", None)
        engine = getattr(getattr(library, "_codegen", None), "_engine", None)
        if module is None or engine is None:
            continue
        for function in module.functions:
            if function.is_declaration:
                continue
            try:
                address = engine.get_function_address(function.name)
            except (RuntimeError, ValueError):
                continue
            if address:
                symbols[address] = function.name
    return symbols


def _dispatchers(kind: type) -> list[Any]:
    """numba's dispatchers among the live objects (a dead weak proxy among them is passed over:
    asking its type raises)."""
    found = []
    for obj in gc.get_objects():
        try:
            if isinstance(obj, kind):
                found.append(obj)
        except ReferenceError:
            continue
    return found


def write_map(symbols: dict[int, str], path: Path) -> None:
    """``perf``'s map file: a line ``START SIZE NAME`` (hex) a function, each taken to run up to
    the next one's start."""
    addresses = sorted(symbols)
    with path.open("w") as out:
        for i, address in enumerate(addresses):
            size = addresses[i + 1] - address if i + 1 < len(addresses) else 1 << 16
            out.write(f"{address:x} {min(size, 1 << 24):x} {symbols[address]}\n")


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if not args or args[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if args else 2
    os.environ["NUMBA_CACHE_DIR"] = tempfile.mkdtemp(prefix="fudasim-perf-cache-")
    from cli.main import main as fudasim

    try:
        fudasim.main(args=args, standalone_mode=False)
    except SystemExit as exit_:
        if exit_.code not in (0, None):
            return int(exit_.code) if isinstance(exit_.code, int) else 2
    symbols = jit_symbols()
    path = Path(f"/tmp/perf-{os.getpid()}.map")
    write_map(symbols, path)
    print(f"{len(symbols)} compiled functions named in {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
