"""The optional compiled tier: numba kernels, switched on with set_context, cached on disk.

`ms.set_context(numba_kernels=True)` imports numba (the optional extra 'numba') and
warms its compiler up there and then, so that the first graph compiled afterwards
does not pay for it. From then on, graphs being compiled run each group of fused
elementwise kernels whose ops are exactly rounded (graphjit.backend.numba_groups) as
one generated loop compiled by numba, instead of one numpy ufunc call per op.

The generated source of each kernel is written to a file named by a hash of that
source under the cache folder (set_context(numba_cache_dir=...), by default
$XDG_CACHE_HOME or ~/.cache, then graphjit/numba) and imported from there, so that
numba's own disk cache (`cache=True`, beside the file in __pycache__) serves every
later process: a kernel compiled once loads in milliseconds. A folder that cannot be
created or written, or a cache numba cannot use, falls back to compiling the kernel
in memory (this process only); a kernel numba cannot compile at all leaves its group
to the numpy lowering. Either way the results are the same bits.
"""
from __future__ import annotations

import hashlib
import importlib.util
import os
import pathlib
import sys
import warnings
from typing import Dict, Optional

from ..context import get_context, install_option_hook
from ..extras import missing_extra_error

__all__ = ["active", "require_numba", "load_kernel", "cache_folder", "KERNEL_NAME",
           "FUNCTION_OPTIONS"]

# the name of the function every generated source defines
KERNEL_NAME = "kernel"
# numba's options for every kernel: floating-point errors give inf/nan as numpy's
# ufuncs do (error_model="python" would raise ZeroDivisionError); fastmath stays off,
# so LLVM neither contracts a * b + c into an FMA nor reorders anything
FUNCTION_OPTIONS = {"error_model": "numpy", "nogil": True}

_numba = None
# sha of a source -> its numba dispatcher (None: it could not be compiled)
_loaded: Dict[str, object] = {}

_WARM_UP = f'''
def {KERNEL_NAME}(a, o):
    for i in range(a.shape[0]):
        o[i] = a[i] * 0.5 + 1.0
'''


def require_numba():
    """The numba module.

    Raises:
        ModuleNotFoundError: numba is not installed; the message names the extra.
    """
    global _numba
    if _numba is None:
        try:
            import numba
        except ModuleNotFoundError as e:
            if (e.name or "").split(".")[0] != "numba":
                raise
            raise missing_extra_error("set_context(numba_kernels=True)", "numba",
                                      ("numba",)) from None
        _numba = numba
    return _numba


def _switch(on) -> None:
    """set_context's hook for numba_kernels: import numba and warm its compiler up
    (the first compile of a process sets up LLVM's target, a few hundred ms)."""
    if on is True:
        numba = require_numba()
        f64 = numba.types.Array(numba.types.float64, 1, "C")
        load_kernel(_WARM_UP, (f64, f64))


install_option_hook("numba_kernels", _switch)


def active() -> bool:
    """Whether graphs compiled now use the tier."""
    return _numba is not None and get_context("numba_kernels") is True


def cache_folder() -> pathlib.Path:
    """Where generated kernels and numba's cache of them live."""
    d = get_context("numba_cache_dir")
    if d is None:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"),
                                                                ".cache")
        return pathlib.Path(base) / "graphjit" / "numba"
    return pathlib.Path(d)


def load_kernel(source: str, argtypes) -> Optional[object]:
    """The numba dispatcher of the function KERNEL_NAME that `source` defines, compiled
    for `argtypes` (numba types; other layouts compile when first called), from the
    disk cache where possible. None if numba cannot compile it."""
    key = hashlib.sha256(source.encode()).hexdigest()[:24]
    disp = _loaded.get(key, False)
    if disp is None:
        return None
    if disp is not False:
        try:
            disp.compile(tuple(argtypes))
        except Exception:        # numba's own failure: the numpy lowering runs the group
            return None
        return disp
    for make in (_from_file, _in_memory):
        disp = make(key, source)
        if disp is None:
            continue
        try:
            disp.compile(tuple(argtypes))
        except Exception as e:   # a cache numba cannot read; numba's own failure
            error = e
            continue
        _loaded[key] = disp
        return disp
    if disp is not None:
        warnings.warn(f"graphjit: numba could not compile a fused kernel "
                      f"({type(error).__name__}: {error}); it runs on numpy",
                      RuntimeWarning, stacklevel=2)
    _loaded[key] = None
    return None


def _from_file(key: str, source: str):
    """The kernel imported from the cache folder, numba's disk cache on; None if the
    folder or numba's cache cannot be used."""
    numba = require_numba()
    try:
        folder = cache_folder()
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"gj_{key}.py"
        try:
            same = path.read_text() == source
        except OSError:
            same = False
        if not same:
            # numba keys its cache on the file's time stamp: write it only when missing
            # or different, whole (another process may be reading it)
            tmp = folder / f".gj_{key}.{os.getpid()}.tmp"
            tmp.write_text(source)
            os.replace(tmp, path)
        name = f"graphjit_numba_{key}"
        module = sys.modules.get(name)
        if module is None or getattr(module, "__file__", None) != str(path):
            spec = importlib.util.spec_from_file_location(name, path)
            module = importlib.util.module_from_spec(spec)
            # numba's cache finds the function's globals by its module's name
            sys.modules[name] = module
            spec.loader.exec_module(module)
        fn = getattr(module, KERNEL_NAME)
        if fn.__code__.co_filename != str(path):
            return None
        return numba.njit(cache=True, **FUNCTION_OPTIONS)(fn)
    except Exception:        # a folder we cannot write, a cache numba cannot locate
        return None


def _in_memory(key: str, source: str):
    """The kernel compiled from the source in memory (no disk cache)."""
    numba = require_numba()
    env: dict = {}
    try:
        exec(compile(source, f"<graphjit-numba-{key}>", "exec"), env)
        return numba.njit(cache=False, **FUNCTION_OPTIONS)(env[KERNEL_NAME])
    except Exception:
        return None
