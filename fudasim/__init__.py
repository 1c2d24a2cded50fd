"""fudasim from Python: run a simulation and read a dataset as a pandas DataFrame.

>>> import fudasim
>>> run = fudasim.run("tensho-ise", rounds=10_000, seed=1, policies={1: "greedy"}, out="runs/demo")
>>> frame = fudasim.load("runs/demo", yaku="names")

``run`` is ``fudasim run`` (the same rules, options, policies, seed, engine, threads, output
folder, lock, manifest and resume); ``load`` is the dataset with readable columns. Errors are
``fudasim.FudasimError`` subclasses whose message is the one line the CLI would print.
See docs/python.md.
"""

from fudasim.api import Run, load, open_dataset, run
from simcore.errors import FudasimError

__all__ = ["FudasimError", "Run", "load", "open_dataset", "run"]
