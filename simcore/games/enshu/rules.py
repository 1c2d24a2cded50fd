"""Enshu-bana rule files: validation into frozen dataclasses (options: ``options.py``; arrays:
``compile.py``).

``simcore.rules.loader.load_rules`` hands every file whose ``[game] name = "enshu"`` to
``build_rules``.  A file describes one variant (``[game] variant = "W" | "S" | "C"``,
docs/enshu.md) and carries the card points, the teyaku, the dekiyaku and every Enshu-bana option
that applies to the variant (docs/enshu.md#options: those of every variant under ``[enshu]``, the
variant's own under ``[enshu.w]``, ``[enshu.s]`` or ``[enshu.c]``).

Player count: ``[game] players`` lists the counts the file allows (within the variant's range:
W and S 2-3, C 2-5) and option ``enshu.players`` chooses one (``load_rules(name,
{"enshu.players": 4})``, the CLI's ``--players 4``).  A count the file does not allow is a
``RulesError``.  Deal sizes are those of docs/enshu.md#a-round (``deal_sizes``).

``simcore.games.enshu.compile.compile_rules`` lowers a rule set to arrays.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from simcore.cards import HANAFUDA48, Deck, mask_of
from simcore.errors import RulesError
from simcore.games.enshu import enums as E
from simcore.games.enshu.options import (
    OPTION_VARIANTS,
    OPTIONS,
    VARIANT_DEFAULTS,
    VARIANT_PLAYERS,
)
from simcore.rules.bounds import INT32_MAX, INT64_MAX, MAX_MATCH_ROUNDS, Number, Reach, check_bounds
from simcore.rules.checks import Checker, file_fields, supersession_table
from simcore.rules.loader import BaseRuleSet, BaseYaku

__all__ = [
    "Yaku",
    "Teyaku",
    "RuleSet",
    "build_rules",
    "deal_sizes",
    "player_count_problem",
]

ALL_MONTHS = tuple(range(1, 13))

# Greedy's yaku-progress weight: a yaku's worth spread over its cards (x12 keeps it an integer
# for 2-, 3- and 4-card yaku); a multiplier or stopping yaku counts as 100 points per unit.
GREEDY_POINTS_PER_MULTIPLE = 100


YAKU_KINDS_BY_VARIANT = {"W": ("points", "uchikiri"), "S": ("points", "multiplier"), "C": ("points", "uchikiri")}

TOP_KEYS = {"game", "enshu", "card_points", "misdeal", "teyaku", "yaku", "supersession"}
GAME_KEYS = {"name", "title", "deck", "variant", "players", "description"}
YAKU_KEYS = {"key", "name", "english", "cards", "kind", "value", "value_if", "upgraded"}
TEYAKU_KEYS = {"key", "name", "english", "group", "pattern", "months", "three_months", "kind", "value",
               "bonus", "bonus_months"}
MONTH_PATTERNS = {"four_three", "four", "triplet"}


def deal_sizes(variant: str, players: int, deal_2p: str = "8_8") -> tuple[int, int]:
    """(cards per hand, cards on the field) of docs/enshu.md#a-round."""
    if variant != "C" and players == 2 and deal_2p == "8_8":
        return 8, 8
    return 7, 6


@dataclass(frozen=True)
class Yaku(BaseYaku):
    """A dekiyaku, detected on capture piles."""

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
class RuleSet(BaseRuleSet):
    """A validated Enshu-bana rule set with every option resolved (``players``: the chosen
    number of players)."""

    variant: str  # "W" | "S" | "C"
    allowed_players: tuple[int, ...]
    deal_field: int
    deal_hand: int
    deal_draw: int
    deal_dead: int
    card_points: tuple[int, ...]  # per card id
    icp_months: tuple[int, ...]
    yaku: tuple[Yaku, ...]
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


def build_rules(name: str, source: str, text: str, data: dict, overrides: dict[str, Any]) -> RuleSet:
    """Validate a parsed Enshu-bana rule file (see the module docstring)."""
    check = Checker(source)
    game = check.header(data, TOP_KEYS, GAME_KEYS, "enshu", "Enshu-bana", HANAFUDA48)
    deck = HANAFUDA48
    variant = check.string(game.get("variant"), "game.variant")
    if variant not in VARIANT_PLAYERS:
        raise check.fail("game.variant", f"unknown variant {variant!r} (W, S or C; docs/enshu.md)")
    allowed = _player_counts(check, game.get("players"), variant)

    options = _options(check, data, overrides, variant)
    players = int(options["enshu.players"])
    problem = player_count_problem(allowed, players)
    if problem:
        where = "--option enshu.players" if "enshu.players" in overrides else f"{source}: enshu.players"
        raise RulesError(f"{where}: {problem}")
    if variant == "C" and options["enshu.bright_value"] != "30":
        raise check.fail("enshu.bright_value",
                         "variant C counts Brights at 30 (docs/enshu.md#variant-c)")

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

    return RuleSet(
        **file_fields(name, source, text, "enshu", game, deck, options, overrides),
        variant=variant,
        players=players,
        allowed_players=allowed,
        deal_field=field,
        deal_hand=hand,
        deal_draw=draw,
        deal_dead=0,
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
        spec = OPTIONS.get(name)
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
            values[name] = VARIANT_DEFAULTS.get(variant, {}).get(name, OPTIONS[name].default)
    return values


def _file_option(check: Checker, name: str, own: set[str], variant: str) -> str:
    if name not in OPTIONS:
        raise check.fail(name, f"unknown option (known for variant {variant}: {', '.join(sorted(own))})")
    if name not in own:
        raise check.fail(name, f"does not apply to variant {variant} "
                               f"(applies to {', '.join(sorted(OPTION_VARIANTS[name]))})")
    return name


def _parse(check: Checker, name: str, raw: Any) -> str | int:
    try:
        return OPTIONS[name].parse(raw)
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
    if len(entries) > E.MAX_TEYAKU:
        raise check.fail("teyaku", f"at most {E.MAX_TEYAKU} teyaku fit the uint64 bitset, got {len(entries)}")
    out: list[Teyaku] = []
    for index, (key, where, entry) in enumerate(check.keyed_entries(entries, "teyaku", TEYAKU_KEYS)):
        name = check.string(entry.get("name"), f"{where}.name")
        english = check.string(entry.get("english", name), f"{where}.english")
        group = check.string(entry.get("group"), f"{where}.group")
        if group not in E.TEYAKU_GROUPS:
            raise check.fail(f"{where}.group", f"{group!r} is not one of {', '.join(E.TEYAKU_GROUPS)}")
        pattern = check.string(entry.get("pattern"), f"{where}.pattern")
        if pattern not in E.TEYAKU_PATTERNS:
            raise check.fail(f"{where}.pattern", f"{pattern!r} is not one of {', '.join(E.TEYAKU_PATTERNS)}")
        kind = check.string(entry.get("kind", "points"), f"{where}.kind")
        if kind not in E.TEYAKU_KINDS:
            raise check.fail(f"{where}.kind", f"{kind!r} is not one of {', '.join(E.TEYAKU_KINDS)}")
        if kind == "stop" and variant != "W":
            raise check.fail(f"{where}.kind", f"only variant W has round-stopping teyaku (this file is variant {variant})")
        value = check.integer(entry.get("value"), f"{where}.value", minimum=1)
        if value > INT32_MAX:  # the engines hold it in an int32 table, whatever its kind
            raise check.fail(f"{where}.value", f"{value} is out of range 1..{INT32_MAX} (a teyaku value is held in int32)")
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
          variant: str) -> tuple[Yaku, ...]:
    if not isinstance(entries, list) or not entries:
        raise check.fail("yaku", "expected one or more [[yaku]] tables")
    if len(entries) > E.MAX_YAKU:
        raise check.fail("yaku", f"at most {E.MAX_YAKU} yaku fit the uint64 yaku bitset, got {len(entries)}")
    month_masks = {m: deck.rank_mask(m) for m in ALL_MONTHS}
    out: list[Yaku] = []
    for index, (key, where, entry) in enumerate(check.keyed_entries(entries, "yaku", YAKU_KEYS)):
        name = check.string(entry.get("name"), f"{where}.name")
        english = check.string(entry.get("english", name), f"{where}.english")
        cards = check.cards(deck, entry.get("cards"), f"{where}.cards")
        if len(cards) < 2:
            raise check.fail(f"{where}.cards", "a yaku needs at least two cards")
        mask = mask_of(cards)
        kind = check.string(entry.get("kind"), f"{where}.kind")
        if kind not in E.YAKU_KINDS:
            raise check.fail(f"{where}.kind", f"{kind!r} is not one of {', '.join(E.YAKU_KINDS)}")
        if kind not in YAKU_KINDS_BY_VARIANT[variant]:
            allowed = " or ".join(YAKU_KINDS_BY_VARIANT[variant])
            raise check.fail(f"{where}.kind", f"variant {variant} has {allowed} yaku, not {kind}")
        minimum = 2 if kind == "multiplier" or (kind == "uchikiri" and variant == "C") else 1
        value = check.integer(entry.get("value"), f"{where}.value", minimum=minimum)
        for label, alternative, in_force in check.conditional(entry, "value_if", where, OPTIONS, options):
            alternative = check.integer(alternative, label, minimum=minimum)
            if in_force:
                value = alternative
        month = next((m for m, m_mask in month_masks.items() if m_mask == mask), 0)
        upgraded = 0
        if "upgraded" in entry:
            if kind != "points" or not month:
                raise check.fail(f"{where}.upgraded", "only a points yaku of the four cards of one month can be upgraded")
            upgraded = check.integer(entry.get("upgraded"), f"{where}.upgraded", minimum=1)
        out.append(Yaku(index, key, name, english, cards, mask, kind, value, upgraded, month))
    for a in out:
        for b in out[a.index + 1:]:
            if a.mask == b.mask:
                raise check.fail(f"yaku[{b.key}].cards", f"same cards as yaku {a.key} (duplicate yaku)")
    return tuple(out)


def _supersession(check: Checker, data: dict, yaku: tuple[Yaku, ...],
                  options: dict[str, str | int]) -> dict[str, dict[str, tuple[str, ...]]]:
    tables = check.table(data, "supersession", set(), required=False)
    keys = {y.key: y for y in yaku}
    modes = OPTIONS["enshu.sokuyaku_stacking"].choices or ()
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
                  allowed: tuple[int, ...], deck: Deck, yaku: tuple[Yaku, ...],
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
    field_multiplier = (1 + kind_counts["bright"] + E.MAX_MIZU_KOTSU + players
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
