"""The v1alpha1 view of a stored v1beta1 object: what the controllers read back from conversion.

The operator's controllers reconcile v1beta1 objects, but several of their helpers first turn
the object back into v1alpha1 (the webhook's ConvertFrom) and read fields v1beta1 cannot say.
For an object that went through conversion, those come from the ``nvidia.com/dcd-spec`` /
``nvidia.com/dgd-spec`` preservation annotation; for a native v1beta1 object they reduce to
the plain projection (``prefill``/``decode`` as the sub-component type, nothing else). The
reads, each ported where the render stages need it:

- a component's ``labels`` and ``annotations``: merged under the pod template's own into the
  workload and pod metadata (and into the DGD worker hash), and its annotations into the
  Deployment strategy lookup;
- ``subComponentType`` (a non-promoted one, such as ``planner``) and ``dynamoNamespace``: the
  ``nvidia.com/dynamo-sub-component-type`` and ``nvidia.com/dynamo-namespace`` labels;
- ``ingress``: a preserved ingress replaces the operator's default frontend ingress;
- the DGD's top-level ``pvcs``: the PersistentVolumeClaims the DGD controller creates.

Mirrors: internal/dynamo/v1beta1_helpers.go getDCDAlphaSharedSpec, GetDCDPreservedAlphaLabels,
GetDCDPreservedAlphaAnnotations, GetDCDPreservedAlphaIngressSpec, GetDCDSubComponentType,
GetDCDDynamoNamespace; internal/dynamo/graph.go getDGDAlpha, getDGDAlphaComponent,
GetDGDPreservedAlphaPVCs; internal/controller/dynamocomponentdeployment_controller.go
getResourceAnnotations, dcdIngressSpec.
"""

from __future__ import annotations

from renderer.records import dataclass, field
from typing import Any

from renderer import consts

ANNOTATION_DCD_SPEC = "nvidia.com/dcd-spec"
ANNOTATION_DCD_STATUS = "nvidia.com/dcd-status"
ANNOTATION_DGD_SPEC = "nvidia.com/dgd-spec"
ANNOTATION_DGD_STATUS = "nvidia.com/dgd-status"


@dataclass(frozen=True)
class AlphaView:
    """The v1alpha1 fields of one component that the controllers read and v1beta1 lacks."""

    labels: dict[str, str] = field(default_factory=dict)
    annotations: dict[str, str] = field(default_factory=dict)
    sub_component_type: str = ""
    dynamo_namespace: str | None = None
    ingress: dict[str, Any] | None = None


def plain_view(component_type: str) -> AlphaView:
    """The view of a component without preserved data: only the promoted sub-component type.

    Mirrors: api/v1alpha1/shared_spec_conversion.go sharedComponentTypeFromHub
    """
    if component_type in (consts.COMPONENT_TYPE_PREFILL, consts.COMPONENT_TYPE_DECODE):
        return AlphaView(sub_component_type=component_type)
    return AlphaView()


def view_of_alpha_component(spec: dict[str, Any]) -> AlphaView:
    """The view from a converted v1alpha1 shared spec (a DCD spec or a DGD service)."""
    namespace = spec.get("dynamoNamespace")
    ingress = spec.get("ingress")
    return AlphaView(
        labels=dict(spec.get("labels") or {}),
        annotations=dict(spec.get("annotations") or {}),
        sub_component_type=str(spec.get("subComponentType") or ""),
        dynamo_namespace=namespace if isinstance(namespace, str) else None,
        ingress=dict(ingress) if isinstance(ingress, dict) else None,
    )


def has_dcd_preservation(annotations: dict[str, str]) -> bool:
    """Mirrors: api/v1alpha1/dynamocomponentdeployment_conversion.go hasDCDSpokeAnnotations"""
    return ANNOTATION_DCD_SPEC in annotations or ANNOTATION_DCD_STATUS in annotations


def has_dgd_preservation(annotations: dict[str, str]) -> bool:
    """Mirrors: api/v1alpha1/dynamographdeployment_conversion.go hasDGDSpokeAnnotations"""
    return ANNOTATION_DGD_SPEC in annotations or ANNOTATION_DGD_STATUS in annotations


def dcd_view(obj: dict[str, Any]) -> AlphaView:
    """The view of a v1beta1 DCD object as its controller reads it (ConvertFrom when preserved).

    Mirrors: internal/dynamo/v1beta1_helpers.go getDCDAlphaSharedSpec (convertDCDToAlpha)
    """
    metadata = obj.get("metadata") or {}
    spec = obj.get("spec") or {}
    if not has_dcd_preservation(metadata.get("annotations") or {}):
        return plain_view(str(spec.get("type") or ""))
    # The conversion modules only for a DCD that carries preserved v1alpha1 data (start-up time).
    from renderer.conversion.from_v1beta1 import dcd_from_v1beta1

    alpha = dcd_from_v1beta1(obj)
    return view_of_alpha_component(alpha.get("spec") or {})


def dgd_alpha(obj: dict[str, Any]) -> dict[str, Any]:
    """The v1alpha1 spec of a v1beta1 DGD object (ConvertFrom).

    Mirrors: internal/dynamo/graph.go getDGDAlpha
    """
    from renderer.conversion.from_v1beta1 import dgd_from_v1beta1

    spec: dict[str, Any] = dgd_from_v1beta1(obj).get("spec") or {}
    return spec


def dgd_component_views(obj: dict[str, Any]) -> dict[str, AlphaView]:
    """The view of every component of a v1beta1 DGD, by component name.

    Mirrors: internal/dynamo/graph.go getDGDAlphaComponent (with getDGDComponentAlphaLabels,
    getDGDComponentAlphaAnnotations, getDGDComponentAlphaSubComponentType)
    """
    metadata = obj.get("metadata") or {}
    components = (obj.get("spec") or {}).get("components") or []
    if not has_dgd_preservation(metadata.get("annotations") or {}):
        return {str(c.get("name") or ""): plain_view(str(c.get("type") or "")) for c in components}
    services = dgd_alpha(obj).get("services") or {}
    return {name: view_of_alpha_component(service) for name, service in services.items() if isinstance(service, dict)}


def dgd_preserved_pvcs(obj: dict[str, Any]) -> list[dict[str, Any]]:
    """The v1alpha1 top-level ``pvcs`` a converted DGD carries (empty for a native one).

    Mirrors: internal/dynamo/graph.go GetDGDPreservedAlphaPVCs
    """
    annotations = (obj.get("metadata") or {}).get("annotations") or {}
    if ANNOTATION_DGD_SPEC not in annotations:
        return []
    return [dict(p) for p in dgd_alpha(obj).get("pvcs") or [] if isinstance(p, dict)]


def dgd_carrier_annotations(dgd_obj: dict[str, Any], backend_framework: str, dcd_names: dict[str, str]) -> dict[str, dict[str, str]]:
    """The conversion annotations each generated DCD inherits from its DGD component, by name.

    The DGD controller rebuilds each component's v1alpha1 form, wraps it in a v1alpha1 DCD
    named like the generated one, converts that to v1beta1 and copies the resulting annotations
    (``nvidia.com/dcd-spec``) onto the generated DCD, so the DCD controller reads the same
    preserved data. Every DGD goes through this, a native v1beta1 one included.

    Mirrors: internal/dynamo/graph.go applyDGDComponentAlphaCompatibilityToDCD
    """
    from renderer.conversion.from_v1beta1 import dgd_services_from_v1beta1
    from renderer.conversion.to_v1beta1 import dcd_conversion_annotations

    metadata = dgd_obj.get("metadata") or {}
    # Only the services are read: without preserved data they are the components converted alone.
    if has_dgd_preservation(metadata.get("annotations") or {}):
        services = dgd_alpha(dgd_obj).get("services") or {}
    else:
        services = dgd_services_from_v1beta1(dgd_obj)
    out: dict[str, dict[str, str]] = {}
    for name, component in services.items():
        if not isinstance(component, dict) or name not in dcd_names:
            continue
        spec = {"backendFramework": backend_framework, **component} if backend_framework else dict(component)
        # Only the annotations of the converted DCD are copied: its spec is not encoded.
        annotations = dcd_conversion_annotations(
            {
                "apiVersion": consts.V1ALPHA1,
                "kind": consts.DCD_KIND,
                "metadata": {"name": dcd_names[name], "namespace": metadata.get("namespace") or ""},
                "spec": spec,
            }
        )
        if annotations:
            out[name] = dict(annotations)
    return out
