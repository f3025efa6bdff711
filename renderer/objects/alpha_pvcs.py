"""The PersistentVolumeClaims a converted v1alpha1 DGD declares in its top-level ``pvcs``.

v1beta1 has no top-level PVC list; the conversion keeps v1alpha1's in the ``nvidia.com/dgd-spec``
annotation and the DGD controller reconciles them before the discovery RBAC: a claim with
``create: true`` is created when missing (access mode, storage request and class from the
entry); one without must already exist, or the DGD's reconcile fails. That failure is
reproduced when the cluster state lists the namespace's claims completely; otherwise the claim
is assumed to exist, and the reference check reports it as needed wherever a pod mounts it. An
entry without a name is skipped (the validating webhook refuses it on create).

Mirrors: internal/controller/dgd_pvc_reconciler.go Reconcile, reconcilePVC;
internal/controller/common.go constructPVC, getPvcName
"""

from __future__ import annotations

from typing import Any

from renderer.cluster.state import PERSISTENT_VOLUME_CLAIM, ClusterState
from renderer.gocompat.quantity import canonical_quantity
from renderer.results import RenderError


def render_preserved_pvcs(pvcs: list[dict[str, Any]], namespace: str, cluster: ClusterState) -> list[dict[str, Any]]:
    """The claims to create, in declaration order; a missing claim without ``create`` is an error."""
    out: list[dict[str, Any]] = []
    for index, pvc in enumerate(pvcs):
        name = pvc.get("name")
        if not name:
            continue
        if not pvc.get("create"):
            # Offline the cluster's claims are known only from a complete cluster state; without
            # one the claim is assumed to exist (the reference check still reports it as needed).
            _existing, found = cluster.get(PERSISTENT_VOLUME_CLAIM, namespace, name)
            if not found and cluster.is_complete(PERSISTENT_VOLUME_CLAIM, namespace):
                raise RenderError(
                    f'failed to reconcile top-level PVCs: legacy top-level PVC "{name}" does not exist and create is '
                    "not enabled (give it in the input or the cluster state, or set create: true)",
                    f"spec.pvcs[{index}]",
                )
            continue
        out.append(
            {
                "apiVersion": "v1",
                "kind": "PersistentVolumeClaim",
                "metadata": {"name": name, "namespace": namespace},
                "spec": {
                    "accessModes": [pvc.get("volumeAccessMode", "")],
                    "resources": {"requests": {"storage": canonical_quantity(pvc.get("size", "0"))}},
                    "storageClassName": pvc.get("storageClass", ""),
                },
            }
        )
    return out
