"""DCD identity helpers: component name, Dynamo namespace, labels and annotations.

The operator reads part of a DCD's identity through its v1alpha1 view (``dcd.alpha``, see
renderer/conversion/alpha_view.py): a converted object's preserved component
``labels``, ``annotations``, ``dynamoNamespace`` and sub-component type. For a native v1beta1
DCD that view is the plain projection (sub-component type ``prefill``/``decode``, nothing else).

Mirrors: internal/dynamo/v1beta1_helpers.go, internal/controller_common/predicate.go,
internal/controller/dynamocomponentdeployment_renderer.go getDCDWorkloadComponentType.
"""

from __future__ import annotations

from typing import Any

from renderer import consts
from renderer.admission.api import DCD
from renderer.pod.naming import compute_dynamo_namespace, hash_model_name


def is_worker_component(component_type: str) -> bool:
    """Mirrors: internal/dynamo/graph.go IsWorkerComponent."""
    return component_type in consts.WORKER_COMPONENT_TYPES


def discovery_backend(default_backend: str, annotations: dict[str, str]) -> str:
    """The annotation wins whenever the key exists, even with an empty value.

    Mirrors: internal/controller_common/predicate.go GetDiscoveryBackend.
    """
    if consts.ANNOTATION_DISCOVERY_BACKEND in annotations:
        return annotations[consts.ANNOTATION_DISCOVERY_BACKEND]
    return default_backend


def is_k8s_discovery_enabled(default_backend: str, annotations: dict[str, str]) -> bool:
    """Mirrors: internal/controller_common/predicate.go IsK8sDiscoveryEnabled."""
    return discovery_backend(default_backend, annotations) == consts.DISCOVERY_BACKEND_KUBERNETES


def kube_discovery_mode(annotations: dict[str, str]) -> str:
    """Mirrors: internal/controller_common/predicate.go GetKubeDiscoveryMode."""
    if consts.ANNOTATION_KUBE_DISCOVERY_MODE in annotations:
        return annotations[consts.ANNOTATION_KUBE_DISCOVERY_MODE]
    return consts.KUBE_DISCOVERY_MODE_POD


def component_name(dcd: DCD) -> str:
    """spec.name, else the component label, else metadata.name.

    Mirrors: internal/dynamo/v1beta1_helpers.go GetDCDComponentName.
    """
    if dcd.spec.name:
        return dcd.spec.name
    if dcd.labels.get(consts.LABEL_COMPONENT):
        return dcd.labels[consts.LABEL_COMPONENT]
    return dcd.name


def parent_name(dcd: DCD) -> str:
    """The name DGD-scoped things hang off: the owner DGD, else the DCD's own name.

    This is the operator's notion for env, the discovery ServiceAccount and ConfigMap names;
    labels on the DCD are ignored here (unlike ``dynamo_namespace``).
    Mirrors: internal/dynamo/graph.go GenerateBasePodSpecForController.
    """
    return dcd.owner_dgd or dcd.name


def dynamo_namespace(dcd: DCD) -> str:
    """The Dynamo namespace used for labels and selectors.

    The namespace label on the DCD wins; else it is computed from the owner DGD, else the
    graph-deployment label, else the DCD name. This can differ from ``DYN_NAMESPACE`` in the
    pod env, which ignores the labels; the operator does the same.
    Mirrors: internal/dynamo/v1beta1_helpers.go GetDCDDynamoNamespace.
    """
    if dcd.alpha.dynamo_namespace is not None:
        return dcd.alpha.dynamo_namespace  # a preserved v1alpha1 value wins, even ""
    if dcd.labels.get(consts.LABEL_NAMESPACE):
        return dcd.labels[consts.LABEL_NAMESPACE]
    parent = dcd.owner_dgd or dcd.labels.get(consts.LABEL_GRAPH_DEPLOYMENT_NAME, "") or dcd.name
    return compute_dynamo_namespace(dcd.spec.global_dynamo_namespace, dcd.namespace, parent)


def sub_component_type(dcd: DCD) -> str:
    """The v1alpha1 sub-component type: ``prefill``/``decode`` for those types, else a preserved one.

    Mirrors: internal/dynamo/v1beta1_helpers.go GetDCDSubComponentType.
    """
    if dcd.component_type in (consts.COMPONENT_TYPE_PREFILL, consts.COMPONENT_TYPE_DECODE):
        return dcd.component_type
    return dcd.alpha.sub_component_type


# The DCD's own labels that win over the derived ones in its workload's labels.
OBJECT_LABELS_KEPT = (
    consts.LABEL_COMPONENT,
    consts.LABEL_NAMESPACE,
    consts.LABEL_GRAPH_DEPLOYMENT_NAME,
    consts.LABEL_WORKER_HASH,
    consts.LABEL_COMPONENT_CLASS,
)


def kube_labels(dcd: DCD) -> dict[str, str]:
    """Labels of the workload object and the base of the pod labels.

    Mirrors: internal/dynamo/v1beta1_helpers.go GetDCDKubeLabels.
    """
    labels = dict(dcd.labels)
    labels.update(dcd.alpha.labels)
    labels.update(dcd.pod_template_labels)
    if dcd.spec.model_ref is not None and dcd.spec.model_ref.name:
        labels[consts.LABEL_BASE_MODEL_HASH] = hash_model_name(dcd.spec.model_ref.name)
    if sub := sub_component_type(dcd):
        labels[consts.LABEL_SUB_COMPONENT_TYPE] = sub
    if name := component_name(dcd):
        labels[consts.LABEL_COMPONENT] = name
    if namespace := dynamo_namespace(dcd):
        labels[consts.LABEL_NAMESPACE] = namespace
    for key in OBJECT_LABELS_KEPT:
        if dcd.labels.get(key):
            labels[key] = dcd.labels[key]
    return labels


def kube_annotations(dcd: DCD) -> dict[str, str]:
    """Annotations of the workload object and the pods: podTemplate annotations, not DCD metadata.

    The origin-version annotation is dropped; the two topology annotations come only from the
    DCD's own metadata.
    Mirrors: internal/dynamo/v1beta1_helpers.go GetDCDKubeAnnotations.
    """
    annotations = dict(dcd.alpha.annotations)
    annotations.update(dcd.pod_template_annotations)
    if dcd.spec.model_ref is not None and dcd.spec.model_ref.name:
        annotations[consts.ANNOTATION_BASE_MODEL] = dcd.spec.model_ref.name
    annotations.pop(consts.ANNOTATION_OPERATOR_ORIGIN_VERSION, None)
    for key in consts.TOPOLOGY_SOURCE_ANNOTATION_KEYS:
        annotations.pop(key, None)
    for key in consts.TOPOLOGY_SOURCE_ANNOTATION_KEYS:
        if dcd.annotations.get(key):
            annotations[key] = dcd.annotations[key]
    return annotations


def resource_annotations(dcd: DCD) -> dict[str, str]:
    """Annotations consulted for the Deployment strategy type (no stripping, no base model).

    Mirrors: internal/controller/dynamocomponentdeployment_controller.go getResourceAnnotations.
    """
    return {**dcd.alpha.annotations, **dcd.pod_template_annotations}


def has_legacy_worker_selector(labels: dict[str, str], component_type: str) -> bool:
    """Pre-v1beta1 disaggregated workers were selected as ``worker`` plus a sub-component type.

    Mirrors: internal/controller/dynamocomponentdeployment_renderer.go hasLegacyWorkerSelector.
    """
    if labels.get(consts.LABEL_COMPONENT_TYPE) != consts.COMPONENT_TYPE_WORKER:
        return False
    if component_type not in (consts.COMPONENT_TYPE_PREFILL, consts.COMPONENT_TYPE_DECODE):
        return False
    sub = labels.get(consts.LABEL_SUB_COMPONENT_TYPE, "")
    return sub == "" or sub == component_type


def _legacy_alpha_workload_type(dcd: DCD) -> str:
    """Mirrors: internal/dynamo/v1beta1_helpers.go legacyAlphaWorkloadComponentType."""
    labels = dcd.labels
    if not labels.get(consts.LABEL_GRAPH_DEPLOYMENT_NAME) or not labels.get(consts.LABEL_WORKER_HASH):
        return ""
    if labels.get(consts.LABEL_COMPONENT_TYPE) != consts.COMPONENT_TYPE_WORKER:
        return ""
    if dcd.component_type not in (consts.COMPONENT_TYPE_PREFILL, consts.COMPONENT_TYPE_DECODE):
        return ""
    sub = labels.get(consts.LABEL_SUB_COMPONENT_TYPE, "")
    if sub and sub != dcd.component_type:
        return ""
    return consts.COMPONENT_TYPE_WORKER


def workload_component_type(dcd: DCD, existing_legacy: bool = False) -> str:
    """The component type rendered into pod labels, env and the Service selector.

    A prefill/decode DCD keeps ``worker`` when its own labels (or, via ``existing_legacy``, an
    object already running in the cluster) carry the pre-v1beta1 selector, so an operator
    upgrade does not roll the pods.
    Mirrors: internal/controller/dynamocomponentdeployment_renderer.go getDCDWorkloadComponentType
    and internal/dynamo/v1beta1_helpers.go GetDCDWorkloadComponentType.
    """
    component_type = _legacy_alpha_workload_type(dcd) or dcd.component_type
    if component_type == consts.COMPONENT_TYPE_WORKER or not is_worker_component(component_type):
        return component_type
    if has_legacy_worker_selector(dcd.labels, component_type) or existing_legacy:
        return consts.COMPONENT_TYPE_WORKER
    return component_type


def effective_worker_hash(dcd: DCD) -> str:
    """Mirrors: internal/dynamo/v1beta1_helpers.go GetDCDEffectiveWorkerHash."""
    if not is_worker_component(dcd.component_type):
        return ""
    return dcd.labels.get(consts.LABEL_WORKER_HASH) or dcd.pod_template_labels.get(consts.LABEL_WORKER_HASH, "")


def object_meta(
    name: str, namespace: str, labels: dict[str, str] | None = None, annotations: dict[str, str] | None = None
) -> dict[str, Any]:
    """``metadata`` of a rendered object; empty maps are left out, as Go's omitempty does."""
    meta: dict[str, Any] = {"name": name, "namespace": namespace}
    if labels:
        meta["labels"] = labels
    if annotations:
        meta["annotations"] = annotations
    return meta
