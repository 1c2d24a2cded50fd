"""One interface over the games, so the runner and the CLI need not know which game they play.

``game_of(rules)`` returns a ``Game`` whose methods compile the rules, play units with either
engine into the shared column-major output matrices, name the columns and build shard tables.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from simcore.games.tensho import enums as E
from simcore.policies import ParamSpec, PolicySupport

__all__ = ["Game", "game_of", "known_games", "TENSHO", "ENSHU"]


@dataclass(frozen=True)
class Game:
    name: str
    n_int: int
    n_mask: int
    end_reasons: tuple[str, ...]
    rounds_option: str
    policies: tuple[tuple[str, PolicySupport], ...] = ()  # the policies it offers, by name

    # --- rules -----------------------------------------------------------------------------

    def compile(self, rules):
        if self.name == "tensho":
            from simcore.games.tensho.compile import compile_rules

            return compile_rules(rules)
        from simcore.games.enshu.rules import compile_enshu

        return compile_enshu(rules)

    def players(self, compiled) -> int:
        return int(compiled.rules.players)

    def stride(self, compiled, rounds_per_match: int | None) -> int:
        """Rows a unit reserves: 1 for a round; a match's rounds (and its extra-round room)."""
        if rounds_per_match is None:
            return 1
        if self.name == "tensho":
            from simcore.games.tensho.reference import unit_layout

            return unit_layout(compiled, rounds_per_match)
        return rounds_per_match

    def yaku_table(self, rules) -> list[dict[str, Any]]:
        out = [{"bit": y.index, "key": y.key, "name": y.name, "english": y.english,
                "face": getattr(y, "face", "")} for y in rules.yaku]
        return out

    def teyaku_table(self, rules) -> list[dict[str, Any]]:
        return [{"bit": t.index, "key": t.key, "name": t.name, "english": t.english}
                for t in getattr(rules, "teyaku", ())]

    # --- engines -----------------------------------------------------------------------------

    def play_units(self, engine: str, compiled, specs, seed: int, first_unit: int, n_units: int,
                   rounds_per_match: int | None, out=None):
        """Output matrices of ``n_units`` units from the chosen engine (identical for both)."""
        if self.name == "tensho":
            if engine == "reference":
                from simcore.games.tensho.reference import play_units
            else:
                from simcore.games.tensho.kernel import play_units
        elif engine == "reference":
            from simcore.games.enshu.reference import play_units
        else:
            from simcore.games.enshu.kernel import play_units
        return play_units(compiled, specs, seed, first_unit, n_units, rounds_per_match, out)

    def output_buffers(self, rows: int):
        from simcore.dataset import output_buffers

        return output_buffers(rows, self.n_int, self.n_mask)

    def columns(self, ints: np.ndarray, masks: np.ndarray, players: int, store=None) -> dict[str, np.ndarray]:
        """Named columns copied out of the output matrices (into ``store``'s arrays if given)."""
        if self.name == "tensho":
            from simcore.dataset import columns_from_matrices

            return columns_from_matrices(ints, masks, store)
        from simcore.games.enshu.record import columns_from_matrices

        return columns_from_matrices(ints, masks, players, store)

    def schema(self, players: int):
        """The Arrow schema of this game's dataset with ``players`` seats (docs/dataset.md)."""
        if self.name == "tensho":
            from simcore.dataset import schema

            return schema()
        from simcore.games.enshu.record import schema

        return schema(players)

    def table(self, columns: dict[str, np.ndarray], info: dict[str, Any], rules_text: str, players: int):
        if self.name == "tensho":
            from simcore.dataset import shard_table

            return shard_table(columns, info, rules_text)
        from simcore.games.enshu.record import shard_table

        return shard_table(columns, info, rules_text, players)


TENSHO = Game("tensho", E.N_INT_COLUMNS, E.N_MASK_COLUMNS, E.END_REASONS, "tensho.rounds", (
    ("random", PolicySupport()),
    ("greedy", PolicySupport(params=(
        ParamSpec("yaku_set", 1, choices=(1, 2),
                  help="the yaku set it picks when the dealer's policy chooses (tensho.yaku_set_choice)"),))),
))


def _enshu() -> Game:
    from simcore.games.enshu import enums as EE

    return Game("enshu", EE.N_INT_COLUMNS, EE.N_MASK_COLUMNS, EE.END_REASONS, "enshu.rounds",
                (("random", PolicySupport()), ("greedy", PolicySupport())))


ENSHU = _enshu()


def known_games() -> dict[str, Game]:
    """Every registered game, by the name its rule files give in ``[game] name``."""
    return {"tensho": TENSHO, "enshu": ENSHU}


def game_of(rules) -> Game:
    return known_games()[rules.game]
