"""A fast block-style YAML emitter for JSON-shaped Kubernetes objects.

It writes exactly the bytes ``plugin.yamlio.dumper``'s PyYAML dumper writes (block style, sorted
mapping keys, lists in order, literal blocks for multi-line strings, ``---`` before every
document, strings quoted whenever PyYAML's YAML 1.1 rules or go-yaml v2's would read them as
another type), without building PyYAML's node graph and event stream for every object.

How: the structure of block YAML for plain dicts and lists is simple and is written directly.
Each distinct string is classified once (cached): a conservative pattern recognises the common
plain-safe strings (names, images, paths, flags) and the resolvers of the reference dumper
decide whether such a string must be quoted; any other string is handed once to the reference
dumper itself, and its answer is reused if it does not depend on where the string appears
(an inline scalar, or a literal block this module can indent itself). A document holding
anything else (a multi-line string the reference dumper folds or quotes across lines, a key
longer than a simple key, a non-string key, a number out of range, a type other than the JSON
ones) is written by the reference dumper as a whole, so the output never differs.

Mirrors: libyaml emitter.c (yaml_emitter_analyze_scalar, yaml_emitter_select_scalar_style,
yaml_emitter_write_literal_scalar, block mapping and indentless block sequence layout) as
PyYAML's C dumper drives it.
"""

from __future__ import annotations

import io
import math
import re
from collections.abc import Iterable
from typing import Any

import yaml

from plugin.yamlio.dumper import Dumper

_STR_TAG = "tag:yaml.org,2002:str"
_FLOAT_TAG = "tag:yaml.org,2002:float"
# The reference dumper's options; every fallback uses them.
DUMP_OPTIONS: dict[str, Any] = {
    "Dumper": Dumper,
    "default_flow_style": False,
    "sort_keys": True,
    "allow_unicode": True,
    "width": 2**31 - 1,
}

# Single-line printable ASCII strings libyaml writes plain in block context when the resolvers
# call them strings: no leading or trailing space, no "#" (a comment after a space), no ": "
# or trailing ":" (a mapping indicator), a first character that is no indicator ("-" only when
# a non-space follows and the string does not start a document marker "---" or "...").
_PLAIN_REST = r"-A-Za-z0-9_./:$()=+~@%,^*&!?'\"<>\[\]{}|`\\"
_PLAIN_SAFE = re.compile(rf"(?!---|\.\.\.)(?:[A-Za-z0-9_/.$(=+~]|-[{_PLAIN_REST}])(?:[{_PLAIN_REST} ]*[{_PLAIN_REST}])?")
_BREAKS = re.compile("[\r\n\x85\u2028\u2029]")  # libyaml IS_BREAK: a key with one is not simple
_SIMPLE_KEY_MAX = 128  # libyaml yaml_emitter_check_simple_key: longer keys use "? key"

_CACHE_LIMIT = 1 << 15  # distinct one-line strings remembered at a time

_INT_MIN = -(2**63)
_UINT_MAX = 2**64 - 1


class _Fallback(Exception):
    """This document needs the reference dumper."""


class _Scalars:
    """Per-string rendering decisions, cached (strings repeat a lot across objects).

    ``inline`` maps a string to its one-line form, ``literal`` to its lines for a ``|`` or
    ``|-`` block, and ``hard`` holds strings only the reference dumper can place.
    """

    def __init__(self) -> None:
        self.inline: dict[str, str] = {}
        self.literal: dict[str, tuple[str, list[str]]] = {}
        self.hard: set[str] = set()
        self.keys: dict[str, str] = {}

    def key(self, key: Any) -> str:
        """``key: `` for a mapping key written as a simple key; _Fallback for any other key.

        A key must be a non-empty string of at most 128 bytes without a line break (libyaml
        yaml_emitter_check_simple_key); anything else makes PyYAML write ``? key``.
        """
        if type(key) is not str or not key or len(key.encode()) > _SIMPLE_KEY_MAX or _BREAKS.search(key):
            raise _Fallback
        if key not in self.inline and key not in self.literal and key not in self.hard:
            self.classify(key)
        text = self.inline.get(key)
        if text is None:
            raise _Fallback
        self.keys[key] = head = text + ": "
        return head

    def classify(self, text: str) -> None:
        """Fill one of the caches for ``text``."""
        if len(self.inline) >= _CACHE_LIMIT:
            # Mostly names seen once by now: start over rather than grow with the stream.
            self.inline.clear()
            self.keys.clear()
        if "\n" not in text and _PLAIN_SAFE.fullmatch(text) and not _has_indicator(text):
            if _plain_resolves_to_str(text):
                self.inline[text] = text
            else:
                self.inline[text] = "'" + text.replace("'", "''") + "'"
            return
        dumped = yaml.dump([text], **DUMP_OPTIONS)
        body = dumped[2:]  # after "- "
        if not _BREAKS.search(body, 0, len(body) - 1):
            self.inline[text] = body[:-1]
            return
        literal = _literal_lines(text)
        if literal is not None and dumped == _write_literal("- " + literal[0], literal[1], 2):
            self.literal[text] = literal
            return
        self.hard.add(text)


def _has_indicator(text: str) -> bool:
    """A ": " or " #" inside, or a trailing ":" (libyaml block indicators)."""
    return ": " in text or " #" in text or text.endswith(":")


def _plain_resolves_to_str(text: str) -> bool:
    """Whether the reference dumper's resolvers (go-yaml v2 and YAML 1.1) read ``text`` as a string."""
    return bool(_RESOLVER.resolve(yaml.ScalarNode, text, (True, False)) == _STR_TAG)


# A dumper instance for its resolvers (``resolve`` reads only class tables; nothing is emitted).
_RESOLVER: Any = Dumper(io.StringIO())


def _literal_lines(text: str) -> tuple[str, list[str]] | None:
    """The ``|``/``|-`` header and the lines of a literal block for ``text``, when that needs no hints.

    None for the forms this module does not write itself (leading space or break: an indent
    hint; two or more trailing breaks: ``|+`` and an open-ended document).
    """
    if not text or text[0] in " \n" or text.endswith("\n\n") or text == "\n":
        return None
    if text.endswith("\n"):
        return "|", text[:-1].split("\n")
    return "|-", text.split("\n")


def _write_literal(prefix: str, lines: list[str], indent: int) -> str:
    """``prefix`` (ending in the block header), then every line indented; empty lines stay empty."""
    pad = " " * indent
    return prefix + "\n" + "".join(pad + line + "\n" if line else "\n" for line in lines)


class _Writer:
    """One document's text; raises _Fallback on anything the fast path does not place."""

    def __init__(self, scalars: _Scalars) -> None:
        self.scalars = scalars
        self.out: list[str] = []

    def scalar(self, value: Any) -> str | None:
        """The inline form of a non-string scalar, or None for a string or a collection."""
        if value is None:
            return "null"
        if value is True:
            return "true"
        if value is False:
            return "false"
        kind = type(value)
        if kind is int:
            if _INT_MIN <= value <= _UINT_MAX:
                return str(value)
            raise _Fallback
        if kind is float:
            return _float_text(value)
        return None

    def value(self, value: Any, prefix: str, indent: int, in_sequence: bool) -> None:
        """Write ``prefix`` (a key with its colon, or a dash) and the value that follows it.

        ``indent`` is the column of the collection holding the value: a nested mapping goes two
        columns deeper, a sequence nested in a mapping stays at the mapping's column
        (PyYAML's indentless sequences), one nested in a sequence goes two columns deeper.
        """
        out = self.out
        kind = type(value)
        if kind is str:
            scalars = self.scalars
            text = scalars.inline.get(value)
            if text is None:
                literal = scalars.literal.get(value)
                if literal is None:
                    if value in scalars.hard:
                        raise _Fallback
                    scalars.classify(value)
                    self.value(value, prefix, indent, in_sequence)
                    return
                out.append(_write_literal(prefix + " " + literal[0], literal[1], indent + 2))
                return
            out.append(prefix + " " + text + "\n")
            return
        if kind is dict or kind is list:
            # an empty collection is written in flow style; a block sequence under a key is not indented
            if not value:
                out.append(prefix + (" {}\n" if kind is dict else " []\n"))
                return
            write = self.mapping if kind is dict else self.sequence
            if in_sequence:
                write(value, indent + 2, prefix + " ")
            else:
                out.append(prefix + "\n")
                write(value, indent + 2 if kind is dict else indent, None)
            return
        text = self.scalar(value)
        if text is None:
            raise _Fallback
        out.append(prefix + " " + text + "\n")

    def mapping(self, mapping: dict[Any, Any], indent: int, first: str | None) -> None:
        """A block mapping with keys at column ``indent``; ``first`` replaces the first key's indentation."""
        pad = " " * indent
        out = self.out
        heads = self.scalars.keys
        inline = self.scalars.inline
        try:
            keys = sorted(mapping)
        except TypeError:
            raise _Fallback from None
        for key in keys:
            head = heads.get(key) if type(key) is str else None
            if head is None:
                head = self.scalars.key(key)
            lead = pad if first is None else first
            first = None
            value = mapping[key]
            # The common case inline: a string value that fits on the key's line.
            if type(value) is str:
                text = inline.get(value)
                if text is not None:
                    out.append(lead + head + text + "\n")
                    continue
            self.value(value, lead + head[:-1], indent, False)

    def sequence(self, items: list[Any], indent: int, first: str | None) -> None:
        """A block sequence with dashes at column ``indent``; ``first`` replaces the first dash's indentation."""
        pad = " " * indent
        for item in items:
            lead = pad if first is None else first
            first = None
            self.value(item, lead + "-", indent, True)


def _float_text(value: float) -> str:
    """PyYAML's float representation, when go-yaml reads it back as the same float.

    Mirrors: yaml/representer.py SafeRepresenter.represent_float.
    """
    if math.isnan(value):
        return ".nan"
    if math.isinf(value):
        return ".inf" if value > 0 else "-.inf"
    text = repr(value).lower()
    if "." not in text and "e" in text:
        text = text.replace("e", ".0e", 1)
    if _RESOLVER.resolve(yaml.ScalarNode, text, (True, False)) != _FLOAT_TAG:
        raise _Fallback
    return text


class Emitter:
    """Writes a stream document by document; one instance shares the string cache across them.

    ``document`` returns a document's text as it appears when another document follows;
    ``end`` returns what the stream's last document adds at the end of the stream (the
    ``...`` marker after a ``|+`` block, which libyaml writes only there).
    """

    def __init__(self) -> None:
        self.scalars = _Scalars()
        self.trailer = ""

    def document(self, obj: Any) -> str:
        """One document, starting with ``---``, byte for byte as the reference dumper writes it."""
        writer = _Writer(self.scalars)
        try:
            kind = type(obj)
            if kind is dict and obj:
                writer.out.append("---\n")
                writer.mapping(obj, 0, None)
            elif kind is list and obj:
                writer.out.append("---\n")
                writer.sequence(obj, 0, None)
            else:
                raise _Fallback
        except _Fallback:
            return self.reference_document(obj)
        self.trailer = ""
        return "".join(writer.out)

    def reference_document(self, obj: Any) -> str:
        """The reference dumper's text for one document of a stream, and its end-of-stream trailer."""
        followed: str = yaml.dump_all([obj, {}], explicit_start=True, **DUMP_OPTIONS)
        text = followed[: -len(_NEXT_DOCUMENT)]
        alone: str = yaml.dump(obj, explicit_start=True, **DUMP_OPTIONS)
        if not followed.endswith(_NEXT_DOCUMENT) or not alone.startswith(text):
            raise AssertionError(f"unexpected document boundary from the reference dumper: {followed!r}")
        self.trailer = alone[len(text) :]
        return text

    def end(self) -> str:
        return self.trailer


_NEXT_DOCUMENT = "--- {}\n"


def dump_documents(objects: Iterable[Any]) -> str:
    """A deterministic multi-document YAML stream (empty string for no objects)."""
    emitter = Emitter()
    return "".join(emitter.document(obj) for obj in objects) + emitter.end()
