"""Fuzzing the KRM function: whatever the ResourceList holds, it answers with a ResourceList, never a bug.

Inputs are ResourceLists whose items are generated: bare scalars, lists and nulls (never an
object), junk mappings, objects of known kinds with odd metadata (a string, a list, labels that
are not strings, copied ownership markers, kpt path and package annotations), Kptfiles with a
dynamo-render step, and DCDs and DGDs from the test builders with fields replaced by junk. The
functionConfig is absent, a valid settings document or junk.

Each input goes through ``plugin.frontends.krm.run_resource_list`` in-process. The property is
the KRM contract: no exception (that would be exit 3), exit 0 or 1, stdout one ResourceList;
on exit 1 at least one error result and the items exactly as they came; every error and
warning also one line on stderr; a result with a ``field`` names its object
(``resourceRef``). The session summary prints how many examples ran and how they ended.
"""

from __future__ import annotations

import io
import json
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, note
from hypothesis import strategies as st

from plugin.frontends import krm
from plugin.yamlio.nodes import construct, read_nodes
from tests import builders
from tests.fuzz.support import add_summary_line

OUTCOMES: Counter[str] = Counter()


@pytest.fixture(scope="module", autouse=True)
def _summary(request: pytest.FixtureRequest) -> Iterator[None]:
    yield
    add_summary_line(
        request.config,
        f"fuzz krm: {OUTCOMES['ok'] + OUTCOMES['refused']} ResourceLists (exit 0: {OUTCOMES['ok']}, exit 1: {OUTCOMES['refused']}, "
        f"exit 3: 0; {OUTCOMES['items']} items, {OUTCOMES['non-object items']} of them no object)",
    )


SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-(2**63), max_value=2**63), st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=8), st.sampled_from(["", "n", "yes", "1e3", "2024-01-01", "~", "null", "a/b/c", "Secret"]),
)
JSON = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
                    max_leaves=12)
KEYS = st.sampled_from([
    "dynamo-render.dev/rendered-from", "dynamo-render.dev/rendered-as", "dynamo-render.dev/rendered-digest",
    "config.kubernetes.io/local-config", "internal.config.kubernetes.io/path", "config.kubernetes.io/path",
    "internal.config.kubernetes.io/index", "internal.config.kubernetes.io/package-path", "bad/label/key", "app", "",
])
ANNOTATION_VALUES = st.one_of(st.sampled_from([
    "DynamoComponentDeployment/default/decode", "default/decode", "sha256:00", "true", "app.yaml", "0", "/pkg/sub", "/pkg",
]), SCALARS)
METADATA = st.one_of(
    JSON,
    st.fixed_dictionaries(
        {"name": st.sampled_from(["decode", "frontend", "c", "", "n"]) | SCALARS},
        optional={
            "namespace": st.sampled_from(["default", "llm", "Bad_NS"]) | SCALARS,
            "annotations": st.dictionaries(KEYS, ANNOTATION_VALUES, max_size=4) | JSON,
            "labels": st.dictionaries(KEYS, SCALARS, max_size=3) | JSON,
        },
    ),
)
OBJECTS = st.fixed_dictionaries(
    {
        "apiVersion": st.sampled_from(["v1", "apps/v1", "nvidia.com/v1beta1", "nvidia.com/v1alpha1", "kpt.dev/v1"]) | SCALARS,
        "kind": st.sampled_from(["ConfigMap", "Secret", "Service", "Deployment", "DynamoComponentDeployment",
                                 "DynamoGraphDeployment", "Kptfile", "DynamoRenderConfig"]) | SCALARS,
    },
    optional={"metadata": METADATA, "spec": JSON, "data": JSON, "pipeline": JSON},
)
KPTFILES = st.builds(
    lambda package, step: {
        "apiVersion": "kpt.dev/v1", "kind": "Kptfile",
        "metadata": {"name": "sub", "annotations": {"internal.config.kubernetes.io/package-path": package,
                                                   "internal.config.kubernetes.io/path": "Kptfile"}},
        "pipeline": {"mutators": [step]},
    },
    st.sampled_from(["/pkg", "/pkg/sub", "/pkg/sub/deeper", ""]),
    st.sampled_from([{"exec": "dynamo-render-krm"}, {"image": "example/dynamo-render:1"}, {"exec": "other"}, "x", None]),
)


def _dcd(name: str, field: str, value: Any) -> dict[str, Any]:
    obj = builders.dcd(name, type="decode", image="registry.example/worker:1", backendFramework="vllm")
    if field == "metadata":
        obj["metadata"] = value
    elif field:
        obj["spec"] = {**obj["spec"], field: value}
    return obj


DYNAMO = st.one_of(
    st.builds(_dcd, st.sampled_from(["decode", "frontend"]), st.sampled_from(["", "replicas", "podTemplate", "metadata", "type"]), JSON),
    st.builds(lambda v: {"apiVersion": "nvidia.com/v1beta1", "kind": "DynamoGraphDeployment", "metadata": {"name": "chat"}, "spec": v},
              JSON | st.just({"components": [{"name": "decode", "type": "decode"}]})),
)
# half the lists hold only mappings, so the rendering and placing code is reached as often as the item checks
ITEMS = st.lists(st.one_of(SCALARS, st.lists(SCALARS, max_size=2), JSON, OBJECTS, KPTFILES, DYNAMO), max_size=6) | st.lists(
    st.one_of(OBJECTS, KPTFILES, DYNAMO, DYNAMO), max_size=6
)
CONFIGS = st.one_of(
    st.none(),
    st.just({"apiVersion": "config.dynamo-render.dev/v1alpha1", "kind": "DynamoRenderConfig", "metadata": {"name": "c"},
             "spec": {"keepSources": True}}),
    st.builds(lambda data: {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": data}, JSON),
    JSON,
)


def _load(text: str) -> Any:
    """One document read as the function reads its input (the project's reader: ``1e+21`` is a number)."""
    nodes, problems = read_nodes(text, "<stdout>", many=False)
    assert not problems and len(nodes) == 1, problems
    return construct(nodes[0])


@given(items=ITEMS, config=CONFIGS)
def test_any_resource_list_gets_a_resource_list_back(items: list[Any], config: Any) -> None:
    doc: dict[str, Any] = {"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": items}
    if config is not None:
        doc["functionConfig"] = config
    text = json.dumps(doc)
    note(text[:2000])
    stdout, stderr = io.StringIO(), io.StringIO()
    code = krm.run_resource_list(text.encode(), stdout, stderr)
    assert code in (0, 1)
    answer = _load(stdout.getvalue())
    assert isinstance(answer, dict) and answer["kind"] == "ResourceList"
    results = answer.get("results") or []
    errors = [r for r in results if r["severity"] == "error"]
    if code == 1:
        assert errors, "exit 1 without an error result"
        assert answer["items"] == _load(text)["items"], "items must come back unchanged on failure"
    else:
        assert not errors
    loud = [r for r in results if r["severity"] != "info"]
    assert stderr.getvalue().count("\n") >= len(loud)
    for result in results:
        assert "field" not in result or "resourceRef" in result, result
    OUTCOMES["ok" if code == 0 else "refused"] += 1
    OUTCOMES["non-object items"] += sum(1 for item in items if not isinstance(item, dict))
    OUTCOMES["items"] += len(items)
