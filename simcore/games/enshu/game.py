"""Enshu-bana as a ``simcore.games.Game``: what the registry hands the runner, CLI and analysis."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from simcore.games import Game, GameRuleSet
from simcore.games.base import GameBase
from simcore.games.enshu.heuristic_params import HEURISTIC_PARAMS
from simcore.games.enshu.record import LAYOUT
from simcore.policies import ParamSpec, PolicySupport, changed_default, objective_param

if TYPE_CHECKING:
    from simcore.games.enshu import rules as enshu_rules

__all__ = ["GAME", "LEARNED_VERSION", "EnshuGame"]

# The newest version of the shipped learned models (``simcore/models/enshu-*.vN.json``): what
# ``--policy learned`` plays and records; a retrained model ships as the next version.
LEARNED_VERSION = 6
# The search players play for the margin over the other seats: S is not zero-sum, and there a
# seat's own score misleads them (docs/policies.md); in W and C, zero-sum, the margin is the
# payoff times the number of seats and they decide alike. Before, they played for the payoff,
# which a recorded text without an objective still means.
_OBJECTIVE = changed_default(objective_param("score"), "margin")


class EnshuGame(GameBase):
    """Enshu-bana (docs/enshu.md): 48-card hanafuda, variants W, S and C, 2-5 players."""

    name = "enshu"
    title = "Enshu-bana"
    rounds_option = "enshu.rounds"
    default_rules = "enshu-c"
    players_option = "enshu.players"
    layout = LAYOUT
    policies = (
        ("random", PolicySupport()),
        ("greedy", PolicySupport()),
        ("heuristic", PolicySupport(engines=("kernel", "reference"), params=HEURISTIC_PARAMS)),
        ("pimc", PolicySupport(engines=("kernel", "reference"), params=(_OBJECTIVE,))),
        ("ismcts", PolicySupport(engines=("kernel", "reference"), params=(_OBJECTIVE,))),
        ("omniscient", PolicySupport(engines=("kernel", "reference"), params=(_OBJECTIVE,))),
        ("learned", PolicySupport(params=(
            ParamSpec("version", LEARNED_VERSION, minimum=1, recorded=True,
                      help="the models' version: each case plays its newest shipped model at or below it"),))),
    )

    @staticmethod
    def _rules(rules: GameRuleSet) -> enshu_rules.RuleSet:
        return cast("enshu_rules.RuleSet", rules)  # the core hands a game only its own rule sets

    def players_problem(self, rules: GameRuleSet, players: int) -> str | None:
        """Why these rules cannot be played by ``players`` (a variant allows only some counts)."""
        from simcore.games.enshu.rules import player_count_problem

        return player_count_problem(self._rules(rules).allowed_players, players)

    def run_metadata(self, rules: GameRuleSet) -> dict[str, Any]:
        """The yaku and teyaku tables (bit, key, names) and the variant."""
        own = self._rules(rules)
        return {
            "yaku": [{"bit": y.index, "key": y.key, "name": y.name, "english": y.english, "face": ""}
                     for y in own.yaku],
            "variant": own.variant,
            "teyaku": [{"bit": t.index, "key": t.key, "name": t.name, "english": t.english} for t in own.teyaku],
        }

    def describe_rules(self, rules: GameRuleSet) -> list[str]:
        """Card points, the dekiyaku and the teyaku, as ``rules show`` prints them."""
        own = self._rules(rules)
        kinds = ("bright", "animal", "ribbon", "chaff")
        points = {card.kind: own.card_points[card.id] for card in own.deck.cards}
        counts = {kind: sum(1 for card in own.deck.cards if card.kind == kind) for kind in kinds}
        lines = ["", "card points: " + ", ".join(f"{kind} {points[kind]} ({counts[kind]} cards)" for kind in kinds)
                 + f"; total {sum(own.card_points)}"]
        lines.append("")
        lines.append(f"{'dekiyaku':<14}{'name':<18}{'english':<34}{'kind':<12}{'value':>6}  cards")
        for y in own.yaku:
            cards = ", ".join(own.deck.cards[c].name for c in y.cards)
            lines.append(f"{y.key:<14}{y.name:<18}{y.english:<34}{y.kind:<12}{y.value:>6}  {cards}")
        if own.teyaku:
            lines.append("")
            lines.append(f"{'teyaku':<14}{'name':<18}{'english':<34}{'group':<7}{'kind':<7}{'value':>6}")
            for t in own.teyaku:
                lines.append(f"{t.key:<14}{t.name:<18}{t.english:<34}{t.group:<7}{t.kind:<7}{t.value:>6}")
        return lines


# Annotated so that the type checker verifies the class implements the protocol.
GAME: Game = EnshuGame()
