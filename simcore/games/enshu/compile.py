"""Enshu-bana's rule sets lowered to arrays: ``compile_rules`` gives the NumPy arrays of
``CompiledRules`` (guarantee 4 of docs/guarantees.md) that both engines read; the ``params`` array
is indexed by ``simcore.games.enshu.enums.P_*``. Also the teyaku a hand holds (``teyaku_options``),
which the reference engine and the policies share.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simcore.cards import mask_of
from simcore.games.enshu import enums as E
from simcore.games.enshu.options import OPTIONS
from simcore.games.enshu.rules import GREEDY_POINTS_PER_MULTIPLE, RuleSet
from simcore.hanafuda import month_arrays
from simcore.rules.schema import option_code

__all__ = ["CompiledRules", "TeyakuOption", "compile_rules", "teyaku_options"]


@dataclass(frozen=True)
class CompiledRules:
    """Rule arrays for Enshu-bana (every array is what a kernel takes as an argument).

    Attributes
    ----------
    params : int32[N_PARAMS]
        Sizes and option codes, indexed by ``simcore.games.enshu.enums.P_*``.
    month : int8[64]
        Month (1..12) of each card id; 0 outside the deck.
    month_mask : uint64[13]
        Cards of each month (index 0 unused).
    card_points : int32[64]
        Points of each card (Brights at ``enshu.bright_value``).
    bright_mask, animal_mask, ribbon_mask, willow_mask, junk_mask, icp_mask : uint64
        Card classes: Brights, Animals (Rain Man included), Ribbons, the Willow month, the junk
        of group-B teyaku (``enshu.c.junk_def``), the cards of the misdeal months.
    yaku_mask : uint64[NY]
    yaku_kind, yaku_value, yaku_upgraded, yaku_month : int32[NY]
        Kind (``YAKU_*``), value (points, multiplier or stakes), upgraded value (0: none) and
        the month whose four cards the yaku is (0: none).
    supersedes : uint64[NY]
        Yaku bitset each yaku cancels when completed (``enshu.sokuyaku_stacking``).
    greedy_weight : int32[NY]
        Per-card progress weight of each yaku for the greedy policy.
    teyaku_pattern, teyaku_group, teyaku_kind, teyaku_value, teyaku_bonus : int32[NT]
        Pattern (``PATTERN_*``), group (0 A, 1 B), kind (``TEYAKU_*``), value, and the triplet
        bonus in force (0 when the options switch it off).
    teyaku_months, teyaku_three_months, teyaku_bonus_months : uint64[NT]
        Month bitsets (bit ``m`` for month ``m``).
    """

    rules: RuleSet
    params: np.ndarray
    month: np.ndarray
    month_mask: np.ndarray
    card_points: np.ndarray
    bright_mask: np.uint64
    animal_mask: np.uint64
    ribbon_mask: np.uint64
    willow_mask: np.uint64
    junk_mask: np.uint64
    icp_mask: np.uint64
    yaku_mask: np.ndarray
    yaku_kind: np.ndarray
    yaku_value: np.ndarray
    yaku_upgraded: np.ndarray
    yaku_month: np.ndarray
    supersedes: np.ndarray
    greedy_weight: np.ndarray
    teyaku_pattern: np.ndarray
    teyaku_group: np.ndarray
    teyaku_kind: np.ndarray
    teyaku_value: np.ndarray
    teyaku_bonus: np.ndarray
    teyaku_months: np.ndarray
    teyaku_three_months: np.ndarray
    teyaku_bonus_months: np.ndarray

    @property
    def n_teyaku(self) -> int:
        """The number of teyaku."""
        return len(self.teyaku_pattern)

    @property
    def players(self) -> int:
        """The number of seats."""
        return int(self.params[E.P_PLAYERS])

    def kernel_args(self) -> tuple:
        """The rule arrays in the order the kernels take them."""
        return (
            self.params, self.month, self.month_mask, self.card_points,
            np.uint64(self.bright_mask), np.uint64(self.animal_mask), np.uint64(self.ribbon_mask),
            np.uint64(self.willow_mask), np.uint64(self.junk_mask), np.uint64(self.icp_mask),
            self.yaku_mask, self.yaku_kind, self.yaku_value, self.yaku_upgraded, self.yaku_month,
            self.supersedes, self.greedy_weight,
            self.teyaku_pattern, self.teyaku_group, self.teyaku_kind, self.teyaku_value, self.teyaku_bonus,
            self.teyaku_months, self.teyaku_three_months, self.teyaku_bonus_months,
        )



_PARAM_OPTIONS = {
    E.P_UCHIKIRI_CHECK: "enshu.uchikiri_check",
    E.P_NEXT_DEALER: "enshu.next_dealer",
    E.P_ROUNDS: "enshu.rounds",
    E.P_CAPTURE_THREE: "enshu.capture_three",
    E.P_TIE_ORDER: "enshu.tie_order",
    E.P_W_UCHIKIRI_PAYMENT: "enshu.w.uchikiri_payment",
    E.P_W_TIE: "enshu.w.tie",
    E.P_W_TRIPLET_DECLARE: "enshu.w.triplet_declare",
    E.P_W_STAKE: "enshu.w.stake",
    E.P_W_UCHIKIRI_COMBO: "enshu.w.uchikiri_combo",
    E.P_S_TEYAKU: "enshu.s.teyaku",
    E.P_S_COMBINATION: "enshu.s.combination",
    E.P_S_MATCH_SCORING: "enshu.s.match_scoring",
    E.P_C_SCORE_FORMULA: "enshu.c.score_formula",
    E.P_C_NEGATIVE_SCORE: "enshu.c.negative_score",
    E.P_C_TRIPLET_BONUS_MODE: "enshu.c.triplet_bonus_mode",
    E.P_C_TRIPLET_BONUS_CONDITION: "enshu.c.triplet_bonus_condition",
    E.P_C_TRIPLET_BONUS_IN_FOUR_THREE: "enshu.c.triplet_bonus_in_four_three",
    E.P_C_EXPOSURE: "enshu.c.exposure",
    E.P_C_DROPPED_HANDS: "enshu.c.dropped_hands",
    E.P_C_DROPOUT_PASS_CAP: "enshu.c.dropout_pass_cap",
    E.P_C_FUKE_ON_UCHIKIRI: "enshu.c.fuke_on_uchikiri",
    E.P_C_UCHIKIRI_COMBO: "enshu.c.uchikiri_combo",
    E.P_C_KOTSU_SMALL_GAMES: "enshu.c.kotsu_small_games",
}


def _month_bits(months: tuple[int, ...]) -> int:
    return sum(1 << m for m in months)


def compile_rules(rules: RuleSet) -> CompiledRules:
    """Lower a validated Enshu-bana rule set to arrays."""
    options = rules.options
    variant = rules.variant
    params = np.zeros(E.N_PARAMS, dtype=np.int32)
    params[E.P_VARIANT] = E.VARIANTS.index(variant)
    params[E.P_PLAYERS] = rules.players
    params[E.P_HAND] = rules.deal_hand
    params[E.P_FIELD] = rules.deal_field
    params[E.P_DRAW] = rules.deal_draw
    for index, name in _PARAM_OPTIONS.items():
        if name in options:
            params[index] = option_code(OPTIONS[name], options[name])
    params[E.P_BRIGHT_POINTS] = int(options["enshu.bright_value"])
    if variant == "C":
        params[E.P_MISDEAL_FIELD_FOUR] = 1
        params[E.P_MISDEAL_FIELD_ICP_THREE] = 1
        at_deal = options["enshu.c.icp_four_check"] == "at_deal_all_hands"
        params[E.P_MISDEAL_HAND_ICP_FOUR] = E.HAND_FOUR_AT_DEAL if at_deal else E.HAND_FOUR_AT_TEYAKU
    else:
        misdeal = options["enshu.w_misdeal"]
        params[E.P_MISDEAL_FIELD_FOUR] = int(misdeal != "none")
        params[E.P_MISDEAL_FIELD_ICP_THREE] = int(misdeal == "as_variant_C")
        params[E.P_MISDEAL_HAND_ICP_FOUR] = E.HAND_FOUR_AT_DEAL if misdeal == "as_variant_C" else E.HAND_FOUR_NEVER

    deck = rules.deck
    month, month_mask = month_arrays(deck)
    card_points = np.zeros(64, dtype=np.int32)
    card_points[: deck.size] = rules.card_points

    def kind_mask(kind: str) -> int:
        return mask_of(card.id for card in deck.cards if card.kind == kind)

    willow = deck.rank_mask(11)
    lightning = mask_of(card.id for card in deck.cards if card.rank == 11 and card.kind == "chaff")
    junk = kind_mask("chaff")
    if options.get("enshu.c.junk_def", "lightning_excluded") == "lightning_excluded":
        junk &= ~lightning
    icp = 0
    for m in rules.icp_months:
        icp |= deck.rank_mask(m)

    n_yaku = len(rules.yaku)
    yaku_mask = np.zeros(n_yaku, dtype=np.uint64)
    yaku_kind = np.zeros(n_yaku, dtype=np.int32)
    yaku_value = np.zeros(n_yaku, dtype=np.int32)
    yaku_upgraded = np.zeros(n_yaku, dtype=np.int32)
    yaku_month = np.zeros(n_yaku, dtype=np.int32)
    greedy_weight = np.zeros(n_yaku, dtype=np.int32)
    for yaku in rules.yaku:
        i = yaku.index
        yaku_mask[i] = np.uint64(yaku.mask)
        yaku_kind[i] = E.YAKU_KINDS.index(yaku.kind)
        yaku_value[i] = yaku.value
        yaku_upgraded[i] = yaku.upgraded
        yaku_month[i] = yaku.month
        worth = yaku.value if yaku.kind == "points" else GREEDY_POINTS_PER_MULTIPLE * yaku.value
        greedy_weight[i] = worth * 12 // len(yaku.cards)
    supersedes = np.zeros(n_yaku, dtype=np.uint64)
    index_of = {y.key: y.index for y in rules.yaku}
    for key, cancelled in rules.supersession.items():
        for other in cancelled:
            supersedes[index_of[key]] |= np.uint64(1 << index_of[other])

    n_teyaku = len(rules.teyaku)
    teyaku_pattern = np.zeros(n_teyaku, dtype=np.int32)
    teyaku_group = np.zeros(n_teyaku, dtype=np.int32)
    teyaku_kind = np.zeros(n_teyaku, dtype=np.int32)
    teyaku_value = np.zeros(n_teyaku, dtype=np.int32)
    teyaku_bonus = np.zeros(n_teyaku, dtype=np.int32)
    teyaku_months = np.zeros(n_teyaku, dtype=np.uint64)
    teyaku_three_months = np.zeros(n_teyaku, dtype=np.uint64)
    teyaku_bonus_months = np.zeros(n_teyaku, dtype=np.uint64)
    separate_bonus = options.get("enshu.c.triplet_bonus_mode", "separate") == "separate"
    in_four_three = options.get("enshu.c.triplet_bonus_in_four_three", "true") == "true"
    for teyaku in rules.teyaku:
        i = teyaku.index
        teyaku_pattern[i] = E.TEYAKU_PATTERNS.index(teyaku.pattern)
        teyaku_group[i] = E.TEYAKU_GROUPS.index(teyaku.group)
        teyaku_kind[i] = E.TEYAKU_KINDS.index(teyaku.kind)
        teyaku_value[i] = teyaku.value
        teyaku_months[i] = np.uint64(_month_bits(teyaku.months))
        teyaku_three_months[i] = np.uint64(_month_bits(teyaku.three_months))
        teyaku_bonus_months[i] = np.uint64(_month_bits(teyaku.bonus_months))
        if separate_bonus and (teyaku.pattern == "triplet" or in_four_three):
            teyaku_bonus[i] = teyaku.bonus
    # Four-of-a-month yaku take their `upgraded` value when the holder declared a triplet of that
    # month: always in W (docs/enshu.md#variant-w), in C only with triplet_bonus_mode = upgrade.
    params[E.P_TRIPLET_UPGRADE] = int(variant != "C" or not separate_bonus)

    return CompiledRules(
        rules=rules,
        params=params,
        month=month,
        month_mask=month_mask,
        card_points=card_points,
        bright_mask=np.uint64(kind_mask("bright")),
        animal_mask=np.uint64(kind_mask("animal")),
        ribbon_mask=np.uint64(kind_mask("ribbon")),
        willow_mask=np.uint64(willow),
        junk_mask=np.uint64(junk),
        icp_mask=np.uint64(icp),
        yaku_mask=yaku_mask,
        yaku_kind=yaku_kind,
        yaku_value=yaku_value,
        yaku_upgraded=yaku_upgraded,
        yaku_month=yaku_month,
        supersedes=supersedes,
        greedy_weight=greedy_weight,
        teyaku_pattern=teyaku_pattern,
        teyaku_group=teyaku_group,
        teyaku_kind=teyaku_kind,
        teyaku_value=teyaku_value,
        teyaku_bonus=teyaku_bonus,
        teyaku_months=teyaku_months,
        teyaku_three_months=teyaku_three_months,
        teyaku_bonus_months=teyaku_bonus_months,
    )


# --- teyaku detection (shared by the reference engine and the policies) ---------------------------


@dataclass(frozen=True)
class TeyakuOption:
    """One way a hand qualifies for a teyaku.

    ``month`` is the month of a four or a triplet, or of the four of a Four-Three;
    ``three_month`` the month of a Four-Three's three (0 otherwise); ``cards`` the cards that
    declaring it exposes.
    """

    index: int
    key: str
    pattern: int
    month: int
    three_month: int
    cards: int
    value: int
    stops: bool
    group: str

    @property
    def triplet_month(self) -> int:
        """The month of the triplet the option declares (a Triplet's, or a Four-Three's three)."""
        if self.pattern == E.PATTERN_TRIPLET:
            return self.month
        if self.pattern == E.PATTERN_FOUR_THREE:
            return self.three_month
        return 0

    def label(self) -> str:
        """Replay vocabulary: ``KEY``, ``KEY:MONTH`` or ``KEY:MONTH:THREE_MONTH``."""
        if self.three_month:
            return f"{self.key}:{self.month}:{self.three_month}"
        if self.month:
            return f"{self.key}:{self.month}"
        return self.key


def teyaku_options(compiled: CompiledRules, hand: int, group: str | None) -> list[TeyakuOption]:
    """Every way ``hand`` qualifies for a teyaku of ``group`` ("A", "B", or None for both).

    Order (the order a random choice indexes): teyaku in file order; within a teyaku, months
    ascending (a Four-Three: the four's month, then the three's).  A triplet is exactly three
    cards of a month; a Four-Three is four of one month and at least three of another.  Group-B
    options expose the whole hand, or only its junk with ``enshu.c.exposure =
    junk_only_for_group_B``.
    """
    c = compiled
    rules = c.rules
    month_mask = [int(m) for m in c.month_mask]
    counts = [0] + [(hand & month_mask[m]).bit_count() for m in range(1, 13)]
    junk = int(c.junk_mask)
    animal = int(c.animal_mask)
    ribbon = int(c.ribbon_mask)
    junk_only = int(c.params[E.P_C_EXPOSURE]) == 1
    out: list[TeyakuOption] = []
    for teyaku in rules.teyaku:
        if group is not None and teyaku.group != group:
            continue
        i = teyaku.index
        pattern = int(c.teyaku_pattern[i])
        months = int(c.teyaku_months[i])
        found: list[tuple[int, int, int]] = []  # (month, three_month, exposed cards)
        if pattern == E.PATTERN_FOUR_THREE:
            threes = int(c.teyaku_three_months[i])
            for m in range(1, 13):
                if counts[m] == 4 and (months >> m) & 1:
                    for t in range(1, 13):
                        if t != m and counts[t] >= 3 and (threes >> t) & 1:
                            found.append((m, t, hand & (month_mask[m] | month_mask[t])))
        elif pattern in (E.PATTERN_FOUR, E.PATTERN_TRIPLET):
            need = 4 if pattern == E.PATTERN_FOUR else 3
            for m in range(1, 13):
                if counts[m] == need and (months >> m) & 1:
                    found.append((m, 0, hand & month_mask[m]))
        else:
            single = {E.PATTERN_ALL_JUNK: 0, E.PATTERN_LONE_ANIMAL: animal, E.PATTERN_LONE_RIBBON: ribbon}[pattern]
            lone = hand & single
            if hand and lone.bit_count() == (0 if pattern == E.PATTERN_ALL_JUNK else 1) and not (hand & ~lone & ~junk):
                found.append((0, 0, hand & junk if junk_only else hand))
        for month, three, cards in found:
            out.append(TeyakuOption(i, teyaku.key, pattern, month, three, cards, teyaku.value,
                                    teyaku.kind == "stop", teyaku.group))
    return out
