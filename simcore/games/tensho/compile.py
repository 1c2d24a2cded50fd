"""Lower a validated ``RuleSet`` to contiguous NumPy arrays (guarantee 4 of docs/guarantees.md).

Both engines read the rules only through ``CompiledRules``: the reference engine for its
tables, the kernels as arguments (never module globals).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simcore.cards import SIX_OF_CLUBS
from simcore.games.tensho import enums as E
from simcore.games.tensho.options import OPTIONS
from simcore.games.tensho.rules import RuleSet
from simcore.rules.schema import option_code

__all__ = ["CompiledRules", "compile_rules", "deal_order"]

# Greedy's yaku-progress weight: a yaku's value spread over its cards (12 divides 3 and 4, so
# the weights are exact integers); an instant win counts as this many points.
GREEDY_INSTANT_POINTS = 300


@dataclass(frozen=True)
class CompiledRules:
    """Rule arrays for Tensho.

    Attributes
    ----------
    params : int32[N_PARAMS]
        Option codes, indexed by the ``P_*`` constants of ``simcore.games.tensho.enums``, and values
        derived from the rules (the six's id; whether the deal can be shuffled in stages).
    rank : int8[64]
        Rank (1..12) of each card id; 0 outside the deck.
    rank_mask : uint64[13]
        Mask of the cards of each rank (index 0 unused).
    deal_order : int8[45]
        Canonical slot ``i`` (field 0..8, dealer hand 9..14, other hand 15..20, draw 21..38 from
        the top, dead 39..44) takes card ``shuffled[deal_order[i]]``.
    yaku_mask : uint64[NY]
        Cards of each yaku.
    yaku_points : int32[2, NY]
        Points of each yaku in set 1 and set 2 (0 if absent or instant).
    yaku_in_set, yaku_instant : uint64[2]
        Bitsets over yaku indices: members of each set, instant-win members of each set.
    supersedes : uint64[NY]
        Bitset of the yaku each yaku cancels when completed (the chosen supersession mode).
    greedy_weight : int32[2, NY]
        Per-card progress weight of each yaku in each set, for the greedy policy.
    card_value : int32[64]
        The chosen card-value table.
    chaff_mask : uint64
        The chosen chaff set.
    """

    rules: RuleSet
    params: np.ndarray
    rank: np.ndarray
    rank_mask: np.ndarray
    deal_order: np.ndarray
    yaku_mask: np.ndarray
    yaku_points: np.ndarray
    yaku_in_set: np.ndarray
    yaku_instant: np.ndarray
    supersedes: np.ndarray
    greedy_weight: np.ndarray
    card_value: np.ndarray
    chaff_mask: np.uint64

    def kernel_args(self) -> tuple:
        """The rule arrays in the order the kernels take them."""
        return (
            self.params, self.rank, self.rank_mask, self.deal_order, self.yaku_mask,
            self.yaku_points, self.yaku_in_set, self.yaku_instant, self.supersedes,
            self.greedy_weight, self.card_value, np.uint64(self.chaff_mask),
        )


def deal_order(procedure: str) -> np.ndarray:
    """Where each canonical slot takes its card from in the shuffled deck (docs/tensho.md#a-round,
    step 2).

    ``canonical_slices`` is the identity.  ``physical`` follows the traditional deal dealt from
    the top of the shuffled deck: 3 to the field, 3 to each of four corner stacks A..D, 3 to the
    field, 3 to each stack, 3 to the field, 3 more to stacks A and B, 6 dead.  The dealer takes
    stack C, the opponent stack D, and the draw pile is stack A on stack B, each drawn from its
    top (its last-dealt card).  Returns int8[45].
    """
    if procedure == "canonical_slices":
        return np.arange(45, dtype=np.int8)
    position = 0
    field: list[int] = []
    stacks: dict[str, list[int]] = {k: [] for k in "ABCD"}

    def take(n: int) -> list[int]:
        nonlocal position
        out = list(range(position, position + n))
        position += n
        return out

    for layer in range(3):
        field += take(3)
        corners = "ABCD" if layer < 2 else "AB"
        for corner in corners:
            stacks[corner] += take(3)
    dead = take(6)
    draw = stacks["A"][::-1] + stacks["B"][::-1]
    order = field + stacks["C"] + stacks["D"] + draw + dead
    assert sorted(order) == list(range(45))
    return np.array(order, dtype=np.int8)


def compile_rules(rules: RuleSet) -> CompiledRules:
    """Lower a validated rule set to the arrays both engines read (shapes and dtypes: ``CompiledRules``)."""
    params = np.zeros(E.N_PARAMS, dtype=np.int32)
    codes = {
        E.P_TRIPLE_MATCH: "tensho.triple_match",
        E.P_DOUBLE_MATCH: "tensho.double_match",
        E.P_CAPTURE_MANDATORY: "tensho.capture_mandatory",
        E.P_OPENING_SCOPE: "tensho.opening_claim_scope",
        E.P_FIELD_FOUR: "tensho.field_four_of_rank",
        E.P_SIX_ON_FIELD: "tensho.six_on_field",
        E.P_SIX_IN_HAND: "tensho.six_in_hand",
        E.P_INSTANT_CHECK: "tensho.instant_win_check",
        E.P_NO_YAKU_TIEBREAK: "tensho.no_yaku_tiebreak",
        E.P_FINAL_TIE: "tensho.final_tie",
        E.P_YAKU_SET_CHOICE: "tensho.yaku_set_choice",
        E.P_MATCH_SCORING: "tensho.match_scoring",
        E.P_MATCH_TIE: "tensho.match_tie",
        E.P_INSTANT_WIN_SCORE: "tensho.instant_win_score",
    }
    for index, name in codes.items():
        params[index] = option_code(OPTIONS[name], rules.options[name])
    params[E.P_SIX_CARD] = SIX_OF_CLUBS
    order = deal_order(str(rules.options["tensho.deal_procedure"]))
    params[E.P_STAGED_DEAL] = int(order[:E.SEEN_SLOTS].max() < E.SEEN_SLOTS)
    params[E.P_DIRECT_DEAL] = int((order[:E.SEEN_SLOTS] == np.arange(E.SEEN_SLOTS)).all())

    deck = rules.deck
    rank = deck.rank_array()
    rank_mask = np.zeros(13, dtype=np.uint64)
    for card in deck.cards:
        rank_mask[card.rank] |= np.uint64(1 << card.id)

    n_yaku = len(rules.yaku)
    yaku_mask = np.zeros(n_yaku, dtype=np.uint64)
    yaku_points = np.zeros((2, n_yaku), dtype=np.int32)
    greedy_weight = np.zeros((2, n_yaku), dtype=np.int32)
    yaku_in_set = np.zeros(2, dtype=np.uint64)
    yaku_instant = np.zeros(2, dtype=np.uint64)
    for yaku in rules.yaku:
        yaku_mask[yaku.index] = np.uint64(yaku.mask)
        for set_index in range(2):
            if not yaku.in_set(set_index + 1):
                continue
            bit = np.uint64(1 << yaku.index)
            yaku_in_set[set_index] |= bit
            if yaku.is_instant(set_index + 1):
                yaku_instant[set_index] |= bit
                points_for_weight = GREEDY_INSTANT_POINTS
            else:
                yaku_points[set_index, yaku.index] = yaku.points(set_index + 1)
                points_for_weight = yaku.points(set_index + 1)
            greedy_weight[set_index, yaku.index] = points_for_weight * 12 // len(yaku.cards)

    supersedes = np.zeros(n_yaku, dtype=np.uint64)
    index_of = {y.key: y.index for y in rules.yaku}
    for key, cancelled in rules.supersession.items():
        for other in cancelled:
            supersedes[index_of[key]] |= np.uint64(1 << index_of[other])

    card_value = np.zeros(64, dtype=np.int32)
    card_value[: deck.size] = rules.card_values

    return CompiledRules(
        rules=rules,
        params=params,
        rank=rank,
        rank_mask=rank_mask,
        deal_order=order,
        yaku_mask=yaku_mask,
        yaku_points=yaku_points,
        yaku_in_set=yaku_in_set,
        yaku_instant=yaku_instant,
        supersedes=supersedes,
        greedy_weight=greedy_weight,
        card_value=card_value,
        chaff_mask=np.uint64(rules.chaff_mask),
    )
