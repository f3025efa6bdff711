"""v1alpha1 -> v1beta1 conversion (the webhook's ConvertTo) of DCDs and DGDs.

Expected objects were produced by the operator's own ConvertTo at the pinned commit for the
inputs of its conversion tests (api/v1alpha1/*_conversion_test.go,
*_conversion_bugs_test.go, conversion_field_coverage_test.go), for corpus manifests and for
objects carrying preserved v1beta1 specs; see tests/data/v1alpha1_to/README.md. The unit
checks below restate single rules of those tests.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from renderer.conversion import preservation, typed
from renderer.conversion.to_v1beta1 import dcd_to_v1beta1, dgd_to_v1beta1
from renderer.results import RenderError

FIXTURES = Path(__file__).resolve().parent.parent / "data" / "v1alpha1_to"


def _convert(obj: dict[str, Any]) -> dict[str, Any]:
    if obj["kind"] == "DynamoComponentDeployment":
        return dcd_to_v1beta1(obj)
    return dgd_to_v1beta1(obj)


def _canonical(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, indent=1)


def _table(name: str) -> list[Any]:
    cases = json.loads((FIXTURES / name).read_text())
    assert cases, f"no cases in {name}"
    return [pytest.param(case, id=case_id) for case_id, case in sorted(cases.items())]


def _corpus() -> list[Any]:
    files = sorted((FIXTURES / "corpus").glob("*.json"))
    assert files, "no corpus conversion fixtures found"
    return [pytest.param(json.loads(f.read_text()), id=f.stem) for f in files]


def _check(case: dict[str, Any]) -> None:
    before = copy.deepcopy(case["input"])
    if case.get("error"):
        with pytest.raises(RenderError):
            _convert(case["input"])
        return
    got = _convert(case["input"])
    assert case["input"] == before, "the input was modified"
    assert _canonical(got) == _canonical(case["expected"])


@pytest.mark.parametrize("case", _corpus())
def test_corpus_manifests(case: dict[str, Any]) -> None:
    _check(case)


@pytest.mark.parametrize("case", _table("upstream_cases.json"))
def test_upstream_cases(case: dict[str, Any]) -> None:
    _check(case)


@pytest.mark.parametrize("case", _table("preserved_v1beta1.json"))
def test_preserved_v1beta1_spec_is_restored(case: dict[str, Any]) -> None:
    _check(case)


@pytest.mark.parametrize("case", _table("edited.json"))
def test_edited_objects(case: dict[str, Any]) -> None:
    _check(case)


@pytest.mark.parametrize("case", _table("dcd_variants.json"))
def test_dcd_variants(case: dict[str, Any]) -> None:
    _check(case)


def _dgd(services: dict[str, Any], **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "nvidia.com/v1alpha1",
        "kind": "DynamoGraphDeployment",
        "metadata": {"name": "g", "namespace": "ns", "annotations": {"keep": "me"}},
        "spec": dict(spec, services=services),
    }


def _saved(obj: dict[str, Any], key: str = preservation.ANN_DGD_SPEC) -> Any:
    return json.loads(obj["metadata"]["annotations"][key])


@pytest.mark.parametrize(
    ("service", "want_type", "saved_sub_type"),
    [
        pytest.param({"componentType": "worker", "subComponentType": "prefill"}, "prefill", None, id="prefill-promoted"),
        pytest.param({"componentType": "worker", "subComponentType": "decode"}, "decode", None, id="decode-promoted"),
        pytest.param({"componentType": "worker", "subComponentType": "custom"}, "worker", "custom", id="custom-saved"),
        pytest.param({"componentType": "frontend", "subComponentType": "prefill"}, "frontend", "prefill", id="not-a-worker"),
    ],
)
def test_sub_component_type(service: dict[str, Any], want_type: str, saved_sub_type: str | None) -> None:
    """Mirrors: TestDGD_FromV1alpha1_SubComponentType, TestBugDGD_BetaPrefillDecode..."""
    out = dgd_to_v1beta1(_dgd({"w": service}))
    assert out["spec"]["components"][0]["type"] == want_type
    annotations = out["metadata"]["annotations"]
    if saved_sub_type is None:
        assert preservation.ANN_DGD_SPEC not in annotations
    else:
        assert _saved(out)["spec"]["services"]["w"]["subComponentType"] == saved_sub_type


def test_services_become_sorted_components_named_by_key() -> None:
    """Mirrors: TestDGD_RoundTrip_MultipleServicesOrderStable; the map key is the name."""
    out = dgd_to_v1beta1(_dgd({"b": {"serviceName": "other"}, "a": {}, "B": {}}))
    assert [c["name"] for c in out["spec"]["components"]] == ["B", "a", "b"]
    assert _saved(out)["spec"]["services"] == {"b": {"serviceName": "other"}}


def test_top_level_pvcs_and_user_annotations() -> None:
    """Mirrors: TestDGD_FromV1alpha1_PVCsPreserved; user annotations stay."""
    pvc = {"name": "model", "create": True, "size": "10Gi", "storageClass": "standard"}
    out = dgd_to_v1beta1(_dgd({}, pvcs=[pvc]))
    assert "spec" not in out or "components" not in out["spec"]
    assert out["metadata"]["annotations"]["keep"] == "me"
    assert _saved(out) == {"version": 1, "spec": {"pvcs": [pvc]}}


def test_preserved_annotations_are_consumed() -> None:
    """A stale spoke save on a v1alpha1 object is dropped, not carried over."""
    obj = _dgd({"w": {}})
    obj["metadata"]["annotations"][preservation.ANN_DGD_STATUS] = "{}"
    out = dgd_to_v1beta1(obj)
    assert out["metadata"]["annotations"] == {"keep": "me"}


def test_dcd_empty_service_name_falls_back_to_object_name() -> None:
    """Mirrors: ConvertFromDynamoComponentDeploymentSpec (spec.name is required in v1beta1)."""
    obj = {"apiVersion": "nvidia.com/v1alpha1", "kind": "DynamoComponentDeployment", "metadata": {"name": "d"}, "spec": {}}
    out = dcd_to_v1beta1(obj)
    assert out["spec"] == {"name": "d"}
    assert out["metadata"]["annotations"] == {
        preservation.ANN_DCD_SPEC: '{"version":1,"spec":{},"rawJSON":[{"path":"serviceName","nil":true}]}'
    }


def test_frontend_sidecar_becomes_a_container_and_a_reference() -> None:
    """Mirrors: TestDGD_RoundTrip_FrontendSidecar (appendFrontendSidecar)."""
    sidecar = {"image": "fe:1", "args": ["--x"], "envFromSecret": "s", "envs": [{"name": "A", "value": "1"}]}
    component = dgd_to_v1beta1(_dgd({"w": {"frontendSidecar": sidecar}}))["spec"]["components"][0]
    assert component["frontendSidecar"] == "sidecar-frontend"
    assert component["podTemplate"]["spec"]["containers"] == [
        {"name": "main"},
        {
            "name": "sidecar-frontend",
            "image": "fe:1",
            "args": ["--x"],
            "envFrom": [{"secretRef": {"name": "s"}}],
            "env": [{"name": "A", "value": "1"}],
        },
    ]


def test_main_container_merge_precedence() -> None:
    """extraPodSpec.mainContainer wins; env merges by name in place; its mounts come first."""
    service = {
        "envs": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}],
        "resources": {"limits": {"gpu": "2", "cpu": "1000m"}},
        "volumeMounts": [{"name": "flat", "mountPoint": "/flat"}],
        "extraPodSpec": {
            "mainContainer": {
                "name": "ignored",
                "image": "img",
                "env": [{"name": "B", "value": "x"}, {"name": "C", "value": "3"}],
                "resources": {"limits": {"cpu": "4"}},
                "volumeMounts": [{"name": "own", "mountPath": "/own"}],
            }
        },
    }
    main = dgd_to_v1beta1(_dgd({"w": service}))["spec"]["components"][0]["podTemplate"]["spec"]["containers"][0]
    assert main["name"] == "main"
    assert main["image"] == "img"
    assert main["env"] == [{"name": "A", "value": "1"}, {"name": "B", "value": "x"}, {"name": "C", "value": "3"}]
    assert main["resources"] == {"limits": {"cpu": "4", "nvidia.com/gpu": "2"}}
    assert main["volumeMounts"] == [{"name": "own", "mountPath": "/own"}, {"name": "flat", "mountPath": "/flat"}]


@pytest.mark.parametrize(
    ("shared_memory", "want"),
    [
        pytest.param({"disabled": True}, "0", id="disabled"),
        pytest.param({"size": "4Gi"}, "4Gi", id="size"),
        pytest.param({}, None, id="empty"),
        pytest.param({"size": "0"}, None, id="zero"),
    ],
)
def test_shared_memory_size(shared_memory: dict[str, Any], want: str | None) -> None:
    """Mirrors: TestConvertFromSharedMemorySpec, TestDGD_FromV1alpha1_SharedMemoryEdgeCases."""
    component = dgd_to_v1beta1(_dgd({"w": {"sharedMemory": shared_memory}}))["spec"]["components"][0]
    assert component.get("sharedMemorySize") == want


def test_input_is_never_modified() -> None:
    obj = _dgd({"w": {"extraPodSpec": {"mainContainer": {"image": "i"}}, "envs": [{"name": "A"}]}})
    before = copy.deepcopy(obj)
    dgd_to_v1beta1(obj)
    assert obj == before


def test_type_error_names_the_v1alpha1_path() -> None:
    with pytest.raises(RenderError) as err:
        dgd_to_v1beta1(_dgd({"w": {"extraPodSpec": {"nodeSelector": "gpu"}}}))
    assert err.value.field == "spec.services.w.extraPodSpec.nodeSelector"


@pytest.mark.parametrize(
    ("raw", "restored"),
    [
        pytest.param('{"version":1,"spec":{"name":"x"}}', {"name": "x"}, id="envelope"),
        pytest.param('{"name":"x"}', {"name": "x"}, id="legacy-bare-spec"),
        pytest.param("not json", None, id="invalid-ignored"),
        pytest.param('{"version":"1","spec":{}}', None, id="bad-version-ignored"),
        pytest.param('{"spec":{"name":1}}', None, id="type-error-ignored"),
    ],
)
def test_restore_preserved_spec(raw: str, restored: dict[str, Any] | None) -> None:
    """Mirrors: preservation.go restorePreservedSpec."""
    got = preservation.restore_dcd_hub_spec(raw)
    if restored is None:
        assert got is None
    else:
        assert got is not None and got["name"] == restored["name"]


def test_value_struct_artefacts_are_stripped_but_markers_stay() -> None:
    """Mirrors: api/v1beta1/marshal.go (ScalingAdapter {} is a pointer marker)."""
    shape = typed.shape_of(typed.BETA, "DynamoComponentDeploymentSharedSpec")
    value = {"scalingAdapter": {}, "podTemplate": {"metadata": {}, "spec": {"containers": [{"name": "m", "resources": {}}]}}}
    assert typed.strip_value_struct_artefacts(shape, value) == {
        "scalingAdapter": {},
        "podTemplate": {"spec": {"containers": [{"name": "m"}]}},
    }


# The fields the port handles, per struct. A new field in the generated tables (an upstream
# API change) fails here until the conversion is revisited.
# Mirrors: conversion_field_coverage_test.go (knownV1Beta1ConversionFieldSet and its v1alpha1 twin)
_KNOWN_FIELDS = {
    ("V1ALPHA1", "DynamoComponentDeploymentSharedSpec"): (
        "providerOverride annotations labels serviceName componentType subComponentType "
        "runtimeVersionOverride dynamoNamespace globalDynamoNamespace resources autoscaling envs "
        "envFromSecret volumeMounts ingress modelRef sharedMemory extraPodMetadata extraPodSpec "
        "livenessProbe readinessProbe replicas minAvailable multinode scalingAdapter eppConfig "
        "frontendSidecar checkpoint topologyConstraint gpuMemoryService failover"
    ),
    ("V1ALPHA1", "DynamoGraphDeploymentSpec"): (
        "providerOverride annotations labels priorityClassName pvcs services envs backendFramework "
        "restart topologyConstraint experimental"
    ),
    ("V1ALPHA1", "DynamoComponentDeploymentStatus"): "observedGeneration conditions podSelector service",
    ("V1ALPHA1", "DynamoGraphDeploymentStatus"): (
        "observedGeneration state conditions services restart checkpoints rollingUpdate placement"
    ),
    ("V1ALPHA1", "ServiceReplicaStatus"): (
        "componentKind componentName componentNames runtimeNamespace replicas updatedReplicas "
        "readyReplicas availableReplicas scheduledReplicas"
    ),
    ("V1ALPHA1", "GPUMemoryServiceSpec"): "enabled mode deviceClassName extraClientContainers extraClientPods",
    ("V1ALPHA1", "FailoverSpec"): "enabled mode numShadows",
    ("V1ALPHA1", "ServiceCheckpointConfig"): (
        "enabled mode startupPolicy deletionPolicy checkpointRef identity targetContainerName job"
    ),
    ("V1ALPHA1", "FrontendSidecarSpec"): "image args envFromSecret envs",
    ("V1ALPHA1", "Resources"): "requests limits claims",
    ("V1ALPHA1", "ResourceItem"): "cpu memory gpu gpuType custom",
    ("V1ALPHA1", "VolumeMount"): "name mountPoint useAsCompilationCache",
    ("V1ALPHA1", "SharedMemorySpec"): "disabled size",
    ("V1ALPHA1", "KvTransferPolicy"): "clusterTopologyName labelKey domain enforcement preferredWeight",
    ("V1ALPHA1", "SpecTopologyConstraint"): "topologyProfile packDomain",
    ("V1ALPHA1", "Restart"): "id strategy",
    ("V1ALPHA1", "RollingUpdateStatus"): "phase startTime endTime updatedServices",
    ("V1BETA1", "DynamoComponentDeploymentSpec"): (
        "backendFramework providerOverride name type runtimeVersionOverride globalDynamoNamespace "
        "podTemplate replicas minAvailable multinode sharedMemorySize modelRef scalingAdapter eppConfig "
        "frontendSidecar compilationCache topologyConstraint experimental"
    ),
    ("V1BETA1", "DynamoGraphDeploymentSpec"): (
        "providerOverride annotations labels priorityClassName components env backendFramework restart "
        "topologyConstraint experimental"
    ),
    ("V1BETA1", "ExperimentalSpec"): "gpuMemoryService failover grove checkpoint",
}


@pytest.mark.parametrize(("table", "struct"), sorted(_KNOWN_FIELDS), ids=lambda v: str(v))
def test_conversion_field_coverage(table: str, struct: str) -> None:
    from renderer.gocompat import dynamo_types

    rows = getattr(dynamo_types, table)[struct]
    assert [row[0] for row in rows] == _KNOWN_FIELDS[(table, struct)].split()


def test_preserved_epp_parameters_that_are_not_json_are_an_error_at_the_annotation() -> None:
    """Mirrors: preservation.go restoreEPPPluginParameters (raw bytes put back verbatim)."""
    import base64

    raw = base64.b64encode(b"{not json").decode()
    preserved = {
        "version": 1,
        "spec": {"components": [{"name": "w", "eppConfig": {"config": {"plugins": [{"name": "p", "type": "t"}]}}}]},
        "rawJSON": [{"path": "components/0/eppConfig/config/plugins/0/parameters", "raw": raw}],
    }
    obj = _dgd({"w": {"eppConfig": {"config": {"plugins": [{"name": "p", "type": "t"}]}}}})
    obj["metadata"]["annotations"][preservation.ANN_DGD_SPEC] = json.dumps(preserved)
    with pytest.raises(RenderError) as err:
        dgd_to_v1beta1(obj)
    assert err.value.field == f"metadata.annotations[{preservation.ANN_DGD_SPEC}]"
    assert err.value.message.startswith("not supported yet")


def test_converted_annotations_over_the_size_limit_are_refused() -> None:
    """Mirrors: webhook_converter.go restoreObjectMeta (ValidateAnnotations, 256 KiB in bytes)."""
    env = [{"name": f"E{i}", "value": "\u00e9" * 1000} for i in range(140)]
    obj = _dgd({"w": {"extraPodSpec": {"mainContainer": {"env": env}}}})
    with pytest.raises(RenderError) as err:
        dgd_to_v1beta1(obj)
    assert err.value.message == "metadata.annotation: Too long: may not be more than 262144 bytes"


def test_item_to_resource_list_keeps_parsable_strings_only() -> None:
    """itemToResourceList: gpu under gpuType (nvidia.com/gpu by default); unparsable or non-string values are left out."""
    from renderer.conversion.podtemplate_to import item_to_resource_list

    item = {"cpu": "500m", "memory": 1, "gpu": "2", "custom": {"example.com/fpga": "x", "example.com/nic": "1"}}
    assert item_to_resource_list(item) == {"cpu": "500m", "example.com/nic": "1", "nvidia.com/gpu": "2"}
    assert item_to_resource_list({"gpu": "1", "gpuType": "amd.com/gpu"}) == {"amd.com/gpu": "1"}
    assert item_to_resource_list({}) is None
