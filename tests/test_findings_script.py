"""benchmarks/findings.py writes docs/findings.md: at a tiny size it must produce every section,
answer each question with a number and its interval, keep every interval inside its bounds, adjust
its families of comparisons by Holm's method, and report its calibration as z-scores and a
multi-seed spread. Expected values are worked out here by hand, not by the code under test."""

from __future__ import annotations

import dataclasses
import math
import re

import pytest

from benchmarks.findings import (
    QUESTIONS,
    Findings,
    Number,
    Page,
    Plan,
    Setting,
    calibration_z,
    card_value_section,
    main,
    misleading_section,
    rate,
    spread_row,
)

SET_1 = Setting("Tensho (Ise), yaku set 1", "tensho-ise", (("tensho.yaku_set_choice", "fixed_1"),))
INTERVAL = re.compile(r"([+-]?\d[\d,]*(?:\.\d+)?)( %| pp)? \[([+-]?\d[\d,]*(?:\.\d+)?), ([+-]?\d[\d,]*(?:\.\d+)?)\]")


def _plan(tmp_path) -> Plan:
    return Plan(policies=["random", "greedy"], chain=[], rounds=10, search_rounds=10, deals=10, seed=1, out=tmp_path)


def test_a_share_prints_its_wilson_bounds_inside_0_and_100():
    for k, n in ((0, 2000), (2, 2000), (2000, 2000), (1000, 2000)):
        number = rate("S", "p", "q", k, n)
        value, low, high = (float(x) for x in INTERVAL.match(number.text()).group(1, 3, 4))
        assert 0 <= low <= value <= high <= 100, number.text()
        assert "±" not in number.text()
    assert re.fullmatch(r"0\.0+ \[0\.0+, 0\.19\d*\]", rate("S", "p", "q", 0, 2000).text())  # never below 0
    assert re.fullmatch(r"100\.0+ \[99\.80\d*, 100\.0+\]", rate("S", "p", "q", 2000, 2000).text())  # nor above 100
    # 2 of 2,000: the Wilson interval is asymmetric about 0.1 %
    low, high = (float(x) for x in INTERVAL.match(rate("S", "p", "q", 2, 2000).text()).group(3, 4))
    assert high - 0.1 > 2 * (0.1 - low)


def _holm_by_hand(p: list[float]) -> list[float]:
    order = sorted(range(len(p)), key=lambda i: p[i])
    out, running = [0.0] * len(p), 0.0
    for i, index in enumerate(order):
        running = max(running, min(1.0, (len(p) - i) * p[index]))
        out[index] = running
    return out


def test_the_card_value_tables_are_holm_adjusted_over_the_pages_family(tmp_path):
    found = Findings()
    found.strongest[SET_1.label] = ("greedy", "given")
    p_values = [0.004, 0.03, 0.2, 0.012, 0.5, 0.04, 0.9, 0.01]
    k = 0
    for policy in ("greedy", "random"):
        for table in ("T2", "T3"):
            for what in ("dealer's win rate", "rounds ended by card values"):
                number = Number(SET_1.label, policy, f"{table} - T1: {what}", 0.001 * (k + 1), 0.0, 0.002 * (k + 1),
                                "points")
                found.put(number)
                found.card_values.append((number, p_values[k]))
                k += 1
    page = Page()
    card_value_section(page, found, [SET_1], _plan(tmp_path), [])
    text = "\n".join(page.parts)
    adjusted = _holm_by_hand(p_values)  # 0.032, 0.12, 0.6, 0.072, 1, 0.12, 1, 0.07
    assert adjusted != [min(1.0, 8 * p) for p in p_values]  # Holm is not Bonferroni here
    printed = [float(h) for h in re.findall(r"\d\.\d{3} \((\d\.\d{3})\)", text)]
    assert printed == pytest.approx([round(a, 3) for a in adjusted])
    assert text.count("] *") == sum(a < 0.05 for a in adjusted) == 1  # only p = 0.004 stays significant
    assert "1 of the 8 differences are significant after Holm's adjustment" in text


def test_where_random_play_misleads_is_holm_adjusted_over_the_section(tmp_path):
    found = Findings()
    p_values = [0.001, 0.004, 0.03, 0.2, 0.011]
    for k, p in enumerate(p_values):
        weak = Number(SET_1.label, "random", f"ends by reason{k}", 0.30, 0.29, 0.31)
        strong = Number(SET_1.label, "greedy", f"ends by reason{k}", 0.25, 0.24, 0.26)
        diff = Number(SET_1.label, "greedy - random", f"ends by reason{k}", -0.05, -0.06, -0.04, "points")
        found.misleading.append((weak, strong, diff, p))
    page = Page()
    misleading_section(page, found, [SET_1], _plan(tmp_path))
    text = "\n".join(page.parts)
    adjusted = _holm_by_hand(p_values)  # 0.005, 0.016, 0.06, 0.2, 0.033
    assert f"{sum(a < 0.05 for a in adjusted)} of the 5 shares differ" in text  # 3, where 4 are below 0.05 raw
    for k, a in enumerate(adjusted):
        assert (f"reason{k} too high" in text) == (a < 0.05)
        if a < 0.05:
            assert f"Holm p = {a:.3f}" in text
    # with seats sitting rounds out, the dealer's win rate is over the rounds it played in both runs
    # (fewer than the section's): the line says so, and the direction is the paired difference's
    four = Setting("Enshu-bana C, 4 players", "enshu-c", players=4)
    found = Findings()
    for quantity, weak, strong, diff, n in (("ends by score", 0.79, 0.80, 0.01, 1000),
                                             ("dealer wins", 0.28, 0.40, 0.03, 150)):
        found.misleading.append((Number(four.label, "random", quantity, weak, weak - 0.01, weak + 0.01),
                                 Number(four.label, "learned", quantity, strong, strong - 0.01, strong + 0.01),
                                 Number(four.label, "learned - random", quantity, diff, diff - 0.005, diff + 0.005,
                                        "points", n=n), 0.0001))
    page = Page()
    misleading_section(page, found, [four], _plan(tmp_path))
    text = "\n".join(page.parts)
    assert "on the 1,000 rounds both played" in text
    dealer = next(line for line in text.splitlines() if "dealer wins" in line)
    assert "dealer wins too low" in dealer and "too low, over the 150 rounds the dealer played in both runs: " in dealer
    score = next(line for line in text.splitlines() if "ends by score" in line)
    assert "ends by score too low" in score and "(difference +" in score


def test_where_random_play_misleads_gives_both_shares_over_the_rounds_both_played(tmp_path):
    # random plays 3,000 rounds, greedy the first 1,000 of the same deals: each share on the line is
    # over those 1,000, worked out here from the rows, and the difference is the second less the first
    from benchmarks.findings import describe_misleading
    from simcore.dataset import read_dataset
    from simcore.run.runner import RunConfig, run

    weak, strong = tmp_path / "random", tmp_path / "greedy"
    run(RunConfig(rules="tensho-ise", rounds=3000, seed=5, out=str(weak)))
    run(RunConfig(rules="tensho-ise", rounds=1000, seed=5, policies=("greedy", "greedy"), out=str(strong)))
    found = Findings()
    describe_misleading(weak, strong, SET_1, "random", "greedy", found)
    dealer = next(row for row in found.misleading if row[0].quantity == "dealer wins")
    a, b, d, _ = dealer
    frames = [read_dataset(path, columns=["winner", "dealer"]) for path in (weak, strong)]
    first = frames[0].iloc[:1000]
    by_hand = [(f["winner"] == f["dealer"]).mean() for f in (first, frames[1])]
    assert (a.value, b.value) == pytest.approx(by_hand)
    assert a.n == b.n == d.n == 1000
    assert a.low <= a.value <= a.high and b.low <= b.value <= b.high
    for a, b, d, _ in found.misleading:
        assert d.value == pytest.approx(b.value - a.value)


def test_calibration_keeps_one_number_per_independent_quantity():
    two = "Two"
    page = [Number(two, "p", "order 0 wins", 0.52, 0.51, 0.53, "rate", 0.005),
            Number(two, "p", "order 1 wins", 0.47, 0.46, 0.48, "rate", 0.005),  # the dealer's again
            Number(two, "p", "order 0 payoff", 0.05, 0.04, 0.06, "mean", 0.005),
            Number(two, "p", "order 1 payoff", -0.05, -0.06, -0.04, "mean", 0.005),  # zero-sum: its negative
            Number(two, "p, T3", "order 0 wins", 0.52, 0.51, 0.53, "rate", 0.005),  # the same rounds again
            Number(two, "p", "yaku A made", 0.05, 0.04, 0.06, "rate", 0.004),
            Number(two, "p", "yaku A won with", 0.04, 0.03, 0.05, "rate", 0.004),  # within yaku A made
            Number(two, "p", "ends by score", 1.0, 0.99, 1.0, "rate", 0.0),  # no interval to compare
            Number(two, "greedy / omniscient 1", "LE", 0.3, 0.2, 0.4, "boot", 0.05),
            Number(two, "greedy / omniscient 2", "LE", 0.3, 0.2, 0.4, "boot", 0.05),  # LE again
            Number(two, "greedy / omniscient 1", "RS", 0.25, 0.2, 0.3, "boot", 0.02)]  # follows from LE and RE
    fresh = Findings()
    for n in page:
        fresh.put(Number(n.setting, n.policy, n.quantity, n.value + 0.003, n.low, n.high, n.kind, 0.004))
    pairs = calibration_z(page, fresh, {two: 2}, {two: True})
    assert [(a.policy, a.quantity) for a, _, _ in pairs] == [("p", "order 0 wins"), ("p", "order 0 payoff"),
                                                             ("p", "yaku A made"), ("greedy / omniscient 1", "LE")]
    # z = (page - fresh) / sqrt(se_page^2 + se_fresh^2)
    assert pairs[0][2] == pytest.approx(-0.003 / math.sqrt(0.005 ** 2 + 0.004 ** 2))


def test_the_multi_seed_spread_against_the_stated_standard_error():
    values = [0.50, 0.52, 0.49, 0.51, 0.50, 0.48, 0.53, 0.50, 0.51, 0.49]
    numbers = [Number("S", "p", "dealer wins", v, v - 0.02, v + 0.02, "rate", 0.01) for v in values]
    row = spread_row("S", "p", "dealer's win rate", numbers)
    mean = sum(values) / 10
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / 9)
    assert row["observed"] == pytest.approx(sd) and row["stated"] == pytest.approx(0.01)
    assert row["ratio"] == pytest.approx(sd / 0.01)
    # 9 degrees of freedom: chi-square quantiles 2.700 (2.5 %) and 19.023 (97.5 %)
    assert row["low"] == pytest.approx(sd / 0.01 * math.sqrt(9 / 19.023), rel=1e-3)
    assert row["high"] == pytest.approx(sd / 0.01 * math.sqrt(9 / 2.700), rel=1e-3)


# (The chain's search players roll out greedily: an omniscient player with random rollouts against
# random seats would compile a kernel of its own in each game, which no other test needs.)
TINY = ["--quick", "--chain", "random,greedy,omniscient:worlds=1,rollout=greedy,omniscient:worlds=2,rollout=greedy",
        "--deals", "30", "--rounds", "2000", "--matches", "100", "--threads", "1", "--check", "7",
        "--check-rounds", "1500", "--check-deals", "20", "--seeds", "3", "--seed-rounds", "1000", "--calls", "300"]


def _numbers(text: str) -> list[tuple[float, float, float, str]]:
    return [(*(float(g.replace(",", "")) for g in m.group(1, 3, 4)), m.group(2) or "")
            for m in INTERVAL.finditer(text)]


def _percent_cells(text: str) -> list[str]:
    """The cells of every Markdown table column whose header is a share in %."""
    cells = []
    lines = text.splitlines()
    for k, line in enumerate(lines):
        if line.startswith("|") and k + 1 < len(lines) and lines[k + 1].startswith("|---"):
            header = [h.strip() for h in line.strip("|").split("|")]
            shares = [i for i, h in enumerate(header) if "%" in h]
            for row in lines[k + 2:]:
                if not row.startswith("|"):
                    break
                values = [c.strip() for c in row.strip("|").split("|")]
                cells += [values[i] for i in shares if i < len(values)]
    return cells


@pytest.mark.slow
def test_the_findings_page_at_a_tiny_size(tmp_path):
    doc = tmp_path / "docs" / "findings.md"
    args = [*TINY, "--out", str(tmp_path / "runs"), "--doc", str(doc)]
    assert main(args) == 0
    text = doc.read_text()
    for heading in ("# Findings", "## Answers", "## Glossary", "## Good play", "## Dealer and seats", "## Yaku",
                    "## Card-value tables", "## Skill against luck", "## Calling koi-koi", "## Koi-koi's rule variants",
                    "## Where random play misleads", "## Calibration"):
        assert heading in text, heading
    assert text.index("## Answers") < text.index("## Glossary") < text.index("## Dealer and seats")
    assert "python -m benchmarks.findings --quick" in text.splitlines()[2] and re.search(r"at commit \w+", text)
    assert "±" not in text  # intervals are bounds, never value ± half-width
    # the answers: each question answered with a number and its interval
    answers = text.split("## Answers")[1].split("## Glossary")[0]
    parts = [answers.split(f"**{q}")[1] for q in QUESTIONS]
    for question, part in zip(QUESTIONS, parts, strict=True):
        part = part.split("\n**")[0]
        assert _numbers(part), question
    # every interval lies inside its bounds: low <= value <= high, shares inside [0, 100]
    numbers = _numbers(text)
    assert len(numbers) > 200
    for value, low, high, unit in numbers:
        assert low <= high, (value, low, high)
        if unit == " %":
            assert 0 <= low <= high <= 100, (value, low, high)
    wilson = [_numbers(cell) for cell in _percent_cells(text)]
    assert sum(map(len, wilson)) > 100
    for cell in wilson:
        for value, low, high, _ in cell:
            assert 0 <= low <= value <= high <= 100, (value, low, high)
    # where random play misleads: both shares are over the rounds both runs played, so the paired
    # difference is the second less the first (up to the rounding of the three numbers printed)
    misleads = text.split("## Where random play misleads")[1].split("\n## ")[0]
    lines = [line for line in misleads.splitlines() if " play puts " in line]
    assert lines
    for line in lines:
        (a, *_), (b, *_), (d, *_) = _numbers(line)
        printed = [m.group(1) for m in INTERVAL.finditer(line)][:3]
        rounding = sum(0.5 * 10.0 ** -len(x.partition(".")[2]) for x in printed)
        assert abs(b - a - d) <= rounding + 1e-9, line
    # C with 4 players: the dealer's participation and payoff by seat order
    seats = text.split("### Enshu-bana C, 4 players")[1].split("###")[0]
    assert "plays %, greedy" in seats and "payoff, greedy" in seats
    dealer = next(line for line in seats.splitlines() if line.startswith("| the dealer |"))
    assert len(_numbers(dealer)) >= 4
    # Tensho (hanafuda) is folded into yaku set 1's tables as T3 columns
    assert "### Tensho (hanafuda)" not in text and "greedy, T3" in text
    # skill: both beginners' RS, the range over the fictive players, match odds, n* named and resolved or not
    assert "RS (greedy)" in text and "range " in text and "12 rounds" in text and "lambda = 1.645" in text
    # calibration: deduplicated z-scores and the spread between seeds
    assert re.search(r"\*\*\d+ numbers: mean z² = \d\.\d\d\*\*", text)
    assert "sd between seeds" in text
    for plot in ("findings-seat-payoff.png", "findings-yaku.png", "findings-skill.png", "findings-calibration.png"):
        assert (doc.parent / plot).read_bytes()[:4] == b"\x89PNG", plot
    # a second call reuses every folder and writes the same page
    assert main(args) == 0
    assert doc.read_text() == text


def test_no_run_writes_the_page_from_what_is_there_and_names_the_rest(tmp_path):
    doc = tmp_path / "findings.md"
    assert main(["--quick", "--policies", "random", "--no-skill", "--no-run", "--matches", "0",
                 "--out", str(tmp_path / "empty"), "--doc", str(doc)]) == 0
    text = doc.read_text()
    assert ("**Not computed yet, so left out of this page:** Tensho (Ise), yaku set 1 / random; "
            "Enshu-bana C, 4 players / random; Koi-koi (Nintendo-style values) / random; "
            "Koi-koi (Nintendo-style values) / value of calling; Koi-koi (Nintendo-style values) / "
            "koikoi.koikoi_bonus;") in text
    assert not (tmp_path / "empty" / "sweep-tensho-ise-fixed_1-random").exists()  # nothing was run


@pytest.mark.slow
def test_the_hanafuda_setting_plays_the_rounds_of_ise_set_1_with_t3(tmp_path):
    # what the page says of Tensho (hanafuda): the same rows as Tensho (Ise), yaku set 1, T3
    import pandas as pd

    import fudasim
    from simcore.dataset import read_dataset

    common = dict(rounds=5_000, seed=5, policies={0: "greedy"}, threads=1)
    fudasim.run("tensho-hanafuda", out=tmp_path / "hanafuda", **common)
    fudasim.run("tensho-ise", out=tmp_path / "ise", options={"tensho.yaku_set_choice": "fixed_1",
                                                             "tensho.card_values": "T3_hanafuda"}, **common)
    pd.testing.assert_frame_equal(read_dataset(tmp_path / "hanafuda"), read_dataset(tmp_path / "ise"))


def test_a_setting_leaves_out_the_learned_player_where_no_model_of_its_rules_ships(tmp_path):
    from simcore.models import shipped_models

    # shipped: Tensho yaku sets 1 and 2, every Enshu-bana case and koi-koi's two rule files; none
    # for a koi-koi variant
    cases = {(m.game, m.case) for m in shipped_models()}
    assert ("tensho", "set1") in cases and ("koikoi", "koikoi") in cases and ("enshu", "c4") in cases
    chain = ["random", "heuristic", "learned", "pimc"]
    plan = Plan(policies=["random"], chain=chain, rounds=10, search_rounds=10, deals=10, seed=1, out=tmp_path)
    assert plan.chain_for(SET_1) == chain
    assert plan.chain_for(Setting("Koi-koi", "koikoi")) == chain
    assert plan.chain_for(Setting("Enshu-bana C, 4 players", "enshu-c", players=4)) == chain
    other = Setting("Koi-koi, no doubling at 7", "koikoi", (("koikoi.seven_double", "false"),))
    assert plan.chain_for(other) == ["random", "heuristic", "pimc"], other.label
    # a --strongest the chain does not name joins its setting's tournament, after the fair players;
    # one it names by another spelling (learned is learned:version=6 in Enshu-bana) does not
    c4 = Setting("Enshu-bana C, 4 players", "enshu-c", players=4)
    hidden = dataclasses.replace(plan, chain=[*chain, "omniscient"],
                                 strongest={c4.slug(): "learned:version=5", SET_1.slug(): "pimc:worlds=4"})
    assert hidden.chain_for(c4) == [*chain, "learned:version=5", "omniscient"]
    assert hidden.chain_for(SET_1) == [*chain, "pimc:worlds=4", "omniscient"]
    assert dataclasses.replace(hidden, strongest={c4.slug(): "learned:version=6",
                                                  SET_1.slug(): "pimc:crn=1"}).chain_for(c4) == [*chain, "omniscient"]
    assert dataclasses.replace(hidden, strongest={SET_1.slug(): "pimc:crn=1"}).chain_for(SET_1) == [*chain, "omniscient"]
    # a learned player is fast: it plays the page's full size, the search players the search size
    sized = dataclasses.replace(plan, rounds=99, search_rounds=7)
    assert sized.size("learned") == sized.size("heuristic") == 99 and sized.size("pimc") == 7
    # and its matches: a search player plays no more rounds in matches than in its runs
    matched = dataclasses.replace(plan, matches=100, match_rounds=12, search_rounds=240)
    assert matched.match_count("learned") == 100 and matched.match_count("pimc") == 20
    # a setting may have search runs of its own size (where its search player is fast)
    own = dataclasses.replace(matched, search_rounds_for={SET_1.slug(): 1200})
    assert own.size("pimc", SET_1) == 1200 and own.match_count("pimc", SET_1) == 100
    assert own.size("pimc", other) == 240 and own.match_count("pimc", other) == 20
    assert own.size("learned", SET_1) == 10
    # --search-matches caps a search player's matches; --variant-rounds its koi-koi variants' rounds
    capped = dataclasses.replace(own, search_matches=30, variant_rounds=500)
    assert capped.match_count("pimc", SET_1) == 30 and capped.match_count("pimc", other) == 20
    assert capped.match_count("learned", SET_1) == 100
    assert capped.variant_size("pimc", SET_1) == 500 and capped.variant_size("pimc", other) == 240
    assert capped.variant_size("heuristic", other) == 10 and own.variant_size("pimc", SET_1) == 1200
    # --search-matches-for gives a setting a cap of its own (still no more rounds than its runs)
    mine = dataclasses.replace(capped, search_matches_for={SET_1.slug(): 70, other.slug(): 50})
    assert mine.match_count("pimc", SET_1) == 70 and mine.match_count("pimc", other) == 20
    assert mine.match_count("pimc", Setting("Tensho (Ise), yaku set 2", "tensho-ise",
                                            (("tensho.yaku_set_choice", "fixed_2"),))) == 20
    assert mine.match_count("learned", SET_1) == 100
    # --learned-rounds sizes a learned player's runs (larger models are slower), at most --rounds
    slow = dataclasses.replace(sized, learned_rounds=40)
    assert slow.size("learned:version=6") == slow.size("learned") == 40
    assert slow.size("heuristic") == 99 and slow.size("pimc") == 7
    assert dataclasses.replace(slow, learned_rounds=500).size("learned") == 99
    assert slow.variant_size("learned", other) == 40


@pytest.mark.slow
def test_a_policy_given_with_strongest_shows_its_head_to_head_against_the_tournaments_strongest(tmp_path):
    from benchmarks.findings import _strongest, describe_skill
    from simcore.run import tournament

    folder = tmp_path / f"skill-{SET_1.slug()}"
    tournament.run_tournament(tournament.TournamentConfig(
        rules=SET_1.rules, options=dict(SET_1.options), policies=("random", "greedy"), deals=40, seed=3,
        threads=1, out=str(folder)))
    findings = Findings()
    describe_skill(folder, SET_1, findings)
    best = findings.skill[SET_1.label].best
    assert best.startswith("greedy")  # greedy is far stronger than random in Tensho
    plan = dataclasses.replace(_plan(tmp_path), strongest={SET_1.slug(): "random"})
    assert _strongest(SET_1, plan, findings) == "random"
    how = findings.strongest[SET_1.label][1]
    match = re.fullmatch(rf"given with --strongest; head to head against the tournament's strongest \({re.escape(best)}\) "
                         rf"over 40 deals: {INTERVAL.pattern} a round, {INTERVAL.pattern} points of seatings won", how)
    assert match, how
    payoff, low, high = (float(match.group(k)) for k in (1, 3, 4))
    assert low <= payoff <= high and payoff < 0  # random's payoff less greedy's
    # the tournament's strongest given: nothing to compare
    same = dataclasses.replace(plan, strongest={SET_1.slug(): "greedy"})
    _strongest(SET_1, same, findings)
    assert findings.strongest[SET_1.label][1] == "given with --strongest"
    # given by another spelling (the default yaku set written out): the name it plays as
    spelled = dataclasses.replace(plan, strongest={SET_1.slug(): "greedy:yaku_set=1"})
    _strongest(SET_1, spelled, findings)
    assert findings.strongest[SET_1.label][1] == "given with --strongest (plays as greedy)"


@pytest.mark.slow
def test_a_strongest_the_chain_lacks_plays_in_its_settings_tournament_and_meets_its_strongest(tmp_path):
    from benchmarks.findings import gather_setting
    from simcore.run.tournament import read_tournament

    plan = Plan(policies=["random"], chain=["random", "heuristic"], rounds=40, search_rounds=10, deals=30, seed=2,
                out=tmp_path, strongest={SET_1.slug(): "greedy"}, variants=False)
    findings = gather_setting(plan, SET_1, True)
    assert read_tournament(tmp_path / f"skill-{SET_1.slug()}")["policies"] == ["random", "heuristic", "greedy"]
    measures = findings.skill[SET_1.label]
    assert "greedy" in measures.policies and measures.best.startswith("heuristic")  # far stronger in Tensho
    how = findings.strongest[SET_1.label]
    assert how[0] == "greedy" and how[1].startswith(
        f"given with --strongest; head to head against the tournament's strongest ({measures.best}) over 30 deals: "), how


def test_a_size_or_a_choice_for_a_setting_that_does_not_exist_is_refused(tmp_path):
    for argv, said in ((["--search-rounds-for", "tensho-ise-set1=5"], "no setting has the slug tensho-ise-set1"),
                       (["--strongest", "enshu-c-6p=pimc"], "no setting has the slug enshu-c-6p"),
                       (["--search-rounds-for", "koikoi=many"], "give SLUG=N"),
                       (["--search-matches-for", "koikoi=0"], "--search-matches-for koikoi=0: give SLUG=N"),
                       (["--search-matches-for", "enshu-w-9p=10"], "no setting has the slug enshu-w-9p"),
                       (["--learned-rounds-for", "enshu-c-4p=x"], "--learned-rounds-for enshu-c-4p=x: give SLUG=N"),
                       (["--learned-rounds-for", "enshu-c-6p=9"], "no setting has the slug enshu-c-6p")):
        with pytest.raises(SystemExit, match=said):
            main([*argv, "--no-run", "--out", str(tmp_path / "runs"), "--doc", str(tmp_path / "page.md")])
    assert not (tmp_path / "page.md").exists()


def test_the_check_plan_takes_the_check_sizes_and_drops_the_settings_own(tmp_path, capsys):
    import argparse

    from benchmarks.findings import _check_plan

    plan = dataclasses.replace(_plan(tmp_path), rounds=1000, learned_rounds=300, search_rounds_for={SET_1.slug(): 500},
                               search_matches_for={SET_1.slug(): 9}, calls=7)
    args = argparse.Namespace(check=9, check_rounds=400, check_search_rounds=20, check_deals=5, check_matches=None,
                              check_learned_rounds=None, check_calls=None)
    four = Setting("Enshu-bana C, 4 players", "enshu-c", players=4)
    plan = dataclasses.replace(plan, learned_rounds_for={four.slug(): 800})
    # --learned-rounds-for: the setting's own learned size (at most --rounds), the others' unchanged
    assert plan.size("learned", four) == 800 and plan.size("learned", SET_1) == 300 and plan.size("learned") == 300
    assert dataclasses.replace(plan, learned_rounds_for={four.slug(): 5000}).size("learned", four) == 1000
    assert plan.size("random", four) == 1000 and plan.size("pimc", four) == 10
    check = _check_plan(plan, args, tmp_path / "check", {"x": "pimc"})
    assert (check.seed, check.rounds, check.search_rounds, check.deals, check.out) == (9, 400, 20, 5, tmp_path / "check")
    assert check.size("learned", four) == 300 and check.learned_rounds_for == {}
    assert check.size("learned", SET_1) == 300 and check.size("pimc", SET_1) == 20 and check.search_matches_for == {}
    assert check.strongest == {"x": "pimc"} and check.calls == 7 and check.policies == plan.policies
    # --check-learned-rounds: the check's own learned size, still at most its --rounds
    assert _check_plan(plan, argparse.Namespace(**{**vars(args), "check_learned_rounds": 100}),
                       tmp_path, {}).size("learned") == 100
    assert _check_plan(plan, argparse.Namespace(**{**vars(args), "check_learned_rounds": 900}),
                       tmp_path, {}).size("learned") == 400
    # --check-calls: the check's own koi-koi rounds answered both ways (0: none)
    assert _check_plan(plan, argparse.Namespace(**{**vars(args), "check_calls": 3}), tmp_path, {}).calls == 3
    assert _check_plan(plan, argparse.Namespace(**{**vars(args), "check_calls": 0}), tmp_path, {}).calls == 0
    for flag, value, said in (("--learned-rounds", "0", "must be at least 1"),
                              ("--check-learned-rounds", "0", "must be at least 1"),
                              ("--calls", "-1", "must be at least 0"), ("--check-calls", "-1", "must be at least 0")):
        with pytest.raises(SystemExit) as stop:
            main([flag, value, "--no-run", "--out", str(tmp_path / "runs"), "--doc", str(tmp_path / "page.md")])
        assert stop.value.code == 2 and f"{flag} {value}: {said}" in capsys.readouterr().err
    assert not (tmp_path / "page.md").exists()


def test_the_estimate_adds_each_policys_share_of_the_seats(tmp_path):
    from benchmarks.findings import estimate

    four = Setting("Enshu-bana C, 4 players", "enshu-c", players=4)
    cost = {"random": 1e-5, "greedy": 1e-4, "omniscient:worlds=1,rollout=greedy": 1e-2}
    cache = {(s.slug(), p): c for s in (SET_1, four) for p, c in cost.items()}
    plan = Plan(policies=["random", "greedy"], chain=list(cost), rounds=1000, search_rounds=50, deals=30, seed=1,
                out=tmp_path, matches=10, match_rounds=12)
    parts = {part: (rounds, seconds) for part, rounds, seconds in
             estimate(plan, [SET_1, four], True, 2, 500, "greedy", tmp_path, cache)}
    # two players: 2 pairings x 2 seatings x 30 deals, each seat half the time each policy's; the
    # omniscient player meets only the strongest fair policy (greedy, the chain's last fair one)
    pairs = [("random", "greedy"), ("greedy", "omniscient:worlds=1,rollout=greedy")]
    two = sum(2 * 30 * (cost[a] + cost[b]) / 2 for a, b in pairs)
    assert parts[f"{SET_1.label}: skill tournament"] == (120, pytest.approx(two))
    # four players: AABB, ABBA, BBAA, BAAB: still half the seats each, 4 seatings
    assert parts[f"{four.label}: skill tournament"] == (240, pytest.approx(2 * two))
    # the card-value sweep plays three tables; good play is the last fair policy of the chain
    assert parts[f"{SET_1.label}: greedy (T1, T2, T3)"] == (3000, pytest.approx(3000 * 1e-4))
    assert parts[f"{four.label}: greedy, matches"] == (120, pytest.approx(120 * 1e-4))
    assert parts[f"{four.label}: greedy, 2 more seeds"] == (1000, pytest.approx(0.1))


def test_a_complete_folder_made_for_other_sizes_seeds_or_policies_is_refused_not_reused(tmp_path):
    # the page reuses complete folders: one made with another size, seed or policy (a default or a
    # model version since changed) would put its numbers under the page's stated sizes and policies
    import shutil

    from benchmarks.findings import _calls, _run, _sweep

    four = Setting("Enshu-bana C, 4 players", "enshu-c", players=4)
    plan = Plan(policies=["random"], chain=["random"], rounds=300, search_rounds=10, deals=10, seed=3,
                out=tmp_path, match_rounds=2)
    made = _run(four, "random", plan)
    assert made is not None and _run(four, "random", plan) == made  # the same asked again: reused
    before = sorted(p.name for p in made.iterdir())
    for other, said in ((dataclasses.replace(plan, rounds=400), "started with a different units: 300 then, 400 now"),
                        (dataclasses.replace(plan, seed=4), "started with a different seed: 3 then, 4 now"),
                        (dataclasses.replace(plan, compute=False, rounds=400), "different units: 300 then")):
        with pytest.raises(SystemExit, match=said):
            _run(four, "random", other)
    assert sorted(p.name for p in made.iterdir()) == before  # nothing of it touched
    matches = _run(four, "random", plan, matches=20, tag="-matches")
    with pytest.raises(SystemExit, match="different units: 20 then, 30 now"):
        _run(four, "random", plan, matches=30, tag="-matches")
    with pytest.raises(SystemExit, match="different rounds_per_match: 2 then, 3 now"):
        _run(four, "random", dataclasses.replace(plan, match_rounds=3), matches=20, tag="-matches")
    assert matches is not None
    # a policy recorded with parameters the page no longer plays: compared as recorded today
    learned = _run(four, "learned:version=2", plan, rounds=50)
    assert learned is not None
    shutil.copytree(learned, tmp_path / "enshu-c-4p-learned")  # what "learned" stood for before a new version
    with pytest.raises(SystemExit, match=r"policy of seat 0: 'learned:version=2' then, 'learned:version=\d+' now"):
        _run(four, "learned", plan, rounds=50)
    # a sweep: its rounds per combination and its values
    folder = tmp_path / "sweep"
    assert _sweep(SET_1, "tensho.card_values", ["T1_ise", "T2_alt"], "random", plan, folder, 200) == folder
    assert _sweep(SET_1, "tensho.card_values", ["T1_ise", "T2_alt"], "random", plan, folder, 200) == folder
    with pytest.raises(SystemExit, match="different deals: 200 then, 300 now"):
        _sweep(SET_1, "tensho.card_values", ["T1_ise", "T2_alt"], "random", plan, folder, 300)
    with pytest.raises(SystemExit, match="different vary"):
        _sweep(SET_1, "tensho.card_values", ["T1_ise", "T3_hanafuda"], "random", plan, folder, 200)
    # koi-koi's calls, kept in one file: its seed
    koikoi = Setting("Koi-koi (Nintendo-style values)", "koikoi")
    calls = dataclasses.replace(plan, calls=20)
    rows = _calls(koikoi, "greedy", calls)
    assert rows and _calls(koikoi, "greedy", calls) == rows
    with pytest.raises(SystemExit, match="calls-koikoi-greedy-20.json was made with a different seed: 3 then, 5 now"):
        _calls(koikoi, "greedy", dataclasses.replace(calls, seed=5))


def test_the_estimate_takes_good_play_from_the_complete_skill_tournament_under_out(tmp_path):
    # the chain lists greedy first, so its last fair policy is random; the tournament measures
    # greedy the stronger, and the page plays it: so does the estimate, once the tournament is there
    import shutil

    from analysis.skill_report import play_skill
    from benchmarks.findings import _options, estimate
    from simcore.run import tournament

    chain = ["greedy", "random"]
    plan = Plan(policies=["random"], chain=chain, rounds=1000, search_rounds=50, deals=30, seed=1, out=tmp_path,
                matches=10, match_rounds=12)
    cache = {(SET_1.slug(), p): 1e-4 for p in chain}

    def good_play() -> set[str]:
        parts = {part for part, _, _ in estimate(plan, [SET_1], True, 0, 0, "greedy", tmp_path, cache)}
        return {p for p in plan.chain if f"{SET_1.label}: {p}, matches" in parts}

    assert good_play() == {"random"}
    folder = tmp_path / f"skill-{SET_1.slug()}"
    play_skill(tournament.TournamentConfig(rules=SET_1.rules, options=_options(SET_1), policies=tuple(chain),
                                           deals=30, seed=1, out=str(folder)))
    assert good_play() == {"greedy"}
    # one of another seed or chain is not the page's (it refuses it): the chain's last fair policy again
    plan = dataclasses.replace(plan, seed=2)
    assert good_play() == {"random"}
    plan = dataclasses.replace(plan, seed=1)
    plan = dataclasses.replace(plan, chain=["greedy", "random", "heuristic"])
    cache.update({(SET_1.slug(), "heuristic"): 1e-4})
    assert good_play() == {"heuristic"}
    shutil.rmtree(folder)


def test_the_first_dealers_share_of_matches_stands_beside_equal_chances_of_the_matches_not_drawn():
    from benchmarks.findings import match_text, rate

    wins = rate("x", "p", "first dealer wins the match", 396, 1000)
    # a fifth of the matches drawn: equal chances give each of 2 players 39 % of all matches, not 50 %
    text = match_text(wins, rate("x", "p", "first dealer draws the match", 220, 1000), 2)
    assert text.startswith(f"the first dealer wins {wins.text(True)} of matches and draws 22")
    assert text.endswith("(equal chances: 39.0 %, an equal share of the matches not drawn)")
    # no match drawn: one in three of them with 3 players
    assert match_text(wins, rate("x", "p", "first dealer draws the match", 0, 1000), 3).endswith(
        "of matches (an equal share: 33.3 %)")


@pytest.mark.slow
def test_settings_gathered_at_once_give_the_numbers_of_one_after_another(tmp_path):
    # --processes: each setting (and its fresh-seed check) in a process of its own; the merged findings
    # hold the same numbers in the same order as gathering one setting after another
    from benchmarks.findings import gather_all, settings

    quick = settings(quick=True)

    def findings(out, processes):
        plan = Plan(policies=["random", "greedy"], chain=[], rounds=400, search_rounds=10, deals=10, seed=3,
                    out=out, matches=20, variants=False)
        return gather_all(plan, quick, False, (2, 300, "random"),
                          lambda found: dataclasses.replace(plan, seed=4, rounds=300, out=out / "check"),
                          processes=processes)

    one, fresh_one, _ = findings(tmp_path / "one", 1)
    two, fresh_two, fresh_plan = findings(tmp_path / "two", 2)
    assert fresh_one is not None and fresh_two is not None and fresh_plan is not None
    assert fresh_plan.seed == 4 and fresh_plan.out == tmp_path / "two" / "check"
    assert len(one.numbers) > 100 and len(one.spread) == 2 * len(quick)
    for a, b in ((one, two), (fresh_one, fresh_two)):
        assert list(a.numbers.items()) == list(b.numbers.items())
        assert (a.yaku, a.matches, a.strongest, a.spread) == (b.yaku, b.matches, b.strongest, b.spread)
    assert list(one.numbers.items()) != list(fresh_one.numbers.items())  # the check's own seed
    # a setting that fails (here: a folder made for another size) stops the page with its line
    with pytest.raises(SystemExit, match="was started with a different (units|deals): 400 then, 500 now"):
        plan = Plan(policies=["random"], chain=[], rounds=500, search_rounds=10, deals=10, seed=3,
                    out=tmp_path / "two", variants=False)
        gather_all(plan, quick, False, processes=2)


def test_the_skill_tournaments_play_one_general_kernel_and_the_environment_is_restored(tmp_path, monkeypatch):
    import os

    import numpy as np

    import analysis.skill_report
    from benchmarks.findings import gather_setting
    from simcore.kernels.policy_ids import POLICY_GREEDY, POLICY_RANDOM
    from simcore.kernels.policy_rows import ALL_KINDS_ENV, N_PARAMS, P_POLICY, policy_kinds

    rows = np.zeros((3, N_PARAMS), dtype=np.int64)  # a greedy seat and a random one
    rows[0, P_POLICY], rows[1, P_POLICY] = POLICY_GREEDY, POLICY_RANDOM
    seen = []

    class Played(Exception):
        pass

    def play_skill(config):  # what the tournament's runs would compile
        seen.append((os.environ.get(ALL_KINDS_ENV), policy_kinds(rows)))
        raise Played

    monkeypatch.setattr(analysis.skill_report, "play_skill", play_skill)
    plan = dataclasses.replace(_plan(tmp_path), chain=["random", "greedy"])
    for before in (None, "0"):
        if before is None:
            monkeypatch.delenv(ALL_KINDS_ENV, raising=False)
        else:
            monkeypatch.setenv(ALL_KINDS_ENV, before)
        with pytest.raises(Played):
            gather_setting(plan, SET_1, True)
        assert os.environ.get(ALL_KINDS_ENV) == before  # as it was, after a tournament that failed too
        assert policy_kinds(rows).pimc is None  # the page's runs of one policy keep their own kernels
    # every policy compiled into the tournament's one kernel, whatever the environment said
    assert [env for env, _ in seen] == ["1", "1"]
    assert all(all(kind is True for kind in kinds) for _, kinds in seen)
