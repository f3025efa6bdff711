"""DGD admission on the component pathway, restated from the operator's webhook and CRD tests.

Built with a small DGD builder; the expected messages are the upstream ones
(internal/webhook/validation/dynamographdeployment_validation_envtest_test.go and the DGD CRD's
x-kubernetes-validations), the generation rules those of internal/dynamo/graph.go.
"""

from __future__ import annotations

from typing import Any

import pytest

from renderer.config import RenderConfig
from renderer.graph.dgd import DGD, WORKER_HASH_PLACEHOLDER
from renderer.bundle import parse_source
from renderer.graph.expand import backend_framework_for_dcds, dcd_as_written, generate_dcds
from renderer.results import RenderError, Result, Severity

IMAGE = "registry.example/runtime:1.5.0"


def component(name: str = "worker", type_: str | None = "worker", **extra: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"name": name, "podTemplate": {"spec": {"containers": [{"name": "main", "image": IMAGE}]}}}
    if type_ is not None:
        out["type"] = type_
    out.update(extra)
    return out


def dgd(*components: dict[str, Any], annotations: dict[str, str] | None = None, **spec: Any) -> dict[str, Any]:
    metadata: dict[str, Any] = {"name": "g", "namespace": "ns"}
    if annotations:
        metadata["annotations"] = annotations
    return {
        "apiVersion": "nvidia.com/v1beta1",
        "kind": "DynamoGraphDeployment",
        "metadata": metadata,
        "spec": {"backendFramework": "vllm", "components": list(components or [component()]), **spec},
    }


def parsed(obj: dict[str, Any], config: RenderConfig | None = None) -> tuple[DGD | None, list[Result]]:
    result: tuple[DGD | None, list[Result]] = parse_source(obj, "default", config or RenderConfig())  # type: ignore[assignment]
    return result


def messages(obj: dict[str, Any]) -> list[str]:
    return [f"{r.field}: {r.message}" for r in parsed(obj)[1]]


def test_v1alpha1_is_admitted_against_its_own_schema() -> None:
    obj = dgd()
    obj["apiVersion"] = "nvidia.com/v1alpha1"
    found, results = parsed(obj)
    assert found is None
    assert [(r.field, r.message) for r in results if r.is_error] == [("spec.components", 'unknown field "components"')]


def test_spec_must_be_an_object() -> None:
    obj = dgd()
    obj["spec"] = ["x"]
    assert messages(obj) == ["spec: expected object, got array"]
    obj["spec"] = None
    assert messages(obj) == ["spec.components: Required value: must have at least one component"]


def test_schema_errors_stop_before_the_webhook() -> None:
    obj = dgd(component(replicas="two"))
    found, results = parsed(obj)
    assert found is None
    assert [r.field for r in results] == ["spec.components[0].replicas"]


def test_provider_override_and_restart() -> None:
    restart = {"id": "r1", "strategy": {"type": "Sequential", "order": ["worker", "worker", "ghost"]}}
    out = parsed(dgd(providerOverride={"apiVersion": "grove.io/v1alpha1", "value": {}}, restart=restart))[1]
    assert [(r.field, r.severity, r.message) for r in out] == [
        ("spec.restart", Severity.WARNING, out[0].message),
        (
            "spec.providerOverride",
            Severity.ERROR,
            'Forbidden: requires workload provider "grove", but "component" is selected',
        ),
        ("spec.restart.strategy.order", Severity.ERROR, 'Invalid value: ["worker","worker","ghost"]: must be unique'),
        (
            "spec.restart.strategy.order",
            Severity.ERROR,
            'Invalid value: ["worker","worker","ghost"]: must have the same number of unique components as the deployment',
        ),
        ("spec.restart.strategy.order[2]", Severity.ERROR, 'Unsupported value: "ghost": supported values: "worker"'),
    ]
    assert out[0].message.startswith("spec.restart must be unset on create")


def test_parallel_restart_rejects_an_order() -> None:
    restart = {"id": "r1", "strategy": {"type": "Parallel", "order": ["worker"]}}
    assert "spec.restart.strategy.order: Forbidden: cannot be specified when strategy is parallel" in messages(
        dgd(restart=restart)
    )


@pytest.mark.parametrize(
    ("spec", "components", "expected"),
    [
        (
            {},
            [component(topologyConstraint={"packDomain": "rack"})],
            "spec.topologyConstraint: Required value: is required when any component topology constraint is set",
        ),
        (
            {"topologyConstraint": {"clusterTopologyName": "t"}},
            [component()],
            "spec.topologyConstraint.packDomain: Required value: is required when no component topologyConstraint is set",
        ),
        (
            {"topologyConstraint": {"clusterTopologyName": "t", "packDomain": "rack"}},
            [component()],
            "spec.topologyConstraint: has no effect on the component pathway: the operator applies topology constraints only with Grove",
        ),
    ],
)
def test_topology_constraints(spec: dict[str, Any], components: list[dict[str, Any]], expected: str) -> None:
    # dynamographdeployment_validation_envtest_test.go "component topology constraint requires
    # deployment topology", "deployment topology without pack domain requires a component topology"
    assert expected in messages(dgd(*components, **spec))


@pytest.mark.parametrize(
    ("policy", "expected"),
    [
        (
            {"labelKey": ".".join(["a" * 60] * 5) + "/zone", "domain": "zone"},  # 304-character prefix
            "spec.experimental.kvTransferPolicy.labelKey: labelKey prefix must be 253 characters or less",
        ),
        (
            {"labelKey": "zone", "domain": "zone", "preferredWeight": 0.5},
            "spec.experimental.kvTransferPolicy: preferredWeight may only be set when enforcement is preferred",
        ),
        (
            {"clusterTopologyName": "a" * 254, "domain": "zone"},
            f'spec.experimental.kvTransferPolicy.clusterTopologyName: Invalid value: "{"a" * 254}": must be no more than 253 characters',
        ),
    ],
)
def test_kv_transfer_policy_rules(policy: dict[str, Any], expected: str) -> None:
    assert expected in messages(dgd(experimental={"kvTransferPolicy": policy}))


def test_power_limit_with_gpu_memory_service_points_at_it() -> None:
    worker = component(experimental={"gpuMemoryService": {}})
    worker["podTemplate"]["metadata"] = {"annotations": {"dynamo.nvidia.com/gpu-power-limit": "300"}}
    assert (
        'spec.components[0].experimental.gpuMemoryService: Forbidden: cannot be combined with annotation '
        '"dynamo.nvidia.com/gpu-power-limit": power-aware planning does not support DRA-backed device allocation'
    ) in messages(dgd(worker))


def test_component_without_a_name() -> None:
    assert "spec.components[0].name: required field missing" in messages(dgd({"type": "worker"}))


def test_undetectable_worker_command_names_the_component() -> None:
    worker = component()
    worker["podTemplate"]["spec"]["containers"][0]["command"] = ["python3", "-m", "dynamo.vllm && python3 -m dynamo.sglang"]
    obj = dgd(worker)
    del obj["spec"]["backendFramework"]
    found, _ = parsed(obj)
    assert found is not None
    with pytest.raises(RenderError) as caught:
        backend_framework_for_dcds(found)
    assert caught.value.field == "spec.components[0].podTemplate.spec.containers[main].command"
    assert caught.value.message.startswith("failed to determine backend framework for component worker: ")


def test_dgd_env_creates_a_main_container_first() -> None:
    # graph.go applyDGDTemplateDefaults -> ensureMainContainer prepends {name: main}
    worker = component()
    worker["podTemplate"]["spec"]["containers"] = [{"name": "side", "image": IMAGE}, {"name": "main", "image": IMAGE}]
    found, _ = parsed(dgd(worker, env=[{"name": "A", "value": "1"}]))
    assert found is not None
    bare = found.components[0]
    template: dict[str, Any] = {"spec": {"containers": [{"name": "side", "image": IMAGE}]}}
    found_without_main = DGD(
        found.name, found.namespace, found.labels, found.annotations, found.spec,
        (type(bare)(bare.index, bare.spec, template, bare.raw),), found.env,
    )  # fmt: skip
    (_, obj), = generate_dcds(found_without_main, WORKER_HASH_PLACEHOLDER)
    assert obj["spec"]["podTemplate"]["spec"]["containers"] == [
        {"name": "main", "env": [{"name": "A", "value": "1"}]},
        {"name": "side", "image": IMAGE},
    ]


def test_cluster_topology_policy_annotates_worker_dcds() -> None:
    # graph.go applyKvTransferPolicyTopologyAnnotations (reachable on the component pathway only
    # before admission refuses clusterTopologyName)
    found, _ = parsed(dgd(component(experimental={"checkpoint": {"enabled": False}})))
    assert found is not None
    policy = {"clusterTopologyName": "grove-topology", "domain": "rack"}
    spec = found.spec.model_copy(update={"experimental": type(found.spec).model_validate({"experimental": {"kvTransferPolicy": policy}}).experimental})
    with_policy = DGD(found.name, found.namespace, found.labels, found.annotations, spec, found.components, found.env)
    (_, obj), = generate_dcds(with_policy, WORKER_HASH_PLACEHOLDER)
    # every generated DCD also carries the conversion annotation (graph.go applyDGDComponentAlphaCompatibilityToDCD)
    assert obj["metadata"]["annotations"] == {
        "nvidia.com/dcd-spec": '{"version":1,"spec":{},"rawJSON":[{"path":"serviceName","nil":true}]}',
        "nvidia.com/topology-cluster-topology-name": "grove-topology",
    }
    assert obj["spec"]["experimental"] == {"checkpoint": {"enabled": False, "startupPolicy": "Immediate", "deletionPolicy": "Delete", "targetContainerName": "main"}}
    volume = obj["spec"]["podTemplate"]["spec"]["volumes"][-1]
    assert volume == {"name": "topology-labels", "downwardAPI": {}}


def test_written_dcd_keeps_unknown_keys_and_drops_nulls() -> None:
    obj = {
        "apiVersion": "nvidia.com/v1beta1",
        "kind": "DynamoComponentDeployment",
        "metadata": {"name": "g-w"},
        "spec": {"name": "w", "eppConfig": {"config": {"plugins": [{"type": "t", "parameters": None}], "schedulingProfiles": []}}},
    }
    written = dcd_as_written(obj)
    assert written["spec"]["eppConfig"]["config"]["plugins"] == [{"name": "", "type": "t"}]


def test_metadata_problems_stop_the_dgd() -> None:
    obj = dgd()
    del obj["metadata"]["name"]
    found, results = parsed(obj)
    assert found is None
    assert results and all(r.is_error for r in results)


def test_component_deployment_config_wins_over_the_dgd_one() -> None:
    # graph.go applyDGDTemplateDefaults merges DGD env under the component's, then
    # applyDynDeploymentConfig reads the main container's value
    worker = component()
    worker["podTemplate"]["spec"]["containers"][0]["env"] = [
        {"name": "DYN_DEPLOYMENT_CONFIG", "value": '{"worker":{"ServiceArgs":{"resources":{"gpu":"4"}}}}'}
    ]
    obj = dgd(worker, env=[{"name": "DYN_DEPLOYMENT_CONFIG", "value": '{"worker":{"ServiceArgs":{"resources":{"gpu":"2"}}}}'}])
    found, results = parsed(obj)
    assert found is not None, results
    (_, dcd), = generate_dcds(found, "hash1234")
    main = dcd["spec"]["podTemplate"]["spec"]["containers"][0]
    assert main["resources"]["limits"]["nvidia.com/gpu"] == "4"


def test_deployment_config_error_names_where_it_was_written() -> None:
    obj = dgd(component(), env=[{"name": "A", "value": "1"}, {"name": "DYN_DEPLOYMENT_CONFIG", "value": '{"worker":3}'}])
    found, _ = parsed(obj)
    assert found is not None
    with pytest.raises(RenderError) as err:
        generate_dcds(found, "hash1234")
    assert err.value.field == "spec.env[1].value"
    assert "into Go value of type dynamo.DynDeploymentServiceConfig" in err.value.message


def test_workers_without_a_known_backend_are_skipped() -> None:
    # graph.go backendFrameworkForGeneratedDCDs: a noop worker (python3 -m dynamo.mocker) is ignored
    mocker, vllm = component("mocker"), component("vllm")
    mocker["podTemplate"]["spec"]["containers"][0]["command"] = ["python3", "-m", "dynamo.mocker"]
    vllm["podTemplate"]["spec"]["containers"][0]["command"] = ["python3", "-m", "dynamo.vllm"]
    obj = dgd(mocker, vllm, component("frontend", "frontend"))
    del obj["spec"]["backendFramework"]
    found, _ = parsed(obj)
    assert found is not None
    assert backend_framework_for_dcds(found) == "vllm"


def test_written_dcd_drops_fields_the_types_do_not_know() -> None:
    # the operator's typed decode drops them; an empty pointer struct stays (a sentinel)
    obj: dict[str, Any] = {"metadata": {"name": "g-w"}, "spec": {"name": "w", "replicas": 1, "experimental": {"future": {"a": None}}}}
    written = dcd_as_written(obj)
    assert written["spec"] == {"name": "w", "replicas": 1, "experimental": {}}
