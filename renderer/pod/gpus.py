"""GPU count of the main container, for the backends that size launch commands by it.

A scalar GPU resource (limits first, then requests) wins. A main container without one that
names DRA resource claims is counted from the claim templates, claims and device classes in the
cluster state (``renderer.cluster.dra``).

Mirrors: internal/dynamo/graph.go ResolveContainerGPUs, internal/dra/dra.go ResolveGPUCount,
ExtractGPUCountFromResourceRequirements, gpuResourceNames, gpuCountFromQuantity, isGPUResourceName.
"""

from __future__ import annotations

from typing import Any

from renderer import consts, hints
from renderer.admission.api import DCD
from renderer.cluster.state import EMPTY, ClusterState
from renderer.cluster.dra import is_gpu_resource_name, resolve_gpu_count
from renderer.gocompat.quantity import unmarshal_quantity
from renderer.results import RenderError, go_quote

__all__ = ["is_gpu_resource_name", "main_container_gpu_count", "scalar_gpu_count"]


def scalar_gpu_count(resources: dict[str, Any], path: str = "resources") -> int:
    """The alphabetically first GPU-ish limit, else request; it must be a whole number.

    Mirrors: internal/dra/dra.go ExtractGPUCountFromResourceRequirements.
    """
    for section in ("limits", "requests"):
        names = sorted(n for n in (resources.get(section) or {}) if is_gpu_resource_name(n))
        if not names:
            continue
        quantity = unmarshal_quantity(resources[section][names[0]])
        whole = quantity.whole()
        if whole is None:
            raise RenderError(
                f"GPU resource {go_quote(names[0])} quantity {go_quote(str(quantity))} must be a whole number",
                f"{path}.{section}[{names[0]}]", hint=hints.whole_number(),
            )
        return whole
    return 0


def main_container_gpu_count(dcd: DCD, cluster: ClusterState = EMPTY) -> int:
    """GPUs of the user's main container as written in the DCD (before any rendering).

    The backends that need the count add the operator's ``failed to resolve container
    GPUs:`` prefix to any error raised here.
    Mirrors: internal/dynamo/graph.go ResolveContainerGPUs and internal/dra/dra.go ResolveGPUCount.
    """
    containers = dcd.pod_spec.get("containers") or []
    index = next((i for i, c in enumerate(containers) if c.get("name") == consts.MAIN_CONTAINER_NAME), None)
    if index is None:
        return 0
    path = f"spec.podTemplate.spec.containers[{index}].resources"
    resources = containers[index].get("resources") or {}
    count = scalar_gpu_count(resources, path)
    if count > 0 or not resources.get("claims"):
        return count
    return resolve_gpu_count(cluster, dcd.namespace, dcd.pod_spec, resources["claims"], f"{path}.claims")
