"""The base pod spec of a DCD: defaults, user merge, standard env, backend shaping, volumes.

The steps run in the operator's order; several later steps depend on earlier ones (the env
is sorted at the standard-env step, backend env is appended after it unsorted, volumes are
re-ordered last).

Mirrors: internal/dynamo/graph.go GenerateBasePodSpecForController, GenerateBasePodSpec,
determineBackendFramework, applyCompilationCache, applyCompilationCacheVolume,
appendMissingPVCVolumesForMounts, mergeFrontendSidecarDefaults, AddStandardEnvVars;
internal/dynamo/shared_memory.go; internal/secrets/docker.go.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from renderer import consts
from renderer.admission.api import DCD
from renderer.pod.backends import BackendContext, get_backend
from renderer.pod import gms
from renderer.pod.backends.common import LWS, Deployer
from renderer.pod.checkpoint import CheckpointInfo
from renderer.pod.checkpoint_restore import apply_probe_cadence
from renderer.cluster.state import ClusterState
from renderer.pod.components import ComponentContext, base_container, base_pod_spec, frontend_container
from renderer.pod.runtime_gates import resolve_component_runtime_version
from renderer.releases import REFERENCE_RELEASE, Release
from renderer.records import replace
from renderer.operator_config import TRANSPORT_TLS, TRANSPORT_TLS_FIELDS, OperatorConfiguration
from renderer.pod.labels import (
    component_name,
    discovery_backend,
    effective_worker_hash,
    is_k8s_discovery_enabled,
    is_worker_component,
    kube_discovery_mode,
    parent_name,
)
from renderer.gocompat.merge import copy_json, merge_envs, merge_main_container, merge_override, merge_probe
from renderer.pod.naming import compute_dynamo_namespace, k8s_discovery_service_account_name
from renderer.admission.objectmeta import dns1123_label_problem, show
from renderer.gocompat.quantity import unmarshal_quantity
from renderer.results import RenderError, go_quote

_FRAMEWORK_PATTERNS = {
    fw: re.compile(rf"python[0-9.]*\s+[^|&;]*-m\s+[^|&;]*dynamo\.{fw}[^|&;]*", re.ASCII)
    for fw in (consts.BACKEND_VLLM, consts.BACKEND_SGLANG, consts.BACKEND_TRTLLM)
}


def detect_backend_framework(command: list[str], args: list[str]) -> str:
    """Find ``python -m dynamo.<backend>`` in the joined command line.

    Mirrors: internal/dynamo/graph.go DetectBackendFrameworkFromArgs.
    """
    full = " ".join(list(command) + list(args))
    detected = [fw for fw, pattern in _FRAMEWORK_PATTERNS.items() if pattern.search(full)]
    if not detected:
        return consts.BACKEND_NOOP
    if len(detected) > 1:
        raise RenderError(
            f"multiple backend frameworks detected from command: [{' '.join(detected)}] in {go_quote(full)}",
            field="spec.podTemplate.spec.containers[main].command",
        )
    return detected[0]


def determine_backend_framework(component_type: str, command: list[str], args: list[str], explicit: str) -> str:
    """Detected framework beats the explicit one; non-worker types are always ``noop``.

    Mirrors: internal/dynamo/graph.go determineBackendFramework.
    """
    if not is_worker_component(component_type):
        return consts.BACKEND_NOOP
    detected, detection_error = "", None
    if command or args:
        try:
            detected = detect_backend_framework(command, args)
        except RenderError as err:
            detection_error = err
    if detected and detected != consts.BACKEND_NOOP and explicit and detected != explicit:
        raise RenderError(
            f'backend framework mismatch: detected "{detected}" from command but explicitly configured as "{explicit}"',
            field="spec.backendFramework",
        )
    if detected and detected != consts.BACKEND_NOOP:
        return detected
    if explicit:
        return explicit
    if detection_error is not None:
        raise RenderError(f"could not determine backend framework: {detection_error.message}", field=detection_error.field)
    return consts.BACKEND_NOOP


def backend_framework(dcd: DCD) -> str:
    """Mirrors: internal/dynamo/graph.go GetBackendFrameworkFromDynamoComponent."""
    main = dcd.main_container() or {}
    return determine_backend_framework(
        dcd.component_type, main.get("command") or [], main.get("args") or [], dcd.spec.backend_framework or ""
    )


def _compilation_cache_mount_path(framework: str) -> str:
    """Mirrors: internal/dynamo/graph.go getDefaultCompilationCacheMountPoint."""
    return consts.DEFAULT_VLLM_CACHE_MOUNT_POINT if framework == consts.BACKEND_VLLM else ""


def apply_compilation_cache(container: dict[str, Any], dcd: DCD, framework: str) -> tuple[dict[str, Any], str]:
    """Mount the compilation-cache PVC on the main container; returns (container, mount path).

    Mirrors: internal/dynamo/graph.go applyCompilationCache.
    """
    cache = dcd.spec.compilation_cache
    if cache is None:
        return container, ""
    if not cache.pvc_name:
        raise RenderError("compilationCache.pvcName is required when compilationCache is set", "spec.compilationCache.pvcName")
    mount_path = cache.mount_path or _compilation_cache_mount_path(framework)
    if not mount_path:
        raise RenderError(
            f"compilationCache.mountPath is required for backend framework {framework} (no default available)",
            "spec.compilationCache.mountPath",
        )
    mounts: list[dict[str, Any]] = []
    already = False
    for mount in container.get("volumeMounts") or []:
        if mount.get("name") == cache.pvc_name and not mount.get("mountPath"):
            mount = dict(mount, mountPath=mount_path)
        if mount.get("mountPath") != mount_path:
            mounts.append(mount)
            continue
        if mount.get("name") != cache.pvc_name:
            raise RenderError(
                f'compilationCache.mountPath "{mount_path}" is already used by volume "{mount.get("name", "")}"',
                "spec.compilationCache.mountPath",
            )
        if mount.get("readOnly"):
            raise RenderError(
                f'compilation cache volume "{cache.pvc_name}" at "{mount_path}" must be writable',
                "spec.compilationCache",
            )
        if already:
            continue
        mounts.append(mount)
        already = True
    if not already:
        mounts.append({"name": cache.pvc_name, "mountPath": mount_path})
    return dict(container, volumeMounts=mounts), mount_path


def apply_compilation_cache_volume(pod_spec: dict[str, Any], dcd: DCD) -> None:
    """Check or add the compilation-cache PVC volume (edits the pod spec this module built).

    Mirrors: internal/dynamo/graph.go applyCompilationCacheVolume.
    """
    cache = dcd.spec.compilation_cache
    if cache is None:
        return
    pvc = cache.pvc_name
    found = False
    for volume in pod_spec.get("volumes") or []:
        if volume.get("name") != pvc:
            continue
        claim = volume.get("persistentVolumeClaim")
        if claim is None:
            raise RenderError(f'compilation cache volume "{volume["name"]}" must reference PVC "{pvc}"', "spec.compilationCache")
        if claim.get("claimName", "") != pvc:
            raise RenderError(
                f'compilation cache volume "{volume["name"]}" references PVC "{claim.get("claimName", "")}" instead of "{pvc}"',
                "spec.compilationCache",
            )
        if claim.get("readOnly"):
            raise RenderError(f'compilation cache PVC "{pvc}" must be writable', "spec.compilationCache")
        if found:
            raise RenderError(f'compilation cache volume "{pvc}" is defined more than once', "spec.compilationCache")
        found = True
    if not found:
        # the PVC name becomes the volume's name, which the API server checks as a DNS-1123 label
        problem = dns1123_label_problem(pvc)
        if problem:
            raise RenderError(f"compilation cache PVC name {show(pvc)} cannot name the pod's volume: {problem}", "spec.compilationCache.pvcName")
        pod_spec["volumes"] = [*(pod_spec.get("volumes") or []), {"name": pvc, "persistentVolumeClaim": {"claimName": pvc}}]


def validate_volume_mounts(mounts: list[dict[str, Any]]) -> None:
    """Mirrors: internal/dynamo/graph.go validateContainerVolumeMounts."""
    for mount in mounts:
        if not mount.get("name"):
            raise RenderError("volumeMount.name is required", "spec.podTemplate.spec.containers[main].volumeMounts")
        if not mount.get("mountPath"):
            raise RenderError(
                f"volumeMount.mountPath is required for {mount['name']}", "spec.podTemplate.spec.containers[main].volumeMounts"
            )


def add_standard_env(container: dict[str, Any], operator: OperatorConfiguration) -> dict[str, Any]:
    """Infrastructure addresses from the operator config, overridable by the container's env.

    The merge sorts the env, so every main container leaves this step sorted by name.
    Mirrors: internal/dynamo/graph.go AddStandardEnvVars.
    """
    infra = operator.infrastructure
    standard = [
        {"name": name, "value": value}
        for name, value in (
            ("NATS_SERVER", infra.nats_address),
            ("ETCD_ENDPOINTS", infra.etcd_address),
            ("MODEL_EXPRESS_URL", infra.model_express_url),
            ("PROMETHEUS_ENDPOINT", infra.prometheus_endpoint),
        )
        if value
    ]
    env = merge_envs(standard, container.get("env") or [])
    return dict(container, env=env) if env else container


def add_transport_tls_env(container: dict[str, Any], operator: OperatorConfiguration, release: Release) -> dict[str, Any]:
    """The operator's TLS certificate paths as NATS_TLS_* / DYN_TCP_TLS_* env, overridable by the container's env.

    Operator 1.5.0 reads ten TLS settings from its InfrastructureConfiguration and injects each
    one that is set into the main container (and a frontend sidecar) of every pod it renders;
    an env var of the same name in the pod template wins. It injects paths only: the
    certificate files must be mounted at them by the pod template. Before 1.5.0 the settings do
    not exist (refused when given: renderer.operator_config.refuse_transport_tls).

    Mirrors: ai-dynamo/dynamo#13689 (release 1.5.0): internal/dynamo/graph.go
    AddTransportTLSEnvVars, called beside AddStandardEnvVars in GenerateBasePodSpec and
    mergeFrontendSidecarDefaults.
    """
    if not release.ships(TRANSPORT_TLS):
        return container
    infra = operator.infrastructure
    tls = [{"name": env, "value": value} for attr, _, env in TRANSPORT_TLS_FIELDS if (value := getattr(infra, attr))]
    if not tls:
        return container
    return dict(container, env=merge_envs(tls, container.get("env") or []))


def apply_shared_memory(pod_spec: dict[str, Any], container: dict[str, Any], dcd: DCD) -> dict[str, Any]:
    """A memory-backed ``/dev/shm`` (8Gi unless sized; a zero size disables it).

    Mirrors: internal/dynamo/shared_memory.go ApplySharedMemoryVolumeAndMount.
    """
    size = consts.DEFAULT_SHARED_MEMORY_SIZE
    if dcd.spec.shared_memory_size is not None:
        quantity = unmarshal_quantity(dcd.spec.shared_memory_size)
        if quantity.sign() == 0:
            return container
        size = str(quantity)
    volumes = [v for v in pod_spec.get("volumes") or [] if v.get("name") != consts.SHARED_MEMORY_VOLUME_NAME]
    volumes.append(
        {"name": consts.SHARED_MEMORY_VOLUME_NAME, "emptyDir": {"medium": "Memory", "sizeLimit": size}}
    )
    pod_spec["volumes"] = volumes
    mounts = [
        m
        for m in container.get("volumeMounts") or []
        if m.get("name") != consts.SHARED_MEMORY_VOLUME_NAME and m.get("mountPath") != consts.SHARED_MEMORY_MOUNT_PATH
    ]
    mounts.append({"name": consts.SHARED_MEMORY_VOLUME_NAME, "mountPath": consts.SHARED_MEMORY_MOUNT_PATH})
    return dict(container, volumeMounts=mounts)


def append_missing_pvc_volumes(volumes: list[dict[str, Any]], mounts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Main-container mounts first, each with its volume or a same-named PVC; then the rest.

    A main-container mount with no declared volume silently becomes a PVC of that name.
    Mirrors: internal/dynamo/graph.go appendMissingPVCVolumesForMounts.
    """
    by_name = {v.get("name", ""): v for v in volumes}
    ordered: list[dict[str, Any]] = []
    seen: set[str] = set()
    for mount in mounts:
        name = mount.get("name", "")
        if not name or name in seen:
            continue
        ordered.append(by_name.get(name) or {"name": name, "persistentVolumeClaim": {"claimName": name}})
        seen.add(name)
    ordered.extend(v for v in volumes if v.get("name", "") not in seen)
    return ordered


def merge_frontend_sidecar(
    containers: list[dict[str, Any]],
    sidecar: str,
    parent_ctx: ComponentContext,
    operator: OperatorConfiguration,
    parent_mounts: list[dict[str, Any]],
) -> list[dict[str, Any]]:
    """Give the named sidecar the frontend defaults (probes merged field by field).

    Mirrors: internal/dynamo/graph.go mergeFrontendSidecarDefaults.
    """
    for i, user in enumerate(containers):
        if user.get("name") != sidecar:
            continue
        # The parent's context as a frontend's: no EPP config, no worker hash suffix, no runtime version.
        ctx = replace(
            parent_ctx, component_type=consts.COMPONENT_TYPE_FRONTEND, epp_config=None, worker_hash_suffix="", runtime_version=None
        )
        base = dict(frontend_container(ctx), name=sidecar)
        merged = merge_override({k: v for k, v in base.items() if not k.endswith("Probe")}, user)
        for probe in ("livenessProbe", "readinessProbe", "startupProbe"):
            value = merge_probe(base.get(probe), user.get(probe))
            if value is not None:
                merged[probe] = value
        merged["env"] = merge_envs(base.get("env") or [], user.get("env") or [])
        merged = add_standard_env(merged, operator)
        merged = add_transport_tls_env(merged, operator, parent_ctx.release)
        mounts = list(merged.get("volumeMounts") or [])
        names = {m.get("name") for m in mounts}
        for mount in parent_mounts:
            if mount.get("name") not in names:
                mounts.append(mount)
                names.add(mount.get("name"))
        if mounts:
            merged["volumeMounts"] = mounts
        return [*containers[:i], merged, *containers[i + 1 :]]
    raise RenderError(f'frontendSidecar "{sidecar}" does not match any podTemplate container', "spec.frontendSidecar")


def resolve_image_pull_secrets(pod_spec: dict[str, Any], dcd: DCD, cluster: ClusterState) -> None:
    """User pull secrets, then those indexed for each container image's registry host.

    Mirrors: internal/dynamo/graph.go GenerateBasePodSpec (pull secrets step) and
    internal/controller_common/resource.go AppendUniqueImagePullSecrets.
    """
    discovered: list[str] = []
    for container in pod_spec["containers"]:
        image = container.get("image")
        if not image:
            continue
        for name in cluster.image_pull_secrets(dcd.namespace, image):
            if name not in discovered:
                discovered.append(name)
    if not discovered:
        return
    existing = list(pod_spec.get("imagePullSecrets") or [])
    seen = {ref.get("name", "") for ref in existing}
    for name in discovered:
        if name not in seen:
            existing.append({"name": name})
            seen.add(name)
    pod_spec["imagePullSecrets"] = existing


def generate_base_pod_spec(
    dcd: DCD,
    workload_type: str,
    role: str,
    operator: OperatorConfiguration,
    cluster: ClusterState,
    gpu_count: Callable[[], int],
    checkpoint: CheckpointInfo | None = None,
    deployer: Deployer = LWS,
    release: Release = REFERENCE_RELEASE,
) -> dict[str, Any]:
    """The pod spec the operator builds for one role of a DCD.

    ``workload_type`` replaces ``spec.type`` for the defaults, env and worker hash (legacy
    worker selectors); the backend framework still comes from the original type. ``deployer``
    is the multinode deployer: LeaderWorkerSet on the DCD path, Grove on the Grove pathway.
    ``release`` is the operator release rendered: its runtime-gated defaults read the
    component's resolved runtime version.
    Mirrors: internal/dynamo/graph.go GenerateBasePodSpecForController + GenerateBasePodSpec.
    """
    framework = backend_framework(dcd)
    parent = parent_name(dcd)
    annotations = dcd.pod_template_annotations
    labels = dict(dcd.pod_template_labels)
    # The effective worker hash is stamped onto the working copy's pod labels for worker types.
    worker_hash = effective_worker_hash(dcd)
    if worker_hash and is_worker_component(workload_type):
        labels[consts.LABEL_WORKER_HASH] = worker_hash
    number_of_nodes = dcd.spec.number_of_nodes

    # Component context: Dynamo namespace from the parent name (DCD labels are ignored here),
    # and the runtime version from the override, else the main image tag.
    main = dcd.main_container() or {}
    ctx = ComponentContext(
        component_type=workload_type,
        dynamo_namespace=compute_dynamo_namespace(dcd.spec.global_dynamo_namespace, dcd.namespace, parent),
        parent_name=parent,
        parent_namespace=dcd.namespace,
        discovery_backend=discovery_backend(operator.discovery.backend, annotations),
        discovery_mode=kube_discovery_mode(annotations),
        epp_config=dcd.spec.epp_config,
        worker_hash_suffix=labels.get(consts.LABEL_WORKER_HASH, "") if is_worker_component(workload_type) else "",
        runtime_version=resolve_component_runtime_version(str(main.get("image") or ""), dcd.spec.runtime_version_override or ""),
        release=release,
    )

    # Defaults for the component type, then the user's main container over them.
    container = merge_main_container(base_container(ctx), copy_json(dcd.main_container()))
    container, cache_mount_path = apply_compilation_cache(container, dcd, framework)
    validate_volume_mounts(container.get("volumeMounts") or [])
    container = add_standard_env(container, operator)
    container = add_transport_tls_env(container, operator, release)
    sidecar_mounts = list(container.get("volumeMounts") or [])

    # Backend shaping of the main container.
    backend = get_backend(framework)
    backend_ctx = BackendContext(
        number_of_nodes=number_of_nodes,
        role=role,
        spec=dcd.spec,
        annotations=annotations,
        service_name=component_name(dcd),
        parent_name=parent,
        mpi_ssh_secret_name=operator.mpi.ssh_secret_name,
        compilation_cache_mount_path=cache_mount_path,
        gpu_count=gpu_count,
        deployer=deployer,
    )
    container = backend.update_container(container, backend_ctx)
    container = apply_probe_cadence(container, workload_type, checkpoint)

    # Pod-level defaults, then the user's pod spec (minus containers) over them.
    pod_spec = base_pod_spec(ctx)
    user_spec = copy_json(dcd.pod_spec)
    user_containers = user_spec.pop("containers", None) or []
    sidecars = [c for c in user_containers if c.get("name") != consts.MAIN_CONTAINER_NAME]
    user_security_context = "securityContext" in user_spec
    pod_spec = merge_override(pod_spec, user_spec)
    if not user_security_context:
        pod_spec["securityContext"] = {"fsGroup": consts.DEFAULT_SECURITY_CONTEXT_FS_GROUP}
    if is_k8s_discovery_enabled(operator.discovery.backend, annotations) and not pod_spec.get("serviceAccountName"):
        pod_spec["serviceAccountName"] = k8s_discovery_service_account_name(parent)

    apply_compilation_cache_volume(pod_spec, dcd)
    container = apply_shared_memory(pod_spec, container, dcd)
    containers = [container, *sidecars]
    if dcd.spec.frontend_sidecar is not None:
        containers = merge_frontend_sidecar(containers, dcd.spec.frontend_sidecar, ctx, operator, sidecar_mounts)
    pod_spec["containers"] = containers

    pod_spec = backend.update_pod_spec(pod_spec, backend_ctx)
    volumes = append_missing_pvc_volumes(pod_spec.get("volumes") or [], pod_spec["containers"][0].get("volumeMounts") or [])
    if volumes:
        pod_spec["volumes"] = volumes

    if annotations.get(consts.ANNOTATION_DISABLE_IMAGE_PULL_SECRET_DISCOVERY) != consts.LABEL_VALUE_TRUE:
        resolve_image_pull_secrets(pod_spec, dcd, cluster)

    # Intra-pod GMS: the GPUs become a shared DRA claim and the GMS server joins the pod
    # (inter-pod GMS wires its weight-server pods on the Grove pathway instead).
    experimental = dcd.spec.experimental
    gms_spec = experimental.gpu_memory_service if experimental is not None else None
    if gms_spec is not None and gms_spec.mode != gms.MODE_INTER_POD:
        gms.apply_intra_pod_gms(pod_spec, list(gms_spec.extra_client_containers or []), parent, component_name(dcd))

    # Intra-pod failover clones the (GMS-shaped) main container into two engines.
    if experimental is not None and experimental.failover is not None:
        from renderer.pod import failover  # only for a component that asks for failover (start-up time)

        if failover.is_intra_pod(experimental.failover.mode):
            failover.build_failover_pod(pod_spec, number_of_nodes, framework)
    return pod_spec
