"""Paths of a converted v1alpha1 object mapped back to the field the user wrote.

Each case converts a real v1alpha1 manifest with the conversion the API server runs
(``dcd_to_v1beta1``/``dgd_to_v1beta1``), looks up where a value landed in the v1beta1 form, and
checks that its path maps back to the v1alpha1 field that supplied it, following the
conversion's merge rules (shared_spec_conversion.go buildMainContainerFromDedicated and
mergeExtraPodSpecMainContainer): the main container's own fields win, the dedicated fields
(``envs``, ``resources``, ``envFromSecret``, probes, flat ``volumeMounts``) fill the rest.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
import yaml

from plugin.frontends import render as render_cmd
from renderer.admission.v1alpha1.paths import dcd_path, dgd_path
from renderer.conversion.to_v1beta1 import dcd_to_v1beta1, dgd_to_v1beta1
from tests.positions import line_of

SPEC: dict[str, Any] = {
    "componentType": "worker",
    "backendFramework": "vllm",
    "envs": [{"name": "SHARED", "value": "1"}, {"name": "BOTH", "value": "service"}],
    "envFromSecret": "hf-token",
    "resources": {"limits": {"cpu": "4", "gpu": "2", "custom": {"example.com/fpga": "1"}}, "requests": {"memory": "8Gi"}},
    "readinessProbe": {"httpGet": {"path": "/health", "port": 9090}},
    "volumeMounts": [{"name": "model-cache", "mountPoint": "/models"}],
    "extraPodSpec": {
        "mainContainer": {
            "image": "nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.0.0",
            "env": [{"name": "OWN", "value": "x"}, {"name": "BOTH", "value": "container"}],
            "resources": {"limits": {"memory": "16Gi"}},
            "livenessProbe": {"httpGet": {"path": "/live", "port": 9090}},
            "volumeMounts": [{"name": "scratch", "mountPath": "/scratch"}],
        },
        "containers": [{"name": "helper", "image": "busybox"}],
    },
}


def _converted(spec: dict[str, Any]) -> dict[str, Any]:
    obj = {"apiVersion": "nvidia.com/v1alpha1", "kind": "DynamoComponentDeployment", "metadata": {"name": "w"}, "spec": spec}
    return dcd_to_v1beta1(obj)["spec"]


def _main(converted: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    containers = converted["podTemplate"]["spec"]["containers"]
    index = next(i for i, c in enumerate(containers) if c["name"] == "main")
    return index, containers[index]


def _env_index(container: dict[str, Any], name: str) -> int:
    return next(i for i, e in enumerate(container["env"]) if e["name"] == name)


@pytest.mark.parametrize(
    ("env", "written"),
    [("SHARED", "spec.envs[0].value"), ("OWN", "spec.extraPodSpec.mainContainer.env[0].value"),
     ("BOTH", "spec.extraPodSpec.mainContainer.env[1].value")],
    ids=["from-envs", "main-container-only", "main-container-wins"],
)
def test_an_env_entry_maps_to_the_list_that_supplied_it(env: str, written: str) -> None:
    converted = _converted(SPEC)
    index, main = _main(converted)
    path = f"spec.podTemplate.spec.containers[{index}].env[{_env_index(main, env)}].value"
    assert dcd_path(path, converted, SPEC) == written
    # the same with the container named instead of counted, as render errors name it
    assert dcd_path(path.replace(f"[{index}]", "[main]", 1), converted, SPEC) == written


@pytest.mark.parametrize(
    ("tail", "written"),
    [
        (".resources.limits.cpu", "spec.resources.limits.cpu"),
        (".resources.limits.nvidia.com/gpu", "spec.resources.limits.gpu"),
        (".resources.limits.example.com/fpga", "spec.resources.limits.custom.example.com/fpga"),
        (".resources.limits.memory", "spec.extraPodSpec.mainContainer.resources.limits.memory"),
        (".envFrom[0].secretRef.name", "spec.envFromSecret"),
        (".readinessProbe.httpGet.path", "spec.readinessProbe.httpGet.path"),
        (".livenessProbe.httpGet.path", "spec.extraPodSpec.mainContainer.livenessProbe.httpGet.path"),
        (".volumeMounts[0].mountPath", "spec.extraPodSpec.mainContainer.volumeMounts[0].mountPath"),
        (".volumeMounts[1].mountPath", "spec.volumeMounts[0].mountPoint"),
        (".image", "spec.extraPodSpec.mainContainer.image"),
    ],
)
def test_dedicated_fields_and_main_container_fields_map_to_their_source(tail: str, written: str) -> None:
    converted = _converted(SPEC)
    _, main = _main(converted)
    # the value is where the conversion put it (so the path is a real one)
    if tail.startswith(".resources.limits."):
        assert tail.removeprefix(".resources.limits.") in main["resources"]["limits"]
    assert dcd_path(f"spec.podTemplate.spec.containers[main]{tail}", converted, SPEC) == written


def test_resources_named_as_a_whole_map_to_the_dedicated_field_when_the_container_has_none() -> None:
    spec = {k: v for k, v in SPEC.items() if k != "extraPodSpec"}
    spec["extraPodSpec"] = {"mainContainer": {"image": "nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.0.0"}}
    converted = _converted(spec)
    assert dcd_path("spec.podTemplate.spec.containers[main].resources", converted, spec) == "spec.resources"
    assert dcd_path("spec.podTemplate.spec.containers[main].resources", converted, SPEC) == (
        "spec.extraPodSpec.mainContainer.resources"
    )


def test_other_containers_and_dgd_services_map_by_name() -> None:
    converted = _converted(SPEC)
    containers = converted["podTemplate"]["spec"]["containers"]
    helper = next(i for i, c in enumerate(containers) if c["name"] == "helper")
    assert dcd_path(f"spec.podTemplate.spec.containers[{helper}].image", converted, SPEC) == "spec.extraPodSpec.containers[0].image"

    dgd = {"apiVersion": "nvidia.com/v1alpha1", "kind": "DynamoGraphDeployment", "metadata": {"name": "g"},
           "spec": {"backendFramework": "vllm", "services": {"Worker": SPEC}}}
    converted_dgd = dgd_to_v1beta1(dgd)["spec"]
    main = next(c for c in converted_dgd["components"][0]["podTemplate"]["spec"]["containers"] if c["name"] == "main")
    path = f"spec.components[0].podTemplate.spec.containers[main].env[{_env_index(main, 'SHARED')}].name"
    assert dgd_path(path, converted_dgd, dgd["spec"]) == "spec.services[Worker].envs[0].name"


CACHE_WITHOUT_PATH = {
    "componentType": "worker",
    "backendFramework": "trtllm",
    "volumeMounts": [{"name": "model-cache", "mountPoint": "/models"}, {"name": "compile-cache", "useAsCompilationCache": True}],
    "extraPodSpec": {"mainContainer": {"image": "nvcr.io/nvidia/ai-dynamo/trtllm-runtime:1.0.0"}},
}


@pytest.mark.parametrize("kind", ["DynamoComponentDeployment", "DynamoGraphDeployment"])
def test_a_render_error_names_the_v1alpha1_field(tmp_path: Path, kind: str) -> None:
    """The operator's render needs a cache mount path for TRT-LLM; the user wrote the flat mount."""
    if kind == "DynamoGraphDeployment":
        service = {k: v for k, v in CACHE_WITHOUT_PATH.items() if k != "backendFramework"}
        spec: dict[str, Any] = {"backendFramework": "trtllm", "services": {"Worker": service}}
        where = "spec.services[Worker].volumeMounts[1].mountPoint"
    else:
        spec, where = CACHE_WITHOUT_PATH, "spec.volumeMounts[1].mountPoint"
    path = tmp_path / "input.yaml"
    text = yaml.safe_dump({"apiVersion": "nvidia.com/v1alpha1", "kind": kind, "metadata": {"name": "w", "namespace": "llm"}, "spec": spec})
    path.write_text(text)
    out, err = io.StringIO(), io.StringIO()
    assert render_cmd.run([str(path)], {}, out, err) == 1
    errors = [line for line in err.getvalue().splitlines() if "[error]" in line]
    assert errors == [
        # the mount without a mount point: the line of its list item
        f"{path}:{line_of(text, '- name: compile-cache')}: [error] {kind}/w {where}: compilationCache.mountPath is required for backend framework trtllm "
        "(no default available) [render]"
    ]
