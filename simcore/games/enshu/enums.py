"""Integer constants of Enshu-bana shared by the reference engine, the kernels and the dataset.

Plain Python ints (numba treats module-level ints as compile-time constants).  The compiled
rule arrays (``simcore.games.enshu.compile.CompiledRules``) are indexed by the ``P_*`` constants; the
per-round output matrices of both engines by the ``C_*`` (int64) and ``M_*`` (uint64) constants.
"""

from simcore.record import CORE_INT_COLUMNS

MAX_SEATS = 5
DECK_SIZE = 48
N_MONTHS = 12
MAX_YAKU = 64  # yaku and teyaku bitsets are uint64
MAX_TEYAKU = 64
MAX_MIZU_KOTSU = 3  # docs/enshu.md#variant-c, step 1
FUKE_LIMIT = 15  # Willow-free card points at or below which Fuke may be declared (3.3 step 11)

# Redeals are capped so that a rule file that always redeals cannot loop forever; a round that
# reaches the cap is played as dealt (never reached with the shipped rules).
MAX_REDEALS = 1000

# The greedy policy's thresholds and its gain for a round-stopping yaku, read by the kernel and
# by the reference policy alike (simcore.games.enshu.policies.GreedyPolicy).
GREEDY_STOP_GAIN = 1_000_000
GREEDY_KOTSU_POINTS = 60
GREEDY_JOIN_POINTS = 30

# --- variants -------------------------------------------------------------------------------
VARIANTS = ("W", "S", "C")
VARIANT_W = 0
VARIANT_S = 1
VARIANT_C = 2

# --- indices into the compiled ``params`` int32 array ---------------------------------------
P_VARIANT = 0
P_PLAYERS = 1
P_HAND = 2  # cards per hand
P_FIELD = 3  # cards dealt to the field
P_DRAW = 4  # cards in the draw pile after the deal
P_MISDEAL_FIELD_FOUR = 5  # 1: four cards of one month on the field redeal
P_MISDEAL_FIELD_ICP_THREE = 6  # 1: three cards of an I/C/P month on the field redeal
P_MISDEAL_HAND_ICP_FOUR = 7  # HAND_FOUR_* below
P_UCHIKIRI_CHECK = 8  # 0 end_of_turn, 1 after_each_capture
P_NEXT_DEALER = 9  # 0 round_winner, 1 rotate
P_ROUNDS = 10
P_CAPTURE_THREE = 11  # 0 all, 1 one
P_TIE_ORDER = 12  # 0 turn_order, 1 dealer_then_left (S and C)
P_W_UCHIKIRI_PAYMENT = 13  # 0 total_k, 1 ante_plus_k
P_W_TIE = 14  # 0 turn_order, 1 split
P_W_TRIPLET_DECLARE = 15  # 0 policy, 1 always, 2 never
P_W_STAKE = 16
P_W_UCHIKIRI_COMBO = 17  # 0 sum, 1 max, 2 product
P_S_TEYAKU = 18  # 0 on, 1 off
P_S_COMBINATION = 19  # 0 total_times_product, 1 cards_times_product_plus_yaku, 2 total_times_sum
P_S_MATCH_SCORING = 20  # 0 cumulative, 1 round_wins
P_C_SCORE_FORMULA = 21  # 0 literal, 1 zero_sum
P_C_NEGATIVE_SCORE = 22  # 0 clamp_zero, 1 literal
P_C_TRIPLET_BONUS_MODE = 23  # 0 separate, 1 upgrade
P_C_TRIPLET_BONUS_CONDITION = 24  # 0 fourth_card_in_own_pile, 1 all_four_in_own_pile
P_C_TRIPLET_BONUS_IN_FOUR_THREE = 25  # 0 true, 1 false
P_C_EXPOSURE = 26  # 0 all_composition_cards, 1 junk_only_for_group_B
P_C_DROPPED_HANDS = 27  # 0 shuffle_into_draw, 1 set_aside
P_C_DROPOUT_PASS_CAP = 28
P_C_FUKE_ON_UCHIKIRI = 29  # 0 false, 1 true
P_C_UCHIKIRI_COMBO = 30  # 0 product, 1 max
P_C_KOTSU_SMALL_GAMES = 31  # 0 true, 1 false
P_BRIGHT_POINTS = 32
P_TRIPLET_UPGRADE = 33  # 1: a declared triplet upgrades the four-of-its-month yaku
N_PARAMS = 34

# Policy ids as ``simcore.policies.PolicySpec.policy_id`` gives them (one definition).
from simcore.kernels.policy_ids import POLICY_GREEDY, POLICY_RANDOM  # noqa: E402, F401 (re-exported)

HAND_FOUR_NEVER = 0
HAND_FOUR_AT_DEAL = 1  # every dealt hand, right after the deal
HAND_FOUR_AT_TEYAKU = 2  # the active hands, when teyaku are declared (variant C option)

COMBO_SUM = 0
COMBO_MAX = 1
COMBO_PRODUCT = 2

# --- yaku kinds and teyaku patterns ----------------------------------------------------------
YAKU_KINDS = ("points", "multiplier", "uchikiri")
YAKU_POINTS = 0  # adds its value to the holder's yaku points
YAKU_MULTIPLIER = 1  # variant S: multiplies the holder's score
YAKU_UCHIKIRI = 2  # stops the round: W value = k (stakes), C value = multiplier of the maker's score

TEYAKU_PATTERNS = ("four_three", "four", "triplet", "all_junk", "lone_animal", "lone_ribbon")
PATTERN_FOUR_THREE = 0  # four cards of one month and at least three of another
PATTERN_FOUR = 1  # four cards of one month
PATTERN_TRIPLET = 2  # exactly three cards of one month
PATTERN_ALL_JUNK = 3  # every card junk
PATTERN_LONE_ANIMAL = 4  # one Animal, every other card junk
PATTERN_LONE_RIBBON = 5  # one Ribbon, every other card junk
TEYAKU_GROUPS = ("A", "B")
TEYAKU_KINDS = ("points", "stop")
TEYAKU_POINTS = 0
TEYAKU_STOP = 1  # variant W: stops the round, value = k (stakes)

# --- end reasons (dictionary strings in the dataset; codes in kernels) ----------------------
END_REASONS = ("score", "uchikiri", "teyaku_stop", "fuke")
END_REASON_MEANINGS = (  # for the report, in the order of END_REASONS
    "played out; the scores decided",
    "a round-stopping yaku (uchikiri) ended the round",
    "a dealt hand (teyaku) stopped the round",
    "a player declared Fuke; round voided",
)
END_SCORE = 0  # played out; the highest score won
END_UCHIKIRI = 1  # a round-stopping dekiyaku
END_TEYAKU_STOP = 2  # a round-stopping teyaku (variant W)
END_FUKE = 3  # a Fuke voided the round (variant C)

# --- per-round output columns ------------------------------------------------------------------
# int64 matrix: scalars, then blocks of MAX_SEATS per-seat columns (seat s at BASE + s)
# rows 0 .. CORE_INT_COLUMNS - 1: simcore.record's C_*. C_DEALER is the dealer
# of the round (before any dropout); C_FIRST_PLAYER the acting dealer, who plays first (it
# differs when the dealer dropped out); C_WINNER -1 for a voided (Fuke) round; C_END_TURN the
# turns begun (0 when a teyaku stopped the round).
C_PLAYERS = CORE_INT_COLUMNS  # 11
C_MULTIPLIER = 12  # variant C: the final field multiplier M; 1 otherwise
C_FIELD_BRIGHTS = 13
C_MIZU_KOTSU_COUNT = 14
C_KOTSU_COUNT = 15
C_DROPOUT_PASSES = 16
C_FUKE = 17  # seat that declared Fuke, -1 if none
C_ACTIVE = 18  # + seat: 1 if the seat played the round (0 if dropped or absent)
C_MIZU_KOTSU = C_ACTIVE + MAX_SEATS
C_KOTSU = C_MIZU_KOTSU + MAX_SEATS
C_YAKU_POINTS = C_KOTSU + MAX_SEATS  # points-kind dekiyaku (after supersession, with upgrades)
C_TEYAKU_POINTS = C_YAKU_POINTS + MAX_SEATS  # declared points-kind teyaku + triplet bonuses
C_CARD_POINTS = C_TEYAKU_POINTS + MAX_SEATS
C_YAKU_MULTIPLIER = C_CARD_POINTS + MAX_SEATS  # S: multiplier yaku combined; C: U(p); else 1
C_SCORE = C_YAKU_MULTIPLIER + MAX_SEATS
C_PAYOFF = C_SCORE + MAX_SEATS
C_MATCH_POINTS = C_PAYOFF + MAX_SEATS
N_INT_COLUMNS = C_MATCH_POINTS + MAX_SEATS
# uint64 matrix
M_FIELD_DEALT = 0
M_STOPPING_YAKU = 1  # yaku bitset of the round-stopping dekiyaku that ended the round
M_STOPPING_TEYAKU = 2  # teyaku bitset of the round-stopping teyaku that ended the round
M_HAND_DEALT = 3  # + seat
M_CAPTURED = M_HAND_DEALT + MAX_SEATS
M_YAKU = M_CAPTURED + MAX_SEATS  # completed dekiyaku after supersession
M_TEYAKU_DEALT = M_YAKU + MAX_SEATS  # every teyaku the dealt hand qualifies for
M_TEYAKU_DECLARED = M_TEYAKU_DEALT + MAX_SEATS
M_EXPOSED = M_TEYAKU_DECLARED + MAX_SEATS  # cards exposed by declared teyaku
N_MASK_COLUMNS = M_EXPOSED + MAX_SEATS
