"""Checkpoint resolution and restore shaping: internal/checkpoint and checkpointjob tests restated."""

from __future__ import annotations

from typing import Any

import pytest

from renderer.admission.api import ComponentCheckpointConfig, DynamoCheckpointIdentity
from renderer.pod.checkpoint import (
    DEFAULT_SECCOMP_PROFILE,
    CheckpointInfo,
    Storage,
    checkpoint_id,
    compute_identity_hash,
    go_path_clean,
    resolve_checkpoint,
    storage_from_config,
)
from renderer.pod.checkpoint_pvc import render_checkpoint_storage
from renderer.pod.checkpoint_restore import (
    overlay_gms_clients,
    Restore,
    apply_probe_cadence,
    effective_seccomp_profile,
    inject_restore,
    resolve_restore,
    restore_candidate_metadata,
    restore_pod_metadata,
)
from renderer.cluster.state import DYNAMO_CHECKPOINT, PERSISTENT_VOLUME_CLAIM, ClusterState, StateLayer, build_cluster_state
from renderer.operator_config import CheckpointConfiguration, CheckpointStorage
from renderer.results import RenderError, Severity

TEST_HASH = "abc123def4567890"
NAMESPACE = "default"
TEST_IDENTITY = {"model": "meta-llama/Llama-2-7b-hf", "backendFramework": "vllm"}


def state(*objects: dict[str, Any], complete: frozenset[Any] = frozenset()) -> ClusterState:
    cluster, problems = build_cluster_state([StateLayer("test", tuple(objects), complete=complete)], NAMESPACE)
    assert problems == []
    return cluster


def checkpoint(name: str, status: dict[str, Any] | None = None, **spec: Any) -> dict[str, Any]:
    obj: dict[str, Any] = {
        "apiVersion": "nvidia.com/v1alpha1",
        "kind": "DynamoCheckpoint",
        "metadata": {"name": name, "namespace": NAMESPACE},
        "spec": {"identity": TEST_IDENTITY, **spec},
    }
    if status is not None:
        obj["status"] = status
    return obj


def snapshot_agent(volume: dict[str, Any] | None = None) -> dict[str, Any]:
    """checkpoint_test.go testSnapshotAgentDaemonSet."""
    return {
        "apiVersion": "apps/v1",
        "kind": "DaemonSet",
        "metadata": {"name": "snapshot-agent", "namespace": NAMESPACE, "labels": {"app.kubernetes.io/component": "snapshot-agent"}},
        "spec": {
            "template": {
                "spec": {
                    "containers": [{"name": "agent", "volumeMounts": [{"name": "checkpoints", "mountPath": "/checkpoints"}]}],
                    "volumes": [volume or {"name": "checkpoints", "persistentVolumeClaim": {"claimName": "snapshot-pvc"}}],
                }
            }
        },
    }


def storage(**kwargs: Any) -> CheckpointStorage:
    return CheckpointStorage.model_validate(kwargs)


def config(**kwargs: Any) -> ComponentCheckpointConfig:
    return ComponentCheckpointConfig.model_validate({"enabled": True, **kwargs})


def pod_spec(*names: str) -> dict[str, Any]:
    """checkpoint_test.go testPodSpec (one container per name)."""
    return {
        "containers": [
            {"name": name, "image": "test-image:latest", "command": ["python3"], "args": ["-m", "dynamo.vllm"]}
            for name in names or ("main",)
        ]
    }


READY = CheckpointInfo(enabled=True, ready=True, hash=TEST_HASH)


# ---------------------------------------------------------------------------------------------
# Identity hash (hash_test.go TestComputeIdentityHash)


@pytest.mark.parametrize(
    ("identity", "want"),
    [
        (TEST_IDENTITY, "96429b2725761a09"),
        (
            {
                "model": "meta-llama/Llama-2-13b-hf",
                "backendFramework": "sglang",
                "dynamoVersion": "0.4.2",
                "tensorParallelSize": 2,
                "pipelineParallelSize": 1,
                "dtype": "float16",
                "maxModelLen": 4096,
                "extraParameters": {"gpu_memory_utilization": "0.9"},
            },
            "f4ba65bccbb8e4fb",
        ),
        ({"model": "test-model", "backendFramework": "vllm"}, "b33d3b963b5148f2"),
    ],
    ids=["basic", "all-fields", "test-model"],
)
def test_compute_identity_hash_upstream_vectors(identity: dict[str, Any], want: str) -> None:
    assert compute_identity_hash(identity) == want
    assert compute_identity_hash(DynamoCheckpointIdentity.model_validate(identity)) == want


@pytest.mark.parametrize(
    ("one", "other", "same"),
    [
        (TEST_IDENTITY, {**TEST_IDENTITY, "model": "meta-llama/Llama-2-13b-hf"}, False),
        (TEST_IDENTITY, {**TEST_IDENTITY, "backendFramework": "sglang"}, False),
        ({**TEST_IDENTITY, "tensorParallelSize": 0, "maxModelLen": 0}, TEST_IDENTITY, True),
        ({**TEST_IDENTITY, "extraParameters": {}}, TEST_IDENTITY, True),
        (
            {**TEST_IDENTITY, "extraParameters": {"param_a": "value1", "param_b": "value2"}},
            {**TEST_IDENTITY, "extraParameters": {"param_b": "value2", "param_a": "value1"}},
            True,
        ),
        (
            {**TEST_IDENTITY, "extraParameters": {"gpu_memory_utilization": "0.9"}},
            {**TEST_IDENTITY, "extraParameters": {"gpu_memory_utilization": "0.8"}},
            False,
        ),
    ],
    ids=["models", "frameworks", "zero-vs-unset", "empty-vs-nil-map", "map-order", "map-values"],
)
def test_compute_identity_hash_normalisation(one: dict[str, Any], other: dict[str, Any], same: bool) -> None:
    assert (compute_identity_hash(one) == compute_identity_hash(other)) is same
    assert len(compute_identity_hash(one)) == 16


def test_checkpoint_id_precedence() -> None:
    """resource.go CheckpointID: status.checkpointID, status.identityHash, the label, the identity hash."""
    labelled = {"metadata": {"labels": {"nvidia.com/snapshot-checkpoint-id": "from-label"}}, "spec": {"identity": TEST_IDENTITY}}
    assert checkpoint_id({**labelled, "status": {"checkpointID": "a", "identityHash": "b"}}) == "a"
    assert checkpoint_id({**labelled, "status": {"identityHash": "b"}}) == "b"
    assert checkpoint_id(labelled) == "from-label"
    assert checkpoint_id({"spec": {"identity": TEST_IDENTITY}}) == "96429b2725761a09"


# ---------------------------------------------------------------------------------------------
# ResolveCheckpointForService (checkpoint_test.go TestResolveCheckpointForService)


def test_deprecated_manual_mode_without_ref_is_ignored() -> None:
    info, notes = resolve_checkpoint(config(mode="Manual"), NAMESPACE, state())
    assert info.enabled and not info.exists and notes == []


def test_enabled_without_ref_or_identity_waits_for_auto_created_checkpoint() -> None:
    info, _ = resolve_checkpoint(config(), NAMESPACE, state())
    assert (info.enabled, info.exists, info.ready, info.startup_policy) == (True, False, False, "Immediate")


def test_checkpoint_ref_resolves_ready_cr() -> None:
    cluster = state(checkpoint("96429b2725761a09", {"phase": "Ready", "identityHash": "96429b2725761a09"}, gpuMemoryService={"enabled": True}))
    info, notes = resolve_checkpoint(config(checkpointRef="96429b2725761a09"), NAMESPACE, cluster)
    assert info.exists and info.ready and notes == []
    assert info.hash == info.name == "96429b2725761a09"
    assert info.gpu_memory_service == {"enabled": True}
    assert info.restore_targets == ("main",)


def test_checkpoint_ref_resolves_not_ready_cr() -> None:
    info, _ = resolve_checkpoint(config(checkpointRef="c"), NAMESPACE, state(checkpoint("c", {"phase": "Creating"})))
    assert info.exists and not info.ready


def test_checkpoint_ref_resolves_human_readable_names() -> None:
    cluster = state(checkpoint("not-the-hash", {"identityHash": "96429b2725761a09"}))
    info, _ = resolve_checkpoint(config(checkpointRef="not-the-hash"), NAMESPACE, cluster)
    assert (info.name, info.hash) == ("not-the-hash", "96429b2725761a09")


def test_checkpoint_ref_missing_from_a_complete_listing_is_an_error() -> None:
    """"checkpointRef errors when CR not found": only when the state knows every checkpoint (live lookup)."""
    cluster = state(complete=frozenset({(DYNAMO_CHECKPOINT, NAMESPACE)}))
    with pytest.raises(RenderError) as err:
        resolve_checkpoint(config(checkpointRef="nonexistent"), NAMESPACE, cluster)
    assert err.value.message == (
        "failed to resolve checkpoint: failed to get referenced checkpoint nonexistent: "
        'dynamocheckpoints.nvidia.com "nonexistent" not found'
    )


def test_checkpoint_ref_missing_from_an_incomplete_state_is_an_existing_checkpoint_not_ready() -> None:
    info, notes = resolve_checkpoint(config(checkpointRef="later"), NAMESPACE, state())
    assert (info.exists, info.ready, info.name) == (True, False, "later")
    assert [n.severity for n in notes] == [Severity.INFO]


def test_identity_lookup_finds_existing_checkpoint_by_identity_hash() -> None:
    cluster = state(checkpoint("friendly-name", {"phase": "Ready", "identityHash": "96429b2725761a09"}))
    info, _ = resolve_checkpoint(config(identity=TEST_IDENTITY), NAMESPACE, cluster)
    assert (info.exists, info.ready, info.hash, info.name) == (True, True, "96429b2725761a09", "friendly-name")


def test_identity_lookup_returns_existing_not_ready_checkpoint() -> None:
    cluster = state(checkpoint("friendly-name", {"phase": "Creating", "identityHash": "96429b2725761a09"}))
    info, _ = resolve_checkpoint(config(identity=TEST_IDENTITY), NAMESPACE, cluster)
    assert info.exists and not info.ready and info.hash == "96429b2725761a09"


def test_identity_lookup_returns_not_ready_when_no_cr_found() -> None:
    info, notes = resolve_checkpoint(config(identity=TEST_IDENTITY), NAMESPACE, state())
    assert not info.exists and not info.ready and len(info.hash) == 16
    assert len(notes) == 1 and "rendered as a checkpoint that does not exist yet" in notes[0].message
    # A complete listing (live) knows it does not exist: nothing to note.
    _, notes = resolve_checkpoint(config(identity=TEST_IDENTITY), NAMESPACE, state(complete=frozenset({(DYNAMO_CHECKPOINT, NAMESPACE)})))
    assert notes == []


def test_checkpoint_without_status_is_noted_as_not_ready() -> None:
    info, notes = resolve_checkpoint(config(checkpointRef="git-only"), NAMESPACE, state(checkpoint("git-only")))
    assert info.exists and not info.ready
    assert notes[0].message == "DynamoCheckpoint git-only has no status in the cluster state: rendered as not Ready"


def test_artifact_version_comes_from_the_checkpoint_annotation() -> None:
    obj = checkpoint("c", {"phase": "Ready"})
    obj["metadata"]["annotations"] = {"nvidia.com/snapshot-artifact-version": " 3 "}
    info, _ = resolve_checkpoint(config(checkpointRef="c"), NAMESPACE, state(obj))
    assert info.artifact_version == "3"


# ---------------------------------------------------------------------------------------------
# Storage (checkpoint_test.go TestStorageFromConfig, TestEnsureStoragePVC)


def test_storage_from_config() -> None:
    assert storage_from_config(storage()) is None
    assert storage_from_config(storage(type="s3")) is None
    with pytest.raises(RenderError, match=r"checkpoint\.storage\.type \"typo\" is not supported"):
        storage_from_config(storage(type="typo"))
    pvc = {"pvcName": "namespace-snapshots", "basePath": "/snapshots/"}
    assert storage_from_config(storage(type="pvc", pvc=pvc)) == Storage("pvc", "namespace-snapshots", "/snapshots")
    cleaned = storage_from_config(storage(type="pvc", pvc={**pvc, "basePath": "/snapshots//foo/../bar/"}))
    assert cleaned is not None and cleaned.base_path == "/snapshots/bar"
    with pytest.raises(RenderError, match="must be absolute"):
        storage_from_config(storage(type="pvc", pvc={**pvc, "basePath": "snapshots"}))
    with pytest.raises(RenderError, match=r"checkpoint\.storage\.pvc\.accessMode"):
        storage_from_config(storage(type="pvc", pvc={**pvc, "create": True, "accessMode": "RWX"}))
    pre_provisioned = storage_from_config(storage(type="pvc", pvc={**pvc, "accessMode": "RWX"}))
    assert pre_provisioned is not None and pre_provisioned.pvc_name == "namespace-snapshots"
    with pytest.raises(RenderError, match="pvcName and checkpoint.storage.pvc.basePath are required"):
        storage_from_config(storage(pvc={"pvcName": "x"}))
    with pytest.raises(RenderError, match=r'checkpoint storage type "s3" is not supported'):
        storage_from_config(storage(type="s3", pvc=pvc))


@pytest.mark.parametrize(
    ("path", "want"),
    [("/a//b/./c/../d/", "/a/b/d"), ("/../x", "/x"), ("/", "/"), ("a/../../b", "../b"), ("", "."), ("//x", "/x")],
)
def test_go_path_clean(path: str, want: str) -> None:
    assert go_path_clean(path) == want


CONFIGURED_PVC: dict[str, Any] = {"pvcName": "namespace-snapshots", "basePath": "/snapshots"}
CONFIGURED: dict[str, Any] = {"type": "pvc", "pvc": CONFIGURED_PVC}


def checkpoint_config(**storage_fields: Any) -> CheckpointConfiguration:
    return CheckpointConfiguration.model_validate({"enabled": True, "storage": storage_fields})


def test_storage_pvc_empty_config_is_a_no_op() -> None:
    assert render_checkpoint_storage(NAMESPACE, checkpoint_config(), state()) == ([], [])


def test_missing_pvc_is_an_error_only_when_known_missing() -> None:
    known = state(complete=frozenset({(PERSISTENT_VOLUME_CLAIM, NAMESPACE)}))
    with pytest.raises(RenderError) as err:
        render_checkpoint_storage(NAMESPACE, checkpoint_config(**CONFIGURED), known)
    assert "checkpoint storage PVC default/namespace-snapshots does not exist" in err.value.message
    assert "checkpoint.storage.pvc.create is false" in err.value.message
    objects, notes = render_checkpoint_storage(NAMESPACE, checkpoint_config(**CONFIGURED), state())
    assert objects == [] and "assumed to exist" in notes[0].message


def test_existing_pvc_is_reused() -> None:
    pvc = {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "namespace-snapshots", "namespace": NAMESPACE}}
    create = {"type": "pvc", "pvc": {**CONFIGURED_PVC, "create": True, "size": "10Gi"}}
    assert render_checkpoint_storage(NAMESPACE, checkpoint_config(**create), state(pvc)) == ([], [])


def test_create_true_renders_the_namespace_pvc() -> None:
    create = {"type": "pvc", "pvc": {**CONFIGURED_PVC, "create": True, "size": "10Gi", "storageClassName": "efs-sc", "accessMode": "ReadWriteMany"}}
    (pvc,), _ = render_checkpoint_storage(NAMESPACE, checkpoint_config(**create), state())
    assert pvc["spec"] == {
        "accessModes": ["ReadWriteMany"],
        "volumeMode": "Filesystem",
        "resources": {"requests": {"storage": "10Gi"}},
        "storageClassName": "efs-sc",
    }
    assert pvc["metadata"]["labels"]["app.kubernetes.io/component"] == "checkpoint-storage"


def test_create_true_defaults_to_read_write_many_and_the_default_storage_class() -> None:
    create = {"type": "pvc", "pvc": {"pvcName": "defaulted-snapshots", "basePath": "/snapshots", "create": True, "size": "1Gi"}}
    (pvc,), _ = render_checkpoint_storage(NAMESPACE, checkpoint_config(**create), state())
    assert pvc["spec"]["accessModes"] == ["ReadWriteMany"] and "storageClassName" not in pvc["spec"]


@pytest.mark.parametrize(("size", "message"), [("", "checkpoint.storage.pvc.size is required"), ("0", "must be greater than zero"), ("-1Gi", "must be greater than zero"), ("ten", "invalid checkpoint.storage.pvc.size")])
def test_create_true_validates_the_size(size: str, message: str) -> None:
    create = {"type": "pvc", "pvc": {**CONFIGURED_PVC, "create": True, "size": size}}
    with pytest.raises(RenderError) as err:
        render_checkpoint_storage(NAMESPACE, checkpoint_config(**create), state())
    assert err.value.message.startswith("failed to reconcile checkpoint storage: ") and message in err.value.message


# ---------------------------------------------------------------------------------------------
# Restore metadata (TestApplyRestorePodMetadataWithStorageConfig, TestApplyRestoreCandidateMetadata)


def test_restore_metadata_with_configured_storage() -> None:
    labels, annotations = restore_pod_metadata(
        {}, {"nvidia.com/snapshot-storage-base-path": "/stale"}, READY, storage(type="pvc", pvc={"pvcName": "namespace-snapshots", "basePath": "/snapshots/"})
    )
    assert labels == {"nvidia.com/snapshot-is-restore-target": "true", "nvidia.com/snapshot-checkpoint-id": TEST_HASH}
    assert annotations == {
        "nvidia.com/snapshot-artifact-version": "1",
        "nvidia.com/snapshot-target-containers": "main",
        "nvidia.com/snapshot-storage-type": "pvc",
        "nvidia.com/snapshot-storage-base-path": "/snapshots",
    }


def test_restore_metadata_failover_targets() -> None:
    info = CheckpointInfo(enabled=True, ready=True, hash=TEST_HASH, restore_targets=("engine-0", "engine-1"))
    _, annotations = restore_pod_metadata({}, {}, info, storage())
    assert annotations["nvidia.com/snapshot-target-containers"] == "engine-0,engine-1"


def test_restore_metadata_disabled_clears_every_snapshot_key() -> None:
    labels, annotations = restore_pod_metadata(
        {"nvidia.com/snapshot-is-checkpoint-source": "true", "keep": "me"},
        {
            "nvidia.com/snapshot-target-containers": "stale",
            "nvidia.com/snapshot-restore-status": "x",
            "nvidia.com/snapshot-restore-container-id.main": "y",
            "keep": "me",
        },
        CheckpointInfo(enabled=False),
        storage(),
    )
    assert labels == {"keep": "me"} and annotations == {"keep": "me"}


def test_candidate_metadata_for_a_ready_checkpoint_has_no_restore_labels() -> None:
    labels, annotations = restore_candidate_metadata(
        {"nvidia.com/snapshot-checkpoint-id": "stale"},
        {"nvidia.com/snapshot-artifact-version": "stale"},
        CheckpointInfo(
            enabled=True, exists=True, ready=True, name="worker-checkpoint", startup_policy="WaitForCheckpoint",
            restore_targets=("engine-0", "engine-1"),
        ),
    )
    assert labels == {}
    assert annotations == {
        "nvidia.com/dynamo-checkpoint-restore-candidate": "true",
        "nvidia.com/dynamo-checkpoint-name": "worker-checkpoint",
        "nvidia.com/dynamo-checkpoint-startup-policy": "WaitForCheckpoint",
        "nvidia.com/snapshot-target-containers": "engine-0,engine-1",
    }


def test_candidate_metadata_disabled_clears_stale_candidate_keys() -> None:
    labels, annotations = restore_candidate_metadata(
        {"nvidia.com/snapshot-checkpoint-id": "stale"},
        {
            "nvidia.com/dynamo-checkpoint-restore-candidate": "true",
            "nvidia.com/dynamo-checkpoint-name": "stale",
            "nvidia.com/dynamo-checkpoint-startup-policy": "Immediate",
            "nvidia.com/snapshot-target-containers": "main",
        },
        CheckpointInfo(enabled=False),
    )
    assert labels == {} and annotations == {}


# ---------------------------------------------------------------------------------------------
# Restore pod shaping (TestInjectCheckpointIntoPodSpec)


def test_not_ready_checkpoint_leaves_the_pod_spec_untouched() -> None:
    info = CheckpointInfo(enabled=True, ready=False, hash=TEST_HASH)
    assert resolve_restore(info, storage(), NAMESPACE, state(snapshot_agent())) is None
    assert inject_restore(pod_spec(), None, DEFAULT_SECCOMP_PROFILE) == pod_spec()


def test_ready_checkpoint_enables_restore_standby_mode_on_main_only() -> None:
    restore = resolve_restore(READY, storage(), NAMESPACE, state(snapshot_agent()))
    assert restore == Restore(
        CheckpointInfo(enabled=True, ready=True, hash=TEST_HASH, artifact_version="1"), Storage("pvc", "snapshot-pvc", "/checkpoints")
    )
    out = inject_restore(pod_spec("main", "sidecar"), restore, DEFAULT_SECCOMP_PROFILE)
    main, sidecar = out["containers"]
    assert (main["command"], main["args"]) == (["python3"], ["-m", "dynamo.vllm"])
    assert {"name": "DYN_SNAPSHOT_RESTORE_STANDBY", "value": "1"} in main["env"]
    assert sidecar == pod_spec("main", "sidecar")["containers"][1]
    assert out["securityContext"] == {"seccompProfile": {"type": "Localhost", "localhostProfile": "profiles/block-iouring.json"}}
    assert main["startupProbe"] == {
        "exec": {"command": ["cat", "/snapshot-control/restore-complete"]},
        "timeoutSeconds": 1,
        "periodSeconds": 1,
        "failureThreshold": 1800,
        "successThreshold": 1,
    }


def test_failover_targets_shape_every_engine_container() -> None:
    info = CheckpointInfo(enabled=True, ready=True, hash=TEST_HASH, restore_targets=("engine-0", "engine-1"))
    out = inject_restore(pod_spec("engine-0", "engine-1", "sidecar"), resolve_restore(info, storage(), NAMESPACE, state(snapshot_agent())), "")
    for container in out["containers"][:2]:
        control = [m for m in container["volumeMounts"] if m["name"] == "snapshot-control"]
        assert control == [{"name": "snapshot-control", "mountPath": "/snapshot-control", "subPath": container["name"]}]
    assert "volumeMounts" not in out["containers"][2]
    assert [v["name"] for v in out["volumes"]] == ["checkpoint-storage", "snapshot-control"]
    assert "securityContext" not in out  # seccomp disabled: no profile


def test_ready_checkpoint_uses_configured_pvc_storage_without_daemonset_discovery() -> None:
    restore = resolve_restore(READY, storage(**CONFIGURED), NAMESPACE, state())
    out = inject_restore(pod_spec(), restore, DEFAULT_SECCOMP_PROFILE)
    assert {"name": "checkpoint-storage", "persistentVolumeClaim": {"claimName": "namespace-snapshots"}} in out["volumes"]
    assert {"name": "checkpoint-storage", "mountPath": "/snapshots"} in out["containers"][0]["volumeMounts"]


def test_restore_startup_probe_copies_the_first_existing_probe() -> None:
    spec = pod_spec()
    spec["containers"][0]["livenessProbe"] = {"httpGet": {"path": "/live", "port": "system"}, "initialDelaySeconds": 30, "periodSeconds": 5}
    spec["containers"][0]["readinessProbe"] = {"httpGet": {"path": "/health", "port": "system"}}
    restore = resolve_restore(READY, storage(**CONFIGURED), NAMESPACE, state())
    probe = inject_restore(spec, restore, "")["containers"][0]["startupProbe"]
    assert probe == {
        "httpGet": {"path": "/live", "port": "system"},
        "initialDelaySeconds": 0,
        "periodSeconds": 1,
        "failureThreshold": 1800,
        "successThreshold": 1,
    }


def test_standby_env_overwrites_an_existing_entry() -> None:
    spec = pod_spec()
    spec["containers"][0]["env"] = [{"name": "DYN_SNAPSHOT_RESTORE_STANDBY", "valueFrom": {"fieldRef": {"fieldPath": "x"}}}]
    restore = resolve_restore(READY, storage(**CONFIGURED), NAMESPACE, state())
    env = inject_restore(spec, restore, "")["containers"][0]["env"]
    # Overwritten in place (valueFrom dropped); the control-dir env is appended after it.
    assert env == [
        {"name": "DYN_SNAPSHOT_RESTORE_STANDBY", "value": "1"},
        {"name": "DYN_SNAPSHOT_CONTROL_DIR", "value": "/snapshot-control"},
    ]


@pytest.mark.parametrize(
    ("info", "spec", "cluster", "message"),
    [
        (CheckpointInfo(enabled=True, ready=True), pod_spec(), state(snapshot_agent()), "checkpoint is ready but hash is not set"),
        (READY, {}, state(snapshot_agent()), "restore target container"),
        (READY, pod_spec(), state(), "no snapshot-agent daemonset found"),
        (
            READY,
            pod_spec(),
            state(snapshot_agent({"name": "checkpoints", "hostPath": {"path": "/x"}})),
            "snapshot-agent daemonset in default does not mount a PVC-backed checkpoint volume (snapshot-agent)",
        ),
    ],
    ids=["no-hash", "no-containers", "no-daemonset", "daemonset-without-pvc"],
)
def test_restore_errors(info: CheckpointInfo, spec: dict[str, Any], cluster: ClusterState, message: str) -> None:
    with pytest.raises(RenderError) as err:
        inject_restore(spec, resolve_restore(info, storage(), NAMESPACE, cluster), DEFAULT_SECCOMP_PROFILE)
    assert message in err.value.message and err.value.message.startswith("failed to inject checkpoint config: ")


def test_ready_gms_checkpoint_restores_with_the_gms_sidecar() -> None:
    # checkpoint/podspec.go EnsureIntraPodGPUMemoryService: server sidecar on the first target, clients share the claim
    info = CheckpointInfo(enabled=True, ready=True, hash=TEST_HASH, name="gms", gpu_memory_service={"enabled": True})
    out = inject_restore(pod_spec(), resolve_restore(info, storage(**CONFIGURED), NAMESPACE, state()), "")
    assert [c["name"] for c in out["initContainers"]] == ["gms-server"]
    main = out["containers"][0]
    assert {"name": "GMS_SOCKET_DIR", "value": "/gms-intrapod-control"} in main["env"]
    assert main["resources"]["claims"] == [{"name": "intrapod-shared-gpu"}]


def test_inter_pod_gms_checkpoint_restore_is_the_operator_error() -> None:
    info = CheckpointInfo(enabled=True, ready=True, hash=TEST_HASH, name="gms", gpu_memory_service={"enabled": True, "mode": "interPod"})
    with pytest.raises(RenderError, match='gpuMemoryService checkpoint restore for mode "interPod" is not implemented'):
        inject_restore(pod_spec(), resolve_restore(info, storage(**CONFIGURED), NAMESPACE, state()), "")


def test_gms_overlay_requires_a_gms_checkpoint() -> None:
    # internal/gms/clients.go OverlayClients
    info = CheckpointInfo(enabled=True, exists=True, name="plain")
    with pytest.raises(RenderError, match='gpuMemoryService restore requires resolved checkpoint "plain" to enable gpuMemoryService'):
        overlay_gms_clients(info, {"mode": "IntraPod"})
    gms_info = CheckpointInfo(enabled=True, exists=True, name="g", gpu_memory_service={"enabled": True, "mode": "intraPod"})
    overlaid = overlay_gms_clients(gms_info, {"mode": "IntraPod", "extraClientContainers": ["loader"]})
    assert overlaid.gpu_memory_service == {"enabled": True, "mode": "intraPod", "extraClientContainers": ["loader"]}


def test_hash_resolved_from_the_named_checkpoint_when_missing() -> None:
    """podspec.go ResolvePodSpecRestore: a Ready checkpoint known by name only is read for its ID."""
    info = CheckpointInfo(enabled=True, ready=True, name="c")
    restore = resolve_restore(info, storage(**CONFIGURED), NAMESPACE, state(checkpoint("c", {"checkpointID": "from-status"})))
    assert restore is not None and restore.info.hash == "from-status" and restore.info.artifact_version == "1"


# ---------------------------------------------------------------------------------------------
# Probe cadence and seccomp


def test_probe_cadence_only_for_ready_worker_checkpoints() -> None:
    container = {"readinessProbe": {"periodSeconds": 10}, "startupProbe": {"periodSeconds": 10}, "livenessProbe": {"periodSeconds": 5}}
    fast = apply_probe_cadence(container, "decode", READY)
    assert (fast["readinessProbe"], fast["startupProbe"], fast["livenessProbe"]) == ({"periodSeconds": 1}, {"periodSeconds": 1}, {"periodSeconds": 5})
    assert container["readinessProbe"] == {"periodSeconds": 10}  # the input is not edited
    assert apply_probe_cadence(container, "frontend", READY) == container
    assert apply_probe_cadence(container, "worker", CheckpointInfo(enabled=True)) == container
    assert apply_probe_cadence(container, "worker", None) == container


@pytest.mark.parametrize(
    ("seccomp", "want"),
    [(None, DEFAULT_SECCOMP_PROFILE), ({}, DEFAULT_SECCOMP_PROFILE), ({"disabled": True, "profile": "ignored"}, ""), ({"profile": "profiles/custom.json"}, "profiles/custom.json")],
    ids=["nil", "zero-value", "disabled", "profile"],
)
def test_effective_seccomp_profile(seccomp: dict[str, Any] | None, want: str) -> None:
    """api/config/v1alpha1/types_test.go TestEffectiveSeccompProfile."""
    doc: dict[str, Any] = {"enabled": True}
    if seccomp is not None:
        doc["seccomp"] = seccomp
    assert effective_seccomp_profile(CheckpointConfiguration.model_validate(doc)) == want


def test_snapshot_agent_discovery_reads_only_the_agent_containers_mounts() -> None:
    daemon_set = snapshot_agent()
    pod = daemon_set["spec"]["template"]["spec"]
    pod["containers"] = [
        {"name": "sidecar", "volumeMounts": [{"name": "checkpoints", "mountPath": "/elsewhere"}]},
        {"name": "agent", "volumeMounts": [{"name": "scratch", "mountPath": " "}, {"name": "checkpoints", "mountPath": "/data/"}]},
    ]
    restore = resolve_restore(READY, storage(), NAMESPACE, state(daemon_set))
    assert restore is not None and restore.storage == Storage("pvc", "snapshot-pvc", "/data")


def test_gms_restore_with_an_unknown_mode_is_an_error() -> None:
    info = CheckpointInfo(enabled=True, ready=True, hash=TEST_HASH, name="g", gpu_memory_service={"enabled": True, "mode": "Sideways"})
    with pytest.raises(RenderError, match='gpuMemoryService checkpoint restore has unsupported mode "Sideways"'):
        inject_restore(pod_spec(), resolve_restore(info, storage(**CONFIGURED), NAMESPACE, state()), "")
