"""Test-only: the legacy (v1alpha1) worker hash and the label builder it reads.

The product renders v1beta1 and hashes with the v2 worker hash (``renderer.graph.gohash``).
The legacy hash is kept here as a test oracle: the operator still computes it to recognise
workers created before the v2 hash, and its cases pin the Go JSON codec
(``renderer.gocompat.gojson``) on the v1alpha1 types.

Mirrors: api/v1alpha1/legacy_worker_hash.go ComputeDGDWorkersSpecHash;
internal/dynamo/v1beta1_helpers.go GetDCDKubeLabels, GetDCDKubeAnnotations;
internal/dynamo/model_service.go HashModelName.
"""

from __future__ import annotations

import copy
import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from renderer import consts
from renderer.gocompat.goduration import format_go_duration, parse_go_duration
from renderer.gocompat.gojson import V1ALPHA1_ENCODER, go_json
from renderer.gocompat import dynamo_types
from renderer.graph.gohash import (
    MINIMUM_HASHED_RUNTIME_VERSION,
    WorkerTemplate,
    resolve_runtime_version_for_hash,
    worker_hash_spec,
)
from renderer.pod.labels import OBJECT_LABELS_KEPT
from renderer.results import RenderError, describe_kind

_LABEL_BASE_MODEL_HASH = "nvidia.com/dynamo-base-model-hash"
_ANNOTATION_BASE_MODEL = "nvidia.com/dynamo-base-model"
_LABEL_SUB_COMPONENT_TYPE = "nvidia.com/dynamo-sub-component-type"
_TOPOLOGY_SOURCE_ANNOTATIONS = consts.TOPOLOGY_SOURCE_ANNOTATION_KEYS


def main_container_image(spec: Mapping[str, Any]) -> str:
    """The image of the first pod-template container named ``main`` (``""`` when none).

    Mirrors: internal/dynamo/v1beta1_helpers.go GetMainContainer
    """
    template = spec.get("podTemplate")
    pod = template.get("spec") if isinstance(template, Mapping) else None
    containers = pod.get("containers") if isinstance(pod, Mapping) else None
    for container in containers if isinstance(containers, list) else []:
        if isinstance(container, Mapping) and container.get("name") == consts.MAIN_CONTAINER_NAME:
            image = container.get("image")
            return image if isinstance(image, str) else ""
    return ""


# -- Go JSON values -------------------------------------------------------------------------


def model_name_hash(name: str) -> str:
    """Mirrors: internal/dynamo/model_service.go HashModelName"""
    return hashlib.sha256(name.encode("utf-8")).hexdigest()[:8]


@dataclass(frozen=True)
class AlphaCompat:
    """v1alpha1-only component data the operator reads back from a converted DCD.

    A native v1beta1 DGD has none; a converted v1alpha1 DGD keeps the service's
    ``labels``, ``annotations``, ``dynamoNamespace`` and a non-promoted
    ``subComponentType`` in its conversion payload.
    """

    labels: Mapping[str, str] = field(default_factory=dict)
    annotations: Mapping[str, str] = field(default_factory=dict)
    dynamo_namespace: str | None = None
    sub_component_type: str = ""


def _sub_component_type(component_type: str, alpha: AlphaCompat) -> str:
    """The alpha sub-component type: prefill/decode round-trip to worker + subtype.

    Mirrors: api/v1alpha1/shared_spec_conversion.go sharedComponentTypeFromHub and
    restoreSharedAlphaOnlySimpleFields; v1beta1_helpers.go GetDCDSubComponentType
    """
    if component_type in (consts.COMPONENT_TYPE_PREFILL, consts.COMPONENT_TYPE_DECODE):
        return component_type
    return alpha.sub_component_type


def _parent_dgd_name(metadata: Mapping[str, Any]) -> str:
    for owner in metadata.get("ownerReferences") or []:
        if isinstance(owner, Mapping) and owner.get("kind") == consts.DGD_KIND:
            return str(owner.get("name") or "")
    return ""


def dcd_kube_labels(dcd: Mapping[str, Any], alpha: AlphaCompat | None = None) -> dict[str, str]:
    """The labels the DCD renders onto its workloads, before role labels.

    Mirrors: internal/dynamo/v1beta1_helpers.go GetDCDKubeLabels (with GetDCDComponentName,
    GetDCDDynamoNamespace, GetDCDSubComponentType, model_service.go AddBaseModelLabel)
    """
    alpha = alpha or AlphaCompat()
    metadata = dcd.get("metadata") or {}
    spec = dcd.get("spec") or {}
    object_labels: Mapping[str, str] = metadata.get("labels") or {}
    template = spec.get("podTemplate") or {}
    template_labels: Mapping[str, str] = (template.get("metadata") or {}).get("labels") or {}
    labels = {**object_labels, **alpha.labels, **template_labels}
    model = (spec.get("modelRef") or {}).get("name")
    if model:
        labels[_LABEL_BASE_MODEL_HASH] = model_name_hash(model)
    sub_type = _sub_component_type(spec.get("type") or "", alpha)
    if sub_type:
        labels[_LABEL_SUB_COMPONENT_TYPE] = sub_type
    component = spec.get("name") or object_labels.get(consts.LABEL_COMPONENT) or metadata.get("name") or ""
    if component:
        labels[consts.LABEL_COMPONENT] = component
    if alpha.dynamo_namespace is not None:
        namespace = alpha.dynamo_namespace  # even "", which then sets nothing
    elif object_labels.get(consts.LABEL_NAMESPACE):
        namespace = object_labels[consts.LABEL_NAMESPACE]
    else:
        parent = _parent_dgd_name(metadata) or object_labels.get(consts.LABEL_GRAPH_DEPLOYMENT_NAME) or ""
        parent = parent or metadata.get("name") or ""
        if spec.get("globalDynamoNamespace"):
            namespace = consts.GLOBAL_DYNAMO_NAMESPACE
        else:
            namespace = f"{metadata.get('namespace') or ''}-{parent.replace('.', '-')}"
    if namespace:
        labels[consts.LABEL_NAMESPACE] = namespace
    for key in OBJECT_LABELS_KEPT:
        if object_labels.get(key):
            labels[key] = object_labels[key]
    return labels


def dcd_kube_annotations(dcd: Mapping[str, Any], alpha: AlphaCompat | None = None) -> dict[str, str]:
    """The annotations the DCD renders onto its workloads.

    The operator-origin-version annotation is dropped here, though it stays in the spec's
    pod template (and so still reaches the hash through ``spec``).

    Mirrors: internal/dynamo/v1beta1_helpers.go GetDCDKubeAnnotations
    """
    alpha = alpha or AlphaCompat()
    metadata = dcd.get("metadata") or {}
    spec = dcd.get("spec") or {}
    template = spec.get("podTemplate") or {}
    annotations = {**alpha.annotations, **((template.get("metadata") or {}).get("annotations") or {})}
    model = (spec.get("modelRef") or {}).get("name")
    if model:
        annotations[_ANNOTATION_BASE_MODEL] = model
    annotations.pop(consts.ANNOTATION_OPERATOR_ORIGIN_VERSION, None)
    for key in _TOPOLOGY_SOURCE_ANNOTATIONS:
        annotations.pop(key, None)
    object_annotations: Mapping[str, str] = metadata.get("annotations") or {}
    for key in _TOPOLOGY_SOURCE_ANNOTATIONS:
        if object_annotations.get(key):
            annotations[key] = object_annotations[key]
    return annotations


def worker_template_from_dcd(dcd: Mapping[str, Any], alpha: AlphaCompat | None = None) -> WorkerTemplate:
    """The hash input of one generated worker DCD object (generated with the placeholder hash).

    Mirrors: internal/dynamo/hash.go ComputeDGDWorkersSpecHash (the loop body)
    """
    spec = dcd.get("spec") or {}
    override = spec.get("runtimeVersionOverride") or ""
    return WorkerTemplate(
        labels=dcd_kube_labels(dcd, alpha),
        annotations=dcd_kube_annotations(dcd, alpha),
        runtime_version=resolve_runtime_version_for_hash(main_container_image(spec), override),
        spec=spec,
    )


# -- the legacy v1 hash (not used at render time) --------------------------------------------

_LEGACY_STRIPPED = (
    "annotations",
    "labels",
    "serviceName",
    "componentType",
    "subComponentType",
    "runtimeVersionOverride",
    "dynamoNamespace",
    "replicas",
    "autoscaling",
    "scalingAdapter",
    "ingress",
    "modelRef",
    "eppConfig",
)


def legacy_worker_hash(services: Mapping[str, Mapping[str, Any] | None]) -> str:
    """The v1 worker hash of a v1alpha1 DGD's ``spec.services`` (kept for evidence only).

    The operator stopped computing it in 1.5; stored values are opaque. It shares the Go
    JSON machinery with the v2 hash, so its upstream golden values test the encoder.

    Mirrors: api/v1alpha1/legacy_worker_hash.go ComputeDGDWorkersSpecHash,
    stripV1alpha1NonPodTemplateFields
    """
    document: dict[str, Any] = {}
    for name in sorted(services):
        service = services[name]
        if service is None or service.get("componentType") not in consts.WORKER_COMPONENT_TYPES:
            continue
        stripped = {k: v for k, v in service.items() if k not in _LEGACY_STRIPPED}
        document[name] = V1ALPHA1_ENCODER.encode(dynamo_types.ROOTS["V1ALPHA1"], stripped, f"spec.services.{name}")
    return hashlib.sha256(go_json(document).encode("utf-8")).hexdigest()[:8]


__all__ = [
    "MINIMUM_HASHED_RUNTIME_VERSION",
    "WORKER_HASH_PLACEHOLDER",
    "AlphaCompat",
    "GoEncoder",
    "WorkerTemplate",
    "COMPONENT_CRD_DEFAULTS",
    "alpha_shared_spec_go_json",
    "apply_component_crd_defaults",
    "dcd_kube_annotations",
    "dcd_kube_labels",
    "dcd_spec_go_json",
    "format_go_duration",
    "go_float",
    "go_json",
    "legacy_worker_hash",
    "main_container_image",
    "parse_go_duration",
    "resolve_runtime_version_for_hash",
    "worker_hash",
    "worker_hash_json",
    "worker_hash_spec",
    "worker_template_from_dcd",
]


def alpha_shared_spec_go_json(spec: Mapping[str, Any], path: str = "spec") -> str:
    """``json.Marshal`` of a v1alpha1 ``DynamoComponentDeploymentSharedSpec`` given as a plain dict.

    Mirrors: encoding/json Marshal on api/v1alpha1 DynamoComponentDeploymentSharedSpec
    """
    return go_json(V1ALPHA1_ENCODER.encode(dynamo_types.ROOTS["V1ALPHA1"], dict(spec), path))
