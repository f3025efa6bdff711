"""Checkpoints of DGD components on the component pathway (``checkpointRef`` only).

The graph controller resolves each enabled component checkpoint before it writes the DCDs,
then rewrites the generated DCD: the resolved checkpoint becomes its ``checkpointRef`` (identity
and job dropped, startup policy written out), a ``WaitForCheckpoint`` component whose checkpoint
is not Ready gets zero replicas, and an ``Immediate`` one gets the restore-candidate pod
annotations. The DCD is then rendered by the DCD path, which resolves the checkpoint again and
shapes the pod. A component without ``checkpointRef`` is refused at admission: its checkpoint
is named after the DGD's UID (see renderer.admission.api).

Mirrors: internal/controller/dgd_checkpoints_reconciler.go Reconcile (checkpointRef branch),
internal/controller/dgd_component_workloads_reconciler.go applyCheckpointStartupPolicy.
"""

from __future__ import annotations

from typing import Any

from renderer.cluster.state import ClusterState
from renderer.graph.dgd import Component
from renderer.pod.checkpoint import STARTUP_POLICY_IMMEDIATE, STARTUP_POLICY_WAIT, resolve_checkpoint
from renderer.pod.checkpoint_restore import overlay_gms_clients, restore_candidate_metadata


def apply_checkpoint_startup_policy(dcd: dict[str, Any], component: Component, namespace: str, cluster: ClusterState) -> None:
    """Rewrite one generated DCD (in place) from its component's resolved checkpoint."""
    experimental = component.spec.experimental
    config = experimental.checkpoint if experimental is not None else None
    if config is None or not config.enabled or not config.checkpoint_ref:
        return
    info, _ = resolve_checkpoint(config, namespace, cluster)  # the DCD render reports the notes
    if experimental is not None and experimental.gpu_memory_service is not None:
        info = overlay_gms_clients(info, experimental.gpu_memory_service.model_dump(by_alias=True, exclude_none=True))
    spec = dcd["spec"]
    policy = info.startup_policy or STARTUP_POLICY_IMMEDIATE

    # The resolved checkpoint is what the DCD restores from.
    if info.enabled and info.exists and info.name:
        checkpoint = spec.setdefault("experimental", {}).setdefault("checkpoint", {})
        checkpoint["enabled"] = True
        checkpoint["checkpointRef"] = info.name
        checkpoint.pop("identity", None)
        checkpoint.pop("job", None)
        checkpoint["startupPolicy"] = policy

    # Waiting for a checkpoint that is not Ready: no pods yet.
    if policy == STARTUP_POLICY_WAIT and not info.ready:
        spec["replicas"] = 0
        return
    if policy != STARTUP_POLICY_IMMEDIATE:
        return

    # Immediate: pods are restore candidates once the checkpoint exists.
    template = spec.setdefault("podTemplate", {})
    metadata = template.setdefault("metadata", {})
    labels, annotations = restore_candidate_metadata(metadata.get("labels") or {}, metadata.get("annotations") or {}, info)
    metadata["labels"] = labels
    metadata["annotations"] = annotations
