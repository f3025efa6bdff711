"""v1alpha1 pod fields as plain dicts: semantic comparison, containers and volume mounts.

The hub -> spoke conversion compares what it decomposed against what the forward conversion
would build from it (``podtemplate_to.build_pod_template``, the one port of
buildSharedPodTemplateFromAlpha), to find the hub-only remainder to save; these are the
small pieces for that. "Semantic" comparisons treat absent, null, empty and zero alike, as
the operator's apiequality.Semantic.DeepEqual treats nil and empty; quantities compare by value.

Mirrors: api/v1alpha1/shared_spec_conversion.go (findContainerByName, hasContainerNamed,
containerHasOnlyName, resourceRequirementsEqual, volumeMountsFromNative,
appendMissingVolumeMounts)
"""

from __future__ import annotations

import copy
from typing import Any

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


def _native_eq(a: Obj | None, b: Obj | None) -> bool:
    """Resource requirements equal by quantity value."""

    def canon(r: Obj | None) -> Any:
        r = r or {}
        return prune({k: ({n: _quantity_or_none(q) for n, q in (r.get(k) or {}).items()} if k != "claims" else r.get(k))
                      for k in ("limits", "requests", "claims")})

    return bool(canon(a) == canon(b))


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
