"""``fudasim skill``: one tournament on duplicate deals, then how much skill matters in it.

A thin click layer over ``analysis.skill_report.play_skill`` (the fair policies' every pairing,
then each omniscient configuration against the strongest of them) and
``analysis.skill_report.build_skill_report`` (docs/skill.md).
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import click

from cli.errors import UserError, interrupted, reports_user_errors, stops_on_sigterm
from cli.options import CONTEXT, rule_overrides
from cli.paths import PathParam

__all__ = ["DEFAULT_CHAIN", "skill"]

DEFAULT_CHAIN = ("random", "greedy", "heuristic", "pimc")  # weakest first; those the game and engine offer


def _default_policies(rules: str, options: dict[str, str], engine: str) -> list[str]:
    from simcore.games import game_of
    from simcore.policies import check_engine, parse_policy
    from simcore.rules import load_rules

    game = game_of(load_rules(rules, options))
    chosen = []
    for name in DEFAULT_CHAIN:
        try:
            check_engine(parse_policy(name, game.name), game.name, engine)
        except Exception:  # noqa: BLE001 - a policy this game or engine does not offer is left out
            continue
        chosen.append(name)
    return chosen


@click.command("skill", context_settings=CONTEXT)
@click.argument("rules", required=False, default="tensho-ise", metavar="[RULES|TOURNAMENT]")
@click.option("--policies", "policy_lists", multiple=True, metavar="A,B,...",
              help="The policies, as for `fudasim tournament`, in any order (the report measures their "
                   "strength); name one or more omniscient configurations to measure relative skill. Default: "
                   "random, greedy, heuristic, pimc (those the game and engine offer).")
@click.option("--deals", type=int, default=2_000, show_default=True,
              help="Deals every pairing plays, each once per seating.")
@click.option("--seed", type=click.IntRange(min=0, max=2**64 - 1), default=0, show_default=True)
@click.option("--engine", type=click.Choice(["kernel", "reference"]), default="kernel", show_default=True)
@click.option("--threads", type=click.IntRange(min=1), default=None, help="Kernel threads (default: all cores).")
@click.option("-o", "--out", "--output", "out", type=PathParam(path_type=Path), default=None,
              help="Tournament folder (default fudasim-out/skill-RULES-seedS); with a finished TOURNAMENT, "
                   "the file the report is written to (default: standard output).")
@click.option("--resume", is_flag=True, help="Finish an interrupted skill tournament in --out.")
@click.option("--overwrite", is_flag=True,
              help="Replace an existing tournament in --out (with a finished TOURNAMENT: an existing report file).")
@click.option("--progress/--no-progress", default=None, help="Progress bars (default: when stderr is a terminal).")
@click.option("--format", "output_format", type=click.Choice(["text", "md", "html", "json"]), default="text",
              show_default=True)
@click.option("--confidence", type=click.FloatRange(0.5, 0.9999), default=0.95, show_default=True)
@click.option("--option", "options", multiple=True, metavar="NAME=VALUE",
              help="Override a rule option, e.g. tensho.card_values=T3_hanafuda (repeatable).")
@click.option("--players", type=click.IntRange(min=2, max=5), default=None,
              help="Number of players, where the rules allow a choice (Enshu-bana).")
@click.option("--scheduler", default=None, metavar="ADDRESS",
              help="Run every run's shards on Dask: tcp://HOST:PORT of a scheduler, or local:N to start N "
                   "worker processes (docs/distributed.md).")
@reports_user_errors
def skill(rules, policy_lists, deals, seed, engine, threads, out, resume, overwrite, progress, output_format,
          confidence, options, players, scheduler):
    """Measure skill against luck: a tournament of policies on the same deals, then its skill report.

    \b
    fudasim skill tensho-ise --engine reference --deals 300 --policies random,greedy,pimc:worlds=8,omniscient:worlds=8
    fudasim skill fudasim-out/skill-tensho-ise-seed0      # the report of a finished skill tournament

    Reports, with bootstrap intervals over deals: each fair policy's measured strength, the gaps
    in payoff and win rate from the weakest to the strongest, the relative skill RS = LE / (LE +
    RE) with greedy (and random) as beginner and the strongest omniscient configuration as the
    fictive player, the effects as win probabilities, how often the stronger wins a 1-, 12- and
    100-round match, the rounds after which it leads with probability 0.95, the shares of the
    outcome's variance due to the deal and the policy, and how all this departs from the
    literature (docs/skill.md). The tournament plays every pairing of the fair policies, then each
    omniscient configuration against the strongest fair policy only (the pairing the measures
    read).
    """
    from analysis.render import render
    from analysis.skill_report import build_skill_report, play_skill
    from simcore.run.tournament import TournamentConfig, is_tournament, split_policies

    folder = Path(rules)
    if folder.is_dir() and is_tournament(folder):
        if out is None:
            click.echo(render(build_skill_report(folder, confidence=confidence), output_format), nl=False)
            return
        from cli.analysis_commands import _emit, _target

        target = _target(output_format, out, overwrite, f"{folder.resolve().name}-skill", (folder,))
        _emit(build_skill_report(folder, confidence=confidence), output_format, target)
        return
    if folder.is_dir():
        from simcore.dataset import RUN_FILE

        what = "a run dataset (fudasim run)" if (folder / RUN_FILE).is_file() else "a folder"
        raise UserError(f"{folder}: {what}, not a tournament; skill reads a folder written by fudasim skill or "
                        f"fudasim tournament, or plays a new one from RULES (a rule set's name or a rule file)")
    if resume and overwrite:
        raise UserError("--resume and --overwrite contradict each other; give one")
    if deals < 1:
        raise UserError(f"--deals {deals}: must be at least 1")
    overrides = rule_overrides(rules, options, players)
    specs = [spec for text in policy_lists for spec in split_policies(text)] or _default_policies(
        rules, overrides, engine)
    if len(specs) < 2:
        raise UserError(f"--policies: skill needs at least two policies, got {len(specs)}")
    config = TournamentConfig(
        rules=rules, options=overrides, policies=tuple(specs), deals=deals, seed=seed, engine=engine,
        threads=threads, out=str(out) if out else str(Path("fudasim-out") / f"skill-{Path(rules).stem}-seed{seed}"),
        resume=resume, overwrite=overwrite, progress=sys.stderr.isatty() if progress is None else progress,
        command=shlex.join(["fudasim", *sys.argv[1:]]), scheduler=scheduler,
    )
    try:
        with stops_on_sigterm():
            result = play_skill(config)
    except KeyboardInterrupt as error:
        interrupted(error, "finish with the same command and --resume.")
    click.echo(f"Wrote {result.out}  ({result.rounds_computed:,} rounds in {result.seconds:.2f} s)", err=True)
    click.echo(render(build_skill_report(result.out, confidence=confidence), output_format), nl=False)
