"""DYN_DEPLOYMENT_CONFIG on generated DCDs, restated from the operator's tests.

Sources: internal/dynamo/graph_test.go Test_overrideWithDynDeploymentConfig,
Test_updateDynDeploymentConfig, TestApplyDynDeploymentConfig_FallsBackToFrontendConfigKeyForRenamedFrontend,
TestGenerateDynamoComponentsDeployments_UsesDynDeploymentWorkers; error texts and encodings from the
operator's GenerateDynamoComponentsDeployments run on the same inputs.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from renderer.graph.dyn_deployment_config import apply_dyn_deployment_config, rewrite_frontend_port
from renderer.results import RenderError

QUANTITY_RE = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"


def spec(value: str | None, resources: dict[str, Any] | None = None, replicas: int | None = None) -> dict[str, Any]:
    main: dict[str, Any] = {"name": "main"}
    if value is not None:
        main["env"] = [{"name": "OTHER", "value": "value"}, {"name": "DYN_DEPLOYMENT_CONFIG", "value": value}]
    if resources is not None:
        main["resources"] = resources
    out: dict[str, Any] = {"podTemplate": {"spec": {"containers": [main]}}}
    if replicas is not None:
        out["replicas"] = replicas
    return out


def main_of(s: dict[str, Any]) -> dict[str, Any]:
    container: dict[str, Any] = s["podTemplate"]["spec"]["containers"][0]
    return container


def env_value(s: dict[str, Any]) -> str:
    return str(next(e["value"] for e in main_of(s)["env"] if e["name"] == "DYN_DEPLOYMENT_CONFIG"))


REQ_1 = {"requests": {"cpu": "1", "memory": "1Gi", "nvidia.com/gpu": "1"}}


def test_no_env_var_changes_nothing() -> None:
    s = spec(None, REQ_1, replicas=1)
    before = json.dumps(s)
    apply_dyn_deployment_config(s, "Frontend", "frontend", "f")
    assert json.dumps(s) == before


def test_override_resources_requests_and_limits() -> None:
    value = '{"Frontend":{"port":8080,"ServiceArgs":{"Workers":3, "Resources":{"CPU":"2", "Memory":"2Gi", "GPU":"2"}}},"Planner":{"environment":"kubernetes"}}'
    s = spec(value, REQ_1, replicas=1)
    apply_dyn_deployment_config(s, "Frontend", "frontend", "f")
    both = {"cpu": "2", "memory": "2Gi", "nvidia.com/gpu": "2"}
    assert main_of(s)["resources"] == {"limits": both, "requests": both}
    assert s["replicas"] == 1  # set replicas win over workers
    assert env_value(s) == (
        '{"Frontend":{"ServiceArgs":{"Resources":{"CPU":"2","GPU":"2","Memory":"2Gi"},"Workers":3},"port":8000},'
        '"Planner":{"environment":"kubernetes"}}'
    )


def test_override_subset_of_resources_keeps_other_requests() -> None:
    value = '{"Frontend":{"port":8080,"ServiceArgs":{"Workers":3, "Resources":{"GPU":"2"}}},"Planner":{"environment":"kubernetes"}}'
    s = spec(value, REQ_1)
    apply_dyn_deployment_config(s, "Frontend", "frontend", "f")
    assert main_of(s)["resources"] == {
        "limits": {"nvidia.com/gpu": "2"},
        "requests": {"cpu": "1", "memory": "1Gi", "nvidia.com/gpu": "2"},
    }
    assert s["replicas"] == 3  # workers fill unset replicas


@pytest.mark.parametrize(("replicas", "want"), [(None, 2), (3, 3)])
def test_workers_only_when_replicas_unset(replicas: int | None, want: int) -> None:
    s = spec('{"service1":{"ServiceArgs":{"workers":2}}}', replicas=replicas)
    apply_dyn_deployment_config(s, "service1", "frontend", "f")
    assert s["replicas"] == want


def test_renamed_frontend_falls_back_to_frontend_key() -> None:
    s = spec('{"Frontend":{"ServiceArgs":{"Resources":{"CPU":"2","Memory":"2Gi","GPU":"1"}}}}')
    apply_dyn_deployment_config(s, "router", "frontend", "f")
    assert main_of(s)["resources"]["requests"] == {"cpu": "2", "memory": "2Gi", "nvidia.com/gpu": "1"}
    assert env_value(s) == '{"Frontend":{"ServiceArgs":{"Resources":{"CPU":"2","GPU":"1","Memory":"2Gi"}},"port":8000}}'


def test_non_frontend_does_not_fall_back_and_keeps_value() -> None:
    value = '{"Frontend":{"port":8000},"Planner":{"environment":"kubernetes"}}'
    s = spec(value, REQ_1)
    apply_dyn_deployment_config(s, "Other", "worker", "f")
    assert env_value(s) == value
    assert main_of(s)["resources"] == REQ_1


@pytest.mark.parametrize(
    ("raw", "name", "want"),
    [
        # Test_updateDynDeploymentConfig "main component"
        ('{"Frontend":{"port":8080},"Planner":{"environment":"kubernetes"}}', "Frontend",
         '{"Frontend":{"port":8000},"Planner":{"environment":"kubernetes"}}'),
        # Go float64 numbers, sorted keys at every level, HTML-safe escaping
        ('{"zeta":{"a":1e21,"b":0.0000001,"c":12345678901234567890,"d":"<&>","e":[1,2.50,{"y":1,"x":null}]},"Frontend":{"port":1}}',
         "fe",
         '{"Frontend":{"port":8000},"zeta":{"a":1e+21,"b":1e-7,"c":12345678901234567000,"d":"\\u003c\\u0026\\u003e","e":[1,2.5,{"x":null,"y":1}]}}'),
        ("null", "fe", "null"),
    ],
)
def test_frontend_port_rewrite(raw: str, name: str, want: str) -> None:
    assert rewrite_frontend_port(raw, name, 8000) == want


def test_case_insensitive_fields_and_custom_resources() -> None:
    s = spec('{"w":{"serviceargs":{"RESOURCES":{"custom":{"example.com/foo":"1k","z":"2000m"},"cpu":"1500m"},"Workers":4}}}')
    apply_dyn_deployment_config(s, "w", "worker", "f")
    both = {"cpu": "1500m", "example.com/foo": "1k", "z": "2"}
    assert main_of(s)["resources"] == {"limits": both, "requests": both}
    assert s["replicas"] == 4


def test_empty_quantities_and_empty_resources() -> None:
    s = spec('{"w":{"ServiceArgs":{"resources":{"cpu":""}}}}')
    apply_dyn_deployment_config(s, "w", "worker", "f")
    assert "resources" not in main_of(s)
    s = spec('{"w":{"ServiceArgs":{"resources":{}}}}', {"limits": {"cpu": "1"}})
    apply_dyn_deployment_config(s, "w", "worker", "f")
    assert main_of(s)["resources"] == {"limits": {"cpu": "1"}}
    s = spec('{"w":{"ServiceArgs":{"resources":{"cpu":"1","memory":"m"}}}}')
    apply_dyn_deployment_config(s, "w", "worker", "f")
    assert main_of(s)["resources"]["limits"] == {"cpu": "1", "memory": "0"}


@pytest.mark.parametrize(
    ("value", "name", "kind", "message"),
    [
        ('{"w":{"ServiceArgs":{"workers":"2"}}}', "w", "worker",
         "json: cannot unmarshal string into Go struct field ServiceArgs.ServiceArgs.workers of type int32"),
        ('{"w":{"serviceargs":{"WORKERS":"x"}}}', "w", "worker",
         "json: cannot unmarshal string into Go struct field ServiceArgs.ServiceArgs.workers of type int32"),
        ('{"w":{"ServiceArgs":{"Workers":2.5}}}', "w", "worker",
         "json: cannot unmarshal number 2.5 into Go struct field ServiceArgs.ServiceArgs.workers of type int32"),
        ('{"w":{"ServiceArgs":{"workers":1e2}}}', "w", "worker",
         "json: cannot unmarshal number 1e2 into Go struct field ServiceArgs.ServiceArgs.workers of type int32"),
        ('{"w":{"ServiceArgs":{"workers":3000000000}}}', "w", "worker",
         "json: cannot unmarshal number 3000000000 into Go struct field ServiceArgs.ServiceArgs.workers of type int32"),
        ('{"w":{"ServiceArgs":{"resources":{"gpu":"x2"}}}}', "w", "worker",
         f'parse resource nvidia.com/gpu quantity "x2": {QUANTITY_RE}'),
        ('{"w":{"ServiceArgs":{"resources":{"custom":{"b":"q"}}}}}', "w", "worker",
         f'parse resource b quantity "q": {QUANTITY_RE}'),
        ('{"w":{"ServiceArgs":{"workers":"x","resources":{"cpu":"q"}}}}', "w", "worker",
         "json: cannot unmarshal string into Go struct field ServiceArgs.ServiceArgs.workers of type int32"),
        ("[1]", "w", "worker", "json: cannot unmarshal array into Go value of type map[string]*dynamo.DynDeploymentServiceConfig"),
        ('{"w":3}', "w", "worker", "json: cannot unmarshal number into Go value of type dynamo.DynDeploymentServiceConfig"),
        ('{"fe":3}', "fe", "frontend", "json: cannot unmarshal number into Go value of type map[string]interface {}"),
        ('{"w":{"ServiceArgs":{"resources":{"custom":{"a":1}}}}}', "w", "worker",
         "json: cannot unmarshal number into Go struct field Resources.ServiceArgs.resources.custom of type string"),
        ('{"w":{"ServiceArgs":{"resources":"x"}}}', "w", "worker",
         "json: cannot unmarshal string into Go struct field ServiceArgs.ServiceArgs.resources of type dynamo.Resources"),
        ('{"w":{"ServiceArgs":[]}}', "w", "worker",
         "json: cannot unmarshal array into Go struct field DynDeploymentServiceConfig.ServiceArgs of type dynamo.ServiceArgs"),
        ('{"w":{"ServiceArgs":{"resources":{"CPU":2}}}}', "w", "worker",
         "json: cannot unmarshal number into Go struct field Resources.ServiceArgs.resources.cpu of type string"),
        ('{"w":', "w", "worker", "unexpected end of JSON input"),
        ("", "w", "worker", "unexpected end of JSON input"),
        # The operator panics here (nil map assignment); we refuse with a message.
        ('{"Frontend":null}', "Frontend", "frontend", 'entry "Frontend" is null'),
        # Go would pick one of these at random.
        ('{"Frontend":{"a":1},"frontend":{"b":2}}', "fe", "frontend", "several frontend keys"),
    ],
)
def test_operator_errors(value: str, name: str, kind: str, message: str) -> None:
    with pytest.raises(RenderError) as err:
        apply_dyn_deployment_config(spec(value), name, kind, "spec.env[0].value")
    assert message in err.value.message
    assert err.value.field == "spec.env[0].value"


def test_null_config_is_ignored() -> None:
    s = spec("null", REQ_1)
    apply_dyn_deployment_config(s, "w", "worker", "f")
    assert main_of(s)["resources"] == REQ_1
