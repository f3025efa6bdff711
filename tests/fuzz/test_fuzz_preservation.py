"""Fuzzing the preservation annotations: no annotation text ever makes a bug (exit 3).

Any text in ``nvidia.com/dcd-spec``, ``nvidia.com/dgd-spec`` or their ``-status`` twins, on a
v1alpha1 or v1beta1 DCD or DGD, goes through render and convert in-process. The property:
render exits 0 or 1 (1 with one line per problem, nothing on stdout), convert returns a value
or reports errors; an exception escaping either would be exit 3 for a user. The texts are
arbitrary strings, arbitrary JSON, envelopes with an arbitrary spec, envelopes whose spec
holds the fields the conversion reads with wrong types, and deep nesting.
"""

from __future__ import annotations

import io
import json
import tempfile
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, note
from hypothesis import strategies as st

from plugin.frontends import convert
from plugin.frontends import render as render_frontend
from renderer.results import Result
from tests.fuzz.support import add_summary_line

EXAMPLES: Counter[str] = Counter()


@pytest.fixture(scope="module", autouse=True)
def _example_summary(request: pytest.FixtureRequest) -> Iterator[None]:
    yield
    add_summary_line(
        request.config,
        f"fuzz preservation annotations: {sum(EXAMPLES.values())} examples "
        f"(exit 0 {EXAMPLES['0']}, exit 1 {EXAMPLES['1']}, exit 3 {EXAMPLES['3']})",
    )


SCALARS = st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=8)
JSON = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3), max_leaves=12)
FIELDS = st.sampled_from([
    "labels", "annotations", "dynamoNamespace", "ingress", "pvcs", "envs", "envFromSecret", "extraPodSpec",
    "extraPodMetadata", "resources", "services", "componentType", "subComponentType", "replicas", "podTemplate",
    "volumeMounts", "eppConfig", "serviceName", "name", "components", "podSelector", "service", "conditions",
])


@st.composite
def spec_like(draw: Any) -> Any:
    """An object of known field names with arbitrary values, nested once (services, extraPodSpec)."""
    out = draw(st.dictionaries(FIELDS, JSON, max_size=4))
    if draw(st.booleans()):
        out[draw(FIELDS)] = draw(st.dictionaries(st.text(max_size=4) | FIELDS, st.dictionaries(FIELDS, JSON, max_size=3), max_size=2))
    return out


@st.composite
def annotation_text(draw: Any) -> str:
    kind = draw(st.sampled_from(["text", "json", "envelope", "deep"]))
    if kind == "text":
        return str(draw(st.text(max_size=40)))
    if kind == "json":
        return json.dumps(draw(JSON | spec_like()))
    if kind == "deep":
        depth = draw(st.integers(90, 3000))
        opener = draw(st.sampled_from(["[", '{"a":', '{"version":1,"spec":{"labels":']))
        return opener * depth + draw(st.sampled_from(["", "1", '"x"'])) + draw(st.sampled_from(["", "]" * depth, "}" * depth]))
    envelope: dict[str, Any] = {"version": draw(st.sampled_from([1, "1", None, 1.5])), "spec": draw(spec_like() | JSON)}
    if draw(st.booleans()):
        envelope["rawJSON"] = draw(st.lists(st.dictionaries(st.sampled_from(["path", "raw", "nil"]), JSON, max_size=3), max_size=2) | JSON)
    return json.dumps(envelope)


def _source(version: str, kind: str, key: str, text: str) -> dict[str, Any]:
    container = {"name": "main", "image": "nvcr.io/x:0.9.0"}
    if kind == "DynamoComponentDeployment":
        spec: dict[str, Any] = (
            {"componentType": "frontend", "serviceName": "fe", "extraPodSpec": {"mainContainer": {"image": container["image"]}}}
            if version == "v1alpha1"
            else {"type": "frontend", "podTemplate": {"spec": {"containers": [container]}}}
        )
    else:
        spec = (
            {"services": {"fe": {"componentType": "frontend", "extraPodSpec": {"mainContainer": {"image": container["image"]}}}}}
            if version == "v1alpha1"
            else {"components": [{"name": "fe", "type": "frontend", "podTemplate": {"spec": {"containers": [container]}}}]}
        )
    return {
        "apiVersion": f"nvidia.com/{version}",
        "kind": kind,
        "metadata": {"name": "fe", "namespace": "llm", "annotations": {key: text}},
        "spec": spec,
    }


@given(st.data())
def test_no_annotation_text_is_a_bug(data: st.DataObject) -> None:
    version = data.draw(st.sampled_from(["v1alpha1", "v1beta1"]), label="version")
    kind = data.draw(st.sampled_from(["DynamoComponentDeployment", "DynamoGraphDeployment"]), label="kind")
    short = "dcd" if kind == "DynamoComponentDeployment" else "dgd"
    key = data.draw(st.sampled_from([f"nvidia.com/{short}-spec", f"nvidia.com/{short}-status"]), label="key")
    text = data.draw(annotation_text(), label="annotation")
    obj = _source(version, kind, key, text)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "in.json"
        path.write_text(json.dumps(obj), encoding="utf-8")
        out, err = io.StringIO(), io.StringIO()
        try:
            code = render_frontend.run([str(path)], {}, out, err)
        except Exception:
            EXAMPLES["3"] += 1
            raise
    note(f"exit {code}; stderr:\n{err.getvalue()[:2000]}")
    EXAMPLES[str(code)] += 1
    assert code in (0, 1)
    if code == 1:
        assert out.getvalue() == ""
        assert "Traceback" not in err.getvalue()
    results: list[Result] = []
    convert.convert_object(obj, "in.json", 0, results)  # an exception here is a bug
