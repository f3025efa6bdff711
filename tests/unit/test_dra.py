"""GPU counts from DRA claims: internal/dra/dra_test.go restated against a cluster state."""

from __future__ import annotations

from typing import Any

import pytest

from renderer.cluster.state import StateLayer, build_cluster_state
from renderer.cluster.dra import classify_device_request, exact_device_count, looks_like_gpu_identifier, resolve_gpu_count
from renderer.pod.gpus import main_container_gpu_count
from renderer.results import RenderError
from tests.builders import dcd, parsed_dcd


def driver_selectors(driver: str) -> list[dict[str, Any]]:
    return [{"cel": {"expression": f"device.driver == '{driver}'"}}]


def exact_request(name: str, device_class: str, count: int, mode: str = "") -> dict[str, Any]:
    exactly: dict[str, Any] = {"deviceClassName": device_class, "count": count}
    if mode:
        exactly["allocationMode"] = mode
    return {"name": name, "exactly": exactly}


def exact_request_with_driver(name: str, device_class: str, driver: str, count: int) -> dict[str, Any]:
    request = exact_request(name, device_class, count, "ExactCount")
    request["exactly"]["selectors"] = driver_selectors(driver)
    return request


def claim_template(name: str, *requests: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaimTemplate",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"spec": {"devices": {"requests": list(requests)}}},
    }


def claim(name: str, *requests: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"devices": {"requests": list(requests)}},
    }


def device_class(name: str, driver: str | None = None, **spec: Any) -> dict[str, Any]:
    obj: dict[str, Any] = {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": name}}
    if driver is not None:
        spec["selectors"] = driver_selectors(driver)
    if spec:
        obj["spec"] = spec
    return obj


def template_pod_claim(claim_name: str, template_name: str) -> dict[str, Any]:
    return {"name": claim_name, "resourceClaimTemplateName": template_name}


DEVICE_CLASSES = [
    device_class("gpu.nvidia.com", "gpu.nvidia.com"),
    device_class("gpu.intel.com", "gpu.intel.com"),
    device_class("rdma-dranet", "dra.net.example.com"),
]

# (name, extra objects, pod claim, container claim request, expected count or error substring)
CASES: list[tuple[str, list[dict[str, Any]], dict[str, Any], str, int | str]] = [
    (
        "ResourceClaimTemplate exact NVIDIA GPU count",
        [claim_template("gpu-template", exact_request("gpus", "gpu.nvidia.com", 4, "ExactCount"))],
        template_pod_claim("accelerators", "gpu-template"),
        "",
        4,
    ),
    (
        "ResourceClaim request selector excludes non-GPU devices",
        [claim("devices", exact_request("gpus", "gpu.intel.com", 2), exact_request("network", "rdma-dranet", 1))],
        {"name": "accelerators", "resourceClaimName": "devices"},
        "gpus",
        2,
    ),
    (
        "default exact count is one",
        [claim_template("gpu-template", exact_request("gpus", "gpu.nvidia.com", 0))],
        template_pod_claim("accelerators", "gpu-template"),
        "",
        1,
    ),
    (
        "custom DeviceClass name uses its GPU driver selector",
        [
            device_class("shared-h100.example.com", "gpu.nvidia.com"),
            claim_template("gpu-template", exact_request("gpus", "shared-h100.example.com", 8, "ExactCount")),
        ],
        template_pod_claim("accelerators", "gpu-template"),
        "",
        8,
    ),
    (
        "custom DeviceClass name uses its extended GPU resource",
        [
            device_class("shared-gpus.example.com", extendedResourceName="nvidia.com/gpu"),
            claim_template("gpu-template", exact_request("gpus", "shared-gpus.example.com", 4, "ExactCount")),
        ],
        template_pod_claim("accelerators", "gpu-template"),
        "",
        4,
    ),
    (
        "request selector overrides a GPU-like empty DeviceClass",
        [
            device_class("gpu.example.com"),
            claim_template("network-template", exact_request_with_driver("network", "gpu.example.com", "dra.net.example.com", 1)),
        ],
        template_pod_claim("network", "network-template"),
        "",
        0,
    ),
    (
        "request selector classifies an otherwise unknown DeviceClass as GPU",
        [
            device_class("accelerators.example.com"),
            claim_template("gpu-template", exact_request_with_driver("gpus", "accelerators.example.com", "gpu.nvidia.com", 2)),
        ],
        template_pod_claim("accelerators", "gpu-template"),
        "",
        2,
    ),
    (
        "same DeviceClass is classified independently for each request",
        [
            device_class("devices.example.com"),
            claim_template(
                "devices-template",
                exact_request_with_driver("gpus", "devices.example.com", "gpu.nvidia.com", 2),
                exact_request_with_driver("network", "devices.example.com", "dra.net.example.com", 1),
            ),
        ],
        template_pod_claim("devices", "devices-template"),
        "",
        2,
    ),
    (
        "conflicting class and request driver selectors are rejected",
        [
            device_class("shared-gpus.example.com", "gpu.nvidia.com"),
            claim_template(
                "conflicting-template",
                exact_request_with_driver("devices", "shared-gpus.example.com", "dra.net.example.com", 1),
            ),
        ],
        template_pod_claim("devices", "conflicting-template"),
        "",
        "constrain device.driver to both GPU and non-GPU drivers",
    ),
    (
        "non-GPU claim is ignored",
        [claim_template("network-template", exact_request("network", "rdma-dranet", 1))],
        template_pod_claim("network", "network-template"),
        "",
        0,
    ),
    (
        "allocation mode All is rejected",
        [claim_template("gpu-template", exact_request("gpus", "gpu.nvidia.com", 0, "All"))],
        template_pod_claim("accelerators", "gpu-template"),
        "",
        "has no deterministic per-node device count",
    ),
    (
        "mixed firstAvailable alternatives are rejected",
        [
            claim_template(
                "mixed-template",
                {
                    "name": "devices",
                    "firstAvailable": [
                        {"name": "gpu", "deviceClassName": "gpu.nvidia.com", "count": 1},
                        {"name": "network", "deviceClassName": "rdma-dranet", "count": 1},
                    ],
                },
            )
        ],
        template_pod_claim("devices", "mixed-template"),
        "",
        "mixes GPU and non-GPU",
    ),
    (
        "equal-count GPU firstAvailable alternatives are supported",
        [
            device_class("nvidia.example.com"),
            device_class("intel.example.com"),
            claim_template(
                "gpu-template",
                {
                    "name": "gpus",
                    "firstAvailable": [
                        {
                            "name": "nvidia",
                            "deviceClassName": "nvidia.example.com",
                            "selectors": driver_selectors("gpu.nvidia.com"),
                            "count": 2,
                        },
                        {
                            "name": "intel",
                            "deviceClassName": "intel.example.com",
                            "selectors": driver_selectors("gpu.intel.com"),
                            "count": 2,
                        },
                    ],
                },
            ),
        ],
        template_pod_claim("accelerators", "gpu-template"),
        "",
        2,
    ),
    (
        "unclassifiable DeviceClass is actionable",
        [
            device_class("accelerators.example.com"),
            claim_template("accelerator-template", exact_request("accelerators", "accelerators.example.com", 1)),
        ],
        template_pod_claim("accelerators", "accelerator-template"),
        "",
        'cannot determine whether DeviceClass "accelerators.example.com" provides GPUs',
    ),
    (
        "unsupported selector does not fall back to GPU-like class name",
        [
            device_class("gpu.example.com", selectors=[{"cel": {"expression": 'device.driver != "cpu.example.com"'}}]),
            claim_template("gpu-template", exact_request("gpus", "gpu.example.com", 1)),
        ],
        template_pod_claim("accelerators", "gpu-template"),
        "",
        'cannot determine whether DeviceClass "gpu.example.com" provides GPUs',
    ),
    (
        "missing DeviceClass is actionable",
        [claim_template("missing-class-template", exact_request("accelerators", "missing.example.com", 1))],
        template_pod_claim("accelerators", "missing-class-template"),
        "",
        'failed to get DeviceClass "missing.example.com"',
    ),
    (
        "request without a supported shape is rejected",
        [claim_template("invalid-template", {"name": "devices"})],
        template_pod_claim("devices", "invalid-template"),
        "",
        "must set exactly or firstAvailable",
    ),
    (
        "missing ResourceClaimTemplate is actionable",
        [],
        template_pod_claim("accelerators", "missing"),
        "",
        "failed to get ResourceClaimTemplate default/missing",
    ),
]


@pytest.mark.parametrize(("objects", "pod_claim", "request_name", "want"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_resolve_gpu_count_from_resource_claims(
    objects: list[dict[str, Any]], pod_claim: dict[str, Any], request_name: str, want: int | str
) -> None:
    cluster, problems = build_cluster_state([StateLayer("test", tuple(DEVICE_CLASSES + objects))], "default")
    assert problems == []
    pod_spec = {"resourceClaims": [pod_claim]}
    claims = [{"name": pod_claim["name"], **({"request": request_name} if request_name else {})}]
    if isinstance(want, str):
        with pytest.raises(RenderError) as err:
            resolve_gpu_count(cluster, "default", pod_spec, claims, "claims")
        assert want in err.value.message
        assert err.value.field == "claims"
    else:
        assert resolve_gpu_count(cluster, "default", pod_spec, claims, "claims") == want


def test_resolve_gpu_count_prefers_scalar_resources() -> None:
    """dra_test.go TestResolveGPUCountPrefersScalarResources: no cluster read for a scalar count."""
    worker = parsed_dcd(dcd(
        "d",
        None,
        containers=[{"name": "main", "image": "m", "resources": {"limits": {"nvidia.com/gpu": "8"}, "claims": [{"name": "missing"}]}}],
        pod={"resourceClaims": [{"name": "missing", "resourceClaimTemplateName": "nowhere"}]},
    ))
    assert main_container_gpu_count(worker) == 8


def test_each_claim_and_request_is_counted_once() -> None:
    """ResolveGPUCount skips a repeated (claim, request) pair; distinct claims add up."""
    objects = DEVICE_CLASSES + [
        claim_template("four", exact_request("gpus", "gpu.nvidia.com", 4)),
        claim_template("two", exact_request("gpus", "gpu.nvidia.com", 2)),
    ]
    cluster, _ = build_cluster_state([StateLayer("test", tuple(objects))], "default")
    pod_spec = {"resourceClaims": [template_pod_claim("a", "four"), template_pod_claim("b", "two")]}
    claims = [{"name": "a"}, {"name": "a"}, {"name": "b"}]
    assert resolve_gpu_count(cluster, "default", pod_spec, claims, "claims") == 6


def test_v1beta1_claim_templates_are_read_in_the_v1_shape() -> None:
    """The API server serves a v1beta1 request's flattened fields as ``exactly`` to the v1 reader."""
    template = {
        "apiVersion": "resource.k8s.io/v1beta1",
        "kind": "ResourceClaimTemplate",
        "metadata": {"name": "old", "namespace": "default"},
        "spec": {"spec": {"devices": {"requests": [{"name": "gpus", "deviceClassName": "gpu.nvidia.com", "count": 3}]}}},
    }
    cluster, _ = build_cluster_state([StateLayer("test", (*DEVICE_CLASSES, template))], "default")
    pod_spec = {"resourceClaims": [template_pod_claim("gpu", "old")]}
    assert resolve_gpu_count(cluster, "default", pod_spec, [{"name": "gpu"}], "claims") == 3


def test_main_container_claims_are_counted_from_the_cluster_state() -> None:
    worker = parsed_dcd(dcd(
        "d",
        None,
        containers=[{"name": "main", "image": "m", "resources": {"claims": [{"name": "gpu"}]}}],
        pod={"resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "one-gpu"}]},
    ))
    cluster, _ = build_cluster_state(
        [StateLayer("test", (claim_template("one-gpu", exact_request("gpu", "gpu.nvidia.com", 1)), device_class("gpu.nvidia.com")))],
        "default",
    )
    assert main_container_gpu_count(worker, cluster) == 1


@pytest.mark.parametrize(
    ("name", "want"),
    [
        ("gpu", True),
        ("GPU.nvidia.com", True),
        ("gpu/a100", True),
        ("example.com/gpu", True),
        ("example.com/gpu.h100", True),
        ("example.com/gpu-h100", True),
        ("dra.net.example.com", False),
        ("nvidia.com/mig-1g.5gb", False),
        ("gpus.example.com", False),
    ],
)
def test_looks_like_gpu_identifier(name: str, want: bool) -> None:
    assert looks_like_gpu_identifier(name) is want


@pytest.mark.parametrize(
    ("expression", "known", "is_gpu"),
    [
        ("device.driver == 'gpu.nvidia.com'", True, True),
        ('  ((device.driver == "gpu.nvidia.com"', True, True),
        ("device.attributes['x'].y == 1 && device.driver == 'gpu.nvidia.com'", True, True),
        ("device.driver == 'gpu.nvidia.com' || device.driver == 'dra.net.example.com'", False, False),
        ("device.driver != 'cpu.example.com'", False, False),
        ("device.attributes['driver'] == 'gpu.nvidia.com'", False, False),
    ],
)
def test_driver_equality_terms(expression: str, known: bool, is_gpu: bool) -> None:
    """Positive equality terms at the start or after ``&&`` decide; disjunctions are skipped."""
    selectors = [{"cel": {"expression": expression}}]
    assert classify_device_request({"metadata": {"name": "x.example.com"}, "spec": {"selectors": selectors}}, []) == (is_gpu, known)


@pytest.mark.parametrize(
    ("mode", "count", "want"),
    [
        ("", 0, 1),
        ("ExactCount", 3, 3),
        (None, None, 1),
        ("ExactCount", -1, "GPU device count must be positive"),
        ("All", 0, 'GPU allocationMode "All" has no deterministic per-node device count'),
        ("Some", 1, 'unsupported GPU allocationMode "Some"'),
    ],
)
def test_exact_device_count(mode: str | None, count: int | None, want: int | str) -> None:
    from renderer.cluster.dra import DRAError

    if isinstance(want, str):
        with pytest.raises(DRAError, match=want):
            exact_device_count(mode, count)
    else:
        assert exact_device_count(mode, count) == want


def test_missing_resource_claim_and_bad_counts_are_reported() -> None:
    cluster, _ = build_cluster_state([StateLayer("test", tuple(DEVICE_CLASSES))], "default")
    with pytest.raises(RenderError, match='failed to get ResourceClaim default/gone: resourceclaims.resource.k8s.io "gone" not found'):
        resolve_gpu_count(cluster, "default", {"resourceClaims": [{"name": "c", "resourceClaimName": "gone"}]}, [{"name": "c"}], "f")
    odd = claim_template("odd", exact_request("gpus", "gpu.nvidia.com", 0))
    odd["spec"]["spec"]["devices"]["requests"][0]["exactly"]["count"] = "two"
    cluster, _ = build_cluster_state([StateLayer("test", (*DEVICE_CLASSES, odd))], "default")
    with pytest.raises(RenderError, match="device count 'two' is not an integer"):
        resolve_gpu_count(cluster, "default", {"resourceClaims": [template_pod_claim("c", "odd")]}, [{"name": "c"}], "f")


def test_v1beta1_first_available_requests_keep_their_shape() -> None:
    template = {
        "apiVersion": "resource.k8s.io/v1beta1",
        "kind": "ResourceClaimTemplate",
        "metadata": {"name": "old", "namespace": "default"},
        "spec": {"spec": {"devices": {"requests": [{"name": "gpus", "firstAvailable": [{"name": "a", "deviceClassName": "gpu.nvidia.com", "count": 2}]}]}}},
    }
    cluster, _ = build_cluster_state([StateLayer("test", (*DEVICE_CLASSES, template))], "default")
    assert resolve_gpu_count(cluster, "default", {"resourceClaims": [template_pod_claim("gpu", "old")]}, [{"name": "gpu"}], "f") == 2
