"""A converted v1alpha1 DGD on the Grove pathway: preserved component data is never dropped silently.

The Grove renderer does not apply a v1alpha1 component's preserved labels, annotations,
sub-component type, Dynamo namespace or ingress yet (the operator does); each such component gets
a warning naming the fields, and ``strict`` turns it into an error.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

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


def test_preserved_labels_and_annotations_are_named_in_a_warning(tmp_path: Path) -> None:
    run = _render(tmp_path, "      labels: {team: a}\n      annotations: {note: b}\n")
    assert run.returncode == 0, run.stderr
    assert "kind: PodCliqueSet" in run.stdout
    (line,) = [l for l in run.stderr.splitlines() if "Grove pathway" in l]
    assert "[warning] DynamoGraphDeployment/chat" in line
    assert "preserved v1alpha1 labels, annotations of this component are not applied" in line


def test_no_warning_without_preserved_component_data(tmp_path: Path) -> None:
    run = _render(tmp_path, "")
    assert run.returncode == 0, run.stderr
    assert "Grove pathway" not in run.stderr


def test_strict_makes_it_an_error(tmp_path: Path) -> None:
    run = _render(tmp_path, "      labels: {team: a}\n", strict=True)
    assert run.returncode == 1
    assert run.stdout == ""
    assert "not applied on the Grove pathway" in run.stderr
