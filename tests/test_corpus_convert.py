"""``render(convert(x)) == render(x)`` for every v1alpha1 corpus manifest that renders, in both modes.

``convert --as-stored`` writes what the API server stores for a v1alpha1 object; rendering that
v1beta1 object must give the very bytes rendering the v1alpha1 object gives, or a user who
migrates their Git manifests with ``convert`` would see their workloads change. The default
output leaves out what the render does not read and may keep the user's order of components;
it must render to the very same objects (the order of objects in the stream follows the order
of components, and is the one thing allowed to differ).
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from plugin.frontends import convert as convert_cmd
from plugin.yamlio.codec import load_documents
from tests.fuzz.support import render
from tests.test_corpus import CORPUS, COUNTED

ALPHA = "nvidia.com/v1alpha1"


def _is_v1alpha1_dynamo(name: str) -> bool:
    docs, _ = load_documents((CORPUS / name).read_text(encoding="utf-8"), name)
    return any(
        isinstance(d.obj, dict) and d.obj.get("apiVersion") == ALPHA and d.obj.get("kind") in convert_cmd.CONVERTED_KINDS
        for d in docs
    )


V1ALPHA1 = [name for name in COUNTED if _is_v1alpha1_dynamo(name)]
RENDERED: list[str] = []


def test_corpus_has_v1alpha1_manifests() -> None:
    assert len(V1ALPHA1) > 150


def objects_of(stream: str) -> list[str]:
    """The documents of a rendered stream, in a fixed order."""
    return sorted(stream.split("\n---\n"))


@pytest.mark.parametrize("as_stored", [True, False], ids=["as-stored", "default"])
@pytest.mark.parametrize("name", V1ALPHA1)
def test_render_of_convert_is_render(name: str, as_stored: bool, tmp_path: Path) -> None:
    original = render([CORPUS / name])
    if original.code != 0:
        pytest.skip("does not render as v1alpha1")
    out, err = io.StringIO(), io.StringIO()
    code = convert_cmd.run_stream([str(CORPUS / name)], "yaml", out, err, as_stored=as_stored)
    assert code == 0, err.getvalue()
    converted = tmp_path / name
    converted.write_text(out.getvalue(), encoding="utf-8")
    again = render([converted])
    assert again.code == 0, again.stderr
    if as_stored:
        assert again.stdout == original.stdout
    else:
        assert objects_of(again.stdout) == objects_of(original.stdout)
        assert "status:" not in [line.strip() for line in out.getvalue().splitlines()]
        RENDERED.append(name)


def test_the_invariant_is_not_vacuous() -> None:
    # the test above skips files that do not render; enough of them must render for it to mean something
    rendering = [name for name in V1ALPHA1 if render([CORPUS / name]).code == 0]
    assert len(rendering) >= 60
