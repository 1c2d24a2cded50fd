"""Interleaved A/B timing of a whole fudasim command: a git revision's against the working tree's.

``benchmarks.kernel_ab`` times a kernel; much of a tournament's, a sweep's or the findings page's
time is spent around the kernels (planning each run, loading rules and models, writing and
reading its folder). This times the command itself::

    python -m benchmarks.command_ab --against REV --repeat 5 -- tournament enshu-c --players 3 \\
        --policies random,greedy,heuristic,learned --deals 50 --out {out}

Everything after ``--`` is the ``fudasim`` command line; ``{out}`` becomes a fresh folder for
every run (and ``{out}/x`` a path inside it). ``--module`` runs another module of the project
instead of ``fudasim`` (``cli.main``), e.g. the findings page's; ``--extra ARG`` (repeatable)
appends ``ARG`` to the working tree's command line only, to time a new option against the
revision's command without it::

    python -m benchmarks.command_ab --against fdebb45 --module benchmarks.findings --extra=--processes \
        --extra=2 -- --out {out} --doc {out}/findings.md --threads 2 --check 2027 ...

The revision (``--against``, default ``HEAD``) is extracted with ``git archive`` into a temporary
folder and run from there, the working tree from its own folder, each as ``python -m MODULE ...``
in a child process. Each side first runs once untimed (it compiles its kernels
into its own numba cache), then the timed runs alternate (A B, B A, ...), so both sides see the
same drift of a shared machine's speed. It prints each side's wall times, their medians and the
ratio of the working tree's median to the revision's. The rows are not compared: a change whose
rows may differ is checked with ``kernel_ab`` or a digest of its runs.
"""

from __future__ import annotations

import argparse
import io
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def extract(rev: str, into: Path, root: Path = ROOT) -> str:
    """Write revision ``rev``'s tree into ``into``; its short hash."""
    short = subprocess.run(["git", "rev-parse", "--short", rev], cwd=root, capture_output=True, text=True,
                           check=True).stdout.strip()
    archive = subprocess.run(["git", "archive", "--format=tar", rev], cwd=root, capture_output=True, check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into / "tree", filter="data")
    return short


def command(args: list[str], out: Path, module: str = "cli.main") -> list[str]:
    """The child's command line: ``python -m MODULE`` and ``args`` with ``{out}`` replaced."""
    return [sys.executable, "-m", module, *(a.replace("{out}", str(out)) for a in args)]


def timed(tree: Path, args: list[str], scratch: Path, module: str = "cli.main") -> float:
    """Seconds the command took run from ``tree``; ``SystemExit`` with its output if it failed."""
    with tempfile.TemporaryDirectory(dir=scratch) as place:
        started = time.perf_counter()
        done = subprocess.run(command(args, Path(place) / "out", module), cwd=tree, capture_output=True, text=True)
        seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"command_ab: the command failed in {tree} (exit {done.returncode}): "
                         f"{(done.stderr or done.stdout).strip().splitlines()[-1:]}")
    return seconds


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--against", default="HEAD", help="the git revision to compare with (default HEAD)")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs of each side")
    parser.add_argument("--module", default="cli.main",
                        help="the project's module to run (default cli.main, the fudasim command)")
    parser.add_argument("--extra", action="append", default=[], metavar="ARG",
                        help="append ARG to the working tree's command line only (repeatable)")
    parser.add_argument("fudasim", nargs=argparse.REMAINDER, help="-- then the fudasim command line")
    args = parser.parse_args(argv)
    rest = args.fudasim[1:] if args.fudasim[:1] == ["--"] else args.fudasim
    if not rest:
        parser.error("give the fudasim command after --, e.g. -- run tensho-ise --rounds 10000 --out {out}")
    if args.repeat < 1:
        parser.error(f"--repeat {args.repeat}: at least 1")
    with tempfile.TemporaryDirectory(prefix="fudasim-command-ab-") as scratch_name:
        scratch = Path(scratch_name)
        short = extract(args.against, scratch)
        sides = {short: scratch / "tree", "working tree": ROOT}
        lines = {short: rest, "working tree": [*rest, *args.extra]}
        for name, tree in sides.items():
            print(f"warming {name} ...", flush=True)
            timed(tree, lines[name], scratch, args.module)
        seconds: dict[str, list[float]] = {name: [] for name in sides}
        for k in range(args.repeat):
            for name in (list(sides) if k % 2 == 0 else list(sides)[::-1]):
                seconds[name].append(timed(sides[name], lines[name], scratch, args.module))
                print(f"  {name}: {seconds[name][-1]:.2f} s", flush=True)
    medians = {name: statistics.median(values) for name, values in seconds.items()}
    for name, values in seconds.items():
        print(f"{name}: median {medians[name]:.2f} s (best {min(values):.2f} s) over {len(values)} runs")
    print(f"working tree / {short}: {medians['working tree'] / medians[short]:.2f}x the median wall time")


if __name__ == "__main__":
    main()
