"""``fudasim skill``'s report: the skill measures of ``analysis.skill`` on a tournament folder.

The tournament's policies are read as a chain, weakest first: every fair policy in the order
listed, then the one that sees the hidden cards (``omniscient``), if any. The *best fair policy*
is the last fair one listed. Every number is paired over the tournament's deals (each deal is
played by every pairing in every seating) and its interval is a percentile bootstrap over deals.

* gaps: for each adjacent pair of the chain, the stronger policy's mean payoff minus the weaker's
  per round (a deal's seatings averaged) and its win rate minus the weaker's;
* relative skill (Dreef, Borm & van der Genugten 2004): ``RS = LE / (LE + RE)`` with ``LE`` the
  best fair policy's payoff minus the beginner's and ``RE`` the omniscient policy's payoff minus
  the best fair policy's, each measured head to head on the same deals, for the first listed
  policy as beginner and for the second (when it is not the best);
* rounds to lead (Fiedler & Rock 2009): ``n* = (z sigma / E)^2`` for the per-round payoff edge
  ``E`` of the stronger of each adjacent pair (``sigma`` its standard deviation over single
  rounds, ``z = 1.645`` for "ahead with probability 0.95"), and the same number found by
  simulating matches of single rounds drawn from the tournament's;
* variance shares: of every seat's payoff in each adjacent pairing's rounds, the shares explained
  by the cards the seat is dealt and by the policy in the seat.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
import pandas as pd

from analysis.render import Report, Table
from analysis.skill import (
    Estimate,
    critical_rounds,
    gap,
    relative_skill_from_effects,
    rounds_to_lead,
    variance_shares,
)
from analysis.tournament import PairOutcomes, TournamentData, open_tournament
from simcore.policies import sees_hidden

__all__ = ["build_skill_report", "skill_chain"]

BOOTSTRAP_DRAWS = 1000
LEAD_MATCHES = 4000


def skill_chain(policies: list[str]) -> tuple[list[int], int | None]:
    """The fair policies' indices in listed order (weakest first) and the omniscient one's (or None)."""
    fair = [i for i, p in enumerate(policies) if not sees_hidden(p)]
    hidden = [i for i, p in enumerate(policies) if sees_hidden(p)]
    return fair, (hidden[-1] if hidden else None)


def _pair(data: TournamentData, strong: int, weak: int) -> tuple[PairOutcomes, float]:
    """The pairing of two policies and the sign that orients its A-minus-B values as strong minus weak."""
    for pair in data.pairs:
        if (pair.first, pair.second) == (strong, weak):
            return pair, 1.0
        if (pair.first, pair.second) == (weak, strong):
            return pair, -1.0
    raise KeyError((strong, weak))


def _cell(estimate: Estimate, digits: int = 3, scale: float = 1.0) -> str:
    if not np.isfinite(estimate.value):
        return "n/a"
    if not np.isfinite(estimate.low):
        return f"{estimate.value * scale:.{digits}f}"
    return (f"{estimate.value * scale:.{digits}f} [{estimate.low * scale:.{digits}f}, "
            f"{estimate.high * scale:.{digits}f}]")


def _win_gap(pair: PairOutcomes, sign: float) -> np.ndarray:
    """Per deal: (seatings won by the stronger - by the weaker) / seatings."""
    return sign * (pair.a_wins - pair.b_wins).astype(np.float64) / len(pair.seatings)


def _letters(pair: PairOutcomes) -> np.ndarray:
    """``[seating, seat]``: 0 where A sits, 1 where B sits."""
    return np.array([[0 if letter == "A" else 1 for letter in seating] for seating in pair.seatings])


def _single_rounds(pair: PairOutcomes, sign: float) -> np.ndarray:
    """Every round of the pairing (each seating of each present deal): the stronger's mean seat
    payoff minus the weaker's."""
    assert pair.seat_payoffs is not None
    letters = _letters(pair)
    rounds = []
    for k in range(len(pair.seatings)):
        payoffs = pair.seat_payoffs[k][pair.present]
        a = payoffs[:, letters[k] == 0].mean(axis=1)
        b = payoffs[:, letters[k] == 1].mean(axis=1)
        rounds.append(sign * (a - b))
    return np.concatenate(rounds)


def build_skill_report(tournament: TournamentData | str | os.PathLike, *, confidence: float = 0.95,
                       draws: int = BOOTSTRAP_DRAWS, allow_incomplete: bool = False) -> Report:
    """The skill report of a tournament folder (module docstring)."""
    data = tournament if isinstance(tournament, TournamentData) else open_tournament(
        tournament, allow_incomplete=allow_incomplete, seatings=True)
    policies = data.policies
    fair, hidden = skill_chain(policies)
    chain = fair + ([hidden] if hidden is not None else [])
    present = np.ones(int(data.manifest["deals"]), dtype=bool)
    for pair in data.pairs:
        present &= pair.present
    warnings = list(data.incomplete)
    z = _z(confidence)

    gaps, leads, shares = [], [], []
    for weak, strong in zip(chain, chain[1:], strict=False):
        pair, sign = _pair(data, strong, weak)
        keep = pair.present
        payoff = gap(sign * pair.payoff_diff[keep], np.zeros(int(keep.sum())), draws, 1, confidence)
        wins = gap(_win_gap(pair, sign)[keep], np.zeros(int(keep.sum())), draws, 2, confidence)
        label = f"{policies[weak]} -> {policies[strong]}"
        gaps.append((label, int(keep.sum()), _cell(payoff), _cell(wins, 1, 100.0)))
        rounds = _single_rounds(pair, sign)
        formula = critical_rounds(rounds, z)
        simulated = rounds_to_lead(rounds, probability=_one_sided(confidence), matches=LEAD_MATCHES, seed=3)
        leads.append((label, f"{np.mean(rounds):.4f}", f"{np.std(rounds, ddof=1):.3f}",
                      "never" if not np.isfinite(formula) else f"{formula:,.0f}",
                      "never" if simulated is None else f"{simulated:,}"))
        assert pair.seat_payoffs is not None
        share = variance_shares(pair.seat_payoffs[:, keep].transpose(1, 0, 2), _letters(pair))
        shares.append((label, *(f"{100 * share[k]:.1f}" for k in ("deal", "policy", "rest"))))

    tables = [_setup_table(data, fair, hidden, int(present.sum()))]
    tables.append(Table("skill_gaps", "Gaps along the chain", pd.DataFrame(
        gaps, columns=["weaker -> stronger", "deals", "payoff gap per round", "win-rate gap %"]),
        f"The stronger policy's mean payoff minus the weaker's, per round (a deal's seatings averaged), and "
        f"its share of rounds won minus the weaker's; {confidence:.0%} percentile bootstrap intervals over deals."))
    tables.append(_relative_skill_table(data, fair, hidden, draws, confidence, warnings))
    tables.append(Table("skill_rounds_to_lead", "Rounds until the stronger leads", pd.DataFrame(
        leads, columns=["weaker -> stronger", "edge per round", "sd per round", "n* (formula)", "n (simulated)"]),
        f"n* = (z sd / edge)^2 with z = {z:.3f}: rounds after which the stronger is ahead with probability "
        f"{_one_sided(confidence):.2f} (Fiedler & Rock); simulated: the fewest rounds at which {LEAD_MATCHES:,} "
        f"matches of single rounds drawn from the tournament's put it ahead that often (ties count half)."))
    tables.append(Table("skill_variance", "What the outcome depends on", pd.DataFrame(
        shares, columns=["pairing", "deal %", "policy %", "rest %"]),
        "Shares of the variance of each seat's payoff over the pairing's rounds explained by the cards the seat "
        "is dealt (deal: the mean over seatings of each deal's seat, its position's advantage included) and by "
        "the policy in the seat; rest: how a deal suits one policy more than the other."))
    notices = [f"policy {policies[hidden]}: sees the hidden cards (omniscient, for measurement only): it is the "
               "upper bound of the relative skill, not a fair player"] if hidden is not None else []
    return Report(title=f"fudasim skill: {data.label} ({data.manifest.get('game')}, "
                        f"{int(data.manifest['deals']):,} deals)",
                  tables=tables, warnings=warnings, notices=notices,
                  metadata={"tournament": str(data.path), "confidence": confidence})


def _one_sided(confidence: float) -> float:
    """The probability of leading that matches ``confidence``: 0.95 for 95%."""
    return confidence


def _z(confidence: float) -> float:
    from statistics import NormalDist

    return NormalDist().inv_cdf(_one_sided(confidence))


def _setup_table(data: TournamentData, fair: list[int], hidden: int | None, deals: int) -> Table:
    policies = data.policies
    rows = [("tournament", str(data.path)), ("game", str(data.manifest.get("game"))),
            ("rules", str(data.manifest.get("rules_name"))), ("players", str(data.manifest.get("players"))),
            ("deals", f"{deals:,} in every pairing"), ("chain (weakest first)", " -> ".join(policies[i] for i in fair)),
            ("best fair policy", policies[fair[-1]] if fair else "none"),
            ("omniscient", policies[hidden] if hidden is not None else "none (add omniscient to --policies)")]
    return Table("skill_setup", "Skill", pd.DataFrame(rows, columns=["item", "value"]),
                 "Policies listed weakest first; the best fair policy is the last fair one listed.")


def _relative_skill_table(data: TournamentData, fair: list[int], hidden: int | None, draws: int,
                          confidence: float, warnings: list[str]) -> Table:
    policies = data.policies
    rows: list[tuple[Any, ...]] = []
    if hidden is None or len(fair) < 2:
        warnings.append("relative skill needs at least two fair policies and omniscient in --policies")
    else:
        best = fair[-1]
        chance_pair, chance_sign = _pair(data, hidden, best)
        for beginner in fair[:2]:
            if beginner == best:
                continue
            learn_pair, learn_sign = _pair(data, best, beginner)
            keep = learn_pair.present & chance_pair.present
            le = learn_sign * learn_pair.payoff_diff[keep]
            re = chance_sign * chance_pair.payoff_diff[keep]
            zero = np.zeros(int(keep.sum()))
            rows.append((policies[beginner], policies[best], int(keep.sum()),
                         _cell(gap(le, zero, draws, 4, confidence)), _cell(gap(re, zero, draws, 5, confidence)),
                         _cell(relative_skill_from_effects(le, re, draws, 6, confidence))))
    return Table("skill_relative", "Relative skill", pd.DataFrame(
        rows, columns=["beginner", "best fair", "deals", "LE (learning effect)", "RE (random effect)", "RS"]),
        "RS = LE / (LE + RE) (Dreef, Borm & van der Genugten): LE = best fair minus beginner, RE = omniscient "
        "minus best fair, each a payoff difference per round head to head on the same deals. RS near 0: a fair "
        "player's skill is worth little next to knowing the cards; near 1: skill is nearly all there is to gain.")
