"""Interleaved A/B timing of a game's kernel: a git revision's kernel against the working tree's.

A shared machine's speed drifts by 10-20% from minute to minute, so two kernel versions timed
minutes apart cannot be compared. This loads the kernel of a revision (``--against``, default
``HEAD``) and the kernel of the working tree into one process, warms both, and alternates timed
runs between them (in turn order A B, B A, ...) on the same output buffers, so that both sides see
the same drift, the same CPU and the same memory. It prints each side's best, first-quartile and
median time per round, their ratios, and whether the two kernels wrote identical rows for the
same rounds (the dataset's columns by name, wherever each sits in the output matrices) (they must, unless the change is meant to alter rows and bumps ``ENGINE_VERSION``).

The revision's ``simcore`` is extracted with ``git archive`` under another package name; both
kernels are compiled afresh (about two minutes) into a temporary cache, in a child process with
a fixed hash seed, which also times them: two compilations of the same source can differ by a
few per cent in speed, and a cached kernel from another process would add that to the
comparison.  Run with ``python -m benchmarks.kernel_ab --against REV [--rules enshu-c --option enshu.players=5]
[--policy greedy] [--yaku-set fixed_2] [--threads 2] [--rounds N]``; ``--rounds 262144`` times
the calls a run of rows makes (one row shard per call).
"""

from __future__ import annotations

import argparse
import importlib
import io
import os
import re
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

import numpy as np

CHILD = "FUDASIM_KERNEL_AB_CHILD"  # set in the process that compiles and times both kernels


class Side:
    """One kernel version: its rules, policies and ``play_units``, from package ``package``."""

    def __init__(self, name: str, package: str, args: argparse.Namespace) -> None:
        self.name = name
        rules = importlib.import_module(f"{package}.rules")
        policies = importlib.import_module(f"{package}.policies")
        tensho = args.rules.startswith("tensho")
        overrides = {"tensho.yaku_set_choice": args.yaku_set} if tensho else {}
        overrides |= dict(option.split("=", 1) for option in args.option)
        try:  # one package per game (simcore/games/tensho/)
            games = importlib.import_module(f"{package}.games")
        except ModuleNotFoundError:  # a revision from before that layout: Tensho only
            if not tensho:
                raise SystemExit(f"benchmarks.kernel_ab: {name} has no kernel for {args.rules}") from None
            self.play_units = importlib.import_module(f"{package}.kernels.tensho").play_units
            output_buffers = importlib.import_module(f"{package}.dataset").output_buffers
            self.output_buffers = output_buffers
            self.compiled = rules.compile_rules(rules.load_rules("tensho-ise", overrides))
            self.specs = [policies.parse_policy(args.policy), policies.parse_policy(args.policy)]
            self.named = lambda ints, masks: {str(i): ints[i] for i in range(len(ints))} | {
                f"mask {i}": masks[i] for i in range(len(masks))}
        else:
            loaded = rules.load_rules(args.rules, overrides)
            game = games.game_of(loaded)
            self.compiled = game.compile(loaded)
            self.output_buffers = game.output_buffers

            def play_units(compiled, specs, seed, first, n_units, rounds_per_match, out):
                return game.play_units("kernel", compiled, specs, seed, first, n_units, rounds_per_match, out=out)

            self.play_units = play_units
            players = game.players(self.compiled)
            self.specs = [policies.parse_policy(args.policy, game.name)] * players
            # the dataset's columns by name: a change may move a column to another row of the
            # output matrices without changing a row of the dataset
            self.named = lambda ints, masks: game.columns(ints, masks, players)
        self.times: list[float] = []

    def play(self, first: int, rounds: int, buffers):
        return self.play_units(self.compiled, self.specs, 1, first, rounds, None, out=buffers)

    def timed(self, first: int, rounds: int, buffers) -> None:
        start = time.perf_counter()
        self.play(first, rounds, buffers)
        self.times.append(time.perf_counter() - start)


def revision_hash(revision: str, root: Path) -> str | None:
    """The short hash of ``revision`` in the git repository at ``root`` (None: git cannot give it)."""
    try:
        return subprocess.run(["git", "rev-parse", "--short", f"{revision}^{{commit}}"], cwd=root,
                              capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None


def not_a_revision(revision: str, root: Path) -> int:
    print(f"benchmarks.kernel_ab: --against {revision}: not a revision of the git repository "
          f"at {root} (or git is missing)", file=sys.stderr)
    return 2


def extract(revision: str, root: Path, into: Path) -> tuple[str, str] | None:
    """Extract ``simcore`` of ``revision`` under ``into`` as package ``simcore_<hash>`` (its
    imports rewritten); returns the revision's short hash and the package name (None: git
    cannot give them)."""
    short = revision_hash(revision, root)
    if short is None:
        return None
    try:
        archive = subprocess.run(["git", "archive", "--format=tar", short, "simcore"], cwd=root,
                                 capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    package = f"simcore_{short}"
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        for member in tar.getmembers():
            if not member.isfile():
                continue
            extracted = tar.extractfile(member)
            if extracted is None:
                continue
            data = extracted.read()
            target = into / package / Path(member.name).relative_to("simcore")
            target.parent.mkdir(parents=True, exist_ok=True)
            if target.suffix == ".py":
                data = re.sub(rb"\bsimcore\b", package.encode(), data)
            target.write_bytes(data)
    return short, package


def quantiles(times: list[float], rounds: int) -> tuple[float, ...]:
    ordered = sorted(times)
    return tuple(ordered[k] / rounds * 1e9 for k in (0, len(ordered) // 4, len(ordered) // 2))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.kernel_ab", description=__doc__.split("\n\n")[0])
    parser.add_argument("--against", default="HEAD", help="git revision to compare the working tree with")
    parser.add_argument("--rules", default="tensho-ise", help="a rule file (Enshu-bana: revisions with simcore/games/)")
    parser.add_argument("--policy", default="random", help="the policy of every seat")
    parser.add_argument("--yaku-set", default="fixed_1", help="tensho.yaku_set_choice")
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                        help="a rule option (repeatable), e.g. enshu.players=5")
    parser.add_argument("--rounds", type=int, default=500_000, help="rounds per timed run")
    parser.add_argument("--repeat", type=int, default=15, help="timed runs per side")
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args(argv)
    if args.rounds < 1 or args.repeat < 1 or args.threads < 1:
        parser.error("--rounds, --repeat and --threads must be at least 1")
    for option in args.option:
        if "=" not in option:
            parser.error(f"--option {option}: not KEY=VALUE")
    root = Path(__file__).resolve().parent.parent
    if os.environ.get(CHILD) is None:
        if revision_hash(args.against, root) is None:
            return not_a_revision(args.against, root)
        # Both kernels are compiled afresh, in the one process that times them, under a fixed
        # hash seed: numba's code for the same source varies a little with the order it meets
        # things in, which the hash seed sets, and a working-tree kernel cached by another
        # process would bring that variation into the comparison.
        with tempfile.TemporaryDirectory() as cache:
            env = dict(os.environ, PYTHONHASHSEED="0", NUMBA_CACHE_DIR=cache, **{CHILD: "1"})
            arguments = sys.argv[1:] if argv is None else argv
            command = [sys.executable, "-m", "benchmarks.kernel_ab", *arguments]
            return subprocess.run(command, env=env, cwd=root).returncode
    import numba

    if args.threads > numba.config.NUMBA_NUM_THREADS:
        parser.error(f"--threads {args.threads}: this machine runs at most {numba.config.NUMBA_NUM_THREADS}")
    if args.threads == 1 and hasattr(os, "sched_setaffinity"):
        # the CPUs of a virtual machine need not be equally fast: keep both sides on one
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    numba.set_num_threads(args.threads)
    with tempfile.TemporaryDirectory() as tmp:
        extracted = extract(args.against, root, Path(tmp))
        if extracted is None:
            return not_a_revision(args.against, root)
        short, package = extracted
        sys.path.insert(0, tmp)
        print(f"compiling {short}'s kernel and the working tree's afresh (about two minutes) ...",
              file=sys.stderr, flush=True)
        old = Side(short, package, args)
        new = Side("working tree", "simcore", args)
        # one set of buffers for both, large enough for either version's columns
        sizes = [side.output_buffers(args.rounds) for side in (old, new)]
        buffers = tuple(max((s[k] for s in sizes), key=len) for k in range(2))
        del sizes
        check = min(args.rounds, 200_000)
        rows = [side.named(*side.play(0, check, buffers)) for side in (old, new)]
        same_rows = rows[0].keys() == rows[1].keys() and all(np.array_equal(rows[0][k], rows[1][k]) for k in rows[0])
        del rows
        for rep in range(args.repeat):
            for side in (old, new) if rep % 2 == 0 else (new, old):
                side.timed(rep * args.rounds, args.rounds, buffers)
    setting = f"{args.yaku_set}, " if args.rules.startswith("tensho") else ""
    setting += "".join(f"{option}, " for option in args.option)
    print(f"{args.rules} kernel, {args.policy} at every seat, {setting}{args.threads} thread(s), "
          f"{args.repeat} alternating runs of {args.rounds:,} rounds per side:")
    print(f"  {'':<22}{'best':>10}{'q1':>10}{'median':>10}   ns per round")
    a, b = quantiles(old.times, args.rounds), quantiles(new.times, args.rounds)
    for name, q in ((short, a), ("working tree", b)):
        print(f"  {name:<22}" + "".join(f"{x:10.1f}" for x in q))
    print(f"  {'ratio tree / ' + short:<22}" + "".join(f"{y / x:10.3f}" for x, y in zip(a, b, strict=True))
          + "   (below 1: the working tree is faster)")
    print(f"  rows identical on {check:,} rounds: {'yes' if same_rows else 'NO'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
