"""Optional extras: one message, everywhere, when one is missing.

graphjit's core needs numpy only. A part that needs more (ONNX, Dask, MPI) is an
optional extra of the package, and importing that part without it raises a
`ModuleNotFoundError` (an ImportError) that names the extra and the command that
installs it, the one the README gives:

    >>> import graphjit.onnx          # without onnx installed
    ModuleNotFoundError: graphjit.onnx needs the optional extra 'onnx' (not installed:
    'onnx', 'onnxruntime'). Install it with: pip install -e '.[onnx]' ...
"""
from __future__ import annotations

import importlib

# extra -> the modules it installs that graphjit imports (pyproject.toml's extras)
EXTRAS = {
    "onnx": ("onnx", "onnxruntime"),
    "distributed": ("dask", "dask.array", "distributed"),
    "mpi": ("mpi4py",),
    "numba": ("numba",),
}


def install_hint(extra: str) -> str:
    """The README's install command for an extra (from a source checkout), and the
    same for an installed wheel."""
    return f"pip install -e '.[{extra}]' (in graphjit's source folder, as the README " \
           f"says), or pip install 'graphjit[{extra}]'"


def missing_extra_error(part: str, extra: str, modules) -> ModuleNotFoundError:
    """The error for `part` (e.g. 'graphjit.onnx') without the packages `modules`."""
    names = ", ".join(f"'{m}'" for m in modules)
    error = ModuleNotFoundError(
        f"{part} needs the optional extra '{extra}' (not installed: {names}). "
        f"Install it with: {install_hint(extra)}")
    error.name = modules[0]
    return error


def require_extra(part: str, extra: str) -> None:
    """Import every module of `extra`, or raise the error that names the extra and
    every package of it that is missing.

    Only a missing package of the extra itself is reported this way; any other
    ImportError (a broken install, graphjit's own code) is raised as it is.
    """
    tops = {m.split(".")[0] for m in EXTRAS[extra]}
    missing = []
    for module in EXTRAS[extra]:
        if module.split(".")[0] in missing:
            continue
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as e:
            top = (e.name or "").split(".")[0]
            if top not in tops:
                raise
            missing.append(top)
    if missing:
        raise missing_extra_error(part, extra, missing)
