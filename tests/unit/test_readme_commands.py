"""The README's test command is the one CI runs (issue 38 §4): one command, two places."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _test_command(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if re.search(r"\.venv/bin/python -m pytest\b", line)]


def test_ci_runs_the_readme_test_command() -> None:
    readme = _test_command((ROOT / "README.md").read_text())
    ci = _test_command((ROOT / ".ci" / "run").read_text())
    assert len(readme) == 1, readme
    assert ci == readme, f"README: {readme}\n.ci/run: {ci}"


def test_the_suite_runs_on_both_cores() -> None:
    (command,) = _test_command((ROOT / "README.md").read_text())
    assert re.search(r"pytest -q -n 2\b", command), command
