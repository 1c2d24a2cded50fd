"""``fudasim play``: a person plays against policies in a plain terminal (docs/play.md).

The command reads answers line by line from standard input (no curses): a number picks an
option, ``q`` quits; anything else is asked again.  The end of input ends the game with one
line and exit status 2.  Colour only where standard output is a terminal that supports it and
``NO_COLOR`` is not set.  The game itself is ``simcore.play.PlaySession``.
"""

from __future__ import annotations

import os
import secrets
import shlex
import shutil
import sys
from pathlib import Path

import click

from cli.errors import UserError, reports_user_errors
from cli.options import CONTEXT, most_players, rule_overrides
from cli.paths import PathParam

__all__ = ["play"]



class _InputEnded(Exception):
    """Standard input ended while a question was open."""


def colour_enabled(stream=None) -> bool:
    """Whether to colour output: a terminal that is not ``dumb``, and ``NO_COLOR`` unset or empty."""
    stream = sys.stdout if stream is None else stream
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("TERM", "") in ("", "dumb"):
        return False
    return bool(getattr(stream, "isatty", lambda: False)())


class Terminal:
    """Plain line-by-line input and output, with optional colour.

    ``live`` (standard output is a terminal) lets ``thinking`` put a line up while a policy
    decides and take it down again; piped output never gets it.
    """

    def __init__(self, colour: bool, live: bool = False, width: int = 100) -> None:
        self.colour = colour
        self.live = live
        self.width = width
        self._thinking = 0  # the length of the line ``thinking`` has up (0: none)

    def thinking(self, text: str | None) -> None:
        """Show ``text`` on the current line until the next call (None takes it down)."""
        if not self.live:
            return
        if text is None:
            if self._thinking:
                click.echo("\r" + " " * self._thinking + "\r", nl=False)
                self._thinking = 0
            return
        click.echo(self.style(text, dim=True), nl=False)
        sys.stdout.flush()
        self._thinking = len(text)

    def style(self, text: str, **styles) -> str:
        """``text`` styled with ``click.style`` when colour is on."""
        return click.style(text, **styles) if self.colour else text

    def show(self, text: str) -> None:
        """Print a line or block of the game's output."""
        for line in text.split("\n"):
            if line.startswith("==") or line.startswith("Round over") or line.startswith("Match over"):
                line = self.style(line, bold=True)
            elif line.startswith("Your hand"):
                line = self.style(line, fg="cyan")
            click.echo(line)

    def prompt(self, question) -> int:
        """Ask ``question`` until a valid number (1..n) is given; ``q`` quits."""
        from simcore.lines import wrap
        from simcore.play import Quit

        self.show(question.screen)
        click.echo(self.style(wrap(question.text, self.width), bold=True))
        for i, option in enumerate(question.options):
            click.echo(wrap(f"  {i + 1}) {option}", self.width, "   "))
        n = len(question.options)
        while True:
            click.echo(f"Your choice (1-{n}, q to quit): ", nl=False)
            sys.stdout.flush()
            line = sys.stdin.readline()
            if not line:
                raise _InputEnded()
            answer = line.strip().lower()
            if answer in ("q", "quit"):
                raise Quit()
            if answer.isdigit() and 1 <= int(answer) <= n:
                return int(answer) - 1
            click.echo(f"Please answer with a number from 1 to {n}, or q to quit.")


def _replay_command(rules: str, prefix: Path, dealer: int, options: tuple[str, ...], players: int | None,
                    redraw: bool = False) -> str:
    parts = ["fudasim", "replay", rules]
    for item in options:
        parts += ["--option", item]
    if players is not None:
        parts += ["--players", str(players)]
    command = shlex.join(parts)
    deck = shlex.quote(str(prefix) + ".deck")
    decisions = shlex.quote(str(prefix) + ".decisions.json")
    line = f"{command} --deck \"$(cat {deck})\" --decisions {decisions} --dealer {dealer}"
    if redraw:
        line += " --redraw " + shlex.quote(str(prefix) + ".redraw.json")
    return line


@click.command(context_settings=CONTEXT)
@click.argument("rules")
@click.option("--against", default="greedy", show_default=True, metavar="POLICY",
              help="The policy of every other seat, NAME[:k=v,...] (any policy the game offers, e.g. random, "
                   "greedy).")
@click.option("--seat", type=click.IntRange(min=0), default=0, show_default=True, help="Your seat (0 deals first).")
@click.option("--seed", type=click.IntRange(min=0, max=2**64 - 1), default=None,
              help="Seed of the deals and of the policies' streams (default: a new one, printed).")
@click.option("--rounds", type=click.IntRange(min=1, max=1000), default=None,
              help="Rounds to play (default: a match, as long as the rules' rounds option says).")
@click.option("--option", "options", multiple=True, metavar="NAME=VALUE",
              help="Override a rule option for this run, e.g. tensho.triple_match=one (repeatable).")
@click.option("--players", type=click.IntRange(min=2, max=most_players()), default=None,
              help="Number of players, where the rules allow a choice (Enshu-bana; Tensho is always 2).")
@click.option("--save", type=PathParam(dir_okay=False, path_type=Path), default=None, metavar="PREFIX",
              help="Save each round as PREFIX.deck and PREFIX.decisions.json (PREFIX-rK.* in a match of several "
                   "rounds), the files `fudasim replay --deck --decisions` reads.")
@reports_user_errors
def play(rules, against, seat, seed, rounds, options, players, save):
    """Play against policies in the terminal: you take one seat, the policy every other seat.

    Every decision the rules give you is asked with numbered options (a number answers, q quits).
    The screen shows your hand, the field, every capture pile with its yaku progress, the cards
    played so far and whose turn it is; each round ends with the result, every hand as dealt and
    the scores.  RULES is a shipped rule set (fudasim rules list) or a rule file.
    """
    from simcore.games import game_of
    from simcore.play import PlaySession, Quit, save_round
    from simcore.policies import check_engine, parse_policy, sees_hidden
    from simcore.rules import load_rules

    rule_set = load_rules(rules, rule_overrides(rules, options, players))
    game = game_of(rule_set)
    compiled = game.compile(rule_set)
    seats = game.players(compiled)
    if seat >= seats:
        raise UserError(f"--seat {seat}: {rule_set.name} has seats 0..{seats - 1} here")
    spec = parse_policy(against, game.name)
    check_engine(spec, game.name, "reference")
    specs = [parse_policy("random", game.name) if s == seat else spec for s in range(seats)]
    if save is not None and not save.parent.is_dir():
        raise UserError(f"--save {save}: no such directory {save.parent}")
    if seed is None:
        seed = secrets.randbelow(2**32)
    if rounds is None:
        rounds = int(rule_set.options[game.rounds_option])
    width = max(40, min(shutil.get_terminal_size((100, 24)).columns, 100))
    terminal = Terminal(colour_enabled(), live=bool(getattr(sys.stdout, "isatty", lambda: False)()), width=width)
    click.echo(f"{rule_set.title} ({rule_set.name}), {seats} players; you are seat {seat}, "
               f"{spec} plays the other seat{'s' if seats > 2 else ''}; seed {seed}; "
               f"{rounds} round{'s' if rounds > 1 else ''}.")
    if sees_hidden(spec):
        click.echo(f"Note: {spec} sees every hidden card, your hand and the draw pile included: it measures, it is "
                   f"not a fair opponent.")
    click.echo("Answer each question with its number; q quits.")

    def on_round(record) -> None:
        if save is None:
            return
        prefix = save if rounds == 1 else save.with_name(f"{save.name}-r{record.round_index + 1}")
        written = save_round(record, prefix)
        click.echo(f"Saved {', '.join(str(path) for path in written)}")
        if record.replay_problem:
            click.echo(f"Note: {record.replay_problem}")
        else:
            click.echo("Replay it with: " + _replay_command(rules, prefix, record.dealer, options, players,
                                                            redraw=record.redraw is not None))

    session = PlaySession(game, compiled, specs, seat, seed, rounds, terminal.prompt, terminal.show,
                          rules_label=rule_set.name, thinking=terminal.thinking, width=width)
    try:
        session.play(on_round)
    except Quit:
        click.echo("You quit; the round in progress is not saved.")
        return
    except _InputEnded:
        click.echo("", err=False)
        click.echo("fudasim: error: input ended before the game did; the round in progress is not saved", err=True)
        sys.exit(2)
    except KeyboardInterrupt:
        click.echo("\nfudasim: interrupted; the round in progress is not saved.", err=True)
        sys.exit(130)
