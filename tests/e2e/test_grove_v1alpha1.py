"""A converted v1alpha1 DGD on the Grove pathway: preserved component data is applied, as the operator does.

The operator's Grove pathway reads a component's preserved v1alpha1 labels, annotations,
sub-component type and (frontends) ingress (internal/dynamo/graph.go getDGDAlphaComponent);
the golden cases ``tests/golden/grove/v1alpha1-preserved-*`` pin the objects. Here, through the
installed command: the data reaches the PodCliqueSet and nothing warns that it was dropped.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import yaml

DGD = """\
apiVersion: nvidia.com/v1alpha1
kind: DynamoGraphDeployment
metadata:
  name: chat
  namespace: llm
spec:
  services:
    Frontend:
      componentType: frontend
{extra}      extraPodSpec:
        mainContainer:
          image: registry.example/runtime:1.5.0
"""

CONFIG = """\
apiVersion: config.dynamo-render.dev/v1alpha1
kind: DynamoRenderConfig
spec:
  gates:
    grove: true
{strict}"""


def _render(tmp_path: Path, extra: str, strict: bool = False) -> subprocess.CompletedProcess[str]:
    (tmp_path / "dgd.yaml").write_text(DGD.format(extra=extra))
    (tmp_path / "config.yaml").write_text(CONFIG.format(strict="  strict: true\n" if strict else ""))
    exe = Path(sys.executable).with_name("dynamo-render")
    return subprocess.run(
        [str(exe), "render", "--config", str(tmp_path / "config.yaml"), str(tmp_path / "dgd.yaml")],
        capture_output=True, text=True, check=False,
    )


def _clique(stdout: str) -> dict[str, object]:
    (pcs,) = [d for d in yaml.safe_load_all(stdout) if d and d.get("kind") == "PodCliqueSet"]
    (clique,) = pcs["spec"]["template"]["cliques"]
    assert isinstance(clique, dict)
    return clique


def test_preserved_labels_annotations_and_sub_component_type_reach_the_clique(tmp_path: Path) -> None:
    run = _render(tmp_path, "      subComponentType: gateway\n      labels: {team: a}\n      annotations: {note: b}\n", strict=True)
    assert run.returncode == 0, run.stderr
    clique = _clique(run.stdout)
    labels, annotations = clique["labels"], clique["annotations"]
    assert isinstance(labels, dict) and isinstance(annotations, dict)
    assert labels["team"] == "a"
    assert labels["nvidia.com/dynamo-sub-component-type"] == "gateway"
    assert annotations["note"] == "b"
    assert "Grove pathway" not in run.stderr


def test_no_sub_component_type_label_without_one(tmp_path: Path) -> None:
    run = _render(tmp_path, "")
    assert run.returncode == 0, run.stderr
    labels = _clique(run.stdout)["labels"]
    assert isinstance(labels, dict)
    assert "nvidia.com/dynamo-sub-component-type" not in labels
