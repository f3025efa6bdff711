"""DynamoGraphDeploymentRequest status between v1alpha1 and v1beta1, as the conversion webhook converts it.

v1alpha1 reports a ``state``; v1beta1 a ``phase`` derived from it and from the deployment's
status. What one version cannot hold travels in the ``nvidia.com/dgdr-status`` annotation.

Mirrors: api/v1alpha1/dynamographdeploymentrequest_conversion.go (the status half)
"""

from __future__ import annotations

import copy
import json
from typing import Any

from renderer.admission.v1alpha1.shared_from import is_empty

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


def _phase_to_state(phase: str) -> str:
    """Mirrors: api/v1alpha1/dynamographdeploymentrequest_conversion.go dgdrPhaseToState"""
    return {"Pending": "Pending", "Profiling": "Profiling", "Ready": "Ready", "Deploying": "Deploying",
            "Deployed": "Ready", "Failed": "Failed"}.get(phase, "Pending")


def _status_matches_phase(state: str, deployment: Obj | None, phase: str) -> bool:
    """Mirrors: api/v1alpha1/dynamographdeploymentrequest_conversion.go dgdrAlphaStatusMatchesHubPhase"""
    return _state_to_phase(state, deployment) == phase or (phase == "Deployed" and state == "Ready")


def _restored_state_matches_dgd(state: str, deployment: Obj | None, dgd_name: str) -> bool:
    """Mirrors: api/v1alpha1/dynamographdeploymentrequest_conversion.go dgdrAlphaRestoredStateMatchesLiveDGD"""
    if state != "DeploymentDeleted":
        return True
    if deployment is None:
        return dgd_name == ""
    return bool(deployment.get("name", "") == dgd_name)


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


def status_from_hub(src: Obj, restored: Obj | None) -> tuple[Obj, Obj]:
    """Mirrors: api/v1alpha1/dynamographdeploymentrequest_conversion.go ConvertToDynamoGraphDeploymentRequestStatus
    (restoreDGDRAlphaOnlyStatus, saveDGDRHubOnlyStatus)
    """
    phase = src.get("phase", "") or ""
    dgd_name = src.get("dgdName", "") or ""
    dst: Obj = {"state": _phase_to_state(phase)}
    if src.get("observedGeneration"):
        dst["observedGeneration"] = src["observedGeneration"]
    if src.get("conditions"):
        dst["conditions"] = copy.deepcopy(src["conditions"])
    selected = (src.get("profilingResults") or {}).get("selectedConfig")
    if selected is not None:
        dst["generatedDeployment"] = copy.deepcopy(selected)
    if dgd_name:
        dst["deployment"] = {"name": dgd_name}
    if restored is not None:
        rstate = restored.get("state", "") or ""
        rdep = restored.get("deployment")
        if restored.get("backend"):
            dst["backend"] = restored["backend"]
        if restored.get("profilingResults"):
            dst["profilingResults"] = restored["profilingResults"]
        if rstate and _status_matches_phase(rstate, rdep, phase) and _restored_state_matches_dgd(rstate, rdep, dgd_name):
            dst["state"] = rstate
        if rdep is not None and rdep.get("name", "") == dgd_name and (
            rstate == "" or _status_matches_phase(rstate, rdep, phase)
        ):
            dst["deployment"] = copy.deepcopy(rdep)
    save: Obj = {}
    if phase == "Deployed" and _state_to_phase(dst["state"], dst.get("deployment")) != phase:
        save["phase"] = phase
        save["dgdName"] = dgd_name
    if phase == "Profiling":
        for key in ("profilingPhase", "profilingJobName"):
            if src.get(key):
                save[key] = src[key]
    pareto = (src.get("profilingResults") or {}).get("pareto")
    if pareto:
        save["profilingResults"] = {k: copy.deepcopy(v) for k, v in src["profilingResults"].items() if k != "selectedConfig"}
    if src.get("deploymentInfo") is not None:
        save["dgdName"] = dgd_name
        save["deploymentInfo"] = copy.deepcopy(src["deploymentInfo"])
    return dst, save


def restored_status_alpha(status: Obj | None) -> Obj | None:
    return status
