"""Checkpoint-aware pod shaping of a DCD whose ``experimental.checkpoint.enabled`` is true.

With the operator's checkpoint gate on, the DCD renderer resolves the component's
DynamoCheckpoint (by ``checkpointRef``, or by the hash of its ``identity``) and shapes the pod:

- startup policy ``Immediate``: only restore-candidate annotations, once the checkpoint exists
  (the operator's pod-create webhook restores each new pod later);
- ``WaitForCheckpoint``: once the checkpoint is Ready, the pod itself becomes a restore target:
  checkpoint storage volume and mounts, the snapshot-control volume, restore env, a localhost
  seccomp profile, a restore startup probe, and restore labels and annotations.

The checkpoint's existence and readiness come from the cluster state. When the state does not
have it, the pod is rendered the way the operator renders it before the checkpoint is Ready,
and a note says so. Every function here builds new dicts; none edits its arguments.

Mirrors: internal/checkpoint/{resolve.go,resource.go,hash.go,podspec.go,storage.go},
internal/checkpointjob/{common.go,control_volume.go,restore.go,checkpoint.go
EnsureLocalhostSeccompProfile}, internal/dynamo/graph.go applyCheckpointProbeCadence,
api/config/v1alpha1/types.go EffectiveSeccompProfile.
"""

from __future__ import annotations

import copy
import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from renderer import consts
from renderer.admission.api import ComponentCheckpointConfig, DynamoCheckpointIdentity
from renderer.cluster.state import DAEMON_SET, DYNAMO_CHECKPOINT, PERSISTENT_VOLUME_CLAIM, ClusterState, not_found_message
from renderer.config import CheckpointConfiguration, CheckpointPVC, CheckpointStorage
from renderer.gocompat.gojson import go_json
from renderer.gocompat.quantity import parse_quantity
from renderer.results import RenderError, Result, Severity, go_quote, unsupported

STARTUP_POLICY_IMMEDIATE = "Immediate"
STARTUP_POLICY_WAIT = "WaitForCheckpoint"
PHASE_READY = "Ready"
DEFAULT_ARTIFACT_VERSION = "1"
DEFAULT_SECCOMP_PROFILE = "profiles/block-iouring.json"
STORAGE_TYPE_PVC = "pvc"
CHECKPOINT_VOLUME_NAME = "checkpoint-storage"
CONTROL_VOLUME_NAME = "snapshot-control"
CONTROL_MOUNT_PATH = "/snapshot-control"
CONTROL_DIR_ENV = "DYN_SNAPSHOT_CONTROL_DIR"
RESTORE_STANDBY_ENV = "DYN_SNAPSHOT_RESTORE_STANDBY"
RESTORE_COMPLETE_FILE = "restore-complete"
RESTORE_STARTUP_FAILURE_THRESHOLD = 1800
SNAPSHOT_AGENT_LABELS = {"app.kubernetes.io/component": "snapshot-agent"}
SNAPSHOT_AGENT_CONTAINER = "agent"
SNAPSHOT_AGENT_VOLUME = "checkpoints"
FIELD = "spec.experimental.checkpoint"

_RESTORE_STATUS_PREFIXES = (
    consts.ANNOTATION_SNAPSHOT_RESTORE_STATUS + ".",
    consts.ANNOTATION_SNAPSHOT_RESTORE_CONTAINER_ID + ".",
)
_SNAPSHOT_LABELS = (
    consts.LABEL_SNAPSHOT_IS_CHECKPOINT_SOURCE,
    consts.LABEL_SNAPSHOT_IS_RESTORE_TARGET,
    consts.LABEL_SNAPSHOT_CHECKPOINT_ID,
)


@dataclass(frozen=True)
class CheckpointInfo:
    """What the operator knows about a component's checkpoint when it renders the pod.

    Mirrors: internal/checkpoint/resolve.go CheckpointInfo.
    """

    enabled: bool
    exists: bool = False
    gpu_memory_service: Mapping[str, Any] | None = None
    hash: str = ""
    artifact_version: str = ""
    name: str = ""
    ready: bool = False
    startup_policy: str = ""
    # empty means the default main container
    restore_targets: tuple[str, ...] = ()

    def targets(self) -> tuple[str, ...]:
        return self.restore_targets or (consts.MAIN_CONTAINER_NAME,)


@dataclass(frozen=True)
class Storage:
    """Checkpoint storage as the pod sees it: a PVC mounted at a base path.

    Mirrors: internal/checkpointjob/common.go Storage.
    """

    type: str
    pvc_name: str
    base_path: str


# ---------------------------------------------------------------------------------------------
# Identity


def compute_identity_hash(identity: DynamoCheckpointIdentity | Mapping[str, Any]) -> str:
    """First 16 hex characters of SHA-256 over the normalised identity's Go JSON.

    Tensor and pipeline parallel sizes of 0 count as 1; empty strings, a zero max model length
    and empty extra parameters are left out; extra parameters are sorted by key.
    Mirrors: internal/checkpoint/hash.go ComputeIdentityHash, normalizeIdentity.
    """
    data = identity.model_dump(by_alias=True) if isinstance(identity, DynamoCheckpointIdentity) else dict(identity)
    normalized: dict[str, Any] = {"model": data.get("model") or "", "backendFramework": data.get("backendFramework") or ""}
    if data.get("dynamoVersion"):
        normalized["dynamoVersion"] = data["dynamoVersion"]
    normalized["tensorParallelSize"] = data.get("tensorParallelSize") or 1
    normalized["pipelineParallelSize"] = data.get("pipelineParallelSize") or 1
    if data.get("dtype"):
        normalized["dtype"] = data["dtype"]
    if data.get("maxModelLen"):
        normalized["maxModelLen"] = data["maxModelLen"]
    extra = data.get("extraParameters") or {}
    if extra:
        normalized["extraParameters"] = {key: extra[key] for key in sorted(extra)}
    return hashlib.sha256(go_json(normalized).encode("utf-8")).hexdigest()[:16]


def artifact_version(value: Any) -> str:
    """Mirrors: internal/checkpointjob/common.go ArtifactVersion."""
    text = value.strip() if isinstance(value, str) else ""
    return text or DEFAULT_ARTIFACT_VERSION


def checkpoint_id(checkpoint: Mapping[str, Any]) -> str:
    """status.checkpointID, else status.identityHash, else the checkpoint-id label, else the identity hash.

    Mirrors: internal/checkpoint/resource.go CheckpointID.
    """
    status = _map(checkpoint.get("status"))
    if isinstance(status.get("checkpointID"), str) and status["checkpointID"]:
        return str(status["checkpointID"])
    if isinstance(status.get("identityHash"), str) and status["identityHash"]:
        return str(status["identityHash"])
    label = _map(_map(checkpoint.get("metadata")).get("labels")).get(consts.LABEL_SNAPSHOT_CHECKPOINT_ID)
    if isinstance(label, str) and label:
        return label
    return compute_identity_hash(_map(_map(checkpoint.get("spec")).get("identity")))


def _info_from_object(checkpoint: Mapping[str, Any], config: ComponentCheckpointConfig, policy: str) -> CheckpointInfo:
    """Mirrors: internal/checkpoint/resolve.go checkpointInfoFromObject (plus the caller's overrides)."""
    meta = _map(checkpoint.get("metadata"))
    gms = _map(checkpoint.get("spec")).get("gpuMemoryService")
    return CheckpointInfo(
        enabled=True,
        exists=True,
        gpu_memory_service=gms if isinstance(gms, Mapping) else None,
        hash=checkpoint_id(checkpoint),
        artifact_version=artifact_version(_map(meta.get("annotations")).get(consts.ANNOTATION_SNAPSHOT_ARTIFACT_VERSION)),
        name=str(meta.get("name", "")),
        ready=_map(checkpoint.get("status")).get("phase") == PHASE_READY,
        startup_policy=policy,
        restore_targets=(config.target_container_name,) if config.target_container_name else (),
    )


def _find_by_checkpoint_id(cluster: ClusterState, namespace: str, checkpoint_hash: str) -> Mapping[str, Any] | None:
    """Labelled checkpoints first, then every checkpoint (legacy ones lack the label).

    Mirrors: internal/checkpoint/resource.go FindCheckpointByCheckpointID.
    """
    for candidates in (
        cluster.list_objects(DYNAMO_CHECKPOINT, namespace, {consts.LABEL_SNAPSHOT_CHECKPOINT_ID: checkpoint_hash}),
        cluster.list_objects(DYNAMO_CHECKPOINT, namespace),
    ):
        matching = [c for c in candidates if checkpoint_id(c) == checkpoint_hash]
        if len(matching) > 1:
            raise RenderError(
                f"failed to resolve checkpoint: multiple checkpoints found for checkpoint ID {checkpoint_hash}", FIELD
            )
        if matching:
            return matching[0]
    return None


def resolve_checkpoint(
    config: ComponentCheckpointConfig, namespace: str, cluster: ClusterState
) -> tuple[CheckpointInfo, list[Result]]:
    """The checkpoint of an enabled component config, and notes on the facts that were missing.

    A ``checkpointRef`` absent from a state that does not list checkpoints in full is taken as
    an existing checkpoint that is not Ready yet (the operator would fail until it exists).
    Intra-pod failover restore targets do not apply (the webhook refuses checkpoints with
    failover); the GPU Memory Service overlay is ``overlay_gms_clients``.
    Mirrors: internal/checkpoint/resolve.go ResolveCheckpointForService.
    """
    policy = config.startup_policy or STARTUP_POLICY_IMMEDIATE
    notes: list[Result] = []
    if config.checkpoint_ref:
        ref = config.checkpoint_ref
        obj, found = cluster.get(DYNAMO_CHECKPOINT, namespace, ref)
        if not found:
            if cluster.is_complete(DYNAMO_CHECKPOINT, namespace):
                raise RenderError(
                    f"failed to resolve checkpoint: failed to get referenced checkpoint {ref}: "
                    f"{not_found_message(DYNAMO_CHECKPOINT, ref)}",
                    f"{FIELD}.checkpointRef",
                )
            notes.append(
                _note(f"DynamoCheckpoint {ref} is not in the cluster state: rendered as an existing checkpoint that is not Ready")
            )
            return (
                CheckpointInfo(
                    enabled=True,
                    exists=True,
                    name=ref,
                    startup_policy=policy,
                    restore_targets=(config.target_container_name,) if config.target_container_name else (),
                ),
                notes,
            )
        notes.extend(_status_note(obj))
        return _info_from_object(obj, config, policy), notes
    if config.identity is None:
        return CheckpointInfo(enabled=True, startup_policy=policy), notes
    identity_hash = compute_identity_hash(config.identity)
    existing = _find_by_checkpoint_id(cluster, namespace, identity_hash)
    if existing is None:
        if not cluster.is_complete(DYNAMO_CHECKPOINT, namespace):
            notes.append(
                _note(
                    f"no DynamoCheckpoint with checkpoint ID {identity_hash} in the cluster state: rendered as a checkpoint "
                    "that does not exist yet"
                )
            )
        return CheckpointInfo(enabled=True, hash=identity_hash, startup_policy=policy), notes
    notes.extend(_status_note(existing))
    return _info_from_object(existing, config, policy), notes


def _status_note(checkpoint: Mapping[str, Any]) -> list[Result]:
    if isinstance(checkpoint.get("status"), Mapping):
        return []
    name = _map(checkpoint.get("metadata")).get("name", "")
    return [_note(f"DynamoCheckpoint {name} has no status in the cluster state: rendered as not Ready")]


def _note(message: str) -> Result:
    return Result(message, severity=Severity.INFO, field=FIELD)


# ---------------------------------------------------------------------------------------------
# Storage


def go_path_clean(path: str) -> str:
    """Mirrors: Go path.Clean (lexical; rooted paths stay rooted, ``..`` at the root is dropped)."""
    if path == "":
        return "."
    rooted = path.startswith("/")
    parts: list[str] = []
    for part in path.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if parts and parts[-1] != "..":
                parts.pop()
            elif not rooted:
                parts.append("..")
            continue
        parts.append(part)
    cleaned = "/".join(parts)
    if rooted:
        return "/" + cleaned
    return cleaned or "."


def _access_mode(value: str) -> str:
    """Mirrors: internal/checkpoint/storage.go storagePVCAccessMode."""
    mode = value.strip()
    if not mode:
        return "ReadWriteMany"
    if mode in ("ReadWriteOnce", "ReadWriteMany"):
        return mode
    raise RenderError(
        f'checkpoint.storage.pvc.accessMode {go_quote(value)} is not supported; expected "ReadWriteOnce" or "ReadWriteMany"',
        FIELD,
    )


def storage_from_config(config: CheckpointStorage) -> Storage | None:
    """PVC storage from the operator config, or None when the config leaves storage to discovery.

    Mirrors: internal/checkpoint/storage.go StorageFromConfig, normalizeStorageBasePath.
    """
    pvc = config.pvc
    storage_type = config.type.strip()
    pvc_name = pvc.pvc_name.strip()
    base_path = pvc.base_path.strip()
    has_pvc = bool(
        pvc_name or base_path or pvc.create or pvc.size.strip() or pvc.storage_class_name.strip() or pvc.access_mode.strip()
    )
    if not storage_type and not has_pvc:
        return None
    if storage_type and storage_type != STORAGE_TYPE_PVC and not has_pvc:
        if storage_type in ("s3", "oci"):
            return None
        raise RenderError(
            f"checkpoint.storage.type {go_quote(storage_type)} is not supported; only pvc is implemented today", FIELD
        )
    storage_type = storage_type or STORAGE_TYPE_PVC
    if storage_type != STORAGE_TYPE_PVC:
        raise RenderError(
            f"checkpoint storage type {go_quote(storage_type)} is not supported; only pvc is implemented today", FIELD
        )
    if not pvc_name or not base_path:
        raise RenderError(
            "checkpoint.storage.pvc.pvcName and checkpoint.storage.pvc.basePath are required when checkpoint storage is "
            "configured",
            FIELD,
        )
    if not base_path.startswith("/"):
        raise RenderError(f"checkpoint.storage.pvc.basePath {go_quote(base_path)} must be absolute", FIELD)
    base_path = go_path_clean(base_path).rstrip("/") or "/"
    if pvc.create:
        _access_mode(pvc.access_mode)
    return Storage(type=STORAGE_TYPE_PVC, pvc_name=pvc_name, base_path=base_path)


def discover_storage(cluster: ClusterState, namespace: str) -> Storage:
    """The PVC and mount path of the first snapshot-agent DaemonSet that mounts one.

    Mirrors: internal/checkpointjob/restore.go DiscoverAndResolveStorage, DiscoverStorageFromDaemonSets.
    """
    daemon_sets = cluster.list_objects(DAEMON_SET, namespace, SNAPSHOT_AGENT_LABELS)
    if not daemon_sets:
        hint = "" if cluster.is_complete(DAEMON_SET, namespace) else (
            " (none in the cluster state; set checkpoint.storage in the operator configuration or give the "
            "snapshot-agent DaemonSet in the cluster state)"
        )
        raise RenderError(f"no snapshot-agent daemonset found in namespace {namespace}{hint}", FIELD)
    names: list[str] = []
    for daemon_set in daemon_sets:
        names.append(str(_map(daemon_set.get("metadata")).get("name", "")))
        pod = _map(_map(_map(daemon_set.get("spec")).get("template")).get("spec"))
        mount_paths: dict[str, str] = {}
        for container in _list(pod.get("containers")):
            container = _map(container)
            if container.get("name") != SNAPSHOT_AGENT_CONTAINER:
                continue
            for mount in _list(container.get("volumeMounts")):
                mount = _map(mount)
                path = str(mount.get("mountPath", ""))
                if path.strip():
                    mount_paths[str(mount.get("name", ""))] = path.rstrip("/")
        for volume in _list(pod.get("volumes")):
            volume = _map(volume)
            claim = volume.get("persistentVolumeClaim")
            if volume.get("name") != SNAPSHOT_AGENT_VOLUME or not isinstance(claim, Mapping):
                continue
            base_path = mount_paths.get(SNAPSHOT_AGENT_VOLUME, "")
            pvc_name = str(claim.get("claimName", "")).strip()
            if not base_path or not pvc_name:
                continue
            return Storage(type=STORAGE_TYPE_PVC, pvc_name=pvc_name, base_path=base_path)
    raise RenderError(
        f"snapshot-agent daemonset in {namespace} does not mount a PVC-backed checkpoint volume ({', '.join(names)})", FIELD
    )


def _resolve_storage(storage: Storage) -> Storage:
    """Mirrors: internal/checkpointjob/common.go ResolveCheckpointStorage (resolveStorageConfig)."""
    base_path = storage.base_path.strip()
    if not base_path:
        raise RenderError("checkpoint base path is required", FIELD)
    if not base_path.startswith("/"):
        raise RenderError(f"checkpoint base path {go_quote(base_path)} must be absolute", FIELD)
    return Storage(
        type=storage.type or STORAGE_TYPE_PVC, pvc_name=storage.pvc_name.strip(), base_path=base_path.rstrip("/") or "/"
    )


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
        annotations = _map(_map(obj.get("metadata")).get("annotations"))
        version = version or artifact_version(annotations.get(consts.ANNOTATION_SNAPSHOT_ARTIFACT_VERSION))
        if gms is None:
            spec_gms = _map(obj.get("spec")).get("gpuMemoryService")
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
        storage = _resolve_storage(storage)
    except RenderError as err:
        raise RenderError(f"failed to inject checkpoint config: {err.message}", err.field) from None
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
    drop = {
        consts.ANNOTATION_SNAPSHOT_ARTIFACT_VERSION,
        consts.ANNOTATION_SNAPSHOT_STORAGE_TYPE,
        consts.ANNOTATION_SNAPSHOT_STORAGE_BASE_PATH,
        consts.ANNOTATION_CHECKPOINT_RESTORE_CANDIDATE,
        consts.ANNOTATION_CHECKPOINT_NAME,
        consts.ANNOTATION_CHECKPOINT_STARTUP_POLICY,
        consts.ANNOTATION_SNAPSHOT_TARGET_CONTAINERS,
    }
    annotations_out = {k: v for k, v in annotations.items() if k not in drop}
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
    drop = {
        consts.ANNOTATION_SNAPSHOT_ARTIFACT_VERSION,
        consts.ANNOTATION_SNAPSHOT_RESTORE_STATUS,
        consts.ANNOTATION_SNAPSHOT_RESTORE_CONTAINER_ID,
        consts.ANNOTATION_SNAPSHOT_TARGET_CONTAINERS,
        consts.ANNOTATION_SNAPSHOT_STORAGE_TYPE,
        consts.ANNOTATION_SNAPSHOT_STORAGE_BASE_PATH,
        consts.ANNOTATION_CHECKPOINT_RESTORE_CANDIDATE,
        consts.ANNOTATION_CHECKPOINT_NAME,
        consts.ANNOTATION_CHECKPOINT_STARTUP_POLICY,
    }
    annotations_out = {k: v for k, v in annotations.items() if k not in drop and not k.startswith(_RESTORE_STATUS_PREFIXES)}
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


# ---------------------------------------------------------------------------------------------
# Checkpoint storage PVC (DCD controller, before the workload)

PVC_LABELS = {
    "app.kubernetes.io/name": "dynamo",
    "app.kubernetes.io/component": "checkpoint-storage",
    "app.kubernetes.io/managed-by": "dynamo-operator",
}


def render_storage_pvc(namespace: str, pvc: CheckpointPVC) -> dict[str, Any]:
    """The checkpoint storage PVC the DCD controller creates when ``checkpoint.storage.pvc.create`` is true.

    Mirrors: internal/checkpoint/storage.go buildStoragePVC.
    """
    name = pvc.pvc_name.strip()
    if not name:
        raise RenderError("checkpoint.storage.pvc.pvcName is required when checkpoint.storage.pvc.create is true", FIELD)
    size = pvc.size.strip()
    if not size:
        raise RenderError("checkpoint.storage.pvc.size is required when checkpoint.storage.pvc.create is true", FIELD)
    try:
        quantity = parse_quantity(size)
    except ValueError as err:
        raise RenderError(f"invalid checkpoint.storage.pvc.size {go_quote(size)}: {err}", FIELD) from None
    if quantity.sign() <= 0:
        raise RenderError(f"checkpoint.storage.pvc.size {go_quote(size)} must be greater than zero", FIELD)
    spec: dict[str, Any] = {
        "accessModes": [_access_mode(pvc.access_mode)],
        "volumeMode": "Filesystem",
        "resources": {"requests": {"storage": quantity.string()}},
    }
    if pvc.storage_class_name.strip():
        spec["storageClassName"] = pvc.storage_class_name.strip()
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": name, "namespace": namespace, "labels": dict(PVC_LABELS)},
        "spec": spec,
    }


def _map(value: Any) -> dict[str, Any]:
    return dict(value) if isinstance(value, Mapping) else {}


def _list(value: Any) -> list[Any]:
    return list(value) if isinstance(value, list) else []


def render_checkpoint_storage(
    namespace: str, config: CheckpointConfiguration, cluster: ClusterState
) -> tuple[list[dict[str, Any]], list[Result]]:
    """The checkpoint storage PVC to create (if any) and notes on assumptions.

    The operator reads the PVC: present, nothing to do; missing, it creates it when
    ``pvc.create`` is true and fails otherwise. Offline a PVC absent from a state that does not
    list PVCs in full is assumed to exist when ``create`` is false, and rendered when it is true.
    Mirrors: internal/controller/dcd_checkpoint_storage_reconciler.go Reconcile,
    internal/checkpoint/storage.go EnsureStoragePVC.
    """
    try:
        storage = storage_from_config(config.storage)
        if storage is None:
            return [], []
        _, found = cluster.get(PERSISTENT_VOLUME_CLAIM, namespace, storage.pvc_name)
        if found:
            return [], []
        if config.storage.pvc.create:
            return [render_storage_pvc(namespace, config.storage.pvc)], []
        if cluster.is_complete(PERSISTENT_VOLUME_CLAIM, namespace):
            raise RenderError(
                f"checkpoint storage PVC {namespace}/{storage.pvc_name} does not exist and "
                "checkpoint.storage.pvc.create is false",
                FIELD,
            )
        return [], [
            _note(
                f"checkpoint storage PVC {namespace}/{storage.pvc_name} is not in the cluster state: assumed to exist "
                "(checkpoint.storage.pvc.create is false)"
            )
        ]
    except RenderError as err:
        raise RenderError(f"failed to reconcile checkpoint storage: {err.message}", err.field) from None
