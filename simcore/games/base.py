"""``GameBase``: the part of a ``Game`` that follows from the package's conventions.

A game's package holds the modules of ``docs/architecture.md``'s "Adding a game" table under
fixed names (``options``, ``rules``, ``compile``, ``record``, ``reference``, ``kernel``,
``decisions``, ``replay``, ``bench``). ``GameBase`` finds them through the package the game
class is defined in and implements every ``Game`` member that only delegates to them; a game's
``game.py`` declares what is its own (names, its options for matches and players, its record
layout, its policies) and the few questions whose answers differ between games.

The modules are imported on first use, not when the registry loads the game: a command that
only reads a dataset never imports a numba kernel.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from types import ModuleType
from typing import Any

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
from simcore.record import ColumnStore, output_buffers
from simcore.record_layout import RecordLayout
from simcore.reference.forward import Decision, State
from simcore.rules.schema import OptionSpec

__all__ = ["ENGINES", "GameBase"]

# The engines every game offers: the numba kernel (``kernel.play_units``) and the pure-Python
# reference engine (``reference.play_units``); both write identical rows.
ENGINES = ("kernel", "reference")


class GameBase:
    """Every ``Game`` member that follows from conventions; a game subclasses it in ``game.py``.

    A subclass declares ``name``, ``title``, ``rounds_option``, ``default_rules``, ``players_option``,
    ``report_options``, ``layout`` and ``policies``, and implements ``run_metadata`` and
    ``describe_rules``; it overrides ``players_problem``, ``stride``, ``match_may_end_early``,
    ``yaku_sets`` or ``tie_break_chain`` where its rules need it.
    """

    name: str
    title: str
    rounds_option: str
    default_rules: str
    players_option: str | None
    report_options: tuple[str, ...] = ()
    layout: RecordLayout
    policies: tuple[tuple[str, PolicySupport], ...]

    # --- the package's modules ----------------------------------------------------------------

    @property
    def package(self) -> str:
        """The game's package: the one its ``game`` module (this class's module) is in."""
        return type(self).__module__.rpartition(".")[0]

    def module(self, name: str) -> ModuleType:
        """The package's module ``name`` (imported on first use)."""
        return importlib.import_module(f"{self.package}.{name}")

    # --- rules and options --------------------------------------------------------------------

    def options(self) -> Mapping[str, OptionSpec]:
        """Every named option of the game: its ``options.OPTIONS``."""
        options: Mapping[str, OptionSpec] = self.module("options").OPTIONS
        return options

    def build_rules(self, name: str, source: str, text: str, data: dict[str, Any],
                    overrides: dict[str, Any]) -> GameRuleSet:
        """A parsed rule file validated by its ``rules.build_rules`` (``RulesError`` if not)."""
        rules: GameRuleSet = self.module("rules").build_rules(name, source, text, data, overrides)
        return rules

    def compile(self, rules: GameRuleSet) -> CompiledRules:
        """The rule set lowered by its ``compile.compile_rules``."""
        compiled: CompiledRules = self.module("compile").compile_rules(rules)
        return compiled

    def players_problem(self, rules: GameRuleSet, players: int) -> str | None:
        """A game of fixed size refuses any other count; a game with ``players_option`` overrides this."""
        return None if players == rules.players else f"{rules.name} is a {rules.players}-player game"

    def players(self, compiled: CompiledRules) -> int:
        """Seats at the table under these compiled rules."""
        return int(compiled.rules.players)

    @property
    def max_players(self) -> int:
        """The most seats any of its rule files may have: its layout's ``max_seats``."""
        return self.layout.max_seats

    def yaku_sets(self, rules: GameRuleSet) -> dict[int, tuple[int, int]] | None:
        """None: one yaku table (a game with yaku sets overrides this)."""
        return None  # one yaku table

    def tie_break_chain(self, rules: GameRuleSet) -> TieBreakChain | None:
        """None: its rounds are not decided from the captured cards by a chain of tie-breaks."""
        return None  # rounds are not decided from the captured cards by a chain of tie-breaks

    # --- records ------------------------------------------------------------------------------

    @property
    def end_reasons(self) -> tuple[str, ...]:
        """The ``end_reason`` dictionary, in code order (from the layout)."""
        return self.layout.end_reasons

    @property
    def end_reason_meanings(self) -> dict[str, str]:
        """What each end reason means (from the layout)."""
        return dict(zip(self.layout.end_reasons, self.layout.end_reason_meanings, strict=False))

    @property
    def n_int(self) -> int:
        """Rows of the engines' int64 output matrix (from the layout)."""
        return self.layout.n_int

    @property
    def n_mask(self) -> int:
        """Rows of the engines' uint64 output matrix (from the layout)."""
        return self.layout.n_mask

    def output_buffers(self, rows: int) -> tuple[np.ndarray, np.ndarray]:
        """Flat int64 and uint64 storage for output matrices of up to ``rows`` rows."""
        return output_buffers(rows, self.layout.n_int, self.layout.n_mask)

    def columns(self, ints: np.ndarray, masks: np.ndarray, players: int,
                store: ColumnStore | None = None) -> dict[str, np.ndarray]:
        """The named columns of the valid rows of ``ints`` (int64[n_int, rows]) and ``masks``
        (uint64[n_mask, rows]), copied, each in its schema dtype."""
        return self.layout.columns(ints, masks, players, store)

    def schema(self, players: int) -> pa.Schema:
        """The Arrow schema of a dataset with ``players`` seats (from the layout)."""
        return self.layout.schema(players)

    def table(self, columns: dict[str, np.ndarray], info: dict[str, Any], rules_text: str,
              players: int) -> pa.Table:
        """A shard's Arrow table of ``columns`` (each array in its schema dtype), with the run
        metadata and rules text attached."""
        return self.layout.table(columns, info, rules_text, players)

    # --- engines ------------------------------------------------------------------------------

    def stride(self, compiled: CompiledRules, rounds_per_match: int | None) -> int:
        """A round per row; a match reserves a row per round."""
        return 1 if rounds_per_match is None else rounds_per_match

    def match_may_end_early(self, compiled: CompiledRules) -> bool:
        """False: a match plays every round it reserves rows for (a game whose matches may stop
        sooner, leaving rows unused, overrides this)."""
        return False

    def play_units(self, engine: str, compiled: CompiledRules, specs: Sequence[PolicySpec], seed: int,
                   first_unit: int, n_units: int, rounds_per_match: int | None,
                   out: tuple[np.ndarray, np.ndarray] | None = None) -> tuple[np.ndarray, np.ndarray]:
        """The output matrices (int64[n_int, rows], uint64[n_mask, rows]) of ``n_units`` units
        from ``engine``: its ``kernel.play_units`` or ``reference.play_units`` (identical rows)."""
        if engine not in ENGINES:
            raise ValueError(f"engine must be one of {', '.join(ENGINES)}, not {engine!r}")
        ints, masks = self.module(engine).play_units(compiled, specs, seed, first_unit, n_units,
                                                     rounds_per_match, out)
        return ints, masks

    def time_decisions(self, compiled: CompiledRules, specs: Sequence[PolicySpec], seed: int, first_round: int,
                       n_rounds: int, timed: bool) -> np.ndarray:
        """Each seat's decisions with two or more options over independent rounds of ``seed``
        and, when ``timed``, the ticks its policy spent on them (int64[seats, 2]): its
        ``kernel.time_decisions``."""
        spent: np.ndarray = self.module("kernel").time_decisions(compiled, specs, seed, first_round, n_rounds,
                                                                 timed)
        return spent

    def fill_row(self, ints: np.ndarray, masks: np.ndarray, row: int, result: Any) -> None:
        """Write a reference-engine round result into row ``row`` of ``ints`` (int64[n_int, rows])
        and ``masks`` (uint64[n_mask, rows]), from its layout."""
        self.layout.fill_row(ints, masks, row, result)

    # --- the forward model --------------------------------------------------------------------

    def new_state(self, compiled: CompiledRules, seed: int, round_index: int, dealer: int) -> State:
        """Round ``round_index`` of a run with ``seed``, dealt by ``dealer``, as a forward model
        paused at its first decision: its ``reference.new_state``."""
        reference = self.module("reference")
        state: State = reference.new_state(compiled, reference.RoundSetup(seed=seed, round_index=round_index,
                                                                          dealer=dealer))
        return state

    def seat_policies(self, compiled: CompiledRules, specs: Sequence[PolicySpec], seed: int,
                      round_index: int) -> list[Any]:
        """The reference engine's policy objects of a round, one per seat: its ``reference.seat_policies``."""
        policies: list[Any] = self.module("reference").seat_policies(compiled, list(specs), seed, round_index)
        return policies

    def ask_policy(self, policy: Any, state: State, decision: Decision) -> Any:
        """Answer ``decision`` with a policy object: its ``decisions.ask_policy``."""
        return self.module("decisions").ask_policy(policy, state, decision)

    # --- replay and bench ---------------------------------------------------------------------

    def replay(self) -> Replay:
        """Its ``replay`` module."""
        replay: Replay = self.module("replay")
        return replay

    def optional_module(self, name: str) -> ModuleType | None:
        """The package's module ``name``, or None when the package has none."""
        try:
            return self.module(name)
        except ModuleNotFoundError as error:
            if error.name != f"{self.package}.{name}":
                raise
            return None

    def bench(self) -> Bench | None:
        """Its ``bench`` module, or None when its package has none."""
        bench: Bench | None = self.optional_module("bench")
        return bench

    def report_section(self) -> ReportSection | None:
        """Its ``report`` module, or None when its package has none."""
        section: ReportSection | None = self.optional_module("report")
        return section

    def screen(self, compiled: CompiledRules) -> Any:
        """What it adds to the play screen (its ``screen.make_screen(compiled)``; see
        ``simcore.play.RoundScreen``), or None when its package has no ``screen`` module."""
        module = self.optional_module("screen")
        return None if module is None else module.make_screen(compiled)
