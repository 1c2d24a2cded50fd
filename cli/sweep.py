"""``fudasim sweep``: every combination of some options' values on the same deals, then a report
of each against the baseline (docs/sweep.md)."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import click

from cli.errors import UserError, interrupted, reports_user_errors, stops_on_sigterm
from cli.options import CONTEXT, parse_policies, rule_overrides
from cli.paths import PathParam

__all__ = ["sweep"]



@click.command("sweep", context_settings=CONTEXT)
@click.argument("rules", required=False, default="tensho-ise", metavar="[RULES]")
@click.option("--vary", "vary", multiple=True, required=True, metavar="OPTION=V1,V2,...",
              help="A rule option and the values to try (repeatable: every combination is played).")
@click.option("--policy", "policies", multiple=True, metavar="SEAT=NAME[:k=v,...]",
              help="A seat's policy in every combination (repeatable; default random).")
@click.option("--rounds", type=click.IntRange(min=1), default=100_000, show_default=True,
              help="Rounds per combination (the same rounds of the same seed in each).")
@click.option("--seed", type=click.IntRange(min=0, max=2**64 - 1), default=0, show_default=True)
@click.option("--baseline", type=click.IntRange(min=0), default=0, show_default=True,
              help="The combination (numbered in order, 0 first) the others are compared with.")
@click.option("--engine", type=click.Choice(["kernel", "reference"]), default="kernel", show_default=True)
@click.option("--threads", type=click.IntRange(min=1), default=None, help="Kernel threads (default: all cores).")
@click.option("-o", "--out", "--output", "out", type=PathParam(file_okay=False, path_type=Path), default=None,
              help="Sweep folder (default fudasim-out/sweep-RULES-seedS).")
@click.option("--resume", is_flag=True, help="Finish an interrupted sweep in --out (only what is missing).")
@click.option("--overwrite", is_flag=True, help="Replace an existing sweep in --out.")
@click.option("--shard-rounds", type=click.IntRange(min=1), default=None, help="Rounds per Parquet shard of each run.")
@click.option("--progress/--no-progress", default=None, help="Progress bars (default: when stderr is a terminal).")
@click.option("--format", "output_format", type=click.Choice(["text", "md", "html", "json"]), default="text",
              show_default=True)
@click.option("--confidence", type=click.FloatRange(0.5, 0.9999), default=0.95, show_default=True)
@click.option("--option", "options", multiple=True, metavar="NAME=VALUE",
              help="A rule option held fixed in every combination (repeatable).")
@click.option("--players", type=click.IntRange(min=2, max=5), default=None,
              help="Number of players, where the rules allow a choice (Enshu-bana).")
@click.option("--scheduler", default=None, metavar="ADDRESS",
              help="Run every run's shards on Dask: tcp://HOST:PORT of a scheduler, or local:N to start N "
                   "worker processes (docs/distributed.md).")
@click.option("--summary", is_flag=True,
              help="Keep each combination's counts, not its rows, each paired with the baseline's rounds "
                   "(docs/summary-runs.md).")
@reports_user_errors
def sweep(rules, vary, policies, rounds, seed, baseline, engine, threads, out, resume, overwrite, shard_rounds,
          progress, output_format, confidence, options, players, scheduler, summary):
    """Play every combination of the varied options on the same deals and compare each with the baseline.

    \b
    fudasim sweep tensho-ise --vary tensho.card_values=T1_ise,T2_alt,T3_hanafuda \\
        --vary tensho.yaku_set_choice=fixed_1,fixed_2 --policy 0=greedy --policy 1=greedy --rounds 200000
    fudasim report fudasim-out/sweep-tensho-ise-seed0        # the report again

    Reports the dealer's win rate, each seat's win rate and payoff, how rounds end and the most
    affected yaku for every combination against the baseline, paired round by round, with
    Holm-adjusted p-values over the whole table, and one plot (--format html).
    """
    from analysis.render import render
    from analysis.sweep import build_sweep_report
    from simcore.run.sweep import SweepConfig, parse_vary, run_sweep

    if resume and overwrite:
        raise UserError("--resume and --overwrite contradict each other; give one")
    config = SweepConfig(
        rules=rules, options=rule_overrides(rules, options, players), vary=parse_vary(vary),
        policies=parse_policies(policies), rounds=rounds, seed=seed, baseline=baseline, engine=engine,
        threads=threads, out=str(out) if out else None, resume=resume, overwrite=overwrite,
        units_per_shard=shard_rounds, progress=sys.stderr.isatty() if progress is None else progress,
        command=shlex.join(["fudasim", *sys.argv[1:]]), scheduler=scheduler, summary=summary,
    )
    try:
        with stops_on_sigterm():
            result = run_sweep(config)
    except KeyboardInterrupt as error:
        interrupted(error, "finish with the same command and --resume.")
    click.echo(f"Wrote {result.out}  ({result.rounds_computed:,} rounds in {result.seconds:.2f} s)", err=True)
    click.echo(render(build_sweep_report(result.out, confidence=confidence, figures=output_format == "html"),
                      output_format), nl=False)
