"""v1beta1 -> v1alpha1 conversion of DCDs and DGDs (the webhook's ConvertFrom), and DGDSA both ways.

Expected values are the operator's own conversion output (its api/v1alpha1 ConvertFrom and
ConvertTo run on the same inputs), restated as JSON case files:

- ``themed.json``: cases restating api/v1alpha1/*_conversion_test.go, *_bugs_test.go and
  conversion_field_coverage_test.go (hub inputs; and v1alpha1 inputs carried through the
  operator's forward conversion, so the spoke preservation annotations are exercised);
- ``corpus_from.json``: every DCD/DGD of tests/data/corpus, v1alpha1 ones after the
  operator's forward conversion, v1beta1 ones as written;
- ``scaling_adapter.json``: DGDSA both ways.

Objects compare semantically (a Go zero value equals an absent key) and the preservation
annotations compare as parsed JSON.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from renderer.conversion.from_v1beta1 import dcd_from_v1beta1, dgd_from_v1beta1, restore_preserved
from renderer.conversion.scaling_adapter import dgdsa_to_v1beta1
from tests.reverse_conversion import dgdsa_from_v1beta1
from renderer.conversion.shared_from import prune
from renderer.results import RenderError

DATA = Path(__file__).resolve().parents[1] / "data" / "v1alpha1_conversion"
THEMED = json.loads((DATA / "themed.json").read_text())
CORPUS = json.loads((DATA / "corpus_from.json").read_text())
SCALING = json.loads((DATA / "scaling_adapter.json").read_text())

PRESERVATION_KEYS = ("nvidia.com/dcd-spec", "nvidia.com/dcd-status", "nvidia.com/dgd-spec", "nvidia.com/dgd-status")


def norm(obj: Any) -> Any:
    """Semantic form: preservation annotations parsed, Go zero values dropped."""
    obj = json.loads(json.dumps(obj))
    anns = (obj.get("metadata") or {}).get("annotations") or {}
    for key in PRESERVATION_KEYS:
        if key in anns:
            anns[key] = json.loads(anns[key])
    return prune(obj)


def convert_from(obj: dict[str, Any]) -> dict[str, Any]:
    if obj["kind"] == "DynamoGraphDeployment":
        return dgd_from_v1beta1(obj)
    return dcd_from_v1beta1(obj)


@pytest.mark.parametrize("case", THEMED["cases"], ids=[c["name"] for c in THEMED["cases"]])
def test_themed_from_v1beta1(case: dict[str, Any]) -> None:
    got = convert_from(case["input"])
    assert got["apiVersion"] == "nvidia.com/v1alpha1"
    assert norm(got) == norm(case["expected"])


@pytest.mark.parametrize("case", THEMED["cases"], ids=[c["name"] for c in THEMED["cases"]])
def test_hub_save_annotation_bytes(case: dict[str, Any]) -> None:
    # the sparse v1beta1 save is written exactly as the operator's encoding/json writes it
    got = (convert_from(case["input"])["metadata"].get("annotations") or {})
    want = (case["expected"]["metadata"].get("annotations") or {})
    for key in ("nvidia.com/dcd-spec", "nvidia.com/dgd-spec"):
        assert got.get(key) == want.get(key)


@pytest.mark.parametrize("case", THEMED["errors"], ids=[c["name"] for c in THEMED["errors"]])
def test_themed_errors(case: dict[str, Any]) -> None:
    with pytest.raises(RenderError) as err:
        convert_from(case["input"])
    assert err.value.message in case["error"]
    assert err.value.field == "spec.components[1].name"


@pytest.mark.parametrize("case", CORPUS, ids=[f'{c["file"]}#{c["doc"]}' for c in CORPUS])
def test_corpus_from_v1beta1(case: dict[str, Any]) -> None:
    source = case.get("beta")
    if source is None:
        source = _corpus_doc(case["file"], case["doc"])
    assert norm(convert_from(source)) == norm(case["alpha"])


def _corpus_doc(name: str, index: int) -> dict[str, Any]:
    import yaml

    path = Path(__file__).resolve().parents[1] / "data" / "corpus" / name
    doc = list(yaml.safe_load_all(path.read_text()))[index]
    return json.loads(json.dumps(doc, default=str))


def test_corpus_cases_cover_both_origins() -> None:
    spoke_origin = [c for c in CORPUS if "beta" in c]
    hub_origin = [c for c in CORPUS if "beta" not in c]
    assert len(spoke_origin) >= 200 and len(hub_origin) >= 200


@pytest.mark.parametrize("case", SCALING, ids=[f'{c["input"]["apiVersion"]}-{i}' for i, c in enumerate(SCALING)])
def test_scaling_adapter(case: dict[str, Any]) -> None:
    src = case["input"]
    fn = dgdsa_to_v1beta1 if src["apiVersion"] == "nvidia.com/v1alpha1" else dgdsa_from_v1beta1
    got = fn(src)
    assert norm(got) == norm(case["expected"])
    assert got["spec"]["replicas"] == case["expected"]["spec"]["replicas"]


def test_scaling_adapter_round_trips() -> None:
    for case in SCALING:
        src = case["input"]
        if src["apiVersion"] == "nvidia.com/v1beta1":
            assert norm(dgdsa_to_v1beta1(dgdsa_from_v1beta1(src))) == norm(src)


def test_hub_save_envelope_is_read_back() -> None:
    hub = THEMED["cases"][0]["input"]
    alpha = dcd_from_v1beta1({**hub, "metadata": {"name": "x"}, "spec": {"podTemplate": {"spec": {"containers": [{"name": "metrics", "image": "m"}]}}}})
    raw = alpha["metadata"]["annotations"]["nvidia.com/dcd-spec"]
    # the sidecar survives in extraPodSpec; the save only marks that the hub had no "main"
    assert raw == '{"version":1,"spec":{"name":"","podTemplate":{"metadata":{},"spec":{"containers":null}}}}'
    spec, records = restore_preserved(raw)
    assert records == []
    assert spec is not None and prune(spec) is None and spec["podTemplate"] is not None
    assert alpha["spec"]["extraPodSpec"] == {"containers": [{"name": "metrics", "image": "m"}]}


def test_legacy_unenveloped_preservation_is_read() -> None:
    spec, _ = restore_preserved('{"dynamoNamespace":"ns"}')
    assert spec == {"dynamoNamespace": "ns"}
    assert restore_preserved("not json") == (None, [])


def test_malformed_status_annotation_is_an_error() -> None:
    obj = {"apiVersion": "nvidia.com/v1beta1", "kind": "DynamoGraphDeployment",
           "metadata": {"name": "x", "annotations": {"nvidia.com/dgd-status": "{"}}, "spec": {}}
    with pytest.raises(RenderError) as err:
        dgd_from_v1beta1(obj)
    assert err.value.field == "metadata.annotations[nvidia.com/dgd-status]"


def test_input_is_not_mutated() -> None:
    for case in THEMED["cases"]:
        before = json.dumps(case["input"], sort_keys=True)
        convert_from(case["input"])
        assert json.dumps(case["input"], sort_keys=True) == before


# -- conversion_field_coverage_test.go -------------------------------------------------------

# The v1beta1 component spec fields the operator's conversion acknowledges (its field-set
# snapshot for DynamoComponentDeploymentSpec). A field added to the generated tables without
# being added here is a field nobody has checked the conversion of.
ACKNOWLEDGED_V1BETA1_FIELDS = """
backendFramework compilationCache.mountPath compilationCache.pvcName eppConfig.config eppConfig.configMapRef
experimental.checkpoint.checkpointRef experimental.checkpoint.deletionPolicy experimental.checkpoint.enabled
experimental.checkpoint.identity.backendFramework experimental.checkpoint.identity.dtype
experimental.checkpoint.identity.dynamoVersion experimental.checkpoint.identity.extraParameters
experimental.checkpoint.identity.maxModelLen experimental.checkpoint.identity.model
experimental.checkpoint.identity.pipelineParallelSize experimental.checkpoint.identity.tensorParallelSize
experimental.checkpoint.job.gmsClientContainers experimental.checkpoint.job.podTemplate experimental.checkpoint.mode
experimental.checkpoint.startupPolicy experimental.checkpoint.targetContainerName experimental.failover.mode
experimental.failover.numShadows experimental.gpuMemoryService.deviceClassName
experimental.gpuMemoryService.extraClientContainers experimental.gpuMemoryService.extraClientPods.name
experimental.gpuMemoryService.extraClientPods.podTemplate experimental.gpuMemoryService.mode
experimental.grove.forceScalingGroup frontendSidecar globalDynamoNamespace minAvailable modelRef.name
modelRef.revision multinode.leader.providerOverride.apiVersion multinode.leader.providerOverride.target
multinode.leader.providerOverride.value multinode.nodeCount multinode.worker.providerOverride.apiVersion
multinode.worker.providerOverride.target multinode.worker.providerOverride.value name podTemplate
providerOverride.apiVersion providerOverride.target providerOverride.value replicas runtimeVersionOverride
scalingAdapter sharedMemorySize topologyConstraint.packDomain type
""".split()


def _leaf_fields() -> list[str]:
    from renderer.gocompat.dynamo_types import V1BETA1

    leaves: list[str] = []

    def walk(name: str, prefix: str) -> None:
        for row in V1BETA1[name]:
            shape = row[2]
            while shape[0] in ("ptr", "slice"):
                shape = shape[1]
            path = prefix + row[0]
            # structs of other modules (the EPP config) and empty marker structs are leaves
            if shape[0] == "struct" and V1BETA1.get(shape[1]) and shape[1] != "EndpointPickerConfig":
                walk(shape[1], path + ".")
            else:
                leaves.append(path)

    walk("DynamoComponentDeploymentSpec", "")
    return leaves


def _paths(value: Any, prefix: str, into: set[str]) -> None:
    if isinstance(value, dict):
        for key, item in value.items():
            into.add(prefix + key)
            _paths(item, prefix + key + ".", into)
    elif isinstance(value, list):
        for item in value:
            _paths(item, prefix, into)


def test_v1beta1_field_set_is_acknowledged() -> None:
    assert sorted(_leaf_fields()) == sorted(ACKNOWLEDGED_V1BETA1_FIELDS)


def test_every_v1beta1_field_is_exercised() -> None:
    seen: set[str] = set()
    sources = [c["input"] for c in THEMED["cases"]] + [c["beta"] for c in CORPUS if "beta" in c]
    for obj in sources:
        spec = obj.get("spec") or {}
        if obj["kind"] == "DynamoGraphDeployment":
            for component in spec.get("components") or []:
                _paths(component, "", seen)
            if spec.get("backendFramework"):
                seen.add("backendFramework")
        else:
            _paths(spec, "", seen)
    assert [field for field in ACKNOWLEDGED_V1BETA1_FIELDS if field not in seen] == []
