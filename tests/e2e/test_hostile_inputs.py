"""Inputs a repository author controls never make a traceback or an unbounded cost.

Each case goes through every front end it can reach (render, KRM, CMP, validate); the run
either succeeds or fails with one line per problem, and the KRM function always answers with
a ResourceList.
"""

from __future__ import annotations

import io
import json
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from plugin.frontends import cmp, krm, precommit_validate
from plugin.frontends import render as render_frontend
from tests.builders import dcd

BIG = "1" * 4301


def run_render(text: str, tmp_path: Path, name: str = "input.yaml") -> tuple[int, str, str]:
    path = tmp_path / name
    path.write_text(text)
    out, err = io.StringIO(), io.StringIO()
    code = render_frontend.run([str(path)], {}, out, err)
    return code, out.getvalue(), err.getvalue()


def run_cmp(text: str, tmp_path: Path, name: str = "input.yaml") -> tuple[int, str, str]:
    app = tmp_path / "app"
    app.mkdir(exist_ok=True)
    (app / name).write_text(text)
    out, err = io.StringIO(), io.StringIO()
    return cmp.generate(str(app), {}, out, err), out.getvalue(), err.getvalue()


def run_validate(text: str, tmp_path: Path, name: str = "input.yaml") -> tuple[int, str, str]:
    path = tmp_path / name
    path.write_text(text)
    out = io.StringIO()
    return precommit_validate.run([str(path)], {}, out), "", out.getvalue()


def run_krm(data: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = krm.run_resource_list(data.encode(), out, err)
    # (PyYAML cannot read the 4301-digit number the function passes through as it was written)
    assert "kind: ResourceList\n" in out.getvalue(), out.getvalue()[:300]
    return code, out.getvalue(), err.getvalue()


def _resource_list_yaml(*documents: str) -> str:
    items = "".join("- " + doc.replace("\n", "\n  ").rstrip() + "\n" for doc in documents)
    return f"apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n{items}"


BIG_INT_CONFIGMAP = f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  namespace: llm\ndata:\n  x: {BIG}\n"


@pytest.mark.parametrize("runner", [run_render, run_cmp, run_validate])
def test_a_4301_digit_integer_is_a_string_as_go_yaml_reads_it(runner: Any, tmp_path: Path) -> None:
    text = BIG_INT_CONFIGMAP + "---\n" + json.dumps(dcd("front", type="frontend"))
    code, stdout, stderr = runner(text, tmp_path)
    assert code == 0, stderr
    if stdout:
        config_map = next(d for d in yaml.safe_load_all(stdout) if d and d["kind"] == "ConfigMap")
        assert config_map["data"]["x"] == BIG


def test_a_4301_digit_integer_through_the_krm_function() -> None:
    code, stdout, stderr = run_krm(_resource_list_yaml(BIG_INT_CONFIGMAP))
    assert code == 0, stderr
    assert BIG in stdout


def test_a_4301_digit_replicas_is_an_error(tmp_path: Path) -> None:
    text = json.dumps(dcd("front", type="frontend")).replace('"type"', f'"replicas": "{BIG}", "type"')
    code, stdout, stderr = run_render(text.replace(f'"{BIG}"', BIG), tmp_path)
    assert code == 1 and stdout == "" and "Traceback" not in stderr


@pytest.mark.parametrize("runner", [run_render, run_cmp, run_validate])
def test_json_nan_is_refused(runner: Any, tmp_path: Path) -> None:
    text = '{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"x": NaN}}\n' + json.dumps(
        {**dcd("front", type="frontend")}
    )
    code, stdout, stderr = runner(text, tmp_path, "input.json")
    assert code == 1, stderr
    assert "NaN" in stderr


def test_deep_json_through_the_krm_function() -> None:
    deep = "[" * 100_000 + "]" * 100_000
    data = '{"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": [{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"x": "a\tb"}, "deep": ' + deep + "}]}"
    out, err = io.StringIO(), io.StringIO()
    code = krm.run_resource_list(data.encode(), out, err)
    assert code == 1 and "Traceback" not in err.getvalue()
    assert out.getvalue().strip(), "the KRM function always answers"


@pytest.mark.parametrize("runner", [run_render, run_cmp])
def test_a_deeply_nested_dockerconfigjson(runner: Any, tmp_path: Path) -> None:
    payload = "[" * 100_000 + "]" * 100_000
    secret = {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": "pull", "namespace": "llm"},
        "type": "kubernetes.io/dockerconfigjson",
        "stringData": {".dockerconfigjson": payload},
    }
    code, stdout, stderr = runner(json.dumps(secret) + "\n" + json.dumps(dcd("front", type="frontend")), tmp_path)
    assert code in (0, 1) and "Traceback" not in stderr


@pytest.mark.parametrize("how", ["deep", "huge"])
def test_argocd_app_parameters_are_bounded(tmp_path: Path, how: str) -> None:
    app = tmp_path / "app"
    app.mkdir()
    (app / "a.yaml").write_text(json.dumps(dcd("front", type="frontend")))
    raw = "[" * 100_000 + "]" * 100_000 if how == "deep" else json.dumps([{"name": "namespace", "string": "x" * 20_000_000}])
    out, err = io.StringIO(), io.StringIO()
    start = time.monotonic()
    assert cmp.generate(str(app), {"ARGOCD_APP_PARAMETERS": raw}, out, err) == 1
    assert out.getvalue() == "" and "ARGOCD_APP_PARAMETERS" in err.getvalue()
    assert time.monotonic() - start < 30


def _nest(root: Path, depth: int) -> Path:
    root.mkdir()
    folder = root
    for _ in range(depth):  # one level at a time: makedirs recurses
        folder = folder / "d"
        folder.mkdir()
    (folder / "a.yaml").write_text(json.dumps(dcd("front", type="frontend")))
    return root


def _remove_nested(root: Path, depth: int) -> None:
    """Remove a tree made by ``_nest`` bottom up (shutil.rmtree, and pytest's clean-up, recurse)."""
    folders = [root]
    for _ in range(depth):
        folders.append(folders[-1] / "d")
    (folders[-1] / "a.yaml").unlink()
    for folder in reversed(folders):
        folder.rmdir()


def test_more_than_a_thousand_nested_folders_render(tmp_path: Path) -> None:
    root = _nest(tmp_path / "deep", 1100)
    out, err = io.StringIO(), io.StringIO()
    try:
        code = render_frontend.run([str(root)], {}, out, err)
    finally:
        _remove_nested(root, 1100)
    assert code == 0, err.getvalue()[:500]
    assert "kind: Deployment" in out.getvalue()


def test_cmp_walks_nested_folders_in_linear_time(tmp_path: Path) -> None:
    """900 levels take about as long per level as 300 (no path re-resolution per entry)."""
    timings = []
    for depth in (300, 900):
        app = _nest(tmp_path / f"app{depth}", depth)
        out, err = io.StringIO(), io.StringIO()
        start = time.monotonic()
        code = cmp.generate(str(app), {}, out, err)
        timings.append(time.monotonic() - start)
        _remove_nested(app, depth)
        assert code == 0, err.getvalue()[:500]
    assert timings[1] < 3 * timings[0] + 2.0, timings
