"""The text of a preservation annotation, checked the way the conversion decodes it.

Both directions of the conversion read ``nvidia.com/dcd-spec`` / ``nvidia.com/dgd-spec`` with
``json.Unmarshal`` into the other version's spec (inside the ``{"version","spec","rawJSON"}``
envelope, or bare in the legacy form), and the ``-status`` annotations into the v1alpha1
status. ``check_spec_annotation`` and ``check_status_annotation`` raise a ``RenderError`` at
``metadata.annotations[<key>]`` with Go's own error text when that decode fails, before any
reader of the annotation runs; the JSON may nest at most ``consts.MAX_DEPTH`` levels, the
limit of YAML and JSON input.

The operator's conversion ignores a spec annotation that does not decode (its
``restorePreservedSpec`` reports "not preserved") and fails on a status annotation that does
not. dynamo-render refuses both: a spec annotation the operator drops silently is content
whose effect nobody can see (docs "Differences from the operator").

Mirrors: api/v1alpha1/preservation.go restorePreservedSpec (the decode steps: a
map[string]json.RawMessage first, then the envelope or the legacy bare spec);
shared_spec_conversion.go getJSONAnnFromObj ("unmarshal <key> annotation: ...")
"""

from __future__ import annotations

from typing import Any

from renderer import consts
from renderer.gocompat import dynamo_types, k8s_types
from renderer.gocompat.gounmarshal import is_number, nesting_depth_exceeds, parse, unmarshal_error
from renderer.results import Code, RenderError

_MODULE = "github.com/ai-dynamo/dynamo/deploy/operator/api"
_SPEC_STRUCTS = {
    consts.ANNOTATION_DCD_SPEC: "DynamoComponentDeploymentSpec",
    consts.ANNOTATION_DGD_SPEC: "DynamoGraphDeploymentSpec",
}
_STATUS_STRUCTS = {
    consts.ANNOTATION_DCD_STATUS: "DynamoComponentDeploymentStatus",
    consts.ANNOTATION_DGD_STATUS: "DynamoGraphDeploymentStatus",
}
# the envelope's record type, as a table of its own (printed as package v1alpha1)
_RECORDS = "v1alpha1#preservation"
_TABLES: dict[str, Any] = {
    "v1alpha1": dynamo_types.V1ALPHA1,
    "v1beta1": dynamo_types.V1BETA1,
    _RECORDS: {
        "preservedRawJSON": (
            ("path", "Path", ("string",), False, False, ""),
            ("raw", "Raw", ("slice", ("uint8",)), True, False, ""),
            ("nil", "Nil", ("bool",), True, False, ""),
        )
    },
}
_IGNORED = "the operator's conversion ignores a preservation annotation it cannot decode: fix it or remove it"


def _field(key: str) -> str:
    return f"metadata.annotations[{key}]"


def _parsed(raw: str, key: str) -> Any:
    """The annotation's JSON (RenderError: nested too deep, or not JSON, in Go's words)."""
    if nesting_depth_exceeds(raw, consts.MAX_DEPTH):
        raise RenderError(
            f"annotation JSON nesting is too deep (more than {consts.MAX_DEPTH} levels)", _field(key), code=Code.INPUT
        )
    try:
        document = parse(raw)
    except ValueError as err:
        raise RenderError(f"{err} ({_IGNORED})", _field(key), code=Code.CONVERSION) from None
    where = _long_number(document, "")
    if where is not None:
        raise RenderError(
            f"the number at {where[0] or 'the top'} has {where[1]} digits, more than dynamo-render reads "
            f"({consts.MAX_NUMBER_DIGITS})", _field(key), code=Code.INPUT,
        )
    return document


def _long_number(value: Any, path: str) -> tuple[str, int] | None:
    """The path and length of the first number written with more digits than Python converts, or None."""
    if isinstance(value, dict):
        for name, item in value.items():
            found = _long_number(item, f"{path}.{name}" if path else str(name))
            if found is not None:
                return found
    elif isinstance(value, list):
        for i, item in enumerate(value):
            found = _long_number(item, f"{path}[{i}]")
            if found is not None:
                return found
    elif is_number(value) and len(value) > consts.MAX_NUMBER_DIGITS:
        return path, len(value.lstrip("-"))
    return None


def check_spec_annotation(raw: str, key: str, version: str) -> None:
    """Refuse a spec preservation annotation json.Unmarshal would not decode into ``version``'s spec.

    Mirrors: api/v1alpha1/preservation.go restorePreservedSpec
    """
    if not raw or key not in _SPEC_STRUCTS:
        return
    document = _parsed(raw, key)
    struct = _SPEC_STRUCTS[key]
    spec = ("struct", version, struct)
    fields: list[tuple[tuple[Any, ...], Any, str, tuple[str, ...]]]
    if document is not None and not isinstance(document, dict):
        fields = [(("map", ("string",), ("RawMessage",)), document, "", ())]
    elif document is None or "spec" not in document:
        fields = [(spec, document, "", ())]  # the legacy form: a bare spec
    else:
        envelope = f"preservedSpecEnvelope[{_MODULE}/{version}.{struct}]"
        shapes: dict[str, tuple[Any, ...]] = {"version": ("int",), "spec": spec, "rawjson": ("slice", ("struct", _RECORDS, "preservedRawJSON"))}
        names = {"version": "version", "spec": "spec", "rawjson": "rawJSON"}
        fields = [
            (shapes[name.lower()], value, envelope, (names[name.lower()],))
            for name, value in document.items()
            if name.lower() in shapes
        ]
    problem = unmarshal_error(fields, _TABLES)
    if problem:
        problem = problem.replace("map[string]RawMessage", "map[string]json.RawMessage")
        raise RenderError(f"{problem} ({_IGNORED})", _field(key), code=Code.CONVERSION)
    for shape, value, _, stack in fields:
        where = _null_element(shape, value, ".".join(stack))
        if where is not None:
            raise RenderError(
                f"null at {where}: Go decodes a null map value or list item as its zero value (an empty label "
                "value, an env entry without a name), which dynamo-render does not restore: remove it or write the value",
                _field(key), code=Code.CONVERSION,
            )


def _null_element(shape: tuple[Any, ...], value: Any, path: str) -> str | None:
    """The path of the first map value or list item that is null, walking ``value`` by its Go shape (None: none).

    A null struct field is absent (Go leaves the field as it is); a null map value or list item
    becomes the element type's zero value in Go, which the conversion then writes, unless that
    zero value is nil (a map of pointers, as ``services`` is).
    """
    kind = shape[0]
    if kind == "ptr":
        return _null_element(shape[1], value, path)
    if kind == "slice" and isinstance(value, list):
        for i, item in enumerate(value):
            where = (f"{path}[{i}]" if _zero_is_a_value(shape[1]) else None) if item is None else _null_element(shape[1], item, f"{path}[{i}]")
            if where is not None:
                return where
    elif kind == "map" and isinstance(value, dict):
        for name, item in value.items():
            where = (f"{path}.{name}" if _zero_is_a_value(shape[2]) else None) if item is None else _null_element(shape[2], item, f"{path}.{name}")
            if where is not None:
                return where
    elif kind in ("struct", "k8s", "ExtraPodSpec") and isinstance(value, dict):
        rows = _struct_rows(shape)
        for name, item in value.items():
            row = rows.get(name) or rows.get(str(name).lower())
            if row is not None and item is not None:
                where = _null_element(row, item, f"{path}.{name}" if path else str(name))
                if where is not None:
                    return where
    return None


# Element types whose zero value is nil (a pointer, slice, map or raw JSON): null is just that.
_NILABLE = frozenset({"ptr", "slice", "map", "RawMessage", "RawJSON", "unsupported"})


def _zero_is_a_value(shape: tuple[Any, ...]) -> bool:
    """Whether Go's zero value of the element type is a value the conversion writes ("" or {}), not nil."""
    return shape[0] not in _NILABLE


def _struct_rows(shape: tuple[Any, ...]) -> dict[str, tuple[Any, ...]]:
    """A struct's fields by JSON name (and lower-cased, as Go matches keys), each with its shape."""
    if shape[0] == "ExtraPodSpec":
        rows = {row[0]: _bound("k8s", row[2]) for row in k8s_types.STRUCTS["PodSpec"]}
        rows["mainContainer"] = ("ptr", ("k8s", "Container"))
    elif shape[0] == "k8s":
        rows = {row[0]: _bound("k8s", row[2]) for row in k8s_types.STRUCTS[shape[1]]}
    else:
        rows = {row[0]: _bound(shape[1], row[2]) for row in _TABLES[shape[1]][shape[2]]}
    return {**{k.lower(): v for k, v in rows.items()}, **rows}


def _bound(version: str, shape: tuple[Any, ...]) -> tuple[Any, ...]:
    """A row's shape with its struct references bound to the table they come from (``version``, or "k8s")."""
    kind = shape[0]
    if kind == "struct":
        return ("k8s", shape[1]) if version == "k8s" else ("struct", version, shape[1])
    if kind in ("ptr", "slice"):
        return (kind, _bound(version, shape[1]))
    if kind == "map":
        return ("map", shape[1], _bound(version, shape[2]))
    return shape


def check_status_annotation(raw: str, key: str) -> None:
    """Refuse a status preservation annotation json.Unmarshal would not decode (the operator fails too).

    Mirrors: api/v1alpha1/shared_spec_conversion.go getJSONAnnFromObj
    """
    if not raw or key not in _STATUS_STRUCTS:
        return
    document = _parsed(raw, key)
    problem = unmarshal_error([(("struct", "v1alpha1", _STATUS_STRUCTS[key]), document, "", ())], _TABLES)
    if problem:
        raise RenderError(f"unmarshal {key} annotation: {problem}", _field(key), code=Code.CONVERSION)
