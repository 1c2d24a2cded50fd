"""Enshu-bana as a ``simcore.games.Game``: what the registry hands the runner, CLI and analysis."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import ModuleType
from typing import Any

import numpy as np

from simcore.games import Game
from simcore.games.enshu import enums as E
from simcore.games.enshu.heuristic_params import HEURISTIC_PARAMS
from simcore.policies import PolicySpec, PolicySupport, objective_param
from simcore.rules.schema import OptionSpec

__all__ = ["GAME", "EnshuGame"]


class EnshuGame:
    """Enshu-bana (docs/enshu.md): 48-card hanafuda, variants W, S and C, 2-5 players."""

    name: str = "enshu"
    title: str = "Enshu-bana"
    end_reasons: tuple[str, ...] = E.END_REASONS
    rounds_option: str = "enshu.rounds"
    players_option: str | None = "enshu.players"
    max_players: int = E.MAX_SEATS
    n_int: int = E.N_INT_COLUMNS
    n_mask: int = E.N_MASK_COLUMNS
    report_options: tuple[str, ...] = ()
    replay_redraw: bool = True  # dropped hands are shuffled into the draw pile (4-5 players)
    policies: tuple[tuple[str, PolicySupport], ...] = (
        ("random", PolicySupport()),
        ("greedy", PolicySupport()),
        ("heuristic", PolicySupport(engines=("kernel", "reference"), params=HEURISTIC_PARAMS)),
        ("pimc", PolicySupport(engines=("kernel", "reference"), params=(objective_param("score"),))),
        ("ismcts", PolicySupport(engines=("kernel", "reference"), params=(objective_param("score"),))),
        ("omniscient", PolicySupport(engines=("kernel", "reference"), params=(objective_param("score"),))),
    )

    def build_rules(self, name: str, source: str, text: str, data: dict[str, Any],
                    overrides: dict[str, Any]) -> Any:
        from simcore.games.enshu.rules import build_rules

        return build_rules(name, source, text, data, overrides)

    def options(self) -> Mapping[str, OptionSpec]:
        from simcore.games.enshu.options import OPTIONS

        return OPTIONS

    def players_problem(self, rules: Any, players: int) -> str | None:
        from simcore.games.enshu.rules import player_count_problem

        return player_count_problem(rules.allowed_players, players)

    def compile(self, rules: Any) -> Any:
        from simcore.games.enshu.compile import compile_rules

        return compile_rules(rules)

    def players(self, compiled: Any) -> int:
        return int(compiled.rules.players)

    def stride(self, compiled: Any, rounds_per_match: int | None) -> int:
        return 1 if rounds_per_match is None else rounds_per_match

    def run_metadata(self, rules: Any) -> dict[str, Any]:
        return {
            "yaku": [{"bit": y.index, "key": y.key, "name": y.name, "english": y.english, "face": ""}
                     for y in rules.yaku],
            "variant": rules.variant,
            "teyaku": [{"bit": t.index, "key": t.key, "name": t.name, "english": t.english} for t in rules.teyaku],
        }

    def play_units(self, engine: str, compiled: Any, specs: Sequence[PolicySpec], seed: int, first_unit: int,
                   n_units: int, rounds_per_match: int | None,
                   out: tuple[np.ndarray, np.ndarray] | None = None) -> tuple[np.ndarray, np.ndarray]:
        if engine == "reference":
            from simcore.games.enshu.reference import play_units
        else:
            from simcore.games.enshu.kernel import play_units
        return play_units(compiled, specs, seed, first_unit, n_units, rounds_per_match, out)

    def fill_row(self, ints: np.ndarray, masks: np.ndarray, row: int, result: Any) -> None:
        from simcore.games.enshu.reference import fill_row

        fill_row(ints, masks, row, result)

    def output_buffers(self, rows: int) -> tuple[np.ndarray, np.ndarray]:
        from simcore.record import output_buffers

        return output_buffers(rows, self.n_int, self.n_mask)

    def columns(self, ints: np.ndarray, masks: np.ndarray, players: int, store: Any = None) -> dict[str, np.ndarray]:
        from simcore.games.enshu.record import columns_from_matrices

        return columns_from_matrices(ints, masks, players, store)

    def schema(self, players: int) -> Any:
        from simcore.games.enshu.record import schema

        return schema(players)

    def table(self, columns: dict[str, np.ndarray], info: dict[str, Any], rules_text: str, players: int) -> Any:
        from simcore.games.enshu.record import shard_table

        return shard_table(columns, info, rules_text, players)

    def new_state(self, compiled: Any, seed: int, round_index: int, dealer: int) -> Any:
        from simcore.games.enshu.reference import RoundSetup, new_state

        return new_state(compiled, RoundSetup(seed=seed, round_index=round_index, dealer=dealer))

    def seat_policies(self, compiled: Any, specs: Sequence[PolicySpec], seed: int, round_index: int) -> list[Any]:
        from simcore.games.enshu.reference import seat_policies

        return seat_policies(compiled, list(specs), seed, round_index)

    def ask_policy(self, policy: Any, state: Any, decision: Any) -> Any:
        from simcore.games.enshu.decisions import ask_policy

        return ask_policy(policy, state, decision)

    def yaku_sets(self, rules: Any) -> None:
        return None  # one table of dekiyaku

    def tie_break_chain(self, rules: Any) -> None:
        return None  # rounds are settled by scores, multipliers and payments, not a tie-break chain

    def replay(self) -> ModuleType:
        from simcore.games.enshu import replay

        return replay

    def describe_rules(self, rules: Any) -> list[str]:
        kinds = ("bright", "animal", "ribbon", "chaff")
        points = {card.kind: rules.card_points[card.id] for card in rules.deck.cards}
        counts = {kind: sum(1 for card in rules.deck.cards if card.kind == kind) for kind in kinds}
        lines = ["", "card points: " + ", ".join(f"{kind} {points[kind]} ({counts[kind]} cards)" for kind in kinds)
                 + f"; total {sum(rules.card_points)}"]
        lines.append("")
        lines.append(f"{'dekiyaku':<14}{'name':<18}{'english':<34}{'kind':<12}{'value':>6}  cards")
        for y in rules.yaku:
            cards = ", ".join(rules.deck.cards[c].name for c in y.cards)
            lines.append(f"{y.key:<14}{y.name:<18}{y.english:<34}{y.kind:<12}{y.value:>6}  {cards}")
        if rules.teyaku:
            lines.append("")
            lines.append(f"{'teyaku':<14}{'name':<18}{'english':<34}{'group':<7}{'kind':<7}{'value':>6}")
            for t in rules.teyaku:
                lines.append(f"{t.key:<14}{t.name:<18}{t.english:<34}{t.group:<7}{t.kind:<7}{t.value:>6}")
        return lines


# Annotated so that the type checker verifies the class implements the protocol.
GAME: Game = EnshuGame()
