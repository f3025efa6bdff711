"""Line numbers for results: the error path's line-aware view of a YAML file.

Rendering reads YAML with the fast loader and keeps only a document index per object. When a
front end has something to report and wants an editor-friendly ``file:line`` location, it
composes the same text again into nodes, which carry start marks, and walks a result's field
path down to the deepest node that exists. Nothing here runs when there is nothing to report.

Field paths are the renderer's JSON-path strings: ``spec.podTemplate.spec.containers[0].image``,
``metadata.annotations[nvidia.com/dcd-spec]`` (a bracketed map key) and
``spec.podTemplate.spec.containers[main].args`` (a bracketed list element, matched by ``name``).
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, TextIO

import yaml

from plugin.yamlio.codec import Loader
from renderer.results import ResourceRef, Result, Severity


class LineIndex:
    """The composed documents of one file, for turning results into ``file:line`` lines.

    Documents are composed as far as a result needs them: a result about document N composes
    the file up to the document after it, so a problem found early in a huge file (the object
    limit, at its 100,001st object) costs what reading that far cost, not the whole file again.
    """

    def __init__(self, text: str) -> None:
        self._text = text
        self._composed: list[Any] = []
        self._stream: Iterator[Any] | None = yaml.compose_all(text, Loader=Loader)
        self._error_line: int | None = None
        # composing finds syntax errors; duplicate keys show only when constructing, later
        self._needs_load = False

    def _compose(self, count: int | None) -> None:
        """Compose documents until ``count`` are known, or the stream ends or breaks (all: None)."""
        while self._stream is not None and (count is None or len(self._composed) < count):
            try:
                node = next(self._stream)
            except StopIteration:
                self._stream = None
                self._needs_load = True
            except yaml.YAMLError as err:
                self._stream = None
                mark = getattr(err, "problem_mark", None) or getattr(err, "context_mark", None)
                self._error_line = int(mark.line) + 1 if mark is not None else None
            except RecursionError:
                self._stream = None
            else:
                self._composed.append(node)

    @property
    def documents(self) -> list[Any]:
        """Every document of the file, as far as it composes."""
        self._compose(None)
        return self._composed

    def _document(self, index: int) -> Any:
        """Document ``index`` (and the one after it composed, to see a break just past it), or None."""
        self._compose(index + 2)
        return self._composed[index] if 0 <= index < len(self._composed) else None

    @property
    def error_line(self) -> int | None:
        """Where the stream stops being readable: a syntax error, or a duplicate key."""
        self._compose(None)
        if self._needs_load:
            self._error_line = _constructor_error_line(self._text)
            self._needs_load = False
        return self._error_line

    def _error_in(self, index: int, document: Any) -> int | None:
        """The line where the stream breaks, when it breaks inside document ``index`` (or just after it)."""
        if self._stream is None and not self._needs_load:
            error = self._error_line  # the stream broke within the documents composed so far
        elif index + 1 < len(self._composed):
            error = _constructor_error_line_of(document)  # composes beyond it: only a duplicate key can be in it
        else:
            error = self.error_line
        if error is not None and document.start_mark.line < error <= document.end_mark.line + 1:
            return error
        return None

    def line(self, result: Result) -> int | None:
        """The 1-based line a result is about, or None when it names no place in this file.

        A result with a document index maps to that document (to the list item it names when
        the document is a ``kind: List``); one without an index but with a resource maps to the
        first document holding that resource. Then the field path is followed as far as it goes:
        without a field, the line is where the document starts. A result about the file itself
        (no object, no field) is placed where the YAML breaks.
        """
        if result.resource is None and not result.field:
            # a problem with the file itself: where the YAML breaks, if it breaks in the document
            # it names (or it names none); else where that document starts
            document = self._document(result.index) if result.index is not None else None
            if result.index is None or document is None:
                return self.error_line
            error = self._error_in(result.index, document)
            if error is not None:
                return error
        node = self._object_node(result)
        if node is None:
            return None
        found = resolve(node, result.field)
        return int(found.start_mark.line) + 1

    def _object_node(self, result: Result) -> Any:
        if result.index is not None:
            document = self._document(result.index)
            if document is None or _is_null(document):
                return None
            if result.resource is not None:
                item = _list_item(document, result.resource) or _generator_entry(document, result.resource)
                if item is not None:
                    return item
            return document
        if result.resource is None:
            return None
        for document in self.documents:
            if _is_null(document):
                continue
            for candidate in _objects(document):
                if _matches(candidate, result.resource):
                    return candidate
        return None


def _constructor_error_line(text: str) -> int | None:
    """Errors only construction finds (duplicate keys, unhashable keys) need a full load."""
    try:
        for _ in yaml.load_all(text, Loader=Loader):
            pass
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        return int(mark.line) + 1 if mark is not None else None
    except RecursionError:
        return None
    return None


def _constructor_error_line_of(node: Any) -> int | None:
    """Errors only construction finds, in one composed document (a copy: merge keys rewrite the nodes)."""
    try:
        Loader("").construct_document(copy.deepcopy(node))
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        return int(mark.line) + 1 if mark is not None else None
    except RecursionError:
        return None
    return None


def _is_null(node: Any) -> bool:
    return isinstance(node, yaml.ScalarNode) and node.tag.endswith(":null")


def _get(node: Any, key: str) -> tuple[Any, Any] | None:
    """``(key_node, value_node)`` of a mapping entry, or None."""
    if not isinstance(node, yaml.MappingNode):
        return None
    for key_node, value_node in node.value:
        if isinstance(key_node, yaml.ScalarNode) and key_node.value == key:
            return key_node, value_node
    return None


def _scalar(node: Any, key: str) -> str:
    entry = _get(node, key)
    if entry is None or not isinstance(entry[1], yaml.ScalarNode):
        return ""
    return str(entry[1].value)


def _matches(node: Any, resource: ResourceRef) -> bool:
    if _scalar(node, "kind") != resource.kind:
        return False
    metadata = _get(node, "metadata")
    name = _scalar(metadata[1], "name") if metadata is not None else ""
    return name == resource.name


def _objects(document: Any) -> list[Any]:
    """A document's objects: itself, or the items of a ``kind: List`` (recursively)."""
    kind = _scalar(document, "kind")
    items = _get(document, "items")
    if kind.endswith("List") and items is not None and isinstance(items[1], yaml.SequenceNode):
        out: list[Any] = []
        for item in items[1].value:
            out.extend(_objects(item))
        return out
    return [document]


def _list_item(document: Any, resource: ResourceRef) -> Any:
    objects = _objects(document)
    if len(objects) == 1 and objects[0] is document:
        return None
    for candidate in objects:
        if _matches(candidate, resource):
            return candidate
    return None


# The kustomization lists whose entries kustomize's built-in generators turn into objects, by the kind made.
GENERATOR_LISTS = {("v1", "ConfigMap"): "configMapGenerator", ("v1", "Secret"): "secretGenerator"}
# The suffix kustomize appends to a generated name: a dash and ten characters of the content hash.
_HASH_SUFFIX = re.compile(r"-[a-z0-9]{10}$")


def _generator_entry(document: Any, resource: ResourceRef) -> Any:
    """The ``configMapGenerator`` / ``secretGenerator`` entry of a kustomization that made ``resource``, or None.

    A built app names an object kustomize generated by the kustomization that configured it
    (``plugin.app_reader``: its origin's ``configuredIn``); the entry is the place to fix it.
    The object's name is the entry's ``name`` with the content hash appended (unless the
    options turn it off) and the name prefixes and suffixes of this and the enclosing
    kustomizations around it: the entry whose name is the object's, else the longest entry
    name the object's name holds.
    Mirrors: kustomize api/internal/generators utils.go (the generated object's name),
    api/hasher (the hash suffix), api/filters/prefix and suffix.
    """
    key = GENERATOR_LISTS.get((resource.api_version, resource.kind))
    found = _get(document, key) if key is not None else None
    if found is None or not isinstance(found[1], yaml.SequenceNode):
        return None
    entries = [(_scalar(entry, "name"), entry) for entry in found[1].value if isinstance(entry, yaml.MappingNode)]
    bare = _HASH_SUFFIX.sub("", resource.name)
    exact = [entry for name, entry in entries if name and name in (resource.name, bare)]
    if exact:
        return exact[0]
    held = sorted(((name, entry) for name, entry in entries if name and name in resource.name), key=lambda pair: -len(pair[0]))
    return held[0][1] if held else None


def resolve(node: Any, path: str) -> Any:
    """The deepest node along ``path`` that exists in the document.

    A mapping key resolves to the key's own node (its line is where the field is written);
    a list element to the element. Map keys may contain dots, so the longest key that
    matches the rest of the path wins.
    """
    rest = path
    current = found = node
    while rest:
        if rest.startswith("."):
            rest = rest[1:]
            continue
        if rest.startswith("["):
            close = rest.find("]")
            if close < 0:
                break
            token, rest = rest[1:close], rest[close + 1 :]
            step = _bracket_step(current, token)
        else:
            step, rest = _key_step(current, rest)
        if step is None:
            break
        found, current = step
    return found


def _key_step(current: Any, rest: str) -> tuple[tuple[Any, Any] | None, str]:
    """Follow the longest mapping key that the rest of the path starts with."""
    if not isinstance(current, yaml.MappingNode):
        return None, rest
    best: tuple[Any, Any] | None = None
    best_len = -1
    for key_node, value_node in current.value:
        if not isinstance(key_node, yaml.ScalarNode):
            continue
        key = str(key_node.value)
        follows = rest == key or (rest.startswith(key) and rest[len(key)] in ".[")
        if follows and len(key) > best_len:
            best, best_len = (key_node, value_node), len(key)
    if best is None:
        return None, rest
    return best, rest[best_len:]


def _bracket_step(current: Any, token: str) -> tuple[Any, Any] | None:
    """``[0]`` indexes a list, ``[main]`` picks the element named main, ``[a.b/c]`` a map key."""
    if isinstance(current, yaml.SequenceNode):
        if token.isdigit():
            index = int(token)
            if index < len(current.value):
                element = current.value[index]
                return element, element
            return None
        for element in current.value:
            if _scalar(element, "name") == token:
                return element, element
        return None
    return _get(current, token)


def place(result: Result, index: LineIndex | None) -> str:
    """Where a result is: ``file:LINE`` when the line is known, else ``file (doc N)``, ``file`` or nothing.

    The line is 1-based: the line of the field the result names (as far as the document holds
    its path), else where its document starts. Without the file's text, or where the text does
    not hold the document, the renderer's own ``file (doc N)`` form is kept: a bare
    ``file:N`` would read as a line.
    """
    line = index.line(result) if index is not None and result.file else None
    return result.place() if line is None else f"{result.file}:{line}"


def with_line(result: Result, index: LineIndex | None) -> str:
    """``file:LINE: [severity] Kind/name field: message``; ``file (doc N):`` when no line is known."""
    return result.line_at(place(result, index))


def places(results: Sequence[Result], texts: Mapping[str, str]) -> list[str]:
    """``place`` of each result; each file named by a result is composed at most once."""
    return [result.place() if line is None else f"{result.file}:{line}" for result, line in zip(results, _lines(results, texts))]


def format_results(results: Sequence[Result], texts: Mapping[str, str]) -> list[str]:
    """One line per result (``with_line``); each file named by a result is composed at most once."""
    return [result.line_at(where) for result, where in zip(results, places(results, texts))]


# The forms ``validate`` prints its problems in (``-o``): one line each, one JSON document, or
# GitHub workflow commands that mark the line in a pull request.
REPORT_FORMATS = ("text", "json", "github")


def report(results: Sequence[Result], texts: Mapping[str, str], stream: TextIO, verbose: bool, output: str = "text") -> None:
    """Print every problem in ``output`` form; file-less notes (assumed defaults) once, and only when verbose."""
    shown: list[Result] = []
    seen: set[Result] = set()
    for result in results:
        if result.severity is Severity.INFO and not verbose:
            continue
        if not result.file:
            if result in seen:
                continue
            seen.add(result)
        shown.append(result)
    if output == "json":
        stream.write(json.dumps(as_records(shown, texts), indent=2, sort_keys=True) + "\n")
    elif output == "github":
        stream.writelines(line + "\n" for line in as_workflow_commands(shown, texts))
    else:
        stream.writelines(line + "\n" for line in format_results(shown, texts))


def _lines(results: Sequence[Result], texts: Mapping[str, str]) -> list[int | None]:
    """The 1-based line of each result where its file's text holds it (``place``), else None."""
    indexes: dict[str, LineIndex] = {}
    out: list[int | None] = []
    for result in results:
        line: int | None = None
        if result.file in texts:
            index = indexes.get(result.file)
            if index is None:
                index = indexes[result.file] = LineIndex(texts[result.file])
            line = index.line(result)
        out.append(line)
    return out


def as_records(results: Sequence[Result], texts: Mapping[str, str]) -> list[dict[str, Any]]:
    """Each result as a JSON record: where (file, line, document), what (object, field), the rule code and the fix.

    The keys are always present (``null`` or empty when unknown), so a CI script can read them
    without guarding each one.
    """
    records: list[dict[str, Any]] = []
    for result, line in zip(results, _lines(results, texts)):
        ref = result.resource
        records.append({
            "file": result.file or None,
            "line": line,
            "document": result.index,
            "severity": result.severity.value,
            "code": result.code.value,
            "object": None if ref is None else {
                "apiVersion": ref.api_version, "kind": ref.kind, "name": ref.name, "namespace": ref.namespace,
            },
            "field": result.field,
            "message": result.message,
            "fix": result.hint,
            "text": result.line_at(""),
        })
    return records


def _escape_data(text: str) -> str:
    """A workflow command's message, as the runner unescapes it (``%``, CR and LF)."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    """A workflow command's property value: the message escapes, then ``:`` and ``,``."""
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


# GitHub's annotation levels: an info note is a notice.
_WORKFLOW_LEVELS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}


def as_workflow_commands(results: Sequence[Result], texts: Mapping[str, str]) -> list[str]:
    """Each result as a GitHub Actions workflow command (``::error file=F,line=L,title=T::message``).

    The runner turns each into an annotation on that file and line of the pull request. The
    title is the rule code and the object; the message is the one-line form without its place.
    """
    out: list[str] = []
    for result, line in zip(results, _lines(results, texts)):
        properties: list[str] = []
        if result.file:
            properties.append(f"file={_escape_property(result.file)}")
            if line is not None:
                properties.append(f"line={line}")
        title = " ".join(part for part in (
            f"[{result.code.value}]" if result.code_tag() else "",
            result.resource.short() if result.resource is not None else "",
        ) if part)
        if title:
            properties.append(f"title={_escape_property(title)}")
        head = _WORKFLOW_LEVELS[result.severity]
        if properties:
            head = f"{head} {','.join(properties)}"
        out.append(f"::{head}::{_escape_data(result.line_at(''))}")
    return out
