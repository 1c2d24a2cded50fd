"""Koi-koi's integer constants: the compiled ``params`` slots, the yaku bits, the card classes,
the end reasons and the rows of the engines' output matrices.

Plain Python ints (numba treats module-level ints as compile-time constants).
"""

from simcore.record import CORE_INT_COLUMNS

# --- indices into the compiled ``params`` int32 array --------------------------------------
# option codes (the index of the value in the option's choices) ...
P_BDB_EXTRA = 0  # 0 per_animal, 1 none
P_BDB_WITH_TANE = 1  # 0 replaces, 1 stacks
P_RIBBON_EXTRA = 2  # 0 per_ribbon, 1 none
P_RIBBONS_WITH_TAN = 3  # 0 replaces, 1 stacks
P_RED_AND_BLUE = 4  # 0 replaces, 1 stacks
P_VIEWING_RAISE = 5  # 0 none, 1 after_own_koikoi
P_RAIN_OFF = 6  # 0 none, 1 rain_man, 2 any_willow
P_SAKE_CUP_CHAFF = 7  # 0 true, 1 false
P_TESHI = 8  # 0 ignore, 1 score, 2 redeal
P_KUTTSUKI = 9  # 0 ignore, 1 score, 2 redeal
P_FIELD_FOUR = 10  # 0 redeal, 1 ignore
P_FIELD_PAIRS = 11  # 0 redeal, 1 ignore
P_KOIKOI_BONUS = 12  # KOIKOI_BONUS_* below
P_SEVEN_DOUBLE = 13  # 0 true, 1 false
P_KOIKOI_LIMIT = 14  # 0 unlimited, 1 once_per_seat, 2 once_per_table
P_LAST_TURN = 15  # 0 forced_stop, 1 koikoi_allowed
P_KOIKOI_TRIGGER = 16  # 0 points_rise, 1 new_yaku
P_EXHAUSTED = 17  # 0 nothing, 1 dealer_points, 2 highest_yaku
P_EXHAUSTED_DEALER = 18  # 0 same, 1 switch
P_SCORING = 19  # 0 winner_only, 1 zero_sum
P_EARLY_END = 20  # 0 none, 1 at_zero
# ... and integer values
P_VIEWING_RAISED = 21  # a viewing yaku's points once its holder has called koi-koi
P_DEALER_PRIORITY = 22  # the dealer's points for an exhausted round (exhausted = dealer_points)
P_TESHI_VALUE = 23
P_KUTTSUKI_VALUE = 24
P_START_POINTS = 25
P_ROUNDS = 26
N_PARAMS = 27

BDB_EXTRA_PER_ANIMAL = 0
STACKS = 1  # the "stacks" code of the *_with_* and red_and_blue options
VIEWING_RAISE_AFTER_OWN = 1
RAIN_OFF_NONE = 0
RAIN_OFF_RAIN_MAN = 1
RAIN_OFF_ANY_WILLOW = 2
DEALT_IGNORE = 0
DEALT_SCORE = 1
DEALT_REDEAL = 2
FIELD_REDEAL = 0
KOIKOI_BONUS_OPPONENT_DOUBLE = 0
KOIKOI_BONUS_OWN_ADD_THEN_MULTIPLY = 1
KOIKOI_BONUS_CALLS_PLUS_ONE = 2
KOIKOI_BONUS_OWN_DOUBLE = 3
KOIKOI_BONUS_ANY_DOUBLE = 4
KOIKOI_BONUS_NONE = 5
LIMIT_UNLIMITED = 0
LIMIT_ONCE_PER_SEAT = 1
LIMIT_ONCE_PER_TABLE = 2
TRIGGER_POINTS_RISE = 0
TRIGGER_NEW_YAKU = 1
EXHAUSTED_NOTHING = 0
EXHAUSTED_DEALER_POINTS = 1
EXHAUSTED_HIGHEST_YAKU = 2
SCORING_ZERO_SUM = 1

# --- the yaku, by bit (rules.YAKU_TABLE names them) ----------------------------------------
Y_FIVE_BRIGHTS = 0
Y_FOUR_BRIGHTS = 1
Y_RAINY_FOUR_BRIGHTS = 2
Y_THREE_BRIGHTS = 3
Y_BOAR_DEER_BUTTERFLY = 4
Y_HANAMI = 5
Y_TSUKIMI = 6
Y_TANE = 7
Y_AKATAN = 8
Y_AOTAN = 9
Y_AKATAN_AOTAN = 10
Y_TAN = 11
Y_KASU = 12
Y_TSUKIFUDA = 13
Y_TESHI = 14
Y_KUTTSUKI = 15
N_YAKU = 16

# The smallest counts of the counting yaku (1 point there, +1 for each further card; every
# source agrees), and the cards the fixed-set yaku hold.
TANE_MIN = 5
TAN_MIN = 5
KASU_MIN = 10

# --- the card classes of a rule file's [cards] table, by index in ``classes`` --------------
K_BRIGHTS = 0
K_ANIMALS = 1
K_RIBBONS = 2
K_CHAFF = 3  # the chaff of the file (the Sake Cup is added by koikoi.sake_cup_chaff)
K_RED_RIBBONS = 4
K_BLUE_RIBBONS = 5
K_BOAR_DEER_BUTTERFLY = 6
K_RAIN_MAN = 7
K_SAKE_CUP = 8
K_CURTAIN = 9
K_MOON = 10
K_LIGHTNING = 11
K_WILLOW = 12  # the Rain Man's month (koikoi.rain_off = any_willow)
N_CLASSES = 13

# --- end reasons (dictionary strings in the dataset; codes in the engines) -----------------
END_REASONS = (
    "stop",
    "forced_stop",
    "exhausted",
    "teyaku",
    "teyaku_draw",
)
END_REASON_MEANINGS = (  # for the report, in the order of END_REASONS
    "a seat whose yaku rose chose to stop",
    "a seat's yaku rose where the rules allow no koi-koi",
    "both hands played out with nobody stopping",
    "a dealt hand (teshi, kuttsuki) scored",
    "both seats were dealt a scoring hand; nobody scores",
)
END_STOP = 0  # a seat whose yaku rose chose to stop
END_FORCED_STOP = 1  # a seat's yaku rose where the rules allow no koi-koi (its last turn, the limit)
END_EXHAUSTED = 2  # both hands played out with nobody stopping
END_TEYAKU = 3  # a dealt hand (teshi, kuttsuki) scored before the first turn
END_TEYAKU_DRAW = 4  # both seats were dealt a scoring hand: nobody scores

# --- decisions ----------------------------------------------------------------------------
D_PLAY = 0
D_CAPTURE = 1
D_KOIKOI = 2

# Redeals are capped so that a rule file redealing every deal cannot loop forever; a deal that
# reaches the cap is played as dealt (with the shipped rules a redeal happens 1.3 % of deals).
MAX_REDEALS = 1000

DECK_SIZE = 48
HAND_SIZE = 8
FIELD_SIZE = 8
DRAW_SIZE = DECK_SIZE - 2 * HAND_SIZE - FIELD_SIZE
TURNS = 2 * HAND_SIZE

# --- per-round output columns written by both engines ---------------------------------------
# int64 matrix rows
# (rows 0 .. CORE_INT_COLUMNS - 1: simcore.record's C_*)
C_EXHAUSTED = CORE_INT_COLUMNS  # 11
C_LAST_KOIKOI = 12  # the seat that called koi-koi last (-1: nobody called)
C_YAKU_POINTS = 13  # + seat: the yaku's points before any multiplier
C_SCORE = 15  # + seat: the round's points to the seat (after every multiplier; 0 unless it won)
C_PAYOFF = 17  # + seat
C_KOIKOI = 19  # + seat: its koi-koi calls
C_MATCH_POINTS = 21  # + seat
N_INT_COLUMNS = 23
# uint64 matrix rows
M_FIELD_DEALT = 0
M_HAND_DEALT = 1  # + seat
M_CAPTURED = 3  # + seat
M_YAKU = 5  # + seat: the yaku bitset (bits Y_*) of the seat's pile at the round's end
N_MASK_COLUMNS = 7
