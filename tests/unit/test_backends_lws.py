"""LeaderWorkerSet composition helpers: the main-container check and the workload pod labels.

Restates: internal/controller/dynamocomponentdeployment_controller.go checkMainContainer and the
wrapping in dynamocomponentdeployment_renderer.go generateLeader/WorkerPodTemplateSpec;
getDCDWorkloadPodLabels (spec workloads.md §3.3, podspec.md R-261).
"""

from __future__ import annotations

from typing import Any

import pytest

from renderer import consts
from renderer.results import RenderError
from renderer.objects.workloads import check_main_container, workload_pod_labels
from tests.builders import dcd, parsed_dcd

LEADER_WRAP = "generateLeaderPodTemplateSpec: failed to check main container"
WORKER_WRAP = "generateWorkerPodTemplateSpec: failed to check LWS worker main container"


@pytest.mark.parametrize(
    ("containers", "role", "message", "field"),
    [
        ([], consts.ROLE_LEADER, f"{LEADER_WRAP}: No containers found in pod spec", "spec.podTemplate.spec.containers"),
        ([{"name": "side", "command": ["x"], "args": ["y"]}], consts.ROLE_WORKER,
         f"{WORKER_WRAP}: main container not found in pod spec", "spec.podTemplate.spec.containers"),
        ([{"name": "main", "args": ["y"]}], consts.ROLE_LEADER,
         f"{LEADER_WRAP}: container Command cannot be nil for LWS pod", "spec.podTemplate.spec.containers[main].command"),
        ([{"name": "main", "command": ["sh"], "args": []}], consts.ROLE_WORKER,
         f"{WORKER_WRAP}: container Args cannot be empty for LWS pod", "spec.podTemplate.spec.containers[main].args"),
    ],
)
def test_check_main_container_errors(containers: list[dict[str, Any]], role: str, message: str, field: str) -> None:
    with pytest.raises(RenderError) as err:
        check_main_container({"containers": containers}, role)
    assert (err.value.message, err.value.field) == (message, field)


def test_check_main_container_looks_at_the_main_container_only() -> None:
    spec = {"containers": [{"name": "side"}, {"name": "main", "command": ["sh", "-c"], "args": ["serve"]}]}
    check_main_container(spec, consts.ROLE_LEADER)


def test_workload_pod_labels_without_a_component_type_are_the_kube_labels() -> None:
    assert workload_pod_labels(parsed_dcd(dcd("d", None, type=None), "ns"), "") == {"nvidia.com/dynamo-component": "d", "nvidia.com/dynamo-namespace": "ns-d"}


def test_workload_pod_labels_add_the_component_type() -> None:
    labels = workload_pod_labels(parsed_dcd(dcd("d", None, type="prefill"), "ns"), "prefill")
    assert labels["nvidia.com/dynamo-component-type"] == "prefill"
    assert labels["nvidia.com/dynamo-sub-component-type"] == "prefill"


def test_workload_pod_labels_for_a_legacy_worker_selector_keep_the_sub_component_type() -> None:
    legacy = parsed_dcd(dcd("d", None, type="decode", labels={"nvidia.com/dynamo-component-type": "worker"}), "ns")
    labels = workload_pod_labels(legacy, "worker")
    assert labels["nvidia.com/dynamo-component-type"] == "worker"
    assert labels["nvidia.com/dynamo-sub-component-type"] == "decode"
