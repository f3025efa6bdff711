"""Checkpoint resolution for a DCD whose ``experimental.checkpoint.enabled`` is true.

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

This module resolves: the checkpoint's identity, the checkpoint itself and its storage. The pod
shaping is ``renderer.pod.checkpoint_restore``; the storage PVC ``renderer.pod.checkpoint_pvc``.

Mirrors: internal/checkpoint/{resolve.go,resource.go,hash.go,storage.go}.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from renderer.records import dataclass
from typing import Any

from renderer import consts
from renderer.admission.api import ComponentCheckpointConfig, DynamoCheckpointIdentity
from renderer.cluster.state import DAEMON_SET, DYNAMO_CHECKPOINT, ClusterState, not_found_message
from renderer.operator_config import CheckpointStorage
from renderer.gocompat.gojson import go_json
from renderer.results import Code, RenderError, Result, Severity, go_quote

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
    status = as_dict(checkpoint.get("status"))
    if isinstance(status.get("checkpointID"), str) and status["checkpointID"]:
        return str(status["checkpointID"])
    if isinstance(status.get("identityHash"), str) and status["identityHash"]:
        return str(status["identityHash"])
    label = as_dict(as_dict(checkpoint.get("metadata")).get("labels")).get(consts.LABEL_SNAPSHOT_CHECKPOINT_ID)
    if isinstance(label, str) and label:
        return label
    return compute_identity_hash(as_dict(as_dict(checkpoint.get("spec")).get("identity")))


def _info_from_object(checkpoint: Mapping[str, Any], config: ComponentCheckpointConfig, policy: str) -> CheckpointInfo:
    """Mirrors: internal/checkpoint/resolve.go checkpointInfoFromObject (plus the caller's overrides)."""
    meta = as_dict(checkpoint.get("metadata"))
    gms = as_dict(checkpoint.get("spec")).get("gpuMemoryService")
    return CheckpointInfo(
        enabled=True,
        exists=True,
        gpu_memory_service=gms if isinstance(gms, Mapping) else None,
        hash=checkpoint_id(checkpoint),
        artifact_version=artifact_version(as_dict(meta.get("annotations")).get(consts.ANNOTATION_SNAPSHOT_ARTIFACT_VERSION)),
        name=str(meta.get("name", "")),
        ready=as_dict(checkpoint.get("status")).get("phase") == PHASE_READY,
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
                note(f"DynamoCheckpoint {ref} is not in the cluster state: rendered as an existing checkpoint that is not Ready")
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
                note(
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
    name = as_dict(checkpoint.get("metadata")).get("name", "")
    return [note(f"DynamoCheckpoint {name} has no status in the cluster state: rendered as not Ready")]


def note(message: str) -> Result:
    return Result(message, severity=Severity.INFO, field=FIELD, code=Code.NOTE)


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


def access_mode(value: str) -> str:
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
        access_mode(pvc.access_mode)
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
        names.append(str(as_dict(daemon_set.get("metadata")).get("name", "")))
        pod = as_dict(as_dict(as_dict(daemon_set.get("spec")).get("template")).get("spec"))
        mount_paths: dict[str, str] = {}
        for container in as_list(pod.get("containers")):
            container = as_dict(container)
            if container.get("name") != SNAPSHOT_AGENT_CONTAINER:
                continue
            for mount in as_list(container.get("volumeMounts")):
                mount = as_dict(mount)
                path = str(mount.get("mountPath", ""))
                if path.strip():
                    mount_paths[str(mount.get("name", ""))] = path.rstrip("/")
        for volume in as_list(pod.get("volumes")):
            volume = as_dict(volume)
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


def resolve_storage(storage: Storage) -> Storage:
    """Mirrors: internal/checkpointjob/common.go ResolveCheckpointStorage (resolveStorageConfig)."""
    base_path = storage.base_path.strip()
    if not base_path:
        raise RenderError("checkpoint base path is required", FIELD)
    if not base_path.startswith("/"):
        raise RenderError(f"checkpoint base path {go_quote(base_path)} must be absolute", FIELD)
    return Storage(
        type=storage.type or STORAGE_TYPE_PVC, pvc_name=storage.pvc_name.strip(), base_path=base_path.rstrip("/") or "/"
    )


def as_dict(value: Any) -> dict[str, Any]:
    return dict(value) if isinstance(value, Mapping) else {}


def as_list(value: Any) -> list[Any]:
    return list(value) if isinstance(value, list) else []
