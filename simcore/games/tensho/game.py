"""Tensho as a ``simcore.games.Game``: what the registry hands the runner, CLI and analysis."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from simcore.games import CompiledRules, Game, GameRuleSet, TieBreakChain
from simcore.games.base import GameBase
from simcore.games.tensho.record import LAYOUT
from simcore.policies import ParamSpec, PolicySupport, game_default, objective_param

if TYPE_CHECKING:
    from simcore.games.tensho import compile as tensho_compile
    from simcore.games.tensho import rules as tensho_rules

__all__ = ["GAME", "LEARNED_VERSION", "TenshoGame"]

# The newest version of the shipped learned models (``simcore/models/tensho-*.vN.json``): what
# ``--policy learned`` plays and records; a retrained model ships as the next version.
LEARNED_VERSION = 1


def _heuristic_params() -> tuple[ParamSpec, ...]:
    """The ``heuristic`` policy's parameters, from ``HEURISTIC_PARAMS`` (defaults and help)."""
    from simcore.games.tensho.policies import HEURISTIC_PARAMS

    specs = []
    for name, (default, text) in HEURISTIC_PARAMS.items():
        if name == "yaku_set":
            specs.append(ParamSpec(name, default, choices=(1, 2), help=text))
        elif name.startswith(("mine_", "theirs_")):
            specs.append(ParamSpec(name, default, minimum=0, maximum=1000, help=text))
        elif name == "claim":
            specs.append(ParamSpec(name, default, minimum=-1_000_000, maximum=1_000_000, help=text))
        else:
            specs.append(ParamSpec(name, default, minimum=0, maximum=100_000, help=text))
    return tuple(specs)


# pimc's defaults in Tensho (docs/policies.md, measured against heuristic with
# benchmarks/strength.py): rollouts cut two plays ahead and scored by the shipped value models,
# 8 worlds and 40 more to confirm, judged 4 at a time (race), no inference: over 1,300 rounds a
# second on one thread, and stronger in Tensho than the core defaults the other games keep
_PIMC = (objective_param("win"), game_default("pimc", "depth", 2), game_default("pimc", "worlds", 8),
         game_default("pimc", "confirm", 40), game_default("pimc", "race", 4), game_default("pimc", "infer", 0))


class TenshoGame(GameBase):
    """Tensho (docs/tensho.md): two players, the 45-card Ise deck or its hanafuda skin."""

    name = "tensho"
    title = "Tensho"
    rounds_option = "tensho.rounds"
    default_rules = "tensho-ise"
    players_option = None
    layout = LAYOUT
    report_options = ("tensho.card_values", "tensho.chaff_set", "tensho.yaku_set_choice", "tensho.supersession",
                      "tensho.no_yaku_tiebreak", "tensho.final_tie", "tensho.match_scoring")
    policies = (
        ("random", PolicySupport()),
        ("greedy", PolicySupport(params=(
            ParamSpec("yaku_set", 1, choices=(1, 2),
                      help="the yaku set it picks when the dealer's policy chooses (tensho.yaku_set_choice)"),))),
        ("heuristic", PolicySupport(params=_heuristic_params())),
        ("pimc", PolicySupport(params=_PIMC)),
        ("ismcts", PolicySupport(params=(objective_param("win"),))),
        ("omniscient", PolicySupport(params=(objective_param("win"),))),
        ("learned", PolicySupport(params=(
            ParamSpec("version", LEARNED_VERSION, minimum=1, recorded=True,
                      help="the models' version: each case plays its newest shipped model at or below it"),))),
    )

    def stride(self, compiled: CompiledRules, rounds_per_match: int | None) -> int:
        """A match reserves room for the extra rounds a tied match may need."""
        if rounds_per_match is None:
            return 1
        from simcore.games.tensho.reference import unit_layout

        return unit_layout(self._compiled(compiled), rounds_per_match)

    @staticmethod
    def _rules(rules: GameRuleSet) -> tensho_rules.RuleSet:
        return cast("tensho_rules.RuleSet", rules)  # the core hands a game only its own rule sets

    @staticmethod
    def _compiled(compiled: CompiledRules) -> tensho_compile.CompiledRules:
        return cast("tensho_compile.CompiledRules", compiled)

    def run_metadata(self, rules: GameRuleSet) -> dict[str, Any]:
        """The yaku table (bit, key, names, face)."""
        return {"yaku": [{"bit": y.index, "key": y.key, "name": y.name, "english": y.english, "face": y.face}
                         for y in rules.yaku]}

    def yaku_sets(self, rules: GameRuleSet) -> dict[int, tuple[int, int]]:
        """Per yaku set 1 and 2, the bitsets of its yaku and of its instant-win yaku."""
        own = self._rules(rules)
        return {yaku_set: (sum(1 << y.index for y in own.yaku if y.in_set(yaku_set)),
                           sum(1 << y.index for y in own.yaku if y.is_instant(yaku_set)))
                for yaku_set in (1, 2)}

    def tie_break_chain(self, rules: GameRuleSet) -> TieBreakChain:
        """The chain of docs/tensho.md that decides a round from the captured cards."""
        own = self._rules(rules)
        return TieBreakChain(
            card_value_tables=dict(own.card_value_tables), chaff_sets=dict(own.chaff_sets),
            card_values=str(own.options["tensho.card_values"]), chaff_set=str(own.options["tensho.chaff_set"]),
            values_only=str(own.options["tensho.no_yaku_tiebreak"]) == "values_only",
            final_tie=str(own.options["tensho.final_tie"]),
            captures_by_value=str(own.options["tensho.double_match"]) == "highest_value_first")

    def describe_rules(self, rules: GameRuleSet) -> list[str]:
        """The yaku, card-value tables and chaff sets, as ``rules show`` prints them."""
        own = self._rules(rules)
        lines = ["", f"{'yaku':<6}{'name':<22}{'english':<28}{'set 1':>8}{'set 2':>8}  cards"]
        for y in own.yaku:
            shown = ["-" if v is None else str(v) for v in y.values]
            cards = ", ".join(own.card_label(c) for c in y.cards)
            lines.append(f"{y.key:<6}{y.name:<22}{y.english:<28}{shown[0]:>8}{shown[1]:>8}  {cards}")
        lines.append("")
        lines.append("card-value tables (card: value):")
        chosen = str(own.options["tensho.card_values"])
        for key, values in own.card_value_tables.items():
            lines.extend(_card_value_lines(own, key, values, key == chosen))
        lines.append("")
        lines.append("chaff sets: " + ", ".join(
            f"{k} ({bin(m).count('1')} cards)" for k, m in own.chaff_sets.items()))
        return lines


def _card_value_lines(rules: tensho_rules.RuleSet, key: str, values: tuple[int, ...], in_force: bool) -> list[str]:
    """A card-value table: the value of every card that differs from the table's most common one."""
    common = max(set(values), key=values.count)
    listed = [f"{rules.card_label(card)}: {value}" for card, value in enumerate(values) if value != common]
    lines = [f"  {key} (total {sum(values)}){'  (in force)' if in_force else ''}"]
    for start in range(0, len(listed), 4):
        lines.append("    " + ", ".join(listed[start:start + 4]))
    others = "every card" if not listed else "every other card"
    lines.append(f"    {others}: {common}")
    return lines


# Annotated so that the type checker verifies the class implements the protocol.
GAME: Game = TenshoGame()
