"""renderer/ stays pure: it never imports the front ends or any I/O module."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

RENDERER = Path(__file__).resolve().parents[2] / "renderer"
FORBIDDEN = {"plugin", "yaml", "ruamel", "click", "kubernetes", "os", "subprocess", "io", "pathlib", "socket", "shutil", "tempfile"}


def _imports(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(), filename=str(path))
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.lineno, node.module))
    return found


FILES = sorted(RENDERER.rglob("*.py"))


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(RENDERER)) for p in FILES])
def test_renderer_module_imports_nothing_impure(path: Path) -> None:
    bad = [(line, name) for line, name in _imports(path) if name.split(".")[0] in FORBIDDEN]
    assert not bad, f"{path.name} imports {bad}"


def test_the_forbidden_check_would_catch_an_impure_import(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text("import os\nfrom plugin.cli import main\nimport renderer.admission.api\n")
    assert [name for _, name in _imports(sample) if name.split(".")[0] in FORBIDDEN] == ["os", "plugin.cli"]


def test_import_linter_contract_holds() -> None:
    root = RENDERER.parent
    proc = subprocess.run([str(Path(sys.executable).parent / "lint-imports")], cwd=root, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
