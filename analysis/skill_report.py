"""``fudasim skill``'s report: the skill measures of ``analysis.skill`` on a tournament folder.

``measure_skill`` computes every measure of a tournament folder into a ``SkillMeasures``;
``build_skill_report`` shows them as tables (the findings page reads ``SkillMeasures`` itself).
Every number is paired over the tournament's deals (each deal is played by every pairing in
every seating) and its interval is a percentile bootstrap over deals (resampled whole).

Who plays which part
--------------------
* **Strength** decides, not the order of ``--policies``: each fair policy's *strength* is its
  mean payoff per round head to head against the other fair policies (the mean over them of
  its payoff minus theirs); the *best fair policy* is the strongest, and the chain of fair
  policies runs from the weakest to the strongest.
* The **beginner**: ``greedy`` is the headline beginner (it takes the obvious captures a player
  who has just learned the rules takes) and ``random`` the extreme; without either, the weakest
  measured fair policy.
* The **fictive player** (who knows the chance moves) is the strongest of the policies that see
  the hidden cards (``omniscient`` configurations): the one with the largest payoff against
  the best fair policy. The relative skill is also given with each of the others, as a range.

Measures
--------
* gaps: for each adjacent pair of the chain, the stronger's mean payoff minus the weaker's per
  round (a deal's seatings averaged) and its win rate minus the weaker's;
* relative skill (Dreef, Borm & van der Genugten 2004): ``RS = LE / (LE + RE)``, ``LE`` the best
  fair policy's expected payoff minus the beginner's and ``RE`` the fictive player's minus the
  best fair policy's. Dreef et al. measure each against the same fixed opponents; here the
  opponents are best fair players ("Dreef's scale") where the tournament allows it: with zero-sum
  payoffs and seatings in which the weaker of the two sits alone among best fair players (2 and
  3 players), ``LE = 0 - E[beginner's payoff there]`` (a best fair player's expected payoff
  among its equals is 0 in a zero-sum game) and ``RE = E[fictive player's payoff there]``. In a
  2-player zero-sum game this is exactly half the head-to-head difference. Otherwise (4-5
  players, or payoffs that are not zero-sum: Enshu-bana S) the head-to-head differences are used,
  and the report says so. Both scales are shown, and each effect also as the stronger player's
  share of rounds won (draws counted half);
* rounds to lead (Fiedler & Rock 2009): ``n* = (lambda sigma / E)^2`` for the per-round payoff
  edge ``E`` of the stronger of each adjacent pair (``sigma`` its standard deviation over single
  rounds, ``lambda = 1.645`` for "ahead with probability 0.95"), with the interval the edge's
  interval gives, "unresolved" with a lower bound where the edge's interval holds 0, and the same
  number found by simulating matches of single rounds drawn from the tournament's;
* match odds: the probability that the stronger is ahead after a match of 1, 12 and 100 rounds
  (ties half), simulated from the tournament's rounds, with bootstrap intervals;
* variance shares: of every seat's payoff in each adjacent pairing's rounds, the shares explained
  by the cards the seat is dealt and by the policy in the seat;
* departures: every way the measures depart from the literature, and which way each pushes RS.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass, field
from pathlib import Path
from statistics import NormalDist
from typing import Any

import numpy as np
import pandas as pd

from analysis.render import Report, Table
from analysis.skill import (
    CriticalRounds,
    Estimate,
    critical_rounds_estimate,
    gap,
    match_win_probability,
    relative_skill_from_effects,
    rounds_to_lead,
    variance_shares,
)
from analysis.tournament import PairOutcomes, TournamentData, open_tournament
from simcore.policies import sees_hidden
from simcore.run.tournament import TournamentConfig, TournamentResult

__all__ = ["BOOTSTRAP_DRAWS", "MATCH_LENGTHS", "MatchOdds", "Lead", "RelativeSkill", "SkillMeasures",
           "build_skill_report", "head_to_head", "measure_skill", "play_skill", "skill_chain", "skill_complete", "skill_pairs",
           "strongest_fair"]

BOOTSTRAP_DRAWS = 1000
LEAD_MATCHES = 4000
MATCH_LENGTHS = (1, 12, 100)
HEADLINE_BEGINNER = "greedy"
EXTREME_BEGINNER = "random"


def skill_chain(policies: list[str]) -> tuple[list[int], int | None]:
    """The fair policies' indices in listed order and the last listed omniscient one's (or None).

    The report orders the fair policies by measured strength (``measure_skill``); this is only
    the split into fair and hidden-card policies.
    """
    fair, hidden = _split(policies)
    return fair, (hidden[-1] if hidden else None)


def _split(policies: list[str] | tuple[str, ...]) -> tuple[list[int], list[int]]:
    """The indices of the fair policies and of those that see the hidden cards, in listed order."""
    return ([i for i, p in enumerate(policies) if not sees_hidden(p)],
            [i for i, p in enumerate(policies) if sees_hidden(p)])


@dataclass(frozen=True)
class RelativeSkill:
    """RS with one beginner and one fictive player.

    ``scale`` says how LE and RE are measured: ``"Dreef"`` (against best fair players as fixed
    opponents, module docstring) or ``"head to head"``; ``le``, ``re``, ``rs`` are on that
    scale; ``*_h2h`` are the head-to-head payoff differences and their RS; ``le_win`` and
    ``re_win`` the stronger's share of rounds won in the LE and RE pairings (draws half).
    """

    beginner: str
    best: str
    fictive: str
    deals: int
    scale: str
    le: Estimate
    re: Estimate
    rs: Estimate
    le_h2h: Estimate
    re_h2h: Estimate
    rs_h2h: Estimate
    le_win: Estimate
    re_win: Estimate


@dataclass(frozen=True)
class Lead:
    """Rounds until the stronger of two policies leads (``n*`` and its simulated counterpart)."""

    weaker: str
    stronger: str
    critical: CriticalRounds
    simulated: int | None


@dataclass(frozen=True)
class MatchOdds:
    """P(the stronger is ahead after a match of ``n`` rounds), for each ``n`` of ``MATCH_LENGTHS``."""

    weaker: str
    stronger: str
    odds: dict[int, Estimate]


@dataclass
class SkillMeasures:
    """Everything ``fudasim skill`` reports about one tournament (module docstring)."""

    label: str
    game: str
    players: int
    deals: int
    policies: list[str]
    strength: list[tuple[str, Estimate]]  # fair policies, weakest first, by measured strength
    fictive_strength: list[tuple[str, Estimate]]  # hidden-card policies: payoff against the best fair
    best: str | None
    fictive: str | None
    beginners: list[str]  # headline first, then the extreme
    zero_sum: bool
    gaps: list[tuple[str, str, int, Estimate, Estimate]] = field(default_factory=list)
    relative: list[RelativeSkill] = field(default_factory=list)
    leads: list[Lead] = field(default_factory=list)
    matches: list[MatchOdds] = field(default_factory=list)
    shares: list[tuple[str, dict[str, float]]] = field(default_factory=list)
    departures: list[tuple[str, str, str, str]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    coefficient: float = 1.6448536269514722
    lead_probability: float = 0.95

    def rs(self, beginner: str, fictive: str | None = None) -> RelativeSkill | None:
        """The relative skill with ``beginner`` and ``fictive`` (default: the strongest fictive player)."""
        wanted = fictive or self.fictive
        return next((r for r in self.relative if r.beginner == beginner and r.fictive == wanted), None)

    def rs_range(self, beginner: str) -> tuple[float, float] | None:
        """The lowest and highest RS (point values) with ``beginner`` over every fictive player measured."""
        values = [r.rs.value for r in self.relative if r.beginner == beginner and np.isfinite(r.rs.value)]
        return (min(values), max(values)) if values else None


def _pair(data: TournamentData, strong: int, weak: int) -> tuple[PairOutcomes, float]:
    """The pairing of two policies and the sign that orients its A-minus-B values as strong minus weak."""
    for pair in data.pairs:
        if (pair.first, pair.second) == (strong, weak):
            return pair, 1.0
        if (pair.first, pair.second) == (weak, strong):
            return pair, -1.0
    raise KeyError((strong, weak))


def _letters(pair: PairOutcomes) -> np.ndarray:
    """``[seating, seat]``: 0 where A sits, 1 where B sits."""
    return np.array([[0 if letter == "A" else 1 for letter in seating] for seating in pair.seatings])


def _win_gap(pair: PairOutcomes, sign: float) -> np.ndarray:
    """Per deal: (seatings won by the stronger - by the weaker) / seatings."""
    return sign * (pair.a_wins - pair.b_wins).astype(np.float64) / len(pair.seatings)


def _win_share(pair: PairOutcomes, sign: float) -> np.ndarray:
    """Per deal: the stronger's share of the seatings' rounds won, a drawn round counting half."""
    stronger = pair.a_wins if sign > 0 else pair.b_wins
    return (stronger + 0.5 * pair.draws).astype(np.float64) / len(pair.seatings)


def _pair_rounds(pair: PairOutcomes, sign: float, keep: np.ndarray) -> np.ndarray:
    """float64 ``[deal, seating]`` over the deals in ``keep``: the stronger's mean seat payoff minus
    the weaker's in each round."""
    assert pair.seat_payoffs is not None
    letters = _letters(pair)
    out = np.empty((int(keep.sum()), len(pair.seatings)))
    for k in range(len(pair.seatings)):
        payoffs = pair.seat_payoffs[k][keep]
        out[:, k] = sign * (payoffs[:, letters[k] == 0].mean(axis=1) - payoffs[:, letters[k] == 1].mean(axis=1))
    return out


def _alone(pair: PairOutcomes, sign: float, keep: np.ndarray) -> np.ndarray | None:
    """Per deal in ``keep``: the weaker policy's mean payoff in the seatings where it holds one seat
    among the stronger (None when no seating puts it alone)."""
    assert pair.seat_payoffs is not None
    weak_letter = 1 if sign > 0 else 0
    letters = _letters(pair)
    alone = [k for k in range(len(pair.seatings)) if (letters[k] == weak_letter).sum() == 1]
    if not alone:
        return None
    values = [pair.seat_payoffs[k][keep][:, letters[k] == weak_letter][:, 0] for k in alone]
    return np.mean(values, axis=0)


def _zero_sum(data: TournamentData) -> bool:
    """Whether every round of every pairing pays zero in sum over the seats."""
    return all(pair.seat_payoffs is not None
               and bool(np.all(np.abs(pair.seat_payoffs[:, pair.present].sum(axis=2)) < 1e-9))
               for pair in data.pairs)


def _kind(policy: str) -> str:
    return policy.partition(":")[0]


def _strength_per_deal(data: TournamentData, fair: list[int]) -> list[tuple[int, np.ndarray | None]]:
    """Each fair policy's payoff per round minus its opponents', per deal (the deals every one of
    its pairings played), averaged over the other fair policies (None: no other fair policy)."""
    out: list[tuple[int, np.ndarray | None]] = []
    for i in fair:
        parts, keep = [], np.ones(int(data.manifest["deals"]), dtype=bool)
        for j in fair:
            if j != i:
                pair, sign = _pair(data, i, j)
                parts.append(sign * pair.payoff_diff)
                keep &= pair.present
        out.append((i, np.mean(parts, axis=0)[keep] if parts else None))
    return out


def _weakest_first(values: list[float]) -> list[int]:
    """Positions of ``values`` from the weakest to the strongest (NaN weakest; ties keep the order)."""
    return sorted(range(len(values)), key=lambda k: (np.nan_to_num(values[k], nan=-np.inf), k))


def _fair_strength(data: TournamentData, fair: list[int], draws: int, confidence: float) -> list[tuple[int, Estimate]]:
    """Each fair policy's mean payoff per round minus its opponents', over the other fair policies,
    weakest first (ties keep the listed order)."""
    nan = Estimate(float("nan"), float("nan"), float("nan"))
    out = [(i, nan if per_deal is None else gap(per_deal, np.zeros(len(per_deal)), draws, 11, confidence))
           for i, per_deal in _strength_per_deal(data, fair)]
    return [out[k] for k in _weakest_first([e.value for _, e in out])]


def strongest_fair(tournament: TournamentData | str | os.PathLike) -> int:
    """The index of the tournament's strongest fair policy (``measure_skill``'s best), without
    intervals; the fair policies' every pairing must have been played."""
    data = tournament if isinstance(tournament, TournamentData) else open_tournament(tournament)
    fair, _ = _split(data.policies)
    per_deal = _strength_per_deal(data, fair)
    values = [float("nan") if d is None else float(np.mean(d)) for _, d in per_deal]
    return fair[_weakest_first(values)[-1]]


def skill_pairs(policies: list[str] | tuple[str, ...], best: int | None) -> tuple[tuple[int, int], ...] | None:
    """The pairings a skill tournament plays: the fair policies' every pairing, and with the
    strongest fair policy ``best`` known, each hidden-card policy against it (None: every pairing,
    where there are fewer than two fair policies or no hidden-card one)."""
    fair, hidden = _split(policies)
    if len(fair) < 2 or not hidden:
        return None
    pairs = [(i, j) for i in fair for j in fair if i < j]
    if best is not None:
        pairs += [(min(h, best), max(h, best)) for h in hidden]
    return tuple(sorted(pairs))


def play_skill(config: TournamentConfig, announce: Any = None) -> TournamentResult:
    """Play (or, with ``config.resume``, finish) a skill tournament into ``config.out``: the fair
    policies' every pairing, then each hidden-card policy against the strongest fair one only,
    the one pairing of it the measures read (``config.pairs`` is ignored). The measures are
    those of the full tournament on the same deals; a skill tournament begun with every pairing
    is finished with every pairing."""
    from simcore.run.tournament import is_tournament, read_tournament, run_tournament

    if not config.out:
        raise ValueError("play_skill needs config.out")
    out = Path(config.out)
    first = skill_pairs(config.policies, None)
    if first is None:
        return run_tournament(dataclasses.replace(config, pairs=None), announce)
    if config.resume and is_tournament(out):
        stored = read_tournament(out).get("pairs")
        if stored is None or not {tuple(p) for p in stored} <= set(first):  # past the fair pairings
            pairs = None if stored is None else tuple(tuple(p) for p in stored)
            return run_tournament(dataclasses.replace(config, pairs=pairs), announce)
    fair = run_tournament(dataclasses.replace(config, pairs=first), announce)
    pairs = skill_pairs(config.policies, strongest_fair(out))
    more = run_tournament(dataclasses.replace(config, pairs=pairs, resume=True, overwrite=False), announce)
    return TournamentResult(
        out=more.out, manifest=more.manifest, runs_played=fair.runs_played + more.runs_played,
        runs_resumed=fair.runs_resumed + more.runs_resumed,
        runs_skipped=fair.runs_skipped + more.runs_skipped - len(fair.manifest["runs"]),
        rounds_computed=fair.rounds_computed + more.rounds_computed, seconds=fair.seconds + more.seconds)


def skill_complete(path: str | os.PathLike) -> bool:
    """Whether ``path`` holds a complete tournament with every pairing the skill measures read
    (``play_skill``'s, or every pairing)."""
    from simcore.run.tournament import is_tournament, read_tournament

    if not is_tournament(path):
        return False
    manifest = read_tournament(path)
    if manifest.get("complete") is not True:
        return False
    if manifest.get("pairs") is None:
        return True
    wanted = skill_pairs(manifest["policies"], strongest_fair(path))
    return wanted is None or set(wanted) <= {tuple(p) for p in manifest["pairs"]}


def measure_skill(tournament: TournamentData | str | os.PathLike, *, confidence: float = 0.95,
                  draws: int = BOOTSTRAP_DRAWS, allow_incomplete: bool = False,
                  match_lengths: tuple[int, ...] = MATCH_LENGTHS) -> SkillMeasures:
    """Every skill measure of a tournament folder (module docstring)."""
    data = tournament if isinstance(tournament, TournamentData) else open_tournament(
        tournament, allow_incomplete=allow_incomplete, seatings=True)
    policies = data.policies
    fair_listed, hidden = _split(policies)
    strength = _fair_strength(data, fair_listed, draws, confidence)
    chain = [i for i, _ in strength]
    best = chain[-1] if chain else None
    zero_sum = _zero_sum(data)
    players = int(data.manifest["players"])
    coefficient = NormalDist().inv_cdf(confidence)
    measures = SkillMeasures(
        label=data.label, game=str(data.manifest.get("game")), players=players, deals=int(data.manifest["deals"]),
        policies=policies, strength=[(policies[i], e) for i, e in strength], fictive_strength=[], best=None,
        fictive=None, beginners=[], zero_sum=zero_sum, warnings=list(data.incomplete), coefficient=coefficient,
        lead_probability=confidence)
    if best is None:
        measures.warnings.append("no fair policy in --policies: nothing to measure")
        return measures
    measures.best = policies[best]
    fictive_strength = []
    for h in hidden:
        pair, sign = _pair(data, h, best)
        keep = pair.present
        fictive_strength.append((h, gap(sign * pair.payoff_diff[keep], np.zeros(int(keep.sum())), draws, 12,
                                        confidence)))
    fictive_strength.sort(key=lambda he: np.nan_to_num(he[1].value, nan=-np.inf))
    measures.fictive_strength = [(policies[h], e) for h, e in fictive_strength]
    fictive = fictive_strength[-1][0] if fictive_strength else None
    measures.fictive = policies[fictive] if fictive is not None else None

    for weak, strong in zip(chain, chain[1:], strict=False):
        deals_, payoff, wins = _head_to_head(data, strong, weak, draws, confidence)
        measures.gaps.append((policies[weak], policies[strong], deals_, payoff, wins))
        pair, sign = _pair(data, strong, weak)
        keep = pair.present
        rounds = _pair_rounds(pair, sign, keep)
        critical = critical_rounds_estimate(rounds, coefficient, draws, 7, confidence)
        simulated = (rounds_to_lead(rounds.ravel(), probability=confidence, matches=LEAD_MATCHES, seed=3)
                     if critical.resolved else None)
        measures.leads.append(Lead(policies[weak], policies[strong], critical, simulated))
        assert pair.seat_payoffs is not None
        share = variance_shares(pair.seat_payoffs[:, keep].transpose(1, 0, 2), _letters(pair))
        measures.shares.append((f"{policies[weak]} -> {policies[strong]}", share))

    measures.beginners = _beginners(policies, chain)
    for beginner_name in measures.beginners:
        beginner = policies.index(beginner_name)
        if beginner == best:
            continue
        learn_pair, learn_sign = _pair(data, best, beginner)
        rounds = _pair_rounds(learn_pair, learn_sign, learn_pair.present)
        odds = {n: match_win_probability(rounds, n, draws=min(draws, 200), seed=20 + n, confidence=confidence)
                for n in match_lengths}
        measures.matches.append(MatchOdds(beginner_name, policies[best], odds))
        for h, _ in reversed(fictive_strength):  # the strongest fictive player (the one used) first
            measures.relative.append(_relative(data, beginner, best, h, zero_sum, draws, confidence))
    if len(chain) >= 2 and chain[-2] not in [policies.index(b) for b in measures.beginners]:
        pair, sign = _pair(data, best, chain[-2])
        rounds = _pair_rounds(pair, sign, pair.present)
        measures.matches.append(MatchOdds(policies[chain[-2]], policies[best], {
            n: match_win_probability(rounds, n, draws=min(draws, 200), seed=40 + n, confidence=confidence)
            for n in match_lengths}))
    if fictive is None or len(chain) < 2:
        measures.warnings.append("relative skill needs at least two fair policies and omniscient in --policies")
    measures.departures = departures(measures)
    return measures


def _head_to_head(data: TournamentData, first: int, second: int, draws: int,
                  confidence: float) -> tuple[int, Estimate, Estimate]:
    """The deals both played, and ``first``'s mean payoff per round minus ``second``'s and its
    share of seatings won minus ``second``'s, each with its interval (bootstrap over deals)."""
    pair, sign = _pair(data, first, second)
    keep = pair.present
    payoff = gap(sign * pair.payoff_diff[keep], np.zeros(int(keep.sum())), draws, 1, confidence)
    wins = gap(_win_gap(pair, sign)[keep], np.zeros(int(keep.sum())), draws, 2, confidence)
    return int(keep.sum()), payoff, wins


def head_to_head(tournament: TournamentData | str | os.PathLike, first: str, second: str, *,
                 confidence: float = 0.95, draws: int = BOOTSTRAP_DRAWS) -> tuple[int, Estimate, Estimate]:
    """``first`` against ``second`` in a tournament folder (each named as the tournament lists
    it): the deals both played, ``first``'s mean payoff per round minus ``second``'s, and its
    share of seatings won minus ``second``'s, each with its interval."""
    data = tournament if isinstance(tournament, TournamentData) else open_tournament(tournament, seatings=True)
    for name in (first, second):
        if name not in data.policies:
            raise KeyError(f"{name} is not one of the tournament's policies ({', '.join(data.policies)})")
    return _head_to_head(data, data.policies.index(first), data.policies.index(second), draws, confidence)


def _beginners(policies: list[str], chain: list[int]) -> list[str]:
    """The headline beginner (greedy) and the extreme one (random) among the fair policies, or the
    weakest measured fair policy when neither plays (never the best)."""
    fair = [policies[i] for i in chain[:-1]]
    out = [next(p for p in fair if _kind(p) == kind) for kind in (HEADLINE_BEGINNER, EXTREME_BEGINNER)
           if any(_kind(p) == kind for p in fair)]
    return out or fair[:1]


def _relative(data: TournamentData, beginner: int, best: int, fictive: int, zero_sum: bool, draws: int,
              confidence: float) -> RelativeSkill:
    policies = data.policies
    learn_pair, learn_sign = _pair(data, best, beginner)
    chance_pair, chance_sign = _pair(data, fictive, best)
    keep = learn_pair.present & chance_pair.present
    zero = np.zeros(int(keep.sum()))
    le_h2h = learn_sign * learn_pair.payoff_diff[keep]
    re_h2h = chance_sign * chance_pair.payoff_diff[keep]
    alone_beginner = _alone(learn_pair, learn_sign, keep) if zero_sum else None
    alone_fictive = _alone(chance_pair, -chance_sign, keep) if zero_sum else None  # the fictive player alone
    if alone_beginner is not None and alone_fictive is not None:
        # Dreef's scale: against best fair players as every opponent; a best fair player's expected
        # payoff among its equals is 0 in a zero-sum game
        le, re, scale = 0.0 - alone_beginner, alone_fictive, "Dreef"
    else:
        le, re, scale = le_h2h, re_h2h, "head to head"
    return RelativeSkill(
        beginner=policies[beginner], best=policies[best], fictive=policies[fictive], deals=int(keep.sum()),
        scale=scale, le=gap(le, zero, draws, 4, confidence), re=gap(re, zero, draws, 5, confidence),
        rs=relative_skill_from_effects(le, re, draws, 6, confidence),
        le_h2h=gap(le_h2h, zero, draws, 4, confidence), re_h2h=gap(re_h2h, zero, draws, 5, confidence),
        rs_h2h=relative_skill_from_effects(le_h2h, re_h2h, draws, 6, confidence),
        le_win=gap(_win_share(learn_pair, learn_sign)[keep], zero, draws, 8, confidence),
        re_win=gap(_win_share(chance_pair, chance_sign)[keep], zero, draws, 9, confidence))


def departures(measures: SkillMeasures) -> list[tuple[str, str, str, str]]:
    """Every way the measures depart from the literature: (what, here, the literature, effect on RS)."""
    out = []
    beginners = " (headline) and ".join(measures.beginners) + (" (the extreme)" if len(measures.beginners) > 1 else "")
    out.append(("beginner", f"a program: {beginners or 'none'}",
                "a person who has just learned the rules (Dreef et al.)",
                "random is weaker than such a person: LE too large, RS(random) too high; greedy takes the obvious "
                "captures a new player takes, so RS(greedy) is the closer one, its bias unknown"))
    out.append(("optimal player", f"the strongest fair policy measured ({measures.best or 'none'})",
                "the optimal player", "LE too small and RE too large: RS too low"))
    count = len(measures.fictive_strength)
    fictive = (f"{measures.fictive}, the strongest of {count} configurations measured" if count > 1
               else f"{measures.fictive} (the only configuration measured; add others to --policies to see how "
                    "much RS moves)" if count else "none")
    out.append(("fictive player", fictive, "a player told the outcome of every chance move in advance",
                "RE is a lower bound on what knowing the cards is worth: RS too high; the range over the "
                "configurations shows how much"))
    if measures.zero_sum and measures.players <= 3:
        opponents = ("the best fair policy in every other seat (exactly half the head-to-head difference with "
                     "two players)" if measures.players == 2 else
                     "the best fair policy in every other seat: the seatings where the beginner (the fictive "
                     "player) sits alone among best fair players")
        out.append(("opponents", opponents, "the same fixed opponents for every player", "none (Dreef's scale)"))
    else:
        reason = ("payoffs are not zero-sum" if not measures.zero_sum
                  else f"with {measures.players} players no seating puts one player alone among the others")
        out.append(("opponents", f"head to head: the stronger's seats minus the weaker's ({reason}); with 3-5 "
                                 "players the LE and RE pairings face different opponents",
                    "the same fixed opponents for every player; Hendrickx, Borm, van der Genugten & Hilbers "
                    "(2008) modify the measure for more than two players (not done here)", "unknown"))
    out.append(("n*", f"lambda = {measures.coefficient:.3f}: ahead with probability {measures.lead_probability:.2f}",
                "Fiedler & Rock leave the significance coefficient lambda free",
                f"n* scales with lambda squared (lambda = 1 gives {1 / measures.coefficient ** 2:.2f} times as many)"))
    out.append(("match odds", "rounds drawn independently from the tournament's, seats at random",
                "a match as played: the winner of a round deals the next", "not part of RS; small, unknown"))
    out.append(("variance shares", "a descriptive split of the variance (deal, policy, rest)",
                "not part of Dreef et al.", "not part of RS"))
    return out


def _cell(estimate: Estimate, digits: int = 3, scale: float = 1.0) -> str:
    if not np.isfinite(estimate.value):
        return "n/a"
    if not np.isfinite(estimate.low):
        return f"{estimate.value * scale:.{digits}f}"
    return (f"{estimate.value * scale:.{digits}f} [{estimate.low * scale:.{digits}f}, "
            f"{estimate.high * scale:.{digits}f}]")


def build_skill_report(tournament: TournamentData | str | os.PathLike, *, confidence: float = 0.95,
                       draws: int = BOOTSTRAP_DRAWS, allow_incomplete: bool = False) -> Report:
    """The skill report of a tournament folder (module docstring)."""
    data = tournament if isinstance(tournament, TournamentData) else open_tournament(
        tournament, allow_incomplete=allow_incomplete, seatings=True)
    m = measure_skill(data, confidence=confidence, draws=draws)
    level = f"{confidence:.0%} percentile bootstrap intervals over deals"
    tables = [_setup_table(data, m)]
    tables.append(Table("skill_strength", "Fair policies by measured strength", pd.DataFrame(
        [(p, _cell(e)) for p, e in reversed(m.strength)], columns=["policy", "payoff against the other fair policies"]),
        f"Each fair policy's mean payoff per round minus its opponent's, head to head, averaged over the other fair "
        f"policies; strongest first ({level}). The strongest is the best fair policy of the measures below."))
    tables.append(Table("skill_gaps", "Gaps along the chain", pd.DataFrame(
        [(f"{w} -> {s}", n, _cell(p), _cell(wr, 1, 100.0)) for w, s, n, p, wr in m.gaps],
        columns=["weaker -> stronger", "deals", "payoff gap per round", "win-rate gap %"]),
        f"Fair policies from the weakest to the strongest measured: the stronger's mean payoff minus the weaker's, "
        f"per round (a deal's seatings averaged), and its share of rounds won minus the weaker's; {level}."))
    if m.fictive_strength:
        tables.append(Table("skill_fictive", "Fictive players (they see the hidden cards)", pd.DataFrame(
            [(p, _cell(e), "yes" if p == m.fictive else "no") for p, e in reversed(m.fictive_strength)],
            columns=["policy", f"payoff against {m.best}", "used"]),
            f"Each configuration that sees the hidden cards against the best fair policy, head to head, per round "
            f"({level}); the strongest is the fictive player of the relative skill, the others give its range."))
    tables.append(_relative_table(m, level))
    tables.append(Table("skill_win_probability", "The effects as win probabilities", pd.DataFrame(
        [(r.beginner, r.fictive, _cell(r.le_win, 1, 100.0), _cell(r.re_win, 1, 100.0)) for r in m.relative],
        columns=["beginner", "fictive", "best fair beats the beginner %", "fictive beats the best fair %"]),
        f"The share of rounds won by the stronger policy's seats in the LE pairing (best fair against the beginner) "
        f"and the RE pairing (fictive against best fair), a drawn round counting half; 50 % means no edge ({level}).",
        keys=["beginner", "fictive"]))
    tables.append(Table("skill_matches", "How often the stronger wins a match", pd.DataFrame(
        [(f"{o.weaker} -> {o.stronger}", *(_cell(o.odds[n], 1, 100.0) for n in sorted(o.odds))) for o in m.matches],
        columns=["weaker -> stronger", *(f"{n}-round match %" for n in sorted(MATCH_LENGTHS))]),
        f"The probability that the stronger policy's payoff over a match of n rounds is above the weaker's (a tie "
        f"counts half), simulated from the tournament's rounds (each a deal and a seating drawn at random); "
        f"{level}, each resample playing its own matches."))
    tables.append(Table("skill_rounds_to_lead", "Rounds until the stronger leads", pd.DataFrame(
        [(f"{lead.weaker} -> {lead.stronger}", _cell(lead.critical.edge, 4), f"{lead.critical.sd:.3f}",
          lead.critical.text(), "unresolved" if not lead.critical.resolved else
          ("never" if lead.simulated is None else f"{lead.simulated:,}")) for lead in m.leads],
        columns=["weaker -> stronger", "edge per round", "sd per round", f"n* (lambda = {m.coefficient:.3f})",
                 "n (simulated)"]),
        f"n* = (lambda sd / edge)^2, lambda = {m.coefficient:.3f}: rounds after which the stronger is ahead with "
        f"probability {confidence:.2f} (Fiedler & Rock, whose lambda is free; n* scales with lambda^2); its interval "
        f"is the formula at the ends of the edge's {level.split(' over')[0]}; unresolved where the edge's interval "
        f"holds 0: n* is then at least the formula at the interval's upper end. simulated: the fewest rounds at which "
        f"{LEAD_MATCHES:,} matches of single rounds drawn from the tournament's put it ahead that often (ties count "
        f"half)."))
    tables.append(Table("skill_variance", "What the outcome depends on", pd.DataFrame(
        [(label, *(f"{100 * share[k]:.1f}" for k in ("deal", "policy", "rest"))) for label, share in m.shares],
        columns=["pairing", "deal %", "policy %", "rest %"]),
        "Shares of the variance of each seat's payoff over the pairing's rounds explained by the cards the seat "
        "is dealt (deal: the mean over seatings of each deal's seat, its position's advantage included) and by "
        "the policy in the seat; rest: how a deal suits one policy more than the other."))
    tables.append(Table("skill_departures", "Departures from the literature", pd.DataFrame(
        m.departures, columns=["part", "here", "the literature", "effect"]),
        "How these measures differ from Dreef, Borm & van der Genugten (2004) and Fiedler & Rock (2009), and which "
        "way each difference pushes the relative skill RS."))
    notices = [f"policy {p}: sees the hidden cards (omniscient, for measurement only): a lower bound on what "
               "knowing the cards is worth, not a fair player" for p, _ in m.fictive_strength]
    return Report(title=f"fudasim skill: {data.label} ({data.manifest.get('game')}, "
                        f"{int(data.manifest['deals']):,} deals)",
                  tables=tables, warnings=m.warnings, notices=notices,
                  metadata={"tournament": str(data.path), "confidence": confidence})


def _setup_table(data: TournamentData, m: SkillMeasures) -> Table:
    present = np.ones(int(data.manifest["deals"]), dtype=bool)
    for pair in data.pairs:
        present &= pair.present
    rows = [("tournament", str(data.path)), ("game", str(data.manifest.get("game"))),
            ("rules", str(data.manifest.get("rules_name"))), ("players", str(data.manifest.get("players"))),
            ("deals", f"{int(present.sum()):,} in every pairing"),
            ("fair policies (weakest first, measured)", " -> ".join(p for p, _ in m.strength)),
            ("best fair policy", m.best or "none"),
            ("beginners", " (headline), ".join(m.beginners) + (" (extreme)" if len(m.beginners) > 1 else "")
             if m.beginners else "none"),
            ("fictive player", m.fictive or "none (add omniscient to --policies)"),
            ("payoffs", "zero-sum" if m.zero_sum else "not zero-sum")]
    return Table("skill_setup", "Skill", pd.DataFrame(rows, columns=["item", "value"]),
                 "The fair policies are ordered by measured strength, whatever the order of --policies.")


def _relative_table(m: SkillMeasures, level: str) -> Table:
    rows: list[tuple[Any, ...]] = []
    for r in m.relative:
        rows.append((r.beginner, r.fictive, r.deals, r.scale, _cell(r.le), _cell(r.re), _cell(r.rs),
                     _cell(r.le_h2h), _cell(r.re_h2h), _cell(r.rs_h2h)))
    ranges = []
    for beginner in m.beginners:
        span = m.rs_range(beginner)
        if span is not None and len(m.fictive_strength) > 1:
            ranges.append(f"RS with {beginner} as beginner ranges {span[0]:.3f} to {span[1]:.3f} over the "
                          f"{len(m.fictive_strength)} fictive players")
    note = (f"RS = LE / (LE + RE) (Dreef, Borm & van der Genugten 2004), best fair policy {m.best}: LE = its expected "
            f"payoff per round minus the beginner's, RE = the fictive player's minus its. scale Dreef: against best "
            f"fair players in every other seat (zero-sum payoffs, 2-3 players); head to head otherwise "
            f"(see Departures). LE, RE, RS h2h: the head-to-head differences (the stronger's seats minus the "
            f"weaker's; twice Dreef's with two players). {level}.")
    if ranges:
        note += " " + "; ".join(ranges) + "."
    return Table("skill_relative", "Relative skill", pd.DataFrame(
        rows, columns=["beginner", "fictive", "deals", "scale", "LE", "RE", "RS", "LE h2h", "RE h2h", "RS h2h"]),
        note, keys=["beginner", "fictive"])
