"""The DGD worker hash: Go's ``json.Marshal`` of the worker DCD templates, byte for byte.

The DGD controller names worker DCDs ``<dgd>-<component>-<hash8>``. The hash is the first
8 hex digits of the SHA-256 of ``json.Marshal(map[component]workerTemplate)``, where a
worker template holds the DCD's workload labels and annotations, the resolved runtime version
(1.5.0 and later only) and the generated ``DynamoComponentDeploymentSpec`` with the
scaling-only fields cleared. Reproducing it means printing exactly what encoding/json prints
for those Go values: struct fields in declaration order, ``omitempty``/``omitzero`` rules,
nil pointers and slices as ``null`` where no tag drops them, map keys sorted, HTML-safe
string escaping, and the values with their own marshalers (``resource.Quantity``,
``metav1.Duration``, apiextensions ``JSON``, ``json.RawMessage``).

Inputs are plain dicts as parsed from YAML or as built by the DGD expansion (camelCase keys).
They are decoded against the generated struct tables (``renderer.gocompat.dynamo_types`` for the
Dynamo types, ``renderer.gocompat.gotypes`` for core/v1) the way the operator's typed client decodes
what the API server returns, then encoded the Go way. A null value or a missing key is a Go
zero value; unknown keys are dropped (the API server prunes them); a value of the wrong type
raises ``RenderError``. Both raw user YAML and an already Go-normalised template give the
same bytes.

Mirrors: internal/dynamo/hash.go ComputeDGDWorkersSpecHash, workerHashSpec,
resolvedRuntimeVersionForHash; internal/dynamo/v1beta1_helpers.go GetDCDKubeLabels,
GetDCDKubeAnnotations; api/v1alpha1/legacy_worker_hash.go ComputeDGDWorkersSpecHash;
encoding/json encode.go (Go 1.26) on the api/v1beta1 and api/v1alpha1 types.
"""

from __future__ import annotations

import copy
import hashlib
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from renderer.admission import api
from renderer import consts
from renderer.gocompat import dynamo_types, gotypes, k8s_types, runtimeversion
from renderer.gocompat.quantity import unmarshal_quantity
from renderer.results import RenderError, describe_kind, unsupported

# the worker hash stands in for itself while the hash inputs are generated
WORKER_HASH_PLACEHOLDER = "worker-hash-placeholder"
# runtimes before this version are left out of the hash (their hashes predate the field)
MINIMUM_HASHED_RUNTIME_VERSION = (1, 5, 0)

_INT_BOUNDS = {"int32": (-(1 << 31), (1 << 31) - 1), "int64": (-(1 << 63), (1 << 63) - 1)}
_SCALAR_ZERO: dict[str, Any] = {"string": "", "bool": False, "int32": 0, "int64": 0, "float64": 0.0}
_OMIT: Any = object()

_LABEL_BASE_MODEL_HASH = "nvidia.com/dynamo-base-model-hash"
_ANNOTATION_BASE_MODEL = "nvidia.com/dynamo-base-model"
_LABEL_SUB_COMPONENT_TYPE = "nvidia.com/dynamo-sub-component-type"
_TOPOLOGY_SOURCE_ANNOTATIONS = consts.TOPOLOGY_SOURCE_ANNOTATION_KEYS


# -- runtime version ------------------------------------------------------------------------


def resolve_runtime_version_for_hash(image: str, override: str) -> str:
    """``MAJOR.MINOR.PATCH`` when the resolved runtime version is 1.5.0 or later, else ``""``.

    The override wins when set (a strict semantic version, no fallback to the image when it
    is invalid); otherwise the main image's tag is read. Unresolvable versions hash as ``""``.

    Mirrors: internal/dynamo/hash.go resolvedRuntimeVersionForHash and
    internal/runtimeversion/runtimeversion.go Resolve
    """
    version = runtimeversion.resolve(image, override)
    if version is None or version < MINIMUM_HASHED_RUNTIME_VERSION:
        return ""
    return runtimeversion.format_version(version)


def main_container_image(spec: Mapping[str, Any]) -> str:
    """The image of the first pod-template container named ``main`` (``""`` when none).

    Mirrors: internal/dynamo/v1beta1_helpers.go GetMainContainer
    """
    template = spec.get("podTemplate")
    pod = template.get("spec") if isinstance(template, Mapping) else None
    containers = pod.get("containers") if isinstance(pod, Mapping) else None
    for container in containers if isinstance(containers, list) else []:
        if isinstance(container, Mapping) and container.get("name") == consts.MAIN_CONTAINER_NAME:
            image = container.get("image")
            return image if isinstance(image, str) else ""
    return ""


# -- Go JSON values -------------------------------------------------------------------------


def _join(parent: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{parent}[{key}]"
    return f"{parent}.{key}" if parent else key


def _type_error(expected: str, value: Any, path: str) -> RenderError:
    return RenderError(f"expected {expected}, got {describe_kind(value)}", path)


def _map_key(key: Any, path: str) -> str:
    """A YAML mapping key as the JSON object key sigs.k8s.io/yaml makes of it."""
    text = gotypes.key_text(key)
    if text is None:
        raise RenderError(f"unsupported map key {key!r}", path)
    return text


def go_float(value: float) -> str:
    """A float64 as encoding/json prints it: shortest digits, ``e`` form below 1e-6 and from 1e21.

    Mirrors: encoding/json encode.go floatEncoder (bits 64)
    """
    if not math.isfinite(value):
        raise ValueError(f"json: unsupported value: {value!r}")
    if value == 0:
        return "-0" if math.copysign(1.0, value) < 0 else "0"
    sign, digit_tuple, exponent = Decimal(repr(value)).as_tuple()
    digits = "".join(map(str, digit_tuple)).rstrip("0") or "0"
    assert isinstance(exponent, int)
    # value = 0.<digits> * 10**point
    point = len("".join(map(str, digit_tuple))) + exponent
    prefix = "-" if sign else ""
    if abs(value) < 1e-6 or abs(value) >= 1e21:
        mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        exp = point - 1
        exp_text = f"{abs(exp):02d}" if exp >= 0 else str(abs(exp))  # Go trims e-07 to e-7
        return f"{prefix}{mantissa}e{'+' if exp >= 0 else '-'}{exp_text}"
    if point <= 0:
        return f"{prefix}0.{'0' * -point}{digits}"
    if point >= len(digits):
        return prefix + digits + "0" * (point - len(digits))
    return f"{prefix}{digits[:point]}.{digits[point:]}"


def go_json(value: Any) -> str:
    """Compact JSON the way encoding/json prints already-ordered values.

    Dict order is kept (callers order struct fields and sort maps); strings get Go's
    HTML-safe escaping; floats Go's number format.

    Mirrors: encoding/json Marshal (compact, escapeHTML)
    """
    if not _contains_float(value):
        return gotypes.go_json_dumps(value)  # one C-accelerated pass; no float to reformat
    parts: list[str] = []
    _emit(value, parts.append)
    return "".join(parts)


def _contains_float(value: Any) -> bool:
    if isinstance(value, float):
        return True
    if isinstance(value, dict):
        return any(_contains_float(v) for v in value.values())
    if isinstance(value, list):
        return any(_contains_float(v) for v in value)
    return False


def _emit(value: Any, write: Callable[[str], Any]) -> None:
    if isinstance(value, str):
        write(gotypes.go_json_dumps(value))
    elif value is None:
        write("null")
    elif value is True:
        write("true")
    elif value is False:
        write("false")
    elif isinstance(value, int):
        write(str(value))
    elif isinstance(value, float):
        write(go_float(value))
    elif isinstance(value, dict):
        write("{")
        for i, (key, item) in enumerate(value.items()):
            if i:
                write(",")
            write(gotypes.go_json_dumps(key))
            write(":")
            _emit(item, write)
        write("}")
    elif isinstance(value, list):
        write("[")
        for i, item in enumerate(value):
            if i:
                write(",")
            _emit(item, write)
        write("]")
    else:
        raise TypeError(f"cannot encode {type(value).__name__} as JSON")


def _raw_json(value: Any, path: str) -> Any:
    """A free-form JSON value as the API server hands it to the operator.

    The API server keeps such values as untyped JSON and serves them re-encoded: object keys
    sorted, integers that fit int64 as integers, every other number as a float64. The
    operator's ``apiextensionsv1.JSON`` / ``json.RawMessage`` keeps those bytes and prints
    them back as they are (compacted, HTML-escaped).

    Mirrors: apiextensions v1 JSON MarshalJSON, encoding/json RawMessage and compact;
    apimachinery unstructured JSON decoding (int64 or float64 numbers)
    """
    if isinstance(value, dict):
        items = {_map_key(k, path): v for k, v in value.items()}
        return {k: _raw_json(items[k], _join(path, k)) for k in sorted(items)}
    if isinstance(value, list):
        return [_raw_json(item, _join(path, i)) for i, item in enumerate(value)]
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int):
        low, high = _INT_BOUNDS["int64"]
        return value if low <= value <= high else float(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise RenderError(f"expected a JSON number, got {value!r}", path)
        low, high = _INT_BOUNDS["int64"]
        if value.is_integer() and low <= value <= high:
            return int(value)
        return value
    raise _type_error("JSON value", value, path)


# -- Go durations ---------------------------------------------------------------------------

_DURATION_UNITS = {
    "ns": 1,
    "us": 1_000,
    "\u00b5s": 1_000,  # micro sign
    "\u03bcs": 1_000,  # Greek mu
    "ms": 1_000_000,
    "s": 1_000_000_000,
    "m": 60_000_000_000,
    "h": 3_600_000_000_000,
}


def parse_go_duration(text: str) -> int:
    """Nanoseconds of a Go duration string (``1h30m``, ``1.5s``, ``-300ms``, ``0``).

    Mirrors: time.ParseDuration
    """
    invalid = ValueError(f'time: invalid duration "{text}"')
    s = text
    neg = False
    if s and s[0] in "+-":
        neg, s = s[0] == "-", s[1:]
    if s == "0":
        return 0
    if not s:
        raise invalid
    total = 0
    while s:
        if not (s[0] == "." or "0" <= s[0] <= "9"):
            raise invalid
        i = 0
        whole = 0
        while i < len(s) and "0" <= s[i] <= "9":
            whole = whole * 10 + ord(s[i]) - 48
            if whole > 1 << 63:
                raise invalid
            i += 1
        pre, s = i > 0, s[i:]
        frac, scale, post = 0, 1.0, False
        if s and s[0] == ".":
            s = s[1:]
            i, overflow = 0, False
            while i < len(s) and "0" <= s[i] <= "9":
                if not overflow:
                    grown = frac * 10 + ord(s[i]) - 48
                    if frac > ((1 << 63) - 1) // 10 or grown > 1 << 63:
                        overflow = True
                    else:
                        frac, scale = grown, scale * 10
                i += 1
            post, s = i > 0, s[i:]
        if not pre and not post:
            raise invalid
        i = 0
        while i < len(s) and not (s[i] == "." or "0" <= s[i] <= "9"):
            i += 1
        if i == 0:
            raise ValueError(f'time: missing unit in duration "{text}"')
        unit_text, s = s[:i], s[i:]
        if unit_text not in _DURATION_UNITS:
            raise ValueError(f'time: unknown unit "{unit_text}" in duration "{text}"')
        unit = _DURATION_UNITS[unit_text]
        if whole > (1 << 63) // unit:
            raise invalid
        value = whole * unit
        if frac > 0:
            value += int(float(frac) * (float(unit) / scale))
            if value > 1 << 63:
                raise invalid
        total += value
        if total > 1 << 63:
            raise invalid
    if neg:
        return -total
    if total > (1 << 63) - 1:
        raise invalid
    return total


def format_go_duration(nanoseconds: int) -> str:
    """``72h3m0.5s``, ``1.5ms``, ``0s``: Go's duration text.

    Mirrors: time.Duration String
    """
    if nanoseconds == 0:
        return "0s"
    sign = "-" if nanoseconds < 0 else ""
    u = abs(nanoseconds)

    def with_fraction(value: int, precision: int) -> tuple[int, str]:
        whole, fraction = divmod(value, 10**precision)
        digits = f"{fraction:0{precision}d}".rstrip("0") if precision else ""
        return whole, f".{digits}" if digits else ""

    if u < 1_000_000_000:
        precision, unit = (0, "ns") if u < 1_000 else (3, "\u00b5s") if u < 1_000_000 else (6, "ms")
        whole, fraction = with_fraction(u, precision)
        return f"{sign}{whole}{fraction}{unit}"
    seconds, fraction = with_fraction(u, 9)
    text = f"{seconds % 60}{fraction}s"
    minutes = seconds // 60
    if minutes:
        text = f"{minutes % 60}m{text}"
        if minutes // 60:
            text = f"{minutes // 60}h{text}"
    return sign + text


# -- typed encoder over the generated tables ------------------------------------------------


class GoEncoder:
    """Decode plain dicts into the Go structs of one table, then encode them as Go does.

    Struct fields come out in Go order, maps sorted. Core/v1 structs are delegated to
    ``renderer.gocompat.gotypes``. Problems raise ``RenderError`` with the field path.

    Mirrors: encoding/json decode.go (into typed values) then encode.go (typeFields,
    isEmptyValue, omitzero), with the marshalers of the leaf types
    """

    def __init__(self, structs: Mapping[str, tuple[tuple[Any, ...], ...]]) -> None:
        self._structs = structs
        for name, rows in structs.items():
            for json_name, _go, shape, _omitempty, omitzero, _inline in rows:
                self._check_shape(shape, f"{name}.{json_name}")
                if omitzero and shape[0] not in _SCALAR_ZERO and shape[0] not in ("ptr", "slice", "map"):
                    raise ValueError(f"{name}.{json_name}: omitzero on {shape[0]} is not supported")

    def _check_shape(self, shape: tuple[Any, ...], where: str) -> None:
        kind = shape[0]
        if kind in ("ptr", "slice"):
            self._check_shape(shape[1], where)
        elif kind == "map":
            if shape[1] != ("string",):
                raise ValueError(f"{where}: unsupported map key shape {shape[1]!r}")
            self._check_shape(shape[2], where)
        elif kind == "struct":
            if shape[1] not in self._structs:
                raise ValueError(f"{where}: struct {shape[1]!r} missing from the table")
        elif kind == "k8s":
            if shape[1] not in k8s_types.STRUCTS:
                raise ValueError(f"{where}: core/v1 struct {shape[1]!r} missing from renderer.gocompat.k8s_types")
        elif kind not in (*_SCALAR_ZERO, "Quantity", "Duration", "Time", "RawJSON", "RawMessage", "ExtraPodSpec", "unsupported"):
            raise ValueError(f"{where}: unsupported Go type shape {shape!r}")

    def encode(self, name: str, data: Any, path: str) -> dict[str, Any]:
        """The named struct decoded from ``data`` (None: the zero struct) and re-encoded."""
        if data is None:
            data = {}
        if not isinstance(data, dict):
            raise _type_error("object", data, path)
        out: dict[str, Any] = {}
        for json_name, _go, shape, omitempty, omitzero, _inline in self._structs[name]:
            raw = data.get(json_name)
            if raw is None:
                value = self._absent(shape, omitempty or omitzero, _join(path, json_name))
            else:
                value = self._value(shape, raw, _join(path, json_name))
                if self._empty(shape, value, omitempty, omitzero):
                    value = _OMIT
            if value is not _OMIT:
                out[json_name] = value
        return out

    def _absent(self, shape: tuple[Any, ...], droppable: bool, path: str) -> Any:
        """What a Go zero value prints as (``_OMIT``: nothing, its tag drops it)."""
        kind = shape[0]
        if kind in _SCALAR_ZERO:
            return _OMIT if droppable else _SCALAR_ZERO[kind]
        if kind in ("ptr", "slice", "map", "RawMessage", "unsupported"):
            return _OMIT if droppable else None
        # non-pointer structs and leaves: omitempty never drops them (omitzero is refused above)
        if kind == "struct":
            return self.encode(shape[1], {}, path)
        if kind == "k8s":
            return self._k8s(shape[1], {}, path)
        return {"Quantity": "0", "Duration": "0s", "RawJSON": None, "Time": None}[kind]

    @staticmethod
    def _empty(shape: tuple[Any, ...], value: Any, omitempty: bool, omitzero: bool) -> bool:
        """A present value that the tag still drops: zero scalars, empty slices and maps."""
        kind = shape[0]
        if kind in _SCALAR_ZERO:
            return (omitempty or omitzero) and value == _SCALAR_ZERO[kind]
        if kind in ("slice", "map"):
            return omitempty and not value
        return False

    def _value(self, shape: tuple[Any, ...], raw: Any, path: str) -> Any:
        kind = shape[0]
        if kind == "string":
            if not isinstance(raw, str):
                raise _type_error("string", raw, path)
            return raw
        if kind == "bool":
            if not isinstance(raw, bool):
                raise _type_error("boolean", raw, path)
            return raw
        if kind in _INT_BOUNDS:
            return _int(kind, raw, path)
        if kind == "float64":
            if isinstance(raw, bool) or not isinstance(raw, (int, float)):
                raise _type_error("number", raw, path)
            if not math.isfinite(raw):
                raise RenderError(f"expected a finite number, got {raw!r}", path)
            return float(raw)
        if kind == "Quantity":
            try:
                return unmarshal_quantity(raw).string()
            except ValueError as err:
                raise RenderError(str(err), path) from None
        if kind == "Duration":
            if not isinstance(raw, str):
                raise _type_error("duration string", raw, path)
            try:
                return format_go_duration(parse_go_duration(raw))
            except ValueError as err:
                raise RenderError(str(err), path) from None
        if kind == "Time":
            return _time(raw, path)
        if kind in ("RawJSON", "RawMessage"):
            return _raw_json(raw, path)
        if kind == "ptr":
            return self._value(shape[1], raw, path)
        if kind == "slice":
            if not isinstance(raw, list):
                raise _type_error("array", raw, path)
            out = []
            for i, item in enumerate(raw):
                if item is None:
                    raise _type_error(_element_name(shape[1]), item, _join(path, i))
                out.append(self._value(shape[1], item, _join(path, i)))
            return out
        if kind == "map":
            if not isinstance(raw, dict):
                raise _type_error("object", raw, path)
            items = {_map_key(k, path): v for k, v in raw.items() if v is not None}
            return {k: self._value(shape[2], items[k], _join(path, k)) for k in sorted(items)}
        if kind == "struct":
            return self.encode(shape[1], raw, path)
        if kind == "k8s":
            return self._k8s(shape[1], raw, path)
        if kind == "ExtraPodSpec":
            return self._extra_pod_spec(raw, path)
        raise unsupported(path, f"{shape[1]} is not modelled")

    @staticmethod
    def _k8s(name: str, raw: Any, path: str) -> Any:
        normalized, problems = gotypes.normalize(name, raw, path)
        for problem in problems:
            if problem.is_error:
                raise RenderError(problem.message, problem.field)
        return normalized

    def _extra_pod_spec(self, raw: Any, path: str) -> dict[str, Any]:
        """The v1alpha1 ExtraPodSpec: the inline PodSpec, its containers moved last, then mainContainer.

        Its MarshalJSON shadows the embedded PodSpec's ``containers`` with an ``omitempty``
        copy declared after the embedded struct, so the list is printed after every PodSpec
        field and only when non-empty.

        Mirrors: api/v1alpha1/common.go ExtraPodSpec MarshalJSON
        """
        if not isinstance(raw, dict):
            raise _type_error("object", raw, path)
        pod_fields = {k: v for k, v in raw.items() if k != "mainContainer"}
        out: dict[str, Any] = {}
        if any(v is not None for v in pod_fields.values()):
            pod = self._k8s("PodSpec", pod_fields, path)
            containers = pod.pop("containers", None)
            out.update(pod)
            if containers:
                out["containers"] = containers
        if raw.get("mainContainer") is not None:
            out["mainContainer"] = self._k8s("Container", raw["mainContainer"], _join(path, "mainContainer"))
        return out


def _time(raw: Any, path: str) -> str | None:
    """A metav1.Time: RFC 3339 in, UTC seconds out; the zero time marshals as null.

    Mirrors: metav1.Time UnmarshalJSON and MarshalJSON
    """
    problems: list[Any] = []
    text = gotypes.decode_time(raw, path, problems)
    if problems:
        raise RenderError(problems[0].message, path)
    return None if text == "0001-01-01T00:00:00Z" else text


def _int(kind: str, raw: Any, path: str) -> int:
    low, high = _INT_BOUNDS[kind]
    if isinstance(raw, bool) or not isinstance(raw, (int, float)):
        raise _type_error(kind, raw, path)
    if isinstance(raw, float):
        if not (math.isfinite(raw) and raw.is_integer()):
            raise RenderError(f"expected {kind}, got non-integral number {raw!r}", path)
        raw = int(raw)
    if not low <= raw <= high:
        raise RenderError(f"expected {kind}, got {raw} (out of range)", path)
    return raw


def _element_name(shape: tuple[Any, ...]) -> str:
    """How a list element of this shape is named in messages."""
    if shape[0] == "ptr":
        return _element_name(shape[1])
    return {"struct": "object", "k8s": "object", "map": "object", "slice": "array"}.get(shape[0], str(shape[0]))


_V1BETA1 = GoEncoder(dynamo_types.V1BETA1)
_V1ALPHA1 = GoEncoder(dynamo_types.V1ALPHA1)


def dcd_spec_go_json(spec: Mapping[str, Any], path: str = "spec") -> str:
    """``json.Marshal`` of a v1beta1 ``DynamoComponentDeploymentSpec`` given as a plain dict.

    Mirrors: encoding/json Marshal on api/v1beta1 DynamoComponentDeploymentSpec (a plain
    struct: the normalising MarshalJSON of marshal.go is declared on the DCD, DGD and DGDR
    objects only, never on the spec)
    """
    return go_json(_V1BETA1.encode(dynamo_types.ROOTS["V1BETA1"], dict(spec), path))


def alpha_shared_spec_go_json(spec: Mapping[str, Any], path: str = "spec") -> str:
    """``json.Marshal`` of a v1alpha1 ``DynamoComponentDeploymentSharedSpec`` given as a plain dict.

    Mirrors: encoding/json Marshal on api/v1alpha1 DynamoComponentDeploymentSharedSpec
    """
    return go_json(_V1ALPHA1.encode(dynamo_types.ROOTS["V1ALPHA1"], dict(spec), path))


# -- the v2 worker hash ---------------------------------------------------------------------

# The CRD's structural defaults of a component spec outside its pod template, as (path,
# value): the API server fills them in before the operator reads the DGD, so they are part
# of the hashed spec. The pod template's own defaults are api.POD_TEMPLATE_SPEC_DEFAULTS.
COMPONENT_CRD_DEFAULTS: tuple[tuple[tuple[str, ...], Any], ...] = (
    (("eppConfig", "configMapRef", "name"), ""),
    (("experimental", "checkpoint", "deletionPolicy"), "Delete"),
    (("experimental", "checkpoint", "identity", "pipelineParallelSize"), 1),
    (("experimental", "checkpoint", "identity", "tensorParallelSize"), 1),
    (("experimental", "checkpoint", "startupPolicy"), "Immediate"),
    (("experimental", "checkpoint", "targetContainerName"), "main"),
    (("experimental", "failover", "mode"), "IntraPod"),
    (("experimental", "failover", "numShadows"), 1),
    (("experimental", "gpuMemoryService", "deviceClassName"), "gpu.nvidia.com"),
    (("experimental", "gpuMemoryService", "mode"), "IntraPod"),
    (("multinode", "nodeCount"), 2),
)


class _Default:
    """A default value at the end of a path (a trie leaf)."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value


def _defaults_trie(table: tuple[tuple[tuple[str, ...], Any], ...]) -> dict[str, Any]:
    trie: dict[str, Any] = {}
    for path, value in table:
        node = trie
        for key in path[:-1]:
            node = node.setdefault(key, {})
        node[path[-1]] = _Default(value)
    return trie


_SPEC_DEFAULTS = _defaults_trie(
    COMPONENT_CRD_DEFAULTS
    + tuple((("podTemplate", "spec", *path), value) for path, value in api.POD_TEMPLATE_SPEC_DEFAULTS)
)


def _with_defaults(node: Any, trie: dict[str, Any]) -> Any:
    """``node`` with the trie's defaults filled in; copies only what changes (``[]``: each item)."""
    if isinstance(node, list):
        sub = trie.get("[]")
        if sub is None:
            return node
        items = [_with_defaults(item, sub) for item in node]
        return items if any(a is not b for a, b in zip(items, node, strict=True)) else node
    if not isinstance(node, dict):
        return node
    out = node
    for key, sub in trie.items():
        if isinstance(sub, _Default):
            if node.get(key) is None:
                out = dict(out) if out is node else out
                out[key] = copy.deepcopy(sub.value)
            continue
        child = node.get(key)
        if child is None:
            continue  # a default never creates its parent
        changed = _with_defaults(child, sub)
        if changed is not child:
            out = dict(out) if out is node else out
            out[key] = changed
    return out


def apply_component_crd_defaults(spec: Mapping[str, Any]) -> dict[str, Any]:
    """The component (or DCD) spec with the CRD's structural defaults filled in.

    A default applies where its parent object exists and the field is absent or null.
    Applying it twice changes nothing. The input is never modified; unchanged parts are
    shared with the result.

    Mirrors: config/crd/bases/nvidia.com_dynamographdeployments.yaml and
    nvidia.com_dynamocomponentdeployments.yaml (v1beta1 ``default:`` markers; both CRDs carry
    the same 58 under a component spec)
    """
    result: dict[str, Any] = _with_defaults(dict(spec), _SPEC_DEFAULTS)
    return result



@dataclass(frozen=True)
class WorkerTemplate:
    """One worker DCD as the v2 hash sees it (the map value of ComputeDGDWorkersSpecHash).

    ``labels``/``annotations`` are the DCD's workload labels and annotations
    (``GetDCDKubeLabels``/``GetDCDKubeAnnotations``, see ``worker_template_from_dcd``),
    ``runtime_version`` the value of ``resolve_runtime_version_for_hash`` and ``spec`` the
    full generated DCD spec dict (replicas and the other scaling fields still in it; they are
    cleared when hashing; CRD defaults are filled in when hashing if still missing). The DCD
    was generated with ``WORKER_HASH_PLACEHOLDER`` as its worker hash.

    Mirrors: internal/dynamo/hash.go workerTemplate
    """

    labels: Mapping[str, str] = field(default_factory=dict)
    annotations: Mapping[str, str] = field(default_factory=dict)
    runtime_version: str = ""
    spec: Mapping[str, Any] = field(default_factory=dict)


def worker_hash_spec(spec: Mapping[str, Any]) -> dict[str, Any]:
    """The spec without the fields that scale the active generation instead of replacing it.

    Mirrors: internal/dynamo/hash.go workerHashSpec
    """
    drop = ("replicas", "minAvailable", "scalingAdapter", "runtimeVersionOverride")
    return {k: v for k, v in spec.items() if k not in drop}


def _string_map(values: Mapping[str, Any], path: str) -> dict[str, str]:
    for key, value in values.items():
        if not isinstance(key, str) or not isinstance(value, str):
            raise RenderError(f"expected a string map, got {describe_kind(value)} for {key!r}", path)
    return {k: values[k] for k in sorted(values)}


def worker_hash_json(workers: Mapping[str, WorkerTemplate]) -> str:
    """The exact bytes ComputeDGDWorkersSpecHash feeds to SHA-256.

    Mirrors: internal/dynamo/hash.go ComputeDGDWorkersSpecHash (json.Marshal of the map)
    """
    document: dict[str, Any] = {}
    for name in sorted(workers):
        template = workers[name]
        if template.spec.get("type") not in consts.WORKER_COMPONENT_TYPES:
            continue  # frontends, planners and EPPs never reach the hash
        where = f"workers[{name}]"
        entry: dict[str, Any] = {}
        if template.labels:
            entry["labels"] = _string_map(template.labels, f"{where}.labels")
        if template.annotations:
            entry["annotations"] = _string_map(template.annotations, f"{where}.annotations")
        if template.runtime_version:
            entry["runtimeVersion"] = template.runtime_version
        spec = worker_hash_spec(apply_component_crd_defaults(template.spec))
        entry["spec"] = _V1BETA1.encode(dynamo_types.ROOTS["V1BETA1"], spec, "spec")
        document[name] = entry
    return go_json(document)


def worker_hash(workers: Mapping[str, WorkerTemplate]) -> str:
    """The v2 worker hash: first 8 hex digits of SHA-256 over ``worker_hash_json``.

    ``workers`` maps component names to templates; only those whose spec ``type`` is
    ``worker``, ``prefill`` or ``decode`` count. No workers hash as ``44136fa3`` (the digest
    of ``{}``).

    Mirrors: internal/dynamo/hash.go ComputeDGDWorkersSpecHash
    """
    return hashlib.sha256(worker_hash_json(workers).encode("utf-8")).hexdigest()[:8]


def model_name_hash(name: str) -> str:
    """Mirrors: internal/dynamo/model_service.go HashModelName"""
    return hashlib.sha256(name.encode("utf-8")).hexdigest()[:8]


@dataclass(frozen=True)
class AlphaCompat:
    """v1alpha1-only component data the operator reads back from a converted DCD.

    A native v1beta1 DGD has none; a converted v1alpha1 DGD keeps the service's
    ``labels``, ``annotations``, ``dynamoNamespace`` and a non-promoted
    ``subComponentType`` in its conversion payload.
    """

    labels: Mapping[str, str] = field(default_factory=dict)
    annotations: Mapping[str, str] = field(default_factory=dict)
    dynamo_namespace: str | None = None
    sub_component_type: str = ""


def _sub_component_type(component_type: str, alpha: AlphaCompat) -> str:
    """The alpha sub-component type: prefill/decode round-trip to worker + subtype.

    Mirrors: api/v1alpha1/shared_spec_conversion.go sharedComponentTypeFromHub and
    restoreSharedAlphaOnlySimpleFields; v1beta1_helpers.go GetDCDSubComponentType
    """
    if component_type in (consts.COMPONENT_TYPE_PREFILL, consts.COMPONENT_TYPE_DECODE):
        return component_type
    return alpha.sub_component_type


def _parent_dgd_name(metadata: Mapping[str, Any]) -> str:
    for owner in metadata.get("ownerReferences") or []:
        if isinstance(owner, Mapping) and owner.get("kind") == consts.DGD_KIND:
            return str(owner.get("name") or "")
    return ""


def dcd_kube_labels(dcd: Mapping[str, Any], alpha: AlphaCompat | None = None) -> dict[str, str]:
    """The labels the DCD renders onto its workloads, before role labels.

    Mirrors: internal/dynamo/v1beta1_helpers.go GetDCDKubeLabels (with GetDCDComponentName,
    GetDCDDynamoNamespace, GetDCDSubComponentType, model_service.go AddBaseModelLabel)
    """
    alpha = alpha or AlphaCompat()
    metadata = dcd.get("metadata") or {}
    spec = dcd.get("spec") or {}
    object_labels: Mapping[str, str] = metadata.get("labels") or {}
    template = spec.get("podTemplate") or {}
    template_labels: Mapping[str, str] = (template.get("metadata") or {}).get("labels") or {}
    labels = {**object_labels, **alpha.labels, **template_labels}
    model = (spec.get("modelRef") or {}).get("name")
    if model:
        labels[_LABEL_BASE_MODEL_HASH] = model_name_hash(model)
    sub_type = _sub_component_type(spec.get("type") or "", alpha)
    if sub_type:
        labels[_LABEL_SUB_COMPONENT_TYPE] = sub_type
    component = spec.get("name") or object_labels.get(consts.LABEL_COMPONENT) or metadata.get("name") or ""
    if component:
        labels[consts.LABEL_COMPONENT] = component
    if alpha.dynamo_namespace is not None:
        namespace = alpha.dynamo_namespace  # even "", which then sets nothing
    elif object_labels.get(consts.LABEL_NAMESPACE):
        namespace = object_labels[consts.LABEL_NAMESPACE]
    else:
        parent = _parent_dgd_name(metadata) or object_labels.get(consts.LABEL_GRAPH_DEPLOYMENT_NAME) or ""
        parent = parent or metadata.get("name") or ""
        if spec.get("globalDynamoNamespace"):
            namespace = consts.GLOBAL_DYNAMO_NAMESPACE
        else:
            namespace = f"{metadata.get('namespace') or ''}-{parent.replace('.', '-')}"
    if namespace:
        labels[consts.LABEL_NAMESPACE] = namespace
    for key in (
        consts.LABEL_COMPONENT,
        consts.LABEL_NAMESPACE,
        consts.LABEL_GRAPH_DEPLOYMENT_NAME,
        consts.LABEL_WORKER_HASH,
        consts.LABEL_COMPONENT_CLASS,
    ):
        if object_labels.get(key):
            labels[key] = object_labels[key]
    return labels


def dcd_kube_annotations(dcd: Mapping[str, Any], alpha: AlphaCompat | None = None) -> dict[str, str]:
    """The annotations the DCD renders onto its workloads.

    The operator-origin-version annotation is dropped here, though it stays in the spec's
    pod template (and so still reaches the hash through ``spec``).

    Mirrors: internal/dynamo/v1beta1_helpers.go GetDCDKubeAnnotations
    """
    alpha = alpha or AlphaCompat()
    metadata = dcd.get("metadata") or {}
    spec = dcd.get("spec") or {}
    template = spec.get("podTemplate") or {}
    annotations = {**alpha.annotations, **((template.get("metadata") or {}).get("annotations") or {})}
    model = (spec.get("modelRef") or {}).get("name")
    if model:
        annotations[_ANNOTATION_BASE_MODEL] = model
    annotations.pop(consts.ANNOTATION_OPERATOR_ORIGIN_VERSION, None)
    for key in _TOPOLOGY_SOURCE_ANNOTATIONS:
        annotations.pop(key, None)
    object_annotations: Mapping[str, str] = metadata.get("annotations") or {}
    for key in _TOPOLOGY_SOURCE_ANNOTATIONS:
        if object_annotations.get(key):
            annotations[key] = object_annotations[key]
    return annotations


def worker_template_from_dcd(dcd: Mapping[str, Any], alpha: AlphaCompat | None = None) -> WorkerTemplate:
    """The hash input of one generated worker DCD object (generated with the placeholder hash).

    Mirrors: internal/dynamo/hash.go ComputeDGDWorkersSpecHash (the loop body)
    """
    spec = dcd.get("spec") or {}
    override = spec.get("runtimeVersionOverride") or ""
    return WorkerTemplate(
        labels=dcd_kube_labels(dcd, alpha),
        annotations=dcd_kube_annotations(dcd, alpha),
        runtime_version=resolve_runtime_version_for_hash(main_container_image(spec), override),
        spec=spec,
    )


# -- the legacy v1 hash (not used at render time) --------------------------------------------

_LEGACY_STRIPPED = (
    "annotations",
    "labels",
    "serviceName",
    "componentType",
    "subComponentType",
    "runtimeVersionOverride",
    "dynamoNamespace",
    "replicas",
    "autoscaling",
    "scalingAdapter",
    "ingress",
    "modelRef",
    "eppConfig",
)


def legacy_worker_hash(services: Mapping[str, Mapping[str, Any] | None]) -> str:
    """The v1 worker hash of a v1alpha1 DGD's ``spec.services`` (kept for evidence only).

    The operator stopped computing it in 1.5; stored values are opaque. It shares the Go
    JSON machinery with the v2 hash, so its upstream golden values test the encoder.

    Mirrors: api/v1alpha1/legacy_worker_hash.go ComputeDGDWorkersSpecHash,
    stripV1alpha1NonPodTemplateFields
    """
    document: dict[str, Any] = {}
    for name in sorted(services):
        service = services[name]
        if service is None or service.get("componentType") not in consts.WORKER_COMPONENT_TYPES:
            continue
        stripped = {k: v for k, v in service.items() if k not in _LEGACY_STRIPPED}
        document[name] = _V1ALPHA1.encode(dynamo_types.ROOTS["V1ALPHA1"], stripped, f"spec.services.{name}")
    return hashlib.sha256(go_json(document).encode("utf-8")).hexdigest()[:8]


__all__ = [
    "MINIMUM_HASHED_RUNTIME_VERSION",
    "WORKER_HASH_PLACEHOLDER",
    "AlphaCompat",
    "GoEncoder",
    "WorkerTemplate",
    "COMPONENT_CRD_DEFAULTS",
    "alpha_shared_spec_go_json",
    "apply_component_crd_defaults",
    "dcd_kube_annotations",
    "dcd_kube_labels",
    "dcd_spec_go_json",
    "format_go_duration",
    "go_float",
    "go_json",
    "legacy_worker_hash",
    "main_container_image",
    "parse_go_duration",
    "resolve_runtime_version_for_hash",
    "worker_hash",
    "worker_hash_json",
    "worker_hash_spec",
    "worker_template_from_dcd",
]

