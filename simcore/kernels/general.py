"""A game's ``play_units`` through the general kernel, written once: allocate the output
matrices, pack the seats' policies, run ``units_nb.play_units_nb`` over the game's state machine
in threads, and hand back the rows played.

A game's ``kernel.py`` gives ``general_args(compiled, specs) -> (rules, policy arrays)`` (its
``state_nb`` rules ``namedtuple`` and ``policy_rows.policy_rows``' arrays) and the stride of a
unit; everything else is here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from simcore.kernels.contract import load_implementations
from simcore.kernels.prepared import prepared
from simcore.kernels.threads import SLOW_SPANS_PER_THREAD, in_threads
from simcore.kernels.units_nb import play_units_nb
from simcore.record import output_matrices, played
from simcore.rng import MASK64

__all__ = ["NOT_COUNTED", "FastKernel", "GeneralKernel", "play_general", "time_general"]

NOT_COUNTED = np.zeros((0, 2), dtype=np.int64)  # a run's general kernel counts no decision


def play_general(general_args: Callable[[Any, Sequence[Any]], tuple[Any, tuple]], compiled: Any,
                 specs: Sequence[Any], seed: int, first_unit: int, n_units: int, rounds_per_match: int | None,
                 stride: int, n_int: int, n_mask: int,
                 out: tuple[np.ndarray, np.ndarray] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The output matrices (int64[n_int, rows], uint64[n_mask, rows]) of ``n_units`` units of the
    general kernel, every policy through the state machine.

    Parameters
    ----------
    general_args : the game's ``(compiled, specs) -> (rules, (params, floats, tables, logs, kinds))``,
        computed once per pair of objects (``simcore.kernels.prepared``)
    rounds_per_match : None for independent rounds, else the match length
    stride : rows a unit reserves (1 for a round; a match's rounds and any extra-round room)
    out : optional reusable flat buffers from ``simcore.record.output_buffers`` with room for
        ``n_units * stride`` rows
    """
    if stride < 1:
        raise ValueError(f"a unit reserves at least one row, got a stride of {stride}")
    load_implementations()
    rules, (params, floats, tables, logs, kinds) = prepared(general_args, compiled, specs)
    out_int, out_mask = output_matrices(n_units * stride, out, n_int, n_mask)
    matches = np.int64(0 if rounds_per_match is None else rounds_per_match)
    in_threads(lambda lo, hi: play_units_nb(
        rules, np.uint64(int(seed) & MASK64), np.int64(first_unit), np.int64(lo), np.int64(hi), matches,
        np.int64(stride), params, floats, tables, logs, *kinds, out_int, out_mask, NOT_COUNTED), n_units,
        min_span=1, per_thread=SLOW_SPANS_PER_THREAD)
    return played(out_int, out_mask, n_units * stride)


def time_general(general_args: Callable[[Any, Sequence[Any]], tuple[Any, tuple]], compiled: Any,
                 specs: Sequence[Any], seed: int, first_round: int, n_rounds: int, timed: bool, n_int: int,
                 n_mask: int) -> np.ndarray:
    """Each seat's decisions with two or more options over the independent rounds
    ``first_round .. first_round + n_rounds - 1`` of ``seed``, played by the general kernel on
    this thread exactly as a run plays them, and (``timed``) the ticks of
    ``simcore.kernels.clock`` its policy spent on them: int64[seats, 2]."""
    load_implementations()
    rules, (params, floats, tables, logs, kinds) = prepared(general_args, compiled, specs)
    out_int, out_mask = output_matrices(n_rounds, None, n_int, n_mask)
    spent = np.zeros((params.shape[0], 2 if timed else 1), dtype=np.int64)
    play_units_nb(rules, np.uint64(int(seed) & MASK64), np.int64(first_round), np.int64(0), np.int64(n_rounds),
                  np.int64(0), np.int64(1), params, floats, tables, logs, *kinds, out_int, out_mask, spent)
    out = np.zeros((len(specs), 2), dtype=np.int64)
    out[:, :spent.shape[1]] = spent[:len(specs)]
    return out


def match_stride(compiled: Any, rounds_per_match: int | None) -> int:
    """Rows a unit reserves: 1 for an independent round, else a row per round of the match."""
    return 1 if rounds_per_match is None else int(rounds_per_match)


@dataclass(frozen=True)
class FastKernel:
    """A game's fast kernel (its ``kernel_nb.play_units_nb``): a loop written for the seats it
    plays (random and greedy), which writes the same rows as the general kernel, faster.

    ``plays(compiled, specs)``: whether it plays these seats. ``args(compiled, specs)``: its
    arrays, computed once per pair of objects (``simcore.kernels.prepared``).
    ``launch(args, seed, first_unit, lo, hi, matches, stride, out_int, out_mask)``: plays units
    ``first_unit + lo .. first_unit + hi - 1`` into rows ``lo * stride ..`` (``seed`` a uint64,
    the others int64; ``matches``: 0 for independent rounds, else the match length), on the
    calling thread.
    """

    plays: Callable[[Any, Sequence[Any]], bool]
    args: Callable[[Any, Sequence[Any]], tuple]
    launch: Callable[..., None]


@dataclass(frozen=True)
class GeneralKernel:
    """A game's entry points to its numba engines: its ``kernel.py`` gives its
    ``general_args``, its output matrices' rows, the rows a unit reserves
    (``stride(compiled, rounds_per_match)``) and its fast kernel if it has one, and exports
    ``play_units``, ``play_units_general`` and ``time_decisions`` from here."""

    general_args: Callable[[Any, Sequence[Any]], tuple[Any, tuple]]
    n_int: int
    n_mask: int
    stride: Callable[[Any, int | None], int] = match_stride
    fast: FastKernel | None = None

    def play_units(self, compiled: Any, specs: Sequence[Any], seed: int, first_unit: int, n_units: int,
                   rounds_per_match: int | None,
                   out: tuple[np.ndarray, np.ndarray] | None = None) -> tuple[np.ndarray, np.ndarray]:
        """The output matrices (int64[n_int, rows], uint64[n_mask, rows], ``rows = n_units *
        stride``) of ``n_units`` units: independent rounds (``rounds_per_match`` None) or matches.
        The fast kernel plays them where it plays every seat, the general kernel otherwise.
        ``out``: optional reusable flat buffers from ``simcore.record.output_buffers`` with room
        for the rows (they need no initialisation)."""
        fast = self.fast
        if fast is None or not fast.plays(compiled, specs):
            return self.play_units_general(compiled, specs, seed, first_unit, n_units, rounds_per_match, out)
        stride = self.stride(compiled, rounds_per_match)
        out_int, out_mask = output_matrices(n_units * stride, out, self.n_int, self.n_mask)
        args = prepared(fast.args, compiled, specs)
        seed64, first, step = np.uint64(int(seed) & MASK64), np.int64(first_unit), np.int64(stride)
        matches = np.int64(0 if rounds_per_match is None else rounds_per_match)
        in_threads(lambda lo, hi: fast.launch(args, seed64, first, np.int64(lo), np.int64(hi), matches, step,
                                              out_int, out_mask), n_units)
        return played(out_int, out_mask, n_units * stride)

    def play_units_general(self, compiled: Any, specs: Sequence[Any], seed: int, first_unit: int, n_units: int,
                           rounds_per_match: int | None,
                           out: tuple[np.ndarray, np.ndarray] | None = None) -> tuple[np.ndarray, np.ndarray]:
        """``play_general``: every seat's policy through the state machine (the same rows as a
        game's fast kernel for the seats it plays), int64[n_int, rows] and uint64[n_mask, rows]."""
        return play_general(self.general_args, compiled, specs, seed, first_unit, n_units, rounds_per_match,
                            self.stride(compiled, rounds_per_match), self.n_int, self.n_mask, out)

    def time_decisions(self, compiled: Any, specs: Sequence[Any], seed: int, first_round: int, n_rounds: int,
                       timed: bool) -> np.ndarray:
        """``time_general``: each seat's decisions with two or more options over the independent
        rounds ``first_round ..`` of ``seed`` and (``timed``) their ticks, int64[seats, 2]."""
        return time_general(self.general_args, compiled, specs, seed, first_round, n_rounds, timed, self.n_int,
                            self.n_mask)
