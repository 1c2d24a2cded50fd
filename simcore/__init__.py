"""fudasim's engine: decks, rules, random streams, reference engines, kernels, runner, dataset.

Never imports pandas or click.
"""

__version__ = "0.1.0"
ENGINE_VERSION = "2"  # bump whenever a change alters any round's outcome for a given seed
