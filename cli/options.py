"""What the commands share: the flags every command spells the same way, and turning them into
rule overrides and policy specs."""

from __future__ import annotations

import click

from cli.errors import UserError

__all__ = ["CONTEXT", "compiled_with_specs", "most_players", "option_overrides", "parse_overrides", "parse_policies",
           "players_option", "policy_options", "rule_overrides"]

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


def option_overrides(function):
    """The ``--option NAME=VALUE`` flag, spelled the same by every command that takes it."""
    return click.option(
        "--option", "options", multiple=True, metavar="NAME=VALUE",
        help="Override a rule option for this run, e.g. tensho.triple_match=one (repeatable).",
    )(function)


def policy_options(function):
    """The ``--policy SEAT=NAME[:k=v,...]`` flag, spelled the same by every command that takes it."""
    return click.option(
        "--policy", "policies", multiple=True, metavar="SEAT=NAME[:k=v,...]",
        help="Policy of a seat, e.g. 0=greedy or 1=greedy:yaku_set=2 (yaku_set: Tensho only; "
             "default: random for every seat).",
    )(function)


def parse_overrides(options: tuple[str, ...]) -> dict[str, str]:
    """``--option NAME=VALUE`` items as {name: value} (a name given twice is refused)."""
    from simcore.rules import parse_option_overrides

    return parse_option_overrides(options)


def parse_policies(policies: tuple[str, ...]) -> dict[int, str]:
    """``SEAT=SPEC`` items as {seat: spec}; seats not named play ``random``."""
    chosen: dict[int, str] = {}
    for item in policies:
        seat_text, sep, spec = item.partition("=")
        if not sep or not seat_text.strip().isdigit():
            raise UserError(f"--policy {item!r}: expected SEAT=NAME, e.g. 0=greedy")
        seat = int(seat_text)
        if seat in chosen:  # the last would silently win: the run would not be the one asked for
            raise UserError(f"--policy {seat}: seat {seat} is given twice ({chosen[seat]} and {spec.strip()}); "
                            f"give each seat once")
        chosen[seat] = spec.strip()
    return chosen


def players_option(function):
    """The ``--players`` flag, spelled the same by every command that takes it."""
    return click.option(
        "--players", type=click.IntRange(min=2, max=most_players()), default=None,
        help="Number of players, where the rules allow a choice (Enshu-bana; Tensho is always 2).",
    )(function)


def most_players() -> int:
    """The most seats any registered game may have (the range of --players and --dealer)."""
    from simcore.games import known_games

    return max(game.max_players for game in known_games().values())


def rule_overrides(rules: str, options: tuple[str, ...], players: int | None) -> dict[str, str]:
    """``--option`` overrides, plus ``--players`` as the game's player-count option."""
    from simcore.run.runner import with_players

    return with_players(rules, parse_overrides(options), players)


def compiled_with_specs(rules: str, options: tuple[str, ...], players: int | None, policies: tuple[str, ...]):
    """Compiled rules, their game, and one policy spec per seat."""
    from simcore.games import game_of
    from simcore.policies import parse_policy
    from simcore.rules import load_rules

    rule_set = load_rules(rules, rule_overrides(rules, options, players))
    game = game_of(rule_set)
    compiled = game.compile(rule_set)
    seats = game.players(compiled)
    chosen = parse_policies(policies)
    for seat in chosen:
        if not 0 <= seat < seats:
            raise UserError(f"--policy {seat}={chosen[seat]}: seat {seat} is outside 0..{seats - 1}")
    return compiled, game, [parse_policy(chosen.get(seat, "random"), game.name) for seat in range(seats)]
