"""The one typed Go codec: the operator's JSON round trip through its Go structs, on plain YAML data.

One walk over the generated struct tables serves every caller: the core/v1 table
(``renderer.gocompat.k8s_types``, ``normalize``) and the Dynamo tables
(``renderer.gocompat.dynamo_types``, through ``gojson.GoEncoder``, whose ``("k8s", name)``
shapes walk into the core/v1 codec). What differs between callers is a parameter: where
problems go (a ``list[Result]`` that collects them all, or ``RAISE``, which stops at the first
error as Go does), whether written empty collections stay, and the words of the messages.
The leaf values (scalars, quantities, times, durations, raw JSON) are in
``renderer.gocompat.goleaves``.

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
omitzero) on k8s.io/api core/v1 PodTemplateSpec and the api/v1beta1 and api/v1alpha1 types;
with the leaf types' (un)marshalers and the v1alpha1 ExtraPodSpec MarshalJSON.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from typing import Any

from renderer.gocompat import k8s_types
from renderer.gocompat.goleaves import (
    GO_LEAVES,
    GO_WORDS,
    INVALID,
    Decoder,
    Sink,
    expected_name,
    join,
    key_text,
    kind_name,
    leaf_decoders,
    type_error,
)
from renderer.results import Code, Result, Severity, unsupported

# markers in the compiled plans: no value at all, and "the zero value of a struct"
_MISSING: Any = object()
_ZERO_STRUCT: Any = object()


# field emission policies
_SCALAR = 0  # string/bool/int/float: omitempty (or omitzero) drops the zero value
_PTR = 1  # pointer (or json.RawMessage): absent is nil (null unless omitempty); present is always written
_COLLECTION = 2  # slice or map: absent is nil; omitempty also drops an empty one
_ALWAYS = 3  # non-pointer struct or leaf: always written, omitempty never applies
_TIME = 4  # non-pointer metav1.Time: the zero time marshals as null, omitzero drops it
_PTR_TIME = 5  # *metav1.Time: a pointer, but one to the zero time still marshals as null

_ZERO_TIME = "0001-01-01T00:00:00Z"
_SCALAR_ZERO: dict[str, object] = {"string": "", "bool": False, "int32": 0, "int64": 0, "float64": 0.0}
# what an absent non-pointer leaf marshals as
_LEAF_ZERO: dict[str, object] = {"Quantity": "0", "IntOrString": 0, "Duration": "0s", "RawJSON": None}
_POINTER_LIKE = ("ptr", "RawMessage", "unsupported")
ZeroMaker = Callable[[str, Sink], Any]


class Codec:
    """Decoders for one struct table, compiled once: the one typed Go walk.

    ``decode`` turns plain YAML/JSON data into the named Go struct and writes it back as
    encoding/json would (see the module docstring), reporting each problem to a sink: a
    ``list[Result]`` collects them all (the field is then treated as absent, unknown keys are
    warnings), ``RAISE`` stops at the first error. ``core`` is the codec of the core/v1 table
    that ``("k8s", name)`` shapes refer to. ``keep_empty`` keeps a written empty slice or map
    that ``omitempty`` would drop (Go's non-nil empty, which reflect.DeepEqual tells from nil);
    it applies to this table's structs, not to the core/v1 ones. ``words`` names kinds in
    messages.

    Mirrors: encoding/json's cached per-type encoders and decoders (cachedTypeFields)
    """

    def __init__(
        self,
        structs: Mapping[str, tuple[tuple[Any, ...], ...]],
        *,
        core: Codec | None = None,
        keep_empty: bool = False,
        words: Mapping[str, str] = GO_WORDS,
    ) -> None:
        self._structs = structs
        self._core = core
        self._keep_empty = keep_empty
        self._words = words
        self._leaves = GO_LEAVES if words is GO_WORDS else leaf_decoders(words)
        # name -> (json name -> index, [(json name, decoder, policy, omitempty, omitzero,
        #          zero value or zero maker, what an absent field marshals as)])
        self._plans: dict[str, tuple[dict[str, int], list[tuple[Any, ...]]]] = {}
        for name in structs:
            self._plan(name)

    def normalize(self, type_name: str, data: object, path: str) -> tuple[object, list[Result]]:
        """Decode ``data`` into the named struct and encode it again; problems as Results."""
        results: list[Result] = []
        return self.decode(type_name, data, path, results), results

    def decode(self, type_name: str, data: object, path: str, results: Sink) -> Any:
        """``data`` (None: the zero struct) as the named struct; None if it is not an object."""
        if type_name not in self._structs:
            raise KeyError(f"unknown Go struct {type_name!r}")
        if data is None:
            return self._decode_struct(type_name, {}, path, results)
        if not isinstance(data, dict):
            results.append(
                Result(message=f"expected object, got {kind_name(data, self._words)}", field=path, code=Code.SCHEMA)
            )
            return None
        return self._decode_struct(type_name, data, path, results)

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
            elif kind in _POINTER_LIKE:
                policy = _PTR
            elif kind in ("slice", "map"):
                policy = _COLLECTION
            elif kind == "Time":
                policy = _TIME
            elif kind in _LEAF_ZERO or kind in ("struct", "k8s", "ExtraPodSpec"):
                policy = _ALWAYS
                zero = _LEAF_ZERO.get(kind)
                if omitzero:
                    raise ValueError(f"{name}.{json_name}: omitzero on {kind} is not supported")
            else:
                raise ValueError(f"{name}.{json_name}: unsupported Go type shape {shape!r}")
            decoder = self._decoder(shape)
            # what an absent field marshals as (_MISSING: nothing)
            absent: Any = None
            if policy == _SCALAR:
                absent = _MISSING if omitempty or omitzero else zero
            elif policy == _ALWAYS:
                absent = zero
                if kind in ("struct", "k8s", "ExtraPodSpec"):
                    absent, zero = _ZERO_STRUCT, self._zero_maker(shape)
            elif policy == _TIME:
                # the zero Time is a struct, so omitempty keeps it; it marshals as null
                absent = _MISSING if omitzero else None
            elif omitempty or omitzero:
                absent = _MISSING  # else a nil pointer, slice or map: null
            fields.append((json_name, decoder, policy, omitempty, omitzero, zero, absent))

    def _zero_maker(self, shape: tuple[Any, ...]) -> ZeroMaker:
        """What builds the zero value of a non-pointer struct (fresh each time: callers own it)."""
        kind = shape[0]
        if kind == "ExtraPodSpec":
            return lambda path, results: {}
        codec, name = (self._core_codec(shape), shape[1]) if kind == "k8s" else (self, shape[1])
        return lambda path, results: codec._decode_struct(name, {}, path, results)

    def _core_codec(self, shape: tuple[Any, ...]) -> Codec:
        if self._core is None:
            raise ValueError(f"{shape!r} needs the core/v1 codec")
        if len(shape) > 1 and shape[1] not in self._core._structs:
            raise ValueError(f"core/v1 struct {shape[1]!r} missing from the core table")
        return self._core

    def _decoder(self, shape: tuple[Any, ...]) -> Decoder:
        kind = shape[0]
        if kind in self._leaves:
            return self._leaves[kind]
        if kind == "ptr":
            return self._decoder(shape[1])
        if kind == "struct":
            name = shape[1]
            if name not in self._structs:
                raise ValueError(f"struct {name!r} missing from the table")
            return self._struct_decoder(name)
        if kind == "k8s":
            return self._core_codec(shape)._struct_decoder(shape[1])
        if kind == "slice":
            return self._slice_decoder(self._decoder(shape[1]), shape[1])
        if kind == "map":
            if shape[1] != ("string",):
                raise ValueError(f"unsupported map key shape {shape[1]!r}")
            return self._map_decoder(self._decoder(shape[2]))
        if kind == "ExtraPodSpec":
            return self._extra_pod_spec_decoder(self._core_codec(("k8s", "PodSpec")))
        if kind == "unsupported":
            return _unsupported_decoder(str(shape[1]))
        raise ValueError(f"unsupported Go type shape {shape!r}")

    def _struct_decoder(self, name: str) -> Decoder:
        words = self._words

        def decode(value: Any, parent: str, key: str | int, results: Sink) -> Any:
            if not isinstance(value, dict):
                return type_error("object", value, parent, key, results, words)
            return self._decode_struct(name, value, join(parent, key), results)

        return decode

    def _decode_struct(self, name: str, data: dict[Any, Any], path: str, results: Sink) -> dict[str, Any]:
        """Mirrors: encoding/json decode.go object() into a struct, then encode.go structEncoder"""
        index, fields = self._plans[name]
        got: dict[str, Any] = {}
        for raw_key, value in data.items():
            key = raw_key if type(raw_key) is str else key_text(raw_key)
            if key is None or key not in index:
                shown = key if key is not None else repr(raw_key)
                from renderer import hints  # the error path only

                results.append(
                    Result(
                        message=f'unknown field "{shown}"',
                        severity=Severity.WARNING,
                        code=Code.UNKNOWN_FIELD,
                        field=join(path, shown),
                        hint=hints.did_you_mean(str(shown), index),
                    )
                )
                continue
            if value is None:
                continue
            decoded = fields[index[key]][1](value, path, key, results)
            if decoded is not INVALID:
                got[key] = decoded
        keep_empty = self._keep_empty
        out: dict[str, Any] = {}
        for json_name, _decode, policy, omitempty, omitzero, zero, absent in fields:
            value = got.get(json_name, _MISSING)
            if value is _MISSING:
                # an absent field: its Go zero value, unless the tag drops that
                if absent is _MISSING:
                    continue
                if absent is _ZERO_STRUCT:
                    out[json_name] = zero(path, results)
                else:
                    out[json_name] = absent
                continue
            if policy == _SCALAR:
                if (omitempty or omitzero) and value == zero:
                    continue
            elif policy == _COLLECTION:
                if omitempty and not value and not keep_empty:
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
        words = self._words
        expected = expected_name(shape, words)

        def decode(value: Any, parent: str, key: str | int, results: Sink) -> Any:
            if not isinstance(value, list):
                return type_error(words.get("array", "array"), value, parent, key, results, words)
            path = join(parent, key)
            out = []
            for i, item in enumerate(value):
                if item is None:
                    type_error(expected, item, path, i, results, words)
                    continue
                decoded = element(item, path, i, results)
                if decoded is not INVALID:
                    out.append(decoded)
            return out

        return decode

    def _map_decoder(self, element: Decoder) -> Decoder:
        words = self._words

        def decode(value: Any, parent: str, key: str | int, results: Sink) -> Any:
            if not isinstance(value, dict):
                return type_error(words.get("object", "object"), value, parent, key, results, words)
            path = join(parent, key)
            out: dict[str, Any] = {}
            for raw_key, item in value.items():
                map_key = key_text(raw_key)
                if map_key is None:
                    results.append(Result(message=f"unsupported map key {raw_key!r}", field=path, code=Code.SCHEMA))
                    continue
                if item is None:
                    continue
                decoded = element(item, path, map_key, results)
                if decoded is not INVALID:
                    out[map_key] = decoded
            return {k: out[k] for k in sorted(out)}

        return decode

    def _extra_pod_spec_decoder(self, core: Codec) -> Decoder:
        """The v1alpha1 ExtraPodSpec: the inline PodSpec, its containers moved last, then mainContainer.

        Its MarshalJSON shadows the embedded PodSpec's ``containers`` with an ``omitempty``
        copy declared after the embedded struct, so the list is printed after every PodSpec
        field and only when non-empty.

        Mirrors: api/v1alpha1/common.go ExtraPodSpec MarshalJSON
        """
        words = self._words
        container = core._struct_decoder("Container")

        def decode(value: Any, parent: str, key: str | int, results: Sink) -> Any:
            if not isinstance(value, dict):
                return type_error("object", value, parent, key, results, words)
            path = join(parent, key)
            pod_fields = {k: v for k, v in value.items() if k != "mainContainer"}
            out: dict[str, Any] = {}
            if any(v is not None for v in pod_fields.values()):
                pod = core._decode_struct("PodSpec", pod_fields, path, results)
                containers = pod.pop("containers", None)
                out.update(pod)
                if containers:
                    out["containers"] = containers
            if value.get("mainContainer") is not None:
                main = container(value["mainContainer"], path, "mainContainer", results)
                if main is not INVALID:
                    out["mainContainer"] = main
            return out

        return decode


def _unsupported_decoder(type_name: str) -> Decoder:
    """A field of a Go type the tables leave unmodelled: any value is refused as not ported yet."""

    def decode(value: Any, parent: str, key: str | int, results: Sink) -> Any:
        err = unsupported(join(parent, key), f"{type_name} is not modelled")
        results.append(Result(message=err.message, field=err.field, code=Code.UNSUPPORTED))
        return INVALID

    return decode


CORE = Codec(k8s_types.STRUCTS)


def normalize(type_name: str, data: object, path: str) -> tuple[object, list[Result]]:
    """Emulate Go ``json.Unmarshal`` into ``type_name`` (a k8s.io/api struct) then ``json.Marshal``.

    ``path`` is the field path of ``data`` itself (``spec.podTemplate``); problems are
    reported below it. Unknown keys are dropped with a warning; type errors are errors
    and leave the field as if it were absent.

    Mirrors: encoding/json Unmarshal + Marshal on k8s.io/api core/v1 types
    """
    return CORE.normalize(type_name, data, path)


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
