"""``convert`` refuses to write what it cannot check (issue 39 §1).

The default output promises that rendering it gives what rendering the input gives. An input
that does not render (here the placeholder tag of an upstream recipe) would leave the stored
preservation annotation, a JSON copy of v1alpha1 fields, in the output unchecked: convert
refuses it with the reason and the fix; ``--as-stored`` writes the stored form on purpose.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]

GRAPH = """\
apiVersion: nvidia.com/v1alpha1
kind: DynamoGraphDeployment
metadata:
  name: chat
spec:
  backendFramework: vllm
  services:
    Frontend:
      componentType: frontend
      replicas: 1
      extraPodSpec:
        mainContainer:
          image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:my-tag
    decode:
      componentType: worker
      replicas: 1
      resources:
        limits:
          gpu: "1"
      extraPodSpec:
        mainContainer:
          image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:my-tag
"""


def _convert(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "plugin", "convert", *args], cwd=cwd, env=env, capture_output=True, text=True, check=False)


def test_an_input_that_does_not_render_is_not_converted_and_the_line_names_reason_and_fix(tmp_path: Path) -> None:
    (tmp_path / "graph.yaml").write_text(GRAPH)
    done = _convert(tmp_path, "graph.yaml")
    assert done.returncode == 1 and done.stdout == ""
    [line] = done.stderr.splitlines()
    assert line.startswith("graph.yaml:1: [error] DynamoGraphDeployment/chat: not converted: the v1beta1 object would carry nvidia.com/dgd-spec")
    assert "spec.services[Frontend].runtimeVersionOverride: Required value" in line
    assert 'fix: give the main container image a version tag such as ":1.4.0"' in line
    assert "or pass --as-stored" in line and line.endswith("[conversion]")


def test_in_place_leaves_the_file_as_it_was(tmp_path: Path) -> None:
    path = tmp_path / "graph.yaml"
    path.write_text(GRAPH)
    done = _convert(tmp_path, "--in-place", "graph.yaml")
    assert done.returncode == 1, done.stderr
    assert path.read_text() == GRAPH


def test_following_the_fix_converts_without_the_annotation(tmp_path: Path) -> None:
    (tmp_path / "graph.yaml").write_text(GRAPH.replace("my-tag", "1.4.0"))
    done = _convert(tmp_path, "graph.yaml")
    assert done.returncode == 0, done.stderr
    [doc] = list(yaml.safe_load_all(done.stdout))
    assert doc["apiVersion"] == "nvidia.com/v1beta1"
    assert "nvidia.com/dgd-spec" not in (doc["metadata"].get("annotations") or {})


def test_as_stored_writes_the_stored_form_on_purpose(tmp_path: Path) -> None:
    (tmp_path / "graph.yaml").write_text(GRAPH)
    done = _convert(tmp_path, "--as-stored", "graph.yaml")
    assert done.returncode == 0, done.stderr
    [doc] = list(yaml.safe_load_all(done.stdout))
    assert "nvidia.com/dgd-spec" in doc["metadata"]["annotations"]
