"""The leaf values of the typed Go codec: scalars and the types with their own JSON codec.

Each decoder takes a value as a YAML loader gives it and returns what encoding/json writes
back after decoding it into the Go type, or reports the problem to a sink (a ``list[Result]``,
or ``RAISE``, which stops at the first error) and returns ``INVALID``. Messages name kinds in
Go's words (``bool``, ``list``, ``map``) or in JSON's (``boolean``, ``array``, ``object``), as
the caller asks. ``renderer.gocompat.gotypes.Codec`` walks the structs around them.

Mirrors: encoding/json decode.go literalStore; resource.Quantity, intstr.IntOrString,
metav1.Time, metav1.Duration and apiextensions JSON (Un)MarshalJSON; sigs.k8s.io/yaml map keys
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from renderer.gocompat.goduration import format_go_duration, parse_go_duration
from renderer.gocompat.gofloat import format_float_g
from renderer.gocompat.quantity import unmarshal_quantity
from renderer.results import Code, RenderError, Result, describe_kind

_INT32 = (-(1 << 31), (1 << 31) - 1)
_INT64 = (-(1 << 63), (1 << 63) - 1)

# what a decoder returns after reporting an error: the field is then treated as absent
INVALID: Any = object()


class Sink(Protocol):
    """Where a decode reports its problems: a ``list[Result]``, or ``RAISE``."""

    def append(self, result: Result, /) -> None: ...


class _RaiseFirstError:
    """A sink that raises the first error as ``RenderError`` and ignores warnings.

    The error carries no rule code, so the stage that catches it names it (``render``,
    ``conversion``), except a type that is not modelled, which stays ``unsupported``.
    """

    def append(self, result: Result, /) -> None:
        if result.is_error:
            code = result.code if result.code is Code.UNSUPPORTED else None
            raise RenderError(result.message, result.field, code)


RAISE: Sink = _RaiseFirstError()

Decoder = Callable[[Any, str, "str | int", Sink], Any]

# the kind names of messages: Go's words (this module's callers), or JSON's (``{}``)
GO_WORDS: Mapping[str, str] = {"boolean": "bool", "array": "list", "object": "map"}
JSON_WORDS: Mapping[str, str] = {}


def join(parent: str, key: str | int) -> str:
    """``parent.key`` or ``parent[i]`` (a bare key when there is no parent)."""
    if isinstance(key, int):
        return f"{parent}[{key}]"
    return f"{parent}.{key}" if parent else key


def kind_name(value: object, words: Mapping[str, str] = GO_WORDS) -> str:
    """The YAML/JSON kind of a value, for messages."""
    return describe_kind(value, words)


_EXPECTED_NAMES = {
    "struct": "object",
    "k8s": "object",
    "ExtraPodSpec": "object",
    "IntOrString": "integer or string",
    "Quantity": "quantity",
    "float64": "number",
    "Duration": "duration string",
    "Time": "RFC 3339 time string",
    "RawJSON": "JSON value",
    "RawMessage": "JSON value",
}


def expected_name(shape: tuple[Any, ...], words: Mapping[str, str]) -> str:
    """How a value of this shape is named in messages (``expected <name>, got ...``)."""
    kind = str(shape[0])
    if kind == "ptr":
        return expected_name(shape[1], words)
    if kind == "map":
        return words.get("object", "object")
    if kind == "slice":
        return words.get("array", "array")
    if kind == "bool":
        return words.get("boolean", "boolean")
    return _EXPECTED_NAMES.get(kind, kind)


def type_error(
    expected: str, value: object, parent: str, key: str | int, results: Sink, words: Mapping[str, str] = GO_WORDS
) -> Any:
    results.append(
        Result(message=f"expected {expected}, got {kind_name(value, words)}", field=join(parent, key), code=Code.SCHEMA)
    )
    return INVALID


def _report(message: str, parent: str, key: str | int, results: Sink) -> Any:
    results.append(Result(message=message, field=join(parent, key), code=Code.SCHEMA))
    return INVALID


_RFC3339 = re.compile(
    r"^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(Z|[+-]\d{2}:\d{2})$"
)


def _utc_seconds(value: str) -> str | None:
    """An RFC 3339 time as metav1.Time writes it back (UTC, whole seconds); None if invalid."""
    m = _RFC3339.match(value)
    if not m:
        return None
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
        return None
    return f"{utc.year:04d}-{utc.month:02d}-{utc.day:02d}T{utc.hour:02d}:{utc.minute:02d}:{utc.second:02d}Z"


def leaf_decoders(words: Mapping[str, str]) -> dict[str, Decoder]:
    """The decoders of the leaf types (scalars and types with their own JSON codec)."""

    def string(value: Any, parent: str, key: str | int, results: Sink) -> Any:
        if isinstance(value, str):
            return value
        return type_error("string", value, parent, key, results, words)

    def boolean(value: Any, parent: str, key: str | int, results: Sink) -> Any:
        if isinstance(value, bool):
            return value
        return type_error(expected_name(("bool",), words), value, parent, key, results, words)

    def integer(name: str, bounds: tuple[int, int]) -> Decoder:
        """An int32/int64 field: integers, and floats with an integral value (YAML 1.0 is JSON 1)."""
        low, high = bounds

        def decode(value: Any, parent: str, key: str | int, results: Sink) -> Any:
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                return type_error(name, value, parent, key, results, words)
            if isinstance(value, float):
                if not (math.isfinite(value) and value.is_integer()):
                    return _report(f"expected {name}, got non-integral number {value!r}", parent, key, results)
                value = int(value)
            if not low <= value <= high:
                return _report(f"expected {name}, got {value} (out of range)", parent, key, results)
            return value

        return decode

    int32 = integer("int32", _INT32)

    def float64(value: Any, parent: str, key: str | int, results: Sink) -> Any:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return type_error("number", value, parent, key, results, words)
        if not math.isfinite(value):
            return _report(f"expected a finite number, got {value!r}", parent, key, results)
        return float(value)

    def quantity(value: Any, parent: str, key: str | int, results: Sink) -> Any:
        """Mirrors: resource.Quantity UnmarshalJSON then MarshalJSON"""
        try:
            return unmarshal_quantity(value).string()
        except ValueError as err:
            from renderer import hints  # the error path only

            shown = value if isinstance(value, str) else kind_name(value, words)
            results.append(Result(message=f'{err} (got "{shown}")', field=join(parent, key), code=Code.SCHEMA, hint=hints.quantity(value)))
            return INVALID

    def int_or_string(value: Any, parent: str, key: str | int, results: Sink) -> Any:
        """A string stays a string ("8080" too); a number must fit int32.

        Mirrors: intstr.IntOrString UnmarshalJSON then MarshalJSON
        """
        if isinstance(value, str):
            return value
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return int32(value, parent, key, results)
        return type_error("integer or string", value, parent, key, results, words)

    def time(value: Any, parent: str, key: str | int, results: Sink) -> Any:
        """RFC 3339 in, UTC to the second out.

        Mirrors: metav1.Time UnmarshalJSON (time.Parse RFC3339) and MarshalJSON (UTC, RFC3339)
        """
        if not isinstance(value, str):
            return type_error("RFC 3339 time string", value, parent, key, results, words)
        utc = _utc_seconds(value)
        if utc is None:
            return _report(f'expected RFC 3339 time (2006-01-02T15:04:05Z07:00), got "{value}"', parent, key, results)
        return utc

    def duration(value: Any, parent: str, key: str | int, results: Sink) -> Any:
        """Mirrors: metav1.Duration UnmarshalJSON (time.ParseDuration) and MarshalJSON (String)"""
        if not isinstance(value, str):
            return type_error("duration string", value, parent, key, results, words)
        try:
            return format_go_duration(parse_go_duration(value))
        except ValueError as err:
            return _report(str(err), parent, key, results)

    def raw_json(value: Any, parent: str, key: str | int, results: Sink) -> Any:
        try:
            return _raw_json(value, join(parent, key), words)
        except RenderError as err:
            results.append(Result(message=err.message, field=err.field, code=Code.SCHEMA))
            return INVALID

    return {
        "string": string,
        "bool": boolean,
        "int32": int32,
        "int64": integer("int64", _INT64),
        "float64": float64,
        "Quantity": quantity,
        "IntOrString": int_or_string,
        "Time": time,
        "Duration": duration,
        "RawJSON": raw_json,
        "RawMessage": raw_json,
    }


def _raw_json(value: Any, path: str, words: Mapping[str, str]) -> Any:
    """A free-form JSON value as the API server hands it to the operator.

    The API server keeps such values as untyped JSON and serves them re-encoded: object keys
    sorted, integers that fit int64 as integers, every other number as a float64. The
    operator's ``apiextensionsv1.JSON`` / ``json.RawMessage`` keeps those bytes and prints
    them back as they are (compacted, HTML-escaped).

    Mirrors: apiextensions v1 JSON MarshalJSON, encoding/json RawMessage and compact;
    apimachinery unstructured JSON decoding (int64 or float64 numbers)
    """
    if isinstance(value, dict):
        items: dict[str, Any] = {}
        for raw_key, item in value.items():
            text = key_text(raw_key)
            if text is None:
                raise RenderError(f"unsupported map key {raw_key!r}", path)
            items[text] = item
        return {k: _raw_json(items[k], join(path, k), words) for k in sorted(items)}
    if isinstance(value, list):
        return [_raw_json(item, join(path, i), words) for i, item in enumerate(value)]
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    low, high = _INT64
    if isinstance(value, int):
        return value if low <= value <= high else float(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise RenderError(f"expected a JSON number, got {value!r}", path)
        if value.is_integer() and low <= value <= high:
            return int(value)
        return value
    raise RenderError(f"expected JSON value, got {kind_name(value, words)}", path)


GO_LEAVES = leaf_decoders(GO_WORDS)


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
