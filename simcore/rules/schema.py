"""Named rule options (docs/tensho.md#options, docs/enshu.md#options): their spec, choices and
defaults; each game lists its own.

Each option is spelled as in the docs (``tensho.triple_match``); in a rule file it is
written as key ``triple_match`` of table ``[tensho]``.  Choices are the strings the docs list, and
the kernels see each option as the index of its value in ``choices`` (see ``option_code``).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["OptionSpec", "choice", "option_code"]


@dataclass(frozen=True)
class OptionSpec:
    """A named rule option: its allowed values (``choices``, or an integer range), default and help."""

    name: str
    choices: tuple[str, ...] | None  # None: an integer option
    default: str | int
    help: str
    minimum: int | None = None
    maximum: int | None = None

    def parse(self, value: object) -> str | int:
        """Validate a value from a rule file or ``--option``; raise ValueError naming the problem."""
        if self.choices is None:
            if isinstance(value, bool):
                raise ValueError(f"expected an integer, got {value!r}")
            if isinstance(value, str):
                try:
                    value = int(value)
                except ValueError:
                    raise ValueError(f"expected an integer, got {value!r}") from None
            if not isinstance(value, int):
                raise ValueError(f"expected an integer, got {value!r}")
            if self.minimum is not None and value < self.minimum:
                raise ValueError(f"{value} is below the minimum {self.minimum}")
            if self.maximum is not None and value > self.maximum:
                raise ValueError(f"{value} is above the maximum {self.maximum}")
            return value
        text = str(value).lower() if isinstance(value, bool) else str(value)
        if text not in self.choices:
            raise ValueError(f"{value!r} is not one of {', '.join(self.choices)}")
        return text


def choice(name: str, choices: str, default: str, help: str) -> OptionSpec:
    """An option whose value is one of the space-separated ``choices``."""
    return OptionSpec(name, tuple(choices.split()), default, help)


def option_code(spec: OptionSpec, value: str | int) -> int:
    """The integer the kernels see for an option value."""
    if spec.choices is None:
        return int(value)
    return spec.choices.index(str(value))
