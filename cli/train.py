"""``fudasim train``: a learned player's model, reproduced from its seed (``simcore.run.train``)."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import click

from cli.errors import reports_user_errors
from cli.options import CONTEXT, option_overrides, players_option, rule_overrides
from cli.paths import PathParam

__all__ = ["train"]


@click.command("train", context_settings=CONTEXT)
@click.argument("rules", metavar="RULES")
@players_option
@option_overrides
@click.option("--seed", type=click.IntRange(min=0, max=2**64 - 1), default=0, show_default=True)
@click.option("--iterations", type=int, default=2, show_default=True,
              help="Rounds of expert iteration: self-play positions, search labels, a fit.")
@click.option("--rounds", type=int, default=20_000, show_default=True,
              help="Self-play rounds per iteration.")
@click.option("--worlds", type=int, default=32, show_default=True,
              help="Worlds the search plays each labelled decision's actions in.")
@click.option("--label", type=int, default=250, show_default=True,
              help="Per mille of the decisions (with two or more actions) that are labelled.")
@click.option("--explore", type=int, default=50, show_default=True,
              help="Per mille of self-play decisions taken at random.")
@click.option("--deals", type=int, default=20_000, show_default=True,
              help="Deals of each iteration's strength check against the heuristic.")
@click.option("--alpha", type=float, default=1.0, show_default=True, help="The ridge penalty.")
@click.option("--labels", type=click.Choice(["sampled", "true"]), default="sampled", show_default=True,
              help="sampled: search the worlds the seat cannot tell apart (pimc); true: play each action "
                   "out in the real position (one world is enough: the players never draw).")
@click.option("--fit", type=click.Choice(["ridge", "pairwise", "trees"]), default="ridge", show_default=True,
              help="ridge: regress the actions' labels, centred within each decision; pairwise: a logistic "
                   "regression that ranks each decision's best action above the others; trees: gradient-"
                   "boosted trees over the features and their differences from the heuristic's action.")
@click.option("--trees", type=int, default=100, show_default=True, help="--fit trees: trees per decision kind.")
@click.option("--leaves", type=int, default=31, show_default=True, help="--fit trees: leaves per tree at most.")
@click.option("--rate", type=float, default=0.1, show_default=True,
              help="--fit trees: the boosting's learning rate (how much of each tree is added); with few "
                   "trees a higher one fits more.")
@click.option("--objective", type=click.Choice(["win", "score", "margin"]), default=None,
              help="What a finished round counts in the labels: the sign of the payoff, the payoff, or "
                   "the payoff minus each other seat's (default: win in Tensho, score in Enshu-bana, "
                   "margin in koi-koi; with --value, what pimc plays for: win in Tensho, margin elsewhere).")
@click.option("--value", is_flag=True, default=False,
              help="Train a value model (what pimc and ismcts read with depth=N): the heuristic's self-play, "
                   "the labels fitted without centring; the file is GAME-CASE.value.vVERSION.json.")
@click.option("--unit", type=int, default=None,
              help="--value: score points an objective point (default 4096 for win, 64 for score and margin).")
@click.option("--version", "version", type=int, default=None,
              help="The model's version (default: the version --policy learned plays now; a retrained "
                   "model to ship names the next).")
@click.option("-o", "--out", "--output", "out", type=PathParam(dir_okay=False, path_type=Path), default=None,
              help="The model file (default GAME-CASE.vVERSION.json here). --output is accepted too.")
@click.option("--threads", type=click.IntRange(min=1), default=None, help="Kernel threads (default: all cores).")
@click.option("--progress/--no-progress", default=None, help="A progress bar (default: when stderr is a terminal).")
@reports_user_errors
def train(rules, players, options, seed, iterations, rounds, worlds, label, explore, deals, alpha, labels, fit,
          trees, leaves, rate, objective, value, unit, version, out, threads, progress):
    """Train the learned player's model for a rule set and player count (needs
    `pip install 'fudasim[learn]'`).

    \b
    fudasim train tensho-ise --option tensho.yaku_set_choice=fixed_2 --seed 1
    fudasim train enshu-c --players 5 --seed 1 --out enshu-c5.json

    Self-play positions are labelled by search and a linear model (or, --fit trees, boosted
    trees) over the game's features is fitted to them, then plays against the heuristic; each iteration's strength is logged. The
    same command makes the same file. Play it with --policy SEAT=learned:model=FILE,version=N
    (docs/policies.md).
    """
    from simcore.run.train import TrainConfig
    from simcore.run.train import train as run_train

    config = TrainConfig(rules=rules, options=rule_overrides(rules, options, players), seed=seed,
                         iterations=iterations, rounds=rounds, worlds=worlds, label=label, explore=explore,
                         deals=deals, alpha=alpha, labels=labels, fit=fit, trees=trees, leaves=leaves, rate=rate,
                         objective=objective, value=value, unit=unit,
                         version=version, out=str(out) if out else None, threads=threads,
                         command=shlex.join(["fudasim", *sys.argv[1:]]))
    model, path = run_train(config, log=lambda line: click.echo(line, err=True),
                            progress=sys.stderr.isatty() if progress is None else progress)
    click.echo(f"{path}: {model.game} {model.case}, version {model.version}")
