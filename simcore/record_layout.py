"""A game's record layout as data: which row of the engines' output matrices each dataset column
comes from, and its Arrow type. From one ``RecordLayout`` the core derives the Arrow schema, the
named columns of a shard and the shard's table, for every game alike.

Column order in a dataset: the scalar int columns (with ``end_reason`` inserted at
``end_reason_at``), ``match_end``, the scalar card masks, then the per-seat columns kind by kind
(booleans, card masks, ints), each as ``name_0 .. name_{players-1}``.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType
from typing import Any

import numpy as np
import pyarrow as pa

from simcore.dataset import END_REASON_TYPE
from simcore.dataset import shard_table as generic_shard_table
from simcore.record import (
    C_DEALER,
    C_END_REASON,
    C_FIRST_PLAYER,
    C_MATCH,
    C_MATCH_END,
    C_ROUND,
    C_ROUND_IN_MATCH,
    C_VALID,
    ColumnStore,
    column_reader,
)

__all__ = ["POSITION_COLUMNS", "RecordLayout", "layout_of"]

# A column whose round result attribute has another name.
_ATTRIBUTE = {"round": "round_index"}


@dataclass(frozen=True)
class RecordLayout:
    """Where a game's dataset columns come from.

    Each ``*_int`` entry is ``(name, row of the int64 matrix, Arrow type)``; each ``*_mask`` and
    ``seat_bool`` entry ``(name, row)`` (uint64 card masks; booleans read from the int64 matrix).
    A per-seat column's seat ``s`` is row ``row + s``.
    """

    scalar_int: tuple[tuple[str, int, pa.DataType], ...]
    scalar_mask: tuple[tuple[str, int], ...]
    seat_int: tuple[tuple[str, int, pa.DataType], ...]
    seat_mask: tuple[tuple[str, int], ...]
    seat_bool: tuple[tuple[str, int], ...]
    end_reason: int  # the int64 row of the end-reason code
    end_reason_at: int  # its place among the scalar columns
    end_reasons: tuple[str, ...]  # the codes' names
    match_end: int  # the int64 row of "the match's last round"
    valid: int  # the int64 row that marks a row holding a round
    max_seats: int
    n_int: int  # rows of the int64 output matrix
    n_mask: int  # rows of the uint64 output matrix
    end_reason_meanings: tuple[str, ...] = ()  # each code's meaning, for the report's table

    def _check_players(self, players: int) -> None:
        if not 1 <= players <= self.max_seats:
            raise ValueError(f"players must be 1..{self.max_seats}, got {players}")

    def schema(self, players: int) -> pa.Schema:
        """The Arrow schema of a dataset with ``players`` seats (no column is ever null)."""
        self._check_players(players)
        fields = [pa.field(name, typ) for name, _, typ in self.scalar_int]
        fields.insert(self.end_reason_at, pa.field("end_reason", END_REASON_TYPE))
        fields.append(pa.field("match_end", pa.bool_()))
        fields += [pa.field(name, pa.uint64()) for name, _ in self.scalar_mask]
        for name, _ in self.seat_bool:
            fields += [pa.field(f"{name}_{s}", pa.bool_()) for s in range(players)]
        for name, _ in self.seat_mask:
            fields += [pa.field(f"{name}_{s}", pa.uint64()) for s in range(players)]
        for name, _, typ in self.seat_int:
            fields += [pa.field(f"{name}_{s}", typ) for s in range(players)]
        # No nulls ever: required columns spare Parquet its definition levels.
        return pa.schema([f.with_nullable(False) for f in fields])

    def fill_row(self, ints: np.ndarray, masks: np.ndarray, row: int, result: Any) -> None:
        """Write a reference engine's round result into row ``row`` of the output matrices, as
        the kernel's ``write_row_nb`` and ``write_match_nb`` do, and mark the row valid.

        Each column comes from the result's attribute of its name (``round``: ``round_index``;
        a per-seat column: the attribute's item of each seat). Parameters: ``ints``
        int64[n_int, rows], ``masks`` uint64[n_mask, rows].
        """
        for name, index, _ in self.scalar_int:
            ints[index, row] = int(getattr(result, _ATTRIBUTE.get(name, name)))
        ints[self.end_reason, row] = result.end_reason
        ints[self.match_end, row] = int(result.match_end)
        ints[self.valid, row] = 1
        for name, index in self.scalar_mask:
            masks[index, row] = getattr(result, name)
        for s in range(len(result.payoff)):
            for name, index in self.seat_bool:
                ints[index + s, row] = int(getattr(result, name)[s])
            for name, index in self.seat_mask:
                masks[index + s, row] = getattr(result, name)[s]
            for name, index, _ in self.seat_int:
                ints[index + s, row] = int(getattr(result, name)[s])

    def columns(self, ints: np.ndarray, masks: np.ndarray, players: int,
                store: ColumnStore | None = None) -> dict[str, np.ndarray]:
        """Named per-round columns from the engines' output matrices (valid rows only, copied).

        Parameters
        ----------
        ints : int64[n_int, rows]
        masks : uint64[n_mask, rows]
        players : seats to name
        store : optional ``ColumnStore`` whose arrays are reused for the copies
        """
        self._check_players(players)
        column = column_reader(ints, masks, self.valid, store)
        out: dict[str, np.ndarray] = {}
        for name, index, typ in self.scalar_int:
            out[name] = column(ints, index, typ.to_pandas_dtype())
        out["end_reason"] = column(ints, self.end_reason, np.int8)
        out["match_end"] = column(ints, self.match_end, np.bool_)
        for name, index in self.scalar_mask:
            out[name] = column(masks, index, np.uint64)
        for name, index in self.seat_bool:
            for s in range(players):
                out[f"{name}_{s}"] = column(ints, index + s, np.bool_)
        for name, index in self.seat_mask:
            for s in range(players):
                out[f"{name}_{s}"] = column(masks, index + s, np.uint64)
        for name, index, typ in self.seat_int:
            for s in range(players):
                out[f"{name}_{s}"] = column(ints, index + s, typ.to_pandas_dtype())
        return out

    def table(self, columns: dict[str, np.ndarray], run_info: dict[str, Any], rules_text: str,
              players: int) -> pa.Table:
        """A shard's Arrow table (``columns`` as ``columns`` gives them, each in its schema dtype),
        with the run metadata and the rules text attached."""
        return generic_shard_table(columns, run_info, rules_text, self.schema(players), self.end_reasons)


# The first scalar columns of every game's record: where the round sits in its run and who dealt
# and led it (``simcore.record``'s rows every game has).
POSITION_COLUMNS: tuple[tuple[str, int, pa.DataType], ...] = (
    ("round", C_ROUND, pa.int64()),
    ("match", C_MATCH, pa.int64()),
    ("round_in_match", C_ROUND_IN_MATCH, pa.int16()),
    ("dealer", C_DEALER, pa.int8()),
    ("first_player", C_FIRST_PLAYER, pa.int8()),
)


def layout_of(enums: ModuleType, *, scalar_int: tuple[tuple[str, int, pa.DataType], ...],
              scalar_mask: tuple[tuple[str, int], ...], seat_int: tuple[tuple[str, int, pa.DataType], ...],
              seat_mask: tuple[tuple[str, int], ...], seat_bool: tuple[tuple[str, int], ...] = (),
              end_reason_at: int, max_seats: int) -> RecordLayout:
    """A game's ``RecordLayout``: ``POSITION_COLUMNS`` then ``scalar_int``, the other columns as
    given, the rows every game has (``simcore.record``'s ``C_END_REASON``, ``C_MATCH_END``,
    ``C_VALID``), and from the game's ``enums`` its ``END_REASONS``, ``END_REASON_MEANINGS``,
    ``N_INT_COLUMNS`` and ``N_MASK_COLUMNS``."""
    return RecordLayout(
        scalar_int=POSITION_COLUMNS + scalar_int, scalar_mask=scalar_mask, seat_int=seat_int,
        seat_mask=seat_mask, seat_bool=seat_bool, end_reason=C_END_REASON, end_reason_at=end_reason_at,
        end_reasons=enums.END_REASONS, end_reason_meanings=enums.END_REASON_MEANINGS, match_end=C_MATCH_END,
        valid=C_VALID, max_seats=max_seats, n_int=enums.N_INT_COLUMNS, n_mask=enums.N_MASK_COLUMNS)
