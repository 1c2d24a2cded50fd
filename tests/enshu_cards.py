"""Named Enshu-bana card ids, the rules' tables typed in by hand, and a deal builder for the tests.

The tables are typed from docs/enshu.md#cards-and-yaku, not read from the shipped rule files, so a
test comparing the engine (which reads the rule files) with them is a real check.

Deals are given in dealing order (docs/enshu.md#a-round): the field first, then the hands of the
dealer and of the following seats in turn order, then the draw pile from the top.
"""

from __future__ import annotations

from collections.abc import Sequence

from simcore.cards import HANAFUDA48


def _id(name: str) -> int:
    return HANAFUDA48.card_id(name)


PINE_CRANE = _id("Pine Crane")
PINE_RIBBON = _id("Pine Poetry ribbon")
PINE_CHAFF_1 = _id("Pine Chaff 1")
PINE_CHAFF_2 = _id("Pine Chaff 2")
PLUM_WARBLER = _id("Plum Bush Warbler")
PLUM_RIBBON = _id("Plum Poetry ribbon")
PLUM_CHAFF_1 = _id("Plum Chaff 1")
PLUM_CHAFF_2 = _id("Plum Chaff 2")
CHERRY_CURTAIN = _id("Cherry Curtain")
CHERRY_RIBBON = _id("Cherry Poetry ribbon")
CHERRY_CHAFF_1 = _id("Cherry Chaff 1")
CHERRY_CHAFF_2 = _id("Cherry Chaff 2")
WISTERIA_CUCKOO = _id("Wisteria Cuckoo")
WISTERIA_RIBBON = _id("Wisteria Plain ribbon")
WISTERIA_CHAFF_1 = _id("Wisteria Chaff 1")
WISTERIA_CHAFF_2 = _id("Wisteria Chaff 2")
IRIS_BRIDGE = _id("Iris Eight-plank Bridge")
IRIS_RIBBON = _id("Iris Plain ribbon")
IRIS_CHAFF_1 = _id("Iris Chaff 1")
IRIS_CHAFF_2 = _id("Iris Chaff 2")
PEONY_BUTTERFLIES = _id("Peony Butterflies")
PEONY_RIBBON = _id("Peony Blue ribbon")
PEONY_CHAFF_1 = _id("Peony Chaff 1")
PEONY_CHAFF_2 = _id("Peony Chaff 2")
CLOVER_BOAR = _id("Bush Clover Boar")
CLOVER_RIBBON = _id("Bush Clover Plain ribbon")
CLOVER_CHAFF_1 = _id("Bush Clover Chaff 1")
CLOVER_CHAFF_2 = _id("Bush Clover Chaff 2")
SUSUKI_MOON = _id("Susuki Moon")
SUSUKI_GEESE = _id("Susuki Geese")
SUSUKI_CHAFF_1 = _id("Susuki Chaff 1")
SUSUKI_CHAFF_2 = _id("Susuki Chaff 2")
CHRYS_SAKE_CUP = _id("Chrysanthemum Sake Cup")
CHRYS_RIBBON = _id("Chrysanthemum Blue ribbon")
CHRYS_CHAFF_1 = _id("Chrysanthemum Chaff 1")
CHRYS_CHAFF_2 = _id("Chrysanthemum Chaff 2")
MAPLE_DEER = _id("Maple Deer")
MAPLE_RIBBON = _id("Maple Blue ribbon")
MAPLE_CHAFF_1 = _id("Maple Chaff 1")
MAPLE_CHAFF_2 = _id("Maple Chaff 2")
WILLOW_RAIN_MAN = _id("Willow Rain Man")
WILLOW_SWALLOW = _id("Willow Swallow")
WILLOW_RIBBON = _id("Willow Plain ribbon")
WILLOW_LIGHTNING = _id("Willow Lightning")
PAULOWNIA_PHOENIX = _id("Paulownia Phoenix")
PAULOWNIA_YELLOW = _id("Paulownia Chaff (yellow bottom)")
PAULOWNIA_CHAFF_1 = _id("Paulownia Chaff 1")
PAULOWNIA_CHAFF_2 = _id("Paulownia Chaff 2")

# --- docs/enshu.md#cards-and-yaku --------------------------------------------------------------

BRIGHTS = frozenset({PINE_CRANE, CHERRY_CURTAIN, SUSUKI_MOON, PAULOWNIA_PHOENIX})
ANIMALS = frozenset({PLUM_WARBLER, WISTERIA_CUCKOO, IRIS_BRIDGE, PEONY_BUTTERFLIES, CLOVER_BOAR,
                     SUSUKI_GEESE, CHRYS_SAKE_CUP, MAPLE_DEER, WILLOW_RAIN_MAN, WILLOW_SWALLOW})
RIBBONS = frozenset({PINE_RIBBON, PLUM_RIBBON, CHERRY_RIBBON, WISTERIA_RIBBON, IRIS_RIBBON, PEONY_RIBBON,
                     CLOVER_RIBBON, CHRYS_RIBBON, MAPLE_RIBBON, WILLOW_RIBBON})
CHAFF = frozenset(range(48)) - BRIGHTS - ANIMALS - RIBBONS
WILLOW = frozenset({WILLOW_RAIN_MAN, WILLOW_SWALLOW, WILLOW_RIBBON, WILLOW_LIGHTNING})
IRIS, CHRYSANTHEMUM, PAULOWNIA = 5, 9, 12
ICP_MONTHS = (IRIS, CHRYSANTHEMUM, PAULOWNIA)


def month_of(card: int) -> int:
    return card // 4 + 1


def month_cards(month: int) -> list[int]:
    return [4 * (month - 1) + k for k in range(4)]


def card_points(card: int, bright: int) -> int:
    """docs/enshu.md#cards-and-yaku: Bright 20 or 30, Animal 10, Ribbon 5, Chaff 0."""
    if card in BRIGHTS:
        return bright
    if card in ANIMALS:
        return 10
    if card in RIBBONS:
        return 5
    return 0


# Dekiyaku of docs/enshu.md#cards-and-yaku (the same cards in every variant).
DEKIYAKU = {
    "shiko": frozenset(BRIGHTS),
    "akatan": frozenset({PINE_RIBBON, PLUM_RIBBON, CHERRY_RIBBON}),
    "aotan": frozenset({PEONY_RIBBON, CHRYS_RIBBON, MAPLE_RIBBON}),
    "tsukihoto": frozenset({SUSUKI_MOON, WISTERIA_CUCKOO}),
    "shishibo": frozenset({CLOVER_BOAR, PEONY_BUTTERFLIES}),
    "shishichu": frozenset({CLOVER_BOAR, WILLOW_RAIN_MAN}),
    "sokuyaku": frozenset({CLOVER_BOAR, PEONY_BUTTERFLIES, WILLOW_RAIN_MAN}),
    "negishi": frozenset(month_cards(IRIS)),
    "kikushi": frozenset(month_cards(CHRYSANTHEMUM)),
    "getashi": frozenset(month_cards(PAULOWNIA)),
}


def build_deck(field: Sequence[int], hands: Sequence[Sequence[int]], draw_top: Sequence[int] = (),
               draw_rest: Sequence[int] | None = None) -> list[int]:
    """A 48-card deck in dealing order.

    ``hands`` are in turn order from the dealer; ``draw_top`` is turned first; the remaining
    cards follow in ``draw_rest`` order (default: ascending ids).
    """
    placed = [*field, *(c for hand in hands for c in hand), *draw_top]
    if len(set(placed)) != len(placed):
        raise ValueError(f"a card is placed twice: {sorted(placed)}")
    rest = [c for c in range(48) if c not in set(placed)]
    if draw_rest is not None:
        if sorted(draw_rest) != rest:
            raise ValueError("draw_rest must hold exactly the unplaced cards")
        rest = list(draw_rest)
    return placed + rest
