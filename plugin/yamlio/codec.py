"""YAML in and out: safe multi-document loading with precise errors, deterministic dumping.

Loading follows what kubectl (sigs.k8s.io/yaml over go-yaml v2) would accept: YAML 1.1 scalars,
but timestamps stay strings; duplicate mapping keys are errors as in the Kubernetes decoders;
``kind: List`` documents are flattened into their items. Dumping is deterministic: block style,
sorted mapping keys, lists in order, no anchors or aliases, ``---`` between documents.

Hostile input is refused before it can cost memory or a crash, with one line per document:
only the safe tags are known (no python/object tags); every composed document is checked
before it is constructed, with go-yaml v2's alias budget (an alias bomb such as "billion
laughs" is refused as kubectl refuses it: "document contains excessive aliasing"), go-yaml's
refusal of an anchor that contains itself, and a nesting limit of ``MAX_DEPTH`` levels counted
after alias expansion (the emitter and the rendering code are recursive; libyaml itself stops
at 1000 levels).
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import re
import sys
from collections.abc import Iterable, Iterator
from renderer import consts
from renderer.records import dataclass
from typing import Any

import yaml

from renderer.gocompat.yamlresolve import BINARY as _BINARY
from renderer.gocompat.yamlresolve import BOOL as _BOOL
from renderer.gocompat.yamlresolve import FLOAT as _FLOAT
from renderer.gocompat.yamlresolve import INT as _INT
from renderer.gocompat.yamlresolve import MERGE as _MERGE
from renderer.gocompat.yamlresolve import NULL as _NULL
from renderer.gocompat.yamlresolve import STR as _STR
from renderer.gocompat.yamlresolve import TIMESTAMP as _TIMESTAMP
from renderer.gocompat.yamlresolve import INT64_RANGE, UINT64_MAX, go_resolve
from plugin.yamlio.fast import dump_documents as fast_dump_documents
from renderer.gocompat.goleaves import key_text
from renderer.results import Code, Result

_BaseLoader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _constructor_error(problem: str, node: Any) -> yaml.constructor.ConstructorError:
    return yaml.constructor.ConstructorError(None, None, problem, node.start_mark)


def _short_tag(tag: str) -> str:
    return "!!" + tag[len("tag:yaml.org,2002:") :] if tag.startswith("tag:yaml.org,2002:") else tag


# The tags a manifest may carry; any other (python/object, !!set, local !tags) is refused.
KNOWN_TAGS = ("!!str", "!!int", "!!float", "!!bool", "!!null", "!!binary", "!!timestamp", "!!map", "!!seq", "!!merge")


class Loader(_BaseLoader):  # type: ignore[misc]
    """Safe loader with kubectl's scalar rules, JSON-compatible keys and no duplicate keys."""

    yaml_implicit_resolvers: dict[Any, Any] = {}

    def resolve(self, kind: Any, value: Any, implicit: Any) -> Any:
        """A plain scalar gets go-yaml's type; ``<<`` stays the merge key; the rest as PyYAML."""
        if kind is yaml.ScalarNode and implicit[0]:
            if value == "<<":
                return _MERGE
            return go_resolve(value)[0]
        return super().resolve(kind, value, implicit)

    def construct_go_scalar(self, node: Any) -> Any:
        """A null, bool, int or float scalar as go-yaml decodes it; a tag the value does not fit is an error.

        Mirrors: gopkg.in/yaml.v2 resolve.go resolve (explicit tags: !!float accepts an int).
        """
        tag, value = go_resolve(self.construct_scalar(node))
        if tag != node.tag:
            if node.tag == _FLOAT and tag == _INT:
                return float(value)
            # the value itself is not repeated: it may be a Secret's data
            raise _constructor_error(f"cannot decode a {_short_tag(tag)} value as a {_short_tag(node.tag)}", node)
        if isinstance(value, float) and not math.isfinite(value):
            # sigs.k8s.io/yaml converts every document to JSON, which has no NaN or infinity.
            raise _constructor_error(f"{node.value} cannot be represented in JSON (json: unsupported value)", node)
        return value

    def construct_go_binary(self, node: Any) -> str:
        """``!!binary``: the decoded bytes as a string, as go-yaml gives them to JSON."""
        text = "".join(self.construct_scalar(node).split())
        try:
            data = base64.b64decode(text, validate=True)
        except (binascii.Error, ValueError):
            raise _constructor_error("!!binary value contains invalid base64 data", node) from None
        return data.decode("utf-8", errors="replace")

    def construct_go_timestamp(self, node: Any) -> str:
        """``!!timestamp``: go-yaml hands timestamps to JSON as the text they were written as."""
        text = str(self.construct_scalar(node))
        if not _TIMESTAMP_TEXT.fullmatch(text):
            raise _constructor_error("cannot decode a !!str value as a !!timestamp", node)
        return text

    def construct_shared_str(self, node: Any) -> str:
        """A string scalar, shared with every equal string read before (``sys.intern``).

        Manifests repeat the same keys and values thousands of times; one copy of each keeps
        a large bundle's memory down. Strings are immutable, so sharing is invisible.
        """
        text: str = self.construct_scalar(node)
        return sys.intern(text)

    def construct_unknown(self, node: Any) -> Any:
        raise _constructor_error(f"unsupported YAML tag {node.tag} (allowed: {', '.join(KNOWN_TAGS)})", node)

    def construct_mapping(self, node: Any, deep: bool = False) -> dict[str, Any]:
        """A mapping with JSON object keys, as sigs.k8s.io/yaml converts it; duplicates are errors.

        Mirrors: sigs.k8s.io/yaml yaml.go convertToJSONableObject (key conversion),
        gopkg.in/yaml.v2 UnmarshalStrict (a key set twice is an error).
        """
        if not isinstance(node, yaml.MappingNode):
            raise _constructor_error(f"expected a mapping node, but found {node.id}", node)
        self.flatten_mapping(node)
        mapping: dict[str, Any] = {}
        for key_node, value_node in node.value:
            raw = self.construct_object(key_node, deep=deep)
            key = _json_key(raw)
            problem = ""
            if key is None:
                problem = f"unsupported mapping key of type {_yaml_kind(raw)} (keys must be strings, numbers or booleans)"
            elif key in mapping:
                problem = f'mapping key "{key}" already defined'
            if problem:
                raise yaml.constructor.ConstructorError("while constructing a mapping", node.start_mark, problem, key_node.start_mark)
            assert key is not None
            mapping[key] = self.construct_object(value_node, deep=deep)
        return mapping

    def get_node(self) -> Any:
        node = super().get_node()
        if node is not None:
            check_document(node)
        return node

    def get_single_node(self) -> Any:
        node = super().get_single_node()
        if node is not None:
            check_document(node)
        return node


# go-yaml's allowed timestamp layouts: 2006-1-2, optionally with a time of day.
_TIMESTAMP_TEXT = re.compile(r"^[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:(?:[Tt]|[ \t]+)[0-9]{1,2}:[0-9]{1,2}:[0-9]{1,2}(?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9]{1,2}(?::?[0-9]{2})?))?)?$")

Loader.yaml_constructors = {}
for _tag in (_NULL, _BOOL, _INT, _FLOAT):
    Loader.add_constructor(_tag, Loader.construct_go_scalar)
Loader.add_constructor(_STR, Loader.construct_shared_str)
Loader.add_constructor(_BINARY, Loader.construct_go_binary)
Loader.add_constructor(_TIMESTAMP, Loader.construct_go_timestamp)
Loader.add_constructor("tag:yaml.org,2002:seq", yaml.constructor.SafeConstructor.construct_yaml_seq)
Loader.add_constructor("tag:yaml.org,2002:map", Loader.construct_mapping)
Loader.add_constructor(None, Loader.construct_unknown)
# A plain "<<" outside key position is just the string "<<" for go-yaml (kustomize writes it
# unquoted); as a key it was already consumed as a merge by flatten_mapping.
Loader.add_constructor(_MERGE, lambda loader, node: "<<" if node.value == "<<" else loader.construct_unknown(node))


def _json_key(key: Any) -> str | None:
    """A mapping key as a JSON object key; None for keys sigs.k8s.io/yaml refuses (null, uint64)."""
    if isinstance(key, int) and not isinstance(key, bool) and not INT64_RANGE[0] <= key <= INT64_RANGE[1]:
        return None
    if isinstance(key, float) and not math.isfinite(key):
        return {math.inf: ".inf", -math.inf: "-.inf"}.get(key, ".nan")
    return key_text(key)


def _yaml_kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, int):
        return "uint64"
    return type(value).__name__


# A document nested deeper than this (after alias expansion) is refused. Kubernetes objects
# are rarely deeper than 30 levels (a CRD's openAPIV3Schema of a recursive type is the
# deepest thing seen in practice); the emitter needs about three Python frames per level.
MAX_DEPTH = consts.MAX_DEPTH

# go-yaml v2's alias budget: below this many decode operations 99% may come from aliases,
# above the high mark 10%, linearly in between.
_ALIAS_RATIO_RANGE_LOW = 400_000
_ALIAS_RATIO_RANGE_HIGH = 4_000_000


def allowed_alias_ratio(decode_count: int) -> float:
    """The share of decode operations that may come from alias expansion.

    Mirrors: gopkg.in/yaml.v2 decode.go allowedAliasRatio (sigs.k8s.io/yaml's copy is the same).
    """
    if decode_count <= _ALIAS_RATIO_RANGE_LOW:
        return 0.99
    if decode_count >= _ALIAS_RATIO_RANGE_HIGH:
        return 0.10
    span = float(_ALIAS_RATIO_RANGE_HIGH - _ALIAS_RATIO_RANGE_LOW)
    return 0.99 - 0.89 * (float(decode_count - _ALIAS_RATIO_RANGE_LOW) / span)


def check_document(root: Any, level: int = 1) -> None:
    """Refuse a composed document that would blow up when its aliases are expanded.

    PyYAML shares one node (and one constructed object) between an anchor and its aliases, so
    loading an alias bomb is cheap; walking the loaded object (rendering, validating, dumping)
    is not. The decode operations go-yaml v2 would perform are counted in document order; an
    alias adds the expanded size of its target at once (computed once per node), which is
    where go-yaml's running check would first fail, since both the aliased share and the
    decode count only grow while an alias is expanded. Raises ``yaml.composer.ComposerError``
    (a ``yaml.YAMLError``), so every reader reports it as the invalid YAML it is for kubectl.
    The walk recurses at most ``MAX_DEPTH`` levels; ``level`` is the nesting level of ``root``
    (an item of a ResourceList, checked on its own, is at level 3).
    Mirrors: gopkg.in/yaml.v2 decode.go (decoder.unmarshal decode and alias counting,
    decoder.alias "value contains itself", decoder.merge).
    """
    _DocumentCheck().define(root, level, merge=False)


class _DocumentCheck:
    """One document's walk: go-yaml's decode and alias counters, and per-node results."""

    def __init__(self) -> None:
        self.decodes = 1  # the document node
        self.aliased = 0
        # id(node) -> (decode operations for the node with its aliases expanded, nesting levels)
        self.done: dict[int, tuple[int, int]] = {}
        self.open: set[int] = set()

    def fail(self, problem: str, node: Any) -> None:
        raise yaml.composer.ComposerError(None, None, problem, node.start_mark)

    def count(self, node: Any) -> None:
        self.decodes += 1
        if self.aliased > 100 and self.decodes > 1000 and self.aliased / self.decodes > allowed_alias_ratio(self.decodes):
            self.fail("document contains excessive aliasing", node)

    def child(self, node: Any, level: int, merge: bool) -> tuple[int, int]:
        """Decode operations and nesting levels a child adds, defining it or expanding an alias."""
        key = id(node)
        if key in self.open:
            self.fail("anchor value contains itself", node)
        seen = self.done.get(key)
        if seen is None:
            return self.define(node, level, merge)
        size, depth = seen
        # An alias: the alias node itself, then its target in full (go-yaml's running check
        # would first fail at the end of the expansion: both counters only grow inside it).
        self.count(node)
        self.decodes += size - 1
        self.aliased += size
        self.count(node)
        if level - 1 + depth > MAX_DEPTH:
            self.fail(f"document nesting is too deep (more than {MAX_DEPTH} levels)", node)
        return size + 1, depth

    def define(self, node: Any, level: int, merge: bool) -> tuple[int, int]:
        """Walk a node at its first occurrence; ``level`` is its nesting level if a collection."""
        is_map = isinstance(node, yaml.MappingNode)
        if not is_map and not isinstance(node, yaml.SequenceNode):
            self.count(node)
            self.done[id(node)] = (1, 0)
            return 1, 0
        if level > MAX_DEPTH:
            self.fail(f"document nesting is too deep (more than {MAX_DEPTH} levels)", node)
        # go-yaml decodes the sequence of a merge key item by item, not the sequence itself.
        own = 0 if merge and not is_map else 1
        if own:
            self.count(node)
        key = id(node)
        self.open.add(key)
        size, deepest = own, 0
        if is_map:
            for key_node, value_node in node.value:
                if isinstance(key_node, yaml.ScalarNode) and key_node.tag == _MERGE:
                    child_size, child_depth = self.child(value_node, level + 1, merge=True)
                    size += child_size
                    deepest = max(deepest, child_depth)
                    continue
                child_size, child_depth = self.child(key_node, level + 1, merge=False)
                size += child_size
                deepest = max(deepest, child_depth)
                child_size, child_depth = self.child(value_node, level + 1, merge=False)
                size += child_size
                deepest = max(deepest, child_depth)
        else:
            for item in node.value:
                child_size, child_depth = self.child(item, level + 1, merge=False)
                size += child_size
                deepest = max(deepest, child_depth)
        self.open.discard(key)
        # Stored with the node's own decode even for a merge sequence: an alias of it counts it.
        self.done[key] = (size + 1 - own, deepest + 1)
        return size, deepest + 1


@dataclass(frozen=True)
class Document:
    """One object read from a file, with its position for error messages."""

    obj: Any
    file: str
    index: int


def load_documents(text: str, file: str, limit: int | None = None) -> tuple[list[Document], list[Result]]:
    """Every non-empty document of a YAML stream (or a JSON stream); a broken stream is one error.

    With ``limit`` (what is left of a run's object limit) reading stops as soon as more than
    ``limit`` objects were read: the caller reports the limit, and the rest of the stream is
    never parsed (a 62 MB stream of a million one-line documents would otherwise cost minutes
    and gigabytes before the count is known).

    Documents are indexed from 0 in stream order (empty documents count, as kubectl's do not
    matter for identity but keep indexes aligned with what editors show). Text that is not YAML
    but starts like JSON is read as a stream of JSON values, as kubectl's YAML-or-JSON decoder
    reads it: our own ``-o json`` output (one object per line) and JSON that YAML cannot hold
    (surrogate-pair escapes, tabs) come back as they were written.
    """
    if text.lstrip(" \t\r\n")[:1] == "{":
        # kubectl's YAMLOrJSONDecoder reads a stream that starts with "{" as JSON (no NaN, no
        # YAML scalars); one that is not valid JSON is still tried as YAML below.
        docs, problems = load_json_stream(text, file, limit)
        if not problems or not problems[0].message.startswith("invalid JSON at line"):
            return docs, problems
    docs = []
    index = 0  # the document being read, also when reading it fails
    try:
        for obj in yaml.load_all(text, Loader=Loader):
            if obj is not None:
                docs.extend(Document(item, file, index) for item in _flatten_lists(obj))
                if limit is not None and len(docs) > limit:
                    break
            index += 1
    except yaml.YAMLError as err:
        if text.lstrip()[:1] in ("{", "["):
            return load_json_stream(text, file, limit)
        return docs, [Result(yaml_message(err), file=file, index=index, code=Code.INPUT)]
    except RecursionError:
        return docs, [Result("document nesting is too deep", file=file, index=index, code=Code.INPUT)]
    return docs, []


class _JSONValueError(ValueError):
    """A JSON value the Kubernetes decoders refuse (duplicate key, NaN)."""


def _json_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    mapping: dict[str, Any] = {}
    for key, value in pairs:
        if key in mapping:
            raise _JSONValueError(f'mapping key "{key}" already defined')
        mapping[key] = value
    return mapping


def _json_constant(name: str) -> Any:
    raise _JSONValueError(f"{name} cannot be represented in JSON (json: unsupported value)")


def _json_int(text: str) -> int | float:
    """An integer as Go decodes it for Kubernetes: int64 (or uint64), else a float64.

    One past float64's range is Go's "cannot unmarshal number" error (and Python would refuse
    to convert a decimal of more than 4300 digits).
    """
    if len(text.lstrip("-")) > 309:
        raise _JSONValueError(f"number with {len(text.lstrip('-'))} digits is out of range (json: cannot unmarshal number)")
    value = int(text)
    return value if INT64_RANGE[0] <= value <= UINT64_MAX else float(text)


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_JSON_DECODER = json.JSONDecoder(object_pairs_hook=_json_object, parse_constant=_json_constant, parse_int=_json_int)


def _json_text(value: str) -> str:
    """Go's JSON decoder turns an unpaired surrogate escape into U+FFFD."""
    return _LONE_SURROGATE.sub("\ufffd", value) if _LONE_SURROGATE.search(value) else value


def _clean_json(value: Any, depth: int = 1) -> Any:
    """Unpaired surrogates replaced; nesting limited as for YAML (``MAX_DEPTH``)."""
    if isinstance(value, str):
        return _json_text(value)
    if isinstance(value, (dict, list)) and depth > MAX_DEPTH:
        raise _JSONValueError(f"document nesting is too deep (more than {MAX_DEPTH} levels)")
    if isinstance(value, dict):
        return {_json_text(k): _clean_json(v, depth + 1) for k, v in value.items()}
    if isinstance(value, list):
        return [_clean_json(v, depth + 1) for v in value]
    return value


def load_json_stream(text: str, file: str, limit: int | None = None) -> tuple[list[Document], list[Result]]:
    """Every value of a stream of JSON values (objects one after another, as kubectl reads them).

    With ``limit``, reading stops once more than ``limit`` objects were read (``load_documents``).

    Mirrors: k8s.io/apimachinery/pkg/util/yaml YAMLOrJSONDecoder (a JSON stream),
    encoding/json (an unpaired surrogate escape becomes U+FFFD).
    """
    docs: list[Document] = []
    position, index = 0, 0
    while True:
        while position < len(text) and text[position] in " \t\r\n":
            position += 1
        if position >= len(text):
            return docs, []
        try:
            value, position = _JSON_DECODER.raw_decode(text, position)
            value = _clean_json(value)
        except json.JSONDecodeError as err:
            return docs, [Result(f"invalid JSON at line {err.lineno}, column {err.colno}: {err.msg}", file=file, index=index, code=Code.INPUT)]
        except _JSONValueError as err:
            return docs, [Result(f"invalid JSON: {err}", file=file, index=index, code=Code.INPUT)]
        except RecursionError:
            return docs, [Result(f"document nesting is too deep (more than {MAX_DEPTH} levels)", file=file, index=index, code=Code.INPUT)]
        if value is not None:
            docs.extend(Document(item, file, index) for item in _flatten_lists(value))
            if limit is not None and len(docs) > limit:
                return docs, []
        index += 1


def _flatten_lists(obj: Any) -> Iterator[Any]:
    """``kind: List`` (and ``*List``) objects stand for their items, as kubectl reads them.

    Nested lists are expanded breadth first, as kubectl does: the items of a list inside a
    list come after the plain items around it. kubectl treats any object with an ``items``
    array as a list; only kinds ending in ``List`` are here, so a stray ``items`` field never
    makes an object disappear.
    Mirrors: k8s.io/cli-runtime pkg/resource/visitor.go FlattenListVisitor.Visit.
    """
    if not _is_list(obj):
        yield obj
        return
    pending = [obj]
    position = 0
    while position < len(pending):
        current = pending[position]
        position += 1
        if _is_list(current):
            pending.extend(current["items"])
        else:
            yield current


def _is_list(obj: Any) -> bool:
    return (
        isinstance(obj, dict)
        and isinstance(obj.get("kind"), str)
        and obj["kind"].endswith("List")
        and isinstance(obj.get("items"), list)
    )


def yaml_message(err: yaml.YAMLError) -> str:
    """One line: where the YAML reader stopped and why."""
    mark = getattr(err, "problem_mark", None)
    problem = getattr(err, "problem", None) or str(err)
    context = getattr(err, "context", None)
    text = f"{context}: {problem}" if context else str(problem)
    text = text.replace("\n", " ")
    if mark is not None:
        return f"invalid YAML at line {mark.line + 1}, column {mark.column + 1}: {text}"
    return f"invalid YAML: {text}"


def dump_documents(objects: Iterable[Any]) -> str:
    """A deterministic multi-document YAML stream (empty string for no objects).

    ``plugin.yamlio.fast`` writes it: the bytes of ``dumper.dump_documents_reference``, several times faster.
    """
    return fast_dump_documents(objects)


def json_line(obj: Any) -> str:
    """One object of a JSON stream: compact, sorted keys, one line."""
    return json.dumps(obj, sort_keys=True, ensure_ascii=False, separators=(",", ":")) + "\n"
