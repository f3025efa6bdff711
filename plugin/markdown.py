"""Values written into Markdown that reviewers trust: each escaped for the place it lands in.

A pull request decides every name, namespace, image, env value and file name the change report
prints, and the report is read as GitHub- or GitLab-flavoured Markdown. A value must never end
the construct it sits in: a backtick run that closes a code span (and makes the rest a live
@mention, link or remote image), a pipe that opens a new table cell, a line break that starts
a new table row, list item or heading, or ``<!--`` that hides the rest of the comment. So every
value is printed as code, the only Markdown context whose content is never parsed as markup:

- ``code(text)``: an inline code span whose fence is longer than any backtick run in the text;
- ``cell(text)``: the same inside a table cell, with ``|`` escaped (GFM splits the row on
  pipes before it parses code spans, and renders ``\\|`` in a span as ``|``);
- ``fenced(text)``: a fenced code block whose fence is longer than any backtick run in it.

Line breaks, other control characters and the Unicode line, paragraph and direction
controls are shown as ``\\n``, ``\\x1b``, ``\\u202e`` and so on: they cannot break a line or
reorder what a reviewer reads.
"""

from __future__ import annotations

import re

# Characters a value may not carry into one Markdown line: C0 and C1 controls, DEL, the
# Unicode line and paragraph separators, and the bidirectional controls.
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_BACKTICKS = re.compile("`+")


def visible(text: str) -> str:
    """``text`` on one line: every control character shown as its escape (``\\n``, ``\\x1b``)."""
    return _UNSAFE.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)


def _fence_for(text: str, shortest: int) -> str:
    runs = [len(run) for run in _BACKTICKS.findall(text)]
    return "`" * max(shortest, max(runs, default=0) + 1)


def code(text: object) -> str:
    """``text`` as an inline code span that nothing in it can close."""
    value = visible(str(text))
    fence = _fence_for(value, 1)
    # A space each side keeps a leading or trailing backtick from joining the fence; Markdown
    # strips one space each side again when both are there.
    pad = " " if value.startswith(("`", " ")) or value.endswith(("`", " ")) or not value else ""
    return f"{fence}{pad}{value}{pad}{fence}"


def cell(text: object) -> str:
    """``text`` as a code span inside a table cell: its pipes cannot open another cell."""
    return code(text).replace("|", "\\|")


# Our own words, with names from the manifests inside (a renamed component, a clique).
_PROSE = re.compile(r"[A-Za-z0-9 .,:;'()/+=-]*")


def prose_cell(text: str) -> str:
    """A table cell of prose that may quote manifest values: as it is when nothing in it can be markup, else a code span."""
    return text if _PROSE.fullmatch(text) else cell(text)


def fenced(text: str) -> list[str]:
    """``text`` (many lines) as the lines of a fenced code block that no line in it can close."""
    lines = [visible(line) for line in text.split("\n")]
    fence = _fence_for(text, 3)
    return [fence, *lines, fence]
