"""simcore.kernels.linking: a function only numba calls is optimised and translated in its callers.

Each case runs children with one empty numba cache (``NUMBA_CACHE_DIR``): the first compiles a
small module whose two callers share an ``internal_nb`` function, the second loads the callers
and the deferred function from the cache and compiles a third caller against the cached one.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from simcore.kernels import linking

ROOT = Path(__file__).resolve().parent.parent

MODULE = '''
import numba as nb
from simcore.kernels.internal import internal_nb


@internal_nb(cache=True)
def inner(a, k):
    if k < 0:
        raise ValueError("negative k")
    s = 0
    for x in a:
        s += x * k
    return s


@nb.njit(cache=True)
def outer(a, k):
    return inner(a, k) + 1


@nb.njit(cache=True)
def other(a, k):
    return inner(a, k)


@nb.njit(cache=True)
def third(a, k):
    return inner(a, k) - 1
'''

CHILD = '''
import json, sys
import numpy as np
import toy
from simcore.kernels import linking


def deferred(dispatcher):
    return [getattr(o.library, "_fudasim_deferred", False) for o in dispatcher.overloads.values()]


a = np.arange(10)
out = {"installed": linking.installed(), "outer": int(toy.outer(a, 3))}
if sys.argv[1] == "second":
    out["other"] = int(toy.other(a, 5))
    try:
        toy.other(a, -1)
    except ValueError as error:
        out["raised"] = str(error)
    sig, result = next(iter(toy.inner.overloads.items()))
    try:
        result.library.get_pointer_to_function(result.fndesc.mangled_name)
    except RuntimeError as error:
        out["address"] = "no machine code" in str(error)
if sys.argv[1] == "eager":
    out["third"] = int(toy.third(a, 2))
names = ("inner", "outer", "other", "third")
out["deferred"] = {name: deferred(getattr(toy, name)) for name in names}
out["hits"] = {name: sum(getattr(toy, name).stats.cache_hits.values()) for name in names}
print(json.dumps(out))
'''


def child(tmp_path: Path, which: str, cache: str = "cache", **extra: str) -> dict:
    """One child's report (``CHILD``) with the cache ``tmp_path / cache``."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / cache), PYTHONPATH=f"{tmp_path}{os.pathsep}{ROOT}")
    env.pop(linking.EAGER_ENV, None)
    env.update(extra)
    done = subprocess.run([sys.executable, "-c", CHILD, which], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.splitlines()[-1])


def test_install_knows_this_numba_and_is_idempotent():
    assert linking.installed()
    assert linking.install()


def test_deferred_functions_compile_cache_and_link_from_the_cache(tmp_path):
    (tmp_path / "toy.py").write_text(MODULE)
    first = child(tmp_path, "first")
    assert first["installed"]
    assert first["outer"] == 3 * 45 + 1
    # the function without a Python wrapper is deferred; the one Python calls is not
    assert first["deferred"]["inner"] == [True]
    assert first["deferred"]["outer"] == [False]
    assert first["hits"] == {"inner": 0, "outer": 0, "other": 0, "third": 0}

    second = child(tmp_path, "second")
    assert second["outer"] == 3 * 45 + 1
    assert second["hits"]["outer"] == 1
    # other compiles here, linking inner as the cache kept it: deferred bitcode
    assert second["other"] == 5 * 45
    assert second["hits"]["inner"] == 1
    assert second["deferred"]["inner"] == [True]
    assert second["deferred"]["other"] == [False]
    # an exception raised in the deferred function reaches Python through its caller
    assert second["raised"] == "negative k"
    # and its code has no address of its own: asked for one, it refuses rather than crash
    assert second["address"] is True


def test_eager_and_deferred_compiles_share_one_cache(tmp_path):
    (tmp_path / "toy.py").write_text(MODULE)
    eager = {linking.EAGER_ENV: "1"}
    alone = child(tmp_path, "eager", "eager-cache", **eager)
    assert not alone["installed"]
    assert (alone["outer"], alone["third"]) == (3 * 45 + 1, 2 * 45 - 1)
    assert alone["deferred"]["inner"] == [False]
    # and the other way: a deferring child links inner as the eager child cached it (machine code)
    back = child(tmp_path, "second", "eager-cache")
    assert (back["outer"], back["other"]) == (3 * 45 + 1, 5 * 45)
    assert back["hits"]["inner"] == 1 and back["deferred"]["inner"] == [False]
    # a cache written with the deferral: the eager child loads inner as kept there, and links it
    child(tmp_path, "first")
    mixed = child(tmp_path, "eager", **eager)
    assert (mixed["outer"], mixed["third"]) == (3 * 45 + 1, 2 * 45 - 1)
    assert mixed["hits"]["inner"] == 1 and mixed["hits"]["outer"] == 1
