"""DynamoGraphDeploymentRequest status between v1alpha1 and v1beta1, as the conversion webhook converts it.

v1alpha1 reports a ``state``; v1beta1 a ``phase`` derived from it and from the deployment's
status. What one version cannot hold travels in the ``nvidia.com/dgdr-status`` annotation.

Mirrors: api/v1alpha1/dynamographdeploymentrequest_conversion.go (the status half)
"""

from __future__ import annotations

import copy
import json
from typing import Any

from renderer.conversion.shared_from import is_empty
from renderer.results import RenderError, describe_kind

Obj = dict[str, Any]

ANN_STATUS = "nvidia.com/dgdr-status"
_HUB_PHASE_STATES = ("", "Pending", "Profiling", "Ready", "Deploying", "Failed")


def read_restored_status(anns: dict[str, str]) -> Obj | None:
    """Mirrors: api/v1alpha1/dynamographdeploymentrequest_conversion.go restoreDGDRHubStatus / restoreDGDRSpokeStatus"""
    raw = anns.get(ANN_STATUS, "")
    if not raw:
        return None
    try:
        value = json.loads(raw)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


# the v1alpha1 status fields the conversion reads, with their Go types
_STATUS_STRINGS = ("state", "backend", "profilingResults")
_DEPLOYMENT_FIELDS = {"name": str, "namespace": str, "state": str, "created": bool}
_TYPE_WORDS = {str: "string", bool: "boolean"}


def check_status_types(src: Obj) -> None:
    """Refuse a status the operator could not decode: a number where Go has a string, and so on.

    The conversion webhook decodes the stored v1alpha1 status into its Go struct before it
    converts anything, so a value of the wrong type fails the conversion (and would be written
    into the ``nvidia.com/dgdr-status`` annotation otherwise). Raises ``RenderError``.

    Mirrors: encoding/json Unmarshal into api/v1alpha1 DynamoGraphDeploymentRequestStatus
    (its string fields and DeploymentStatus)
    """
    fields: list[tuple[str, Any, type]] = [(f"status.{key}", src.get(key), str) for key in _STATUS_STRINGS]
    deployment = src.get("deployment")
    if deployment is not None and not isinstance(deployment, dict):
        raise RenderError(f"expected object, got {describe_kind(deployment)}", "status.deployment")
    for key, kind in _DEPLOYMENT_FIELDS.items():
        fields.append((f"status.deployment.{key}", (deployment or {}).get(key), kind))
    for path, value, kind in fields:
        if value is not None and not isinstance(value, kind):
            raise RenderError(f"expected {_TYPE_WORDS[kind]}, got {describe_kind(value)}", path)


def _state_to_phase(state: str, deployment: Obj | None) -> str:
    """Mirrors: api/v1alpha1/dynamographdeploymentrequest_conversion.go dgdrStateToPhase"""
    if state in ("", "Pending"):
        return "Pending"
    if state == "Profiling":
        return "Profiling"
    if state == "Ready":
        return "Deployed" if deployment is not None and deployment.get("created") else "Ready"
    if state == "Deploying":
        return "Deploying"
    if state == "DeploymentDeleted":
        return "Ready"
    if state == "Failed":
        return "Failed"
    return "Pending"


def _status_matches_phase(state: str, deployment: Obj | None, phase: str) -> bool:
    """Mirrors: api/v1alpha1/dynamographdeploymentrequest_conversion.go dgdrAlphaStatusMatchesHubPhase"""
    return _state_to_phase(state, deployment) == phase or (phase == "Deployed" and state == "Ready")


def status_to_hub(src: Obj, restored: Obj | None) -> tuple[Obj, Obj]:
    """Mirrors: api/v1alpha1/dynamographdeploymentrequest_conversion.go ConvertFromDynamoGraphDeploymentRequestStatus
    (saveDGDRAlphaOnlyStatus, dgdrAlphaDeploymentNeedsSave, restoreDGDRHubOnlyStatus)
    """
    state = src.get("state", "") or ""
    deployment = src.get("deployment")
    dst: Obj = {"phase": _state_to_phase(state, deployment)}
    if src.get("observedGeneration"):
        dst["observedGeneration"] = src["observedGeneration"]
    if src.get("conditions"):
        dst["conditions"] = copy.deepcopy(src["conditions"])
    if src.get("generatedDeployment") is not None:
        dst["profilingResults"] = {"selectedConfig": copy.deepcopy(src["generatedDeployment"])}
    if deployment is not None and deployment.get("name"):
        dst["dgdName"] = deployment["name"]
    save: Obj = {}
    if src.get("backend"):
        save["backend"] = src["backend"]
    if src.get("profilingResults"):
        save["profilingResults"] = src["profilingResults"]
    if state not in _HUB_PHASE_STATES:
        save["state"] = state
    if deployment is not None and (
        is_empty(deployment)
        or deployment.get("namespace") or deployment.get("state") or deployment.get("created")
        or state not in _HUB_PHASE_STATES
    ):
        save["state"] = state
        save["deployment"] = copy.deepcopy(deployment)
    if restored is not None:
        if (restored.get("phase") == "Deployed" and dst["phase"] == "Ready"
                and _status_matches_phase(state, deployment, "Deployed")
                and restored.get("dgdName", "") == dst.get("dgdName", "")):
            dst["phase"] = "Deployed"
        if dst["phase"] == "Profiling":
            for key in ("profilingPhase", "profilingJobName"):
                if restored.get(key):
                    dst[key] = restored[key]
        pareto = (restored.get("profilingResults") or {}).get("pareto")
        if pareto:
            dst.setdefault("profilingResults", {})["pareto"] = copy.deepcopy(pareto)
        if restored.get("deploymentInfo") is not None and restored.get("dgdName", "") == dst.get("dgdName", ""):
            dst["deploymentInfo"] = copy.deepcopy(restored["deploymentInfo"])
    return dst, save


def alpha_status_save_json(save: Obj) -> Obj:
    """The status save in v1alpha1 DynamoGraphDeploymentRequestStatus field order (``state`` has no omitempty)."""
    out: Obj = {"state": save.get("state", "")}
    if save.get("backend"):
        out["backend"] = save["backend"]
    if save.get("profilingResults"):
        out["profilingResults"] = save["profilingResults"]
    if save.get("deployment") is not None:
        d = save["deployment"]
        dep: Obj = {}
        for key in ("name", "namespace"):
            if d.get(key):
                dep[key] = d[key]
        dep["state"] = d.get("state", "")
        if d.get("created"):
            dep["created"] = True
        out["deployment"] = dep
    return out
