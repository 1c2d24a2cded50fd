"""Rule-file numbers bounded by the sums they can reach, supersession cycles, the size cap.

Every broken file is a shipped file with one edit.  The expected ranges are worked out here from
the stored types (int32 columns and arrays, int64 match totals) and the file's other numbers,
read with ``tomllib``; a file at the top of its range must load and play with both engines,
with rows that agree and columns that hold what the engines computed.
"""

from __future__ import annotations

import re
import tomllib
from importlib import resources

import numpy as np
import pytest

from simcore.cards import HANAFUDA48, ISE45, ids_of
from simcore.games import game_of
from simcore.policies import parse_policy
from simcore.rules import MAX_RULES_BYTES, RulesError, load_rules, load_rules_text
from simcore.run.runner import RunConfig, RunError, run

INT32 = 2**31 - 1
INT64 = 2**63 - 1
MATCH_ROUNDS = 1000  # the longest match a rule set is bounded for


def shipped_text(name: str) -> str:
    return (resources.files("simcore.rules") / f"{name}.toml").read_text(encoding="utf-8")


def edited(tmp_path, name: str, old: str, new: str, count: int = 1) -> str:
    text = shipped_text(name)
    assert text.count(old) >= count, old
    path = tmp_path / f"{name}-edited.toml"
    path.write_text(text.replace(old, new, count), encoding="utf-8")
    return str(path)


def refused(path: str, key: str, overrides=None) -> tuple[int, int]:
    """Load a file expected to fail on ``key``; return the range its message gives."""
    with pytest.raises(RulesError) as caught:
        load_rules(path, overrides)
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith(f"{path}: {key}: "), message
    found = re.search(r"out of range (-?\d+)\.\.(-?\d+) \(", message)
    assert found, message
    return int(found.group(1)), int(found.group(2))


def play_both(rules, units: int = 6, rounds_per_match: int | None = None):
    """Kernel and reference rows of a few units (asserted identical) and the kernel's columns."""
    game = game_of(rules)
    compiled = game.compile(rules)
    specs = [parse_policy("greedy" if seat == 0 else "random", game.name) for seat in range(rules.players)]
    kernel = game.play_units("kernel", compiled, specs, 5, 0, units, rounds_per_match)
    reference = game.play_units("reference", compiled, specs, 5, 0, units, rounds_per_match)
    assert np.array_equal(kernel[0], reference[0]) and np.array_equal(kernel[1], reference[1])
    return game.columns(kernel[0], kernel[1], rules.players)


# --- Tensho -----------------------------------------------------------------------------------

T1_LISTED = tomllib.loads(shipped_text("tensho-ise"))["card_values"]["T1_ise"]["values"]


def test_card_value_default_that_wraps_card_points_is_refused_and_the_top_of_its_range_plays(tmp_path):
    path = edited(tmp_path, "tensho-ise", "[card_values.T1_ise]\ndefault = 1",
                  "[card_values.T1_ise]\ndefault = 150000000")
    low, high = refused(path, "card_values.T1_ise.default")
    # the whole deck of 45 cards in one pile must fit the int32 column card_points_*
    assert (low, high) == (0, (INT32 - sum(T1_LISTED.values())) // (ISE45.size - len(T1_LISTED)))
    path = edited(tmp_path, "tensho-ise", "[card_values.T1_ise]\ndefault = 1",
                  f"[card_values.T1_ise]\ndefault = {high}")
    rules = load_rules(path)
    columns = play_both(rules)
    values = rules.card_values
    for seat in range(2):
        expected = [sum(values[c] for c in ids_of(int(pile))) for pile in columns[f"captured_{seat}"]]
        assert columns[f"card_points_{seat}"].tolist() == expected
        assert max(expected) > 4 * 10**8  # values near the top of the range were played
    with pytest.raises(RulesError, match="default: 69273663 is out of range"):
        load_rules(edited(tmp_path, "tensho-ise", "[card_values.T1_ise]\ndefault = 1",
                          f"[card_values.T1_ise]\ndefault = {high + 1}"))


@pytest.mark.parametrize("value", [3_000_000_000, 2**63, 10**30])
def test_card_value_beyond_int32_is_refused(tmp_path, value):
    path = edited(tmp_path, "tensho-ise", '"1C" = 15,', f'"1C" = {value},')
    low, high = refused(path, "card_values.T1_ise.values.1C")
    others = sum(v for k, v in T1_LISTED.items() if k != "1C") + (ISE45.size - len(T1_LISTED))
    assert (low, high) == (0, INT32 - others)


def test_yaku_points_beyond_the_greedy_weight_are_refused_and_the_top_of_the_range_plays(tmp_path):
    old = 'cards = ["1S", "2S", "3S"]\nset1 = 100'
    path = edited(tmp_path, "tensho-ise", old, 'cards = ["1S", "2S", "3S"]\nset1 = 800000000')
    low, high = refused(path, "yaku[Y01].set1")
    assert (low, high) == (1, INT32 // 4)  # greedy weight 12 x points / 3 cards is an int32
    rules = load_rules(edited(tmp_path, "tensho-ise", old, f'cards = ["1S", "2S", "3S"]\nset1 = {high}'))
    columns = play_both(rules, units=40)
    for seat in range(2):
        assert (columns[f"yaku_points_{seat}"] >= 0).all()


def set_total(name: str, yaku_set: int) -> int:
    data = tomllib.loads(shipped_text(name))
    return sum(y[f"set{yaku_set}"] for y in data["yaku"] if isinstance(y.get(f"set{yaku_set}"), int))


@pytest.mark.parametrize("tie, rounds", [("draw", MATCH_ROUNDS), ("extra_round", 2 * MATCH_ROUNDS)])
def test_yaku_points_summed_over_a_match_are_bounded_by_match_points(tmp_path, tie, rounds):
    old = 'cards = ["1S", "2S", "3S"]\nset1 = 100'
    path = edited(tmp_path, "tensho-ise", old, 'cards = ["1S", "2S", "3S"]\nset1 = 5000000')
    overrides = {"tensho.match_scoring": "yaku_points", "tensho.match_tie": tie}
    low, high = refused(path, "yaku[Y01].set1", overrides)
    assert (low, high) == (1, INT32 // rounds - (set_total("tensho-ise", 1) - 100))
    load_rules(path)  # round wins: the points never add up over a match
    rules = load_rules(edited(tmp_path, "tensho-ise", old, f'cards = ["1S", "2S", "3S"]\nset1 = {high}'), overrides)
    columns = play_both(rules, units=3, rounds_per_match=4)
    for seat in range(2):
        assert (columns[f"match_points_{seat}"] >= 0).all()


@pytest.mark.parametrize("text", ["1.5", "nan", "inf", "true", '"100"', "-5", "0"])
def test_yaku_points_that_are_not_positive_integers_are_refused(tmp_path, text):
    path = edited(tmp_path, "tensho-ise", 'cards = ["1S", "2S", "3S"]\nset1 = 100',
                  f'cards = ["1S", "2S", "3S"]\nset1 = {text}')
    with pytest.raises(RulesError, match=rf"^{re.escape(path)}: yaku\[Y01\]\.set1: expected positive points"):
        load_rules(path)


@pytest.mark.parametrize("text", ["1.5", "nan", "-inf", "false", '"15"', "-1", "[15]"])
def test_card_values_that_are_not_integers_are_refused(tmp_path, text):
    path = edited(tmp_path, "tensho-ise", '"1C" = 15,', f'"1C" = {text},')
    with pytest.raises(RulesError, match=rf"^{re.escape(path)}: card_values\.T1_ise\.values\.1C: "):
        load_rules(path)


def test_rounds_per_match_beyond_the_bounded_match_length_is_refused(tmp_path):
    config = RunConfig(rules="tensho-ise", matches=1, rounds_per_match=MATCH_ROUNDS + 1, out=str(tmp_path / "out"))
    with pytest.raises(RunError, match=rf"--rounds-per-match {MATCH_ROUNDS + 1}: must be 1\.\.{MATCH_ROUNDS}"):
        run(config)
    assert not (tmp_path / "out").exists()


# --- Enshu-bana -------------------------------------------------------------------------------


def kind_count(kind: str) -> int:
    return sum(1 for card in HANAFUDA48.cards if card.kind == kind)


def test_enshu_card_points_that_wrap_card_points_are_refused_and_the_top_of_the_range_plays(tmp_path):
    path = edited(tmp_path, "enshu-s", "chaff = 0", "chaff = 100000000")
    low, high = refused(path, "card_points.chaff")
    others = 20 * kind_count("bright") + 10 * kind_count("animal") + 5 * kind_count("ribbon")
    assert (low, high) == (0, (INT32 - others) // kind_count("chaff"))
    rules = load_rules(edited(tmp_path, "enshu-s", "chaff = 0", "chaff = 10000000"))
    columns = play_both(rules)
    for seat in range(rules.players):
        expected = [sum(rules.card_points[c] for c in ids_of(int(pile))) for pile in columns[f"captured_{seat}"]]
        assert columns[f"card_points_{seat}"].tolist() == expected


def enshu_yaku(name: str) -> dict[str, dict]:
    return {y["key"]: y for y in tomllib.loads(shipped_text(name))["yaku"]}


def test_enshu_multipliers_whose_product_overflows_are_refused(tmp_path):
    # variant S: the multiplier yaku multiply into the int32 column yaku_multiplier_*
    yaku = enshu_yaku("enshu-s")
    multipliers = {k: y for k, y in yaku.items() if y["kind"] == "multiplier"}
    key = next(iter(multipliers))
    entry_text = f'key = "{key}"'
    text = shipped_text("enshu-s")
    start = text.index(entry_text)
    value_at = text.index("value = ", start)
    line_end = text.index("\n", value_at)
    path = tmp_path / "mult.toml"
    path.write_text(text[:value_at] + "value = 4000000000" + text[line_end:], encoding="utf-8")
    low, high = refused(str(path), f"yaku[{key}].value")
    others = 1
    for other_key, y in multipliers.items():
        if other_key != key:
            others *= max([y["value"], *y.get("value_if", {}).values()])
    # the product, and the greedy weight: 12 x 100 points a unit over the yaku's 4 cards (int32)
    assert (low, high) == (2, min(INT32 // others, INT32 // (12 * 100 // 4)))


def test_enshu_c_scores_over_a_match_are_bounded_by_int64(tmp_path):
    # variant C: a round's score is points x field multiplier x uchikiri multipliers, paid by up
    # to four players, over a match of up to 1,000 rounds: the int64 match_points_*
    text = shipped_text("enshu-c").replace("value = 150", "value = 2000000000", 1)
    text = text.replace('kind = "uchikiri"\nvalue = 3', 'kind = "uchikiri"\nvalue = 2000000', 1)
    path = tmp_path / "c.toml"
    path.write_text(text, encoding="utf-8")
    data = tomllib.loads(text)
    edited_teyaku = next(t for t in data["teyaku"] if t["value"] == 2_000_000_000)
    cards = (30 * kind_count("bright") + sum(data["card_points"][kind] * kind_count(kind)
                                             for kind in ("animal", "ribbon", "chaff")))
    yaku_points = sum(max([y["value"], *y.get("value_if", {}).values(), y.get("upgraded", 0)])
                      for y in data["yaku"] if y["kind"] == "points")
    other_teyaku = sum(t["value"] + t.get("bonus", 0) for t in data["teyaku"]
                       if t is not edited_teyaku and t.get("kind", "points") == "points")
    other_teyaku += edited_teyaku.get("bonus", 0)
    uchikiri = 1
    for y in data["yaku"]:
        if y["kind"] == "uchikiri":
            uchikiri *= y["value"]
    payers = max(data["game"]["players"]) - 1
    # 1 + the Brights on the field + mizu-kotsu (3) + kotsu (one a player) + dropout passes
    field_multiplier = 1 + kind_count("bright") + 3 + (payers + 1) + 20
    per_point = MATCH_ROUNDS * payers * field_multiplier * uchikiri
    # base = cards + payers x (yaku + teyaku points) at worst
    highest = (INT64 // per_point - cards) // payers - yaku_points - other_teyaku
    low, high = refused(str(path), f"teyaku[{edited_teyaku['key']}].value")
    assert (low, high) == (1, highest)


def test_enshu_w_stakes_are_bounded_with_the_stake_option(tmp_path):
    # variant W: stopping yaku completed together multiply their stakes (enshu.w.uchikiri_combo =
    # product at worst); each loser pays (stakes + 1) x enshu.w.stake, over a match of up to
    # 1,000 rounds: the int64 match_points_*
    text = shipped_text("enshu-w")
    text = text.replace('kind = "uchikiri"\nvalue = 3', 'kind = "uchikiri"\nvalue = 7000000', 1)
    text = text.replace('kind = "uchikiri"\nvalue = 2', 'kind = "uchikiri"\nvalue = 5000000', 1)
    path = tmp_path / "stakes.toml"
    path.write_text(text, encoding="utf-8")
    data = tomllib.loads(text)
    stopping = [y for y in data["yaku"] if y["kind"] == "uchikiri"]
    assert [y["value"] for y in stopping][:2] == [7_000_000, 5_000_000]
    load_rules(str(path))  # one matchstick a stake: the stakes fit
    stake = 1_000_000
    others = 1
    for y in stopping[1:]:
        others *= y["value"]
    losers = max(data["game"]["players"]) - 1
    highest = (INT64 // (MATCH_ROUNDS * losers * stake) - 1) // others
    low, high = refused(str(path), f"yaku[{stopping[0]['key']}].value", {"enshu.w.stake": stake})
    assert (low, high) == (1, highest)


def test_enshu_teyaku_value_and_value_if_are_bounded(tmp_path):
    path = edited(tmp_path, "enshu-s", 'kind = "points"\nvalue = 50', 'kind = "points"\nvalue = 3000000000')
    low, high = refused(path, "teyaku[shisou].value")
    assert low == 1 and 0 < high < 3_000_000_000
    text = shipped_text("enshu-s")
    start = text.index("value_if = {")
    line_end = text.index("\n", start)
    line = text[start:line_end]
    bumped = re.sub(r"= (\d+) }", "= 99999999999 }", line)
    assert bumped != line
    path = tmp_path / "value-if.toml"
    path.write_text(text[:start] + bumped + text[line_end:], encoding="utf-8")
    with pytest.raises(RulesError, match=r"\.value_if\.[^:]+: 99999999999 is out of range"):
        load_rules(str(path))


# --- supersession cycles ----------------------------------------------------------------------


@pytest.mark.parametrize("added, cycle", [
    ('Y25 = ["Y29"]\n', "Y25 -> Y29 -> Y25"),
    ('Y15 = ["Y17"]\nY17 = ["Y21"]\n', "Y15 -> Y17 -> Y21 -> Y15"),
])
def test_tensho_supersession_cycle_is_refused(tmp_path, added, cycle):
    path = edited(tmp_path, "tensho-ise", "[supersession.set_specific_subsets]\n",
                  "[supersession.set_specific_subsets]\n" + added)
    with pytest.raises(RulesError) as caught:
        load_rules(path)
    message = str(caught.value)
    assert message.startswith(f"{path}: supersession.set_specific_subsets.")
    assert f"supersession cycle {cycle}" in message and "\n" not in message


def test_tensho_self_supersession_is_refused(tmp_path):
    path = edited(tmp_path, "tensho-ise", 'Y21 = ["Y15", "Y17", "Y19"]', 'Y21 = ["Y15", "Y21"]')
    with pytest.raises(RulesError, match=rf"^{re.escape(path)}: supersession.set_specific_subsets.Y21: "
                                         "a yaku cannot cancel itself"):
        load_rules(path)


def test_enshu_supersession_cycle_is_refused(tmp_path):
    path = edited(tmp_path, "enshu-c", 'sokuyaku = ["shishibo", "shishichu"]\n',
                  'sokuyaku = ["shishibo", "shishichu"]\nshishibo = ["sokuyaku"]\n')
    with pytest.raises(RulesError) as caught:
        load_rules(path)
    message = str(caught.value)
    assert message.startswith(f"{path}: supersession.supersede.")
    assert "supersession cycle" in message and "sokuyaku -> shishibo -> sokuyaku" in message


# --- size ---------------------------------------------------------------------------------------


def test_a_rule_file_larger_than_the_cap_is_refused_before_parsing(tmp_path):
    text = shipped_text("tensho-ise")
    padding = "#" * (MAX_RULES_BYTES - len(text.encode()) - 1) + "\n"
    at_cap = tmp_path / "at-cap.toml"
    at_cap.write_text(text + padding, encoding="utf-8")
    assert at_cap.stat().st_size == MAX_RULES_BYTES
    assert load_rules(str(at_cap)).name == "at-cap"
    over = tmp_path / "over.toml"
    over.write_text(text + padding + "#", encoding="utf-8")
    with pytest.raises(RulesError) as caught:
        load_rules(str(over))
    assert str(caught.value) == (f"{over}: {MAX_RULES_BYTES + 1:,} bytes is larger than a rule file may be "
                                 f"({MAX_RULES_BYTES:,} bytes)")
    garbage = tmp_path / "garbage.toml"  # not even UTF-8: the size is refused first
    garbage.write_bytes(b"\xff" * (50 * 2**20))
    with pytest.raises(RulesError, match=rf"^{re.escape(str(garbage))}: 52,428,800 bytes is larger"):
        load_rules(str(garbage))


def test_stored_rules_text_larger_than_the_cap_is_refused():
    text = shipped_text("enshu-c") + "#" * MAX_RULES_BYTES
    with pytest.raises(RulesError, match=r"^runs/x: fudasim.rules: \d[\d,]* bytes is larger than a rule file"):
        load_rules_text(text, "enshu-c", "runs/x: fudasim.rules")
    assert load_rules_text(shipped_text("enshu-c"), "enshu-c", "stored").variant == "C"


@pytest.mark.parametrize("name, old, field", [
    ("enshu-c", "bonus = 100", "bonus"),
    ("enshu-w", "upgraded = 100", "upgraded"),
])
def test_enshu_bonus_and_upgraded_values_are_bounded(tmp_path, name, old, field):
    # the points teyaku and bonuses, and the points yaku at their upgraded values, add up into
    # the int32 columns teyaku_points_* and yaku_points_*
    path = edited(tmp_path, name, old, f"{field} = 2147483647")
    data = tomllib.loads(shipped_text(name))
    if field == "bonus":
        entries = [t for t in data["teyaku"] if t.get("bonus") == 100]
        others = sum(t["value"] + t.get("bonus", 0) for t in data["teyaku"]) - 100
        table = "teyaku"
    else:
        entries = [y for y in data["yaku"] if y.get("upgraded") == 100]
        others = sum(max([y["value"], *y.get("value_if", {}).values(), y.get("upgraded", 0)])
                     for y in data["yaku"] if y["kind"] == "points") - 100
        table = "yaku"
    low, high = refused(path, f"{table}[{entries[0]['key']}].{field}")
    assert (low, high) == (1, INT32 - others)
