"""Enshu-bana rule files: options, validation into frozen dataclasses, and compilation to arrays.

``simcore.rules.loader.load_rules`` hands every file whose ``[game] name = "enshu"`` to
``build_enshu``.  A file describes one variant (``[game] variant = "W" | "S" | "C"``, RULES.md
3.1-3.3) and carries the card points, the teyaku, the dekiyaku and every Enshu-bana option of
RULES.md section 4 that applies to the variant (options 20-27 and 50 under ``[enshu]``, the
variant's own under ``[enshu.w]``, ``[enshu.s]`` or ``[enshu.c]``).

Player count: ``[game] players`` lists the counts the file allows (within the variant's range:
W and S 2-3, C 2-5) and option ``enshu.players`` chooses one (``load_rules(name,
{"enshu.players": 4})``, the CLI's ``--players 4``).  A count the file does not allow is a
``RulesError``.  Deal sizes are those of RULES.md 3.0 (``deal_sizes``).

``compile_enshu`` lowers a rule set to the NumPy arrays of ``CompiledEnshu`` (DESIGN.md
invariant 4); the ``params`` array is indexed by ``simcore.games.enshu.enums.P_*``.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

import numpy as np

from simcore.cards import HANAFUDA48, Deck, mask_of
from simcore.errors import RulesError
from simcore.games.enshu import enums as EE
from simcore.hanafuda import month_arrays
from simcore.rules.bounds import INT32_MAX, INT64_MAX, MAX_MATCH_ROUNDS, Number, Reach, check_bounds
from simcore.rules.checks import Checker, supersession_table
from simcore.rules.loader import RuleSetLookups
from simcore.rules.schema import OptionSpec, option_code
from simcore.rules.schema import choice as _choice

__all__ = [
    "ENSHU_OPTIONS",
    "OPTION_VARIANTS",
    "VARIANT_PLAYERS",
    "EnshuYaku",
    "Teyaku",
    "EnshuRuleSet",
    "CompiledEnshu",
    "build_enshu",
    "compile_enshu",
    "deal_sizes",
    "TeyakuOption",
    "teyaku_options",
]

ALL_MONTHS = tuple(range(1, 13))


ENSHU_OPTIONS: dict[str, OptionSpec] = {
    spec.name: spec
    for spec in [
        OptionSpec("enshu.players", None, 3, "number of players (the file's [game] players lists the allowed counts)",
                   minimum=2, maximum=EE.MAX_SEATS),
        _choice("enshu.deal_2p", "8_8 7_6", "8_8", "two-player deal: 8 each and 8 on the field, or 7 and 6"),
        _choice("enshu.w_misdeal", "field_four none as_variant_C", "field_four",
                "which deals are redealt (W and S)"),
        _choice("enshu.bright_value", "20 30", "20", "points of a Bright (variant C: 30)"),
        _choice("enshu.sokuyaku_stacking", "supersede additive", "supersede",
                "Sokuyaku cancels Shishibo and Shishichu, or all three count"),
        _choice("enshu.uchikiri_check", "end_of_turn after_each_capture", "end_of_turn",
                "when a round-stopping yaku stops the round"),
        _choice("enshu.next_dealer", "round_winner rotate", "round_winner",
                "who deals the next round (a voided round keeps its dealer)"),
        OptionSpec("enshu.rounds", None, 12, "rounds in a match", minimum=1, maximum=1000),
        _choice("enshu.capture_three", "all one", "all", "a card matching three field cards takes all or one"),
        _choice("enshu.tie_order", "turn_order dealer_then_left", "turn_order",
                "equal top scores: the dealer, then the nearest seat in turn order or in reverse"),
        _choice("enshu.w.uchikiri_payment", "total_k ante_plus_k", "total_k",
                "a stopping yaku worth k: each loser pays k stakes in all, or the ante plus k"),
        _choice("enshu.w.multiple_stopping_teyaku", "highest_then_turn_order", "highest_then_turn_order",
                "several stopping teyaku: the highest wins, equal values the earliest seat in turn order"),
        _choice("enshu.w.tie", "turn_order split", "turn_order",
                "equal top scores: the earliest seat in turn order takes the pot, or the pot is split"),
        _choice("enshu.w.triplet_declare", "policy always never", "policy",
                "who decides whether a Triplet teyaku is exposed"),
        OptionSpec("enshu.w.stake", None, 1, "matchsticks each player antes a round", minimum=1, maximum=1_000_000),
        _choice("enshu.w.uchikiri_combo", "sum max product", "sum",
                "two stopping yaku completed in one turn: their stakes add, the larger counts, or they multiply"),
        _choice("enshu.s.teyaku", "on off", "on", "play with teyaku"),
        _choice("enshu.s.multipliers", "3_2_2 5_3_3", "3_2_2", "multipliers of Shiko, Akatan and Aotan"),
        _choice("enshu.s.combination", "total_times_product cards_times_product_plus_yaku total_times_sum",
                "total_times_product", "how points and multipliers combine into the score"),
        _choice("enshu.s.match_scoring", "cumulative round_wins", "cumulative", "how a match is scored"),
        _choice("enshu.c.score_formula", "literal zero_sum", "literal",
                "score = (cards - opponents' yaku) x M x U, or with (n-1) x own yaku added"),
        _choice("enshu.c.negative_score", "clamp_zero literal", "clamp_zero",
                "a negative winning score: nobody pays, or the winner pays"),
        _choice("enshu.c.triplet_bonus_mode", "separate upgrade", "separate",
                "the I/C/P triplet bonus: a separate 100-point yaku, or the four-of-a-month yaku upgraded"),
        _choice("enshu.c.triplet_bonus_condition", "fourth_card_in_own_pile all_four_in_own_pile",
                "fourth_card_in_own_pile", "when the triplet bonus is earned"),
        _choice("enshu.c.triplet_bonus_in_four_three", "true false", "true",
                "the triplet inside a declared Four-Three earns the bonus too"),
        _choice("enshu.c.icp_four_check", "at_deal_all_hands at_teyaku_active_hands", "at_deal_all_hands",
                "when four I/C/P cards in a hand force a redeal"),
        _choice("enshu.c.junk_def", "lightning_excluded lightning_is_junk", "lightning_excluded",
                "whether the Willow Lightning counts as junk for group-B teyaku"),
        _choice("enshu.c.exposure", "all_composition_cards junk_only_for_group_B", "all_composition_cards",
                "which cards a declared teyaku exposes"),
        _choice("enshu.c.dropped_hands", "shuffle_into_draw set_aside", "shuffle_into_draw",
                "what becomes of the hands of players who drop out"),
        _choice("enshu.c.dropout_repeat_pool", "joiners_only all_not_dropped", "joiners_only",
                "who is asked again when four or more joined (identical in effect)"),
        OptionSpec("enshu.c.dropout_pass_cap", None, 20, "dropout passes before players are forced out",
                   minimum=1, maximum=1000),
        _choice("enshu.c.mizu_kotsu_order", "seat_order_first_three", "seat_order_first_three",
                "mizu-kotsu is asked in seat order from the dealer; the first three are accepted"),
        _choice("enshu.c.fuke_on_uchikiri", "false true", "false", "Fuke may void a round stopped by an uchikiri"),
        _choice("enshu.c.fuke_effect", "void_round_same_dealer", "void_round_same_dealer",
                "a Fuke voids every point and payment; the dealer deals again"),
        _choice("enshu.c.uchikiri_combo", "product max", "product",
                "two uchikiri yaku completed in one turn: multipliers multiply, or the larger counts"),
        _choice("enshu.c.kotsu_small_games", "true false", "true",
                "kotsu and mizu-kotsu are played with 2-3 players too"),
    ]
}

# Which variants each option applies to (an option of another variant is an error).
_COMMON = frozenset("WSC")
OPTION_VARIANTS: dict[str, frozenset[str]] = {}
for _name in ENSHU_OPTIONS:
    if _name.startswith("enshu.w."):
        OPTION_VARIANTS[_name] = frozenset("W")
    elif _name.startswith("enshu.s."):
        OPTION_VARIANTS[_name] = frozenset("S")
    elif _name.startswith("enshu.c."):
        OPTION_VARIANTS[_name] = frozenset("C")
    elif _name in ("enshu.deal_2p", "enshu.w_misdeal"):
        OPTION_VARIANTS[_name] = frozenset("WS")
    elif _name == "enshu.tie_order":
        OPTION_VARIANTS[_name] = frozenset("SC")
    else:
        OPTION_VARIANTS[_name] = _COMMON

VARIANT_PLAYERS = {"W": (2, 3), "S": (2, 3), "C": (2, 3, 4, 5)}
VARIANT_DEFAULTS = {"C": {"enshu.bright_value": "30"}}
YAKU_KINDS_BY_VARIANT = {"W": ("points", "uchikiri"), "S": ("points", "multiplier"), "C": ("points", "uchikiri")}

TOP_KEYS = {"game", "enshu", "card_points", "misdeal", "teyaku", "yaku", "supersession"}
GAME_KEYS = {"name", "title", "deck", "variant", "players", "description"}
YAKU_KEYS = {"key", "name", "english", "cards", "kind", "value", "value_if", "upgraded"}
TEYAKU_KEYS = {"key", "name", "english", "group", "pattern", "months", "three_months", "kind", "value",
               "bonus", "bonus_months"}
MONTH_PATTERNS = {"four_three", "four", "triplet"}


def deal_sizes(variant: str, players: int, deal_2p: str = "8_8") -> tuple[int, int]:
    """(cards per hand, cards on the field) of RULES.md 3.0."""
    if variant != "C" and players == 2 and deal_2p == "8_8":
        return 8, 8
    return 7, 6


@dataclass(frozen=True)
class EnshuYaku:
    """A dekiyaku, detected on capture piles."""

    index: int
    key: str
    name: str
    english: str
    cards: tuple[int, ...]
    mask: int
    kind: str  # "points" | "multiplier" | "uchikiri"
    value: int  # with value_if applied
    upgraded: int  # value when the holder declared a triplet of ``month`` (0: no upgrade)
    month: int  # the month whose four cards the yaku is, 0 otherwise

    @property
    def stops(self) -> bool:
        """Whether completing the yaku ends the round at once (uchikiri)."""
        return self.kind == "uchikiri"


@dataclass(frozen=True)
class Teyaku:
    """A teyaku pattern, checked on a hand as dealt."""

    index: int
    key: str
    name: str
    english: str
    group: str  # "A" | "B"
    pattern: str
    kind: str  # "points" | "stop"
    value: int
    months: tuple[int, ...]  # months of the four (four_three, four) or of the triplet
    three_months: tuple[int, ...]  # four_three: months of the three
    bonus: int  # triplet bonus points (0: none)
    bonus_months: tuple[int, ...]

    @property
    def stops(self) -> bool:
        """Whether declaring the teyaku ends the round at once."""
        return self.kind == "stop"


@dataclass(frozen=True)
class EnshuRuleSet(RuleSetLookups):
    """A validated Enshu-bana rule set with every option resolved.

    Field names follow ``simcore.rules.loader.RuleSet`` where they mean the same.
    """

    name: str
    source: str
    text: str
    sha256: str
    game: str  # "enshu"
    title: str
    description: str
    deck: Deck
    variant: str  # "W" | "S" | "C"
    players: int  # the chosen number of players
    allowed_players: tuple[int, ...]
    deal_field: int
    deal_hand: int
    deal_draw: int
    deal_dead: int
    options: dict[str, str | int]
    overrides: dict[str, str | int]
    card_points: tuple[int, ...]  # per card id
    icp_months: tuple[int, ...]
    yaku: tuple[EnshuYaku, ...]
    teyaku: tuple[Teyaku, ...]
    supersession_tables: dict[str, dict[str, tuple[str, ...]]]

    @property
    def skin(self) -> str:
        """The card names in use: always hanafuda."""
        return "hanafuda"

    @property
    def supersession(self) -> dict[str, tuple[str, ...]]:
        """The supersession table in force: yaku key -> the keys it cancels."""
        return self.supersession_tables.get(str(self.options["enshu.sokuyaku_stacking"]), {})

    def teyaku_by_key(self, key: str) -> Teyaku:
        """The teyaku whose key is ``key`` (``KeyError`` if there is none)."""
        for teyaku in self.teyaku:
            if teyaku.key == key:
                return teyaku
        raise KeyError(key)


# --- building ---------------------------------------------------------------------------------


def build_enshu(name: str, source: str, text: str, data: dict, overrides: dict[str, Any]) -> EnshuRuleSet:
    """Validate a parsed Enshu-bana rule file (see the module docstring)."""
    check = Checker(source)
    unknown = sorted(set(data) - TOP_KEYS)
    if unknown:
        raise check.fail(unknown[0], f"unknown key (allowed: {', '.join(sorted(TOP_KEYS))})")

    game = check.table(data, "game", GAME_KEYS)
    deck_key = check.string(game.get("deck"), "game.deck")
    if deck_key != HANAFUDA48.key:
        raise check.fail("game.deck", f"Enshu-bana is played with the hanafuda48 deck, not {deck_key!r}")
    deck = HANAFUDA48
    variant = check.string(game.get("variant"), "game.variant")
    if variant not in VARIANT_PLAYERS:
        raise check.fail("game.variant", f"unknown variant {variant!r} (W, S or C; RULES.md 3.1-3.3)")
    allowed = _player_counts(check, game.get("players"), variant)

    options = _options(check, data, overrides, variant)
    players = int(options["enshu.players"])
    problem = player_count_problem(allowed, players)
    if problem:
        where = "--option enshu.players" if "enshu.players" in overrides else f"{source}: enshu.players"
        raise RulesError(f"{where}: {problem}")
    if variant == "C" and options["enshu.bright_value"] != "30":
        raise check.fail("enshu.bright_value", "variant C counts Brights at 30 (RULES.md 3.3)")

    hand, field = deal_sizes(variant, players, str(options.get("enshu.deal_2p", "8_8")))
    draw = deck.size - field - hand * players

    kinds = check.table(data, "card_points", {"animal", "ribbon", "chaff"})
    points_by_kind = {"bright": int(options["enshu.bright_value"])}
    for kind in ("animal", "ribbon", "chaff"):
        points_by_kind[kind] = check.integer(kinds.get(kind), f"card_points.{kind}")
    card_points = tuple(points_by_kind[card.kind] for card in deck.cards)

    misdeal = check.table(data, "misdeal", {"icp_months"})
    icp_months = _months(check, misdeal.get("icp_months"), "misdeal.icp_months")

    teyaku = _teyaku(check, data.get("teyaku", []), variant)
    yaku = _yaku(check, deck, data.get("yaku"), options, variant)
    supersession_tables = _supersession(check, data, yaku, options)
    _check_bounds(source, data, options, variant, allowed, deck, yaku, teyaku)

    return EnshuRuleSet(
        name=name,
        source=source,
        text=text,
        sha256=hashlib.sha256(text.encode("utf-8")).hexdigest(),
        game="enshu",
        title=str(game.get("title", name)),
        description=str(game.get("description", "")),
        deck=deck,
        variant=variant,
        players=players,
        allowed_players=allowed,
        deal_field=field,
        deal_hand=hand,
        deal_draw=draw,
        deal_dead=0,
        options=options,
        overrides={k: options[k] for k in overrides},
        card_points=card_points,
        icp_months=icp_months,
        yaku=yaku,
        teyaku=teyaku,
        supersession_tables=supersession_tables,
    )


def player_count_problem(allowed: tuple[int, ...], players: int) -> str | None:
    """Why ``players`` is not one of the ``allowed`` counts of a rule set (None if it is).

    Parameters
    ----------
    allowed : tuple of int
        The counts the rule file's ``[game] players`` allows, ascending.
    players : int
        The requested count.

    Returns
    -------
    str or None
        The problem, for a message that names where the count came from.
    """
    if players in allowed:
        return None
    counts = ", ".join(str(n) for n in allowed[:-1]) + f" or {allowed[-1]}" if len(allowed) > 1 else str(allowed[0])
    return f"this rule set is played by {counts} players (game.players), not {players}"


def _player_counts(check: Checker, value: Any, variant: str) -> tuple[int, ...]:
    if not isinstance(value, list) or not value:
        raise check.fail("game.players", f"expected a list of player counts, e.g. [2, 3], got {value!r}")
    counts = []
    for position, count in enumerate(value):
        count = check.integer(count, f"game.players[{position}]", minimum=2)
        if count not in VARIANT_PLAYERS[variant]:
            low, high = VARIANT_PLAYERS[variant][0], VARIANT_PLAYERS[variant][-1]
            raise check.fail(f"game.players[{position}]",
                             f"variant {variant} is played by {low}-{high} players, not {count}")
        if count in counts:
            raise check.fail(f"game.players[{position}]", f"{count} is listed twice")
        counts.append(count)
    return tuple(sorted(counts))


def _options(check: Checker, data: dict, overrides: dict[str, Any], variant: str) -> dict[str, str | int]:
    own = {name for name, variants in OPTION_VARIANTS.items() if variant in variants}
    section = check.table(data, "enshu", set(), required=True)
    values: dict[str, str | int] = {}
    for key, raw in section.items():
        if isinstance(raw, dict):
            sub = f"enshu.{key}"
            if key not in ("w", "s", "c"):
                raise check.fail(sub, "unknown table (variant tables: enshu.w, enshu.s, enshu.c)")
            if key.upper() != variant:
                raise check.fail(sub, f"options of variant {key.upper()} do not apply to variant {variant}")
            for subkey, subraw in raw.items():
                name = _file_option(check, f"{sub}.{subkey}", own, variant)  # before parsing its value
                values[name] = _parse(check, name, subraw)
            continue
        name = _file_option(check, f"enshu.{key}", own, variant)
        values[name] = _parse(check, name, raw)
    for name, raw in overrides.items():
        spec = ENSHU_OPTIONS.get(name)
        if spec is None:
            known = ", ".join(sorted(own))
            raise RulesError(f"--option {name}: unknown option for variant {variant} (known: {known})")
        if name not in own:
            raise RulesError(f"--option {name}: does not apply to variant {variant} "
                             f"(applies to {', '.join(sorted(OPTION_VARIANTS[name]))})")
        try:
            values[name] = spec.parse(raw)
        except ValueError as error:
            raise RulesError(f"--option {name}: {error}") from None
    for name in sorted(own):
        if name not in values:
            values[name] = VARIANT_DEFAULTS.get(variant, {}).get(name, ENSHU_OPTIONS[name].default)
    return values


def _file_option(check: Checker, name: str, own: set[str], variant: str) -> str:
    if name not in ENSHU_OPTIONS:
        raise check.fail(name, f"unknown option (known for variant {variant}: {', '.join(sorted(own))})")
    if name not in own:
        raise check.fail(name, f"does not apply to variant {variant} "
                               f"(applies to {', '.join(sorted(OPTION_VARIANTS[name]))})")
    return name


def _parse(check: Checker, name: str, raw: Any) -> str | int:
    try:
        return ENSHU_OPTIONS[name].parse(raw)
    except ValueError as error:
        raise check.fail(name, str(error)) from None


def _months(check: Checker, value: Any, key: str, default: tuple[int, ...] | None = None) -> tuple[int, ...]:
    if value is None and default is not None:
        return default
    if not isinstance(value, list) or not value:
        raise check.fail(key, f"expected a list of months 1..12, got {value!r}")
    months = []
    for position, month in enumerate(value):
        if isinstance(month, bool) or not isinstance(month, int) or not 1 <= month <= 12:
            raise check.fail(f"{key}[{position}]", f"expected a month 1..12, got {month!r}")
        if month in months:
            raise check.fail(f"{key}[{position}]", f"month {month} is listed twice")
        months.append(month)
    return tuple(sorted(months))


def _teyaku(check: Checker, entries: Any, variant: str) -> tuple[Teyaku, ...]:
    if not isinstance(entries, list):
        raise check.fail("teyaku", "expected [[teyaku]] tables")
    if len(entries) > EE.MAX_TEYAKU:
        raise check.fail("teyaku", f"at most {EE.MAX_TEYAKU} teyaku fit the uint64 bitset, got {len(entries)}")
    out: list[Teyaku] = []
    for index, (key, where, entry) in enumerate(check.keyed_entries(entries, "teyaku", TEYAKU_KEYS)):
        name = check.string(entry.get("name"), f"{where}.name")
        english = check.string(entry.get("english", name), f"{where}.english")
        group = check.string(entry.get("group"), f"{where}.group")
        if group not in EE.TEYAKU_GROUPS:
            raise check.fail(f"{where}.group", f"{group!r} is not one of {', '.join(EE.TEYAKU_GROUPS)}")
        pattern = check.string(entry.get("pattern"), f"{where}.pattern")
        if pattern not in EE.TEYAKU_PATTERNS:
            raise check.fail(f"{where}.pattern", f"{pattern!r} is not one of {', '.join(EE.TEYAKU_PATTERNS)}")
        kind = check.string(entry.get("kind", "points"), f"{where}.kind")
        if kind not in EE.TEYAKU_KINDS:
            raise check.fail(f"{where}.kind", f"{kind!r} is not one of {', '.join(EE.TEYAKU_KINDS)}")
        if kind == "stop" and variant != "W":
            raise check.fail(f"{where}.kind", f"only variant W has round-stopping teyaku (this file is variant {variant})")
        value = check.integer(entry.get("value"), f"{where}.value", minimum=1)
        for month_key in ("months", "three_months"):
            if month_key in entry and pattern not in MONTH_PATTERNS:
                raise check.fail(f"{where}.{month_key}", f"pattern {pattern} has no months")
        if "three_months" in entry and pattern != "four_three":
            raise check.fail(f"{where}.three_months", "only pattern four_three has three_months")
        months = _months(check, entry.get("months"), f"{where}.months", ALL_MONTHS)
        three_months = _months(check, entry.get("three_months"), f"{where}.three_months", ALL_MONTHS)
        bonus = 0
        bonus_months: tuple[int, ...] = ()
        if "bonus" in entry or "bonus_months" in entry:
            if pattern not in ("triplet", "four_three"):
                raise check.fail(f"{where}.bonus", "only a triplet (or the triplet of a four_three) earns a bonus")
            if variant != "C":
                raise check.fail(f"{where}.bonus", f"the triplet bonus is a variant C rule (this file is variant {variant})")
            bonus = check.integer(entry.get("bonus"), f"{where}.bonus", minimum=1)
            bonus_months = _months(check, entry.get("bonus_months"), f"{where}.bonus_months")
        out.append(Teyaku(index, key, name, english, group, pattern, kind, value, months,
                          three_months if pattern == "four_three" else (), bonus, bonus_months))
    return tuple(out)


def _yaku(check: Checker, deck: Deck, entries: Any, options: dict[str, str | int],
          variant: str) -> tuple[EnshuYaku, ...]:
    if not isinstance(entries, list) or not entries:
        raise check.fail("yaku", "expected one or more [[yaku]] tables")
    if len(entries) > EE.MAX_YAKU:
        raise check.fail("yaku", f"at most {EE.MAX_YAKU} yaku fit the uint64 yaku bitset, got {len(entries)}")
    month_masks = {m: deck.rank_mask(m) for m in ALL_MONTHS}
    out: list[EnshuYaku] = []
    for index, (key, where, entry) in enumerate(check.keyed_entries(entries, "yaku", YAKU_KEYS)):
        name = check.string(entry.get("name"), f"{where}.name")
        english = check.string(entry.get("english", name), f"{where}.english")
        cards = check.cards(deck, entry.get("cards"), f"{where}.cards")
        if len(cards) < 2:
            raise check.fail(f"{where}.cards", "a yaku needs at least two cards")
        mask = mask_of(cards)
        kind = check.string(entry.get("kind"), f"{where}.kind")
        if kind not in EE.YAKU_KINDS:
            raise check.fail(f"{where}.kind", f"{kind!r} is not one of {', '.join(EE.YAKU_KINDS)}")
        if kind not in YAKU_KINDS_BY_VARIANT[variant]:
            allowed = " or ".join(YAKU_KINDS_BY_VARIANT[variant])
            raise check.fail(f"{where}.kind", f"variant {variant} has {allowed} yaku, not {kind}")
        minimum = 2 if kind == "multiplier" or (kind == "uchikiri" and variant == "C") else 1
        value = check.integer(entry.get("value"), f"{where}.value", minimum=minimum)
        value_if = entry.get("value_if", {})
        if not isinstance(value_if, dict):
            raise check.fail(f"{where}.value_if", 'expected a table of "option=value" = value')
        for condition, alternative in value_if.items():
            option_name, sep, option_value = condition.partition("=")
            spec = ENSHU_OPTIONS.get(option_name)
            if not sep or spec is None:
                raise check.fail(f"{where}.value_if.{condition}", 'expected "OPTION=VALUE" naming a known option')
            try:
                spec.parse(option_value)
            except ValueError as error:
                raise check.fail(f"{where}.value_if.{condition}", str(error)) from None
            alternative = check.integer(alternative, f"{where}.value_if.{condition}", minimum=minimum)
            if option_name in options and str(options[option_name]) == option_value:
                value = alternative
        month = next((m for m, m_mask in month_masks.items() if m_mask == mask), 0)
        upgraded = 0
        if "upgraded" in entry:
            if kind != "points" or not month:
                raise check.fail(f"{where}.upgraded", "only a points yaku of the four cards of one month can be upgraded")
            upgraded = check.integer(entry.get("upgraded"), f"{where}.upgraded", minimum=1)
        out.append(EnshuYaku(index, key, name, english, cards, mask, kind, value, upgraded, month))
    for a in out:
        for b in out[a.index + 1:]:
            if a.mask == b.mask:
                raise check.fail(f"yaku[{b.key}].cards", f"same cards as yaku {a.key} (duplicate yaku)")
    return tuple(out)


def _supersession(check: Checker, data: dict, yaku: tuple[EnshuYaku, ...],
                  options: dict[str, str | int]) -> dict[str, dict[str, tuple[str, ...]]]:
    tables = check.table(data, "supersession", set(), required=False)
    keys = {y.key: y for y in yaku}
    modes = ENSHU_OPTIONS["enshu.sokuyaku_stacking"].choices or ()
    out: dict[str, dict[str, tuple[str, ...]]] = {}
    for mode, table in tables.items():
        where = f"supersession.{mode}"
        if mode not in modes:
            raise check.fail(where, f"unknown supersession mode (allowed: {', '.join(modes)})")
        resolved = supersession_table(check, where, table, keys)
        for key, cancelled in resolved.items():
            for other in cancelled:
                if keys[other].mask & ~keys[key].mask:
                    raise check.fail(f"{where}.{key}", f"{other} is not a subset of {key}, so it cannot be superseded")
        out[mode] = resolved
    chosen = str(options["enshu.sokuyaku_stacking"])
    if chosen == "supersede" and chosen not in out:
        raise check.fail("enshu.sokuyaku_stacking", "'supersede' has no table [supersession.supersede]")
    return out


def _check_bounds(source: str, data: dict, options: dict[str, str | int], variant: str,
                  allowed: tuple[int, ...], deck: Deck, yaku: tuple[EnshuYaku, ...],
                  teyaku: tuple[Teyaku, ...]) -> None:
    """Every sum of the file's numbers fits its type (see ``simcore.rules.bounds``).

    Worst cases, with every yaku at its largest value (``value``, a ``value_if`` alternative or
    ``upgraded``) and every teyaku declared: the int32 columns ``card_points_*`` (the whole deck),
    ``yaku_points_*``, ``teyaku_points_*`` and ``yaku_multiplier_*`` (the product of the
    multiplier or, in C, uchikiri yaku); the greedy policy's int32 yaku weights; and the int64
    ``score_*``, ``payoff_*`` and ``match_points_*`` over a match of ``MAX_MATCH_ROUNDS`` rounds
    with the largest player count the file allows (W: stakes times ``enshu.w.stake``; S: points
    times multipliers; C: points times the field multiplier times the uchikiri multiplier).
    """
    numbers: dict[str, Number] = {}

    def add(key: str, value: int, minimum: int) -> str:
        numbers[key] = Number(key, value, minimum)
        return key

    kind_counts = {kind: sum(1 for card in deck.cards if card.kind == kind)
                   for kind in ("bright", "animal", "ribbon", "chaff")}
    bright_points = int(options["enshu.bright_value"])
    point_keys = {kind: add(f"card_points.{kind}", int(data["card_points"][kind]), 0)
                  for kind in ("animal", "ribbon", "chaff")}
    entries = {entry["key"]: entry for entry in data["yaku"]}
    yaku_keys: dict[str, list[str]] = {}  # per yaku, the keys of every value it may take
    for y in yaku:
        entry = entries[y.key]
        minimum = 2 if y.kind == "multiplier" or (y.kind == "uchikiri" and variant == "C") else 1
        keys = [add(f"yaku[{y.key}].value", int(entry["value"]), minimum)]
        for condition, alternative in entry.get("value_if", {}).items():
            keys.append(add(f"yaku[{y.key}].value_if.{condition}", int(alternative), minimum))
        if y.upgraded:
            keys.append(add(f"yaku[{y.key}].upgraded", y.upgraded, 1))
        yaku_keys[y.key] = keys
    teyaku_keys = []
    for t in teyaku:
        teyaku_keys.append((t, add(f"teyaku[{t.key}].value", t.value, 1),
                            add(f"teyaku[{t.key}].bonus", t.bonus, 1) if t.bonus else None))
    players = max(allowed)
    rounds = MAX_MATCH_ROUNDS
    stake = int(options.get("enshu.w.stake", 1))
    field_multiplier = (1 + kind_counts["bright"] + EE.MAX_MIZU_KOTSU + players
                        + int(options.get("enshu.c.dropout_pass_cap", 0)))
    multiplying = "multiplier" if variant == "S" else "uchikiri"

    def reaches(values: dict[str, int]) -> list[Reach]:
        def largest(key: str) -> int:
            return max(values[k] for k in yaku_keys[key])

        cards = bright_points * kind_counts["bright"] + sum(values[point_keys[k]] * kind_counts[k]
                                                            for k in point_keys)
        yaku_points = sum(largest(y.key) for y in yaku if y.kind == "points")
        teyaku_points = sum(values[value_key] + (values[bonus_key] if bonus_key else 0)
                            for t, value_key, bonus_key in teyaku_keys if t.kind == "points")
        product = 1
        total = 0
        for y in yaku:
            if y.kind == multiplying:
                product *= largest(y.key)
                total += largest(y.key)
        factor = max(product, total)
        weight = max((12 * largest(y.key) * (1 if y.kind == "points" else GREEDY_POINTS_PER_MULTIPLE)
                      // len(y.cards) for y in yaku), default=0)
        out = [
            Reach("card_points_* (int32, the whole deck)", cards, INT32_MAX),
            Reach("yaku_points_* (int32, every points yaku)", yaku_points, INT32_MAX),
            Reach("teyaku_points_* (int32, every points teyaku and bonus)", teyaku_points, INT32_MAX),
            Reach(f"the greedy policy's yaku weight (int32, 12 x a yaku's worth / its cards, {multiplying} "
                  f"yaku worth {GREEDY_POINTS_PER_MULTIPLE} points a unit)", weight, INT32_MAX),
        ]
        if variant == "W":
            stop_teyaku = max((values[value_key] for t, value_key, _ in teyaku_keys if t.kind == "stop"), default=0)
            stakes = max(factor, stop_teyaku) + 1
            out.append(Reach(f"match_points_* (int64, {rounds:,} rounds of stakes x enshu.w.stake {stake:,} "
                             f"x {players - 1} losers)", rounds * (players - 1) * stakes * stake, INT64_MAX))
        elif variant == "S":
            out.append(Reach("yaku_multiplier_* (int32, every multiplier yaku)", factor, INT32_MAX))
            out.append(Reach(f"match_points_* (int64, {rounds:,} rounds of points x multipliers)",
                             rounds * (cards + yaku_points + teyaku_points) * factor, INT64_MAX))
        else:
            out.append(Reach("yaku_multiplier_* (int32, every uchikiri yaku)", factor, INT32_MAX))
            base = cards + (players - 1) * (yaku_points + teyaku_points)
            out.append(Reach(f"match_points_* (int64, {rounds:,} rounds of points x field multiplier "
                             f"{field_multiplier} x uchikiri multipliers x {players - 1} payers)",
                             rounds * (players - 1) * base * field_multiplier * factor, INT64_MAX))
        return out

    check_bounds(source, list(numbers.values()), reaches)


# --- compiling -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class CompiledEnshu:
    """Rule arrays for Enshu-bana (every array is what a kernel takes as an argument).

    Attributes
    ----------
    params : int32[N_PARAMS]
        Sizes and option codes, indexed by ``simcore.games.enshu.enums.P_*``.
    month : int8[64]
        Month (1..12) of each card id; 0 outside the deck.
    month_mask : uint64[13]
        Cards of each month (index 0 unused).
    card_points : int32[64]
        Points of each card (Brights at ``enshu.bright_value``).
    bright_mask, animal_mask, ribbon_mask, willow_mask, junk_mask, icp_mask : uint64
        Card classes: Brights, Animals (Rain Man included), Ribbons, the Willow month, the junk
        of group-B teyaku (``enshu.c.junk_def``), the cards of the misdeal months.
    yaku_mask : uint64[NY]
    yaku_kind, yaku_value, yaku_upgraded, yaku_month : int32[NY]
        Kind (``YAKU_*``), value (points, multiplier or stakes), upgraded value (0: none) and
        the month whose four cards the yaku is (0: none).
    supersedes : uint64[NY]
        Yaku bitset each yaku cancels when completed (``enshu.sokuyaku_stacking``).
    greedy_weight : int32[NY]
        Per-card progress weight of each yaku for the greedy policy.
    teyaku_pattern, teyaku_group, teyaku_kind, teyaku_value, teyaku_bonus : int32[NT]
        Pattern (``PATTERN_*``), group (0 A, 1 B), kind (``TEYAKU_*``), value, and the triplet
        bonus in force (0 when the options switch it off).
    teyaku_months, teyaku_three_months, teyaku_bonus_months : uint64[NT]
        Month bitsets (bit ``m`` for month ``m``).
    """

    rules: EnshuRuleSet
    params: np.ndarray
    month: np.ndarray
    month_mask: np.ndarray
    card_points: np.ndarray
    bright_mask: np.uint64
    animal_mask: np.uint64
    ribbon_mask: np.uint64
    willow_mask: np.uint64
    junk_mask: np.uint64
    icp_mask: np.uint64
    yaku_mask: np.ndarray
    yaku_kind: np.ndarray
    yaku_value: np.ndarray
    yaku_upgraded: np.ndarray
    yaku_month: np.ndarray
    supersedes: np.ndarray
    greedy_weight: np.ndarray
    teyaku_pattern: np.ndarray
    teyaku_group: np.ndarray
    teyaku_kind: np.ndarray
    teyaku_value: np.ndarray
    teyaku_bonus: np.ndarray
    teyaku_months: np.ndarray
    teyaku_three_months: np.ndarray
    teyaku_bonus_months: np.ndarray

    @property
    def n_yaku(self) -> int:
        """The number of yaku."""
        return len(self.yaku_mask)

    @property
    def n_teyaku(self) -> int:
        """The number of teyaku."""
        return len(self.teyaku_pattern)

    @property
    def players(self) -> int:
        """The number of seats."""
        return int(self.params[EE.P_PLAYERS])

    def kernel_args(self) -> tuple:
        """The rule arrays in the order the kernels take them."""
        return (
            self.params, self.month, self.month_mask, self.card_points,
            np.uint64(self.bright_mask), np.uint64(self.animal_mask), np.uint64(self.ribbon_mask),
            np.uint64(self.willow_mask), np.uint64(self.junk_mask), np.uint64(self.icp_mask),
            self.yaku_mask, self.yaku_kind, self.yaku_value, self.yaku_upgraded, self.yaku_month,
            self.supersedes, self.greedy_weight,
            self.teyaku_pattern, self.teyaku_group, self.teyaku_kind, self.teyaku_value, self.teyaku_bonus,
            self.teyaku_months, self.teyaku_three_months, self.teyaku_bonus_months,
        )


# Greedy's yaku-progress weight: a yaku's worth spread over its cards (x12 keeps it an integer
# for 2-, 3- and 4-card yaku); a multiplier or stopping yaku counts as 100 points per unit.
GREEDY_POINTS_PER_MULTIPLE = 100

_PARAM_OPTIONS = {
    EE.P_UCHIKIRI_CHECK: "enshu.uchikiri_check",
    EE.P_NEXT_DEALER: "enshu.next_dealer",
    EE.P_ROUNDS: "enshu.rounds",
    EE.P_CAPTURE_THREE: "enshu.capture_three",
    EE.P_TIE_ORDER: "enshu.tie_order",
    EE.P_W_UCHIKIRI_PAYMENT: "enshu.w.uchikiri_payment",
    EE.P_W_TIE: "enshu.w.tie",
    EE.P_W_TRIPLET_DECLARE: "enshu.w.triplet_declare",
    EE.P_W_STAKE: "enshu.w.stake",
    EE.P_W_UCHIKIRI_COMBO: "enshu.w.uchikiri_combo",
    EE.P_S_TEYAKU: "enshu.s.teyaku",
    EE.P_S_COMBINATION: "enshu.s.combination",
    EE.P_S_MATCH_SCORING: "enshu.s.match_scoring",
    EE.P_C_SCORE_FORMULA: "enshu.c.score_formula",
    EE.P_C_NEGATIVE_SCORE: "enshu.c.negative_score",
    EE.P_C_TRIPLET_BONUS_MODE: "enshu.c.triplet_bonus_mode",
    EE.P_C_TRIPLET_BONUS_CONDITION: "enshu.c.triplet_bonus_condition",
    EE.P_C_TRIPLET_BONUS_IN_FOUR_THREE: "enshu.c.triplet_bonus_in_four_three",
    EE.P_C_EXPOSURE: "enshu.c.exposure",
    EE.P_C_DROPPED_HANDS: "enshu.c.dropped_hands",
    EE.P_C_DROPOUT_PASS_CAP: "enshu.c.dropout_pass_cap",
    EE.P_C_FUKE_ON_UCHIKIRI: "enshu.c.fuke_on_uchikiri",
    EE.P_C_UCHIKIRI_COMBO: "enshu.c.uchikiri_combo",
    EE.P_C_KOTSU_SMALL_GAMES: "enshu.c.kotsu_small_games",
}


def _month_bits(months: tuple[int, ...]) -> int:
    return sum(1 << m for m in months)


def compile_enshu(rules: EnshuRuleSet) -> CompiledEnshu:
    """Lower a validated Enshu-bana rule set to arrays."""
    options = rules.options
    variant = rules.variant
    params = np.zeros(EE.N_PARAMS, dtype=np.int32)
    params[EE.P_VARIANT] = EE.VARIANTS.index(variant)
    params[EE.P_PLAYERS] = rules.players
    params[EE.P_HAND] = rules.deal_hand
    params[EE.P_FIELD] = rules.deal_field
    params[EE.P_DRAW] = rules.deal_draw
    for index, name in _PARAM_OPTIONS.items():
        if name in options:
            params[index] = option_code(ENSHU_OPTIONS[name], options[name])
    params[EE.P_BRIGHT_POINTS] = int(options["enshu.bright_value"])
    if variant == "C":
        params[EE.P_MISDEAL_FIELD_FOUR] = 1
        params[EE.P_MISDEAL_FIELD_ICP_THREE] = 1
        at_deal = options["enshu.c.icp_four_check"] == "at_deal_all_hands"
        params[EE.P_MISDEAL_HAND_ICP_FOUR] = EE.HAND_FOUR_AT_DEAL if at_deal else EE.HAND_FOUR_AT_TEYAKU
    else:
        misdeal = options["enshu.w_misdeal"]
        params[EE.P_MISDEAL_FIELD_FOUR] = int(misdeal != "none")
        params[EE.P_MISDEAL_FIELD_ICP_THREE] = int(misdeal == "as_variant_C")
        params[EE.P_MISDEAL_HAND_ICP_FOUR] = EE.HAND_FOUR_AT_DEAL if misdeal == "as_variant_C" else EE.HAND_FOUR_NEVER

    deck = rules.deck
    month, month_mask = month_arrays(deck)
    card_points = np.zeros(64, dtype=np.int32)
    card_points[: deck.size] = rules.card_points

    def kind_mask(kind: str) -> int:
        return mask_of(card.id for card in deck.cards if card.kind == kind)

    willow = deck.rank_mask(11)
    lightning = mask_of(card.id for card in deck.cards if card.rank == 11 and card.kind == "chaff")
    junk = kind_mask("chaff")
    if options.get("enshu.c.junk_def", "lightning_excluded") == "lightning_excluded":
        junk &= ~lightning
    icp = 0
    for m in rules.icp_months:
        icp |= deck.rank_mask(m)

    n_yaku = len(rules.yaku)
    yaku_mask = np.zeros(n_yaku, dtype=np.uint64)
    yaku_kind = np.zeros(n_yaku, dtype=np.int32)
    yaku_value = np.zeros(n_yaku, dtype=np.int32)
    yaku_upgraded = np.zeros(n_yaku, dtype=np.int32)
    yaku_month = np.zeros(n_yaku, dtype=np.int32)
    greedy_weight = np.zeros(n_yaku, dtype=np.int32)
    for yaku in rules.yaku:
        i = yaku.index
        yaku_mask[i] = np.uint64(yaku.mask)
        yaku_kind[i] = EE.YAKU_KINDS.index(yaku.kind)
        yaku_value[i] = yaku.value
        yaku_upgraded[i] = yaku.upgraded
        yaku_month[i] = yaku.month
        worth = yaku.value if yaku.kind == "points" else GREEDY_POINTS_PER_MULTIPLE * yaku.value
        greedy_weight[i] = worth * 12 // len(yaku.cards)
    supersedes = np.zeros(n_yaku, dtype=np.uint64)
    index_of = {y.key: y.index for y in rules.yaku}
    for key, cancelled in rules.supersession.items():
        for other in cancelled:
            supersedes[index_of[key]] |= np.uint64(1 << index_of[other])

    n_teyaku = len(rules.teyaku)
    teyaku_pattern = np.zeros(n_teyaku, dtype=np.int32)
    teyaku_group = np.zeros(n_teyaku, dtype=np.int32)
    teyaku_kind = np.zeros(n_teyaku, dtype=np.int32)
    teyaku_value = np.zeros(n_teyaku, dtype=np.int32)
    teyaku_bonus = np.zeros(n_teyaku, dtype=np.int32)
    teyaku_months = np.zeros(n_teyaku, dtype=np.uint64)
    teyaku_three_months = np.zeros(n_teyaku, dtype=np.uint64)
    teyaku_bonus_months = np.zeros(n_teyaku, dtype=np.uint64)
    separate_bonus = options.get("enshu.c.triplet_bonus_mode", "separate") == "separate"
    in_four_three = options.get("enshu.c.triplet_bonus_in_four_three", "true") == "true"
    for teyaku in rules.teyaku:
        i = teyaku.index
        teyaku_pattern[i] = EE.TEYAKU_PATTERNS.index(teyaku.pattern)
        teyaku_group[i] = EE.TEYAKU_GROUPS.index(teyaku.group)
        teyaku_kind[i] = EE.TEYAKU_KINDS.index(teyaku.kind)
        teyaku_value[i] = teyaku.value
        teyaku_months[i] = np.uint64(_month_bits(teyaku.months))
        teyaku_three_months[i] = np.uint64(_month_bits(teyaku.three_months))
        teyaku_bonus_months[i] = np.uint64(_month_bits(teyaku.bonus_months))
        if separate_bonus and (teyaku.pattern == "triplet" or in_four_three):
            teyaku_bonus[i] = teyaku.bonus
    # Four-of-a-month yaku take their `upgraded` value when the holder declared a triplet of that
    # month: always in W (RULES.md 3.1 step 6), in C only with triplet_bonus_mode = upgrade.
    params[EE.P_TRIPLET_UPGRADE] = int(variant != "C" or not separate_bonus)

    return CompiledEnshu(
        rules=rules,
        params=params,
        month=month,
        month_mask=month_mask,
        card_points=card_points,
        bright_mask=np.uint64(kind_mask("bright")),
        animal_mask=np.uint64(kind_mask("animal")),
        ribbon_mask=np.uint64(kind_mask("ribbon")),
        willow_mask=np.uint64(willow),
        junk_mask=np.uint64(junk),
        icp_mask=np.uint64(icp),
        yaku_mask=yaku_mask,
        yaku_kind=yaku_kind,
        yaku_value=yaku_value,
        yaku_upgraded=yaku_upgraded,
        yaku_month=yaku_month,
        supersedes=supersedes,
        greedy_weight=greedy_weight,
        teyaku_pattern=teyaku_pattern,
        teyaku_group=teyaku_group,
        teyaku_kind=teyaku_kind,
        teyaku_value=teyaku_value,
        teyaku_bonus=teyaku_bonus,
        teyaku_months=teyaku_months,
        teyaku_three_months=teyaku_three_months,
        teyaku_bonus_months=teyaku_bonus_months,
    )


# --- teyaku detection (shared by the reference engine and the policies) ---------------------------


@dataclass(frozen=True)
class TeyakuOption:
    """One way a hand qualifies for a teyaku.

    ``month`` is the month of a four or a triplet, or of the four of a Four-Three;
    ``three_month`` the month of a Four-Three's three (0 otherwise); ``cards`` the cards that
    declaring it exposes.
    """

    index: int
    key: str
    pattern: int
    month: int
    three_month: int
    cards: int
    value: int
    stops: bool
    group: str

    @property
    def triplet_month(self) -> int:
        """The month of the triplet the option declares (a Triplet's, or a Four-Three's three)."""
        if self.pattern == EE.PATTERN_TRIPLET:
            return self.month
        if self.pattern == EE.PATTERN_FOUR_THREE:
            return self.three_month
        return 0

    def label(self) -> str:
        """Replay vocabulary: ``KEY``, ``KEY:MONTH`` or ``KEY:MONTH:THREE_MONTH``."""
        if self.three_month:
            return f"{self.key}:{self.month}:{self.three_month}"
        if self.month:
            return f"{self.key}:{self.month}"
        return self.key


def teyaku_options(compiled: CompiledEnshu, hand: int, group: str | None) -> list[TeyakuOption]:
    """Every way ``hand`` qualifies for a teyaku of ``group`` ("A", "B", or None for both).

    Order (the order a random choice indexes): teyaku in file order; within a teyaku, months
    ascending (a Four-Three: the four's month, then the three's).  A triplet is exactly three
    cards of a month; a Four-Three is four of one month and at least three of another.  Group-B
    options expose the whole hand, or only its junk with ``enshu.c.exposure =
    junk_only_for_group_B``.
    """
    c = compiled
    rules = c.rules
    month_mask = [int(m) for m in c.month_mask]
    counts = [0] + [(hand & month_mask[m]).bit_count() for m in range(1, 13)]
    junk = int(c.junk_mask)
    animal = int(c.animal_mask)
    ribbon = int(c.ribbon_mask)
    junk_only = int(c.params[EE.P_C_EXPOSURE]) == 1
    out: list[TeyakuOption] = []
    for teyaku in rules.teyaku:
        if group is not None and teyaku.group != group:
            continue
        i = teyaku.index
        pattern = int(c.teyaku_pattern[i])
        months = int(c.teyaku_months[i])
        found: list[tuple[int, int, int]] = []  # (month, three_month, exposed cards)
        if pattern == EE.PATTERN_FOUR_THREE:
            threes = int(c.teyaku_three_months[i])
            for m in range(1, 13):
                if counts[m] == 4 and (months >> m) & 1:
                    for t in range(1, 13):
                        if t != m and counts[t] >= 3 and (threes >> t) & 1:
                            found.append((m, t, hand & (month_mask[m] | month_mask[t])))
        elif pattern in (EE.PATTERN_FOUR, EE.PATTERN_TRIPLET):
            need = 4 if pattern == EE.PATTERN_FOUR else 3
            for m in range(1, 13):
                if counts[m] == need and (months >> m) & 1:
                    found.append((m, 0, hand & month_mask[m]))
        else:
            single = {EE.PATTERN_ALL_JUNK: 0, EE.PATTERN_LONE_ANIMAL: animal, EE.PATTERN_LONE_RIBBON: ribbon}[pattern]
            lone = hand & single
            if hand and lone.bit_count() == (0 if pattern == EE.PATTERN_ALL_JUNK else 1) and not (hand & ~lone & ~junk):
                found.append((0, 0, hand & junk if junk_only else hand))
        for month, three, cards in found:
            out.append(TeyakuOption(i, teyaku.key, pattern, month, three, cards, teyaku.value,
                                    teyaku.kind == "stop", teyaku.group))
    return out
