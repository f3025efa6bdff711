"""``convert`` never drops a preserved member that some operator configuration reads (issue 40 §1).

A v1alpha1 frontend whose ingress asks for an Istio VirtualService renders none under the Helm
defaults (the operator reconciles VirtualServices only when its configuration names a gateway,
internal/dynamo/graph.go GenerateComponentVirtualService). A check run only under the defaults
would leave the preserved ingress out, and the converted file would lose the VirtualService
on every cluster whose operator sets ``ingress.virtualServiceGateway``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]

FRONTEND = """\
apiVersion: nvidia.com/v1alpha1
kind: DynamoComponentDeployment
metadata:
  name: someservice-frontend
  namespace: llm
spec:
  serviceName: Frontend
  componentType: frontend
  dynamoNamespace: someservice
  replicas: 1
  ingress:
    enabled: true
    host: someservice
    useVirtualService: true
    virtualServiceGateway: istio-system/ingress-alb
  extraPodSpec:
    mainContainer:
      image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.4.0
"""

GATEWAY_CONFIG = """\
apiVersion: operator.config.dynamo.nvidia.com/v1alpha1
kind: OperatorConfiguration
ingress:
  virtualServiceGateway: istio-system/ingress-alb
mpi:
  sshSecretName: mpi-run-ssh-secret
  sshSecretNamespace: dynamo-system
rbac:
  plannerClusterRoleName: dynamo-platform-dynamo-operator-planner
  dgdrProfilingClusterRoleName: dynamo-platform-dynamo-operator-dgdr-profiling
  eppClusterRoleName: dynamo-platform-dynamo-operator-epp
"""


def _cli(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "plugin", *args], cwd=cwd, env=env, capture_output=True, text=True, check=False)


def _kinds(text: str) -> list[str]:
    return sorted(f"{d['kind']}/{d['metadata']['name']}" for d in yaml.safe_load_all(text) if d)


def test_a_virtual_service_only_a_gateway_config_renders_survives_conversion(tmp_path: Path) -> None:
    (tmp_path / "frontend.yaml").write_text(FRONTEND)
    (tmp_path / "operator-config.yaml").write_text(GATEWAY_CONFIG)
    done = _cli(tmp_path, "convert", "frontend.yaml")
    assert done.returncode == 0, done.stderr
    (tmp_path / "converted.yaml").write_text(done.stdout)
    [converted] = list(yaml.safe_load_all(done.stdout))
    assert "ingress" in converted["metadata"]["annotations"]["nvidia.com/dcd-spec"]
    original = _cli(tmp_path, "render", "--operator-config", "operator-config.yaml", "frontend.yaml")
    again = _cli(tmp_path, "render", "--operator-config", "operator-config.yaml", "converted.yaml")
    assert original.returncode == again.returncode == 0, original.stderr + again.stderr
    assert "VirtualService/someservice-frontend" in _kinds(original.stdout)
    assert again.stdout == original.stdout


def test_the_info_line_says_which_configuration_reads_the_kept_member(tmp_path: Path) -> None:
    (tmp_path / "frontend.yaml").write_text(FRONTEND)
    done = _cli(tmp_path, "convert", "frontend.yaml")
    lines = [line for line in done.stderr.splitlines() if "keeps nvidia.com/dcd-spec" in line]
    assert len(lines) == 1, done.stderr
    assert "ingress" in lines[0] and "ingress.virtualServiceGateway" in lines[0], lines[0]


def test_the_defaults_render_of_the_converted_file_is_unchanged(tmp_path: Path) -> None:
    (tmp_path / "frontend.yaml").write_text(FRONTEND)
    done = _cli(tmp_path, "convert", "frontend.yaml")
    (tmp_path / "converted.yaml").write_text(done.stdout)
    assert _cli(tmp_path, "render", "converted.yaml").stdout == _cli(tmp_path, "render", "frontend.yaml").stdout
