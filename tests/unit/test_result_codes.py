"""Errors as data: every result the renderer reports names its rule with a documented code.

Strict modes and the pre-commit hooks decide on ``Result.code``, never on message text, so a
result without a code (``unclassified``) would escape them. The goldens cover the rules the
renderer ports; the corpus test (tests/test_corpus.py) checks the same over real manifests.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from renderer.results import Code, Result, RenderError, unsupported
from tests.fuzz.support import render
from tests.test_golden import CASES

RESULTS_PAGE = Path(__file__).parents[2] / "docs" / "results.md"


def _render_case(case: Path) -> list[Result]:
    meta = yaml.safe_load((case / "case.yaml").read_text()) or {}
    config = case / "config.yaml"
    cluster = case / "cluster.yaml"
    extra = {"cluster_state": cluster} if cluster.exists() else {}
    if meta.get("companions") is not None:
        extra["companions"] = meta["companions"]
    if meta.get("operatorRelease") is not None:
        extra["operator_release"] = meta["operatorRelease"]
    run = render(
        [case / "input.yaml"],
        namespace=meta.get("namespace"),
        keep_sources=bool(meta.get("keepSources", False)),
        lws=meta.get("lws"),
        config=config if config.exists() else None,
        **extra,
    )
    return run.results


@pytest.mark.parametrize("case", CASES, ids=[f"{c.parent.name}/{c.name}" for c in CASES])
def test_golden_results_carry_a_rule_code(case: Path) -> None:
    unclassified = [r.line() for r in _render_case(case) if r.code is Code.UNCLASSIFIED]
    assert not unclassified


def test_error_goldens_report_the_expected_families() -> None:
    """The refusing goldens between them exercise every family of error the renderer reports."""
    codes = {r.code for case in CASES if (case / "errors.txt").exists() for r in _render_case(case) if r.is_error}
    assert {Code.SCHEMA, Code.UNKNOWN_FIELD, Code.WEBHOOK, Code.RENDER, Code.UNSUPPORTED, Code.INPUT} <= codes


def test_a_render_error_takes_the_code_of_the_stage_that_catches_it() -> None:
    assert RenderError("boom").to_result().code is Code.RENDER
    assert RenderError("boom").to_result(stage=Code.CONVERSION).code is Code.CONVERSION
    assert unsupported("spec.x").to_result(stage=Code.CONVERSION).code is Code.UNSUPPORTED


def test_every_code_is_documented() -> None:
    documented = set(re.findall(r"^\| `([a-z-]+)` \|", RESULTS_PAGE.read_text(), flags=re.M))
    assert {code.value for code in Code} <= documented


def _results_without_a_code(root: Path) -> list[str]:
    """Every ``Result(...)`` call in a package's source that does not name its ``code``."""
    import ast

    missing = []
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id == "Result"
                and not any(keyword.arg in ("code", None) for keyword in node.keywords)
            ):
                missing.append(f"{path.relative_to(root.parent)}:{node.lineno}")
    return missing


@pytest.mark.parametrize("package", ["renderer", "plugin"])
def test_every_result_names_its_code(package: str) -> None:
    # The renderer's and the front ends' own results (settings, files, the CMP and KRM wire
    # formats, hydrate writes) name their family too, so no producer falls back to unclassified.
    assert _results_without_a_code(Path(__file__).parents[2] / package) == []
