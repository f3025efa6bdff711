"""Explicit multinode roles[] (ai-dynamo/dynamo#14419, operator 1.5.0; cherry-picked as #14488).

The PR's facts restated: an explicit leader/worker list lowers exactly as the implicit form
(same workloads, same worker hash: no representation-only rollout), role overrides follow
the provider rules of their component, standalone DCDs take roles too, and a profile without
the change refuses the field naming 1.5.0. The admission messages are checked in
tests/golden/multinode/roles-explicit-validation-14419.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
import yaml

from plugin.frontends.render import run
from plugin.options import given_values
from renderer.admission.roles import EXPLICIT_ROLES, hash_roles_dropped
from renderer.releases import REFERENCE, RELEASES

GROVE_CONFIG = """\
apiVersion: config.dynamo-render.dev/v1alpha1
kind: DynamoRenderConfig
spec:
  gates:
    grove: true
"""


def _dgd(kind: str = "DynamoGraphDeployment", roles: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    component: dict[str, Any] = {
        "type": "worker",
        "replicas": 2,
        "multinode": {"nodeCount": 8},
        "podTemplate": {"spec": {"containers": [{
            "name": "main",
            "image": "nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.5.0",
            "command": ["python3", "-m", "dynamo.vllm"],
            "args": ["--model", "Qwen/Qwen3-0.6B"],
            "resources": {"limits": {"nvidia.com/gpu": "8"}},
        }]}},
    }
    if roles is not None:
        component["roles"] = roles
    if kind == "DynamoComponentDeployment":
        return {"apiVersion": "nvidia.com/v1beta1", "kind": kind, "metadata": {"name": "decode"},
                "spec": {"backendFramework": "vllm", **component}}
    return {"apiVersion": "nvidia.com/v1beta1", "kind": kind, "metadata": {"name": "multinode-example"},
            "spec": {"backendFramework": "vllm", "components": [{"name": "decode", **component}]}}


def _render(tmp_path: Path, doc: dict[str, Any], release: str, config: str | None = None, emit: str | None = None) -> tuple[int, str, str]:
    source = tmp_path / "input.yaml"
    source.write_text(yaml.safe_dump(doc))
    config_path = None
    if config is not None:
        config_path = tmp_path / "config.yaml"
        config_path.write_text(config)
    stdout, stderr = io.StringIO(), io.StringIO()
    common = given_values(dict(operator_release=release, config=str(config_path) if config_path else None, emit=emit))
    code = run([str(source)], common, stdout, stderr)
    return code, stdout.getvalue(), stderr.getvalue()


LEADER_WORKER = [{"name": "leader"}, {"name": "worker"}]


def test_the_delta_is_gated_on_1_5_0() -> None:
    assert EXPLICIT_ROLES.change == "#14419" and EXPLICIT_ROLES.release == "1.5.0"
    assert not RELEASES[REFERENCE].ships(EXPLICIT_ROLES)
    assert RELEASES["1.5.0"].ships(EXPLICIT_ROLES) and RELEASES["1.5.1"].ships(EXPLICIT_ROLES)


@pytest.mark.parametrize("roles", [LEADER_WORKER, list(reversed(LEADER_WORKER))], ids=["leader-worker", "worker-leader"])
@pytest.mark.parametrize("kind", ["DynamoGraphDeployment", "DynamoComponentDeployment"])
def test_14419_explicit_roles_lower_exactly_as_the_implicit_form(tmp_path: Path, kind: str, roles: list[dict[str, Any]]) -> None:
    implicit = _render(tmp_path, _dgd(kind), "1.5.0")
    explicit = _render(tmp_path, _dgd(kind, roles), "1.5.0")
    assert implicit[0] == explicit[0] == 0, explicit[2]
    # byte for byte, the worker-hashed names included: no representation-only rollout
    assert explicit[1] == implicit[1]
    assert "kind: LeaderWorkerSet" in explicit[1]


def test_14419_explicit_roles_lower_exactly_as_the_implicit_form_on_grove(tmp_path: Path) -> None:
    implicit = _render(tmp_path, _dgd(), "1.5.0", GROVE_CONFIG)
    explicit = _render(tmp_path, _dgd(roles=LEADER_WORKER), "1.5.0", GROVE_CONFIG)
    assert implicit[0] == explicit[0] == 0, explicit[2]
    assert explicit[1] == implicit[1] and "kind: PodCliqueSet" in explicit[1]


def test_14419_the_generated_dcd_carries_the_roles_under_the_same_name(tmp_path: Path) -> None:
    implicit = _render(tmp_path, _dgd(), "1.5.0", emit="dcd")
    explicit = _render(tmp_path, _dgd(roles=LEADER_WORKER), "1.5.0", emit="dcd")
    assert implicit[0] == explicit[0] == 0, explicit[2]
    dcds = [d for d in yaml.safe_load_all(explicit[1]) if d and d["kind"] == "DynamoComponentDeployment"]
    plain = [d for d in yaml.safe_load_all(implicit[1]) if d and d["kind"] == "DynamoComponentDeployment"]
    assert [d["metadata"]["name"] for d in dcds] == [d["metadata"]["name"] for d in plain]
    assert dcds[0]["spec"]["roles"] == LEADER_WORKER and "roles" not in plain[0]["spec"]


def test_14419_a_role_override_follows_the_component_provider_rules(tmp_path: Path) -> None:
    override = {"apiVersion": "grove.io/v1alpha1", "value": {"topologyConstraint": {"packDomain": "rack"}}}
    roles = [{"name": "leader"}, {"name": "worker", "providerOverride": override}]
    code, _out, err = _render(tmp_path, _dgd(roles=roles), "1.5.0")
    assert code == 1
    assert 'spec.components[0].roles[1].providerOverride: Forbidden: requires workload provider "grove", but "component" is selected' in err
    code, _out, err = _render(tmp_path, _dgd("DynamoComponentDeployment", roles), "1.5.0")
    assert code == 1
    assert "spec.roles[1].providerOverride: Forbidden: provider overrides are supported only for components embedded in a DynamoGraphDeployment" in err
    code, _out, err = _render(tmp_path, _dgd(roles=roles), "1.5.0", GROVE_CONFIG)
    assert code == 1 and "not supported yet: spec.components[0].roles[1].providerOverride" in err


def test_14419_under_1_5_0_a_multinode_role_override_is_an_unknown_field(tmp_path: Path) -> None:
    doc = _dgd()
    doc["spec"]["components"][0]["multinode"]["leader"] = {"providerOverride": {"apiVersion": "grove.io/v1alpha1", "value": {}}}
    code, _out, err = _render(tmp_path, doc, "1.5.0", GROVE_CONFIG)
    assert code == 1
    assert 'spec.components[0].multinode.leader: unknown field "leader"' in err
    assert "moved multinode.leader.providerOverride to roles[name=leader].providerOverride" in err
    # the reference commit still has the field (and refuses the Grove override as not ported)
    code, _out, err = _render(tmp_path, doc, REFERENCE, GROVE_CONFIG)
    assert "not supported yet: spec.components[0].multinode.leader.providerOverride" in err and "unknown field" not in err


@pytest.mark.parametrize("kind", ["DynamoGraphDeployment", "DynamoComponentDeployment"])
def test_14419_the_reference_commit_refuses_roles_naming_the_release(tmp_path: Path, kind: str) -> None:
    code, out, err = _render(tmp_path, _dgd(kind, LEADER_WORKER), REFERENCE)
    assert code == 1 and out == ""
    assert "roles: not in operator 2a6da14c8; added in 1.5.0 (ai-dynamo/dynamo#14419: explicit multinode roles)" in err


def test_14419_later_role_fields_are_refused_naming_their_release(tmp_path: Path) -> None:
    roles = [{"name": "leader", "replicas": 1}, {"name": "worker", "podTemplate": {"spec": {}}}]
    code, _out, err = _render(tmp_path, _dgd(roles=roles), "1.5.0")
    assert code == 1
    assert "roles[0].replicas: not in operator 1.5.0; added after it by ai-dynamo/dynamo#14477" in err
    assert "roles[1].podTemplate: not in operator 1.5.0; added in 1.6.0 (ai-dynamo/dynamo#14468)" in err


def test_14419_an_empty_list_names_both_missing_roles(tmp_path: Path) -> None:
    code, _out, err = _render(tmp_path, _dgd(roles=[]), "1.5.0")
    assert code == 1
    assert 'roles: Required value: must contain the "leader" role' in err
    assert 'roles: Required value: must contain the "worker" role' in err


@pytest.mark.parametrize(
    ("roles", "dropped"),
    [
        ([{"name": "leader"}, {"name": "worker"}], True),
        ([], True),
        ([{"name": "worker", "providerOverride": {"apiVersion": "grove.io/v1alpha1", "value": {}}}], False),
        ("leader", False),
    ],
    ids=["names-only", "empty", "with-override", "not-a-list"],
)
def test_14419_names_only_roles_leave_the_worker_hash_alone(roles: Any, dropped: bool) -> None:
    assert hash_roles_dropped(roles) is dropped


ALPHA_DGD = """\
apiVersion: nvidia.com/v1alpha1
kind: DynamoGraphDeployment
metadata:
  name: multinode-example
spec:
  backendFramework: vllm
  services:
    decode:
      componentType: worker
      replicas: 2
      multinode:
        nodeCount: 8
{roles}      resources:
        limits:
          gpu: "8"
      extraPodSpec:
        mainContainer:
          image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.5.0
          command: ["python3", "-m", "dynamo.vllm"]
          args: ["--model", "Qwen/Qwen3-0.6B"]
"""
ALPHA_ROLES = "      roles:\n      - name: leader\n      - name: worker\n"


def _render_text(tmp_path: Path, text: str, release: str) -> tuple[int, str, str]:
    source = tmp_path / "input.yaml"
    source.write_text(text)
    stdout, stderr = io.StringIO(), io.StringIO()
    code = run([str(source)], given_values(dict(operator_release=release)), stdout, stderr)
    return code, stdout.getvalue(), stderr.getvalue()


def test_14419_v1alpha1_roles_convert_and_lower_as_the_implicit_form(tmp_path: Path) -> None:
    implicit = _render_text(tmp_path, ALPHA_DGD.format(roles=""), "1.5.0")
    explicit = _render_text(tmp_path, ALPHA_DGD.format(roles=ALPHA_ROLES), "1.5.0")
    assert implicit[0] == explicit[0] == 0, explicit[2]
    assert explicit[1] == implicit[1] and "kind: LeaderWorkerSet" in explicit[1]


def test_14419_v1alpha1_roles_are_validated_at_the_written_path(tmp_path: Path) -> None:
    code, _out, err = _render_text(tmp_path, ALPHA_DGD.format(roles="      roles:\n      - name: leader\n"), "1.5.0")
    assert code == 1
    assert 'spec.services[decode].roles: Required value: must contain the "worker" role' in err
    moved = ALPHA_DGD.format(roles="").replace("        nodeCount: 8\n", "        nodeCount: 8\n        leader: {}\n")
    code, _out, err = _render_text(tmp_path, moved, "1.5.0")
    assert code == 1 and 'spec.services[decode].multinode.leader: unknown field "leader"' in err
    assert "moved multinode.leader.providerOverride to roles[name=leader].providerOverride" in err


def test_14419_v1alpha1_roles_are_refused_under_the_reference_commit(tmp_path: Path) -> None:
    code, out, err = _render_text(tmp_path, ALPHA_DGD.format(roles=ALPHA_ROLES), REFERENCE)
    assert code == 1 and out == ""
    assert "spec.services[decode].roles: not in operator 2a6da14c8; added in 1.5.0" in err


def test_14419_conversion_keeps_roles_only_when_asked() -> None:
    from renderer.conversion.to_v1beta1 import dcd_to_v1beta1, dgd_to_v1beta1

    dgd = yaml.safe_load(ALPHA_DGD.format(roles=ALPHA_ROLES))
    assert "roles" not in dgd_to_v1beta1(dgd)["spec"]["components"][0]
    assert dgd_to_v1beta1(dgd, roles=True)["spec"]["components"][0]["roles"] == LEADER_WORKER
    service = dgd["spec"]["services"]["decode"]
    dcd = {"apiVersion": "nvidia.com/v1alpha1", "kind": "DynamoComponentDeployment", "metadata": {"name": "decode"},
           "spec": {"backendFramework": "vllm", **service}}
    assert "roles" not in dcd_to_v1beta1(dcd)["spec"]
    assert dcd_to_v1beta1(dcd, roles=True)["spec"]["roles"] == LEADER_WORKER
