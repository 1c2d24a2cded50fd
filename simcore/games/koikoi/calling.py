"""The value of calling koi-koi, by the points a seat holds and the turn it is asked.

A run's rows say what happened after the calls its players made; they cannot say what a stop
would have brought instead. Here every koi-koi decision of a sample of rounds is answered both
ways from the real position: a stop scores at once (``stop``); a call plays the round out with
the same policies in both seats (``call``), from the same streams the round's seats draw from.
The round itself goes on with the choice its policy made. Averaged over the decisions met in
play, ``call - stop`` is what calling is worth to the caller, in round points, at that many
points and that turn, under those policies (they decide every later call and stop too).

This is the reference engine, so a sample of some thousands of rounds takes a minute with the
fast policies; a search policy takes hours. ``docs/koikoi.md#the-value-of-calling`` shows it.
"""

from __future__ import annotations

import math
import multiprocessing
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

from simcore.games.koikoi import enums as E
from simcore.games.koikoi.compile import CompiledRules
from simcore.games.koikoi.decisions import ask_policy
from simcore.games.koikoi.reference import RoundSetup, new_state, seat_policies
from simcore.policies import PolicySpec
from simcore.reference.forward import play_through

__all__ = ["CallDecision", "CallRow", "POINTS", "TURNS", "call_decisions", "call_table"]

# The table's bands: points held when asked, and the round's turn (1-16; each seat plays 8).
POINTS = ((1, 2), (3, 4), (5, 6), (7, 9), (10, 10**6))
TURNS = ((1, 4), (5, 8), (9, 12), (13, 16))


@dataclass(frozen=True)
class CallDecision:
    """One koi-koi decision: ``round``, the deciding ``seat`` and whether it dealt, the round's
    ``turn``, the yaku ``points`` it held, the calls made before (its own and its opponent's),
    whether its policy ``called``, and its payoff after a stop and after a call."""

    round: int
    seat: int
    dealer: bool
    turn: int
    points: int
    own_calls: int
    opponent_calls: int
    called: bool
    stop: int
    call: int


def call_decisions(compiled: CompiledRules, specs: Sequence[PolicySpec], seed: int, rounds: int,
                   first_round: int = 0, workers: int = 1) -> list[CallDecision]:
    """Every koi-koi decision of rounds ``first_round .. first_round + rounds - 1`` of a run with
    ``seed`` and ``specs`` (one per seat), each answered both ways (module docstring). Round ``r``
    is dealt by seat ``r % 2`` with the rules' starting points, as a run of independent rounds.
    ``workers`` > 1 plays that many consecutive parts of the rounds in as many processes at once;
    a round's decisions depend on the round alone, so the list is the same. The processes are
    spawned: a script that asks for them runs its top level under ``if __name__ == "__main__":``."""
    if workers > 1 and rounds > 1:
        parts = min(workers, rounds)
        bounds = [first_round + rounds * k // parts for k in range(parts + 1)]
        # spawned, not forked: the calling process may have threads running (a run's kernels)
        with ProcessPoolExecutor(parts, mp_context=multiprocessing.get_context("spawn")) as pool:
            found = pool.map(call_decisions, [compiled] * parts, [specs] * parts, [seed] * parts,
                             [b - a for a, b in zip(bounds[:-1], bounds[1:], strict=True)], bounds[:-1])
            return [d for part in found for d in part]
    start = compiled.param(E.P_START_POINTS)
    out: list[CallDecision] = []
    for r in range(first_round, first_round + rounds):
        setup = RoundSetup(seed=seed, round_index=r, match=r, dealer=r % 2, match_points=(start, start))
        state = new_state(compiled, setup)
        policies = seat_policies(compiled, specs, seed, r)
        while (decision := state.decision()) is not None:
            choice = ask_policy(policies[decision.seat], state, decision)
            if decision.kind == "koikoi":
                seat = decision.seat
                stop = state.clone()
                stop.apply(False)
                call = state.clone()
                call.apply(True)
                call = play_through(call, seat_policies(compiled, specs, seed, r), ask_policy)
                assert stop.result is not None and call.result is not None
                out.append(CallDecision(
                    round=r, seat=seat, dealer=seat == state.dealer, turn=state.turn,
                    points=int(decision.info["points"]), own_calls=state.calls[seat],
                    opponent_calls=state.calls[1 - seat], called=bool(choice),
                    stop=stop.result.payoff[seat], call=call.result.payoff[seat]))
            state.apply(choice)
    return out


@dataclass(frozen=True)
class CallRow:
    """The decisions of one band of points and turns: how many, how often the policy called,
    the mean gain of a call over a stop with its 95% interval (normal), and how many times a call
    did better and worse than a stop."""

    points: tuple[int, int]
    turns: tuple[int, int]
    n: int
    called: int
    gain: float
    low: float
    high: float
    better: int
    worse: int


def call_table(decisions: Sequence[CallDecision], first_only: bool = True) -> list[CallRow]:
    """The decisions by band of points held (``POINTS``) and turn (``TURNS``), bands with none
    left out. ``first_only``: only a seat's first call or stop of the round (no call of its own
    before, the decision most players mean)."""
    rows = []
    for points in POINTS:
        for turns in TURNS:
            chosen = [d for d in decisions if points[0] <= d.points <= points[1] and turns[0] <= d.turn <= turns[1]
                      and (d.own_calls == 0 or not first_only)]
            if not chosen:
                continue
            gains = [d.call - d.stop for d in chosen]
            n = len(gains)
            mean = sum(gains) / n
            var = sum((g - mean) ** 2 for g in gains) / (n - 1) if n > 1 else 0.0
            half = 1.959963984540054 * math.sqrt(var / n) if n > 1 else math.inf
            rows.append(CallRow(points, turns, n, sum(d.called for d in chosen), mean, mean - half, mean + half,
                                sum(g > 0 for g in gains), sum(g < 0 for g in gains)))
    return rows
