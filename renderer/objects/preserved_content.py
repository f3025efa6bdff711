"""Content that only a preservation annotation carries, made visible.

The operator takes part of what it renders from ``nvidia.com/dcd-spec`` / ``nvidia.com/dgd-spec``
(the conversion webhook restores hub-only and v1alpha1-only fields from them), and so does
dynamo-render. A reviewer reads the visible spec; the render is what runs. Every value the
annotation contributes is therefore reported, one warning per item (``Code.PRESERVED``).

What counts as "beyond the visible spec" is decided on the rendered objects, not on the
annotation's text: the source is rendered as written and once more with its spec
preservation annotation removed, and every difference between the two renders is the
annotation's contribution:

* an object only the annotated render has (a PVC, with its size; an Ingress, with its hosts),
  or only the other has;
* in a workload's pod templates: containers added or removed (name, image, command,
  privileged, root and host flags, Secret references), a container's image, command, args,
  securityContext, env, envFrom, volume mounts, resources and ports, the pod's host* flags,
  service account, securityContext and volumes, and the pod-template labels and annotations
  by key;
* an object's own labels and annotations by key, and any other field by name.

So an annotation that only re-expresses what the visible spec already says (the record of
where each main-container field was written in v1alpha1, an empty ``serviceName``, values
equal to the visible ones), as ``convert`` writes for a v1beta1 object, contributes nothing
and is not reported. A v1alpha1-only value that does change the render (a component's
``dynamoNamespace``, ``labels``, ``annotations``, ``ingress``, top-level ``pvcs``) is
reported: nothing in the v1beta1 spec shows it. A source can be accepted
(``RenderConfig.accept_preserved``): its items are then info notes.

Mirrors: nothing in the operator (a review aid, DESIGN decision 16)
"""

from __future__ import annotations

import re
from typing import Any

from renderer import consts
from renderer.objects.podchanges import metadata_changes, object_summary, pod_changes, pod_templates
from renderer.results import Code, ResourceRef, Result, Severity

SPEC_ANNOTATIONS = {consts.DCD_KIND: consts.ANNOTATION_DCD_SPEC, consts.DGD_KIND: consts.ANNOTATION_DGD_SPEC}
# The conversion's own annotations are the carrier, not content: never reported as items.
_CARRIERS = (consts.ANNOTATION_DCD_SPEC, consts.ANNOTATION_DCD_STATUS, consts.ANNOTATION_DGD_SPEC, consts.ANNOTATION_DGD_STATUS)

Key = tuple[str, str, str]


def preserved_annotation(obj: dict[str, Any]) -> str | None:
    """The spec preservation annotation key a DCD or DGD source carries (non-empty), or None."""
    key = SPEC_ANNOTATIONS.get(str(obj.get("kind")))
    meta = obj.get("metadata")
    annotations = meta.get("annotations") if isinstance(meta, dict) else None
    if key is None or not isinstance(annotations, dict) or not annotations.get(key):
        return None
    return key


def without_annotation(obj: dict[str, Any], key: str) -> dict[str, Any]:
    """A copy of the source without its spec preservation annotation (the input is not modified)."""
    meta = dict(obj.get("metadata") or {})
    annotations = {k: v for k, v in (meta.get("annotations") or {}).items() if k != key}
    if annotations:
        meta["annotations"] = annotations
    else:
        meta.pop("annotations", None)
    return {**obj, "metadata": meta}


def contributions(with_annotation: list[dict[str, Any]], without: list[dict[str, Any]]) -> list[str]:
    """One line per difference the annotation makes to the rendered objects, in output order."""
    new = {_key(o): o for o in with_annotation}
    old = {_key(o): o for o in without}
    # a worker renamed by its hash: pair what is left over by kind, in order
    only_new = [k for k in new if k not in old]
    only_old = [k for k in old if k not in new]
    pairs: dict[Key, Key] = {}
    for key in only_new:
        match = next((k for k in only_old if k[0] == key[0]), None)
        if match is not None:
            pairs[key] = match
            only_old.remove(match)
    lines: list[str] = []
    for key, obj in new.items():
        previous = old.get(key) or (old[pairs[key]] if key in pairs else None)
        if previous is None:
            lines.append(f"adds {object_summary(obj)}")
            continue
        if previous == obj:
            continue
        name = _name(key)
        changes = metadata_changes(previous, obj, skip=_CARRIERS)
        if pod_templates(obj):
            changes += pod_changes(previous, obj)
        changes += _other_fields(previous, obj)
        if key in pairs:
            changes.insert(0, f"named {_name(pairs[key])} without the annotation")
        lines += [f"{name}: {change}" for change in changes]
    lines += [f"removes {_name(key)}" for key in only_old]
    return lines


def preserved_results(items: list[str], ref: ResourceRef, key: str, accepted: bool) -> list[Result]:
    """One result per item: a warning, or an info note when the source is accepted."""
    suffix = " (accepted by acceptPreservedContent)" if accepted else ""
    return [
        Result(
            f"content only this preservation annotation carries: {item}{suffix}",
            severity=Severity.INFO if accepted else Severity.WARNING,
            resource=ref,
            field=f"metadata.annotations[{key}]",
            code=Code.PRESERVED,
        )
        for item in items
    ]


def is_accepted(ref: ResourceRef, namespace: str, patterns: tuple[str, ...]) -> bool:
    """Whether ``Kind/namespace/name`` of the source matches one of ``patterns``.

    A pattern is ``Kind/namespace/name``; ``*`` matches any run of characters within one part,
    ``?`` one character.
    """
    target = f"{ref.kind}/{ref.namespace or namespace}/{ref.name}"
    return any(_glob(pattern).fullmatch(target) for pattern in patterns)


def _glob(pattern: str) -> re.Pattern[str]:
    parts = ("[^/]*" if ch == "*" else "[^/]" if ch == "?" else re.escape(ch) for ch in pattern)
    return re.compile("".join(parts))


def _other_fields(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """Top-level fields (and spec fields) that differ besides metadata and pod templates."""
    spec_old, spec_new = before.get("spec") or {}, after.get("spec") or {}
    skip = {"template", "leaderWorkerTemplate"} if pod_templates(after) else set()
    if after.get("kind") == "PodCliqueSet":
        skip.add("template")
    keys = sorted(
        k for k in set(spec_old) | set(spec_new) if k not in skip and spec_old.get(k) != spec_new.get(k)
    ) if isinstance(spec_old, dict) and isinstance(spec_new, dict) else ["spec"]
    top = sorted(k for k in set(before) | set(after) if k not in ("metadata", "spec") and before.get(k) != after.get(k))
    lines = [f"spec.{k} changed" for k in keys] + [f"{k} changed" for k in top]
    return lines


def _key(obj: dict[str, Any]) -> Key:
    meta = obj.get("metadata") or {}
    return (str(obj.get("kind")), str(meta.get("namespace") or ""), str(meta.get("name") or ""))


def _name(key: Key) -> str:
    kind, namespace, name = key
    return f"{kind}/{namespace}/{name}" if namespace else f"{kind}/{name}"
