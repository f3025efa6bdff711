"""Checkpoints under operator 1.5.0 (ai-dynamo/dynamo#14076, cherry-picked as #14290).

The PR's facts restated: the DynamoCheckpoint CRD is gone, checkpointRef names a standalone
PodSnapshot and automatic capture runs a SnapshotJob, so an enabled checkpoint under 1.5.0 is
refused as not portable offline; the reference profile keeps its DynamoCheckpoint shaping, and
an operator with checkpoints disabled still forbids the field. The whole-manifest messages are
checked in tests/golden/cluster/checkpoint-snapshot-refused-14076.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest
import yaml

from plugin.frontends.render import run
from plugin.options import given_values
from renderer.admission.snapshot import SNAPSHOT_CHECKPOINTS
from renderer.releases import REFERENCE, RELEASES

CONFIG = """\
apiVersion: config.dynamo-render.dev/v1alpha1
kind: DynamoRenderConfig
spec:
  companions: false
  operatorConfig:
    mpi: {sshSecretName: mpi-run-ssh-secret, sshSecretNamespace: dynamo-system}
    rbac: {plannerClusterRoleName: planner, dgdrProfilingClusterRoleName: dgdr-profiling, eppClusterRoleName: epp}
    checkpoint: {enabled: %s}
"""

DCD = {
    "apiVersion": "nvidia.com/v1beta1",
    "kind": "DynamoComponentDeployment",
    "metadata": {"name": "worker", "namespace": "default"},
    "spec": {
        "backendFramework": "vllm",
        "type": "worker",
        "experimental": {"checkpoint": {"enabled": True, "checkpointRef": "worker-snapshot"}},
        "podTemplate": {"spec": {"containers": [{"name": "main", "image": "nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.5.0",
                                                 "command": ["python3"], "args": ["-m", "dynamo.vllm"]}]}},
    },
}


def _render(tmp_path: Path, release: str, enabled: bool) -> tuple[int, str]:
    source = tmp_path / "input.yaml"
    source.write_text(yaml.safe_dump(DCD))
    config = tmp_path / "config.yaml"
    config.write_text(CONFIG % ("true" if enabled else "false"))
    stdout, stderr = io.StringIO(), io.StringIO()
    code = run([str(source)], given_values(dict(operator_release=release, config=str(config))), stdout, stderr)
    return code, stderr.getvalue()


def test_the_delta_is_gated_on_1_5_0() -> None:
    assert (SNAPSHOT_CHECKPOINTS.change, SNAPSHOT_CHECKPOINTS.release) == ("#14076", "1.5.0")
    assert not RELEASES[REFERENCE].ships(SNAPSHOT_CHECKPOINTS)
    assert RELEASES["1.5.0"].ships(SNAPSHOT_CHECKPOINTS) and RELEASES["1.5.1"].ships(SNAPSHOT_CHECKPOINTS)


def test_14076_an_enabled_checkpoint_is_not_portable_under_1_5_0(tmp_path: Path) -> None:
    code, stderr = _render(tmp_path, "1.5.0", enabled=True)
    assert code == 1
    assert "spec.experimental.checkpoint.enabled: not portable offline: operator 1.5.0 restores it" in stderr
    assert "(ai-dynamo/dynamo#14076: DynamoCheckpoint removed) [unsupported]" in stderr


def test_the_reference_renders_the_same_dcd(tmp_path: Path) -> None:
    code, stderr = _render(tmp_path, REFERENCE, enabled=True)
    assert code == 0, stderr
    assert "#14076" not in stderr


@pytest.mark.parametrize("release", [REFERENCE, "1.5.0"])
def test_a_disabled_operator_still_forbids_the_field(tmp_path: Path, release: str) -> None:
    code, stderr = _render(tmp_path, release, enabled=False)
    assert code == 1
    assert "Forbidden: checkpoint functionality is disabled in the operator configuration" in stderr
    assert "#14076" not in stderr
