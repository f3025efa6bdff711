"""DynamoGraphDeploymentScalingAdapter between v1alpha1 and v1beta1.

The two versions differ only in the graph reference: v1alpha1 ``spec.dgdRef.serviceName`` is
v1beta1 ``spec.dgdRef.componentName``. Replicas, status and metadata are copied as they are.

Mirrors: api/v1alpha1/dynamographdeploymentscalingadapter_conversion.go
"""

from __future__ import annotations

import copy
from typing import Any

from renderer.results import RenderError

Obj = dict[str, Any]


def _convert(obj: Obj, api_version: str, from_key: str, to_key: str) -> Obj:
    if not isinstance(obj, dict):
        raise RenderError("expected an object", "")
    spec = obj.get("spec") or {}
    if not isinstance(spec, dict):
        raise RenderError("expected an object", "spec")
    out: Obj = {"apiVersion": api_version, "kind": obj.get("kind", "DynamoGraphDeploymentScalingAdapter")}
    out["metadata"] = copy.deepcopy(obj.get("metadata") or {})
    # replicas has no omitempty: a zero count is written out
    new_spec: Obj = {"replicas": spec.get("replicas") or 0}
    ref = spec.get("dgdRef") or {}
    if not isinstance(ref, dict):
        raise RenderError("expected an object", "spec.dgdRef")
    new_ref: Obj = {}
    if ref.get("name"):
        new_ref["name"] = ref["name"]
    if ref.get(from_key):
        new_ref[to_key] = ref[from_key]
    new_spec["dgdRef"] = new_ref
    out["spec"] = new_spec
    status = obj.get("status") or {}
    if isinstance(status, dict):
        new_status = {k: copy.deepcopy(status[k]) for k in ("replicas", "selector", "lastScaleTime") if status.get(k) not in (None, "")}
        if new_status:
            out["status"] = new_status
    return out


def dgdsa_to_v1beta1(obj: Obj) -> Obj:
    """A v1alpha1 DGDSA as the API server stores it (v1beta1).

    Mirrors: api/v1alpha1/dynamographdeploymentscalingadapter_conversion.go
    DynamoGraphDeploymentScalingAdapter.ConvertTo
    """
    return _convert(obj, "nvidia.com/v1beta1", "serviceName", "componentName")
