"""The checkpoint storage PVC the DCD controller ensures before it renders the workload.

Mirrors: internal/controller/dcd_checkpoint_storage_reconciler.go,
internal/checkpoint/storage.go EnsureStoragePVC.
"""

from __future__ import annotations

from typing import Any

from renderer.cluster.state import PERSISTENT_VOLUME_CLAIM, ClusterState
from renderer.operator_config import CheckpointConfiguration, CheckpointPVC
from renderer.gocompat.quantity import parse_quantity
from renderer.pod.checkpoint import FIELD, access_mode, note, storage_from_config
from renderer.results import RenderError, Result, go_quote


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
        "accessModes": [access_mode(pvc.access_mode)],
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
            note(
                f"checkpoint storage PVC {namespace}/{storage.pvc_name} is not in the cluster state: assumed to exist "
                "(checkpoint.storage.pvc.create is false)"
            )
        ]
    except RenderError as err:
        raise RenderError(f"failed to reconcile checkpoint storage: {err.message}", err.field, code=err.code, hint=err.hint) from None
