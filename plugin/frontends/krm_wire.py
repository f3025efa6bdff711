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

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import yaml

from plugin.yamlio import fast as fastyaml
from plugin.yamlio.codec import Loader, yaml_message
from plugin.yamlio.nodes import construct, mapping_get, read_nodes, write_document, write_sequence_entries
from renderer.results import Result

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
LOCAL_CONFIG_ANNOTATION = "config.kubernetes.io/local-config"


# ---------------------------------------------------------------------------------------------
# Reading


@dataclass(frozen=True)
class InputItem:
    """One item as read: its YAML node (for pass-through) and its value (for rendering)."""

    node: yaml.Node
    obj: Any

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


@dataclass
class ResourceListInput:
    items: list[InputItem] = field(default_factory=list)
    function_config: Any = None


def construct_item(node: yaml.Node, where: str) -> tuple[InputItem | None, list[Result]]:
    try:
        return InputItem(node, construct(node)), []
    except yaml.YAMLError as err:
        return None, [Result(yaml_message(err), field=where)]
    except RecursionError:
        return None, [Result("document nesting is too deep", field=where)]


def read_resource_list(text: str) -> tuple[ResourceListInput | None, list[Result]]:
    """Parse a ResourceList; ``None`` when it cannot be read at all."""
    nodes, results = read_nodes(text, "<stdin>", many=False)
    if results:
        return None, results
    if not nodes or not isinstance(nodes[0], yaml.MappingNode):
        return None, [Result("expected a ResourceList object on stdin")]
    root = nodes[0]
    head = {key: construct(value) for key in ("apiVersion", "kind") if (value := mapping_get(root, key)) is not None}
    if head.get("kind") != RESOURCE_LIST_KIND or head.get("apiVersion") not in ACCEPTED_RESOURCE_LIST_VERSIONS:
        return None, [
            Result(
                f'expected apiVersion "{RESOURCE_LIST_API_VERSION}" and kind "{RESOURCE_LIST_KIND}", '
                f'got "{head.get("apiVersion", "")}" "{head.get("kind", "")}"',
                field="kind",
            )
        ]
    out = ResourceListInput()
    items_node = mapping_get(root, "items")
    if items_node is not None and not (isinstance(items_node, yaml.ScalarNode) and items_node.tag.endswith(":null")):
        if not isinstance(items_node, yaml.SequenceNode):
            return None, [Result("expected a list", field="items")]
        for position, node in enumerate(items_node.value):
            item, problems = construct_item(node, f"items[{position}]")
            results.extend(problems)
            if item is not None:
                out.items.append(item)
    config_node = mapping_get(root, "functionConfig")
    if config_node is not None:
        try:
            out.function_config = construct(config_node)
        except yaml.YAMLError as err:
            results.append(Result(yaml_message(err), field="functionConfig"))
    if any(r.is_error for r in results):
        return None, results
    return out, results


def read_stream(text: str, source: str) -> tuple[list[InputItem] | None, list[Result]]:
    """Parse a plain multi-document YAML stream (the legacy exec plugin's stdin)."""
    nodes, results = read_nodes(text, source, many=True)
    if results:
        return None, results
    items: list[InputItem] = []
    for position, node in enumerate(nodes):
        item, problems = construct_item(node, "")
        results.extend(p.with_source(source, position) for p in problems)
        if item is not None and item.obj is not None:
            items.append(item)
    if any(r.is_error for r in results):
        return None, results
    return items, results


# ---------------------------------------------------------------------------------------------
# Writing


class _ItemWriter:
    """Block YAML text for output items, one block sequence entry (``- ...``) at a time.

    Rendered objects go through the project's fast emitter (``plugin.yamlio.fast``, the same
    bytes as every other front end writes); pass-through items are serialized from their
    nodes. Each entry is written as a one-item top-level sequence, which is exactly how it reads
    as an item of ``items:`` (PyYAML and libyaml do not indent a sequence under a mapping key).
    """

    def __init__(self) -> None:
        self.fast = fastyaml.Emitter()
        self.reader = Loader("")

    def rendered(self, objects: Sequence[Any]) -> str:
        text = self.fast.document(list(objects))
        if not text.startswith("---\n"):
            raise AssertionError(f"unexpected document start from the emitter: {text[:20]!r}")
        return text[4:]

    def passthrough(self, nodes: Sequence[yaml.Node]) -> str:
        return write_sequence_entries(nodes, self.reader)

    def entries(self, items: Sequence[yaml.Node | dict[str, Any]]) -> str:
        """Runs of rendered objects and of pass-through nodes, each written in one go."""
        parts: list[str] = []
        run: list[Any] = []
        for entry in [*items, None]:
            if run and (entry is None or isinstance(entry, yaml.Node) != isinstance(run[0], yaml.Node)):
                parts.append(self.passthrough(run) if isinstance(run[0], yaml.Node) else self.rendered(run))
                run = []
            if entry is not None:
                run.append(entry)
        return "".join(parts)


def write_resource_list(items: Sequence[yaml.Node | dict[str, Any]], results: Sequence[Result]) -> str:
    """One ResourceList document: items as they are, results in the kyaml shape."""
    writer = _ItemWriter()
    text = f"apiVersion: {RESOURCE_LIST_API_VERSION}\nkind: {RESOURCE_LIST_KIND}\n"
    text += f"items:\n{writer.entries(items)}" if items else "items: []\n"
    if results:
        text += f"results:\n{writer.rendered([r.to_krm() for r in results])}"
    return text


def write_stream(items: Sequence[yaml.Node | dict[str, Any]]) -> str:
    """A plain multi-document YAML stream (the legacy exec plugin's stdout)."""
    fast = fastyaml.Emitter()
    reader = Loader("")
    parts: list[str] = []
    trailer = ""
    for entry in items:
        if isinstance(entry, yaml.Node):
            parts.append(write_document(entry, reader))
            trailer = ""
        else:
            parts.append(fast.document(entry))
            trailer = fast.end()
    return "".join(parts) + trailer
