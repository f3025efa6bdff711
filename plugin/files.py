"""Reading manifests from files, directories and stdin.

Directories are walked recursively in a stable (sorted) order and only ``.yaml``, ``.yml``
and ``.json`` files are read. Bytes are decoded as UTF-8 (a BOM is dropped) or, after a UTF-16
BOM, as UTF-16; anything else is a per-file error, never a crash.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable
from dataclasses import dataclass

from plugin.yamlio.codec import Document, load_documents
from renderer.results import Result

MANIFEST_SUFFIXES = (".yaml", ".yml", ".json")


@dataclass(frozen=True)
class Source:
    """A file's display name and its decoded text."""

    name: str
    text: str


_UTF32_BOMS = (b"\x00\x00\xfe\xff", b"\xff\xfe\x00\x00")
_UTF16_BOMS = {b"\xff\xfe": "utf-16-le", b"\xfe\xff": "utf-16-be"}


def decode(data: bytes, name: str) -> tuple[str | None, list[Result]]:
    """The text of a manifest file, or a one-line error naming the byte offset.

    UTF-8 unless a byte order mark says otherwise: a UTF-8 BOM is dropped and a UTF-16 (LE or
    BE) BOM switches to UTF-16, as kubectl reads files. Unlike kubectl, bytes that are not valid
    in the encoding are an error rather than silently replaced. UTF-32 is refused by name (its
    little-endian BOM would otherwise read as UTF-16 followed by a NUL).
    Mirrors: k8s.io/cli-runtime pkg/resource/visitor.go FileVisitor.Visit
    (unicode.BOMOverride(unicode.UTF8.NewDecoder())).
    """
    if data.startswith(_UTF32_BOMS):
        return None, [Result("UTF-32 is not supported (save the file as UTF-8)", file=name)]
    encoding, skip = "utf-8", 3 if data.startswith(b"\xef\xbb\xbf") else 0
    if data[:2] in _UTF16_BOMS:
        encoding, skip = _UTF16_BOMS[data[:2]], 2
    try:
        return data[skip:].decode(encoding), []
    except UnicodeDecodeError as err:
        label = "UTF-8" if encoding == "utf-8" else "UTF-16"
        return None, [Result(f"not valid {label} at byte {err.start + skip}", file=name)]


def read_text(path: str, display: str | None = None) -> tuple[str | None, list[Result]]:
    """A file's decoded text, or a one-line error naming it (``display`` names it in messages)."""
    name = display or path
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as err:
        return None, [Result(f"cannot read: {err.strerror or err}", file=name)]
    return decode(data, name)


def manifest_files(root: str) -> list[str]:
    """Manifest files under ``root``, recursively, sorted by path; hidden entries skipped."""
    found: list[str] = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for filename in sorted(filenames):
            if filename.startswith(".") or not filename.endswith(MANIFEST_SUFFIXES):
                continue
            found.append(os.path.join(dirpath, filename))
    return found


def read_sources(paths: Iterable[str]) -> tuple[list[Source], list[Result]]:
    """Read every path (``-`` is stdin) into decoded sources, collecting every problem."""
    sources: list[Source] = []
    results: list[Result] = []
    for path in paths:
        if path == "-":
            text, problems = decode(sys.stdin.buffer.read(), "<stdin>")
            results.extend(problems)
            if text is not None:
                sources.append(Source("<stdin>", text))
            continue
        files = manifest_files(path) if os.path.isdir(path) else [path]
        for file in files:
            text, problems = read_text(file)
            results.extend(problems)
            if text is not None:
                sources.append(Source(file, text))
    return sources, results


def load_sources(sources: Iterable[Source]) -> tuple[list[Document], list[Result]]:
    """Parse every source into documents; a broken file is reported and skipped."""
    documents: list[Document] = []
    results: list[Result] = []
    for source in sources:
        docs, problems = load_documents(source.text, source.name)
        documents.extend(docs)
        results.extend(problems)
    return documents, results
