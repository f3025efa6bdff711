"""GPU Memory Service and failover pod shaping, restated from the operator's unit tests.

Sources: internal/dynamo/failover_test.go (TestBuildFailoverPod_*, TestIsIntraPodFailoverEnabled,
TestIntraPodFailoverEngineContainerNames, TestGmsWeightServerPodSpec*, TestAugmentEngineForGMS*,
TestGmsEngineEnvVars, TestGmsRCTName, TestGmsResourceClaimTemplateConfigs_*, TestGmsResourceSharingEntries_*),
internal/dra/dra_test.go (TestApplyClaim_*, TestResourceClaimTemplateName,
TestGenerateResourceClaimTemplate_*), internal/gms/gms_test.go, graph.go gmsExtraClientContainersError.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from renderer.pod import failover, gms
from renderer.results import RenderError


def engine_pod(**extra: Any) -> dict[str, Any]:
    main = {
        "name": "main",
        "image": "img:1",
        "env": [
            {"name": "DYN_SYSTEM_PORT", "value": "9090"},
            {"name": "DYN_SYSTEM_USE_ENDPOINT_HEALTH_STATUS", "value": "true"},
            {"name": "DYN_DISCOVERY_BACKEND", "value": "kubernetes"},
            {"name": "KEEP_ME", "value": "yes"},
        ],
        "ports": [{"name": "system", "containerPort": 9090, "protocol": "TCP"}],
        "livenessProbe": {"httpGet": {"path": "/live", "port": "system"}},
        "readinessProbe": {"httpGet": {"path": "/health", "port": "system"}},
        "resources": {"limits": {"nvidia.com/gpu": "4", "memory": "64Gi"}},
        **extra,
    }
    return {"containers": [main, {"name": "frontend-sidecar", "image": "fe:1"}]}


def env(container: dict[str, Any]) -> dict[str, Any]:
    return {e["name"]: e.get("value", e.get("valueFrom")) for e in container.get("env") or []}


# Intra-pod failover (buildFailoverPod)


def test_two_engines_plus_sidecar() -> None:
    pod = engine_pod()
    failover.build_failover_pod(pod, 1, "vllm")
    assert [c["name"] for c in pod["containers"]] == ["engine-0", "engine-1", "frontend-sidecar"]


def test_empty_containers_and_non_vllm_are_errors() -> None:
    with pytest.raises(RenderError, match="pod spec must have at least one container for failover transformation"):
        failover.build_failover_pod({"containers": []}, 1, "vllm")
    with pytest.raises(RenderError, match=r"failover is currently supported only for vLLM \(detected: sglang\)"):
        failover.build_failover_pod(engine_pod(), 1, "sglang")


def test_engine_env_ports_and_probes() -> None:
    pod = engine_pod()
    failover.build_failover_pod(pod, 1, "vllm")
    for i, engine in enumerate(pod["containers"][:2]):
        values = env(engine)
        assert values["ENGINE_ID"] == str(i)
        assert values["CONTAINER_NAME"] == f"engine-{i}"
        assert values["FAILOVER_LOCK_PATH"] == "/gms-intrapod-control/failover.lock"
        assert values["DYN_SYSTEM_STARTING_HEALTH_STATUS"] == "notready"
        assert values["DYN_SYSTEM_PORT"] == str(9090 + i)
        assert values["DYN_SYSTEM_ENABLED"] == "true"
        assert values["DYN_FORWARDPASS_METRIC_PORT"] == str(20380 + i)
        assert values["DYN_VLLM_GMS_SHADOW_MODE"] == "true"
        assert values["VLLM_NIXL_SIDE_CHANNEL_PORT"] == str(5600 + i)
        assert values["DYN_VLLM_KV_EVENT_PORT"] == str(20080 + i)
        assert "DYN_SYSTEM_USE_ENDPOINT_HEALTH_STATUS" not in values
        assert values["DYN_DISCOVERY_BACKEND"] == "kubernetes"  # PreservesDiscoveryBackend
        assert "NNODES" not in values  # SingleNodeNoNNODES
        assert engine["ports"] == [{"protocol": "TCP", "name": f"system-{i}", "containerPort": 9090 + i}]
        assert engine["livenessProbe"]["httpGet"]["port"] == f"system-{i}"
        assert engine["readinessProbe"]["httpGet"]["port"] == f"system-{i}"
    assert pod["containers"][1]["args"] == ["--master-port", "29600"]
    assert "args" not in pod["containers"][0]


def test_multinode_sets_nnodes() -> None:
    pod = engine_pod()
    failover.build_failover_pod(pod, 3, "vllm")
    assert env(pod["containers"][0])["NNODES"] == "3"


@pytest.mark.parametrize(
    ("key", "before", "after"),
    [
        ("args", ["--master-port", "29500"], ["--master-port", "29600"]),
        ("args", ["python3 -m dynamo.vllm --master-port 30000 --tp 2"], ["python3 -m dynamo.vllm --master-port 30100 --tp 2"]),
        ("command", ["sh", "-c", "run --master-port 29501"], ["sh", "-c", "run --master-port 29601"]),
    ],
)
def test_master_port_staggered_for_engine_one(key: str, before: list[str], after: list[str]) -> None:
    pod = engine_pod(**{key: before})
    failover.build_failover_pod(pod, 1, "vllm")
    assert pod["containers"][0][key] == before
    assert pod["containers"][1][key] == after


def test_preserves_dra_claim() -> None:
    pod = engine_pod()
    gms.apply_intra_pod_gms(pod, [], "dgd", "worker")
    failover.build_failover_pod(pod, 1, "vllm")
    for engine in pod["containers"][:2]:
        assert engine["resources"]["claims"] == [{"name": "intrapod-shared-gpu"}]


def test_intra_pod_mode_and_engine_names() -> None:
    assert failover.is_intra_pod(None) and failover.is_intra_pod("") and failover.is_intra_pod("IntraPod")
    assert not failover.is_intra_pod("InterPod")
    assert [f"engine-{i}" for i in range(failover.ENGINE_COUNT)] == ["engine-0", "engine-1"]


# Intra-pod GMS (dra.ApplyClaim, gms.EnsureServerSidecar / EnsureClient)


def test_apply_claim_replaces_gpu_and_mig_resources() -> None:
    pod = {"containers": [{"name": "main", "resources": {"limits": {"nvidia.com/mig-3g.20gb": "1", "cpu": "2"}, "requests": {"nvidia.com/gpu": "1"}}}]}
    gms.apply_claim(pod, "tmpl")
    main = pod["containers"][0]
    assert main["resources"] == {"limits": {"cpu": "2"}, "claims": [{"name": "intrapod-shared-gpu"}]}
    assert pod["resourceClaims"] == [{"name": "intrapod-shared-gpu", "resourceClaimTemplateName": "tmpl"}]
    assert pod["tolerations"] == [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]


def test_apply_claim_overrides_operator_owned_claim_and_targets_first_container() -> None:
    pod = {
        "containers": [{"name": "a"}, {"name": "b", "resources": {"limits": {"nvidia.com/gpu": "1"}}}],
        "resourceClaims": [{"name": "intrapod-shared-gpu", "resourceClaimName": "old"}],
        "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
    }
    gms.apply_claim(pod, "new")
    assert pod["resourceClaims"] == [{"name": "intrapod-shared-gpu", "resourceClaimTemplateName": "new"}]
    assert pod["containers"][1]["resources"] == {"limits": {"nvidia.com/gpu": "1"}}
    assert len(pod["tolerations"]) == 1
    with pytest.raises(RenderError, match="pod spec must have at least one container for DRA claim"):
        gms.apply_claim({"containers": []}, "x")


def test_server_sidecar_is_idempotent() -> None:
    pod = engine_pod()
    gms.apply_intra_pod_gms(pod, ["frontend-sidecar"], "dgd", "Worker")
    once = copy.deepcopy(pod)
    gms.ensure_server_sidecar(pod, pod["containers"][0])
    assert pod == once
    assert pod["initContainers"] == [gms.server_container("img:1")]
    assert pod["resourceClaims"][0]["resourceClaimTemplateName"] == "dgd-worker-gpu"
    for container in pod["containers"]:
        assert env(container)["GMS_SOCKET_DIR"] == "/gms-intrapod-control"
        assert {"name": "gms-intrapod-control", "mountPath": "/gms-intrapod-control"} in container["volumeMounts"]


def test_extra_client_container_errors() -> None:
    containers = [{"name": "main"}, {"name": "loader"}]
    assert gms.extra_client_containers_error(["loader"], containers) is None
    assert gms.extra_client_containers_error(["missing-b", "missing-a"], containers) == (
        'gpuMemoryService.extraClientContainers references missing pod containers ["missing-a" "missing-b"]'
    )
    assert gms.extra_client_containers_error(["loader", "loader", "x"], containers) == (
        'gpuMemoryService.extraClientContainers contains duplicate names ["loader"]; references missing pod containers ["x"]'
    )


def test_resource_claim_template() -> None:
    assert gms.claim_template_name("my-dgd", "VllmWorker") == "my-dgd-vllmworker-gpu"
    template = gms.resource_claim_template("t", "ns", 2, "")
    request = template["spec"]["spec"]["devices"]["requests"][0]
    assert request == {"name": "gpus", "exactly": {"deviceClassName": "gpu.nvidia.com", "allocationMode": "ExactCount", "count": 2}}
    custom = gms.resource_claim_template("t", "ns", 1, "gpu.example.com")
    assert custom["spec"]["spec"]["devices"]["requests"][0]["exactly"]["deviceClassName"] == "gpu.example.com"


# Inter-pod GMS (Grove pathway helpers)


def test_weight_server_pod_spec() -> None:
    base = engine_pod()
    result = failover.weight_server_pod_spec(base, 0, 8)
    c = result["containers"][0]
    assert c["command"] == ["bash", "-c"]
    assert "gpu_memory_service.cli.server" in c["args"][0]
    assert "livenessProbe" not in c and "readinessProbe" not in c
    assert c["startupProbe"]["exec"]["command"] == failover.gms_startup_probe_command(8)
    assert c["startupProbe"]["exec"]["command"][2] == "test $(ls /run/gms/shared/gms_*.sock 2>/dev/null | wc -l) -ge 16"
    assert c["resources"]["limits"] == {"memory": "64Gi"}
    assert {"name": "gms-shared", "hostPath": {"path": "/run/gms", "type": "DirectoryOrCreate"}} in result["volumes"]
    assert env(c)["GMS_SOCKET_DIR"] == "/run/gms/shared"
    (init,) = result["initContainers"]
    assert init["name"] == "fix-gms-perms" and init["image"] == "img:1"
    assert init["securityContext"] == {"runAsUser": 0, "runAsNonRoot": False}
    assert base == engine_pod()  # the base is not mutated
    assert failover.weight_server_pod_spec({}, 0, 1) == {}
    rank3 = failover.weight_server_pod_spec({"containers": [{"name": "engine"}]}, 3, 4)
    assert rank3["containers"][0]["volumeMounts"][0]["subPathExpr"] == "$(GROVE_PCSG_NAME)-$(GROVE_PCSG_INDEX)/rank-3"


@pytest.mark.parametrize(("inter_pod_failover", "restart"), [(True, "Never"), (False, None)])
def test_augment_engine_for_gms(inter_pod_failover: bool, restart: str | None) -> None:
    pod = engine_pod()
    failover.augment_engine_for_gms(pod, 1, inter_pod_failover)
    c = pod["containers"][0]
    values = env(c)
    assert values["ENGINE_ID"] == {"fieldRef": {"fieldPath": "metadata.labels['grove.io/podclique-pod-index']"}}
    assert values["GMS_SOCKET_DIR"] == "/run/gms/shared"
    assert values["FAILOVER_LOCK_PATH"] == "/run/gms/shared/failover.lock"
    assert values["DYN_SYSTEM_STARTING_HEALTH_STATUS"] == "notready"
    assert values["KEEP_ME"] == "yes"
    assert "DYN_SYSTEM_USE_ENDPOINT_HEALTH_STATUS" not in values and "DYN_VLLM_GMS_SHADOW_MODE" not in values
    assert "nvidia.com/gpu" not in c["resources"]["limits"]
    assert pod["initContainers"][0]["volumeMounts"][0]["subPathExpr"] == "$(GROVE_PCSG_NAME)-$(GROVE_PCSG_INDEX)/rank-1"
    assert pod.get("restartPolicy") == restart


@pytest.mark.parametrize(
    ("service", "rank", "want"),
    [("my-svc", 0, "my-svc-gpu-rank-0"), ("llama", 2, "llama-gpu-rank-2"), ("VllmWorker", 0, "vllmworker-gpu-rank-0"),
     ("VLLMWorker", 2, "vllmworker-gpu-rank-2"), ("Vllm.Worker", 1, "vllm-worker-gpu-rank-1")],
)
def test_rct_name(service: str, rank: int, want: str) -> None:
    assert failover.rct_name(service, rank) == want


def test_roles_claim_templates_and_sharing() -> None:
    single = failover.expand_gms_roles("svc", 1, 2)
    assert single == [failover.ServiceRole("svc-gms-0", "gms", 1, 0), failover.ServiceRole("svc", "main", 2, 0)]
    configs = failover.resource_claim_template_configs("VllmWorker", "gpu.nvidia.com/h100", 8, single)
    assert [c["name"] for c in configs] == ["vllmworker-gpu-rank-0"]
    assert configs[0]["templateSpec"]["spec"]["devices"]["requests"][0]["exactly"] == {
        "deviceClassName": "gpu.nvidia.com/h100", "allocationMode": "ExactCount", "count": 8,
    }
    multi = failover.expand_gms_roles("svc", 2, 3)
    assert [(r.name, r.role, r.replicas, r.rank) for r in multi] == [
        ("svc-gms-0", "gms", 1, 0), ("svc-ldr", "leader", 3, 0), ("svc-gms-1", "gms", 1, 1), ("svc-wkr-1", "worker", 3, 1),
    ]
    assert [c["name"] for c in failover.resource_claim_template_configs("VllmDecodeWorker", "", 4, multi)] == [
        "vllmdecodeworker-gpu-rank-0", "vllmdecodeworker-gpu-rank-1",
    ]
    assert failover.resource_sharing_entries("svc", multi) == [
        {"name": "svc-gpu-rank-0", "scope": "PerReplica", "filter": {"childCliqueNames": ["svc-gms-0", "svc-ldr"]}},
        {"name": "svc-gpu-rank-1", "scope": "PerReplica", "filter": {"childCliqueNames": ["svc-gms-1", "svc-wkr-1"]}},
    ]
