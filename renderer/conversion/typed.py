"""Typed Go values for the conversion: decode, compare, marshal, as the webhook's Go code does.

The conversion works on Go structs. Here a Go value is the dict that the typed codec
(``renderer.gocompat.gotypes.Codec``, raising through ``gojson.GoEncoder``) makes of it
(struct fields in Go order, omitempty zero values absent, non-nil pointers present,
quantities canonical): decoding the user's YAML
through the generated struct tables gives exactly what ``json.Unmarshal`` then
``json.Marshal`` would, and a dict built by the conversion re-encodes to the same bytes.

``semantic_equal`` stands in for apimachinery's ``equality.Semantic.DeepEqual`` on such
values (nil and empty collections are equal, a zero scalar equals an absent one, quantities
compare by value); ``strip_value_struct_artefacts`` is the v1beta1 objects' normalising
MarshalJSON (a ``{}`` is dropped where the Go field is a non-pointer struct).

Mirrors: encoding/json Unmarshal/Marshal on api/v1alpha1 and api/v1beta1 types;
k8s.io/apimachinery/pkg/api/equality Semantic.DeepEqual; api/v1beta1/marshal.go
normalizeV1Beta1JSON (stripEmptyValueStructs)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from renderer.gocompat import dynamo_types, k8s_types
from renderer.gocompat.quantity import parse_quantity
from renderer.gocompat.gojson import GoEncoder, go_json

ALPHA = "v1alpha1"
BETA = "v1beta1"

_TABLES: dict[str, Mapping[str, tuple[tuple[Any, ...], ...]]] = {
    ALPHA: dynamo_types.V1ALPHA1,
    BETA: dynamo_types.V1BETA1,
}
_ENCODERS = {ALPHA: GoEncoder(dynamo_types.V1ALPHA1), BETA: GoEncoder(dynamo_types.V1BETA1)}


# reflect.DeepEqual tells a non-nil empty map from a nil one, and the conversion's
# resourcesNeedPreservation uses it: decoding keeps written empty slices and maps, the final
# encode drops them again
_DECODERS = {
    ALPHA: GoEncoder(dynamo_types.V1ALPHA1, keep_empty=True),
    BETA: GoEncoder(dynamo_types.V1BETA1, keep_empty=True),
}
_ZERO_SCALARS: dict[str, Any] = {"string": "", "bool": False, "int32": 0, "int64": 0, "float64": 0.0}


def decode(version: str, struct: str, data: Any, path: str) -> dict[str, Any]:
    """``data`` decoded into the named Go struct of ``version`` (a fresh dict; RenderError on bad types).

    Written empty slices and maps of Dynamo structs stay (Go keeps them non-nil).

    Mirrors: encoding/json Unmarshal into the api/<version> struct
    """
    return _DECODERS[version].encode(struct, data, path)


def encode(version: str, struct: str, value: Any, path: str) -> dict[str, Any]:
    """A Go value of the named struct as encoding/json writes it (omitempty applied), as a dict.

    Mirrors: encoding/json Marshal on the api/<version> struct
    """
    return _ENCODERS[version].encode(struct, value, path)


def marshal(version: str, struct: str, value: Any, path: str = "") -> str:
    """``json.Marshal`` of a Go value of the named struct: compact, Go field order, HTML-safe.

    Mirrors: encoding/json Marshal on the api/<version> struct
    """
    return go_json(_ENCODERS[version].encode(struct, value, path))


def _rows(shape: tuple[Any, ...]) -> tuple[tuple[Any, ...], ...]:
    if shape[0] == "struct":
        return _TABLES[shape[1]][shape[2]]
    return k8s_types.STRUCTS[shape[1]]


def _field_shape(owner: tuple[Any, ...], row_shape: tuple[Any, ...]) -> tuple[Any, ...]:
    """A row's shape with Dynamo struct references bound to the owner's version."""
    kind = row_shape[0]
    if kind == "struct":
        if owner[0] == "struct":
            return ("struct", owner[1], row_shape[1])
        return ("k8s", row_shape[1])
    if kind in ("ptr", "slice"):
        return (kind, _field_shape(owner, row_shape[1]))
    if kind == "map":
        return ("map", row_shape[1], _field_shape(owner, row_shape[2]))
    return row_shape


def shape_of(version: str, struct: str) -> tuple[Any, ...]:
    """The shape of a named Dynamo struct, bound to its API version."""
    return ("struct", version, struct)


def k8s_shape(name: str) -> tuple[Any, ...]:
    """The shape of a core/v1 struct."""
    return ("k8s", name)


def is_zero(shape: tuple[Any, ...], value: Any) -> bool:
    """Semantic.DeepEqual(value, zero value of the shape)."""
    return semantic_equal(shape, value, None)


def semantic_equal(shape: tuple[Any, ...], a: Any, b: Any) -> bool:
    """apimachinery ``equality.Semantic.DeepEqual`` on two Go values of one shape.

    Mirrors: k8s.io/apimachinery third_party/forked/golang/reflect deep_equal.go (nil and
    empty slices and maps are equal) with the Quantity and Time equalities of
    pkg/api/equality
    """
    kind = shape[0]
    if kind in _ZERO_SCALARS:
        zero = _ZERO_SCALARS[kind]
        return bool((zero if a is None else a) == (zero if b is None else b))
    if kind == "ptr":
        if a is None or b is None:
            return a is None and b is None
        return semantic_equal(shape[1], a, b)
    if kind == "slice":
        left, right = a or [], b or []
        return len(left) == len(right) and all(
            semantic_equal(shape[1], x, y) for x, y in zip(left, right, strict=True)
        )
    if kind == "map":
        left, right = a or {}, b or {}
        return left.keys() == right.keys() and all(
            semantic_equal(shape[2], left[k], right[k]) for k in left
        )
    if kind in ("struct", "k8s"):
        left, right = a or {}, b or {}
        for row in _rows(shape):
            name = row[0]
            if not semantic_equal(_field_shape(shape, row[2]), left.get(name), right.get(name)):
                return False
        return True
    if kind == "ExtraPodSpec":
        left, right = dict(a or {}), dict(b or {})
        main_a, main_b = left.pop("mainContainer", None), right.pop("mainContainer", None)
        if not semantic_equal(("ptr", ("k8s", "Container")), main_a, main_b):
            return False
        return semantic_equal(("k8s", "PodSpec"), left, right)
    if kind == "Quantity":
        return bool(_quantity_key(a) == _quantity_key(b))
    return bool(_plain(a) == _plain(b))


def _quantity_key(value: Any) -> Any:
    if value is None or value == "":
        return (0, 0)
    try:
        quantity = parse_quantity(str(value))
    except ValueError:
        return str(value)
    unscaled, exponent = quantity.unscaled, quantity.exponent
    while unscaled and unscaled % 10 == 0:
        unscaled //= 10
        exponent += 1
    return (unscaled, exponent if unscaled else 0)


def _plain(value: Any) -> Any:
    if value in ({}, []):
        return None
    return value


def strip_value_struct_artefacts(shape: tuple[Any, ...], value: Any) -> Any:
    """Drop ``{}`` where the Go field is a non-pointer struct, bottom up (in place; returns value).

    Mirrors: api/v1beta1/marshal.go stripEmptyValueStructs
    """
    kind = shape[0]
    if kind == "ptr":
        return strip_value_struct_artefacts(shape[1], value)
    if isinstance(value, list) and kind == "slice":
        for item in value:
            strip_value_struct_artefacts(shape[1], item)
    elif isinstance(value, dict) and kind == "map":
        for item in value.values():
            strip_value_struct_artefacts(shape[2], item)
    elif isinstance(value, dict) and kind in ("struct", "k8s"):
        rows = {row[0]: row for row in _rows(shape)}
        for key in list(value):
            row = rows.get(key)
            if row is None:
                continue
            child_shape = _field_shape(shape, row[2])
            strip_value_struct_artefacts(child_shape, value[key])
            if child_shape[0] in ("struct", "k8s") and value[key] == {}:
                del value[key]
    return value
