"""The v1beta1 DCD CRD check of generated DCDs: the generated table, every CEL rule ported, the rules' verdicts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from renderer.admission import dcd_crd, dcd_crd_schema
from renderer.admission.v1alpha1 import cel
from tools import gen_v1alpha1_schema as gen

CRDS = Path(__file__).resolve().parents[1] / "data" / "crds"
GENERATED = Path(__file__).resolve().parents[2] / "renderer" / "admission" / "dcd_crd_schema.py"


def test_generated_table_matches_the_crd() -> None:
    assert GENERATED.read_text() == gen.render(CRDS, "v1beta1-dcd"), "regenerate with tools/gen_v1alpha1_schema.py --target v1beta1-dcd"


def test_every_cel_rule_of_the_crd_is_ported_or_declared_not_evaluated() -> None:
    texts = {rule for node in dcd_crd_schema.NODES for rule, _msg, _old in node.get("x-kubernetes-validations", ())}
    assert len(texts) >= 10, "the v1beta1 DCD schema holds its CEL rules"
    missing = texts - set(cel.RULES) - cel.NOT_EVALUATED
    assert not missing, f"CEL rules of the v1beta1 DCD CRD without a port: {sorted(missing)}"


def _main(**extra: Any) -> dict[str, Any]:
    return {"name": "main", "image": "img", **extra}


def _errors(spec: dict[str, Any]) -> list[str]:
    return [f"{r.field}: {r.message}" for r in dcd_crd.refusals(spec)]


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ({"type": "worker", "podTemplate": {"spec": {"containers": [_main()]}}}, []),
        ({"type": "worker", "eppConfig": {"configMapRef": {"name": "c", "key": "k"}}}, ["spec: eppConfig may only be set when type is epp"]),
        ({"type": "epp", "eppConfig": {}}, ["spec.eppConfig: exactly one of configMapRef or config must be specified"]),
        (
            {"type": "epp", "eppConfig": {"configMapRef": {"name": "c", "key": "k"}, "config": {"plugins": [], "schedulingProfiles": []}}},
            ["spec.eppConfig: exactly one of configMapRef or config must be specified"],
        ),
        ({"type": "epp", "eppConfig": {"configMapRef": {"name": "c", "key": "k"}}}, []),
        (
            {"type": "worker", "experimental": {"gpuMemoryService": {"mode": "InterPod", "extraClientContainers": ["sidecar"]}}},
            ["spec.experimental.gpuMemoryService: extraClientContainers is only supported with mode=IntraPod"],
        ),
        ({"type": "worker", "experimental": {"gpuMemoryService": {"mode": "IntraPod", "extraClientContainers": ["sidecar"]}}}, []),
        (
            {"type": "worker", "experimental": {"gpuMemoryService": {"mode": "IntraPod", "extraClientPods": [{"name": "p", "podTemplate": {"spec": {"containers": [_main()]}}}]}}},
            [
                "spec.experimental.gpuMemoryService: extraClientPods is only supported with mode=InterPod",
                "spec.experimental.gpuMemoryService: extraClientPods is reserved for inter-pod GMS and is not implemented yet",
            ],
        ),
        (
            {"type": "worker", "podTemplate": {"spec": {"containers": [_main(), {"name": "sidecar"}]}}},
            ["spec.podTemplate.spec.containers[1]: sidecar containers must specify a non-empty image"],
        ),
        ({"type": "worker", "podTemplate": {"spec": {"containers": [{"name": "main"}]}}}, []),
        (
            {"type": "worker", "podTemplate": {"spec": {"initContainers": [{"name": "init", "image": ""}], "containers": [_main()]}}},
            ["spec.podTemplate.spec.initContainers[0]: init containers must specify a non-empty image"],
        ),
        (
            {"type": "worker", "podTemplate": {"metadata": {"annotations": {"nvidia.com/vllm-distributed-executor-backend": "RaY"}}, "spec": {"containers": [_main()]}}},
            [],
        ),
        (
            {"type": "worker", "podTemplate": {"metadata": {"annotations": {"nvidia.com/vllm-distributed-executor-backend": "uni"}}, "spec": {"containers": [_main()]}}},
            ["spec.podTemplate.metadata.annotations: podTemplate backend annotation must be mp or ray, case-insensitively"],
        ),
        ({"type": "worker", "replicas": 1, "minAvailable": 2}, ["spec: minAvailable must be less than or equal to replicas unless replicas is 0"]),
        ({"type": "main"}, ['spec.type: unsupported value "main" (valid: frontend, worker, prefill, decode, planner, epp)']),
        (
            {"type": "worker", "podTemplate": {"spec": {"containers": [_main(), _main()]}}},
            ['spec.podTemplate.spec.containers[1]: duplicate entry {"name": "main"} (the list is keyed by name)'],
        ),
        ({"type": "worker", "routerMode": "kv"}, []),
    ],
    ids=[
        "valid",
        "epp-config-on-worker",
        "epp-config-neither",
        "epp-config-both",
        "epp-config-map-ref",
        "gms-containers-inter-pod",
        "gms-containers-intra-pod",
        "gms-pods",
        "sidecar-without-image",
        "main-without-image",
        "init-container-empty-image",
        "vllm-backend-case-insensitive",
        "vllm-backend-uni",
        "min-available",
        "type-enum",
        "containers-list-map",
        "unknown-field-pruned",
    ],
)
def test_generated_dcd_verdicts(spec: dict[str, Any], expected: list[str]) -> None:
    assert _errors(spec) == expected


def test_lower_ascii_changes_only_ascii_letters() -> None:
    assert cel._lower_ascii("MP") == "mp"
    assert cel._vllm_executor_backend({"nvidia.com/vllm-distributed-executor-backend": "\u212a"}) is False
