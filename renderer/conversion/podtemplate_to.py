"""The v1beta1 ``podTemplate`` the conversion builds from a v1alpha1 component's flat fields.

v1alpha1 spreads a component's pod over ``resources``, ``envs``, ``envFromSecret``,
``volumeMounts``, the probes, ``extraPodSpec`` (with its ``mainContainer``),
``extraPodMetadata`` and ``frontendSidecar``; v1beta1 holds one ``podTemplate`` whose
``main`` container receives them. The merge follows the v1alpha1 controller's precedence:
``extraPodSpec.mainContainer`` wins over the dedicated fields, except ``env`` (merged by name,
order kept) and ``volumeMounts`` (the main container's first, then the dedicated ones).

Values are Go values as ``renderer.conversion.typed`` describes them.

Mirrors: api/v1alpha1/shared_spec_conversion.go buildSharedPodTemplateFromAlpha and its
helpers (buildBasePodTemplate, buildMainContainerFromDedicated,
mergeExtraPodSpecMainContainer, appendFrontendSidecar, resourcesToNative, mergeEnvs)
"""

from __future__ import annotations

from typing import Any

from renderer import consts
from renderer.conversion import typed
from renderer.gocompat.quantity import canonical_quantity, parse_quantity
from renderer.gocompat.merge import copy_json, merge_override, merge_probe

MAIN = consts.MAIN_CONTAINER_NAME
FRONTEND_SIDECAR = "sidecar-frontend"
DEFAULT_GPU_RESOURCE = consts.RESOURCE_GPU_NVIDIA

_CONTAINER = typed.k8s_shape("Container")
_POD_SPEC = typed.k8s_shape("PodSpec")


def extra_pod_spec_parts(eps: dict[str, Any] | None) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """An ExtraPodSpec value split into its inline PodSpec fields and its ``mainContainer``."""
    if not eps:
        return {}, None
    pod = {k: v for k, v in eps.items() if k != "mainContainer"}
    return pod, eps.get("mainContainer")


def container_is_empty(container: dict[str, Any] | None) -> bool:
    """No field but (maybe) the name is set.

    Mirrors: shared_spec_conversion.go containerIsEmpty / containerHasOnlyName
    """
    if container is None:
        return True
    rest = {k: v for k, v in container.items() if k != "name"}
    return typed.is_zero(_CONTAINER, rest)


def pod_spec_is_zero(pod: dict[str, Any] | None) -> bool:
    """Mirrors: shared_spec_conversion.go podSpecIsZero"""
    return typed.is_zero(_POD_SPEC, pod or {})


def extra_pod_spec_is_zero(eps: dict[str, Any] | None) -> bool:
    """Mirrors: shared_spec_conversion.go extraPodSpecIsZero"""
    if eps is None:
        return True
    pod, main = extra_pod_spec_parts(eps)
    return pod_spec_is_zero(pod) and container_is_empty(main)


def _quantity(text: Any) -> str | None:
    """resource.ParseQuantity then MarshalJSON; None when it does not parse (the key is skipped).

    A ResourceItem's fields are strings; anything else (only a hand-edited preservation
    annotation can hold one) is skipped like an unparsable quantity.
    """
    if not isinstance(text, str):
        return None
    try:
        return parse_quantity(text).string()
    except ValueError:
        return None


def item_to_resource_list(item: dict[str, Any] | None) -> dict[str, str] | None:
    """A v1alpha1 ResourceItem as a core/v1 ResourceList (None when empty).

    ``gpu`` lands under ``gpuType`` (``nvidia.com/gpu`` when unset); custom keys are copied;
    values that do not parse as quantities are left out.

    Mirrors: shared_spec_conversion.go itemToResourceList
    """
    if item is None:
        return None
    out: dict[str, str] = {}
    for key, name in (("cpu", "cpu"), ("memory", "memory")):
        if item.get(key):
            value = _quantity(item[key])
            if value is not None:
                out[name] = value
    if item.get("gpu"):
        value = _quantity(item["gpu"])
        if value is not None:
            out[item.get("gpuType") or DEFAULT_GPU_RESOURCE] = value
    for key, text in (item.get("custom") or {}).items():
        value = _quantity(text)
        if value is not None:
            out[key] = value
    return {k: out[k] for k in sorted(out)} or None


def resources_to_native(resources: dict[str, Any]) -> dict[str, Any]:
    """A v1alpha1 Resources value as core/v1 ResourceRequirements.

    Mirrors: shared_spec_conversion.go resourcesToNative
    """
    out: dict[str, Any] = {}
    limits = item_to_resource_list(resources.get("limits"))
    requests = item_to_resource_list(resources.get("requests"))
    if limits is not None:
        out["limits"] = limits
    if requests is not None:
        out["requests"] = requests
    if resources.get("claims"):
        out["claims"] = copy_json(resources["claims"])
    return out


def _resource_item_from_list(resources: dict[str, Any] | None) -> dict[str, Any] | None:
    """A core/v1 ResourceList as a v1alpha1 ResourceItem (None when empty); quantities canonical.

    Mirrors: shared_spec_conversion.go resourceItemFromList
    """
    if not resources:
        return None
    out: dict[str, Any] = {}
    for name in sorted(resources):
        value = _canonical(resources[name])
        if name in ("cpu", "memory"):
            out[name] = value
        elif name == DEFAULT_GPU_RESOURCE:
            out["gpu"] = value
        else:
            out.setdefault("custom", {})[name] = value
    return out


def _canonical(value: Any) -> str:
    """Quantity.String() of a stored quantity (its text as it is when it does not parse)."""
    try:
        return canonical_quantity(value)
    except ValueError:
        return str(value)


def resources_from_native(native: dict[str, Any] | None) -> dict[str, Any] | None:
    """core/v1 ResourceRequirements as v1alpha1 Resources (None when nothing is set).

    Mirrors: shared_spec_conversion.go resourcesFromNative
    """
    native = native or {}
    out: dict[str, Any] = {}
    for key in ("requests", "limits"):
        item = _resource_item_from_list(native.get(key))
        if item is not None:
            out[key] = item
    if native.get("claims"):
        out["claims"] = copy_json(native["claims"])
    return out or None


def resources_need_preservation(resources: dict[str, Any] | None) -> bool:
    """The v1alpha1 resources do not survive a trip through core/v1 unchanged.

    Mirrors: shared_spec_conversion.go resourcesNeedPreservation (reflect.DeepEqual against
    resourcesFromNative(resourcesToNative(src)))
    """
    if resources is None:
        return False
    back = resources_from_native(resources_to_native(resources))
    if back is None:
        return True  # resourcesFromNative gives nil for a non-nil source
    return _plain_resources(resources) != _plain_resources(back)


def _plain_resources(resources: dict[str, Any]) -> dict[str, Any]:
    """Resources with empty strings and collections dropped (as the Go value holds them)."""
    out: dict[str, Any] = {}
    for key in ("requests", "limits"):
        if key in resources:
            item = resources[key] or {}
            out[key] = {k: v for k, v in item.items() if v not in ("", None)}
    if resources.get("claims"):
        out["claims"] = resources["claims"]
    return out


def pod_metadata(extra: dict[str, Any] | None) -> dict[str, Any]:
    """The pod template metadata a v1alpha1 ``extraPodMetadata`` stands for (its non-empty maps)."""
    meta: dict[str, Any] = {}
    if extra:
        if extra.get("annotations"):
            meta["annotations"] = dict(extra["annotations"])
        if extra.get("labels"):
            meta["labels"] = dict(extra["labels"])
    return meta


def merge_envs(common: list[dict[str, Any]], specific: list[dict[str, Any]]) -> list[dict[str, Any]] | None:
    """``common`` then ``specific``, deduplicated by name, ``specific`` winning in place.

    Mirrors: shared_spec_conversion.go mergeEnvs
    """
    out: list[dict[str, Any]] = []
    seen: dict[str, int] = {}
    for env in common:
        seen[env.get("name", "")] = len(out)
        out.append(env)
    for env in specific:
        name = env.get("name", "")
        if name in seen:
            out[seen[name]] = env
            continue
        seen[name] = len(out)
        out.append(env)
    return out or None


def has_pod_template_volume_mounts(mounts: list[dict[str, Any]] | None) -> bool:
    """Mirrors: shared_spec_conversion.go hasPodTemplateVolumeMounts"""
    return any(not m.get("useAsCompilationCache") for m in mounts or [])


def has_pod_template_content(src: dict[str, Any], pod_template_origin: bool) -> bool:
    """Any v1alpha1 field that lands in the pod template is set (a null one is a nil pointer).

    Mirrors: shared_spec_conversion.go hasPodTemplateContent
    """
    return (
        src.get("resources") is not None
        or bool(src.get("envs"))
        or src.get("envFromSecret") is not None
        or has_pod_template_volume_mounts(src.get("volumeMounts"))
        or src.get("livenessProbe") is not None
        or src.get("readinessProbe") is not None
        or not extra_pod_spec_is_zero(src.get("extraPodSpec"))
        or src.get("extraPodMetadata") is not None
        or src.get("frontendSidecar") is not None
        or pod_template_origin
    )


def main_container_from_dedicated(src: dict[str, Any]) -> dict[str, Any]:
    """The ``main`` container the dedicated v1alpha1 fields describe.

    Every flat volume mount is mounted, the compilation cache too.

    Mirrors: shared_spec_conversion.go buildMainContainerFromDedicated
    """
    main: dict[str, Any] = {"name": MAIN}
    if src.get("resources") is not None:
        main["resources"] = resources_to_native(src["resources"])
    if src.get("envs"):
        main["env"] = copy_json(src["envs"])
    if src.get("envFromSecret"):
        main["envFrom"] = [{"secretRef": {"name": src["envFromSecret"]}}]
    for probe in ("livenessProbe", "readinessProbe"):
        if src.get(probe) is not None:
            main[probe] = copy_json(src[probe])
    mounts = [
        {"name": m.get("name", ""), "mountPath": m.get("mountPoint", "")}
        for m in src.get("volumeMounts") or []
    ]
    if mounts:
        main["volumeMounts"] = mounts
    return main


def merge_extra_main_container(src: dict[str, Any], base: dict[str, Any]) -> dict[str, Any]:
    """``extraPodSpec.mainContainer`` merged over the dedicated main container.

    mergo with override for every field, then env merged by name and the main container's
    volume mounts put before the dedicated ones.

    Mirrors: shared_spec_conversion.go mergeExtraPodSpecMainContainer (mergo.Merge
    WithOverride)
    """
    _pod, user = extra_pod_spec_parts(src.get("extraPodSpec"))
    if user is None:
        return base
    user = dict(copy_json(user), name=MAIN)
    merged = merge_override(base, user)
    for probe in ("livenessProbe", "readinessProbe"):
        if probe in base and probe in user:
            merged[probe] = merge_probe(base[probe], user[probe])
    env = merge_envs(base.get("env") or [], user.get("env") or [])
    if env is None:
        merged.pop("env", None)
    else:
        merged["env"] = copy_json(env)
    mounts = copy_json(user.get("volumeMounts") or []) + copy_json(base.get("volumeMounts") or [])
    if mounts:
        merged["volumeMounts"] = mounts
    else:
        merged.pop("volumeMounts", None)
    return merged


def semantic_main_container(src: dict[str, Any] | None) -> dict[str, Any]:
    """The main container the v1alpha1 fields amount to (a bare ``main`` for no spec).

    Mirrors: shared_spec_conversion.go semanticMainContainer
    """
    if src is None:
        return {"name": MAIN}
    main = merge_extra_main_container(src, main_container_from_dedicated(src))
    main["name"] = MAIN
    return main


def frontend_sidecar_container(sidecar: dict[str, Any]) -> dict[str, Any]:
    """The container a v1alpha1 ``frontendSidecar`` stands for.

    Mirrors: shared_spec_conversion.go appendFrontendSidecar
    """
    container: dict[str, Any] = {"name": FRONTEND_SIDECAR, "image": sidecar.get("image", "")}
    if sidecar.get("args"):
        container["args"] = list(sidecar["args"])
    if sidecar.get("envs"):
        container["env"] = copy_json(sidecar["envs"])
    if sidecar.get("envFromSecret"):
        container["envFrom"] = [{"secretRef": {"name": sidecar["envFromSecret"]}}]
    return container


def build_pod_template(
    src: dict[str, Any], pod_template_origin: bool, has_frontend_sidecar_ref: bool = False
) -> dict[str, Any] | None:
    """The v1beta1 pod template for a v1alpha1 shared spec (None when it has no pod content).

    Mirrors: shared_spec_conversion.go buildSharedPodTemplateFromAlpha
    """
    if not (has_pod_template_content(src, pod_template_origin) or has_frontend_sidecar_ref):
        return None
    template: dict[str, Any] = {}
    meta = pod_metadata(src.get("extraPodMetadata"))
    if meta:
        template["metadata"] = meta
    pod, _main = extra_pod_spec_parts(src.get("extraPodSpec"))
    spec: dict[str, Any] = copy_json(pod)
    main = semantic_main_container(src)
    containers = [main] + [c for c in spec.get("containers") or [] if c.get("name", "") != MAIN]
    sidecar = src.get("frontendSidecar")
    if sidecar is not None and not any(c.get("name") == FRONTEND_SIDECAR for c in containers):
        containers.append(frontend_sidecar_container(sidecar))
    spec["containers"] = containers
    template["spec"] = spec
    return template
