"""The text of a converted document for ``convert --in-place``: the user's comments and key order kept.

A v1alpha1 document is read with ruamel.yaml's round-trip loader, which keeps every comment
with its line. The converted object is then written as a ruamel tree: each comment goes to
where its field lands in v1beta1 (``spec.services.<name>.resources.limits.gpu`` becomes the
main container's ``nvidia.com/gpu`` limit, ``extraPodSpec.mainContainer`` the main container,
``extraPodSpec`` the pod spec, the service's key its component's ``name``), and mapping keys
follow the order of the fields they came from, new keys after them by name. A comment whose
field has no place in v1beta1 goes to the nearest field that does. Lists keep the
converted object's order.

The caller checks that the text parses back to the converted object and otherwise writes
the plain form; ruamel is imported here only, so a render never loads it.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from typing import Any

import yaml
from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.scalarstring import LiteralScalarString, SingleQuotedScalarString

from plugin.yamlio.scalars import STR, go_resolve

Path = tuple[Any, ...]

# v1alpha1 resource names inside ``resources.{limits,requests}`` and the container resource each becomes
_RESOURCE_NAMES = {"gpu": "nvidia.com/gpu", "cpu": "cpu", "memory": "memory"}
_INDENT = 2


def commented(source: str, converted: dict[str, Any]) -> str | None:
    """``converted`` as block YAML with the comments and key order of ``source`` (None when it cannot)."""
    try:
        return _commented(source, converted)
    except Exception:  # noqa: BLE001 - ruamel refuses a comment placement: the caller writes the plain form
        return None


def _commented(source: str, converted: dict[str, Any]) -> str | None:
    yaml = YAML(typ="rt")
    try:
        original = yaml.load(source)
    except Exception:  # noqa: BLE001 - ruamel refuses what our loader read (a YAML 1.1 form): plain output
        return None
    if not isinstance(original, CommentedMap):
        return None
    comments = list(_comments(original, source.splitlines()))
    nodes = list(_nodes(original, ()))
    if not comments:
        return None
    mapper = _Mapper(original, converted)
    order: dict[Path, int] = {}
    for seq, (_line, path) in enumerate(nodes):
        target = mapper.beta(path)
        for i in range(len(target) + 1):
            order.setdefault(target[:i], seq)
    tree = _build(converted, (), order)
    by_line: dict[int, Path] = {}
    for line, path in nodes:
        by_line[line] = path  # the deepest (last) node starting on the line
    starts = sorted(nodes, key=lambda n: n[0])
    lines = source.splitlines()
    befores: dict[Path, list[str]] = {}
    ends: dict[Path, list[str]] = {}
    trailing: list[str] = []
    for line, text, full_line in comments:
        if not full_line and line in by_line:
            ends.setdefault(_existing(tree, mapper.beta(by_line[line])), []).append(text)
            continue
        following = next((p for ln, p in starts if ln > line), None)
        if following is None:
            trailing.append(lines[line].rstrip())  # after the last field: kept at the end, as written
            continue
        befores.setdefault(_existing(tree, mapper.beta(following)), []).append(text)
    for where, texts in befores.items():
        if where:
            _attach(tree, where, "\n".join(t[1:].strip() if t.startswith("#") else t for t in texts), True)
    for where, texts in ends.items():
        if where:
            _attach(tree, where, "  ".join(texts), False)
    out = io.StringIO()
    writer = YAML(typ="rt")
    writer.indent(mapping=_INDENT, sequence=_INDENT, offset=0)
    writer.width = 4096
    writer.dump(tree, out)
    return out.getvalue() + "".join(line + "\n" for line in trailing)


def count_comments(source: str) -> int:
    """How many comment lines a document's text holds (as ruamel reads it)."""
    try:
        doc = YAML(typ="rt").load(source)
    except Exception:  # noqa: BLE001
        return 0
    return len(list(_comments(doc, source.splitlines())))


# ---------------------------------------------------------------------------
# reading the original
# ---------------------------------------------------------------------------


def _tokens(value: Any) -> Iterator[Any]:
    """Every CommentToken in a ruamel comment slot (lists nest)."""
    if value is None:
        return
    if isinstance(value, list):
        for item in value:
            yield from _tokens(item)
    elif hasattr(value, "value") and hasattr(value, "start_mark"):
        yield value


def _comments(node: Any, lines: list[str]) -> Iterator[tuple[int, str, bool]]:
    """``(line, text, full_line)`` of every comment line under ``node``, once each, in line order."""
    found: dict[int, tuple[int, str, bool]] = {}

    def walk(n: Any) -> Iterator[Any]:
        if isinstance(n, (CommentedMap, CommentedSeq)):
            ca = n.ca
            yield from _tokens(ca.comment)
            for slot in ca.items.values():
                yield from _tokens(slot)
            yield from _tokens(getattr(ca, "end", None))
            for child in (n.values() if isinstance(n, CommentedMap) else n):
                yield from walk(child)

    for token in walk(node):
        # a token's marks are not always on its first comment line: find each line by its text
        cursor = max(token.start_mark.line - 1, 0)
        for part in token.value.split("\n"):
            text = part.strip()
            if not text.startswith("#"):
                continue
            line = next((n for n in range(cursor, len(lines)) if n not in found and lines[n].rstrip().endswith(text)), None)
            if line is None:
                continue
            found[line] = (line, text, lines[line].lstrip().startswith("#"))
            cursor = line + 1
    return iter(sorted(found.values()))


def _nodes(node: Any, path: Path) -> Iterator[tuple[int, Path]]:
    """``(line, path)`` of every key and list item, in document order."""
    if isinstance(node, CommentedMap):
        for key in node:
            try:
                line = node.lc.key(key)[0]
            except (KeyError, TypeError, AttributeError):
                continue
            yield line, (*path, key)
            yield from _nodes(node[key], (*path, key))
    elif isinstance(node, CommentedSeq):
        for i, item in enumerate(node):
            try:
                line = node.lc.item(i)[0]
            except (KeyError, TypeError, AttributeError):
                continue
            yield line, (*path, i)
            yield from _nodes(item, (*path, i))


class _Mapper:
    """Where a v1alpha1 field path lands in the converted object."""

    def __init__(self, original: Any, converted: dict[str, Any]) -> None:
        spec = converted.get("spec")
        components = spec.get("components") if isinstance(spec, dict) else None
        self.index: dict[str, int] = {}
        self.main: dict[str, int] = {}
        if isinstance(components, list):
            for i, component in enumerate(components):
                if isinstance(component, dict) and isinstance(component.get("name"), str):
                    self.index[component["name"]] = i
                    containers = (((component.get("podTemplate") or {}).get("spec") or {}).get("containers")) or []
                    names = [c.get("name") for c in containers if isinstance(c, dict)]
                    self.main[component["name"]] = names.index("main") if "main" in names else 0

    def beta(self, path: Path) -> Path:
        if path == ("spec", "services"):
            return ("spec", "components")
        if len(path) < 3 or path[:2] != ("spec", "services") or path[2] not in self.index:
            return path
        name = path[2]
        base: Path = ("spec", "components", self.index[name])
        rest = path[3:]
        container: Path = (*base, "podTemplate", "spec", "containers", self.main[name])
        if not rest:
            return (*base, "name")
        head = rest[0]
        if head == "componentType":
            return (*base, "type", *rest[1:])
        if head == "resources" and len(rest) >= 2:
            tail = rest[2:]
            if tail and tail[0] == "custom":
                tail = tail[1:]
            elif tail:
                tail = (_RESOURCE_NAMES.get(tail[0], tail[0]), *tail[1:])
            return (*container, "resources", rest[1], *tail)
        if head == "envs":
            return (*container, "env", *rest[1:])
        if head == "extraPodMetadata":
            return (*base, "podTemplate", "metadata", *rest[1:])
        if head == "extraPodSpec":
            if len(rest) >= 2 and rest[1] == "mainContainer":
                return (*container, *rest[2:])
            return (*base, "podTemplate", "spec", *rest[1:])
        return (*base, *rest)


# ---------------------------------------------------------------------------
# writing the converted object
# ---------------------------------------------------------------------------


def _build(value: Any, path: Path, order: dict[Path, int]) -> Any:
    if isinstance(value, dict):
        keys = sorted(value, key=lambda k: (order.get((*path, k), 1 << 30), str(k)))
        out = CommentedMap()
        for key in keys:
            out[key] = _build(value[key], (*path, key), order)
        return out
    if isinstance(value, list):
        return CommentedSeq(_build(item, (*path, i), order) for i, item in enumerate(value))
    if isinstance(value, str):
        return _scalar(value)
    return value


_PLAIN_UNSAFE = re.compile(r"\s$|^\s", re.MULTILINE)


def _scalar(value: str) -> Any:
    """A string as ruamel should write it: a literal block for clean multi-line text, quoted where YAML 1.1 would not read it as a string."""
    if "\n" in value.rstrip("\n") and not _PLAIN_UNSAFE.search(value.rstrip("\n")) and "\t" not in value and "\r" not in value:
        return LiteralScalarString(value)
    if _resolves_to_non_string(value):
        return SingleQuotedScalarString(value)
    return value


def _resolves_to_non_string(value: str) -> bool:
    """Whether a plain scalar ``value`` would be read as a bool, number, null or timestamp.

    Both readers count: go-yaml v2's rules (``y`` and ``n`` are booleans there), as Kubernetes
    reads manifests, and PyYAML's YAML 1.1 rules.
    """
    if go_resolve(value)[0] != STR:
        return True
    tag: str = yaml.resolver.Resolver().resolve(yaml.ScalarNode, value, (True, False))  # type: ignore[no-untyped-call]
    return tag != "tag:yaml.org,2002:str"


def _existing(tree: Any, path: Path) -> Path:
    """The longest prefix of ``path`` that names a node of ``tree``."""
    node = tree
    for i, step in enumerate(path):
        if isinstance(node, dict) and step in node:
            node = node[step]
        elif isinstance(node, list) and isinstance(step, int) and 0 <= step < len(node):
            node = node[step]
        else:
            return path[:i]
    return path


def _column(path: Path) -> int:
    """The column a node at ``path`` starts at (block style; a list's dash under its key, as kubectl writes)."""
    column = 0
    for i in range(1, len(path)):
        if isinstance(path[i], int):
            continue  # the dash sits at its key's column
        column += _INDENT
    return column


def _attach(tree: Any, path: Path, text: str, before: bool) -> bool:
    """Put comment ``text`` on the node at ``path``: at its line's end, or on a line of its own before it."""
    parent = tree
    for step in path[:-1]:
        parent = parent[step]
    key = path[-1]
    if before:
        if not isinstance(parent, (CommentedMap, CommentedSeq)):
            return False
        parent.yaml_set_comment_before_after_key(key, before=text, indent=_column(path))
        return True
    parent.yaml_add_eol_comment(text, key)
    return True
