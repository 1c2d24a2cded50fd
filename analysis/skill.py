"""Skill against luck, from players of different strength on the same deals.

Every measure takes per-deal numbers (a deal is played by every policy, in every seating, so
deal luck is shared) and gives a point estimate with a percentile bootstrap interval over deals
(the deals are resampled, with replacement, as whole units).

* ``gap``: the mean per-round payoff difference of two policies on the same deals.
* ``relative_skill`` (Dreef, Borm & van der Genugten, 2004): ``RS = LE / (LE + RE)`` with the
  learning effect ``LE = E[best fair policy] - E[beginner]`` and the random effect
  ``RE = E[omniscient] - E[best fair policy]``, each ``E`` a mean payoff against the same
  opponents on the same deals. 0: only knowing the cards helps (pure luck for a fair player);
  1: a fair player does as well as one who knows the cards.
* ``critical_rounds`` (Fiedler & Rock, 2009): ``n* = (lambda sigma / E)^2``, the rounds after
  which a per-round edge ``E`` (standard deviation ``sigma``) puts the better player ahead with
  probability ``Phi(lambda)``; Fiedler and Rock leave the significance coefficient ``lambda``
  free. ``critical_rounds_estimate`` adds the interval that the edge's bootstrap interval gives,
  and says where the edge is not resolved (its interval holds 0: then only a lower bound on
  ``n*`` is known); ``rounds_to_lead`` finds the same number by simulating matches of ``n``
  rounds drawn from the observed rounds.
* ``match_win_probability``: the chance that the better player is ahead after a match of ``n``
  rounds (ties count half), simulated from the observed rounds, with a bootstrap interval over
  deals.
* ``variance_shares``: the share of the variance of the seats' payoffs ``y[deal, seating, seat]``
  explained by the cards each seat is dealt (the deal) and by the policy in the seat, in a
  balanced layout whose sums of squares add up, with the rest, to the total.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["CriticalRounds", "Estimate", "critical_rounds", "critical_rounds_estimate", "gap",
           "match_win_probability", "relative_skill", "relative_skill_from_effects", "rounds_to_lead",
           "variance_shares"]

Z_ONE_SIDED_95 = 1.6448536269514722  # Phi^-1(0.95): "ahead with probability 0.95"


@dataclass(frozen=True)
class Estimate:
    """A point estimate with its 95% interval (``nan`` bounds when it cannot be bootstrapped)."""

    value: float
    low: float
    high: float

    def contains(self, x: float) -> bool:
        """Whether ``x`` lies in the interval."""
        return bool(self.low <= x <= self.high)


def _bootstrap(statistic, columns: list[np.ndarray], draws: int, seed: int, confidence: float = 0.95) -> Estimate:
    """``statistic(*columns)`` and its percentile interval (``confidence``) over deals resampled whole."""
    n = len(columns[0])
    value = float(statistic(*columns))
    if n < 2 or draws <= 0:
        return Estimate(value, float("nan"), float("nan"))
    rng = np.random.default_rng(seed)
    stats = np.empty(draws)
    for b in range(draws):
        pick = rng.integers(0, n, n)
        stats[b] = statistic(*(c[pick] for c in columns))
    stats = stats[np.isfinite(stats)]
    if len(stats) == 0:
        return Estimate(value, float("nan"), float("nan"))
    tail = 50 * (1 - confidence)
    low, high = np.percentile(stats, [tail, 100 - tail])
    return Estimate(value, float(low), float(high))


def gap(a: np.ndarray, b: np.ndarray, draws: int = 2000, seed: int = 0, confidence: float = 0.95) -> Estimate:
    """Mean of ``a - b`` (float64 per-deal mean payoffs of two policies on the same deals), with its interval."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return _bootstrap(lambda x, y: np.mean(x - y), [a, b], draws, seed, confidence)


def relative_skill_from_effects(learning: np.ndarray, chance: np.ndarray, draws: int = 2000, seed: int = 0,
                                confidence: float = 0.95) -> Estimate:
    """``RS = mean(LE) / (mean(LE) + mean(RE))`` from float64 per-deal learning and random effects
    (each a payoff difference measured on the same deals), with its interval."""
    cols = [np.asarray(learning, dtype=np.float64), np.asarray(chance, dtype=np.float64)]

    def rs(le: np.ndarray, re: np.ndarray) -> float:
        total = np.mean(le) + np.mean(re)
        return float(np.mean(le) / total) if total != 0 else float("nan")

    return _bootstrap(rs, cols, draws, seed, confidence)


def _rs(beginner: np.ndarray, best: np.ndarray, omniscient: np.ndarray) -> float:
    learning = np.mean(best) - np.mean(beginner)
    chance = np.mean(omniscient) - np.mean(best)
    total = learning + chance
    return float(learning / total) if total != 0 else float("nan")


def relative_skill(beginner: np.ndarray, best: np.ndarray, omniscient: np.ndarray,
                   draws: int = 2000, seed: int = 0) -> tuple[Estimate, Estimate, Estimate]:
    """``(RS, LE, RE)`` from float64 per-deal mean payoffs of the beginner, the best fair policy and the
    omniscient one, each against the same opponents on the same deals (module docstring)."""
    cols = [np.asarray(x, dtype=np.float64) for x in (beginner, best, omniscient)]
    rs = _bootstrap(_rs, cols, draws, seed)
    le = _bootstrap(lambda x, y, z: np.mean(y) - np.mean(x), cols, draws, seed)
    re = _bootstrap(lambda x, y, z: np.mean(z) - np.mean(y), cols, draws, seed)
    return rs, le, re


def critical_rounds(diff: np.ndarray, z: float = Z_ONE_SIDED_95) -> float:
    """Fiedler and Rock's ``n* = (z sigma / E)^2`` from float64 per-round payoff differences ``diff``
    (better minus worse); ``inf`` when there is no edge."""
    diff = np.asarray(diff, dtype=np.float64)
    edge = float(np.mean(diff))
    if edge <= 0:
        return float("inf")
    sigma = float(np.std(diff, ddof=1))
    return (z * sigma / edge) ** 2


@dataclass(frozen=True)
class CriticalRounds:
    """Fiedler and Rock's ``n*`` with the coefficient it uses and what the data resolve.

    ``value`` is ``(coefficient sd / edge)^2`` at the point estimate of the edge (``inf`` when it
    is not positive); ``low`` and ``high`` the same formula at the upper and lower bound of the
    edge's interval. ``resolved`` is False when the edge's interval holds 0: the data then say
    only that ``n*`` is at least ``low`` (the bound from the edge's upper end; ``inf`` when the
    whole interval is at or below 0).
    """

    coefficient: float
    edge: Estimate
    sd: float
    value: float
    low: float
    high: float
    resolved: bool

    def text(self) -> str:
        """``1,234 [800, 2,100]``; ``unresolved (at least 750)`` where the edge's interval holds 0;
        ``never (no edge)`` where the whole interval is at or below 0."""
        if self.resolved:
            return f"{self.value:,.0f} [{self.low:,.0f}, {self.high:,.0f}]"
        if np.isfinite(self.low):
            return f"unresolved (at least {self.low:,.0f})"
        if self.low == float("inf") or not np.isfinite(self.value):
            return "never (no edge)"
        return f"{self.value:,.0f} (no interval)"


def critical_rounds_estimate(rounds: np.ndarray, coefficient: float = Z_ONE_SIDED_95, draws: int = 2000,
                             seed: int = 0, confidence: float = 0.95) -> CriticalRounds:
    """``n*`` (Fiedler & Rock) from float64 ``rounds[deal, seating]`` (better minus worse, one round
    each), with the interval its edge's percentile bootstrap over deals gives (``CriticalRounds``)."""
    rounds = np.asarray(rounds, dtype=np.float64)
    if rounds.ndim == 1:
        rounds = rounds[:, None]
    per_deal = rounds.mean(axis=1)
    edge = gap(per_deal, np.zeros(len(per_deal)), draws, seed, confidence)
    single = rounds.ravel()
    sd = float(np.std(single, ddof=1)) if len(single) > 1 else float("nan")

    def formula(e: float) -> float:
        return (coefficient * sd / e) ** 2 if e > 0 else float("inf")

    value = formula(edge.value)
    resolved = bool(np.isfinite(edge.low) and edge.low > 0)
    if resolved:
        return CriticalRounds(coefficient, edge, sd, value, formula(edge.high), formula(edge.low), True)
    low = formula(edge.high) if np.isfinite(edge.high) else float("nan")
    return CriticalRounds(coefficient, edge, sd, value, low, float("inf"), False)


def match_win_probability(rounds: np.ndarray, n: int, matches: int = 20_000, draws: int = 200,
                          draw_matches: int = 2000, seed: int = 0, confidence: float = 0.95) -> Estimate:
    """P(the better player is ahead after ``n`` rounds), ties counting one half.

    ``rounds`` is float64 ``[deal, seating]``: the better player's payoff minus the worse's in each
    round. A match is ``n`` rounds, each a deal and a seating drawn at random (with replacement)
    from those observed; the point estimate plays ``matches`` matches. Its interval is a
    percentile bootstrap over deals: ``draws`` times the deals are resampled whole and
    ``draw_matches`` matches played from the resample (which adds their own noise: the interval
    is a little conservative).
    """
    rounds = np.asarray(rounds, dtype=np.float64)
    if rounds.ndim == 1:
        rounds = rounds[:, None]
    deals, seatings = rounds.shape
    rng = np.random.default_rng(seed)

    def play(pool: np.ndarray, count: int) -> float:
        totals = np.zeros(count)
        left = n
        while left:  # in slices, so memory stays bounded for long matches
            take = min(left, max(1, 4_000_000 // count))
            picked = pool[rng.integers(0, len(pool), (count, take))]
            totals += rounds[picked, rng.integers(0, seatings, (count, take))].sum(axis=1)
            left -= take
        return float(np.mean(totals > 1e-9) + 0.5 * np.mean(np.abs(totals) <= 1e-9))

    value = play(np.arange(deals), matches)
    if deals < 2 or draws <= 0:
        return Estimate(value, float("nan"), float("nan"))
    stats = np.array([play(np.asarray(rng.integers(0, deals, deals)), draw_matches) for _ in range(draws)])
    tail = 50 * (1 - confidence)
    low, high = np.percentile(stats, [tail, 100 - tail])
    return Estimate(value, float(low), float(high))


def _lead_probability(diff: np.ndarray, n: int, matches: int, rng: np.random.Generator) -> float:
    """P(the sum of ``n`` rounds drawn from ``diff`` is positive), ties counting one half."""
    totals = np.zeros(matches)
    left = n
    while left:  # in slices, so memory stays bounded for long matches
        take = min(left, max(1, 4_000_000 // matches))
        totals += diff[rng.integers(0, len(diff), (matches, take))].sum(axis=1)
        left -= take
    return float(np.mean(totals > 0) + 0.5 * np.mean(totals == 0))


def rounds_to_lead(diff: np.ndarray, probability: float = 0.95, matches: int = 4000, seed: int = 0,
                   limit: int = 10_000_000) -> int | None:
    """The fewest rounds after which the better policy is ahead with ``probability``, by
    simulating ``matches`` matches of rounds drawn (with replacement) from ``diff`` (float64
    per-round differences, better minus worse); None when
    even ``limit`` rounds do not reach it."""
    diff = np.asarray(diff, dtype=np.float64)
    if np.mean(diff) <= 0:
        return None
    rng = np.random.default_rng(seed)
    high = 1
    while _lead_probability(diff, high, matches, rng) < probability:
        high *= 2
        if high > limit:
            return None
    low = high // 2
    while high - low > max(1, low // 50):  # to 2%: the simulation's own noise is about that
        mid = (low + high) // 2
        if _lead_probability(diff, mid, matches, rng) >= probability:
            high = mid
        else:
            low = mid
    return high


def variance_shares(y: np.ndarray, policy_of: np.ndarray) -> dict[str, float]:
    """Shares of the variance of the seats' payoffs explained by the deal and by the policies.

    ``y`` is float64 ``y[deal, seating, seat]``: each seat's payoff in each seating's round of
    each deal; ``policy_of`` is an int ``[seating, seat]`` array naming the policy in each seat
    (a balanced layout: over the seatings, each policy holds each seat equally often). The model
    is ``y = mean + luck[deal, seat] + skill[policy] + rest``: ``deal`` is the share of the total
    sum of squares explained by the cards a seat is dealt (the deal-and-seat cell means, which
    include the seat's own advantage), ``policy`` the share explained by which policy plays,
    ``rest`` everything else (how a deal suits one policy more than another). They add to 1.
    """
    y = np.asarray(y, dtype=np.float64)
    policy_of = np.asarray(policy_of)
    if y.ndim != 3 or policy_of.shape != y.shape[1:]:
        raise ValueError("variance_shares needs y[deal, seating, seat] and policy_of[seating, seat]")
    grand = y.mean()
    total = float(((y - grand) ** 2).sum())
    if total == 0:
        return {"deal": 0.0, "policy": 0.0, "rest": 0.0}
    n_seatings = y.shape[1]
    luck = float(n_seatings * ((y.mean(axis=1) - grand) ** 2).sum())
    skill = 0.0
    for policy in np.unique(policy_of):
        cells = y[:, policy_of == policy]
        skill += cells.size * (cells.mean() - grand) ** 2
    shares = {"deal": luck / total, "policy": float(skill) / total}
    shares["rest"] = 1.0 - shares["deal"] - shares["policy"]
    return shares
