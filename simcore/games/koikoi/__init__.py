"""Koi-koi: the two-player hanafuda fishing game of yaku and koi-koi calls (docs/koikoi.md), as
one package.

Everything of the game lives here: rules and their compilation, record layout, reference
engine (a forward model), policies, numba state machine and its wrapper, replay of published
game records; ``game.GAME`` is what the registry (``simcore.games``) hands out.
"""
