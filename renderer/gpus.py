"""GPU count of the main container, for the backends that size launch commands by it.

Only scalar extended resources are counted here. A container that asks for GPUs through DRA
ResourceClaims needs the claim templates and device classes of the cluster, which this
renderer does not read yet, so that case is a clear "not supported yet" error.

Mirrors: internal/dynamo/graph.go ResolveContainerGPUs, internal/dra/dra.go ResolveGPUCount,
ExtractGPUCountFromResourceRequirements, gpuResourceNames, gpuCountFromQuantity, isGPUResourceName.
"""

from __future__ import annotations

from typing import Any

from renderer.api import DCD
from renderer.quantity import unmarshal_quantity
from renderer.results import RenderError, unsupported


def is_gpu_resource_name(name: str) -> bool:
    """Mirrors: internal/dra/dra.go isGPUResourceName."""
    normalized = name.lower()
    return (
        normalized == "nvidia.com/gpu"
        or normalized == "gpu"
        or normalized.endswith("/gpu")
        or "/mig-" in normalized
        or normalized.startswith("gpu.")
    )


def scalar_gpu_count(resources: dict[str, Any]) -> int:
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
                f'failed to resolve container GPUs: GPU resource "{names[0]}" quantity "{quantity}" must be a whole number',
                f"spec.podTemplate.spec.containers[main].resources.{section}",
            )
        return whole
    return 0


def main_container_gpu_count(dcd: DCD) -> int:
    """Mirrors: internal/dynamo/graph.go ResolveContainerGPUs (scalar path of dra.ResolveGPUCount)."""
    main = dcd.main_container() or {}
    resources = main.get("resources") or {}
    count = scalar_gpu_count(resources)
    if count > 0 or not resources.get("claims"):
        return count
    raise unsupported(
        "spec.podTemplate.spec.containers[main].resources.claims",
        "GPU count from DRA ResourceClaims; give the main container a scalar nvidia.com/gpu limit",
    )
