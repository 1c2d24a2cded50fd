"""Enshu-bana: 48-card hanafuda fishing, variants W, S and C for 2-5 players (docs/enshu.md),
as one package.

Everything of the game lives here: rules and their compilation, record layout, reference
engine (a forward model), policies, numba kernel and its wrapper, replay; ``game.GAME`` is what
the registry (``simcore.games``) hands out.
"""
