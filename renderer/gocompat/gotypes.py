"""Replay the operator's typed JSON round trip of a pod template on plain YAML data.

The operator decodes the user's ``podTemplate`` into k8s.io/api Go structs and writes it
back with encoding/json. That round trip is not the identity: unknown keys vanish,
``omitempty`` zero values vanish, pointer zero values stay, non-omitempty fields appear
even when the user never wrote them (``mountPath: ""``, ``port: 0``, ``divisor: "0"``),
non-pointer structs always appear (every container gets ``resources: {}``), quantities
are rewritten canonically and map keys come out sorted. ``normalize`` reproduces all of
that from the generated struct table in ``renderer.gocompat.k8s_types``, reporting every problem it
sees as a ``Result`` instead of stopping at the first one as Go does.

Input is what a YAML loader gives (dict/list/str/int/float/bool/None); output is built
fresh, never aliasing the input. Dict keys follow Go struct field order (maps are sorted),
so ``go_json_dumps`` prints the same bytes as Go's ``json.Marshal``. A Go nil that is not
``omitempty`` (``containers`` left out, ``grpc.service`` left out) comes out as ``None``,
i.e. JSON null, exactly as Go prints it; callers that want the object the API server would
store afterwards drop those nulls themselves.

Decisions where the API server sits between the user and the operator: a null value acts
as absent everywhere, including inside maps (the server prunes non-nullable nulls before
the operator decodes anything); keys are matched case-sensitively (the server's schema
prunes ``ContainerPort`` before Go's case-insensitive matching could see it); and a type
mismatch is an error even where sigs.k8s.io/yaml would have coerced a number to a string.

Mirrors: encoding/json decode.go Unmarshal and encode.go Marshal (typeFields, isEmptyValue,
omitzero) on k8s.io/api core/v1 PodTemplateSpec; with resource.Quantity, intstr.IntOrString
and metav1.Time (un)marshalers.
"""

from __future__ import annotations

import datetime as dt
import json
import math
import re
from collections.abc import Callable, Mapping
from typing import Any

from renderer.gocompat import k8s_types
from renderer.gocompat.gofloat import format_float_g
from renderer.gocompat.quantity import unmarshal_quantity
from renderer.results import Code, Result, Severity, describe_kind

_INT32 = (-(1 << 31), (1 << 31) - 1)
_INT64 = (-(1 << 63), (1 << 63) - 1)

# what a decoder returns after reporting an error: the field is then treated as absent
_INVALID: Any = object()
# markers in the compiled plans: no value at all, and "the zero value of a struct"
_MISSING: Any = object()
_ZERO_STRUCT: Any = object()

Decoder = Callable[[Any, str, "str | int", list[Result]], Any]


def _join(parent: str, key: str | int) -> str:
    """``parent.key`` or ``parent[i]`` (a bare key when there is no parent)."""
    if isinstance(key, int):
        return f"{parent}[{key}]"
    return f"{parent}.{key}" if parent else key


# the kind names of this codec's messages (yaml/Go words where the JSON ones differ)
_KIND_NAMES = {"boolean": "bool", "array": "list", "object": "map"}


def _kind(value: object) -> str:
    """The YAML/JSON kind of a value, for messages."""
    return describe_kind(value, _KIND_NAMES)


def _type_error(
    expected: str, value: object, parent: str, key: str | int, results: list[Result]
) -> Any:
    results.append(
        Result(message=f"expected {expected}, got {_kind(value)}", field=_join(parent, key), code=Code.SCHEMA)
    )
    return _INVALID


def _decode_string(value: Any, parent: str, key: str | int, results: list[Result]) -> Any:
    if isinstance(value, str):
        return value
    return _type_error("string", value, parent, key, results)


def _decode_bool(value: Any, parent: str, key: str | int, results: list[Result]) -> Any:
    if isinstance(value, bool):
        return value
    return _type_error("bool", value, parent, key, results)


def _int_decoder(name: str, bounds: tuple[int, int]) -> Decoder:
    """An int32/int64 field: integers, and floats with an integral value (YAML 1.0 is JSON 1)."""
    low, high = bounds

    def decode(value: Any, parent: str, key: str | int, results: list[Result]) -> Any:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return _type_error(name, value, parent, key, results)
        if isinstance(value, float):
            if not (math.isfinite(value) and value.is_integer()):
                message = f"expected {name}, got non-integral number {value!r}"
                results.append(Result(message=message, field=_join(parent, key), code=Code.SCHEMA))
                return _INVALID
            value = int(value)
        if not low <= value <= high:
            message = f"expected {name}, got {value} (out of range)"
            results.append(Result(message=message, field=_join(parent, key), code=Code.SCHEMA))
            return _INVALID
        return value

    return decode


_decode_int32 = _int_decoder("int32", _INT32)
_decode_int64 = _int_decoder("int64", _INT64)


def _decode_quantity(value: Any, parent: str, key: str | int, results: list[Result]) -> Any:
    """Mirrors: resource.Quantity UnmarshalJSON then MarshalJSON"""
    try:
        return unmarshal_quantity(value).string()
    except ValueError as err:
        shown = value if isinstance(value, str) else _kind(value)
        message = f'{err} (got "{shown}")'
        results.append(Result(message=message, field=_join(parent, key), code=Code.SCHEMA))
        return _INVALID


def _decode_int_or_string(value: Any, parent: str, key: str | int, results: list[Result]) -> Any:
    """A string stays a string ("8080" too); a number must fit int32.

    Mirrors: intstr.IntOrString UnmarshalJSON then MarshalJSON
    """
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return _decode_int32(value, parent, key, results)
    return _type_error("integer or string", value, parent, key, results)


_RFC3339 = re.compile(
    r"^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(Z|[+-]\d{2}:\d{2})$"
)


def _decode_time(value: Any, parent: str, key: str | int, results: list[Result]) -> Any:
    """RFC 3339 in, UTC to the second out.

    Mirrors: metav1.Time UnmarshalJSON (time.Parse RFC3339) and MarshalJSON (UTC, RFC3339)
    """
    if not isinstance(value, str):
        return _type_error("RFC 3339 time string", value, parent, key, results)
    utc: dt.datetime | None = None
    m = _RFC3339.match(value)
    if m:
        zone = m.group(8)
        offset = dt.timedelta(0)
        if zone != "Z":
            sign = 1 if zone[0] == "+" else -1
            offset = sign * dt.timedelta(hours=int(zone[1:3]), minutes=int(zone[4:6]))
        year, month, day, hour, minute, second = (int(m.group(i)) for i in range(1, 7))
        try:
            local = dt.datetime(year, month, day, hour, minute, second, tzinfo=dt.timezone(offset))
            utc = local.astimezone(dt.UTC)
        except (ValueError, OverflowError):  # no such date, or UTC falls outside years 1-9999
            utc = None
    if utc is None:
        message = f'expected RFC 3339 time (2006-01-02T15:04:05Z07:00), got "{value}"'
        results.append(Result(message=message, field=_join(parent, key), code=Code.SCHEMA))
        return _INVALID
    return (
        f"{utc.year:04d}-{utc.month:02d}-{utc.day:02d}"
        f"T{utc.hour:02d}:{utc.minute:02d}:{utc.second:02d}Z"
    )


def decode_time(value: Any, path: str, results: list[Result]) -> Any:
    """A metav1.Time value as Go re-encodes it (problems appended to ``results``)."""
    return _decode_time(value, path, "", results)


def key_text(key: object) -> str | None:
    """A YAML mapping key as sigs.k8s.io/yaml turns it into a JSON object key (None: refused).

    Mirrors: sigs.k8s.io/yaml convertToJSONableObject (map key conversion)
    """
    if isinstance(key, str):
        return key
    if isinstance(key, bool):
        return "true" if key else "false"
    if isinstance(key, int):
        return str(key)
    if isinstance(key, float):
        return format_float_g(key, bits=32)
    return None


# field emission policies
_SCALAR = 0  # string/bool/int: omitempty (or omitzero) drops the zero value
_PTR = 1  # pointer: absent is nil (null unless omitempty); present is always written
_COLLECTION = 2  # slice or map: absent is nil; omitempty also drops an empty one
_ALWAYS = 3  # non-pointer struct or leaf: always written, omitempty never applies
_TIME = 4  # non-pointer metav1.Time: the zero time marshals as null, omitzero drops it
_PTR_TIME = 5  # *metav1.Time: a pointer, but one to the zero time still marshals as null

_ZERO_TIME = "0001-01-01T00:00:00Z"
_SCALAR_ZERO: dict[str, object] = {"string": "", "bool": False, "int32": 0, "int64": 0}
_SCALAR_DECODERS: dict[str, Decoder] = {
    "string": _decode_string,
    "bool": _decode_bool,
    "int32": _decode_int32,
    "int64": _decode_int64,
    "Quantity": _decode_quantity,
    "IntOrString": _decode_int_or_string,
    "Time": _decode_time,
}


class Codec:
    """Decoders for one struct table, compiled once.

    Mirrors: encoding/json's cached per-type encoders and decoders (cachedTypeFields)
    """

    def __init__(self, structs: Mapping[str, tuple[tuple[Any, ...], ...]]) -> None:
        self._structs = structs
        # name -> (json name -> index, [(json name, decoder, policy, omitempty, omitzero,
        #          zero value or struct name, what an absent field marshals as)])
        self._plans: dict[str, tuple[dict[str, int], list[tuple[Any, ...]]]] = {}
        for name in structs:
            self._plan(name)

    def normalize(self, type_name: str, data: object, path: str) -> tuple[object, list[Result]]:
        """Decode ``data`` into the named struct and encode it again; problems as Results."""
        if type_name not in self._structs:
            raise KeyError(f"unknown Go struct {type_name!r}")
        results: list[Result] = []
        if data is None:
            return self._decode_struct(type_name, {}, path, results), results
        if not isinstance(data, dict):
            results.append(Result(message=f"expected object, got {_kind(data)}", field=path, code=Code.SCHEMA))
            return None, results
        return self._decode_struct(type_name, data, path, results), results

    def _plan(self, name: str) -> None:
        """Precompute one struct's key index and its per-field decoder and emission policy."""
        index: dict[str, int] = {}
        fields: list[tuple[Any, ...]] = []
        self._plans[name] = (index, fields)
        for i, (json_name, _go_name, shape, omitempty, omitzero, _inline) in enumerate(
            self._structs[name]
        ):
            index[json_name] = i
            kind = shape[0]
            zero: Any = None
            if kind in _SCALAR_ZERO:
                policy, zero = _SCALAR, _SCALAR_ZERO[kind]
            elif shape == ("ptr", ("Time",)):
                policy = _PTR_TIME
            elif kind == "ptr":
                policy = _PTR
            elif kind in ("slice", "map"):
                policy = _COLLECTION
            elif kind == "Time":
                policy = _TIME
            elif kind in ("Quantity", "IntOrString", "struct"):
                policy = _ALWAYS
                zero = {"Quantity": "0", "IntOrString": 0}.get(kind)
                if omitzero:
                    raise ValueError(f"{name}.{json_name}: omitzero on {kind} is not supported")
            else:
                raise ValueError(f"{name}.{json_name}: unsupported Go type shape {shape!r}")
            # what an absent field marshals as (_MISSING: nothing)
            absent: Any = None
            if policy == _SCALAR:
                absent = _MISSING if omitempty or omitzero else zero
            elif policy == _ALWAYS:
                absent = zero
                if kind == "struct":
                    absent, zero = _ZERO_STRUCT, shape[1]
            elif policy == _TIME:
                # the zero Time is a struct, so omitempty keeps it; it marshals as null
                absent = _MISSING if omitzero else None
            elif omitempty or omitzero:
                absent = _MISSING  # else a nil pointer, slice or map: null
            fields.append(
                (json_name, self._decoder(shape), policy, omitempty, omitzero, zero, absent)
            )

    def _decoder(self, shape: tuple[Any, ...]) -> Decoder:
        kind = shape[0]
        if kind in _SCALAR_DECODERS:
            return _SCALAR_DECODERS[kind]
        if kind == "ptr":
            return self._decoder(shape[1])
        if kind == "struct":
            name = shape[1]
            if name not in self._structs:
                raise ValueError(f"struct {name!r} missing from the table")
            return self._struct_decoder(name)
        if kind == "slice":
            return self._slice_decoder(self._decoder(shape[1]), shape[1])
        if kind == "map":
            if shape[1] != ("string",):
                raise ValueError(f"unsupported map key shape {shape[1]!r}")
            return self._map_decoder(self._decoder(shape[2]))
        raise ValueError(f"unsupported Go type shape {shape!r}")

    def _struct_decoder(self, name: str) -> Decoder:
        def decode(value: Any, parent: str, key: str | int, results: list[Result]) -> Any:
            if not isinstance(value, dict):
                return _type_error("object", value, parent, key, results)
            return self._decode_struct(name, value, _join(parent, key), results)

        return decode

    def _decode_struct(
        self, name: str, data: dict[Any, Any], path: str, results: list[Result]
    ) -> dict[str, Any]:
        """Mirrors: encoding/json decode.go object() into a struct, then encode.go structEncoder"""
        index, fields = self._plans[name]
        got: dict[str, Any] = {}
        for raw_key, value in data.items():
            key = raw_key if type(raw_key) is str else key_text(raw_key)
            if key is None or key not in index:
                shown = key if key is not None else repr(raw_key)
                results.append(
                    Result(
                        message=f'unknown field "{shown}"',
                        severity=Severity.WARNING,
                        code=Code.UNKNOWN_FIELD,
                        field=_join(path, shown),
                    )
                )
                continue
            if value is None:
                continue
            decoded = fields[index[key]][1](value, path, key, results)
            if decoded is not _INVALID:
                got[key] = decoded
        out: dict[str, Any] = {}
        for json_name, _decode, policy, omitempty, omitzero, zero, absent in fields:
            value = got.get(json_name, _MISSING)
            if value is _MISSING:
                # an absent field: its Go zero value, unless the tag drops that
                if absent is _MISSING:
                    continue
                if absent is _ZERO_STRUCT:
                    out[json_name] = self._decode_struct(zero, {}, path, results)
                else:
                    out[json_name] = absent
                continue
            if policy == _SCALAR:
                if (omitempty or omitzero) and value == zero:
                    continue
            elif policy == _COLLECTION:
                if omitempty and not value:
                    continue
            elif policy == _TIME and value == _ZERO_TIME:
                if not omitzero:
                    out[json_name] = None
                continue
            elif policy == _PTR_TIME and value == _ZERO_TIME:
                value = None
            out[json_name] = value
        return out

    def _slice_decoder(self, element: Decoder, shape: tuple[Any, ...]) -> Decoder:
        expected = _expected_name(shape)

        def decode(value: Any, parent: str, key: str | int, results: list[Result]) -> Any:
            if not isinstance(value, list):
                return _type_error("list", value, parent, key, results)
            path = _join(parent, key)
            out = []
            for i, item in enumerate(value):
                if item is None:
                    _type_error(expected, item, path, i, results)
                    continue
                decoded = element(item, path, i, results)
                if decoded is not _INVALID:
                    out.append(decoded)
            return out

        return decode

    def _map_decoder(self, element: Decoder) -> Decoder:
        def decode(value: Any, parent: str, key: str | int, results: list[Result]) -> Any:
            if not isinstance(value, dict):
                return _type_error("map", value, parent, key, results)
            path = _join(parent, key)
            out: dict[str, Any] = {}
            for raw_key, item in value.items():
                map_key = key_text(raw_key)
                if map_key is None:
                    results.append(Result(message=f"unsupported map key {raw_key!r}", field=path, code=Code.SCHEMA))
                    continue
                if item is None:
                    continue
                decoded = element(item, path, map_key, results)
                if decoded is not _INVALID:
                    out[map_key] = decoded
            return {k: out[k] for k in sorted(out)}

        return decode


_EXPECTED_NAMES = {"struct": "object", "IntOrString": "integer or string", "Quantity": "quantity"}


def _expected_name(shape: tuple[Any, ...]) -> str:
    """How a list element of this shape is named in messages."""
    kind = str(shape[0])
    return _EXPECTED_NAMES.get(kind, kind)


_CODEC = Codec(k8s_types.STRUCTS)


def normalize(type_name: str, data: object, path: str) -> tuple[object, list[Result]]:
    """Emulate Go ``json.Unmarshal`` into ``type_name`` (a k8s.io/api struct) then ``json.Marshal``.

    ``path`` is the field path of ``data`` itself (``spec.podTemplate``); problems are
    reported below it. Unknown keys are dropped with a warning; type errors are errors
    and leave the field as if it were absent.

    Mirrors: encoding/json Unmarshal + Marshal on k8s.io/api core/v1 types
    """
    return _CODEC.normalize(type_name, data, path)


_GO_ESCAPES = str.maketrans(
    {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}
)
_SURROGATE = re.compile("[\ud800-\udfff]")


def go_json_dumps(normalized: object) -> str:
    """Compact JSON with Go's escaping: ``<``, ``>``, ``&``, U+2028 and U+2029 as ``\\uXXXX``.

    Key order is kept as given (``normalize`` already orders structs and maps the Go
    way). Lone surrogates, which Go cannot hold in a string, become U+FFFD. Floats are not
    expected (no reachable field is a float) and would print in Python's notation.

    Mirrors: encoding/json Marshal (HTML-safe string escaping)
    """
    text = json.dumps(normalized, separators=(",", ":"), ensure_ascii=False)
    if _SURROGATE.search(text):
        text = _SURROGATE.sub("\ufffd", text)
    return text.translate(_GO_ESCAPES)


def drop_nulls(value: Any) -> Any:
    """A copy without ``None`` map values (list items are kept as they are)."""
    if isinstance(value, dict):
        return {k: drop_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [drop_nulls(v) for v in value]
    return value
