"""Tensho as a ``simcore.games.Game``: what the registry hands the runner, CLI and analysis."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import ModuleType
from typing import Any

import numpy as np

from simcore.games import Game, TieBreakChain
from simcore.games.tensho import enums as E
from simcore.policies import ParamSpec, PolicySpec, PolicySupport, objective_param
from simcore.rules.schema import OptionSpec

__all__ = ["GAME", "TenshoGame"]


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


class TenshoGame:
    """Tensho (docs/tensho.md): two players, the 45-card Ise deck or its hanafuda skin."""

    name: str = "tensho"
    title: str = "Tensho"
    end_reasons: tuple[str, ...] = E.END_REASONS
    rounds_option: str = "tensho.rounds"
    players_option: str | None = None
    max_players: int = 2
    n_int: int = E.N_INT_COLUMNS
    n_mask: int = E.N_MASK_COLUMNS
    report_options: tuple[str, ...] = ("tensho.card_values", "tensho.chaff_set", "tensho.yaku_set_choice",
                                       "tensho.supersession", "tensho.no_yaku_tiebreak", "tensho.final_tie",
                                       "tensho.match_scoring")
    replay_redraw: bool = False
    policies: tuple[tuple[str, PolicySupport], ...] = (
        ("random", PolicySupport()),
        ("greedy", PolicySupport(params=(
            ParamSpec("yaku_set", 1, choices=(1, 2),
                      help="the yaku set it picks when the dealer's policy chooses (tensho.yaku_set_choice)"),))),
        ("heuristic", PolicySupport(params=_heuristic_params())),
        ("pimc", PolicySupport(params=(objective_param("win"),))),
        ("ismcts", PolicySupport(params=(objective_param("win"),))),
        ("omniscient", PolicySupport(params=(objective_param("win"),))),
    )

    def build_rules(self, name: str, source: str, text: str, data: dict[str, Any],
                    overrides: dict[str, Any]) -> Any:
        from simcore.games.tensho.rules import build_rules

        return build_rules(name, source, text, data, overrides)

    def options(self) -> Mapping[str, OptionSpec]:
        from simcore.games.tensho.options import OPTIONS

        return OPTIONS

    def players_problem(self, rules: Any, players: int) -> str | None:
        return None if players == 2 else f"{rules.name} is a two-player game"

    def compile(self, rules: Any) -> Any:
        from simcore.games.tensho.compile import compile_rules

        return compile_rules(rules)

    def players(self, compiled: Any) -> int:
        return int(compiled.rules.players)

    def stride(self, compiled: Any, rounds_per_match: int | None) -> int:
        if rounds_per_match is None:
            return 1
        from simcore.games.tensho.reference import unit_layout

        return unit_layout(compiled, rounds_per_match)

    def run_metadata(self, rules: Any) -> dict[str, Any]:
        return {"yaku": [{"bit": y.index, "key": y.key, "name": y.name, "english": y.english, "face": y.face}
                         for y in rules.yaku]}

    def play_units(self, engine: str, compiled: Any, specs: Sequence[PolicySpec], seed: int, first_unit: int,
                   n_units: int, rounds_per_match: int | None,
                   out: tuple[np.ndarray, np.ndarray] | None = None) -> tuple[np.ndarray, np.ndarray]:
        if engine == "reference":
            from simcore.games.tensho.reference import play_units
        else:
            from simcore.games.tensho.kernel import play_units
        return play_units(compiled, specs, seed, first_unit, n_units, rounds_per_match, out)

    def fill_row(self, ints: np.ndarray, masks: np.ndarray, row: int, result: Any) -> None:
        from simcore.games.tensho.reference import fill_row

        fill_row(ints, masks, row, result)

    def output_buffers(self, rows: int) -> tuple[np.ndarray, np.ndarray]:
        from simcore.record import output_buffers

        return output_buffers(rows, self.n_int, self.n_mask)

    def columns(self, ints: np.ndarray, masks: np.ndarray, players: int, store: Any = None) -> dict[str, np.ndarray]:
        from simcore.games.tensho.record import columns_from_matrices

        return columns_from_matrices(ints, masks, store)

    def schema(self, players: int) -> Any:
        from simcore.games.tensho.record import schema

        return schema()

    def table(self, columns: dict[str, np.ndarray], info: dict[str, Any], rules_text: str, players: int) -> Any:
        from simcore.games.tensho.record import shard_table

        return shard_table(columns, info, rules_text)

    def new_state(self, compiled: Any, seed: int, round_index: int, dealer: int) -> Any:
        from simcore.games.tensho.reference import RoundSetup, new_state

        return new_state(compiled, RoundSetup(seed=seed, round_index=round_index, dealer=dealer))

    def seat_policies(self, compiled: Any, specs: Sequence[PolicySpec], seed: int, round_index: int) -> list[Any]:
        from simcore.games.tensho.reference import seat_policies

        return seat_policies(compiled, list(specs), seed, round_index)

    def ask_policy(self, policy: Any, state: Any, decision: Any) -> Any:
        from simcore.games.tensho.decisions import ask_policy

        return ask_policy(policy, state, decision)

    def yaku_sets(self, rules: Any) -> dict[int, tuple[int, int]]:
        return {yaku_set: (sum(1 << y.index for y in rules.yaku if y.in_set(yaku_set)),
                           sum(1 << y.index for y in rules.yaku if y.is_instant(yaku_set)))
                for yaku_set in (1, 2)}

    def tie_break_chain(self, rules: Any) -> TieBreakChain:
        return TieBreakChain(
            card_value_tables=dict(rules.card_value_tables), chaff_sets=dict(rules.chaff_sets),
            card_values=str(rules.options["tensho.card_values"]), chaff_set=str(rules.options["tensho.chaff_set"]),
            values_only=str(rules.options["tensho.no_yaku_tiebreak"]) == "values_only",
            final_tie=str(rules.options["tensho.final_tie"]),
            captures_by_value=str(rules.options["tensho.double_match"]) == "highest_value_first")

    def replay(self) -> ModuleType:
        from simcore.games.tensho import replay

        return replay

    def describe_rules(self, rules: Any) -> list[str]:
        lines = ["", f"{'yaku':<6}{'name':<22}{'english':<28}{'set 1':>8}{'set 2':>8}  cards"]
        for y in rules.yaku:
            values = ["-" if v is None else str(v) for v in y.values]
            cards = ", ".join(rules.card_label(c) for c in y.cards)
            lines.append(f"{y.key:<6}{y.name:<22}{y.english:<28}{values[0]:>8}{values[1]:>8}  {cards}")
        lines.append("")
        lines.append("card-value tables (card: value):")
        chosen = str(rules.options["tensho.card_values"])
        for key, values in rules.card_value_tables.items():
            lines.extend(_card_value_lines(rules, key, values, key == chosen))
        lines.append("")
        lines.append("chaff sets: " + ", ".join(
            f"{k} ({bin(m).count('1')} cards)" for k, m in rules.chaff_sets.items()))
        return lines


def _card_value_lines(rules: Any, key: str, values: tuple[int, ...], in_force: bool) -> list[str]:
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
