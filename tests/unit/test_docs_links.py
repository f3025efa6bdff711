"""The README is a front page, and every relative link in the project's Markdown resolves.

A link to a file must name a file that exists; a link with ``#anchor`` must name a heading of the
target page, slugged as GitHub slugs headings (lower case, punctuation dropped, spaces as dashes).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = sorted([ROOT / "README.md", *ROOT.glob("docs/*.md"), *ROOT.glob("kustomize/**/*.md"), *ROOT.glob("argocd/**/*.md")])
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```.*?^```", flags=re.M | re.S)


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, no punctuation but dashes, spaces as dashes."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def _anchors(page: Path) -> set[str]:
    text = FENCE.sub("", page.read_text())
    return {_slug(line.lstrip("#")) for line in text.splitlines() if re.match(r"#{1,6} ", line)}


def _links(page: Path) -> list[str]:
    return [target for target in LINK.findall(FENCE.sub("", page.read_text())) if not re.match(r"[a-z]+:", target)]


def test_there_are_pages_with_links() -> None:
    assert len(PAGES) >= 10 and sum(len(_links(page)) for page in PAGES) >= 20


@pytest.mark.parametrize("page", PAGES, ids=[str(page.relative_to(ROOT)) for page in PAGES])
def test_every_relative_link_resolves(page: Path) -> None:
    broken = []
    for target in _links(page):
        path, _, anchor = target.partition("#")
        resolved = (page.parent / path).resolve() if path else page
        if not resolved.exists():
            broken.append(f"{target}: no such file")
        elif anchor and resolved.suffix == ".md" and anchor not in _anchors(resolved):
            broken.append(f"{target}: no heading with that anchor")
    assert not broken, broken


def test_the_readme_is_a_front_page() -> None:
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) <= 300
    for page in sorted(ROOT.glob("docs/*.md")):
        assert f"(docs/{page.name})" in readme, f"the README does not link {page.name}"


def test_the_slug_rule() -> None:
    assert _slug(" Cluster state: what the operator reads, where dynamo-render gets it") == (
        "cluster-state-what-the-operator-reads-where-dynamo-render-gets-it"
    )
    assert _slug("Migrating manifests to v1beta1 (`convert`)") == "migrating-manifests-to-v1beta1-convert"
