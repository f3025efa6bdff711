"""renderer.admission.api: DCD parsing and admission rules."""

from __future__ import annotations

from typing import Any

import pytest

from renderer.admission.parse import parse_dcd
from tests.builders import dcd


def test_parse_dcd_applies_defaults_before_decoding() -> None:
    doc = dcd("test", "default", image="img:1", main={"ports": [{"containerPort": 8081}]})
    parsed, results = parse_dcd(doc, "default")
    assert parsed is not None, [r.line() for r in results]
    assert parsed.pod_spec["containers"][0]["ports"] == [{"containerPort": 8081, "protocol": "TCP"}]
    assert "protocol" not in doc["spec"]["podTemplate"]["spec"]["containers"][0]["ports"][0]


def _errors(doc: dict[str, Any]) -> list[str]:
    _, results = parse_dcd(doc, "default")
    return [f"{r.field}: {r.message}" for r in results if r.is_error]


GMS = "spec.experimental.gpuMemoryService"
FAILOVER = "spec.experimental.failover"
ONE_GPU = {"containers": [{"name": "main", "image": "img:1", "resources": {"limits": {"nvidia.com/gpu": "1"}}}]}
HALF_GPU = {"containers": [{"name": "main", "image": "img:1", "resources": {"requests": {"gpu.example.com": "500m"}}}]}

EXPERIMENTAL_CASES = [
    ("gms-valid-worker", "worker", ONE_GPU, {"gpuMemoryService": {}}, []),
    (
        "gms-frontend-without-gpu",
        "frontend",
        None,
        {"gpuMemoryService": {}},
        [
            f"{GMS}: Forbidden: GPU memory service is only supported for worker, prefill, or decode components",
            f"{GMS}: Forbidden: GPU memory service requires podTemplate.spec.containers[main].resources.limits.nvidia.com/gpu >= 1",
        ],
    ),
    (
        "gms-fractional-gpu-request",
        "decode",
        HALF_GPU,
        {"gpuMemoryService": {}},
        [f"{GMS}: Forbidden: GPU memory service requires podTemplate.spec.containers[main].resources.limits.nvidia.com/gpu >= 1"],
    ),
    (
        "gms-extra-clients",
        "worker",
        {**ONE_GPU, "containers": [*ONE_GPU["containers"], {"name": "loader", "image": "l:1"}]},
        {"gpuMemoryService": {"extraClientContainers": ["loader", "loader", "ghost"]}},
        [
            f'{GMS}.extraClientContainers[1]: Duplicate value: "loader"',
            f'{GMS}.extraClientContainers[2]: Invalid value: "ghost": does not name a container in podTemplate.spec.containers',
        ],
    ),
    (
        "failover-mode-mismatch",
        "worker",
        ONE_GPU,
        {"gpuMemoryService": {"mode": "IntraPod"}, "failover": {"mode": "InterPod"}},
        [f'{FAILOVER}.mode: Invalid value: "InterPod": must match gpuMemoryService.mode "IntraPod"'],
    ),
    (
        "inter-pod-failover-fractional-gpu-on-planner",
        "planner",
        HALF_GPU,
        {"gpuMemoryService": {"mode": "InterPod"}, "failover": {"mode": "InterPod"}},
        [
            f"{GMS}: Forbidden: GPU memory service is only supported for worker, prefill, or decode components",
            f"{GMS}: Forbidden: GPU memory service requires podTemplate.spec.containers[main].resources.limits.nvidia.com/gpu >= 1",
            f'{FAILOVER}: Forbidden: failed to read main-container GPU limit: GPU resource "gpu.example.com" quantity "500m" must be a whole number',
            f'{FAILOVER}: Forbidden: GMS failover is not supported for component type "planner"',
        ],
    ),
    (
        "checkpoint-job-clients-without-gms",
        "worker",
        None,
        {"checkpoint": {"enabled": False, "job": {"gmsClientContainers": ["saver"]}}},
        ["spec.experimental.checkpoint.job.gmsClientContainers: Forbidden: requires gpuMemoryService to be set"],
    ),
    (
        "checkpoint-job-clients-inter-pod",
        "worker",
        ONE_GPU,
        {"gpuMemoryService": {"mode": "InterPod"}, "checkpoint": {"enabled": False, "job": {"gmsClientContainers": ["saver"]}}},
        ["spec.experimental.checkpoint.job.gmsClientContainers: Forbidden: is only supported with gpuMemoryService.mode=IntraPod"],
    ),
    (
        "checkpoint-with-inter-pod-gms-and-failover",
        "worker",
        ONE_GPU,
        {"gpuMemoryService": {"mode": "InterPod"}, "failover": {"mode": "InterPod"}, "checkpoint": {"enabled": True}},
        [
            "spec.experimental.checkpoint: Forbidden: checkpoint functionality is disabled in the operator configuration",
            "spec.experimental.checkpoint: Forbidden: Snapshot with gpuMemoryService.mode=InterPod is unsupported",
            "spec.experimental.checkpoint: Forbidden: Snapshot with active/passive failover is temporarily unsupported",
        ],
    ),
]


@pytest.mark.parametrize(
    ("type_", "pod_spec", "experimental", "want"),
    [c[1:] for c in EXPERIMENTAL_CASES],
    ids=[c[0] for c in EXPERIMENTAL_CASES],
)
def test_experimental_webhook_rules(type_: str, pod_spec: dict[str, Any] | None, experimental: dict[str, Any], want: list[str]) -> None:
    pod_template = {"podTemplate": {"spec": pod_spec}} if pod_spec is not None else {}
    assert _errors(dcd("test", "default", type=type_, image="img:1", experimental=experimental, **pod_template)) == want


MESSAGE_CASES = [
    ("min-length-1", {"compilationCache": {"pvcName": ""}}, ["spec.compilationCache.pvcName: must not be empty"]),
    ("max-length", {"name": "a" * 64}, ["spec.name: must be at most 63 characters"]),
    ("enum", {"type": "router"}, ['spec.type: unsupported value "router" (valid: frontend, worker, prefill, decode, planner or epp)']),
    ("unknown-field", {"replicass": 1}, ['spec.replicass: unknown field "replicass": the API server would prune this field and the operator would ignore it']),
]


@pytest.mark.parametrize(("spec", "want"), [(c[1], c[2]) for c in MESSAGE_CASES], ids=[c[0] for c in MESSAGE_CASES])
def test_spec_schema_messages(spec: dict[str, Any], want: list[str]) -> None:
    doc = dcd("test", "default", image="img:1")
    doc["spec"].update(spec)
    assert _errors(doc) == want


def _warnings(doc: dict[str, Any], checkpoint_gate: bool = False) -> list[str]:
    _, results = parse_dcd(doc, "default", checkpoint_gate)
    return [f"{r.field}: {r.message}" for r in results if r.severity.value == "warning"]


def test_standalone_checkpoint_job_and_deletion_policy_have_no_effect() -> None:
    # Only the graph controller creates checkpoints (dgd_checkpoints_reconciler.go createCheckpointCR)
    experimental = {"checkpoint": {"enabled": True, "deletionPolicy": "Retain", "job": {}, "identity": {"model": "m", "backendFramework": "vllm"}}}
    warnings = _warnings(dcd("test", "default", podTemplate={"spec": ONE_GPU}, experimental=experimental), checkpoint_gate=True)
    assert "spec.experimental.checkpoint.job: has no effect: a standalone DCD never creates its checkpoint" in warnings
    assert "spec.experimental.checkpoint.deletionPolicy: has no effect: a standalone DCD never creates its checkpoint" in warnings


def test_standalone_inter_pod_gms_warns_about_weight_servers() -> None:
    warnings = _warnings(dcd("test", "default", podTemplate={"spec": ONE_GPU}, experimental={"gpuMemoryService": {"mode": "InterPod"}}))
    assert any(w.startswith(f"{GMS}.mode: the operator renders only the engine pod") for w in warnings)
