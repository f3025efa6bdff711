"""The API server's structural schema admission of a v1alpha1 DCD or DGD ``spec``.

A v1alpha1 object is decoded, pruned, defaulted and validated against the v1alpha1 version of
its CRD before the conversion webhook sees it; errors name the field the user wrote. This
walker does the same over the generated schema tables (renderer/admission/v1alpha1/crd_schema.py),
in the API server's order:

- a ``null`` field is dropped (no v1alpha1 field is nullable), then structural ``default``s fill
  absent fields;
- unknown fields are errors, in Dynamo's own types and inside the embedded Kubernetes types
  (``extraPodSpec``, ``envs``, probes, HPA fields, resource claims) alike, as on the v1beta1
  path: strict field validation refuses them (the API server without it would prune them);
- types, ``enum``, ``minimum``/``maximum``, lengths, ``pattern``, item and property counts,
  ``required``, int32/int64 ranges, and the uniqueness of ``set`` and ``map`` lists;
- the CEL rules, ported in renderer/admission/v1alpha1/cel.py.

The result is the pruned, defaulted ``spec`` (a new object; the input is not modified) and
every problem found, with field paths under ``spec``. Map keys print as ``[key]``
(``spec.services[Frontend].replicas``), as the operator's own field paths do.

Mirrors: k8s.io/apiextensions-apiserver pkg/apiserver/schema/{pruning,defaulting} and
pkg/apiserver/validation (structural schema validation), k8s.io/apiserver CEL validation,
applied to config/crd/bases/nvidia.com_dynamo{component,graph}deployments.yaml v1alpha1.
"""

from __future__ import annotations

import copy
import json
import re
from functools import lru_cache
from typing import Any

from renderer.admission.v1alpha1 import cel
from renderer.admission.v1alpha1.crd_schema import NODES, ROOTS
from renderer.admission.later import later_alpha_field
from renderer.admission.roles import EXPLICIT_ROLES
from renderer.releases import REFERENCE_RELEASE, Release
from renderer.results import Code, Result, Severity, describe_kind, unknown_field_message

# Field paths (property names from the spec; "*" for a map entry) whose value is an embedded
# Kubernetes type rather than one of Dynamo's own.
_COMPONENT_K8S = (
    ("envs",),
    ("extraPodSpec",),
    ("livenessProbe",),
    ("readinessProbe",),
    ("resources", "claims"),
    ("autoscaling", "behavior"),
    ("autoscaling", "metrics"),
    ("frontendSidecar", "envs"),
)
K8S_SUBTREES: dict[str, frozenset[tuple[str, ...]]] = {
    "DynamoComponentDeployment": frozenset(_COMPONENT_K8S),
    "DynamoGraphDeployment": frozenset({("envs",), *(("services", "*", *path) for path in _COMPONENT_K8S)}),
}
_INT_RANGES = {"int32": (-(2**31), 2**31 - 1), "int64": (-(2**63), 2**63 - 1)}


def admit(kind: str, spec: Any, release: Release = REFERENCE_RELEASE) -> tuple[Any, list[Result]]:
    """Prune, default and validate a v1alpha1 ``spec`` of ``kind``; problems under ``spec``.

    The CRD is the one of the selected operator ``release``: from 1.5.0 on a component has
    ``roles`` and its ``multinode`` only ``nodeCount`` (``release_nodes``). Before it, a
    written ``roles`` is refused naming the release that added it.
    """
    if release.ships(EXPLICIT_ROLES):
        out, results = admit_against(release_nodes(), ROOTS[kind], K8S_SUBTREES[kind], spec)
        return out, [later_alpha_field(_role_moved(r), release) for r in results]
    out, results = admit_against(NODES, ROOTS[kind], K8S_SUBTREES[kind], spec)
    return out, [later_alpha_field(_roles_refused(r, release), release) for r in results]


def _roles_refused(result: Result, release: Release) -> Result:
    """An unknown ``roles`` of a component, worded as the field a later release added."""
    if result.code is Code.UNKNOWN_FIELD and re.fullmatch(r"spec(\.services\[[^\]]*\])?\.roles", result.field):
        return Result(
            f"not in operator {release.name}; added in {EXPLICIT_ROLES.release} "
            f"(ai-dynamo/dynamo{EXPLICIT_ROLES.change}: explicit multinode roles)",
            severity=result.severity,
            field=result.field,
            code=Code.UNKNOWN_FIELD,
        )
    return result


def _role_moved(result: Result) -> Result:
    """An unknown ``multinode.leader``/``worker`` under 1.5.0, with where its override went."""
    found = re.fullmatch(r"spec\.services\[[^\]]*\]\.multinode\.(leader|worker)", result.field)
    if result.code is Code.UNKNOWN_FIELD and found:
        role = found.group(1)
        return Result(
            f"{result.message}; operator 1.5.0 moved multinode.{role}.providerOverride to "
            f"roles[name={role}].providerOverride (ai-dynamo/dynamo#14419)",
            severity=result.severity,
            field=result.field,
            code=Code.UNKNOWN_FIELD,
        )
    return result


# A role's name as the 1.5.0 CRD checks it (a DNS-1123 label of at most 63 characters).
_ROLE_NAME = {"maxLength": 63, "minLength": 1, "pattern": "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$", "type": "string"}


@lru_cache(maxsize=1)
def release_nodes() -> tuple[dict[str, Any], ...]:
    """The v1alpha1 schema table of operator 1.5.0: the reference table plus explicit roles.

    Every component spec (a DCD's ``spec``, a DGD's ``spec.services[*]``) gains
    ``roles: [{name, providerOverride}]`` (a DCD's role has no providerOverride: its CRD
    carries no provider override anywhere), and a DGD component's ``multinode`` loses
    ``leader``/``worker``, whose overrides moved to the roles.

    Ported from ai-dynamo/dynamo#14419 (v1.5.0): api/v1alpha1 DynamoComponentDeploymentSharedSpec
    Roles and MultinodeSpec (nodeCount only), as controller-gen writes them into both CRDs.
    """
    nodes = list(NODES)

    def add(node: dict[str, Any]) -> int:
        nodes.append(node)
        return len(nodes) - 1

    name = add(dict(_ROLE_NAME))
    dgd_role = add({"properties": {"name": name, "providerOverride": _OVERRIDE}, "required": ["name"], "type": "object"})
    dcd_role = add({"properties": {"name": name}, "required": ["name"], "type": "object"})
    dgd_roles = add({"items": dgd_role, "type": "array"})
    dcd_roles = add({"items": dcd_role, "type": "array"})
    for index in (_DCD_SPEC, _DGD_COMPONENT):
        node = dict(nodes[index])
        properties = dict(node["properties"])
        properties["roles"] = dcd_roles if index == _DCD_SPEC else dgd_roles
        multinode = dict(nodes[properties["multinode"]])
        multinode["properties"] = {k: v for k, v in multinode["properties"].items() if k not in ("leader", "worker")}
        properties["multinode"] = add(multinode)
        node["properties"] = properties
        nodes[index] = node
    return tuple(nodes)


# The reference table's nodes the 1.5.0 overlay edits: a DCD's spec, a DGD's component, and the
# provider override a DGD component carries.
_DCD_SPEC = ROOTS["DynamoComponentDeployment"]
_DGD_COMPONENT = NODES[NODES[ROOTS["DynamoGraphDeployment"]]["properties"]["services"]]["additionalProperties"]
_OVERRIDE = NODES[_DGD_COMPONENT]["properties"]["providerOverride"]


def admit_against(
    nodes: tuple[dict[str, Any], ...], root: int, k8s: frozenset[tuple[str, ...]], spec: Any, owned: bool = True, strict: bool = True
) -> tuple[Any, list[Result]]:
    """Prune, default and validate ``spec`` against node ``root`` of a generated schema table.

    ``k8s`` names the subtrees that hold embedded Kubernetes types; with ``owned`` False the
    whole spec is treated so. An unknown field is an error in Dynamo's own types, and in the
    embedded ones too when ``strict`` (the policy of renderer.results.unknown_field_message);
    otherwise it is pruned without a word. The v1beta1 DCD CRD uses the same walker
    (renderer/admission/dcd_crd.py).
    """
    walker = _Walker(nodes, k8s, strict)
    out = walker.walk(root, spec, "spec", (), owned=owned)
    return out, walker.results


@lru_cache(maxsize=None)
def _pattern(text: str) -> re.Pattern[str]:
    """An ECMA/RE2 pattern as Python matches it: a final ``$`` is the very end of the text."""
    if text.endswith("$") and not text.endswith("\\$"):
        text = text[:-1] + r"\Z"
    return re.compile(text)


def _show(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


class _Walker:
    def __init__(self, nodes: tuple[dict[str, Any], ...], k8s: frozenset[tuple[str, ...]], strict: bool) -> None:
        self.nodes = nodes
        self.k8s = k8s
        self.strict = strict
        self.results: list[Result] = []

    def error(self, message: str, path: str, severity: Severity = Severity.ERROR, code: Code = Code.SCHEMA) -> None:
        self.results.append(Result(message, severity=severity, field=path, code=code))

    def walk(self, index: int, value: Any, path: str, names: tuple[str, ...], owned: bool) -> Any:
        """Check one value against node ``index``; return it pruned and defaulted."""
        node = self.nodes[index]
        if not self._type_ok(node, value, path):
            return value
        if isinstance(value, dict):
            value = self._object(node, value, path, names, owned)
        elif isinstance(value, list):
            value = self._array(node, value, path, names, owned)
        else:
            self._scalar(node, value, path)
        for text, message, _optional_old_self in node.get("x-kubernetes-validations", ()):
            check = cel.rule(text)
            if check is not None and not check(value):
                self.error(message, path, code=Code.WEBHOOK)
        return value

    def _type_ok(self, node: dict[str, Any], value: Any, path: str) -> bool:
        if node.get("x-kubernetes-int-or-string") or node.get("anyOf") == "integer-or-string":
            ok = isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))
            expected = "integer or string"
        else:
            expected = node.get("type", "")
            ok = {
                "": True,
                "object": isinstance(value, dict),
                "array": isinstance(value, list),
                "string": isinstance(value, str),
                "boolean": isinstance(value, bool),
                "integer": isinstance(value, int) and not isinstance(value, bool),
                "number": isinstance(value, (int, float)) and not isinstance(value, bool),
            }[expected]
        if not ok:
            self.error(f"expected {expected}, got {describe_kind(value)}", path)
        return ok

    def _scalar(self, node: dict[str, Any], value: Any, path: str) -> None:
        if "enum" in node and value not in node["enum"]:
            valid = ", ".join(str(v) for v in node["enum"])
            self.error(f"unsupported value {_show(value)} (valid: {valid})", path)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            if "minimum" in node and value < node["minimum"]:
                self.error(f"must be >= {node['minimum']} (got {value})", path)
            if "maximum" in node and value > node["maximum"]:
                self.error(f"must be <= {node['maximum']} (got {value})", path)
            low_high = _INT_RANGES.get(node.get("format", ""))
            if low_high is not None and isinstance(value, int) and not low_high[0] <= value <= low_high[1]:
                self.error(f"must be between {low_high[0]} and {low_high[1]} (got {value})", path)
        if isinstance(value, str):
            if "minLength" in node and len(value) < node["minLength"]:
                minimum = node["minLength"]
                self.error("must not be empty" if minimum == 1 else f"must be at least {minimum} characters", path)
            if "maxLength" in node and len(value) > node["maxLength"]:
                self.error(f"must be at most {node['maxLength']} characters", path)
            if "pattern" in node and not _pattern(node["pattern"]).search(value):
                self.error(f"must match {node['pattern']} (got {_show(value)})", path)

    def _object(
        self, node: dict[str, Any], value: dict[str, Any], path: str, names: tuple[str, ...], owned: bool
    ) -> dict[str, Any]:
        properties: dict[str, int] = node.get("properties", {})
        extra = node.get("additionalProperties")
        preserve = bool(node.get("x-kubernetes-preserve-unknown-fields"))
        out: dict[str, Any] = {}
        for key, item in value.items():
            if item is None:
                continue  # the API server drops a null field before defaulting
            if key in properties:
                child_names = (*names, str(key))
                child_owned = owned and child_names not in self.k8s
                out[key] = self.walk(properties[key], item, f"{path}.{key}", child_names, child_owned)
            elif isinstance(extra, int):
                child_names = (*names, "*")
                child_owned = owned and child_names not in self.k8s
                out[key] = self.walk(extra, item, f"{path}[{key}]", child_names, child_owned)
            elif preserve or extra is True:
                out[key] = copy.deepcopy(item)
            elif owned or self.strict:
                from renderer import hints  # the error path only

                self.results.append(Result(
                    unknown_field_message(str(key)), field=f"{path}.{key}", code=Code.UNKNOWN_FIELD,
                    hint=hints.did_you_mean(str(key), properties),
                ))
        # Structural defaults fill absent fields; the default itself is then validated.
        for key, child in properties.items():
            if key not in out and "default" in self.nodes[child]:
                child_names = (*names, key)
                out[key] = self.walk(child, copy.deepcopy(self.nodes[child]["default"]), f"{path}.{key}", child_names, owned)
        for key in node.get("required", ()):
            if key not in out:
                self.error("required field missing", f"{path}.{key}")
        if "maxProperties" in node and len(out) > node["maxProperties"]:
            self.error(f"must have at most {node['maxProperties']} entries (got {len(out)})", path)
        if "minProperties" in node and len(out) < node["minProperties"]:
            self.error(f"must have at least {node['minProperties']} entries (got {len(out)})", path)
        return out

    def _array(
        self, node: dict[str, Any], value: list[Any], path: str, names: tuple[str, ...], owned: bool
    ) -> list[Any]:
        items = node.get("items")
        out: list[Any] = []
        for i, item in enumerate(value):
            if isinstance(items, int):
                if item is None:
                    self.error(f"expected {self.nodes[items].get('type') or 'value'}, got null", f"{path}[{i}]")
                    continue
                out.append(self.walk(items, item, f"{path}[{i}]", names, owned))
            else:
                out.append(copy.deepcopy(item))
        if "maxItems" in node and len(out) > node["maxItems"]:
            self.error(f"must have at most {node['maxItems']} items (got {len(out)})", path)
        if "minItems" in node and len(out) < node["minItems"]:
            self.error(f"must have at least {node['minItems']} items (got {len(out)})", path)
        list_type = node.get("x-kubernetes-list-type")
        if list_type == "set":
            seen: set[str] = set()
            for i, item in enumerate(out):
                text = json.dumps(item, sort_keys=True)
                if text in seen:
                    self.error(f"duplicate value {_show(item)}", f"{path}[{i}]")
                seen.add(text)
        elif list_type == "map":
            keys = tuple(node.get("x-kubernetes-list-map-keys", ()))
            seen = set()
            for i, item in enumerate(out):
                if not isinstance(item, dict) or any(item.get(k) is None for k in keys):
                    continue
                text = json.dumps({k: item[k] for k in keys})
                if text in seen:
                    self.error(f"duplicate entry {text} (the list is keyed by {', '.join(keys)})", f"{path}[{i}]")
                seen.add(text)
        return out
