"""Checkpoints under operator 1.5.0: standalone Snapshot replaces the DynamoCheckpoint CRD.

Operator 1.5.0 is a hard compatibility boundary for checkpoints. The DynamoCheckpoint CRD, its
controller, the checkpoint Jobs, the checkpoint storage settings, the storage PVC and the
snapshot-agent storage discovery are gone. A component with ``experimental.checkpoint.enabled``
is captured through the standalone Snapshot operator's ``SnapshotJob`` (no ``checkpointRef``),
or restored from the ``PodSnapshot`` its ``checkpointRef`` names (same namespace, Ready, with
matching Dynamo compatibility metadata); legacy DynamoCheckpoint artifacts are never restored.

The restored pod follows the Snapshot operator's public pod contract, and whether a pod is
restore-shaped depends on the PodSnapshot's readiness and compatibility metadata: neither is
ported (the Snapshot operator is a separate component, and its objects are cluster state this
project does not model). So under 1.5.0 an enabled checkpoint is refused as not portable
offline, naming the field and the change, instead of being rendered with the reference's
DynamoCheckpoint restore shaping, which 1.5.0 no longer applies.

Ported from ai-dynamo/dynamo#14076 (v1.5.0; cherry-picked to the release as #14290), the
implementation of DEP #13919.
"""

from __future__ import annotations

from renderer.releases import Delta
from renderer.results import Code, Result

SNAPSHOT_CHECKPOINTS = Delta(
    "#14076",
    "1.5.0",
    "checkpoints through the standalone Snapshot operator (SnapshotJob capture, checkpointRef names a PodSnapshot); "
    "the DynamoCheckpoint CRD, checkpoint storage and its PVC removed",
)


def refuse_snapshot_checkpoint(prefix: str, release_name: str, has_ref: bool) -> Result:
    """An enabled checkpoint under a profile that ships #14076: not portable offline.

    Ported from ai-dynamo/dynamo#14076 (v1.5.0): restore from a standalone PodSnapshot, capture
    through a SnapshotJob.
    """
    how = (
        "restores it from the standalone Snapshot PodSnapshot that checkpointRef names"
        if has_ref
        else "captures it through a standalone Snapshot SnapshotJob"
    )
    return Result(
        f"not portable offline: operator {release_name} {how}, and the restored pod follows the Snapshot "
        f"operator's pod contract and the PodSnapshot's readiness, which are not ported "
        f"(ai-dynamo/dynamo{SNAPSHOT_CHECKPOINTS.change}: DynamoCheckpoint removed)",
        field=f"{prefix}.experimental.checkpoint.enabled",
        code=Code.UNSUPPORTED,
    )


__all__ = ["SNAPSHOT_CHECKPOINTS", "refuse_snapshot_checkpoint"]
