"""Pod shaping for a checkpoint restore: volumes, mounts, env, seccomp, probes and metadata.

A ``WaitForCheckpoint`` pod becomes a restore target once its checkpoint is Ready; an
``Immediate`` pod only carries the restore-candidate annotations. Resolving the checkpoint is
``renderer.pod.checkpoint``. Every function builds new dicts; none edits its arguments.

Mirrors: internal/checkpoint/podspec.go, internal/checkpointjob/{common.go,control_volume.go,
restore.go,checkpoint.go EnsureLocalhostSeccompProfile}, internal/dynamo/graph.go
applyCheckpointProbeCadence, api/config/v1alpha1/types.go EffectiveSeccompProfile.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from renderer.records import dataclass, replace
from typing import Any

from renderer import consts
from renderer.cluster.state import DYNAMO_CHECKPOINT, ClusterState, not_found_message
from renderer.operator_config import CheckpointConfiguration, CheckpointStorage
from renderer.pod.checkpoint import (
    CHECKPOINT_VOLUME_NAME,
    CONTROL_DIR_ENV,
    CONTROL_MOUNT_PATH,
    CONTROL_VOLUME_NAME,
    DEFAULT_ARTIFACT_VERSION,
    DEFAULT_SECCOMP_PROFILE,
    FIELD,
    RESTORE_COMPLETE_FILE,
    RESTORE_STANDBY_ENV,
    RESTORE_STARTUP_FAILURE_THRESHOLD,
    STARTUP_POLICY_IMMEDIATE,
    CheckpointInfo,
    Storage,
    artifact_version,
    as_dict,
    checkpoint_id,
    discover_storage,
    resolve_storage,
    storage_from_config,
)
from renderer.results import RenderError, go_quote

_RESTORE_STATUS_PREFIXES = (
    consts.ANNOTATION_SNAPSHOT_RESTORE_STATUS + ".",
    consts.ANNOTATION_SNAPSHOT_RESTORE_CONTAINER_ID + ".",
)
_SNAPSHOT_LABELS = (
    consts.LABEL_SNAPSHOT_IS_CHECKPOINT_SOURCE,
    consts.LABEL_SNAPSHOT_IS_RESTORE_TARGET,
    consts.LABEL_SNAPSHOT_CHECKPOINT_ID,
)
# The annotations a restore candidate's metadata is rebuilt from (stale ones are removed first).
_CANDIDATE_ANNOTATIONS = frozenset(
    (
        consts.ANNOTATION_SNAPSHOT_ARTIFACT_VERSION,
        consts.ANNOTATION_SNAPSHOT_STORAGE_TYPE,
        consts.ANNOTATION_SNAPSHOT_STORAGE_BASE_PATH,
        consts.ANNOTATION_CHECKPOINT_RESTORE_CANDIDATE,
        consts.ANNOTATION_CHECKPOINT_NAME,
        consts.ANNOTATION_CHECKPOINT_STARTUP_POLICY,
        consts.ANNOTATION_SNAPSHOT_TARGET_CONTAINERS,
    )
)
# A restore target's: the candidate's plus the restore status a previous restore left.
_RESTORE_ANNOTATIONS = _CANDIDATE_ANNOTATIONS | {
    consts.ANNOTATION_SNAPSHOT_RESTORE_STATUS,
    consts.ANNOTATION_SNAPSHOT_RESTORE_CONTAINER_ID,
}


@dataclass(frozen=True)
class Restore:
    """A Ready checkpoint resolved for restore shaping: its info and where its storage is mounted.

    Mirrors: internal/checkpoint/podspec.go ResolvedPodSpecRestore.
    """

    info: CheckpointInfo
    storage: Storage


def resolve_restore(
    info: CheckpointInfo | None, storage_config: CheckpointStorage, namespace: str, cluster: ClusterState
) -> Restore | None:
    """The restore to apply, or None while the checkpoint is not enabled and Ready.

    Mirrors: internal/checkpoint/podspec.go ResolvePodSpecRestore, storage.go ResolveStorage.
    """
    if info is None or not info.enabled or not info.ready:
        return None
    checkpoint_hash = info.hash
    version = info.artifact_version
    gms = info.gpu_memory_service
    if not checkpoint_hash and info.name:
        obj, found = cluster.get(DYNAMO_CHECKPOINT, namespace, info.name)
        if not found:
            raise RenderError(
                f"failed to inject checkpoint config: failed to get checkpoint {namespace}/{info.name}: "
                f"{not_found_message(DYNAMO_CHECKPOINT, info.name)}",
                FIELD,
            )
        checkpoint_hash = checkpoint_id(obj)
        annotations = as_dict(as_dict(obj.get("metadata")).get("annotations"))
        version = version or artifact_version(annotations.get(consts.ANNOTATION_SNAPSHOT_ARTIFACT_VERSION))
        if gms is None:
            spec_gms = as_dict(obj.get("spec")).get("gpuMemoryService")
            gms = spec_gms if isinstance(spec_gms, Mapping) else None
    if not checkpoint_hash:
        raise RenderError("failed to inject checkpoint config: checkpoint is ready but hash is not set", FIELD)
    resolved = CheckpointInfo(
        enabled=info.enabled,
        exists=info.exists,
        gpu_memory_service=gms,
        hash=checkpoint_hash,
        artifact_version=version or DEFAULT_ARTIFACT_VERSION,
        name=info.name,
        ready=info.ready,
        startup_policy=info.startup_policy,
        restore_targets=info.restore_targets,
    )
    try:
        storage = storage_from_config(storage_config)
        if storage is None:
            storage = discover_storage(cluster, namespace)
        storage = resolve_storage(storage)
    except RenderError as err:
        raise RenderError(f"failed to inject checkpoint config: {err.message}", err.field, code=err.code, hint=err.hint) from None
    return Restore(info=resolved, storage=storage)


def effective_seccomp_profile(config: CheckpointConfiguration) -> str:
    """The localhost seccomp profile for restore pods; empty disables it.

    Mirrors: api/config/v1alpha1/types.go CheckpointConfiguration.EffectiveSeccompProfile.
    """
    if config.seccomp is None:
        return DEFAULT_SECCOMP_PROFILE
    if config.seccomp.disabled:
        return ""
    return config.seccomp.profile or DEFAULT_SECCOMP_PROFILE


# ---------------------------------------------------------------------------------------------
# Pod shaping


def apply_probe_cadence(container: dict[str, Any], component_type: str, info: CheckpointInfo | None) -> dict[str, Any]:
    """Readiness and startup probes every second for a worker restored from a Ready checkpoint.

    Mirrors: internal/dynamo/graph.go applyCheckpointProbeCadence.
    """
    if info is None or not info.enabled or not info.ready or component_type not in consts.WORKER_COMPONENT_TYPES:
        return container
    out = dict(container)
    for probe in ("readinessProbe", "startupProbe"):
        if isinstance(out.get(probe), dict):
            out[probe] = {**out[probe], "periodSeconds": 1}
    return out


def _restore_startup_probe(container: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of the startup (else liveness, else readiness) probe at a 1 s cadence, or the sentinel probe.

    Mirrors: internal/checkpointjob/restore.go ensureRestoreStartupProbe.
    """
    for name in ("startupProbe", "livenessProbe", "readinessProbe"):
        probe = container.get(name)
        if isinstance(probe, dict):
            out = copy.deepcopy(probe)
            out.update(
                initialDelaySeconds=0,
                periodSeconds=1,
                failureThreshold=RESTORE_STARTUP_FAILURE_THRESHOLD,
                successThreshold=1,
            )
            return out
    return {
        "exec": {"command": ["cat", f"{CONTROL_MOUNT_PATH}/{RESTORE_COMPLETE_FILE}"]},
        "timeoutSeconds": 1,
        "periodSeconds": 1,
        "failureThreshold": RESTORE_STARTUP_FAILURE_THRESHOLD,
        "successThreshold": 1,
    }


def _shape_restore_target(container: Mapping[str, Any], storage: Storage, ready: bool) -> dict[str, Any]:
    """Checkpoint and control mounts, control env, standby env and the restore startup probe.

    Mirrors: internal/checkpointjob/restore.go PrepareRestorePodSpec (per target),
    InjectCheckpointVolumeMount, control_volume.go EnsureControlVolume.
    """
    out = dict(container)
    mounts = list(out.get("volumeMounts") or [])
    if storage.base_path and not any(m.get("name") == CHECKPOINT_VOLUME_NAME for m in mounts):
        mounts.append({"name": CHECKPOINT_VOLUME_NAME, "mountPath": storage.base_path})
    if not any(m.get("name") == CONTROL_VOLUME_NAME for m in mounts):
        mounts.append({"name": CONTROL_VOLUME_NAME, "mountPath": CONTROL_MOUNT_PATH, "subPath": str(out.get("name", ""))})
    out["volumeMounts"] = mounts
    env = list(out.get("env") or [])
    if not any(e.get("name") == CONTROL_DIR_ENV for e in env):
        env.append({"name": CONTROL_DIR_ENV, "value": CONTROL_MOUNT_PATH})
    if ready:
        index = next((i for i, e in enumerate(env) if e.get("name") == RESTORE_STANDBY_ENV), None)
        if index is None:
            env.append({"name": RESTORE_STANDBY_ENV, "value": "1"})
        else:
            env[index] = {k: v for k, v in env[index].items() if k != "valueFrom"} | {"value": "1"}
        out["startupProbe"] = _restore_startup_probe(out)
    out["env"] = env
    return out


def inject_restore(pod_spec: Mapping[str, Any], restore: Restore | None, seccomp_profile: str) -> dict[str, Any]:
    """The pod spec shaped as a restore target of a Ready checkpoint (a copy; unchanged without one).

    Mirrors: internal/checkpoint/podspec.go InjectResolvedCheckpointIntoPodSpec and
    internal/checkpointjob/restore.go PrepareRestorePodSpec, InjectCheckpointVolume,
    checkpoint.go EnsureLocalhostSeccompProfile.
    """
    out = dict(pod_spec)
    if restore is None:
        return out
    if seccomp_profile:
        out["securityContext"] = {
            **(out.get("securityContext") or {}),
            "seccompProfile": {"type": "Localhost", "localhostProfile": seccomp_profile},
        }
    volumes = list(out.get("volumes") or [])
    if restore.storage.pvc_name and not any(v.get("name") == CHECKPOINT_VOLUME_NAME for v in volumes):
        volumes.append({"name": CHECKPOINT_VOLUME_NAME, "persistentVolumeClaim": {"claimName": restore.storage.pvc_name}})
    containers = list(out.get("containers") or [])
    target_indexes: list[int] = []
    for target in format_target_containers(restore.info.targets()).split(","):
        index = next((i for i, c in enumerate(containers) if c.get("name") == target), None)
        if index is None:
            raise RenderError(
                f"failed to inject checkpoint config: restore target container {go_quote(target)} not found in pod spec "
                f"(from {consts.ANNOTATION_SNAPSHOT_TARGET_CONTAINERS} annotation)",
                f"{FIELD}.targetContainerName",
            )
        if not any(v.get("name") == CONTROL_VOLUME_NAME for v in volumes):
            volumes.append({"name": CONTROL_VOLUME_NAME, "emptyDir": {}})
        containers[index] = _shape_restore_target(containers[index], restore.storage, restore.info.ready)
        target_indexes.append(index)
    out["volumes"] = volumes
    out["containers"] = containers
    gms_info = restore.info.gpu_memory_service
    if restore.info.ready and gms_info is not None and gms_info.get("enabled"):
        # A DynamoCheckpoint is v1alpha1: its modes are spelled intraPod / interPod.
        mode = gms_info.get("mode") or "intraPod"
        if mode == "intraPod":
            return _ensure_intra_pod_gms(out, target_indexes, list(gms_info.get("extraClientContainers") or []))
        if mode == "interPod":
            raise RenderError(
                f'failed to inject checkpoint config: gpuMemoryService checkpoint restore for mode "{mode}" is not implemented',
                FIELD,
            )
        raise RenderError(
            "failed to inject checkpoint config: gpuMemoryService checkpoint restore has unsupported mode "
            f"{go_quote(str(mode))}",
            FIELD,
        )
    return out


def _ensure_intra_pod_gms(pod_spec: dict[str, Any], target_indexes: list[int], extra_clients: list[str]) -> dict[str, Any]:
    """The GMS server sidecar on the first restore target; every target and extra client a GMS client.

    Extra clients that name no container are skipped, as the operator skips them.
    Mirrors: internal/checkpoint/podspec.go EnsureIntraPodGPUMemoryService
    """
    from renderer.pod import gms
    from renderer.gocompat.merge import copy_json

    out: dict[str, Any] = copy_json(pod_spec)
    if not target_indexes:
        return out
    containers = out["containers"]
    gms.ensure_server_sidecar(out, containers[target_indexes[0]])
    for index in target_indexes:
        gms.ensure_client(out, containers[index])
    for name in extra_clients:
        container = next((c for c in containers if c.get("name") == name), None)
        if container is not None:
            gms.ensure_client(out, container)
    return out


def overlay_gms_clients(info: CheckpointInfo, service_gms: Mapping[str, Any] | None) -> CheckpointInfo:
    """The component's GPU Memory Service settings replace a GMS checkpoint's.

    ``service_gms`` is the component's ``gpuMemoryService`` (v1beta1: present means enabled).
    Mirrors: internal/gms/clients.go OverlayClients (and ToAlphaSpec)
    """
    if service_gms is None:
        return info
    current = info.gpu_memory_service
    checkpoint_enabled = current is not None and bool(current.get("enabled"))
    if info.exists and not checkpoint_enabled:
        raise RenderError(
            f"failed to apply checkpoint gpuMemoryService config: gpuMemoryService restore requires resolved checkpoint "
            f"{go_quote(info.name)} to enable gpuMemoryService",
            "spec.experimental.gpuMemoryService",
        )
    if not checkpoint_enabled:
        return info
    alpha_modes = {"IntraPod": "intraPod", "InterPod": "interPod"}
    converted: dict[str, Any] = {"enabled": True, **{k: v for k, v in service_gms.items() if v is not None}}
    if "mode" in converted:
        converted["mode"] = alpha_modes.get(str(converted["mode"]), converted["mode"])
    return replace(info, gpu_memory_service=converted)


def format_target_containers(names: tuple[str, ...]) -> str:
    """Mirrors: internal/checkpointjob/common.go FormatTargetContainers."""
    return ",".join(n.strip() for n in names if n.strip())


# ---------------------------------------------------------------------------------------------
# Pod metadata


def restore_candidate_metadata(
    labels: Mapping[str, str], annotations: Mapping[str, str], info: CheckpointInfo
) -> tuple[dict[str, str], dict[str, str]]:
    """Immediate policy: stale restore keys removed; candidate annotations once the checkpoint exists.

    Restore-status annotations are left alone here, unlike on the restore-target path.
    Mirrors: internal/checkpoint/podspec.go ApplyRestoreCandidateMetadata.
    """
    labels_out = {k: v for k, v in labels.items() if k not in _SNAPSHOT_LABELS}
    annotations_out = {k: v for k, v in annotations.items() if k not in _CANDIDATE_ANNOTATIONS}
    if not info.enabled or not info.exists or not info.name:
        return labels_out, annotations_out
    annotations_out[consts.ANNOTATION_CHECKPOINT_RESTORE_CANDIDATE] = consts.LABEL_VALUE_TRUE
    annotations_out[consts.ANNOTATION_CHECKPOINT_NAME] = info.name
    annotations_out[consts.ANNOTATION_CHECKPOINT_STARTUP_POLICY] = info.startup_policy or STARTUP_POLICY_IMMEDIATE
    annotations_out[consts.ANNOTATION_SNAPSHOT_TARGET_CONTAINERS] = format_target_containers(info.targets())
    return labels_out, annotations_out


def restore_pod_metadata(
    labels: Mapping[str, str],
    annotations: Mapping[str, str],
    info: CheckpointInfo | None,
    storage_config: CheckpointStorage,
) -> tuple[dict[str, str], dict[str, str]]:
    """Restore-target labels and annotations for a Ready checkpoint; otherwise every snapshot key scrubbed.

    The storage annotations are written only when the storage comes from the operator config.
    Mirrors: internal/checkpoint/podspec.go ApplyRestorePodMetadataWithStorageConfig and
    internal/checkpointjob/common.go ApplyRestoreTargetMetadata, clearRestoreStatusKeys,
    ApplyCheckpointStorageMetadata.
    """
    enabled = info is not None and info.enabled and info.ready
    storage = storage_from_config(storage_config) if enabled else None
    labels_out = {k: v for k, v in labels.items() if k not in _SNAPSHOT_LABELS}
    annotations_out = {
        k: v for k, v in annotations.items() if k not in _RESTORE_ANNOTATIONS and not k.startswith(_RESTORE_STATUS_PREFIXES)
    }
    if not enabled or info is None:
        return labels_out, annotations_out
    labels_out[consts.LABEL_SNAPSHOT_IS_RESTORE_TARGET] = consts.LABEL_VALUE_TRUE
    if info.hash:
        labels_out[consts.LABEL_SNAPSHOT_CHECKPOINT_ID] = info.hash
    annotations_out[consts.ANNOTATION_SNAPSHOT_ARTIFACT_VERSION] = artifact_version(info.artifact_version)
    annotations_out[consts.ANNOTATION_SNAPSHOT_TARGET_CONTAINERS] = format_target_containers(info.targets())
    if storage is not None:
        annotations_out[consts.ANNOTATION_SNAPSHOT_STORAGE_TYPE] = storage.type
        annotations_out[consts.ANNOTATION_SNAPSHOT_STORAGE_BASE_PATH] = storage.base_path
    return labels_out, annotations_out
