"""GPU count of the main container, as the backends read it.

Restates: internal/dra/dra.go isGPUResourceName, ExtractGPUCountFromResourceRequirements,
gpuCountFromQuantity and ResolveGPUCount's scalar-first rule (spec podspec.md R-262..R-264);
DRA claims stay a "not supported yet" error.
"""

from __future__ import annotations

from typing import Any

import pytest

from renderer.admission.parse import parse_dcd
from renderer.pod.gpus import is_gpu_resource_name, main_container_gpu_count, scalar_gpu_count
from renderer.results import RenderError
from tests.builders import dcd, parsed_dcd


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("nvidia.com/gpu", True), ("NVIDIA.COM/GPU", True), ("gpu", True), ("amd.com/gpu", True),
        ("nvidia.com/mig-1g.5gb", True), ("gpu.intel.com/i915", True),
        ("cpu", False), ("memory", False), ("nvidia.com/gpus", False), ("example.com/gpu-count", False),
    ],
)
def test_is_gpu_resource_name(name: str, expected: bool) -> None:
    assert is_gpu_resource_name(name) is expected


@pytest.mark.parametrize(
    ("resources", "expected"),
    [
        ({}, 0),
        ({"limits": {"cpu": "4"}}, 0),
        ({"limits": {"nvidia.com/gpu": "4"}}, 4),
        ({"limits": {"nvidia.com/gpu": 4}}, 4),
        ({"limits": {"nvidia.com/gpu": "4000m"}}, 4),
        ({"requests": {"nvidia.com/gpu": "2"}}, 2),
        # Limits win over requests; within a list the alphabetically first GPU name wins.
        ({"limits": {"nvidia.com/gpu": "1"}, "requests": {"nvidia.com/gpu": "8"}}, 1),
        ({"limits": {"nvidia.com/gpu": "1", "amd.com/gpu": "3"}}, 3),
    ],
)
def test_scalar_gpu_count(resources: dict[str, Any], expected: int) -> None:
    assert scalar_gpu_count(resources) == expected


@pytest.mark.parametrize(("quantity", "shown"), [("500m", "500m"), ("0.5", "500m"), ("1500m", "1500m")])
def test_fractional_gpu_count_is_an_error(quantity: str, shown: str) -> None:
    with pytest.raises(RenderError) as err:
        scalar_gpu_count({"limits": {"nvidia.com/gpu": quantity}}, "spec.podTemplate.spec.containers[1].resources")
    assert err.value.message == f'GPU resource "nvidia.com/gpu" quantity "{shown}" must be a whole number'
    assert err.value.field == "spec.podTemplate.spec.containers[1].resources.limits[nvidia.com/gpu]"


def test_main_container_gpu_count_reads_the_main_container() -> None:
    worker = parsed_dcd(dcd("d", None, containers=[
        {"name": "side", "image": "s", "resources": {"limits": {"nvidia.com/gpu": "7"}}},
        {"name": "main", "image": "m", "resources": {"limits": {"nvidia.com/gpu": "2"}}},
    ]))
    assert main_container_gpu_count(worker) == 2


def test_main_container_gpu_count_without_resources_is_zero() -> None:
    assert main_container_gpu_count(parsed_dcd(dcd("d", None, image="m"))) == 0


def test_main_container_gpu_count_prefers_a_scalar_over_claims() -> None:
    worker = parsed_dcd(dcd(
        "d",
        None,
        containers=[{"name": "main", "image": "m", "resources": {"limits": {"nvidia.com/gpu": "1"}, "claims": [{"name": "gpu"}]}}],
        pod={"resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "one-gpu"}]},
    ))
    assert main_container_gpu_count(worker) == 1


def test_main_container_gpu_count_from_claims_needs_the_claim_template() -> None:
    worker = parsed_dcd(dcd(
        "d",
        None,
        containers=[{"name": "sidecar", "image": "s"}, {"name": "main", "image": "m", "resources": {"claims": [{"name": "gpu"}]}}],
        pod={"resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "one-gpu"}]},
    ))
    with pytest.raises(RenderError) as err:
        main_container_gpu_count(worker)
    assert err.value.field == "spec.podTemplate.spec.containers[1].resources.claims"
    assert err.value.message == (
        'failed to get ResourceClaimTemplate default/one-gpu: resourceclaimtemplates.resource.k8s.io "one-gpu" not found'
    )


def test_main_container_gpu_count_without_a_main_container_is_zero() -> None:
    """The operator reads empty resources when there is no main container (admission normally refuses it)."""
    worker, _ = parse_dcd(dcd("d", None, containers=[{"name": "other", "image": "o"}]), "default", admission=False)
    assert worker is not None
    assert main_container_gpu_count(worker) == 0
