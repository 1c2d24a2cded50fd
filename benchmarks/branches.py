"""Which branches of the Tensho kernel mispredict, under callgrind's branch simulator.

``benchmarks.instructions`` gives totals; this lists the conditional branches of the compiled
round (``play_units_nb``, with the round inlined, and ``random_turns``) by simulated
mispredictions per round, each with the instructions before it, so that a branch can be traced
to its source.  The kernel is compiled natively into a cache of its own (as in
``benchmarks.instructions``), the child under valgrind dumps the pages of that code and their
address, and the parent reads callgrind's per-instruction counts for those pages and
disassembles them with ``objdump``.  The simulator is simpler than a real predictor: it also
misses loop exits of a fixed count and alternations, which hardware learns.

Needs ``valgrind`` and ``objdump`` on the PATH.  Run with ``python -m benchmarks.branches
[--rounds N] [--top N] [--policy greedy]``.
"""

from __future__ import annotations

import argparse
import collections
import ctypes
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks.instructions import host_cpu, play

FUNCTIONS = ("play_units_nb", "random_turns")


def dump_code(into: Path) -> None:
    """Write the code pages holding the round's compiled functions to ``into / code.bin`` and
    their first address and the functions' entry points to ``into / code.txt`` (in the child)."""
    from simcore.games.tensho import kernel_nb as T

    library = next(iter(T.play_units_nb.overloads.values())).library
    names = set()
    for path in Path(os.environ["NUMBA_CACHE_DIR"]).rglob("kernel_nb.*.nbc"):  # simcore/games/tensho/kernel_nb.py
        names |= set(re.findall(rb"_ZN7simcore5games6tensho9kernel_nb\d+\w+?7alignedE\w*?(?=[^\w])",
                                path.read_bytes()))
    entries = {}
    for name in sorted(names, key=len):
        for function in FUNCTIONS:
            if function in entries or f"{len(function)}{function}".encode() not in name:
                continue
            for cut in range(len(name), 40, -1):  # the symbol is a prefix of what the cache holds
                try:
                    address = library.get_pointer_to_function(name[:cut].decode())
                except Exception:  # not a symbol of the library
                    address = 0
                if address:
                    entries[function] = address
                    break
    if set(entries) != set(FUNCTIONS):
        raise SystemExit(f"benchmarks.branches: compiled functions not found: {set(FUNCTIONS) - set(entries)}")
    low = min(entries.values())
    maps: list[tuple[int, int, str]] = []
    for line in Path("/proc/self/maps").read_text().splitlines():
        bounds, mode = line.split()[:2]
        begin, end = (int(x, 16) for x in bounds.split("-"))
        maps.append((begin, end, mode))
    first = next((m for m in maps if m[0] <= low < m[1]), None)
    if first is None:
        raise SystemExit("benchmarks.branches: the compiled code is not in /proc/self/maps")
    start = first[0]
    high = max(first[1], max(max(m[1] for m in maps if m[0] <= a < m[1]) for a in entries.values()))
    # The functions may lie in several mappings: copy the readable ones, zeros between them.
    code = bytearray(high - start)
    for begin, end, mode in maps:
        lo, hi = max(begin, start), min(end, high)
        if lo < hi and mode.startswith("r"):
            code[lo - start:hi - start] = ctypes.string_at(lo, hi - lo)
    (into / "code.bin").write_bytes(bytes(code))
    (into / "code.txt").write_text(f"{start:x}\n" + "".join(f"{f} {a:x}\n" for f, a in entries.items()))


def branch_costs(callgrind_out: Path, low: int, high: int) -> dict[int, list[int]]:
    """Per instruction address in ``[low, high)``: callgrind's ``Ir Bc Bcm`` counts (the file
    written with ``--dump-instr=yes --branch-sim=yes``; addresses may be relative, ``+n``/``-n``,
    or ``*`` for the same; call lines' costs belong to the call, not the instruction)."""
    costs: dict[int, list[int]] = collections.defaultdict(lambda: [0, 0, 0])
    previous = 0
    after_calls = False
    for line in callgrind_out.read_text().splitlines():
        if line.startswith("calls="):
            after_calls = True
            continue
        if not line or not (line[0].isdigit() or line[0] in "+-*"):
            continue
        fields = line.split()
        position = fields[0]
        if position == "*":
            address = previous
        elif position[0] in "+-":
            address = previous + int(position, 0)
        else:
            address = int(position, 0)
        previous = address
        if after_calls:
            after_calls = False
            continue
        if low <= address < high:
            # positions are "instr line": the line number is the second field
            for k, value in enumerate(fields[2:5]):
                costs[address][k] += int(value)
    return costs


def disassembly(code: Path, start: int) -> dict[int, str]:
    text = subprocess.run(["objdump", "-D", "-b", "binary", "-m", "i386:x86-64", f"--adjust-vma={start:#x}",
                           str(code)], capture_output=True, text=True, check=True).stdout
    out = {}
    for line in text.splitlines():
        match = re.match(r"\s*([0-9a-f]+):\s+(?:[0-9a-f]{2} )+\s*(.*)", line)
        if match and match.group(2).strip():  # not a continuation line of a long instruction
            out[int(match.group(1), 16)] = match.group(2).strip()
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.branches", description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=100_000, help="rounds played under callgrind")
    parser.add_argument("--top", type=int, default=12, help="branches listed")
    parser.add_argument("--policy", default="random", help="the policy of both seats")
    parser.add_argument("--play", default=None, help=argparse.SUPPRESS)  # the child: its output directory
    args = parser.parse_args(argv)
    if args.rounds < 1 or args.top < 1:
        parser.error("--rounds and --top must be at least 1")
    if args.play is not None:
        play(args.rounds, args.policy, "fixed_1", after_warm=lambda: dump_code(Path(args.play)))
        return 0
    missing = [tool for tool in ("valgrind", "objdump") if shutil.which(tool) is None]
    if missing:
        print(f"benchmarks.branches: not installed: {', '.join(missing)}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        env = dict(os.environ, PYTHONHASHSEED="0", NUMBA_NUM_THREADS="1", NUMBA_CACHE_DIR=str(work / "cache"),
                   **host_cpu())
        child = [sys.executable, "-m", "benchmarks.branches", "--play", str(work), "--policy", args.policy]
        subprocess.run(child + ["--rounds", "1"], env=env, check=True, capture_output=True)  # compile natively
        out = work / "callgrind.out"
        subprocess.run(["valgrind", "--tool=callgrind", "--branch-sim=yes", "--dump-instr=yes",
                        f"--callgrind-out-file={out}"] + child + ["--rounds", str(args.rounds)],
                       env=env, check=True, capture_output=True)
        lines = (work / "code.txt").read_text().split()
        start, entries = int(lines[0], 16), {lines[k]: int(lines[k + 1], 16) for k in range(1, len(lines), 2)}
        code = work / "code.bin"
        costs = branch_costs(out, start, start + code.stat().st_size)
        listing = disassembly(code, start)
    played = args.rounds + 1000
    addresses = sorted(listing)
    total = [sum(c[k] for c in costs.values()) / played for k in range(3)]
    print(f"Tensho kernel, {args.policy} vs {args.policy}, per round ({played:,} rounds under callgrind): "
          f"{total[0]:,.0f} instructions, {total[1]:,.0f} conditional branches, {total[2]:.2f} mispredicted "
          f"(simulated) in {', '.join(FUNCTIONS)}")
    ranked = sorted(costs.items(), key=lambda item: -item[1][2])[:args.top]
    for address, (_, branches, missed) in ranked:
        function = max((f for f in entries if entries[f] <= address), key=lambda f: entries[f], default="?")
        print(f"\n{missed / played:6.2f} mispredicted, {branches / played:6.2f} executed a round: "
              f"{function} + {address - entries.get(function, start):#x}")
        at = addresses.index(address) if address in listing else None
        for a in addresses[max(0, at - 6):at + 1] if at is not None else []:
            print(f"    {a - start:#07x}  {listing[a]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
