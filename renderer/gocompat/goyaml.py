"""YAML text exactly as ``sigs.k8s.io/yaml.Marshal`` prints it (go-yaml v2 underneath).

The operator turns some typed values into YAML strings that end up inside objects, such as
the EPP ``EndpointPickerConfig`` it stores in a ConfigMap. ``sigs.k8s.io/yaml.Marshal`` first
prints the value as Go JSON, reads that JSON back with go-yaml v2 (which picks int, float,
bool or null for bare numbers and literals), then prints it with go-yaml v2's emitter: map
keys in go-yaml's "natural" order, block style, sequences inside mappings not indented,
plain scalars where they read back as the same string, single or double quotes otherwise,
literal blocks for multi-line strings, and lines folded at 80 columns.

This module reproduces that text for JSON-compatible Python values (dict with string keys,
list, str, int, float, bool, None). It follows the C-derived emitter statement by statement
for the subset of events those values produce (block collections, empty flow collections,
implicit plain or quoted scalars); mapping keys that go-yaml would print as complex keys
(multi-line, or longer than 128 bytes) are refused.

Mirrors: sigs.k8s.io/yaml v1.6.0 yaml.go Marshal and JSONToYAML; go.yaml.in/yaml/v2 v2.4.3
encode.go (stringv, floatv), resolve.go resolve, sorter.go keyList.Less, emitterc.go
(yaml_emitter_analyze_scalar, yaml_emitter_select_scalar_style, the block and flow
collection emitters, yaml_emitter_write_{plain,single_quoted,double_quoted,literal}_scalar)
"""

from __future__ import annotations

import math
import re
from typing import Any

from renderer.gocompat.gofloat import format_float_g, go_float
from renderer.gocompat.yamlresolve import plain_is_string
from renderer.results import RenderError

BEST_INDENT = 2
BEST_WIDTH = 80
MAX_SIMPLE_KEY_BYTES = 128

_PLAIN, _SINGLE, _DOUBLE, _LITERAL = "plain", "single", "double", "literal"
_BREAKS = frozenset("\r\n\x85\u2028\u2029")
_JSON_INT = re.compile(r"-?[0-9]+")


# -- JSON read back by go-yaml --------------------------------------------------------------


def from_json(value: Any, path: str = "") -> Any:
    """The value go-yaml v2 decodes from Go's JSON of ``value``.

    Numbers are printed the way encoding/json prints them and then resolved as YAML: an
    integer literal becomes an int, anything else a float64 (so ``2.0`` comes back as ``2``).

    Mirrors: sigs.k8s.io/yaml JSONToYAML (yaml.Unmarshal into interface{}), go-yaml resolve
    """
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise RenderError(f"expected a string map key, got {key!r}", path)
            out[key] = from_json(item, f"{path}.{key}" if path else key)
        return out
    if isinstance(value, list):
        return [from_json(item, f"{path}[{i}]") for i, item in enumerate(value)]
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        if -(1 << 63) <= value < (1 << 64):
            return value
        value = float(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise RenderError(f"json: unsupported value: {value!r}", path)
        text = go_float(value)
        if _JSON_INT.fullmatch(text):
            number = int(text)
            if -(1 << 63) <= number < (1 << 64):
                return number
        return float(text)
    raise RenderError(f"cannot encode {type(value).__name__} as JSON", path)


# -- key order ------------------------------------------------------------------------------


def _key_less(a: str, b: str) -> bool:
    """go-yaml's string key order: letters before other runes, digit runs compared as numbers.

    Mirrors: go-yaml sorter.go keyList.Less (string keys)
    """
    for i in range(min(len(a), len(b))):
        if a[i] == b[i]:
            continue
        al, bl = a[i].isalpha(), b[i].isalpha()
        if al and bl:
            return a[i] < b[i]
        if al or bl:
            return bl
        an = bn = 0
        if a[i] == "0" or b[i] == "0":
            j = i - 1
            while j >= 0 and a[j].isdecimal():
                if a[j] != "0":
                    an = bn = 1
                    break
                j -= 1
        ai = i
        while ai < len(a) and a[ai].isdecimal():
            an = an * 10 + (ord(a[ai]) - 48)
            ai += 1
        bi = i
        while bi < len(b) and b[bi].isdecimal():
            bn = bn * 10 + (ord(b[bi]) - 48)
            bi += 1
        if an != bn:
            return an < bn
        if ai != bi:
            return ai < bi
        return a[i] < b[i]
    return len(a) < len(b)


def sorted_keys(keys: list[str]) -> list[str]:
    """Keys in go-yaml's order (a stable insertion sort with ``_key_less``)."""
    out: list[str] = []
    for key in keys:
        index = len(out)
        while index > 0 and _key_less(key, out[index - 1]):
            index -= 1
        out.insert(index, key)
    return out


# -- scalar analysis ------------------------------------------------------------------------


def _printable(char: str) -> bool:
    """Mirrors: go-yaml yamlprivateh.go is_printable (4-byte UTF-8 runes are not printable)."""
    cp = ord(char)
    return (
        cp == 0x0A
        or 0x20 <= cp <= 0x7E
        or 0xA0 <= cp <= 0xD7FF
        or (0xE000 <= cp <= 0xFFFF and cp not in (0xFEFF, 0xFFFE, 0xFFFF))
    )


class _Analysis:
    __slots__ = ("block", "block_plain", "multiline", "single_quoted")

    def __init__(self, value: str) -> None:
        """Mirrors: go-yaml emitterc.go yaml_emitter_analyze_scalar (unicode output on)."""
        if not value:
            self.multiline = False
            self.block_plain = True
            self.single_quoted = True
            self.block = False
            return
        block_indicators = value.startswith(("---", "..."))
        line_breaks = special = False
        leading_space = leading_break = trailing_space = trailing_break = False
        break_space = space_break = False
        previous_space = previous_break = False
        preceded_by_whitespace = True
        last = len(value) - 1
        for i, char in enumerate(value):
            followed_by_whitespace = i == last or value[i + 1] in " \t"
            if i == 0:
                if char in "#,[]{}&*!|>'\"%@`" or char in "?:" and followed_by_whitespace or char == "-" and followed_by_whitespace:
                    block_indicators = True
            elif char == ":" and followed_by_whitespace or char == "#" and preceded_by_whitespace:
                block_indicators = True
            if not _printable(char):
                special = True
            if char == " ":
                leading_space = leading_space or i == 0
                trailing_space = trailing_space or i == last
                break_space = break_space or previous_break
                previous_space, previous_break = True, False
            elif char in _BREAKS:
                line_breaks = True
                leading_break = leading_break or i == 0
                trailing_break = trailing_break or i == last
                space_break = space_break or previous_space
                previous_space, previous_break = False, True
            else:
                previous_space = previous_break = False
            preceded_by_whitespace = char in " \t\x00" or char in _BREAKS
        self.multiline = line_breaks
        self.block_plain = True
        self.single_quoted = True
        self.block = True
        if leading_space or leading_break or trailing_space or trailing_break:
            self.block_plain = False
        if trailing_space:
            self.block = False
        if break_space:
            self.block_plain = self.single_quoted = False
        if space_break or special:
            self.block_plain = self.single_quoted = self.block = False
        if line_breaks or block_indicators:
            self.block_plain = False


# -- the emitter ----------------------------------------------------------------------------


class _Emitter:
    """The slice of go-yaml's emitter state that block output of JSON values touches."""

    def __init__(self) -> None:
        self.out: list[str] = []
        self.column = 0
        self.indent = -1
        self.indents: list[int] = []
        self.whitespace = True
        self.indention = True
        self.mapping_context = False
        self.simple_key_context = False

    # primitive writers (emitterc.go put, put_break, write_indent, write_indicator)
    def put(self, text: str) -> None:
        self.out.append(text)
        self.column += len(text)

    def put_break(self) -> None:
        self.out.append("\n")
        self.column = 0

    def write_indent(self) -> None:
        indent = max(self.indent, 0)
        if not self.indention or self.column > indent or (self.column == indent and not self.whitespace):
            self.put_break()
        if self.column < indent:
            self.put(" " * (indent - self.column))
        self.whitespace = True
        self.indention = True

    def write_indicator(self, indicator: str, need_whitespace: bool, is_whitespace: bool, is_indention: bool) -> None:
        if need_whitespace and not self.whitespace:
            self.put(" ")
        self.put(indicator)
        self.whitespace = is_whitespace
        self.indention = self.indention and is_indention

    def increase_indent(self, flow: bool, indentless: bool) -> None:
        self.indents.append(self.indent)
        if self.indent < 0:
            self.indent = BEST_INDENT if flow else 0
        elif not indentless:
            self.indent += BEST_INDENT

    def pop_indent(self) -> None:
        self.indent = self.indents.pop()

    # nodes (emitterc.go yaml_emitter_emit_node and the collection states)
    def node(self, value: Any, mapping: bool, simple_key: bool, path: str) -> None:
        self.mapping_context = mapping
        self.simple_key_context = simple_key
        if isinstance(value, dict):
            self.mapping(value, path)
        elif isinstance(value, list):
            self.sequence(value, path)
        else:
            self.scalar(value, path)

    def mapping(self, value: dict[str, Any], path: str) -> None:
        if not value:
            self.empty_flow("{", "}")
            return
        self.increase_indent(False, False)
        for key in sorted_keys(list(value)):
            key_path = f"{path}.{key}" if path else key
            self.write_indent()
            text, _ = _scalar_text(key)
            if "\n" in text or any(c in _BREAKS for c in text) or len(text.encode("utf-8")) > MAX_SIMPLE_KEY_BYTES:
                raise RenderError(
                    "map keys that are multi-line or longer than 128 bytes are not supported "
                    "(the operator's YAML printer writes them as complex keys)",
                    key_path,
                )
            self.node(key, mapping=True, simple_key=True, path=key_path)
            self.write_indicator(":", False, False, False)
            self.node(value[key], mapping=True, simple_key=False, path=key_path)
        self.pop_indent()

    def sequence(self, value: list[Any], path: str) -> None:
        if not value:
            self.empty_flow("[", "]")
            return
        self.increase_indent(False, self.mapping_context and not self.indention)
        for i, item in enumerate(value):
            self.write_indent()
            self.write_indicator("-", True, False, True)
            self.node(item, mapping=False, simple_key=False, path=f"{path}[{i}]")
        self.pop_indent()

    def empty_flow(self, start: str, end: str) -> None:
        self.write_indicator(start, True, True, False)
        self.increase_indent(True, False)
        self.pop_indent()
        self.write_indicator(end, False, False, False)

    def scalar(self, value: Any, path: str) -> None:
        text, style = _scalar_text(value)
        analysis = _Analysis(text)
        # yaml_emitter_select_scalar_style, block context (flow level 0); multi-line keys are
        # refused before this point and an empty string never asks for the plain style
        if style == _PLAIN and not analysis.block_plain:
            style = _SINGLE
        if style == _SINGLE and not analysis.single_quoted:
            style = _DOUBLE
        if style == _LITERAL and (not analysis.block or self.simple_key_context):
            style = _DOUBLE
        self.increase_indent(True, False)
        allow_breaks = not self.simple_key_context
        if style == _PLAIN:
            self.write_plain(text, allow_breaks)
        elif style == _SINGLE:
            self.write_single_quoted(text, allow_breaks)
        elif style == _DOUBLE:
            self.write_double_quoted(text, allow_breaks)
        else:
            self.write_literal(text)
        self.pop_indent()

    # scalar writers
    def write_break_char(self, char: str) -> None:
        """write_break: a line feed is the configured break; other breaks are copied."""
        if char == "\n":
            self.put_break()
        else:
            self.out.append(char)
            self.column = 0

    def write_plain(self, value: str, allow_breaks: bool) -> None:
        """A plain scalar never holds a line break (the analysis rules the style out)."""
        if not self.whitespace:
            self.put(" ")
        spaces = False
        for i, char in enumerate(value):
            if char == " ":
                if allow_breaks and not spaces and self.column > BEST_WIDTH and not _at(value, i + 1, " "):
                    self.write_indent()
                else:
                    self.put(char)
                spaces = True
            else:
                self.put(char)
                self.indention = False
                spaces = False
        self.whitespace = False
        self.indention = False

    def write_single_quoted(self, value: str, allow_breaks: bool) -> None:
        self.write_indicator("'", True, False, False)
        spaces = breaks = False
        last = len(value) - 1
        for i, char in enumerate(value):
            if char == " ":
                if allow_breaks and not spaces and self.column > BEST_WIDTH and 0 < i < last and not _at(value, i + 1, " "):
                    self.write_indent()
                else:
                    self.put(char)
                spaces = True
            else:
                # a line feed asks for the literal style first, so only the other breaks get here;
                # a quote is written twice
                breaks = self.write_text_char(char, breaks, "''" if char == "'" else char)
                spaces = spaces and breaks
        self.write_indicator("'", False, False, False)
        self.whitespace = False
        self.indention = False

    def write_text_char(self, char: str, breaks: bool, text: str) -> bool:
        """One character of a single-quoted or literal scalar as ``text``; True when it was a line break.

        After a run of breaks the next character starts on a fresh, indented line.
        """
        if char in _BREAKS:
            self.write_break_char(char)
            self.indention = True
            return True
        if breaks:
            self.write_indent()
        self.put(text)
        self.indention = False
        return False

    def write_double_quoted(self, value: str, allow_breaks: bool) -> None:
        spaces = False
        self.write_indicator('"', True, False, False)
        starts_with_bom = value.startswith("\ufeff")  # is_bom looks at the start of the value
        last = len(value) - 1
        for i, char in enumerate(value):
            if not _printable(char) or starts_with_bom or char in _BREAKS or char in '"\\':
                self.put("\\" + _escape(char))
                spaces = False
            elif char == " ":
                if allow_breaks and not spaces and self.column > BEST_WIDTH and 0 < i < last:
                    self.write_indent()
                    if _at(value, i + 1, " "):
                        self.put("\\")
                else:
                    self.put(char)
                spaces = True
            else:
                self.put(char)
                spaces = False
        self.write_indicator('"', False, False, False)
        self.whitespace = False
        self.indention = False

    def write_literal(self, value: str) -> None:
        self.write_indicator("|", True, False, False)
        # yaml_emitter_write_block_scalar_hints
        if value[:1] == " " or value[:1] in _BREAKS:
            self.write_indicator(str(BEST_INDENT), False, False, False)
        chomp = ""
        if not value or value[-1] not in _BREAKS:
            chomp = "-"
        elif len(value) == 1 or value[-2] in _BREAKS:
            chomp = "+"
        if chomp:
            self.write_indicator(chomp, False, False, False)
        self.put_break()
        self.indention = True
        self.whitespace = True
        breaks = True
        for char in value:
            breaks = self.write_text_char(char, breaks, char)


def _at(value: str, index: int, char: str) -> bool:
    return index < len(value) and value[index] == char


_SIMPLE_ESCAPES = {
    0x00: "0", 0x07: "a", 0x08: "b", 0x09: "t", 0x0A: "n", 0x0B: "v", 0x0C: "f", 0x0D: "r",
    0x1B: "e", 0x22: '"', 0x5C: "\\", 0x85: "N", 0xA0: "_", 0x2028: "L", 0x2029: "P",
}


def _escape(char: str) -> str:
    """The escape go-yaml writes after a backslash in a double-quoted scalar."""
    cp = ord(char)
    if cp in _SIMPLE_ESCAPES:
        return _SIMPLE_ESCAPES[cp]
    if cp <= 0xFF:
        return f"x{cp:02X}"
    if cp <= 0xFFFF:
        return f"u{cp:04X}"
    return f"U{cp:08X}"


def _scalar_text(value: Any) -> tuple[str, str]:
    """A scalar's text and the style go-yaml's encoder asks for.

    Mirrors: go-yaml encode.go stringv, boolv, intv, floatv, nilv
    """
    if value is None:
        return "null", _PLAIN
    if value is True:
        return "true", _PLAIN
    if value is False:
        return "false", _PLAIN
    if isinstance(value, int):
        return str(value), _PLAIN
    if isinstance(value, float):
        return format_float_g(value), _PLAIN
    text = str(value)
    if "\n" in text:
        return text, _LITERAL
    if text and plain_is_string(text):
        return text, _PLAIN
    return text, _DOUBLE


def marshal(value: Any, path: str = "") -> str:
    """``sigs.k8s.io/yaml.Marshal`` of a JSON-compatible value, as text.

    Raises RenderError (with ``path``) for values go-yaml would print in forms not modelled.
    """
    decoded = from_json(value, path)
    emitter = _Emitter()
    emitter.node(decoded, mapping=False, simple_key=False, path=path)
    # the document end writes an indent: a line break unless the output already ends in one
    emitter.write_indent()
    return "".join(emitter.out)
