"""The report of a tournament folder (``fudasim tournament``, ``fudasim report TOURNAMENT``).

For every pairing of policies A (listed first) and B the runs of its seatings played the same
deals (rounds ``0 .. deals - 1`` of one seed), so every statistic is paired deal by deal:

* per deal ``d`` and seating ``k``, A's payoff is the mean payoff of the seats A holds and B's
  the mean of B's seats; the deal's *payoff difference* is the mean over the seatings of
  ``A - B``.  The table gives its mean over deals with a normal 95% interval from the per-deal
  values (``mean +- z s / sqrt(n)``, n deals), and the paired z test's p-value;
* A *wins* a round when the round's winner sits in one of A's seats; the deal's win rate of A is
  the share of its seatings A won (likewise B, and draws: no winner).  Rates and the gap ``A -
  B`` get the same per-deal normal interval.  Over the seatings of a pairing both policies hold
  the same number of seats, so the two win rates compare fairly in every player count.

Bradley-Terry ratings
---------------------
Policy ``i`` has strength ``pi_i`` and beats ``j`` in a round with probability ``pi_i / (pi_i +
pi_j)``.  Every round of a pairing counts once: a win for the winner's policy, and a drawn round
counts half a win for each.  With ``w_ij`` the (half-)wins of ``i`` against ``j`` and ``n_ij`` the
rounds they played, the maximum-likelihood strengths are found by the minorise-maximise
iteration ``pi_i <- W_i / sum_j n_ij / (pi_i + pi_j)`` (Hunter 2004), normalised to a geometric
mean of 1.  ``PRIOR_DRAWS`` virtual drawn rounds are added to every pairing so that a policy
winning (or losing) every round keeps a finite rating.  Ratings are shown on the Elo scale,
``400 log10(pi_i)`` (a difference of 400 is 10 to 1 odds), centred on 0.  Their intervals are
percentile bootstrap intervals: deals are resampled with replacement (the same resampled deals
for every pairing, since all pairings played the same deals; beyond ``BOOTSTRAP_BLOCKS`` deals,
blocks of consecutive deals) and the ratings refitted.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from analysis.intervals import mean_interval, two_sided_p_value, z_value
from analysis.reader import AnalysisError, RunDataset, open_run
from analysis.render import Figure, Report
from analysis.tables import Table, engine_text
from simcore.dataset import DatasetError
from simcore.policies import sees_hidden
from simcore.run.tournament import read_tournament

__all__ = ["PairOutcomes", "TournamentData", "ELO_SCALE", "PRIOR_DRAWS", "BOOTSTRAP_REPLICATES",
           "per_deal_outcomes", "open_tournament", "pair_table", "pair_wins", "bradley_terry",
           "bootstrap_ratings", "ratings_table", "BOOTSTRAP_BLOCKS", "build_tournament_report", "pairing_heatmap",
           "decision_times"]

ELO_SCALE = 400.0 / math.log(10.0)
PRIOR_DRAWS = 1.0
BOOTSTRAP_REPLICATES = 200
BOOTSTRAP_BLOCKS = 4096


@dataclass
class PairOutcomes:
    """The per-deal results of one pairing (policy ``first`` is A, ``second`` is B).

    Attributes
    ----------
    first, second : int
        Indices of A and B in the tournament's policy list.
    seatings : list of str
        The seatings played (one letter per seat).
    present : bool array, shape (deals,)
        Deals with a row in every seating's run (all of them unless read incomplete).
    payoff_diff : float64 array, shape (deals,)
        Mean over the seatings of (mean payoff of A's seats) - (mean payoff of B's seats).
    a_wins, b_wins, draws : int64 arrays, shape (deals,)
        Seatings of the deal won by A, won by B, and drawn (no winner).
    seat_payoffs : float64 array, shape (seatings, deals, seats), or None
        Every seat's payoff in each seating's round of each deal (read only when asked for:
        ``open_tournament(..., seatings=True)``).
    """

    first: int
    second: int
    seatings: list[str]
    present: np.ndarray
    payoff_diff: np.ndarray
    a_wins: np.ndarray
    b_wins: np.ndarray
    draws: np.ndarray
    seat_payoffs: np.ndarray | None = None

    @property
    def deals(self) -> int:
        """Deals present in every seating."""
        return int(self.present.sum())


@dataclass
class TournamentData:
    """A tournament folder read for analysis: its manifest and every pairing's per-deal results."""

    path: Path
    manifest: dict[str, Any]
    pairs: list[PairOutcomes]
    incomplete: list[str] = field(default_factory=list)

    @property
    def policies(self) -> list[str]:
        """The policies, in the order the tournament lists them."""
        return list(self.manifest["policies"])

    @property
    def label(self) -> str:
        """The folder's name."""
        return self.path.name or str(self.path)


def per_deal_outcomes(seatings: list[str], winners: np.ndarray,
                      payoffs: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per-deal results of a pairing from its seatings' rows.

    Parameters
    ----------
    seatings : list of str
        One letter (A or B) per seat for each seating.
    winners : int array, shape (seatings, deals)
        The winning seat of each deal in each seating (negative: no winner).
    payoffs : int or float array, shape (seatings, deals, seats)
        Every seat's payoff.

    Returns
    -------
    payoff_diff : float64 array, shape (deals,)
    a_wins, b_wins, draws : int64 arrays, shape (deals,)
    """
    winners = np.asarray(winners)
    n_seatings, deals = winners.shape
    totals = [np.zeros(deals, dtype=np.float64)] + [np.zeros(deals, dtype=np.int64) for _ in range(3)]
    for k, seating in enumerate(seatings):
        for total, part in zip(totals, _seating_outcomes(seating, winners[k], payoffs[k]), strict=True):
            total += part
    diff, a_wins, b_wins, draws = totals
    return diff / n_seatings, a_wins, b_wins, draws


def _seating_outcomes(seating: str, winners: np.ndarray,
                      payoffs: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """One seating's per-deal payoff difference (A's mean seat minus B's), A won, B won, drawn."""
    a_seats = np.array([seat for seat, letter in enumerate(seating) if letter == "A"])
    b_seats = np.array([seat for seat, letter in enumerate(seating) if letter == "B"])
    payoffs = np.asarray(payoffs, dtype=np.float64)
    diff = payoffs[:, a_seats].mean(axis=1) - payoffs[:, b_seats].mean(axis=1)
    return diff, np.isin(winners, a_seats), np.isin(winners, b_seats), np.asarray(winners) < 0


def _read_run(path: Path, deals: int, seats: int, allow_incomplete: bool,
              notes: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The ``winner`` and ``payoff_*`` columns of one run by round, and which rounds are present."""
    present = np.zeros(deals, dtype=bool)
    winners = np.full(deals, -1, dtype=np.int64)
    payoffs = np.zeros((deals, seats), dtype=np.float64)
    try:
        run = open_run(path, allow_incomplete=allow_incomplete)
    except AnalysisError:
        if allow_incomplete:
            notes.append(f"{path.name}: missing or unreadable; its pairing is left out")
            return winners, payoffs, present
        raise
    if run.incomplete:
        notes.append(f"{path.name}: {run.incomplete}")
    return deal_results(run, deals, seats)


def deal_results(run: RunDataset, deals: int, seats: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A run's ``winner`` (int64[deals], -1 where none) and ``payoff_*`` (float64[deals, seats]) by
    round (deal) ``0 .. deals - 1``, and which rounds it holds (bool[deals]); a round beyond
    ``deals`` is ignored."""
    present = np.zeros(deals, dtype=bool)
    winners = np.full(deals, -1, dtype=np.int64)
    payoffs = np.zeros((deals, seats), dtype=np.float64)
    columns = ["round", "winner", *[f"payoff_{seat}" for seat in range(seats)]]
    for batch in run.iter_batches(columns):
        rounds = batch["round"].astype(np.int64)
        keep = (rounds >= 0) & (rounds < deals)
        rounds = rounds[keep]
        present[rounds] = True
        winners[rounds] = batch["winner"][keep]
        for seat in range(seats):
            payoffs[rounds, seat] = batch[f"payoff_{seat}"][keep]
    return winners, payoffs, present


def open_tournament(path: str | os.PathLike, allow_incomplete: bool = False, seatings: bool = False) -> TournamentData:
    """Read a tournament folder: every run's winners and payoffs, as per-deal pairing results.

    Parameters
    ----------
    path : path
        A folder written by ``fudasim tournament``.
    allow_incomplete : bool
        Read an unfinished or damaged tournament: each pairing keeps the deals present in every
        one of its seatings' intact shards (``TournamentData.incomplete`` says what is left out).
    seatings : bool
        Also keep every seat's payoff in each seating's round of each deal (``PairOutcomes.seat_payoffs``).

    Raises
    ------
    AnalysisError
        Not a tournament, unfinished or damaged (unless ``allow_incomplete``), unreadable.
    """
    path = Path(path)
    try:
        manifest = read_tournament(path)
    except DatasetError as error:
        raise AnalysisError(str(error)) from None
    notes: list[str] = []
    if manifest.get("kind") == "sweep":
        raise AnalysisError(f"{path}: a sweep, not a tournament (fudasim report reads it)")
    if manifest.get("complete") is not True:
        if not allow_incomplete:
            raise AnalysisError(f"{path}: the tournament is not complete; finish it with `fudasim tournament ... "
                                f"--resume` or read what is there with --allow-incomplete")
        notes.append("the tournament is not complete")
    deals = int(manifest["deals"])
    seats = int(manifest["players"])
    by_pair: dict[tuple[int, int], list[dict[str, Any]]] = {}
    for entry in manifest["runs"]:
        by_pair.setdefault((int(entry["pair"][0]), int(entry["pair"][1])), []).append(entry)
    pairs = []
    for (first, second), entries in by_pair.items():
        # one run in memory at a time: its outcomes are added into the pairing's per-deal sums
        present = np.ones(deals, dtype=bool)
        diff = np.zeros(deals, dtype=np.float64)
        a_wins, b_wins, draws = (np.zeros(deals, dtype=np.int64) for _ in range(3))
        kept = np.zeros((len(entries), deals, seats)) if seatings else None
        for k, entry in enumerate(entries):
            winners, payoffs, run_present = _read_run(path / entry["name"], deals, seats, allow_incomplete, notes)
            present &= run_present
            if kept is not None:
                kept[k] = payoffs
            for total, part in zip((diff, a_wins, b_wins, draws),
                                   _seating_outcomes(entry["seating"], winners, payoffs), strict=True):
                total += part
            del winners, payoffs
        diff /= len(entries)
        for array in (diff, a_wins, b_wins, draws):
            array[~present] = 0
        pairs.append(PairOutcomes(first, second, [e["seating"] for e in entries], present, diff, a_wins, b_wins,
                                  draws, kept))
    return TournamentData(path, manifest, pairs, notes)


def _mean_columns(frame: pd.DataFrame, name: str, suffix: str, values: list[np.ndarray],
                  confidence: float) -> None:
    """``name{suffix}``, ``name_low``, ``name_high`` from per-deal values (normal interval)."""
    means, lows, highs = [], [], []
    for v in values:
        v = np.asarray(v, dtype=np.float64)
        mean, low, high, _ = mean_interval(len(v), float(v.sum()), float((v * v).sum()), confidence)
        means.append(mean)
        lows.append(low)
        highs.append(high)
    frame[f"{name}{suffix}"] = means
    frame[f"{name}_low"] = lows
    frame[f"{name}_high"] = highs


def pair_table(pairs: list[PairOutcomes], policies: list[str], confidence: float = 0.95) -> Table:
    """Each pairing's mean payoff difference and win rates, with paired intervals over deals."""
    frame = pd.DataFrame({
        "policy_a": [policies[p.first] for p in pairs],
        "policy_b": [policies[p.second] for p in pairs],
        "deals": [p.deals for p in pairs],
        "rounds": [p.deals * len(p.seatings) for p in pairs],
    })
    diffs = [p.payoff_diff[p.present] for p in pairs]
    _mean_columns(frame, "payoff_a_minus_b", "_diff", diffs, confidence)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = [d.mean() / (d.std(ddof=1) / math.sqrt(len(d))) if len(d) > 1 else np.nan for d in diffs]
    frame["p_value"] = [float(two_sided_p_value(v)) if np.isfinite(v) else (0.0 if np.isinf(v) else np.nan)
                        for v in z]
    n_seatings = [len(p.seatings) for p in pairs]
    _mean_columns(frame, "a_wins", "_rate", [p.a_wins[p.present] / s for p, s in zip(pairs, n_seatings, strict=True)],
                  confidence)
    _mean_columns(frame, "b_wins", "_rate", [p.b_wins[p.present] / s for p, s in zip(pairs, n_seatings, strict=True)],
                  confidence)
    _mean_columns(frame, "draws", "_rate", [p.draws[p.present] / s for p, s in zip(pairs, n_seatings, strict=True)],
                  confidence)
    _mean_columns(frame, "win_gap", "_rate",
                  [(p.a_wins[p.present] - p.b_wins[p.present]) / s for p, s in zip(pairs, n_seatings, strict=True)],
                  confidence)
    note = (f"Policy A against policy B on the same deals, each deal played once per seating. payoff a minus b: "
            f"mean over deals of A's payoff per seat minus B's (per round, the deal's seatings averaged); "
            f"a wins, b wins, draws: share of rounds won by a seat of A, of B, or by no one; win gap: a wins - "
            f"b wins. {confidence:.0%} intervals paired over deals (normal, from the per-deal values); "
            f"p value: paired z test of no payoff difference.")
    return Table("pairs", "Pairings", frame, note)


def pair_wins(pairs: list[PairOutcomes], n_policies: int,
              weights: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The win matrix of the pairings: ``wins[i, j]`` rounds ``i`` won against ``j`` (a draw counts
    half to each), and ``rounds[i, j]`` rounds they played, optionally with per-deal ``weights``
    (float64 or int64, shape (deals,); the bootstrap's resampling counts).

    Returns float64 arrays of shape (n_policies, n_policies).
    """
    wins = np.zeros((n_policies, n_policies), dtype=np.float64)
    rounds = np.zeros((n_policies, n_policies), dtype=np.float64)
    for p in pairs:
        w = p.present.astype(np.float64) if weights is None else weights * p.present
        a = float(w @ (p.a_wins + 0.5 * p.draws))
        b = float(w @ (p.b_wins + 0.5 * p.draws))
        wins[p.first, p.second] += a
        wins[p.second, p.first] += b
        rounds[p.first, p.second] += a + b
        rounds[p.second, p.first] += a + b
    return wins, rounds


def bradley_terry(wins: np.ndarray, prior_draws: float = PRIOR_DRAWS, tolerance: float = 1e-12,
                  max_iterations: int = 100_000) -> np.ndarray:
    """Bradley-Terry log-strengths from a win matrix, by Hunter's (2004) MM iteration.

    Parameters
    ----------
    wins : float64 array, shape (m, m)
        ``wins[i, j]``: rounds ``i`` won against ``j`` (draws already counted half to each).
    prior_draws : float
        Virtual drawn rounds added to every pair that played (half a win each way), so that a
        policy that won or lost everything keeps a finite strength; 0 gives the plain maximum
        likelihood (infinite when a policy never wins or never loses).
    tolerance, max_iterations : float, int
        The iteration stops when no log-strength moves by more than ``tolerance``.

    Returns
    -------
    float64 array, shape (m,)
        Natural-log strengths ``log pi_i``, centred on mean 0 (times ``ELO_SCALE``: Elo points).
    """
    wins = np.asarray(wins, dtype=np.float64)
    played = (wins + wins.T) > 0
    wins = wins + np.where(played, prior_draws / 2.0, 0.0)
    np.fill_diagonal(wins, 0.0)
    games = wins + wins.T
    total_wins = wins.sum(axis=1)
    strength = np.ones(len(wins))
    with np.errstate(divide="ignore", invalid="ignore"):
        for _ in range(max_iterations):
            denominator = (games / (strength[:, None] + strength[None, :])).sum(axis=1)
            updated = np.where(denominator > 0, total_wins / denominator, strength)
            positive = updated[updated > 0]
            if len(positive):
                updated = updated / math.exp(float(np.log(positive).mean()))
            done = np.allclose(np.log(updated), np.log(strength), rtol=0.0, atol=tolerance, equal_nan=True)
            strength = updated
            if done:
                break
        log_strength = np.log(strength)
    finite = np.isfinite(log_strength)
    if finite.any():
        log_strength = log_strength - log_strength[finite].mean()
    return log_strength


def bootstrap_ratings(pairs: list[PairOutcomes], n_policies: int, replicates: int = BOOTSTRAP_REPLICATES,
                      seed: int = 0, prior_draws: float = PRIOR_DRAWS) -> np.ndarray:
    """Bradley-Terry log-strengths refitted on ``replicates`` resamples of the deals.

    Every replicate draws the deals with replacement once, for all pairings together (they
    played the same deals).  Beyond ``BOOTSTRAP_BLOCKS`` deals, the deals are cut into that many
    blocks of consecutive deals and the blocks are resampled (deals are independent, so the
    spread is the same, at a cost that does not grow with the deals).  Returns float64 of shape
    (replicates, n_policies).
    """
    if not pairs:
        return np.zeros((0, n_policies))
    deals = len(pairs[0].present)
    rng = np.random.default_rng(seed)
    # Deals are independent: resampling blocks of consecutive deals (each block's sums at once)
    # resamples the same variation as single deals, at the cost of the number of blocks.
    blocks = min(deals, BOOTSTRAP_BLOCKS)
    block_of = np.arange(deals, dtype=np.int64) * blocks // deals
    sums = np.array([np.bincount(block_of, weights=(wins_of + 0.5 * p.draws) * p.present, minlength=blocks)
                     for p in pairs for wins_of in (p.a_wins, p.b_wins)])  # [2 * pair + (0: A, 1: B), block]
    out = np.empty((replicates, n_policies), dtype=np.float64)
    for replicate in range(replicates):
        weights = np.bincount(rng.integers(0, blocks, blocks), minlength=blocks).astype(np.float64)
        totals = sums @ weights
        wins = np.zeros((n_policies, n_policies), dtype=np.float64)
        for k, p in enumerate(pairs):
            wins[p.first, p.second] += totals[2 * k]
            wins[p.second, p.first] += totals[2 * k + 1]
        out[replicate] = bradley_terry(wins, prior_draws)
    return out


def ratings_table(data: TournamentData, confidence: float = 0.95, replicates: int = BOOTSTRAP_REPLICATES) -> Table:
    """Bradley-Terry rating of every policy (Elo scale) with bootstrap intervals, best first."""
    policies = data.policies
    wins, rounds = pair_wins(data.pairs, len(policies))
    rating = bradley_terry(wins) * ELO_SCALE
    samples = bootstrap_ratings(data.pairs, len(policies), replicates, int(data.manifest.get("seed", 0)))
    samples = samples * ELO_SCALE
    tail = (1.0 - confidence) / 2.0 * 100.0
    low = np.percentile(samples, tail, axis=0) if len(samples) else np.full(len(policies), np.nan)
    high = np.percentile(samples, 100.0 - tail, axis=0) if len(samples) else np.full(len(policies), np.nan)
    played = rounds.sum(axis=1)
    score = wins.sum(axis=1)
    frame = pd.DataFrame({
        "policy": policies,
        "rating": rating,
        "rating_low": low,
        "rating_high": high,
        "rounds": played.astype(np.int64),
        "score_share": np.where(played > 0, score / np.maximum(played, 1), np.nan),
    })
    frame = frame.sort_values("rating", ascending=False, kind="stable").reset_index(drop=True)
    note = (f"Bradley-Terry strengths fitted to every pairing's rounds (a win counts 1 for the winner's policy, "
            f"a draw 1/2 to each; {PRIOR_DRAWS:g} virtual draw per pairing keeps ratings finite), on the Elo "
            f"scale (400 points: 10 to 1 odds), centred on 0; {confidence:.0%} percentile bootstrap intervals "
            f"over {replicates} resamples of the deals. score share: (wins + draws/2) / rounds over all its "
            f"pairings.")
    return Table("ratings", "Bradley-Terry ratings", frame, note)


def _matrix_tables(data: TournamentData) -> tuple[Table, Table]:
    """The pairing matrix: mean payoff difference and score share of the row policy against the column."""
    policies = data.policies
    m = len(policies)
    payoff = np.full((m, m), np.nan)
    share = np.full((m, m), np.nan)
    for p in data.pairs:
        if not p.deals:
            continue
        diff = float(p.payoff_diff[p.present].mean())
        payoff[p.first, p.second], payoff[p.second, p.first] = diff, 0.0 - diff  # never -0.0
        total = p.deals * len(p.seatings)
        a = float((p.a_wins + 0.5 * p.draws)[p.present].sum()) / total
        share[p.first, p.second], share[p.second, p.first] = a, 1.0 - a
    labels = [f"{k}: {name}" for k, name in enumerate(policies)]
    columns = [str(k) for k in range(m)]
    payoff_frame = pd.DataFrame(payoff, columns=columns)
    payoff_frame.insert(0, "policy", labels)
    share_frame = pd.DataFrame(np.round(share * 100.0, 2), columns=columns)
    share_frame.insert(0, "policy", labels)
    return (Table("matrix_payoff", "Pairing matrix: mean payoff difference per round (row minus column)",
                  payoff_frame, "Columns are the policies by number; intervals are in the pairings table."),
            Table("matrix_score", "Pairing matrix: score share of the row policy (%)", share_frame,
                  "(wins + draws/2) / rounds of the row policy against the column policy."))


def _overview(data: TournamentData) -> Table:
    manifest = data.manifest
    players = int(manifest["players"])
    rows = [
        ("tournament", str(data.path)),
        ("game", str(manifest.get("game"))),
        ("rules", f"{manifest.get('rules_name')} (sha256 {str(manifest.get('rules_sha256', '?'))[:12]})"),
        ("players", str(players)),
        ("seed", str(manifest.get("seed"))),
        ("deals", f"{int(manifest['deals']):,} (rounds 0..{int(manifest['deals']) - 1} of the seed, "
                  f"the same in every pairing and seating)"),
        ("seatings", ", ".join(manifest["seatings"])),
        ("policies", ", ".join(f"{k}: {name}" for k, name in enumerate(manifest["policies"]))),
        ("runs", f"{len(manifest['runs'])} ({len(data.pairs)} pairings x {len(manifest['seatings'])} seatings)"),
        ("engine", engine_text(manifest.get("engine"), manifest.get("engine_version"))),
    ]
    for key, value in sorted((manifest.get("option_overrides") or {}).items()):
        rows.append((key, str(value)))
    return Table("tournament", "Tournament", pd.DataFrame(rows, columns=["item", "value"]))


def _throughput_tables(data: TournamentData) -> tuple[Table, Table]:
    """Rounds per second of each pairing's runs, and of the runs each policy took part in."""
    manifest = data.manifest
    timing = manifest.get("timing") or {}
    policies = data.policies
    pair_rounds: dict[tuple[int, int], list[float]] = {}
    policy_rounds = np.zeros(len(policies))
    policy_seconds = np.zeros(len(policies))
    for entry in manifest["runs"]:
        spent = timing.get(entry["name"])
        if not isinstance(spent, dict):
            continue
        rounds, seconds = float(spent.get("rounds", 0)), float(spent.get("seconds", 0.0))
        key = (int(entry["pair"][0]), int(entry["pair"][1]))
        total = pair_rounds.setdefault(key, [0.0, 0.0])
        total[0] += rounds
        total[1] += seconds
        for index in key:
            policy_rounds[index] += rounds
            policy_seconds[index] += seconds
    keys = sorted(pair_rounds)
    pair_frame = pd.DataFrame({
        "policy_a": [policies[a] for a, _ in keys],
        "policy_b": [policies[b] for _, b in keys],
        "rounds_timed": [int(pair_rounds[k][0]) for k in keys],
        "seconds": [round(pair_rounds[k][1], 3) for k in keys],
        "rounds_per_second": [round(pair_rounds[k][0] / pair_rounds[k][1]) if pair_rounds[k][1] > 0 else np.nan
                              for k in keys],
    })
    decisions, per_decision = decision_times(manifest, len(policies))
    policy_frame = pd.DataFrame({
        "policy": policies,
        "rounds_timed": policy_rounds.astype(np.int64),
        "seconds": np.round(policy_seconds, 3),
        "rounds_per_second": np.round(np.where(policy_seconds > 0,
                                               policy_rounds / np.maximum(policy_seconds, 1e-300), np.nan)),
        "decisions_timed": decisions,
        "us_per_decision": np.round(per_decision, 1),
    })
    note = (f"Rounds computed per second of wall time by the runs ({manifest.get('engine')} engine, threads as "
            f"run), from the tournament manifest's timings (rounds computed when the runs were played or resumed).")
    return (Table("throughput_pairs", "Throughput per pairing", pair_frame, note),
            Table("throughput_policies", "Throughput per policy (the runs it took part in)", policy_frame,
                  "A pairing's rounds and seconds count for both of its policies; the slower policy of a "
                  "pairing sets its rate. us_per_decision: microseconds per decision with two or more "
                  "options, timed decision by decision on one thread of the kernel over the first rounds "
                  "of the policy's first run (decisions_timed of them)."))


def decision_times(manifest: dict, n_policies: int) -> tuple[np.ndarray, np.ndarray]:
    """Each policy's timed decisions (int64) and microseconds per decision (float64, NaN where not
    timed: another engine, an older tournament, no cycle counter), from ``decision_time`` of a
    tournament manifest."""
    decisions = np.zeros(n_policies, dtype=np.int64)
    per_decision = np.full(n_policies, np.nan)
    entries = manifest.get("decision_time")
    if isinstance(entries, list) and len(entries) == n_policies:
        for index, entry in enumerate(entries):
            if not isinstance(entry, dict):
                continue
            count = int(entry.get("decisions") or 0)
            decisions[index] = count
            seconds = entry.get("seconds")
            if count > 0 and isinstance(seconds, (int, float)):
                per_decision[index] = 1e6 * float(seconds) / count
    return decisions, per_decision


def pairing_heatmap(data: TournamentData) -> bytes:
    """PNG of the pairing matrix: score share and mean payoff difference, row policy against column."""
    from matplotlib.figure import Figure as MatplotlibFigure

    from analysis.plots import to_png

    payoff_table, share_table = _matrix_tables(data)
    m = len(data.policies)
    figure = MatplotlibFigure(figsize=(5.0 + 2.2 * m, 1.6 + 0.75 * m))
    for position, (table, title, centre, cmap) in enumerate(
            ((share_table, "score share of row vs column (%)", 50.0, "RdBu"),
             (payoff_table, "mean payoff difference per round (row - column)", 0.0, "PuOr"))):
        axes = figure.add_subplot(1, 2, position + 1)
        values = table.frame[[str(k) for k in range(m)]].to_numpy(dtype=np.float64)
        finite = values[np.isfinite(values)]
        spread = float(np.max(np.abs(finite - centre))) if len(finite) else 1.0
        spread = spread if spread > 0 else 1.0
        image = axes.imshow(np.ma.masked_invalid(values), cmap=cmap, vmin=centre - spread, vmax=centre + spread)
        for i in range(m):
            for j in range(m):
                if np.isfinite(values[i, j]):
                    strong = abs(values[i, j] - centre) > 0.6 * spread  # a dark cell: white text
                    text = f"{values[i, j]:.1f}" if centre == 50.0 else f"{values[i, j]:.3g}"
                    axes.text(j, i, text, ha="center", va="center", fontsize=8,
                              color="white" if strong else "black")
        axes.set_xticks(range(m), [str(k) for k in range(m)])
        axes.set_yticks(range(m), [f"{k}: {name}"[:28] for k, name in enumerate(data.policies)], fontsize=8)
        axes.set_xlabel("column policy")
        axes.set_title(title, fontsize=9)
        figure.colorbar(image, ax=axes, shrink=0.8)
    return to_png(figure)


def build_tournament_report(tournament: TournamentData | str | os.PathLike, *, confidence: float = 0.95,
                            figures: bool = False, allow_incomplete: bool = False,
                            replicates: int = BOOTSTRAP_REPLICATES) -> Report:
    """The report of a tournament folder: pairings, ratings, the pairing matrix, throughput.

    Parameters
    ----------
    tournament : TournamentData or path
        A folder written by ``fudasim tournament`` (or one already read with ``open_tournament``).
    confidence : float
        Nominal coverage of every interval.
    figures : bool
        Also draw the heat map of the pairing matrix (for the HTML report).
    allow_incomplete : bool
        Read an unfinished or damaged tournament (see ``open_tournament``).
    replicates : int
        Bootstrap resamples of the deals for the rating intervals.
    """
    if not isinstance(tournament, TournamentData):
        from simcore.run.sweep import is_sweep

        if is_sweep(tournament):
            from analysis.sweep import build_sweep_report

            return build_sweep_report(tournament, confidence=confidence, figures=figures,
                                      allow_incomplete=allow_incomplete)
        tournament = open_tournament(tournament, allow_incomplete=allow_incomplete)
    data = tournament
    z_value(confidence)  # refuses a bad level before any work
    payoff_matrix, share_matrix = _matrix_tables(data)
    throughput_pairs, throughput_policies = _throughput_tables(data)
    tables = [_overview(data), pair_table(data.pairs, data.policies, confidence),
              ratings_table(data, confidence, replicates), share_matrix, payoff_matrix, throughput_pairs,
              throughput_policies]
    warnings = list(data.incomplete)
    deals = min((p.deals for p in data.pairs), default=0)
    if deals < 1000:
        warnings.append(f"only {deals:,} deals per pairing: every interval is wide")
    title = (f"fudasim tournament: {data.label} ({data.manifest.get('game')}, {len(data.policies)} policies, "
             f"{int(data.manifest['deals']):,} deals)")
    notices = [f"policy {p}: sees the hidden cards (omniscient, for measurement only): its results are not a "
               "fair player's" for p in data.policies if sees_hidden(str(p))]
    report = Report(title=title, tables=tables, warnings=warnings, notices=notices, incomplete=list(data.incomplete),
                    metadata={"tournament": str(data.path), "confidence": confidence,
                              "manifest": {k: v for k, v in data.manifest.items() if k != "runs"}})
    if figures:
        report.figures = [Figure("pairing_heatmap", "The pairing matrix: score share and mean payoff difference "
                                                    "of the row policy against the column policy",
                                 pairing_heatmap(data), table="matrix_score")]
    return report
