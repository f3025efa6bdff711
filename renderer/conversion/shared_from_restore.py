"""Restoring v1alpha1-only fields of a component from the spoke save, hub -> spoke.

When a v1alpha1 object went to v1beta1 and comes back, the fields v1beta1 cannot say (flat
volume mounts, shared memory, the main container's origins, extraPodSpec remnants) are read
back from the sparse save in the preservation annotation, where they still match the hub.

Mirrors: api/v1alpha1/shared_spec_conversion.go (the restore* helpers of
ConvertToDynamoComponentDeploymentSharedSpec)
"""

from __future__ import annotations

import copy

from renderer.conversion.podtemplate_to import (
    extra_pod_spec_is_zero,
    has_pod_template_content,
    resources_need_preservation,
    resources_to_native,
    semantic_main_container,
)
from renderer.conversion.shared_from_pod import (
    _append_missing_mounts,
    _volume_mounts_from_native,
    _containers,
    _flat_np,
    _mount_np,
    _native_eq,
    _quantity_or_none,
    _set,
    DEFAULT_FRONTEND_SIDECAR,
    find_container,
    has_container,
    is_empty,
    MAIN,
    Obj,
    sem_eq,
)


def _flat_has(mounts: list[Obj], name: str, path: str) -> bool:
    """Mirrors: api/v1alpha1/shared_spec_conversion.go flatVolumeMountHasNamePath"""
    return any(_flat_np(m) == (name, path) for m in mounts)


def _native_has(mounts: list[Obj], name: str, path: str) -> bool:
    """Mirrors: api/v1alpha1/shared_spec_conversion.go nativeVolumeMountHasNamePath"""
    return any(_mount_np(m) == (name, path) for m in mounts)


def _cache_matches(cache: Obj | None, mount: Obj) -> bool:
    """Mirrors: api/v1alpha1/shared_spec_conversion.go compilationCacheMatchesVolumeMount"""
    return cache is not None and (cache.get("pvcName", ""), cache.get("mountPath", "")) == _flat_np(mount)


def _mounts_round_trip(mounts: list[Obj]) -> bool:
    """Mirrors: api/v1alpha1/shared_spec_conversion.go volumeMountsRoundTripThroughHub"""
    return sum(1 for m in mounts if m.get("useAsCompilationCache")) <= 1


def _main_of(src: Obj) -> Obj | None:
    """Mirrors: api/v1alpha1/shared_spec_conversion.go sharedMainContainer"""
    if src.get("podTemplate") is None:
        return None
    return find_container(_containers(src["podTemplate"]), MAIN)


def restore_flat_volume_mounts(dst: Obj, preserved: Obj | None, src: Obj) -> None:
    """Mirrors: api/v1alpha1/shared_spec_conversion.go restoreSharedPreservedFlatVolumeMounts
    (with firstPreservedCompilationCacheMatches, visiblePreservedVolumeMountProjection,
    restorablePreservedCompilationCacheMounts and mergePreservedCompilationCacheVolumeMounts)
    """
    if preserved is None:
        return
    pmounts = preserved.get("volumeMounts") or []
    if _mounts_round_trip(pmounts):
        return
    cache = src.get("compilationCache")
    first = next((m for m in pmounts if m.get("useAsCompilationCache")), None)
    if not (_cache_matches(cache, first) if first is not None else cache is None):
        return
    main = _main_of(src)
    visible: list[Obj] = [first] if first is not None else []
    if main is not None and main.get("volumeMounts"):
        visible = _append_missing_mounts(visible, _volume_mounts_from_native(main["volumeMounts"]))

    def key(m: Obj) -> tuple[str, str, bool]:
        return m.get("name", ""), m.get("mountPoint", ""), bool(m.get("useAsCompilationCache"))

    if [key(m) for m in dst.get("volumeMounts") or []] != [key(m) for m in visible]:
        return
    secondary_projected = main is not None or has_pod_template_content(preserved, False)
    live: list[Obj] = []
    seen_first = False
    for mount in pmounts:
        if not mount.get("useAsCompilationCache"):
            continue
        if not seen_first:
            seen_first = True
            if _cache_matches(cache, mount):
                live.append(mount)
            continue
        if not secondary_projected or _native_has((main or {}).get("volumeMounts") or [], *_flat_np(mount)):
            live.append(mount)
    out: list[Obj] = []
    for mount in live:
        if mount.get("useAsCompilationCache") and not _flat_has(out, *_flat_np(mount)):
            out.append(copy.deepcopy(mount))
    for mount in dst.get("volumeMounts") or []:
        if not _flat_has(out, *_flat_np(mount)):
            out.append(mount)
    _set(dst, "volumeMounts", out or None)


def _size_is_zero(sm: Obj) -> bool:
    size = sm.get("size")
    return size is None or _quantity_or_none(size) in (None, "0")


def _shared_memory_needs_preservation(sm: Obj | None) -> bool:
    """Mirrors: api/v1alpha1/shared_spec_conversion.go sharedMemoryNeedsPreservation"""
    if sm is None:
        return False
    if sm.get("disabled"):
        return not _size_is_zero(sm)
    return _size_is_zero(sm)


def _should_restore_shared_memory(dst: Obj | None, preserved: Obj | None) -> bool:
    """Mirrors: api/v1alpha1/shared_spec_conversion.go shouldRestorePreservedSharedMemory"""
    if preserved is None or not _shared_memory_needs_preservation(preserved):
        return False
    if dst is None:
        return True
    if preserved.get("disabled"):
        return bool(dst.get("disabled")) and _size_is_zero(dst)
    return False


def _ensure_main(dst: Obj) -> Obj:
    """Mirrors: api/v1alpha1/shared_spec_conversion.go ensureExtraPodSpecMainContainer"""
    eps = dst.setdefault("extraPodSpec", {})
    main: Obj = eps.setdefault("mainContainer", {})
    return main


def _without_cache_mounts(mounts: list[Obj], flat: list[Obj]) -> list[Obj]:
    """Mirrors: api/v1alpha1/shared_spec_conversion.go withoutCompilationCacheMounts"""
    return [
        m for m in mounts
        if not any(f.get("useAsCompilationCache") and _flat_np(f) == _mount_np(m) for f in flat)
    ]


def _restore_volume_mount_origins(preserved: list[Obj], current: list[Obj], preserved_main: list[Obj]) -> list[Obj]:
    """Mirrors: api/v1alpha1/shared_spec_conversion.go restorePreservedVolumeMountOrigins"""
    out = [copy.deepcopy(m) for m in preserved if not m.get("useAsCompilationCache")]
    for mount in current:
        if not mount.get("useAsCompilationCache"):
            if _native_has(preserved_main, *_flat_np(mount)) or _flat_has(out, *_flat_np(mount)):
                continue
            out.append(mount)
            continue
        for existing in out:
            if _flat_np(existing) == _flat_np(mount):
                existing["useAsCompilationCache"] = True
                break
        else:
            out.append(mount)
    return out


def _restore_main_origins(dst: Obj, preserved: Obj, main_present: bool) -> None:
    """Mirrors: api/v1alpha1/shared_spec_conversion.go restoreMainContainerFieldOrigins"""
    pmain = (preserved.get("extraPodSpec") or {}).get("mainContainer")
    if not main_present or pmain is None:
        return
    current = semantic_main_container(dst)
    psem = semantic_main_container(preserved)
    if sem_eq(current.get("env"), psem.get("env")) and (preserved.get("envs") or pmain.get("env")):
        _set(dst, "envs", copy.deepcopy(preserved.get("envs")) or None)
        _set(_ensure_main(dst), "env", copy.deepcopy(pmain.get("env")) or None)
    if sem_eq(current.get("envFrom"), psem.get("envFrom")) and preserved.get("envFromSecret") is not None:
        dst["envFromSecret"] = preserved["envFromSecret"]
    if _native_eq(current.get("resources"), psem.get("resources")) and (
        preserved.get("resources") is not None or not _native_eq(pmain.get("resources"), {})
    ):
        _set(dst, "resources", copy.deepcopy(preserved.get("resources")))
        _set(_ensure_main(dst), "resources", copy.deepcopy(pmain.get("resources")) or None)
    cur_mounts = _without_cache_mounts(current.get("volumeMounts") or [], dst.get("volumeMounts") or [])
    pres_mounts = _without_cache_mounts(psem.get("volumeMounts") or [], preserved.get("volumeMounts") or [])
    if [_mount_np(m) for m in pres_mounts] == [_mount_np(m) for m in cur_mounts] and (
        preserved.get("volumeMounts") or pmain.get("volumeMounts")
    ):
        merged = _restore_volume_mount_origins(
            preserved.get("volumeMounts") or [], dst.get("volumeMounts") or [], pmain.get("volumeMounts") or []
        )
        _set(dst, "volumeMounts", merged or None)
        _set(_ensure_main(dst), "volumeMounts", copy.deepcopy(pmain.get("volumeMounts")) or None)
    for probe in ("livenessProbe", "readinessProbe"):
        if sem_eq(current.get(probe), psem.get(probe)) and (
            preserved.get(probe) is not None or pmain.get(probe) is not None
        ):
            _set(dst, probe, copy.deepcopy(preserved.get(probe)))
            _set(_ensure_main(dst), probe, copy.deepcopy(pmain.get(probe)))


def _eps_only_main_name(eps: Obj | None) -> bool:
    """Mirrors: api/v1alpha1/shared_spec_conversion.go extraPodSpecOnlyPreservesMainContainerName"""
    if eps is None or eps.get("mainContainer") is None or not eps["mainContainer"].get("name"):
        return False
    if not is_empty({k: v for k, v in eps.items() if k != "mainContainer"}):
        return False
    return is_empty({k: v for k, v in eps["mainContainer"].items() if k != "name"})


def _eps_needs_preservation(eps: Obj | None) -> bool:
    """Mirrors: api/v1alpha1/shared_spec_conversion.go extraPodSpecNeedsPreservation"""
    return eps is not None and (extra_pod_spec_is_zero(eps) or _eps_only_main_name(eps))


def _sidecar_conflict(sidecar: Obj | None, eps: Obj | None) -> bool:
    """Mirrors: api/v1alpha1/shared_spec_conversion.go alphaFrontendSidecarConflictNeedsPreservation"""
    return sidecar is not None and eps is not None and has_container(eps.get("containers") or [], DEFAULT_FRONTEND_SIDECAR)


def restore_alpha_only(dst: Obj, preserved: Obj | None, main_present: bool) -> None:
    """Mirrors: api/v1alpha1/shared_spec_conversion.go fillSharedAlphaOnlyFromPreserved
    (restoreSharedAlphaOnlySimpleFields, restoreSharedAlphaOnlyPodFields,
    restoreEnvFromSecretFromPreserved, restorePreservedFrontendSidecarConflict and
    restoreSharedAlphaOnlyDisabledFeatures)
    """
    if preserved is None:
        return
    # simple fields
    if not dst.get("subComponentType") and preserved.get("subComponentType"):
        dst["subComponentType"] = preserved["subComponentType"]
    for key in ("dynamoNamespace", "autoscaling", "ingress"):
        if dst.get(key) is None and preserved.get(key) is not None:
            dst[key] = copy.deepcopy(preserved[key])
    for key in ("annotations", "labels"):
        if not dst.get(key) and preserved.get(key):
            dst[key] = dict(preserved[key])
    # pod fields
    if _should_restore_shared_memory(dst.get("sharedMemory"), preserved.get("sharedMemory")):
        dst["sharedMemory"] = copy.deepcopy(preserved["sharedMemory"])
    if main_present and resources_need_preservation(preserved.get("resources")) and _native_eq(
        resources_to_native(dst["resources"]) if dst.get("resources") is not None else {},
        resources_to_native(preserved["resources"]),
    ):
        dst["resources"] = copy.deepcopy(preserved["resources"])
    pres_secret = preserved.get("envFromSecret")
    if dst.get("envFromSecret") is None and pres_secret is not None:
        if pres_secret == "":
            dst["envFromSecret"] = ""
        elif main_present:
            main = (dst.get("extraPodSpec") or {}).get("mainContainer")
            if main is not None and sem_eq(main.get("envFrom"), [{"secretRef": {"name": pres_secret}}]):
                dst["envFromSecret"] = pres_secret
                main.pop("envFrom", None)
    pmeta = preserved.get("extraPodMetadata")
    if dst.get("extraPodMetadata") is None and pmeta is not None and not pmeta.get("annotations") and not pmeta.get("labels"):
        dst["extraPodMetadata"] = copy.deepcopy(pmeta)
    peps = preserved.get("extraPodSpec")
    if peps is not None and (_eps_needs_preservation(peps) or _sidecar_conflict(preserved.get("frontendSidecar"), peps)):
        if dst.get("extraPodSpec") is None:
            dst["extraPodSpec"] = copy.deepcopy(peps)
        else:
            conflict = find_container(peps.get("containers") or [], DEFAULT_FRONTEND_SIDECAR)
            if conflict is not None and not has_container(dst["extraPodSpec"].get("containers") or [], DEFAULT_FRONTEND_SIDECAR):
                dst["extraPodSpec"].setdefault("containers", []).append(conflict)
    _restore_main_origins(dst, preserved, main_present)
    dmain = (dst.get("extraPodSpec") or {}).get("mainContainer")
    pmain = (peps or {}).get("mainContainer")
    if dmain is not None and not dmain.get("name") and pmain is not None and pmain.get("name"):
        dmain["name"] = pmain["name"]
    # disabled features
    for key in ("scalingAdapter", "gpuMemoryService", "failover", "checkpoint"):
        pval = preserved.get(key)
        if dst.get(key) is None and pval is not None and not pval.get("enabled"):
            dst[key] = copy.deepcopy(pval)


def prune_empty_eps(dst: Obj, restored: Obj | None) -> None:
    """Mirrors: api/v1alpha1/shared_spec_conversion.go pruneEmptyExtraPodSpec"""
    eps = dst.get("extraPodSpec")
    if eps is None:
        return
    reps = (restored or {}).get("extraPodSpec")
    main = eps.get("mainContainer")
    if main is not None and is_empty({k: v for k, v in main.items() if k != "name"}) and not _eps_only_main_name(reps):
        eps.pop("mainContainer", None)
    if extra_pod_spec_is_zero(eps):
        if restored is not None and _eps_needs_preservation(reps):
            return
        dst.pop("extraPodSpec", None)
