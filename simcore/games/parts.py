"""The typed parts a game is made of, as the core sees them: its rule set, its compiled rules,
its replay, its bench cases and its report section, and the tie-break chain of games decided
from captured cards.

Each game's own classes have more than these (its yaku table, card values, variant ...); the
core reads only what is declared here, so that it never needs to know which game it holds.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from simcore.cards import Deck
from simcore.policies import PolicySpec

if TYPE_CHECKING:  # the bench driver imports the registry, which imports this module's package
    from simcore.bench import BenchCase, RunCase

__all__ = ["Bench", "CompiledRules", "GameRuleSet", "Replay", "ReportSection", "TieBreakChain"]


class GameRuleSet(Protocol):
    """A validated rule set of any game, every option resolved (each game's ``rules.RuleSet``)."""

    @property
    def name(self) -> str:
        """The rule file's name (a shipped name or the file's stem)."""
        ...

    @property
    def source(self) -> str:
        """Where it was read from."""
        ...

    @property
    def text(self) -> str:
        """The file's text, stored with every dataset."""
        ...

    @property
    def sha256(self) -> str:
        """The SHA-256 of the text."""
        ...

    @property
    def game(self) -> str:
        """The game's registry name."""
        ...

    @property
    def title(self) -> str:
        """A title for people."""
        ...

    @property
    def players(self) -> int:
        """Seats at the table."""
        ...

    @property
    def deck(self) -> Deck:
        """The cards."""
        ...

    @property
    def options(self) -> dict[str, str | int]:
        """Every option, resolved."""
        ...

    @property
    def overrides(self) -> dict[str, str | int]:
        """Those given with ``--option``."""
        ...

    @property
    def yaku(self) -> tuple[Any, ...]:
        """The game's yaku, each with ``index``, ``key``, ``name`` and ``english``."""
        ...

    @property
    def skin(self) -> str:
        """The card names in use."""
        ...

    def option(self, name: str) -> str | int:
        """The resolved value of the option called ``name``."""
        ...

    def card_label(self, card_id: int) -> str:
        """The name of card ``card_id`` in its skin."""
        ...


class CompiledRules(Protocol):
    """A rule set lowered to the arrays both engines read (each game's ``compile.CompiledRules``)."""

    @property
    def rules(self) -> GameRuleSet:
        """The rule set compiled."""
        ...


class Replay(Protocol):
    """A game's replay (its ``replay`` module): rounds of a run or explicit deals, traced."""

    REDRAW: bool  # whether a deal may name a draw pile redrawn mid-round (``replay --redraw``)

    def replay_from_run(self, compiled: Any, specs: list[PolicySpec], seed: int, round_index: int,
                        rounds_per_match: int | None = None) -> Any:
        """Round ``round_index`` of a run, traced (a match is replayed from its start)."""
        ...

    def replay_deck(self, compiled: Any, deck: list[int], decisions: list[Any] | None,
                    specs: list[PolicySpec], seed: int = 0, dealer: int = 0) -> Any:
        """An explicit deal, played with ``decisions`` (or the seats' policies if None), traced."""
        ...

    def trace_json(self, compiled: Any, result: Any) -> dict[str, Any]:
        """A traced round as JSON (``replay --json``)."""
        ...

    def format_trace(self, compiled: Any, result: Any) -> str:
        """A traced round as text, step by step."""
        ...


class Bench(Protocol):
    """A game's bench cases (its ``bench`` module): what ``fudasim bench`` measures of it."""

    def cases(self) -> list[BenchCase]:
        """The kernel cases measured for the game."""
        ...

    RUN_CASE: RunCase  # the end-to-end run measured for the game


class ReportSection(Protocol):
    """A game's own tables in ``fudasim report`` (its optional ``report`` module), counted in the
    report's one pass over the rows. A summary run keeps no rows, so its report has none of them."""

    def columns(self, seats: int) -> tuple[str, ...]:
        """The columns its counts read; a run without every one of them gets none of its tables."""
        ...

    def new_counts(self, seats: int, end_reasons: Sequence[str]) -> Any:
        """Empty counts: an object whose ``add(batch)`` counts one batch of rows (column name to
        NumPy array). ``end_reasons`` names the ``end_reason`` codes of the batches; the reader
        may append to it as new names appear."""
        ...

    def tables(self, counts: Any, confidence: float, kit: Any) -> list[Any]:
        """Its tables (``analysis.tables.Table``) from the counts, in reading order; none where
        the counts hold nothing to show. ``kit`` is ``analysis.tables`` (its ``Table``,
        ``add_rate``, ``add_mean``, ``warn_small``), passed in so that no game imports the layer
        above it."""
        ...


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
