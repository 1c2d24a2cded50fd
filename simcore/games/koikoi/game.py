"""Koi-koi as a ``simcore.games.Game``: what the registry hands the runner, CLI and analysis."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from simcore.games import CompiledRules, Game, GameRuleSet
from simcore.games.base import GameBase
from simcore.games.koikoi.record import LAYOUT
from simcore.policies import ParamSpec, PolicySupport, changed_default, objective_param

if TYPE_CHECKING:
    from simcore.games.koikoi import compile as koikoi_compile

__all__ = ["GAME", "LEARNED_VERSION", "KoikoiGame"]

# The version of the learned models ``--policy learned`` plays.
LEARNED_VERSION = 1
# The search players play for the margin over the other seat: under winner-only scoring (the
# ``koikoi`` rules) a seat's own points reward calls that pay the opponent as much. Before
# ``margin`` existed they played for the payoff, which a recorded text without it still means.
_OBJECTIVE = changed_default(objective_param("score"), "margin")


def _heuristic_params() -> tuple[ParamSpec, ...]:
    """The ``heuristic`` policy's parameters, from ``HEURISTIC_PARAMS`` (defaults and help)."""
    from simcore.games.koikoi.policies import HEURISTIC_PARAMS

    return tuple(ParamSpec(name, default, minimum=0, maximum=100_000, help=text)
                 for name, (default, text) in HEURISTIC_PARAMS.items())


class KoikoiGame(GameBase):
    """Koi-koi (docs/koikoi.md): two players, the 48-card hanafuda deck, yaku and koi-koi calls."""

    name = "koikoi"
    title = "Koi-koi"
    rounds_option = "koikoi.rounds"
    default_rules = "koikoi"
    players_option = None
    layout = LAYOUT
    report_options = ("koikoi.koikoi_bonus", "koikoi.seven_double", "koikoi.scoring", "koikoi.exhausted",
                      "koikoi.koikoi_limit", "koikoi.viewing_raise", "koikoi.red_and_blue_stacking")
    policies = (
        ("random", PolicySupport()),
        ("greedy", PolicySupport()),
        ("heuristic", PolicySupport(params=_heuristic_params())),
        ("pimc", PolicySupport(params=(_OBJECTIVE,))),
        ("ismcts", PolicySupport(params=(_OBJECTIVE,))),
        ("omniscient", PolicySupport(params=(_OBJECTIVE,))),
        ("learned", PolicySupport(params=(
            ParamSpec("version", LEARNED_VERSION, minimum=1, recorded=True,
                      help="the models' version: each case plays its newest shipped model at or below it"),))),
    )

    def match_may_end_early(self, compiled: CompiledRules) -> bool:
        """With ``koikoi.early_end = at_zero`` a match stops when a seat reaches 0 points."""
        from simcore.games.koikoi import enums as E

        return cast("koikoi_compile.CompiledRules", compiled).param(E.P_EARLY_END) == 1

    def run_metadata(self, rules: GameRuleSet) -> dict[str, Any]:
        """The yaku table (bit, key, names, points)."""
        return {"yaku": [{"bit": y.index, "key": y.key, "name": y.name, "english": y.english, "value": y.value}
                         for y in rules.yaku]}

    def describe_rules(self, rules: GameRuleSet) -> list[str]:
        """The yaku with their points and cards, and every option's sources, as ``rules show``
        prints them."""
        from simcore.games.koikoi.options import OPTIONS
        from simcore.games.koikoi.rules import YAKU_TABLE

        lines = ["", f"{'yaku':<14}{'name':<16}{'english':<26}{'points':>7}  made of"]
        for info, y in zip(YAKU_TABLE, rules.yaku, strict=True):
            points = "1+" if y.counting else ("-" if y.value == 0 else str(y.value))
            lines.append(f"{y.key:<14}{y.name:<16}{y.english:<26}{points:>7}  {info.made_of}")
        lines.append("")
        lines.append("options (with their sources):")
        for name, spec in OPTIONS.items():
            lines.append(f"  {name}: {spec.help}")
        return lines


# Annotated so that the type checker verifies the class implements the protocol.
GAME: Game = KoikoiGame()
