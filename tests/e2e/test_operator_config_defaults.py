"""``dynamo-render operator-config --defaults``: the Helm chart's OperatorConfiguration, as a file to edit (issue 39 §2).

The document is what a render assumes when no operator configuration is given, so passing it
back changes nothing; a document written from scratch that lacks the fields the chart always
sets is refused with a fix that names this command.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "vllm-agg.yaml"


def _cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "plugin", *args], cwd=cwd, env=env, capture_output=True, text=True, check=False)


def test_the_defaults_document_renders_exactly_as_no_operator_configuration(tmp_path: Path) -> None:
    done = _cli("operator-config", "--defaults")
    assert done.returncode == 0, done.stderr
    config = tmp_path / "operator-config.yaml"
    config.write_text(done.stdout)
    plain = _cli("render", str(EXAMPLE))
    given = _cli("render", "--operator-config", str(config), str(EXAMPLE))
    assert plain.returncode == given.returncode == 0, plain.stderr + given.stderr
    assert given.stdout == plain.stdout and given.stdout


def test_the_defaults_document_is_the_charts_config_map_content() -> None:
    # deploy/helm/charts/platform/components/operator/templates/operator-config.yaml at the
    # reference, with the chart's default values and release dynamo-platform in dynamo-system.
    [doc] = list(yaml.safe_load_all(_cli("operator-config", "--defaults").stdout))
    assert doc["apiVersion"] == "operator.config.dynamo.nvidia.com/v1alpha1" and doc["kind"] == "OperatorConfiguration"
    assert doc["mpi"] == {"sshSecretName": "mpi-run-ssh-secret", "sshSecretNamespace": "dynamo-system"}
    assert doc["rbac"]["eppClusterRoleName"] == "dynamo-platform-dynamo-operator-epp"
    assert doc["server"]["webhook"]["secretName"] == "webhook-server-cert"
    assert doc["leaderElection"] == {"enabled": True, "id": "dynamo.nvidia.com", "namespace": "kube-system"}


def test_the_release_namespace_sets_the_mpi_secret_namespace() -> None:
    [doc] = list(yaml.safe_load_all(_cli("operator-config", "--defaults", "--release-namespace", "llm-platform").stdout))
    assert doc["mpi"]["sshSecretNamespace"] == "llm-platform"


def test_without_defaults_it_is_a_usage_error() -> None:
    done = _cli("operator-config")
    assert done.returncode == 2 and "--defaults" in done.stderr and done.stdout == ""


def test_a_config_written_from_scratch_is_refused_with_the_command_that_fixes_it(tmp_path: Path) -> None:
    config = tmp_path / "operator-config.yaml"
    config.write_text(
        "apiVersion: operator.config.dynamo.nvidia.com/v1alpha1\nkind: OperatorConfiguration\n"
        "orchestrators:\n  grove:\n    enabled: true\n"
    )
    done = _cli("render", "--operator-config", str(config), str(EXAMPLE))
    assert done.returncode == 1 and done.stdout == ""
    lines = done.stderr.splitlines()
    missing = [line for line in lines if "Required value" in line]
    fields = {"mpi.sshSecretName", "mpi.sshSecretNamespace", "rbac.plannerClusterRoleName",
              "rbac.dgdrProfilingClusterRoleName", "rbac.eppClusterRoleName"}
    assert {field for field in fields if any(f" {field}: " in line for line in missing)} == fields, done.stderr
    assert all("dynamo-render operator-config --defaults" in line and line.endswith("[config]") for line in missing), done.stderr
