"""Grove pathway helpers: names, roles, update strategy, the Grove deployer, scheduler gates.

Restates internal/dynamo/graph_test.go TestPCSNameForDGD, elastic_ep_service_test.go
TestElasticEPLeaderServiceName, grove_test.go TestResolveKaiSchedulerQueueName, the Grove
deployer's host names (grove.go GroveMultinodeDeployer) and internal/features/gates.go New.
"""

from __future__ import annotations

from typing import Any

import pytest

from renderer.admission.api import DynamoComponentDeploymentSharedSpec
from renderer.config import RenderConfig, resolve_scheduler_gates
from renderer.operator_config import OperatorConfiguration
from renderer.graph.grove import startup_dependencies, update_strategy
from renderer.graph.grove_placement import resolve_scheduler_queue
from renderer.graph.grove_roles import ServiceRole, expand_roles, longest_clique_name, pcs_name, uses_scaling_group
from renderer.graph.grove_resources import elastic_ep_leader_service_name
from renderer.pod.backends.common import GroveDeployer
from renderer.results import RenderError, Result


def component(name: str, nodes: int = 1, replicas: int | None = None, **extra: Any) -> DynamoComponentDeploymentSharedSpec:
    raw: dict[str, Any] = {"name": name, **extra}
    if nodes > 1:
        raw["multinode"] = {"nodeCount": nodes}
    if replicas is not None:
        raw["replicas"] = replicas
    return DynamoComponentDeploymentSharedSpec.model_validate(raw)


@pytest.mark.parametrize(
    "dgd_name, components, want, want_len",
    [
        ("trtllm-disagg", [component("prefill"), component("decode")], "trtllm-disagg", 0),
        ("my-dgd", [component("prefill", 2), component("decode", 2)], "my-dgd", 0),
        ("deepseek-v32-fp4-trtllm-dgd", [component("prefill", 2), component("decode", 2)], "", 27),
        ("deepseek-v32-fp4-trtllm-dgd", [component("prefill", 2)], "", 27),
        ("my-deployment-dgd", [component("VllmPrefillWorker", 2)], "", 8),
        ("my-dgd", [], "my-dgd", 0),
    ],
    ids=["short", "short-multinode", "long-truncated", "deterministic", "clamped-to-8", "no-components"],
)
def test_pcs_name(dgd_name: str, components: list[DynamoComponentDeploymentSharedSpec], want: str, want_len: int) -> None:
    got = pcs_name(dgd_name, components)
    if want:
        assert got == want
    else:
        assert len(got) == want_len
    assert got == pcs_name(dgd_name, components)


def test_pcs_name_hash_suffix_is_fnv1a() -> None:
    # The operator's own output for this input (golden case grove/pcs-name-truncated): the name
    # cut to the budget minus 5, then "-" and the low 16 bits of its FNV-1a 32 hash.
    assert pcs_name("a-rather-long-graph-deployment-name", [component("decode", 2)]) == "a-rather-long-graph-depl-e397"
    assert pcs_name("my-deployment-dgd", [component("VllmPrefillWorker", 2)]).startswith("my-")


@pytest.mark.parametrize(
    "service, want",
    [
        ("my-dgd-worker", "my-dgd-worker-ray"),
        ("my-dgd-qwen3-0.6b", "my-dgd-qwen3-0-6b-ray"),
        ("a" * 59, "a" * 59 + "-ray"),
        ("a-very-long-dynamo-graph-deployment-name-with-a-long-component-name", "a-very-long-dynamo-graph-deployment-name-with-a-long-compo-502d"),
    ],
)
def test_elastic_ep_leader_service_name(service: str, want: str) -> None:
    assert elastic_ep_leader_service_name(service) == want
    assert len(elastic_ep_leader_service_name(service)) <= 63


def test_expand_roles() -> None:
    assert expand_roles("Worker", component("Worker", replicas=3)) == [ServiceRole("Worker", "main", 3)]
    assert expand_roles("Worker", component("Worker")) == [ServiceRole("Worker", "main", 1)]
    assert expand_roles("Worker", component("Worker", 4, replicas=2)) == [
        ServiceRole("Worker-ldr", "leader", 1),
        ServiceRole("Worker-wkr", "worker", 3),
    ]
    forced = component("w", replicas=4, experimental={"grove": {"forceScalingGroup": True}})
    assert expand_roles("w", forced) == [ServiceRole("w", "main", 1)]
    assert uses_scaling_group(forced) and not uses_scaling_group(component("w", replicas=4))
    assert longest_clique_name("Worker", component("Worker", 2)) == "worker-ldr"
    assert longest_clique_name("Worker", component("Worker")) == "worker"


def test_inter_pod_gms_roles() -> None:
    # graph.go expandSingleNodeGMSRoles / expandMultinodeGMSRoles, LongestPodCliqueNameForDGDComponent
    gms = component("w", experimental={"gpuMemoryService": {"mode": "InterPod"}})
    assert uses_scaling_group(gms)
    assert expand_roles("w", gms) == [ServiceRole("w-gms-0", "gms", 1, 0), ServiceRole("w", "main", 1, 0)]
    assert longest_clique_name("w", gms) == "w-gms-0"
    failover = component("w", 2, experimental={"gpuMemoryService": {"mode": "InterPod"}, "failover": {"mode": "InterPod"}})
    assert [(r.name, r.replicas, r.rank) for r in expand_roles("w", failover)] == [
        ("w-gms-0", 1, 0), ("w-ldr", 2, 0), ("w-gms-1", 1, 1), ("w-wkr-1", 2, 1),
    ]


def test_update_strategy() -> None:
    assert update_strategy({}) is None
    assert update_strategy({"nvidia.com/grove-update-strategy": "OnDelete"}) == "OnDelete"
    assert update_strategy({"nvidia.com/grove-update-strategy": "RollingRecreate"}) == "RollingRecreate"
    with pytest.raises(RenderError) as err:
        update_strategy({"nvidia.com/grove-update-strategy": "rollingrecreate"})
    assert err.value.message == (
        'unsupported Grove update strategy annotation "nvidia.com/grove-update-strategy"="rollingrecreate": '
        'supported values are "RollingRecreate" and "OnDelete"'
    )


@pytest.mark.parametrize(
    "role, framework, want",
    [
        ("worker", "vllm", ["c-ldr"]),
        ("worker", "sglang", ["c-ldr"]),
        ("leader", "vllm", []),
        ("leader", "trtllm", ["c-wkr"]),
        ("worker", "trtllm", []),
        ("main", "noop", []),
    ],
)
def test_startup_dependencies(role: str, framework: str, want: list[str]) -> None:
    assert startup_dependencies(role, framework, "c-ldr", ["c-wkr"]) == want


def test_grove_deployer() -> None:
    deployer = GroveDeployer()
    assert deployer.leader_hostname("Decode") == "$(GROVE_PCSG_NAME)-$(GROVE_PCSG_INDEX)-decode-ldr-0.$(GROVE_HEADLESS_SERVICE)"
    assert deployer.node_rank() == ("$((GROVE_PCLQ_POD_INDEX + 1))", True)
    assert not deployer.needs_dns_wait()
    assert deployer.host_names("Decode", 3) == [
        "$(GROVE_PCSG_NAME)-$(GROVE_PCSG_INDEX)-decode-ldr-0.$(GROVE_HEADLESS_SERVICE)",
        "$(GROVE_PCSG_NAME)-$(GROVE_PCSG_INDEX)-decode-wkr-0.$(GROVE_HEADLESS_SERVICE)",
        "$(GROVE_PCSG_NAME)-$(GROVE_PCSG_INDEX)-decode-wkr-1.$(GROVE_HEADLESS_SERVICE)",
    ]


def test_grove_deployer_inter_pod_gms_layout() -> None:
    """Mirrors: internal/dynamo/failover_test.go TestGroveMultinodeDeployer_GMS."""
    deployer = GroveDeployer(inter_pod_gms=True, rank=2)
    assert deployer.leader_hostname("worker") == "$(GROVE_PCSG_NAME)-$(GROVE_PCSG_INDEX)-worker-ldr-$(GROVE_PCLQ_POD_INDEX).$(GROVE_HEADLESS_SERVICE)"
    assert deployer.node_rank() == ("2", False)
    assert deployer.host_names("worker", 3)[1:] == [
        "$(GROVE_PCSG_NAME)-$(GROVE_PCSG_INDEX)-worker-wkr-1-$(GROVE_PCLQ_POD_INDEX).$(GROVE_HEADLESS_SERVICE)",
        "$(GROVE_PCSG_NAME)-$(GROVE_PCSG_INDEX)-worker-wkr-2-$(GROVE_PCLQ_POD_INDEX).$(GROVE_HEADLESS_SERVICE)",
    ]


@pytest.mark.parametrize(
    "annotations, want",
    [
        ({}, "dynamo"),
        ({"nvidia.com/kai-scheduler-queue": ""}, "dynamo"),
        ({"nvidia.com/kai-scheduler-queue": "   "}, "dynamo"),
        ({"nvidia.com/kai-scheduler-queue": "custom-queue"}, "custom-queue"),
        ({"nvidia.com/kai-scheduler-queue": "  custom-queue  "}, "custom-queue"),
    ],
)
def test_kai_queue(annotations: dict[str, str], want: str) -> None:
    notes: list[Result] = []
    assert resolve_scheduler_queue(annotations, RenderConfig(kai_scheduler_enabled=True), notes) == want
    assert len(notes) == 1 and "assumed to exist" in notes[0].message
    assert resolve_scheduler_queue(annotations, RenderConfig(), []) == ""


def test_kai_and_volcano_together_is_the_operators_error() -> None:
    with pytest.raises(RenderError, match="cannot both be enabled for Grove"):
        resolve_scheduler_queue({}, RenderConfig(kai_scheduler_enabled=True, volcano_scheduler_enabled=True), [])


def operator(kai: bool | None = None, volcano: bool | None = None) -> OperatorConfiguration:
    return OperatorConfiguration.model_validate({"orchestrators": {"kaiScheduler": {"enabled": kai}, "volcanoScheduler": {"enabled": volcano}}})


@pytest.mark.parametrize(
    "cfg, source, plugin, versions, want, problem",
    [
        (operator(), "given", None, None, (False, False), ""),
        (operator(), "given", None, ["scheduling.run.ai/v2"], (True, False), ""),
        (operator(), "given", True, None, (True, False), ""),
        (operator(kai=False), "given", True, ["scheduling.run.ai/v2"], (False, False), ""),
        (operator(kai=True), "given", None, ["apps/v1"], (True, False), "Kai-scheduler is explicitly enabled"),
        (operator(kai=True), "given", None, None, (True, False), ""),
        (operator(kai=False), "helm-defaults", True, None, (True, False), ""),
        (operator(volcano=True), "given", None, ["scheduling.volcano.sh/v1beta1"], (False, True), ""),
        (operator(volcano=True), "given", None, ["apps/v1"], (False, True), "Volcano scheduler integration is explicitly enabled"),
        (operator(volcano=None), "given", None, ["scheduling.volcano.sh/v1beta1"], (False, False), ""),
    ],
)
def test_scheduler_gates(
    cfg: OperatorConfiguration, source: str, plugin: bool | None, versions: list[str] | None, want: tuple[bool, bool], problem: str
) -> None:
    kai, volcano, results = resolve_scheduler_gates(cfg, source, plugin, versions)
    assert (kai, volcano) == want
    assert [r.message for r in results if problem in r.message] if problem else not results
