"""DynamoGraphDeploymentRequest (DGDR) between v1alpha1 and v1beta1, as the conversion webhook converts it.

v1alpha1 keeps most profiling intent in an opaque ``spec.profilingConfig.config`` JSON blob;
v1beta1 has typed fields for the parts the operator understands (SLA, workload, model cache,
planner) and a profiling Job override. The typed leaves move between the two; what one version
cannot hold is saved sparsely in the ``nvidia.com/dgdr-spec`` / ``nvidia.com/dgdr-status``
annotations (envelope ``{"version":1,"spec":...}`` for the spec) and read back.

``dgdr_to_v1beta1`` first applies the v1alpha1 CRD defaults the API server applies to a request
(``enableGpuDiscovery: true``, ``configMapRef.key: disagg.yaml``). Status is converted when the
input has one; an object without status gets none (the API server drops status on create).

Mirrors: api/v1alpha1/dynamographdeploymentrequest_conversion.go
"""

from __future__ import annotations

import copy
import json
import math
from typing import Any

from renderer.admission.v1alpha1.from_v1beta1 import marshal_preserved, restore_preserved
from renderer.admission.v1alpha1.shared_from import is_empty, prune
from renderer.results import RenderError

Obj = dict[str, Any]

ANN_SPEC = "nvidia.com/dgdr-spec"
ANN_STATUS = "nvidia.com/dgdr-status"
PROFILER = "profiler"
RETIRED_ANNOTATIONS = (
    "nvidia.com/dgdr-config-map-ref",
    "nvidia.com/dgdr-output-pvc",
    "nvidia.com/dgdr-enable-gpu-discovery",
    "nvidia.com/dgdr-deployment-overrides",
    "nvidia.com/dgdr-profiling-config",
    "nvidia.com/dgdr-status-backend",
    "nvidia.com/dgdr-profiling-results",
    "nvidia.com/dgdr-deployment-status",
    "nvidia.com/dgdr-profiling-job-name",
)
_OPTIMIZATION_TYPES = ("latency", "throughput")
_HUB_PHASE_STATES = ("", "Pending", "Profiling", "Ready", "Deploying", "Failed")


# ---------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------


def _number(value: Any) -> float | None:
    """A JSON number as encoding/json decodes it into interface{} (float64), else None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def _go_float(value: float) -> int | float:
    """A float64 as Go's encoder prints it: integral values without a fraction."""
    if math.isfinite(value) and value == int(value) and abs(value) < 1e21:
        return int(value)
    return value


def _json_text(value: Any) -> str:
    """encoding/json Marshal of a map[string]any (sorted keys, compact)."""

    def clean(v: Any) -> Any:
        if isinstance(v, dict):
            return {k: clean(v[k]) for k in sorted(v)}
        if isinstance(v, list):
            return [clean(x) for x in v]
        if isinstance(v, float):
            return _go_float(v)
        return v

    return json.dumps(clean(value), separators=(",", ":"), ensure_ascii=False)


def _meta_and_annotations(obj: Obj) -> tuple[Obj, dict[str, str]]:
    meta = copy.deepcopy(obj.get("metadata") or {})
    anns = dict(meta.get("annotations") or {})
    return meta, anns


def _scrub(anns: dict[str, str]) -> None:
    """Mirrors: api/v1alpha1/dynamographdeploymentrequest_conversion.go scrubDGDRInternalAnnotations"""
    for key in (ANN_SPEC, ANN_STATUS, *RETIRED_ANNOTATIONS):
        anns.pop(key, None)


def _finish_meta(meta: Obj, anns: dict[str, str]) -> Obj:
    if anns:
        meta["annotations"] = anns
    else:
        meta.pop("annotations", None)
    return meta


def _restored_status(anns: dict[str, str]) -> Obj | None:
    """Mirrors: api/v1alpha1/dynamographdeploymentrequest_conversion.go restoreDGDRHubStatus / restoreDGDRSpokeStatus"""
    raw = anns.get(ANN_STATUS, "")
    if not raw:
        return None
    try:
        value = json.loads(raw)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _profiler_index(containers: list[Obj]) -> int:
    """Mirrors: api/v1alpha1/dynamographdeploymentrequest_conversion.go dgdrProfilerContainerIndex"""
    for i, ctr in enumerate(containers):
        if ctr.get("name", "") == PROFILER:
            return i
    return -1


def _migrate_unnamed_profiler(containers: list[Obj]) -> None:
    """Mirrors: api/v1alpha1/dynamographdeploymentrequest_conversion.go migrateLegacyUnnamedProfilerContainers"""
    if _profiler_index(containers) >= 0:
        return
    for ctr in containers:
        if not ctr.get("name"):
            ctr["name"] = PROFILER
            return


def _job_pod_spec(job: Obj) -> Obj:
    template: Obj = job.setdefault("template", {})
    spec: Obj = template.setdefault("spec", {})
    return spec


# ---------------------------------------------------------------------------
# v1alpha1 -> v1beta1
# ---------------------------------------------------------------------------


def _project_sla_and_workload(blob: Obj, dst: Obj) -> None:
    """Mirrors: api/v1alpha1/dynamographdeploymentrequest_conversion.go projectSLAAndWorkloadFromProfilingConfigBlob"""
    sla = blob.get("sla")
    if not isinstance(sla, dict):
        return
    out: Obj = dst.setdefault("sla", {})
    for key in ("ttft", "itl"):
        number = _number(sla.get(key))
        if number is not None:
            out[key] = _go_float(number)
    opt = sla.get("optimizationType")
    if isinstance(opt, str) and opt in _OPTIMIZATION_TYPES:
        out["optimizationType"] = opt
    for key in ("isl", "osl"):
        number = _number(sla.get(key))
        if number is not None:
            dst.setdefault("workload", {})[key] = _int32(number)


def _int32(number: float) -> int:
    """Go's int32(float64) conversion for values in range (truncation toward zero)."""
    value = int(number) if math.isfinite(number) else 0
    return ((value + 2**31) % 2**32) - 2**31


def _project_model_cache(blob: Obj, dst: Obj) -> None:
    """Mirrors: api/v1alpha1/dynamographdeploymentrequest_conversion.go projectModelCacheFromProfilingConfigBlob"""
    deployment = blob.get("deployment")
    if not isinstance(deployment, dict):
        return
    mc = deployment.get("modelCache")
    if not isinstance(mc, dict):
        return
    out: Obj = {}
    for alpha, beta in (("pvcName", "pvcName"), ("modelPathInPvc", "pvcModelPath"), ("pvcMountPath", "pvcMountPath")):
        if isinstance(mc.get(alpha), str) and mc[alpha]:
            out[beta] = mc[alpha]
    dst["modelCache"] = out


def _project_planner(blob: Obj, dst: Obj) -> None:
    """Mirrors: api/v1alpha1/dynamographdeploymentrequest_conversion.go projectPlannerFromProfilingConfigBlob"""
    planner = blob.get("planner")
    if isinstance(planner, dict) and planner:
        dst.setdefault("features", {})["planner"] = json.loads(_json_text(planner))


def _strip_typed(blob: Obj | None) -> Obj | None:
    """The blob without the leaves that project onto v1beta1 typed fields.

    Mirrors: api/v1alpha1/dynamographdeploymentrequest_conversion.go stripDGDRTypedProfilingConfig
    (stripDGDRProjectedSLAKeys, stripDGDRProjectedModelCacheKeys, dgdrPlannerBlobProjects)
    """
    if blob is None:
        return None
    out = dict(blob)
    if not out:
        return out
    if isinstance(out.get("sla"), dict):
        sla = dict(out["sla"])
        stripped = False
        for key in ("ttft", "itl", "isl", "osl"):
            if _number(sla.get(key)) is not None:
                del sla[key]
                stripped = True
        if isinstance(sla.get("optimizationType"), str) and sla["optimizationType"] in _OPTIMIZATION_TYPES:
            del sla["optimizationType"]
            stripped = True
        if stripped and not sla:
            del out["sla"]
        else:
            out["sla"] = sla
    if isinstance(out.get("deployment"), dict):
        deployment = dict(out["deployment"])
        stripped = False
        if isinstance(deployment.get("modelCache"), dict):
            mc = dict(deployment["modelCache"])
            for key in ("pvcName", "modelPathInPvc", "pvcMountPath"):
                if isinstance(mc.get(key), str) and mc[key]:
                    del mc[key]
                    stripped = True
            if stripped and not mc:
                del deployment["modelCache"]
            else:
                deployment["modelCache"] = mc
        if stripped and not deployment:
            del out["deployment"]
        else:
            out["deployment"] = deployment
    if isinstance(out.get("planner"), dict) and out["planner"]:
        del out["planner"]
    return out


def _profiling_job_from_config(pc: Obj, dst: Obj) -> None:
    """Mirrors: api/v1alpha1/dynamographdeploymentrequest_conversion.go projectProfilingConfigToProfilingJob"""
    if pc.get("resources") is None and not pc.get("tolerations") and not pc.get("nodeSelector"):
        return
    overrides: Obj = dst.setdefault("overrides", {})
    job: Obj = overrides.setdefault("profilingJob", {"template": {"spec": {}}})
    pod = _job_pod_spec(job)
    if pc.get("resources") is not None:
        containers: list[Obj] = pod.setdefault("containers", [])
        idx = _profiler_index(containers)
        if idx < 0:
            containers.append({"name": PROFILER})
            idx = len(containers) - 1
        containers[idx]["resources"] = copy.deepcopy(pc["resources"])
    if pc.get("tolerations"):
        pod["tolerations"] = copy.deepcopy(pc["tolerations"])
    if pc.get("nodeSelector"):
        pod["nodeSelector"] = dict(pc["nodeSelector"])


def _merge_hub_only_job(dst: Obj, restored: Obj) -> Obj:
    """Mirrors: api/v1alpha1/dynamographdeploymentrequest_conversion.go mergeDGDRHubOnlyProfilingJob"""
    pod = (dst.get("template") or {}).get("spec") or {}
    containers = pod.get("containers") or []
    idx = _profiler_index(containers)
    resources = containers[idx].get("resources") if idx >= 0 else None
    has_resources = not is_empty(resources)
    tolerations = pod.get("tolerations")
    node_selector = pod.get("nodeSelector")
    out = copy.deepcopy(restored)
    opod = _job_pod_spec(out)
    ocontainers: list[Obj] = opod.setdefault("containers", [])
    _migrate_unnamed_profiler(ocontainers)
    if has_resources:
        i = _profiler_index(ocontainers)
        if i < 0:
            ocontainers.append({"name": PROFILER})
            i = len(ocontainers) - 1
        ocontainers[i]["resources"] = copy.deepcopy(resources)
    if not ocontainers:
        opod.pop("containers", None)
    if tolerations:
        opod["tolerations"] = copy.deepcopy(tolerations)
    if node_selector:
        opod["nodeSelector"] = dict(node_selector)
    return out


def _restore_hub_only_spec(restored: Obj | None, dst: Obj) -> None:
    """Mirrors: api/v1alpha1/dynamographdeploymentrequest_conversion.go restoreDGDRHubOnlySpec
    (with restoreDGDRHubOnlyOverrides)
    """
    if restored is None:
        return
    if restored.get("hardware") is not None:
        dst["hardware"] = copy.deepcopy(restored["hardware"])
    workload = restored.get("workload")
    if workload is not None:
        out: Obj = dst.setdefault("workload", {})
        for key in ("concurrency", "requestRate"):
            if workload.get(key) is not None:
                out[key] = workload[key]
    sla = restored.get("sla")
    if sla is not None:
        out = dst.setdefault("sla", {})
        if sla.get("e2eLatency") is not None:
            out["e2eLatency"] = sla["e2eLatency"]
    overrides = restored.get("overrides")
    if overrides is not None:
        dover: Obj = dst.setdefault("overrides", {})
        if overrides.get("dgd") is not None:
            dover["dgd"] = copy.deepcopy(overrides["dgd"])
        if overrides.get("profilingJob") is not None:
            rjob = copy.deepcopy(overrides["profilingJob"])
            _migrate_unnamed_profiler(((rjob.get("template") or {}).get("spec") or {}).get("containers") or [])
            if dover.get("profilingJob") is None:
                dover["profilingJob"] = rjob
            else:
                dover["profilingJob"] = _merge_hub_only_job(dover["profilingJob"], rjob)
        if is_empty(dover):
            dst.pop("overrides", None)
    mocker = (restored.get("features") or {}).get("mocker")
    if mocker is not None and not mocker.get("enabled"):
        features: Obj = dst.setdefault("features", {})
        features.setdefault("mocker", {})
    if restored.get("searchStrategy"):
        dst["searchStrategy"] = restored["searchStrategy"]


def _alpha_spec_save_json(save: Obj) -> Obj:
    """The spoke save as encoding/json orders v1alpha1 DynamoGraphDeploymentRequestSpec
    (``model``, ``backend`` and ``profilingConfig.profilerImage`` have no omitempty)."""
    pc = save.get("profilingConfig") or {}
    out_pc: Obj = {}
    if "config" in pc:
        out_pc["config"] = pc["config"]
    if pc.get("configMapRef") is not None:
        ref = pc["configMapRef"]
        out_pc["configMapRef"] = {"name": ref.get("name", ""), **({"key": ref["key"]} if ref.get("key") else {})}
    out_pc["profilerImage"] = ""
    if pc.get("outputPVC"):
        out_pc["outputPVC"] = pc["outputPVC"]
    out: Obj = {"model": "", "backend": "", "profilingConfig": out_pc}
    if save.get("enableGpuDiscovery") is not None:
        out["enableGpuDiscovery"] = save["enableGpuDiscovery"]
    if save.get("deploymentOverrides") is not None:
        do = save["deploymentOverrides"]
        ordered: Obj = {}
        for key in ("name", "namespace", "labels", "annotations", "workersImage"):
            if do.get(key):
                ordered[key] = {k: do[key][k] for k in sorted(do[key])} if isinstance(do[key], dict) else do[key]
        out["deploymentOverrides"] = ordered
    return out


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


def _status_to_hub(src: Obj, restored: Obj | None) -> tuple[Obj, Obj]:
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


def _alpha_status_save_json(save: Obj) -> Obj:
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


def _apply_alpha_defaults(spec: Obj) -> Obj:
    """The v1alpha1 CRD defaults the API server applies before conversion.

    Mirrors: api/v1alpha1/dynamographdeploymentrequest_types.go (+kubebuilder:default markers:
    enableGpuDiscovery=true, configMapRef.key=disagg.yaml)
    """
    spec = copy.deepcopy(spec)
    if spec.get("enableGpuDiscovery") is None:
        spec["enableGpuDiscovery"] = True
    ref = (spec.get("profilingConfig") or {}).get("configMapRef")
    if isinstance(ref, dict) and ref.get("key") is None:
        ref["key"] = "disagg.yaml"
    return spec


def dgdr_to_v1beta1(obj: Obj, *, api_server_defaults: bool = True) -> Obj:
    """A v1alpha1 DGDR as the API server stores it (v1beta1), preservation annotations included.

    With ``api_server_defaults`` off, the object is converted exactly as given, as the webhook
    alone would (the API server defaults a request before it calls the webhook).

    Mirrors: api/v1alpha1/dynamographdeploymentrequest_conversion.go DynamoGraphDeploymentRequest.ConvertTo
    (ConvertFromDynamoGraphDeploymentRequestSpec, saveDGDRAlphaOnlySpec,
    saveDGDRAlphaOnlyProfilingConfig, saveDGDRSpokeAnnotations)
    """
    if not isinstance(obj, dict) or not isinstance(obj.get("spec") or {}, dict):
        raise RenderError("expected an object", "spec")
    meta, anns = _meta_and_annotations(obj)
    restored_spec: Obj | None = None
    if anns.get(ANN_SPEC):
        restored_spec, _ = restore_preserved(anns[ANN_SPEC])
        if restored_spec is not None:
            job = (restored_spec.get("overrides") or {}).get("profilingJob")
            if isinstance(job, dict):
                _migrate_unnamed_profiler(((job.get("template") or {}).get("spec") or {}).get("containers") or [])
    restored_status = _restored_status(anns)
    _scrub(anns)
    src = obj.get("spec") or {}
    if api_server_defaults:
        src = _apply_alpha_defaults(src)
    pc: Obj = src.get("profilingConfig") or {}
    if not isinstance(pc, dict):
        raise RenderError("expected an object", "spec.profilingConfig")
    dst: Obj = {"model": src.get("model", "")}
    if src.get("runtimeVersionOverride"):
        dst["runtimeVersionOverride"] = src["runtimeVersionOverride"]
    dst["autoApply"] = bool(src.get("autoApply", False))
    if src.get("backend"):
        dst["backend"] = src["backend"]
    overrides = src.get("deploymentOverrides")
    if isinstance(overrides, dict) and overrides.get("workersImage"):
        dst["image"] = overrides["workersImage"]
    if src.get("useMocker"):
        dst.setdefault("features", {})["mocker"] = {"enabled": True}
    save: Obj = {}
    config = pc.get("config")
    if config is not None:
        if not isinstance(config, dict):
            raise RenderError(
                f"failed to parse ProfilingConfig.Config: json: cannot unmarshal {_json_kind(config)} into Go value of type map[string]interface {{}}",
                "spec.profilingConfig.config",
            )
        _project_sla_and_workload(config, dst)
        _project_model_cache(config, dst)
        _project_planner(config, dst)
        remainder = _strip_typed(config)
        if not config:
            save.setdefault("profilingConfig", {})["config"] = {}
        elif remainder:
            save.setdefault("profilingConfig", {})["config"] = json.loads(_json_text(remainder))
    if pc.get("profilerImage"):
        dst["image"] = pc["profilerImage"]
    _profiling_job_from_config(pc, dst)
    # v1alpha1-only spec fields
    if src.get("enableGpuDiscovery") is not None:
        save["enableGpuDiscovery"] = src["enableGpuDiscovery"]
    if pc.get("configMapRef") is not None:
        save.setdefault("profilingConfig", {})["configMapRef"] = copy.deepcopy(pc["configMapRef"])
    if pc.get("outputPVC"):
        save.setdefault("profilingConfig", {})["outputPVC"] = pc["outputPVC"]
    if isinstance(overrides, dict):
        kept = {k: copy.deepcopy(overrides[k]) for k in ("name", "namespace", "labels", "annotations", "workersImage") if overrides.get(k)}
        if kept:
            save["deploymentOverrides"] = kept
    _restore_hub_only_spec(restored_spec, dst)
    out: Obj = {"apiVersion": "nvidia.com/v1beta1", "kind": obj.get("kind", "DynamoGraphDeploymentRequest")}
    if save:
        anns[ANN_SPEC] = marshal_preserved(_alpha_spec_save_json(save))
    status_in = obj.get("status")
    status: Obj | None = None
    if isinstance(status_in, dict):
        status, status_save = _status_to_hub(status_in, restored_status)
        if prune(status_save) is not None:
            anns[ANN_STATUS] = json.dumps(_alpha_status_save_json(status_save), separators=(",", ":"), ensure_ascii=False)
    out["metadata"] = _finish_meta(meta, anns)
    out["spec"] = dst
    if status is not None:
        out["status"] = status
    return out


def _json_kind(value: Any) -> str:
    if isinstance(value, list):
        return "array"
    if isinstance(value, str):
        return "string"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "number"
    return "null"


# ---------------------------------------------------------------------------
# v1beta1 -> v1alpha1
# ---------------------------------------------------------------------------


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
    pod = _job_pod_spec(save)
    containers: list[Obj] = pod.get("containers") or []
    _migrate_unnamed_profiler(containers)
    idx = _profiler_index(containers)
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


def _status_from_hub(src: Obj, restored: Obj | None) -> tuple[Obj, Obj]:
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


def dgdr_from_v1beta1(obj: Obj) -> Obj:
    """A v1beta1 DGDR as the webhook serves it in v1alpha1.

    Mirrors: api/v1alpha1/dynamographdeploymentrequest_conversion.go DynamoGraphDeploymentRequest.ConvertFrom
    (ConvertToDynamoGraphDeploymentRequestSpec, restoreDGDRAlphaOnlySpec,
    projectProfilingJobToProfilingConfig, saveDGDRHubOnlySpec, saveDGDRHubOnlyOverrides)
    """
    if not isinstance(obj, dict) or not isinstance(obj.get("spec") or {}, dict):
        raise RenderError("expected an object", "spec")
    meta, anns = _meta_and_annotations(obj)
    restored: Obj | None = None
    if anns.get(ANN_SPEC):
        restored, _ = restore_preserved(anns[ANN_SPEC])
    restored_status = _restored_status(anns)
    _scrub(anns)
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
        blob = _strip_typed(rconfig)
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
        pc["config"] = json.loads(_json_text(blob))
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
        _migrate_unnamed_profiler(containers)
        idx = _profiler_index(containers)
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
        status, status_save = _status_from_hub(status_in, _restored_status_alpha(restored_status))
        if status_save:
            anns[ANN_STATUS] = json.dumps(status_save, separators=(",", ":"), ensure_ascii=False)
    out["metadata"] = _finish_meta(meta, anns)
    out["spec"] = dst
    if status is not None:
        out["status"] = status
    return out


def _restored_status_alpha(status: Obj | None) -> Obj | None:
    return status
