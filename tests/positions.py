"""Where things are in a test's own input text, for asserting ``file:LINE`` problem lines.

Tests compute the expected line from the text they wrote, never from the program's output.
"""

from __future__ import annotations


def line_of(text: str, needle: str, nth: int = 1) -> int:
    """The 1-based line of ``text`` that is ``needle``, or else holds it; with several, the ``nth``."""
    lines = text.splitlines()
    found = [n for n, line in enumerate(lines, 1) if line == needle] or [n for n, line in enumerate(lines, 1) if needle in line]
    assert found, f"{needle!r} is on no line of the text"
    assert nth > 1 or len(found) == 1, f"{needle!r} is on lines {found}: say which with nth"
    return found[nth - 1]


def document_start(text: str, index: int) -> int:
    """The 1-based line where document ``index`` (from 0) of a YAML stream starts: its first content line.

    Counted by ``---`` separator lines, as a reader of the file counts them: the first one opens
    document 0 when only comments come before it. Comments and blank lines are not content.
    """
    current, opened = 0, False
    for n, line in enumerate(text.splitlines(), 1):
        if line.startswith("---") and line[3:4] in ("", " "):
            if opened:
                current += 1
            opened = True
            continue
        if line.strip() and not line.lstrip().startswith("#"):
            opened = True
            if current == index:
                return n
    raise AssertionError(f"the text has no document {index}")
