"""The games: one ``Game`` protocol, and a registry of the packages that implement it.

A game is one package ``simcore/games/<name>/`` whose module ``game`` defines ``GAME``, an
object implementing ``Game``: its rules (validation, compilation, options), its players and
policies, both engines, its record layout and dataset schema, and its replay. Everything
outside the games' packages (the rules loader, runner, command line, analysis) asks this
registry (``simcore.registry``) and the protocol; nothing there names a game. Adding a game
is one folder and one line in ``REGISTRY``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Protocol, runtime_checkable

import numpy as np

from simcore.policies import PolicySpec, PolicySupport
from simcore.reference.forward import Decision, State
from simcore.registry import REGISTRY, game_of, get_game, known_game_names, known_games
from simcore.rules.schema import OptionSpec

__all__ = ["REGISTRY", "Game", "TieBreakChain", "game_of", "get_game", "known_game_names", "known_games"]

# The registry lives in ``simcore.registry`` (below the policy registry and the rules loader,
# which ask it); its names are re-exported here.


@dataclass(frozen=True)
class TieBreakChain:
    """How a game decides a round that no instant win ended, from the captured cards alone:
    more yaku points, else (unless ``values_only`` and neither has any) more chaff cards, else a
    higher card-value sum, else ``final_tie`` (``draw``, ``dealer_wins``, ``non_dealer_wins``).
    ``analysis.rescore`` decides stored rounds again under another table with it."""

    card_value_tables: Mapping[str, tuple[int, ...]]
    chaff_sets: Mapping[str, int]
    card_values: str  # the table in force
    chaff_set: str  # the chaff set in force
    values_only: bool
    final_tie: str
    captures_by_value: bool  # whether the rules pick captures by card value (a caveat for rescoring)


@runtime_checkable
class Game(Protocol):
    """What every game provides (see ``docs/architecture.md`` for how to add one).

    Both engines write the same two column-major output matrices: ``ints`` int64[n_int, rows]
    and ``masks`` uint64[n_mask, rows], one row index per round (the game's ``enums`` name the
    matrix rows), each column contiguous, columns ``simcore.record.padded_rows(rows)`` apart;
    ``output_buffers`` gives flat storage for them (``simcore.record.output_buffers``).
    ``columns`` copies out named columns, one array per dataset column in
    its schema dtype.
    """

    name: str  # ``[game] name`` in its rule files; ``game`` in run metadata
    title: str  # for people: "Tensho", "Enshu-bana"
    end_reasons: tuple[str, ...]  # the ``end_reason`` dictionary, in code order
    rounds_option: str  # the option that gives a match's length
    players_option: str | None  # the option ``--players`` sets (None: a fixed player count)
    max_players: int  # the most seats any of its rule files may have
    n_int: int  # rows of the engines' int64 output matrix
    n_mask: int  # rows of the engines' uint64 output matrix
    policies: tuple[tuple[str, PolicySupport], ...]  # the policies it offers, by name
    replay_redraw: bool  # whether its replay takes the draw pile as redrawn mid-round (``replay --redraw``)
    report_options: tuple[str, ...]  # the options a report's "Run" table shows

    def build_rules(self, name: str, source: str, text: str, data: dict[str, Any],
                    overrides: dict[str, Any]) -> Any:
        """Validate a parsed rule file of this game into its rule set (``RulesError`` if not)."""
        ...

    def options(self) -> Mapping[str, OptionSpec]:
        """Every named option of the game, by name."""
        ...

    def players_problem(self, rules: Any, players: int) -> str | None:
        """Why these rules cannot be played by ``players`` players (None: they can)."""
        ...

    def compile(self, rules: Any) -> Any:
        """Lower a rule set to the arrays both engines read."""
        ...

    def players(self, compiled: Any) -> int:
        """Seats at the table under these compiled rules."""
        ...

    def stride(self, compiled: Any, rounds_per_match: int | None) -> int:
        """Rows a unit reserves: 1 for a round; a match's rounds (and any extra-round room)."""
        ...

    def run_metadata(self, rules: Any) -> dict[str, Any]:
        """What a run's metadata records of the rules besides the common keys (yaku table, ...)."""
        ...

    def play_units(self, engine: str, compiled: Any, specs: Sequence[PolicySpec], seed: int, first_unit: int,
                   n_units: int, rounds_per_match: int | None,
                   out: tuple[np.ndarray, np.ndarray] | None = None) -> tuple[np.ndarray, np.ndarray]:
        """The output matrices of ``n_units`` units from ``engine`` (identical for every engine)."""
        ...

    def fill_row(self, ints: np.ndarray, masks: np.ndarray, row: int, result: Any) -> None:
        """Write a reference-engine round result into row ``row`` of the output matrices."""
        ...

    def output_buffers(self, rows: int) -> tuple[np.ndarray, np.ndarray]:
        """Reusable flat storage for the output matrices of up to ``rows`` rows."""
        ...

    def columns(self, ints: np.ndarray, masks: np.ndarray, players: int,
                store: Any = None) -> dict[str, np.ndarray]:
        """The named columns of the valid rows of the output matrices (copied)."""
        ...

    def schema(self, players: int) -> Any:
        """The Arrow schema of the game's dataset with ``players`` seats (docs/dataset.md)."""
        ...

    def table(self, columns: dict[str, np.ndarray], info: dict[str, Any], rules_text: str, players: int) -> Any:
        """A shard's Arrow table, with the run metadata and rules text attached."""
        ...

    def new_state(self, compiled: Any, seed: int, round_index: int, dealer: int) -> State:
        """Round ``round_index`` of a run with ``seed``, dealt by ``dealer``, as a forward model
        (``simcore.reference.forward.State``) paused at its first decision."""
        ...

    def seat_policies(self, compiled: Any, specs: Sequence[PolicySpec], seed: int, round_index: int) -> list[Any]:
        """The reference engine's policy objects of round ``round_index``, one per seat, each
        bound to its seat's stream."""
        ...

    def ask_policy(self, policy: Any, state: State, decision: Decision) -> Any:
        """Answer ``decision`` with a policy object of ``seat_policies``."""
        ...

    def yaku_sets(self, rules: Any) -> dict[int, tuple[int, int]] | None:
        """Per yaku set (numbered from 1), the bitsets of its yaku and of its instant-win yaku;
        None for a game without yaku sets."""
        ...

    def tie_break_chain(self, rules: Any) -> TieBreakChain | None:
        """The chain that decides its rounds from the captured cards (None: its rounds are not
        decided that way, and cannot be rescored)."""
        ...

    def replay(self) -> ModuleType:
        """The game's replay module: ``replay_from_run``, ``replay_deck``, ``trace_json``,
        ``format_trace`` (see ``simcore.reference.replay``)."""
        ...

    def describe_rules(self, rules: Any) -> list[str]:
        """Lines that ``fudasim rules show`` prints of the game's own tables."""
        ...
