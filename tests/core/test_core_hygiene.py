"""The core stays pure: standard library imports only (mypy --strict runs over everything in tests/test_lint.py)."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CORE = ROOT / "service" / "core"
CORE_MODULES = sorted(CORE.glob("*.py"))


def imported_top_levels(path: Path) -> set[str]:
    """Top-level names of every absolute import in a module (relative imports stay in the core)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_core_modules_are_found() -> None:
    assert {p.name for p in CORE_MODULES} >= {"__init__.py", "cards.py", "melds.py"}


@pytest.mark.parametrize("path", CORE_MODULES, ids=lambda p: p.name)
def test_core_module_imports_only_the_standard_library(path: Path) -> None:
    outside = imported_top_levels(path) - set(sys.stdlib_module_names) - {"__future__"}
    assert not outside, f"{path.name} imports {sorted(outside)}"


def test_importing_the_core_loads_nothing_outside_the_standard_library() -> None:
    # service/__init__.py builds the web app; the core must not need it, so it is left out here:
    # anything non-standard that the core pulls in, even through a relative import, shows up.
    names = [f"service.core.{p.stem}" for p in CORE_MODULES if p.stem != "__init__"]
    script = (
        "import json, sys, types\n"
        "package = types.ModuleType('service')\n"
        f"package.__path__ = [{str(ROOT / 'service')!r}]\n"
        "sys.modules['service'] = package\n"
        "before = set(sys.modules)\n"
        f"for name in {names!r}: __import__(name)\n"
        "print(json.dumps(sorted(set(sys.modules) - before)))\n"
    )
    run = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=True)
    loaded = json.loads(run.stdout)
    assert set(names) <= set(loaded)
    outside = sorted(
        name
        for name in loaded
        if name.split(".")[0] not in sys.stdlib_module_names and not name.startswith("service.core")
    )
    assert not outside, f"importing the core loaded {outside}"


def test_the_package_says_it_is_typed() -> None:
    """PEP 561: without py.typed in the installed package, mypy treats every import of it as untyped."""
    import tomllib

    assert (ROOT / "service" / "py.typed").is_file()
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "py.typed" in project["tool"]["setuptools"]["package-data"]["service"]
