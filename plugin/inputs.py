"""Reading manifests from files, directories and stdin.

Directories are walked recursively in a stable (sorted) order and only ``.yaml``, ``.yml``
and ``.json`` files are read. Bytes are decoded as UTF-8 (a BOM is dropped); anything else is
a per-file error, never a crash.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable
from dataclasses import dataclass

from plugin.yamlio import Document, load_documents
from renderer.results import Result

MANIFEST_SUFFIXES = (".yaml", ".yml", ".json")


@dataclass(frozen=True)
class Source:
    """A file's display name and its decoded text."""

    name: str
    text: str


def decode(data: bytes, name: str) -> tuple[str | None, list[Result]]:
    """UTF-8 (with or without BOM) or a one-line error naming the byte offset."""
    try:
        return data.decode("utf-8-sig"), []
    except UnicodeDecodeError as err:
        return None, [Result(f"not valid UTF-8 at byte {err.start}", file=name)]


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
            try:
                with open(file, "rb") as handle:
                    data = handle.read()
            except OSError as err:
                results.append(Result(f"cannot read: {err.strerror or err}", file=file))
                continue
            text, problems = decode(data, file)
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
