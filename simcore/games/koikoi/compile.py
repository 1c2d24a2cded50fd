"""Lower a validated koi-koi ``RuleSet`` to contiguous NumPy arrays (guarantee 4 of
docs/guarantees.md).

Both engines read the rules only through ``CompiledRules``: the reference engine for its
tables, the kernel as arguments (never module globals).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simcore.games.koikoi import enums as E
from simcore.games.koikoi.options import OPTIONS
from simcore.games.koikoi.rules import RuleSet
from simcore.hanafuda import month_arrays
from simcore.rules.schema import option_code

__all__ = ["CLASS_WEIGHT", "SPECIAL_WEIGHT", "CompiledRules", "compile_rules"]

# The policies' weight of a card by its class (brights, animals, ribbons, chaff), and the extra
# weight of a card of Boar-Deer-Butterfly, the Red or Blue ribbons or a viewing yaku.
CLASS_WEIGHT = {E.K_BRIGHTS: 6, E.K_ANIMALS: 3, E.K_RIBBONS: 3, E.K_CHAFF: 1}
SPECIAL_WEIGHT = 3
SPECIAL_CLASSES = (E.K_BOAR_DEER_BUTTERFLY, E.K_RED_RIBBONS, E.K_BLUE_RIBBONS, E.K_CURTAIN, E.K_MOON, E.K_SAKE_CUP)

# params slot -> the option it holds (choices as their index, integers as they are)
PARAM_OPTIONS = {
    E.P_BDB_EXTRA: "koikoi.bdb_extra",
    E.P_BDB_WITH_TANE: "koikoi.bdb_with_tane",
    E.P_RIBBON_EXTRA: "koikoi.ribbon_extra",
    E.P_RIBBONS_WITH_TAN: "koikoi.ribbons_with_tan",
    E.P_RED_AND_BLUE: "koikoi.red_and_blue_stacking",
    E.P_VIEWING_RAISE: "koikoi.viewing_raise",
    E.P_RAIN_OFF: "koikoi.rain_off",
    E.P_SAKE_CUP_CHAFF: "koikoi.sake_cup_chaff",
    E.P_TESHI: "koikoi.teshi",
    E.P_KUTTSUKI: "koikoi.kuttsuki",
    E.P_FIELD_FOUR: "koikoi.field_four",
    E.P_FIELD_PAIRS: "koikoi.field_pairs",
    E.P_KOIKOI_BONUS: "koikoi.koikoi_bonus",
    E.P_SEVEN_DOUBLE: "koikoi.seven_double",
    E.P_KOIKOI_LIMIT: "koikoi.koikoi_limit",
    E.P_LAST_TURN: "koikoi.last_turn",
    E.P_KOIKOI_TRIGGER: "koikoi.koikoi_trigger",
    E.P_EXHAUSTED: "koikoi.exhausted",
    E.P_EXHAUSTED_DEALER: "koikoi.exhausted_dealer",
    E.P_SCORING: "koikoi.scoring",
    E.P_EARLY_END: "koikoi.early_end",
    E.P_VIEWING_RAISED: "koikoi.viewing_raised",
    E.P_DEALER_PRIORITY: "koikoi.dealer_priority",
    E.P_TESHI_VALUE: "koikoi.teshi_value",
    E.P_KUTTSUKI_VALUE: "koikoi.kuttsuki_value",
    E.P_START_POINTS: "koikoi.start_points",
    E.P_ROUNDS: "koikoi.rounds",
}


@dataclass(frozen=True)
class CompiledRules:
    """Rule arrays for koi-koi.

    Attributes
    ----------
    params : int32[N_PARAMS]
        Option codes and values, indexed by the ``P_*`` constants of ``simcore.games.koikoi.enums``.
    month : int8[64]
        Month (1..12) of each card id; 0 outside the deck.
    month_mask : uint64[13]
        The cards of each month (row 0 empty).
    classes : uint64[N_CLASSES]
        The card classes by ``K_*`` (brights, animals, ribbons, chaff as the file gives them,
        red and blue ribbons, boar-deer-butterfly, the single cards, the Rain Man's month).
    chaff_mask : uint64
        The cards Kasu counts (the Sake Cup included with ``koikoi.sake_cup_chaff = true``).
    yaku_value : int32[N_YAKU]
        Each yaku's points by bit (a counting yaku: 1; 0: the yaku is not played).
    card_weight : int32[64]
        What the greedy and heuristic policies think a card is worth besides the yaku points it
        completes (``CLASS_WEIGHT`` by its class, ``SPECIAL_WEIGHT`` more for a card of a
        fixed-set yaku); 0 outside the deck.
    """

    rules: RuleSet
    params: np.ndarray
    month: np.ndarray
    month_mask: np.ndarray
    classes: np.ndarray
    chaff_mask: np.uint64
    yaku_value: np.ndarray
    card_weight: np.ndarray

    def param(self, index: int) -> int:
        """``params[index]`` as a Python int."""
        return int(self.params[index])


def compile_rules(rules: RuleSet) -> CompiledRules:
    """Lower a validated rule set to the arrays both engines read (shapes and dtypes: ``CompiledRules``)."""
    params = np.zeros(E.N_PARAMS, dtype=np.int32)
    for index, name in PARAM_OPTIONS.items():
        params[index] = option_code(OPTIONS[name], rules.options[name])
    month, month_mask = month_arrays(rules.deck)
    classes = np.array(rules.classes, dtype=np.uint64)
    yaku_value = np.array([y.value for y in rules.yaku], dtype=np.int32)
    card_weight = np.zeros(64, dtype=np.int32)
    for card in range(rules.deck.size):
        for index, weight in CLASS_WEIGHT.items():
            if (rules.classes[index] >> card) & 1:
                card_weight[card] += weight
        if any((rules.classes[index] >> card) & 1 for index in SPECIAL_CLASSES):
            card_weight[card] += SPECIAL_WEIGHT
    return CompiledRules(rules=rules, params=params, month=month, month_mask=month_mask, classes=classes,
                         chaff_mask=np.uint64(rules.chaff_mask), yaku_value=yaku_value, card_weight=card_weight)
