"""Bounds on the numbers of a rule file: every sum of them must fit the type that stores it.

Card values, yaku points, multipliers, teyaku values and bonuses end up in int32 rule arrays,
int32 dataset columns (``card_points_*``, ``yaku_points_*``, ...) and int64 scores, payoffs and
match totals (docs/dataset.md, docs/enshu.md).  A value that passes its own checks can still make
one of those sums overflow (a card value of 1.5e8 times the cards of a pile wraps ``card_points``).
Each game lists its numbers (``Number``) and the worst case each stored quantity can reach as a
function of them (``Reach``); ``check_bounds`` refuses a file whose worst case does not fit,
naming the number that contributes most and the range it may take with the others unchanged.

Every worst case is monotone in every number (more points never give a smaller sum), which is
what makes the range a simple bisection.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from simcore.errors import RulesError

__all__ = ["INT32_MAX", "INT64_MAX", "MAX_MATCH_ROUNDS", "Number", "Reach", "check_bounds"]

INT32_MAX = 2**31 - 1
INT64_MAX = 2**63 - 1
# The most rounds a match may be given (the maximum of options tensho.rounds and enshu.rounds,
# and of --rounds-per-match); scores summed over a match are bounded with it.
MAX_MATCH_ROUNDS = 1000


@dataclass(frozen=True)
class Number:
    """A number of a rule file: where it is (``key``), its value and its smallest allowed value."""

    key: str
    value: int
    minimum: int


@dataclass(frozen=True)
class Reach:
    """The worst case ``value`` of a stored quantity (described by ``what``) and its ``limit``."""

    what: str
    value: int
    limit: int


def check_bounds(source: str, numbers: Sequence[Number],
                 reaches: Callable[[dict[str, int]], list[Reach]]) -> None:
    """Refuse numbers whose worst-case sums overflow the types that store them.

    Parameters
    ----------
    source : str
        The rule file, as error messages name it.
    numbers : sequence of Number
        The file's numbers (keys unique).
    reaches : callable
        Maps ``{key: value}`` to the worst cases of the stored quantities, always in the same
        order, each non-decreasing in every value.

    Raises
    ------
    RulesError
        ``SOURCE: KEY: VALUE is out of range MIN..MAX (...)``, naming the largest number that
        drives the first quantity over its limit and the range that keeps that quantity, and
        every quantity already within its limit, within, the others unchanged.
    """
    values = {number.key: number.value for number in numbers}
    worst = reaches(values)
    within = {position for position, reach in enumerate(worst) if reach.value <= reach.limit}
    for position, reach in enumerate(worst):
        if position in within:
            continue
        culprit = _culprit(numbers, values, reaches, position, reach.value)
        if culprit is None:  # a quantity no number of the file drives (cannot happen for our games)
            raise RulesError(f"{source}: {reach.what} can reach {reach.value:,}, more than {reach.limit:,}")
        highest = _highest_fitting(culprit, values, reaches, within | {position})
        problem = (f"{reach.what} can reach {reach.value:,}, more than {reach.limit:,}")
        if highest is None:
            raise RulesError(f"{source}: {culprit.key}: {culprit.value} is too large: {problem} "
                             f"even with this value at its minimum {culprit.minimum}")
        raise RulesError(f"{source}: {culprit.key}: {culprit.value} is out of range "
                         f"{culprit.minimum}..{highest} ({problem})")


def _culprit(numbers, values, reaches, position, worst) -> Number | None:
    """The largest number whose lowering to its minimum lowers quantity ``position``."""
    best = None
    for number in numbers:
        if number.value <= number.minimum:
            continue
        if reaches({**values, number.key: number.minimum})[position].value < worst:
            if best is None or number.value > best.value:
                best = number
    return best


def _highest_fitting(number: Number, values, reaches, positions: set[int]) -> int | None:
    """The largest value of ``number`` (others unchanged) keeping the quantities ``positions`` in range."""

    def fits(value: int) -> bool:
        worst = reaches({**values, number.key: value})
        return all(worst[i].value <= worst[i].limit for i in positions)

    low, high = number.minimum, number.value
    if not fits(low):
        return None
    while high - low > 1:  # fits(low), not fits(high)
        middle = (low + high) // 2
        if fits(middle):
            low = middle
        else:
            high = middle
    return low
