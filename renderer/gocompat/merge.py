"""Merging user pod template data over operator defaults.

The operator merges with ``mergo.Merge(dst, src, mergo.WithOverride)`` (mergo v0.3.16) on typed
Go structs. On our Go-typed normalised dicts (``renderer.gocompat.gotypes``: omitempty zero values are
already absent, pointer zero values are present) that reduces to:

* a non-empty list in the user data replaces the default list wholesale;
* a nested object is merged field by field (Go structs and pointers to structs);
* a scalar replaces the default unless it is a zero value and the default has the field
  (so ``terminationGracePeriodSeconds: 0`` cannot clear the operator's 60, a Go quirk we keep).

Mirrors: github.com/imdario/mergo v0.3.16 deepMerge (WithOverride), internal/dynamo/graph.go
MergeEnvs and mergeContainerByName.
"""

from __future__ import annotations

import copy
from typing import Any

from renderer import consts

_ZERO_SCALARS = ("", 0, False)
_IMMUTABLE = (str, int, float, bool, type(None))


def copy_json(value: Any) -> Any:
    """A deep copy of a JSON-shaped tree (dicts, lists, scalars), several times faster than ``copy.deepcopy``.

    Scalars are immutable and shared; any other type falls back to ``copy.deepcopy``. Unlike
    ``copy.deepcopy``, a sub-tree that appears twice is copied twice (no identity is kept),
    which changes nothing for data.
    """
    kind = type(value)
    if kind is dict:
        return {key: copy_json(item) for key, item in value.items()}
    if kind is list:
        return [copy_json(item) for item in value]
    if kind in _IMMUTABLE:
        return value
    return copy.deepcopy(value)


def _is_zero(value: Any) -> bool:
    if value is None:
        return True
    if isinstance(value, (dict, list)):
        return len(value) == 0
    return any(value == zero and type(value) is type(zero) for zero in _ZERO_SCALARS)


def merge_override(base: dict[str, Any], user: dict[str, Any]) -> dict[str, Any]:
    """Return ``base`` with ``user`` merged over it (neither input is modified)."""
    out = dict(base)
    for key, value in user.items():
        current = out.get(key)
        if isinstance(value, dict) and isinstance(current, dict):
            out[key] = merge_override(current, value)
        elif isinstance(value, list):
            if value or key not in out:
                out[key] = copy_json(value)
        elif _is_zero(value) and key in out:
            continue
        else:
            out[key] = copy_json(value)
    return out


def merge_envs(common: list[dict[str, Any]], specific: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Merge two env lists by name (later wins) and sort by name, byte-wise.

    Mirrors: internal/dynamo/graph.go MergeEnvs.
    """
    merged: dict[str, dict[str, Any]] = {}
    for env in common:
        merged[env.get("name", "")] = env
    for env in specific:
        merged[env.get("name", "")] = env
    return [merged[name] for name in sorted(merged)]


def merge_main_container(base: dict[str, Any], user: dict[str, Any] | None) -> dict[str, Any]:
    """Merge the user's ``main`` container over the component defaults.

    Probes the user sets replace the default probe whole; env is merged by name and sorted.
    Mirrors: internal/dynamo/graph.go mergeContainerByName.
    """
    if user is None:
        return base
    user = dict(user, name=consts.MAIN_CONTAINER_NAME)
    merged = merge_override(base, user)
    merged["env"] = merge_envs(base.get("env") or [], user.get("env") or [])
    for probe in ("livenessProbe", "readinessProbe", "startupProbe"):
        if user.get(probe) is not None:
            merged[probe] = copy_json(user[probe])
    merged["name"] = consts.MAIN_CONTAINER_NAME
    return _drop_empty_env(merged)


def _drop_empty_env(container: dict[str, Any]) -> dict[str, Any]:
    if not container.get("env"):
        container.pop("env", None)
    return container


def merge_probe(base: dict[str, Any] | None, user: dict[str, Any] | None) -> dict[str, Any] | None:
    """Field-wise probe merge (used for the frontend sidecar, where probes are not replaced).

    Go's IntOrString is a struct merged field by field, so a user integer port merged over the
    default named port keeps the name: the integer lands in IntVal while Type stays String.
    Mirrors: mergo deepMerge on corev1.Probe (intstr.IntOrString field merge).
    """
    if user is None:
        return base
    if base is None:
        copied: dict[str, Any] = copy_json(user)
        return copied
    merged = merge_override(base, user)
    for handler in ("httpGet", "tcpSocket"):
        base_port = (base.get(handler) or {}).get("port")
        user_port = (user.get(handler) or {}).get("port")
        if isinstance(base_port, str) and isinstance(user_port, int):
            merged[handler] = dict(merged[handler], port=base_port)
    return merged
