"""Named Tensho card ids, the rules' tables typed in by hand, and deal builders for the Tensho
tests.

The tables here are typed from docs/tensho.md (cards, yaku, supersession), not read from the shipped
rule files, so that a test comparing the engine (which reads the rule files) with them is a real
check.

Deals are given in canonical slot order (docs/tensho.md#a-round): field = deck[0:9], dealer's hand =
deck[9:15], the other hand = deck[15:21], draw pile = deck[21:39] with deck[21] turned first,
dead cards = deck[39:45].
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations, product

from simcore.cards import ISE45, mask_of

# --- the 45 cards (docs/tensho.md#cards); 1 = Dragon, 10 = Maid, 11 = Horse, 12 = King --------

ONE_OF_CLUBS = ISE45.card_id("1C")  # Doro pin; Pine Crane
ONE_OF_SWORDS = ISE45.card_id("1S")  # Aka pin; Pine Poetry ribbon
ONE_OF_COINS = ISE45.card_id("1Co")
ONE_OF_CUPS = ISE45.card_id("1Cu")
TWO_OF_CLUBS = ISE45.card_id("2C")  # Willow Swallow
TWO_OF_SWORDS = ISE45.card_id("2S")  # Willow Plain ribbon
TWO_OF_COINS = ISE45.card_id("2Co")  # Taiko ni; Willow Rain Man
TWO_OF_CUPS = ISE45.card_id("2Cu")  # Neburi no ni; Willow Lightning
THREE_OF_CLUBS = ISE45.card_id("3C")
THREE_OF_SWORDS = ISE45.card_id("3S")
THREE_OF_COINS = ISE45.card_id("3Co")
THREE_OF_CUPS = ISE45.card_id("3Cu")
FOUR_OF_CLUBS = ISE45.card_id("4C")
FOUR_OF_SWORDS = ISE45.card_id("4S")
FOUR_OF_COINS = ISE45.card_id("4Co")
FOUR_OF_CUPS = ISE45.card_id("4Cu")
FIVE_OF_CLUBS = ISE45.card_id("5C")
FIVE_OF_SWORDS = ISE45.card_id("5S")
FIVE_OF_COINS = ISE45.card_id("5Co")
FIVE_OF_CUPS = ISE45.card_id("5Cu")
SIX_OF_CLUBS = ISE45.card_id("6C")  # the only six; Paulownia Phoenix
SEVEN_OF_CLUBS = ISE45.card_id("7C")
SEVEN_OF_SWORDS = ISE45.card_id("7S")
SEVEN_OF_COINS = ISE45.card_id("7Co")
SEVEN_OF_CUPS = ISE45.card_id("7Cu")
EIGHT_OF_CLUBS = ISE45.card_id("8C")
EIGHT_OF_SWORDS = ISE45.card_id("8S")
EIGHT_OF_COINS = ISE45.card_id("8Co")
EIGHT_OF_CUPS = ISE45.card_id("8Cu")
NINE_OF_CLUBS = ISE45.card_id("9C")
NINE_OF_SWORDS = ISE45.card_id("9S")
NINE_OF_COINS = ISE45.card_id("9Co")
NINE_OF_CUPS = ISE45.card_id("9Cu")
TEN_OF_CLUBS = ISE45.card_id("10C")
TEN_OF_SWORDS = ISE45.card_id("10S")  # Surume jū; Maple Blue ribbon
TEN_OF_COINS = ISE45.card_id("10Co")
TEN_OF_CUPS = ISE45.card_id("10Cu")
HORSE_OF_CLUBS = ISE45.card_id("11C")
HORSE_OF_SWORDS = ISE45.card_id("11S")
HORSE_OF_COINS = ISE45.card_id("11Co")
HORSE_OF_CUPS = ISE45.card_id("11Cu")
KING_OF_CLUBS = ISE45.card_id("12C")
KING_OF_SWORDS = ISE45.card_id("12S")
KING_OF_COINS = ISE45.card_id("12Co")
KING_OF_CUPS = ISE45.card_id("12Cu")

PHOENIX = SIX_OF_CLUBS
SWALLOW = TWO_OF_CLUBS
RAIN_MAN = TWO_OF_COINS
LIGHTNING = TWO_OF_CUPS

ALL_CARDS = tuple(range(ISE45.size))
FULL_MASK = mask_of(ALL_CARDS)
RANKS = tuple(range(1, 13))
RANKS_OF_FOUR = tuple(r for r in RANKS if r != 6)  # every rank but 6 has four cards

# By rank: the club (Back), sword (Front), coin and cup of each rank.
CLUB = {r: ISE45.card_id(f"{r}C") for r in RANKS}
SWORD = {r: ISE45.card_id(f"{r}S") for r in RANKS_OF_FOUR}
COIN = {r: ISE45.card_id(f"{r}Co") for r in RANKS_OF_FOUR}
CUP = {r: ISE45.card_id(f"{r}Cu") for r in RANKS_OF_FOUR}


def card(code: str) -> int:
    """The id of a card code such as "10S"."""
    return ISE45.card_id(code)


def rank(card_id: int) -> int:
    return ISE45.cards[card_id].rank


def rank_cards(r: int) -> tuple[int, ...]:
    return tuple(c for c in ALL_CARDS if rank(c) == r)


# --- docs/tensho.md#cards: per card (in id order) its code, rank, and the values T1, T2, T3 ---

RULES_CARD_TABLE = [
    ("1C", 1, 15, 15, 15), ("1S", 1, 5, 5, 5), ("1Co", 1, 1, 1, 1), ("1Cu", 1, 1, 1, 1),
    ("2C", 2, 10, 10, 10), ("2S", 2, 1, 10, 1), ("2Co", 2, 10, 1, 10), ("2Cu", 2, 1, 1, 1),
    ("3C", 3, 3, 3, 3), ("3S", 3, 1, 1, 1), ("3Co", 3, 1, 1, 1), ("3Cu", 3, 1, 1, 1),
    ("4C", 4, 4, 4, 4), ("4S", 4, 1, 1, 1), ("4Co", 4, 1, 1, 1), ("4Cu", 4, 1, 1, 1),
    ("5C", 5, 5, 5, 5), ("5S", 5, 1, 1, 1), ("5Co", 5, 1, 1, 1), ("5Cu", 5, 1, 1, 1),
    ("6C", 6, 1, 10, 10),
    ("7C", 7, 7, 7, 7), ("7S", 7, 1, 1, 1), ("7Co", 7, 1, 1, 1), ("7Cu", 7, 1, 1, 1),
    ("8C", 8, 8, 8, 8), ("8S", 8, 1, 1, 1), ("8Co", 8, 1, 1, 1), ("8Cu", 8, 1, 1, 1),
    ("9C", 9, 9, 9, 9), ("9S", 9, 1, 1, 1), ("9Co", 9, 1, 1, 1), ("9Cu", 9, 1, 1, 1),
    ("10C", 10, 10, 10, 10), ("10S", 10, 10, 10, 10), ("10Co", 10, 1, 1, 1), ("10Cu", 10, 1, 1, 1),
    ("11C", 11, 11, 11, 11), ("11S", 11, 1, 1, 1), ("11Co", 11, 1, 1, 1), ("11Cu", 11, 1, 1, 1),
    ("12C", 12, 12, 12, 12), ("12S", 12, 1, 1, 1), ("12Co", 12, 1, 1, 1), ("12Cu", 12, 1, 1, 1),
]
T1 = {card(code): t1 for code, _, t1, _, _ in RULES_CARD_TABLE}
T2 = {card(code): t2 for code, _, _, t2, _ in RULES_CARD_TABLE}
T3 = {card(code): t3 for code, _, _, _, t3 in RULES_CARD_TABLE}

# The hanafuda card of each Tensho card (docs/tensho.md#cards, column "hanafuda card"), by code.
RULES_HANAFUDA_NAMES = {
    "1C": "Pine Crane", "1S": "Pine Poetry ribbon", "2C": "Willow Swallow",
    "2S": "Willow Plain ribbon", "2Co": "Willow Rain Man", "2Cu": "Willow Lightning",
    "3C": "Cherry Curtain", "3S": "Cherry Poetry ribbon", "4C": "Wisteria Cuckoo",
    "4S": "Wisteria Plain ribbon", "5C": "Iris Eight-plank Bridge", "5S": "Iris Plain ribbon",
    "6C": "Paulownia Phoenix", "7C": "Bush Clover Boar", "7S": "Bush Clover Plain ribbon",
    "8C": "Susuki Moon", "8S": "Susuki Geese", "9C": "Chrysanthemum Sake Cup",
    "9S": "Chrysanthemum Blue ribbon", "10C": "Maple Deer", "10S": "Maple Blue ribbon",
    "11C": "Peony Butterflies", "11S": "Peony Blue ribbon", "12C": "Plum Bush Warbler",
    "12S": "Plum Poetry ribbon",
}  # every other card (coins and cups but the 2 of coins) is the month's chaff

# Chaff set B (docs/tensho.md#cards): all coins and cups except the 2 of coins; 21 cards.
CHAFF_B = frozenset((set(COIN.values()) | set(CUP.values())) - {TWO_OF_COINS})
# Chaff set A: the Gasu cards (coins and cups of ranks other than 2 and 6); 20 cards.
CHAFF_A = CHAFF_B - {TWO_OF_CUPS}

# --- docs/tensho.md#yaku: the yaku, with their card lists and Set 1 / Set 2 values ------------

INSTANT = "instant"


@dataclass(frozen=True)
class RulesYaku:
    key: str
    english: str
    cards: tuple[int, ...]
    set1: int | str | None
    set2: int | str | None

    def value(self, yaku_set: int) -> int | str | None:
        return self.set1 if yaku_set == 1 else self.set2


def _y(key: str, english: str, codes: str, set1, set2) -> RulesYaku:
    return RulesYaku(key, english, tuple(card(c) for c in codes.split()), set1, set2)


RULES_YAKU = [
    _y("Y01", "Front One-Two-Three", "1S 2S 3S", 100, 100),
    _y("Y02", "Back One-Two-Three", "1C 2C 3C", 50, 50),
    _y("Y03", "Front One-Two-Ten", "1S 2S 10S", 100, 100),
    _y("Y04", "Back One-Two-Ten", "1C 2C 10C", 50, 50),
    _y("Y05", "Front Three-Four-Five", "3S 4S 5S", 100, 100),
    _y("Y06", "Back Three-Four-Five", "3C 4C 5C", 50, 50),
    _y("Y07", "Front Nakazō", "7S 8S 9S", 100, 100),
    _y("Y08", "Back Nakazō", "7C 8C 9C", 50, 50),
    _y("Y09", "Front Ten-Horse-King", "10S 11S 12S", 100, 100),
    _y("Y10", "Back Ten-Horse-King", "10C 11C 12C", 50, 50),
    _y("Y11", "Front Nine-Horse-Three", "9S 11S 3S", 100, 100),
    _y("Y12", "Back Nine-Horse-Three", "9C 11C 3C", 50, 50),
    _y("Y13", "Front Seven-Five-Three", "7S 5S 3S", 100, None),
    _y("Y14", "Back Seven-Five-Three", "7C 5C 3C", 50, None),
    _y("Y15", "Front Eight Islands", "8S 4S 11S", 100, None),
    _y("Y16", "Back Eight Islands", "8C 4C 11C", 50, None),
    _y("Y17", "Front Four-Horse-King", "4S 11S 12S", 100, None),
    _y("Y18", "Back Four-Horse-King", "4C 11C 12C", 50, None),
    _y("Y19", "Front Eight-Four-King", "8S 4S 12S", 100, None),
    _y("Y20", "Back Eight-Four-King", "8C 4C 12C", 50, None),
    _y("Y21", "Front Eight Islands King", "8S 4S 11S 12S", 300, None),
    _y("Y22", "Back Eight Islands King", "8C 4C 11C 12C", 150, None),
    _y("Y23", "Front Elder", "5S 6C 10S", INSTANT, 100),
    _y("Y24", "Back Elder", "5C 6C 10C", 100, INSTANT),
    _y("Y25", "Front Young Woman", "7S 8S 10S", None, 100),
    _y("Y26", "Back Young Woman", "7C 8C 10C", None, 50),
    _y("Y27", "Front Old Woman", "8S 9S 10S", None, 100),
    _y("Y28", "Back Old Woman", "8C 9C 10C", None, 50),
    _y("Y29", "Front Young-and-Old", "7S 8S 9S 10S", None, 300),
    _y("Y30", "Back Young-and-Old", "7C 8C 9C 10C", None, 150),
    _y("Y31", "Red Four", "4S 6C 1C", None, INSTANT),
]
YAKU_BY_KEY = {y.key: y for y in RULES_YAKU}

# "Ten Nine Twelve" (tensho.ten_horse_king = 10_9_12) and Rain Man (tensho.back_two_card =
# rain_man, hanafuda skin) card lists (docs/tensho.md#yaku).
TEN_NINE_TWELVE = {"Y09": (TEN_OF_SWORDS, NINE_OF_SWORDS, KING_OF_SWORDS),
                   "Y10": (TEN_OF_CLUBS, NINE_OF_CLUBS, KING_OF_CLUBS)}
RAIN_MAN_BACK = {"Y02": (ONE_OF_CLUBS, RAIN_MAN, THREE_OF_CLUBS),
                 "Y04": (ONE_OF_CLUBS, RAIN_MAN, TEN_OF_CLUBS)}

# docs/tensho.md#supersession: which yaku each 4-card yaku cancels, per tensho.supersession mode.
SUPERSESSION = {
    "none": {},
    "set_specific_subsets": {"Y21": {"Y15", "Y17", "Y19"}, "Y22": {"Y16", "Y18", "Y20"},
                             "Y29": {"Y25", "Y27"}, "Y30": {"Y26", "Y28"}},
    "all_subsets": {"Y21": {"Y15", "Y17", "Y19"}, "Y22": {"Y16", "Y18", "Y20"},
                    "Y29": {"Y25", "Y27", "Y07"}, "Y30": {"Y26", "Y28", "Y08"}},
    "young_old_only": {"Y29": {"Y25", "Y27"}, "Y30": {"Y26", "Y28"}},
}


def yaku_cards(y: RulesYaku, ten_horse_king: str = "10_11_12", back_two_card: str = "swallow"):
    if ten_horse_king == "10_9_12" and y.key in TEN_NINE_TWELVE:
        return TEN_NINE_TWELVE[y.key]
    if back_two_card == "rain_man" and y.key in RAIN_MAN_BACK:
        return RAIN_MAN_BACK[y.key]
    return y.cards


def completed_yaku(pile: Iterable[int], yaku_set: int, **variants) -> set[str]:
    """Keys of the set's yaku (instant ones included) whose cards are all in ``pile``."""
    pile = set(pile)
    return {y.key for y in RULES_YAKU
            if y.value(yaku_set) is not None and set(yaku_cards(y, **variants)) <= pile}


def scoring_yaku(pile: Iterable[int], yaku_set: int, supersession: str = "set_specific_subsets",
                 **variants) -> set[str]:
    """Completed yaku left after supersession (docs/tensho.md#supersession)."""
    done = completed_yaku(pile, yaku_set, **variants)
    cancelled = set()
    for key in done:
        cancelled |= SUPERSESSION[supersession].get(key, set())
    return done - cancelled


def yaku_points(keys: Iterable[str], yaku_set: int) -> int:
    total = 0
    for key in keys:
        value = YAKU_BY_KEY[key].value(yaku_set)
        total += value if isinstance(value, int) else 0
    return total


# --- building deals ---------------------------------------------------------------------------


def build_deck(field: Sequence[int], dealer_hand: Sequence[int], other_hand: Sequence[int],
               draw: Sequence[int] = ()) -> list[int]:
    """A 45-id deck in canonical slot order.

    ``draw`` is the top of the draw pile (turned first).  Hands shorter than 6 cards and the
    rest of the draw pile and the dead cards are filled, in ascending id order, with the cards
    not named; a test that lets such a card be played or turned must name it.
    """
    named = list(field) + list(dealer_hand) + list(other_hand) + list(draw)
    if len(set(named)) != len(named):
        raise ValueError(f"a card is named twice: {sorted(c for c in named if named.count(c) > 1)}")
    if len(field) != 9 or len(dealer_hand) > 6 or len(other_hand) > 6 or len(draw) > 18:
        raise ValueError("the field takes 9 cards, hands at most 6, the draw pile at most 18")
    rest = [c for c in ALL_CARDS if c not in set(named)]
    dealer_hand = list(dealer_hand) + [rest.pop(0) for _ in range(6 - len(dealer_hand))]
    other_hand = list(other_hand) + [rest.pop(0) for _ in range(6 - len(other_hand))]
    deck = list(field) + dealer_hand + other_hand + list(draw) + rest
    assert sorted(deck) == list(ALL_CARDS)
    return deck


@dataclass(frozen=True)
class TurnDeal:
    """A deal built turn by turn, with the play decisions of those turns."""

    deck: list[int]
    plays: list[int]  # the hand card of each listed turn, except forced ones (a 1-card hand)
    piles: tuple[frozenset[int], frozenset[int]]  # what each seat captures, by the pair law
    turns: list[tuple[int, int]]


def turns_deal(field: Sequence[int], turns: Sequence[tuple[int, int]], *, first: int = 0,
               dealer: int = 0) -> TurnDeal:
    """Build a deal from the field and the (played, turned) cards of each turn, in turn order.

    Turn ``i`` (0-based) is taken by seat ``(first + i) % 2``.  Seats not given six turns get
    unnamed filler cards (see ``build_deck``), so use fewer turns only for a round that ends
    early.

    ``piles`` applies the *pair law* that most tests are built on: when both cards of a turn
    have the same rank and no field card has that rank, the played card goes to the field
    (nothing matches it) and the turned card then matches exactly it, so the active seat
    captures both (docs/tensho.md#a-round, step 4).  A turn whose played card is the 6 of clubs
    captures it alone (the same step); ``piles`` is only filled when every turn is one of these.
    """
    hands: list[list[int]] = [[], []]
    for i, (played, _) in enumerate(turns):
        hands[(first + i) % 2].append(played)
    draw = [turned for _, turned in turns]
    deck = build_deck(field, hands[dealer], hands[1 - dealer], draw)
    hand_sizes = [6, 6]
    plays = []
    for i, (played, _) in enumerate(turns):
        seat = (first + i) % 2
        if hand_sizes[seat] > 1:
            plays.append(played)
        hand_sizes[seat] -= 1
    field_ranks = {rank(c) for c in field}
    piles: list[set[int]] = [set(), set()]
    lawful = True
    for i, (played, turned) in enumerate(turns):
        seat = (first + i) % 2
        if rank(played) == rank(turned) and rank(played) not in field_ranks:
            piles[seat] |= {played, turned}
        else:
            lawful = False
    return TurnDeal(deck, plays, (frozenset(piles[0]), frozenset(piles[1])) if lawful else
                    (frozenset(), frozenset()), list(turns))


@dataclass(frozen=True)
class Showcase:
    """A deal in which seat 0 (dealer, first to play) captures a chosen set of cards."""

    deck: list[int]
    plays: list[int]
    piles: tuple[frozenset[int], frozenset[int]]
    field: tuple[int, ...]


def showcase_deal(target: Sequence[int], yaku_set: int, *, exclude: Iterable[int] = (),
                  **variants) -> Showcase:
    """A deal where seat 0 completes exactly the yaku made of ``target`` cards and seat 1 none.

    Construction (every turn obeys the pair law of ``turns_deal``): five ranks other than the
    target's go to the field (two cards each of four ranks and one of the fifth, so no triple);
    the other six ranks are played as twelve same-rank pairs, the pairs holding target cards
    going to seat 0.  If the 6 of clubs is a target card, seat 0 plays it (it goes straight to
    his pile) and turns the partner of the lone field card of the fifth rank, which takes it.
    Among such deals the first (in a fixed search order) is returned in which, by the yaku table
    of docs/tensho.md#yaku, seat 0's pile completes exactly the yaku whose cards are all targets and
    seat 1's pile completes none.  Cards in ``exclude`` are kept out of seat 0's pile.
    """
    exclude = set(exclude)
    six = SIX_OF_CLUBS in target
    faces = [c for c in target if c != SIX_OF_CLUBS]
    target_ranks = sorted({rank(c) for c in faces})
    wanted = {y.key for y in RULES_YAKU if y.value(yaku_set) is not None
              and set(yaku_cards(y, **variants)) <= set(target)}
    others = [r for r in RANKS_OF_FOUR if r not in target_ranks]
    for field_ranks in combinations(others, 5):
        pair_ranks = target_ranks + [r for r in others if r not in field_ranks]
        lone_rank = field_ranks[-1]
        field = [c for r in field_ranks[:4] for c in (COIN[r], CUP[r])] + [COIN[lone_rank]]
        # try first the splits that pair each target card with a coin or cup
        orders = [(1, 2, 0) if r in target_ranks else (0, 1, 2) for r in pair_ranks]
        for splits in product(*orders):
            pairs = []
            for r, split in zip(pair_ranks, splits, strict=True):
                club, sword, coin, cup = CLUB[r], SWORD[r], COIN[r], CUP[r]
                pairs += [[(coin, cup), (club, sword)], [(coin, club), (cup, sword)],
                          [(coin, sword), (cup, club)]][split]
            mine = [p for p in pairs if set(p) & set(faces)]
            rest = [p for p in pairs if not set(p) & set(faces)]
            need0 = 6 - len(mine) - (1 if six else 0)
            unused = 1 if six else 0
            if need0 < 0:
                continue
            for chosen in combinations(range(len(rest)), need0 + unused):
                for skip in combinations(chosen, unused):
                    seat0 = mine + [rest[i] for i in chosen if i not in skip]
                    seat1 = [rest[i] for i in range(len(rest)) if i not in chosen]
                    pile0 = {c for p in seat0 for c in p}
                    pile1 = {c for p in seat1 for c in p}
                    if six:
                        pile0 |= {SIX_OF_CLUBS, COIN[lone_rank], CUP[lone_rank]}
                    if (pile0 & exclude or completed_yaku(pile0, yaku_set, **variants) != wanted
                            or completed_yaku(pile1, yaku_set, **variants)):
                        continue
                    turns0 = [(a, b) for a, b in seat0]
                    if six:
                        turns0.append((SIX_OF_CLUBS, CUP[lone_rank]))
                    turns = [t for pair in zip(turns0, seat1, strict=True) for t in pair]
                    deal = turns_deal(field, turns)
                    return Showcase(deal.deck, deal.plays, (frozenset(pile0), frozenset(pile1)),
                                    tuple(field))
    raise AssertionError(f"no showcase deal for {target}")


def junk_pairs(ranks: Iterable[int]) -> list[tuple[int, int]]:
    """(coin, cup) turns of the given ranks: chaff only, never part of a yaku."""
    return [(COIN[r], CUP[r]) for r in ranks]
