"""YAML nodes read and written back as they were: the pass-through path of the KRM front end.

A pass-through item is re-emitted from its parsed node, never from its Python value, so its
scalars keep their spelling (``1e3``, ``2024-01-01``, ``"yes"``) and its mapping keys their
order, and its collections their flow or block style. Reading uses the project's loader
(``codec.Loader``: kubectl's scalar rules); writing uses the reference dumper
(``dumper.Dumper``), without anchors. Comments are not part of a node: kpt copies them back
from its own copy of each item, so the output must keep the shape they attach to.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterable, Sequence
from typing import Any, TextIO

import yaml

from plugin.yamlio.codec import MAX_DEPTH, Loader, yaml_message
from plugin.yamlio.dumper import Dumper
from renderer.results import Code, Result


def _compose(text: str, many: bool) -> list[yaml.Node]:
    """YAML nodes of one document (``many=False``) or of every document of a stream."""
    loader = Loader(text)
    try:
        if not many:
            node = loader.get_single_node()
            return [] if node is None else [node]
        nodes: list[yaml.Node] = []
        while loader.check_node():
            nodes.append(loader.get_node())
        return nodes
    finally:
        loader.dispose()


def json_nodes(text: str, many: bool) -> list[yaml.Node] | None:
    """JSON that the YAML reader refused (tabs, ...): nodes built from the parsed values."""
    stripped = text.lstrip()
    if not stripped.startswith(("{", "[")):
        return None
    try:
        values = [json.loads(text)] if not many else list(_json_stream(text))
    except (ValueError, RecursionError):
        return None
    dumper = _dumper(io.StringIO())
    return [dumper.represent_data(value) for value in values]


def _json_stream(text: str) -> Iterable[Any]:
    decoder = json.JSONDecoder()
    position = 0
    while True:
        while position < len(text) and text[position].isspace():
            position += 1
        if position >= len(text):
            return
        value, position = decoder.raw_decode(text, position)
        yield value


def read_nodes(text: str, source: str, many: bool) -> tuple[list[yaml.Node], list[Result]]:
    """YAML nodes of one document (``many=False``) or of a stream; JSON the YAML reader refuses too."""
    try:
        return _compose(text, many), []
    except yaml.YAMLError as err:
        try:
            nodes = json_nodes(text, many)
        except RecursionError:
            return [], [Result("document nesting is too deep", file=source, code=Code.INPUT)]
        if nodes is not None:
            return nodes, []
        return [], [Result(yaml_message(err), file=source, code=Code.INPUT)]
    except RecursionError:
        return [], [Result("document nesting is too deep", file=source, code=Code.INPUT)]


class EventComposer:
    """YAML nodes composed one at a time from a loader's event stream.

    Why: the C composer builds a whole document before anything can be done with it; for a
    ResourceList that is every item at once, with two position marks per node (several times
    the input size). Composing item by item lets a reader keep only what it needs of each.
    Same rules as PyYAML's composer (tags resolved by the loader, anchors shared, a duplicate
    anchor an error), nesting bounded by ``MAX_DEPTH`` levels instead of the stack.
    """

    # distinct plain scalars whose resolved tag is remembered (keys and common values repeat)
    CACHE_LIMIT = 1 << 14

    def __init__(self, loader: Any) -> None:
        self.loader = loader
        self.anchors: dict[str, yaml.Node] = {}
        self._tags: dict[tuple[str, Any], str] = {}

    def node(self, level: int) -> yaml.Node:
        """The next node; ``level`` is its nesting level (the document's root is 1)."""
        return self._node(self.loader.get_event(), level)

    def _node(self, event: Any, level: int) -> yaml.Node:
        """The node that starts with ``event`` (already taken from the stream)."""
        loader = self.loader
        # the C parser's marks are its own type: typed loosely here
        start: Any = event.start_mark
        anchor: Any = event.anchor
        if isinstance(event, yaml.AliasEvent):
            found = self.anchors.get(anchor)
            if found is None:
                raise yaml.composer.ComposerError(None, None, f"found undefined alias {anchor!r}", start)
            return found
        if anchor is not None and anchor in self.anchors:
            raise yaml.composer.ComposerError(
                f"found duplicate anchor {anchor!r}; first occurrence", self.anchors[anchor].start_mark,
                "second occurrence", start,
            )
        node: yaml.Node
        tag = event.tag
        if isinstance(event, yaml.ScalarEvent):
            if tag is None or tag == "!":
                cache_key = (event.value, event.implicit)
                tag = self._tags.get(cache_key)
                if tag is None:
                    tag = loader.resolve(yaml.ScalarNode, event.value, event.implicit)
                    if len(self._tags) < self.CACHE_LIMIT:
                        self._tags[cache_key] = tag
            end: Any = event.end_mark
            node = yaml.ScalarNode(tag, event.value, start, end, style=event.style)
            if anchor is not None:
                self.anchors[anchor] = node
            return node
        if level > MAX_DEPTH:
            raise yaml.composer.ComposerError(None, None, f"document nesting is too deep (more than {MAX_DEPTH} levels)", start)
        # a sequence or a mapping: its entries until the matching end event
        is_sequence = isinstance(event, yaml.SequenceStartEvent)
        kind: Any = yaml.SequenceNode if is_sequence else yaml.MappingNode
        if tag is None or tag == "!":
            tag = loader.resolve(kind, None, event.implicit)
        collection = kind(tag, [], start, None, flow_style=event.flow_style)
        if anchor is not None:
            self.anchors[anchor] = collection
        end = yaml.SequenceEndEvent if is_sequence else yaml.MappingEndEvent
        while not loader.check_event(end):
            entry = self.node(level + 1)
            collection.value.append(entry if is_sequence else (entry, self.node(level + 1)))
        collection.end_mark = loader.get_event().end_mark
        node = collection
        return node

    def skip(self) -> None:
        """Consume the next node's events without building it; anchored parts are still composed
        (a later node may name them)."""
        loader = self.loader
        depth = 0
        while True:
            event = loader.get_event()
            if not isinstance(event, yaml.AliasEvent) and getattr(event, "anchor", None) is not None:
                self._node(event, depth + 1)
            elif isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
                depth += 1
                continue
            elif isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
                depth -= 1
            if depth == 0:
                return


def construct(node: yaml.Node) -> Any:
    """The value of a node, with kubectl's scalar rules (``plugin.yamlio.codec.Loader``)."""
    return Loader("").construct_document(node)


def mapping_get(node: yaml.Node, key: str) -> yaml.Node | None:
    """The value node of ``key`` in a mapping node, if any."""
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            if isinstance(key_node, yaml.ScalarNode) and key_node.value == key:
                found: yaml.Node = value_node
                return found
    return None




# ---------------------------------------------------------------------------------------------
# Writing


class _CachingDumper(Dumper):
    """The project's YAML writer, remembering how each scalar value resolves.

    The serializer asks twice per scalar; documents repeat the same keys and values thousands
    of times, and the answer depends only on the value.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._resolved: dict[tuple[str, tuple[bool, bool]], str] = {}

    def resolve(self, kind: Any, value: Any, implicit: Any) -> Any:
        if kind is not yaml.ScalarNode:
            return super().resolve(kind, value, implicit)
        key = (value, implicit)
        tag = self._resolved.get(key)
        if tag is None:
            tag = self._resolved[key] = super().resolve(kind, value, implicit)
        return tag


def _dumper(stream: TextIO, explicit_start: bool = False) -> Any:
    return _CachingDumper(
        stream,
        default_flow_style=False,
        sort_keys=True,
        allow_unicode=True,
        width=2**31 - 1,
        explicit_start=explicit_start,
    )


class UnwritableInput(yaml.YAMLError):
    """An input node that cannot be written back as YAML without anchors."""


_STR = "tag:yaml.org,2002:str"
_SEQ = "tag:yaml.org,2002:seq"


def passthrough_node(node: yaml.Node, dumper: Any, reader: Any, ancestors: set[int] | None = None) -> yaml.Node:
    """A fresh copy of an input node that emits as it was read (flow or block style), alias-free.

    Why: the reader resolved plain scalars with kubectl's rules and the writer quotes anything
    that either those rules or YAML 1.1 would read as a non-string. A plain scalar that was
    implicitly typed is re-tagged with what the writer will detect, so it stays plain and its
    spelling survives; an explicitly tagged one keeps its tag. Shared (aliased) nodes are
    copied at each use, because kustomize rejects anchors.
    """
    ancestors = set() if ancestors is None else ancestors
    if isinstance(node, yaml.ScalarNode):
        tag = node.tag
        if not node.style and reader.resolve(yaml.ScalarNode, node.value, (True, False)) == tag:
            tag = dumper.resolve(yaml.ScalarNode, node.value, (True, False))
        return yaml.ScalarNode(tag, node.value, style=node.style or None)
    if id(node) in ancestors:
        raise UnwritableInput("an anchor contains itself (recursive YAML alias); it cannot be written without anchors")
    ancestors.add(id(node))
    try:
        if isinstance(node, yaml.SequenceNode):
            return yaml.SequenceNode(node.tag, [passthrough_node(n, dumper, reader, ancestors) for n in node.value], flow_style=node.flow_style)
        return yaml.MappingNode(
            node.tag,
            [(passthrough_node(k, dumper, reader, ancestors), passthrough_node(v, dumper, reader, ancestors)) for k, v in node.value],
            flow_style=getattr(node, "flow_style", None),
        )
    finally:
        ancestors.discard(id(node))




def write_document(node: yaml.Node, reader: Any | None = None) -> str:
    """One input node as a YAML stream of one document (``---`` first), as it was read.

    ``reader`` is a ``codec.Loader`` to resolve plain scalars with (one may be shared).
    """
    return _write(node, explicit_start=True, reader=reader)


def write_sequence_entries(nodes: Sequence[yaml.Node], reader: Any | None = None) -> str:
    """Input nodes as the entries (``- ...``) of one top-level block sequence.

    That is exactly how they read as items of a ``items:`` key (PyYAML and libyaml do not
    indent a sequence under a mapping key). A ``|+`` block last in the stream makes libyaml
    close it with ``...``; that marker is left out, as the next line ends the block instead.
    """
    text = _write(yaml.SequenceNode(_SEQ, list(nodes), flow_style=False), explicit_start=False, reader=reader)
    return text[:-4] if text.endswith("\n...\n") else text


def _write(node: yaml.Node, explicit_start: bool, reader: Any | None) -> str:
    reader = reader if reader is not None else Loader("")
    stream = io.StringIO()
    dumper = _dumper(stream, explicit_start=explicit_start)
    copy = passthrough_node(node, dumper, reader)
    dumper.open()
    dumper.serialize(copy)
    dumper.close()
    dumper.dispose()
    return stream.getvalue()
