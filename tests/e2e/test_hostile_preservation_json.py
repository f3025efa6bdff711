"""Malformed JSON in a preservation annotation is one error line (exit 1), never an internal error (exit 3).

The spec preservation annotations (``nvidia.com/dcd-spec``, ``nvidia.com/dgd-spec``) are JSON
inside a string, which no schema checks before dynamo-render reads them. The fuzz takes the
annotations ``convert --as-stored`` writes for the v1alpha1 golden DCD and DGD, one a v1alpha1
DCD carries for its v1beta1 spec, and one with an EPP plugin's free-form parameters, and puts
every JSON type (null, booleans, numbers, a 5,000-digit integer, strings, arrays, objects,
arrays and objects holding null) at every position, in render, validate and convert. The two
inputs that crashed every front end — a label set to null and a label value that is a
5,000-digit number — are run through render, validate, convert, the KRM function and the CMP
as the tools run them.
"""

from __future__ import annotations

import copy
import io
import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from plugin.commands import guarded
from plugin.frontends.convert import run_stream
from plugin.frontends.precommit_validate import run as validate
from plugin.frontends.render import run as render

ROOT = Path(__file__).resolve().parents[2]
CLI = str(Path(sys.executable).parent / "dynamo-render")
BIG = "9" * 5000
TYPES: list[Any] = [None, True, False, 0, -1, 1.5, "<big>", "", "x", [], {}, [None], {"a": None}]


def _stored(golden: str) -> dict[str, Any]:
    """The v1beta1 object convert writes for a golden v1alpha1 input, preservation annotations in full."""
    out = io.StringIO()
    assert run_stream([str(ROOT / "tests" / "golden" / "v1alpha1" / golden / "input.yaml")], "yaml", out, io.StringIO(), as_stored=True) == 0
    doc: dict[str, Any] = yaml.safe_load(out.getvalue())
    return doc


def _alpha_with_hub_annotation() -> dict[str, Any]:
    doc: dict[str, Any] = yaml.safe_load((ROOT / "tests" / "golden" / "v1alpha1" / "dcd-single-node" / "input.yaml").read_text())
    hub = {
        "version": 1,
        "spec": {
            "backendFramework": "vllm", "name": "vllm-worker", "type": "worker", "replicas": 1,
            "podTemplate": {
                "metadata": {"labels": {"a": "b"}, "annotations": {"c": "d"}},
                "spec": {"containers": [{"name": "main", "image": "x", "env": [{"name": "A", "value": "b"}], "ports": [{"containerPort": 80}]}]},
            },
        },
        "rawJSON": [{"path": "serviceName", "nil": True}],
    }
    doc["metadata"]["annotations"] = {"nvidia.com/dcd-spec": json.dumps(hub)}
    return doc


def _epp_parameters() -> dict[str, Any]:
    doc: dict[str, Any] = yaml.safe_load((ROOT / "tests" / "golden" / "dgd" / "dcd-frontend-and-untyped" / "input.yaml").read_text())
    spec = {"version": 1, "spec": {"services": {"service1": {"eppConfig": {"config": {"plugins": [{"type": "x", "parameters": {"n": 1, "s": "v"}}]}}}}}}
    doc["metadata"]["annotations"] = {"nvidia.com/dgd-spec": json.dumps(spec)}
    return doc


SEEDS: dict[str, Callable[[], dict[str, Any]]] = {
    "v1beta1-dcd": lambda: _stored("dcd-single-node"),
    "v1beta1-dgd": lambda: _stored("dgd-single-node"),
    "v1alpha1-dcd": _alpha_with_hub_annotation,
    "epp-parameters": _epp_parameters,
}


def _positions(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield path
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _positions(item, (*path, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _positions(item, (*path, i))


def _put(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    out = copy.deepcopy(value)
    here = out
    for key in path[:-1]:
        here = here[key]
    here[path[-1]] = new
    return out


def _text(value: Any) -> str:
    return json.dumps(value).replace('"<big>"', BIG)


def _annotation_key(doc: dict[str, Any]) -> str:
    return next(k for k in doc["metadata"]["annotations"] if k.endswith("-spec"))


FRONT_ENDS: dict[str, Callable[[str, io.StringIO, io.StringIO], int]] = {
    "render": lambda path, out, err: render([path], {}, out, err),
    "validate": lambda path, out, err: validate([path], {}, err),
    "convert": lambda path, out, err: run_stream([path], "yaml", out, err),
}


@pytest.mark.slow
@pytest.mark.parametrize("seed", sorted(SEEDS))
def test_every_json_type_at_every_position_of_a_preservation_annotation(seed: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    doc = SEEDS[seed]()
    key = _annotation_key(doc)
    annotation = json.loads(doc["metadata"]["annotations"][key])
    path = str(tmp_path / "case.yaml")
    crashes: list[str] = []
    tried = 0
    for position in _positions(annotation):
        for value in TYPES:
            case = copy.deepcopy(doc)
            case["metadata"]["annotations"][key] = _text(_put(annotation, position, value))
            Path(path).write_text(yaml.safe_dump(case, width=1 << 20))
            for name, run in FRONT_ENDS.items():
                out, err = io.StringIO(), io.StringIO()
                monkeypatch.setattr(sys, "stderr", err)
                code = guarded(lambda: run(path, out, err))
                monkeypatch.setattr(sys, "stderr", sys.__stderr__)
                tried += 1
                lines = err.getvalue().splitlines()
                if code not in (0, 1) or "Traceback" in err.getvalue() or any(not line.startswith(path) for line in lines):
                    crashes.append(f"{name} {position} {value!r:.20}: exit {code}: {lines[-1:] }")
    assert tried > 300
    assert crashes == [], "\n".join(crashes[:10])


def _malformed(tmp_path: Path, label: str) -> Path:
    doc = _stored("dcd-single-node")
    annotation = json.loads(doc["metadata"]["annotations"]["nvidia.com/dcd-spec"])
    annotation["spec"]["labels"] = {"team": "<label>"}
    doc["metadata"]["annotations"]["nvidia.com/dcd-spec"] = json.dumps(annotation).replace('"<label>"', label)
    app = tmp_path / "app"
    app.mkdir()
    (app / "dcd.yaml").write_text(yaml.safe_dump(doc, width=1 << 20))
    return app / "dcd.yaml"


@pytest.mark.parametrize(
    ("label", "says"),
    [("null", "null at spec.labels.team"), (BIG, "the number at spec.labels.team has 5000 digits")],
    ids=["null-label", "5000-digit-label"],
)
def test_a_malformed_label_in_the_annotation_is_one_error_in_every_front_end(label: str, says: str, tmp_path: Path) -> None:
    path = _malformed(tmp_path, label)
    env = {**os.environ, "ARGOCD_APP_NAME": "a", "ARGOCD_APP_NAMESPACE": "ns"}
    item = yaml.safe_load(path.read_text())
    resource_list = json.dumps({"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": [item]})
    runs = {
        "render": subprocess.run([CLI, "render", str(path)], capture_output=True, text=True, check=False),
        "validate": subprocess.run([CLI, "validate", str(path)], capture_output=True, text=True, check=False),
        "krm": subprocess.run([CLI, "krm"], input=resource_list, capture_output=True, text=True, check=False),
        "cmp": subprocess.run([CLI, "cmp", "generate"], cwd=path.parent, env=env, capture_output=True, text=True, check=False),
    }
    for name, done in runs.items():
        errors = [line for line in (done.stdout + done.stderr).splitlines() if "[error]" in line or "Traceback" in line]
        assert done.returncode == 1, (name, done.stderr)
        assert len(errors) == 1 and says in errors[0] and "metadata.annotations[nvidia.com/dcd-spec]" in errors[0], (name, errors)
    # convert of the v1alpha1 object the annotation came back as: the same one error
    alpha = _alpha_with_hub_annotation()
    hub = json.loads(alpha["metadata"]["annotations"]["nvidia.com/dcd-spec"])
    hub["spec"]["podTemplate"]["metadata"]["labels"] = {"a": "<label>"}
    alpha["metadata"]["annotations"]["nvidia.com/dcd-spec"] = json.dumps(hub).replace('"<label>"', label)
    source = tmp_path / "alpha.yaml"
    source.write_text(yaml.safe_dump(alpha, width=1 << 20))
    done = subprocess.run([CLI, "convert", str(source)], capture_output=True, text=True, check=False)
    errors = [line for line in done.stderr.splitlines() if line.strip()]
    assert done.returncode == 1 and len(errors) == 1 and "spec.podTemplate.metadata.labels.a" in errors[0], done.stderr
