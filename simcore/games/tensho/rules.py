"""Tensho's rule files: the rule set (``RuleSet``, ``Yaku``) and its validation (``build_rules``).

``simcore.rules.load_rules`` hands a file whose ``[game] name`` is ``tensho`` to ``build_rules``,
which validates every key and resolves every option (``options.OPTIONS``); ``compile``
then lowers the rule set to the kernels' arrays.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from simcore.cards import DECKS, Deck, mask_of
from simcore.errors import RulesError
from simcore.games.tensho.options import OPTIONS, SKIN_DEFAULTS
from simcore.rules.checks import Checker, file_fields, supersession_table
from simcore.rules.loader import BaseRuleSet, BaseYaku
from simcore.rules.schema import OptionSpec

__all__ = ["INSTANT", "RuleSet", "Yaku", "build_rules"]

INSTANT = "instant"
MAX_YAKU = 64


@dataclass(frozen=True)
class Yaku(BaseYaku):
    """One yaku of a rule file: its bit ``index``, names, cards, and its value in each yaku set."""

    face: str
    cards: tuple[int, ...]
    mask: int
    values: tuple[int | str | None, ...]  # per yaku set: points, "instant", or None (absent)

    def in_set(self, yaku_set: int) -> bool:
        """Whether the yaku belongs to ``yaku_set`` (1 or 2)."""
        return self.values[yaku_set - 1] is not None

    def is_instant(self, yaku_set: int) -> bool:
        """Whether the yaku wins the round at once in ``yaku_set``."""
        return self.values[yaku_set - 1] == INSTANT

    def points(self, yaku_set: int) -> int:
        """The yaku's points in ``yaku_set`` (0 if absent or instant)."""
        value = self.values[yaku_set - 1]
        return value if isinstance(value, int) else 0


@dataclass(frozen=True)
class RuleSet(BaseRuleSet):
    """A validated rule set with every option resolved."""

    deal_field: int
    deal_hand: int
    deal_draw: int
    deal_dead: int
    card_value_tables: dict[str, tuple[int, ...]]
    chaff_sets: dict[str, int]
    yaku: tuple[Yaku, ...]
    supersession_tables: dict[str, dict[str, tuple[str, ...]]]

    @property
    def skin(self) -> str:
        """The card names in use: ``ise`` or ``hanafuda``."""
        return str(self.options.get("tensho.skin", "hanafuda"))

    @property
    def card_values(self) -> tuple[int, ...]:
        """The card-value table in force, by card id."""
        return self.card_value_tables[str(self.options["tensho.card_values"])]

    @property
    def chaff_mask(self) -> int:
        """The chaff set in force, as a card mask."""
        return self.chaff_sets[str(self.options["tensho.chaff_set"])]

    @property
    def supersession(self) -> dict[str, tuple[str, ...]]:
        """The supersession table in force: yaku key -> the keys it cancels."""
        return self.supersession_tables.get(str(self.options["tensho.supersession"]), {})


TOP_KEYS = {"game", "deal", "tensho", "card_values", "chaff_sets", "yaku", "supersession"}
YAKU_KEYS = {"key", "name", "english", "face", "cards", "cards_if", "set1", "set2"}
FACES = {"front", "back", "mixed"}
YAKU_SETS = 2


def build_rules(name: str, source: str, text: str, data: dict, overrides: dict[str, Any]) -> RuleSet:
    """Validate a parsed Tensho rule file (with ``--option`` overrides) into a ``RuleSet``.

    ``RulesError`` naming the file, the key and the problem if anything is wrong.
    """
    check = Checker(source)
    deck = DECKS["ise45"]
    game = check.header(data, TOP_KEYS, {"name", "title", "deck", "players", "description"}, "tensho", "Tensho",
                        deck)
    check.two_players(game, "Tensho")

    deal = check.table(data, "deal", {"field", "hand", "draw", "dead"})
    sizes = {k: check.integer(deal.get(k), f"deal.{k}") for k in ("field", "hand", "draw", "dead")}
    if sizes != {"field": 9, "hand": 6, "draw": 18, "dead": 6}:
        raise check.fail("deal", "Tensho deals field 9, hands 6 and 6, draw 18, dead 6 "
                                 "(docs/tensho.md#a-round)")

    options = _options(check, data, overrides)

    tables = check.table(data, "card_values", set())
    card_value_tables: dict[str, tuple[int, ...]] = {}
    value_keys: dict[str, list[str]] = {}  # per table, the key each card's value comes from
    for table_key, table in tables.items():
        where = f"card_values.{table_key}"
        if not isinstance(table, dict):
            raise check.fail(where, "expected a table with `default` and `values`")
        extra = sorted(set(table) - {"default", "values"})
        if extra:
            raise check.fail(f"{where}.{extra[0]}", "unknown key (allowed: default, values)")
        default = check.integer(table.get("default", 0), f"{where}.default")
        values = [default] * deck.size
        value_keys[table_key] = [f"{where}.default"] * deck.size
        listed = table.get("values", {})
        if not isinstance(listed, dict):
            raise check.fail(f"{where}.values", "expected a table of card = value")
        for ref, value in listed.items():
            try:
                card_id = deck.card_id(ref)
            except KeyError as error:
                raise check.fail(f"{where}.values.{ref}", error.args[0]) from None
            values[card_id] = check.integer(value, f"{where}.values.{ref}")
            value_keys[table_key][card_id] = f"{where}.values.{ref}"
        card_value_tables[table_key] = tuple(values)

    chaff_tables = check.table(data, "chaff_sets", set())
    chaff_sets = {
        key: mask_of(check.cards(deck, value, f"chaff_sets.{key}")) for key, value in chaff_tables.items()
    }

    named_tables: list[tuple[str, Mapping[str, object], str]] = [
        ("tensho.card_values", card_value_tables, "card_values"),
        ("tensho.chaff_set", chaff_sets, "chaff_sets"),
    ]
    for option_name, available, what in named_tables:
        chosen = str(options[option_name])
        if chosen not in available:
            raise check.fail(option_name, f"{chosen!r} has no table [{what}.{chosen}] in this file")

    yaku = _yaku(check, deck, data.get("yaku"), options)

    supersession_data = check.table(data, "supersession", set(), required=False)
    keys = {y.key for y in yaku}
    supersession_tables: dict[str, dict[str, tuple[str, ...]]] = {}
    mode_spec = OPTIONS["tensho.supersession"]
    for mode, table in supersession_data.items():
        where = f"supersession.{mode}"
        if mode not in (mode_spec.choices or ()):
            raise check.fail(where, f"unknown supersession mode (allowed: {', '.join(mode_spec.choices or ())})")
        resolved = supersession_table(check, where, table, keys)
        supersession_tables[mode] = resolved
    chosen_mode = str(options["tensho.supersession"])
    if chosen_mode != "none" and chosen_mode not in supersession_tables:
        raise check.fail("tensho.supersession", f"{chosen_mode!r} has no table [supersession.{chosen_mode}]")
    _check_tensho_bounds(source, value_keys, card_value_tables, yaku, options)

    return RuleSet(
        **file_fields(name, source, text, "tensho", game, deck, options, overrides),
        players=2,
        deal_field=sizes["field"],
        deal_hand=sizes["hand"],
        deal_draw=sizes["draw"],
        deal_dead=sizes["dead"],
        card_value_tables=card_value_tables,
        chaff_sets=chaff_sets,
        yaku=yaku,
        supersession_tables=supersession_tables,
    )


def _check_tensho_bounds(source: str, value_keys: dict[str, list[str]],
                         card_value_tables: dict[str, tuple[int, ...]], yaku: tuple[Yaku, ...],
                         options: dict[str, str | int]) -> None:
    """Every sum of the file's numbers fits its type (see ``simcore.rules.bounds``).

    Card values: a pile's total (all cards at worst) is the int32 column ``card_points_*``.
    Yaku points: a set's total is the int32 column ``yaku_points_*``; 12 times a yaku's points
    over its cards is the greedy policy's int32 weight; with ``tensho.match_scoring = yaku_points`` a match of up to
    ``MAX_MATCH_ROUNDS`` rounds (twice that with ``tensho.match_tie = extra_round``) sums the
    round scores into the int32 column ``match_points_*``.
    """
    from simcore.rules.bounds import INT32_MAX, MAX_MATCH_ROUNDS, Number, Reach, check_bounds

    numbers: dict[str, Number] = {}
    for table_key, keys in value_keys.items():
        for card_id, key in enumerate(keys):
            numbers[key] = Number(key, card_value_tables[table_key][card_id], 0)
    set_keys: list[list[str]] = [[] for _ in range(YAKU_SETS)]
    card_count: dict[str, int] = {}
    for y in yaku:
        for s in range(YAKU_SETS):
            value = y.values[s]
            if isinstance(value, int):
                key = f"yaku[{y.key}].set{s + 1}"
                numbers[key] = Number(key, int(value), 1)
                set_keys[s].append(key)
                card_count[key] = len(y.cards)
    instant_score = int(options["tensho.instant_win_score"])
    by_points = options["tensho.match_scoring"] == "yaku_points"
    match_rounds = MAX_MATCH_ROUNDS * (2 if options["tensho.match_tie"] == "extra_round" else 1)

    def reaches(values: dict[str, int]) -> list[Reach]:
        out = []
        for table_key, keys in value_keys.items():
            out.append(Reach(f"card_points_* (int32, table {table_key} over a pile)",
                             sum(values[k] for k in keys), INT32_MAX))
        for s, keys in enumerate(set_keys):
            total = sum(values[k] for k in keys)
            out.append(Reach(f"yaku_points_* (int32, the yaku of set {s + 1})", total, INT32_MAX))
            out.append(Reach(f"the greedy policy's yaku weight (int32, 12 x points / cards of a yaku of set {s + 1})",
                             max((12 * values[k] // card_count[k] for k in keys), default=0), INT32_MAX))
            if by_points:
                out.append(Reach(f"match_points_* (int32, {match_rounds:,} rounds of set {s + 1})",
                                 match_rounds * max(total, instant_score), INT32_MAX))
        return out

    check_bounds(source, list(numbers.values()), reaches)


def _options(check: Checker, data: dict, overrides: dict[str, Any]) -> dict[str, str | int]:
    section = check.table(data, "tensho", {spec.name.split(".", 1)[1] for spec in OPTIONS.values()})
    values: dict[str, str | int] = {}
    for key, raw in section.items():
        spec = OPTIONS[f"tensho.{key}"]
        values[spec.name] = _parse_option(check, spec, raw, f"tensho.{key}")
    for option_name, raw in overrides.items():
        override_spec = OPTIONS.get(option_name)
        if override_spec is None:
            known = ", ".join(sorted(OPTIONS))
            raise RulesError(f"--option {option_name}: unknown option (known: {known})")
        try:
            values[option_name] = override_spec.parse(raw)
        except ValueError as error:
            raise RulesError(f"--option {option_name}: {error}") from None
    skin = str(values.get("tensho.skin", OPTIONS["tensho.skin"].default))
    for spec in OPTIONS.values():
        if spec.name not in values:
            values[spec.name] = SKIN_DEFAULTS.get(skin, {}).get(spec.name, spec.default)
    return values


def _parse_option(check: Checker, spec: OptionSpec, raw: Any, key: str) -> str | int:
    try:
        return spec.parse(raw)
    except ValueError as error:
        raise check.fail(key, str(error)) from None


def _yaku(check: Checker, deck: Deck, entries: Any, options: dict[str, str | int]) -> tuple[Yaku, ...]:
    if not isinstance(entries, list) or not entries:
        raise check.fail("yaku", "expected one or more [[yaku]] tables")
    if len(entries) > MAX_YAKU:
        raise check.fail("yaku", f"at most {MAX_YAKU} yaku fit the uint64 yaku bitset, got {len(entries)}")
    out: list[Yaku] = []
    seen_names: set[str] = set()
    for index, (key, where, entry) in enumerate(check.keyed_entries(entries, "yaku", YAKU_KEYS)):
        name = check.string(entry.get("name"), f"{where}.name")
        if name in seen_names:
            raise check.fail(f"{where}.name", f"duplicate yaku name {name!r}")
        seen_names.add(name)
        english = check.string(entry.get("english", name), f"{where}.english")
        face = check.string(entry.get("face", "mixed"), f"{where}.face")
        if face not in FACES:
            raise check.fail(f"{where}.face", f"{face!r} is not one of {', '.join(sorted(FACES))}")
        cards = check.cards(deck, entry.get("cards"), f"{where}.cards")
        for label, alternative, in_force in check.conditional(entry, "cards_if", where, OPTIONS, options):
            alternative_cards = check.cards(deck, alternative, label)
            if in_force:
                cards = alternative_cards
        if len(cards) < 2:
            raise check.fail(f"{where}.cards", "a yaku needs at least two cards")
        values: list[int | str | None] = []
        for yaku_set in range(1, YAKU_SETS + 1):
            raw = entry.get(f"set{yaku_set}")
            if raw is None:
                values.append(None)
            elif raw == INSTANT:
                values.append(INSTANT)
            elif isinstance(raw, int) and not isinstance(raw, bool) and raw > 0:
                values.append(raw)
            else:
                raise check.fail(f"{where}.set{yaku_set}", f"expected positive points or \"instant\", got {raw!r}")
        if all(v is None for v in values):
            raise check.fail(where, "belongs to no yaku set (give set1 and/or set2)")
        out.append(Yaku(index, key, name, english, face, cards, mask_of(cards), tuple(values)))
    for a in out:
        for b in out[a.index + 1 :]:
            if a.mask == b.mask and any(x is not None and y is not None for x, y in zip(a.values, b.values, strict=True)):
                raise check.fail(f"yaku[{b.key}].cards", f"same cards as yaku {a.key} in the same set (duplicate yaku)")
    return tuple(out)
