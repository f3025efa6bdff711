"""Go's ``encoding/json`` for the operator's API types: ``json.Marshal`` output, byte for byte.

Printing exactly what encoding/json prints for Go values: dict order kept (the typed codec
orders struct fields the Go way and sorts maps), HTML-safe string escaping, Go's float format.

The typed side is ``renderer.gocompat.gotypes.Codec``, the one walk over the generated struct
tables (``renderer.gocompat.dynamo_types`` for the Dynamo types, ``k8s_types`` for core/v1):
plain dicts as parsed from YAML or as built by the DGD expansion are decoded the way the
operator's typed client decodes what the API server returns, then encoded the Go way.
``GoEncoder`` is its raising front for the Dynamo tables: a null value or a missing key is a
Go zero value, unknown keys are dropped (the API server prunes them), a value of the wrong
type raises ``RenderError``.

Mirrors: encoding/json encode.go (Go 1.26) on the api/v1beta1 and api/v1alpha1 types;
strconv.FormatFloat.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

from renderer.gocompat import dynamo_types, gotypes
from renderer.gocompat.goleaves import JSON_WORDS, RAISE
from renderer.gocompat.gofloat import go_float


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


class GoEncoder:
    """Decode plain dicts into the Go structs of one table and encode them as Go does; errors raise.

    A thin front of the one typed walk, ``renderer.gocompat.gotypes.Codec``: its core/v1
    structs are the core codec's, the first error raises ``RenderError`` with the field path
    (``RAISE``), unknown keys are dropped without a word, and messages name kinds in JSON's
    words. ``keep_empty`` keeps written empty slices and maps of this table's structs (see
    ``Codec``).

    Mirrors: encoding/json decode.go (into typed values) then encode.go (typeFields,
    isEmptyValue, omitzero), with the marshalers of the leaf types
    """

    def __init__(self, structs: Mapping[str, tuple[tuple[Any, ...], ...]], *, keep_empty: bool = False) -> None:
        self._codec = gotypes.Codec(structs, core=gotypes.CORE, keep_empty=keep_empty, words=JSON_WORDS)

    def encode(self, name: str, data: Any, path: str) -> dict[str, Any]:
        """The named struct decoded from ``data`` (None: the zero struct) and re-encoded."""
        out: dict[str, Any] = self._codec.decode(name, data, path, RAISE)
        return out


V1BETA1_ENCODER = GoEncoder(dynamo_types.V1BETA1)
V1ALPHA1_ENCODER = GoEncoder(dynamo_types.V1ALPHA1)


def dcd_spec_go_json(spec: Mapping[str, Any], path: str = "spec") -> str:
    """``json.Marshal`` of a v1beta1 ``DynamoComponentDeploymentSpec`` given as a plain dict.

    Mirrors: encoding/json Marshal on api/v1beta1 DynamoComponentDeploymentSpec (a plain
    struct: the normalising MarshalJSON of marshal.go is declared on the DCD, DGD and DGDR
    objects only, never on the spec)
    """
    return go_json(V1BETA1_ENCODER.encode(dynamo_types.ROOTS["V1BETA1"], dict(spec), path))
