"""Decks: card ids, names, ranks and kinds, and the uint64 masks built from them.

Two decks are defined (docs/tensho.md#cards and docs/enshu.md#cards-and-yaku):

* ``ise45`` -- the 45-card Ise deck used by Tensho, ids 0..44 rank-major (clubs, swords, coins,
  cups; the three removed sixes skipped).  The same 45 ids also carry the hanafuda "skin" of
  docs/tensho.md#cards (Nagoya month sequence), so every card can be printed either way.
* ``hanafuda48`` -- the standard 48-card hanafuda deck used by Enshu-bana, ids 0..47
  (``4 * (month - 1) + k``).

Every set of cards is a uint64 bit mask: bit ``i`` is card id ``i``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np

__all__ = [
    "Card",
    "Deck",
    "ISE45",
    "HANAFUDA48",
    "DECKS",
    "mask_of",
    "ids_of",
    "popcount",
]

ISE_SUITS = ("clubs", "swords", "coins", "cups")
ISE_SUIT_CODES = {"clubs": "C", "swords": "S", "coins": "Co", "cups": "Cu"}
ISE_RANK_NAMES = {1: "Dragon", 10: "Maid", 11: "Horse", 12: "King"}
ISE_RANK_ROMAJI = {
    1: "pin", 2: "ni", 3: "san", 4: "shi", 5: "go", 6: "roku", 7: "nana", 8: "hachi",
    9: "kyu", 10: "jū", 11: "uma", 12: "giri",
}


@dataclass(frozen=True)
class Card:
    """One card of a deck.

    ``rank`` is what matching uses (Ise rank 1..12 for ise45, month 1..12 for hanafuda48).
    ``code`` is a short skin-independent code ("1C", "2Co", ... for ise45; "1-0" style is not
    used for hanafuda48, whose code is the English name).
    """

    id: int
    rank: int
    code: str
    name: str
    hanafuda_name: str
    kind: str
    suit: str = ""
    role: str = ""


@dataclass(frozen=True)
class Deck:
    """An ordered deck; ``cards[i].id == i``."""

    key: str
    cards: tuple[Card, ...]
    ranks: int
    _lookup: dict[str, int] = field(default_factory=dict, compare=False, repr=False)
    _ambiguous: frozenset[str] = field(default_factory=frozenset, compare=False, repr=False)

    def __post_init__(self) -> None:
        for index, card in enumerate(self.cards):
            if card.id != index:
                raise ValueError(f"deck {self.key}: card {card.code} has id {card.id}, expected {index}")
        lookup: dict[str, int] = {}
        ambiguous: set[str] = set()
        for card in self.cards:
            for alias in {card.code, card.name, card.hanafuda_name}:
                key = _normalise(alias)
                if lookup.get(key, card.id) != card.id:
                    ambiguous.add(key)  # e.g. "Gasu pin" names both the 1 of coins and of cups
                lookup[key] = card.id
        for key in ambiguous:
            del lookup[key]
        object.__setattr__(self, "_lookup", lookup)
        object.__setattr__(self, "_ambiguous", frozenset(ambiguous))

    @property
    def size(self) -> int:
        """The number of cards in the deck."""
        return len(self.cards)

    @property
    def full_mask(self) -> int:
        """The mask of every card of the deck."""
        return (1 << self.size) - 1

    def card_id(self, ref: int | str) -> int:
        """Resolve a card reference (id, code, Ise name or hanafuda name) to an id.

        Raises ``KeyError`` with a readable message for an unknown reference.
        """
        if isinstance(ref, bool):
            raise KeyError(f"not a card: {ref!r}")
        if isinstance(ref, int):
            if 0 <= ref < self.size:
                return ref
            raise KeyError(f"card id {ref} is outside 0..{self.size - 1} of deck {self.key}")
        if isinstance(ref, str):
            key = _normalise(ref)
            if key.isdecimal() and key not in self._lookup:  # int() takes exactly the decimals
                return self.card_id(int(key))
            if key in self._lookup:
                return self._lookup[key]
            if key in self._ambiguous:
                raise KeyError(f"card name {ref!r} is ambiguous in deck {self.key}; use its code")
        raise KeyError(f"unknown card {ref!r} in deck {self.key}")

    def rank_mask(self, rank: int) -> int:
        """The mask of the cards of ``rank``."""
        mask = 0
        for card in self.cards:
            if card.rank == rank:
                mask |= 1 << card.id
        return mask

    def label(self, card_id: int, skin: str = "ise") -> str:
        """The card's display name in a skin ("ise" or "hanafuda")."""
        card = self.cards[card_id]
        if skin == "hanafuda":
            return card.hanafuda_name
        if self.key == "ise45":
            return f"{card.code} {card.name}"
        return card.name

    def rank_array(self) -> np.ndarray:
        """int8[64]: the rank of each card id (0 for ids outside the deck)."""
        ranks = np.zeros(64, dtype=np.int8)
        for card in self.cards:
            ranks[card.id] = card.rank
        return ranks


def _normalise(text: str) -> str:
    return " ".join(text.strip().lower().replace("_", " ").replace("-", " ").split())


def mask_of(ids: Iterable[int]) -> int:
    """The uint64 mask (as a Python int) of a collection of card ids."""
    mask = 0
    for card_id in ids:
        mask |= 1 << int(card_id)
    return mask


def ids_of(mask: int) -> list[int]:
    """Card ids in a mask, ascending."""
    mask = int(mask)
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def popcount(mask: int) -> int:
    """The number of cards in ``mask`` (its set bits)."""
    return int(mask).bit_count()


# --- Ise 45 -------------------------------------------------------------------------------

# Hanafuda name of each Tensho id (docs/tensho.md#cards, column "hanafuda card").
_ISE_TO_HANAFUDA = [
    "Pine Crane", "Pine Poetry ribbon", "Pine Chaff 1", "Pine Chaff 2",
    "Willow Swallow", "Willow Plain ribbon", "Willow Rain Man", "Willow Lightning",
    "Cherry Curtain", "Cherry Poetry ribbon", "Cherry Chaff 1", "Cherry Chaff 2",
    "Wisteria Cuckoo", "Wisteria Plain ribbon", "Wisteria Chaff 1", "Wisteria Chaff 2",
    "Iris Eight-plank Bridge", "Iris Plain ribbon", "Iris Chaff 1", "Iris Chaff 2",
    "Paulownia Phoenix",
    "Bush Clover Boar", "Bush Clover Plain ribbon", "Bush Clover Chaff 1", "Bush Clover Chaff 2",
    "Susuki Moon", "Susuki Geese", "Susuki Chaff 1", "Susuki Chaff 2",
    "Chrysanthemum Sake Cup", "Chrysanthemum Blue ribbon", "Chrysanthemum Chaff 1",
    "Chrysanthemum Chaff 2",
    "Maple Deer", "Maple Blue ribbon", "Maple Chaff 1", "Maple Chaff 2",
    "Peony Butterflies", "Peony Blue ribbon", "Peony Chaff 1", "Peony Chaff 2",
    "Plum Bush Warbler", "Plum Poetry ribbon", "Plum Chaff 1", "Plum Chaff 2",
]
# 48-card hanafuda id of each Tensho id (the same card in docs/enshu.md#cards-and-yaku).
ISE_TO_HANAFUDA48 = [
    0, 1, 2, 3, 41, 42, 40, 43, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 44,
    24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 20, 21, 22, 23,
    4, 5, 6, 7,
]
_ISE_SPECIAL_NAMES = {
    (1, "clubs"): "Doro pin", (1, "swords"): "Aka pin",
    (2, "coins"): "Taiko ni", (2, "cups"): "Neburi no ni",
    (10, "swords"): "Surume jū",
}


def _ise_name(rank: int, suit: str) -> str:
    if (rank, suit) in _ISE_SPECIAL_NAMES:
        return _ISE_SPECIAL_NAMES[(rank, suit)]
    prefix = {"clubs": "Ao", "swords": "Aka", "coins": "Gasu", "cups": "Gasu"}[suit]
    return f"{prefix} {ISE_RANK_ROMAJI[rank]}"


def _build_ise45() -> Deck:
    cards: list[Card] = []
    for rank in range(1, 13):
        for suit in ISE_SUITS:
            if rank == 6 and suit != "clubs":
                continue  # the 6 of swords, coins and cups are removed for Tensho
            card_id = len(cards)
            role = {"clubs": "back", "swords": "front"}.get(suit, "")
            kind = {"clubs": "ao", "swords": "aka"}.get(suit, "gasu")
            code = f"{rank}{ISE_SUIT_CODES[suit]}"
            cards.append(
                Card(
                    id=card_id,
                    rank=rank,
                    code=code,
                    name=_ise_name(rank, suit),
                    hanafuda_name=_ISE_TO_HANAFUDA[card_id],
                    kind=kind,
                    suit=suit,
                    role=role,
                )
            )
    return Deck(key="ise45", cards=tuple(cards), ranks=12)


# --- Hanafuda 48 --------------------------------------------------------------------------

_MONTHS = [
    ("Pine", ["Crane", "Poetry ribbon", "Chaff 1", "Chaff 2"], ["bright", "ribbon", "chaff", "chaff"]),
    ("Plum", ["Bush Warbler", "Poetry ribbon", "Chaff 1", "Chaff 2"], ["animal", "ribbon", "chaff", "chaff"]),
    ("Cherry", ["Curtain", "Poetry ribbon", "Chaff 1", "Chaff 2"], ["bright", "ribbon", "chaff", "chaff"]),
    ("Wisteria", ["Cuckoo", "Plain ribbon", "Chaff 1", "Chaff 2"], ["animal", "ribbon", "chaff", "chaff"]),
    ("Iris", ["Eight-plank Bridge", "Plain ribbon", "Chaff 1", "Chaff 2"], ["animal", "ribbon", "chaff", "chaff"]),
    ("Peony", ["Butterflies", "Blue ribbon", "Chaff 1", "Chaff 2"], ["animal", "ribbon", "chaff", "chaff"]),
    ("Bush Clover", ["Boar", "Plain ribbon", "Chaff 1", "Chaff 2"], ["animal", "ribbon", "chaff", "chaff"]),
    ("Susuki", ["Moon", "Geese", "Chaff 1", "Chaff 2"], ["bright", "animal", "chaff", "chaff"]),
    ("Chrysanthemum", ["Sake Cup", "Blue ribbon", "Chaff 1", "Chaff 2"], ["animal", "ribbon", "chaff", "chaff"]),
    ("Maple", ["Deer", "Blue ribbon", "Chaff 1", "Chaff 2"], ["animal", "ribbon", "chaff", "chaff"]),
    ("Willow", ["Rain Man", "Swallow", "Plain ribbon", "Lightning"], ["animal", "animal", "ribbon", "chaff"]),
    ("Paulownia", ["Phoenix", "Chaff (yellow bottom)", "Chaff 1", "Chaff 2"], ["bright", "chaff", "chaff", "chaff"]),
]


def _build_hanafuda48() -> Deck:
    cards = []
    for month_index, (flower, names, kinds) in enumerate(_MONTHS):
        for k in range(4):
            card_id = 4 * month_index + k
            name = f"{flower} {names[k]}"
            cards.append(
                Card(
                    id=card_id,
                    rank=month_index + 1,
                    code=f"M{month_index + 1}-{k}",
                    name=name,
                    hanafuda_name=name,
                    kind=kinds[k],
                    suit=flower,
                )
            )
    return Deck(key="hanafuda48", cards=tuple(cards), ranks=12)


ISE45 = _build_ise45()
HANAFUDA48 = _build_hanafuda48()
DECKS = {ISE45.key: ISE45, HANAFUDA48.key: HANAFUDA48}

# Named Tensho ids used across the engine (docs/tensho.md#cards).
SIX_OF_CLUBS = ISE45.card_id("6C")
