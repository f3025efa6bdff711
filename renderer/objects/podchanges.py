"""What differs between two versions of a rendered object, at the level a reviewer reads pods.

``pod_changes`` compares two workloads' pod templates and names each difference: containers
added or removed (with image, command, privileged, root and host flags, Secret references),
image, command and args, privileged, runAsUser and host* flags, env and envFrom entries,
volume mounts, resources, volumes, and pod-template labels and annotations added, removed or
changed. ``metadata_changes`` does the same for an object's own labels and annotations, and
``object_summary`` describes an object on one side only (a PVC with its size, an Ingress with
its hosts). The ``diff`` command (plugin/impact.py) and the preserved-content report
(renderer/objects/preserved_content.py) both print these lines.

Pure: plain dicts in, one-line strings out, in a fixed order (containers in pod order, keys
sorted).
"""

from __future__ import annotations

import json
from typing import Any

# Pod spec fields reported one by one; any other difference is listed by field name.
_POD_FLAGS = ("hostNetwork", "hostPID", "hostIPC", "hostUsers", "serviceAccountName", "shareProcessNamespace")
_CONTAINER_LISTS = (("initContainers", "init container"), ("containers", "container"), ("ephemeralContainers", "ephemeral container"))
_HANDLED_POD = {*_POD_FLAGS, "securityContext", "volumes", *(name for name, _ in _CONTAINER_LISTS)}
_HANDLED_CONTAINER = {"name", "image", "command", "args", "securityContext", "env", "envFrom", "volumeMounts", "resources", "ports"}


def pod_templates(obj: dict[str, Any]) -> dict[str, Any]:
    """The pod templates of a workload by role (``""`` for a Deployment's only one).

    A LeaderWorkerSet has a leader and a worker template; a PodCliqueSet one pod spec per
    clique, with the clique's labels and annotations as the template metadata.
    """
    spec = obj.get("spec") or {}
    kind = obj.get("kind")
    if kind == "Deployment":
        return {"": spec.get("template")}
    if kind == "LeaderWorkerSet":
        lwt = spec.get("leaderWorkerTemplate") or {}
        return {"leader": lwt.get("leaderTemplate"), "worker": lwt.get("workerTemplate")}
    if kind == "PodCliqueSet":
        cliques = (spec.get("template") or {}).get("cliques") or []
        return {
            f"clique {c.get('name')}": {
                "metadata": {"labels": c.get("labels"), "annotations": c.get("annotations")},
                "spec": (c.get("spec") or {}).get("podSpec"),
            }
            for c in cliques
            if isinstance(c, dict)
        }
    return {}


def pod_changes(before: dict[str, Any] | None, after: dict[str, Any] | None) -> list[str]:
    """Every pod-level difference between two workloads (empty: their pods are the same)."""
    old = pod_templates(before or {})
    new = pod_templates(after or {})
    lines: list[str] = []
    for role in [*old, *(r for r in new if r not in old)]:
        prefix = f"{role}: " if role else ""
        if role not in new:
            lines.append(f"{prefix}pod template removed")
        elif role not in old:
            lines.append(f"{prefix}pod template added")
        else:
            lines += [prefix + line for line in template_changes(old[role], new[role])]
    return lines


def pod_facts(workload: dict[str, Any]) -> list[str]:
    """What the pods of a new workload run, in the words a rolled one's changes use (each fact as added)."""
    lines: list[str] = []
    for role, template in pod_templates(workload).items():
        prefix = f"{role}: " if role else ""
        lines += [prefix + line for line in template_changes({}, template)]
    return lines


def template_changes(before: Any, after: Any) -> list[str]:
    """The differences between two pod templates (metadata and spec)."""
    before, after = _dict(before), _dict(after)
    meta_old, meta_new = _dict(before.get("metadata")), _dict(after.get("metadata"))
    lines = _map_changes("pod label", meta_old.get("labels"), meta_new.get("labels"))
    lines += _map_changes("pod annotation", meta_old.get("annotations"), meta_new.get("annotations"))
    return lines + pod_spec_changes(before.get("spec"), after.get("spec"))


def pod_spec_changes(before: Any, after: Any) -> list[str]:
    """The differences between two pod specs."""
    old, new = _dict(before), _dict(after)
    lines: list[str] = []
    for key, noun in _CONTAINER_LISTS:
        lines += _container_list_changes(noun, old.get(key), new.get(key))
    for flag in _POD_FLAGS:
        if old.get(flag) != new.get(flag):
            lines.append(f"{flag}: {_show(old.get(flag))} -> {_show(new.get(flag))}")
    lines += _security_changes("pod ", old.get("securityContext"), new.get("securityContext"))
    lines += _named_changes("volume", old.get("volumes"), new.get("volumes"), volume_summary)
    other = sorted(k for k in set(old) | set(new) if k not in _HANDLED_POD and old.get(k) != new.get(k))
    if other:
        lines.append("pod spec fields changed: " + ", ".join(other))
    return lines


def metadata_changes(before: dict[str, Any] | None, after: dict[str, Any] | None, skip: tuple[str, ...] = ()) -> list[str]:
    """An object's own labels and annotations added, removed or changed (``skip``: keys left out)."""
    old, new = _dict((before or {}).get("metadata")), _dict((after or {}).get("metadata"))
    labels = _map_changes("label", old.get("labels"), new.get("labels"))
    old_annotations = {k: v for k, v in _dict(old.get("annotations")).items() if k not in skip}
    new_annotations = {k: v for k, v in _dict(new.get("annotations")).items() if k not in skip}
    return labels + _map_changes("annotation", old_annotations, new_annotations)


def object_summary(obj: dict[str, Any]) -> str:
    """``Kind/namespace/name`` with what a reviewer wants to know of it: a PVC's size, an Ingress's hosts."""
    meta = _dict(obj.get("metadata"))
    where = f"{meta.get('namespace')}/" if meta.get("namespace") else ""
    text = f"{obj.get('kind')}/{where}{meta.get('name')}"
    spec = _dict(obj.get("spec"))
    details: list[str] = []
    if obj.get("kind") == "PersistentVolumeClaim":
        size = _dict(_dict(spec.get("resources")).get("requests")).get("storage")
        details.append(f"size {size}" if size is not None else "no size")
        if spec.get("storageClassName"):
            details.append(f"storageClassName {spec['storageClassName']}")
    elif obj.get("kind") == "Ingress":
        hosts = [r.get("host") for r in spec.get("rules") or [] if isinstance(r, dict) and r.get("host")]
        details.append("hosts " + ", ".join(map(str, hosts)) if hosts else "no host")
    elif obj.get("kind") == "VirtualService":
        details.append("hosts " + ", ".join(map(str, spec.get("hosts") or [])))
    elif "template" in spec or obj.get("kind") in ("LeaderWorkerSet", "PodCliqueSet"):
        for role, template in pod_templates(obj).items():
            containers = _dict(_dict(template).get("spec")).get("containers") or []
            names = [container_summary(c) for c in containers if isinstance(c, dict)]
            details.append((f"{role}: " if role else "") + "containers " + "; ".join(names))
    return f"{text} ({', '.join(details)})" if details else text


def container_summary(container: dict[str, Any]) -> str:
    """A container as a reviewer needs to see it: name, image, command and the flags that grant power."""
    parts = [f"image {container.get('image')}"]
    for key in ("command", "args"):
        if container.get(key):
            parts.append(f"{key} {_show(container[key])}")
    parts += _security_flags(container.get("securityContext"))
    parts += [f"envFrom {ref}" for ref in _env_from_refs(container.get("envFrom"))]
    parts += [f"env {name} from {ref}" for name, ref in _env_refs(container.get("env"))]
    ports = [p.get("hostPort") for p in container.get("ports") or [] if isinstance(p, dict) and p.get("hostPort")]
    if ports:
        parts.append("hostPort " + ", ".join(map(str, ports)))
    return f'"{container.get("name")}" ({", ".join(parts)})'


def volume_summary(volume: dict[str, Any]) -> str:
    """A volume and its source (the host path, Secret, ConfigMap or claim it mounts)."""
    sources = [k for k in volume if k != "name"]
    if not sources:
        return f'"{volume.get("name")}"'
    source = sources[0]
    value = _dict(volume.get(source))
    ref = (
        value.get("path")
        or value.get("secretName")
        or value.get("claimName")
        or value.get("name")
        or (f"sizeLimit {value['sizeLimit']}" if value.get("sizeLimit") else None)
    )
    return f'"{volume.get("name")}" ({source}{" " + str(ref) if ref else ""})'


# ---------------------------------------------------------------------------------------------


def _container_list_changes(noun: str, before: Any, after: Any) -> list[str]:
    old = {c.get("name"): c for c in before or [] if isinstance(c, dict)}
    new = {c.get("name"): c for c in after or [] if isinstance(c, dict)}
    lines: list[str] = []
    for name, container in old.items():
        if name not in new:
            lines.append(f'{noun} "{name}" removed')
    for name, container in new.items():
        if name not in old:
            lines.append(f"{noun} {container_summary(container)} added")
        elif old[name] != container:
            lines += [f'{noun} "{name}": {line}' for line in _container_changes(old[name], container)]
    return lines


def _container_changes(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    lines: list[str] = []
    for key in ("image", "command", "args"):
        if old.get(key) != new.get(key):
            lines.append(f"{key} {_show(old.get(key))} -> {_show(new.get(key))}")
    lines += _security_changes("", old.get("securityContext"), new.get("securityContext"))
    lines += _env_changes(old.get("env"), new.get("env"))
    old_from, new_from = _env_from_refs(old.get("envFrom")), _env_from_refs(new.get("envFrom"))
    lines += [f"envFrom {ref} added" for ref in new_from if ref not in old_from]
    lines += [f"envFrom {ref} removed" for ref in old_from if ref not in new_from]
    lines += _named_changes("volume mount", old.get("volumeMounts"), new.get("volumeMounts"), _mount_summary)
    if old.get("resources") != new.get("resources"):
        lines.append(f"resources {_show(old.get('resources'))} -> {_show(new.get('resources'))}")
    if old.get("ports") != new.get("ports"):
        lines.append(f"ports {_show(old.get('ports'))} -> {_show(new.get('ports'))}")
    other = sorted(k for k in set(old) | set(new) if k not in _HANDLED_CONTAINER and old.get(k) != new.get(k))
    if other:
        lines.append("fields changed: " + ", ".join(other))
    return lines


def _security_flags(context: Any) -> list[str]:
    """The powers a securityContext grants, as a reviewer names them."""
    ctx = _dict(context)
    flags: list[str] = []
    if ctx.get("privileged"):
        flags.append("privileged")
    if ctx.get("runAsUser") == 0:
        flags.append("runAsUser 0 (root)")
    elif ctx.get("runAsUser") is not None:
        flags.append(f"runAsUser {ctx['runAsUser']}")
    if ctx.get("runAsNonRoot") is False:
        flags.append("runAsNonRoot false")
    if ctx.get("allowPrivilegeEscalation"):
        flags.append("allowPrivilegeEscalation")
    added = _dict(ctx.get("capabilities")).get("add")
    if added:
        flags.append("capabilities add " + _show(added))
    return flags


def _security_changes(prefix: str, before: Any, after: Any) -> list[str]:
    old, new = _dict(before), _dict(after)
    if old == new:
        return []
    lines = []
    for key in ("privileged", "runAsUser", "runAsGroup", "runAsNonRoot", "allowPrivilegeEscalation"):
        if old.get(key) != new.get(key):
            root = " (root)" if key == "runAsUser" and new.get(key) == 0 else ""
            lines.append(f"{prefix}{key}: {_show(old.get(key))} -> {_show(new.get(key))}{root}")
    rest = {k for k in set(old) | set(new) if old.get(k) != new.get(k)} - {
        "privileged", "runAsUser", "runAsGroup", "runAsNonRoot", "allowPrivilegeEscalation"
    }
    if rest:
        lines.append(f"{prefix}securityContext {', '.join(sorted(rest))}: {_show({k: old.get(k) for k in sorted(rest)})} -> "
                     f"{_show({k: new.get(k) for k in sorted(rest)})}")
    return lines


def _env_from_refs(env_from: Any) -> list[str]:
    refs = []
    for item in env_from or []:
        item = _dict(item)
        for key, noun in (("secretRef", "Secret"), ("configMapRef", "ConfigMap")):
            if isinstance(item.get(key), dict):
                refs.append(f"{noun} {item[key].get('name')}" + (f" (prefix {item['prefix']})" if item.get("prefix") else ""))
    return refs


def _env_refs(env: Any) -> list[tuple[str, str]]:
    """Env variables whose value comes from a Secret: (name, ``Secret name/key``)."""
    out = []
    for item in env or []:
        ref = _dict(_dict(_dict(item).get("valueFrom")).get("secretKeyRef"))
        if ref:
            out.append((str(_dict(item).get("name")), f"Secret {ref.get('name')}/{ref.get('key')}"))
    return out


def _env_changes(before: Any, after: Any) -> list[str]:
    old = {e.get("name"): e for e in before or [] if isinstance(e, dict)}
    new = {e.get("name"): e for e in after or [] if isinstance(e, dict)}
    lines = []
    for name, item in new.items():
        if name not in old:
            lines.append(f"env {name} added ({_env_value(item)})")
        elif old[name] != item:
            lines.append(f"env {name}: {_env_value(old[name])} -> {_env_value(item)}")
    lines += [f"env {name} removed" for name in old if name not in new]
    return lines


def _env_value(item: dict[str, Any]) -> str:
    ref = _dict(_dict(item.get("valueFrom")).get("secretKeyRef"))
    if ref:
        return f"from Secret {ref.get('name')}/{ref.get('key')}"
    if "valueFrom" in item:
        return "from " + _show(item["valueFrom"])
    return _show(item.get("value", ""))


def _mount_summary(mount: dict[str, Any]) -> str:
    flags = " read-only" if mount.get("readOnly") else ""
    return f'"{mount.get("name")}" at {mount.get("mountPath")}{flags}'


def _named_changes(noun: str, before: Any, after: Any, summary: Any) -> list[str]:
    """Items of a list keyed by name (volumes: by name; mounts: by name and path) added, removed or changed."""

    def key(item: dict[str, Any]) -> Any:
        return (item.get("name"), item.get("mountPath")) if noun == "volume mount" else item.get("name")

    old = {key(v): v for v in before or [] if isinstance(v, dict)}
    new = {key(v): v for v in after or [] if isinstance(v, dict)}
    lines = [f"{noun} {summary(v)} added" for k, v in new.items() if k not in old]
    lines += [f"{noun} {summary(v)} removed" for k, v in old.items() if k not in new]
    lines += [f"{noun} {summary(old[k])} -> {summary(v)}" for k, v in new.items() if k in old and old[k] != v]
    return lines


def _map_changes(noun: str, before: Any, after: Any) -> list[str]:
    old, new = _dict(before), _dict(after)
    lines = []
    for key in sorted(set(old) | set(new), key=str):
        if key not in old:
            lines.append(f'{noun} "{key}" added ({_show(new[key])})')
        elif key not in new:
            lines.append(f'{noun} "{key}" removed')
        elif old[key] != new[key]:
            lines.append(f'{noun} "{key}": {_show(old[key])} -> {_show(new[key])}')
    return lines


def _show(value: Any, limit: int = 200) -> str:
    """A value as compact JSON (strings quoted), cut at ``limit`` characters."""
    if value is None:
        return "unset"
    text = json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(", ", ": "))
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}
