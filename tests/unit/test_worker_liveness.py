"""Worker liveness tolerance (ai-dynamo/dynamo#13512, operator 1.5.0; cherry-picked as #14490).

The PR's facts restated: under 1.5.0 a worker (worker, prefill, decode) of Dynamo runtime 1.5.0
or later restarts after three failed liveness checks instead of one; an unknown runtime (custom
image, no override) and runtimes before 1.5.0 keep one; an explicit user probe keeps its value.
The reference commit keeps one everywhere. The golden side is
tests/golden/components/worker-liveness-threshold-{13512,2a6da14c8}.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
import yaml

from plugin.frontends.render import run
from plugin.options import given_values
from renderer import consts
from renderer.gocompat.runtimeversion import Version
from renderer.pod.components import (
    WORKER_LIVENESS_TOLERANCE,
    ComponentContext,
    base_container,
)
from renderer.pod.runtime_gates import INCREASED_WORKER_FAILURE_THRESHOLD, resolve_component_runtime_version
from renderer.releases import REFERENCE, RELEASES, Release


def _ctx(component_type: str, version: Version | None, release: Release) -> ComponentContext:
    return ComponentContext(
        component_type=component_type, dynamo_namespace="ns", parent_name="p", parent_namespace="ns",
        discovery_backend="", discovery_mode="", runtime_version=version, release=release,
    )


def test_the_delta_and_its_gate() -> None:
    assert WORKER_LIVENESS_TOLERANCE.change == "#13512" and WORKER_LIVENESS_TOLERANCE.release == "1.5.0"
    assert not RELEASES[REFERENCE].ships(WORKER_LIVENESS_TOLERANCE)
    assert RELEASES["1.5.0"].ships(WORKER_LIVENESS_TOLERANCE) and RELEASES["1.5.1"].ships(WORKER_LIVENESS_TOLERANCE)
    assert INCREASED_WORKER_FAILURE_THRESHOLD.name == "IncreasedWorkerFailureThreshold"
    assert INCREASED_WORKER_FAILURE_THRESHOLD.min_runtime_version == (1, 5, 0)


# The version-boundary cases of the PR's component_worker_test.go and its description's table.
BOUNDARY = [
    pytest.param(None, 1, id="unknown legacy runtime"),
    pytest.param((1, 4, 9), 1, id="older runtime"),
    pytest.param((1, 5, 0), 3, id="minimum supported runtime"),
    pytest.param((2, 0, 0), 3, id="newer runtime"),
]


@pytest.mark.parametrize("component_type", sorted(consts.WORKER_COMPONENT_TYPES))
@pytest.mark.parametrize(("version", "threshold"), BOUNDARY)
def test_13512_worker_liveness_threshold_follows_the_runtime_version(component_type: str, version: Version | None, threshold: int) -> None:
    probe = base_container(_ctx(component_type, version, RELEASES["1.5.0"]))["livenessProbe"]
    assert probe == {"httpGet": {"path": "/live", "port": "system"}, "periodSeconds": 5, "timeoutSeconds": 4, "failureThreshold": threshold}


@pytest.mark.parametrize(("version", "threshold"), BOUNDARY)
def test_13512_the_reference_commit_keeps_one_failure(version: Version | None, threshold: int) -> None:
    assert base_container(_ctx("worker", version, RELEASES[REFERENCE]))["livenessProbe"]["failureThreshold"] == 1


@pytest.mark.parametrize("component_type", ["planner", "frontend"])
def test_13512_only_worker_defaults_change(component_type: str) -> None:
    for release in (RELEASES[REFERENCE], RELEASES["1.5.0"]):
        before = base_container(_ctx(component_type, (1, 4, 0), release))
        after = base_container(_ctx(component_type, (1, 5, 0), release))
        assert before == after


@pytest.mark.parametrize(
    ("image", "override", "version"),
    [
        ("nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.5.0", "", (1, 5, 0)),
        ("registry.example/custom:latest", "", None),
        ("registry.example/custom:latest", "1.5.0", (1, 5, 0)),
        ("nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.5.0", "1.4.0", (1, 4, 0)),
        ("registry.example/custom:latest", "1.5", None),
    ],
)
def test_13512_the_runtime_version_is_the_override_else_the_image_tag(image: str, override: str, version: Version | None) -> None:
    assert resolve_component_runtime_version(image, override) == version


def _graph(image: str, multinode: bool = False) -> dict[str, Any]:
    worker: dict[str, Any] = {
        "name": "decode", "type": "decode",
        "podTemplate": {"spec": {"containers": [{
            "name": "main", "image": image, "command": ["python3", "-m", "dynamo.vllm"], "args": ["--model", "Qwen/Qwen3-0.6B"],
            "resources": {"limits": {"nvidia.com/gpu": "1"}},
        }]}},
    }
    if multinode:
        worker["multinode"] = {"nodeCount": 2}
    return {"apiVersion": "nvidia.com/v1beta1", "kind": "DynamoGraphDeployment", "metadata": {"name": "g", "namespace": "ns"},
            "spec": {"backendFramework": "vllm", "components": [worker]}}


GROVE = "apiVersion: config.dynamo-render.dev/v1alpha1\nkind: DynamoRenderConfig\nspec:\n  gates:\n    grove: true\n"


def _render(tmp_path: Path, doc: dict[str, Any], release: str, config: str | None = None) -> list[dict[str, Any]]:
    source = tmp_path / "input.yaml"
    source.write_text(yaml.safe_dump(doc))
    config_path = None
    if config is not None:
        config_path = tmp_path / "config.yaml"
        config_path.write_text(config)
    stdout, stderr = io.StringIO(), io.StringIO()
    code = run([str(source)], given_values(dict(operator_release=release, config=str(config_path) if config_path else None)), stdout, stderr)
    assert code == 0, stderr.getvalue()
    return [d for d in yaml.safe_load_all(stdout.getvalue()) if d]


def _liveness(objects: list[dict[str, Any]]) -> dict[str, int | None]:
    """Each rendered pod template's main-container liveness failureThreshold, by object kind and path."""
    found: dict[str, int | None] = {}

    def walk(node: Any, where: str) -> None:
        if isinstance(node, dict):
            containers = node.get("containers")
            if isinstance(containers, list):
                for c in containers:
                    if isinstance(c, dict) and c.get("name") == consts.MAIN_CONTAINER_NAME:
                        found[where] = (c.get("livenessProbe") or {}).get("failureThreshold")
            for key, value in node.items():
                walk(value, f"{where}.{key}")
        elif isinstance(node, list):
            for i, value in enumerate(node):
                walk(value, f"{where}[{i}]")

    for obj in objects:
        walk(obj, f"{obj['kind']}/{obj['metadata']['name']}")
    return found


@pytest.mark.parametrize("config", [None, GROVE], ids=["deployment", "grove"])
def test_13512_a_graph_worker_of_runtime_1_5_gets_three_on_both_pathways(tmp_path: Path, config: str | None) -> None:
    image = "nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.5.0"
    new = _liveness(_render(tmp_path, _graph(image), "1.5.0", config))
    old = _liveness(_render(tmp_path, _graph(image), REFERENCE, config))
    assert new and set(new.values()) == {3}
    assert set(old.values()) == {1}
    # the workloads keep their names: the threshold is not a hash input (the runtime version already is)
    assert new.keys() == old.keys()


def test_13512_a_multinode_leader_gets_three(tmp_path: Path) -> None:
    # the vLLM backend drops the probes of the LWS worker pods; the leader keeps the worker default
    new = _liveness(_render(tmp_path, _graph("nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.5.0", multinode=True), "1.5.0"))
    leader = [v for k, v in new.items() if "leaderTemplate" in k]
    assert leader == [3] and len(new) == 2


def test_13512_an_older_runtime_graph_renders_as_the_reference(tmp_path: Path) -> None:
    image = "nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.4.1"
    new = _liveness(_render(tmp_path, _graph(image), "1.5.0"))
    assert set(new.values()) == {1}
