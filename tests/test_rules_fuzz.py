"""Fuzzed rule files: every mutation of a shipped file loads, or fails with one clean line.

Each example takes a shipped rule file, applies a few structural mutations to its parsed tables
(a deleted key, a value of the wrong type, a huge or negative number, a duplicated entry, a
supersession cycle, an unknown card, an unknown key) and writes it back as TOML, then perhaps
damages the bytes (truncation, garbage).  Loading must either succeed or raise ``RulesError``
whose message is one line starting with the file's path; any other exception is a bug.  A file
that loads must also play: both engines, a few rounds, identical rows.
"""

from __future__ import annotations

import copy
import json
import math
import tomllib
from importlib import resources

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from simcore.games import game_of
from simcore.policies import parse_policy
from simcore.rules import RulesError, load_rules, shipped_rules

SHIPPED = sorted(shipped_rules())
TEXTS = {name: (resources.files("simcore.rules") / f"{name}.toml").read_text(encoding="utf-8") for name in SHIPPED}
DATA = {name: tomllib.loads(text) for name, text in TEXTS.items()}


# --- a TOML writer for the parsed tables (everything inline, one top-level key a line) ---------


def _key(key: str) -> str:
    return json.dumps(key, ensure_ascii=False)


def _value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_key(k)} = {_value(v)}" for k, v in value.items()) + "}"
    raise TypeError(type(value))


def dumps(data: dict) -> str:
    return "".join(f"{_key(k)} = {_value(v)}\n" for k, v in data.items())


def test_the_writer_round_trips_every_shipped_file():
    for name, data in DATA.items():
        assert tomllib.loads(dumps(data)) == data, name


# --- mutations -----------------------------------------------------------------------------------


def _paths(node, prefix=()):
    """Every path (tuple of keys and indices) below ``node``."""
    items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    for key, child in items:
        yield prefix + (key,)
        yield from _paths(child, prefix + (key,))


def _parent(data, path):
    node = data
    for key in path[:-1]:
        node = node[key]
    return node


HUGE_AND_NEGATIVE = [0, -1, -7, 1, 2, 12, 45, 48, 64, 2**31 - 1, 2**31, 2**32, 2**63 - 1, 2**63, 2**64, 10**30,
                     -(2**31), -(2**63), 150_000_000, 800_000_000, 3_000_000_000]
WRONG_TYPES = st.one_of(
    st.text(max_size=6), st.booleans(), st.floats(allow_nan=True, allow_infinity=True),
    st.just([]), st.just({}), st.lists(st.integers(-3, 50), max_size=3),
    st.dictionaries(st.text(max_size=3), st.integers(0, 5), max_size=2),
)
UNKNOWN_CARDS = ["99X", "13C", "Pine Nothing", "", 45, 48, 63, 64, -1, 10**20, 1.5, True]


def delete_key(draw, data):
    path = draw(st.sampled_from(list(_paths(data))))
    del _parent(data, path)[path[-1]]


def wrong_type(draw, data):
    path = draw(st.sampled_from(list(_paths(data))))
    _parent(data, path)[path[-1]] = draw(WRONG_TYPES)


def huge_number(draw, data):
    paths = [p for p in _paths(data) if isinstance(_parent(data, p)[p[-1]], int)] or list(_paths(data))
    path = draw(st.sampled_from(paths))
    _parent(data, path)[path[-1]] = draw(st.sampled_from(HUGE_AND_NEGATIVE) | st.integers())


def duplicate_entry(draw, data):
    lists = [p for p in _paths(data) if isinstance(_parent(data, p)[p[-1]], list) and _parent(data, p)[p[-1]]]
    if lists:
        entries = _parent(data, path := draw(st.sampled_from(lists)))[path[-1]]
        entries.insert(draw(st.integers(0, len(entries))), copy.deepcopy(draw(st.sampled_from(entries))))


def supersession_cycle(draw, data):
    tables = data.get("supersession")
    entries = data.get("yaku") if isinstance(data.get("yaku"), list) else []
    keys = [y["key"] for y in entries if isinstance(y, dict) and isinstance(y.get("key"), str)]
    if not isinstance(tables, dict) or not tables or len(keys) < 2:
        return
    mode = draw(st.sampled_from(sorted(tables)))
    if not isinstance(tables[mode], dict):
        return
    chain = draw(st.lists(st.sampled_from(keys), min_size=1, max_size=4, unique=True))
    for a, b in zip(chain, chain[1:] + chain[:1], strict=True):  # a cycle; one key: self-supersession
        tables[mode].setdefault(a, [])
        if isinstance(tables[mode][a], list):
            tables[mode][a].append(b)


def unknown_card(draw, data):
    card_lists = [p for p in _paths(data) if p[-1] in ("cards",) or (len(p) == 2 and p[0] == "chaff_sets")]
    card_lists = [p for p in card_lists if isinstance(_parent(data, p)[p[-1]], list) and _parent(data, p)[p[-1]]]
    if card_lists:
        cards = _parent(data, path := draw(st.sampled_from(card_lists)))[path[-1]]
        cards[draw(st.integers(0, len(cards) - 1))] = draw(st.sampled_from(UNKNOWN_CARDS))


def unknown_key(draw, data):
    tables = [()] + [p for p in _paths(data) if isinstance(_parent(data, p)[p[-1]], dict)]
    path = draw(st.sampled_from(tables))
    table = data if not path else _parent(data, path)[path[-1]]
    table[draw(st.sampled_from(["extra", "Value", "set3", "kind2", "yaku"]))] = draw(st.integers(0, 3))


MUTATIONS = [delete_key, wrong_type, huge_number, duplicate_entry, supersession_cycle, unknown_card, unknown_key]


@st.composite
def mutated_files(draw):
    name = draw(st.sampled_from(SHIPPED))
    data = copy.deepcopy(DATA[name])
    for mutation in draw(st.lists(st.sampled_from(MUTATIONS), min_size=1, max_size=3)):
        mutation(draw, data)
    content = dumps(data).encode("utf-8")
    damage = draw(st.sampled_from(["none", "none", "none", "truncate", "garbage", "bytes"]))
    if damage == "truncate":
        content = content[:draw(st.integers(0, len(content)))]
    elif damage == "garbage":
        at = draw(st.integers(0, len(content)))
        content = content[:at] + draw(st.binary(min_size=1, max_size=8)) + content[at:]
    elif damage == "bytes":
        content = draw(st.binary(max_size=64))
    return name, content


def assert_loads_or_fails_cleanly(path, overrides=None):
    """The rule set, or None after a one-line ``RulesError`` naming the file (or the --option)."""
    try:
        return load_rules(str(path), overrides)
    except RulesError as error:
        message = str(error)
        assert "\n" not in message and "\r" not in message, message
        assert message.startswith((f"{path}: ", "--option ")), message
        return None


def play_both(rules, units: int = 3) -> None:
    game = game_of(rules)
    compiled = game.compile(rules)
    specs = [parse_policy("greedy" if seat == 0 else "random", game.name) for seat in range(rules.players)]
    for rounds_per_match in (None, 2):
        kernel = game.play_units("kernel", compiled, specs, 11, 0, units, rounds_per_match)
        reference = game.play_units("reference", compiled, specs, 11, 0, units, rounds_per_match)
        assert np.array_equal(kernel[0], reference[0]) and np.array_equal(kernel[1], reference[1])
        columns = game.columns(kernel[0], kernel[1], rules.players)
        table = game.table(columns, {}, rules.text, rules.players)
        assert table.num_rows == int((kernel[0][0] != 0).sum()) or table.num_rows > 0


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_files())
def test_mutated_rule_files_load_or_fail_with_one_line(tmp_path_factory, example):
    name, content = example
    path = tmp_path_factory.mktemp("fuzz") / f"{name}.toml"
    path.write_bytes(content)
    assert_loads_or_fails_cleanly(path)
