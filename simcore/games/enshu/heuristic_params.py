"""The Enshu-bana heuristic's parameters and constants, apart from both its twins (the reference
policy in ``policies.py``, the numba one in ``heuristic_nb.py``), which read them."""

from __future__ import annotations

from simcore.policies import ParamSpec

__all__ = ["HEURISTIC_DEFAULTS", "HEURISTIC_OTHER_CHANCE", "HEURISTIC_PARAMS", "HEURISTIC_TRIPLE_STRENGTH"]

HEURISTIC_PARAMS = (
    ParamSpec("card_weight", 100, minimum=0, maximum=10_000,
              help="percent: weight of a card point captured"),
    ParamSpec("yaku_weight", 100, minimum=0, maximum=10_000,
              help="percent: weight of the gain in a yaku's chance-weighted worth"),
    ParamSpec("deny_weight", 60, minimum=0, maximum=10_000,
              help="percent: weight of the chance-weighted worth of an opponent's yaku a capture kills"),
    ParamSpec("stop_worth", 100, minimum=0, maximum=10_000,
              help="points per unit of a round-stopping yaku's stakes or multiplier (S: per unit above 1)"),
    ParamSpec("chance_hand", 700, minimum=0, maximum=1000,
              help="per mille: chance of capturing a missing yaku card held in one's own hand"),
    ParamSpec("chance_field", 500, minimum=0, maximum=1000,
              help="per mille: chance of capturing a missing yaku card lying on the field"),
    ParamSpec("chance_unseen", 400, minimum=0, maximum=1000,
              help="per mille, with two active seats (scaled by 2 / active seats): chance of "
                   "capturing a missing yaku card not yet seen"),
    ParamSpec("field_risk", 100, minimum=0, maximum=1000,
              help="percent: scale of the chance that a card left on the field is taken before one's next turn"),
    ParamSpec("safe_delay", 300, minimum=0, maximum=1000,
              help="per mille of a capture's gain counted when no other seat can take that field card"),
    ParamSpec("kotsu_strength", 50, minimum=0, maximum=10_000,
              help="hand strength at or above which kotsu is declared"),
    ParamSpec("join_strength", 80, minimum=0, maximum=10_000,
              help="hand strength at or above which the first dropout pass is joined"),
    ParamSpec("join_step", 20, minimum=0, maximum=10_000,
              help="added to join_strength for each further dropout pass"),
    ParamSpec("teyaku_b_min", 0, minimum=0, maximum=10_000,
              help="variant C: a group-B teyaku is declared when worth at least this (else Fuke stays open)"),
)
HEURISTIC_DEFAULTS: dict[str, int] = {p.name: int(p.default) for p in HEURISTIC_PARAMS}

# chance (per mille) of a missing yaku card a seat cannot reach itself: in another seat's hand
# (exposed by a teyaku) or, for an opponent, in the deciding seat's hand
HEURISTIC_OTHER_CHANCE = 100
# hand strength (kotsu, join): each month of which the hand holds three or more cards adds this
HEURISTIC_TRIPLE_STRENGTH = 50
