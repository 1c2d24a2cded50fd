"""pimc guided by a learned player (``guide``, ``gate``, ``guides``; ``simcore.search``'s module
docstring), on Enshu-bana C with 5 players and its shipped guide model (version 7):

* the shipped guide models are those pinned, committed, and never what ``learned`` plays;

* where the guide's choice leads the next action by ``gate`` or more, the seat takes it and draws
  nothing; elsewhere it searches;
* the guide changes the base move only: where the guide and the heuristic choose alike, the
  guided search answers as pimc does, with the same draws;
* its decisions do not change when only the cards the seat cannot see change;
* the kernel writes the reference engine's rows;
* a guide the rules have no model for, or a gate or guides without a guide, is refused in one
  line naming it.
"""

from __future__ import annotations

import numpy as np
import pytest
from click.testing import CliRunner

from cli.main import main
from simcore.errors import PolicyError
from simcore.games import get_game
from simcore.models import MODELS_DIR, guide_models, load_model, played_model
from simcore.policies import parse_policy
from simcore.rules import load_rules

SEED = 9
PLAYERS = 5
GAME = get_game("enshu")
COMPILED = GAME.compile(load_rules("enshu-c", {"enshu.players": str(PLAYERS)}))
HEURISTIC = parse_policy("heuristic", "enshu", recorded=True)
SEARCH = "worlds=4,confirm=4,infer=0"  # small budgets: the reference engine plays them
GUIDE = f"learned:model={MODELS_DIR / 'enshu-c5.guide.v7.json'},version=7"  # the guide model played alone
# Every shipped guide model and the first 16 hex digits of its sha256 (test_learned.SHIPPED's
# rule: a shipped file never changes; a new one ships as a new version)
SHIPPED_GUIDES = {"enshu-c5.guide.v7.json": "8848c444ab3cdedd"}


def test_the_shipped_guide_models_are_those_pinned_and_apart_from_the_learned_players():
    import subprocess

    from learned_models import digests

    assert digests(guide_models()) == SHIPPED_GUIDES
    listed = subprocess.run(["git", "ls-files", "simcore/models"], cwd=MODELS_DIR.parent.parent, capture_output=True,
                            text=True)
    if listed.returncode == 0:  # in the project's git checkout: committed, so it ships
        assert set(SHIPPED_GUIDES) <= {line.rsplit("/", 1)[-1] for line in listed.stdout.splitlines()}
    for m in guide_models():
        model = load_model(m.path)
        assert (model.game, model.case, model.version) == (m.game, m.case, m.version)
        assert model.command.startswith("fudasim train ") and m.path.name in model.command
        # learned at any version plays its own models, never a guide model
        assert played_model(m.game, m.case, 10**6).path.name != m.path.name


def decisions(rounds: int):
    """``(round, state, decision)`` at each decision of two or more actions in ``rounds`` rounds
    played by heuristic in every seat (each state a copy)."""
    for r in range(rounds):
        seats = GAME.seat_policies(COMPILED, [HEURISTIC] * PLAYERS, SEED, r)
        state = GAME.new_state(COMPILED, SEED, r, r % PLAYERS)
        while (decision := state.decision()) is not None:
            if len(decision.actions) >= 2:
                position = state.clone()
                yield r, position, position.decision()
            state.apply(GAME.ask_policy(seats[decision.seat], state, decision))


def ask(text: str, r: int, state, decision):
    """The reference engine's answer of ``text`` in the deciding seat (its stream as the round
    starts), as an index of the actions, the policy object and the draws it took."""
    player = GAME.seat_policies(COMPILED, [parse_policy(text, "enshu")] * PLAYERS, SEED, r)[decision.seat]
    before = getattr(getattr(player, "stream", None), "draws", 0)
    answer = list(decision.actions).index(GAME.ask_policy(player, state, decision))
    return answer, player, getattr(getattr(player, "stream", None), "draws", 0) - before


def test_the_guides_choice_is_taken_without_a_draw_where_it_leads_by_the_gate():
    positions = list(decisions(3))
    leads = []
    for r, state, decision in positions:
        _, learned, _ = ask(GUIDE, r, state, decision)
        leads.append(learned.lead)
    assert all(lead >= 0 for lead in leads)
    gate = sorted(leads)[len(leads) // 2]  # about half the decisions searched
    taken = searched = 0
    for (r, state, decision), lead in zip(positions, leads, strict=True):
        chosen, _, _ = ask(GUIDE, r, state, decision)
        answer, _, draws = ask(f"pimc:guide=7,gate={gate},{SEARCH}", r, state, decision)
        if lead >= gate:
            assert (answer, draws) == (chosen, 0)
            taken += 1
        else:
            assert draws > 0
            searched += 1
    assert taken > 10 and searched > 10


def test_the_guide_changes_the_base_move_only():
    same = differs = 0
    for r, state, decision in decisions(2):
        chosen, _, _ = ask(GUIDE, r, state, decision)
        heuristic, _, _ = ask("heuristic", r, state, decision)
        guided = ask(f"pimc:guide=7,{SEARCH}", r, state, decision)
        plain = ask(f"pimc:{SEARCH}", r, state, decision)
        if chosen == heuristic:
            assert (guided[0], guided[2]) == (plain[0], plain[2])
            same += 1
        elif guided[0] != plain[0]:
            differs += 1
    assert same > 20 and differs > 0


@pytest.mark.parametrize("given", ["gate=0", "gate=2000", "search=join+play"])
def test_a_guided_search_decides_alike_however_the_hidden_cards_lie(given):
    # guarantee 6: the guide reads the seat's observation only, so dealing the real position's
    # hidden cards anew changes neither the choice nor the draws
    from simcore.rng import Stream

    changed = checked = 0
    for r, state, decision in list(decisions(2))[::6]:
        other = state.sample_hidden(decision.seat, Stream(77, r, 0))
        changed += other.card_places() != state.card_places()
        text = f"pimc:guide=7,{given},{SEARCH}"
        first, _, draws = ask(text, r, state, decision)
        second, _, other_draws = ask(text, r, other, other.decision())
        assert (first, draws) == (second, other_draws), (r, decision)
        checked += 1
    assert checked > 10 and changed > checked // 2


def test_the_kernel_and_the_reference_write_the_same_rows_with_a_guide():
    # the kinds of the value models' test (greedy, heuristic rollouts, pimc, ismcts, a learned
    # table): one kernel compiled for both
    specs = [parse_policy(text, "enshu") for text in (
        "pimc:guide=7,gate=20000,worlds=3,confirm=3",
        "pimc:guide=7,worlds=2,confirm=2,infer=4",
        "ismcts:iterations=12,confirm=3", "greedy", "greedy")]
    for k, r in zip(GAME.play_units("kernel", COMPILED, specs, SEED, 0, 3, None),
                    GAME.play_units("reference", COMPILED, specs, SEED, 0, 3, None), strict=True):
        np.testing.assert_array_equal(k, r)


@pytest.mark.parametrize(("text", "problem"), [
    ("pimc:gate=64", "gate=64 needs guide=VERSION"),
    ("pimc:guides=models", "guides=models needs guide=VERSION"),
    ("pimc:guide=7,depth=2", "guide=7 and depth=2"),
])
def test_a_gate_or_guides_without_a_guide_or_a_guide_with_depth_is_refused(text, problem):
    with pytest.raises(PolicyError, match=problem):
        parse_policy(text, "enshu")


def test_a_guide_plays_its_rollouts_to_the_end_where_the_game_cuts_them_by_default():
    assert parse_policy("pimc", "tensho").params["depth"] == 2
    assert parse_policy("pimc:guide=1", "tensho").params["depth"] == 0


@pytest.mark.parametrize(("args", "named"), [
    (["enshu-c", "--players", "4", "--policy", "0=pimc:guide=1"], "guide=1"),
    (["enshu-c", "--players", "5", "--policy", "0=pimc:guide=7,guides=/nonexistent/models"], "/nonexistent/models"),
    (["enshu-c", "--players", "5", "--policy", "0=pimc:gate=64"], "gate=64"),
])
def test_the_command_line_refuses_a_guide_it_cannot_play_in_one_line(tmp_path, args, named):
    out = tmp_path / "run"
    result = CliRunner().invoke(main, ["run", *args, "--rounds", "10", "--out", str(out), "--no-progress"])
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and named in lines[0] and "Traceback" not in result.output
    assert not out.exists()
