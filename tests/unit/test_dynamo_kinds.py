"""A Dynamo kind at a version its CRD does not serve, or a misspelled Dynamo kind, is an error; other NVIDIA kinds pass.

The served versions restate the reference's CRDs (deploy/operator/config/crd/bases): the
graph, component, request and scaling-adapter kinds serve v1alpha1 and v1beta1; DynamoModel,
DynamoWorkerMetadata and DynamoCheckpoint only v1alpha1.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from renderer.admission.dynamo_kinds import SERVED, refused_kind
from renderer.bundle import Item, render_bundle
from renderer.config import RenderConfig
from renderer.results import Code
from tests.builders import IMAGE

CRDS = Path(__file__).resolve().parents[1] / "data" / "crds"


def obj(api_version: str, kind: str, name: str = "x") -> dict[str, Any]:
    return {"apiVersion": api_version, "kind": kind, "metadata": {"name": name, "namespace": "llm"}, "spec": {}}


def graph(api_version: str) -> dict[str, Any]:
    component = {"name": "frontend", "type": "frontend", "podTemplate": {"spec": {"containers": [{"name": "main", "image": IMAGE}]}}}
    return {**obj(api_version, "DynamoGraphDeployment", "g"), "spec": {"components": [component]}}


@pytest.mark.parametrize("api_version", ["nvidia.com/v1", "nvidia.com/v2", "nvidia.com/v1beta2", "nvidia.com/"])
def test_a_graph_at_a_version_its_crd_does_not_serve_renders_nothing(api_version: str) -> None:
    out = render_bundle([Item(graph(api_version), "g.yaml", 0)], RenderConfig(), "llm")
    assert out.objects == []
    [error] = [r for r in out.results if r.is_error]
    assert error.field == "apiVersion" and error.code is Code.API_SERVER
    assert error.message == (
        f'no matches for kind "DynamoGraphDeployment" in version "{api_version}": its CRD serves nvidia.com/v1alpha1, nvidia.com/v1beta1'
    )


def test_a_graph_at_each_served_version_renders() -> None:
    for api_version in ("nvidia.com/v1alpha1", "nvidia.com/v1beta1"):
        assert refused_kind(graph(api_version)) is None


@pytest.mark.parametrize("kind, version", [("DynamoModel", "v1beta1"), ("DynamoWorkerMetadata", "v1beta1"), ("DynamoCheckpoint", "v1")])
def test_other_dynamo_kinds_at_an_unserved_version_are_refused(kind: str, version: str) -> None:
    result = refused_kind(obj(f"nvidia.com/{version}", kind))
    assert result is not None and result.field == "apiVersion" and "its CRD serves nvidia.com/v1alpha1" in result.message


@pytest.mark.parametrize("kind, meant", [
    ("DynamoGraphDeploymnet", "DynamoGraphDeployment"),
    ("DynamoGraphdeployment", "DynamoGraphDeployment"),
    ("DynamoComponentDeployments", "DynamoComponentDeployment"),
    ("DynamoGraphDeploymentScalingAdaptor", "DynamoGraphDeploymentScalingAdapter"),
])
def test_a_misspelled_dynamo_kind_is_an_error_with_the_kind_meant(kind: str, meant: str) -> None:
    out = render_bundle([Item(obj("nvidia.com/v1beta1", kind), "g.yaml", 0)], RenderConfig(), "llm")
    assert out.objects == []
    [error] = [r for r in out.results if r.is_error]
    assert error.field == "kind" and error.message.endswith(f"did you mean {meant}?")


def test_an_unknown_kind_named_like_dynamo_lists_the_dynamo_kinds() -> None:
    result = refused_kind(obj("nvidia.com/v1alpha1", "DynamoRouter"))
    assert result is not None and "the Dynamo kinds are DynamoCheckpoint, DynamoComponentDeployment" in result.message


@pytest.mark.parametrize("api_version, kind", [
    ("nvidia.com/v1", "ClusterPolicy"),  # the GPU operator
    ("nvidia.com/v1alpha1", "NVIDIADriver"),  # the GPU operator
    ("nvidia.com/v1beta1", "Something"),
    ("resource.nvidia.com/v1beta1", "ComputeDomain"),
    ("example.com/v1", "DynamoGraphDeploymnet"),
])
def test_kinds_no_dynamo_crd_claims_pass_through_unchanged(api_version: str, kind: str) -> None:
    source = obj(api_version, kind)
    out = render_bundle([Item(source, "o.yaml", 0)], RenderConfig(), "llm")
    assert out.objects == [source] and not [r for r in out.results if r.is_error]


def test_the_served_table_matches_the_shipped_crds() -> None:
    """The Dynamo CRDs the project ships as test data agree with the table."""
    for name in sorted(p.name for p in CRDS.glob("nvidia.com_*.yaml")):
        crd = yaml.safe_load((CRDS / name).read_text())
        served = tuple(v["name"] for v in crd["spec"]["versions"] if v["served"])
        assert SERVED[crd["spec"]["names"]["kind"]] == served
