"""The origin-version stamp across an operator upgrade, as ``diff`` reports it.

The operator's defaulting webhook stamps ``nvidia.com/dynamo-operator-origin-version`` on a DGD
when it creates it, and the worker hash covers it. A graph the operator reconciles
(``keepSources``) keeps the version that admitted it across an upgrade; rendered objects are
created anew by every render, so theirs follows the profile. These helpers give the new side of
an upgrade report the old stamp for the graphs the old side has, and say which answer applies.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

from plugin.settings import Settings
from renderer import consts
from renderer.records import dataclass
from renderer.results import Code, Result, Severity


@dataclass(frozen=True)
class OriginStamp:
    """The origin version the graphs that already exist keep (``(namespace, name)`` of each DGD)."""

    version: str
    graphs: frozenset[tuple[str, str]]


def stamp_notes(before: Settings, after: Settings, graphs: Collection[tuple[str, str]], stamp: OriginStamp | None) -> list[Result]:
    """What an operator upgrade does to the origin-version stamp, in the mode the graphs are in."""
    if before.operator_version == after.operator_version or not graphs:
        return []
    annotation = consts.ANNOTATION_OPERATOR_ORIGIN_VERSION
    if stamp is not None:
        return [Result(
            f"the graphs keep {annotation} {stamp.version}: the operator stamps it only when it creates a graph "
            f"(keepSources: the operator reconciles them); a graph created after the upgrade gets {after.operator_version}",
            severity=Severity.WARNING, code=Code.CONFIG,
        )]
    return [Result(
        f"{annotation} changes {before.operator_version} -> {after.operator_version}: rendered objects are created anew "
        "on every render, so each render stamps its own version and the worker hash follows it (pin operatorVersion "
        "in the settings to keep the old stamp; with keepSources the operator keeps the stamp a graph was created with)",
        severity=Severity.WARNING, code=Code.CONFIG,
    )]


def keep_origin(doc: Any, stamp: OriginStamp, namespace: str) -> Any:
    """A DGD that exists on the old side, with the old origin version unless it writes its own.

    Mirrors: internal/webhook/defaulting/dynamographdeployment_handler.go (the origin version is
    stamped on CREATE only, never over one already set): an upgraded operator reconciling an
    existing graph sees the version that admitted it.
    """
    obj = doc.obj
    if not isinstance(obj, dict) or obj.get("kind") != "DynamoGraphDeployment":
        return obj
    raw_metadata = obj.get("metadata")
    metadata: dict[str, Any] = raw_metadata if isinstance(raw_metadata, dict) else {}
    key = (str(metadata.get("namespace") or namespace), str(metadata.get("name") or ""))
    raw_annotations = metadata.get("annotations")
    annotations: dict[str, Any] = raw_annotations if isinstance(raw_annotations, dict) else {}
    if key not in stamp.graphs or consts.ANNOTATION_OPERATOR_ORIGIN_VERSION in annotations:
        return obj
    stamped = {**annotations, consts.ANNOTATION_OPERATOR_ORIGIN_VERSION: stamp.version}
    return {**obj, "metadata": {**metadata, "annotations": stamped}}


def without_stamp(obj: dict[str, Any], documents: Sequence[Any], stamp: OriginStamp, namespace: str) -> dict[str, Any]:
    """A kept DGD as the source writes it: the stamp given to it for the render stays in the cluster, not in Git."""
    if obj.get("kind") != "DynamoGraphDeployment":
        return obj
    metadata = obj.get("metadata") or {}
    key = (str(metadata.get("namespace") or namespace), str(metadata.get("name") or ""))
    if key not in stamp.graphs:
        return obj
    for doc in documents:
        if keep_origin(doc, stamp, namespace) is doc.obj:
            continue
        meta = doc.obj.get("metadata") or {}
        if (str(meta.get("namespace") or namespace), str(meta.get("name") or "")) == key:
            annotations = {k: v for k, v in (metadata.get("annotations") or {}).items() if k != consts.ANNOTATION_OPERATOR_ORIGIN_VERSION}
            new_meta = {k: v for k, v in metadata.items() if k != "annotations"}
            if annotations:
                new_meta["annotations"] = annotations
            return {**obj, "metadata": new_meta}
    return obj
