"""Pod templates and the workload objects: Deployment, or LeaderWorkerSet for multinode.

Mirrors: internal/controller/dynamocomponentdeployment_renderer.go (generatePodTemplateSpec,
renderMultinodePodTemplateSpecs, getDCDWorkloadPodLabels) and
internal/controller/dynamocomponentdeployment_controller.go (generateDeployment,
generateLeaderWorkerSet, checkMainContainer, getDeploymentRollingUpdateMaxSurgeAndMaxUnavailable).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from renderer import consts
from renderer.gocompat import gotypes
from renderer.admission.api import DCD
from renderer.pod.checkpoint import STARTUP_POLICY_IMMEDIATE, STARTUP_POLICY_WAIT, CheckpointInfo
from renderer.pod.checkpoint_restore import (
    effective_seccomp_profile,
    inject_restore,
    resolve_restore,
    restore_candidate_metadata,
    restore_pod_metadata,
)
from renderer.cluster.state import ClusterState
from renderer.config import RenderConfig
from renderer.pod.labels import (
    component_name,
    dynamo_namespace,
    is_k8s_discovery_enabled,
    kube_annotations,
    kube_labels,
    object_meta,
    resource_annotations,
)
from renderer.pod.naming import lws_name
from renderer.pod.podspec import generate_base_pod_spec
from renderer.results import RenderError

def render_pod_template(
    dcd: DCD,
    workload_type: str,
    config: RenderConfig,
    cluster: ClusterState,
    gpu_count: Callable[[], int],
    checkpoint: CheckpointInfo | None,
    role: str,
) -> dict[str, Any]:
    """The pod template of one role: operator labels, annotations and the base pod spec.

    ``checkpoint`` is the resolved checkpoint of a DCD that enables one under the checkpoint
    gate (None otherwise).

    Mirrors: internal/controller/dynamocomponentdeployment_renderer.go generatePodTemplateSpec.
    """
    labels = kube_labels(dcd)
    annotations = kube_annotations(dcd)
    # Metrics are on unless the pod template annotation says exactly "false".
    if annotations.get(consts.ANNOTATION_ENABLE_METRICS) != consts.LABEL_VALUE_FALSE:
        labels[consts.LABEL_METRICS_ENABLED] = consts.LABEL_VALUE_TRUE
    if dcd.labels.get(consts.LABEL_GRAPH_DEPLOYMENT_NAME):
        labels[consts.LABEL_GRAPH_DEPLOYMENT_NAME] = dcd.labels[consts.LABEL_GRAPH_DEPLOYMENT_NAME]
    elif dcd.owner_dgd:
        labels[consts.LABEL_GRAPH_DEPLOYMENT_NAME] = dcd.owner_dgd
    if workload_type:
        labels[consts.LABEL_COMPONENT_TYPE] = workload_type
    if name := component_name(dcd):
        labels[consts.LABEL_COMPONENT] = name
    if namespace := dynamo_namespace(dcd):
        labels[consts.LABEL_NAMESPACE] = namespace
    if dcd.labels.get(consts.LABEL_WORKER_HASH):
        labels[consts.LABEL_WORKER_HASH] = dcd.labels[consts.LABEL_WORKER_HASH]

    pod_spec = generate_base_pod_spec(dcd, workload_type, role, config.operator, cluster, gpu_count, checkpoint, release=config.release)
    # Under the checkpoint gate, a pod waiting for its checkpoint becomes a restore target once it is Ready.
    if config.checkpoint_enabled and (checkpoint is None or checkpoint.startup_policy == STARTUP_POLICY_WAIT):
        restore = resolve_restore(checkpoint, config.operator.checkpoint.storage, dcd.namespace, cluster)
        pod_spec = inject_restore(pod_spec, restore, effective_seccomp_profile(config.operator.checkpoint))
    if not pod_spec.get("containers"):
        raise RenderError("no containers found in base pod spec", "spec.podTemplate.spec.containers")

    labels[consts.LABEL_SELECTOR] = dcd.name
    if is_k8s_discovery_enabled(config.operator.discovery.backend, annotations):
        labels[consts.LABEL_DISCOVERY_BACKEND] = consts.DISCOVERY_BACKEND_KUBERNETES
        labels[consts.LABEL_DISCOVERY_ENABLED] = consts.LABEL_VALUE_TRUE
    # Checkpoint metadata: restore-candidate annotations (Immediate), else restore-target metadata or a scrub.
    if checkpoint is not None and checkpoint.startup_policy in ("", STARTUP_POLICY_IMMEDIATE):
        labels, annotations = restore_candidate_metadata(labels, annotations, checkpoint)
    else:
        labels, annotations = restore_pod_metadata(labels, annotations, checkpoint, config.operator.checkpoint.storage)

    # ServiceAccount of last resort: a labelled component-pod ServiceAccount, else "default".
    if not pod_spec.get("serviceAccountName"):
        account, found = cluster.component_service_account(dcd.namespace)
        pod_spec["serviceAccountName"] = account if found else consts.DEFAULT_SERVICE_ACCOUNT_NAME

    metadata: dict[str, Any] = {}
    if labels:
        metadata["labels"] = labels
    if annotations:
        metadata["annotations"] = annotations
    return go_encode("PodTemplateSpec", {"metadata": metadata, "spec": pod_spec}, "spec.template")


def go_encode(type_name: str, data: dict[str, Any], path: str) -> dict[str, Any]:
    """What the operator's typed Go object looks like once the API server stores it.

    The pod template goes through Go's encoding (``resources: {}`` on every container, no
    omitempty zero values) and the JSON nulls Go writes for unset non-omitempty pointers are
    dropped, as the API server drops them. Any problem here is a bug in this renderer.
    """
    encoded, problems = gotypes.normalize(type_name, data, path)
    if problems or not isinstance(encoded, dict):
        raise AssertionError(f"rendered {type_name} is not a valid Go object: {[p.line() for p in problems]}")
    cleaned: dict[str, Any] = gotypes.drop_nulls(encoded)
    return cleaned


_ATOI = re.compile(r"^[+-]?[0-9]+$")


def _int_or_string(value: str) -> int | str:
    """Mirrors: k8s.io/apimachinery intstr.Parse (strconv.Atoi, else the string)."""
    if _ATOI.fullmatch(value):
        number = int(value)
        if -(2**63) <= number < 2**63:
            return number
    return value


def deployment_strategy(dcd: DCD, annotations: dict[str, str]) -> dict[str, Any]:
    """RollingUpdate with 25%/25% unless annotated; Recreate when asked for exactly.

    Mirrors: internal/controller/dynamocomponentdeployment_controller.go generateDeployment
    (strategy) and deployment_strategy.go deploymentStrategyFromAnnotations.
    """
    if resource_annotations(dcd).get(consts.ANNOTATION_DEPLOYMENT_STRATEGY) == consts.DEPLOYMENT_STRATEGY_RECREATE:
        return {"type": "Recreate"}
    surge = annotations.get(consts.ANNOTATION_MAX_SURGE) or consts.DEFAULT_MAX_SURGE
    unavailable = annotations.get(consts.ANNOTATION_MAX_UNAVAILABLE) or consts.DEFAULT_MAX_UNAVAILABLE
    return {
        "type": "RollingUpdate",
        "rollingUpdate": {"maxSurge": _int_or_string(surge), "maxUnavailable": _int_or_string(unavailable)},
    }


def render_workload(dcd: DCD, workload_type: str, config: RenderConfig, template: Callable[[str], dict[str, Any]]) -> dict[str, Any]:
    """The DCD's workload: a LeaderWorkerSet for multinode under the LWS gate, else a Deployment.

    ``template`` builds the pod template of a role (``render_pod_template`` with the rest bound).
    Mirrors: internal/controller/dynamocomponentdeployment_controller.go Reconcile (its choice of
    workload kind).
    """
    if not dcd.spec.is_multinode:
        return render_deployment(dcd, template(consts.ROLE_MAIN))
    if not config.lws_enabled:
        raise RenderError(
            f"multinode DCD needs LeaderWorkerSet but the LWS gate is off ({config.lws_reason}); the operator "
            "would render a broken single-pod Deployment, so this is refused",
            "spec.multinode.nodeCount",
        )
    return render_leader_worker_set(dcd, workload_type, template)


def render_deployment(dcd: DCD, template: dict[str, Any]) -> dict[str, Any]:
    """Mirrors: internal/controller/dynamocomponentdeployment_controller.go generateDeployment."""
    annotations = kube_annotations(dcd)
    spec: dict[str, Any] = {}
    if dcd.spec.replicas is not None:
        spec["replicas"] = dcd.spec.replicas
    spec["selector"] = {"matchLabels": {consts.LABEL_SELECTOR: dcd.name}}
    spec["template"] = template
    spec["strategy"] = deployment_strategy(dcd, annotations)
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": object_meta(dcd.name, dcd.namespace, kube_labels(dcd), annotations),
        "spec": spec,
    }


def workload_pod_labels(dcd: DCD, workload_type: str) -> dict[str, str]:
    """Labels overlaid on both LWS templates.

    Mirrors: internal/controller/dynamocomponentdeployment_renderer.go getDCDWorkloadPodLabels.
    """
    labels = kube_labels(dcd)
    if not workload_type:
        return labels
    labels[consts.LABEL_COMPONENT_TYPE] = workload_type
    if (
        workload_type == consts.COMPONENT_TYPE_WORKER
        and dcd.component_type in (consts.COMPONENT_TYPE_PREFILL, consts.COMPONENT_TYPE_DECODE)
        and not labels.get(consts.LABEL_SUB_COMPONENT_TYPE)
    ):
        labels[consts.LABEL_SUB_COMPONENT_TYPE] = dcd.component_type
    return labels


def check_main_container(pod_spec: dict[str, Any], role: str) -> None:
    """LWS pods need a main container with a command and args.

    Mirrors: internal/controller/dynamocomponentdeployment_controller.go checkMainContainer.
    """
    wrap = (
        "generateLeaderPodTemplateSpec: failed to check main container"
        if role == consts.ROLE_LEADER
        else "generateWorkerPodTemplateSpec: failed to check LWS worker main container"
    )
    containers = pod_spec.get("containers") or []
    if not containers:
        raise RenderError(f"{wrap}: No containers found in pod spec", "spec.podTemplate.spec.containers")
    for container in containers:
        if container.get("name") != consts.MAIN_CONTAINER_NAME:
            continue
        if not container.get("command"):
            raise RenderError(f"{wrap}: container Command cannot be nil for LWS pod", "spec.podTemplate.spec.containers[main].command")
        if not container.get("args"):
            raise RenderError(f"{wrap}: container Args cannot be empty for LWS pod", "spec.podTemplate.spec.containers[main].args")
        return
    raise RenderError(f"{wrap}: main container not found in pod spec", "spec.podTemplate.spec.containers")


def render_leader_worker_set(dcd: DCD, workload_type: str, template: Callable[[str], dict[str, Any]]) -> dict[str, Any]:
    """One LeaderWorkerSet ``<dcd>-0`` whose groups are the DCD's replicas.

    Mirrors: internal/controller/dynamocomponentdeployment_controller.go generateLeaderWorkerSet
    and dynamocomponentdeployment_renderer.go renderMultinodePodTemplateSpecs.
    """
    overlay = workload_pod_labels(dcd, workload_type)
    templates: dict[str, dict[str, Any]] = {}
    for role in (consts.ROLE_LEADER, consts.ROLE_WORKER):
        pod_template = template(role)
        labels = dict(pod_template["metadata"].get("labels") or {})
        labels.update(overlay)
        labels[consts.LABEL_ROLE] = role
        labels.pop(consts.LABEL_SELECTOR, None)
        pod_template["metadata"]["labels"] = labels
        check_main_container(pod_template["spec"], role)
        templates[role] = pod_template
    return {
        "apiVersion": consts.LWS_API_VERSION,
        "kind": "LeaderWorkerSet",
        "metadata": object_meta(lws_name(dcd.name), dcd.namespace, kube_labels(dcd), None),
        "spec": {
            "replicas": dcd.spec.replicas if dcd.spec.replicas is not None else 1,
            "startupPolicy": "LeaderCreated",
            "leaderWorkerTemplate": {
                "leaderTemplate": templates[consts.ROLE_LEADER],
                "workerTemplate": templates[consts.ROLE_WORKER],
                "size": dcd.spec.number_of_nodes,
            },
        },
    }
