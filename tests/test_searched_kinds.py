"""pimc's ``search``: the decision kinds it searches (``simcore.search``'s module docstring).

* a decision of a kind ``search`` does not name takes the base move at once and draws nothing:
  the rollout policy's own choice, or the guide's; a decision of a named kind is searched as
  ``pimc`` searches it, with the same draws;
* the kernel writes the reference engine's rows, in every game;
* the text is recorded with each kind once, in alphabetical order, and ``all`` (the default) not
  at all; a kind the game does not have is refused in one line naming it and the game's kinds.
"""

from __future__ import annotations

import numpy as np
import pytest
from click.testing import CliRunner
from test_guided_search import GUIDE, SEARCH, SEED, ask, decisions

from cli.main import main
from simcore.errors import PolicyError
from simcore.games import get_game
from simcore.policies import decision_kinds, parse_policy, search_mask
from simcore.rules import load_rules


@pytest.mark.parametrize(("base", "guided"), [("heuristic", ""), (GUIDE, "guide=7,")])
def test_only_the_named_kinds_are_searched_and_the_others_take_the_base_move_without_a_draw(base, guided):
    searched = taken = 0
    kinds = set()
    for r, state, decision in decisions(3):
        answer, _, draws = ask(f"pimc:{guided}search=join+play,{SEARCH}", r, state, decision)
        if decision.kind in ("join", "play"):
            plain, _, plain_draws = ask(f"pimc:{guided}{SEARCH}", r, state, decision)
            assert (answer, draws) == (plain, plain_draws)
            assert draws > 0
            searched += 1
        else:
            assert (answer, draws) == (ask(base, r, state, decision)[0], 0)
            taken += 1
            kinds.add(decision.kind)
    assert searched > 10 and taken > 10 and len(kinds) >= 2


@pytest.mark.parametrize(("game", "rules", "options", "texts"), [
    ("enshu", "enshu-c", {"enshu.players": "5"},
     ("pimc:search=join,worlds=3,confirm=3", "pimc:guide=7,search=join+kotsu,worlds=2,confirm=2,infer=4",
      "pimc:search=play,worlds=2,confirm=2,rollout=greedy", "greedy", "heuristic")),
    ("tensho", "tensho-ise", {}, ("pimc:search=capture,worlds=3,confirm=3,depth=0", "pimc:search=play,worlds=2")),
    ("koikoi", "koikoi", {}, ("pimc:search=koikoi,worlds=3,confirm=3", "pimc:search=capture+play,worlds=2")),
])
def test_the_kernel_and_the_reference_write_the_same_rows_with_searched_kinds(game, rules, options, texts):
    g = get_game(game)
    compiled = g.compile(load_rules(rules, options))
    specs = [parse_policy(text, game) for text in texts]
    for k, r in zip(g.play_units("kernel", compiled, specs, SEED, 0, 3, None),
                    g.play_units("reference", compiled, specs, SEED, 0, 3, None), strict=True):
        np.testing.assert_array_equal(k, r)


def test_the_text_names_each_kind_once_in_alphabetical_order_and_all_not_at_all():
    assert str(parse_policy("pimc:search=play+join+play", "enshu")).count("search=join+play,") == 1
    assert "search" not in str(parse_policy("pimc:search=all", "enshu"))
    assert ",search=koikoi," in str(parse_policy("pimc:search=koikoi"))  # without a game: every game's kinds
    spec = parse_policy("pimc:search=join+kotsu", "enshu")
    kinds = decision_kinds("enshu")
    assert search_mask(spec, kinds) == (1 << kinds["join"]) | (1 << kinds["kotsu"])
    assert search_mask(parse_policy("pimc", "enshu"), kinds) == -1


@pytest.mark.parametrize(("text", "game", "problem"), [
    ("pimc:search=jion", "enshu", "no decision kind 'jion' (kinds: all, or capture, declare_teyaku, fuke, join"),
    ("pimc:search=koikoi", "enshu", "no decision kind 'koikoi'"),
    ("pimc:search=join+", "enshu", "no decision kind ''"),
    ("pimc:search=join", "tensho", "(kinds: all, or bank_six, capture, opening_claim, play, yaku_set joined by +)"),
    ("ismcts:search=join", "enshu", "unknown parameter 'search=join'"),
])
def test_a_kind_the_game_does_not_have_is_refused(text, game, problem):
    with pytest.raises(PolicyError) as refused:
        parse_policy(text, game)
    assert problem in str(refused.value)


def test_the_command_line_refuses_an_unknown_kind_in_one_line(tmp_path):
    out = tmp_path / "run"
    result = CliRunner().invoke(main, ["run", "koikoi", "--policy", "0=pimc:search=join", "--rounds", "10",
                                       "--out", str(out), "--no-progress"])
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "search=join" in lines[0] and "Traceback" not in result.output
    assert not out.exists()


@pytest.mark.parametrize(("rules", "kinds"), [
    ("tensho-ise", "yaku_set, opening_claim, bank_six, play, capture"),
    ("enshu-c", "mizu_kotsu, kotsu, join, fuke, declare_teyaku, play, capture"),
    ("koikoi-kkj", "play, capture, koikoi"),
])
def test_rules_show_lists_the_kinds_search_names(rules, kinds):
    result = CliRunner().invoke(main, ["rules", "show", rules])
    assert result.exit_code == 0
    assert f"decision kinds (pimc:search=KIND+...): {kinds}" in result.output.splitlines()
