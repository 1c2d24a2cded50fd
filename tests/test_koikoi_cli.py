"""Koi-koi on the command line: ``fudasim replay RULES --record FILE`` (exit 0 when the record
agrees with the rules, 1 at the first divergence naming round and turn, 2 for an unreadable or
malformed record), and ``fudasim rules show/validate`` of the shipped koi-koi rule sets."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from cli.main import main
from simcore.games.koikoi.options import OPTIONS

RECORDS = Path(__file__).parent / "data" / "koikoi-records"


def invoke(*args: str):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_a_record_that_agrees_exits_0_and_shows_its_rounds():
    result = invoke("replay", "koikoi-kkj", "--record", str(RECORDS / "150.json"))
    assert result.exit_code == 0, result.output
    assert "round 6 of the record, dealer player 1" in result.output
    assert "Turn  1  player 1 plays" in result.output
    assert result.output.rstrip().endswith("Match over after 6 rounds: player 1 -2, player 2 62 (player 2 wins). "
                                           "Every move and result of the record agrees with koikoi-kkj.")


def test_the_json_summary_in_the_records_player_numbering():
    result = invoke("replay", "koikoi-kkj", "--record", str(RECORDS / "10.json"), "--json")
    assert result.exit_code == 0
    out = json.loads(result.output)
    assert set(out) == {"rounds", "final_points", "winner"}
    assert (out["final_points"], out["winner"], len(out["rounds"])) == ([24, 36], 2, 8)
    assert all(set(r) == {"round", "dealer", "winner", "points", "yaku"} for r in out["rounds"])


def test_a_divergence_exits_1_naming_round_turn_and_what_differs(tmp_path):
    data = json.loads((RECORDS / "10.json").read_text(encoding="utf-8"))
    data["record"]["round1"]["turn1"]["discardCard"] = data["record"]["round1"]["basic"]["initHand2"][0]
    path = tmp_path / "altered.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    result = invoke("replay", "koikoi-kkj", "--record", str(path))
    assert result.exit_code == 1
    last = result.output.rstrip().splitlines()[-1]
    assert last.startswith(f"fudasim: {path} differs from koikoi-kkj: round 1, turn 1: player 1 plays ")
    assert last.endswith("which is not in its hand")
    result = invoke("replay", "koikoi-kkj", "--record", str(path), "--json")
    assert result.exit_code == 1
    assert json.loads(result.output.split("\nfudasim:")[0])["divergence"].startswith("round 1, turn 1:")


def test_an_unreadable_or_malformed_record_exits_2_in_one_line(tmp_path):
    broken = tmp_path / "broken.json"
    broken.write_text('{"record": {"round1": {"basic": {"Dealer": 3}}}}', encoding="utf-8")
    for path, message in ((broken, f"{broken}: record.round1.basic.Dealer: 3 is not one of 1..2"),
                          (tmp_path / "none.json", f"--record {tmp_path / 'none.json'}: no such file")):
        result = invoke("replay", "koikoi-kkj", "--record", str(path))
        assert result.exit_code == 2
        assert result.output == f"fudasim: error: {message}\n"
    binary = tmp_path / "binary.json"
    binary.write_bytes(b"\xff\xfe")
    assert invoke("replay", "koikoi-kkj", "--record", str(binary)).exit_code == 2


def test_record_refuses_the_flags_of_the_other_replays():
    result = invoke("replay", "koikoi-kkj", "--record", str(RECORDS / "10.json"), "--seed", "3")
    assert result.exit_code == 2 and "--seed: --record replays the record's own deals and moves" in result.output
    result = invoke("replay", "tensho-ise", "--record", str(RECORDS / "10.json"))
    assert result.exit_code == 2 and "--record: Tensho has no game-record format to replay" in result.output


def test_rules_show_lists_every_option_with_its_sources_and_the_yaku():
    result = invoke("rules", "show", "koikoi-kkj")
    assert result.exit_code == 0
    for name, spec in OPTIONS.items():
        assert f"  {name}: {spec.help}" in result.output
    assert "akatan_aotan  Akatan-aotan    Red and Blue Ribbons           10" in result.output
    assert "koikoi.koikoi_bonus              own_add_then_multiply" in result.output


def test_rules_validate_and_a_bounded_override():
    result = invoke("rules", "validate", "koikoi", "koikoi-kkj")
    assert result.exit_code == 0
    assert result.output == "ok: koikoi (koikoi, 16 yaku, 2 players)\nok: koikoi-kkj (koikoi, 16 yaku, 2 players)\n"
    result = invoke("rules", "show", "koikoi", "--option", "koikoi.five_brights=1001")
    assert result.exit_code == 2
    assert result.output == "fudasim: error: --option koikoi.five_brights: 1001 is above the maximum 1000\n"
