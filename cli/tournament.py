"""``fudasim tournament``: every pairing of a list of policies on the same deals, then its report.

A thin click layer over ``simcore.run.tournament.run_tournament`` and
``analysis.tournament.build_tournament_report`` (docs/tournament.md).
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import click

from cli.errors import UserError, interrupted, reports_user_errors, stops_on_sigterm
from cli.options import CONTEXT, most_players, rule_overrides
from cli.paths import PathParam

__all__ = ["tournament", "verify_tournament_folder"]

@click.command("tournament", context_settings=CONTEXT)
@click.argument("rules", required=False, default="tensho-ise", metavar="[RULES]")
@click.option("--policies", "policy_lists", multiple=True, required=True, metavar="A,B,...",
              help="The policies, comma-separated, each NAME[:k=v,...]; an item k=v continues the policy "
                   "before it, so pimc:worlds=64,rollout=greedy is one policy (repeatable; at least two in all).")
@click.option("--deals", type=int, default=10_000, show_default=True,
              help="Deals every pairing plays (rounds 0..N-1 of the seed), each once per seating.")
@click.option("--seed", type=click.IntRange(min=0, max=2**64 - 1), default=0, show_default=True)
@click.option("--engine", type=click.Choice(["kernel", "reference"]), default="kernel", show_default=True,
              help="The numba kernel, or the pure-Python reference engine (identical rows, slower).")
@click.option("--threads", type=click.IntRange(min=1), default=None, help="Kernel threads (default: all cores).")
@click.option("-o", "--out", "--output", "out", type=PathParam(file_okay=False, path_type=Path), default=None,
              help="Tournament folder (default fudasim-out/tournament-RULES-seedS). --output is accepted too.")
@click.option("--resume", is_flag=True, help="Finish an interrupted tournament in --out (only what is missing).")
@click.option("--overwrite", is_flag=True, help="Replace an existing tournament in --out.")
@click.option("--shard-rounds", type=click.IntRange(min=1), default=None,
              help="Rounds per Parquet shard of each run (default: about 262,144).")
@click.option("--progress/--no-progress", default=None, help="Progress bars (default: when stderr is a terminal).")
@click.option("--format", "output_format", type=click.Choice(["text", "md", "html"]), default="text",
              show_default=True, help="Form of the report printed at the end (md/html: to standard output).")
@click.option("--confidence", type=click.FloatRange(0.5, 0.9999), default=0.95, show_default=True,
              help="Nominal coverage of every interval.")
@click.option("--option", "options", multiple=True, metavar="NAME=VALUE",
              help="Override a rule option, e.g. tensho.triple_match=one (repeatable).")
@click.option("--players", type=click.IntRange(min=2, max=most_players()), default=None,
              help="Number of players, where the rules allow a choice (Enshu-bana; Tensho is always 2).")
@click.option("--scheduler", default=None, metavar="ADDRESS",
              help="Run every run's shards on Dask: tcp://HOST:PORT of a scheduler, or local:N to start N "
                   "worker processes (docs/distributed.md).")
@reports_user_errors
def tournament(rules, policy_lists, deals, seed, engine, threads, out, resume, overwrite, shard_rounds, progress,
               output_format, confidence, options, players, scheduler):
    """Play every pairing of the policies on the same deals, each deal once per seating, and report.

    \b
    fudasim tournament tensho-ise --policies random,greedy --deals 10000 --seed 1
    fudasim tournament enshu-s --players 3 --policies random,greedy --deals 5000

    Each pairing and seating is a run dataset in a folder of its own inside --out, next to the
    tournament manifest _tournament.json; `fudasim verify` and `fudasim report` read the folder.
    Seatings: 2 players AB and BA; 3 players all six that use both policies; 4-5 players the
    rotations of AABB / AAABB and BBBAA (docs/tournament.md).
    """
    from analysis.render import render
    from analysis.tournament import build_tournament_report
    from simcore.run.tournament import TournamentConfig, run_tournament, split_policies

    if resume and overwrite:
        raise UserError("--resume and --overwrite contradict each other; give one")
    if deals < 1:
        raise UserError(f"--deals {deals}: must be at least 1")
    specs = [spec for text in policy_lists for spec in split_policies(text)]
    if len(specs) < 2:
        raise UserError(f"--policies: a tournament needs at least two policies, got {len(specs)}")
    config = TournamentConfig(
        rules=rules, options=rule_overrides(rules, options, players), policies=tuple(specs),
        deals=deals, seed=seed, engine=engine, threads=threads, out=str(out) if out else None, resume=resume,
        overwrite=overwrite, units_per_shard=shard_rounds,
        progress=sys.stderr.isatty() if progress is None else progress,
        command=shlex.join(["fudasim", *sys.argv[1:]]), scheduler=scheduler,
    )
    announce = (lambda line: click.echo(line, err=True)) if config.progress else None
    try:
        with stops_on_sigterm():
            result = run_tournament(config, announce=announce)
    except KeyboardInterrupt as error:
        interrupted(error, "the shards written so far are complete. Finish with the same command and --resume.")
    done = [f"{result.runs_played} runs played"]
    if result.runs_resumed:
        done.append(f"{result.runs_resumed} finished")
    if result.runs_skipped:
        done.append(f"{result.runs_skipped} already complete")
    rate = f" ({result.rounds_computed / result.seconds:,.0f} rounds/s)" if result.seconds > 0 else ""
    click.echo(f"Wrote {result.out}  ({', '.join(done)}; {result.rounds_computed:,} rounds in "
               f"{result.seconds:.2f} s{rate})", err=output_format != "text")
    report = build_tournament_report(result.out, confidence=confidence, figures=output_format == "html")
    click.echo(render(report, output_format), nl=False)


def verify_tournament_folder(path: Path, deep: bool) -> None:
    """``fudasim verify`` on a tournament folder: one line per problem, a verdict, exit 1 on problems."""
    from simcore.dataset import DatasetError
    from simcore.run.sweep import is_sweep
    from simcore.run.tournament import verify_tournament

    try:
        problems, notes, runs, rounds = verify_tournament(path, deep=deep)
        kind = "sweep" if is_sweep(path) else "tournament"
    except DatasetError as error:
        raise UserError(str(error)) from None
    for note in notes:
        click.echo(f"note: {note}")
    for line in problems:
        click.echo(line)
    if problems:
        click.echo(f"{path}: {len(problems):,} problem{'s' if len(problems) != 1 else ''} found "
                   f"(finish or repair with `fudasim {kind} ... --out {path} --resume`)")
        sys.exit(1)
    checked = "sizes, checksums and rows" if deep else "sizes and checksums"
    click.echo(f"{path}: OK, complete {kind}: {runs:,} runs, {rounds:,} rounds ({checked} checked)")
