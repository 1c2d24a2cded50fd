"""Instructions, conditional branches and mispredictions per Tensho kernel round, under cachegrind.

Timings on a shared virtual machine drift by 10–20%; instruction counts do not.  This runs the
kernel (one thread, warm cache) for two numbers of rounds under ``valgrind --tool=cachegrind
--branch-sim=yes`` and divides the difference of the totals by the difference of the rounds, so
that start-up cancels out.  Branch mispredictions come from cachegrind's simple predictor
model, so compare them between kernel versions, not with real hardware.

The kernel is compiled afresh for the measurement (about a minute) under a fixed hash seed, so
that two versions of the source are compared on equal terms.  Needs ``valgrind`` on the PATH.  Run with ``python -m benchmarks.instructions [--policy greedy]``.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

COUNTS = {
    "instructions": r"I\s+refs:\s+([\d,]+)",
    "conditional branches": r"Branches:\s+[\d,]+\s+\(\s*([\d,]+) cond",
    "mispredicted (simulated)": r"Mispredicts:\s+[\d,]+\s+\(\s*([\d,]+) cond",
}


def play(rounds: int, policy: str, yaku_set: str, after_warm=None) -> None:
    """Compile (or load) the kernel, warm it, call ``after_warm()`` if given, then play
    ``rounds`` rounds on one thread."""
    import numba

    from simcore.games.tensho import enums as E
    from simcore.games.tensho.compile import compile_rules
    from simcore.games.tensho.kernel import play_units
    from simcore.policies import parse_policy
    from simcore.record import output_buffers
    from simcore.rules import load_rules

    numba.set_num_threads(1)
    compiled = compile_rules(load_rules("tensho-ise", {"tensho.yaku_set_choice": yaku_set}))
    specs = [parse_policy(policy), parse_policy(policy)]
    buffers = output_buffers(max(rounds, 1000), E.N_INT_COLUMNS, E.N_MASK_COLUMNS)  # uninitialised: no per-row work outside the kernel
    play_units(compiled, specs, 1, 0, 1000, None, out=buffers)
    if after_warm is not None:
        after_warm()
    if rounds:
        play_units(compiled, specs, 1, 1000, rounds, None, out=buffers)


def host_cpu() -> dict[str, str]:
    """Pin numba's target to the real CPU: under valgrind, CPU detection sees a generic one and
    would compile (and cache) code without POPCNT and BMI."""
    from llvmlite import binding

    return {"NUMBA_CPU_NAME": binding.get_host_cpu_name(),
            "NUMBA_CPU_FEATURES": binding.get_host_cpu_features().flatten()}


def counts(rounds: int, args: argparse.Namespace, env: dict[str, str]) -> dict[str, int]:
    with tempfile.TemporaryDirectory() as tmp:
        command = ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--branch-sim=yes",
                   f"--cachegrind-out-file={os.path.join(tmp, 'out')}", sys.executable, "-m",
                   "benchmarks.instructions", "--play", str(rounds), "--policy", args.policy,
                   "--yaku-set", args.yaku_set]
        result = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
    found = {}
    for name, pattern in COUNTS.items():
        match = re.search(pattern, result.stderr)
        if match is None:
            raise SystemExit(f"benchmarks.instructions: no {name!r} in cachegrind's output")
        found[name] = int(match.group(1).replace(",", ""))
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.instructions", description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=500_000, help="rounds measured (the difference of the two runs)")
    parser.add_argument("--policy", default="random", help="the policy of both seats")
    parser.add_argument("--yaku-set", default="fixed_1", help="tensho.yaku_set_choice")
    parser.add_argument("--play", type=int, default=None, help=argparse.SUPPRESS)  # the child under valgrind
    args = parser.parse_args(argv)
    if args.play is not None:
        play(args.play, args.policy, args.yaku_set)
        return 0
    if shutil.which("valgrind") is None:
        print("benchmarks.instructions: valgrind is not installed (it provides cachegrind)", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as cache:
        # The kernel is compiled afresh, natively, into a cache of its own that the runs under
        # valgrind then load, always with the same hash seed: numba's output varies with the
        # seed Python hashes with while compiling, by up to ~200 instructions a round.
        env = dict(os.environ, PYTHONHASHSEED="0", NUMBA_NUM_THREADS="1", NUMBA_CACHE_DIR=cache, **host_cpu())
        subprocess.run([sys.executable, "-m", "benchmarks.instructions", "--play", "0", "--policy", args.policy,
                        "--yaku-set", args.yaku_set], env=env, check=True)
        base = counts(10_000, args, env)
        more = counts(10_000 + args.rounds, args, env)
    print(f"Tensho kernel, {args.policy} vs {args.policy}, {args.yaku_set}, per round "
          f"({args.rounds:,} rounds under cachegrind):")
    for name in COUNTS:
        print(f"  {name:<26} {(more[name] - base[name]) / args.rounds:10.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
