"""YAML in and out: safe multi-document loading with precise errors, deterministic dumping.

Loading follows what kubectl (sigs.k8s.io/yaml over go-yaml v2) would accept: YAML 1.1 scalars,
but timestamps stay strings; duplicate mapping keys are errors as in the Kubernetes decoders;
``kind: List`` documents are flattened into their items. Dumping is deterministic: block style,
sorted mapping keys, lists in order, no anchors or aliases, ``---`` between documents.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import yaml

from renderer.results import Result

_BaseLoader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_BaseDumper: Any = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


class YAMLInputError(Exception):
    """A document that cannot be read; carries the mark for a one-line message."""


# go-yaml v2, which kubectl and Argo CD read manifests with, differs from PyYAML's YAML 1.1:
# y/Y/n/N are booleans, 1e3 (no dot) is a float, 1:30 is not sexagesimal, timestamps stay strings.
_GO_BOOL = re.compile(r"^(?:y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$")
_GO_INT = re.compile(r"^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+)$")
_GO_FLOAT = re.compile(
    r"^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+]?[0-9]+)?|[-+]?(?:[0-9][0-9_]*)(?:[eE][-+]?[0-9]+)"
    r"|\.[0-9_]+(?:[eE][-+][0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"
)
_RESOLVER_FIRSTS = {
    "tag:yaml.org,2002:bool": list("yYnNtTfFoO"),
    "tag:yaml.org,2002:int": list("-+0123456789"),
    "tag:yaml.org,2002:float": list("-+0123456789."),
}


def _go_yaml_resolvers(base: Any, keep_pyyaml: bool = False) -> dict[Any, Any]:
    """PyYAML's implicit resolvers with bool/int/float replaced by go-yaml v2's, minus timestamps.

    With ``keep_pyyaml`` the go-yaml rules are added to PyYAML's instead (for dumping: a string
    must stay a string for readers of either kind).
    """
    replaced = set() if keep_pyyaml else set(_RESOLVER_FIRSTS) | {"tag:yaml.org,2002:timestamp"}
    table: dict[Any, Any] = {
        first: [(tag, regexp) for tag, regexp in resolvers if tag not in replaced]
        for first, resolvers in base.yaml_implicit_resolvers.items()
    }
    for tag, regexp in (
        ("tag:yaml.org,2002:bool", _GO_BOOL),
        ("tag:yaml.org,2002:int", _GO_INT),
        ("tag:yaml.org,2002:float", _GO_FLOAT),
    ):
        for first in _RESOLVER_FIRSTS[tag]:
            table.setdefault(first, []).append((tag, regexp))
    return table


class Loader(_BaseLoader):  # type: ignore[misc,valid-type]
    """Safe loader with kubectl's scalar rules and no duplicate mapping keys."""

    yaml_implicit_resolvers = _go_yaml_resolvers(_BaseLoader)

    def construct_yaml_bool(self, node: Any) -> bool:
        return self.construct_scalar(node).lower() in ("y", "yes", "true", "on")

    def construct_mapping(self, node: Any, deep: bool = False) -> dict[Any, Any]:
        if not isinstance(node, yaml.MappingNode):
            raise yaml.constructor.ConstructorError(None, None, f"expected a mapping node, but found {node.id}", node.start_mark)
        self.flatten_mapping(node)
        mapping: dict[Any, Any] = {}
        for key_node, value_node in node.value:
            key = self.construct_object(key_node, deep=deep)
            try:
                hash(key)
            except TypeError:
                raise yaml.constructor.ConstructorError(
                    "while constructing a mapping", node.start_mark, "found unhashable key", key_node.start_mark
                ) from None
            if key in mapping:
                raise yaml.constructor.ConstructorError(
                    "while constructing a mapping",
                    node.start_mark,
                    f'mapping key "{key}" already defined',
                    key_node.start_mark,
                )
            mapping[key] = self.construct_object(value_node, deep=deep)
        return mapping


Loader.add_constructor("tag:yaml.org,2002:map", Loader.construct_mapping)
Loader.add_constructor("tag:yaml.org,2002:bool", Loader.construct_yaml_bool)


@dataclass(frozen=True)
class Document:
    """One object read from a file, with its position for error messages."""

    obj: Any
    file: str
    index: int


def load_documents(text: str, file: str) -> tuple[list[Document], list[Result]]:
    """Every non-empty document of a YAML stream; a broken stream is one error result.

    Documents are indexed from 0 in stream order (empty documents count, as kubectl's do not
    matter for identity but keep indexes aligned with what editors show).
    """
    docs: list[Document] = []
    index = 0
    try:
        for index, obj in enumerate(yaml.load_all(text, Loader=Loader)):
            if obj is None:
                continue
            for item in _flatten_lists(obj):
                docs.append(Document(item, file, index))
    except yaml.YAMLError as err:
        return docs, [Result(_yaml_message(err), file=file, index=index)]
    except RecursionError:
        return docs, [Result("document nesting is too deep", file=file, index=index)]
    return docs, []


def _flatten_lists(obj: Any) -> Iterator[Any]:
    """``kind: List`` (and ``*List``) objects stand for their items, as kubectl reads them."""
    if isinstance(obj, dict) and isinstance(obj.get("kind"), str) and obj["kind"].endswith("List") and isinstance(obj.get("items"), list):
        for item in obj["items"]:
            yield from _flatten_lists(item)
        return
    yield obj


def _yaml_message(err: yaml.YAMLError) -> str:
    mark = getattr(err, "problem_mark", None)
    problem = getattr(err, "problem", None) or str(err)
    context = getattr(err, "context", None)
    text = f"{context}: {problem}" if context else str(problem)
    text = text.replace("\n", " ")
    if mark is not None:
        return f"invalid YAML at line {mark.line + 1}, column {mark.column + 1}: {text}"
    return f"invalid YAML: {text}"


class Dumper(_BaseDumper):  # type: ignore[misc,valid-type]
    """Block style, no aliases, literal blocks for multi-line strings.

    Strings that go-yaml v2 would read as another type (``n``, ``1e3``, ...) are quoted.
    """

    yaml_implicit_resolvers = _go_yaml_resolvers(_BaseDumper, keep_pyyaml=True)

    def ignore_aliases(self, data: Any) -> bool:
        return True


def _represent_str(dumper: Any, data: str) -> Any:
    if "\n" in data:
        return dumper.represent_scalar("tag:yaml.org,2002:str", data, style="|")
    return dumper.represent_scalar("tag:yaml.org,2002:str", data)


Dumper.add_representer(str, _represent_str)


def dump_documents(objects: list[Any]) -> str:
    """A deterministic multi-document YAML stream (empty string for no objects)."""
    if not objects:
        return ""
    return yaml.dump_all(
        objects,
        Dumper=Dumper,
        default_flow_style=False,
        sort_keys=True,
        allow_unicode=True,
        width=2**31 - 1,
        explicit_start=True,
    )


def dump_json(objects: list[Any]) -> str:
    """A JSON stream, one object per line (Argo CD and KRM readers accept it)."""
    return "".join(json.dumps(obj, sort_keys=True, ensure_ascii=False, separators=(",", ":")) + "\n" for obj in objects)
