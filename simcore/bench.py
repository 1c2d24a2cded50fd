"""What ``fudasim bench`` measures of each registered game: its benchmark cases.

A game may offer a module ``bench`` in its package (``simcore/games/<name>/bench.py``, handed
out by ``Game.bench()``) with a function ``cases()`` returning its ``BenchCase`` list and a constant
``RUN_CASE``, the ``RunCase`` of its end-to-end, memory and start-up figures. A registered game
without one is still measured: random play on each of its shipped rule files, no end-to-end
figures. So a new game is benchmarked by being registered, and says what is worth measuring of
it next to its own code, without the benchmark driver naming it.

This module holds data only; the measuring is in ``simcore/run/throughput.py``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from simcore.registry import get_game

__all__ = ["BenchCase", "RunCase", "bench_cases", "bench_run_case"]


@dataclass(frozen=True)
class BenchCase:
    """One kernel measurement: a rule set with options, one policy per seat.

    Parameters
    ----------
    case : str
        The label of the ``case`` column (Tensho: the yaku set; Enshu-bana: variant and players).
    rules : str
        A shipped rule set's name (or a rule file's path).
    options : dict of str to str
        Rule option overrides, as ``--option`` takes them.
    policies : tuple of str
        One policy spec per seat (``random``, ``greedy:yaku_set=2``, ...).
    rounds_divisor : int
        The kernel plays ``max(1000, rounds // rounds_divisor)`` rounds per measurement, where
        ``rounds`` is the benchmark's ``--rounds``: slower cases play fewer.
    reference_divisor : int
        The reference engine plays ``max(50, reference_rounds // reference_divisor)`` rounds.
    """

    case: str
    rules: str
    policies: tuple[str, ...]
    options: dict[str, str] = field(default_factory=dict)
    rounds_divisor: int = 1
    reference_divisor: int = 1

    def __post_init__(self) -> None:
        if not self.policies:
            raise ValueError(f"bench case {self.case!r}: no policies")
        if self.rounds_divisor < 1 or self.reference_divisor < 1:
            raise ValueError(f"bench case {self.case!r}: the divisors must be at least 1")

    @property
    def label(self) -> str:
        """The ``policies`` column: the seats' policy names joined by ``-``."""
        return "-".join(spec.partition(":")[0] for spec in self.policies)


@dataclass(frozen=True)
class RunCase:
    """The ``fudasim run`` whose end-to-end rate, peak memory and start-up time are measured.

    Parameters
    ----------
    case : str
        The label of the ``case`` column.
    rules : str
        The rule set the run plays (``fudasim run RULES``), every seat random.
    policies : str
        The label of the ``policies`` column.
    rounds_divisor : int
        The runs play the benchmark's ``--run-rounds`` and ``--memory-rounds`` divided by this.
    """

    case: str
    rules: str
    policies: str
    rounds_divisor: int = 1


def bench_cases(game_name: str) -> list[BenchCase]:
    """The kernel cases measured for a registered game.

    Parameters
    ----------
    game_name : str
        A name in ``simcore.registry.REGISTRY``.

    Returns
    -------
    list of BenchCase
        The game's own ``bench.cases()``; without a ``bench`` module, random play on each
        shipped rule file of the game at its default player count.
    """
    module = get_game(game_name).bench()
    if module is not None:
        return list(module.cases())
    from simcore.rules import load_rules, shipped_rules

    cases = []
    for name in shipped_rules():
        rule_set = load_rules(name)
        if rule_set.game == game_name:
            cases.append(BenchCase(name, name, ("random",) * int(rule_set.players)))
    return cases


def bench_run_case(game_name: str) -> RunCase | None:
    """The end-to-end run measured for a registered game (None: the game has none).

    Parameters
    ----------
    game_name : str
        A name in ``simcore.registry.REGISTRY``.

    Returns
    -------
    RunCase or None
        The game's own ``bench.RUN_CASE``; None without a ``bench`` module.
    """
    module = get_game(game_name).bench()
    return None if module is None else module.RUN_CASE
