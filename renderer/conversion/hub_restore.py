"""v1beta1-only fields restored from a preserved v1beta1 spec when an object goes back to v1beta1.

An object stored as v1beta1 and read as v1alpha1 carries its v1beta1-only parts in the
preserved-spec annotation (``nvidia.com/dcd-spec`` / ``nvidia.com/dgd-spec`` with a sparse
v1beta1 spec). Converting it to v1beta1 again puts them back over what the v1alpha1 fields
give: pod template metadata beyond labels and annotations, containers and container fields
v1alpha1 has no place for, the container order, the absence of a generated ``main``
container, volume mount details, the frontend sidecar reference and ``experimental.grove``.

Values are Go values as ``renderer.conversion.typed`` describes them.

Mirrors: api/v1alpha1/shared_spec_conversion.go restoreSharedHubOnlyFields and
restoreSharedPodTemplateHubOnlyFields with their helpers
"""

from __future__ import annotations

from typing import Any

from renderer.conversion import podtemplate_to as pt
from renderer.conversion import typed
from renderer.gocompat.merge import copy_json, merge_override

_POD_TEMPLATE = typed.k8s_shape("PodTemplateSpec")
_ENV_FROM = ("slice", ("k8s", "EnvFromSource"))


def _containers(template: dict[str, Any] | None) -> list[dict[str, Any]]:
    if not template:
        return []
    spec = template.get("spec") or {}
    containers: list[dict[str, Any]] = spec.get("containers") or []
    return containers


def _find(containers: list[dict[str, Any]], name: str) -> dict[str, Any] | None:
    """Mirrors: shared_spec_conversion.go findContainerByName"""
    for container in containers:
        if container.get("name", "") == name:
            return container
    return None


def _set_containers(template: dict[str, Any], containers: list[dict[str, Any]] | None) -> None:
    spec = template.setdefault("spec", {})
    spec["containers"] = containers or None


def pod_template_is_zero(template: dict[str, Any] | None) -> bool:
    """Mirrors: shared_spec_conversion.go podTemplateIsZero (a non-nil zero template)"""
    return template is not None and typed.is_zero(_POD_TEMPLATE, template)


def experimental_is_hub_only_shape(experimental: dict[str, Any] | None) -> bool:
    """Mirrors: shared_spec_conversion.go experimentalIsHubOnlyShape"""
    return experimental is not None and not any(
        k in experimental for k in ("gpuMemoryService", "failover", "checkpoint")
    )


def restore_hub_only_fields(dst: dict[str, Any], preserved: dict[str, Any], src: dict[str, Any]) -> None:
    """Put the preserved v1beta1-only fields of one component back into ``dst`` (in place).

    Mirrors: shared_spec_conversion.go restoreSharedHubOnlyFields
    """
    template = _restore_pod_template(preserved, dst.get("podTemplate"), dst.get("compilationCache"), src)
    if template is None:
        dst.pop("podTemplate", None)
    else:
        dst["podTemplate"] = template
    _restore_frontend_sidecar(dst, preserved)
    experimental = dst.get("experimental")
    saved = preserved.get("experimental")
    if experimental is None and experimental_is_hub_only_shape(saved):
        dst["experimental"] = copy_json(saved)
    elif experimental is not None and saved is not None and "grove" not in experimental and "grove" in saved:
        experimental["grove"] = copy_json(saved["grove"])


def _restore_frontend_sidecar(dst: dict[str, Any], preserved: dict[str, Any]) -> None:
    """Mirrors: shared_spec_conversion.go restoreSharedHubOnlyFrontendSidecar"""
    name = preserved.get("frontendSidecar")
    if "frontendSidecar" in dst or name is None:
        return
    if _find(_containers(preserved.get("podTemplate")), name) is not None and (
        _find(_containers(dst.get("podTemplate")), name) is None
    ):
        return
    dst["frontendSidecar"] = name


def _restore_pod_template(
    preserved: dict[str, Any],
    semantic: dict[str, Any] | None,
    compilation_cache: dict[str, Any] | None,
    src: dict[str, Any],
) -> dict[str, Any] | None:
    """Mirrors: shared_spec_conversion.go restoreSharedPodTemplateHubOnlyFields"""
    saved = preserved.get("podTemplate")
    if saved is None:
        return None if semantic is None else copy_json(semantic)
    out: dict[str, Any] = copy_json(semantic) if semantic is not None else {}
    _drop_generated_compilation_cache_mount(out, saved, compilation_cache, src)
    _drop_generated_main_container(out, saved, compilation_cache, src)
    _restore_missing_containers(out, saved, src)
    _restore_frontend_sidecar_container(out, saved, src)
    _restore_container_order(out, saved)
    _restore_metadata(out, saved)
    _restore_flat_volume_mount_fields(out, saved, src)
    if pod_template_is_zero(saved) and pod_template_is_zero(out):
        return out
    return None if pod_template_is_zero(out) else out


def _mount_matches(mount: dict[str, Any], name: str, path: str) -> bool:
    return bool(mount.get("name", "") == name and mount.get("mountPath", "") == path)


def _extra_main_has_mount(src: dict[str, Any], name: str, path: str) -> bool:
    """Mirrors: shared_spec_conversion.go sourceExtraPodMainContainerVolumeMountMatches"""
    _pod, main = pt.extra_pod_spec_parts(src.get("extraPodSpec"))
    return main is not None and any(_mount_matches(m, name, path) for m in main.get("volumeMounts") or [])


def _drop_generated_compilation_cache_mount(
    out: dict[str, Any], saved: dict[str, Any], cache: dict[str, Any] | None, src: dict[str, Any]
) -> None:
    """Mirrors: shared_spec_conversion.go dropGeneratedCompilationCacheMount"""
    if cache is None:
        return
    name, path = cache.get("pvcName", ""), cache.get("mountPath", "")
    saved_main = _find(_containers(saved), pt.MAIN)
    if saved_main is not None and any(_mount_matches(m, name, path) for m in saved_main.get("volumeMounts") or []):
        return
    if _extra_main_has_mount(src, name, path):
        return
    main = _find(_containers(out), pt.MAIN)
    if main is not None:
        mounts = [m for m in main.get("volumeMounts") or [] if not _mount_matches(m, name, path)]
        main["volumeMounts"] = mounts or None


def _drop_generated_main_container(
    out: dict[str, Any], saved: dict[str, Any], cache: dict[str, Any] | None, src: dict[str, Any]
) -> None:
    """Mirrors: shared_spec_conversion.go dropGeneratedMainContainer, mainContainerHasOnlyGeneratedFields"""
    if _find(_containers(saved), pt.MAIN) is not None:
        return
    if pt.resources_need_preservation(src.get("resources")):
        return
    containers = _containers(out)
    for i, container in enumerate(containers):
        if container.get("name", "") != pt.MAIN:
            continue
        rest = dict(container)
        if cache is not None:
            name, path = cache.get("pvcName", ""), cache.get("mountPath", "")
            rest["volumeMounts"] = [m for m in rest.get("volumeMounts") or [] if not _mount_matches(m, name, path)]
        if pt.container_is_empty(rest):
            _set_containers(out, containers[:i] + containers[i + 1 :])
        return


def _restore_missing_containers(out: dict[str, Any], saved: dict[str, Any], src: dict[str, Any]) -> None:
    """Mirrors: shared_spec_conversion.go restoreSharedPodTemplateMissingHubOnlyContainers"""
    for container in _containers(saved):
        name = container.get("name", "")
        if pt.container_is_empty(container) or _find(_containers(out), name) is not None:
            continue
        if name == pt.FRONTEND_SIDECAR and "frontendSidecar" not in src:
            continue  # the generated sidecar's preserved remainder is stale once the field is gone
        _set_containers(out, [*_containers(out), copy_json(container)])


def _restore_frontend_sidecar_container(out: dict[str, Any], saved: dict[str, Any], src: dict[str, Any]) -> None:
    """Merge the preserved remainder of the generated sidecar container over the rebuilt one.

    Mirrors: shared_spec_conversion.go restoreSharedPodTemplateExistingHubOnlyContainers,
    restoreSharedHubOnlyFrontendSidecarContainerFields (mergo WithOverride),
    restoreSharedHubOnlyFrontendSidecarEnvFrom
    """
    sidecar = src.get("frontendSidecar")
    if sidecar is None:
        return
    preserved = _find(_containers(saved), pt.FRONTEND_SIDECAR)
    if preserved is None or pt.container_is_empty(preserved):
        return
    containers = _containers(out)
    for i, container in enumerate(containers):
        if container.get("name", "") != pt.FRONTEND_SIDECAR:
            continue
        remainder = {k: copy_json(v) for k, v in preserved.items() if k not in ("name", "image", "args", "env")}
        if remainder.get("envFrom"):
            env_from = _restore_sidecar_env_from(container.get("envFrom") or [], remainder["envFrom"], sidecar)
            if env_from is None:
                remainder.pop("envFrom")
            else:
                remainder["envFrom"] = env_from
        containers[i] = merge_override(container, remainder)
        return


def _restore_sidecar_env_from(
    current: list[dict[str, Any]], preserved: list[dict[str, Any]], sidecar: dict[str, Any]
) -> list[dict[str, Any]] | None:
    """Mirrors: shared_spec_conversion.go restoreSharedHubOnlyFrontendSidecarEnvFrom"""
    secret = sidecar.get("envFromSecret")
    if not secret:
        kept: list[dict[str, Any]] = copy_json(preserved)
        return kept
    if (
        len(current) != 1
        or len(preserved) != 1
        or current[0].get("secretRef") is None
        or preserved[0].get("secretRef") is None
        or current[0]["secretRef"].get("name", "") != secret
        or preserved[0]["secretRef"].get("name", "") != secret
    ):
        return None
    out: list[dict[str, Any]] = copy_json(preserved)
    out[0]["secretRef"]["name"] = current[0]["secretRef"].get("name", "")
    return out


def _restore_container_order(out: dict[str, Any], saved: dict[str, Any]) -> None:
    """Mirrors: shared_spec_conversion.go restoreSharedPodTemplateContainerOrder"""
    saved_names = [c.get("name", "") for c in _containers(saved)]
    containers = _containers(out)
    if len(saved_names) < 2 or len(saved_names) != len(containers):
        return
    if any(c.get("name", "") not in saved_names for c in containers):
        return
    remaining = list(containers)
    ordered = []
    for name in saved_names:
        for i, container in enumerate(remaining):
            if container.get("name", "") == name:
                ordered.append(remaining.pop(i))
                break
    _set_containers(out, ordered + remaining)


def _restore_metadata(out: dict[str, Any], saved: dict[str, Any]) -> None:
    """Everything of the preserved template metadata but its labels and annotations.

    Mirrors: shared_spec_conversion.go restoreSharedHubOnlyPodTemplateMetadata
    """
    current = out.get("metadata") or {}
    meta = {k: copy_json(v) for k, v in (saved.get("metadata") or {}).items() if k not in ("labels", "annotations")}
    for key in ("labels", "annotations"):
        if current.get(key):
            meta[key] = current[key]
    out["metadata"] = meta


def _find_preserved_mount(mounts: list[dict[str, Any]], mount: dict[str, Any]) -> dict[str, Any] | None:
    """The saved mount of the same name and path, else the only one of the same name.

    Mirrors: shared_spec_conversion.go findPreservedVolumeMount
    """
    name, path = mount.get("name", ""), mount.get("mountPath", "")
    for candidate in mounts:
        if _mount_matches(candidate, name, path):
            return candidate
    same_name = [m for m in mounts if m.get("name", "") == name]
    return same_name[0] if len(same_name) == 1 else None


def _restore_flat_volume_mount_fields(out: dict[str, Any], saved: dict[str, Any], src: dict[str, Any]) -> None:
    """Mirrors: shared_spec_conversion.go restoreSharedHubOnlyFlatVolumeMountFields"""
    flat = src.get("volumeMounts") or []
    if not flat:
        return
    saved_main = _find(_containers(saved), pt.MAIN)
    if saved_main is None or not saved_main.get("volumeMounts"):
        return
    main = _find(_containers(out), pt.MAIN)
    if main is None:
        return
    mounts = main.get("volumeMounts") or []
    for j, mount in enumerate(mounts):
        name, path = mount.get("name", ""), mount.get("mountPath", "")
        if not any(m.get("name", "") == name and m.get("mountPoint", "") == path for m in flat):
            continue
        if _extra_main_has_mount(src, name, path):
            continue
        preserved = _find_preserved_mount(saved_main["volumeMounts"], mount)
        if preserved is not None:
            mounts[j] = dict(copy_json(preserved), name=name, mountPath=path)
