"""The v1beta1 (hub) -> v1alpha1 (spoke) conversion of a DGDR and a DGDSA, for the tests.

The product converts these kinds one way only (``convert``: v1alpha1 -> v1beta1); the tests
check that direction against the operator's round trips, so the reverse lives here, next to
them. The typed v1beta1 leaves go back into the opaque ``spec.profilingConfig.config`` blob;
what v1alpha1 cannot hold is saved in the ``nvidia.com/dgdr-spec`` annotation. The forward
direction and the shared annotation helpers are ``renderer.conversion.requests``.

Mirrors: api/v1alpha1/dynamographdeploymentrequest_conversion.go ConvertFrom (with
ConvertToDynamoGraphDeploymentRequestStatus), dynamographdeploymentscalingadapter_conversion.go
ConvertFrom
"""

from __future__ import annotations

import copy
import json
from typing import Any

from renderer.conversion.from_v1beta1 import marshal_preserved
from renderer.gocompat.gojson import go_json
from renderer.conversion.shared_from import is_empty
from renderer.conversion.requests import (
    ANN_SPEC,
    PROFILER,
    Obj,
    finish_meta,
    job_pod_spec,
    json_text,
    open_request,
    migrate_unnamed_profiler,
    profiler_index,
    strip_typed,
)
from renderer.conversion.requests_status import ANN_STATUS, _state_to_phase, _status_matches_phase
from renderer.conversion.scaling_adapter import _convert


def _project_sla_to_blob(src: Obj, blob: Obj) -> bool:
    """Mirrors: api/v1alpha1/dynamographdeploymentrequest_conversion.go projectSLAAndWorkloadToProfilingConfigBlob"""
    had = isinstance(blob.get("sla"), dict)
    sla: Obj = dict(blob["sla"]) if had else {}
    wrote = False
    for key in ("ttft", "itl", "optimizationType"):
        if (src.get("sla") or {}).get(key) is not None:
            sla[key] = src["sla"][key]
            wrote = True
    for key in ("isl", "osl"):
        if (src.get("workload") or {}).get(key) is not None:
            sla[key] = src["workload"][key]
            wrote = True
    if wrote or had:
        blob["sla"] = sla
    return wrote or had


def _project_model_cache_to_blob(mc: Obj, blob: Obj) -> bool:
    """Mirrors: api/v1alpha1/dynamographdeploymentrequest_conversion.go projectModelCacheToProfilingConfigBlob"""
    deployment: Obj = dict(blob["deployment"]) if isinstance(blob.get("deployment"), dict) else {}
    out: Obj = {}
    for beta, alpha in (("pvcName", "pvcName"), ("pvcModelPath", "modelPathInPvc"), ("pvcMountPath", "pvcMountPath")):
        if mc.get(beta):
            out[alpha] = mc[beta]
    if out:
        deployment["modelCache"] = out
        blob["deployment"] = deployment
        return True
    return False


def _hub_only_job(job: Obj | None) -> Obj | None:
    """Mirrors: api/v1alpha1/dynamographdeploymentrequest_conversion.go dgdrHubOnlyProfilingJob"""
    if job is None:
        return None
    save = copy.deepcopy(job)
    pod = job_pod_spec(save)
    containers: list[Obj] = pod.get("containers") or []
    migrate_unnamed_profiler(containers)
    idx = profiler_index(containers)
    if idx >= 0:
        had = not is_empty(containers[idx].get("resources"))
        containers[idx].pop("resources", None)
        if had and only_profiler_name(containers[idx]) and len(containers) == 1:
            del containers[idx]
    if containers:
        pod["containers"] = containers
    else:
        pod.pop("containers", None)
    pod.pop("tolerations", None)
    pod.pop("nodeSelector", None)
    return None if is_empty(save) else save


def only_profiler_name(ctr: Obj) -> bool:
    """Mirrors: api/v1alpha1/dynamographdeploymentrequest_conversion.go dgdrIsNameOnlyProfiler"""
    return ctr.get("name") == PROFILER and is_empty({k: v for k, v in ctr.items() if k != "name"})


def dgdr_from_v1beta1(obj: Obj) -> Obj:
    """A v1beta1 DGDR as the webhook serves it in v1alpha1.

    Mirrors: api/v1alpha1/dynamographdeploymentrequest_conversion.go DynamoGraphDeploymentRequest.ConvertFrom
    (ConvertToDynamoGraphDeploymentRequestSpec, restoreDGDRAlphaOnlySpec,
    projectProfilingJobToProfilingConfig, saveDGDRHubOnlySpec, saveDGDRHubOnlyOverrides)
    """
    meta, anns, restored, restored_status = open_request(obj)
    src: Obj = obj.get("spec") or {}
    dst: Obj = {"model": src.get("model", "")}
    if src.get("runtimeVersionOverride"):
        dst["runtimeVersionOverride"] = src["runtimeVersionOverride"]
    auto_apply = src.get("autoApply")
    dst["autoApply"] = True if auto_apply is None else bool(auto_apply)
    if src.get("backend"):
        dst["backend"] = src["backend"]
    mocker = (src.get("features") or {}).get("mocker")
    if mocker is not None and mocker.get("enabled"):
        dst["useMocker"] = True
    blob: Obj | None = None
    rconfig = ((restored or {}).get("profilingConfig") or {}).get("config")
    if isinstance(rconfig, dict):
        blob = strip_typed(rconfig)
    if src.get("sla") is not None or src.get("workload") is not None:
        nxt = blob if blob is not None else {}
        if _project_sla_to_blob(src, nxt):
            blob = nxt
    if src.get("modelCache") is not None:
        nxt = blob if blob is not None else {}
        if _project_model_cache_to_blob(src["modelCache"], nxt):
            blob = nxt
    planner = (src.get("features") or {}).get("planner")
    if isinstance(planner, dict) and planner:
        nxt = blob if blob is not None else {}
        nxt["planner"] = copy.deepcopy(planner)
        blob = nxt
    pc: Obj = {}
    if blob is not None:
        pc["config"] = json.loads(json_text(blob))
    if src.get("image"):
        pc["profilerImage"] = src["image"]
    if restored is not None:
        if restored.get("enableGpuDiscovery") is not None:
            dst["enableGpuDiscovery"] = restored["enableGpuDiscovery"]
        rpc = restored.get("profilingConfig") or {}
        if rpc.get("configMapRef") is not None:
            pc["configMapRef"] = copy.deepcopy(rpc["configMapRef"])
        if rpc.get("outputPVC"):
            pc["outputPVC"] = rpc["outputPVC"]
        if restored.get("deploymentOverrides") is not None:
            dst["deploymentOverrides"] = copy.deepcopy(restored["deploymentOverrides"])
    job = (src.get("overrides") or {}).get("profilingJob")
    if job is not None:
        pod = (job.get("template") or {}).get("spec") or {}
        containers = copy.deepcopy(pod.get("containers") or [])
        migrate_unnamed_profiler(containers)
        idx = profiler_index(containers)
        if idx >= 0 and not is_empty(containers[idx].get("resources")):
            pc["resources"] = copy.deepcopy(containers[idx]["resources"])
        if pod.get("tolerations"):
            pc["tolerations"] = copy.deepcopy(pod["tolerations"])
        if pod.get("nodeSelector"):
            pc["nodeSelector"] = dict(pod["nodeSelector"])
    dst["profilingConfig"] = pc
    # hub-only spec fields
    save: Obj = {}
    if src.get("hardware") is not None:
        save["hardware"] = copy.deepcopy(src["hardware"])
    workload = src.get("workload") or {}
    if workload.get("concurrency") is not None or workload.get("requestRate") is not None:
        save["workload"] = {k: workload[k] for k in ("concurrency", "requestRate") if workload.get(k) is not None}
    if (src.get("sla") or {}).get("e2eLatency") is not None:
        save["sla"] = {"e2eLatency": src["sla"]["e2eLatency"]}
    overrides = src.get("overrides")
    if overrides is not None:
        kept: Obj = {}
        if overrides.get("dgd") is not None:
            kept["dgd"] = copy.deepcopy(overrides["dgd"])
        hub_job = _hub_only_job(overrides.get("profilingJob"))
        if hub_job is not None:
            kept["profilingJob"] = hub_job
        if not is_empty(kept):
            save["overrides"] = kept
    if mocker is not None and not mocker.get("enabled"):
        save["features"] = {"mocker": {}}
    if src.get("searchStrategy"):
        save["searchStrategy"] = src["searchStrategy"]
    if save:
        anns[ANN_SPEC] = marshal_preserved({"model": "", **save})
    out: Obj = {"apiVersion": "nvidia.com/v1alpha1", "kind": obj.get("kind", "DynamoGraphDeploymentRequest")}
    status_in = obj.get("status")
    status: Obj | None = None
    if isinstance(status_in, dict):
        status, status_save = status_from_hub(status_in, restored_status_alpha(restored_status))
        if status_save:
            anns[ANN_STATUS] = go_json(status_save)
    out["metadata"] = finish_meta(meta, anns)
    out["spec"] = dst
    if status is not None:
        out["status"] = status
    return out


def _phase_to_state(phase: str) -> str:
    """Mirrors: api/v1alpha1/dynamographdeploymentrequest_conversion.go dgdrPhaseToState"""
    return {"Pending": "Pending", "Profiling": "Profiling", "Ready": "Ready", "Deploying": "Deploying",
            "Deployed": "Ready", "Failed": "Failed"}.get(phase, "Pending")


def _restored_state_matches_dgd(state: str, deployment: Obj | None, dgd_name: str) -> bool:
    """Mirrors: api/v1alpha1/dynamographdeploymentrequest_conversion.go dgdrAlphaRestoredStateMatchesLiveDGD"""
    if state != "DeploymentDeleted":
        return True
    if deployment is None:
        return dgd_name == ""
    return bool(deployment.get("name", "") == dgd_name)


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


def dgdsa_from_v1beta1(obj: Obj) -> Obj:
    """A v1beta1 DGDSA as the webhook serves it in v1alpha1.

    Mirrors: api/v1alpha1/dynamographdeploymentscalingadapter_conversion.go
    DynamoGraphDeploymentScalingAdapter.ConvertFrom
    """
    return _convert(obj, "nvidia.com/v1alpha1", "componentName", "serviceName")
