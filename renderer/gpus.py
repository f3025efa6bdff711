"""GPU count of the main container, for the backends that size launch commands by it.

Only scalar extended resources are counted here. A container that asks for GPUs through DRA
ResourceClaims needs the claim templates and device classes of the cluster, which this
renderer does not read yet, so that case is a clear "not supported yet" error.

Mirrors: internal/dynamo/graph.go ResolveContainerGPUs, internal/dra/dra.go ResolveGPUCount,
ExtractGPUCountFromResourceRequirements, gpuResourceNames, gpuCountFromQuantity, isGPUResourceName.
"""

from __future__ import annotations

from typing import Any

from renderer import consts
from renderer.api import DCD
from renderer.quantity import unmarshal_quantity
from renderer.results import RenderError, go_quote, unsupported


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
                f"{path}.{section}[{names[0]}]",
            )
        return whole
    return 0


def main_container_gpu_count(dcd: DCD) -> int:
    """GPUs of the user's main container as written in the DCD (before any rendering).

    The backends that need the count add the operator's ``failed to resolve container
    GPUs:`` prefix to any error raised here.
    Mirrors: internal/dynamo/graph.go ResolveContainerGPUs (scalar path of dra.ResolveGPUCount).
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
    raise unsupported(
        f"{path}.claims",
        "GPU count from DRA ResourceClaims; give the main container a scalar nvidia.com/gpu limit",
    )
