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
from typing import Any, Protocol, runtime_checkable

import numpy as np
import pyarrow as pa

from simcore.games.parts import (
    Bench,
    CompiledRules,
    GameRuleSet,
    Replay,
    ReportSection,
    TieBreakChain,
)
from simcore.policies import PolicySpec, PolicySupport
from simcore.record import ColumnStore
from simcore.reference.forward import Decision, State
from simcore.registry import REGISTRY, game_of, get_game, known_game_names, known_games
from simcore.rules.schema import OptionSpec

__all__ = ["REGISTRY", "Bench", "CompiledRules", "Engines", "ForwardModel", "Game", "GameRuleSet", "Records",
           "Replay", "ReportSection", "Reports", "Rules", "TieBreakChain", "game_of", "get_game",
           "known_game_names", "known_games"]

# The registry lives in ``simcore.registry`` (below the policy registry and the rules loader,
# which ask it); its names are re-exported here.


class Rules(Protocol):
    """A game's rules and options: what a rule file may say, and what it becomes."""

    @property
    def name(self) -> str:
        """``[game] name`` in its rule files; ``game`` in run metadata."""
        ...

    @property
    def title(self) -> str:
        """For people: "Tensho", "Enshu-bana"."""
        ...

    @property
    def rounds_option(self) -> str:
        """The option that gives a match's length."""
        ...

    @property
    def default_rules(self) -> str:
        """The shipped rule set that stands for the game where a command names none of its own
        (``fudasim compile`` compiles the game's kernels for it; they serve every rule set of the game)."""
        ...

    @property
    def players_option(self) -> str | None:
        """The option ``--players`` sets (None: a fixed player count)."""
        ...


    @property
    def max_players(self) -> int:
        """The most seats any of its rule files may have."""
        ...

    def options(self) -> Mapping[str, OptionSpec]:
        """Every named option of the game, by name."""
        ...

    def build_rules(self, name: str, source: str, text: str, data: dict[str, Any],
                    overrides: dict[str, Any]) -> GameRuleSet:
        """Validate a parsed rule file of this game into its rule set (``RulesError`` if not)."""
        ...

    def players_problem(self, rules: GameRuleSet, players: int) -> str | None:
        """Why these rules cannot be played by ``players`` players (None: they can)."""
        ...

    def compile(self, rules: GameRuleSet) -> CompiledRules:
        """Lower a rule set to the arrays both engines read."""
        ...

    def players(self, compiled: CompiledRules) -> int:
        """Seats at the table under these compiled rules."""
        ...

    def describe_rules(self, rules: GameRuleSet) -> list[str]:
        """Lines that ``fudasim rules show`` prints of the game's own tables."""
        ...


class Records(Protocol):
    """A game's rows. Both engines write the same two column-major output matrices: ``ints``
    int64[n_int, rows] and ``masks`` uint64[n_mask, rows], one row index per round (the game's
    ``enums`` name the matrix rows), each column contiguous, columns
    ``simcore.record.padded_rows(rows)`` apart. Its ``RecordLayout`` names the dataset columns
    they hold; ``columns`` copies them out, one array per dataset column in its schema dtype."""

    @property
    def end_reasons(self) -> tuple[str, ...]:
        """The ``end_reason`` dictionary, in code order."""
        ...

    @property
    def end_reason_meanings(self) -> dict[str, str]:
        """What each end reason means, for people (the report's "How rounds end")."""
        ...

    @property
    def n_int(self) -> int:
        """Rows of the engines' int64 output matrix."""
        ...

    @property
    def n_mask(self) -> int:
        """Rows of the engines' uint64 output matrix."""
        ...

    def output_buffers(self, rows: int) -> tuple[np.ndarray, np.ndarray]:
        """Reusable flat storage for the output matrices of up to ``rows`` rows."""
        ...

    def columns(self, ints: np.ndarray, masks: np.ndarray, players: int,
                store: ColumnStore | None = None) -> dict[str, np.ndarray]:
        """The named columns of the valid rows of the output matrices (copied)."""
        ...

    def schema(self, players: int) -> pa.Schema:
        """The Arrow schema of the game's dataset with ``players`` seats (docs/dataset.md)."""
        ...

    def table(self, columns: dict[str, np.ndarray], info: dict[str, Any], rules_text: str,
              players: int) -> pa.Table:
        """A shard's Arrow table, with the run metadata and rules text attached."""
        ...

    def run_metadata(self, rules: GameRuleSet) -> dict[str, Any]:
        """What a run's metadata records of the rules besides the common keys (yaku table, ...)."""
        ...


class Engines(Protocol):
    """A game's two engines, the numba kernel and the pure-Python reference: identical rows."""

    @property
    def policies(self) -> tuple[tuple[str, PolicySupport], ...]:
        """The policies it offers, by name."""
        ...


    def stride(self, compiled: CompiledRules, rounds_per_match: int | None) -> int:
        """Rows a unit reserves: 1 for a round; a match's rounds (and any extra-round room)."""
        ...

    def match_may_end_early(self, compiled: CompiledRules) -> bool:
        """Whether a match may stop before its last round, so that its rows are not all filled."""
        ...

    def play_units(self, engine: str, compiled: CompiledRules, specs: Sequence[PolicySpec], seed: int,
                   first_unit: int, n_units: int, rounds_per_match: int | None,
                   out: tuple[np.ndarray, np.ndarray] | None = None) -> tuple[np.ndarray, np.ndarray]:
        """The output matrices (int64[n_int, rows], uint64[n_mask, rows]) of ``n_units`` units from
        ``engine`` (identical for every engine)."""
        ...

    def time_decisions(self, compiled: CompiledRules, specs: Sequence[PolicySpec], seed: int, first_round: int,
                       n_rounds: int, timed: bool) -> np.ndarray:
        """int64[seats, 2]: each seat's decisions with two or more options over the independent
        rounds ``first_round .. first_round + n_rounds - 1`` of ``seed`` (played by the general
        kernel on the calling thread, deciding as a run does), and, when ``timed``, the ticks of
        ``simcore.kernels.clock`` its policy spent on them."""
        ...

    def fill_row(self, ints: np.ndarray, masks: np.ndarray, row: int, result: Any) -> None:
        """Write a reference-engine round result into row ``row`` of ``ints`` (int64[n_int, rows])
        and ``masks`` (uint64[n_mask, rows])."""
        ...

    def bench(self) -> Bench | None:
        """What ``fudasim bench`` measures of the game (None: random play on its rule files)."""
        ...


class ForwardModel(Protocol):
    """A game's rounds as a forward model, for the reference search and the play screen."""

    def new_state(self, compiled: CompiledRules, seed: int, round_index: int, dealer: int) -> State:
        """Round ``round_index`` of a run with ``seed``, dealt by ``dealer``, as a forward model
        (``simcore.reference.forward.State``) paused at its first decision."""
        ...

    def seat_policies(self, compiled: CompiledRules, specs: Sequence[PolicySpec], seed: int,
                      round_index: int) -> list[Any]:
        """The reference engine's policy objects of round ``round_index``, one per seat, each
        bound to its seat's stream."""
        ...

    def ask_policy(self, policy: Any, state: State, decision: Decision) -> Any:
        """Answer ``decision`` with a policy object of ``seat_policies``."""
        ...

    def replay(self) -> Replay:
        """The game's replay: rounds of a run or explicit deals, traced."""
        ...

    def screen(self, compiled: CompiledRules) -> Any:
        """What the game adds to the play screen (``simcore.play.RoundScreen``'s methods), or None."""
        ...


class Reports(Protocol):
    """What the analysis layer asks of a game beyond its columns."""

    @property
    def report_options(self) -> tuple[str, ...]:
        """The options a report's "Run" table shows."""
        ...


    def yaku_sets(self, rules: GameRuleSet) -> dict[int, tuple[int, int]] | None:
        """Per yaku set (numbered from 1), the bitsets of its yaku and of its instant-win yaku;
        None for a game without yaku sets."""
        ...

    def tie_break_chain(self, rules: GameRuleSet) -> TieBreakChain | None:
        """The chain that decides its rounds from the captured cards (None: its rounds are not
        decided that way, and cannot be rescored)."""
        ...

    def report_section(self) -> ReportSection | None:
        """Its own tables in ``fudasim report`` (koi-koi: its calls), or None."""
        ...


@runtime_checkable
class Game(Rules, Records, Engines, ForwardModel, Reports, Protocol):
    """What every game provides (see ``docs/architecture.md`` for how to add one). A game
    subclasses ``simcore.games.base.GameBase``, which implements every member that follows from
    its package's conventions."""
