"""Koi-koi as a ``simcore.games.Game``: what the registry hands the runner, CLI and analysis."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import ModuleType
from typing import Any

import numpy as np

from simcore.games import Game
from simcore.games.koikoi import enums as E
from simcore.policies import ParamSpec, PolicySpec, PolicySupport, objective_param
from simcore.rules.schema import OptionSpec

__all__ = ["GAME", "KoikoiGame"]


def _heuristic_params() -> tuple[ParamSpec, ...]:
    """The ``heuristic`` policy's parameters, from ``HEURISTIC_PARAMS`` (defaults and help)."""
    from simcore.games.koikoi.policies import HEURISTIC_PARAMS

    return tuple(ParamSpec(name, default, minimum=0, maximum=100_000, help=text)
                 for name, (default, text) in HEURISTIC_PARAMS.items())


class KoikoiGame:
    """Koi-koi (docs/koikoi.md): two players, the 48-card hanafuda deck, yaku and koi-koi calls."""

    name: str = "koikoi"
    title: str = "Koi-koi"
    end_reasons: tuple[str, ...] = E.END_REASONS
    rounds_option: str = "koikoi.rounds"
    players_option: str | None = None
    max_players: int = 2
    n_int: int = E.N_INT_COLUMNS
    n_mask: int = E.N_MASK_COLUMNS
    report_options: tuple[str, ...] = ("koikoi.koikoi_bonus", "koikoi.seven_double", "koikoi.scoring",
                                       "koikoi.exhausted", "koikoi.koikoi_limit", "koikoi.viewing_raise",
                                       "koikoi.red_and_blue_stacking")
    replay_redraw: bool = False
    policies: tuple[tuple[str, PolicySupport], ...] = (
        ("random", PolicySupport()),
        ("greedy", PolicySupport()),
        ("heuristic", PolicySupport(params=_heuristic_params())),
        ("pimc", PolicySupport(params=(objective_param("score"),))),
        ("ismcts", PolicySupport(params=(objective_param("score"),))),
        ("omniscient", PolicySupport(params=(objective_param("score"),))),
    )

    def build_rules(self, name: str, source: str, text: str, data: dict[str, Any],
                    overrides: dict[str, Any]) -> Any:
        from simcore.games.koikoi.rules import build_rules

        return build_rules(name, source, text, data, overrides)

    def options(self) -> Mapping[str, OptionSpec]:
        from simcore.games.koikoi.options import OPTIONS

        return OPTIONS

    def players_problem(self, rules: Any, players: int) -> str | None:
        return None if players == 2 else f"{rules.name} is a two-player game"

    def compile(self, rules: Any) -> Any:
        from simcore.games.koikoi.compile import compile_rules

        return compile_rules(rules)

    def players(self, compiled: Any) -> int:
        return int(compiled.rules.players)

    def stride(self, compiled: Any, rounds_per_match: int | None) -> int:
        return 1 if rounds_per_match is None else rounds_per_match

    def match_may_end_early(self, compiled: Any) -> bool:
        """Whether a match may stop before its last round (``koikoi.early_end = at_zero``): its
        rows are then not all filled, and the runner does not count on them."""
        return bool(compiled.param(E.P_EARLY_END) == 1)

    def run_metadata(self, rules: Any) -> dict[str, Any]:
        return {"yaku": [{"bit": y.index, "key": y.key, "name": y.name, "english": y.english, "value": y.value}
                         for y in rules.yaku]}

    def play_units(self, engine: str, compiled: Any, specs: Sequence[PolicySpec], seed: int, first_unit: int,
                   n_units: int, rounds_per_match: int | None,
                   out: tuple[np.ndarray, np.ndarray] | None = None) -> tuple[np.ndarray, np.ndarray]:
        if engine == "reference":
            from simcore.games.koikoi.reference import play_units
        else:
            from simcore.games.koikoi.kernel import play_units
        return play_units(compiled, specs, seed, first_unit, n_units, rounds_per_match, out)

    def fill_row(self, ints: np.ndarray, masks: np.ndarray, row: int, result: Any) -> None:
        from simcore.games.koikoi.reference import fill_row

        fill_row(ints, masks, row, result)

    def output_buffers(self, rows: int) -> tuple[np.ndarray, np.ndarray]:
        from simcore.record import output_buffers

        return output_buffers(rows, self.n_int, self.n_mask)

    def columns(self, ints: np.ndarray, masks: np.ndarray, players: int, store: Any = None) -> dict[str, np.ndarray]:
        from simcore.games.koikoi.record import columns_from_matrices

        return columns_from_matrices(ints, masks, store)

    def schema(self, players: int) -> Any:
        from simcore.games.koikoi.record import LAYOUT

        return LAYOUT.schema(players)

    def table(self, columns: dict[str, np.ndarray], info: dict[str, Any], rules_text: str, players: int) -> Any:
        from simcore.games.koikoi.record import shard_table

        return shard_table(columns, info, rules_text)

    def new_state(self, compiled: Any, seed: int, round_index: int, dealer: int) -> Any:
        from simcore.games.koikoi.reference import RoundSetup, new_state, round_month

        month = round_month(round_index, 0, True)
        return new_state(compiled, RoundSetup(seed=seed, round_index=round_index, dealer=dealer, month=month))

    def seat_policies(self, compiled: Any, specs: Sequence[PolicySpec], seed: int, round_index: int) -> list[Any]:
        from simcore.games.koikoi.reference import seat_policies

        return seat_policies(compiled, list(specs), seed, round_index)

    def ask_policy(self, policy: Any, state: Any, decision: Any) -> Any:
        from simcore.games.koikoi.decisions import ask_policy

        return ask_policy(policy, state, decision)

    def yaku_sets(self, rules: Any) -> None:
        return None  # one yaku table

    def tie_break_chain(self, rules: Any) -> None:
        return None  # a round ends by a stop, not by comparing captured cards

    def replay(self) -> ModuleType:
        from simcore.games.koikoi import replay

        return replay

    def describe_rules(self, rules: Any) -> list[str]:
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
