"""The ``convert`` command: v1alpha1 Dynamo objects rewritten as the v1beta1 objects the API server stores.

A migration aid in the manner of ``kubectl convert``. Every ``nvidia.com/v1alpha1``
DynamoGraphDeployment, DynamoComponentDeployment, DynamoGraphDeploymentRequest and
DynamoGraphDeploymentScalingAdapter becomes its v1beta1 form, as the operator's conversion
webhook writes it (preservation annotations included); every other object passes through.

Output: one deterministic YAML stream on stdout (the render emitter), ``-o json`` (one object
per line), or ``--in-place``: each file that holds a converted object is rewritten; converted
documents are replaced whole, every other document of the file keeps its exact bytes
(comments, key order, quoting, the ``---`` separators and comments between documents).

Contract: exit 0 on success; exit 1 with one line per problem (``file:doc: [error] Kind/name
field: message``) and nothing written (for ``--in-place``: no file at all) when any object
fails; exit 2 on usage errors. Files are replaced atomically (temporary file + rename).
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from collections.abc import Callable, Sequence
from renderer.records import dataclass
from typing import Any, TextIO

from plugin.files import Source, read_sources
from plugin.yamlio.codec import Loader, json_line, load_documents
from plugin.yamlio.fast import Emitter
from renderer.results import Code, RenderError, ResourceRef, Result

ALPHA = "nvidia.com/v1alpha1"
# the kinds the operator converts between v1alpha1 and v1beta1
CONVERTED_KINDS = (
    "DynamoGraphDeployment",
    "DynamoComponentDeployment",
    "DynamoGraphDeploymentRequest",
    "DynamoGraphDeploymentScalingAdapter",
)


def _converter(kind: str) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """The conversion function of ``kind`` (its module imported on first use)."""
    if kind == "DynamoGraphDeploymentRequest":
        from renderer.conversion.requests import dgdr_to_v1beta1

        return dgdr_to_v1beta1
    if kind == "DynamoGraphDeploymentScalingAdapter":
        from renderer.conversion.scaling_adapter import dgdsa_to_v1beta1

        return dgdsa_to_v1beta1
    from renderer.conversion.to_v1beta1 import dcd_to_v1beta1, dgd_to_v1beta1

    return dgd_to_v1beta1 if kind == "DynamoGraphDeployment" else dcd_to_v1beta1


def needs_conversion(obj: Any) -> bool:
    """A v1alpha1 object of a kind the operator converts (a List: any of its items)."""
    if not isinstance(obj, dict):
        return False
    if obj.get("kind") == "List" and isinstance(obj.get("items"), list):
        return any(needs_conversion(item) for item in obj["items"])
    return obj.get("apiVersion") == ALPHA and obj.get("kind") in CONVERTED_KINDS


def convert_object(obj: Any, file: str, index: int, results: list[Result]) -> Any:
    """``obj`` in v1beta1 when it needs conversion (problems appended to ``results``), else ``obj``."""
    if not needs_conversion(obj):
        return obj
    if obj.get("kind") == "List":
        return {**obj, "items": [convert_object(item, file, index, results) for item in obj["items"]]}
    ref = ResourceRef.of(obj)
    fn = _converter(obj["kind"])
    try:
        return fn(obj)
    except RenderError as err:
        results.append(err.to_result(ref, stage=Code.CONVERSION).with_source(file, index))
        return obj


def report(results: Sequence[Result], stream: TextIO) -> None:
    for result in results:
        stream.write(result.line() + "\n")


# ---------------------------------------------------------------------------
# stdout
# ---------------------------------------------------------------------------


def run_stream(paths: Sequence[str], output: str, stdout: TextIO, stderr: TextIO) -> int:
    """Convert every document of ``paths`` and write one stream; returns the exit code."""
    sources, results = read_sources(paths)
    objects: list[Any] = []
    for source in sources:
        docs, problems = load_documents(source.text, source.name)
        results.extend(problems)
        for doc in docs:
            objects.append(convert_object(doc.obj, doc.file, doc.index, results))
    if any(r.is_error for r in results):
        report(results, stderr)
        return 1
    report(results, stderr)
    if output == "json":
        stdout.write("".join(json_line(obj) for obj in objects))
    else:
        emitter = Emitter()
        stdout.write("".join(emitter.document(obj) for obj in objects) + (emitter.end() if objects else ""))
    stdout.flush()
    return 0


# ---------------------------------------------------------------------------
# --in-place
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class _Span:
    """Where one document's root node sits in its file's text, and its value."""

    start: int
    end: int
    obj: Any
    index: int


def _document_spans(text: str, name: str) -> tuple[list[_Span], list[Result]]:
    """Each document's root node span (trailing comment-only lines left outside it).

    Mirrors: plugin.yamlio.codec.load_documents (same loader, same document indexes)
    """
    spans: list[_Span] = []
    loader = Loader(text)
    index = 0
    try:
        while loader.check_node():
            node = loader.get_node()
            obj = loader.construct_document(node) if node is not None else None
            if node is not None and obj is not None:
                spans.append(_Span(node.start_mark.index, _content_end(text, node.end_mark.index), obj, index))
            index += 1
    except Exception:  # noqa: BLE001 - the stream was parsed once already; report as it did
        _docs, problems = load_documents(text, name)
        return [], problems or [Result("cannot locate the documents of this file", file=name, index=index, code=Code.INPUT)]
    finally:
        loader.dispose()
    return spans, []


def _content_end(text: str, end: int) -> int:
    """``end`` moved back over trailing blank and column-0 comment lines, to a line end."""
    lines = text[:end].splitlines(keepends=True)
    while lines and (not lines[-1].strip() or lines[-1].startswith("#")):
        lines.pop()
    cut = sum(len(line) for line in lines)
    if lines and not lines[-1].endswith(("\n", "\r")):
        newline = text.find("\n", cut)
        cut = len(text) if newline < 0 else newline + 1
    return cut


def _rewrite_yaml(source: Source, results: list[Result]) -> str | None:
    """The file's new text, or None when nothing in it needs conversion."""
    spans, problems = _document_spans(source.text, source.name)
    results.extend(problems)
    targets = [s for s in spans if needs_conversion(s.obj)]
    if problems or not targets:
        return None
    emitter = Emitter()
    out: list[str] = []
    cursor = 0
    for span in targets:
        converted = convert_object(span.obj, source.name, span.index, results)
        body = emitter.document(converted)
        body = body[4:] if body.startswith("---\n") else body
        out.append(source.text[cursor : span.start])
        out.append(body)
        cursor = span.end
        if span is spans[-1]:
            out.append(emitter.end())
    out.append(source.text[cursor:])
    return "".join(out)


def _rewrite_json(source: Source, results: list[Result]) -> str | None:
    """A JSON file rewritten (two-space indentation) when any of its values needs conversion."""
    docs, problems = load_documents(source.text, source.name)
    results.extend(problems)
    if problems or not any(needs_conversion(doc.obj) for doc in docs):
        return None
    converted = [convert_object(doc.obj, doc.file, doc.index, results) for doc in docs]
    return "".join(json.dumps(obj, indent=2, ensure_ascii=False) + "\n" for obj in converted)


def _write_atomic(path: str, text: str) -> None:
    """Replace ``path`` with ``text`` through a temporary file in the same directory."""
    directory = os.path.dirname(os.path.abspath(path))
    mode = os.stat(path).st_mode & 0o7777
    fd, tmp = tempfile.mkstemp(prefix=".dynamo-render-", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def run_in_place(paths: Sequence[str], stderr: TextIO) -> int:
    """Rewrite the files that hold v1alpha1 objects; nothing is written when any file has an error."""
    sources, results = read_sources(paths)
    rewrites: list[tuple[str, str]] = []
    for source in sources:
        is_json = source.name.endswith(".json") or source.text.lstrip()[:1] in ("{", "[")
        text = _rewrite_json(source, results) if is_json else _rewrite_yaml(source, results)
        if text is not None and text != source.text:
            rewrites.append((source.name, text))
    if any(r.is_error for r in results):
        report(results, stderr)
        return 1
    report(results, stderr)
    for path, text in rewrites:
        try:
            _write_atomic(path, text)
        except OSError as err:
            stderr.write(Result(f"cannot write: {err.strerror or err}", file=path, code=Code.INPUT).line() + "\n")
            return 1
    return 0


def main_stdio(paths: Sequence[str], output: str, in_place: bool) -> int:
    if in_place:
        return run_in_place(paths, sys.stderr)
    return run_stream(paths, output, sys.stdout, sys.stderr)
