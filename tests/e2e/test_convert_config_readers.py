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

import pytest
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


# The frontend again, as a service of a graph: the Grove pathway renders a graph as a
# PodCliqueSet, and reads its preserved ingress there too.
GRAPH = """\
apiVersion: nvidia.com/v1alpha1
kind: DynamoGraphDeployment
metadata:
  name: chat
  namespace: llm
spec:
  services:
    Frontend:
      componentType: frontend
      replicas: 1
      ingress:
        enabled: true
        host: someservice
        useVirtualService: true
        virtualServiceGateway: istio-system/ingress-alb
      extraPodSpec:
        mainContainer:
          image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.4.0
    VllmDecodeWorker:
      componentType: worker
      replicas: 1
      resources:
        limits:
          gpu: "1"
      extraPodSpec:
        mainContainer:
          image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.4.0
          command: ["python3", "-m", "dynamo.vllm"]
"""

GROVE_CONFIG = GATEWAY_CONFIG.replace(
    "ingress:\n  virtualServiceGateway: istio-system/ingress-alb\n", "orchestrators:\n  grove:\n    enabled: true\n"
)
# The three operator configurations of the issue, each with a kind only it renders.
CONFIGURATIONS = {
    "defaults": (None, None),
    "virtual-service-gateway": (GATEWAY_CONFIG, "VirtualService/someservice-frontend"),
    "grove": (GROVE_CONFIG, "PodCliqueSet/chat"),
}


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


@pytest.mark.parametrize("given", [False, True], ids=["converted-plainly", "converted-with-the-configuration"])
@pytest.mark.parametrize("name", sorted(CONFIGURATIONS))
def test_the_converted_file_renders_as_the_original_under_each_configuration(tmp_path: Path, name: str, given: bool) -> None:
    """Rendering the converted file equals rendering the original under the defaults, a gateway and Grove.

    Whether ``convert`` is given the configuration or not: the fixed checks already read every
    preserved member these configurations read.
    """
    config, only_there = CONFIGURATIONS[name]
    (tmp_path / "app.yaml").write_text(FRONTEND + "---\n" + GRAPH)
    flags: list[str] = []
    if config is not None:
        (tmp_path / "operator-config.yaml").write_text(config)
        flags = ["--operator-config", "operator-config.yaml"]
    done = _cli(tmp_path, "convert", *(flags if given else []), "app.yaml")
    assert done.returncode == 0, done.stderr
    (tmp_path / "converted.yaml").write_text(done.stdout)
    assert {d["apiVersion"] for d in yaml.safe_load_all(done.stdout)} == {"nvidia.com/v1beta1"}
    original = _cli(tmp_path, "render", *flags, "app.yaml")
    again = _cli(tmp_path, "render", *flags, "converted.yaml")
    assert original.returncode == again.returncode == 0, original.stderr + again.stderr
    if only_there is not None:
        assert only_there in _kinds(original.stdout)
    assert again.stdout == original.stdout


NAMESPACELESS = """\
apiVersion: nvidia.com/v1alpha1
kind: DynamoComponentDeployment
metadata:
  name: frontend
spec:
  serviceName: Frontend
  componentType: frontend
  dynamoNamespace: default-frontend
  replicas: 1
  extraPodSpec:
    mainContainer:
      image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.4.0
"""

NAMESPACE_CONFIG = """\
apiVersion: config.dynamo-render.dev/v1alpha1
kind: DynamoRenderConfig
spec:
  namespace: llm
"""


def test_a_member_only_the_given_settings_read_is_kept(tmp_path: Path) -> None:
    """A DCD without a namespace whose preserved dynamoNamespace matches the computed one only in ``default``.

    Under the fixed checks (namespace ``default``) the operator computes ``default-frontend``
    itself, so the member changes nothing there; under settings that put the object in ``llm``
    it computes ``llm-frontend``, and only the preserved value keeps the pod label.
    """
    (tmp_path / "frontend.yaml").write_text(NAMESPACELESS)
    (tmp_path / "render-config.yaml").write_text(NAMESPACE_CONFIG)
    plain = _cli(tmp_path, "convert", "frontend.yaml")
    assert plain.returncode == 0, plain.stderr
    assert "annotations" not in yaml.safe_load(plain.stdout)["metadata"]
    done = _cli(tmp_path, "convert", "--config", "render-config.yaml", "frontend.yaml")
    assert done.returncode == 0, done.stderr
    converted = yaml.safe_load(done.stdout)
    assert '"dynamoNamespace":"default-frontend"' in converted["metadata"]["annotations"]["nvidia.com/dcd-spec"]
    assert "dynamoNamespace is read under the given settings" in done.stderr, done.stderr
    (tmp_path / "plain.yaml").write_text(plain.stdout)
    (tmp_path / "converted.yaml").write_text(done.stdout)
    original = _cli(tmp_path, "render", "--config", "render-config.yaml", "frontend.yaml")
    assert _cli(tmp_path, "render", "--config", "render-config.yaml", "converted.yaml").stdout == original.stdout
    # what the check under the given settings prevents
    assert _cli(tmp_path, "render", "--config", "render-config.yaml", "plain.yaml").stdout != original.stdout


def test_the_info_line_says_what_removing_a_kept_dynamo_namespace_does(tmp_path: Path) -> None:
    (tmp_path / "frontend.yaml").write_text(FRONTEND)
    done = _cli(tmp_path, "convert", "frontend.yaml")
    assert done.returncode == 0, done.stderr
    assert ("removing dynamoNamespace rolls every pod: the nvidia.com/dynamo-namespace pod label changes"
            in done.stderr), done.stderr


def test_settings_that_do_not_resolve_stop_the_run(tmp_path: Path) -> None:
    (tmp_path / "frontend.yaml").write_text(FRONTEND)
    (tmp_path / "operator-config.yaml").write_text("apiVersion: operator.config.dynamo.nvidia.com/v1alpha1\nkind: OperatorConfiguration\nbogus: 1\n")
    done = _cli(tmp_path, "convert", "--operator-config", "operator-config.yaml", "frontend.yaml")
    assert done.returncode == 1 and done.stdout == ""
    assert "operator-config.yaml" in done.stderr and "bogus" in done.stderr, done.stderr
