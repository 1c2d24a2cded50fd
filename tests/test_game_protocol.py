"""The ``Game`` protocol stays narrow: every registered game is a ``GameBase`` that writes only
its own members, and its package has the modules the base finds by convention."""

from __future__ import annotations

import importlib

import pytest

from simcore.games import Game, known_game_names
from simcore.games.base import GameBase
from simcore.reference.forward import REFERENCE_NAMES
from simcore.registry import REGISTRY, get_game

# The members a game may write itself (docs/architecture.md, "What a game provides").
OWN_ATTRIBUTES = {"name", "title", "rounds_option", "default_rules", "players_option", "report_options", "layout", "policies"}
OWN_METHODS = {"run_metadata", "describe_rules", "players_problem", "stride", "match_may_end_early", "yaku_sets",
               "tie_break_chain"}
# Optional modules the base also finds: bench (what `fudasim bench` measures), screen (the play
# screen), report (the game's own report tables).
CONVENTION_MODULES = ("options", "rules", "compile", "record", "reference", "kernel", "decisions", "replay")


@pytest.mark.parametrize("name", known_game_names())
def test_a_game_writes_only_its_own_members(name):
    game = get_game(name)
    assert isinstance(game, GameBase)
    assert isinstance(game, Game)
    own = {member for member in vars(type(game)) if not member.startswith("_")}
    assert own <= OWN_ATTRIBUTES | OWN_METHODS, f"{name} writes {sorted(own - OWN_ATTRIBUTES - OWN_METHODS)}"
    assert OWN_ATTRIBUTES - {"report_options"} <= own
    assert {"run_metadata", "describe_rules"} <= own


@pytest.mark.parametrize("name", known_game_names())
def test_the_base_finds_the_package_by_convention(name):
    game = get_game(name)
    assert game.package == REGISTRY[name]
    for module in CONVENTION_MODULES:
        assert game.module(module) is importlib.import_module(f"{REGISTRY[name]}.{module}")
    assert game.replay().REDRAW in (True, False)
    assert game.max_players == game.layout.max_seats
    assert (game.n_int, game.n_mask) == (game.layout.n_int, game.layout.n_mask)


@pytest.mark.parametrize("name", known_game_names())
def test_the_reference_engine_exports_the_shared_vocabulary(name):
    reference = get_game(name).module("reference")
    assert list(reference.__all__[:len(REFERENCE_NAMES)]) == list(REFERENCE_NAMES)
    missing = [member for member in reference.__all__ if not hasattr(reference, member)]
    assert not missing, f"{name}'s reference exports {missing}, which it does not define"
    assert len(set(reference.__all__)) == len(reference.__all__)


@pytest.mark.parametrize("name", known_game_names())
def test_every_end_reason_has_a_meaning(name):
    meanings = get_game(name).end_reason_meanings
    assert list(meanings) == list(get_game(name).end_reasons)
    assert all(meanings.values()), meanings
    assert len(set(meanings.values())) == len(meanings)


def test_an_unknown_engine_is_refused():
    game = get_game(known_game_names()[0])
    with pytest.raises(ValueError, match="engine must be one of kernel, reference"):
        game.play_units("gpu", None, [], 0, 0, 1, None)
