"""Rule files (TOML, shipped as package data): loading, the shared validators and option specs.

Each game validates and compiles its own rule sets (``simcore.games.<game>.rules``); loading
finds the game through the registry by the file's ``[game] name``.
"""

from simcore.errors import RulesError
from simcore.rules.loader import (
    MAX_RULES_BYTES,
    earlier_text,
    is_shipped,
    load_rules,
    load_rules_text,
    parse_option_overrides,
    shipped_rules,
)
from simcore.rules.schema import OptionSpec

__all__ = [
    "MAX_RULES_BYTES",
    "OptionSpec",
    "RulesError",
    "earlier_text",
    "is_shipped",
    "load_rules",
    "load_rules_text",
    "parse_option_overrides",
    "shipped_rules",
]
