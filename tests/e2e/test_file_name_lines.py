"""A line break in a source file name never splits a problem line (issue 18).

Every front end that names files in its problem lines (render, the CMP, validate) writes the
name on one line, with the break escaped, so each problem stays one line that tools can parse.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from plugin.frontends import cmp, precommit_validate
from plugin.frontends import render as render_frontend

BAD = {
    "apiVersion": "nvidia.com/v1beta1",
    "kind": "DynamoComponentDeployment",
    "metadata": {"name": "front", "namespace": "llm"},
    "spec": {"type": "frontend", "podTemplate": {"spec": {"containers": [{"name": "main", "image": "x", "env": [{"name": "", "value": "x"}]}]}}},
}
NAME = "deploy\nnext.yaml"


def _render(folder: Path) -> str:
    out, err = io.StringIO(), io.StringIO()
    code = render_frontend.run([str(folder)], {}, out, err)
    assert code == 1 and out.getvalue() == ""
    return err.getvalue()


def _cmp(folder: Path) -> str:
    out, err = io.StringIO(), io.StringIO()
    assert cmp.generate(str(folder), {}, out, err) == 1
    assert out.getvalue() == ""
    return err.getvalue()


def _validate(folder: Path) -> str:
    out = io.StringIO()
    assert precommit_validate.run([str(folder / NAME)], {}, out, env={}) == 1
    return out.getvalue()


@pytest.mark.parametrize("front_end", [_render, _cmp, _validate], ids=["render", "cmp", "validate"])
def test_a_line_break_in_a_file_name_stays_on_the_problem_line(front_end: object, tmp_path: Path) -> None:
    (tmp_path / NAME).write_text(json.dumps(BAD))
    text = front_end(tmp_path)  # type: ignore[operator]
    problems = [line for line in text.splitlines() if "env[0].name" in line]
    assert len(problems) == 1, text
    assert "deploy\\nnext.yaml" in problems[0], text
    assert not any(line.startswith("next.yaml") for line in text.splitlines()), text
