"""Strictness real apps can adopt, in every front end, with the real tools.

The app is argocd/example-repo/apps/llama-secrets: a worker whose pods name a Hugging Face token
Secret, a model cache PVC and a registry pull Secret that are kept out of Git on purpose. Its
``render-settings.yaml`` sets ``strict: true`` and declares the three under ``existingObjects``.

- ``render``: ``--config``, ``--strict=CODES``;
- the Argo CD plugin, run as the cmp-server runs it: the ``config`` parameter, ``strict`` as a
  parameter and as ``plugin.env``;
- the KRM function: ``kpt fn eval -- strict=...`` (a ConfigMap functionConfig), and standalone
  ``kustomize build --enable-exec`` with the settings as the functionConfig.

Each passes with the declarations and fails, naming the reference, when one is taken away or a
pod names an undeclared object.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.e2e.test_cmp import EXAMPLE_REPO, Sidecar, assert_failed
from tests.e2e.test_krm import BIN, _docs, _run, env  # noqa: F401 (env is a fixture)
from tests.tools import standalone_kustomize

APP = EXAMPLE_REPO / "apps" / "llama-secrets"
SETTINGS = yaml.safe_load((APP / "render-settings.yaml").read_text())
MISSING = [
    "must exist in the cluster: Secret/ngc-pull",
    "must exist in the cluster: PersistentVolumeClaim/model-cache",
    "must exist in the cluster: Secret/hf-token-llama",
]


def settings_file(path: Path, **spec: Any) -> Path:
    """The app's settings with ``spec`` keys replaced (None removes one)."""
    doc = yaml.safe_load((APP / "render-settings.yaml").read_text())
    for key, value in spec.items():
        if value is None:
            doc["spec"].pop(key, None)
        else:
            doc["spec"][key] = value
    path.write_text(yaml.safe_dump(doc))
    return path


def render(*args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-c", "from plugin.console import main; main()", "render", "-n", "llm", *args]
    return subprocess.run(command, capture_output=True, text=True, check=False, timeout=120)


def test_the_example_settings_are_what_the_docs_say() -> None:
    assert SETTINGS["spec"]["strict"] is True
    assert SETTINGS["spec"]["existingObjects"] == [
        {"kind": "Secret", "name": "hf-token-*"}, {"kind": "Secret", "name": "ngc-pull"}, {"kind": "PersistentVolumeClaim", "name": "model-cache"},
    ]


# ---------------------------------------------------------------------------------------------
# render


def test_render_the_example_passes_under_strict_with_its_declarations() -> None:
    done = render("--config", str(APP / "render-settings.yaml"), str(APP / "dcds.yaml"))
    assert done.returncode == 0, done.stderr
    assert "[warning]" not in done.stderr and "[error]" not in done.stderr
    assert {"Deployment/llama-decode", "Deployment/llama-frontend"} <= {f"{d['kind']}/{d['metadata']['name']}" for d in _docs(done.stdout)}


def test_render_without_the_declarations_fails_under_strict(tmp_path: Path) -> None:
    done = render("--config", str(settings_file(tmp_path / "s.yaml", existingObjects=None)), str(APP / "dcds.yaml"))
    assert done.returncode == 1 and done.stdout == ""
    for message in MISSING:
        assert f"[error] DynamoComponentDeployment/llama-decode: {message}" in done.stderr
    assert done.stderr.count("(a warning; strict is on)") == 3


def test_render_an_undeclared_missing_reference_still_fails(tmp_path: Path) -> None:
    existing = [{"kind": "Secret", "name": "hf-token-*"}, {"kind": "PersistentVolumeClaim", "name": "model-cache"}]
    done = render("--config", str(settings_file(tmp_path / "s.yaml", existingObjects=existing)), str(APP / "dcds.yaml"))
    assert done.returncode == 1
    assert "[error] DynamoComponentDeployment/llama-decode: must exist in the cluster: Secret/ngc-pull" in done.stderr
    assert "hf-token-llama" not in done.stderr and "model-cache" not in done.stderr


@pytest.mark.parametrize(
    "flag, code",
    [("--strict=reference", 1), ("--strict=ignored,clash", 0), ("--strict=unknown-field,ignored,clash,reference", 1), ("--strict", 1)],
)
def test_render_strict_codes_on_the_command_line(flag: str, code: int) -> None:
    done = render(flag, str(APP / "dcds.yaml"))
    assert done.returncode == code, done.stderr
    severity = "[error]" if code else "[warning]"
    for message in MISSING:
        assert f"{severity} DynamoComponentDeployment/llama-decode: {message}" in done.stderr


def test_render_strict_codes_beat_the_settings_file(tmp_path: Path) -> None:
    """--strict=ignored over the file's strict: true: the reference warnings stay warnings."""
    done = render("--strict=ignored", "--config", str(settings_file(tmp_path / "s.yaml", existingObjects=None)), str(APP / "dcds.yaml"))
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("[warning]") == 3


def test_render_strict_flag_before_a_path_is_still_the_switch() -> None:
    done = render("--strict", str(APP / "dcds.yaml"))
    assert done.returncode == 1 and "strict is on)" in done.stderr


def test_render_refuses_an_unknown_code_as_a_usage_error() -> None:
    done = render("--strict=refrence", str(APP / "dcds.yaml"))
    assert done.returncode == 2
    assert "Invalid value for '--strict': unknown result code \"refrence\"" in done.stderr


# ---------------------------------------------------------------------------------------------
# The Argo CD plugin


@pytest.fixture
def sidecar(tmp_path: Path) -> Sidecar:
    return Sidecar(tmp_path, EXAMPLE_REPO)


APP_PATH = "apps/llama-secrets"
CONFIG = [{"name": "config", "string": "render-settings.yaml"}]


def test_cmp_the_example_app_renders_under_strict(sidecar: Sidecar) -> None:
    run = sidecar.generate(APP_PATH, parameters=CONFIG)
    assert run.code == 0, run.stderr
    assert "[warning]" not in run.stderr
    kinds = {(o["kind"], o["metadata"]["name"]) for o in run.objects}
    assert ("Deployment", "llama-decode") in kinds
    assert all(o["kind"] != "DynamoRenderConfig" for o in run.objects)


def test_cmp_without_the_declarations_fails(sidecar: Sidecar) -> None:
    settings_file(sidecar.repo / APP_PATH / "render-settings.yaml", existingObjects=None)
    run = sidecar.generate(APP_PATH, parameters=CONFIG)
    assert_failed(run, *MISSING, r"strict is on\)")


def test_cmp_strict_parameter_with_codes(sidecar: Sidecar) -> None:
    # No settings file: the parameter picks the codes.
    (sidecar.repo / APP_PATH / "render-settings.yaml").unlink()
    failed = sidecar.generate(APP_PATH, parameters=[{"name": "strict", "string": "unknown-field,ignored,clash,reference"}])
    assert_failed(failed, *MISSING, r"strict is on for reference\)")
    passed = sidecar.generate(APP_PATH, parameters=[{"name": "strict", "string": "unknown-field,ignored,clash"}])
    assert passed.code == 0, passed.stderr
    # the three missing references, and the namespace-shared objects nobody said this app owns
    assert passed.stderr.count("[warning]") == 4
    assert passed.stderr.count("[warning]: emits objects every graph of namespace") == 1


def test_cmp_strict_plugin_env_with_codes_and_the_declarations(sidecar: Sidecar) -> None:
    settings_file(sidecar.repo / APP_PATH / "render-settings.yaml", strict=None)
    run = sidecar.generate(APP_PATH, parameters=CONFIG, plugin_env={"DYNAMO_RENDER_STRICT": "reference"})
    assert run.code == 0, run.stderr
    assert "[warning]" not in run.stderr


def test_cmp_strict_parameter_refuses_an_unknown_code(sidecar: Sidecar) -> None:
    run = sidecar.generate(APP_PATH, parameters=[{"name": "strict", "string": "reference,ignord"}])
    assert_failed(run, r'\[error\] strict: unknown result code "ignord" \(valid: true, false, or codes of ')


# ---------------------------------------------------------------------------------------------
# The KRM function


def _package(tmp_path: Path) -> Path:
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    shutil.copy(APP / "dcds.yaml", pkg / "dcds.yaml")
    return pkg


def test_kpt_fn_eval_strict_codes(env: dict[str, str], tmp_path: Path) -> None:
    pkg = _package(tmp_path)
    failed = _run(["kpt", "fn", "eval", str(pkg), "--exec", "dynamo-render-krm", "--", "namespace=llm", "strict=ignored,reference"], env)
    assert failed.returncode != 0
    for message in MISSING:
        assert f"[error] DynamoComponentDeployment/llama-decode: {message}" in failed.stderr
    passed = _run(["kpt", "fn", "eval", str(pkg), "--exec", "dynamo-render-krm", "--", "namespace=llm", "strict=ignored,clash"], env)
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "Deployment" in (pkg / "dcds.yaml").read_text()


def test_kpt_fn_eval_refuses_an_unknown_code(env: dict[str, str], tmp_path: Path) -> None:
    pkg = _package(tmp_path)
    done = _run(["kpt", "fn", "eval", str(pkg), "--exec", "dynamo-render-krm", "--", "strict=refrence"], env)
    assert done.returncode != 0
    assert 'data.strict: unknown result code "refrence"' in done.stdout + done.stderr


def _kustomization(tmp_path: Path, spec: dict[str, Any]) -> Path:
    root = tmp_path / "app"
    root.mkdir(parents=True)
    shutil.copy(APP / "dcds.yaml", root / "dcds.yaml")
    function = {
        "apiVersion": "config.dynamo-render.dev/v1alpha1", "kind": "DynamoRenderConfig",
        "metadata": {"name": "render", "annotations": {"config.kubernetes.io/function": "exec:\n  path: dynamo-render-krm\n"}},
        "spec": {"namespace": "llm", **spec},
    }
    (root / "render.yaml").write_text(yaml.safe_dump(function))
    (root / "kustomization.yaml").write_text("resources: [dcds.yaml]\ntransformers: [render.yaml]\n")
    return root


def test_kustomize_build_with_the_settings_as_function_config(env: dict[str, str], tmp_path: Path) -> None:
    kustomize = standalone_kustomize()
    spec = {key: SETTINGS["spec"][key] for key in ("strict", "existingObjects")}
    passed = _run([kustomize, "build", "--enable-alpha-plugins", "--enable-exec", str(_kustomization(tmp_path / "ok", spec))], env)
    assert passed.returncode == 0, passed.stderr
    assert "[warning]" not in passed.stderr
    assert any(d["kind"] == "Deployment" and d["metadata"]["name"] == "llama-decode" for d in _docs(passed.stdout))
    failed = _run([kustomize, "build", "--enable-alpha-plugins", "--enable-exec", str(_kustomization(tmp_path / "bad", {"strict": ["reference"]}))], env)
    assert failed.returncode != 0
    for message in MISSING:
        assert message in failed.stderr
