"""The registry of games: each game's name and the package that implements it.

The core never imports a game: it asks this registry, which loads a game's package by name the
first time it is asked for it (a game is a plug-in; ``simcore.games`` defines what it
provides). Adding a game is one line in ``REGISTRY``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the protocol's module imports this one at run time
    from simcore.games import Game

__all__ = ["REGISTRY", "game_of", "get_game", "known_game_names", "known_games"]

# Game name (``[game] name`` of its rule files, ``game`` in run metadata) -> its package.
REGISTRY: dict[str, str] = {
    "tensho": "simcore.games.tensho",
    "enshu": "simcore.games.enshu",
    "koikoi": "simcore.games.koikoi",
}


def known_game_names() -> list[str]:
    """The registered games' names."""
    return list(REGISTRY)


def get_game(name: str) -> Game:
    """The registered game called ``name`` (``KeyError`` if there is none)."""
    module = importlib.import_module(f"{REGISTRY[name]}.game")
    game: Game = module.GAME
    return game


def known_games() -> dict[str, Game]:
    """Every registered game, by name."""
    return {name: get_game(name) for name in REGISTRY}


def game_of(rules: Any) -> Game:
    """The game a rule set (any game's ``RuleSet``: its ``game`` is the game's name) belongs to."""
    return get_game(rules.game)
