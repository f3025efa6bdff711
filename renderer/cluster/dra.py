"""GPU count of a container that asks for GPUs through DRA ResourceClaims.

When the main container has no scalar GPU resource but names pod resource claims, the
operator reads each claim's ResourceClaimTemplate (or ResourceClaim) and the DeviceClasses its
requests use, and adds up the devices of the requests that select GPUs. Those reads become
lookups in the cluster state here; the messages are the operator's.

Whether a DeviceClass provides GPUs: a ``device.driver == "<driver>"`` term of a CEL selector
(class and request selectors together; expressions with ``||`` are skipped) decides, if its
driver looks like a GPU driver; else the class's ``extendedResourceName``; else, only for a
class with no selectors at all, a GPU-looking class name; else the class is unclassifiable.

Mirrors: internal/dra/dra.go ResolveGPUCount, getClaimSpec, gpuCountFromClaimSpec,
gpuCountFromDeviceRequest, exactDeviceCount, looksLikeGPUIdentifier, deviceClassResolver.isGPU,
classifyDeviceRequest.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from renderer.cluster.state import DEVICE_CLASS, RESOURCE_CLAIM, RESOURCE_CLAIM_TEMPLATE, ClusterState, not_found_message
from renderer.results import RenderError, go_quote

# A positive ``device.driver == "x"`` term at the start of an expression or after ``&&``.
# Go's RE2 ``\s`` is ASCII whitespace only, hence the explicit class.
_DRIVER_EQUALITY = re.compile(r"""(?:^|&&)[\t\n\f\r ]*\(*[\t\n\f\r ]*device\.driver[\t\n\f\r ]*==[\t\n\f\r ]*["']([^"']+)["']""")

ALLOCATION_EXACT_COUNT = "ExactCount"
ALLOCATION_ALL = "All"


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


class DRAError(Exception):
    """A failure to count GPUs, with the operator's message."""


def looks_like_gpu_identifier(name: str) -> bool:
    """Mirrors: internal/dra/dra.go looksLikeGPUIdentifier."""
    normalized = name.lower()
    return (
        normalized == "gpu"
        or normalized.startswith("gpu.")
        or normalized.startswith("gpu/")
        or normalized.endswith("/gpu")
        or "/gpu." in normalized
        or "/gpu-" in normalized
    )


def classify_device_request(device_class: Mapping[str, Any], request_selectors: list[Any]) -> tuple[bool, bool]:
    """(is GPU, known) for a DeviceClass as used by one request with its own selectors.

    Mirrors: internal/dra/dra.go classifyDeviceRequest.
    """
    spec = _map(device_class.get("spec"))
    name = _map(device_class.get("metadata")).get("name", "")
    selectors = [*_list(spec.get("selectors")), *request_selectors]
    is_gpu = has_driver = False
    for selector in selectors:
        cel = _map(selector).get("cel")
        expression = _map(cel).get("expression") if isinstance(cel, Mapping) else None
        if not isinstance(expression, str) or "||" in expression:
            continue
        for match in _DRIVER_EQUALITY.finditer(expression):
            candidate = looks_like_gpu_identifier(match.group(1))
            if has_driver and candidate != is_gpu:
                raise DRAError(
                    f"DeviceClass {go_quote(str(name))} and its request selectors constrain device.driver to both GPU and "
                    "non-GPU drivers"
                )
            is_gpu = candidate
            has_driver = True
    if has_driver:
        return is_gpu, True
    extended = spec.get("extendedResourceName")
    if isinstance(extended, str):
        return is_gpu_resource_name(extended), True
    # A suggestive class name counts only when nothing (no selector at all) constrains the class.
    if not selectors and looks_like_gpu_identifier(str(name)):
        return True, True
    return False, False


def _device_class_is_gpu(cluster: ClusterState, name: str, request_selectors: list[Any]) -> bool:
    """Mirrors: internal/dra/dra.go deviceClassResolver.isGPU."""
    device_class, found = cluster.get(DEVICE_CLASS, "", name)
    if not found:
        raise DRAError(f"failed to get DeviceClass {go_quote(name)}: {not_found_message(DEVICE_CLASS, name)}")
    is_gpu, known = classify_device_request(device_class, request_selectors)
    if not known:
        raise DRAError(
            f"cannot determine whether DeviceClass {go_quote(name)} provides GPUs: set spec.extendedResourceName or "
            "constrain device.driver in a DeviceClass or request CEL selector"
        )
    return is_gpu


def exact_device_count(mode: Any, count: Any) -> int:
    """Mirrors: internal/dra/dra.go exactDeviceCount."""
    if mode in (None, "", ALLOCATION_EXACT_COUNT):
        number = _int(count)
        if number == 0:
            return 1
        if number < 0:
            raise DRAError("GPU device count must be positive")
        return number
    if mode == ALLOCATION_ALL:
        raise DRAError(f"GPU allocationMode {go_quote(str(mode))} has no deterministic per-node device count")
    raise DRAError(f"unsupported GPU allocationMode {go_quote(str(mode))}")


def _int(value: Any) -> int:
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int):
        raise DRAError(f"device count {value!r} is not an integer")
    return value


def gpu_count_from_device_request(cluster: ClusterState, request: Mapping[str, Any]) -> tuple[int, bool]:
    """(count, selects GPUs) of one device request.

    Mirrors: internal/dra/dra.go gpuCountFromDeviceRequest.
    """
    name = str(request.get("name", ""))
    exactly = request.get("exactly")
    if isinstance(exactly, Mapping):
        if not _device_class_is_gpu(cluster, str(exactly.get("deviceClassName", "")), _list(exactly.get("selectors"))):
            return 0, False
        return exact_device_count(exactly.get("allocationMode"), exactly.get("count")), True
    alternatives = _list(request.get("firstAvailable"))
    if not alternatives:
        raise DRAError(f"device request {go_quote(name)} must set exactly or firstAvailable")
    count = 0
    has_gpu = has_non_gpu = False
    for alternative in alternatives:
        alternative = _map(alternative)
        if not _device_class_is_gpu(cluster, str(alternative.get("deviceClassName", "")), _list(alternative.get("selectors"))):
            has_non_gpu = True
            continue
        candidate = exact_device_count(alternative.get("allocationMode"), alternative.get("count"))
        if has_gpu and candidate != count:
            raise DRAError(f"GPU device request {go_quote(name)} has firstAvailable alternatives with different counts")
        count = candidate
        has_gpu = True
    if has_gpu and has_non_gpu:
        raise DRAError(f"device request {go_quote(name)} mixes GPU and non-GPU firstAvailable alternatives")
    return count, has_gpu


def gpu_count_from_claim_spec(cluster: ClusterState, claim_spec: Mapping[str, Any], request_name: str) -> int:
    """GPUs of every request of a claim (or only the named one).

    Mirrors: internal/dra/dra.go gpuCountFromClaimSpec.
    """
    total = 0
    found_request = request_name == ""
    for request in _list(_map(claim_spec.get("devices")).get("requests")):
        request = _map(request)
        if request_name and request.get("name") != request_name:
            continue
        found_request = True
        count, is_gpu = gpu_count_from_device_request(cluster, request)
        if is_gpu:
            total += count
    if not found_request:
        raise DRAError(f"device request {go_quote(request_name)} was not found")
    return total


def _v1_requests(obj: Mapping[str, Any], claim_spec: Mapping[str, Any]) -> dict[str, Any]:
    """A claim spec in the ``resource.k8s.io/v1`` shape the operator reads.

    In ``v1beta1`` a request carries the exact-request fields itself; the API server converts
    them to ``exactly`` when the operator reads through the v1 API.
    """
    if obj.get("apiVersion") != "resource.k8s.io/v1beta1":
        return dict(claim_spec)
    devices = _map(claim_spec.get("devices"))
    requests: list[Any] = []
    for request in _list(devices.get("requests")):
        request = _map(request)
        if request.get("firstAvailable") or "exactly" in request:
            requests.append(request)
            continue
        exact_keys = ("deviceClassName", "selectors", "allocationMode", "count", "adminAccess", "tolerations")
        exactly = {k: request[k] for k in exact_keys if k in request}
        requests.append({"name": request.get("name", ""), "exactly": exactly})
    return {**claim_spec, "devices": {**devices, "requests": requests}}


def _claim_spec(cluster: ClusterState, namespace: str, pod_claim: Mapping[str, Any]) -> dict[str, Any]:
    """Mirrors: internal/dra/dra.go getClaimSpec."""
    template = pod_claim.get("resourceClaimTemplateName")
    claim = pod_claim.get("resourceClaimName")
    if isinstance(template, str) and template:
        obj, found = cluster.get(RESOURCE_CLAIM_TEMPLATE, namespace, template)
        if not found:
            raise DRAError(
                f"failed to get ResourceClaimTemplate {namespace}/{template}: "
                f"{not_found_message(RESOURCE_CLAIM_TEMPLATE, template)}"
            )
        return _v1_requests(obj, _map(_map(obj.get("spec")).get("spec")))
    if isinstance(claim, str) and claim:
        obj, found = cluster.get(RESOURCE_CLAIM, namespace, claim)
        if not found:
            raise DRAError(f"failed to get ResourceClaim {namespace}/{claim}: {not_found_message(RESOURCE_CLAIM, claim)}")
        return _v1_requests(obj, _map(obj.get("spec")))
    raise DRAError(
        f"pod resourceClaim {go_quote(str(pod_claim.get('name', '')))} does not reference a ResourceClaim or "
        "ResourceClaimTemplate"
    )


def resolve_gpu_count(
    cluster: ClusterState, namespace: str, pod_spec: Mapping[str, Any], claims: list[Any], field: str
) -> int:
    """GPUs requested through a container's ``resources.claims`` (the scalar path is the caller's).

    ``field`` is the claims' path for errors.
    Mirrors: internal/dra/dra.go ResolveGPUCount (claims part).
    """
    pod_claims = {str(_map(c).get("name", "")): _map(c) for c in _list(pod_spec.get("resourceClaims"))}
    total = 0
    seen: set[tuple[str, str]] = set()
    try:
        for container_claim in claims:
            container_claim = _map(container_claim)
            name = str(container_claim.get("name", ""))
            request = str(container_claim.get("request", "") or "")
            if (name, request) in seen:
                continue
            seen.add((name, request))
            pod_claim = pod_claims.get(name)
            if pod_claim is None:
                raise DRAError(f"container ResourceClaim {go_quote(name)} has no matching pod resourceClaim")
            spec = _claim_spec(cluster, namespace, pod_claim)
            try:
                total += gpu_count_from_claim_spec(cluster, spec, request)
            except DRAError as err:
                raise DRAError(f"cannot determine GPU count for ResourceClaim {go_quote(name)}: {err}") from None
    except DRAError as err:
        raise RenderError(str(err), field) from None
    return total


def _map(value: Any) -> dict[str, Any]:
    return dict(value) if isinstance(value, Mapping) else {}


def _list(value: Any) -> list[Any]:
    return list(value) if isinstance(value, list) else []
