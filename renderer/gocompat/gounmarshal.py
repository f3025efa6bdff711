"""The error ``json.Unmarshal`` returns for a JSON text decoded into a typed Go value.

``unmarshal_error`` answers "what would Go's encoding/json say about this text?" for the
struct tables of ``renderer.gocompat.dynamo_types`` and ``k8s_types``: None when it decodes,
else the error text, worded as Go 1.26 words it. The text is parsed with a nesting bound
(``max_depth``, counted with the outermost value as level 1) checked before Python's
recursive parser runs, so no text can exhaust the stack.

Go's rules kept here:

* a syntax error is reported as such (``unexpected end of JSON input``, ``invalid
  character ...``);
* a type mismatch is an ``UnmarshalTypeError``: decoding goes on and the first one is
  returned, worded ``json: cannot unmarshal <kind> into Go struct field <Struct>.<path> of
  type <type>``, where ``Struct`` is the struct that holds the field and ``path`` the JSON
  names from the root, with the Go names of embedded structs (map keys and list indexes are
  not part of it); an integer out of range or with a fraction is ``number <literal>``;
* an error a type's own ``UnmarshalJSON`` returns (a quantity, a time) stops decoding at
  once and wins over an earlier type mismatch;
* ``null`` decodes into anything; unknown object keys are ignored; a key matches a field
  exactly or, failing that, case-insensitively.

Mirrors: encoding/json decode.go (Unmarshal, UnmarshalTypeError.Error, addErrorContext,
literalStore, object, array), scanner.go (SyntaxError texts), resource.Quantity,
metav1.Time, metav1.Duration and intstr.IntOrString UnmarshalJSON
"""

from __future__ import annotations

import base64
import binascii
import json
import string
from collections.abc import Iterable, Mapping
from typing import Any

from renderer.gocompat import k8s_types
from renderer.gocompat.quantity import ERR_FORMAT_WRONG, parse_quantity

Rows = Mapping[str, tuple[tuple[Any, ...], ...]]

_INT_BOUNDS = {
    "int32": (-(1 << 31), (1 << 31) - 1),
    "int64": (-(1 << 63), (1 << 63) - 1),
    "int": (-(1 << 63), (1 << 63) - 1),
    "uint8": (0, 255),
}


_BASE64 = frozenset(string.ascii_letters + string.digits + "+/=")


class _Number(str):
    """A JSON number kept as its literal text (Go reports ``number <literal>``)."""


def is_number(value: Any) -> bool:
    """Whether ``value`` is a JSON number as ``parse`` gives it (its literal text)."""
    return isinstance(value, _Number)


class _Stop(Exception):
    """An error that ends decoding at once (an UnmarshalJSON error)."""


def nesting_depth_exceeds(text: str, limit: int) -> bool:
    """Whether a bracket of ``text`` (outside strings) opens at nesting level ``limit + 1``.

    A linear scan over the raw text, so that it can run before a recursive parser does.
    """
    depth = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > limit:
                return True
        elif ch in "]}":
            depth -= 1
    return False


def parse(text: str) -> Any:
    """``text`` parsed with numbers kept as literals (ValueError with Go's syntax error text)."""
    try:
        return json.loads(text, parse_int=_Number, parse_float=_Number, parse_constant=_constant)
    except json.JSONDecodeError as err:
        raise ValueError(_syntax_error(err)) from None


def _constant(name: str) -> Any:
    raise json.JSONDecodeError(f"invalid character '{name[0]}' looking for beginning of value", name, 0)


def _syntax_error(err: json.JSONDecodeError) -> str:
    """Go's scanner wording for the common cases; the position for the rest."""
    rest = err.doc[err.pos :].strip()
    if not rest:
        return "unexpected end of JSON input"
    char = rest[0]
    shown = "'\\''" if char == "'" else f"'{char}'"
    if err.msg == "Extra data":
        return f"invalid character {shown} after top-level value"
    if err.msg.startswith("Expecting ':'"):
        return f"invalid character {shown} after object key"
    if err.msg.startswith("Expecting ',' delimiter") or err.msg.startswith("Expecting property name"):
        return f"invalid character {shown} after object key:value pair" if "{" in err.doc[: err.pos] else (
            f"invalid character {shown} after array element"
        )
    return f"invalid character {shown} looking for beginning of value"


def unmarshal_error(
    fields: Iterable[tuple[tuple[Any, ...], Any, str, tuple[str, ...]]], tables: Mapping[str, Rows]
) -> str | None:
    """The error json.Unmarshal returns for values decoded one after another, or None.

    Each of ``fields`` is ``(shape, value, struct, stack)``: a table shape bound to a version
    (``("struct", version, name)``, ``("k8s", name)`` or a container of those), the value
    from ``parse``, the Go name of the struct that holds it and the field path to it (both
    empty for a top-level value). Several fields stand for the fields of a struct that no
    table holds, in document order. ``tables`` maps a version to its struct table; a
    version written ``name#tag`` prints as ``name``.
    """
    walker = _Walker(tables)
    try:
        for shape, value, struct, stack in fields:
            walker.value(shape, value, struct, stack)
    except _Stop as stop:
        return str(stop)
    return walker.first


class _Walker:
    def __init__(self, tables: Mapping[str, Rows]) -> None:
        self.tables = tables
        self.first: str | None = None

    def type_error(self, kind: str, go_type: str, struct: str, stack: tuple[str, ...]) -> None:
        if self.first is not None:
            return
        if struct or stack:
            self.first = f"json: cannot unmarshal {kind} into Go struct field {struct}.{'.'.join(stack)} of type {go_type}"
        else:
            self.first = f"json: cannot unmarshal {kind} into Go value of type {go_type}"

    def hard_type_error(self, kind: str, go_type: str, struct: str, stack: tuple[str, ...]) -> None:
        """A type mismatch raised by a type's own UnmarshalJSON (ends decoding, context added)."""
        first, self.first = self.first, None
        self.type_error(kind, go_type, struct, stack)
        message, self.first = self.first, first
        raise _Stop(message)

    def value(self, shape: tuple[Any, ...], raw: Any, struct: str, stack: tuple[str, ...]) -> None:
        if raw is None:
            return
        kind = shape[0]
        if kind == "ptr":
            self.value(shape[1], raw, struct, stack)
        elif kind == "string":
            if not isinstance(raw, str) or isinstance(raw, _Number):
                self.type_error(_kind(raw), "string", struct, stack)
        elif kind == "bool":
            if not isinstance(raw, bool):
                self.type_error(_kind(raw), "bool", struct, stack)
        elif kind in _INT_BOUNDS:
            self.integer(kind, raw, struct, stack)
        elif kind == "float64":
            if not isinstance(raw, _Number):
                self.type_error(_kind(raw), "float64", struct, stack)
        elif kind == "Quantity":
            self.quantity(raw)
        elif kind in ("Duration", "Time"):
            if not isinstance(raw, str) or isinstance(raw, _Number):
                self.hard_type_error(_kind(raw), "string", struct, stack)
        elif kind == "IntOrString":
            if not isinstance(raw, str) or isinstance(raw, _Number):
                self.integer("int32", raw, struct, stack, hard=True)
        elif kind == "slice":
            self.slice(shape, raw, struct, stack)
        elif kind == "map":
            if not isinstance(raw, dict):
                self.type_error(_kind(raw), self.type_name(shape), struct, stack)
                return
            for item in raw.values():
                self.value(shape[2], item, struct, stack)
        elif kind in ("struct", "k8s", "ExtraPodSpec"):
            self.struct(shape, raw, struct, stack)
        # RawJSON, RawMessage and unmodelled types take any JSON value

    def integer(self, kind: str, raw: Any, struct: str, stack: tuple[str, ...], hard: bool = False) -> None:
        report = self.hard_type_error if hard else self.type_error
        if not isinstance(raw, _Number):
            report(_kind(raw), kind, struct, stack)
            return
        low, high = _INT_BOUNDS[kind]
        try:
            number = int(raw)
        except ValueError:
            report(f"number {raw}", kind, struct, stack)
            return
        if not low <= number <= high:
            report(f"number {raw}", kind, struct, stack)

    def quantity(self, raw: Any) -> None:
        if isinstance(raw, (bool, dict, list)):
            raise _Stop(ERR_FORMAT_WRONG)
        try:
            parse_quantity(str(raw).strip(" \t\n\r"))
        except ValueError as err:
            raise _Stop(str(err)) from None

    def slice(self, shape: tuple[Any, ...], raw: Any, struct: str, stack: tuple[str, ...]) -> None:
        if shape[1] == ("uint8",) and isinstance(raw, str) and not isinstance(raw, _Number):
            self.base64(raw)
            return
        if not isinstance(raw, list):
            self.type_error(_kind(raw), self.type_name(shape), struct, stack)
            return
        for item in raw:
            self.value(shape[1], item, struct, stack)

    def base64(self, raw: str) -> None:
        """A []byte is standard padded base64 text (a bad one is saved, not a type error)."""
        if self.first is not None:
            return
        try:
            base64.b64decode(raw, validate=True)
        except (binascii.Error, ValueError):
            at = next((i for i, ch in enumerate(raw) if ch not in _BASE64), len(raw) - len(raw) % 4)
            self.first = f"illegal base64 data at input byte {at}"

    def struct(self, shape: tuple[Any, ...], raw: Any, struct: str, stack: tuple[str, ...]) -> None:
        if not isinstance(raw, dict):
            self.type_error(_kind(raw), self.type_name(shape), struct, stack)
            return
        owner, rows = self.rows(shape)
        exact = {row[0]: row for row in rows}
        folded = {row[0].lower(): row for row in reversed(rows)}
        for key, item in raw.items():
            row = exact.get(key) or folded.get(key.lower())
            if row is None:
                continue
            inline = tuple(row[5].split(".")) if row[5] else ()
            self.value(self.bind(shape, row[2]), item, owner, (*stack, *inline, row[0]))

    def rows(self, shape: tuple[Any, ...]) -> tuple[str, tuple[tuple[Any, ...], ...]]:
        """The Go name and field rows of a struct shape (ExtraPodSpec: PodSpec inline, mainContainer)."""
        if shape[0] == "struct":
            return shape[2], self.tables[shape[1]][shape[2]]
        if shape[0] == "k8s":
            return shape[1], k8s_types.STRUCTS[shape[1]]
        pod = tuple((*row[:5], "PodSpec") for row in k8s_types.STRUCTS["PodSpec"])
        main = ("mainContainer", "MainContainer", ("ptr", ("k8s", "Container")), True, False, "")
        return "ExtraPodSpec", (*pod, main)

    def bind(self, owner: tuple[Any, ...], shape: tuple[Any, ...]) -> tuple[Any, ...]:
        """A row's shape with Dynamo struct names bound to the owner's version."""
        kind = shape[0]
        if kind == "struct":
            return ("struct", owner[1], shape[1]) if owner[0] == "struct" else ("k8s", shape[1])
        if kind in ("ptr", "slice"):
            return (kind, self.bind(owner, shape[1]))
        if kind == "map":
            return ("map", shape[1], self.bind(owner, shape[2]))
        return shape

    def type_name(self, shape: tuple[Any, ...]) -> str:
        """Go's reflect.Type.String() of a shape."""
        kind = shape[0]
        if kind == "ptr":
            return "*" + self.type_name(shape[1])
        if kind == "slice":
            return "[]" + self.type_name(shape[1])
        if kind == "map":
            return f"map[string]{self.type_name(shape[2])}"
        if kind == "struct":
            return f"{shape[1].split('#')[0]}.{shape[2]}"
        if kind == "k8s":
            return f"v1.{shape[1]}"
        if kind == "ExtraPodSpec":
            return "v1alpha1.ExtraPodSpec"
        return {"Quantity": "resource.Quantity", "Time": "v1.Time", "Duration": "v1.Duration"}.get(kind, str(kind))


def _kind(raw: Any) -> str:
    """The JSON kind Go names in a type error."""
    if isinstance(raw, bool):
        return "bool"
    if isinstance(raw, _Number):
        return "number"
    if isinstance(raw, str):
        return "string"
    if isinstance(raw, list):
        return "array"
    return "object"
