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

Where the conversion merges the dedicated fields into the ``main`` container, a path is mapped
to the field that supplied the value: an env entry by its name (``extraPodSpec.mainContainer.env``
over ``envs``), a resource quantity by its key (``extraPodSpec.mainContainer.resources`` over
``resources``, where ``gpu`` is the GPU resource and ``custom`` the rest), ``envFrom`` to
``envFromSecret``, a probe to the dedicated probe when the main container has none, and a
volume mount past the main container's own to the flat ``volumeMounts`` (``mountPath`` is its
``mountPoint``). ``compilationCache`` is the flat volume mount marked ``useAsCompilationCache``
(``pvcName`` its ``name``, ``mountPath`` its ``mountPoint``). A container is named in a path by
its index or by its name (``containers[main]``).

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
_CONTAINER = re.compile(r"^podTemplate\.spec\.containers\[([^\]]+)\](.*)$")
_MAIN_LIST = re.compile(r"^\.(env|envFrom|volumeMounts)\[(\d+)\](.*)$")
_RESOURCE = re.compile(r"^\.resources\.(limits|requests)\.(.+)$")
_COMPONENT = re.compile(r"^spec\.components\[(\d+)\](.*)$")
_MAIN = "extraPodSpec.mainContainer"


def _named(items: Any, name: Any) -> int | None:
    """The index of the entry called ``name`` in a written list, if any."""
    for i, item in enumerate(items if isinstance(items, list) else []):
        if isinstance(item, dict) and item.get("name") == name:
            return i
    return None


def _main_container_tail(rest: str, main: dict[str, Any], alpha: dict[str, Any]) -> str:
    """Map a path under the converted ``main`` container to the v1alpha1 field that supplied it.

    Mirrors: api/v1alpha1/shared_spec_conversion.go buildMainContainerFromDedicated and
    mergeExtraPodSpecMainContainer (which fields meet in the main container, and which wins).
    """
    user = (alpha.get("extraPodSpec") or {}).get("mainContainer") or {}
    match = _MAIN_LIST.match(rest)
    if match:
        field, index, tail = match.group(1), int(match.group(2)), match.group(3)
        if field == "env":
            entries = main.get("env") or []
            name = entries[index].get("name") if index < len(entries) and isinstance(entries[index], dict) else None
            for where, written in ((f"{_MAIN}.env", user.get("env")), ("envs", alpha.get("envs"))):
                found = _named(written, name)
                if found is not None:
                    return f"{where}[{found}]{tail}"
        elif field == "envFrom" and not user.get("envFrom") and alpha.get("envFromSecret"):
            return "envFromSecret"
        elif field == "volumeMounts":
            own = len(user.get("volumeMounts") or [])
            if index >= own and index - own < len(alpha.get("volumeMounts") or []):
                return f"volumeMounts[{index - own}]" + (".mountPoint" if tail == ".mountPath" else tail)
        return _MAIN + rest
    match = _RESOURCE.match(rest)
    if match:
        section, key = match.group(1), match.group(2)
        if key in ((user.get("resources") or {}).get(section) or {}):
            return _MAIN + rest
        item = (alpha.get("resources") or {}).get(section) or {}
        if key in ("cpu", "memory") and item.get(key):
            return f"resources.{section}.{key}"
        if item.get("gpu") and key == (item.get("gpuType") or consts.RESOURCE_GPU_NVIDIA):
            return f"resources.{section}.gpu"
        if key in (item.get("custom") or {}):
            return f"resources.{section}.custom.{key}"
        return _MAIN + rest
    for field in ("resources", "livenessProbe", "readinessProbe"):
        if (rest == "." + field or rest.startswith(f".{field}.")) and field not in user and field in alpha:
            return field + rest[len(field) + 1 :]
    return _MAIN + rest


def _component_tail(tail: str, converted: dict[str, Any], alpha: dict[str, Any]) -> str:
    """Map a path under one converted component (no leading dot) to its v1alpha1 form."""
    if not tail:
        return tail
    match = _CONTAINER.match(tail)
    if match:
        containers = ((converted.get("podTemplate") or {}).get("spec") or {}).get("containers") or []
        key, rest = match.group(1), match.group(2)
        if key.isdigit():
            index = int(key)
            name = containers[index].get("name") if index < len(containers) else None
        else:
            name = key
        if name == consts.MAIN_CONTAINER_NAME:
            main = next((c for c in containers if isinstance(c, dict) and c.get("name") == name), {})
            return _main_container_tail(rest, main, alpha)
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
    if tail == "compilationCache" or tail.startswith("compilationCache."):
        cache = next((i for i, m in enumerate(alpha.get("volumeMounts") or []) if isinstance(m, dict) and m.get("useAsCompilationCache")), None)
        if cache is not None:
            rest = tail[len("compilationCache"):]
            return f"volumeMounts[{cache}]" + {".pvcName": ".name", ".mountPath": ".mountPoint"}.get(rest, rest)
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
