"""The human koi-koi matches published with guansanghai/KoiKoi-AI (tests/data/koikoi-records, MIT
licence beside them) replayed move by move under ``koikoi-kkj``: every capture, draw, koi-koi
decision, round score and match result reproduced; altered records refused at the first
divergence, naming round, turn and what differs; malformed ones refused as unreadable."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from koikoi_cards import compiled

from simcore.games.koikoi import enums as E
from simcore.games.koikoi.records import RecordError, card_id, parse_record
from simcore.games.koikoi.replay import replay_record

RECORDS = Path(__file__).parent / "data" / "koikoi-records"
FILES = sorted(RECORDS.glob("*.json"), key=lambda p: int(p.stem))
KKJ = compiled("koikoi-kkj")


def _record(name: str = "10") -> dict:
    return json.loads((RECORDS / f"{name}.json").read_text(encoding="utf-8"))


def _replay(data: dict, c=KKJ):
    return replay_record(c, json.dumps(data), "match.json")


def test_the_twenty_records_and_their_licence_are_here():
    assert [int(p.stem) for p in FILES] == list(range(10, 201, 10))
    assert "MIT License" in (RECORDS / "LICENSE").read_text(encoding="utf-8")


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_every_record_replays_exactly(path):
    data = json.loads(path.read_text(encoding="utf-8"))
    replay = replay_record(KKJ, path.read_text(encoding="utf-8"), str(path))
    assert replay.divergence is None
    result = data["result"]
    assert replay.final_points == [result["player1EndPts"], result["player2EndPts"]]
    assert replay.winner == result["gameWinner"]
    assert len(replay.rounds) == len(data["record"])
    for recorded, result_of_round, _ in replay.rounds:
        basic = data["record"][f"round{recorded.number}"]["basic"]
        assert result_of_round.payoff == [basic["player1RoundPts"], basic["player2RoundPts"]]


def test_the_json_summary():
    out = _replay(_record("10")).json(KKJ)
    assert set(out) == {"rounds", "final_points", "winner"}
    assert out["final_points"] == [24, 36] and out["winner"] == 2
    first = out["rounds"][0]
    assert first == {"round": 1, "dealer": 1, "winner": 1, "points": [4, -4], "yaku": [["Ribbons", "Chaff"], []]}


def test_an_exhausted_round_has_winner_0_though_the_dealer_takes_the_point():
    out = _replay(_record("140")).json(KKJ)
    second = out["rounds"][1]
    assert second["winner"] == 0 and second["points"] == [1, -1] and second["dealer"] == 1


def test_the_example_round_of_the_review_koikoi_then_stop_with_both_viewing_yaku():
    # match 1, round 1 is not among the twenty; match 150 ends early at -2 after 6 rounds
    replay = _replay(_record("150"))
    assert replay.divergence is None and replay.final_points == [-2, 62] and len(replay.rounds) == 6


def _first_turn(data: dict, round_number: int, where) -> tuple[str, dict]:
    """The first turn of a round (in turn order) for which ``where(turn)`` holds."""
    turns = data["record"][f"round{round_number}"]
    for number in range(1, 17):
        turn = turns.get(f"turn{number}")
        if turn is not None and where(turn):
            return f"turn{number}", turn
    raise AssertionError("no such turn")


def test_a_card_not_in_the_hand_is_refused():
    data = _record("10")
    basic = data["record"]["round1"]["basic"]
    key, turn = _first_turn(data, 1, lambda t: t["playerInTurn"] == 1)
    turn["discardCard"] = basic["initHand2"][0]  # the other player's card
    replay = _replay(data)
    assert replay.divergence.startswith(f"round 1, {key.replace('turn', 'turn ')}: player 1 plays ")
    assert replay.divergence.endswith("which is not in its hand")
    assert replay.rounds == []


def test_a_capture_of_another_month_is_refused():
    data = _record("10")
    key, turn = _first_turn(data, 2, lambda t: len(t["collectCard"]) == 2)
    played = turn["discardCard"]
    turn["collectCard"][1] = [played[0] % 12 + 1, 1]
    replay = _replay(data)
    assert replay.divergence.startswith(f"round 2, turn {key[4:]}: player {turn['playerInTurn']}'s played card ")
    assert replay.divergence.endswith("a card of another month")
    assert len(replay.rounds) == 1


def test_a_koikoi_where_none_is_due_is_refused():
    data = _record("10")
    key, turn = _first_turn(data, 1, lambda t: t["isKoiKoi"] is None)
    turn["isKoiKoi"] = True
    replay = _replay(data)
    assert replay.divergence == (f"round 1, turn {key[4:]}: player {turn['playerInTurn']} calls koi-koi where no "
                                 "koi-koi decision is due (its yaku did not rise)")


def test_a_missing_koikoi_decision_is_refused():
    data = _record("10")
    key, turn = _first_turn(data, 1, lambda t: t["isKoiKoi"] is False)  # the stop of turn 13
    turn["isKoiKoi"] = None
    replay = _replay(data)
    assert replay.divergence.startswith(f"round 1, turn {key[4:]}: player {turn['playerInTurn']}'s yaku rose to ")
    assert replay.divergence.endswith("a koi-koi decision is due, but the record has none")


def test_a_drawn_card_that_is_not_the_stocks_next_is_refused():
    data = _record("20")
    pile = data["record"]["round1"]["basic"]["initPile"]
    pile[-1], pile[0] = pile[0], pile[-1]
    replay = _replay(data)
    assert replay.divergence.startswith("round 1, turn 1: player ")
    assert "draws" in replay.divergence and "the stock's next card is" in replay.divergence


def test_a_round_score_a_dealer_and_a_match_result_that_differ_are_refused():
    data = _record("10")
    basic = data["record"]["round1"]["basic"]
    basic["player1RoundPts"] = 5
    assert _replay(data).divergence == ("round 1, turn 13: the round scores player 1 +4 and player 2 -4, but the "
                                        "record says +5 and -4")
    data = _record("10")
    data["record"]["round2"]["basic"]["Dealer"] = 2
    assert _replay(data).divergence == "round 2, turn 0: player 2 deals, but the rules give the deal to player 1"
    data = _record("10")
    data["result"]["player2EndPts"] = 35
    assert _replay(data).divergence == ("round 8, turn 0: the match ends with player 1 24 and player 2 36, but the "
                                        "record says 24 and 35")


def test_a_record_under_other_rules_diverges_where_they_differ():
    # Nintendo-style scoring pays only the winner: the first round's -4 is not reproduced
    replay = _replay(_record("10"), compiled("koikoi"))
    assert replay.divergence.startswith("round 1, turn 13: the round scores player 1 +4 and player 2 +0")


def test_a_record_without_its_point_fields_still_replays_and_scores():
    data = _record("100")
    stripped = copy.deepcopy(data)
    del stripped["result"]
    for round_body in stripped["record"].values():
        for key in ("roundWinner", "player1RoundPts", "player2RoundPts"):
            del round_body["basic"][key]
    replay = _replay(stripped)
    assert replay.divergence is None
    assert replay.final_points == [data["result"]["player1EndPts"], data["result"]["player2EndPts"]]


@pytest.mark.parametrize(("edit", "message"), [
    (lambda d: d.pop("record"), "match.json: record: missing"),
    (lambda d: d["record"]["round1"]["basic"]["initHand1"].__setitem__(0, [13, 1]),
     r"match.json: record.round1.basic.initHand1\[0\]: \[13, 1\] is not a card"),
    (lambda d: d["record"]["round1"]["basic"]["initHand1"].__setitem__(
        0, d["record"]["round1"]["basic"]["initHand2"][0]),
     "match.json: record.round1.basic: the deal holds card .* twice"),
    (lambda d: d["record"]["round1"].pop("turn2"), "match.json: record.round1.turn2: missing"),
    (lambda d: d["record"]["round1"]["turn1"].__setitem__("isKoiKoi", "yes"),
     "match.json: record.round1.turn1.isKoiKoi: expected null, true or false"),
    (lambda d: d["record"]["round1"]["basic"].__setitem__("Dealer", 3),
     "match.json: record.round1.basic.Dealer: 3 is not one of 1..2"),
    (lambda d: d["record"].__setitem__("round9x", {}), "match.json: record.round9x: unknown key"),
])
def test_a_malformed_record_is_refused_in_one_line(edit, message):
    data = _record("10")
    edit(data)
    with pytest.raises(RecordError, match=message) as caught:
        _replay(data)
    assert "\n" not in str(caught.value)


def test_unreadable_text_is_refused():
    with pytest.raises(RecordError, match="match.json: not valid JSON"):
        replay_record(KKJ, "{not json", "match.json")
    with pytest.raises(RecordError, match="match.json: expected a JSON object"):
        replay_record(KKJ, "[1, 2]", "match.json")


def test_cards_are_numbered_as_the_records_number_them():
    assert card_id(1, 1) == 0 and card_id(9, 1) == 32 and card_id(12, 4) == 47
    match = parse_record((RECORDS / "10.json").read_text(encoding="utf-8"), "10.json")
    first = match.rounds[0]
    assert first.hands[0][0] == card_id(1, 4) and first.pile[-1] == card_id(4, 4)  # drawn first


def test_the_forced_stop_of_a_last_turn_is_recorded_as_a_stop():
    forced = []
    for path in FILES:
        for recorded, result, _ in replay_record(KKJ, path.read_text(encoding="utf-8"), str(path)).rounds:
            if result.end_reason == E.END_FORCED_STOP:  # a rise on the seat's 8th turn
                forced.append((path.stem, recorded.number, result.end_turn))
    assert len(forced) >= 5
    name, round_number, turn = forced[0]
    data = _record(name)
    data["record"][f"round{round_number}"][f"turn{turn}"]["isKoiKoi"] = None
    assert _replay(data).divergence.endswith("rose on its last turn, which stops the round, but the record has no "
                                             "stop (isKoiKoi false)")
