"""One optimisation for each kernel: the functions only numba calls are optimised in their kernel.

numba compiles every function into an LLVM module of its own, links into it the modules of the
functions it calls, optimises the whole (LLVM at O3) and translates it to machine code; a caller
links that module in and does it all again.  A game's state machine, three or four calls below
the kernel's entry point, was so optimised and translated three or four times: in a first run of
Enshu-bana's heuristic, 15 of 35 seconds went to LLVM, nearly all of it on modules no one would
ever run (``python -m benchmarks.cold_start``; docs/performance.md, "First start").

``install()`` (done when ``simcore.kernels`` is imported) defers that work for a function that
Python cannot call: one compiled without numba's Python wrapper (``internal_nb``, and the round
contract's ``implements(inline=False)``).  Such a function's module is linked into its callers as
numba left it after its function-level passes, neither optimised as a whole nor translated; the
function that Python calls (a kernel's entry point) optimises and translates everything it holds,
once.  numba's on-disk cache keeps a deferred function as LLVM bitcode (a caller compiled later
links it from there, as it would link any cached function), where it kept machine code that
nothing ran.  The rows do not change (``tests/test_golden_rows.py``), nor the kernels' speed
(``benchmarks.kernel_ab``).

It replaces six methods of numba's CPU code library and codegen, and does nothing (the kernels
compile as before, only slower) on a numba whose classes lack one of them.  With
``FUDASIM_EAGER_LINKING=1`` in the environment numba compiles as it does by default (to compare
the two, or should a numba version ever disagree with the deferral); a function the cache keeps
deferred is then translated when it loads.  A deferred function has no machine code: asked for
the address of one of its functions (which numba never does for a function without a wrapper),
it raises ``RuntimeError`` rather than hand out a null pointer.
"""

from __future__ import annotations

import os
from typing import Any

__all__ = ["DEFERRED_KIND", "EAGER_ENV", "install", "installed"]

EAGER_ENV = "FUDASIM_EAGER_LINKING"  # set (not "0"): compile every function as numba does by default

DEFERRED_KIND = "fudasim-deferred-bitcode"  # the serialisation kind of a deferred library
_STATE = {"patched": False, "installed": False}


def installed() -> bool:
    """Whether ``install()`` defers the functions Python cannot call (False on a numba it does not
    know, and with ``FUDASIM_EAGER_LINKING``)."""
    return _STATE["installed"]


def _deferred(library: Any) -> bool:
    """Whether numba's code library ``library`` holds a deferred function."""
    return getattr(library, "_fudasim_deferred", False)


def _defines(module: Any, name: str) -> bool:
    """Whether the LLVM module defines (not merely declares) the function ``name``."""
    try:
        return not module.get_function(name).is_declaration
    except NameError:
        return False


def install() -> bool:
    """Defer the optimisation and translation of functions Python cannot call (module
    docstring); returns ``installed()``. Calling it again changes nothing."""
    if _STATE["patched"]:
        return _STATE["installed"]
    try:
        import llvmlite.binding as ll
        from numba.core import codegen
    except ImportError:  # pragma: no cover - numba is a dependency
        return False
    library = getattr(codegen, "CPUCodeLibrary", None)
    jit_library = getattr(codegen, "JITCodeLibrary", None)
    jit_codegen = getattr(codegen, "JITCPUCodegen", None)
    needed = ((library, ("_optimize_final_module", "_finalize_final_module", "serialize_using_object_code",
                         "_unserialize", "_finalize_dynamic_globals", "_verify_declare_only_symbols",
                         "_get_module_for_linking", "_ensure_finalized")),
              (jit_library, ("get_pointer_to_function",)), (jit_codegen, ("set_env",)))
    if any(cls is None or not all(hasattr(cls, name) for name in names) for cls, names in needed):
        return False
    assert library is not None and jit_library is not None and jit_codegen is not None

    pointer = jit_library.get_pointer_to_function
    optimize = library._optimize_final_module
    finalize = library._finalize_final_module
    serialize = library.serialize_using_object_code
    unserialize = library._unserialize.__func__
    set_env = jit_codegen.set_env

    def get_pointer_to_function(self: Any, name: str) -> int:
        # numba asks for the Python wrapper of every function it compiles, once compiled: a
        # function without one is deferred here, before anything finalizes its library
        deferred = _deferred(self)
        if deferred or not self._finalized:
            defined = _defines(self._final_module, name)
            if deferred and defined:
                raise RuntimeError(f"{name} was compiled for numba callers only and has no machine code "
                                   "(simcore.kernels.linking)")
            if not defined:
                self._fudasim_deferred = True
                return 0
        return pointer(self, name)

    def _optimize_final_module(self: Any) -> None:
        if not _deferred(self):
            optimize(self)

    def _finalize_final_module(self: Any) -> None:
        if not _deferred(self):
            finalize(self)
            return
        self._finalize_dynamic_globals()
        self._verify_declare_only_symbols()
        self._finalized = True

    def serialize_using_object_code(self: Any) -> Any:
        if not _deferred(self):
            return serialize(self)
        self._ensure_finalized()
        return (self.name, DEFERRED_KIND, self._get_module_for_linking().as_bitcode())

    def _unserialize(cls: Any, codegen_: Any, state: Any) -> Any:
        name, kind, data = state
        if kind != DEFERRED_KIND:
            return unserialize(cls, codegen_, state)
        self = codegen_.create_library(name)
        self._fudasim_deferred = True
        self._final_module = ll.parse_bitcode(data)
        self._finalize_final_module()
        return self

    def set_env_(self: Any, env_name: str, env: Any) -> None:
        # a deferred function's environment has no address until a caller's machine code holds it
        if self._engine.get_global_value_address(env_name):
            set_env(self, env_name, env)

    library._unserialize = classmethod(_unserialize)  # a deferred function in the cache loads either way
    _STATE["patched"] = True
    if os.environ.get(EAGER_ENV, "") not in ("", "0"):
        return False
    jit_library.get_pointer_to_function = get_pointer_to_function
    library._optimize_final_module = _optimize_final_module
    library._finalize_final_module = _finalize_final_module
    library.serialize_using_object_code = serialize_using_object_code
    jit_codegen.set_env = set_env_
    _STATE["installed"] = True
    return True
