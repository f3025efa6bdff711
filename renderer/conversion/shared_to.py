"""A v1alpha1 component (DCD spec or DGD service) converted to the v1beta1 shared spec.

Besides the v1beta1 value, the conversion fills a sparse v1alpha1 "save": the fields
v1beta1 cannot hold (``dynamoNamespace``, ``autoscaling``, ``ingress``, ``annotations``,
``labels``, a ``subComponentType`` that is not promoted to the type, a disabled feature,
resources that lose their spelling, ...) and, for objects first written as v1alpha1, where
each main-container field came from. The caller stores the save in the preserved-spec
annotation (``renderer.conversion.preservation``); controllers read it back through
the reverse conversion, so it is part of what the operator stores.

Values are Go values as ``renderer.conversion.typed`` describes them.

Mirrors: api/v1alpha1/shared_spec_conversion.go ConvertFromDynamoComponentDeploymentSharedSpec
and saveSharedAlphaOnlySpec with their helpers
"""

from __future__ import annotations

from typing import Any

from renderer import consts
from renderer.conversion import podtemplate_to as pt
from renderer.conversion import typed
from renderer.conversion.hub_restore import restore_hub_only_fields
from renderer.gocompat.merge import copy_json

_ALPHA_SHARED = typed.shape_of(typed.ALPHA, "DynamoComponentDeploymentSharedSpec")
_QUANTITY = ("Quantity",)
_PROMOTED_SUB_TYPES = (consts.COMPONENT_TYPE_PREFILL, consts.COMPONENT_TYPE_DECODE)


def sub_component_type_promotes(src: dict[str, Any]) -> bool:
    """A ``worker`` with ``subComponentType`` prefill or decode becomes that v1beta1 type.

    Mirrors: shared_spec_conversion.go sharedSubComponentTypePromotesToHubComponentType
    """
    return (
        src.get("componentType") == consts.COMPONENT_TYPE_WORKER
        and src.get("subComponentType") in _PROMOTED_SUB_TYPES
    )


def component_type_to_hub(src: dict[str, Any]) -> str:
    """Mirrors: shared_spec_conversion.go sharedComponentTypeToHub"""
    if sub_component_type_promotes(src):
        return str(src["subComponentType"])
    return str(src.get("componentType", ""))


def _copy_keys(src: dict[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    return {k: copy_json(src[k]) for k in keys if k in src}


def _provider_override(src: dict[str, Any]) -> dict[str, Any]:
    """Mirrors: shared_spec_conversion.go ConvertFromProviderOverride"""
    return _copy_keys(src, ("apiVersion", "target", "value"))


def _multinode(src: dict[str, Any]) -> dict[str, Any]:
    """Mirrors: shared_spec_conversion.go ConvertFromMultinodeSpec, ConvertFromMultinodeRoleSpec"""
    out: dict[str, Any] = {"nodeCount": src.get("nodeCount", 0)}
    for role in ("leader", "worker"):
        if role in src:
            role_src = src[role]
            out[role] = {}
            if "providerOverride" in role_src:
                out[role]["providerOverride"] = _provider_override(role_src["providerOverride"])
    return out


def _roles(src: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A component's explicit roles (operator 1.5.0 and later), field for field.

    Only a 1.5.0 v1alpha1 schema admits ``roles`` (renderer.admission.v1alpha1.schema), so
    the reference profile never reaches this.

    Ported from ai-dynamo/dynamo#14419 (v1.5.0): v1alpha1 and v1beta1 share the role shape
    (name, providerOverride).
    """
    out: list[dict[str, Any]] = []
    for role in src:
        entry = _copy_keys(role, ("name",))
        if "providerOverride" in role:
            entry["providerOverride"] = _provider_override(role["providerOverride"])
        out.append(entry)
    return out


# v1beta1 capitalises the GMS modes; other values (and every checkpoint enum) pass through
_GMS_MODES = {"intraPod": "IntraPod", "interPod": "InterPod"}


def _gms_mode(spec: dict[str, Any]) -> dict[str, Any]:
    """Mirrors: shared_spec_conversion.go gmsModeToV1beta1"""
    if "mode" in spec:
        spec["mode"] = _GMS_MODES.get(spec["mode"], spec["mode"])
    return spec


def _experimental(src: dict[str, Any]) -> dict[str, Any] | None:
    """Enabled GMS and failover, and any checkpoint config, under v1beta1 ``experimental``.

    Mirrors: shared_spec_conversion.go convertExperimentalToHub, ConvertFromGPUMemoryServiceSpec,
    ConvertFromFailoverSpec, ConvertFromServiceCheckpointConfig
    """
    out: dict[str, Any] = {}
    gms = src.get("gpuMemoryService")
    if gms is not None and gms.get("enabled"):
        out["gpuMemoryService"] = _gms_mode(
            _copy_keys(gms, ("mode", "deviceClassName", "extraClientContainers", "extraClientPods"))
        )
    failover = src.get("failover")
    if failover is not None and failover.get("enabled"):
        out["failover"] = _gms_mode(_copy_keys(failover, ("mode", "numShadows")))
    if "checkpoint" in src:
        checkpoint = src["checkpoint"]
        out["checkpoint"] = _copy_keys(
            checkpoint,
            ("mode", "startupPolicy", "deletionPolicy", "checkpointRef", "identity", "targetContainerName"),
        )
        out["checkpoint"]["enabled"] = bool(checkpoint.get("enabled"))
        if "job" in checkpoint:
            out["checkpoint"]["job"] = _copy_keys(checkpoint["job"], ("gmsClientContainers", "podTemplate"))
    return out or None


def _quantity_is_zero(value: Any) -> bool:
    return typed.is_zero(_QUANTITY, value)


def shared_to_hub(
    src: dict[str, Any],
    restored: dict[str, Any] | None,
    save: dict[str, Any] | None,
    include_origin_splits: bool,
    pod_template_origin: bool,
) -> dict[str, Any]:
    """The v1beta1 shared spec of a v1alpha1 one; fills ``save`` (when given) with the spoke save.

    ``restored`` is the preserved v1beta1 component read from the object's annotation, if
    any: its v1beta1-only fields come back.

    Mirrors: shared_spec_conversion.go ConvertFromDynamoComponentDeploymentSharedSpec
    """
    dst: dict[str, Any] = {}
    if "providerOverride" in src:
        dst["providerOverride"] = _provider_override(src["providerOverride"])
    component_type = component_type_to_hub(src)
    if component_type:
        dst["type"] = component_type
    if src.get("serviceName"):
        dst["name"] = src["serviceName"]
    for key in ("runtimeVersionOverride", "globalDynamoNamespace", "replicas", "minAvailable"):
        if key in src:
            dst[key] = copy_json(src[key])
    if "multinode" in src:
        dst["multinode"] = _multinode(src["multinode"])
    if "roles" in src:
        dst["roles"] = _roles(src["roles"])
    if "modelRef" in src:
        dst["modelRef"] = _copy_keys(src["modelRef"], ("name", "revision"))
    if "topologyConstraint" in src:
        dst["topologyConstraint"] = _copy_keys(src["topologyConstraint"], ("packDomain",))
    if "eppConfig" in src:
        dst["eppConfig"] = _copy_keys(src["eppConfig"], ("configMapRef", "config"))

    # sharedMemory -> sharedMemorySize: disabled is a zero size, a zero size alone is dropped
    shared_memory = src.get("sharedMemory")
    if shared_memory is not None and (
        shared_memory.get("disabled") or not _quantity_is_zero(shared_memory.get("size"))
    ):
        dst["sharedMemorySize"] = "0" if shared_memory.get("disabled") else shared_memory.get("size", "0")

    # the first flat mount flagged as compilation cache becomes compilationCache
    for mount in src.get("volumeMounts") or []:
        if mount.get("useAsCompilationCache"):
            dst["compilationCache"] = {"pvcName": mount.get("name", ""), "mountPath": mount.get("mountPoint", "")}
            break

    # an enabled scaling adapter is a present empty marker; a disabled one is absent
    adapter = src.get("scalingAdapter")
    if adapter is not None and adapter.get("enabled"):
        dst["scalingAdapter"] = {}

    experimental = _experimental(src)
    if experimental is not None:
        dst["experimental"] = experimental

    template = pt.build_pod_template(src, pod_template_origin)
    if template is not None:
        if "frontendSidecar" in src:
            dst["frontendSidecar"] = pt.FRONTEND_SIDECAR
        dst["podTemplate"] = template

    if restored is not None:
        restore_hub_only_fields(dst, restored, src)
    if save is not None:
        save_alpha_only(src, save, include_origin_splits)
    return dst


def shared_memory_needs_preservation(shared_memory: dict[str, Any] | None) -> bool:
    """Mirrors: shared_spec_conversion.go sharedMemoryNeedsPreservation"""
    if shared_memory is None:
        return False
    zero = _quantity_is_zero(shared_memory.get("size"))
    return not zero if shared_memory.get("disabled") else zero


def extra_pod_metadata_needs_preservation(metadata: dict[str, Any] | None) -> bool:
    """Mirrors: shared_spec_conversion.go extraPodMetadataNeedsPreservation"""
    return metadata is not None and not metadata.get("annotations") and not metadata.get("labels")


def _only_main_container_name(eps: dict[str, Any]) -> bool:
    """Mirrors: shared_spec_conversion.go extraPodSpecOnlyPreservesMainContainerName"""
    pod, main = pt.extra_pod_spec_parts(eps)
    if main is None or not main.get("name") or not pt.pod_spec_is_zero(pod):
        return False
    return pt.container_is_empty(main)


def extra_pod_spec_needs_preservation(eps: dict[str, Any] | None) -> bool:
    """Mirrors: shared_spec_conversion.go extraPodSpecNeedsPreservation"""
    return eps is not None and (pt.extra_pod_spec_is_zero(eps) or _only_main_container_name(eps))


def frontend_sidecar_conflict_needs_preservation(src: dict[str, Any]) -> bool:
    """A frontendSidecar next to an extraPodSpec container of the generated sidecar's name.

    Mirrors: shared_spec_conversion.go alphaFrontendSidecarConflictNeedsPreservation
    """
    if "frontendSidecar" not in src:
        return False
    pod, _main = pt.extra_pod_spec_parts(src.get("extraPodSpec"))
    return any(c.get("name") == pt.FRONTEND_SIDECAR for c in pod.get("containers") or [])


def volume_mounts_round_trip(mounts: list[dict[str, Any]] | None) -> bool:
    """At most one flat mount is flagged as compilation cache.

    Mirrors: shared_spec_conversion.go volumeMountsRoundTripThroughHub
    """
    return sum(1 for m in mounts or [] if m.get("useAsCompilationCache")) <= 1


def main_container_origins_need_save(src: dict[str, Any]) -> bool:
    """Mirrors: shared_spec_conversion.go sharedMainContainerFieldOriginsNeedSave"""
    _pod, main = pt.extra_pod_spec_parts(src.get("extraPodSpec"))
    if main is None:
        return False
    return (
        bool(main.get("name"))
        or bool(main.get("env"))
        or not typed.is_zero(typed.k8s_shape("ResourceRequirements"), main.get("resources"))
        or bool(main.get("volumeMounts"))
        or "livenessProbe" in main
        or "readinessProbe" in main
    )


def _ensure_main(save: dict[str, Any]) -> dict[str, Any]:
    """Mirrors: shared_spec_conversion.go ensureExtraPodSpecMainContainer"""
    eps = save.setdefault("extraPodSpec", {})
    main: dict[str, Any] = eps.setdefault("mainContainer", {})
    return main


def _set_or_drop(target: dict[str, Any], key: str, value: Any) -> None:
    if value is None or value == []:
        target.pop(key, None)
    else:
        target[key] = copy_json(value)


def save_main_container_origins(src: dict[str, Any], save: dict[str, Any]) -> None:
    """Record which main-container fields came from the dedicated fields and which from
    ``extraPodSpec.mainContainer``.

    Mirrors: shared_spec_conversion.go saveSharedMainContainerOrigins
    """
    _pod, main = pt.extra_pod_spec_parts(src.get("extraPodSpec"))
    if main is None:
        return
    if main.get("name"):
        _ensure_main(save)["name"] = main["name"]
    if src.get("envs") or main.get("env"):
        _set_or_drop(save, "envs", src.get("envs"))
        _set_or_drop(_ensure_main(save), "env", main.get("env"))
    if "envFromSecret" in src or main.get("envFrom"):
        if "envFromSecret" in src:
            save["envFromSecret"] = src["envFromSecret"]
        _set_or_drop(_ensure_main(save), "envFrom", main.get("envFrom"))
    resources_shape = typed.k8s_shape("ResourceRequirements")
    if "resources" in src or not typed.is_zero(resources_shape, main.get("resources")):
        _set_or_drop(save, "resources", src.get("resources"))
        _ensure_main(save)["resources"] = copy_json(main.get("resources") or {})
    if src.get("volumeMounts") or main.get("volumeMounts"):
        _set_or_drop(save, "volumeMounts", src.get("volumeMounts"))
        _set_or_drop(_ensure_main(save), "volumeMounts", main.get("volumeMounts"))
    for probe in ("livenessProbe", "readinessProbe"):
        if probe in src or probe in main:
            _set_or_drop(save, probe, src.get(probe))
            _set_or_drop(_ensure_main(save), probe, main.get(probe))


def save_alpha_only(src: dict[str, Any], save: dict[str, Any], include_origin_splits: bool) -> None:
    """Fill ``save`` with what v1beta1 cannot express of ``src``.

    Mirrors: shared_spec_conversion.go saveSharedAlphaOnlySpec
    """
    has_save = False

    def keep(key: str) -> None:
        nonlocal has_save
        save[key] = copy_json(src[key])
        has_save = True

    if src.get("subComponentType") and not sub_component_type_promotes(src):
        keep("subComponentType")
    for key in ("dynamoNamespace", "autoscaling", "ingress"):
        if key in src:
            keep(key)
    for key in ("annotations", "labels"):
        if src.get(key):
            keep(key)
    if "envFromSecret" in src:
        keep("envFromSecret")
    if pt.resources_need_preservation(src.get("resources")):
        keep("resources")
    if src.get("volumeMounts") and not volume_mounts_round_trip(src["volumeMounts"]):
        keep("volumeMounts")
    if shared_memory_needs_preservation(src.get("sharedMemory")):
        keep("sharedMemory")
    if extra_pod_metadata_needs_preservation(src.get("extraPodMetadata")):
        keep("extraPodMetadata")
    if extra_pod_spec_needs_preservation(src.get("extraPodSpec")) or frontend_sidecar_conflict_needs_preservation(
        src
    ):
        if "extraPodSpec" in src:
            keep("extraPodSpec")
        else:
            has_save = True
    adapter = src.get("scalingAdapter")
    if adapter is not None and not adapter.get("enabled"):
        keep("scalingAdapter")
    if "frontendSidecar" in src:
        keep("frontendSidecar")
    for key in ("gpuMemoryService", "failover"):
        feature = src.get(key)
        if feature is not None and not feature.get("enabled"):
            keep(key)
    if include_origin_splits or has_save or main_container_origins_need_save(src):
        save_main_container_origins(src, save)


def alpha_save_is_zero(save: dict[str, Any] | None) -> bool:
    """Mirrors: shared_spec_conversion.go sharedAlphaSpecSaveIsZero"""
    return save is None or typed.is_zero(_ALPHA_SHARED, save)
