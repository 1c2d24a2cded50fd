"""Named koi-koi card ids, the card classes typed in by hand, and a deal builder for the tests.

The classes are typed from docs/koikoi.md#cards (KoiKoi-AI's ``KoiKoiCard``), not read from the
shipped rule files, so a test comparing the engine (which reads the rule files) with them is a
real check. A card is also named as the game records write it: ``card(month, k)``.

Deals are given in dealing order (docs/koikoi.md#a-round): the dealer's hand, the other hand,
the field, then the draw pile from the top.
"""

from __future__ import annotations

from collections.abc import Sequence

from simcore.games.koikoi import enums as E
from simcore.games.koikoi.compile import CompiledRules, compile_rules
from simcore.games.koikoi.reference import RoundSetup, RoundState
from simcore.games.koikoi.rules import RuleSet
from simcore.rules import load_rules


def card(month: int, k: int) -> int:
    """The id of the record's card ``[month, k]``."""
    return 4 * (month - 1) + k - 1


PINE_CRANE, PINE_RIBBON, PINE_CHAFF_1, PINE_CHAFF_2 = (card(1, k) for k in range(1, 5))
PLUM_WARBLER, PLUM_RIBBON, PLUM_CHAFF_1, PLUM_CHAFF_2 = (card(2, k) for k in range(1, 5))
CHERRY_CURTAIN, CHERRY_RIBBON, CHERRY_CHAFF_1, CHERRY_CHAFF_2 = (card(3, k) for k in range(1, 5))
WISTERIA_CUCKOO, WISTERIA_RIBBON, WISTERIA_CHAFF_1, WISTERIA_CHAFF_2 = (card(4, k) for k in range(1, 5))
IRIS_BRIDGE, IRIS_RIBBON, IRIS_CHAFF_1, IRIS_CHAFF_2 = (card(5, k) for k in range(1, 5))
PEONY_BUTTERFLIES, PEONY_RIBBON, PEONY_CHAFF_1, PEONY_CHAFF_2 = (card(6, k) for k in range(1, 5))
CLOVER_BOAR, CLOVER_RIBBON, CLOVER_CHAFF_1, CLOVER_CHAFF_2 = (card(7, k) for k in range(1, 5))
SUSUKI_MOON, SUSUKI_GEESE, SUSUKI_CHAFF_1, SUSUKI_CHAFF_2 = (card(8, k) for k in range(1, 5))
CHRYS_SAKE_CUP, CHRYS_RIBBON, CHRYS_CHAFF_1, CHRYS_CHAFF_2 = (card(9, k) for k in range(1, 5))
MAPLE_DEER, MAPLE_RIBBON, MAPLE_CHAFF_1, MAPLE_CHAFF_2 = (card(10, k) for k in range(1, 5))
WILLOW_RAIN_MAN, WILLOW_SWALLOW, WILLOW_RIBBON, WILLOW_LIGHTNING = (card(11, k) for k in range(1, 5))
PAULOWNIA_PHOENIX, PAULOWNIA_YELLOW, PAULOWNIA_CHAFF_1, PAULOWNIA_CHAFF_2 = (card(12, k) for k in range(1, 5))

# --- docs/koikoi.md#cards (KoiKoi-AI koikoigame.py, class KoiKoiCard) --------------------------
BRIGHTS = (PINE_CRANE, CHERRY_CURTAIN, SUSUKI_MOON, WILLOW_RAIN_MAN, PAULOWNIA_PHOENIX)
DRY_BRIGHTS = (PINE_CRANE, CHERRY_CURTAIN, SUSUKI_MOON, PAULOWNIA_PHOENIX)
ANIMALS = (PLUM_WARBLER, WISTERIA_CUCKOO, IRIS_BRIDGE, PEONY_BUTTERFLIES, CLOVER_BOAR, SUSUKI_GEESE,
           CHRYS_SAKE_CUP, MAPLE_DEER, WILLOW_SWALLOW)
BOAR_DEER_BUTTERFLY = (CLOVER_BOAR, MAPLE_DEER, PEONY_BUTTERFLIES)
OTHER_ANIMALS = tuple(x for x in ANIMALS if x not in BOAR_DEER_BUTTERFLY and x != CHRYS_SAKE_CUP)
RED_RIBBONS = (PINE_RIBBON, PLUM_RIBBON, CHERRY_RIBBON)
BLUE_RIBBONS = (PEONY_RIBBON, CHRYS_RIBBON, MAPLE_RIBBON)
PLAIN_RIBBONS = (WISTERIA_RIBBON, IRIS_RIBBON, CLOVER_RIBBON, WILLOW_RIBBON)
RIBBONS = RED_RIBBONS + BLUE_RIBBONS + PLAIN_RIBBONS
CHAFF = tuple(x for x in range(48) if x not in BRIGHTS + ANIMALS + RIBBONS)  # 24, not the Sake Cup
assert len(CHAFF) == 24


def mask(cards: Sequence[int]) -> int:
    """The mask of ``cards``."""
    out = 0
    for x in cards:
        out |= 1 << x
    return out


def month_cards(month: int) -> list[int]:
    """The four cards of ``month``."""
    return [card(month, k) for k in range(1, 5)]


def load(name: str = "koikoi", overrides: dict[str, str] | None = None) -> RuleSet:
    """A shipped koi-koi rule set with ``--option`` overrides."""
    rules: RuleSet = load_rules(name, overrides)
    return rules


def compiled(name: str = "koikoi", **options: str | int) -> CompiledRules:
    """A shipped rule set with ``koikoi.NAME = value`` overrides, compiled."""
    return compile_rules(load(name, {f"koikoi.{key}": str(value) for key, value in options.items()}))


def build_deck(dealer_hand: Sequence[int], other_hand: Sequence[int], field: Sequence[int],
               draw_top: Sequence[int] = ()) -> list[int]:
    """A 48-card deck in dealing order; the draw pile after ``draw_top`` is the other cards in id
    order."""
    given = list(dealer_hand) + list(other_hand) + list(field) + list(draw_top)
    assert len(dealer_hand) == 8 and len(other_hand) == 8 and len(field) == 8
    assert len(set(given)) == len(given), "a card is given twice"
    return given + [x for x in range(48) if x not in given]


# A deal without a dealt hand or a misdeal: each 8-card block holds eight different months.
PLAIN_DECK = [4 * m + k for k in range(4) for m in range(12)]


def position(c: CompiledRules, *, turn: int, hands: Sequence[Sequence[int]], field: Sequence[int],
             piles: Sequence[Sequence[int]] = ((), ()), draw_top: Sequence[int] = (), dealer: int = 0,
             calls: Sequence[int] = (0, 0), month: int = 1, trace: bool = True) -> RoundState:
    """A round paused at the start of ``turn`` (the dealer plays the odd turns) with the cards as
    given (seats 0 and 1); the draw pile is ``draw_top`` then every card not given, in id order."""
    state = RoundState(c, RoundSetup(seed=1, round_index=0, round_in_match=month - 1, dealer=dealer),
                       deck=PLAIN_DECK, trace=trace)
    given = [x for group in (*hands, field, *piles, draw_top) for x in group]
    assert len(set(given)) == len(given), "a card is given twice"
    state.hands = [mask(hands[0]), mask(hands[1])]
    state.field = mask(field)
    state.piles = [mask(piles[0]), mask(piles[1])]
    state.draw = list(draw_top) + [x for x in range(48) if x not in given]
    assert len(state.draw) >= E.TURNS - turn + 1, "too few cards left to draw"
    state.calls = list(calls)
    state.turn = turn - 1
    state.events = []
    state.next_turn()
    return state
