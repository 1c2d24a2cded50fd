"""Integer constants shared by the reference engine, the kernels and the dataset.

Plain Python ints (numba treats module-level ints as compile-time constants).
"""

from simcore.record import CORE_INT_COLUMNS

# --- indices into the compiled ``params`` int32 array (Tensho) ----------------------------
P_TRIPLE_MATCH = 0  # 0 all, 1 one
P_DOUBLE_MATCH = 1  # 0 choose, 1 highest_value_first
P_CAPTURE_MANDATORY = 2  # 0 true, 1 false
P_OPENING_SCOPE = 3  # 0 each_triple, 1 one_triple
P_FIELD_FOUR = 4  # 0 redeal, 1 stuck, 2 opening_rule_applies
P_SIX_ON_FIELD = 5  # 0 stuck, 1 dealer_captures
P_SIX_IN_HAND = 6  # 0 play_as_turn, 1 bank_at_deal
P_INSTANT_CHECK = 7  # 0 after_each_capture, 1 end_of_turn
P_NO_YAKU_TIEBREAK = 8  # 0 chaff_then_values, 1 values_only
P_FINAL_TIE = 9  # 0 draw, 1 dealer_wins, 2 non_dealer_wins
P_YAKU_SET_CHOICE = 10  # 0 fixed_1, 1 fixed_2, 2 dealer_policy, 3 random, 4 alternate
P_MATCH_SCORING = 11  # 0 round_wins, 1 yaku_points
P_MATCH_TIE = 12  # 0 draw, 1 extra_round
P_INSTANT_WIN_SCORE = 13
P_SIX_CARD = 14  # id of the 6 of clubs
# From the deal procedure: 1 if every card a round can show (field, hands, the 12 draw-pile cards
# turned: canonical slots 0..SEEN_SLOTS - 1) comes from the shuffled deck's places 0..32.
P_STAGED_DEAL = 15
# 1 if, moreover, canonical slot i is place i for those cards (the canonical procedure): the
# kernel then reads the deal from the shuffled places directly.
P_DIRECT_DEAL = 16
N_PARAMS = 17

# Canonical deal slots (docs/tensho.md#a-round) 0..32 hold every card a round can show: the field,
# both hands and the 12 draw-pile cards turned (draw slots 33..38 never are).
SEEN_SLOTS = 33

FIELD_FOUR_REDEAL = 0
FIELD_FOUR_STUCK = 1
FIELD_FOUR_OPENING = 2
SET_FIXED_1 = 0
SET_FIXED_2 = 1
SET_DEALER_POLICY = 2
SET_RANDOM = 3
SET_ALTERNATE = 4

# --- end reasons (dictionary strings in the dataset; codes in kernels) ---------------------
END_REASONS = (
    "yaku",
    "chaff",
    "card_value",
    "draw",
    "instant_win",
    "final_tie_rule",
)
END_REASON_MEANINGS = (  # for the report, in the order of END_REASONS
    "more yaku points",
    "equal yaku points; more chaff cards",
    "equal chaff; higher card-value sum",
    "tied after every tie-break; drawn",
    "an instant-win yaku ended the round",
    "tied after every tie-break; the final-tie option decided",
)
END_YAKU = 0
END_CHAFF = 1
END_CARD_VALUE = 2
END_DRAW = 3
END_INSTANT_WIN = 4
END_FINAL_TIE_RULE = 5

# --- policies (ids from the registry's single definition) ----------------------------------
from simcore.kernels.policy_ids import POLICY_GREEDY, POLICY_RANDOM  # noqa: E402, F401 (re-exported)

# Redeals are capped so that a rule file that always redeals cannot loop forever; a round
# that reaches the cap is played as dealt (the cap is never reached with shipped rules:
# P(four of a rank on the field) is about 0.93 %).
MAX_REDEALS = 1000
# The greedy policy's gain for a capture that completes an instant-win yaku (kernel and
# reference policy alike).
GREEDY_INSTANT_GAIN = 1_000_000

# --- per-round output columns written by both engines (simcore.dataset names them) --------
# int64 matrix columns
# (rows 0 .. CORE_INT_COLUMNS - 1: simcore.record's C_*)
C_YAKU_SET = CORE_INT_COLUMNS  # 11
C_YAKU_POINTS = 12  # + seat
C_CARD_POINTS = 14
C_CHAFF = 16
C_SCORE = 18
C_PAYOFF = 20
C_MATCH_POINTS = 22
N_INT_COLUMNS = 24
# uint64 matrix columns
M_FIELD_DEALT = 0
M_OPENING_CLAIM = 1
M_HAND_DEALT = 2  # + seat
M_CAPTURED = 4
M_YAKU = 6
N_MASK_COLUMNS = 8
