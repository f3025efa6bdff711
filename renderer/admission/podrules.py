"""Pod template rules the API server applies to the workloads the operator creates.

A DCD's ``spec.podTemplate`` passes the CRD's schema with names and ports the API server later
refuses on the Deployment or LeaderWorkerSet the operator builds from it: the CRD types them as
plain strings and integers. The operator copies the user's containers, volumes, ports, template
labels and node selector into the workload unchanged, so a value refused there is refused here,
on the source field, instead of rendering an object that cannot be applied. Names the operator
adds itself are valid by construction; a volume mount may name a volume the operator adds, so
mounts are not checked against the template's own volumes.

Mirrors: k8s.io/kubernetes pkg/apis/core/validation/validation.go ValidatePodTemplateSpec
(ValidateVolumes: volume names; validateContainers / validateInitContainers: container names,
unique across all container lists; validateContainerPorts: port numbers, IANA port names,
protocols; ValidatePodSpec: nodeSelector as labels; metadata labels and annotations),
k8s.io/apimachinery/pkg/apis/meta/v1/validation ValidateLabelSelector (matchLabels).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from renderer import hints
from renderer.admission import objectmeta
from renderer.results import Code, Result

CONTAINER_LISTS = ("initContainers", "containers", "ephemeralContainers")
PROTOCOLS = ("TCP", "UDP", "SCTP")
_PORT_NAME = re.compile(r"[a-z0-9]([a-z0-9-]*[a-z0-9])?")


def port_name_problem(name: str) -> str | None:
    """Mirrors: validation.go IsValidPortName (an IANA_SVC_NAME)."""
    if not 1 <= len(name) <= 15:
        return "must be 1 to 15 characters"
    if not _PORT_NAME.fullmatch(name) or "--" in name:
        return 'must contain only lowercase alphanumerics and "-", start and end with an alphanumeric, and not contain "--"'
    if not any("a" <= ch <= "z" for ch in name):
        return "must contain at least one letter"
    return None


def _port_number(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= 65535


def validate(pod_template: Any, prefix: str) -> list[Result]:
    """Every problem the API server would find in this pod template's user-given values."""
    if not isinstance(pod_template, dict):
        return []
    results: list[Result] = []
    metadata = pod_template.get("metadata")
    if isinstance(metadata, dict):
        if isinstance(metadata.get("labels"), dict):
            results += objectmeta.validate_labels(_strings(metadata["labels"]), f"{prefix}.metadata.labels")
        if isinstance(metadata.get("annotations"), dict):
            results += objectmeta.validate_annotations(_strings(metadata["annotations"]), f"{prefix}.metadata.annotations")
    spec = pod_template.get("spec")
    if isinstance(spec, dict):
        results += _pod_spec(spec, f"{prefix}.spec")
    return results


def _strings(mapping: dict[Any, Any]) -> dict[str, str]:
    return {str(k): v for k, v in mapping.items() if isinstance(v, str)}


def _pod_spec(spec: dict[str, Any], prefix: str) -> list[Result]:
    results: list[Result] = []
    for index, volume in _items(spec.get("volumes")):
        name = volume.get("name")
        if isinstance(name, str):
            problem = objectmeta.dns1123_label_problem(name)
            if problem:
                results.append(_error("volume", name, problem, f"{prefix}.volumes[{index}].name"))
    seen: dict[str, str] = {}
    for field in CONTAINER_LISTS:
        for index, container in _items(spec.get(field)):
            where = f"{prefix}.{field}[{index}]"
            name = container.get("name")
            if isinstance(name, str):
                problem = objectmeta.dns1123_label_problem(name)
                if problem:
                    results.append(_error("container", name, problem, f"{where}.name"))
                elif name in seen and not seen[name].startswith(f"{prefix}.{field}["):
                    # the CRD keys each list by name; the API server also refuses a name used in two lists
                    results.append(Result(f"duplicate container name {objectmeta.show(name)} (also {seen[name]})", field=f"{where}.name", code=Code.API_SERVER))
                seen.setdefault(name, where)
            results += _ports(container.get("ports"), f"{where}.ports")
            results += _env_names(container.get("env"), f"{where}.env")
            results += _resources(container.get("resources"), f"{where}.resources")
            # a mount names a volume (declared, or one the operator adds under that name)
            for position, mount in _items(container.get("volumeMounts")):
                mount_name = mount.get("name")
                if isinstance(mount_name, str) and mount_name:
                    problem = objectmeta.dns1123_label_problem(mount_name)
                    if problem:
                        results.append(_error("volume", mount_name, problem, f"{where}.volumeMounts[{position}].name"))
    if isinstance(spec.get("nodeSelector"), dict):
        results += objectmeta.validate_labels(_strings(spec["nodeSelector"]), f"{prefix}.nodeSelector")
    for selector, where in match_labels(spec, prefix):
        results += objectmeta.validate_labels(_strings(selector), where)
    return results


def env_name_problem(name: str) -> str | None:
    """Why the API server refuses an environment variable name, or None.

    Any printable ASCII character but ``=`` is allowed (relaxed environment variable names,
    on by default since Kubernetes 1.32); the name may not be empty.
    Mirrors: k8s.io/kubernetes pkg/apis/core/validation validation.go validateEnvVarName
    (RelaxedEnvironmentVariableValidation).
    """
    if not name:
        return "Required value"
    if any(not " " <= ch <= "~" or ch == "=" for ch in name):
        return "a valid environment variable name must consist only of printable ASCII characters other than '='"
    return None


def _env_names(env: Any, prefix: str) -> list[Result]:
    results: list[Result] = []
    for index, item in _items(env):
        name = item.get("name")
        if isinstance(name, str):
            problem = env_name_problem(name)
            if problem:
                results.append(Result(f"invalid environment variable name {objectmeta.show(name)}: {problem}", field=f"{prefix}[{index}].name", code=Code.API_SERVER))
    return results


def whole_extended_resources(pod_template: Any, prefix: str) -> list[Result]:
    """Extended resources (``nvidia.com/gpu``) of an object the API server creates are whole numbers.

    Only rendered objects are checked: the API server accepts any quantity in a DCD (its CRD
    schema does), and for a multinode component the operator's own GPU count fails first.

    Mirrors: k8s.io/kubernetes pkg/apis/core/validation validation.go ValidateResourceQuantityValue
    (isNotIntegerErrorMsg), pkg/apis/core/helper helpers.go IsExtendedResourceName, IsNativeResource.
    """
    from renderer.gocompat.quantity import unmarshal_quantity

    spec = pod_template.get("spec") if isinstance(pod_template, dict) else None
    if not isinstance(spec, dict):
        return []
    results: list[Result] = []
    for field in CONTAINER_LISTS:
        for index, container in _items(spec.get(field)):
            resources = container.get("resources")
            for group in ("limits", "requests"):
                values = resources.get(group) if isinstance(resources, dict) else None
                for name, raw in values.items() if isinstance(values, dict) else ():
                    extended = isinstance(name, str) and "/" in name and "kubernetes.io/" not in name and not name.startswith("requests.")
                    try:
                        quantity = unmarshal_quantity(raw) if extended else None
                    except ValueError:
                        continue
                    if quantity is not None and quantity.milli_value() % 1000 != 0:
                        results.append(Result(
                            f"invalid quantity {objectmeta.show(str(quantity))}: must be an integer",
                            field=f"{prefix}.spec.{field}[{index}].resources.{group}.{name}", code=Code.API_SERVER,
                            hint=hints.whole_number(),
                        ))
    return results


def _resources(resources: Any, prefix: str) -> list[Result]:
    """Requests and limits are never negative.

    Mirrors: k8s.io/kubernetes pkg/apis/core/validation validation.go ValidateResourceRequirements,
    ValidateResourceQuantityValue, ValidateNonnegativeQuantity.
    """
    from renderer.gocompat.quantity import unmarshal_quantity

    results: list[Result] = []
    if not isinstance(resources, dict):
        return results
    for group in ("limits", "requests"):
        values = resources.get(group)
        if not isinstance(values, dict):
            continue
        for name, raw in values.items():
            where = f"{prefix}.{group}.{name}"
            try:
                quantity = unmarshal_quantity(raw)
            except ValueError:
                continue  # the pod template schema reports the format
            if quantity.sign() < 0:
                results.append(Result(f"invalid quantity {objectmeta.show(str(quantity))}: must be greater than or equal to 0", field=where, code=Code.API_SERVER))
    return results


def _ports(ports: Any, prefix: str) -> list[Result]:
    results: list[Result] = []
    names: set[str] = set()
    for index, port in _items(ports):
        where = f"{prefix}[{index}]"
        number = port.get("containerPort")
        if isinstance(number, int) and not _port_number(number):
            results.append(Result(f"must be between 1 and 65535, inclusive (got {number})", field=f"{where}.containerPort", code=Code.API_SERVER))
        host = port.get("hostPort")
        if isinstance(host, int) and host != 0 and not _port_number(host):
            results.append(Result(f"must be between 1 and 65535, inclusive (got {host})", field=f"{where}.hostPort", code=Code.API_SERVER))
        protocol = port.get("protocol")
        if isinstance(protocol, str) and protocol not in PROTOCOLS:
            results.append(
                Result(
                    f"unsupported protocol {objectmeta.show(protocol)} (supported: {', '.join(PROTOCOLS)})", field=f"{where}.protocol",
                    code=Code.API_SERVER,
                )
            )
        name = port.get("name")
        if isinstance(name, str) and name:
            problem = port_name_problem(name)
            if problem:
                results.append(_error("port", name, problem, f"{where}.name"))
            elif name in names:
                results.append(Result(f"duplicate port name {objectmeta.show(name)}", field=f"{where}.name", code=Code.API_SERVER))
            names.add(name)
    return results


def match_labels(node: Any, path: str) -> Iterator[tuple[dict[str, Any], str]]:
    """Every label selector's ``matchLabels`` under a pod spec (affinity, spread constraints)."""
    if isinstance(node, dict):
        for key, value in node.items():
            where = f"{path}.{key}"
            if key == "matchLabels" and isinstance(value, dict):
                yield value, where
            else:
                yield from match_labels(value, where)
    elif isinstance(node, list):
        for index, item in enumerate(node):
            yield from match_labels(item, f"{path}[{index}]")


def _items(value: Any) -> Iterator[tuple[int, dict[str, Any]]]:
    if isinstance(value, list):
        for index, item in enumerate(value):
            if isinstance(item, dict):
                yield index, item


def _error(what: str, name: str, problem: str, field: str) -> Result:
    return Result(f"invalid {what} name {objectmeta.show(name)}: {problem}", field=field, code=Code.API_SERVER)
