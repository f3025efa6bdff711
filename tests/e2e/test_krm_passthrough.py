"""Pass-through items come back as they came: the real tools show no difference from a no-op function.

The docs promise that every item the KRM function does not render passes through untouched.
What "untouched" can mean is fixed by the orchestrators: kpt and kustomize serialize the items
themselves, before and after the function, so the reference is the same pipeline run with a
function that echoes its input (``cat``). Against it, the pass-through text must be byte for
byte the same: flow style, comments (which kpt copies back by item id), key order, quoting,
scalar spelling. Where kpt itself keeps a file byte for byte, the file must also be unchanged.

Run with the real tools: kpt (``fn eval --exec``, ``fn render``), standalone kustomize
(``build --enable-alpha-plugins --enable-exec``) and kubectl (the legacy exec plugin).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.e2e.test_krm import BIN, KPTFILE, PLUGIN_HOME, _run, env  # noqa: F401 (env is a fixture)
from tests.tools import standalone_kustomize

# Every form kpt itself writes back byte for byte: flow mappings and sequences (nested, in a
# block sequence), head, line and foot comments, single and double quotes, plain scalars that
# other YAML readers would type, literal blocks, key order that is not sorted, unicode.
PASSTHROUGH = """\
# head comment of the document
apiVersion: v1
kind: ConfigMap
metadata: {name: flow-settings, namespace: llm, labels: {team: ml}} # line comment
data:
  # comment above a key
  zeta: first-key-stays-first
  quoted: "yes"
  single: 'on'
  exponent: 1e3
  date: 2024-01-01
  octal: 0o17
  list: "[1, 2]"
  literal: |
    line one
      indented line
  unicode: 名前 ✓
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: hand-written
  namespace: llm
spec:
  selector: {matchLabels: {app: hand-written}}
  template:
    metadata:
      labels: {app: hand-written}
    spec:
      containers:
      - {name: c, image: "registry.example/app:1", args: [--port, "8080"]} # the only container
      tolerations: [{key: gpu, operator: Exists}]
"""

DCD = """\
apiVersion: nvidia.com/v1beta1
kind: DynamoComponentDeployment
metadata:
  name: front
  namespace: llm
spec:
  type: frontend
  podTemplate:
    spec:
      containers:
      - name: main
        image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.3.0
"""


def _package(root: Path, name: str, with_dcd: bool) -> Path:
    pkg = root / name
    pkg.mkdir()
    (pkg / "Kptfile").write_text(KPTFILE.format(name=name))
    (pkg / "settings.yaml").write_text(PASSTHROUGH)
    if with_dcd:
        (pkg / "dcd.yaml").write_text(DCD)
    return pkg


def _cat() -> str:
    cat = shutil.which("cat")
    assert cat, "cat is needed as the no-op reference function"
    return cat


@pytest.mark.parametrize("with_dcd", [True, False], ids=["beside-a-dcd", "alone"])
def test_kpt_fn_eval_leaves_pass_through_files_as_a_no_op_function_does(env: dict[str, str], tmp_path: Path, with_dcd: bool) -> None:
    reference = _package(tmp_path, "reference", with_dcd)
    done = _run(["kpt", "fn", "eval", str(reference), "--exec", _cat()], env)
    assert done.returncode == 0, done.stderr
    # kpt itself round-trips this text byte for byte: the promise can be checked against the file
    assert (reference / "settings.yaml").read_text() == PASSTHROUGH

    pkg = _package(tmp_path, "pkg", with_dcd)
    done = _run(["kpt", "fn", "eval", str(pkg), "--exec", str(BIN / "dynamo-render-krm")], env)
    assert done.returncode == 0, done.stderr
    assert (pkg / "settings.yaml").read_text() == PASSTHROUGH
    if with_dcd:
        assert "kind: DynamoComponentDeployment" not in (pkg / "dcd.yaml").read_text()


def test_kpt_fn_render_leaves_pass_through_files_untouched(env: dict[str, str], tmp_path: Path) -> None:
    pkg = _package(tmp_path, "pkg", with_dcd=True)
    (pkg / "Kptfile").write_text(KPTFILE.format(name="pkg") + "pipeline:\n  mutators:\n  - exec: dynamo-render-krm\n")
    done = _run(["kpt", "fn", "render", str(pkg), "--allow-exec"], env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (pkg / "settings.yaml").read_text() == PASSTHROUGH


def _kustomization(root: Path, name: str, function: str) -> Path:
    folder = root / name
    folder.mkdir()
    (folder / "settings.yaml").write_text(PASSTHROUGH)
    (folder / "dcd.yaml").write_text(DCD)
    (folder / "fn.yaml").write_text(
        "apiVersion: config.dynamo-render.dev/v1alpha1\nkind: DynamoRenderConfig\nmetadata:\n  name: render\n"
        f"  annotations:\n    config.kubernetes.io/function: |\n      exec:\n        path: {function}\n"
    )
    (folder / "kustomization.yaml").write_text("resources: [settings.yaml, dcd.yaml]\ntransformers: [fn.yaml]\n")
    return folder


def _documents_of(text: str, names: tuple[str, ...]) -> list[str]:
    """The output documents (as text, without the line break before the next one) that hold one of the given names."""
    return [doc.rstrip("\n") for doc in text.split("\n---\n") if any(f"name: {n}" in doc or f"name: {n}," in doc for n in names)]


def test_kustomize_exec_function_passes_items_through_as_a_no_op_function_does(env: dict[str, str], tmp_path: Path) -> None:
    kustomize = standalone_kustomize()
    reference = _run([kustomize, "build", "--enable-alpha-plugins", "--enable-exec", str(_kustomization(tmp_path, "reference", _cat()))], env)
    assert reference.returncode == 0, reference.stderr
    ours = _run([kustomize, "build", "--enable-alpha-plugins", "--enable-exec", str(_kustomization(tmp_path, "ours", str(BIN / "dynamo-render-krm")))], env)
    assert ours.returncode == 0, ours.stderr
    names = ("flow-settings", "hand-written")
    expected = _documents_of(reference.stdout, names)
    assert len(expected) == 2
    assert _documents_of(ours.stdout, names) == expected


def test_kubectl_kustomize_legacy_plugin_passes_items_through_as_kustomize_alone_does(env: dict[str, str], tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "settings.yaml").write_text(PASSTHROUGH)
    (plain / "kustomization.yaml").write_text("resources: [settings.yaml]\n")
    reference = _run(["kubectl", "kustomize", str(plain)], env)
    assert reference.returncode == 0, reference.stderr

    folder = tmp_path / "legacy"
    folder.mkdir()
    (folder / "settings.yaml").write_text(PASSTHROUGH)
    (folder / "dcd.yaml").write_text(DCD)
    (folder / "render.yaml").write_text(
        "apiVersion: config.dynamo-render.dev/v1alpha1\nkind: DynamoRenderConfig\nmetadata:\n  name: render\nspec: {}\n"
    )
    (folder / "kustomization.yaml").write_text("resources: [settings.yaml, dcd.yaml]\ntransformers: [render.yaml]\n")
    done = _run(["kubectl", "kustomize", "--enable-alpha-plugins", str(folder)], {**env, "KUSTOMIZE_PLUGIN_HOME": str(PLUGIN_HOME)})
    assert done.returncode == 0, done.stderr
    names = ("flow-settings", "hand-written")
    assert _documents_of(done.stdout, names) == _documents_of(reference.stdout, names)
