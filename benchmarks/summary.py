"""Summary runs: speed against the kernel alone, and bytes written per 10^9 rounds.

Speed (interleaved in one process, so every side sees the same machine): the same rounds are
played again and again, in turn by

- ``kernel``: the kernel alone as a run of rows calls it (``play_units`` into reused buffers, a
  row shard's units per call on all threads, nothing else);
- ``chunks``: the kernel alone as a summary run calls it (chunks of ``spec.block_units`` units,
  one thread a chunk, each into buffers of its own; nothing counted);
- ``summary``: a real summary run of those rounds (``fudasim run --summary``, default shards,
  ``--overwrite`` into the same folder): play, count, every shard's file written and committed,
  the manifest.

Each side's median rounds/s, the median of the turns' ratios and the ratio of the fastest turns
are printed.  The target is ``summary_over_kernel`` at least 0.90; ``summary_over_chunks`` is
what counting and writing cost.

Size: a real summary run of ``--size-rounds`` rounds at the default shard size (``fudasim run
--summary``); its bytes (shards and manifest) per round, and the bytes a run of 10^9 rounds
would write: the mean shard size times the shards such a run has, plus its manifest (the
measured bytes per manifest entry times that many entries). The target is under 10 MB.

Run with ``python -m benchmarks.summary [--rules tensho-ise] [--rounds 16777216] [--repeat 9]
[--size-rounds 10000000] [--threads T]``; the output is ``name value unit`` lines.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

__all__ = ["main"]

BILLION = 10**9


def _speed(rules_name: str, rounds: int, repeat: int, out: Path) -> tuple[dict[str, float], dict[str, list[float]]]:
    import numba

    from simcore.run import summary_run, summary_shard
    from simcore.run.runner import TARGET_ROWS_PER_SHARD, RunConfig, plan_run, run

    config = RunConfig(rules=rules_name, rounds=rounds, seed=1, summary=True, command="benchmarks.summary")
    plan, game, compiled, specs = plan_run(config)
    spec = summary_shard.summary_spec(plan, game, compiled)
    stride = int(plan["round_stride"])
    units = int(plan["units"])

    def new_play():
        return summary_run.players_engine(game, compiled, specs, "kernel", 1, None,
                                          game.output_buffers(spec.block_units * stride))

    # The kernel alone plays as a run of rows does: a row shard's units per call.
    kernel_block = max(1, TARGET_ROWS_PER_SHARD // stride)
    kernel_play = summary_run.players_engine(game, compiled, specs, "kernel", 1, None,
                                             game.output_buffers(kernel_block * stride))

    def kernel_alone() -> None:
        done = 0
        while done < units:
            block = min(kernel_block, units - done)
            kernel_play(done, block)
            done += block

    chunk_plays = [new_play() for _ in range(numba.get_num_threads())]
    chunk_parts = [(lo, min(lo + spec.block_units, units)) for lo in range(0, units, spec.block_units)]

    def kernel_chunks() -> None:
        _in_chunk_threads(chunk_plays, chunk_parts)

    def summary_run_turn() -> None:
        run(RunConfig(rules=rules_name, rounds=rounds, seed=1, summary=True, out=str(out), overwrite=True,
                      threads=numba.get_num_threads(), command="benchmarks.summary"))

    sides = {"kernel": kernel_alone, "chunks": kernel_chunks, "summary": summary_run_turn}
    for work in sides.values():  # warm-up: compile or load, fault the buffers in
        work()
    times: dict[str, list[float]] = {name: [] for name in sides}
    names = list(sides)
    for turn in range(repeat):
        for name in names[turn % 3:] + names[:turn % 3]:  # each side first in turn
            began = time.perf_counter()
            sides[name]()
            times[name].append(time.perf_counter() - began)
    # Each turn's timings are seconds apart: their ratio is what the machine's drift spoils least.
    return {name: rounds / statistics.median(values) for name, values in times.items()}, times


def _in_chunk_threads(plays: list, parts: list[tuple[int, int]]) -> None:
    """Play ``parts`` (unit ranges) on one thread per play, each with one kernel thread, as
    ``simcore.run.summary_shard.ShardCounter`` plays its chunks (nothing is counted)."""
    import queue
    import threading

    import numba

    from simcore.kernels.stack import roomy

    todo: queue.SimpleQueue = queue.SimpleQueue()
    for part in parts:
        todo.put(part)
    for _ in plays:
        todo.put(None)

    def serve(play) -> None:
        numba.set_num_threads(1)
        while (part := todo.get()) is not None:
            play(part[0], part[1] - part[0])

    threads = [threading.Thread(target=roomy, args=(serve, play)) for play in plays]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def _size(rules_name: str, rounds: int, out: Path) -> dict[str, float]:
    from simcore.run.runner import RunConfig, run

    summary = run(RunConfig(rules=rules_name, rounds=rounds, seed=1, summary=True, out=str(out),
                            command="benchmarks.summary"))
    manifest = json.loads((out / "_run.json").read_text())
    entries = manifest["shard_files"]
    shard_bytes = [int(e["bytes"]) for e in entries]
    from simcore.run.summary_shard import SUMMARY_ROWS_PER_SHARD

    # The default shard size (a run smaller than one shard has a single, shorter shard).
    per_shard_rounds = max(1, SUMMARY_ROWS_PER_SHARD // int(manifest["round_stride"]))
    manifest_bytes = (out / "_run.json").stat().st_size
    plan_bytes = len(json.dumps({k: v for k, v in manifest.items() if k != "shard_files"}, indent=2))
    per_entry = (manifest_bytes - plan_bytes) / max(len(entries), 1)
    # The shards holding the convergence checkpoints are the larger ones; at 10^9 rounds the
    # checkpoints fall in the first shards as here, so the mean of the others is the rest's size.
    shards_at_billion = -(-BILLION // per_shard_rounds)
    biggest = max(shard_bytes)
    others = shard_bytes[1:] or shard_bytes
    typical = statistics.mean(others)
    total_billion = biggest * min(len(entries), shards_at_billion) + typical * max(
        0, shards_at_billion - len(entries)) + plan_bytes + per_entry * shards_at_billion
    written = sum(shard_bytes) + manifest_bytes
    return {"size_rounds": float(summary.rounds), "size_shards": float(len(entries)),
            "size_bytes_written": float(written), "bytes_per_shard_mean": float(statistics.mean(shard_bytes)),
            "shards_per_billion": float(shards_at_billion), "bytes_per_billion_rounds": float(total_billion),
            "run_seconds": summary.seconds, "run_rounds_per_s": summary.rounds / summary.seconds}


def main(argv: list[str] | None = None) -> None:
    """Measure and print (``name value unit`` lines)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", default="tensho-ise")
    parser.add_argument("--rounds", type=int, default=4 << 22, help="rounds per timed side and turn (default: "
                        "four default summary shards)")
    parser.add_argument("--repeat", type=int, default=9)
    parser.add_argument("--size-rounds", type=int, default=10_000_000)
    parser.add_argument("--threads", type=int, default=None, help="kernel threads (default: numba's)")
    args = parser.parse_args(argv)
    import numba

    if args.threads:
        numba.set_num_threads(args.threads)
    print(f"rules {args.rules}")
    print(f"threads {numba.get_num_threads()}")
    with tempfile.TemporaryDirectory() as folder:
        rates, times = _speed(args.rules, args.rounds, args.repeat, Path(folder) / "speed")
        for name, rate in rates.items():
            print(f"{name}_rounds_per_s {rate:.0f} rounds/s")
        for name, note in (("kernel", "target >= 0.90"), ("chunks", "the counting's own cost")):
            ratios = [k / s for k, s in zip(times[name], times["summary"], strict=True)]
            best = min(times[name]) / min(times["summary"])
            print(f"summary_over_{name} {statistics.median(ratios):.3f} x (median of {len(ratios)} interleaved turns; "
                  f"range {min(ratios):.3f}-{max(ratios):.3f}; {note})")
            print(f"summary_over_{name}_best {best:.3f} x (fastest summary turn / fastest {name} turn)")
        sizes = _size(args.rules, args.size_rounds, Path(folder) / "size")
    for name, value in sizes.items():
        unit = {"size_bytes_written": "bytes", "bytes_per_shard_mean": "bytes", "bytes_per_billion_rounds": "bytes",
                "run_seconds": "s", "run_rounds_per_s": "rounds/s"}.get(name, "")
        print(f"{name} {value:.0f} {unit}".rstrip())
    print(f"mb_per_billion_rounds {sizes['bytes_per_billion_rounds'] / 1e6:.2f} MB (target < 10)")


if __name__ == "__main__":
    main()
