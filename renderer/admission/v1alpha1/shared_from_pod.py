"""v1alpha1 pod fields as plain dicts: semantic comparison, resources, and the forward projection.

The hub -> spoke conversion compares what it decomposed against what the forward conversion
would build from it, to find the hub-only remainder to save; these are the pieces for that.
"Semantic" comparisons treat absent, null, empty and zero alike, as the operator's
apiequality.Semantic.DeepEqual treats nil and empty; quantities compare by value.

Mirrors: api/v1alpha1/shared_spec_conversion.go (buildSharedPodTemplateFromAlpha,
buildMainContainerFromDedicated, mergeExtraPodSpecMainContainer, resourcesToNative,
resourcesFromNative and the small helpers they use)
"""

from __future__ import annotations

import copy
from typing import Any

from renderer.admission.v1alpha1.podtemplate_to import merge_envs, pod_metadata, resources_to_native
from renderer.gocompat.quantity import canonical_quantity

Obj = dict[str, Any]

MAIN = "main"
DEFAULT_FRONTEND_SIDECAR = "sidecar-frontend"
DEFAULT_GPU_RESOURCE = "nvidia.com/gpu"

# ---------------------------------------------------------------------------
# Small value helpers
# ---------------------------------------------------------------------------


def _quantity_or_none(text: Any) -> str | None:
    try:
        return canonical_quantity(text)
    except Exception:  # noqa: BLE001 - Go drops an unparsable quantity silently
        return None


def prune(value: Any) -> Any:
    """``value`` without zero values, recursively (None when nothing is left).

    Mirrors: k8s.io/apimachinery api/equality Semantic.DeepEqual (nil == empty), as used by
    api/v1alpha1/shared_spec_conversion.go containerIsEmpty and podSpecIsZero
    """
    if isinstance(value, dict):
        out = {k: p for k, v in value.items() if (p := prune(v)) is not None}
        return out or None
    if isinstance(value, list):
        items = [prune(v) for v in value]
        return items or None
    if value is None or value is False or value == "" or (type(value) in (int, float) and value == 0):
        return None
    return value


def sem_eq(a: Any, b: Any) -> bool:
    """Semantic equality: zero values ignored on both sides.

    Mirrors: k8s.io/apimachinery api/equality Semantic.DeepEqual
    """
    return bool(prune(a) == prune(b))


def is_empty(value: Any) -> bool:
    """True when ``value`` equals its Go zero value semantically.

    Mirrors: api/v1alpha1/shared_spec_conversion.go containerIsEmpty / podSpecIsZero
    """
    return prune(value) is None


def _containers(pod_template: Obj | None) -> list[Obj]:
    if not pod_template:
        return []
    return list((pod_template.get("spec") or {}).get("containers") or [])


def find_container(containers: list[Obj], name: str) -> Obj | None:
    """A deep copy of the first container called ``name``.

    Mirrors: api/v1alpha1/shared_spec_conversion.go findContainerByName
    """
    for ctr in containers:
        if ctr.get("name", "") == name:
            return copy.deepcopy(ctr)
    return None


def has_container(containers: list[Obj], name: str) -> bool:
    """Mirrors: api/v1alpha1/shared_spec_conversion.go hasContainerNamed"""
    return any(c.get("name", "") == name for c in containers)


def only_name(container: Obj) -> bool:
    """Mirrors: api/v1alpha1/shared_spec_conversion.go containerHasOnlyName"""
    return is_empty({k: v for k, v in container.items() if k != "name"})


def _mount_np(mount: Obj) -> tuple[str, str]:
    return mount.get("name", ""), mount.get("mountPath", "")


def _flat_np(mount: Obj) -> tuple[str, str]:
    return mount.get("name", ""), mount.get("mountPoint", "")


def _set(obj: Obj, key: str, value: Any) -> None:
    if value is None:
        obj.pop(key, None)
    else:
        obj[key] = value


# ---------------------------------------------------------------------------
# Resources
# ---------------------------------------------------------------------------


def _item_from_list(rlist: Obj | None) -> Obj | None:
    """Mirrors: api/v1alpha1/shared_spec_conversion.go resourceItemFromList"""
    if not rlist:
        return None
    out: Obj = {}
    for name in sorted(rlist):
        value = _quantity_or_none(rlist[name]) or str(rlist[name])
        if name == "cpu":
            out["cpu"] = value
        elif name == "memory":
            out["memory"] = value
        elif name == DEFAULT_GPU_RESOURCE:
            out["gpu"] = value
        else:
            out.setdefault("custom", {})[name] = value
    return out


def resources_from_native(req: Obj | None) -> Obj | None:
    """Mirrors: api/v1alpha1/shared_spec_conversion.go resourcesFromNative"""
    req = req or {}
    out: Obj = {}
    _set(out, "requests", _item_from_list(req.get("requests")))
    _set(out, "limits", _item_from_list(req.get("limits")))
    if req.get("claims"):
        out["claims"] = copy.deepcopy(req["claims"])
    return out or None


def resources_need_preservation(res: Obj | None) -> bool:
    """Mirrors: api/v1alpha1/shared_spec_conversion.go resourcesNeedPreservation"""
    if res is None:
        return False
    back = resources_from_native(resources_to_native(res))
    # reflect.DeepEqual: a present (even empty) value differs from the nil it comes back as
    return back is None or bool(prune(res) != prune(back))


def _native_eq(a: Obj | None, b: Obj | None) -> bool:
    """Resource requirements equal by quantity value."""

    def canon(r: Obj | None) -> Any:
        r = r or {}
        return prune({k: ({n: _quantity_or_none(q) for n, q in (r.get(k) or {}).items()} if k != "claims" else r.get(k))
                      for k in ("limits", "requests", "claims")})

    return bool(canon(a) == canon(b))


# ---------------------------------------------------------------------------
# The forward projection of the v1alpha1 pod fields (used to find hub-only remainders)
# ---------------------------------------------------------------------------


def _mergo_override(dst: Any, src: Any) -> Any:
    """``src`` merged over ``dst``: non-empty source values win, structs and maps merge deep.

    Mirrors: github.com/imdario/mergo Merge(dst, src, WithOverride)
    """
    if isinstance(dst, dict) and isinstance(src, dict):
        out = dict(dst)
        for key, value in src.items():
            if is_empty(value):
                continue
            out[key] = _mergo_override(dst.get(key), value) if key in dst else copy.deepcopy(value)
        return out
    if is_empty(src):
        return dst
    return copy.deepcopy(src)


def main_from_dedicated(alpha: Obj) -> Obj:
    """Mirrors: api/v1alpha1/shared_spec_conversion.go buildMainContainerFromDedicated"""
    ctr: Obj = {"name": MAIN}
    if alpha.get("resources") is not None:
        _set(ctr, "resources", resources_to_native(alpha["resources"]))
    if alpha.get("envs"):
        ctr["env"] = copy.deepcopy(alpha["envs"])
    if alpha.get("envFromSecret"):
        ctr["envFrom"] = [{"secretRef": {"name": alpha["envFromSecret"]}}]
    for probe in ("livenessProbe", "readinessProbe"):
        if alpha.get(probe) is not None:
            ctr[probe] = copy.deepcopy(alpha[probe])
    mounts = [{"name": m.get("name", ""), "mountPath": m.get("mountPoint", "")} for m in alpha.get("volumeMounts") or []]
    if mounts:
        ctr["volumeMounts"] = mounts
    return ctr


def merge_main_container(alpha: Obj, base: Obj) -> Obj:
    """Mirrors: api/v1alpha1/shared_spec_conversion.go mergeExtraPodSpecMainContainer"""
    eps = alpha.get("extraPodSpec") or {}
    if eps.get("mainContainer") is None:
        return base
    main = copy.deepcopy(eps["mainContainer"])
    main["name"] = MAIN
    out: Obj = _mergo_override(base, main)
    _set(out, "env", merge_envs(base.get("env") or [], main.get("env") or []))
    mounts = list(main.get("volumeMounts") or []) + list(base.get("volumeMounts") or [])
    _set(out, "volumeMounts", mounts or None)
    if main.get("startupProbe") is not None:
        out["startupProbe"] = main["startupProbe"]
    return out


def _volume_mounts_are_pod_template(mounts: list[Obj]) -> bool:
    """Mirrors: api/v1alpha1/shared_spec_conversion.go hasPodTemplateVolumeMounts"""
    return any(not m.get("useAsCompilationCache") for m in mounts)


def extra_pod_spec_is_zero(eps: Obj | None) -> bool:
    """Mirrors: api/v1alpha1/shared_spec_conversion.go extraPodSpecIsZero"""
    if eps is None:
        return True
    return is_empty({k: v for k, v in eps.items() if k != "mainContainer"}) and is_empty(
        {k: v for k, v in (eps.get("mainContainer") or {}).items() if k != "name"}
    )


def has_pod_template_content(alpha: Obj, origin: bool) -> bool:
    """Mirrors: api/v1alpha1/shared_spec_conversion.go hasPodTemplateContent"""
    return (
        alpha.get("resources") is not None
        or bool(alpha.get("envs"))
        or alpha.get("envFromSecret") is not None
        or _volume_mounts_are_pod_template(alpha.get("volumeMounts") or [])
        or alpha.get("livenessProbe") is not None
        or alpha.get("readinessProbe") is not None
        or not extra_pod_spec_is_zero(alpha.get("extraPodSpec"))
        or alpha.get("extraPodMetadata") is not None
        or alpha.get("frontendSidecar") is not None
        or origin
    )


def project_pod_template(alpha: Obj | None) -> Obj | None:
    """The v1beta1 podTemplate the forward conversion builds from these v1alpha1 fields.

    Mirrors: api/v1alpha1/shared_spec_conversion.go buildSharedPodTemplateFromAlpha
    (with buildBasePodTemplate and appendFrontendSidecar)
    """
    if alpha is None or not has_pod_template_content(alpha, False):
        return None
    tpl: Obj = {}
    md = pod_metadata(alpha.get("extraPodMetadata"))
    if md:
        tpl["metadata"] = md
    eps = alpha.get("extraPodSpec") or {}
    spec: Obj = {k: copy.deepcopy(v) for k, v in eps.items() if k != "mainContainer"}
    main = merge_main_container(alpha, main_from_dedicated(alpha))
    main["name"] = MAIN
    containers = [main] + [c for c in spec.get("containers") or [] if c.get("name", "") != MAIN]
    sidecar = alpha.get("frontendSidecar")
    if sidecar is not None and not has_container(containers, DEFAULT_FRONTEND_SIDECAR):
        ctr: Obj = {"name": DEFAULT_FRONTEND_SIDECAR}
        _set(ctr, "image", sidecar.get("image") or None)
        _set(ctr, "args", copy.deepcopy(sidecar.get("args")) or None)
        _set(ctr, "env", copy.deepcopy(sidecar.get("envs")) or None)
        if sidecar.get("envFromSecret"):
            ctr["envFrom"] = [{"secretRef": {"name": sidecar["envFromSecret"]}}]
        containers.append(ctr)
    spec["containers"] = containers
    tpl["spec"] = spec
    return tpl


def _volume_mounts_from_native(mounts: list[Obj]) -> list[Obj]:
    """Mirrors: api/v1alpha1/shared_spec_conversion.go volumeMountsFromNative"""
    return [_flat(m.get("name", ""), m.get("mountPath", "")) for m in mounts]


def _flat(name: str, mount_point: str, cache: bool = False) -> Obj:
    out: Obj = {"name": name}
    if mount_point:
        out["mountPoint"] = mount_point
    if cache:
        out["useAsCompilationCache"] = True
    return out


def _append_missing_mounts(dst: list[Obj], mounts: list[Obj]) -> list[Obj]:
    """Mirrors: api/v1alpha1/shared_spec_conversion.go appendMissingVolumeMounts"""
    out = list(dst)
    for mount in mounts:
        if not any(_flat_np(e) == _flat_np(mount) for e in out):
            out.append(mount)
    return out
