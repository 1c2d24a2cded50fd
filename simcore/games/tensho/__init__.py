"""Tensho: the 45-card Ise mekurifuda fishing game (docs/tensho.md), as one package.

Everything of the game lives here: rules and their compilation, record layout, reference
engine (a forward model), policies, numba kernel and its wrapper, replay; ``game.GAME`` is what
the registry (``simcore.games``) hands out.
"""
