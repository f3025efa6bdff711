"""``dynamo-render explain``: every attributed leaf really comes from the field it names.

Four cases the issue names: a v1beta1 DGD with a frontend and a worker, a v1alpha1 DGD (its
paths are the v1alpha1 paths the user wrote), a multinode LeaderWorkerSet, and an env var the
operator configuration gives (``NATS_SERVER`` from ``infrastructure.natsAddress``, which the
operator adds in internal/dynamo/graph.go AddStandardEnvVars). For each, independently of how
``explain`` found its answers:

- every ``input`` entry's value is the value at ``source.path`` in the input, or changes with it:
  setting that field to another accepted value changes the leaf;
- changing a field that no entry names (neither as ``source`` nor in ``dependsOn``) changes no
  leaf of the object;
- facts restated from the operator: the worker image is the user's field, the env var
  ``NATS_SERVER`` is the operator configuration's, DYN_NAMESPACE is computed from several inputs.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from plugin.frontends import explain
from plugin.options import given_values
from plugin.settings import load_manifests, resolve_settings
from tests.builders import CHAT_DGD, OPERATOR_CONFIG

ROOT = Path(__file__).resolve().parents[2]
DR = str(Path(sys.executable).parent / "dynamo-render")

DGD = CHAT_DGD.format(image="registry.example/runtime:1.5.0")

LWS_DCD = """\
apiVersion: nvidia.com/v1beta1
kind: DynamoComponentDeployment
metadata:
  name: big
  namespace: llm
spec:
  backendFramework: sglang
  type: decode
  multinode:
    nodeCount: 2
  podTemplate:
    spec:
      containers:
      - name: main
        image: registry.example/sglang-runtime:1.5.0
        command: ["python3", "-m", "dynamo.sglang"]
        args: ["--model-path", "Qwen/Qwen3-0.6B", "--tp", "8"]
        resources:
          limits:
            nvidia.com/gpu: "4"
"""


def _explain(tmp_path: Path, text: str, target: str, field: str | None = None, **options: Any) -> tuple[list[dict[str, Any]], Any, Any]:
    path = tmp_path / "input.yaml"
    path.write_text(text)
    common = given_values({("operator_config_path" if k == "operator_config" else k): v for k, v in options.items()})
    settings, problems = resolve_settings(common)
    assert settings is not None, problems
    documents, problems = load_manifests([str(path)], settings)
    assert not [p for p in problems if p.is_error], problems
    explained, results = explain.explain(documents, settings, explain.Target.parse(target), field, common.get("operator-config-path"))  # type: ignore[arg-type]
    assert explained is not None, [r.line() for r in results]
    return explained[1], documents, settings


def _leaf(entries: list[dict[str, Any]], field: str) -> dict[str, Any]:
    return next(e for e in entries if e["field"] == field)


def _other_values(value: Any) -> list[Any]:
    """Changed values unlike explain's own mutations: a prefix, a suffix, a step of two."""
    if isinstance(value, bool):
        return [not value]
    if isinstance(value, int):
        return [value + 2, value - 2]
    if isinstance(value, float):
        return [value * 3 or 3.0]
    if isinstance(value, str):
        return [value + "-q", "q" + value, value + "0"]
    return []


def _check_exact(entries: list[dict[str, Any]], documents: Any, settings: Any, target: str) -> int:
    """The two properties of the module docstring; returns how many fields were perturbed."""
    renderer = explain.Renderer(documents, settings)
    objects, _ = renderer.render()
    wanted = explain.Target.parse(target)
    assert wanted is not None
    position = explain._find(objects, wanted)[0]
    before = dict(explain.leaves(objects[position]))
    assert {explain.path_of(s) for s in before} >= {e["field"] for e in entries}
    source_index = explain._source_of(documents, renderer, position, wanted)
    named = {e["source"]["path"] for e in entries if "source" in e} | {d.split(":", 1)[1] for e in entries for d in e.get("dependsOn", [])}
    checked = 0
    for field in explain.input_fields(documents, source_index, renderer):
        # Values explain itself never tries, so the check is independent of its own choices.
        rendered = next((r for new in _other_values(field.value) if (r := renderer.perturbed(field, new)) is not None), None)
        if rendered is None:
            continue
        counterpart = explain._counterpart(rendered, position, wanted.kind, len(objects), wanted)
        if counterpart is None:
            continue
        changed = {explain.path_of(s) for s in explain.changed_leaves(before, counterpart)}
        changed &= {e["field"] for e in entries}
        attributed = {e["field"] for e in entries if e.get("source", {}).get("path") == field.path and e["origin"] == field.origin}
        assert attributed <= changed, f"{field.path}: {sorted(attributed - changed)} did not change"
        if field.path not in named:
            assert not changed, f"{field.path} is named by no entry but changes {sorted(changed)}"
        checked += 1
    return checked


@pytest.mark.parametrize("component", ["decode", "frontend"])
def test_dgd_frontend_and_worker(tmp_path: Path, component: str) -> None:
    text = DGD
    path = tmp_path / "probe.yaml"
    path.write_text(text)
    out = subprocess.run([DR, "render", str(path)], capture_output=True, text=True, cwd=ROOT)
    name = next(d["metadata"]["name"] for d in yaml.safe_load_all(out.stdout) if d["kind"] == "Deployment" and f"-{component}" in d["metadata"]["name"])
    target = f"Deployment/{name}"
    entries, documents, settings = _explain(tmp_path, text, target)
    image = _leaf(entries, "spec.template.spec.containers[0].image")
    index = 1 if component == "decode" else 0
    assert image["origin"] == "input" and image["source"]["path"] == f"spec.components[{index}].podTemplate.spec.containers[0].image"
    assert image["source"]["line"] == (22 if component == "decode" else 14) and image["source"]["object"] == "DynamoGraphDeployment/llm/chat"
    env = {e["field"]: e for e in entries if ".env[" in e["field"]}
    dyn_ns = next(f for f, e in env.items() if e["value"] == "DYN_NAMESPACE")
    assert env[dyn_ns.replace(".name", ".value")]["value"] == "llm-chat"
    assert env[dyn_ns.replace(".name", ".value")]["origin"] == "operator"
    if component == "decode":
        assert _leaf(entries, "spec.replicas")["source"]["path"] == "spec.components[1].replicas"
        gpu = _leaf(entries, "spec.template.spec.containers[0].resources.limits[nvidia.com/gpu]")
        assert gpu["source"]["path"] == "spec.components[1].podTemplate.spec.containers[0].resources.limits[nvidia.com/gpu]"
    assert all(e.get("rule") for e in entries if e["origin"] == "operator"), [e for e in entries if e["origin"] == "operator" and not e.get("rule")][:3]
    assert _check_exact(entries, documents, settings, target) > 20


def test_v1alpha1_dgd_names_the_v1alpha1_fields(tmp_path: Path) -> None:
    text = (ROOT / "tests/golden/v1alpha1/dgd-single-node/input.yaml").read_text()
    path = tmp_path / "probe.yaml"
    path.write_text(text)
    out = subprocess.run([DR, "render", str(path)], capture_output=True, text=True, cwd=ROOT)
    name = next(d["metadata"]["name"] for d in yaml.safe_load_all(out.stdout) if d["kind"] == "Deployment" and "vllmdecodeworker" in d["metadata"]["name"])
    target = f"Deployment/{name}"
    entries, documents, settings = _explain(tmp_path, text, target)
    by_value = {(e["value"], e["origin"]): e for e in entries if e["origin"] == "input"}
    assert by_value[("/workspace", "input")]["source"]["path"] == "spec.services.VllmDecodeWorker.extraPodSpec.mainContainer.workingDir"
    gpu = _leaf(entries, "spec.template.spec.containers[0].resources.limits[nvidia.com/gpu]")
    assert gpu["source"]["path"] == "spec.services.VllmDecodeWorker.resources.limits.gpu"
    secret = next(e for e in entries if e["field"].endswith("envFrom[0].secretRef.name"))
    assert secret["source"]["path"] == "spec.services.VllmDecodeWorker.envFromSecret"
    log_level = next(e for e in entries if e["value"] == "debug")
    assert log_level["source"]["path"] == "spec.envs[0].value"
    assert _check_exact(entries, documents, settings, target) > 20


def test_multinode_leader_worker_set(tmp_path: Path) -> None:
    entries, documents, settings = _explain(tmp_path, LWS_DCD, "LeaderWorkerSet/big-0", lws=True)
    assert _leaf(entries, "spec.leaderWorkerTemplate.size")["source"]["path"] == "spec.multinode.nodeCount"
    leader_image = _leaf(entries, "spec.leaderWorkerTemplate.leaderTemplate.spec.containers[0].image")
    assert leader_image["origin"] == "input" and leader_image["source"]["path"] == "spec.podTemplate.spec.containers[0].image"
    assert _check_exact(entries, documents, settings, "LeaderWorkerSet/big-0") > 10


def test_env_from_the_operator_config(tmp_path: Path) -> None:
    config = tmp_path / "operator.yaml"
    config.write_text(OPERATOR_CONFIG)
    entries, documents, settings = _explain(tmp_path, DGD, "Deployment/chat-frontend", "spec.template.spec.containers[0].env", operator_config=str(config))
    names = {e["field"]: e["value"] for e in entries if e["field"].endswith(".name")}
    nats = next(f for f, v in names.items() if v == "NATS_SERVER")
    value = _leaf(entries, nats.replace(".name", ".value"))
    assert value["value"] == "nats://nats.example:4222" and value["origin"] == "operator-config"
    assert value["source"] == {"object": "OperatorConfiguration", "path": "infrastructure.natsAddress", "file": str(config), "line": 4}
    assert _leaf(entries, nats)["rule"] == "internal/dynamo/graph.go AddStandardEnvVars"


def test_cli_json_and_text(tmp_path: Path) -> None:
    (tmp_path / "dgd.yaml").write_text(DGD)
    run = [DR, "explain", "--object", "Deployment/chat-frontend", "--field", "spec.template.spec.containers[0].image"]
    done = subprocess.run([*run, "-o", "json", str(tmp_path / "dgd.yaml")], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [
        {
            "field": "spec.template.spec.containers[0].image",
            "value": "registry.example/runtime:1.5.0",
            "origin": "input",
            "source": {"object": "DynamoGraphDeployment/llm/chat", "path": "spec.components[0].podTemplate.spec.containers[0].image", "file": str(tmp_path / "dgd.yaml"), "line": 14},
            "rule": json.loads(done.stdout)[0]["rule"],
        }
    ]
    text = subprocess.run([*run, str(tmp_path / "dgd.yaml")], capture_output=True, text=True, cwd=ROOT)
    assert "image: registry.example/runtime:1.5.0   ← spec.components[0].podTemplate.spec.containers[0].image (dgd.yaml:14)" in text.stdout
    missing = subprocess.run([*run[:3], "Deployment/nope", str(tmp_path / "dgd.yaml")], capture_output=True, text=True, cwd=ROOT)
    assert missing.returncode == 1 and "no rendered object is Deployment/nope (rendered: " in missing.stderr
    usage = subprocess.run([*run[:3], "nope", str(tmp_path / "dgd.yaml")], capture_output=True, text=True, cwd=ROOT)
    assert usage.returncode == 2


def test_the_bundled_example_explains_in_one_run() -> None:
    out, err = io.StringIO(), io.StringIO()
    assert explain.run([str(ROOT / "examples/vllm-agg.yaml")], {}, out, err, target="Deployment/vllm-agg-decode") == 0, err.getvalue()
    assert "replicas: 2   ← spec.replicas (vllm-agg.yaml:25)" in out.getvalue()


def test_a_request_past_the_render_budget_is_one_line_before_any_perturbed_render(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The budget is counted before the first perturbed render; a small one stands for a big input.
    path = tmp_path / "probe.yaml"
    path.write_text(DGD)
    out = subprocess.run([DR, "render", str(path)], capture_output=True, text=True, cwd=ROOT)
    name = next(d["metadata"]["name"] for d in yaml.safe_load_all(out.stdout) if d["kind"] == "Deployment" and "-decode" in d["metadata"]["name"])
    monkeypatch.setattr(explain, "MAX_RENDERS", 10)
    stdout, stderr = io.StringIO(), io.StringIO()
    code = explain.run([str(path)], given_values({}), stdout, stderr, target=f"Deployment/{name}")
    assert code == 1 and stdout.getvalue() == ""
    lines = stderr.getvalue().splitlines()
    assert len(lines) == 1, lines
    assert "renders (one per change of" in lines[0] and "more than the budget of 10;" in lines[0]
    assert "explain a smaller bundle" in lines[0] and lines[0].endswith("[input]")
