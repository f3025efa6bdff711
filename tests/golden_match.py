"""Matching rendered objects against golden expectations with the operator's directives.

The expected documents use the directive language of the operator's own golden harness
(internal/testing/golden): mappings are strict unless they say ``$strict: false``; scalar
strings ``$ignore``, ``$exists``, ``$notexists``, ``$pattern:<re>`` (anchored) and
``$glob:<glob>``, ``$var:<name>`` (any string, the same one everywhere the variable appears
in a stream, as the upstream harness binds its variables, e.g. the live worker hash); one-key mappings ``{$ignore: true}``, ``{$exists: true}``,
``{$notexists: true}``. This lets upstream expectations be restated as written, including the
parts they deliberately leave open.
"""

from __future__ import annotations

import fnmatch
import re
from typing import Any

_MISSING = object()


def _is_directive_mapping(value: Any) -> str | None:
    if isinstance(value, dict) and len(value) == 1:
        (key, flag), = value.items()
        if key in ("$ignore", "$exists", "$notexists") and flag is True:
            return key
    return None


def match(expected: Any, actual: Any, path: str = "", variables: dict[str, Any] | None = None) -> list[str]:
    """Every difference between ``expected`` (with directives) and ``actual``.

    ``variables`` holds the ``$var:`` bindings made so far (a fresh dict when None).
    """
    if variables is None:
        variables = {}
    directive = _is_directive_mapping(expected)
    if directive == "$notexists":
        return [] if actual is _MISSING else [f"{path}: expected to be absent, got {actual!r}"]
    if actual is _MISSING:
        if isinstance(expected, str) and expected == "$notexists":
            return []
        return [f"{path}: missing (expected {expected!r})"]
    if directive in ("$ignore", "$exists"):
        return [] if isinstance(actual, dict) else [f"{path}: expected a mapping, got {actual!r}"]
    if isinstance(expected, str) and expected.startswith("$"):
        return _match_scalar_directive(expected, actual, path, variables)
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return [f"{path}: expected a mapping, got {actual!r}"]
        strict = expected.get("$strict", True)
        problems: list[str] = []
        for key, value in expected.items():
            if key == "$strict":
                continue
            real_key = key[1:] if isinstance(key, str) and key.startswith("$$") else key
            problems.extend(match(value, actual.get(real_key, _MISSING), f"{path}.{real_key}" if path else str(real_key), variables))
        if strict:
            wanted = {k[1:] if isinstance(k, str) and k.startswith("$$") else k for k in expected if k != "$strict"}
            for key in actual:
                if key not in wanted:
                    problems.append(f"{path}.{key}: unexpected field (value {actual[key]!r})")
        return problems
    if isinstance(expected, list):
        if not isinstance(actual, list):
            return [f"{path}: expected a list, got {actual!r}"]
        if len(expected) != len(actual):
            return [f"{path}: expected {len(expected)} items, got {len(actual)}: {actual!r}"]
        problems = []
        for i, (want, got) in enumerate(zip(expected, actual)):
            problems.extend(match(want, got, f"{path}[{i}]", variables))
        return problems
    if type(expected) is not type(actual) or expected != actual:
        return [f"{path}: expected {expected!r}, got {actual!r}"]
    return []


def _match_scalar_directive(expected: str, actual: Any, path: str, variables: dict[str, Any]) -> list[str]:
    if expected.startswith("$$"):
        return [] if actual == expected[1:] else [f"{path}: expected {expected[1:]!r}, got {actual!r}"]
    if expected in ("$ignore", "$exists"):
        if isinstance(actual, (dict, list)):
            return [f"{path}: expected a scalar, got {actual!r}"]
        return []
    if expected == "$notexists":
        return [f"{path}: expected to be absent, got {actual!r}"]
    if expected.startswith("$pattern:"):
        pattern = expected[len("$pattern:") :]
        if isinstance(actual, str) and re.fullmatch(pattern, actual):
            return []
        return [f"{path}: {actual!r} does not match pattern {pattern!r}"]
    if expected.startswith("$var:"):
        name = expected[len("$var:") :]
        if not isinstance(actual, str):
            return [f"{path}: expected a string for variable {name!r}, got {actual!r}"]
        bound = variables.setdefault(name, actual)
        return [] if bound == actual else [f"{path}: variable {name!r} is {bound!r} elsewhere, got {actual!r}"]
    if expected.startswith("$glob:"):
        pattern = expected[len("$glob:") :]
        if isinstance(actual, str) and "/" not in actual and fnmatch.fnmatchcase(actual, pattern):
            return []
        return [f"{path}: {actual!r} does not match glob {pattern!r}"]
    return [] if actual == expected else [f"{path}: expected {expected!r}, got {actual!r}"]


def _gvk(obj: Any) -> tuple[str, str]:
    return (obj.get("apiVersion", ""), obj.get("kind", "")) if isinstance(obj, dict) else ("", "")


def _name(obj: Any) -> Any:
    return (obj.get("metadata") or {}).get("name", "") if isinstance(obj, dict) else ""


def match_stream(expected: list[Any], actual: list[Any], partial: bool = False) -> list[str]:
    """Match documents one to one, grouped by apiVersion/kind.

    With ``partial`` only the kinds that appear in ``expected`` are checked (the upstream
    harness's rule); otherwise every actual object must be expected.
    """
    problems: list[str] = []
    claimed: set[int] = set()
    variables: dict[str, Any] = {}
    for want in expected:
        gvk = _gvk(want)
        candidates = [i for i, got in enumerate(actual) if _gvk(got) == gvk and i not in claimed]
        name = _name(want)
        named = [i for i in candidates if not match(name, _name(actual[i]), "metadata.name")]
        if not named:
            problems.append(f"{gvk[1]}/{name}: no such object rendered (have: {[_name(actual[i]) for i in candidates]})")
            continue
        best = min(named, key=lambda i: len(match(want, actual[i], "", dict(variables))))
        claimed.add(best)
        problems.extend(f"{gvk[1]}/{_name(actual[best])} {p}" for p in match(want, actual[best], "", variables))
    kinds = {_gvk(w) for w in expected}
    for i, got in enumerate(actual):
        if i in claimed or (partial and _gvk(got) not in kinds):
            continue
        problems.append(f"unexpected object {_gvk(got)[1]}/{_name(got)}")
    return problems
