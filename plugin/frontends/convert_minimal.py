"""The default ``convert`` output: the stored v1beta1 object without what the render never reads.

The conversion webhook writes what the API server stores: a ``status`` and, for v1alpha1 fields
v1beta1 has no place for, a preservation annotation (``nvidia.com/dgd-spec``,
``nvidia.com/dcd-spec``) holding a JSON copy of them. Most of that JSON changes nothing that
renders (empty main-container stubs, GPU counts already moved to the container), and no
reviewer can read it. So, by default, each such part is left out when rendering the object
without it gives the very objects rendering the v1alpha1 input gives (``convert_check``), and
a preservation annotation keeps only the JSON members that change the render; one info line
per object names what it keeps. The user's order of services becomes the order of components
when the render does not change with it.

The core's conversion stays the operator's (``--as-stored`` writes it unchanged); this module
only leaves parts out of its result and re-checks with a render.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Sequence
from typing import Any

from plugin.frontends.convert_check import CHECKS, DEFAULTS, Check, Rendering, readers, rendering
from renderer.gocompat.gojson import go_json

# The kinds the render turns into workloads (the others pass through it as they are).
RENDERED_KINDS = ("DynamoGraphDeployment", "DynamoComponentDeployment")
PRESERVATION_KEYS = ("nvidia.com/dgd-spec", "nvidia.com/dcd-spec", "nvidia.com/dgd-status", "nvidia.com/dcd-status")
# What ``minimise`` keeps when the input does not render: the preservation annotation as stored,
# which no render can check (``convert`` refuses to write it unless asked for the stored form).
UNCHECKED = "unchecked"


def minimise(
    original: dict[str, Any], stored: dict[str, Any], context: Sequence[Any], checks: Sequence[Check] = CHECKS
) -> tuple[dict[str, Any], list[str]]:
    """``stored`` without the parts the render of ``original`` does not need, and what was kept, in words.

    ``context`` is the other objects of the file (the render may read them as cluster facts);
    ``checks`` the configurations the render is compared under (``convert_check``).
    When ``original`` does not render, nothing can be checked and ``stored`` is returned as it is.
    """
    if "status" not in stored and not any(k in _annotations(stored) for k in PRESERVATION_KEYS) and not _reorderable(original, stored):
        return stored, []
    target = rendering([*context, original], checks)
    if target is None:
        if stored.get("kind") in RENDERED_KINDS and "status" in stored:
            # the render never reads a graph's or component's status, and the API server ignores it on create
            stored = {k: v for k, v in stored.items() if k != "status"}
        if not any(k in _annotations(stored) for k in PRESERVATION_KEYS):
            return stored, []
        return stored, [UNCHECKED]

    def same(candidate: dict[str, Any]) -> bool:
        return rendering([*context, candidate], checks) == target

    if not same(stored):
        return stored, ["written as stored: it renders differently from the input"]
    kept: list[str] = []
    current = stored
    if "status" in current:
        trial = {k: v for k, v in current.items() if k != "status"}
        if same(trial):
            current = trial
        else:
            kept.append("keeps status: the render reads it")
    for key in PRESERVATION_KEYS:
        value = _annotations(current).get(key)
        if value is None:
            continue
        trial = _with_annotation(current, key, None)
        if same(trial):
            current = trial
            continue
        try:
            data = json.loads(value)
        except ValueError:
            kept.append(f"keeps {key} (not JSON): the render reads it")
            continue
        pruned = _prune(data, lambda d: same(_with_annotation(current, key, go_json(d))))
        current = _with_annotation(current, key, go_json(pruned))
        fields = ", ".join(_leaves(pruned.get("spec", pruned) if isinstance(pruned, dict) else pruned)) or "its version"
        line = f"keeps {key} with {fields}: v1beta1 has no field for them, and the render reads them"
        where = _read_where(pruned, lambda d: rendering([*context, _with_annotation(current, key, go_json(d))], checks), target,
                            checks)
        notes = "; ".join(note for note in (where, *_effects(pruned)) if note)
        kept.append(f"{line} ({notes})" if notes else line)
    current, order = _user_order(original, current, same)
    if order:
        kept.append(order)
    return current, kept


def _read_where(pruned: Any, render: Callable[[Any], Rendering | None], target: Rendering, checks: Sequence[Check]) -> str:
    """For each kept member that only some configurations read, which ones (empty when the defaults read them all).

    A member the Helm defaults do not read is kept because another operator configuration or
    gate does: the line names it, so a reviewer knows why an opaque member stays.
    """
    spec = pruned.get("spec") if isinstance(pruned, dict) else None
    if not isinstance(spec, dict):
        return ""
    members: list[tuple[str, list[str]]] = []
    for name, value in spec.items():
        if name == "services" and isinstance(value, dict):
            members.extend((f"services.{service}.{field}", ["spec", "services", service, field])
                           for service, fields in value.items() if isinstance(fields, dict) for field in fields)
        else:
            members.append((name, ["spec", name]))
    notes: list[str] = []
    for label, path in members:
        trial = copy.deepcopy(pruned)
        del _get(trial, path[:-1])[path[-1]]
        who = readers(target, render(trial), checks)
        if who and DEFAULTS not in who:
            notes.append(f"{label} is read under {' and under '.join(who)}")
    return "; ".join(notes)


# What removing a kept member does to the running objects, for the members whose every read is
# known (renderer.conversion.alpha_view): a component's preserved ``dynamoNamespace`` is the
# value of its ``nvidia.com/dynamo-namespace`` label on the workload's pod template.
# Mirrors: internal/dynamo/v1beta1_helpers.go GetDCDDynamoNamespace (read by the DCD renderer's
# generatePodTemplateSpec).
EFFECTS = {
    "dynamoNamespace": "rolls every pod: the nvidia.com/dynamo-namespace pod label changes",
}


def _effects(pruned: Any) -> list[str]:
    """``removing <member> <effect>`` for each kept top-level member ``EFFECTS`` knows."""
    spec = pruned.get("spec") if isinstance(pruned, dict) else None
    if not isinstance(spec, dict):
        return []
    return [f"removing {name} {effect}" for name, effect in EFFECTS.items() if name in spec]


def _annotations(obj: dict[str, Any]) -> dict[str, Any]:
    meta = obj.get("metadata")
    anns = meta.get("annotations") if isinstance(meta, dict) else None
    return anns if isinstance(anns, dict) else {}


def _with_annotation(obj: dict[str, Any], key: str, value: str | None) -> dict[str, Any]:
    """``obj`` with annotation ``key`` set to ``value`` (removed for None; an emptied map goes too)."""
    meta = dict(obj.get("metadata") or {})
    anns = dict(meta.get("annotations") or {})
    if value is None:
        anns.pop(key, None)
    else:
        anns[key] = value
    if anns:
        meta["annotations"] = anns
    else:
        meta.pop("annotations", None)
    return {**obj, "metadata": meta}


def _prune(data: Any, ok: Callable[[Any], bool]) -> Any:
    """``data`` with every object member whose removal ``ok`` accepts removed, outermost first."""
    root = copy.deepcopy(data)

    def visit(path: list[str]) -> None:
        nonlocal root
        node = _get(root, path)
        if not isinstance(node, dict):
            return
        for key in list(node):
            if not path and key == "version":
                continue
            trial = copy.deepcopy(root)
            del _get(trial, path)[key]
            if ok(trial):
                root = trial
            else:
                visit([*path, key])

    visit([])
    return root


def _get(data: Any, path: list[str]) -> Any:
    for key in path:
        data = data[key]
    return data


def _leaves(data: Any, prefix: str = "") -> list[str]:
    """``services.<name>.<field>`` (or the top-level field) of each member kept."""
    if not isinstance(data, dict):
        return [prefix] if prefix else []
    out: list[str] = []
    for key, value in data.items():
        path = f"{prefix}.{key}" if prefix else key
        if key == "services" and not prefix and isinstance(value, dict):
            out.extend(f"services.{name}.{field}" for name, fields in value.items()
                       for field in (fields if isinstance(fields, dict) and fields else [""]))
        else:
            out.append(path)
    return [o.rstrip(".") for o in out]


def _reorderable(original: dict[str, Any], obj: dict[str, Any]) -> bool:
    """Whether the components are not in the order of the input's services."""
    return _user_order(original, obj, lambda _: False)[1] != ""


def _user_order(original: dict[str, Any], obj: dict[str, Any], same: Callable[[dict[str, Any]], bool]) -> tuple[dict[str, Any], str]:
    """``obj`` with its components in the order of the input's services, when that renders the same."""
    services = (original.get("spec") or {}).get("services") if isinstance(original.get("spec"), dict) else None
    spec = obj.get("spec")
    components = spec.get("components") if isinstance(spec, dict) else None
    if not isinstance(services, dict) or not isinstance(spec, dict) or not isinstance(components, list):
        return obj, ""
    order = {name: i for i, name in enumerate(services)}
    by_user = sorted(components, key=lambda c: order.get(c.get("name") if isinstance(c, dict) else None, len(order)))
    if by_user == components:
        return obj, ""
    trial = {**obj, "spec": {**spec, "components": by_user}}
    if same(trial):
        return trial, ""
    return obj, ("keeps the components in name order, not the order of services: the order of components is the order of a "
                 "Grove PodCliqueSet's cliques, so the render changes with it")

