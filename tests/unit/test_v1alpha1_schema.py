"""v1alpha1 structural schema admission: the generated tables, the CEL ports, the walker."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from renderer.admission import dcd_crd_schema
from renderer.admission.v1alpha1 import cel, crd_schema, schema
from tools import gen_v1alpha1_schema as gen

CRDS = Path(__file__).resolve().parents[1] / "data" / "crds"
GENERATED = Path(__file__).resolve().parents[2] / "renderer" / "admission" / "v1alpha1" / "crd_schema.py"


def test_generated_tables_match_the_crds() -> None:
    assert GENERATED.read_text() == gen.render(CRDS), "regenerate with tools/gen_v1alpha1_schema.py"


def test_every_cel_rule_is_ported_or_declared_not_evaluated() -> None:
    texts = {rule for node in crd_schema.NODES for rule, _msg, _old in node.get("x-kubernetes-validations", ())}
    assert texts, "the v1alpha1 schemas hold CEL rules"
    missing = texts - set(cel.RULES) - cel.NOT_EVALUATED
    assert not missing, f"CEL rules without a port: {sorted(missing)}"
    beta = {rule for node in dcd_crd_schema.NODES for rule, _msg, _old in node.get("x-kubernetes-validations", ())}
    assert not (set(cel.RULES) | cel.NOT_EVALUATED) - texts - beta, "ported rules no longer in the CRDs"


def _errors(kind: str, spec: Any) -> list[str]:
    _out, results = schema.admit(kind, spec)
    return [f"[{r.severity.value}] {r.field}: {r.message}" for r in results]


@pytest.mark.parametrize(
    ("kind", "spec", "expected"),
    [
        ("DynamoComponentDeployment", {"replicas": "3"}, ["[error] spec.replicas: expected integer, got string"]),
        ("DynamoComponentDeployment", {"replicas": -1}, ["[error] spec.replicas: must be >= 0 (got -1)"]),
        ("DynamoComponentDeployment", {"replicas": 2**31}, ["[error] spec.replicas: must be between -2147483648 and 2147483647 (got 2147483648)"]),
        ("DynamoComponentDeployment", {"backendFramework": "tgi"}, ['[error] spec.backendFramework: unsupported value "tgi" (valid: sglang, vllm, trtllm)']),
        ("DynamoComponentDeployment", {"bogus": 1}, ['[error] spec.bogus: unknown field "bogus": the API server would prune this field and the operator would ignore it']),
        ("DynamoComponentDeployment", {"multinode": {"nodeCount": 1}}, ["[error] spec.multinode.nodeCount: must be >= 2 (got 1)"]),
        ("DynamoComponentDeployment", {"modelRef": {}}, ["[error] spec.modelRef.name: required field missing"]),
        ("DynamoComponentDeployment", {"runtimeVersionOverride": "v1"}, [
            '[error] spec.runtimeVersionOverride: must match ^(0|[1-9][0-9]{0,3})\\.(0|[1-9][0-9]{0,3})\\.(0|[1-9][0-9]{0,3})$ (got "v1")'
        ]),
        ("DynamoComponentDeployment", {"sharedMemory": {"size": "0"}}, ["[error] spec.sharedMemory: size is required when disabled is false"]),
        ("DynamoComponentDeployment", {"sharedMemory": {"disabled": True}}, []),
        ("DynamoComponentDeployment", {"replicas": 1, "minAvailable": 2}, [
            "[error] spec: minAvailable must be less than or equal to replicas unless replicas is 0"
        ]),
        ("DynamoComponentDeployment", {"replicas": 0, "minAvailable": 2}, []),
        ("DynamoComponentDeployment", {"extraPodSpec": {"mainContainer": {"image": "x", "imagePullPolicy": "Always", "nope": 1}}}, [
            '[error] spec.extraPodSpec.mainContainer.nope: unknown field "nope": the API server would prune this field and the operator would ignore it'
        ]),
        ("DynamoComponentDeployment", {"extraPodSpec": {"volumes": [{"name": "a"}, {"name": "a"}]}}, [
            '[error] spec.extraPodSpec.volumes[1]: duplicate entry {"name": "a"} (the list is keyed by name)'
        ]),
        ("DynamoComponentDeployment", {"gpuMemoryService": {"enabled": True, "mode": "interPod", "extraClientContainers": ["a"]}}, [
            "[error] spec.gpuMemoryService: extraClientContainers is only supported with mode=intraPod"
        ]),
        ("DynamoGraphDeployment", {"services": {"Frontend": {"replicas": "x"}}}, [
            "[error] spec.services[Frontend].replicas: expected integer, got string"
        ]),
        ("DynamoGraphDeployment", {"pvcs": [{"create": True, "name": "a"}]}, [
            "[error] spec.pvcs[0]: When create is true, size, storageClass, and volumeAccessMode are required"
        ]),
        ("DynamoGraphDeployment", {"services": {"w": {"envs": [{"name": "A", "valueFrom": {"secretKeyRef": {"key": "k"}}}]}}}, []),
        ("DynamoGraphDeployment", {"experimental": {"kvTransferPolicy": {"domain": "rack"}}}, [
            "[error] spec.experimental.kvTransferPolicy: exactly one of labelKey or clusterTopologyName is required"
        ]),
    ],
)
def test_admit(kind: str, spec: dict[str, Any], expected: list[str]) -> None:
    assert _errors(kind, spec) == expected


def test_defaults_nulls_and_no_mutation() -> None:
    spec: dict[str, Any] = {
        "multinode": {},
        "scalingAdapter": {},
        "dynamoNamespace": None,
        "envs": [{"name": "A", "valueFrom": {"secretKeyRef": {"key": "k"}}}],
    }
    before = repr(spec)
    out, results = schema.admit("DynamoComponentDeployment", spec)
    assert results == []
    assert repr(spec) == before
    assert out == {
        "multinode": {"nodeCount": 2},
        "scalingAdapter": {"enabled": False},
        "envs": [{"name": "A", "valueFrom": {"secretKeyRef": {"key": "k", "name": ""}}}],
    }


def test_repeated_env_names_warn_on_each_dropped_entry() -> None:
    from renderer.admission.v1alpha1.admit import repeated_envs

    spec = {
        "envs": [{"name": "A", "value": "1"}, {"name": "B"}, {"name": "A", "value": "2"}, {"name": "A", "value": "3"}],
        "frontendSidecar": {"envs": [{"name": "C"}, {"name": "C"}]},
    }
    assert [(r.severity.value, r.field, r.message) for r in repeated_envs(spec)] == [
        ("warning", "spec.envs[0]", 'env "A" is repeated at spec.envs[3]: the v1alpha1 schema admits repeated names and the operator keeps the last value'),
        ("warning", "spec.envs[2]", 'env "A" is repeated at spec.envs[3]: the v1alpha1 schema admits repeated names and the operator keeps the last value'),
        ("warning", "spec.frontendSidecar.envs[0]", 'env "C" is repeated at spec.frontendSidecar.envs[1]: the v1alpha1 schema admits repeated names and the operator keeps the last value'),
    ]
