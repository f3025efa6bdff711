"""The Argo CD health checks of argocd/health (LeaderWorkerSet, DGD, DCD), run in Lua 5.1.

Argo CD runs resource health checks in gopher-lua (Lua 5.1) with the live object as the global
``obj``; the script's return value is ``{status, message}``. The status documents below have
the shapes the controllers write:

- LeaderWorkerSet: kubernetes-sigs/lws v0.9.0 pkg/controllers/leaderworkerset_controller.go
  (updateStatus, updateConditions, makeCondition: Available/AllGroupsReady "All replicas are
  ready", Progressing/GroupsProgressing "Replicas are progressing", UpdateInProgress/
  GroupsUpdating "Rolling Upgrade is in progress"; Available and Progressing or UpdateInProgress
  are exclusive, the losing one is kept False; zero counts are omitted, omitempty);
- DynamoGraphDeployment: the operator's internal/controller/dgd_workload_program.go (Fail,
  applyReconcileResult, readyCondition) and dgd_workload_result.go (reasons
  all_resources_are_ready, some_resources_are_not_ready);
- DynamoComponentDeployment: internal/controller/dynamocomponentdeployment_controller.go
  (the Unknown conditions of the first reconcile, the Reconciling failure, the refused
  checkpoint configuration, setStatusConditionAndServiceReplicaStatus).

Every recipe that installs the checks (the argocd-cm Components, the argo-cd Helm chart values
and the Argo CD Operator's ArgoCD resource) carries each script byte for byte.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from lupa import lua51

from tests.schemas import FORMATS, CRDValidator, structural_to_jsonschema

ROOT = Path(__file__).resolve().parents[2]
ARGOCD = ROOT / "argocd"
# Every health check shipped: argocd-cm key suffix (<group>_<Kind>) -> script file.
CHECKS = {
    "leaderworkerset.x-k8s.io_LeaderWorkerSet": ARGOCD / "health" / "leaderworkerset-health.lua",
    "nvidia.com_DynamoGraphDeployment": ARGOCD / "health" / "dynamographdeployment-health.lua",
    "nvidia.com_DynamoComponentDeployment": ARGOCD / "health" / "dynamocomponentdeployment-health.lua",
    "grove.io_PodCliqueSet": ARGOCD / "grove" / "podcliqueset-health.lua",
}
KEY = "resource.customizations.health."
T = "2026-08-21T10:00:00Z"


def health(script: Path, obj: dict[str, Any]) -> tuple[str, str]:
    lua = lua51.LuaRuntime()
    lua.globals().obj = lua.table_from(obj, recursive=True)
    result = lua.execute(script.read_text(encoding="utf-8"))
    return str(result["status"]), str(result["message"])


def condition(kind: str, status: str, reason: str, message: str, generation: int | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"type": kind, "status": status, "reason": reason, "message": message, "lastTransitionTime": T}
    if generation is not None:
        out["observedGeneration"] = generation
    return out


# ---------------------------------------------------------------------------------------------
# LeaderWorkerSet

LWS = CHECKS["leaderworkerset.x-k8s.io_LeaderWorkerSet"]
SELECTOR = "leaderworkerset.sigs.k8s.io/name=llm-decode,leaderworkerset.sigs.k8s.io/worker-index=0"


def lws(generation: int = 1, replicas: int | None = 2, status: dict[str, Any] | None = None) -> dict[str, Any]:
    obj: dict[str, Any] = {
        "apiVersion": "leaderworkerset.x-k8s.io/v1", "kind": "LeaderWorkerSet",
        "metadata": {"name": "llm-decode", "generation": generation}, "spec": {"leaderWorkerTemplate": {"size": 2}},
    }
    if replicas is not None:
        obj["spec"]["replicas"] = replicas
    if status is not None:
        obj["status"] = status
    return obj


def lws_status(generation: int, conditions: list[dict[str, Any]], **counts: int) -> dict[str, Any]:
    return {"observedGeneration": generation, "hpaPodSelector": SELECTOR, "conditions": conditions, **counts}


def lws_v08_status(conditions: list[dict[str, Any]], **counts: int) -> dict[str, Any]:
    """The status LWS v0.8.0 writes: no observedGeneration (it arrived in v0.9.0)."""
    return {"hpaPodSelector": SELECTOR, "conditions": conditions, **counts}


def partitioned(obj: dict[str, Any], partition: int) -> dict[str, Any]:
    obj["spec"]["rolloutStrategy"] = {"type": "RollingUpdate", "rollingUpdateConfiguration": {"partition": partition, "maxUnavailable": 1}}
    return obj


PROGRESSING = condition("Progressing", "True", "GroupsProgressing", "Replicas are progressing", 1)
AVAILABLE = condition("Available", "True", "AllGroupsReady", "All replicas are ready", 1)


@pytest.mark.parametrize(
    "obj, expected",
    [
        (lws(status=None), ("Progressing", "Waiting for the LeaderWorkerSet controller to report status")),
        # Just created: the leader StatefulSet exists, no group is ready yet (zero counts omitted).
        (lws(status=lws_status(1, [PROGRESSING], replicas=2)), ("Progressing", "Updated groups: 0 of 2")),
        # Pods Pending for GPUs: every group is on the latest revision, none is ready.
        (lws(status=lws_status(1, [PROGRESSING], replicas=2, updatedReplicas=2)), ("Progressing", "Ready groups: 0 of 2")),
        (lws(status=lws_status(1, [PROGRESSING], replicas=2, updatedReplicas=2, readyReplicas=1)), ("Progressing", "Ready groups: 1 of 2")),
        (
            lws(status=lws_status(1, [{**PROGRESSING, "status": "False"}, AVAILABLE], replicas=2, updatedReplicas=2, readyReplicas=2)),
            ("Healthy", "All replicas are ready"),
        ),
        # A new spec the controller has not seen yet, while the old one is still Available.
        (
            lws(generation=2, status=lws_status(1, [{**PROGRESSING, "status": "False"}, AVAILABLE], replicas=2, updatedReplicas=2, readyReplicas=2)),
            ("Progressing", "Waiting for the LeaderWorkerSet controller to observe the latest spec"),
        ),
        # A rolling update with a surge group: counts include the surge, Available is False.
        (
            lws(generation=2, status=lws_status(2, [
                condition("Progressing", "True", "GroupsProgressing", "Replicas are progressing", 2),
                condition("Available", "False", "AllGroupsReady", "All replicas are ready", 2),
                condition("UpdateInProgress", "True", "GroupsUpdating", "Rolling Upgrade is in progress", 2),
            ], replicas=3, updatedReplicas=2, readyReplicas=3)),
            ("Progressing", "Rolling Upgrade is in progress"),
        ),
        (
            lws(generation=2, status=lws_status(2, [
                condition("Progressing", "True", "GroupsProgressing", "Replicas are progressing", 2),
                condition("Available", "False", "AllGroupsReady", "All replicas are ready", 2),
                condition("UpdateInProgress", "True", "GroupsUpdating", "Rolling Upgrade is in progress", 2),
            ], replicas=3, updatedReplicas=1, readyReplicas=3)),
            ("Progressing", "Updated groups: 1 of 2"),
        ),
        # The update is done: UpdateInProgress and Progressing are kept False, Available True.
        (
            lws(generation=2, status=lws_status(2, [
                condition("Progressing", "False", "GroupsProgressing", "Replicas are progressing", 2),
                condition("Available", "True", "AllGroupsReady", "All replicas are ready", 2),
                condition("UpdateInProgress", "False", "GroupsUpdating", "Rolling Upgrade is in progress", 2),
            ], replicas=2, updatedReplicas=2, readyReplicas=2)),
            ("Healthy", "All replicas are ready"),
        ),
        # Counts are there but Available is not (yet) True.
        (
            lws(status=lws_status(1, [PROGRESSING], replicas=2, updatedReplicas=2, readyReplicas=2)),
            ("Progressing", "Replicas are progressing"),
        ),
        (lws(status=lws_status(1, [], replicas=2, updatedReplicas=2, readyReplicas=2)), ("Progressing", "Waiting for the LeaderWorkerSet to become Available")),
        # spec.replicas defaults to 1 (the CRD's default).
        (lws(replicas=None, status=lws_status(1, [PROGRESSING], replicas=1)), ("Progressing", "Updated groups: 0 of 1")),
        (lws(replicas=None, status=lws_status(1, [AVAILABLE], replicas=1, updatedReplicas=1, readyReplicas=1)), ("Healthy", "All replicas are ready")),
        # Scaled to zero: the controller reports Available with no groups.
        (lws(replicas=0, status=lws_status(1, [AVAILABLE])), ("Healthy", "All replicas are ready")),
        # No released LWS controller reports a failure condition; one of type Failed is Degraded.
        (
            lws(status=lws_status(1, [condition("Failed", "True", "FailedCreate", "pods \"llm-decode-0\" is forbidden", 1)], replicas=2)),
            ("Degraded", 'pods "llm-decode-0" is forbidden'),
        ),
        (
            lws(status=lws_status(1, [condition("Failed", "False", "FailedCreate", "", 1), AVAILABLE], replicas=2, updatedReplicas=2, readyReplicas=2)),
            ("Healthy", "All replicas are ready"),
        ),
        # LWS v0.8 and older write no status.observedGeneration: the generation test is skipped.
        (lws(generation=3, status=lws_v08_status([AVAILABLE], replicas=2, updatedReplicas=2, readyReplicas=2)), ("Healthy", "All replicas are ready")),
        (lws(generation=3, status=lws_v08_status([PROGRESSING], replicas=2, updatedReplicas=2, readyReplicas=1)), ("Progressing", "Ready groups: 1 of 2")),
        # A partitioned rollout (partition 1 of 2 groups): group 0 keeps the old revision on purpose.
        # The controller counts 1 updated group and reports Available once every group is ready and
        # every group at or above the partition is updated: that is the end of this rollout.
        (
            partitioned(lws(generation=2, status=lws_status(2, [
                condition("Progressing", "False", "GroupsProgressing", "Replicas are progressing", 2),
                condition("Available", "True", "AllGroupsReady", "All replicas are ready", 2),
                condition("UpdateInProgress", "False", "GroupsUpdating", "Rolling Upgrade is in progress", 2),
            ], replicas=2, updatedReplicas=1, readyReplicas=2)), 1),
            ("Healthy", "All replicas are ready"),
        ),
        (
            partitioned(lws(generation=2, status=lws_status(2, [
                condition("Progressing", "True", "GroupsProgressing", "Replicas are progressing", 2),
                condition("Available", "False", "AllGroupsReady", "All replicas are ready", 2),
                condition("UpdateInProgress", "True", "GroupsUpdating", "Rolling Upgrade is in progress", 2),
            ], replicas=2, updatedReplicas=0, readyReplicas=2)), 1),
            ("Progressing", "Updated groups: 0 of 1 (partition 1)"),
        ),
    ],
    ids=[
        "no-status", "created", "pending-gpus", "one-ready", "healthy", "not-observed", "surge-update", "update-behind",
        "update-done", "available-missing-progressing", "no-conditions", "default-replicas", "default-replicas-healthy",
        "zero-replicas", "failed", "failed-false", "v0.8-healthy", "v0.8-one-ready", "partition-reached", "partition-behind",
    ],
)
def test_leaderworkerset_health(obj: dict[str, Any], expected: tuple[str, str]) -> None:
    assert health(LWS, obj) == expected


def test_rendered_leaderworkerset_is_progressing_until_its_groups_are_ready() -> None:
    """A LeaderWorkerSet dynamo-render renders, as the API server stores it."""
    rendered = next(
        d for d in yaml.safe_load_all((ROOT / "tests/golden/v1alpha1/dcd-lws-multinode/output.yaml").read_text(encoding="utf-8"))
        if d and d.get("kind") == "LeaderWorkerSet"
    )
    live = {**rendered, "metadata": {**rendered["metadata"], "generation": 1}}
    assert health(LWS, live)[0] == "Progressing"
    desired = rendered["spec"].get("replicas", 1)
    live["status"] = lws_status(1, [AVAILABLE], replicas=desired, updatedReplicas=desired, readyReplicas=desired)
    assert health(LWS, live) == ("Healthy", "All replicas are ready")
    live["status"] = lws_status(1, [PROGRESSING], replicas=desired, updatedReplicas=desired, readyReplicas=desired - 1)
    assert health(LWS, live) == ("Progressing", f"Ready groups: {desired - 1} of {desired}")


# ---------------------------------------------------------------------------------------------
# DynamoGraphDeployment

DGD = CHECKS["nvidia.com_DynamoGraphDeployment"]


def dgd(generation: int = 3, status: dict[str, Any] | None = None) -> dict[str, Any]:
    obj: dict[str, Any] = {
        "apiVersion": "nvidia.com/v1beta1", "kind": "DynamoGraphDeployment",
        "metadata": {"name": "llm", "generation": generation}, "spec": {"components": []},
    }
    if status is not None:
        obj["status"] = status
    return obj


def ready(status: str, reason: str, message: str, generation: int = 3) -> dict[str, Any]:
    return condition("Ready", status, reason, message, generation)


NOT_READY = "Resources not ready: llm-decode: Component deployment not ready - Available condition not true"


@pytest.mark.parametrize(
    "obj, expected",
    [
        (dgd(status=None), ("Progressing", "Waiting for the Dynamo operator to report status")),
        # The CRD's default state before the first reconcile.
        # (No observedGeneration: the state decides, as for operators that never write the field.)
        (dgd(status={"state": "initializing"}), ("Progressing", "State: initializing")),
        # An operator that writes no observedGeneration: the generation test is skipped, as Argo CD's
        # built-in checks skip it when the field is absent.
        (
            dgd(status={"state": "successful", "conditions": [ready("True", "all_resources_are_ready", "All resources are ready")]}),
            ("Healthy", "All resources are ready"),
        ),
        (dgd(status={"observedGeneration": 3, "state": "initializing"}), ("Progressing", "State: initializing")),
        (
            dgd(status={"observedGeneration": 3, "state": "pending", "conditions": [ready("False", "some_resources_are_not_ready", NOT_READY)]}),
            ("Progressing", NOT_READY),
        ),
        (
            dgd(status={"observedGeneration": 3, "state": "pending", "conditions": [ready("False", "rolling_update_in_progress", "Rolling update in progress")],
                        "rollingUpdate": {"phase": "InProgress"}}),
            ("Progressing", "Rolling update in progress"),
        ),
        (
            dgd(status={"observedGeneration": 3, "state": "successful", "conditions": [ready("True", "all_resources_are_ready", "All resources are ready")]}),
            ("Healthy", "All resources are ready"),
        ),
        # A new spec: the old generation's success does not count.
        (
            dgd(generation=4, status={"observedGeneration": 3, "state": "successful", "conditions": [ready("True", "all_resources_are_ready", "All resources are ready")]}),
            ("Progressing", "Waiting for the Dynamo operator to observe the latest spec"),
        ),
        # A failed reconcile of the current generation: observedGeneration does not move.
        (
            dgd(generation=4, status={"observedGeneration": 3, "state": "failed", "conditions": [
                ready("False", "failed_to_reconcile_resources", 'unsupported backendFramework "foo"', generation=4)]}),
            ("Degraded", 'unsupported backendFramework "foo"'),
        ),
        (
            dgd(status={"observedGeneration": 3, "state": "failed", "conditions": [ready("False", "unsupported_workload_provider", "")]}),
            ("Degraded", "unsupported_workload_provider"),
        ),
        # A failure of an older generation is stale once the spec changed.
        (
            dgd(generation=5, status={"observedGeneration": 3, "state": "failed", "conditions": [ready("False", "failed_to_reconcile_resources", "bad", generation=4)]}),
            ("Progressing", "Waiting for the Dynamo operator to observe the latest spec"),
        ),
    ],
    ids=["no-status", "default-state", "no-observed-generation-successful", "initializing", "pending", "rolling-update", "successful", "new-generation", "failed", "failed-reason-only", "failed-stale"],
)
def test_dynamographdeployment_health(obj: dict[str, Any], expected: tuple[str, str]) -> None:
    assert health(DGD, obj) == expected


# ---------------------------------------------------------------------------------------------
# DynamoComponentDeployment

DCD = CHECKS["nvidia.com_DynamoComponentDeployment"]


def dcd(generation: int = 2, status: dict[str, Any] | None = None) -> dict[str, Any]:
    obj: dict[str, Any] = {
        "apiVersion": "nvidia.com/v1beta1", "kind": "DynamoComponentDeployment",
        "metadata": {"name": "llm-decode", "generation": generation}, "spec": {"componentType": "decode"},
    }
    if status is not None:
        obj["status"] = status
    return obj


STARTING = [
    condition("Available", "Unknown", "Reconciling", "Starting to reconcile DynamoComponentDeployment"),
    condition("DynamoComponentReady", "Unknown", "Reconciling", "Starting to reconcile DynamoComponentDeployment"),
]


def reconciled(available: str, reason: str, message: str, ready_reason: str, ready_message: str, generation: int = 2) -> dict[str, Any]:
    return {
        "observedGeneration": generation,
        "conditions": [condition("Available", available, reason, message), condition("DynamoComponentReady", available, ready_reason, ready_message)],
        "component": {"componentKind": "Deployment", "componentNames": ["llm-decode"], "replicas": 1, "updatedReplicas": 1},
    }


@pytest.mark.parametrize(
    "obj, expected",
    [
        (dcd(status=None), ("Progressing", "Waiting for the Dynamo operator to report status")),
        (dcd(status={"conditions": STARTING}), ("Progressing", "Waiting for the Dynamo operator to observe the latest spec")),
        (
            dcd(status=reconciled("False", "DeploymentNotReady", "Deployment is not ready", "ComponentNotReady", "DynamoComponent is not ready")),
            ("Progressing", "Deployment is not ready"),
        ),
        (
            dcd(status=reconciled("True", "LeaderWorkerSetReady", "LeaderWorkerSet is ready", "ComponentReady", "DynamoComponent is ready")),
            ("Healthy", "LeaderWorkerSet is ready"),
        ),
        (
            dcd(generation=3, status=reconciled("True", "DeploymentReady", "Deployment is ready", "ComponentReady", "DynamoComponent is ready")),
            ("Progressing", "Waiting for the Dynamo operator to observe the latest spec"),
        ),
        # A failed reconcile: Available False, reason Reconciling, no observedGeneration on it.
        (
            dcd(generation=3, status={
                "observedGeneration": 2,
                "conditions": [
                    condition("Available", "False", "Reconciling", 'Failed to reconcile DynamoComponentDeployment: services "llm-decode" is forbidden'),
                    condition("DynamoComponentReady", "True", "ComponentReady", "DynamoComponent is ready"),
                ],
            }),
            ("Degraded", 'Failed to reconcile DynamoComponentDeployment: services "llm-decode" is forbidden'),
        ),
        (
            dcd(generation=3, status={
                "observedGeneration": 2,
                "conditions": [condition("Available", "False", "InvalidCheckpointConfiguration", "checkpoint requires ...", 3)],
            }),
            ("Degraded", "checkpoint requires ..."),
        ),
        (
            dcd(generation=4, status={
                "observedGeneration": 2,
                "conditions": [condition("Available", "False", "InvalidCheckpointConfiguration", "checkpoint requires ...", 3)],
            }),
            ("Progressing", "Waiting for the Dynamo operator to observe the latest spec"),
        ),
    ],
    ids=["no-status", "starting", "not-ready", "ready", "new-generation", "reconcile-error", "refused-checkpoint", "refused-checkpoint-stale"],
)
def test_dynamocomponentdeployment_health(obj: dict[str, Any], expected: tuple[str, str]) -> None:
    assert health(DCD, obj) == expected


# ---------------------------------------------------------------------------------------------
# The install recipes


def scripts() -> dict[str, str]:
    return {KEY + suffix: path.read_text(encoding="utf-8") for suffix, path in CHECKS.items()}


def component_checks(folder: Path) -> dict[str, str]:
    """The argocd-cm keys a Component adds, with their file's text."""
    component = yaml.safe_load((folder / "kustomization.yaml").read_text(encoding="utf-8"))
    assert component["kind"] == "Component"
    (generator,) = component["configMapGenerator"]
    assert generator["name"] == "argocd-cm" and generator["behavior"] == "merge"
    assert generator["options"]["disableNameSuffixHash"] is True
    out = {}
    for entry in generator["files"]:
        key, _, file = entry.partition("=")
        out[key] = (folder / file).read_text(encoding="utf-8")
    return out


def test_the_components_install_every_check() -> None:
    assert {**component_checks(ARGOCD / "health"), **component_checks(ARGOCD / "grove")} == scripts()


def test_the_kustomize_install_merges_every_check_into_the_stock_argocd_cm(tmp_path: Path) -> None:
    from tests.unit.test_cmp import build_overlay

    objects = build_overlay(tmp_path)
    (config_map,) = [o for o in objects if o["kind"] == "ConfigMap"]
    stock = yaml.safe_load((ROOT / "tests/data/cmp/argocd-base/argocd-cm.yaml").read_text(encoding="utf-8"))
    assert config_map["metadata"]["name"] == "argocd-cm" and config_map["metadata"]["namespace"] == "argocd"
    assert config_map["metadata"]["labels"] == stock["metadata"]["labels"]
    assert config_map["data"] == {**stock["data"], **scripts()}


def test_the_helm_values_carry_every_check() -> None:
    """argo-helm charts/argo-cd writes ``configs.cm`` keys into argocd-cm as they are (argo-cd.config.cm)."""
    values = yaml.safe_load((ARGOCD / "install" / "helm-values.yaml").read_text(encoding="utf-8"))
    cm = values["configs"]["cm"]
    assert {k: v for k, v in cm.items() if k.startswith(KEY)} == scripts()


def test_the_operator_resource_carries_every_check() -> None:
    """The Argo CD Operator writes each spec.resourceHealthChecks entry to argocd-cm as
    ``resource.customizations.health.<group>_<kind>`` (controllers/argocd/configmap.go getResourceHealthChecks)."""
    cr = yaml.safe_load((ARGOCD / "install" / "argocd-operator.yaml").read_text(encoding="utf-8"))
    checks = cr["spec"]["resourceHealthChecks"]
    crd = json.loads((ROOT / "tests" / "data" / "cmp" / "argocd-operator-repo.json").read_text())
    schema = structural_to_jsonschema(crd["schemas"]["resourceHealthChecks"], root=True)
    assert [e.message for e in CRDValidator(schema, format_checker=FORMATS).iter_errors(checks)] == []
    written = {KEY + (c["group"] + "_" if c.get("group") else "") + c["kind"]: c["check"] for c in checks}
    assert len(written) == len(checks)
    assert written == scripts()


@pytest.mark.parametrize("suffix", sorted(CHECKS))
def test_every_script_returns_a_status_for_an_object_without_status(suffix: str) -> None:
    group, _, kind = suffix.partition("_")
    status, message = health(CHECKS[suffix], {"apiVersion": f"{group}/v1", "kind": kind, "metadata": {"name": "x"}, "spec": {}})
    assert status == "Progressing" and message
