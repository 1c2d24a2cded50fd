"""Summary runs: speed against the kernel alone, and bytes written per 10^9 rounds.

Speed (interleaved in one process, so both sides see the same machine): the same units are
played again and again, alternately by the kernel alone (``play_units`` into reused buffers, a
row shard's units per call as a run of rows plays them, nothing else) and by a summary shard (the same kernel calls, plus the counting pass, the
shard's cells and its file written and committed). Each side's median rounds/s, the median of the
turns' ratios and the ratio of the fastest turns are printed; the target is at least 0.90.

Size: a real summary run of ``--size-rounds`` rounds at the default shard size (``fudasim run
--summary``); its bytes (shards and manifest) per round, and the bytes a run of 10^9 rounds
would write: the mean shard size times the shards such a run has, plus its manifest (the
measured bytes per manifest entry times that many entries). The target is under 10 MB.

Run with ``python -m benchmarks.summary [--rules tensho-ise] [--rounds 2000000] [--repeat 5]
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


def _speed(rules_name: str, rounds: int, repeat: int, out: Path) -> tuple[float, float, list[float], float]:
    from simcore import summary_run, summary_shard
    from simcore.runner import TARGET_ROWS_PER_SHARD, RunConfig, _plan, _shard_info

    config = RunConfig(rules=rules_name, rounds=rounds, seed=1, summary=True, units_per_shard=rounds,
                       command="benchmarks.summary")
    plan, game, compiled, specs = _plan(config)
    spec = summary_shard.summary_spec(plan, game, compiled)
    buffers = game.output_buffers(spec.block_units * int(plan["round_stride"]))
    play = summary_run.players_engine(game, compiled, specs, "kernel", 1, None, buffers)
    # The kernel alone plays as a run of rows does: a row shard's units per call.
    kernel_block = max(1, TARGET_ROWS_PER_SHARD // int(plan["round_stride"]))
    kernel_play = summary_run.players_engine(game, compiled, specs, "kernel", 1, None,
                                             game.output_buffers(kernel_block * int(plan["round_stride"])))
    info = _shard_info(plan, "kernel")
    out.mkdir(parents=True, exist_ok=True)

    def kernel_alone() -> None:
        done = 0
        while done < rounds:
            block = min(kernel_block, rounds - done)
            kernel_play(done, block)
            done += block

    def summary_shard_run() -> None:
        aggregate = summary_shard.compute_summary_shard(game, compiled, spec, int(plan["players"]), 0, rounds, play,
                                                        halves=True)
        summary_run.shard_file(out, 0, 0, rounds, aggregate, spec, info, compiled.rules.text)

    kernel_alone()  # warm-up: compile or load both, fault the buffers in
    summary_shard.compute_summary_shard(game, compiled, spec, int(plan["players"]), 0, spec.block_units, play)
    times: dict[str, list[float]] = {"kernel": [], "summary": []}
    for turn in range(repeat):
        order = (("kernel", kernel_alone), ("summary", summary_shard_run))
        for name, work in order if turn % 2 == 0 else order[::-1]:
            began = time.perf_counter()
            work()
            times[name].append(time.perf_counter() - began)
    # Each turn's two timings are seconds apart: their ratio is what the machine's drift spoils least.
    ratios = [k / s for k, s in zip(times["kernel"], times["summary"], strict=True)]
    best = min(times["kernel"]) / min(times["summary"])
    return rounds / statistics.median(times["kernel"]), rounds / statistics.median(times["summary"]), ratios, best


def _size(rules_name: str, rounds: int, out: Path) -> dict[str, float]:
    from simcore.runner import RunConfig, run

    summary = run(RunConfig(rules=rules_name, rounds=rounds, seed=1, summary=True, out=str(out),
                            command="benchmarks.summary"))
    manifest = json.loads((out / "_run.json").read_text())
    entries = manifest["shard_files"]
    shard_bytes = [int(e["bytes"]) for e in entries]
    from simcore.summary_shard import SUMMARY_ROWS_PER_SHARD

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
    parser.add_argument("--rounds", type=int, default=1_000_000, help="rounds per timed side and turn")
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--size-rounds", type=int, default=10_000_000)
    parser.add_argument("--threads", type=int, default=None, help="kernel threads (default: numba's)")
    args = parser.parse_args(argv)
    import numba

    if args.threads:
        numba.set_num_threads(args.threads)
    print(f"rules {args.rules}")
    print(f"threads {numba.get_num_threads()}")
    with tempfile.TemporaryDirectory() as folder:
        kernel, summary, ratios, best = _speed(args.rules, args.rounds, args.repeat, Path(folder) / "speed")
        print(f"kernel_rounds_per_s {kernel:.0f} rounds/s")
        print(f"summary_rounds_per_s {summary:.0f} rounds/s")
        print(f"summary_over_kernel {statistics.median(ratios):.3f} x (median of {len(ratios)} interleaved pairs; "
              f"range {min(ratios):.3f}-{max(ratios):.3f}; target >= 0.90)")
        print(f"summary_over_kernel_best {best:.3f} x (fastest summary turn / fastest kernel turn)")
        sizes = _size(args.rules, args.size_rounds, Path(folder) / "size")
    for name, value in sizes.items():
        unit = {"size_bytes_written": "bytes", "bytes_per_shard_mean": "bytes", "bytes_per_billion_rounds": "bytes",
                "run_seconds": "s", "run_rounds_per_s": "rounds/s"}.get(name, "")
        print(f"{name} {value:.0f} {unit}".rstrip())
    print(f"mb_per_billion_rounds {sizes['bytes_per_billion_rounds'] / 1e6:.2f} MB (target < 10)")


if __name__ == "__main__":
    main()
