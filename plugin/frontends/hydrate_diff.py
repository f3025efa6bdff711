"""What ``dynamo-hydrate-check`` shows of a difference: unified diffs, Secret data redacted.

A difference between a committed output file and a fresh render prints as a unified diff with
git's file names (``git apply`` accepts it). Both sides are split into YAML documents and every
Secret document is reduced to its identity first, since the diff ends up in CI logs. The lines
are compared document by document: whole documents are matched first, then only the lines of
a pair that differs, so a change in every worker of a large file costs one small diff each.
"""

from __future__ import annotations

import difflib
import re
from typing import Any

from plugin.yamlio.codec import dump_documents, load_documents


def redact_secret_data(text: str) -> str:
    """The text with every Secret document reduced to its identity and ``<redacted>``.

    Diffs end up in CI logs. Each document is parsed: a Secret shows only its apiVersion, kind,
    type and metadata name and namespace (taken from the parsed object, whatever its data keys
    are called), then one ``<redacted>`` line. A document that cannot be parsed and mentions
    ``Secret`` is redacted whole.
    """
    out: list[str] = []
    for document in _documents(text.splitlines(keepends=True)):
        separator = document[:1] if document and document[0].startswith("---") else []
        body = "".join(document[len(separator):])
        if not _may_be_secret(body):
            out.extend(document)
            continue
        docs, problems = load_documents(body, "")
        if problems:
            out.extend([*separator, "<redacted: a document that mentions Secret and cannot be read>\n"])
            continue
        if not any(isinstance(d.obj, dict) and d.obj.get("kind") == "Secret" for d in docs):
            out.extend(document)
            continue
        out.extend(separator)
        for doc in docs:
            out.extend(_redacted(doc.obj))
    return "".join(out)


# "Secret" as a word of its own (not imagePullSecrets, secretRef), or any escape that could spell it
_SECRET_WORD = re.compile(r"(?<![A-Za-z0-9_])Secret(?![A-Za-z0-9_])|\\")


def _may_be_secret(body: str) -> bool:
    """Whether a document could be a Secret, decided on its text: only those are parsed.

    A Secret's kind is written as the word ``Secret`` (plain, quoted, in flow or JSON style), or
    spelled with escapes (``"\\x53ecret"``), which need a backslash. Every rendered workload names
    ``imagePullSecrets``; parsing each such document made the check slower than the render.
    """
    return _SECRET_WORD.search(body) is not None


def _redacted(obj: Any) -> list[str]:
    """A parsed document as YAML lines; a Secret reduced to its identity, then ``<redacted>``."""
    if not (isinstance(obj, dict) and obj.get("kind") == "Secret"):
        return dump_documents([obj]).removeprefix("---\n").splitlines(keepends=True)
    meta = obj.get("metadata")
    meta = meta if isinstance(meta, dict) else {}
    identity: dict[str, Any] = {key: obj[key] for key in ("apiVersion", "kind", "type") if key in obj}
    identity["metadata"] = {key: meta[key] for key in ("name", "namespace") if key in meta}
    return [*dump_documents([identity]).removeprefix("---\n").splitlines(keepends=True), "<redacted>\n"]


def _documents(lines: list[str]) -> list[list[str]]:
    documents: list[list[str]] = [[]]
    for line in lines:
        if line.startswith("---"):
            documents.append([line])
        else:
            documents[-1].append(line)
    return documents


# What the check prints at most of its diff; past it, only the count of documents that differ.
DIFF_LINES_SHOWN = 400
_CONTEXT = 3

Opcode = tuple[str, int, int, int, int]


def _document_opcodes(old_docs: list[list[str]], new_docs: list[list[str]]) -> list[Opcode]:
    """Line opcodes of two files, found document by document (linear in the files for a typical change).

    Why: ``difflib`` over a whole hydrated file of a thousand objects runs for minutes (its
    matcher is quadratic in repeated lines, and rendered files repeat most of theirs). Documents
    are matched as wholes first (each document's text is one element, nearly all unique), and
    only the lines of a pair of differing documents are compared: an image bump in every worker
    costs one small diff per worker. Unpaired documents are inserted or deleted whole.
    """
    ops: list[Opcode] = []
    old_at = [0]
    for doc in old_docs:
        old_at.append(old_at[-1] + len(doc))
    new_at = [0]
    for doc in new_docs:
        new_at.append(new_at[-1] + len(doc))

    def add(tag: str, i1: int, i2: int, j1: int, j2: int) -> None:
        if i1 == i2 and j1 == j2:
            return
        if ops and ops[-1][0] == tag:
            ops[-1] = (tag, ops[-1][1], i2, ops[-1][3], j2)
        else:
            ops.append((tag, i1, i2, j1, j2))

    matcher = difflib.SequenceMatcher(None, ["".join(d) for d in old_docs], ["".join(d) for d in new_docs], autojunk=False)
    for tag, d1, d2, e1, e2 in matcher.get_opcodes():
        if tag == "equal":
            add("equal", old_at[d1], old_at[d2], new_at[e1], new_at[e2])
            continue
        paired = min(d2 - d1, e2 - e1)
        for k in range(paired):
            a, b = old_docs[d1 + k], new_docs[e1 + k]
            base_a, base_b = old_at[d1 + k], new_at[e1 + k]
            for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
                add(op, base_a + i1, base_a + i2, base_b + j1, base_b + j2)
        add("delete", old_at[d1 + paired], old_at[d2], new_at[e1 + paired], new_at[e1 + paired])
        add("insert", old_at[d1 + paired], old_at[d1 + paired], new_at[e1 + paired], new_at[e2])
    return ops


def differing_documents(old_docs: list[list[str]], new_docs: list[list[str]]) -> int:
    """How many documents a change touches: changed pairs, plus added and removed ones."""
    matcher = difflib.SequenceMatcher(None, ["".join(d) for d in old_docs], ["".join(d) for d in new_docs], autojunk=False)
    def objects(docs: list[list[str]]) -> int:  # the header comment before the first object is no document
        return sum(1 for doc in docs if any(line.strip() and not line.startswith(("#", "---")) for line in doc))

    return sum(
        max(objects(old_docs[d1:d2]), objects(new_docs[e1:e2])) for tag, d1, d2, e1, e2 in matcher.get_opcodes() if tag != "equal"
    )


def _grouped(ops: list[Opcode], n: int) -> list[list[Opcode]]:
    """Hunks of opcodes with ``n`` lines of context (what ``difflib.SequenceMatcher.get_grouped_opcodes`` does).

    Equal runs longer than ``2n`` split hunks; the first and last equal runs keep ``n`` lines.
    """
    codes = list(ops) or [("equal", 0, 0, 0, 0)]
    if codes[0][0] == "equal":
        tag, i1, i2, j1, j2 = codes[0]
        codes[0] = (tag, max(i1, i2 - n), i2, max(j1, j2 - n), j2)
    if codes[-1][0] == "equal":
        tag, i1, i2, j1, j2 = codes[-1]
        codes[-1] = (tag, i1, min(i2, i1 + n), j1, min(j2, j1 + n))
    groups: list[list[Opcode]] = []
    group: list[Opcode] = []
    for tag, i1, i2, j1, j2 in codes:
        if tag == "equal" and i2 - i1 > 2 * n:
            group.append((tag, i1, min(i2, i1 + n), j1, min(j2, j1 + n)))
            groups.append(group)
            group = []
            i1, j1 = max(i1, i2 - n), max(j1, j2 - n)
        group.append((tag, i1, i2, j1, j2))
    if group and not (len(group) == 1 and group[0][0] == "equal"):
        groups.append(group)
    return groups


def _range(start: int, stop: int) -> str:
    """A unified diff range: ``start,length`` (``start`` alone for one line; the line before for none)."""
    length = stop - start
    begin = start + 1 if length else start
    return str(begin) if length == 1 else f"{begin},{length}"


def documents_of(text: str) -> list[list[str]]:
    return [doc for doc in _documents(text.splitlines(keepends=True)) if doc]


def _diff(old: str | None, new: str | None, path: str) -> list[str]:
    """A unified diff with git's file names; ``/dev/null`` for a created or deleted file.

    Secret data is redacted on both sides first; when only Secret values differ, one line says
    so. The lines are compared document by document (``_document_opcodes``).
    """
    old_docs = documents_of(redact_secret_data(old or ""))
    new_docs = documents_of(redact_secret_data(new or ""))
    return document_diff(old_docs, new_docs, old is None, new is None, path)


def document_diff(old_docs: list[list[str]], new_docs: list[list[str]], created: bool, deleted: bool, path: str) -> list[str]:
    """``_diff`` of files already split into redacted documents (``created``: no old file, ``deleted``: no new one)."""
    if old_docs == new_docs and not created and not deleted:
        return [f"diff {path}: Secret data differs (values not shown)\n"]
    old_lines = [line for doc in old_docs for line in doc]
    new_lines = [line for doc in new_docs for line in doc]
    out = [f"--- {'/dev/null' if created else f'a/{path}'}\n", f"+++ {'/dev/null' if deleted else f'b/{path}'}\n"]
    for group in _grouped(_document_opcodes(old_docs, new_docs), _CONTEXT):
        out.append(f"@@ -{_range(group[0][1], group[-1][2])} +{_range(group[0][3], group[-1][4])} @@\n")
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                out.extend(" " + line for line in old_lines[i1:i2])
                continue
            out.extend("-" + line for line in old_lines[i1:i2])
            out.extend("+" + line for line in new_lines[j1:j2])
    return [line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in out]
