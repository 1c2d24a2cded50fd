"""``fudasim rescore``: decide every round again under another card-value table or chaff set.

The dataset stores each seat's capture mask, so the tie-breaks of docs/tensho.md#a-round can be
applied again without simulating: yaku points are unchanged (yaku depend only on the captured
cards), the chaff count becomes ``popcount(captured & chaff_mask)`` and the card-value sum the sum
of the new table over the captured cards.  The decision then follows the game's tie-break chain
(``simcore.games.TieBreakChain``; Tensho's ``RoundState.score`` in the reference engine) exactly:

1. more yaku points wins (reason ``yaku``);
2. else, unless the chain counts values only (Tensho: ``tensho.no_yaku_tiebreak = values_only``)
   and both have 0 points, more chaff
   wins (``chaff``);
3. else a higher card-value sum wins (``card_value``);
4. else the final-tie rule (Tensho: ``tensho.final_tie``): the dealer or the non-dealer wins (``final_tie_rule``), or the
   round is drawn (``draw``).

Rounds that ended with an instant win never change winner.  Rescoring keeps every decision as
played: a policy that looks at card values (``greedy``) or rules that pick captures by card value
might have played differently under the other table, and in match play a changed winner would
change later dealers; the report says so.  A game whose rounds no such chain decides (Enshu-bana)
cannot be rescored.
"""

from __future__ import annotations

import itertools
import os
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from analysis.intervals import mcnemar_test, moments_from_sums, z_value
from analysis.reader import AnalysisError, RunDataset, open_run
from analysis.render import Report, hidden_notices
from analysis.tables import Table, add_rate
from simcore.games import get_game, known_game_names

__all__ = ["Alternative", "RescoreRules", "codes_to_reference", "parse_alternatives", "rescore_run",
           "rescore_batch", "rescore_rounds", "rules_of", "sum_over_mask"]

N_SEATS = 2
# The end reasons the chain decides (codes here are this module's own; a dataset's are mapped by name).
END_REASONS = ("yaku", "chaff", "card_value", "draw", "instant_win", "final_tie_rule")
INSTANT = END_REASONS.index("instant_win")
REASON_CODE = {name: code for code, name in enumerate(END_REASONS)}


@dataclass(frozen=True)
class Alternative:
    """A scoring variant: a card-value table and a chaff set, by their names in the rules file."""

    card_values: str
    chaff_set: str

    @property
    def label(self) -> str:
        """How tables name this alternative: card-value table and chaff set."""
        return f"{self.card_values} / chaff {self.chaff_set}"


def sum_over_mask(masks: np.ndarray, card_values: np.ndarray) -> np.ndarray:
    """Sum of ``card_values[id]`` over the set bits of each uint64 mask.

    Eight 256-entry byte tables: one lookup per byte instead of one test per bit.

    Parameters
    ----------
    masks : uint64[n]
    card_values : int[<=64]

    Returns
    -------
    int64[n]
    """
    values = np.zeros(64, dtype=np.int64)
    values[: len(card_values)] = card_values
    byte = np.arange(256)
    bits = (byte[:, None] >> np.arange(8)[None, :]) & 1  # [256, 8]
    tables = np.ascontiguousarray((bits @ values.reshape(8, 8).T).T)  # [8, 256]: row k sums byte k
    as_bytes = np.ascontiguousarray(masks, dtype="<u8").view(np.uint8).reshape(-1, 8)
    total = np.zeros(len(as_bytes), dtype=np.int64)
    for k in range(8):
        total += np.take(tables[k], as_bytes[:, k])
    return total


@dataclass
class RescoreRules:
    """What a dataset's rules offer a rescore: its card-value tables and chaff sets (each as an
    int64[64] over card ids), how its tie-break chain decides, and the table and set it played."""

    values: dict[str, np.ndarray]
    chaff: dict[str, np.ndarray]
    values_only: bool
    final_tie: str
    original: Alternative
    captures_by_value: bool = False


def rules_of(dataset: RunDataset) -> RescoreRules:
    """The rescore view of ``dataset``'s rules.

    Raises
    ------
    AnalysisError
        The dataset's game does not decide rounds by yaku points, chaff and card values.
    """
    chain = get_game(dataset.game).tie_break_chain(dataset.rules(required=True)) \
        if dataset.game in known_game_names() else None
    if chain is None:
        raise AnalysisError(f"{dataset.path}: rescore needs rounds decided by yaku points, chaff and card values; "
                            f"this dataset's game {dataset.game!r} does not decide them so")
    values = {name: np.asarray(table, dtype=np.int64) for name, table in chain.card_value_tables.items()}
    chaff = {}
    for name, mask in chain.chaff_sets.items():
        chaff[name] = np.array([(mask >> i) & 1 for i in range(64)], dtype=np.int64)
    return RescoreRules(values, chaff, chain.values_only, chain.final_tie, Alternative(chain.card_values, chain.chaff_set),
                  captures_by_value=chain.captures_by_value)


def rescore_batch(batch: dict[str, np.ndarray], card_values: np.ndarray, chaff_values: np.ndarray,
                  values_only: bool, final_tie: str, instant_code: int = INSTANT) -> dict[str, np.ndarray]:
    """Decide a batch of rounds again.

    Parameters
    ----------
    batch : dict of arrays
        ``captured_0/1`` (uint64), ``yaku_points_0/1``, ``dealer``, ``winner`` and ``end_reason``
        (codes; ``instant_code`` marks instant wins, which keep their winner).
    card_values, chaff_values : int64[64]
        Value of each card id; 1 for the chaff cards and 0 otherwise.

    Returns
    -------
    dict with ``winner`` (int64), ``end_reason`` (int64 codes of ``END_REASONS``),
    ``card_points_0/1`` and ``chaff_0/1``.
    """
    points = [batch[f"yaku_points_{s}"].astype(np.int64) for s in range(N_SEATS)]
    chaff = [sum_over_mask(batch[f"captured_{s}"], chaff_values) for s in range(N_SEATS)]
    values = [sum_over_mask(batch[f"captured_{s}"], card_values) for s in range(N_SEATS)]
    dealer = batch["dealer"].astype(np.int64)
    n = len(dealer)
    winner = np.full(n, -1, dtype=np.int64)
    reason = np.full(n, REASON_CODE["draw"], dtype=np.int64)
    undecided = np.ones(n, dtype=bool)

    def settle(where: np.ndarray, who: np.ndarray, why: str) -> None:
        nonlocal undecided
        winner[where] = who[where]
        reason[where] = REASON_CODE[why]
        undecided = undecided & ~where

    settle(undecided & (points[0] != points[1]), np.where(points[0] > points[1], 0, 1), "yaku")
    chaff_counts = ~(values_only & (points[0] == 0))
    settle(undecided & chaff_counts & (chaff[0] != chaff[1]), np.where(chaff[0] > chaff[1], 0, 1), "chaff")
    settle(undecided & (values[0] != values[1]), np.where(values[0] > values[1], 0, 1), "card_value")
    if final_tie == "dealer_wins":
        settle(undecided.copy(), dealer, "final_tie_rule")
    elif final_tie == "non_dealer_wins":
        settle(undecided.copy(), 1 - dealer, "final_tie_rule")
    instant = batch["end_reason"].astype(np.int64) == instant_code
    winner[instant] = batch["winner"][instant]
    reason[instant] = instant_code
    out = {"winner": winner, "end_reason": reason}
    for s in range(N_SEATS):
        out[f"card_points_{s}"] = values[s]
        out[f"chaff_{s}"] = chaff[s]
    return out


RESCORE_COLUMNS = ["round", "winner", "end_reason", "dealer"] + [
    f"{name}_{s}" for name in ("captured", "yaku_points", "chaff", "card_points") for s in range(N_SEATS)
]


def parse_alternatives(rules: RescoreRules, card_values: list[str] | str | None,
                       chaff_sets: list[str] | str | None) -> list[Alternative]:
    """Every (card-value table, chaff set) asked for, the played ones standing in for an omitted side.

    Raises
    ------
    AnalysisError
        Neither is given, or a name the dataset's rules do not have (one line naming it).
    """
    card_values = [card_values] if isinstance(card_values, str) else list(card_values or [])
    chaff_sets = [chaff_sets] if isinstance(chaff_sets, str) else list(chaff_sets or [])
    if not card_values and not chaff_sets:
        raise AnalysisError("rescore needs --card-values TABLE and/or --chaff-set SET")
    for name in card_values:
        if name not in rules.values:
            raise AnalysisError(f"unknown card-value table {name!r} (this dataset's rules have: "
                                f"{', '.join(rules.values)})")
    for name in chaff_sets:
        if name not in rules.chaff:
            raise AnalysisError(f"unknown chaff set {name!r} (this dataset's rules have: {', '.join(rules.chaff)})")
    return [Alternative(v, c) for v, c in itertools.product(card_values or [rules.original.card_values],
                                                             chaff_sets or [rules.original.chaff_set])]


def codes_to_reference(batch: dict[str, np.ndarray], dataset: RunDataset) -> np.ndarray:
    """The batch's end-reason codes (the dataset's own) as codes of ``END_REASONS``.

    Parameters
    ----------
    batch : dict of arrays
        With ``end_reason``: integer codes into ``dataset.end_reason_names``.

    Returns
    -------
    int64[rounds]
        Codes of ``END_REASONS``; -1 for a reason the chain does not know.
    """
    lookup = np.array([REASON_CODE.get(name, -1) for name in dataset.end_reason_names] or [-1], dtype=np.int64)
    return lookup[batch["end_reason"].astype(np.int64)]


def rescore_rounds(dataset: RunDataset | str | os.PathLike, card_values: str | None = None,
                   chaff_set: str | None = None) -> pd.DataFrame:
    """Per-round rescoring as a DataFrame (loads every round: for notebooks on modest datasets).

    Columns: ``round``, ``winner``, ``end_reason``, ``winner_rescored``, ``end_reason_rescored``,
    ``card_points_0/1`` and ``chaff_0/1`` under the alternative.
    """
    if not isinstance(dataset, RunDataset):
        dataset = open_run(dataset)
    dataset.require_rows("rescore")
    dataset.require(RESCORE_COLUMNS, "rescoring")
    rules = rules_of(dataset)
    alternative = parse_alternatives(rules, card_values, chaff_set)[0]
    frames = []
    for batch in dataset.iter_batches(RESCORE_COLUMNS):
        batch = dict(batch, end_reason=codes_to_reference(batch, dataset))
        out = rescore_batch(batch, rules.values[alternative.card_values], rules.chaff[alternative.chaff_set],
                            rules.values_only, rules.final_tie)
        frame = pd.DataFrame({"round": batch["round"], "winner": batch["winner"].astype(np.int64),
                              "end_reason": [END_REASONS[c] if c >= 0 else "?" for c in batch["end_reason"]],
                              "winner_rescored": out["winner"],
                              "end_reason_rescored": [END_REASONS[c] for c in out["end_reason"]]})
        for s in range(N_SEATS):
            frame[f"card_points_{s}"] = out[f"card_points_{s}"]
            frame[f"chaff_{s}"] = out[f"chaff_{s}"]
        frames.append(frame)
    return pd.concat(frames, ignore_index=True)


@dataclass
class _Tally:
    """Counts for one alternative."""

    rounds: int = 0
    transitions: dict[tuple[int, int], int] = field(default_factory=dict)
    reasons: dict[tuple[int, int], int] = field(default_factory=dict)
    # Per outcome: (original count, rescored count, only original, only rescored).
    outcomes: dict[str, list[int]] = field(default_factory=dict)

    def add(self, original_winner, new_winner, original_reason, new_reason, dealer) -> None:
        self.rounds += len(original_winner)
        _add_pairs(self.transitions, original_winner, new_winner)
        _add_pairs(self.reasons, original_reason, new_reason)
        indicators = {f"seat {s} wins": (original_winner == s, new_winner == s) for s in range(N_SEATS)}
        indicators["drawn"] = (original_winner < 0, new_winner < 0)
        indicators["dealer wins"] = (original_winner == dealer, new_winner == dealer)
        for name, (before, after) in indicators.items():
            tally = self.outcomes.setdefault(name, [0, 0, 0, 0])
            tally[0] += int(before.sum())
            tally[1] += int(after.sum())
            tally[2] += int((before & ~after).sum())
            tally[3] += int((after & ~before).sum())


def _add_pairs(store: dict[tuple[int, int], int], first: np.ndarray, second: np.ndarray) -> None:
    """Count (first, second) pairs of small integers (>= -1) with one bincount, not a sort."""
    first = first.astype(np.int64) + 1
    second = second.astype(np.int64) + 1
    width = int(max(first.max(initial=0), second.max(initial=0))) + 1
    counts = np.bincount(first * width + second, minlength=width * width)
    for code in np.flatnonzero(counts).tolist():
        a, b = divmod(code, width)
        store[(a - 1, b - 1)] = store.get((a - 1, b - 1), 0) + int(counts[code])


def _winner_name(code: int) -> str:
    return "draw" if code < 0 else f"seat {code}"


def rescore_run(dataset: RunDataset | str | os.PathLike, card_values: list[str] | str | None = None,
                chaff_sets: list[str] | str | None = None, *, confidence: float = 0.95) -> Report:
    """Rescore every round under each alternative and report what changes.

    Parameters
    ----------
    dataset : RunDataset or path
        A Tensho dataset (it must store capture masks and the rules text).
    card_values : table name or list of names, optional
        Card-value tables of the run's rules file (e.g. ``T2_alt``, ``T3_hanafuda``).
    chaff_sets : set name or list of names, optional
        Chaff sets of the run's rules file (``A`` .. ``F``).
    confidence : float

    Returns
    -------
    Report
        Tables ``rescore_setup``, ``winner_changes``, ``winner_transitions``, ``win_rate_shift``,
        ``end_reason_shift``.
    """
    if not isinstance(dataset, RunDataset):
        dataset = open_run(dataset)
    dataset.require_rows("rescore")
    rules = rules_of(dataset)
    alternatives = parse_alternatives(rules, card_values, chaff_sets)
    dataset.require(RESCORE_COLUMNS, "rescoring")
    tallies = {a: _Tally() for a in alternatives}
    reproduced = checked = 0
    for batch in dataset.iter_batches(RESCORE_COLUMNS):
        batch = dict(batch, end_reason=codes_to_reference(batch, dataset))
        original_winner = batch["winner"].astype(np.int64)
        original_reason = batch["end_reason"]
        dealer = batch["dealer"].astype(np.int64)
        again = rescore_batch(batch, rules.values[rules.original.card_values], rules.chaff[rules.original.chaff_set],
                              rules.values_only, rules.final_tie)
        same = (again["winner"] == original_winner) & (again["end_reason"] == original_reason)
        for s in range(N_SEATS):
            same &= (again[f"card_points_{s}"] == batch[f"card_points_{s}"]) & (again[f"chaff_{s}"] == batch[f"chaff_{s}"])
        reproduced += int(same.sum())
        checked += len(same)
        for alternative, tally in tallies.items():
            out = rescore_batch(batch, rules.values[alternative.card_values], rules.chaff[alternative.chaff_set],
                                rules.values_only, rules.final_tie)
            tally.add(original_winner, out["winner"], original_reason, out["end_reason"], dealer)
    if checked == 0:
        raise AnalysisError(f"{dataset.path}: the dataset has no rounds")

    warnings = []
    notices = []
    if reproduced < checked:
        notices.append(not_reproduced_notice(
            checked - reproduced, checked, rules.original.label,
            "winner, end reason, card points and chaff", dataset.path))
    value_sensitive = [p for p in dataset.policies if p.split(":")[0] not in ("random",)]
    if value_sensitive:
        warnings.append(f"policies {', '.join(sorted(set(value_sensitive)))} may use card values in their "
                        f"decisions: a fresh run under the other table could play differently (rescoring keeps "
                        f"every decision as played)")
    if rules.captures_by_value:
        warnings.append("the rules pick captures by card value (tensho.double_match = highest_value_first): a "
                        "fresh run under the other table could capture differently")
    if dataset.rounds_per_match is not None:
        warnings.append("match play: a changed round winner would deal the next round; rescoring keeps the "
                        "dealers as played, and match results are not rescored")

    setup = pd.DataFrame([
        ("dataset", str(dataset.path)),
        ("rounds", f"{checked:,}"),
        ("original scoring", rules.original.label),
        ("alternatives", "; ".join(a.label for a in alternatives)),
        ("no_yaku_tiebreak", "values_only" if rules.values_only else "chaff_then_values"),
        ("final_tie", rules.final_tie),
        ("stored outcomes reproduced", f"{reproduced:,} of {checked:,}"),
    ], columns=["item", "value"])
    tables = [Table("rescore_setup", "Rescoring", setup,
                    "Every round decided again from the stored capture masks; yaku points are unchanged.")]
    tables += _rescore_tables(tallies, confidence)
    warnings += [w for table in tables for w in _flag_warnings(table)]
    return Report(
        title=f"fudasim rescore: {dataset.label} ({checked:,} rounds)",
        tables=tables,
        warnings=warnings,
        notices=notices + hidden_notices([dataset]),
        metadata={"dataset": str(dataset.path), "original": rules.original.label,
                  "alternatives": [a.label for a in alternatives], "confidence": confidence},
    )


NOT_REPRODUCED = "stored outcomes NOT reproduced"  # how the notice below begins


def not_reproduced_notice(missed: int, rounds: int, tables: str, stored: str, where: object) -> str:
    """What it means that ``missed`` of ``rounds`` rounds, decided again under the run's own
    ``tables``, do not get the ``stored`` outcome their rows hold (a report's notice); ``where``
    is the dataset (a folder, or one shard file)."""
    shard = str(where).endswith(".parquet")
    verify = "`fudasim verify` of the shard's folder" if shard else f"`fudasim verify {where}`"
    return (f"{NOT_REPRODUCED}: {missed:,} of {rounds:,} rounds, decided again from "
            f"their stored capture piles under the run's own tables ({tables}), do not get "
            f"the {stored} their rows hold. Either the rows changed after the run wrote them "
            f"(damaged data: see {verify}), or they were written by another engine or other "
            f"rules than the rules text the dataset stores. The rescored numbers rest on those "
            f"rows: do not trust them")


def _flag_warnings(table: Table) -> list[str]:
    from analysis.tables import _warn

    return _warn(table).warnings


def _rescore_tables(tallies: dict[Alternative, _Tally], confidence: float) -> list[Table]:
    z = z_value(confidence)
    change_rows, transition_rows, shift_rows, reason_rows = [], [], [], []
    for alternative, tally in tallies.items():
        changed = sum(c for (a, b), c in tally.transitions.items() if a != b)
        change_rows.append({"alternative": alternative.label, "rounds": tally.rounds, "changed": changed})
        codes = sorted({a for a, _ in tally.transitions} | {b for _, b in tally.transitions}, key=lambda c: (c < 0, c))
        for before in codes:
            row: dict[str, str | int] = {"alternative": alternative.label, "original_winner": _winner_name(before)}
            for after in codes:
                row[f"now {_winner_name(after)}"] = tally.transitions.get((before, after), 0)
            transition_rows.append(row)
        for outcome, (before, after, only_before, only_after) in tally.outcomes.items():
            n = tally.rounds
            d_sum = only_after - only_before
            mean_d, sd_d = (float(v) for v in moments_from_sums(n, d_sum, only_after + only_before))
            half = z * sd_d / np.sqrt(n) if n else float("nan")
            shift_rows.append({"alternative": alternative.label, "outcome": outcome, "rounds": n,
                               "before": before, "after": after, "kind": "rate",
                               "shift_diff": mean_d, "shift_low": mean_d - half, "shift_high": mean_d + half,
                               "p_value": mcnemar_test(only_before, only_after)})
        reason_codes = sorted({a for a, _ in tally.reasons} | {b for _, b in tally.reasons})
        for code in reason_codes:
            before = sum(c for (a, _), c in tally.reasons.items() if a == code)
            after = sum(c for (_, b), c in tally.reasons.items() if b == code)
            reason_rows.append({"alternative": alternative.label,
                                "end_reason": END_REASONS[code] if code >= 0 else "?",
                                "rounds": tally.rounds, "before": before, "after": after})
    changes = pd.DataFrame(change_rows)
    add_rate(changes, "changed", changes["changed"], changes["rounds"], confidence)
    changes = changes.rename(columns={"changed": "changed_count"})
    changes = changes[["alternative", "rounds", "changed_count", "changed_rate", "changed_low", "changed_high",
                       "changed_small"]]
    shifts = pd.DataFrame(shift_rows)
    add_rate(shifts, "original", shifts["before"], shifts["rounds"], confidence)
    add_rate(shifts, "rescored", shifts["after"], shifts["rounds"], confidence)
    shifts = shifts[["alternative", "outcome", "rounds", "original_rate", "original_low", "original_high",
                     "original_small", "rescored_rate", "rescored_low", "rescored_high", "rescored_small", "kind",
                     "shift_diff", "shift_low", "shift_high", "p_value"]]
    reasons = pd.DataFrame(reason_rows)
    add_rate(reasons, "original", reasons["before"], reasons["rounds"], confidence)
    add_rate(reasons, "rescored", reasons["after"], reasons["rounds"], confidence)
    reasons = reasons.drop(columns=["before", "after"])
    return [
        Table("winner_changes", "Rounds that change winner", changes,
              f"Rounds whose winner differs after rescoring, with a {confidence:.0%} Wilson interval."),
        Table("winner_transitions", "Winner before and after rescoring", pd.DataFrame(transition_rows),
              "Rounds by original winner (rows) and rescored winner (columns)."),
        Table("win_rate_shift", "How win rates shift", shifts,
              f"Rates before and after on the same rounds; the shift is the paired per-round difference "
              f"({confidence:.0%} normal interval) and its p-value McNemar's test."),
        Table("end_reason_shift", "How rounds end, before and after", reasons,
              "Share of rounds per end reason under the original and the rescored tables."),
    ]
