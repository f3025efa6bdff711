"""Objects the API server would refuse are errors in every front end, never output or a report line.

The attack: a ConfigMap whose name holds a pipe, a fake totals line and ``<!--`` passes through
the render unchanged and lands in the change report, where it forges a table row and hides
what follows. The API server refuses such a name (and a kind, namespace or label key like it),
so no cluster could hold the object: each is an error with its field, in render, validate
(a file without Dynamo objects included), the KRM function, the CMP and diff (the KRM function
refuses names only: it passes other items on exactly as written).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.builders import CHAT_DGD

CLI = str(Path(sys.executable).parent / "dynamo-render")
DGD = CHAT_DGD.format(image="registry.example/runtime:1.5.0")

FORGED = "cm|GPUs: 2 -> 2 (+0)|<!--"
CASES = {
    "configmap-name-forges-a-table-row": ({"kind": "ConfigMap", "metadata": {"name": FORGED, "namespace": "llm"}}, "metadata.name"),
    "kind-with-a-pipe": ({"kind": "Config|Map", "metadata": {"name": "cm", "namespace": "llm"}}, "kind"),
    "namespace-with-a-comment": ({"kind": "ConfigMap", "metadata": {"name": "cm", "namespace": "llm<!--"}}, "metadata.namespace"),
    "label-key-with-a-space": ({"kind": "ConfigMap", "metadata": {"name": "cm", "namespace": "llm", "labels": {"a b": "c"}}}, "metadata.labels[a b]"),
    "label-value-with-a-mention": ({"kind": "ConfigMap", "metadata": {"name": "cm", "namespace": "llm", "labels": {"a": "@admin"}}}, "metadata.labels[a]"),
    "api-version-with-a-link": ({"apiVersion": "[x](https://evil.example)/v1", "kind": "ConfigMap", "metadata": {"name": "cm", "namespace": "llm"}}, "apiVersion"),
    "metadata-not-an-object": ({"kind": "ConfigMap", "metadata": "c"}, "metadata"),
    "secret-data-a-map": ({"kind": "Secret", "metadata": {"name": "s", "namespace": "llm"}, "data": {"k": {"a": "b"}}}, "data[k]"),
}


# Shapes rather than names: the KRM function passes items it does not render on exactly as written
# (the kyaml rule), and refuses there only names no cluster could hold.
SHAPES = {"metadata-not-an-object", "secret-data-a-map"}


def _object(case: str) -> dict[str, object]:
    obj, _ = CASES[case]
    return {"apiVersion": "v1", "data": {"a": "b"}, **obj}


def _errors(text: str) -> list[str]:
    return [line for line in text.splitlines() if "[error]" in line]


@pytest.mark.parametrize("case", sorted(CASES))
def test_an_object_the_api_server_refuses_is_an_error_in_every_front_end(case: str, tmp_path: Path) -> None:
    field = CASES[case][1]
    app = tmp_path / "app"
    app.mkdir()
    (app / "chat.yaml").write_text(DGD)
    (app / "other.yaml").write_text(yaml.safe_dump(_object(case)))
    env = {**os.environ, "ARGOCD_APP_NAME": "a", "ARGOCD_APP_NAMESPACE": "llm"}
    resource_list = json.dumps({"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList",
                                "items": [yaml.safe_load(DGD), _object(case)]})
    runs = {
        "render": subprocess.run([CLI, "render", str(app)], capture_output=True, text=True, check=False),
        # the refused object sits in a file of its own, which holds no Dynamo object
        "validate": subprocess.run([CLI, "validate", str(app / "chat.yaml"), str(app / "other.yaml")], capture_output=True, text=True, check=False),
        "krm": subprocess.run([CLI, "krm"], input=resource_list, capture_output=True, text=True, check=False),
        "cmp": subprocess.run([CLI, "cmp", "generate"], cwd=app, env=env, capture_output=True, text=True, check=False),
        "diff": subprocess.run([CLI, "diff", "-o", "markdown", str(app / "chat.yaml"), str(app)], capture_output=True, text=True, check=False),
    }
    if case in SHAPES:
        assert runs.pop("krm").returncode == 0
    for name, done in runs.items():
        assert done.returncode == 1, (name, done.stdout, done.stderr)
        errors = _errors(done.stdout + done.stderr)
        assert any(f" {field}" in line for line in errors), (name, errors)
        if name in ("render", "cmp", "diff"):
            assert done.stdout == "", name
