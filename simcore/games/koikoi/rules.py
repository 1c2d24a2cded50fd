"""Koi-koi's rule files: the rule set (``RuleSet``, ``Yaku``) and its validation (``build_rules``).

``simcore.rules.load_rules`` hands a file whose ``[game] name`` is ``koikoi`` to ``build_rules``,
which validates every key, resolves every option (``options.OPTIONS``) and builds the yaku
table: koi-koi's yaku are one fixed family (``YAKU_TABLE``, in bit order) whose cards come from
the file's ``[cards]`` table and whose points and stacking from its options; ``compile`` then
lowers the rule set to the engines' arrays.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from simcore.cards import HANAFUDA48, mask_of
from simcore.games.koikoi import enums as E
from simcore.games.koikoi.options import OPTIONS
from simcore.hanafuda import month_mask, month_of
from simcore.rules.checks import Checker, file_fields
from simcore.rules.loader import BaseRuleSet, BaseYaku

__all__ = ["CARD_CLASSES", "RuleSet", "YAKU_TABLE", "Yaku", "YakuInfo", "build_rules"]


@dataclass(frozen=True)
class YakuInfo(BaseYaku):
    """One yaku of koi-koi's fixed family: its bit, key, names, the option that gives its points
    (None: a counting yaku, 1 point at ``minimum`` cards and 1 more per further card) and what it
    is made of."""

    option: str | None
    made_of: str  # for people (``fudasim rules show``, the docs)


YAKU_TABLE: tuple[YakuInfo, ...] = (
    YakuInfo(E.Y_FIVE_BRIGHTS, "goko", "Goko", "Five Brights", "koikoi.five_brights", "the five brights"),
    YakuInfo(E.Y_FOUR_BRIGHTS, "shiko", "Shiko", "Four Brights", "koikoi.four_brights",
             "four brights, not the Rain Man"),
    YakuInfo(E.Y_RAINY_FOUR_BRIGHTS, "ame_shiko", "Ame-shiko", "Rainy Four Brights", "koikoi.rainy_four_brights",
             "four brights with the Rain Man"),
    YakuInfo(E.Y_THREE_BRIGHTS, "sanko", "Sanko", "Three Brights", "koikoi.three_brights",
             "three brights, not the Rain Man"),
    YakuInfo(E.Y_BOAR_DEER_BUTTERFLY, "inoshikacho", "Inoshikacho", "Boar-Deer-Butterfly",
             "koikoi.boar_deer_butterfly", "the boar, the deer and the butterflies"),
    YakuInfo(E.Y_HANAMI, "hanami", "Hanami-zake", "Flower-viewing Sake", "koikoi.hanami",
             "the curtain and the sake cup"),
    YakuInfo(E.Y_TSUKIMI, "tsukimi", "Tsukimi-zake", "Moon-viewing Sake", "koikoi.tsukimi",
             "the moon and the sake cup"),
    YakuInfo(E.Y_TANE, "tane", "Tane", "Animals", None, f"{E.TANE_MIN} animals, +1 per further animal"),
    YakuInfo(E.Y_AKATAN, "akatan", "Akatan", "Red Poetry Ribbons", "koikoi.red_ribbons", "the three red ribbons"),
    YakuInfo(E.Y_AOTAN, "aotan", "Aotan", "Blue Ribbons", "koikoi.blue_ribbons", "the three blue ribbons"),
    YakuInfo(E.Y_AKATAN_AOTAN, "akatan_aotan", "Akatan-aotan", "Red and Blue Ribbons", "koikoi.red_and_blue",
             "the three red and the three blue ribbons"),
    YakuInfo(E.Y_TAN, "tan", "Tan", "Ribbons", None, f"{E.TAN_MIN} ribbons, +1 per further ribbon"),
    YakuInfo(E.Y_KASU, "kasu", "Kasu", "Chaff", None, f"{E.KASU_MIN} chaff, +1 per further chaff"),
    YakuInfo(E.Y_TSUKIFUDA, "tsukifuda", "Tsuki-fuda", "Cards of the Month", "koikoi.tsukifuda",
             "the four cards of the round's month"),
    YakuInfo(E.Y_TESHI, "teshi", "Teshi", "Four of a Month (dealt)", "koikoi.teshi_value",
             "four cards of a month dealt to the hand"),
    YakuInfo(E.Y_KUTTSUKI, "kuttsuki", "Kuttsuki", "Four Pairs (dealt)", "koikoi.kuttsuki_value",
             "two cards of each of four months dealt to the hand"),
)

# The [cards] table: class key -> (index in ``RuleSet.classes``, a list of cards or one card).
CARD_CLASSES: dict[str, tuple[int, bool]] = {
    "brights": (E.K_BRIGHTS, True),
    "animals": (E.K_ANIMALS, True),
    "ribbons": (E.K_RIBBONS, True),
    "chaff": (E.K_CHAFF, True),
    "red_ribbons": (E.K_RED_RIBBONS, True),
    "blue_ribbons": (E.K_BLUE_RIBBONS, True),
    "boar_deer_butterfly": (E.K_BOAR_DEER_BUTTERFLY, True),
    "rain_man": (E.K_RAIN_MAN, False),
    "sake_cup": (E.K_SAKE_CUP, False),
    "curtain": (E.K_CURTAIN, False),
    "moon": (E.K_MOON, False),
    "lightning": (E.K_LIGHTNING, False),
}


@dataclass(frozen=True)
class Yaku(BaseYaku):
    """One yaku of a rule set: its bit ``index``, names, its cards (``mask``; for a counting
    yaku the cards counted) and its points (0: not played; a counting yaku's base point)."""

    mask: int
    value: int
    counting: bool


@dataclass(frozen=True)
class RuleSet(BaseRuleSet):
    """A validated koi-koi rule set with every option resolved."""

    classes: tuple[int, ...]  # card masks by ``E.K_*``
    yaku: tuple[Yaku, ...]

    @property
    def skin(self) -> str:
        """The card names in use (hanafuda)."""
        return "hanafuda"

    @property
    def chaff_mask(self) -> int:
        """The cards Kasu counts (the Sake Cup with ``koikoi.sake_cup_chaff = true``)."""
        chaff = self.classes[E.K_CHAFF]
        if self.options["koikoi.sake_cup_chaff"] == "true":
            chaff |= self.classes[E.K_SAKE_CUP]
        return chaff


TOP_KEYS = {"game", "deal", "koikoi", "cards"}


def build_rules(name: str, source: str, text: str, data: dict, overrides: dict[str, Any]) -> RuleSet:
    """Validate a parsed koi-koi rule file (with ``--option`` overrides) into a ``RuleSet``.

    ``RulesError`` naming the file, the key and the problem if anything is wrong.
    """
    check = Checker(source)
    game = check.header(data, TOP_KEYS, {"name", "title", "deck", "players", "description"}, "koikoi", "koi-koi",
                        HANAFUDA48)
    check.two_players(game, "koi-koi")
    deal = check.table(data, "deal", {"hand", "field"})
    sizes = {k: check.integer(deal.get(k), f"deal.{k}") for k in ("hand", "field")}
    if sizes != {"hand": E.HAND_SIZE, "field": E.FIELD_SIZE}:
        raise check.fail("deal", f"koi-koi deals {E.HAND_SIZE} cards to each hand and {E.FIELD_SIZE} to the field")
    options = _options(check, data, overrides)
    classes = _classes(check, data)
    yaku = _yaku_table(classes, options)
    _check_sums(source, options)
    return RuleSet(
        **file_fields(name, source, text, "koikoi", game, HANAFUDA48, options, overrides),
        players=2,
        classes=classes,
        yaku=yaku,
    )


def _options(check: Checker, data: dict, overrides: dict[str, Any]) -> dict[str, str | int]:
    values = check.option_values(data, "koikoi", OPTIONS, overrides)
    return {spec.name: values.get(spec.name, spec.default) for spec in OPTIONS.values()}


def _classes(check: Checker, data: dict) -> tuple[int, ...]:
    """The card classes of the ``[cards]`` table, checked against one another (``E.K_*`` order)."""
    table = check.table(data, "cards", set(CARD_CLASSES))
    masks = [0] * E.N_CLASSES
    for key, (index, is_list) in CARD_CLASSES.items():
        where = f"cards.{key}"
        if key not in table:
            raise check.fail(where, "missing" + (" list of cards" if is_list else " card"))
        value = table[key]
        if is_list:
            masks[index] = mask_of(check.cards(HANAFUDA48, value, where))
        else:
            if isinstance(value, list):
                raise check.fail(where, f"expected one card, got a list {value!r}")
            masks[index] = mask_of(check.cards(HANAFUDA48, [value], where))
    kinds = ("brights", "animals", "ribbons", "chaff")
    seen = 0
    for key in kinds:
        mask = masks[CARD_CLASSES[key][0]]
        overlap = seen & mask
        if overlap:
            card = HANAFUDA48.label((overlap & -overlap).bit_length() - 1, "hanafuda")
            raise check.fail(f"cards.{key}", f"{card!r} is in two of brights, animals, ribbons and chaff")
        seen |= mask
    if seen != HANAFUDA48.full_mask:
        missing = HANAFUDA48.full_mask & ~seen
        card = HANAFUDA48.label((missing & -missing).bit_length() - 1, "hanafuda")
        raise check.fail("cards", f"{card!r} is in none of brights, animals, ribbons and chaff: each card "
                                  "of the deck is in exactly one")
    within = (("red_ribbons", "ribbons", 3), ("blue_ribbons", "ribbons", 3), ("boar_deer_butterfly", "animals", 3),
              ("rain_man", "brights", 1), ("curtain", "brights", 1), ("moon", "brights", 1),
              ("sake_cup", "animals", 1), ("lightning", "chaff", 1))
    for key, parent, count in within:
        mask = masks[CARD_CLASSES[key][0]]
        if mask & ~masks[CARD_CLASSES[parent][0]]:
            raise check.fail(f"cards.{key}", f"must be among cards.{parent}")
        if mask.bit_count() != count:
            raise check.fail(f"cards.{key}", f"expected {count} card{'s' if count > 1 else ''}, got {mask.bit_count()}")
    if masks[E.K_RED_RIBBONS] & masks[E.K_BLUE_RIBBONS]:
        raise check.fail("cards.blue_ribbons", "shares a card with cards.red_ribbons")
    if len({masks[E.K_RAIN_MAN], masks[E.K_CURTAIN], masks[E.K_MOON]}) != 3:
        raise check.fail("cards", "rain_man, curtain and moon must be three different brights")
    masks[E.K_WILLOW] = month_mask(month_of(masks[E.K_RAIN_MAN].bit_length() - 1))
    return tuple(masks)


def _yaku_table(classes: tuple[int, ...], options: dict[str, str | int]) -> tuple[Yaku, ...]:
    """The rule set's yaku in bit order: ``YAKU_TABLE`` with its cards and points."""
    chaff = classes[E.K_CHAFF] | (classes[E.K_SAKE_CUP] if options["koikoi.sake_cup_chaff"] == "true" else 0)
    masks = {
        E.Y_FIVE_BRIGHTS: classes[E.K_BRIGHTS],
        E.Y_FOUR_BRIGHTS: classes[E.K_BRIGHTS] & ~classes[E.K_RAIN_MAN],
        E.Y_RAINY_FOUR_BRIGHTS: classes[E.K_BRIGHTS],
        E.Y_THREE_BRIGHTS: classes[E.K_BRIGHTS] & ~classes[E.K_RAIN_MAN],
        E.Y_BOAR_DEER_BUTTERFLY: classes[E.K_BOAR_DEER_BUTTERFLY],
        E.Y_HANAMI: classes[E.K_CURTAIN] | classes[E.K_SAKE_CUP],
        E.Y_TSUKIMI: classes[E.K_MOON] | classes[E.K_SAKE_CUP],
        E.Y_TANE: classes[E.K_ANIMALS],
        E.Y_AKATAN: classes[E.K_RED_RIBBONS],
        E.Y_AOTAN: classes[E.K_BLUE_RIBBONS],
        E.Y_AKATAN_AOTAN: classes[E.K_RED_RIBBONS] | classes[E.K_BLUE_RIBBONS],
        E.Y_TAN: classes[E.K_RIBBONS],
        E.Y_KASU: chaff,
        E.Y_TSUKIFUDA: 0,  # the round's month
        E.Y_TESHI: 0,  # dealt hands
        E.Y_KUTTSUKI: 0,
    }
    out = []
    for info in YAKU_TABLE:
        value = 1 if info.option is None else int(options[info.option])
        out.append(Yaku(info.index, info.key, info.name, info.english, masks[info.index], value,
                        counting=info.option is None))
    return tuple(out)


def _check_sums(source: str, options: dict[str, str | int]) -> None:
    """Every sum of the file's numbers fits its type (see ``simcore.rules.bounds``).

    A round's yaku points (every yaku at once, the counting yaku and the extra points at their
    most) are the int32 column ``yaku_points_*``; times the largest multiplier (x2 at seven, then
    x17 with koikoi_bonus = calls_plus_one and 16 calls) they are ``score_*``; a match of up to
    ``MAX_MATCH_ROUNDS`` rounds adds them, from the starting points, into ``match_points_*``.
    """
    from simcore.rules.bounds import INT32_MAX, MAX_MATCH_ROUNDS, Number, Reach, check_bounds

    keys = [info.option for info in YAKU_TABLE if info.option is not None]
    keys += ["koikoi.viewing_raised", "koikoi.dealer_priority"]
    numbers = [Number(key, int(options[key]), 0) for key in keys]
    numbers.append(Number("koikoi.start_points", int(options["koikoi.start_points"]), 0))
    most_extra = 48  # more than any count of extra cards a pile can give all its yaku together
    multiplier = 2 * (E.TURNS + 1)

    def reaches(values: dict[str, int]) -> list[Reach]:
        yaku = sum(values[k] for k in keys) + most_extra
        score = yaku * multiplier
        return [
            Reach("yaku_points_* (int32, every yaku of a pile)", yaku, INT32_MAX),
            Reach(f"score_* (int32, every yaku times the largest multiplier, {multiplier})", score, INT32_MAX),
            Reach(f"match_points_* (int32, {MAX_MATCH_ROUNDS:,} rounds from the starting points)",
                  values["koikoi.start_points"] + MAX_MATCH_ROUNDS * score, INT32_MAX),
        ]

    check_bounds(source, numbers, reaches)
