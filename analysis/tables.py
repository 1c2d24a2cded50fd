"""Report tables: pandas DataFrames computed from a ``RunSummary``.

Column conventions (the renderers rely on them, and they read well in a notebook):

* a rate is three columns ``X_rate``, ``X_low``, ``X_high`` (Wilson interval, fractions in
  [0, 1]) and a flag ``X_small`` (too little data for the interval to mean much, see
  ``analysis.intervals.small_rate_sample``);
* a mean is ``X_mean``, ``X_low``, ``X_high`` (normal interval with the sample standard
  deviation) and, where useful, ``X_sd``;
* a difference is ``X_diff``, ``X_low``, ``X_high``;
* the sample size of a row is in a column named ``n`` or ``rounds`` (``matches``,
  ``rounds_played`` where that is the unit).

Per-seat and per-role numbers are over the rounds that seat (or role) played: in Enshu-bana C
with 4-5 players a seat that dropped out of a round (``active_s`` false) is not in that round's
denominator.  Games without ``active_s`` columns play every seat in every round.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from analysis.intervals import (
    SMALL_SAMPLE_EVENTS,
    SMALL_SAMPLE_ROUNDS,
    mean_interval,
    small_rate_sample,
    two_sided_p_value,
    wilson_interval,
    z_value,
)
from analysis.summary import RunSummary, yaku_in_set
from simcore.games import get_game, known_game_names

__all__ = [
    "Table",
    "QUANTILES",
    "add_rate",
    "add_mean",
    "warn_small",
    "run_overview",
    "outcomes_by_seat",
    "outcomes_by_role",
    "outcomes_by_policy",
    "outcomes_by_seat_order",
    "dealer_advantage",
    "end_reasons",
    "tiebreak_depth",
    "stopping_yaku",
    "yaku_frequencies",
    "score_distribution",
    "round_length",
    "round_length_distribution",
    "match_outcomes",
    "convergence",
    "engine_text",
]

QUANTILES = (0.05, 0.25, 0.5, 0.75, 0.95)
QUANTILE_NAMES = ("p05", "p25", "median", "p75", "p95")

# Tensho's tie-break ladder (docs/tensho.md#a-round, step 6): how far down it a round had to go.
TIEBREAK_DEPTH = {
    "instant_win": (0, "instant win (no scoring)"),
    "yaku": (1, "yaku points"),
    "chaff": (2, "chaff count"),
    "card_value": (3, "card-value sum"),
    "final_tie_rule": (4, "final-tie option"),
    "draw": (4, "final tie: drawn"),
}


@dataclass
class Table:
    """A titled DataFrame with an explanatory note, as shown in every report format."""

    name: str
    title: str
    frame: pd.DataFrame
    note: str = ""
    warnings: list[str] = field(default_factory=list)
    hidden: list[str] = field(default_factory=list)  # kept in JSON/CSV, not shown in text/md/html
    # The columns that say what a row is (its labels).  A text table too wide for the terminal
    # repeats them in every block, so that each row reads on its own.  None: the leading columns
    # of text, up to the first numeric one (at least the first column).
    keys: list[str] | None = None


def add_rate(frame: pd.DataFrame, name: str, successes, trials, confidence: float) -> pd.DataFrame:
    """Add ``name_rate``, ``name_low``, ``name_high``, ``name_small`` (Wilson) to ``frame``."""
    successes = np.asarray(successes, dtype=np.int64)
    trials = np.asarray(trials, dtype=np.int64)
    rate, low, high = wilson_interval(successes, trials, confidence)
    frame[f"{name}_rate"] = np.atleast_1d(rate)
    frame[f"{name}_low"] = np.atleast_1d(low)
    frame[f"{name}_high"] = np.atleast_1d(high)
    frame[f"{name}_small"] = np.atleast_1d(small_rate_sample(successes, trials))
    return frame


def add_mean(frame: pd.DataFrame, name: str, counts, totals, squares, confidence: float) -> pd.DataFrame:
    """Add ``name_mean``, ``name_low``, ``name_high``, ``name_sd``, ``name_small`` to ``frame``."""
    mean, low, high, sd = mean_interval(np.asarray(counts, dtype=np.float64), np.asarray(totals, dtype=np.float64),
                                        np.asarray(squares, dtype=np.float64), confidence)
    frame[f"{name}_mean"] = np.atleast_1d(mean)
    frame[f"{name}_low"] = np.atleast_1d(low)
    frame[f"{name}_high"] = np.atleast_1d(high)
    frame[f"{name}_sd"] = np.atleast_1d(sd)
    frame[f"{name}_small"] = np.atleast_1d(np.asarray(counts) < SMALL_SAMPLE_ROUNDS)
    return frame


def _flagged(frame: pd.DataFrame) -> int:
    return int(sum(frame[c].sum() for c in frame.columns if c.endswith("_small")))


def _warn(table: Table) -> Table:
    flagged = _flagged(table.frame)
    if flagged:
        table.warnings.append(
            f"{table.title}: {flagged} estimate(s) marked * rest on fewer than {SMALL_SAMPLE_ROUNDS} rounds or "
            f"on 1 to {SMALL_SAMPLE_EVENTS - 1} events; their intervals are rough"
        )
    return table


def warn_small(table: Table) -> Table:
    """``table`` with a warning when some of its estimates rest on too little data (those whose
    ``X_small`` flag is set); a game's own tables (``simcore.games.ReportSection``) use it."""
    return _warn(table)


# --- tables -----------------------------------------------------------------------------------

ENGINE_NAMES = {"kernel": "numba kernel", "reference": "pure-Python reference engine"}


def engine_text(engine: object, version: object) -> str:
    """The engine a run played on, as the Run and Tournament tables say it: ``numba kernel,
    engine version 2`` (``engine`` as ``--engine`` names it; ``version`` the rules of play's)."""
    named = ENGINE_NAMES.get(str(engine), None if engine is None else str(engine))
    parts = [named] if named else []
    if version is not None:
        parts.append(f"engine version {version}")
    return ", ".join(parts) or "?"


def _shard_engine(dataset) -> object:
    """``--engine`` of the run, as its shards record it (the manifest keeps only the version)."""
    metadata = dataset.schema.metadata or {}
    try:
        return json.loads(metadata[b"fudasim.run"]).get("engine")
    except (KeyError, ValueError, AttributeError):
        return None


def run_overview(summary: RunSummary) -> Table:
    """What was run: game, rules, options of interest, seed, policies, size."""
    dataset = summary.dataset
    info = dataset.run_info
    options = dataset.options
    rows = [
        ("dataset", str(dataset.path)),
        ("game", dataset.game),
        ("rules", f"{dataset.rules_name} (sha256 {str(info.get('rules_sha256', '?'))[:12]})"),
        ("seed", str(info.get("seed", "?"))),
        ("policies", ", ".join(f"seat {s}: {p}" for s, p in enumerate(dataset.policies))),
        ("rounds", f"{summary.rounds:,}"),
        ("play", "independent rounds" if dataset.rounds_per_match is None
         else f"matches of {dataset.rounds_per_match} rounds"),
        ("engine", engine_text(info.get("engine") or _shard_engine(dataset), info.get("engine_version"))),
    ]
    game = get_game(dataset.game) if dataset.game in known_game_names() else None
    if info.get("summary") is True:  # fudasim run --summary: counts kept, no rows
        kept = ("counts per shard, not rows (a summary run: docs/summary-runs.md); no counts by "
                "seat order")
        if game is not None and game.report_section() is not None:
            kept += f" and none of {game.title}'s own tables"
        rows.append(("kept", kept))
    headline = game.report_options if game is not None else ()
    for key in headline:
        if key in options:
            rows.append((key, str(options[key])))
    if summary.yaku_set_rounds:
        rows.append(("yaku sets played", ", ".join(f"set {k}: {v:,} rounds" for k, v in summary.yaku_set_rounds.items())))
    frame = pd.DataFrame(rows, columns=["item", "value"])
    return Table("run", "Run", frame)


def outcomes_by_seat(summary: RunSummary, confidence: float = 0.95) -> Table:
    """Win, loss and draw rates of each seat over the rounds it played."""
    policies = summary.dataset.policies
    frame = pd.DataFrame({
        "seat": np.arange(len(summary.seats)),
        "policy": policies,
        "rounds_played": [c.rounds for c in summary.seats],
    })
    for outcome in ("win", "loss", "draw"):
        attribute = {"win": "wins", "loss": "losses", "draw": "draws"}[outcome]
        add_rate(frame, outcome, [getattr(c, attribute) for c in summary.seats], frame["rounds_played"],
                 confidence)
    note = (f"Share of the rounds each seat played that it won, lost or drew (denominator: rounds played"
            f"{_of_rounds(summary)}); {confidence:.0%} Wilson intervals.")
    return _warn(Table("outcomes_by_seat", "Outcomes by seat", frame, note))


def _of_rounds(summary: RunSummary) -> str:
    """A remark for notes: whether seats sat out rounds (Enshu-bana dropout) or played them all."""
    if all(c.rounds == summary.rounds for c in summary.seats):
        return f", every seat played all {summary.rounds:,} rounds"
    return f", of {summary.rounds:,} rounds; a seat that sat a round out is not counted in it"


def outcomes_by_role(summary: RunSummary, confidence: float = 0.95) -> Table | None:
    """Win, loss and draw rates of the dealer and of the non-dealer seats."""
    if summary.dealer.rounds == 0:
        return None
    roles = [("dealer", summary.dealer), ("non-dealer", summary.non_dealer)]
    frame = pd.DataFrame({"role": [r for r, _ in roles], "rounds_played": [c.rounds for _, c in roles]})
    add_rate(frame, "win", [c.wins for _, c in roles], frame["rounds_played"], confidence)
    add_rate(frame, "loss", [c.losses for _, c in roles], frame["rounds_played"], confidence)
    add_rate(frame, "draw", [c.draws for _, c in roles], frame["rounds_played"], confidence)
    note = ("Denominator: rounds played in the role. Each round counts once for the dealer, if the dealer "
            "played it, and once for each non-dealer seat that played it (seat-rounds).")
    return _warn(Table("outcomes_by_role", "Outcomes by role: dealer versus non-dealer", frame, note))


def outcomes_by_policy(summary: RunSummary, confidence: float = 0.95) -> Table:
    """Outcomes pooled over the seats that played each policy."""
    groups: dict[str, list[int]] = {}
    for seat, policy in enumerate(summary.dataset.policies):
        groups.setdefault(policy, []).append(seat)
    rows = []
    for policy, seats in groups.items():
        counts = [summary.seats[s] for s in seats]
        rows.append((policy, ", ".join(map(str, seats)), sum(c.rounds for c in counts),
                     sum(c.wins for c in counts), sum(c.losses for c in counts), sum(c.draws for c in counts)))
    raw = pd.DataFrame(rows, columns=["policy", "seats", "rounds_played", "wins", "losses", "draws"])
    frame = raw[["policy", "seats", "rounds_played"]].copy()
    for outcome, column in (("win", "wins"), ("loss", "losses"), ("draw", "draws")):
        add_rate(frame, outcome, raw[column], raw["rounds_played"], confidence)
    note = ("Pooled over the seats that played the policy; denominator: the seat-rounds those seats "
            "played. When one policy holds both seats of a two-seat game its win and loss rates are "
            "equal by construction.")
    return _warn(Table("outcomes_by_policy", "Outcomes by policy", frame, note))


def outcomes_by_seat_order(summary: RunSummary, confidence: float = 0.95) -> Table | None:
    """By place in turn order from the round's dealer: how often the seat plays, wins and earns.

    One row per place ``k`` (0: the dealer, then each seat in turn order): rounds played and their
    share of all rounds (participation, below 100% where seats sit rounds out), the win and draw
    rates over the rounds played, and the mean payoff per round of the run (a round sat out counts
    with the payoff the game records for it) and per round played.  None without a dealer column
    or for a summary run (which keeps no counts by seat order).
    """
    if summary.seat_order is None:
        return None
    orders = summary.seat_order
    frame = pd.DataFrame({
        "order": np.arange(len(orders)),
        "who": ["dealer" if k == 0 else f"dealer + {k}" for k in range(len(orders))],
        "rounds": summary.rounds,
        "rounds_played": [c.rounds for c in orders],
    })
    add_rate(frame, "played", frame["rounds_played"], frame["rounds"], confidence)
    add_rate(frame, "win", [c.wins for c in orders], frame["rounds_played"], confidence)
    add_rate(frame, "draw", [c.draws for c in orders], frame["rounds_played"], confidence)
    hidden: list[str] = []
    if summary.payoffs is not None:
        for name, attribute in (("payoff", "payoff_all"), ("payoff_played", "payoff_played")):
            sums = [getattr(c, attribute).sums() for c in orders]
            add_mean(frame, name, [n for n, _, _ in sums], [t for _, t, _ in sums], [q for _, _, q in sums],
                     confidence)
        hidden += ["payoff_sd", "payoff_played_sd"]
    sits_out = any(c.rounds != summary.rounds for c in orders)
    if not sits_out:  # every place plays every round: participation and per-round-played say nothing new
        hidden += ["rounds_played", "played_rate", "played_low", "played_high", "played_small"]
        hidden += [c for c in frame.columns if c.startswith("payoff_played")]
    note = (f"Each place in turn order from the round's dealer (dealer + k: the seat k places after the dealer), "
            f"whoever sits there. played: the share of all {summary.rounds:,} rounds that place took part in; "
            f"win, draw: over the rounds it played; payoff: mean payoff per round of the run")
    note += (", a round sat out counting as the payoff recorded for it (0); payoff played: per round it played"
             if sits_out else "")
    note += f". {confidence:.0%} Wilson intervals for rates, normal intervals for means."
    return _warn(Table("outcomes_by_seat_order", "Outcomes by seat order (dealer first, then turn order)", frame,
                       note, hidden=hidden, keys=["order", "who"]))


def dealer_advantage(summary: RunSummary, confidence: float = 0.95) -> Table | None:
    """Dealer's win rate minus a non-dealer seat's, per round and (in match play) per match."""
    if summary.dealer.rounds == 0:
        return None
    z = z_value(confidence)
    rows = []
    n = summary.dealer.rounds
    total, squares = summary.dealer_advantage_sums
    mean, low, high, sd = mean_interval(n, total, squares, confidence)
    rows.append(("round", "dealer, rounds the dealer played", n, mean, low, high, _p_from(mean, sd, n)))
    matches = summary.matches
    if matches is not None and matches.first_dealer_matches and len(summary.seats) == 2:
        m = matches.first_dealer_matches
        wins = matches.first_dealer_wins
        losses = m - wins - matches.first_dealer_draws
        total = wins - losses
        squares = wins + losses
        mean, low, high, sd = mean_interval(m, total, squares, confidence)
        rows.append(("match", "first dealer of the match", m, mean, low, high, _p_from(mean, sd, m)))
    frame = pd.DataFrame(rows, columns=["level", "who", "n", "advantage_diff", "advantage_low",
                                        "advantage_high", "p_value"])
    frame["advantage_small"] = frame["n"] < SMALL_SAMPLE_ROUNDS
    frame.insert(2, "kind", "rate")
    note = (f"Win rate of the dealer minus that of one non-dealer seat, over the rounds the dealer played "
            f"(n; per round 1{{dealer wins}} - 1{{a non-dealer wins}} / (a - 1), a = seats playing), with a "
            f"{confidence:.0%} normal interval (z = {z:.2f}) and the p-value of 'no advantage'.")
    return _warn(Table("dealer_advantage", "Dealer's advantage", frame, note))


def _p_from(mean: float, sd: float, n: int) -> float:
    if not np.isfinite(sd) or sd == 0 or n < 2:
        return float("nan") if mean == 0 or not np.isfinite(sd) else 0.0
    return float(two_sided_p_value(mean / (sd / np.sqrt(n))))


def end_reasons(summary: RunSummary, confidence: float = 0.95) -> Table | None:
    """How rounds end: every end reason the dataset declares, with its share of rounds."""
    if not summary.end_reasons:
        return None
    names = list(summary.end_reasons)
    game = summary.dataset.game
    meanings = get_game(game).end_reason_meanings if game in known_game_names() else {}
    frame = pd.DataFrame({
        "end_reason": names,
        "meaning": [meanings.get(n, "") for n in names],
        "rounds": [summary.end_reasons[n] for n in names],
    })
    add_rate(frame, "share", frame["rounds"], np.full(len(frame), summary.rounds), confidence)
    frame = frame.rename(columns={"rounds": "count"})
    frame.insert(3, "rounds", summary.rounds)
    return _warn(Table("end_reasons", "How rounds end", frame,
                       "Share of all rounds ending for each reason (count of rounds / rounds).",
                       keys=["end_reason"]))


def tiebreak_depth(summary: RunSummary, confidence: float = 0.95) -> Table | None:
    """How far down Tensho's scoring ladder (yaku, chaff, card values, final tie) rounds went."""
    if not summary.end_reasons or not any(r in summary.end_reasons for r in ("chaff", "card_value")):
        return None
    depth_counts: dict[tuple[int, str], int] = {}
    other = 0
    for reason, count in summary.end_reasons.items():
        if reason in TIEBREAK_DEPTH:
            key = TIEBREAK_DEPTH[reason]
            if reason == "final_tie_rule":
                key = (4, "final tie (option decided or drawn)")
            if reason == "draw":
                key = (4, "final tie (option decided or drawn)")
            depth_counts[key] = depth_counts.get(key, 0) + count
        else:
            other += count
    rows = sorted(depth_counts.items())
    if other:
        rows.append(((5, "other end reasons"), other))
    frame = pd.DataFrame({
        "depth": [k[0] for k, _ in rows],
        "decided_by": [k[1] for k, _ in rows],
        "count": [v for _, v in rows],
        "rounds": summary.rounds,
    })
    add_rate(frame, "share", frame["count"], frame["rounds"], confidence)
    decided = sum(v for k, v in rows if 1 <= k[0] <= 4)
    note = (f"Depth 1 = yaku points decided, 2 = chaff, 3 = card values, 4 = nothing did (final tie). "
            f"{decided:,} rounds reached scoring.")
    return _warn(Table("tiebreak_depth", "Tie-break depth", frame, note))


def _yaku_labels(summary: RunSummary) -> dict[int, tuple[str, str, str]]:
    return {y.bit: (y.key, y.name, y.english) for y in summary.dataset.yaku}


def stopping_yaku(summary: RunSummary, confidence: float = 0.95) -> Table | None:
    """Rounds ended at once (instant win, uchikiri), by the yaku that ended them."""
    if not summary.stopping_yaku:
        return None
    labels = _yaku_labels(summary)
    rows = []
    for reason, counts in summary.stopping_yaku.items():
        stopped = summary.end_reasons.get(reason, 0)
        for bit in np.flatnonzero(counts).tolist():
            key, name, english = labels.get(bit, (f"bit{bit}", f"bit {bit}", ""))
            rows.append((reason, key, name, english, int(counts[bit]), stopped))
    if not rows:
        return None
    frame = pd.DataFrame(rows, columns=["end_reason", "key", "yaku", "english", "count", "stopped"])
    frame.insert(4, "rounds", summary.rounds)
    add_rate(frame, "of_rounds", frame["count"], frame["rounds"], confidence)
    add_rate(frame, "of_stopped", frame["count"], frame["stopped"], confidence)
    note = "Share of all rounds, and share of the rounds that ended this way."
    if not summary.stopping_bits_known:
        note += " The stopping yaku are not known from the rules: every yaku the winner held is counted."
    return _warn(Table("stopping_yaku", "Rounds ended at once, by yaku", frame, note))


def yaku_frequencies(summary: RunSummary, confidence: float = 0.95) -> Table | None:
    """Each yaku's frequency per seat and for any seat, over the rounds in which it could be made.

    A seat's rate is over the rounds that seat played (and whose yaku set contains the yaku);
    the ``any`` rate is over all such rounds.
    """
    if summary.yaku_seat is None or summary.yaku_any is None:  # both or neither
        return None
    yaku = summary.dataset.yaku
    seats = len(summary.yaku_seat)
    members = yaku_in_set(summary.dataset) if summary.yaku_set_rounds else None

    def in_play(rounds_by_set: dict[int, int], bit: int, members: dict[int, int]) -> int:
        return sum(count for yaku_set, count in rounds_by_set.items() if (members.get(yaku_set, 0) >> bit) & 1)

    rows = []
    for info in yaku:
        if members is not None:
            rounds = in_play(summary.yaku_set_rounds, info.bit, members)
            if rounds == 0:
                continue
            played = [in_play(summary.seat_yaku_set_rounds[s], info.bit, members) for s in range(seats)]
        else:
            rounds = summary.rounds
            played = [c.rounds for c in summary.seats]
        row = [info.key, info.name, info.english, rounds, *played]
        row += [int(counts[info.bit]) for counts in summary.yaku_seat]
        row.append(int(summary.yaku_any[info.bit]))
        rows.append(row)
    played_columns = [f"seat{s}_rounds_played" for s in range(seats)]
    count_columns = [f"seat{s}_count" for s in range(seats)] + ["any_count"]
    raw = pd.DataFrame(rows, columns=["key", "yaku", "english", "rounds", *played_columns, *count_columns])
    frame = raw[["key", "yaku", "english", "rounds"]].copy()
    for s in range(seats):
        add_rate(frame, f"seat{s}", raw[f"seat{s}_count"], raw[f"seat{s}_rounds_played"], confidence)
    add_rate(frame, "any", raw["any_count"], raw["rounds"], confidence)
    for column in played_columns + count_columns:
        frame[column] = raw[column]
    note = ("Share of the rounds a seat played in which it completed the yaku (after supersession), and "
            "of all rounds in which any seat did; 'rounds' counts the rounds whose yaku set contains it. "
            "Instant-win yaku count whenever completed.")
    if any(c.rounds != summary.rounds for c in summary.seats):
        note += " Rounds played per seat: " + ", ".join(
            f"seat {s} {c.rounds:,}" for s, c in enumerate(summary.seats)) + f" of {summary.rounds:,}."
    return _warn(Table("yaku_frequencies", "Yaku frequencies", frame, note,
                       hidden=["key", *played_columns, *count_columns]))


def score_distribution(summary: RunSummary, confidence: float = 0.95) -> Table:
    """Mean (with interval), standard deviation and quantiles of scores and payoffs per seat."""
    rows = []
    measures = [("score", summary.scores)]
    if summary.payoffs is not None:
        measures.append(("payoff", summary.payoffs))
    for measure, histograms in measures:
        for seat, histogram in enumerate(histograms):
            n, total, squares = histogram.sums()
            quantiles = histogram.quantiles((0.0, *QUANTILES, 1.0))
            rows.append((measure, seat, n, total, squares, *quantiles))
    raw = pd.DataFrame(rows, columns=["measure", "seat", "rounds_played", "total", "squares", "min",
                                      *QUANTILE_NAMES, "max"])
    frame = raw[["measure", "seat", "rounds_played"]].copy()
    add_mean(frame, "value", raw["rounds_played"], raw["total"], raw["squares"], confidence)
    for column in ("min", *QUANTILE_NAMES, "max"):
        frame[column] = raw[column]
    note = (f"Each seat over the rounds it played{_of_rounds(summary)}. Mean with a {confidence:.0%} normal "
            f"interval (sample standard deviation); quantiles are exact (inverted CDF) from integer histograms.")
    return _warn(Table("score_distribution", "Scores and payoffs", frame, note))


def round_length(summary: RunSummary, confidence: float = 0.95) -> Table | None:
    """Turns begun per round: mean with interval and quantiles."""
    if summary.round_length is None:
        return None
    n, total, squares = summary.round_length.sums()
    quantiles = summary.round_length.quantiles((0.0, *QUANTILES, 1.0))
    frame = pd.DataFrame({"measure": ["turns begun (end_turn)"], "n": [n]})
    add_mean(frame, "turns", [n], [total], [squares], confidence)
    for name, value in zip(("min", *QUANTILE_NAMES, "max"), quantiles, strict=True):
        frame[name] = value
    return _warn(Table("round_length", "Round length", frame, "Turns begun when the round ended."))


def round_length_distribution(summary: RunSummary, confidence: float = 0.95) -> Table | None:
    """Rounds by the turn they ended on."""
    if summary.round_length is None:
        return None
    counts = summary.round_length.as_series()
    frame = pd.DataFrame({"end_turn": counts.index.astype(np.int64), "count": counts.to_numpy(),
                          "rounds": summary.rounds})
    add_rate(frame, "share", frame["count"], frame["rounds"], confidence)
    return _warn(Table("round_length_distribution", "Rounds by the turn they ended on", frame))


def match_outcomes(summary: RunSummary, confidence: float = 0.95) -> Table | None:
    """Match win, loss and draw rates by seat and for the match's first dealer."""
    matches = summary.matches
    if matches is None or matches.matches == 0:
        return None
    rows = []
    for seat, wins in enumerate(matches.seat_wins):
        losses = matches.matches - wins - matches.draws
        rows.append((f"seat {seat}", matches.matches, wins, losses, matches.draws))
    if matches.first_dealer_matches:
        m = matches.first_dealer_matches
        draws = matches.first_dealer_draws
        rows.append(("first dealer", m, matches.first_dealer_wins, m - matches.first_dealer_wins - draws, draws))
    raw = pd.DataFrame(rows, columns=["who", "matches", "wins", "losses", "draws"])
    frame = raw[["who", "matches"]].copy()
    for outcome, column in (("win", "wins"), ("loss", "losses"), ("draw", "draws")):
        add_rate(frame, outcome, raw[column], raw["matches"], confidence)
    n, total, squares = matches.rounds_per_match.sums()
    mean = total / n if n else float("nan")
    note = f"{matches.matches:,} matches, {mean:.2f} rounds per match on average; a match is drawn on equal points."
    if matches.unpaired_ends:
        note += f" {matches.unpaired_ends} matches lacked their first round and have no first dealer."
    return _warn(Table("match_outcomes", "Match outcomes", frame, note))


def convergence(summary: RunSummary, confidence: float = 0.95, rows: int | None = None) -> Table:
    """Seat 0's and the dealer's win rate as rounds accumulate, with Wilson intervals.

    ``rows`` keeps about that many checkpoints (1-2-5 steps) for a printed table.
    """
    trace = summary.convergence
    if rows is not None and len(trace) > rows:
        wanted = [v for d in range(1, 19) for v in (10**d, 2 * 10**d, 5 * 10**d)]
        keep = trace["rounds"].isin(wanted) | (trace.index == len(trace) - 1)
        trace = trace[keep]
    frame = pd.DataFrame({"rounds": trace["rounds"].to_numpy()})
    frame["seat0_rounds_played"] = trace["seat0_rounds"].to_numpy()
    add_rate(frame, "seat0_win", trace["seat0_wins"], trace["seat0_rounds"], confidence)
    hidden = []
    if summary.dealer.rounds:
        frame["dealer_rounds_played"] = trace["dealer_rounds"].to_numpy()
        add_rate(frame, "dealer_win", trace["dealer_wins"], trace["dealer_rounds"], confidence)
    if (frame["seat0_rounds_played"] == frame["rounds"]).all():
        hidden.append("seat0_rounds_played")
    if "dealer_rounds_played" in frame and (frame["dealer_rounds_played"] == frame["rounds"]).all():
        hidden.append("dealer_rounds_played")
    note = ("Running estimates in dataset order after the first 'rounds' rounds; each rate over the rounds "
            "seat 0 (or the dealer) played among them. The interval narrows as 1/sqrt(rounds).")
    if _flagged(frame):  # the first rows always are: no warning for them, but the mark is explained
        note += (f" * marks an estimate that rests on fewer than {SMALL_SAMPLE_ROUNDS} rounds or on 1 to "
                 f"{SMALL_SAMPLE_EVENTS - 1} events: its interval is rough.")
    return Table("convergence", "How the estimates converge", frame, note, hidden=hidden)
