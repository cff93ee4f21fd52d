"""Optional extras: a fresh machine without them runs the README's test command, and
importing an optional part without its extra says which extra and how to install it."""
import importlib.machinery
import pathlib
import re
import subprocess
import sys
import textwrap

import pytest

from optional import EXTRA_DIRS

from graphjit.extras import EXTRAS

TESTS = pathlib.Path(__file__).parent
ROOT = TESTS.parent

# import names of what pyproject.toml installs, or that the tests import
DEPENDENCIES = {"numpy", "typing_extensions", "pytest", "hypothesis", "graphjit", "google",
                "ml_dtypes", "numba"} | {m.split(".")[0] for ms in EXTRAS.values() for m in ms}


def test_no_test_folder_is_named_like_a_package_it_tests_against():
    """pytest puts tests/ on sys.path, so tests/onnx/ would be found by `import onnx`
    (a namespace package) when the real onnx is not installed."""
    outside = [p for p in sys.path if pathlib.Path(p or ".").resolve() != TESTS.resolve()]
    for folder in (p for p in TESTS.iterdir() if p.is_dir() and p.name != "__pycache__"):
        assert folder.name not in DEPENDENCIES, f"tests/{folder.name}/ shadows a dependency"
        spec = importlib.machinery.PathFinder.find_spec(folder.name, outside)
        assert spec is None or spec.origin is None and not spec.submodule_search_locations, \
            f"tests/{folder.name}/ shadows the installed module {folder.name}"


def _import_without(part: str, hidden: str):
    code = textwrap.dedent(f"""
        import sys
        sys.modules[{hidden!r}] = None      # as if the package were not installed
        import {part}
    """)
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)


@pytest.mark.parametrize("part, extra, hidden", [
    ("graphjit.onnx", "onnx", "onnx"),
    ("graphjit.onnx", "onnx", "onnxruntime"),
    ("graphjit.distributed", "distributed", "dask"),
    ("graphjit.distributed", "distributed", "distributed"),
])
def test_importing_an_optional_part_without_its_extra_names_the_extra(part, extra, hidden):
    run = _import_without(part, hidden)
    assert run.returncode != 0
    last = run.stderr.strip().splitlines()[-1]
    assert last.startswith("ModuleNotFoundError: "), run.stderr
    assert f"{part} needs the optional extra '{extra}'" in last
    assert re.search(rf"\(not installed: [^)]*'{hidden}'", last), last
    assert f"pip install -e '.[{extra}]'" in last           # the README's command


def test_the_readme_gives_the_install_command_the_message_gives():
    readme = (ROOT / "README.md").read_text()
    for extra in ("onnx", "distributed"):
        assert f"pip install -e '.[{extra}]'" in readme


def test_every_test_of_an_extra_is_marked_for_cis_second_phase():
    """A test file that skips without an extra's module is marked `extra` (or sits in a
    folder conftest.py marks), so `.ci/run`'s `pytest -m extra` runs it."""
    modules = "|".join(re.escape(m) for ms in EXTRAS.values() for m in ms)
    skips = re.compile(rf"""(importorskip|require)\(\s*["']({modules}|graphjit\.(onnx|distributed|communication))\b""")
    unmarked = []
    for path in TESTS.rglob("test_*.py"):
        folder = path.relative_to(TESTS).parts[0]
        text = path.read_text()
        if folder not in EXTRA_DIRS and skips.search(text) and "mark.extra" not in text:
            unmarked.append(str(path.relative_to(ROOT)))
    assert not unmarked, f"mark these with @pytest.mark.extra(NAME): {unmarked}"


def test_every_test_importing_an_optional_part_requires_its_extra():
    """A test module that imports graphjit.onnx or graphjit.distributed skips without the
    extra (require/importorskip), so the README's command passes on a fresh machine."""
    parts = {"graphjit.onnx": "onnx", "graphjit.distributed": "distributed"}
    missing = []
    for path in TESTS.rglob("test_*.py"):
        text = path.read_text()
        for part, extra in parts.items():
            uses = re.search(rf"^\s*(import {re.escape(part)}\b|from {re.escape(part)}\b)",
                             text, re.M)
            guarded = re.search(rf"""(require|importorskip)\(\s*["']({'|'.join(
                re.escape(m) for m in EXTRAS[extra])}|{re.escape(part)})""", text)
            if uses and not guarded:
                missing.append(f"{path.relative_to(ROOT)} ({part})")
    assert not missing, f"these import an optional part without require(...): {missing}"
