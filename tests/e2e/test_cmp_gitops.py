"""GitOps behaviour of ``cmp generate`` and ``cmp parameters``, run as Argo CD's cmp-server runs them.

Each test uses the ``Sidecar`` of test_cmp.py: a fresh unpacked repository in a cmp-server work
dir, the command from plugin.yaml, no shell, no stdin, the sidecar's own environment plus what
the repo-server sends. Kustomize builds run the real ``kubectl kustomize`` (embedded kustomize)
and, when installed, the standalone ``kustomize``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.e2e.test_cmp import DEADLINE, EXAMPLE_REPO, PLUGIN_YAML, STOCK_APIS, Run, Sidecar, assert_failed, by_kind, main_env, plugin_environ
from tests.schemas import assert_valid
from tests.positions import document_start
from tests.tools import standalone_kustomize

MARKED = """\
apiVersion: v1
kind: Service
metadata:
  name: vllm-agg-frontend
  namespace: llm
  annotations:
    dynamo-render.dev/rendered-from: DynamoComponentDeployment/llm/vllm-agg-frontend
    dynamo-render.dev/rendered-as: llm/vllm-agg-frontend
spec:
  ports:
    - name: http
      port: 8000
  selector:
    app: x
"""

# An OperatorConfiguration with a field the operator ignores: the render warns about it.
OPERATOR_CONFIG = yaml.safe_load((EXAMPLE_REPO / "config" / "operator-config.yaml").read_text())
WARNING_CONFIG = json.dumps({**OPERATOR_CONFIG, "notAField": True})


@pytest.fixture
def sidecar(tmp_path: Path) -> Sidecar:
    return Sidecar(tmp_path, EXAMPLE_REPO)


def with_path(sidecar: Sidecar, tmp_path: Path, tools: dict[str, str]) -> None:
    """Make the sidecar's PATH hold exactly these tools (name -> real binary) besides Python."""
    bin_dir = tmp_path / "sidecar-bin"
    bin_dir.mkdir(exist_ok=True)
    for name, real in tools.items():
        os.symlink(real, bin_dir / name)
    python_dir = Path(sidecar.env["PATH"].split(":")[0])
    sidecar.env["PATH"] = f"{python_dir}:{bin_dir}"


# ---------------------------------------------------------------------------------------------
# Item 6: the sidecar's environment


def test_kubernetes_service_variables_named_like_our_settings_do_not_break_a_render(sidecar: Sidecar) -> None:
    """A Service named dynamo-render in the argocd namespace injects these into every container."""
    sidecar.env.update({
        "DYNAMO_RENDER_SERVICE_HOST": "10.96.0.12",
        "DYNAMO_RENDER_SERVICE_PORT": "8080",
        "DYNAMO_RENDER_SERVICE_PORT_HTTP": "8080",
        "DYNAMO_RENDER_PORT": "tcp://10.96.0.12:8080",
        "DYNAMO_RENDER_PORT_8080_TCP": "tcp://10.96.0.12:8080",
        "DYNAMO_RENDER_PORT_8080_TCP_PROTO": "tcp",
        "DYNAMO_RENDER_PORT_8080_TCP_PORT": "8080",
        "DYNAMO_RENDER_PORT_8080_TCP_ADDR": "10.96.0.12",
    })
    run = sidecar.generate("apps/vllm-agg", api_versions=STOCK_APIS)
    assert run.code == 0, run.stderr
    assert ("Deployment", "vllm-agg-decode") in by_kind(run.objects)
    # A documented name is still read from the sidecar.
    sidecar.env["DYNAMO_RENDER_KEEP_SOURCES"] = "true"
    run = sidecar.generate("apps/vllm-agg", api_versions=STOCK_APIS)
    assert run.code == 0, run.stderr
    assert ("DynamoComponentDeployment", "vllm-agg-decode") in by_kind(run.objects)


# ---------------------------------------------------------------------------------------------
# Item 8: an empty parameter value is the default


def test_an_empty_parameter_value_means_the_default(sidecar: Sidecar) -> None:
    default = sidecar.generate("apps/vllm-agg", api_versions=STOCK_APIS)
    emptied = sidecar.generate(
        "apps/vllm-agg",
        api_versions=STOCK_APIS,
        parameters=[{"name": name, "string": ""} for name in ("namespace", "keep-sources", "lws-gate", "config", "strict")],
    )
    assert emptied.code == 0, emptied.stderr
    assert emptied.stdout == default.stdout
    # An emptied plugin env entry falls back the same way.
    env_emptied = sidecar.generate("apps/vllm-agg", api_versions=STOCK_APIS, plugin_env={"DYNAMO_RENDER_NAMESPACE": ""})
    assert env_emptied.stdout == default.stdout


# ---------------------------------------------------------------------------------------------
# Item 5: strict


def test_strict_fails_on_a_warning_with_empty_stdout(sidecar: Sidecar) -> None:
    lenient = sidecar.generate("apps/vllm-agg", api_versions=STOCK_APIS, parameters=[{"name": "operator-config", "string": WARNING_CONFIG}])
    assert lenient.code == 0, lenient.stderr
    assert lenient.objects
    assert '[warning]' in lenient.stderr and 'unknown field "notAField"' in lenient.stderr

    strict = sidecar.generate(
        "apps/vllm-agg",
        api_versions=STOCK_APIS,
        parameters=[{"name": "operator-config", "string": WARNING_CONFIG}, {"name": "strict", "string": "true"}],
    )
    assert_failed(strict, r"^dynamo-render: 1 error for application demo, nothing rendered\n",
                  r'\[error\] operator-config.notAField: unknown field "notAField" \(the operator ignores it\) \(a warning; strict is on\)')


def test_strict_from_the_config_file_and_a_parameter_that_turns_it_off(sidecar: Sidecar) -> None:
    config = sidecar.repo / "config" / "strict.yaml"
    config.write_text(yaml.safe_dump({
        "apiVersion": "config.dynamo-render.dev/v1alpha1",
        "kind": "DynamoRenderConfig",
        "metadata": {"name": "strict"},
        "spec": {"strict": True, "operatorConfig": {**OPERATOR_CONFIG, "notAField": 1}},
    }))
    param = {"name": "config", "string": "../../config/strict.yaml"}
    assert_failed(sidecar.generate("apps/vllm-agg", api_versions=STOCK_APIS, parameters=[param]), r"strict is on")
    relaxed = sidecar.generate("apps/vllm-agg", api_versions=STOCK_APIS, parameters=[param, {"name": "strict", "string": "false"}])
    assert relaxed.code == 0, relaxed.stderr


# ---------------------------------------------------------------------------------------------
# Item 4: YAML that is not a manifest


def test_a_helm_values_file_in_the_app_folder_is_ignored_with_a_note(sidecar: Sidecar) -> None:
    app = sidecar.repo / "apps" / "vllm-agg"
    (app / "values.yaml").write_text("replicaCount: 2\nimage:\n  repository: nvcr.io/nvidia/ai-dynamo/vllm-runtime\n")
    run = sidecar.generate("apps/vllm-agg", api_versions=STOCK_APIS)
    assert run.code == 0, run.stderr
    assert ("Deployment", "vllm-agg-decode") in by_kind(run.objects)
    assert "apps/vllm-agg/values.yaml: [info]: not a Kubernetes manifest" in run.stderr
    # Argo CD's own directory mode takes the folder the same way: no values.yaml object.
    assert all(o.get("kind") for o in run.objects)


# ---------------------------------------------------------------------------------------------
# Item 3: a kustomization in the app folder


def kustomize_app(sidecar: Sidecar, extra: str = "") -> Path:
    app = sidecar.repo / "apps" / "kustomized"
    app.mkdir()
    shutil.copy(EXAMPLE_REPO / "apps" / "vllm-agg" / "dcds.yaml", app / "dcds.yaml")
    shutil.copy(EXAMPLE_REPO / "apps" / "vllm-agg" / "model-cache.yaml", app / "model-cache.yaml")
    (app / "values.yaml").write_text("not: listed\n")  # not in resources: kustomize never reads it
    (app / "kustomization.yaml").write_text(
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nnamespace: team-k\n"
        "resources:\n  - dcds.yaml\n  - model-cache.yaml\n"
        "patches:\n  - target: {kind: DynamoComponentDeployment, name: vllm-agg-decode}\n"
        "    patch: |-\n      - op: replace\n        path: /spec/replicas\n        value: 3\n" + extra
    )
    sidecar.normalise_modes()
    return app


def assert_kustomized(run: Run) -> None:
    assert run.code == 0, run.stderr
    objects = by_kind(run.objects)
    decode = objects[("Deployment", "vllm-agg-decode")]
    # kustomize ran first: its namespace and patch reached the DCD before it was rendered.
    assert decode["metadata"]["namespace"] == "team-k"
    assert decode["spec"]["replicas"] == 3
    assert main_env(decode)["DYN_NAMESPACE"] == "team-k-vllm-agg-decode"
    assert objects[("PersistentVolumeClaim", "model-cache")]["metadata"]["namespace"] == "team-k"
    assert not [o for o in run.objects if o["kind"] == "DynamoComponentDeployment"]
    assert_valid(run.objects)


def test_an_app_folder_with_a_kustomization_renders_its_kubectl_kustomize_build(sidecar: Sidecar, tmp_path: Path) -> None:
    kubectl = shutil.which("kubectl")
    if kubectl is None:
        pytest.skip("kubectl is not installed")
    kustomize_app(sidecar)
    with_path(sidecar, tmp_path, {"kubectl": kubectl})
    assert_kustomized(sidecar.generate("apps/kustomized", api_versions=STOCK_APIS))


def test_an_app_folder_with_a_kustomization_prefers_standalone_kustomize(sidecar: Sidecar, tmp_path: Path) -> None:
    kustomize = standalone_kustomize()
    kustomize_app(sidecar)
    # A kubectl that would fail proves which tool ran.
    fake = tmp_path / "fake-kubectl"
    fake.write_text("#!/bin/sh\necho kubectl must not run >&2\nexit 7\n")
    fake.chmod(0o755)
    with_path(sidecar, tmp_path, {"kustomize": kustomize, "kubectl": str(fake)})
    assert_kustomized(sidecar.generate("apps/kustomized", api_versions=STOCK_APIS))


def test_a_failing_kustomize_build_fails_the_app_with_its_message(sidecar: Sidecar, tmp_path: Path) -> None:
    kubectl = shutil.which("kubectl")
    if kubectl is None:
        pytest.skip("kubectl is not installed")
    app = kustomize_app(sidecar)
    (app / "kustomization.yaml").write_text("resources:\n  - missing.yaml\n")
    with_path(sidecar, tmp_path, {"kubectl": kubectl})
    assert_failed(sidecar.generate("apps/kustomized"), r"apps/kustomized/kustomization.yaml: \[error\]: kubectl kustomize \. failed \(exit 1\): .*missing.yaml")


def test_a_kustomization_without_any_kustomize_is_an_error(sidecar: Sidecar, tmp_path: Path) -> None:
    kustomize_app(sidecar)
    with_path(sidecar, tmp_path, {})
    assert_failed(sidecar.generate("apps/kustomized"), r"neither kustomize nor kubectl is on PATH")


# ---------------------------------------------------------------------------------------------
# Item 7: objects renamed after the render


def test_rendered_objects_renamed_by_an_overlay_warn_and_fail_under_strict(sidecar: Sidecar, tmp_path: Path) -> None:
    kubectl = shutil.which("kubectl")
    if kubectl is None:
        pytest.skip("kubectl is not installed")
    app = sidecar.repo / "apps" / "overlay"
    app.mkdir()
    (app / "rendered.yaml").write_text(MARKED)
    (app / "kustomization.yaml").write_text("resources: [rendered.yaml]\nnamePrefix: dev-\nnamespace: dev\n")
    sidecar.normalise_modes()
    with_path(sidecar, tmp_path, {"kubectl": kubectl})
    run = sidecar.generate("apps/overlay")
    assert run.code == 0, run.stderr
    assert "[warning] Service/dev-vllm-agg-frontend: rendered as llm/vllm-agg-frontend but now named dev/dev-vllm-agg-frontend" in run.stderr
    strict = sidecar.generate("apps/overlay", parameters=[{"name": "strict", "string": "true"}])
    assert_failed(strict, r"rendered as llm/vllm-agg-frontend but now named dev/dev-vllm-agg-frontend.*strict is on")


# ---------------------------------------------------------------------------------------------
# parameters.dynamic


def run_parameters(sidecar: Sidecar, app_path: str, parameters: Any = None) -> list[dict[str, Any]]:
    """plugin.yaml's dynamic command with the reduced environment Argo CD gives it."""
    spec = yaml.safe_load(PLUGIN_YAML.read_text())["spec"]["parameters"]["dynamic"]
    argv = [*spec["command"], *spec.get("args", [])]
    script = Path(sidecar.env["PATH"].split(":")[0]) / argv[0]
    env = dict(sidecar.env)
    env.update({
        "ARGOCD_APP_NAME": "demo",
        "ARGOCD_APP_SOURCE_REPO_URL": "https://git.example.com/platform/llm.git",
        "ARGOCD_APP_SOURCE_PATH": app_path,
        "ARGOCD_APP_SOURCE_TARGET_REVISION": "main",
    })
    env.update(plugin_environ(parameters))
    started = time.monotonic()
    proc = subprocess.run([str(script), *argv[1:]], cwd=sidecar.repo / app_path, env=env, stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=DEADLINE, check=False)
    assert proc.returncode == 0, proc.stderr
    assert time.monotonic() - started < DEADLINE / 4
    out = json.loads(proc.stdout)
    assert isinstance(out, list)
    return out


def test_dynamic_parameters_announce_the_resources_found_and_the_settings_in_effect(sidecar: Sidecar) -> None:
    out = run_parameters(sidecar, "apps/vllm-agg", parameters=[{"name": "keep-sources", "string": "true"}])
    by_name = {a["name"]: a for a in out}
    resources = by_name["dynamo-resources"]
    assert resources["collectionType"] == "array"
    # each at the line where its document starts
    dcds = (sidecar.repo / "apps" / "vllm-agg" / "dcds.yaml").read_text()
    assert resources["array"] == [
        f"DynamoComponentDeployment/vllm-agg-frontend (apps/vllm-agg/dcds.yaml:{document_start(dcds, 0)})",
        f"DynamoComponentDeployment/vllm-agg-decode (apps/vllm-agg/dcds.yaml:{document_start(dcds, 1)})",
    ]
    settings = by_name["effective-settings"]
    assert settings["collectionType"] == "map"
    assert settings["map"]["keep-sources"] == "true (from the parameter)"
    assert settings["map"]["namespace"] == "the destination namespace"
    assert settings["map"]["strict"] == "false (default)"
    assert settings["map"]["operator configuration"] == "the operator Helm chart defaults"
    assert "problems" not in by_name
    # Every announcement has the ParameterAnnouncement shape: one value holder, string values.
    for announcement in out:
        assert set(announcement) <= {"name", "title", "tooltip", "required", "itemType", "collectionType", "string", "array", "map"}
        holder = announcement[announcement["collectionType"]]
        assert all(isinstance(v, str) for v in (holder.values() if isinstance(holder, dict) else holder))
    # The names are not parameters: set on an Application, they are ignored with a warning.
    run = sidecar.generate("apps/vllm-agg", api_versions=STOCK_APIS, parameters=[{"name": "dynamo-resources", "array": ["x"]}])
    assert run.code == 0, run.stderr
    assert "dynamo-resources: read-only information announced by the plugin" in run.stderr


def test_dynamic_parameters_announce_problems_instead_of_failing(sidecar: Sidecar) -> None:
    out = run_parameters(sidecar, "apps/vllm-agg", parameters=[{"name": "keep-source", "string": "true"}])
    problems = {a["name"]: a for a in out}["problems"]
    assert any("keep-source: unknown parameter" in line for line in problems["array"])


def test_render_command_strict_setting(tmp_path: Path) -> None:
    """The CLI honours the same setting: spec.strict in the --config file."""
    cli = Path(sidecar_cli())
    op = tmp_path / "op.yaml"
    op.write_text(yaml.safe_dump({**OPERATOR_CONFIG, "notAField": 1}))
    dcds = str(EXAMPLE_REPO / "apps" / "vllm-agg" / "dcds.yaml")
    lenient = subprocess.run([str(cli), "render", "--operator-config", str(op), dcds], capture_output=True, text=True, check=False)
    assert lenient.returncode == 0, lenient.stderr
    assert "[warning]" in lenient.stderr
    config = tmp_path / "render.yaml"
    config.write_text("apiVersion: config.dynamo-render.dev/v1alpha1\nkind: DynamoRenderConfig\nmetadata:\n  name: r\nspec:\n  strict: true\n")
    by_setting = subprocess.run([str(cli), "render", "--config", str(config), "--operator-config", str(op), dcds],
                                capture_output=True, text=True, check=False)
    assert by_setting.returncode == 1 and by_setting.stdout == "", by_setting.stderr
    assert "strict is on" in by_setting.stderr


def sidecar_cli() -> str:
    import sys

    return str(Path(sys.executable).with_name("dynamo-render"))
