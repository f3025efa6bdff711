"""The KRM wire formats: a ResourceList (KRM function) and a plain YAML stream (legacy exec plugin).

Items are read as YAML nodes and values: the value is what gets rendered, the node is what a
pass-through item is written back from (``plugin.yamlio.nodes``), so its scalars keep their
spelling and its keys their order. Rendered objects are written by the project's fast writer.
Output has no anchors or aliases (kustomize rejects them); pass-through collections keep
their flow or block style, rendered objects are block YAML.

Mirrors: sigs.k8s.io/kustomize cmd/config/docs/api-conventions/functions-spec.md (wire format),
kyaml/kio/kioutil (path and index annotations), api/internal/plugins/execplugin/execplugin.go
(legacy exec plugin streams).
"""

from __future__ import annotations

import marshal
from collections.abc import Callable, Iterable, Iterator, Sequence
from renderer.records import dataclass, field
from typing import Any, TextIO

import yaml

from plugin.files import LOCAL_CONFIG_ANNOTATION, MAX_OBJECTS
from plugin.yamlio import fast as fastyaml
from plugin.yamlio.codec import Loader, check_document, yaml_message
from plugin.yamlio.nodes import EventComposer, construct, json_nodes, mapping_get, read_nodes, write_document, write_sequence_entries
from renderer.results import Code, Result

RESOURCE_LIST_API_VERSION = "config.kubernetes.io/v1"
RESOURCE_LIST_KIND = "ResourceList"
# Readers accept the pre-v1 versions too (kyaml kio.ByteReader does).
ACCEPTED_RESOURCE_LIST_VERSIONS = (RESOURCE_LIST_API_VERSION, "config.kubernetes.io/v1beta1", "config.kubernetes.io/v1alpha1")

PATH_ANNOTATION = "internal.config.kubernetes.io/path"
LEGACY_PATH_ANNOTATION = "config.kubernetes.io/path"
INDEX_ANNOTATION = "internal.config.kubernetes.io/index"
LEGACY_INDEX_ANNOTATION = "config.kubernetes.io/index"
SEQINDENT_ANNOTATION = "internal.config.kubernetes.io/seqindent"
# kpt fn render: the subpackage an item belongs to (its path is relative to that package).
PACKAGE_PATH_ANNOTATION = "internal.config.kubernetes.io/package-path"


# ---------------------------------------------------------------------------------------------
# Reading


@dataclass(frozen=True)
class InputItem:
    """One item as read: its value (what gets rendered) and its place among the input items.

    Its YAML node is not kept: a pass-through item is written back from a second reading of the
    input (``NodeSource``), so the items' node trees never sit in memory all at once.
    """

    obj: Any
    position: int

    @property
    def annotations(self) -> dict[str, Any]:
        meta = self.obj.get("metadata") if isinstance(self.obj, dict) else None
        annotations = meta.get("annotations") if isinstance(meta, dict) else None
        return annotations if isinstance(annotations, dict) else {}

    @property
    def path(self) -> str:
        """The item's file (kpt sets it; kustomize transformers see none)."""
        annotations = self.annotations
        value = annotations.get(PATH_ANNOTATION) or annotations.get(LEGACY_PATH_ANNOTATION)
        return value if isinstance(value, str) else ""

    @property
    def package(self) -> str:
        """The kpt (sub)package the item's path is relative to; empty outside ``kpt fn render``."""
        value = self.annotations.get(PACKAGE_PATH_ANNOTATION)
        return value if isinstance(value, str) else ""

    @property
    def index(self) -> int | None:
        """The item's position in its file, when the orchestrator says."""
        annotations = self.annotations
        value = annotations.get(INDEX_ANNOTATION, annotations.get(LEGACY_INDEX_ANNOTATION))
        try:
            return int(value) if isinstance(value, (str, int)) and not isinstance(value, bool) else None
        except ValueError:
            return None


class NodeSource:
    """The YAML nodes of the input items, handed out in input order for writing them back."""

    def __init__(self, nodes: Sequence[yaml.Node] = ()) -> None:
        self._nodes = list(nodes)

    def nodes(self, positions: Iterable[int]) -> Iterator[yaml.Node]:
        """The nodes at ``positions`` (ascending), one at a time."""
        for position in positions:
            yield self._nodes[position]


class _Reread(NodeSource):
    """Nodes from a second, streaming reading of a ResourceList: each is composed when asked for."""

    def __init__(self, text: Callable[[], str]) -> None:
        super().__init__()
        self._text = text

    def nodes(self, positions: Iterable[int]) -> Iterator[yaml.Node]:
        wanted = iter(positions)
        target = next(wanted, None)
        if target is None:
            return
        for position, node in _walk_items(self._text(), lambda p: p == target, lambda _key, _node: None):
            if node is None:
                continue
            yield node
            target = next(wanted, None)
            if target is None:
                return


@dataclass
class ResourceListInput:
    """What was read: the items' values (at most ``MAX_OBJECTS``), their number, the functionConfig."""

    items: list[InputItem] = field(default_factory=list)
    function_config: Any = None
    source: NodeSource = field(default_factory=NodeSource)
    count: int = 0


def _walk_items(
    text: str, want: Callable[[int], bool], other: Callable[[str | None, yaml.Node], None]
) -> Iterator[tuple[int, yaml.Node | None]]:
    """Stream a ResourceList: ``(position, node)`` per item (``None`` for items not wanted).

    Every other key of the root mapping goes to ``other`` with its value node. Raises
    ``yaml.YAMLError`` for what a YAML reader refuses and ``_NotAResourceList`` for a document
    that is no mapping.
    """
    loader = Loader(text)
    composer = EventComposer(loader)
    try:
        loader.get_event()  # stream start
        if loader.check_event(yaml.StreamEndEvent):
            raise _NotAResourceList("expected a ResourceList object on stdin")
        document = loader.get_event()
        if not loader.check_event(yaml.MappingStartEvent):
            raise _NotAResourceList("expected a ResourceList object on stdin")
        loader.get_event()
        while not loader.check_event(yaml.MappingEndEvent):
            key_node = composer.node(2)
            key = key_node.value if isinstance(key_node, yaml.ScalarNode) else None
            if key != "items":
                other(key, composer.node(2))
                continue
            if not loader.check_event(yaml.SequenceStartEvent) or loader.peek_event().anchor is not None:
                value = composer.node(2)
                other(key, value)
                if isinstance(value, yaml.SequenceNode):
                    for position, node in enumerate(value.value):
                        yield position, node if want(position) else None
                continue
            loader.get_event()
            position = 0
            while not loader.check_event(yaml.SequenceEndEvent):
                if want(position):
                    yield position, composer.node(3)
                else:
                    composer.skip()
                    yield position, None
                position += 1
            loader.get_event()
        loader.get_event()  # root mapping end
        loader.get_event()  # document end
        if not loader.check_event(yaml.StreamEndEvent):
            raise yaml.composer.ComposerError(
                "expected a single document in the stream", document.start_mark, "but found another document", loader.peek_event().start_mark
            )
    finally:
        loader.dispose()


class _NotAResourceList(Exception):
    pass


def _head_problem(head: dict[str, Any]) -> Result | None:
    """Why a document's apiVersion and kind are not a ResourceList's, if they are not."""
    if head.get("kind") == RESOURCE_LIST_KIND and head.get("apiVersion") in ACCEPTED_RESOURCE_LIST_VERSIONS:
        return None
    return Result(
        f'expected apiVersion "{RESOURCE_LIST_API_VERSION}" and kind "{RESOURCE_LIST_KIND}", '
        f'got "{head.get("apiVersion", "")}" "{head.get("kind", "")}"',
        field="kind", code=Code.INPUT,
    )


def construct_item(node: yaml.Node, where: str, position: int = 0, level: int | None = None) -> tuple[InputItem | None, list[Result]]:
    """An item's value; with ``level`` (its nesting level) the node is checked first (alias budget, depth)."""
    try:
        if level is not None:
            check_document(node, level)
        return InputItem(construct(node), position), []
    except yaml.YAMLError as err:
        return None, [Result(yaml_message(err), field=where, code=Code.INPUT)]
    except RecursionError:
        return None, [Result("document nesting is too deep", field=where, code=Code.INPUT)]


def read_resource_list(text: str, again: Callable[[], str] | None = None) -> tuple[ResourceListInput | None, list[Result]]:
    """Parse a ResourceList item by item; ``None`` when it cannot be read at all.

    Each item's node is composed, checked (alias budget, nesting), turned into its value and
    dropped; ``ResourceListInput.source`` reads the nodes again when they are written back,
    from ``again()`` (the same text; by default the text is kept).
    """
    out = ResourceListInput(source=_Reread(again if again is not None else lambda: text))
    results: list[Result] = []
    root: dict[str | None, yaml.Node] = {}

    def other(key: str | None, node: yaml.Node) -> None:
        if key in root:
            raise yaml.constructor.ConstructorError(None, None, f'mapping key "{key}" already defined', node.start_mark)
        root[key] = node

    try:
        # Past the object limit items are only counted (and written back unchanged with the error).
        for position, node in _walk_items(text, lambda p: p < MAX_OBJECTS, other):
            out.count = position + 1
            if node is None:
                continue
            item, problems = construct_item(node, f"items[{position}]", position, level=3)
            results.extend(problems)
            if item is not None:
                out.items.append(item)
    except _NotAResourceList as err:
        return None, [Result(str(err), code=Code.INPUT)]
    except RecursionError:
        return None, [Result("document nesting is too deep", file="<stdin>", code=Code.INPUT)]
    except yaml.YAMLError as err:
        return _read_json_resource_list(text, err)
    head = {key: construct(value) for key in ("apiVersion", "kind") if (value := root.get(key)) is not None}
    problem = _head_problem(head)
    if problem is not None:
        return None, [problem]
    items_node = root.get("items")
    if items_node is not None and not isinstance(items_node, yaml.SequenceNode) and not (
        isinstance(items_node, yaml.ScalarNode) and items_node.tag.endswith(":null")
    ):
        return None, [Result("expected a list", field="items", code=Code.INPUT)]
    config_node = root.get("functionConfig")
    if config_node is not None:
        item, problems = construct_item(config_node, "functionConfig", level=2)
        results.extend(problems)
        out.function_config = item.obj if item is not None else None
    if any(r.is_error for r in results):
        return None, results
    return out, results


def _read_json_resource_list(text: str, err: yaml.YAMLError) -> tuple[ResourceListInput | None, list[Result]]:
    """JSON that the YAML reader refused (tabs, ...): nodes built from the parsed values, all kept."""
    try:
        nodes = json_nodes(text, many=False)
    except RecursionError:
        return None, [Result("document nesting is too deep", file="<stdin>", code=Code.INPUT)]
    if not nodes:
        return None, [Result(yaml_message(err), file="<stdin>", code=Code.INPUT)]
    root = nodes[0]
    if not isinstance(root, yaml.MappingNode):
        return None, [Result("expected a ResourceList object on stdin", code=Code.INPUT)]
    head = {key: construct(value) for key in ("apiVersion", "kind") if (value := mapping_get(root, key)) is not None}
    problem = _head_problem(head)
    if problem is not None:
        return None, [problem]
    items_node = mapping_get(root, "items")
    item_nodes: list[yaml.Node] = []
    if isinstance(items_node, yaml.SequenceNode):
        item_nodes = list(items_node.value)
    elif items_node is not None and not (isinstance(items_node, yaml.ScalarNode) and items_node.tag.endswith(":null")):
        return None, [Result("expected a list", field="items", code=Code.INPUT)]
    out = ResourceListInput(source=NodeSource(item_nodes), count=len(item_nodes))
    results: list[Result] = []
    for position, node in enumerate(item_nodes[:MAX_OBJECTS]):
        item, problems = construct_item(node, f"items[{position}]", position, level=3)
        results.extend(problems)
        if item is not None:
            out.items.append(item)
    config_node = mapping_get(root, "functionConfig")
    if config_node is not None:
        out.function_config = construct(config_node)
    if any(r.is_error for r in results):
        return None, results
    return out, results


def read_stream(text: str, source: str) -> tuple[tuple[list[InputItem], NodeSource] | None, list[Result]]:
    """Parse a plain multi-document YAML stream (the legacy exec plugin's stdin); its nodes are kept."""
    nodes, results = read_nodes(text, source, many=True)
    if results:
        return None, results
    items: list[InputItem] = []
    kept: list[yaml.Node] = []
    for index, node in enumerate(nodes):
        item, problems = construct_item(node, "", len(kept))
        results.extend(p.with_source(source, index) for p in problems)
        if item is not None and item.obj is not None:
            items.append(item)
            kept.append(node)
    if any(r.is_error for r in results):
        return None, results
    return (items, NodeSource(kept)), results


# ---------------------------------------------------------------------------------------------
# Writing


class Deferred:
    """A rendered object held as marshal bytes until it is written, plus a last step to apply then.

    Why: every object of a run is rendered before the first is written (an error anywhere
    returns the items unchanged), and as dicts and strings they take several times the memory
    of their bytes. ``then`` adds the step that gives an object its file annotations.
    """

    __slots__ = ("_blob", "_obj", "_finish")

    def __init__(
        self, blob: bytes | None, obj: dict[str, Any] | None, finish: Callable[[dict[str, Any]], dict[str, Any]] | None = None
    ) -> None:
        self._blob, self._obj, self._finish = blob, obj, finish

    @classmethod
    def of(cls, obj: dict[str, Any]) -> Deferred:
        try:
            return cls(marshal.dumps(obj), None)
        except ValueError:  # a value marshal cannot hold: the object is kept as it is
            return cls(None, obj)

    def then(self, finish: Callable[[dict[str, Any]], dict[str, Any]]) -> Deferred:
        return Deferred(self._blob, self._obj, finish)

    def load(self) -> dict[str, Any]:
        obj = marshal.loads(self._blob) if self._blob is not None else self._obj
        assert isinstance(obj, dict)
        return obj if self._finish is None else self._finish(obj)


class KeptSource(int):
    """The position of a kept source (``keepSources``) in a kpt package: written back marked local-config.

    Why: a declarative ``kpt fn render`` pipeline keeps its DCDs in the package to render them
    again next time; they are the package's sources, not objects for the cluster, so
    ``kpt live apply`` must never send them (``config.kubernetes.io/local-config: "true"``).
    Its node is written as it came, with only that annotation added (a value already there is
    left as it is).
    """


_STR = "tag:yaml.org,2002:str"
_MAP = "tag:yaml.org,2002:map"


def _with_local_config(node: yaml.Node) -> yaml.Node:
    """A copy of an item's node with ``metadata.annotations`` holding the local-config annotation."""
    if not isinstance(node, yaml.MappingNode):
        return node
    metadata = mapping_get(node, "metadata")
    if metadata is not None and not isinstance(metadata, yaml.MappingNode):
        return node
    annotations = mapping_get(metadata, "annotations") if metadata is not None else None
    if annotations is not None and not isinstance(annotations, yaml.MappingNode):
        return node
    if annotations is not None and mapping_get(annotations, LOCAL_CONFIG_ANNOTATION) is not None:
        return node
    entry = (yaml.ScalarNode(_STR, LOCAL_CONFIG_ANNOTATION), yaml.ScalarNode(_STR, "true", style='"'))
    if annotations is None:
        new_annotations = yaml.MappingNode(_MAP, [entry], flow_style=False)
    else:
        new_annotations = yaml.MappingNode(annotations.tag, [*annotations.value, entry], flow_style=annotations.flow_style)
    if metadata is None:
        new_metadata = yaml.MappingNode(_MAP, [(yaml.ScalarNode(_STR, "annotations"), new_annotations)], flow_style=False)
    else:
        pairs = [(k, new_annotations if v is annotations else v) for k, v in metadata.value]
        if annotations is None:
            pairs.append((yaml.ScalarNode(_STR, "annotations"), new_annotations))
        new_metadata = yaml.MappingNode(metadata.tag, pairs, flow_style=metadata.flow_style)
    pairs = [(k, new_metadata if v is metadata else v) for k, v in node.value]
    if metadata is None:
        pairs.append((yaml.ScalarNode(_STR, "metadata"), new_metadata))
    return yaml.MappingNode(node.tag, pairs, flow_style=node.flow_style)


def _node_for(entry: int, node: yaml.Node) -> yaml.Node:
    return _with_local_config(node) if isinstance(entry, KeptSource) else node


# An output entry: a rendered object (perhaps deferred), or the position of an input item written back as it came.
Entry = int | dict[str, Any] | Deferred


class _ItemWriter:
    """Block YAML text for output items, one block sequence entry (``- ...``) at a time.

    Rendered objects go through the project's fast emitter (``plugin.yamlio.fast``, the same
    bytes as every other front end writes); pass-through items are serialized from their
    nodes. Each entry is written as a one-item top-level sequence, which is exactly how it reads
    as an item of ``items:`` (PyYAML and libyaml do not indent a sequence under a mapping key).
    Text goes to the stream as it is made, never held whole.
    """

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.fast = fastyaml.Emitter()
        self.reader = Loader("")

    def rendered(self, obj: Any) -> None:
        text = self.fast.document([obj])
        if not text.startswith("---\n"):
            raise AssertionError(f"unexpected document start from the emitter: {text[:20]!r}")
        self.stream.write(text[4:])

    # pass-through items written by one dumper at a time (a dumper per item costs more than the item)
    BATCH = 256

    def entries(self, entries: Sequence[Entry], source: NodeSource) -> None:
        """Rendered objects and pass-through items, in order."""
        nodes = source.nodes(entry for entry in entries if isinstance(entry, int))
        batch: list[yaml.Node] = []
        for entry in entries:
            if isinstance(entry, int):
                batch.append(_node_for(entry, next(nodes)))
                if len(batch) < self.BATCH:
                    continue
            if batch:
                self.stream.write(write_sequence_entries(batch, self.reader))
                batch = []
            if not isinstance(entry, int):
                self.rendered(entry.load() if isinstance(entry, Deferred) else entry)
        if batch:
            self.stream.write(write_sequence_entries(batch, self.reader))


def write_resource_list(entries: Sequence[Entry], results: Sequence[Result], source: NodeSource, stream: TextIO) -> None:
    """One ResourceList document: items as they are, results in the kyaml shape."""
    writer = _ItemWriter(stream)
    stream.write(f"apiVersion: {RESOURCE_LIST_API_VERSION}\nkind: {RESOURCE_LIST_KIND}\n")
    if entries:
        stream.write("items:\n")
        writer.entries(entries, source)
    else:
        stream.write("items: []\n")
    if results:
        stream.write("results:\n")
        for result in results:
            writer.rendered(result.to_krm())


def write_stream(entries: Sequence[Entry], source: NodeSource, stream: TextIO) -> None:
    """A plain multi-document YAML stream (the legacy exec plugin's stdout)."""
    fast = fastyaml.Emitter()
    reader = Loader("")
    nodes = source.nodes(entry for entry in entries if isinstance(entry, int))
    trailer = ""
    for entry in entries:
        if isinstance(entry, int):
            stream.write(write_document(_node_for(entry, next(nodes)), reader))
            trailer = ""
        else:
            stream.write(fast.document(entry.load() if isinstance(entry, Deferred) else entry))
            trailer = fast.end()
    stream.write(trailer)
