"""Rule files (TOML, shipped as package data), validation and compilation to arrays."""

from simcore.games.tensho.compile import CompiledTensho, compile_rules
from simcore.rules.loader import (
    MAX_RULES_BYTES,
    RulesError,
    RuleSet,
    Yaku,
    load_rules,
    load_rules_text,
    parse_option_overrides,
    shipped_rules,
)
from simcore.rules.schema import TENSHO_OPTIONS, OptionSpec

__all__ = [
    "CompiledTensho",
    "MAX_RULES_BYTES",
    "OptionSpec",
    "RuleSet",
    "RulesError",
    "TENSHO_OPTIONS",
    "Yaku",
    "compile_rules",
    "load_rules",
    "load_rules_text",
    "parse_option_overrides",
    "shipped_rules",
]
