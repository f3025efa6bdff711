"""The change report's Markdown cannot be forged by the values a pull request writes.

Every field ``format_markdown`` prints (kind, namespace, name, the replacing name, pod-change
lines and the per-namespace totals) gets each hostile string: a pipe that would open a table
cell, backticks that close a code span and leave a live @mention, link and remote image, ``<!--``
that hides the rest, a line break that starts a fake totals line or table row, a heading, and a
direction control. The report is read back with a CommonMark parser with GFM tables
(markdown-it-py): every table row keeps its four cells, every value comes back whole inside a
``<code>`` element, and outside the code nothing is a link, image, comment, mention or extra
heading.
"""

from __future__ import annotations

import html
import re

import pytest
from markdown_it import MarkdownIt

from plugin import markdown
from plugin.frontends.diff import format_markdown
from plugin.impact import ADDED, REPLACED, ROLLED, Capacity, Change, Impact

HOSTILE = [
    "cm|GPUs: 2 -> 2 (+0)|<!--",
    "x` @admin [link](https://evil.example/a) ![img](https://evil.example/i.png) `",
    "`` @admin ``",
    "```",
    "a\n| added | `Deployment x` | - | new object |\n- GPUs: 2 -> 2 (+0)",
    "# Looks good to me",
    "<!-- everything after this is hidden",
    "<img src=https://evil.example/i.png>",
    "\u202egnp.live",
    " ` ",
    "\\|\\`",
]


def _render(text: str) -> str:
    return MarkdownIt("commonmark", {"html": True}).enable("table").render(text)


def _outside_code(rendered: str) -> str:
    return re.sub(r"<code>.*?</code>", "", rendered, flags=re.S)


def _codes(rendered: str) -> list[str]:
    return [html.unescape(c) for c in re.findall(r"<code>(.*?)</code>", rendered, flags=re.S)]


def _impact(value: str) -> Impact:
    changes = [
        Change(REPLACED, value, value, value, "apps/v1", replaced_by=value, gpus_before=8, gpus_after=8, pod_changes=(value, f"image {value}")),
        Change(ROLLED, "Deployment", value, value, "apps/v1", gpus_before=1, gpus_after=1, pod_changes=(f'container "{value}" added',)),
        Change(ADDED, "ConfigMap", value, value, "v1"),
    ]
    before = Capacity(gpus=9, pods=2, by_namespace={value: (9, 2), "other": (0, 0)})
    after = Capacity(gpus=9, pods=2, by_namespace={value: (9, 2), "other": (0, 0)})
    return Impact(changes, before, after)


@pytest.mark.parametrize("value", HOSTILE, ids=[f"hostile-{i}" for i in range(len(HOSTILE))])
def test_a_hostile_value_in_every_field_stays_inside_its_code_span(value: str) -> None:
    text = format_markdown(_impact(value))
    rendered = _render(text)
    # the table: a header and one row per change, four cells each
    rows = re.findall(r"<tr>(.*?)</tr>", rendered, flags=re.S)
    assert len(rows) == 4, text
    assert all(len(re.findall(r"<t[dh]>", row)) == 4 for row in rows), text
    # only the report's own headings and totals outside the code
    outside = _outside_code(rendered)
    assert re.findall(r"<h\d>", outside) == ["<h3>", "<h4>"], text
    for forged in ("<a ", "<img", "<!--", "@admin", "evil.example", "Looks good"):
        assert forged not in outside, (forged, text)
    assert outside.count("GPUs: 9 -&gt; 9 (+0)") == 1 and "GPUs: 2" not in outside, text
    # every value comes back whole, inside code
    shown = markdown.visible(value)
    codes = _codes(rendered)
    assert any(shown.strip() == c.strip() for c in codes), (shown, codes)
    assert sum(shown.strip() in c for c in codes) >= 8, (shown, codes)


@pytest.mark.parametrize("value", HOSTILE, ids=[f"hostile-{i}" for i in range(len(HOSTILE))])
def test_a_code_span_holds_any_backtick_run(value: str) -> None:
    rendered = _render(markdown.code(value) + "\n")
    codes = _codes(rendered)
    assert len(codes) == 1 and codes[0].strip() == markdown.visible(value).strip(), rendered
    assert _outside_code(rendered).strip() == "<p></p>", rendered


def test_a_fenced_block_cannot_be_closed_by_its_content() -> None:
    problems = "apps/x.yaml:1: [error] bad\n```\n@admin [l](https://evil.example)\n````\n<!-- hide"
    rendered = _render("\n".join(markdown.fenced(problems)) + "\nafter\n")
    assert rendered.count("<pre>") == 1 and rendered.rstrip().endswith("<p>after</p>"), rendered
    assert "evil.example" not in _outside_code(rendered)


def test_control_characters_are_shown_not_obeyed() -> None:
    assert markdown.visible("a\nb\r\x1b[31m\u2028\u202e") == "a\\nb\\r\\x1b[31m\\u2028\\u202e"
    assert markdown.cell("a|b") == "`a\\|b`"
    assert _codes(_render(markdown.code("") + "\n")) == ["  "] or _codes(_render(markdown.code("") + "\n")) == [""]
