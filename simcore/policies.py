"""The policy registry: every policy's name, kernel id and parameters, and which games and
engines offer it.

A policy is chosen per seat as ``NAME[:k=v,...]`` (``parse_policy``). ``POLICY_KINDS`` holds
the registered kinds (``register_policy``); a game declares the policies it offers, with the
engines that implement each and the parameters only it gives a meaning to, in its ``Game``'s
``policies`` (``PolicySupport``). ``check_engine`` refuses, before a run starts, a policy that
the chosen engine does not implement for the game, so no kernel ever plays an id it does not
know as another policy. The policies themselves live in each game's package
(``simcore.games.<game>.policies``): every one sees only what its seat may see (guarantee 6 of
docs/guarantees.md) and draws only from its seat's stream.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

from simcore.errors import PolicyError
from simcore.kernels.policy_ids import (
    POLICY_GREEDY,
    POLICY_HEURISTIC,
    POLICY_ISMCTS,
    POLICY_LEARNED,
    POLICY_OMNISCIENT,
    POLICY_PIMC,
    POLICY_RANDOM,
)
from simcore.registry import known_games

__all__ = [
    "POLICY_KINDS",
    "first_best",
    "ParamSpec",
    "PolicyError",
    "PolicyKind",
    "PolicySpec",
    "PolicySupport",
    "changed_default",
    "decision_kinds",
    "game_default",
    "check_engine",
    "HiddenCardsWarning",
    "hidden_notice",
    "objective_param",
    "searches",
    "sees_hidden",
    "parse_policy",
    "recorded_text",
    "register_policy",
    "search_mask",
]




@dataclass(frozen=True)
class ParamSpec:
    """One parameter of a policy: its name, default and allowed values.

    ``kind`` is ``int``, ``float`` or ``str``; ``choices`` (if given) lists every allowed value,
    otherwise a number must lie in ``minimum .. maximum`` (either bound may be None).

    ``default`` is what a seat gets when its policy text does not name the parameter.
    ``unstated`` is what a *recorded* policy text (a dataset's or tournament's metadata) that does
    not name it stands for: the default when such texts were written, fixed for ever (None: the
    same as ``default``). A parameter whose default changes keeps its old default as
    ``unstated``, and a new parameter's ``unstated`` is the value that plays as before it
    existed; every text written since names such a parameter (``PolicySpec.__str__``), so an old
    dataset replays and resumes as it was made, whatever the defaults are now.
    A ``recorded`` parameter is named in the text a dataset records even at its default (the
    learned player's model version: a newer default must not change what an old dataset replays).
    """

    name: str
    default: int | float | str
    kind: type = int
    choices: tuple[Any, ...] | None = None
    minimum: float | None = None
    maximum: float | None = None
    help: str = ""
    unstated: int | float | str | None = None
    recorded: bool = False

    @property
    def recorded_default(self) -> int | float | str:
        """The value a recorded policy text that does not name this parameter stands for."""
        return self.default if self.unstated is None else self.unstated

    def parse(self, policy: str, text: str) -> int | float | str:
        """The value of ``text`` for this parameter; ``PolicyError`` naming it if not allowed."""
        if self.kind is str:
            value: int | float | str = text
        else:
            try:
                value = self.kind(text)
            except ValueError:
                kind = "an integer" if self.kind is int else "a number"
                raise PolicyError(f"policy {policy}: parameter {self.name} must be {kind}, got {text!r}") from None
        if self.choices is not None and value not in self.choices:
            raise PolicyError(f"policy {policy}: {self.name}={value} is not one of {self.choices}")
        # Bounds are for numbers only (a ``str`` parameter is limited by its ``choices``).
        if not isinstance(value, str) and (self.minimum is not None and value < self.minimum
                                           or self.maximum is not None and value > self.maximum):
            raise PolicyError(f"policy {policy}: {self.name}={value} is outside {self.minimum}..{self.maximum}")
        return value

    def describe(self) -> str:
        """``name=default`` and what it may be, for help texts."""
        if self.choices is not None:
            allowed = "|".join(str(c) for c in self.choices)
        else:
            allowed = f"{'' if self.minimum is None else self.minimum}..{'' if self.maximum is None else self.maximum}"
        return f"{self.name}={self.default} ({allowed})"


@dataclass(frozen=True)
class PolicyKind:
    """A policy of the registry: its name, the id the kernels dispatch on, its parameters.

    The parameters here are those it takes in every game; a game adds its own through its
    ``PolicySupport`` (e.g. Tensho's ``greedy`` takes the yaku set it prefers). A kind that
    ``sees_hidden`` looks at cards its seat cannot see (``omniscient``): it plays only where a
    seat names it, and every run and report that has one says so. A kind that ``searches``
    plays rounds out to decide, which in the reference engine takes seconds a decision
    (``fudasim play`` says it is thinking meanwhile).
    """

    name: str
    policy_id: int
    help: str
    params: tuple[ParamSpec, ...] = ()
    sees_hidden: bool = False  # breaks guarantee 6 (docs/guarantees.md) on purpose, to measure
    searches: bool = False  # decides by playing rounds out (slow in the reference engine)


@dataclass(frozen=True)
class PolicySupport:
    """How a game offers a policy: the engines that implement it and the game's own parameters."""

    engines: tuple[str, ...] = ("kernel", "reference")
    params: tuple[ParamSpec, ...] = ()


POLICY_KINDS: dict[str, PolicyKind] = {}


def register_policy(kind: PolicyKind) -> PolicyKind:
    """Add ``kind`` to the registry (its name and kernel id must be new)."""
    if kind.name in POLICY_KINDS:
        raise ValueError(f"policy {kind.name!r} is registered already")
    if any(other.policy_id == kind.policy_id for other in POLICY_KINDS.values()):
        raise ValueError(f"policy id {kind.policy_id} of {kind.name!r} is taken")
    POLICY_KINDS[kind.name] = kind
    return kind


register_policy(PolicyKind("random", POLICY_RANDOM, "every decision uniform over its legal options"))
register_policy(PolicyKind("greedy", POLICY_GREEDY,
                           "one ply: the move that adds most yaku progress and card value now"))
register_policy(PolicyKind("heuristic", POLICY_HEURISTIC,
                           "a club player's rules: card value, yaku odds, denial and what the field offers"))

_ROLLOUT = ParamSpec("rollout", "random", kind=str, choices=("random", "greedy", "heuristic"),
                     help="the policy that plays every seat to the end of the round in a simulation")


def objective_param(default: str) -> ParamSpec:
    """A search policy's ``objective`` with ``default``: each game declares it in its own
    ``PolicySupport`` (Tensho plays to win, Enshu-bana for the round's payoff)."""
    return ParamSpec("objective", default, kind=str, choices=("win", "score", "margin"),
                     help="win: a finished round counts +1, 0 or -1 by the sign of the seat's payoff; "
                          "score: it counts the payoff itself; margin: the seat's payoff minus each "
                          "other seat's, summed")

_CRN = ParamSpec("crn", 0, choices=(0, 1),
                 help="1: every option's rollouts in a world replay the same random draws (common random "
                      "numbers; matters for random rollouts only)")
_Z = ParamSpec("z", 0.0, kind=float, minimum=0.0, maximum=10.0,
               help="leave the rollout policy's own move only for an option whose mean gain over it, "
                    "paired world by world, is at least z standard errors (0: any gain)")

_CONFIRM = ParamSpec("confirm", 0, minimum=0, maximum=65536,
                     help="more worlds for the action that looked best over the first ones, against the "
                          "rollout policy's own, before z judges it on all (0: every action, every world)")

_RACE = ParamSpec("race", 0, minimum=0, maximum=65536,
                  help="with confirm: play the confirming worlds this many at a time, and after each block but the "
                       "last give the action up if its gain over all worlds so far is not positive, or take it if "
                       "that gain is 2z standard errors (0: every confirming world, then z judges)")

_INFER = ParamSpec("infer", 0, minimum=0, maximum=4096,
                   help="inference: draw up to this many worlds for each one searched and keep the first in which "
                        "the rollout policy, in the other seats' places, would have played as they were seen to "
                        "play this round (else the first of the fewest disagreements); 0 or 1: none")


_DEPTH = ParamSpec("depth", 0, minimum=0, maximum=64,
                   help="0: every rollout plays to the end of the round; N: it stops at the seat's N-th decision "
                        "of two or more actions after the searched one, and the learned value model scores the "
                        "position there (a shipped value model for the rules and objective)")
_GUIDE = ParamSpec("guide", 0, minimum=0,
                   help="0: the base move is the rollout policy's own choice; V: the choice of the learned player "
                        "with the guide model of version V (each case's newest at or below it, shipped or in guides)")
_GATE = ParamSpec("gate", 0, minimum=0, maximum=1 << 40,
                  help="with guide: search only where the guide's best option scores less than this above the next "
                       "(in the model's score units); elsewhere play its choice (0: search every decision)")
_SEARCH = ParamSpec("search", "all", kind=str,
                    help="the decision kinds searched, joined by + (e.g. join or play+capture; fudasim rules show "
                         "lists a game's kinds); the others take the base move at once, the guide's or the rollout "
                         "policy's own, with no draw (all: every kind)")
_GUIDES = ParamSpec("guides", "shipped", kind=str,
                    help="with guide: shipped, the guide models fudasim ships; or a model file "
                         "(fudasim train --out), or a folder of GAME-CASE.guide.vN.json files")
_VALUE = ParamSpec("value", 1, minimum=1,
                   help="with depth: the value models' version (each case's newest at or below it)")
_VALUES = ParamSpec("values", "shipped", kind=str,
                    help="with depth: shipped, the value models fudasim ships; or a folder of value model files "
                         "(fudasim train --value --out FOLDER/GAME-CASE.value.vN.json)")


def changed_default(param: ParamSpec, default: int | float | str) -> ParamSpec:
    """``param`` with a new ``default``; a recorded text that does not name it keeps meaning the
    value it meant before (``ParamSpec.unstated``)."""
    return replace(param, default=default, unstated=param.recorded_default)


def game_default(policy: str, param: str, default: int | float | str) -> ParamSpec:
    """The registered ``policy``'s ``param`` with a game's own ``default`` (for that game's
    ``PolicySupport``): a recorded text that does not name it keeps meaning what it meant
    before (``changed_default``), in every game."""
    spec = {p.name: p for p in POLICY_KINDS[policy].params}[param]
    return changed_default(spec, default)


# pimc's defaults are the strong settings of docs/policies.md (measured against heuristic in
# every case of benchmarks/strength.py); before them it played 32 worlds of random rollouts, and
# until infer=4 became its default it inferred nothing (a recorded text without infer: 0)
register_policy(PolicyKind("pimc", POLICY_PIMC,
                           "determinized Monte Carlo: each option played out in sampled worlds, the rollout "
                           "policy's own move kept unless another is clearly better",
                           (changed_default(ParamSpec("worlds", 32, minimum=1, maximum=65536,
                                                      help="samples of the hidden cards per decision"), 16),
                            changed_default(_ROLLOUT, "heuristic"), changed_default(_CRN, 1),
                            changed_default(_Z, 1.5), changed_default(_CONFIRM, 32), _RACE, changed_default(_INFER, 4),
                            _DEPTH, _VALUE, _VALUES, _GUIDE, _GATE, _GUIDES, _SEARCH),
                           searches=True))
# ismcts's defaults: paired roots over the seat's own tree, judged as pimc judges, a new node trying
# the rollout policy's move first (docs/policies.md; measured against heuristic in every case of
# benchmarks/strength.py); before them it was single-observer ISMCTS of 1,000 iterations, c 0.7 and
# random rollouts. Texts recorded in between name iterations=64 and z=1.5 and omit expand (first);
# until infer=4 became its default it inferred nothing (a recorded text without infer: 0).
register_policy(PolicyKind("ismcts", POLICY_ISMCTS,
                           "information-set Monte Carlo tree search over the seat's own decisions, every root "
                           "move tried in each world",
                           (changed_default(ParamSpec("iterations", 1000, minimum=1, maximum=1_000_000,
                                                      help="tree descents per decision (root=paired: worlds "
                                                           "times the number of options)"), 128),
                            changed_default(ParamSpec("c", 0.7, kind=float, minimum=0.0, maximum=100.0,
                                                      help="UCB exploration constant"), 1.4),
                            changed_default(_ROLLOUT, "heuristic"),
                            changed_default(ParamSpec("norm", 0, choices=(0, 1),
                                                      help="1: a node's mean is divided by the largest |objective| "
                                                           "the search has met, so it lies in -1..1 whatever the "
                                                           "objective"), 1),
                            changed_default(ParamSpec("z", 0.0, kind=float, minimum=0.0, maximum=10.0,
                                                      help="root=ucb: keep the rollout policy's own move unless the "
                                                           "most visited move's mean beats it by z standard errors "
                                                           "(0: the most visited); root=paired: as pimc's z"), 2.0),
                            changed_default(ParamSpec("tree", "all", kind=str, choices=("all", "own"),
                                                      help="all: the tree holds every seat's decisions; own: only "
                                                           "the searcher's, the other seats play the rollout "
                                                           "policy"), "own"),
                            changed_default(ParamSpec("root", "ucb", kind=str, choices=("ucb", "paired"),
                                                      help="ucb: one world per iteration, the most visited action; "
                                                           "paired: every action in each world, chosen by paired "
                                                           "gains as pimc"), "paired"),
                            changed_default(replace(_CONFIRM, help="root=paired: more worlds for the action that "
                                                                   "looked best, against the rollout policy's own, "
                                                                   "before z judges it on all"), 32),
                            changed_default(ParamSpec("expand", "first", kind=str, choices=("first", "rollout"),
                                                      help="the action a tree node tries first: first: the first "
                                                           "legal one; rollout: the rollout policy's"), "rollout"),
                            ParamSpec("widen", 0, minimum=0, maximum=1_000_000,
                                      help="0: a tree node tries every legal action before choosing among them; "
                                           "k: a node below the root has at most 1 + visits // k children"),
                            changed_default(_INFER, 4), _DEPTH, _VALUE, _VALUES),
                           searches=True))
register_policy(PolicyKind("omniscient", POLICY_OMNISCIENT,
                           "for measurement only: pimc in the real position, seeing every hidden card",
                           (ParamSpec("worlds", 32, minimum=1, maximum=65536,
                                      help="rollouts of each option in the real position"), _ROLLOUT, _CRN, _Z,
                            _CONFIRM),
                           sees_hidden=True, searches=True))
register_policy(PolicyKind("learned", POLICY_LEARNED,
                           "a trained model: the option its features of the seat's observation score highest",
                           (ParamSpec("model", "shipped", kind=str,
                                      help="shipped: the models fudasim ships for the rules and players; or "
                                           "a model file (fudasim train --out), or a folder of them"),)))


@dataclass(frozen=True)
class PolicySpec:
    """A seat's policy: the registry name and every parameter's value (defaults filled in).

    ``defaults`` holds each parameter's default, ``unstated`` what a recorded text that does not
    name it stands for (``ParamSpec.unstated``); neither takes part in comparisons.
    """

    name: str
    params: dict[str, Any] = field(default_factory=dict)
    defaults: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)
    unstated: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)
    named: tuple[str, ...] = field(default=(), compare=False, repr=False)  # always in ``str`` (recorded)

    @property
    def policy_id(self) -> int:
        """The id the kernels dispatch on."""
        return POLICY_KINDS[self.name].policy_id

    def __str__(self) -> str:
        """``NAME`` or ``NAME:k=v,...``: the text a dataset records, which means the same policy
        read as a user's choice and as a recorded text (``parse_policy``). It names every
        parameter that differs from its default, and every parameter whose default is not what
        a recorded text that omits it stands for (so ``pimc`` with today's defaults is recorded
        with those parameters spelled out), and the ``recorded`` ones (``ParamSpec``)."""
        changed = {}
        for k, v in sorted(self.params.items()):
            default = self.defaults.get(k)
            if default != v or self.unstated.get(k, default) != default or k in self.named:
                changed[k] = v
        if not changed:
            return self.name
        return self.name + ":" + ",".join(f"{k}={v}" for k, v in changed.items())


def _game_support(game: str | None) -> dict[str, dict[str, PolicySupport]]:
    """Each registered game's policies (all games when ``game`` is None), by game name."""

    games = known_games()
    if game is None:
        return {name: dict(g.policies) for name, g in games.items()}
    if game not in games:
        raise PolicyError(f"unknown game {game!r} (known: {', '.join(games)})")
    return {game: dict(games[game].policies)}


def parse_policy(text: str, game: str | None = None, recorded: bool = False) -> PolicySpec:
    """Parse ``NAME[:k=v,...]`` (e.g. ``greedy:yaku_set=2``) against the registry.

    With ``game`` (a registered game's name), the policy must be one that game offers and a
    parameter that game has no use for is refused rather than ignored; without it, the
    parameters of every game are accepted. A parameter the text does not name takes its
    default, or, with ``recorded`` (a text read from a dataset's or tournament's metadata), the
    value such a text stood for when it was written (``ParamSpec.unstated``): an old dataset's
    ``pimc`` is the pimc it was made with.
    """
    name, _, rest = text.strip().partition(":")
    if name not in POLICY_KINDS:
        raise PolicyError(f"unknown policy {name!r} (known: {', '.join(POLICY_KINDS)})")
    support = _game_support(game)
    if game is not None and name not in support[game]:
        raise PolicyError(f"policy {name}: not offered for {game} (offered: {', '.join(support[game])})")
    specs = {p.name: p for p in POLICY_KINDS[name].params}
    for offers in support.values():
        if name in offers:
            for param in offers[name].params:
                if game is None:
                    specs.setdefault(param.name, param)
                else:  # the game's own default for a core parameter (game_default) wins
                    specs[param.name] = param
    defaults = {key: spec.default for key, spec in specs.items()}
    unstated = {key: spec.recorded_default for key, spec in specs.items()}
    params = dict(unstated if recorded else defaults)
    named: set[str] = set()
    if rest:
        for item in rest.split(","):
            key, sep, value = item.partition("=")
            key = key.strip()
            named.add(key)
            if not sep or key not in specs:
                others = [g for g, offers in _game_support(None).items()
                          if name in offers and key in {p.name for p in offers[name].params}]
                if sep and game is not None and others:
                    raise PolicyError(f"policy {name}: parameter {key} applies to {' and '.join(others)} only, "
                                      f"not to {game}")
                allowed = ", ".join(specs) or "none"
                raise PolicyError(f"policy {name}: unknown parameter {item!r} (parameters: {allowed})")
            params[key] = specs[key].parse(name, value.strip())
    if int(params.get("infer", 0)) > 1 and params.get("rollout") == "random":
        # inference reads the other seats' play through the rollout policy: random play tells
        # nothing, so a default infer is 0 there and a named one is refused
        if "infer" in named:
            raise PolicyError(f"policy {name}: infer={params['infer']} needs rollout=greedy or rollout=heuristic "
                              "(the model of the other seats' play; random play tells nothing)")
        params["infer"] = 0
    if int(params.get("guide", 0)) > 0 and int(params.get("depth", 0)) > 0:
        # one model table per search seat: a guided search plays its rollouts to the end
        if "depth" in named:
            raise PolicyError(f"policy {name}: guide={params['guide']} and depth={params['depth']}: a search seat "
                              "reads one model, its guide or its value model; name one")
        params["depth"] = 0
    for key in ("gate", "guides"):
        if key in named and int(params.get("guide", 0)) == 0:
            raise PolicyError(f"policy {name}: {key}={params[key]} needs guide=VERSION (the learned player whose "
                              "choice the search keeps)")
    if "search" in params:
        params["search"] = _searched_kinds(name, str(params["search"]), support)
    objective = specs.get("objective")
    if (int(params.get("depth", 0)) > 0 and "depth" not in named and objective is not None
            and params["objective"] != objective.default):
        # a game's default depth is for its default objective, the one its shipped value models
        # estimate: another objective plays its rollouts to the end unless depth is named
        params["depth"] = 0
    return PolicySpec(name, params, defaults, unstated,
                      tuple(key for key, spec in specs.items() if spec.recorded))


def decision_kinds(game: str) -> Mapping[str, int]:
    """``game``'s decision kinds, name -> code (its ``decisions.ACTION_KINDS``; the code is an
    action key's ``bits.KIND_SHIFT`` part)."""
    import importlib

    from simcore.registry import REGISTRY

    kinds: Mapping[str, int] = importlib.import_module(f"{REGISTRY[game]}.decisions").ACTION_KINDS
    return kinds


def _searched_kinds(name: str, text: str, support: Mapping[str, Mapping[str, PolicySupport]]) -> str:
    """``search``'s value as recorded: ``all``, or its kinds once each, in alphabetical order;
    ``PolicyError`` for a kind no game of ``support`` offering ``name`` has."""
    wanted = {kind.strip() for kind in text.split("+")}
    if wanted == {"all"}:
        return "all"
    known = sorted({kind for game, offers in support.items() if name in offers for kind in decision_kinds(game)})
    unknown = sorted(wanted - set(known))
    if unknown:
        raise PolicyError(f"policy {name}: search={text}: no decision kind {', '.join(map(repr, unknown))} "
                          f"(kinds: all, or {', '.join(known)} joined by +)")
    return "+".join(sorted(wanted))


def search_mask(spec: PolicySpec, kinds: Mapping[str, int]) -> int:
    """The bits (``1 << code``) of the decision kinds a pimc ``spec`` searches; -1: every kind."""
    text = str(spec.params.get("search", "all"))
    if text == "all":
        return -1
    return sum(1 << kinds[kind] for kind in text.split("+"))


def recorded_text(text: str, game: str | None = None) -> str:
    """A recorded policy text (a dataset's or tournament's metadata) as it would be recorded
    today: the same policy, spelled so that it reads alike as a user's choice (``parse_policy``
    with ``recorded``, then ``str``). Two recorded texts name the same policy exactly when their
    ``recorded_text`` agree."""
    return str(parse_policy(text, game, recorded=True))


class HiddenCardsWarning(UserWarning):
    """A run or tournament seats a policy that sees hidden cards (``omniscient``)."""


def searches(spec: PolicySpec | str) -> bool:
    """Whether a policy (spec or registered name) decides by playing rounds out (``PolicyKind``)."""
    name = spec if isinstance(spec, str) else spec.name
    kind = POLICY_KINDS.get(name.partition(":")[0])
    return kind is not None and kind.searches


def sees_hidden(spec: PolicySpec | str) -> bool:
    """Whether a policy (spec or registered name) looks at cards its seat cannot see."""
    name = spec if isinstance(spec, str) else spec.name
    kind = POLICY_KINDS.get(name.partition(":")[0])
    return kind is not None and kind.sees_hidden


def hidden_notice(policies: list[str]) -> str | None:
    """The line every run and report of a dataset whose seats include a policy that sees hidden
    cards starts with (None when none does); ``policies`` are the seats' policy texts."""
    seats = [f"{seat} ({text})" for seat, text in enumerate(policies) if sees_hidden(str(text))]
    if not seats:
        return None
    return (f"seat{'s' if len(seats) > 1 else ''} {', '.join(seats)} see{'' if len(seats) > 1 else 's'} the hidden "
            "cards (omniscient, for measurement only): these are not fair players' results")


def check_engine(spec: PolicySpec, game: str, engine: str) -> None:
    """Refuse, before a run starts, a policy that ``engine`` does not implement for ``game``."""
    support = _game_support(game)[game].get(spec.name)
    if support is None:
        raise PolicyError(f"policy {spec.name}: not offered for {game}")
    if engine not in support.engines:
        raise PolicyError(f"policy {spec.name}: the {engine} engine does not implement it for {game} "
                          f"(engines: {', '.join(support.engines)})")


def policy_table(game: str | None = None) -> Mapping[str, PolicyKind]:
    """The registry, or the policies ``game`` offers, by name."""
    if game is None:
        return dict(POLICY_KINDS)
    offered = _game_support(game)[game]
    return {name: kind for name, kind in POLICY_KINDS.items() if name in offered}


OptionT = TypeVar("OptionT")
DefaultT = TypeVar("DefaultT")


def first_best(options: Iterable[OptionT], score: Callable[[OptionT], Any],
               default: DefaultT) -> tuple[OptionT | DefaultT, Any]:
    """The option with the highest ``score`` and that score; ties go to the earliest option (the
    order the numba twins scan in). ``(default, None)`` when there are no options."""
    best: OptionT | DefaultT = default
    best_score = None
    for option in options:
        value = score(option)
        if best_score is None or value > best_score:
            best, best_score = option, value
    return best, best_score
