"""Field paths of a converted object mapped back to the v1alpha1 fields the user wrote.

The operator validates a v1alpha1 object's v1beta1 form and so reports v1beta1 paths
(``spec.components[0].podTemplate.spec.containers[0].image``). A user who wrote v1alpha1 needs
the field in their file, so every result about the converted object is mapped back where the
conversion says where the field came from:

- ``spec.components[i]`` is ``spec.services[<name>]``; ``spec.env`` is ``spec.envs``;
- ``name`` is ``serviceName``, ``type`` is ``componentType``, ``sharedMemorySize`` is
  ``sharedMemory.size``, ``compilationCache`` is ``volumeMounts``, and ``experimental.X`` is
  ``X`` (``gpuMemoryService``, ``failover``, ``checkpoint``);
- in the pod template, ``metadata`` is ``extraPodMetadata``; the ``main`` container is
  ``extraPodSpec.mainContainer``, the frontend sidecar container is ``frontendSidecar``, any
  other container is found by name in ``extraPodSpec.containers``; the rest of ``spec`` is
  ``extraPodSpec``.

Not mapped exactly: entries the conversion merges into one list (``envs`` with the main
container's ``env``, ``resources`` with its ``resources``) keep the index of the merged list
under ``extraPodSpec.mainContainer``.

Mirrors: api/v1alpha1/shared_spec_conversion.go ConvertFromDynamoComponentDeploymentSharedSpec
(buildPodTemplateToHub, convertExperimentalToHub) and dynamographdeployment_conversion.go
ConvertFromDynamoGraphDeploymentSpec (the services map becomes the components list).
"""

from __future__ import annotations

import re
from typing import Any

from renderer import consts

_RENAMED = (
    ("name", "serviceName"),
    ("type", "componentType"),
    ("sharedMemorySize", "sharedMemory.size"),
    ("compilationCache", "volumeMounts"),
    ("experimental.gpuMemoryService", "gpuMemoryService"),
    ("experimental.failover", "failover"),
    ("experimental.checkpoint", "checkpoint"),
)
_CONTAINER = re.compile(r"^podTemplate\.spec\.containers\[(\d+)\](.*)$")
_COMPONENT = re.compile(r"^spec\.components\[(\d+)\](.*)$")


def _component_tail(tail: str, converted: dict[str, Any], alpha: dict[str, Any]) -> str:
    """Map a path under one converted component (no leading dot) to its v1alpha1 form."""
    if not tail:
        return tail
    match = _CONTAINER.match(tail)
    if match:
        containers = ((converted.get("podTemplate") or {}).get("spec") or {}).get("containers") or []
        index, rest = int(match.group(1)), match.group(2)
        name = containers[index].get("name") if index < len(containers) else None
        if name == consts.MAIN_CONTAINER_NAME:
            return f"extraPodSpec.mainContainer{rest}"
        if alpha.get("frontendSidecar") is not None and name == converted.get("frontendSidecar"):
            return f"frontendSidecar{rest}"
        written = (alpha.get("extraPodSpec") or {}).get("containers") or []
        for i, container in enumerate(written):
            if container.get("name") == name:
                return f"extraPodSpec.containers[{i}]{rest}"
        return f"extraPodSpec.containers{rest}"
    for prefix, target in (("podTemplate.metadata", "extraPodMetadata"), ("podTemplate.spec", "extraPodSpec"), ("podTemplate", "extraPodSpec")):
        if tail == prefix or tail.startswith(prefix + ".") or tail.startswith(prefix + "["):
            return target + tail[len(prefix):]
    for old, new in _RENAMED:
        if tail == old or tail.startswith(old + ".") or tail.startswith(old + "["):
            return new + tail[len(old):]
    return tail


def dcd_path(path: str, converted_spec: dict[str, Any], alpha_spec: dict[str, Any]) -> str:
    """A field path of a converted DCD as the v1alpha1 DCD's path."""
    if path == "spec" or not path.startswith("spec."):
        return path
    return "spec." + _component_tail(path[len("spec."):], converted_spec, alpha_spec)


def dgd_path(path: str, converted_spec: dict[str, Any], alpha_spec: dict[str, Any]) -> str:
    """A field path of a converted DGD as the v1alpha1 DGD's path."""
    if path == "spec.env" or path.startswith(("spec.env.", "spec.env[")):
        return "spec.envs" + path[len("spec.env"):]
    if path == "spec.components":
        return "spec.services"
    match = _COMPONENT.match(path)
    if not match:
        return path
    components = converted_spec.get("components") or []
    index, rest = int(match.group(1)), match.group(2)
    if index >= len(components):
        return path
    name = str(components[index].get("name") or "")
    service = (alpha_spec.get("services") or {}).get(name) or {}
    tail = _component_tail(rest[1:], components[index], service) if rest.startswith(".") else rest
    base = f"spec.services[{name}]"
    if not tail:
        return base
    return f"{base}{tail}" if tail.startswith("[") else f"{base}.{tail}"
