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
from collections.abc import Callable, Mapping, Sequence
from renderer.records import dataclass
from typing import TYPE_CHECKING, Any, TextIO

from plugin.files import HELM_CHART_FILE, Source, decode, is_within, read_bytes, read_sources, walk_manifests
from plugin.yamlio.codec import Loader, json_line, load_documents
from plugin.yamlio.fast import Emitter
from renderer.results import Code, RenderError, ResourceRef, Result, Severity

if TYPE_CHECKING:
    from plugin.frontends.convert_check import Check
    from plugin.options import OptionValues

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


def convert_object(
    obj: Any, file: str, index: int, results: list[Result], context: Sequence[Any] = (), as_stored: bool = False,
    checks: Sequence[Check] | None = None,
) -> Any:
    """``obj`` in v1beta1 when it needs conversion (problems appended to ``results``), else ``obj``.

    Unless ``as_stored``, what the API server would store but the render does not need is
    left out (``convert_minimal``; ``context`` is the rest of the file), with one info note
    saying what is kept and why; ``checks`` are the configurations that decide it (None: the
    fixed ones, ``convert_check.CHECKS``).
    """
    if not needs_conversion(obj):
        return obj
    if obj.get("kind") == "List":
        return {**obj, "items": [convert_object(item, file, index, results, context, as_stored, checks) for item in obj["items"]]}
    ref = ResourceRef.of(obj)
    fn = _converter(obj["kind"])
    try:
        stored = fn(obj)
    except RenderError as err:
        results.append(err.to_result(ref, stage=Code.CONVERSION).with_source(file, index))
        return obj
    if as_stored:
        return stored
    from plugin.frontends.convert_check import CHECKS
    from plugin.frontends.convert_minimal import UNCHECKED, minimise

    checks = CHECKS if checks is None else checks
    converted, kept = minimise(obj, stored, context, checks)
    if kept == [UNCHECKED]:
        results.append(_unchecked(obj, stored, context, ref, file, index, checks))
        return obj
    if kept:
        results.append(Result("; ".join(kept), severity=Severity.INFO, resource=ref, file=file, index=index,
                              code=Code.NOTE))
    return converted


def _unchecked(
    obj: dict[str, Any], stored: dict[str, Any], context: Sequence[Any], ref: ResourceRef, file: str, index: int,
    checks: Sequence[Check],
) -> Result:
    """The refusal of an object whose conversion keeps a preservation annotation no render can check.

    The default output promises that rendering it gives what rendering the input gives; an input
    that does not render cannot be held to that, and the opaque annotation would go into Git
    unreviewed. The error names the first reason the input does not render, with its fix.
    """
    from plugin.frontends.convert_check import render_problems
    from plugin.frontends.convert_minimal import PRESERVATION_KEYS

    annotations = (stored.get("metadata") or {}).get("annotations") or {}
    keys = [key for key in PRESERVATION_KEYS if key in annotations]
    problems = render_problems([*context, obj], checks)
    first = problems[0] if problems else None
    reason = ""
    if first is not None:
        reason = f": {first.field + ': ' if first.field else ''}{first.message}"
    fix = "make the input render, then convert again"
    if first is not None and first.hint:
        fix = f"{first.hint}, then convert again"
    return Result(
        f"not converted: the v1beta1 object would carry {' and '.join(keys)} (a JSON copy of v1alpha1 fields), and the "
        f"input does not render, so what the render needs of it cannot be checked{reason}",
        resource=ref, file=file, index=index, code=Code.CONVERSION,
        hint=f"{fix}; or pass --as-stored to write exactly what the API server would store, annotation included",
    )


def report(results: Sequence[Result], stream: TextIO, texts: Mapping[str, str] | None = None) -> None:
    """One line per result: ``file:LINE:`` where the file's text is in ``texts`` or can be read again, else ``file (doc N):``."""
    from plugin.files import TextsOrDisk
    from plugin.yamlio.lines import format_results

    stream.writelines(line + "\n" for line in format_results(results, TextsOrDisk(texts or {})))


# ---------------------------------------------------------------------------
# stdout
# ---------------------------------------------------------------------------


def _context(objects: Sequence[Any], index: int) -> list[Any]:
    """The other objects of a file, which the render of one of them may read."""
    return [obj for i, obj in enumerate(objects) if i != index and not needs_conversion(obj)]


def run_stream(
    paths: Sequence[str], output: str, stdout: TextIO, stderr: TextIO, as_stored: bool = False,
    checks: Sequence[Check] | None = None,
) -> int:
    """Convert every document of ``paths`` and write one stream; returns the exit code."""
    charts: list[str] = []
    sources, results = read_sources(paths, charts=charts)
    results.extend(_charts_left_out(charts))
    patches = _patches_named(paths)
    objects: list[Any] = []
    for source in sources:
        docs, problems = load_documents(source.text, source.name)
        results.extend(problems)
        values = [doc.obj for doc in docs]
        for doc in docs:
            if os.path.realpath(source.name) in patches and needs_conversion(doc.obj):
                results.append(_patch_refused(patches[os.path.realpath(source.name)], doc.file, doc.index))
                continue
            objects.append(convert_object(doc.obj, doc.file, doc.index, results, _context(values, doc.index), as_stored,
                                          checks))
    texts = {source.name: source.text for source in sources}
    if any(r.is_error for r in results):
        report(results, stderr, texts)
        return 1
    report(results, stderr, texts)
    if output == "json":
        stdout.write("".join(json_line(obj) for obj in objects))
    else:
        emitter = Emitter()
        stdout.write("".join(emitter.document(obj) for obj in objects) + (emitter.end() if objects else ""))
    stdout.flush()
    return 0


def _patches_named(paths: Sequence[str]) -> dict[str, str]:
    """Real path of each file a kustomization of the tree names as a patch -> that kustomization's file."""
    from plugin.frontends.convert_kustomize import find_kustomizations, patches_of

    kustomizations, _ = find_kustomizations(paths)
    return {ref.file: k.path for k in kustomizations for ref in patches_of(k) if ref.file is not None}


def _patch_refused(kustomization: str, file: str, index: int) -> Result:
    return Result(f"is a kustomize patch (named by {kustomization}): a patch is part of an object and is not converted "
                  "as a whole one", file=file, index=index, code=Code.CONVERSION)


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


def _line_ending(text: str) -> str:
    """The file's own line ending: that of its first line (LF for a file of one line)."""
    first = text.find("\n")
    return "\r\n" if first > 0 and text[first - 1] == "\r" else "\n"


def _rewrite_yaml(
    source: Source, results: list[Result], as_stored: bool, checks: Sequence[Check] | None = None
) -> tuple[str, list[Any]] | None:
    """The file's new text and the objects it must parse back to, or None when nothing in it needs conversion.

    A converted document replaces the old one's root node; one that began on its ``---`` line
    (``--- {...}``, ``--- !!map {...}``) is written on the lines after that separator.
    """
    spans, problems = _document_spans(source.text, source.name)
    results.extend(problems)
    targets = [s for s in spans if needs_conversion(s.obj)]
    if problems or not targets:
        return None
    values = [s.obj for s in spans]
    eol = _line_ending(source.text)
    emitter = Emitter()
    out: list[str] = []
    expected: list[Any] = list(values)
    cursor = 0
    for span in targets:
        position = spans.index(span)
        converted = convert_object(span.obj, source.name, span.index, results, _context(values, position), as_stored, checks)
        expected[position] = converted
        body = _document_text(source.text[span.start : span.end], converted, emitter, as_stored)
        before = source.text[cursor : span.start]
        line_start = before.rfind("\n") + 1
        if before[line_start:].strip():
            # the document starts on its separator line: keep the separator, write the body below it
            before = before.rstrip(" \t") + eol
        out.append(before)
        out.append(body.replace("\n", eol) if eol != "\n" else body)
        cursor = span.end
        if span is spans[-1]:
            out.append(emitter.end())
    out.append(source.text[cursor:])
    return "".join(out), expected


def _document_text(original: str, converted: Any, emitter: Emitter, as_stored: bool) -> str:
    """A converted document's text: with the original's comments and key order, else the plain emitter's.

    The commented form (ruamel.yaml, ``convert_layout``) is used only when it parses back to
    ``converted``; ``--as-stored`` writes the plain form, as the API server stores the object.
    """
    if not as_stored and isinstance(converted, dict) and converted.get("kind") != "List" and "#" in original:
        from plugin.frontends.convert_layout import commented

        text = commented(original, converted)
        if text is not None:
            docs, problems = load_documents(text, "")
            if not problems and len(docs) == 1 and json_line(docs[0].obj) == json_line(converted):
                return text
    body = emitter.document(converted)
    return body[4:] if body.startswith("---\n") else body


def _rewrite_json(
    source: Source, results: list[Result], as_stored: bool, checks: Sequence[Check] | None = None
) -> tuple[str, list[Any]] | None:
    """A JSON file rewritten (two-space indentation) when any of its values needs conversion."""
    docs, problems = load_documents(source.text, source.name)
    results.extend(problems)
    if problems or not any(needs_conversion(doc.obj) for doc in docs):
        return None
    values = [doc.obj for doc in docs]
    converted = [convert_object(doc.obj, doc.file, doc.index, results, _context(values, i), as_stored, checks)
                 for i, doc in enumerate(docs)]
    eol = _line_ending(source.text)
    return "".join(json.dumps(obj, indent=2, ensure_ascii=False).replace("\n", eol) + eol for obj in converted), converted


@dataclass(frozen=True)
class _File:
    """A file to convert in place: where it is, how it is encoded, and what it was when read."""

    name: str  # as the user named or reached it
    real: str  # the file written
    text: str
    bom: bytes
    encoding: str
    stamp: tuple[int, int, int]  # inode, size, mtime (ns): a change during the run is detected

    def encode(self, text: str) -> bytes:
        return self.bom + text.encode(self.encoding)


_BOMS = ((b"\xef\xbb\xbf", "utf-8"), (b"\xff\xfe", "utf-16-le"), (b"\xfe\xff", "utf-16-be"))


def _stamp(info: os.stat_result) -> tuple[int, int, int]:
    return info.st_ino, info.st_size, info.st_mtime_ns


def _read_in_place(paths: Sequence[str]) -> tuple[list[_File], list[Result]]:
    """The files of ``paths`` to rewrite, once each by real path.

    A file reached through a symlink is written through it when its real path lies in the
    converted tree (a folder given, or a named file's folder); a link out of the tree is
    reported when its file needs conversion.
    """
    results: list[Result] = []
    entries: list[tuple[str, str]] = []
    roots: list[str] = []
    charts: list[str] = []
    for path in paths:
        if os.path.isdir(path):
            roots.append(os.path.realpath(path))
            found, problems = walk_manifests(path, charts=charts)
            results.extend(problems)
            entries.extend((real, name) for real, name in found)
        else:
            roots.append(os.path.realpath(os.path.dirname(os.path.abspath(path))))
            entries.append((os.path.realpath(path), path))
    files: list[_File] = []
    seen: set[str] = set()
    for real, name in entries:
        if real in seen:
            continue
        seen.add(real)
        data, problems = read_bytes(real, name)
        results.extend(problems)
        if data is None:
            continue
        bom, encoding = next(((b, e) for b, e in _BOMS if data.startswith(b)), (b"", "utf-8"))
        text, problems = decode(data, name)
        results.extend(problems)
        if text is None:
            continue
        if not any(is_within(real, root) for root in roots):
            # reached through a symlink that leads out of the tree: refused if it needs converting
            files.append(_File(name, "", text, bom, encoding, (0, 0, 0)))
            continue
        files.append(_File(name, real, text, bom, encoding, _stamp(os.stat(real))))
    return files, results + _charts_left_out(charts)


def _charts_left_out(charts: Sequence[str]) -> list[Result]:
    """A warning for each Helm chart folder found: its templates are not YAML to convert (``helm_chart_error``)."""
    from plugin.app_reader import helm_chart_error

    shown = [os.path.normpath(chart) for chart in charts]
    return [helm_chart_error(chart, os.path.join(chart, HELM_CHART_FILE), Severity.WARNING) for chart in shown]


def _write(file: _File, data: bytes) -> None:
    """Replace ``file`` with ``data``, keeping its mode, owner and hard links.

    A file with one link is replaced atomically (temporary file + rename) with its mode and
    owner; one with several links, or whose owner cannot be kept, is rewritten in place so every
    link still names it.
    """
    info = os.stat(file.real)
    if _stamp(info) != file.stamp:
        raise _Changed
    if info.st_nlink > 1:
        _write_over(file.real, data)
        return
    directory = os.path.dirname(file.real)
    fd, tmp = tempfile.mkstemp(prefix=".dynamo-render-", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, info.st_mode & 0o7777)
        try:
            if (os.stat(tmp).st_uid, os.stat(tmp).st_gid) != (info.st_uid, info.st_gid):
                os.chown(tmp, info.st_uid, info.st_gid)
        except PermissionError:
            os.unlink(tmp)
            _write_over(file.real, data)
            return
        if _stamp(os.stat(file.real)) != file.stamp:
            raise _Changed
        os.replace(tmp, file.real)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _write_over(path: str, data: bytes) -> None:
    with open(path, "r+b") as handle:
        handle.truncate(0)
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())


class _Changed(Exception):
    """The file changed on disk while the run worked on it."""


def _parses_back(file: _File, data: bytes, expected: list[Any]) -> Result | None:
    """An error unless ``data`` decodes and parses back to ``expected``, document by document."""
    text, problems = decode(data, file.name)
    docs, more = load_documents(text, file.name) if text is not None else ([], problems)
    got = [json_line(doc.obj) for doc in docs if doc.obj is not None]
    if problems or more or got != [json_line(obj) for obj in expected]:
        return Result("the rewritten file does not read back as the converted objects (a bug: please report it); "
                      "nothing was written", file=file.name, code=Code.INPUT)
    return None


def run_in_place(
    paths: Sequence[str], stderr: TextIO, as_stored: bool = False, env: dict[str, str] | None = None,
    checks: Sequence[Check] | None = None,
) -> int:
    """Rewrite the files that hold v1alpha1 objects; nothing is written when any file has an error."""
    from plugin.frontends.convert_kustomize import check_builds, find_kustomizations, refusals

    files, results = _read_in_place(paths)
    kustomizations, problems = find_kustomizations(paths)
    results.extend(problems)
    results.extend(refusals(kustomizations))
    patches = _patches_named(paths)
    rewrites: list[tuple[_File, bytes]] = []
    # (device, inode) -> the first name of each file rewritten
    inodes: dict[tuple[int, int], str] = {}
    for file in files:
        source = Source(file.name, file.text)
        if os.path.realpath(file.name) in patches:
            continue  # a patch is never converted as a whole object (refused above when it is v1alpha1)
        is_json = file.name.endswith(".json") or file.text.lstrip()[:1] in ("{", "[")
        rewritten = (_rewrite_json(source, results, as_stored, checks) if is_json
                     else _rewrite_yaml(source, results, as_stored, checks))
        if rewritten is None or rewritten[0] == file.text:
            continue
        if not file.real:
            results.append(Result(f"is a symlink to {os.path.realpath(file.name)}, outside the converted tree; "
                                  "convert that file itself", file=file.name, code=Code.INPUT))
            continue
        status = os.stat(file.real)
        first = inodes.setdefault((status.st_dev, status.st_ino), file.name)
        if first != file.name:
            # Two hard links to one file: the second rewrite would find the file changed on disk
            # after the first was written, and stop half way.
            results.append(Result(f"is the same file as {first} (a hard link); name one of them only",
                                  file=file.name, code=Code.INPUT))
            continue
        data = file.encode(rewritten[0])
        problem = _parses_back(file, data, rewritten[1])
        if problem is not None:
            results.append(problem)
            continue
        rewrites.append((file, data))
    if not any(r.is_error for r in results) and kustomizations:
        results.extend(check_builds(kustomizations, {f.real: d for f, d in rewrites}, env if env is not None else dict(os.environ),
                                    checks))
    if not any(r.is_error for r in results):
        for file, _ in rewrites:
            if _stamp(os.stat(file.real)) != file.stamp:
                results.append(Result("changed on disk during the run; nothing was written", file=file.name, code=Code.INPUT))
    texts = {file.name: file.text for file in files}
    if any(r.is_error for r in results):
        report(results, stderr, texts)
        return 1
    report(results, stderr, texts)
    for file, data in rewrites:
        try:
            _write(file, data)
        except _Changed:
            stderr.write(Result("changed on disk during the run; it was not written (files before it were)",
                                file=file.name, code=Code.INPUT).line() + "\n")
            return 1
        except OSError as err:
            stderr.write(Result(f"cannot write: {err.strerror or err}", file=file.name, code=Code.INPUT).line() + "\n")
            return 1
    return 0


def given_checks(options: OptionValues) -> tuple[tuple[Check, ...] | None, list[Result]]:
    """The configurations the round-trip check renders under: ``CHECKS``, and the given settings when any are given.

    ``options`` are the command line's settings by option name (``--operator-config``,
    ``--config``), resolved as ``render`` resolves them; None (with the problems) when they do not
    resolve.
    """
    from plugin.frontends.convert_check import CHECKS, with_given

    if not options:
        return CHECKS, []
    from plugin.settings import resolve_settings

    settings, problems = resolve_settings(options)
    if settings is None:
        return None, problems
    return with_given(settings.config, settings.namespace, settings.cluster_layers), problems


def main_stdio(paths: Sequence[str], output: str, in_place: bool, as_stored: bool = False, options: OptionValues | None = None) -> int:
    checks, problems = given_checks(options or {})
    if checks is None:
        report(problems, sys.stderr)
        return 1
    if in_place:
        return run_in_place(paths, sys.stderr, as_stored, checks=checks)
    return run_stream(paths, output, sys.stdout, sys.stderr, as_stored, checks)
