"""Reading manifests from files, directories and stdin.

Directories are walked recursively in a stable (sorted) order, following symlinks, and only
``.yaml``, ``.yml`` and ``.json`` files are read (one walker for every front end). Bytes are decoded as UTF-8 (a BOM is dropped) or, after a UTF-16
BOM, as UTF-16; anything else is a per-file error, never a crash.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Collection, Iterable
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


def walk_manifests(
    root: str, confine_to: str | None = None, skip: Collection[str] = ()
) -> tuple[list[tuple[str, str]], list[Result]]:
    """``(real path, display name)`` of every manifest file under ``root``, with every problem.

    The one directory walk of every front end. Order: a folder's files sorted by name, then its
    sub-folders in name order, recursively. Hidden entries (``.git``, ``.argocd-source.yaml``)
    are skipped. Symlinks to files and folders are followed, each real folder once; a broken
    symlink with a manifest suffix is reported. With ``confine_to`` (the CMP's repository root)
    a symlink leading outside that folder is refused, as Argo CD's repo-server refuses
    out-of-bounds symlinks, and display names are relative to it; otherwise a display name is
    the path as reached from ``root``. Files whose real path is in ``skip`` are left out.
    """
    found: list[tuple[str, str]] = []
    results: list[Result] = []
    visited: set[str] = set()

    def display(path: str) -> str:
        return os.path.relpath(path, confine_to) if confine_to is not None else path

    def walk(lexical: str) -> None:
        real_dir = os.path.realpath(lexical)
        if real_dir in visited:
            return
        visited.add(real_dir)
        try:
            names = sorted(os.listdir(lexical))
        except OSError as err:
            results.append(Result(f"cannot read folder: {err.strerror or err}", file=display(lexical)))
            return
        subdirs: list[str] = []
        for name in names:
            if name.startswith("."):
                continue
            path = os.path.join(lexical, name)
            real = os.path.realpath(path)
            if os.path.islink(path):
                if confine_to is not None and not is_within(real, confine_to):
                    results.append(Result(f"symlink points outside the repository (-> {os.readlink(path)})", file=display(path)))
                    continue
                if not os.path.exists(real):
                    if name.endswith(MANIFEST_SUFFIXES):
                        results.append(Result(f"broken symlink (-> {os.readlink(path)})", file=display(path)))
                    continue
            if os.path.isdir(real):
                subdirs.append(path)
            elif name.endswith(MANIFEST_SUFFIXES) and real not in skip:
                found.append((real, display(path)))
        for path in subdirs:
            walk(path)

    walk(root)
    return found, results


def is_within(path: str, root: str) -> bool:
    """Whether ``path`` is ``root`` or below it (both normalised)."""
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def manifest_files(root: str) -> tuple[list[str], list[Result]]:
    """Manifest files under ``root`` as reached from it (``walk_manifests`` without confinement)."""
    found, results = walk_manifests(root)
    return [name for _, name in found], results


def read_files(files: Iterable[tuple[str, str]]) -> tuple[list[Source], list[Result]]:
    """Decode each ``(path, display name)``; sources are named by their display name."""
    sources: list[Source] = []
    results: list[Result] = []
    for path, name in files:
        text, problems = read_text(path, name)
        results.extend(problems)
        if text is not None:
            sources.append(Source(name, text))
    return sources, results


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
        if os.path.isdir(path):
            files, problems = walk_manifests(path)
            results.extend(problems)
        else:
            files = [(path, path)]
        found, problems = read_files(files)
        sources.extend(found)
        results.extend(problems)
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
