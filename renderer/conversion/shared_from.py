"""The per-component shared spec, v1beta1 (hub) -> v1alpha1 (spoke), as the webhook converts it.

Objects are plain JSON dicts in the shape the API server stores (a Go zero value is an absent
key). ``restored`` is the sparse v1alpha1 save the forward conversion left in the object's
preservation annotation; ``save`` collects, sparsely, what the hub has and v1alpha1 cannot say.
The value helpers live in ``shared_from_pod``, the forward projection (one port for both
directions) in ``podtemplate_to``; restoring the
v1alpha1-only fields from the save in ``shared_from_restore``.

Mirrors: api/v1alpha1/shared_spec_conversion.go (ConvertToDynamoComponentDeploymentSharedSpec
and the helpers it reaches)
"""

from __future__ import annotations

import copy
from typing import Any

from renderer.gocompat.merge import copy_json
from renderer.conversion.podtemplate_to import build_pod_template, resources_from_native
from renderer.conversion.shared_from_restore import prune_empty_eps, restore_alpha_only, restore_flat_volume_mounts
from renderer.conversion.shared_from_pod import (
    _append_missing_mounts,
    _flat,
    _volume_mounts_from_native,
    _containers,
    _mount_np,
    _quantity_or_none,
    _set,
    DEFAULT_FRONTEND_SIDECAR,
    find_container,
    has_container,
    is_empty,
    MAIN,
    Obj,
    only_name,
    prune,
    sem_eq,
)

__all__ = ["Obj", "hub_save_is_zero", "is_empty", "prune", "shared_from_v1beta1"]

# ---------------------------------------------------------------------------
# v1beta1 -> v1alpha1
# ---------------------------------------------------------------------------


def component_type_from_hub(component_type: str) -> tuple[str, str]:
    """Mirrors: api/v1alpha1/shared_spec_conversion.go sharedComponentTypeFromHub"""
    if component_type in ("prefill", "decode"):
        return "worker", component_type
    return component_type, ""


GMS_MODE_FROM_HUB = {"IntraPod": "intraPod", "InterPod": "interPod"}


def gms_mode_from_hub(mode: Any) -> Any:
    """Mirrors: api/v1alpha1/shared_spec_conversion.go gmsModeFromV1beta1"""
    return GMS_MODE_FROM_HUB.get(mode, mode) if isinstance(mode, str) else mode


def _experimental_from_hub(src: Obj, dst: Obj) -> None:
    """Mirrors: api/v1alpha1/shared_spec_conversion.go convertExperimentalFromHub
    (ConvertToGPUMemoryServiceSpec, ConvertToFailoverSpec, ConvertToServiceCheckpointConfig)
    """
    exp = src.get("experimental") or {}
    gms = exp.get("gpuMemoryService")
    if gms is not None:
        out: Obj = {"enabled": True}
        for key in ("mode", "deviceClassName", "extraClientContainers", "extraClientPods"):
            if not is_empty(gms.get(key)):
                out[key] = copy.deepcopy(gms[key])
        _set(out, "mode", gms_mode_from_hub(out.get("mode")))
        dst["gpuMemoryService"] = out
    failover = exp.get("failover")
    if failover is not None:
        out = {"enabled": True}
        for key in ("mode", "numShadows"):
            if not is_empty(failover.get(key)):
                out[key] = failover[key]
        _set(out, "mode", gms_mode_from_hub(out.get("mode")))
        dst["failover"] = out
    checkpoint = exp.get("checkpoint")
    if checkpoint is not None:
        dst["checkpoint"] = {k: copy.deepcopy(v) for k, v in checkpoint.items() if v is not None}


def _restore_dedicated_from_main(main: Obj, dst: Obj) -> None:
    """Moves what v1alpha1 has dedicated fields for out of ``main`` (in place).

    Mirrors: api/v1alpha1/shared_spec_conversion.go restoreDedicatedFieldsFromMain
    (and restoreFlatVolumeMountsFromMain)
    """
    resources = resources_from_native(main.get("resources"))
    if resources is not None:
        dst["resources"] = resources
        main.pop("resources", None)
    if main.get("volumeMounts"):
        dst["volumeMounts"] = _append_missing_mounts(dst.get("volumeMounts") or [], _volume_mounts_from_native(main["volumeMounts"]))
        main.pop("volumeMounts", None)
    if main.get("env"):
        dst["envs"] = copy.deepcopy(main["env"])
        main.pop("env", None)
    for probe in ("livenessProbe", "readinessProbe"):
        if main.get(probe) is not None:
            dst[probe] = copy.deepcopy(main[probe])
            main.pop(probe, None)


def _restored_default_sidecar(src: Obj, restored: Obj | None) -> Obj | None:
    """Mirrors: api/v1alpha1/shared_spec_conversion.go restoredDefaultFrontendSidecar"""
    if src.get("frontendSidecar") != DEFAULT_FRONTEND_SIDECAR or restored is None:
        return None
    sidecar = restored.get("frontendSidecar")
    return sidecar if sidecar is not None else None


def _sidecar_env_from_secret(env_from: list[Obj]) -> str | None:
    """Mirrors: api/v1alpha1/shared_spec_conversion.go frontendSidecarEnvFromSecret"""
    if len(env_from) != 1:
        return None
    only = env_from[0]
    if only.get("prefix") or only.get("configMapRef") is not None or only.get("secretRef") is None:
        return None
    return str(only["secretRef"].get("name", ""))


def _sidecar_from_container(ctr: Obj, origin: Obj | None) -> Obj:
    """Mirrors: api/v1alpha1/shared_spec_conversion.go frontendSidecarSpecFromContainer"""
    out: Obj = copy.deepcopy(origin) if origin is not None else {}
    _set(out, "image", ctr.get("image") or None)
    _set(out, "args", copy.deepcopy(ctr.get("args")) or None)
    _set(out, "envs", copy.deepcopy(ctr.get("env")) or None)
    secret = _sidecar_env_from_secret(ctr.get("envFrom") or [])
    if secret is not None:
        out["envFromSecret"] = secret
    elif origin is not None and origin.get("envFromSecret") == "":
        out["envFromSecret"] = ""
    else:
        out.pop("envFromSecret", None)
    return out


def _decompose_pod_template(src: Obj, dst: Obj, restored: Obj | None) -> None:
    """Mirrors: api/v1alpha1/shared_spec_conversion.go decomposePodTemplateFromHub
    (with decomposeMissingPodTemplate and restoreFrontendSidecarFromPodTemplate)
    """
    tpl = src.get("podTemplate")
    if tpl is None:
        sidecar = _restored_default_sidecar(src, restored)
        if sidecar is not None:
            dst["frontendSidecar"] = copy.deepcopy(sidecar)
        return
    tpl = copy_json(tpl)  # the object is JSON-shaped (parsed YAML or Go JSON): copy_json copies all of it
    meta = tpl.get("metadata") or {}
    if meta.get("annotations") or meta.get("labels"):
        epm: Obj = {}
        _set(epm, "annotations", dict(meta["annotations"]) if meta.get("annotations") else None)
        _set(epm, "labels", dict(meta["labels"]) if meta.get("labels") else None)
        dst["extraPodMetadata"] = epm
    main: Obj | None = None
    other: list[Obj] = []
    for ctr in _containers(tpl):
        if ctr.get("name", "") == MAIN and main is None:
            main = ctr  # tpl is this call's own copy: its parts are edited and handed on without copying again
            continue
        other.append(ctr)
    if src.get("frontendSidecar") is not None:
        name = src["frontendSidecar"]
        origin = _restored_default_sidecar(src, restored)
        if origin is not None:
            found = find_container(other, name)
            if found is not None:
                dst["frontendSidecar"] = _sidecar_from_container(found, origin)
                other = [c for c in other if c.get("name", "") != name]
            else:
                dst["frontendSidecar"] = copy.deepcopy(origin)
    if main is not None:
        _restore_dedicated_from_main(main, dst)
    pod_spec = {k: v for k, v in (tpl.get("spec") or {}).items() if k != "containers"}
    if other:
        pod_spec["containers"] = other
    main_copy = None
    if main is not None:
        main_copy = {k: v for k, v in main.items() if k != "name"}
        if is_empty(main_copy):
            main_copy = None
    if not is_empty(pod_spec) or main_copy is not None:
        eps: Obj = {}
        if not is_empty(pod_spec):
            eps.update(pod_spec)
        if main_copy is not None:
            eps["mainContainer"] = main_copy
        dst["extraPodSpec"] = eps


# --- saving hub-only fields sparsely --------------------------------------------------------


def _find_mount(mounts: list[Obj], mount: Obj) -> Obj | None:
    """Mirrors: api/v1alpha1/shared_spec_conversion.go findPreservedVolumeMount"""
    for cand in mounts:
        if _mount_np(cand) == _mount_np(mount):
            return copy.deepcopy(cand)
    matches = [c for c in mounts if c.get("name", "") == mount.get("name", "")]
    return copy.deepcopy(matches[0]) if len(matches) == 1 else None


def _sparse_mounts(src: list[Obj], projected: list[Obj]) -> list[Obj]:
    """Mirrors: api/v1alpha1/shared_spec_conversion.go sparseSharedHubOnlyVolumeMounts"""
    out: list[Obj] = []
    for mount in src:
        saved: Obj = {"name": mount.get("name", ""), "mountPath": mount.get("mountPath", "")}
        pm = _find_mount(projected, mount)
        if pm is None or not sem_eq(mount, pm):
            saved = copy.deepcopy(mount)
        out.append(saved)
    return out


def _generated_main_key_needs_save(src: Obj, projected: Obj | None) -> bool:
    """Mirrors: api/v1alpha1/shared_spec_conversion.go sharedGeneratedMainContainerKeyNeedsSave"""
    if src.get("name", "") != MAIN:
        return False
    if projected is None:
        return only_name(src)
    if only_name(src):
        return True
    return any(_find_mount(src.get("volumeMounts") or [], pm) is None for pm in projected.get("volumeMounts") or [])


def _save_containers(src_tpl: Obj, projected: Obj | None, preserve_order: bool, sidecar: str) -> list[Obj]:
    """Mirrors: api/v1alpha1/shared_spec_conversion.go saveSharedHubOnlyPodTemplateContainers
    (with saveSharedHubOnlyContainerFields and clearSharedFrontendSidecarRepresentedContainerFields)
    """
    pcs = _containers(projected)
    out: list[Obj] = []
    for ctr in _containers(src_tpl):
        name = ctr.get("name", "")
        saved: Obj = {"name": name}
        pc = find_container(pcs, name)
        if pc is not None:
            if name != MAIN:
                if not sem_eq(ctr, pc):
                    saved = copy.deepcopy(ctr)
                    for key in ("image", "args", "env"):
                        saved.pop(key, None)
                    if sem_eq(saved.get("envFrom"), pc.get("envFrom")):
                        saved.pop("envFrom", None)
            elif ctr.get("volumeMounts"):
                saved["volumeMounts"] = _sparse_mounts(ctr["volumeMounts"], pc.get("volumeMounts") or [])
        elif not only_name(ctr):
            saved = copy.deepcopy(ctr)
        if preserve_order or name == sidecar or _generated_main_key_needs_save(ctr, pc) or not only_name(saved):
            out.append(saved)
    return out


def _sparse_pod_template(src_tpl: Obj | None, projected: Obj | None, sidecar: str) -> Obj | None:
    """Mirrors: api/v1alpha1/shared_spec_conversion.go sparseSharedHubOnlyPodTemplate"""
    if src_tpl is None:
        return None
    meta = {k: v for k, v in (src_tpl.get("metadata") or {}).items() if k not in ("labels", "annotations")}
    needs_meta = not is_empty(meta)
    src_names = [c.get("name", "") for c in _containers(src_tpl)]
    needs_main_marker = projected is not None and MAIN not in src_names and has_container(_containers(projected), MAIN)
    needs_empty_marker = projected is None and is_empty(src_tpl)
    needs_order = False
    if projected is not None:
        pnames = [c.get("name", "") for c in _containers(projected)]
        if MAIN not in src_names:
            pnames = [n for n in pnames if n != MAIN]
        needs_order = src_names != pnames
    needs_sidecar_key = bool(sidecar) and sidecar in src_names
    fields_need = (
        bool(_containers(src_tpl)) if projected is None else not sem_eq(_containers(src_tpl), _containers(projected))
    )
    if not (needs_meta or needs_main_marker or needs_empty_marker or needs_order or needs_sidecar_key or fields_need):
        return None
    out: Obj = {}
    if needs_meta:
        out["metadata"] = copy.deepcopy(meta)
    containers = _save_containers(src_tpl, projected, needs_order, sidecar)
    if containers:
        out["spec"] = {"containers": containers}
    if not needs_meta and not containers and not needs_main_marker and not needs_empty_marker:
        return None
    return out


def _experimental_hub_only_shape(exp: Obj | None) -> bool:
    """Mirrors: api/v1alpha1/shared_spec_conversion.go experimentalIsHubOnlyShape"""
    return exp is not None and all(exp.get(k) is None for k in ("gpuMemoryService", "failover", "checkpoint"))


def _save_hub_only(src: Obj, converted: Obj, save: Obj) -> None:
    """Mirrors: api/v1alpha1/shared_spec_conversion.go saveSharedHubOnlySpec
    (with sharedFrontendSidecarNeedsPreservation and saveSharedPodTemplateHubOnlyFields)
    """
    if src.get("frontendSidecar") is not None and converted.get("frontendSidecar") is None:
        save["frontendSidecar"] = src["frontendSidecar"]
    if src.get("podTemplate") is not None:
        projected = build_pod_template(converted, False)
        tpl = _sparse_pod_template(src["podTemplate"], projected, save.get("frontendSidecar") or "")
        _set(save, "podTemplate", tpl)
    exp = src.get("experimental")
    if _experimental_hub_only_shape(exp):
        save["experimental"] = copy.deepcopy(exp)
    elif exp is not None and exp.get("grove") is not None:
        save["experimental"] = {"grove": copy.deepcopy(exp["grove"])}


def hub_save_is_zero(save: Obj | None) -> bool:
    """Mirrors: api/v1alpha1/shared_spec_conversion.go sharedHubSpecSaveIsZero"""
    if save is None:
        return True
    rest = {k: v for k, v in save.items() if k != "name"}
    # a present but empty pod template is a marker, not a zero value
    if "podTemplate" in rest:
        return False
    return is_empty(rest)


def shared_from_v1beta1(src: Obj, restored: Obj | None, save: Obj | None) -> Obj:
    """One component's shared spec, v1beta1 -> v1alpha1; fills ``save`` with hub-only remainders.

    Mirrors: api/v1alpha1/shared_spec_conversion.go ConvertToDynamoComponentDeploymentSharedSpec
    """
    dst: Obj = {}
    if src.get("providerOverride") is not None:
        dst["providerOverride"] = copy.deepcopy(src["providerOverride"])
    ctype, sub = component_type_from_hub(src.get("type", ""))
    _set(dst, "componentType", ctype or None)
    _set(dst, "subComponentType", sub or None)
    for key in ("globalDynamoNamespace", "replicas", "minAvailable"):
        if src.get(key) is not None and src.get(key) is not False:
            dst[key] = src[key]
    if src.get("multinode") is not None:
        mn = src["multinode"]
        out: Obj = {}
        if mn.get("nodeCount") is not None:
            out["nodeCount"] = mn["nodeCount"]
        for role in ("leader", "worker"):
            if mn.get(role) is not None:
                rs: Obj = {}
                if mn[role].get("providerOverride") is not None:
                    rs["providerOverride"] = copy.deepcopy(mn[role]["providerOverride"])
                out[role] = rs
        dst["multinode"] = out
    for key in ("modelRef", "topologyConstraint", "eppConfig"):
        if src.get(key) is not None:
            dst[key] = copy.deepcopy(src[key])
    _set(dst, "runtimeVersionOverride", src.get("runtimeVersionOverride") or None)
    _set(dst, "serviceName", src.get("name") or None)
    if src.get("sharedMemorySize") is not None:
        size = _quantity_or_none(src["sharedMemorySize"]) or str(src["sharedMemorySize"])
        dst["sharedMemory"] = {"disabled": True, "size": size} if size == "0" else {"size": size}
    if src.get("compilationCache") is not None:
        cache = src["compilationCache"]
        dst["volumeMounts"] = [_flat(cache.get("pvcName", ""), cache.get("mountPath", ""), True)]
    _experimental_from_hub(src, dst)
    if src.get("scalingAdapter") is not None:
        dst["scalingAdapter"] = {"enabled": True}
    _decompose_pod_template(src, dst, restored)
    restore_flat_volume_mounts(dst, restored, src)
    main_present = src.get("podTemplate") is not None and has_container(_containers(src["podTemplate"]), MAIN)
    restore_alpha_only(dst, restored, main_present)
    prune_empty_eps(dst, restored)
    if save is not None:
        _save_hub_only(src, dst, save)
    return dst
