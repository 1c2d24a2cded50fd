"""The library's errors: one base class, one subclass per kind of mistake.

Every error a user can cause (a bad rule file, option, policy, path, dataset, deck or scripted
decision) is a ``FudasimError`` whose message is one line naming what is wrong (the file, the
key, the value); the command line prints it and exits with status 2. Anything else that escapes
is a bug. ``FudasimError`` is a ``ValueError``, as each of these always was.
"""

from __future__ import annotations

__all__ = ["DatasetError", "DealError", "DecisionError", "FudasimError", "PolicyError", "RulesError",
           "RunError"]


class FudasimError(ValueError):
    """A user error: the message is one line naming what is wrong.

    Characters that are not printable (a newline in a quoted TOML key, say) are written as
    escapes, so the message stays one line whatever the input held.
    """

    def __init__(self, message: object = "") -> None:
        super().__init__("".join(c if c.isprintable() else repr(c)[1:-1] for c in str(message)))


class RulesError(FudasimError):
    """A rule file or rule option is invalid; the message names the file, the key, the problem."""


class PolicyError(FudasimError):
    """A policy name or parameter is invalid, or a game or engine does not offer the policy."""


class RunError(FudasimError):
    """A run cannot start or resume as asked (bad path, mismatched plan, ...)."""


class DatasetError(FudasimError):
    """A path is not a (complete, readable) fudasim dataset."""


class DealError(FudasimError):
    """An explicit deck cannot be played (e.g. the rules would redeal it)."""


class DecisionError(FudasimError):
    """A scripted decision is missing or illegal; the message names the step."""
