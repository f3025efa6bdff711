"""DynamoGraphDeploymentRequest (DGDR) between v1alpha1 and v1beta1, as the conversion webhook converts it.

v1alpha1 keeps most profiling intent in an opaque ``spec.profilingConfig.config`` JSON blob;
v1beta1 has typed fields for the parts the operator understands (SLA, workload, model cache,
planner) and a profiling Job override. The typed leaves move between the two; what one version
cannot hold is saved sparsely in the ``nvidia.com/dgdr-spec`` / ``nvidia.com/dgdr-status``
annotations (envelope ``{"version":1,"spec":...}`` for the spec) and read back.

``dgdr_to_v1beta1`` first applies the v1alpha1 CRD defaults the API server applies to a request
(``enableGpuDiscovery: true``, ``configMapRef.key: disagg.yaml``). Status is converted when the
input has one; an object without status gets none (the API server drops status on create).

This module holds the v1alpha1 -> v1beta1 direction and the annotation helpers both directions
share (the reverse, which only the tests use, is tests/reverse_conversion.py); the status is
``requests_status``.

Mirrors: api/v1alpha1/dynamographdeploymentrequest_conversion.go
"""

from __future__ import annotations

import copy
import json
import math
from typing import Any

from renderer.conversion.from_v1beta1 import marshal_preserved, restore_preserved
from renderer.conversion.shared_from import is_empty, prune
from renderer.gocompat.gojson import go_json, go_json_untyped
from renderer.results import RenderError, describe_kind
from renderer.conversion.requests_status import (
    ANN_STATUS,
    alpha_status_save_json,
    check_status_types,
    read_restored_status,
    status_to_hub,
)

Obj = dict[str, Any]

ANN_SPEC = "nvidia.com/dgdr-spec"
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
# encoding/json's kind names in an UnmarshalTypeError
_GO_JSON_KINDS = {"boolean": "bool", "integer": "number"}


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


def json_text(value: Any) -> str:
    """encoding/json Marshal of a map[string]any (sorted keys, compact, Go's escaping and floats)."""
    return go_json_untyped(value)


def meta_and_annotations(obj: Obj) -> tuple[Obj, dict[str, str]]:
    meta = copy.deepcopy(obj.get("metadata") or {})
    anns = dict(meta.get("annotations") or {})
    return meta, anns


def open_request(obj: Any) -> tuple[Obj, dict[str, str], Obj | None, Obj | None]:
    """Metadata, annotations without the conversion ones, and the saved spec and status of a DGDR.

    Refuses anything but an object with an object spec.
    """
    if not isinstance(obj, dict) or not isinstance(obj.get("spec") or {}, dict):
        raise RenderError("expected an object", "spec")
    meta, anns = meta_and_annotations(obj)
    restored: Obj | None = None
    if anns.get(ANN_SPEC):
        restored, _ = restore_preserved(anns[ANN_SPEC])
    restored_status = read_restored_status(anns)
    scrub(anns)
    return meta, anns, restored, restored_status


def scrub(anns: dict[str, str]) -> None:
    """Mirrors: api/v1alpha1/dynamographdeploymentrequest_conversion.go scrubDGDRInternalAnnotations"""
    for key in (ANN_SPEC, ANN_STATUS, *RETIRED_ANNOTATIONS):
        anns.pop(key, None)


def finish_meta(meta: Obj, anns: dict[str, str]) -> Obj:
    if anns:
        meta["annotations"] = anns
    else:
        meta.pop("annotations", None)
    return meta


def profiler_index(containers: list[Obj]) -> int:
    """Mirrors: api/v1alpha1/dynamographdeploymentrequest_conversion.go dgdrProfilerContainerIndex"""
    for i, ctr in enumerate(containers):
        if ctr.get("name", "") == PROFILER:
            return i
    return -1


def migrate_unnamed_profiler(containers: list[Obj]) -> None:
    """Mirrors: api/v1alpha1/dynamographdeploymentrequest_conversion.go migrateLegacyUnnamedProfilerContainers"""
    if profiler_index(containers) >= 0:
        return
    for ctr in containers:
        if not ctr.get("name"):
            ctr["name"] = PROFILER
            return


def job_pod_spec(job: Obj) -> Obj:
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
        dst.setdefault("features", {})["planner"] = json.loads(json_text(planner))


def strip_typed(blob: Obj | None) -> Obj | None:
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
    pod = job_pod_spec(job)
    if pc.get("resources") is not None:
        containers: list[Obj] = pod.setdefault("containers", [])
        idx = profiler_index(containers)
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
    idx = profiler_index(containers)
    resources = containers[idx].get("resources") if idx >= 0 else None
    has_resources = not is_empty(resources)
    tolerations = pod.get("tolerations")
    node_selector = pod.get("nodeSelector")
    out = copy.deepcopy(restored)
    opod = job_pod_spec(out)
    ocontainers: list[Obj] = opod.setdefault("containers", [])
    migrate_unnamed_profiler(ocontainers)
    if has_resources:
        i = profiler_index(ocontainers)
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
            migrate_unnamed_profiler(((rjob.get("template") or {}).get("spec") or {}).get("containers") or [])
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
    meta, anns, restored_spec, restored_status = open_request(obj)
    if restored_spec is not None:
        job = (restored_spec.get("overrides") or {}).get("profilingJob")
        if isinstance(job, dict):
            migrate_unnamed_profiler(((job.get("template") or {}).get("spec") or {}).get("containers") or [])
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
                f"failed to parse ProfilingConfig.Config: json: cannot unmarshal {describe_kind(config, _GO_JSON_KINDS)} into Go value of type map[string]interface {{}}",
                "spec.profilingConfig.config",
            )
        _project_sla_and_workload(config, dst)
        _project_model_cache(config, dst)
        _project_planner(config, dst)
        remainder = strip_typed(config)
        if not config:
            save.setdefault("profilingConfig", {})["config"] = {}
        elif remainder:
            save.setdefault("profilingConfig", {})["config"] = json.loads(json_text(remainder))
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
        check_status_types(status_in)
        status, status_save = status_to_hub(status_in, restored_status)
        if prune(status_save) is not None:
            anns[ANN_STATUS] = go_json(alpha_status_save_json(status_save))
    out["metadata"] = finish_meta(meta, anns)
    out["spec"] = dst
    if status is not None:
        out["status"] = status
    return out
