"""Content that only a preservation annotation carries, made visible.

The operator takes part of what it renders from ``nvidia.com/dcd-spec`` / ``nvidia.com/dgd-spec``
(the conversion webhook restores hub-only and v1alpha1-only fields from them), and so does
dynamo-render. A reviewer reads the visible spec; the render is what runs. Every value the
annotation contributes is therefore reported, one warning per item (``Code.PRESERVED``).

What counts as "beyond the visible spec" is decided on the rendered objects, not on the
annotation's text: the source is rendered as written and once more with its spec
preservation annotation reduced to the fields that only name or classify the components the
visible spec already has (a v1beta1 source's v1alpha1 ``dynamoNamespace``,
``globalDynamoNamespace``, ``componentType``, ``subComponentType`` and ``serviceName``; a
v1alpha1 source's v1beta1 component ``name``), and every difference between the two renders
is the annotation's contribution:

* an object only the annotated render has (a PVC, with its size; an Ingress, with its hosts),
  or only the other has;
* in a workload's pod templates: containers added or removed (name, image, command,
  privileged, root and host flags, Secret references), a container's image, command, args,
  securityContext, env, envFrom, volume mounts, resources and ports, the pod's host* flags,
  service account, securityContext and volumes, and the pod-template labels and annotations
  by key;
* an object's own labels and annotations by key, and any other field by name.

So an annotation that only carries v1alpha1 data for its own visible spec, as ``convert``
writes for a v1beta1 object (the record of where each main-container field was written in
v1alpha1, an empty ``serviceName``, a component's Dynamo namespace and type, values equal to
the visible ones), contributes nothing and is not reported. A value that adds to what the
visible spec renders (a component's ``labels``, ``annotations``, ``ingress``, ``envs``,
``volumeMounts``, ``resources``, a top-level ``pvcs`` entry, any container or pod field) is
reported: nothing in the v1beta1 spec shows it. A source can be accepted
(``RenderConfig.accept_preserved``): its items are then info notes.

Mirrors: nothing in the operator (a review aid, DESIGN decision 16)
"""

from __future__ import annotations

import json
import re
from typing import Any

from renderer import consts
from renderer.gocompat.gojson import go_json
from renderer.objects.podchanges import metadata_changes, object_summary, pod_changes, pod_templates
from renderer.results import Code, ResourceRef, Result, Severity

SPEC_ANNOTATIONS = {consts.DCD_KIND: consts.ANNOTATION_DCD_SPEC, consts.DGD_KIND: consts.ANNOTATION_DGD_SPEC}
# The conversion's own annotations are the carrier, not content: never reported as items.
_CARRIERS = (consts.ANNOTATION_DCD_SPEC, consts.ANNOTATION_DCD_STATUS, consts.ANNOTATION_DGD_SPEC, consts.ANNOTATION_DGD_STATUS)

Key = tuple[str, str, str]

# v1alpha1 fields of a v1beta1 source's annotation that name or classify a component the visible
# spec has (kept in the comparison render: they re-express the visible spec, they add nothing).
IDENTITY_ALPHA = frozenset({"dynamoNamespace", "globalDynamoNamespace", "componentType", "subComponentType", "serviceName"})
# v1beta1 fields of a v1alpha1 source's annotation kept likewise: the component's name.
IDENTITY_HUB = frozenset({"name"})


def preserved_annotation(obj: dict[str, Any]) -> str | None:
    """The spec preservation annotation key a DCD or DGD source carries (non-empty), or None."""
    key = SPEC_ANNOTATIONS.get(str(obj.get("kind")))
    meta = obj.get("metadata")
    annotations = meta.get("annotations") if isinstance(meta, dict) else None
    if key is None or not isinstance(annotations, dict) or not annotations.get(key):
        return None
    return key


def identity_only(obj: dict[str, Any], key: str) -> dict[str, Any]:
    """A copy of the source whose spec preservation annotation keeps only what names its visible spec.

    On a v1beta1 source the annotation holds v1alpha1 fields; kept are those that name or
    classify the components the visible spec already has (``IDENTITY_ALPHA``). On a v1alpha1
    source it holds a v1beta1 spec; kept is the component ``name`` (``IDENTITY_HUB``). The
    envelope's ``version`` and ``rawJSON`` records stay. The input is not modified.
    """
    meta = dict(obj.get("metadata") or {})
    annotations = dict(meta.get("annotations") or {})
    document = json.loads(str(annotations[key]))
    alpha = obj.get("apiVersion") != consts.V1ALPHA1
    keep = IDENTITY_ALPHA if alpha else IDENTITY_HUB
    graph = obj.get("kind") == consts.DGD_KIND

    def reduce(spec: Any) -> Any:
        if not isinstance(spec, dict):
            return spec
        if graph and alpha:
            services = spec.get("services")
            kept = (
                {n: {k: v for k, v in s.items() if k in keep} for n, s in services.items() if isinstance(s, dict)}
                if isinstance(services, dict)
                else None
            )
            return {"services": kept} if kept else {}
        if graph:
            components = spec.get("components")
            kept_list = [{k: v for k, v in c.items() if k in keep} for c in components if isinstance(c, dict)] if isinstance(components, list) else []
            return {"components": kept_list} if kept_list else {}
        return {k: v for k, v in spec.items() if k in keep}

    if isinstance(document, dict) and "spec" in document:
        document = {**document, "spec": reduce(document["spec"])}
    else:
        document = reduce(document)
    # written as the operator writes the annotation (encoding/json), so the reduced render reads what it would
    annotations[key] = go_json(document)
    meta["annotations"] = annotations
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
