"""A converted v1alpha1 service's metadata over the DGD's spec metadata (ai-dynamo/dynamo#14855, 1.5.0).

The PR's precedence (graph < v1alpha1 service < explicit pod template; every layer's other keys
kept) is checked on whole renders in tests/golden/v1alpha1/dgd-service-metadata-precedence-*;
here, the gate and the per-component defaults.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from renderer.config import RenderConfig
from renderer.graph.dgd_parse import parse_dgd
from renderer.graph.expand import ALPHA_SERVICE_METADATA, dgd_spec_metadata
from renderer.graph.v1alpha1_dgd import parse_alpha_dgd
from renderer.releases import REFERENCE, RELEASES

INPUT = Path(__file__).parents[1] / "golden" / "v1alpha1" / "dgd-service-metadata-precedence-14855" / "input.yaml"


def test_the_delta_is_gated_on_1_5_0() -> None:
    assert (ALPHA_SERVICE_METADATA.change, ALPHA_SERVICE_METADATA.release) == ("#14855", "1.5.0")
    assert not RELEASES[REFERENCE].ships(ALPHA_SERVICE_METADATA) and RELEASES["1.5.0"].ships(ALPHA_SERVICE_METADATA)


def test_the_defaults_are_the_service_metadata_over_the_graph_under_1_5_0_only() -> None:
    config = RenderConfig()
    dgd, results = parse_alpha_dgd(yaml.safe_load(INPUT.read_text()), "default", config)
    assert dgd is not None, results
    graph = ({"example.com/team": "graph", "example.com/owner": "graph", "example.com/graph-only": "g"},
             {"example.com/tier": "graph", "example.com/graph-label": "g"})
    assert dgd_spec_metadata(dgd, RELEASES[REFERENCE]) == {"decode": graph}
    assert dgd_spec_metadata(dgd, RELEASES["1.5.0"]) == {"decode": (
        {"example.com/team": "service", "example.com/owner": "service", "example.com/graph-only": "g", "example.com/service-only": "s"},
        {"example.com/tier": "service", "example.com/graph-label": "g"},
    )}


def test_a_native_v1beta1_dgd_has_only_the_graph_defaults() -> None:
    obj = {"apiVersion": "nvidia.com/v1beta1", "kind": "DynamoGraphDeployment", "metadata": {"name": "g"},
           "spec": {"annotations": {"a": "1"}, "components": [{"name": "frontend", "type": "frontend", "podTemplate": {
               "spec": {"containers": [{"name": "main", "image": "nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.5.0"}]}}}]}}
    dgd, results = parse_dgd(obj, "default", RenderConfig())
    assert dgd is not None, results
    assert dgd_spec_metadata(dgd, RELEASES["1.5.0"]) == {"frontend": ({"a": "1"}, {})}


def test_a_service_annotation_wins_over_the_propagated_dgd_annotation_under_1_5_0() -> None:
    from renderer import consts
    from renderer.graph.expand import generate_dcds
    from renderer.graph.dgd import WORKER_HASH_PLACEHOLDER

    obj = yaml.safe_load(INPUT.read_text())
    obj["metadata"]["annotations"] = {consts.ANNOTATION_ENABLE_METRICS: "false"}
    obj["spec"]["services"]["decode"]["annotations"][consts.ANNOTATION_ENABLE_METRICS] = "true"
    dgd, results = parse_alpha_dgd(obj, "default", RenderConfig())
    assert dgd is not None, results

    def pod_value(release: str) -> str:
        ((_, dcd),) = generate_dcds(dgd, WORKER_HASH_PLACEHOLDER, release=RELEASES[release])
        return str(dcd["spec"]["podTemplate"]["metadata"]["annotations"][consts.ANNOTATION_ENABLE_METRICS])

    # The reference fills the propagated DGD annotation first; 1.5.0 the service's metadata first.
    assert pod_value(REFERENCE) == "false"
    assert pod_value("1.5.0") == "true"
