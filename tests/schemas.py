"""Offline schema validation of rendered Kubernetes objects (test support only).

Checks what the API server would check at admission, as far as that can be done offline:

- Built-in kinds (core, apps, rbac, networking, ...): the JSON schemas that kubernetes-validate
  bundles for Kubernetes 1.36 (the Dynamo operator pins k8s.io/api v0.36.2), in the *strict*
  flavour (``additionalProperties: false`` everywhere), so a field the API server would drop is an
  error. Two tightenings: ``format: int32/int64`` ranges are checked, and string Quantities must
  match the apimachinery quantity syntax (the bundled schema accepts any string).
- CRD kinds with a vendored CRD in ``tests/data/crds`` (``CRD_FILES``): the served version's
  ``openAPIV3Schema`` translated to JSON Schema by ``structural_to_jsonschema``. An unknown field
  is an error wherever the schema does not preserve unknown fields, because structural pruning
  would silently drop it. ``metadata`` (root and embedded resources) is checked against the core
  ObjectMeta schema, as the API server does. List-map keys and list-set items must be unique.
- Rules no OpenAPI schema states (``syntax_problems``): metadata.name/namespace syntax, label and
  annotation keys and values, ConfigMap data keys, Service ports, container names/ports, volume
  names and volumeMount references, and no ``null`` anywhere (our output never emits nulls; a CRD
  would prune them).
- ``SHAPE_CHECKED_ONLY``: kinds with no schema available offline; only apiVersion, kind and
  metadata are checked. Any other kind without a schema yields ``no schema for <apiVersion>/<kind>``.

Not checked: CEL rules (``x-kubernetes-validations``), admission webhooks (LWS, Dynamo),
immutability, defaulting, and field-level rules that live only in Go validation code beyond the
ones listed above.

Why the LeaderWorkerSet pod templates are *not* re-validated against the core PodTemplateSpec:
the v0.9.0 CRD embeds the complete PodTemplateSpec (every field, required list, type and enum of
core 1.36, plus quantity patterns the core schema lacks); only embedded ObjectMeta (the template
``metadata`` and ephemeral volumeClaimTemplate metadata) is narrowed to
name/namespace/labels/annotations/finalizers, which is what the API server keeps after pruning. The CRD check is therefore at least as strict as the core one
(tests/unit/test_schemas.py::test_lws_crd_pod_template_is_not_looser_than_core proves it).
"""

from __future__ import annotations

import functools
import importlib.resources
import json
import re
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

import jsonschema
import yaml
from jsonschema import Draft4Validator, Draft202012Validator, FormatChecker, ValidationError
from referencing import Registry, Resource

KUBERNETES_VERSION = "1.36"
CORE_SCHEMA_FLAVOUR = f"v{KUBERNETES_VERSION}.0-local-strict"
CRD_DIR = Path(__file__).parent / "data" / "crds"

# (group, kind) -> vendored CRD file in CRD_DIR. Explicit; no discovery.
CRD_FILES: dict[tuple[str, str], str] = {
    ("leaderworkerset.x-k8s.io", "LeaderWorkerSet"): "leaderworkerset.x-k8s.io_leaderworkersets.v0.9.0.yaml",
    ("nvidia.com", "DynamoComponentDeployment"): "nvidia.com_dynamocomponentdeployments.yaml",
    ("nvidia.com", "DynamoGraphDeployment"): "nvidia.com_dynamographdeployments.yaml",
    ("nvidia.com", "DynamoGraphDeploymentScalingAdapter"): "nvidia.com_dynamographdeploymentscalingadapters.yaml",
    ("nvidia.com", "DynamoGraphDeploymentRequest"): "nvidia.com_dynamographdeploymentrequests.yaml",
    ("inference.networking.k8s.io", "InferencePool"): "inference.networking.k8s.io_inferencepools.v1.2.0.yaml",
    ("grove.io", "PodCliqueSet"): "grove.io_podcliquesets.v0.1.0-alpha.12-rc1.yaml",
}

# (apiVersion, kind) -> why no schema is available. Only apiVersion, kind and metadata are checked
# for these. Keep this list small: every entry is a kind whose content no test can prove valid.
SHAPE_CHECKED_ONLY: dict[tuple[str, str], str] = {
    ("networking.istio.io/v1beta1", "VirtualService"): (
        "Istio CRDs are generated from protobuf and not vendored; the operator builds it from "
        "istio.io/client-go networking/v1beta1 (dynamocomponentdeployment_controller.go)"
    ),
    ("networking.istio.io/v1beta1", "DestinationRule"): (
        "Istio CRDs are generated from protobuf and not vendored; the operator builds it from "
        "istio.io/client-go networking/v1beta1 (internal/dynamo/graph.go GenerateEPPDestinationRule)"
    ),
}

_OBJECTMETA_REF = "https://kubernetes.io/api/_definitions.json#/$defs/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
_QUANTITY_DEF = "io.k8s.apimachinery.pkg.api.resource.Quantity"
# The pattern controller-gen emits for resource.Quantity (also in the vendored CRDs).
QUANTITY_PATTERN = (
    r"^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$"
)
_MAX_MESSAGE = 300

# --- format checks shared by the core and CRD validators --------------------------------------

FORMATS = FormatChecker(formats=())


def _is_int32(value: object) -> bool:
    return not isinstance(value, int) or isinstance(value, bool) or -(2**31) <= value < 2**31


def _is_int64(value: object) -> bool:
    return not isinstance(value, int) or isinstance(value, bool) or -(2**63) <= value < 2**63


FORMATS.checks("int32")(_is_int32)
FORMATS.checks("int64")(_is_int64)


# --- built-in kinds: kubernetes-validate's bundled schemas ------------------------------------


def _core_schema_dir() -> Any:
    """The bundled strict schema directory for KUBERNETES_VERSION; fail loudly if absent."""
    root = importlib.resources.files("kubernetes_validate") / "kubernetes-json-schema" / CORE_SCHEMA_FLAVOUR
    if not root.joinpath("_definitions.json").is_file():
        raise RuntimeError(
            f"kubernetes-validate has no {CORE_SCHEMA_FLAVOUR} schemas (need kubernetes-validate >= 1.36)"
        )
    return root


@functools.cache
def _core_registry() -> Registry:
    """Load the 5 MB definitions document once; tighten Quantity; build the referencing registry."""
    defs = json.loads(_core_schema_dir().joinpath("_definitions.json").read_text())
    quantity = defs["$defs"][_QUANTITY_DEF]
    defs["$defs"][_QUANTITY_DEF] = {
        "description": quantity.get("description", ""),
        "type": ["string", "number", "null"],
        "pattern": QUANTITY_PATTERN,
    }
    return Resource.from_contents(defs) @ Registry()


_GROUP_DOMAIN = re.compile(r"^([^./]*)(?:\.[^/]*)?/")


def _core_schema_file(api_version: str, kind: str) -> str:
    """kubernetes-validate's file naming: rbac.authorization.k8s.io/v1 Role -> role-rbac-v1.json."""
    group_version = _GROUP_DOMAIN.sub(r"\1-", api_version)
    return f"{kind.lower()}-{group_version}.json"


@functools.cache
def _core_validator(api_version: str, kind: str) -> Draft202012Validator | None:
    """A cached validator for a built-in kind, or None when kubernetes-validate has no schema.

    The file name alone is ambiguous (apps.example.com/v1 maps to the same file as apps/v1), so
    the schema's own x-kubernetes-group-version-kind must name exactly this group/version/kind.
    """
    path = _core_schema_dir().joinpath(_core_schema_file(api_version, kind))
    if not path.is_file():
        return None
    schema = json.loads(path.read_text())
    group, _, version = api_version.rpartition("/")
    gvks = schema.get("x-kubernetes-group-version-kind") or []
    if {"group": group, "version": version, "kind": kind} not in gvks:
        return None
    return Draft202012Validator(schema, registry=_core_registry(), format_checker=FORMATS)


@functools.cache
def _objectmeta_validator() -> Draft202012Validator:
    return Draft202012Validator({"$ref": _OBJECTMETA_REF}, registry=_core_registry(), format_checker=FORMATS)


# --- CRD kinds: vendored CRDs, structural schema -> JSON Schema -------------------------------

_PASS_THROUGH = frozenset(
    {
        "type", "required", "enum", "pattern", "format", "default",
        "minLength", "maxLength", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
        "multipleOf", "minItems", "maxItems", "uniqueItems", "minProperties", "maxProperties",
        "x-kubernetes-list-type", "x-kubernetes-list-map-keys",
    }
)  # fmt: skip


def structural_to_jsonschema(node: Mapping[str, Any], *, root: bool = False) -> dict[str, Any]:
    """Translate one CRD (OpenAPI v3 structural) schema node into a Draft 4 JSON Schema.

    - ``type: object`` without ``additionalProperties`` and without
      ``x-kubernetes-preserve-unknown-fields`` gets ``additionalProperties: false``: the API
      server would prune the unknown field, which for rendered output means a lost setting.
    - ``x-kubernetes-preserve-unknown-fields`` keeps unknown fields (and, without a type, any value).
    - ``x-kubernetes-int-or-string`` without an explicit ``anyOf`` becomes integer-or-string.
    - ``nullable: true`` admits null.
    - ``x-kubernetes-embedded-resource`` requires apiVersion and kind and checks metadata as ObjectMeta.
    - root ``metadata`` is checked as ObjectMeta (the CRD only says ``type: object``).
    - list-type/map-keys are kept and enforced by the ``x-kubernetes-list-type`` keyword.
    Descriptions and CEL rules are dropped.
    """
    out: dict[str, Any] = {k: v for k, v in node.items() if k in _PASS_THROUGH}
    if "properties" in node:
        out["properties"] = {k: structural_to_jsonschema(v) for k, v in node["properties"].items()}
    if isinstance(node.get("items"), Mapping):
        out["items"] = structural_to_jsonschema(node["items"])
    additional = node.get("additionalProperties")
    if isinstance(additional, Mapping):
        out["additionalProperties"] = structural_to_jsonschema(additional)
    elif isinstance(additional, bool):
        out["additionalProperties"] = additional
    for keyword in ("allOf", "anyOf", "oneOf"):
        if keyword in node:
            out[keyword] = [structural_to_jsonschema(s) for s in node[keyword]]
    if "not" in node:
        out["not"] = structural_to_jsonschema(node["not"])
    if node.get("nullable") is True:
        if "type" in out:
            out["type"] = [out["type"], "null"]
        if "enum" in out:
            out["enum"] = [*out["enum"], None]
    if node.get("x-kubernetes-int-or-string") is True and "type" not in out and "anyOf" not in out:
        out["anyOf"] = [{"type": "integer"}, {"type": "string"}]
    if node.get("x-kubernetes-embedded-resource") is True:
        properties = out.setdefault("properties", {})
        properties.setdefault("apiVersion", {"type": "string"})
        properties.setdefault("kind", {"type": "string"})
        properties["metadata"] = {"x-objectmeta": True}
        out["required"] = sorted({*out.get("required", []), "apiVersion", "kind"})
    if root:
        out.setdefault("properties", {})["metadata"] = {"x-objectmeta": True}
    preserve = node.get("x-kubernetes-preserve-unknown-fields") is True
    if out.get("type") == "object" and "additionalProperties" not in out and not preserve:
        out["additionalProperties"] = False
    return out


def _list_type(validator: Any, list_type: str, instance: Any, schema: Mapping[str, Any]) -> Iterator[ValidationError]:
    """Enforce x-kubernetes-list-type set/map uniqueness, as the apiextensions-apiserver does.

    Map keys absent from an item take the key field's schema default (the API server defaults
    before it validates), so two ports without protocol collide as TCP.
    """
    if not validator.is_type(instance, "array"):
        return
    if list_type == "set":
        for i, item in enumerate(instance):
            if item in instance[:i]:
                yield ValidationError(f"duplicate value {_short(item)} in a list-type set", path=[i])
    elif list_type == "map":
        keys = schema.get("x-kubernetes-list-map-keys") or []
        item_properties = (schema.get("items") or {}).get("properties") or {}
        seen: dict[str, int] = {}
        for i, item in enumerate(instance):
            if not isinstance(item, dict):
                continue
            key = {k: item.get(k, (item_properties.get(k) or {}).get("default")) for k in keys}
            token = json.dumps(key, sort_keys=True)
            if token in seen:
                yield ValidationError(f"duplicate entry for list-map key {token} (first at [{seen[token]}])", path=[i])
            else:
                seen[token] = i


def _objectmeta(validator: Any, enabled: bool, instance: Any, schema: Mapping[str, Any]) -> Iterator[ValidationError]:
    if enabled:
        yield from _objectmeta_validator().iter_errors(instance)


CRDValidator = jsonschema.validators.extend(
    Draft4Validator, {"x-kubernetes-list-type": _list_type, "x-objectmeta": _objectmeta}
)


@functools.cache
def _load_crd(filename: str) -> dict[str, Any]:
    with open(CRD_DIR / filename, "rb") as f:
        crd: dict[str, Any] = yaml.load(f, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))  # safe, C-accelerated
    return crd


@functools.cache
def _crd_validator(api_version: str, kind: str) -> Any | None:
    """A cached validator for a served version of a vendored CRD, or None."""
    group, _, version = api_version.rpartition("/")
    filename = CRD_FILES.get((group, kind))
    if filename is None:
        return None
    crd = _load_crd(filename)
    if crd["spec"]["group"] != group or crd["spec"]["names"]["kind"] != kind:
        raise RuntimeError(f"{filename} does not define {group}/{kind}")
    for entry in crd["spec"]["versions"]:
        if entry["name"] == version and entry.get("served", False):
            schema = structural_to_jsonschema(entry["schema"]["openAPIV3Schema"], root=True)
            return CRDValidator(schema, format_checker=FORMATS)
    return None


# --- rules the schemas do not state (k8s.io/apimachinery/pkg/util/validation) -----------------

_DNS1123_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")
_DNS1123_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
_DNS1035_LABEL = re.compile(r"[a-z]([-a-z0-9]*[a-z0-9])?")
_QUALIFIED_NAME = re.compile(r"([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]")
_LABEL_VALUE = re.compile(r"(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?")
_CONFIGMAP_KEY = re.compile(r"[-._a-zA-Z0-9]+")
_PORT_NAME = re.compile(r"[-a-z0-9]+")
_TOTAL_ANNOTATION_BYTES = 256 * 1024
_PROTOCOLS = ("TCP", "UDP", "SCTP")

# kind -> paths of the pod specs it embeds (explicit; extend when the renderer emits more kinds)
POD_SPEC_PATHS: dict[str, tuple[tuple[str, ...], ...]] = {
    "Deployment": (("spec", "template", "spec"),),
    "LeaderWorkerSet": (
        ("spec", "leaderWorkerTemplate", "leaderTemplate", "spec"),
        ("spec", "leaderWorkerTemplate", "workerTemplate", "spec"),
    ),
    "DynamoComponentDeployment": (("spec", "podTemplate", "spec"),),
}


def is_dns1123_label(value: str) -> bool:
    return len(value) <= 63 and _DNS1123_LABEL.fullmatch(value) is not None


def is_dns1123_subdomain(value: str) -> bool:
    return len(value) <= 253 and _DNS1123_SUBDOMAIN.fullmatch(value) is not None


def is_dns1035_label(value: str) -> bool:
    return len(value) <= 63 and _DNS1035_LABEL.fullmatch(value) is not None


def qualified_name_problem(key: str) -> str | None:
    """Why key is not a Kubernetes qualified name ([prefix/]name), or None. IsQualifiedName."""
    parts = key.split("/")
    if len(parts) == 1:
        prefix, name = None, parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            return "prefix part must be non-empty"
        if not is_dns1123_subdomain(prefix):
            return f"prefix part {prefix!r} must be a DNS-1123 subdomain (at most 253 characters)"
    else:
        return "must be a name with an optional DNS subdomain prefix and '/' (e.g. 'example.com/my-name')"
    if not name:
        return "name part must be non-empty"
    if len(name) > 63:
        return f"name part must be no more than 63 characters (got {len(name)})"
    if _QUALIFIED_NAME.fullmatch(name) is None:
        return (
            f"name part {name!r} must consist of alphanumerics, '-', '_' or '.', "
            "and must start and end with an alphanumeric"
        )
    return None


def label_value_problem(value: str) -> str | None:
    """Why value is not a valid label value, or None. IsValidLabelValue."""
    if len(value) > 63:
        return f"must be no more than 63 characters (got {len(value)})"
    if _LABEL_VALUE.fullmatch(value) is None:
        return "must be empty or consist of alphanumerics, '-', '_' or '.', and start and end with an alphanumeric"
    return None


def port_name_problem(name: str) -> str | None:
    """Why name is not an IANA_SVC_NAME, or None. IsValidPortName."""
    if not 1 <= len(name) <= 15:
        return f"must be 1 to 15 characters (got {len(name)})"
    if _PORT_NAME.fullmatch(name) is None:
        return "must contain only lower-case alphanumerics and '-'"
    if not re.search(r"[a-z]", name):
        return "must contain at least one letter"
    if "--" in name or name.startswith("-") or name.endswith("-"):
        return "must not contain '--' or start or end with '-'"
    return None


def _is_port_number(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= 65535


def format_path(path: Iterable[Any]) -> str:
    """JSON-path string: spec.template.spec.containers[0].image, metadata.labels['a.b/c']."""
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        elif re.fullmatch(r"[A-Za-z_$][A-Za-z0-9_-]*", str(part)):
            out += f".{part}" if out else str(part)
        else:
            out += f"[{str(part)!r}]"
    return out


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _problem(path: Iterable[Any], message: str) -> str:
    where = format_path(path)
    if len(message) > _MAX_MESSAGE:
        message = message[: _MAX_MESSAGE - 3] + "..."
    return f"{where}: {message}" if where else message


def _label_map_problems(labels: Mapping[Any, Any], path: tuple[Any, ...]) -> Iterator[str]:
    for key, value in labels.items():
        if not isinstance(key, str):
            yield _problem(path, f"label key {_short(key)} must be a string")
            continue
        why = qualified_name_problem(key)
        if why:
            yield _problem((*path, key), f"invalid label key: {why}")
        if isinstance(value, str):  # other types are the schema's to report
            why = label_value_problem(value)
            if why:
                yield _problem((*path, key), f"invalid label value {_short(value)}: {why}")


def _annotation_problems(annotations: Mapping[Any, Any], path: tuple[Any, ...]) -> Iterator[str]:
    size = 0
    for key, value in annotations.items():
        if not isinstance(key, str):
            yield _problem(path, f"annotation key {_short(key)} must be a string")
            continue
        why = qualified_name_problem(key)
        if why:
            yield _problem((*path, key), f"invalid annotation key: {why}")
        size += len(key.encode()) + (len(value.encode()) if isinstance(value, str) else 0)
    if size > _TOTAL_ANNOTATION_BYTES:
        yield _problem(path, f"annotations total {size} bytes (must be at most {_TOTAL_ANNOTATION_BYTES})")


def _walk(node: Any, path: tuple[Any, ...]) -> Iterator[str]:
    """Nulls anywhere; label/annotation syntax in every metadata, matchLabels and nodeSelector."""
    if node is None:
        yield _problem(path, "null value (omit the field instead)")
    elif isinstance(node, list):
        for i, item in enumerate(node):
            yield from _walk(item, (*path, i))
    elif isinstance(node, dict):
        for key, value in node.items():
            child = (*path, key)
            if isinstance(value, dict):
                if key == "metadata":
                    if isinstance(value.get("labels"), dict):
                        yield from _label_map_problems(value["labels"], (*child, "labels"))
                    if isinstance(value.get("annotations"), dict):
                        yield from _annotation_problems(value["annotations"], (*child, "annotations"))
                elif key in ("matchLabels", "nodeSelector"):
                    yield from _label_map_problems(value, child)
            yield from _walk(value, child)


def _data_key_problems(data: Mapping[Any, Any], field: str) -> Iterator[str]:
    """ConfigMap/Secret keys, after IsConfigMapKey."""
    for key in data:
        if not isinstance(key, str) or len(key) > 253 or not _CONFIGMAP_KEY.fullmatch(key) or key.startswith(".."):
            yield _problem(
                (field,),
                f"invalid key {_short(key)} (at most 253 alphanumerics, '-', '_' or '.', not starting with '..')",
            )


def _get(node: Any, path: Iterable[Any]) -> Any:
    for key in path:
        if isinstance(node, list) and isinstance(key, int):
            node = node[key] if 0 <= key < len(node) else None
            continue
        if not isinstance(node, dict):
            return None
        node = node.get(key)
    return node


def _service_problems(spec: Any) -> Iterator[str]:
    """Service ports and selector, after ValidateService (pkg/apis/core/validation)."""
    if not isinstance(spec, dict):
        return
    if isinstance(spec.get("selector"), dict):
        yield from _label_map_problems(spec["selector"], ("spec", "selector"))
    ports = spec.get("ports")
    if not isinstance(ports, list):
        return
    names: set[str] = set()
    pairs: set[tuple[Any, Any]] = set()
    for i, port in enumerate(ports):
        if not isinstance(port, dict):
            continue
        path = ("spec", "ports", i)
        name = port.get("name")
        if name is None and len(ports) > 1:
            yield _problem((*path, "name"), "required when a Service has more than one port")
        elif isinstance(name, str):
            if name and not is_dns1123_label(name):
                yield _problem((*path, "name"), f"{name!r} is not a DNS-1123 label")
            if name in names:
                yield _problem((*path, "name"), f"duplicate port name {name!r}")
            names.add(name)
        number = port.get("port")
        if isinstance(number, int) and not _is_port_number(number):
            yield _problem((*path, "port"), f"must be between 1 and 65535 (got {number})")
        protocol = port.get("protocol", "TCP")
        if isinstance(protocol, str) and protocol not in _PROTOCOLS:
            yield _problem((*path, "protocol"), f"unsupported protocol {protocol!r} (valid: {', '.join(_PROTOCOLS)})")
        if (number, protocol) in pairs:
            yield _problem(path, f"duplicate port {number}/{protocol}")
        pairs.add((number, protocol))
        target = port.get("targetPort")
        if isinstance(target, bool):
            pass  # the schema reports the type
        elif isinstance(target, int) and not _is_port_number(target):
            yield _problem((*path, "targetPort"), f"must be between 1 and 65535 (got {target})")
        elif isinstance(target, str):
            why = port_name_problem(target)
            if why:
                yield _problem((*path, "targetPort"), f"{target!r} is not a valid port name: {why}")


def _pod_spec_problems(spec: Any, path: tuple[Any, ...]) -> Iterator[str]:
    """Container names and ports, volume names, volumeMount references (ValidatePodSpec)."""
    if not isinstance(spec, dict):
        return
    volume_names: set[str] = set()
    for i, volume in enumerate(spec.get("volumes") or []):
        name = volume.get("name") if isinstance(volume, dict) else None
        if isinstance(name, str):
            if not is_dns1123_label(name):
                yield _problem((*path, "volumes", i, "name"), f"{name!r} is not a DNS-1123 label")
            if name in volume_names:
                yield _problem((*path, "volumes", i, "name"), f"duplicate volume name {name!r}")
            volume_names.add(name)
    container_names: set[str] = set()
    for field in ("initContainers", "containers"):
        for i, container in enumerate(spec.get(field) or []):
            if not isinstance(container, dict):
                continue
            cpath = (*path, field, i)
            name = container.get("name")
            if isinstance(name, str):
                if not is_dns1123_label(name):
                    yield _problem((*cpath, "name"), f"{name!r} is not a DNS-1123 label")
                if name in container_names:
                    yield _problem((*cpath, "name"), f"duplicate container name {name!r}")
                container_names.add(name)
            port_names: set[str] = set()
            for j, port in enumerate(container.get("ports") or []):
                if not isinstance(port, dict):
                    continue
                ppath = (*cpath, "ports", j)
                number = port.get("containerPort")
                if isinstance(number, int) and not _is_port_number(number):
                    yield _problem((*ppath, "containerPort"), f"must be between 1 and 65535 (got {number})")
                host = port.get("hostPort")
                if isinstance(host, int) and host != 0 and not _is_port_number(host):
                    yield _problem((*ppath, "hostPort"), f"must be between 1 and 65535 (got {host})")
                protocol = port.get("protocol", "TCP")
                if isinstance(protocol, str) and protocol not in _PROTOCOLS:
                    yield _problem(
                        (*ppath, "protocol"), f"unsupported protocol {protocol!r} (valid: {', '.join(_PROTOCOLS)})"
                    )
                port_name = port.get("name")
                if isinstance(port_name, str):
                    why = port_name_problem(port_name)
                    if why:
                        yield _problem((*ppath, "name"), f"{port_name!r} is not a valid port name: {why}")
                    if port_name in port_names:
                        yield _problem((*ppath, "name"), f"duplicate port name {port_name!r}")
                    port_names.add(port_name)
            for j, mount in enumerate(container.get("volumeMounts") or []):
                mount_name = mount.get("name") if isinstance(mount, dict) else None
                if isinstance(mount_name, str) and mount_name not in volume_names:
                    yield _problem((*cpath, "volumeMounts", j, "name"), f"volume {mount_name!r} not found in volumes")


def syntax_problems(obj: Mapping[str, Any]) -> list[str]:
    """Problems the OpenAPI schemas cannot express, for any kind."""
    kind = obj.get("kind")
    problems: list[str] = []
    metadata = obj.get("metadata")
    name = metadata.get("name") if isinstance(metadata, dict) else None
    if not isinstance(name, str) or not name:
        problems.append(_problem(("metadata", "name"), "required"))
    elif kind == "Service" and not is_dns1035_label(name):
        problems.append(
            _problem(
                ("metadata", "name"),
                f"{name!r} is not a DNS-1035 label (lower-case alphanumerics and '-', "
                "start with a letter, end alphanumeric, at most 63 characters)",
            )
        )
    elif kind != "Service" and not is_dns1123_subdomain(name):
        problems.append(
            _problem(
                ("metadata", "name"),
                f"{name!r} is not a DNS-1123 subdomain (lower-case alphanumerics, '-' "
                "and '.', start and end alphanumeric, at most 253 characters)",
            )
        )
    namespace = metadata.get("namespace") if isinstance(metadata, dict) else None
    if isinstance(namespace, str) and not is_dns1123_label(namespace):
        problems.append(_problem(("metadata", "namespace"), f"{namespace!r} is not a DNS-1123 label"))

    if kind in ("ConfigMap", "Secret"):
        for field in ("data", "binaryData", "stringData"):
            if isinstance(obj.get(field), dict):
                problems.extend(_data_key_problems(obj[field], field))
    problems.extend(_walk(obj, ()))
    if kind == "Service":
        problems.extend(_service_problems(obj.get("spec")))
    for path in POD_SPEC_PATHS.get(kind, ()) if isinstance(kind, str) else ():
        problems.extend(_pod_spec_problems(_get(obj, path), path))
    if kind == "PodCliqueSet":
        cliques = _get(obj, ("spec", "template", "cliques"))
        for i, _clique in enumerate(cliques if isinstance(cliques, list) else []):
            path = ("spec", "template", "cliques", i, "spec", "podSpec")
            problems.extend(_pod_spec_problems(_get(obj, path), path))
    return problems


# --- entry points ------------------------------------------------------------------------------


def _schema_problems(validator: Any, instance: Any, prefix: tuple[Any, ...] = ()) -> list[str]:
    errors = sorted(validator.iter_errors(instance), key=lambda e: (format_path(e.absolute_path), e.message))
    return [_problem((*prefix, *e.absolute_path), e.message) for e in errors]


def schema_source(api_version: str, kind: str) -> str | None:
    """What validate_object checks this kind against: 'kubernetes', 'crd', 'shape' or None."""
    if _core_validator(api_version, kind) is not None:
        return "kubernetes"
    if _crd_validator(api_version, kind) is not None:
        return "crd"
    if (api_version, kind) in SHAPE_CHECKED_ONLY:
        return "shape"
    return None


def validate_object(obj: Mapping[str, Any]) -> list[str]:
    """Every problem with one object as human-readable 'field.path: message' lines; [] when valid."""
    if not isinstance(obj, Mapping):
        return [f"not a mapping (got {type(obj).__name__})"]
    api_version, kind = obj.get("apiVersion"), obj.get("kind")
    if not isinstance(api_version, str) or not api_version or not isinstance(kind, str) or not kind:
        return ["apiVersion and kind must be non-empty strings"]
    source = schema_source(api_version, kind)
    if source == "kubernetes":
        problems = _schema_problems(_core_validator(api_version, kind), obj)
    elif source == "crd":
        problems = _schema_problems(_crd_validator(api_version, kind), obj)
    elif source == "shape":
        problems = _schema_problems(_objectmeta_validator(), obj.get("metadata"), ("metadata",))
    else:
        return [f"no schema for {api_version}/{kind}"]
    return problems + syntax_problems(obj)


def object_ref(obj: Mapping[str, Any]) -> str:
    """kyaml-style reference: apps/v1/Deployment/ns/name (namespace omitted when unset)."""
    metadata = obj.get("metadata")
    if not isinstance(metadata, Mapping):
        metadata = {}
    parts = [str(obj.get("apiVersion")), str(obj.get("kind")), metadata.get("namespace"), str(metadata.get("name"))]
    return "/".join(p for p in parts if p)


def assert_valid(objs: Iterable[Mapping[str, Any]] | Mapping[str, Any]) -> None:
    """Fail with every problem of every object listed, one line each: '[index] ref path: message'."""
    if isinstance(objs, Mapping):
        objs = [objs]
    lines: list[str] = []
    for index, obj in enumerate(objs):
        ref = object_ref(obj) if isinstance(obj, Mapping) else "?"
        lines.extend(f"[{index}] {ref} {problem}" for problem in validate_object(obj))
    if lines:
        raise AssertionError(f"{len(lines)} schema problem(s):\n" + "\n".join(lines))
