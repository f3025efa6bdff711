"""Go's ``encoding/json`` for the operator's API types: ``json.Marshal`` output, byte for byte.

Printing exactly what encoding/json prints for Go values: struct fields in declaration order,
``omitempty``/``omitzero`` rules, nil pointers and slices as ``null`` where no tag drops them,
map keys sorted, HTML-safe string escaping, Go's float and duration formats, and the values
with their own marshalers (``resource.Quantity``, ``metav1.Duration``, apiextensions ``JSON``,
``json.RawMessage``).

Inputs are plain dicts as parsed from YAML or as built by the DGD expansion (camelCase keys).
They are decoded against the generated struct tables (``renderer.gocompat.dynamo_types`` for the
Dynamo types, ``renderer.gocompat.gotypes`` for core/v1) the way the operator's typed client
decodes what the API server returns, then encoded the Go way. A null value or a missing key is
a Go zero value; unknown keys are dropped (the API server prunes them); a value of the wrong
type raises ``RenderError``.

Mirrors: encoding/json encode.go (Go 1.26) on the api/v1beta1 and api/v1alpha1 types;
strconv.FormatFloat; time.Duration.String and time.ParseDuration.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

from renderer.gocompat import dynamo_types, gotypes, k8s_types
from renderer.gocompat.gofloat import go_float
from renderer.gocompat.quantity import unmarshal_quantity
from renderer.results import RenderError, describe_kind, unsupported

_INT_BOUNDS = {"int32": (-(1 << 31), (1 << 31) - 1), "int64": (-(1 << 63), (1 << 63) - 1)}
_SCALAR_ZERO: dict[str, Any] = {"string": "", "bool": False, "int32": 0, "int64": 0, "float64": 0.0}
_OMIT: Any = object()


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


def go_json_untyped(value: Any) -> str:
    """``json.Marshal`` of a decoded ``interface{}`` value (``map[string]any`` and friends).

    Map keys come out sorted (encoding/json sorts every map), the rest as ``go_json``.

    Mirrors: encoding/json Marshal (mapEncoder: keys sorted)
    """
    return go_json(_sorted_maps(value))


def _sorted_maps(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _sorted_maps(value[key]) for key in sorted(value)}
    if isinstance(value, list):
        return [_sorted_maps(item) for item in value]
    return value


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
    return int(raw)


def _element_name(shape: tuple[Any, ...]) -> str:
    """How a list element of this shape is named in messages."""
    if shape[0] == "ptr":
        return _element_name(shape[1])
    return {"struct": "object", "k8s": "object", "map": "object", "slice": "array"}.get(shape[0], str(shape[0]))


V1BETA1_ENCODER = GoEncoder(dynamo_types.V1BETA1)
V1ALPHA1_ENCODER = GoEncoder(dynamo_types.V1ALPHA1)


def dcd_spec_go_json(spec: Mapping[str, Any], path: str = "spec") -> str:
    """``json.Marshal`` of a v1beta1 ``DynamoComponentDeploymentSpec`` given as a plain dict.

    Mirrors: encoding/json Marshal on api/v1beta1 DynamoComponentDeploymentSpec (a plain
    struct: the normalising MarshalJSON of marshal.go is declared on the DCD, DGD and DGDR
    objects only, never on the spec)
    """
    return go_json(V1BETA1_ENCODER.encode(dynamo_types.ROOTS["V1BETA1"], dict(spec), path))
