"""The real kpt and kubectl run dynamo-render as a KRM transformer.

- ``kpt fn eval --exec dynamo-render-krm`` (imperative, ``-- key=value`` ConfigMap config);
- ``kpt fn render --allow-exec`` with a Kptfile pipeline (the shipped example package);
- ``kubectl kustomize --enable-alpha-plugins`` with the shipped legacy exec plugin layout, the
  one local executable path kubectl runs (it silently skips exec KRM functions).

The console scripts are the ones installed beside the Python running pytest; that directory
goes first on the tools' PATH. A missing kpt or kubectl fails these tests: they are required.

Expected rendered objects come from the operator's own golden (internal/controller/testdata/
dcd/deployment, restated in tests/golden/upstream/dcd-deployment), and every front end must
produce the same objects as ``dynamo-render render`` for the same input.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.golden_match import match_stream
from tests.schemas import validate_object

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
EXAMPLES = ROOT / "kustomize" / "examples"
PLUGIN_HOME = ROOT / "kustomize" / "plugin"
GOLDEN = ROOT / "tests" / "golden" / "upstream" / "dcd-deployment"
GOLDEN_NAMESPACE = "clusterenv-golden"

# Bookkeeping annotations orchestrators add and strip; not part of the rendered objects.
FILE_ANNOTATIONS = (
    "config.kubernetes.io/path",
    "config.kubernetes.io/index",
    "internal.config.kubernetes.io/path",
    "internal.config.kubernetes.io/index",
    "internal.config.kubernetes.io/seqindent",
)
# The KRM function's ownership marker (plugin.ownership); the CLI's output has none.
MARKER_ANNOTATIONS = ("dynamo-render.dev/rendered-from", "dynamo-render.dev/rendered-as", "dynamo-render.dev/rendered-digest")

# A pass-through object whose text must survive byte for byte (kpt restores the comments).
PASSTHROUGH = """\
# settings the model server reads
apiVersion: v1
kind: ConfigMap
metadata:
  name: model-settings # inline comment
  annotations:
    team.example/owner: ml-platform
data:
  zeta: first-key-stays-first
  quoted: "yes"
  date: 2024-01-01
  exponent: 1e3
"""

INVALID_DCD = """\
apiVersion: nvidia.com/v1beta1
kind: DynamoComponentDeployment
metadata:
  name: broken
spec:
  backendFramework: vllm
  type: decode
  replicas: -1
  podTemplate:
    spec:
      containers:
        - name: main
          image: registry.example/dynamo-worker:test
"""

KPTFILE = """\
apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: {name}
  annotations:
    config.kubernetes.io/local-config: "true"
"""


def _tool(name: str) -> str:
    path = shutil.which(name)
    assert path, f"{name} is required for the KRM end-to-end tests and was not found on PATH (these tests are never skipped)"
    return path


@pytest.fixture(scope="module")
def env() -> dict[str, str]:
    for script in ("dynamo-render-krm", "dynamo-render"):
        assert (BIN / script).is_file(), f"console script {script} missing beside {sys.executable}; pip install -e . first"
    _tool("kpt")
    _tool("kubectl")
    return {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}


def _run(args: list[str], env: dict[str, str], cwd: Path | None = None, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, env=env, cwd=cwd, input=stdin, capture_output=True, text=True, timeout=300)


def _docs(text: str) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all(text) if d is not None]


def _strip_file_annotations(obj: dict[str, Any], keep_marker: bool = False) -> dict[str, Any]:
    meta = dict(obj.get("metadata") or {})
    stripped = FILE_ANNOTATIONS if keep_marker else FILE_ANNOTATIONS + MARKER_ANNOTATIONS
    annotations = {k: v for k, v in (meta.get("annotations") or {}).items() if k not in stripped}
    if annotations:
        meta["annotations"] = annotations
    else:
        meta.pop("annotations", None)
    return {**obj, "metadata": meta}


def _ids(objects: list[dict[str, Any]]) -> list[str]:
    return [f"{o['kind']}/{o['metadata']['name']}" for o in objects]


def _cli_render(path: Path, env: dict[str, str], *flags: str) -> list[dict[str, Any]]:
    done = _run([str(BIN / "dynamo-render"), "render", *flags, str(path)], env)
    assert done.returncode == 0, done.stderr
    return _docs(done.stdout)


def _by_id(objects: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Objects by identity, without file annotations and the ownership marker."""
    return {f"{o['apiVersion']}/{o['kind']}/{o['metadata'].get('namespace', '')}/{o['metadata']['name']}": _strip_file_annotations(o) for o in objects}


def _assert_golden_deployment(objects: list[dict[str, Any]]) -> None:
    expected = [d for d in yaml.safe_load_all((GOLDEN / "output.yaml").read_text()) if d is not None]
    problems = match_stream(expected, [_strip_file_annotations(o) for o in objects], partial=True)
    assert not problems, "rendered Deployment differs from the operator golden:\n" + "\n".join(problems[:40])


def _assert_schema_valid(objects: list[dict[str, Any]]) -> None:
    problems = [f"{o['kind']}/{o['metadata']['name']}: {p}" for o in objects for p in validate_object(o)]
    assert not problems, "\n".join(problems)


def _package(root: Path, name: str, files: dict[str, str]) -> Path:
    pkg = root / name
    pkg.mkdir()
    (pkg / "Kptfile").write_text(KPTFILE.format(name=name))
    for relative, text in files.items():
        (pkg / relative).parent.mkdir(parents=True, exist_ok=True)
        (pkg / relative).write_text(text)
    return pkg


def _snapshot(directory: Path) -> dict[str, bytes]:
    return {str(p.relative_to(directory)): p.read_bytes() for p in sorted(directory.rglob("*")) if p.is_file()}


# ---------------------------------------------------------------------------------------------
# kpt fn eval --exec


def test_kpt_fn_eval_renders_the_upstream_golden_dcd_in_place(env: dict[str, str], tmp_path: Path) -> None:
    source = (GOLDEN / "input.yaml").read_text()
    pkg = _package(tmp_path, "pkg", {"deploy/app.yaml": source + "---\n" + PASSTHROUGH})
    kptfile = (pkg / "Kptfile").read_bytes()
    done = _run(["kpt", "fn", "eval", str(pkg), "--exec", "dynamo-render-krm", "--", f"namespace={GOLDEN_NAMESPACE}"], env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "[PASS]" in done.stdout + done.stderr

    text = (pkg / "deploy" / "app.yaml").read_text()
    objects = _docs(text)
    cli = _cli_render(GOLDEN / "input.yaml", env, "--namespace", GOLDEN_NAMESPACE)
    # The first rendered object takes the DCD's slot, the ConfigMap keeps its own, the rest follow.
    assert _ids(objects) == [_ids(cli)[0], "ConfigMap/model-settings", *_ids(cli)[1:]]
    assert {"Deployment/deployment-manifest", "Service/deployment-manifest"} <= set(_ids(cli))
    _assert_golden_deployment(objects)
    _assert_schema_valid([o for o in objects if o["kind"] != "ConfigMap"])
    # The DCD is gone, what it renders sits in its file, the other object is byte-identical.
    assert "kind: DynamoComponentDeployment" not in text
    assert PASSTHROUGH in text
    assert (pkg / "Kptfile").read_bytes() == kptfile
    assert sorted(_snapshot(pkg)) == ["Kptfile", "deploy/app.yaml"]
    # Same objects as the CLI renders for the same DCD.
    # (the ownership marker included: every front end writes it the same way)
    assert [_strip_file_annotations(o, keep_marker=True) for o in objects if o["kind"] != "ConfigMap"] == cli
    # Each rendered object names its source (the ownership marker a re-run relies on).
    owners = {(o["metadata"].get("annotations") or {}).get("dynamo-render.dev/rendered-from") for o in objects if o["kind"] != "ConfigMap"}
    assert owners == {f"DynamoComponentDeployment/{GOLDEN_NAMESPACE}/deployment-manifest"}


def test_kpt_fn_eval_renders_a_multinode_dcd_as_a_leader_worker_set(env: dict[str, str], tmp_path: Path) -> None:
    """The operator's dcd/lws golden: facts its expected LeaderWorkerSet pins down."""
    upstream = ROOT / "tests" / "data" / "upstream" / "dcd" / "lws"
    pkg = _package(tmp_path, "pkg", {"lws.yaml": (upstream / "input.yaml").read_text()})
    done = _run(["kpt", "fn", "eval", str(pkg), "--exec", "dynamo-render-krm", "--", f"namespace={GOLDEN_NAMESPACE}"], env)
    assert done.returncode == 0, done.stdout + done.stderr
    objects = _docs((pkg / "lws.yaml").read_text())
    lws = next(o for o in objects if o["kind"] == "LeaderWorkerSet")
    [want] = [d for d in yaml.safe_load_all((upstream / "output.yaml").read_text()) if d is not None]
    assert lws["metadata"]["name"] == want["metadata"]["name"] == "lws-manifest-0"
    for key in ("replicas", "startupPolicy"):
        assert lws["spec"][key] == want["spec"][key], key
    template, want_template = lws["spec"]["leaderWorkerTemplate"], want["spec"]["leaderWorkerTemplate"]
    assert template["size"] == want_template["size"]
    for role in ("leaderTemplate", "workerTemplate"):
        assert template[role]["metadata"]["labels"] == want_template[role]["metadata"]["labels"], role
    _assert_schema_valid(objects)
    cli = _cli_render(upstream / "input.yaml", env, "--namespace", GOLDEN_NAMESPACE)
    assert [_strip_file_annotations(o, keep_marker=True) for o in objects] == cli


def test_kpt_fn_eval_renders_a_graph_deployment_like_the_cli(env: dict[str, str], tmp_path: Path) -> None:
    """A DynamoGraphDeployment (the operator's dgd/components golden input) goes the same way."""
    source = ROOT / "tests" / "data" / "upstream" / "dgd" / "components" / "input.yaml"
    pkg = _package(tmp_path, "pkg", {"graph.yaml": source.read_text()})
    done = _run(["kpt", "fn", "eval", str(pkg), "--exec", "dynamo-render-krm", "--", f"namespace={GOLDEN_NAMESPACE}"], env)
    assert done.returncode == 0, done.stdout + done.stderr
    objects = [_strip_file_annotations(o) for o in _docs((pkg / "graph.yaml").read_text())]
    assert "DynamoGraphDeployment" not in {o["kind"] for o in objects}
    cli = _cli_render(source, env, "--namespace", GOLDEN_NAMESPACE)
    assert _by_id(objects) == _by_id(cli)
    assert len(objects) == len(cli)


def test_kpt_fn_eval_example(env: dict[str, str], tmp_path: Path) -> None:
    """The documented command on the shipped example package."""
    pkg = tmp_path / "kpt-eval"
    shutil.copytree(EXAMPLES / "kpt-eval", pkg)
    done = _run(["kpt", "fn", "eval", str(pkg), "--exec", "dynamo-render-krm", "--", "namespace=llm"], env)
    assert done.returncode == 0, done.stdout + done.stderr
    objects = _docs((pkg / "dcds.yaml").read_text())
    assert _by_id(objects) == _by_id(_cli_render(EXAMPLES / "kpt-eval" / "dcds.yaml", env))


def test_kpt_fn_eval_without_dynamo_resources_changes_nothing(env: dict[str, str], tmp_path: Path) -> None:
    pkg = _package(tmp_path, "pkg", {"settings.yaml": PASSTHROUGH, "more/other.yaml": PASSTHROUGH.replace("model-settings", "other")})
    before = _snapshot(pkg)
    done = _run(["kpt", "fn", "eval", str(pkg), "--exec", "dynamo-render-krm"], env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert _snapshot(pkg) == before


def test_kpt_fn_eval_invalid_dcd_fails_with_results_and_leaves_the_package_alone(env: dict[str, str], tmp_path: Path) -> None:
    pkg = _package(tmp_path, "pkg", {"app.yaml": INVALID_DCD + "---\n" + PASSTHROUGH})
    before = _snapshot(pkg)
    results = tmp_path / "results"
    results.mkdir()
    done = _run(["kpt", "fn", "eval", str(pkg), "--exec", "dynamo-render-krm", "--results-dir", str(results)], env)
    output = done.stdout + done.stderr
    assert done.returncode != 0, output
    assert "[FAIL]" in output
    # kpt shows our stderr line and our result; kpt sends items, not file text: the document index, never a bare number
    assert "app.yaml (doc 0): [error] DynamoComponentDeployment/broken spec.replicas: must be >= 0 (got -1)" in output
    assert "[error] nvidia.com/v1beta1/DynamoComponentDeployment/broken spec.replicas: must be >= 0 (got -1)" in output
    assert _snapshot(pkg) == before
    report = yaml.safe_load((results / "results.yaml").read_text())
    [item] = report["items"]
    assert item["exitCode"] == 1
    assert item["results"] == [
        {
            "message": "must be >= 0 (got -1)",
            "severity": "error",
            "resourceRef": {"apiVersion": "nvidia.com/v1beta1", "kind": "DynamoComponentDeployment", "name": "broken"},
            "field": {"path": "spec.replicas"},
            "file": {"path": "app.yaml"},  # kpt omits index 0
            "tags": {"code": "schema"},
        }
    ]


def test_kpt_fn_eval_bad_function_config_fails(env: dict[str, str], tmp_path: Path) -> None:
    pkg = _package(tmp_path, "pkg", {"app.yaml": (GOLDEN / "input.yaml").read_text()})
    before = _snapshot(pkg)
    done = _run(["kpt", "fn", "eval", str(pkg), "--exec", "dynamo-render-krm", "--", "keepSource=true"], env)
    output = done.stdout + done.stderr
    assert done.returncode != 0, output
    # kpt's rendering of our result, and our stderr line (which kpt prints Go-quoted).
    assert '[error] v1/ConfigMap/function-input data.keepSource: unknown key "keepSource" (valid: namespace, operatorConfigPath, keepSources,' in output
    assert '[error] ConfigMap/function-input data.keepSource: unknown key \\"keepSource\\"' in output
    assert _snapshot(pkg) == before


# ---------------------------------------------------------------------------------------------
# kpt fn render --allow-exec (Kptfile pipeline)


def test_kpt_fn_render_with_the_example_pipeline(env: dict[str, str], tmp_path: Path) -> None:
    pkg = tmp_path / "kpt-render"
    shutil.copytree(EXAMPLES / "kpt-render", pkg)
    kptfile, config = (pkg / "Kptfile").read_bytes(), (pkg / "render-config.yaml").read_bytes()
    done = _run(["kpt", "fn", "render", str(pkg), "--allow-exec"], env)
    assert done.returncode == 0, done.stdout + done.stderr

    objects = _docs((pkg / "dcds.yaml").read_text())
    assert {"Deployment/agg-frontend", "Deployment/agg-decode", "ConfigMap/model-settings", "Service/agg-frontend"} <= set(_ids(objects))
    # The example follows the docs' advice for declarative pipelines (keepSources: true): the DCDs
    # stay in the package, marked local-config so that kpt live apply never sends them.
    sources = [o for o in objects if o["kind"] == "DynamoComponentDeployment"]
    assert [o["metadata"]["name"] for o in sources] == ["agg-frontend", "agg-decode"]
    assert all(o["metadata"]["annotations"]["config.kubernetes.io/local-config"] == "true" for o in sources)
    objects = [o for o in objects if o["kind"] != "DynamoComponentDeployment"]
    _assert_schema_valid([o for o in objects if o["kind"] != "ConfigMap"])
    assert "# Any other object passes through untouched." in (pkg / "dcds.yaml").read_text()
    assert (pkg / "Kptfile").read_bytes() == kptfile
    assert (pkg / "render-config.yaml").read_bytes() == config
    cli = _cli_render(EXAMPLES / "kpt-render" / "dcds.yaml", env)
    assert _by_id(objects) == _by_id(cli)

    # Rendering again is a no-op: the same sources render the same objects, replaced in place.
    after_first = _snapshot(pkg)
    again = _run(["kpt", "fn", "render", str(pkg), "--allow-exec"], env)
    assert again.returncode == 0, again.stdout + again.stderr
    assert _snapshot(pkg) == after_first


def test_kpt_fn_render_keep_sources_is_idempotent(env: dict[str, str], tmp_path: Path) -> None:
    pkg = tmp_path / "kpt-render"
    shutil.copytree(EXAMPLES / "kpt-render", pkg)
    config = pkg / "render-config.yaml"
    assert "keepSources: true" in config.read_text()
    first = _run(["kpt", "fn", "render", str(pkg), "--allow-exec"], env)
    assert first.returncode == 0, first.stdout + first.stderr
    after_first = _snapshot(pkg)
    kinds = [o["kind"] for o in _docs(after_first["dcds.yaml"].decode())]
    assert kinds.count("DynamoComponentDeployment") == 2 and kinds.count("Deployment") == 2
    second = _run(["kpt", "fn", "render", str(pkg), "--allow-exec", "--truncate-output=false"], env)
    assert second.returncode == 0, second.stdout + second.stderr
    # Last run's output carries the ownership marker: replaced in place, nothing pruned.
    assert "pruned" not in second.stdout + second.stderr
    assert _snapshot(pkg) == after_first


def test_kpt_fn_render_invalid_dcd_fails_and_writes_nothing(env: dict[str, str], tmp_path: Path) -> None:
    pkg = tmp_path / "kpt-render"
    shutil.copytree(EXAMPLES / "kpt-render", pkg)
    (pkg / "broken.yaml").write_text(INVALID_DCD)
    before = _snapshot(pkg)
    done = _run(["kpt", "fn", "render", str(pkg), "--allow-exec"], env)
    output = done.stdout + done.stderr
    assert done.returncode != 0, output
    assert "broken.yaml (doc 0): [error] DynamoComponentDeployment/broken spec.replicas: must be >= 0 (got -1)" in output
    assert _snapshot(pkg) == before


# ---------------------------------------------------------------------------------------------
# kubectl kustomize --enable-alpha-plugins with the legacy exec plugin


def _kustomize(directory: Path, env: dict[str, str], plugin_home: Path = PLUGIN_HOME) -> subprocess.CompletedProcess[str]:
    return _run(["kubectl", "kustomize", "--enable-alpha-plugins", str(directory)], {**env, "KUSTOMIZE_PLUGIN_HOME": str(plugin_home)})


def test_kubectl_kustomize_legacy_plugin_example(env: dict[str, str]) -> None:
    done = _kustomize(EXAMPLES / "kustomize-legacy", env)
    assert done.returncode == 0, done.stderr
    objects = _docs(done.stdout)
    assert "kind: DynamoComponentDeployment" not in done.stdout
    cli = _cli_render(EXAMPLES / "kustomize-legacy" / "dcds.yaml", env)
    assert _by_id(objects) == _by_id(cli)
    _assert_schema_valid([o for o in objects if o["kind"] != "ConfigMap"])


def test_standalone_kustomize_exec_function_example(env: dict[str, str]) -> None:
    """The documented command of kustomize/README.md, "Standalone kustomize: exec KRM function"."""
    from tests.tools import standalone_kustomize

    done = _run([standalone_kustomize(), "build", "--enable-alpha-plugins", "--enable-exec", str(EXAMPLES / "kustomize-exec")], env)
    assert done.returncode == 0, done.stderr
    assert "kind: DynamoComponentDeployment" not in done.stdout
    objects = _docs(done.stdout)
    assert _by_id(objects) == _by_id(_cli_render(EXAMPLES / "kustomize-exec" / "dcds.yaml", env))
    _assert_schema_valid(objects)


def test_kubectl_kustomize_transforms_run_before_rendering(env: dict[str, str], tmp_path: Path) -> None:
    """namespace: in the kustomization reaches the DCD first; the golden Deployment follows."""
    (tmp_path / "dcd.yaml").write_text((GOLDEN / "input.yaml").read_text())
    shutil.copy(EXAMPLES / "kustomize-legacy" / "render.yaml", tmp_path / "render.yaml")
    (tmp_path / "kustomization.yaml").write_text(
        f"namespace: {GOLDEN_NAMESPACE}\nresources:\n  - dcd.yaml\ntransformers:\n  - render.yaml\n"
    )
    done = _kustomize(tmp_path, env)
    assert done.returncode == 0, done.stderr
    objects = _docs(done.stdout)
    _assert_golden_deployment(objects)
    assert {o["metadata"]["namespace"] for o in objects} == {GOLDEN_NAMESPACE}
    assert not [o for o in objects if (o["metadata"].get("annotations") or {}).keys() & set(FILE_ANNOTATIONS)]


def test_plugin_installed_under_xdg_config_home(env: dict[str, str], tmp_path: Path) -> None:
    """The documented install: copy kustomize/plugin to $XDG_CONFIG_HOME/kustomize/plugin."""
    shutil.copytree(PLUGIN_HOME, tmp_path / "xdg" / "kustomize" / "plugin")
    run_env = {k: v for k, v in env.items() if k != "KUSTOMIZE_PLUGIN_HOME"}
    run_env["XDG_CONFIG_HOME"] = str(tmp_path / "xdg")
    done = _run(["kubectl", "kustomize", "--enable-alpha-plugins", str(EXAMPLES / "kustomize-legacy")], run_env)
    assert done.returncode == 0, done.stderr
    assert "kind: Deployment" in done.stdout and "kind: DynamoComponentDeployment" not in done.stdout


def test_kubectl_kustomize_without_dynamo_resources_is_a_no_op(env: dict[str, str], tmp_path: Path) -> None:
    (tmp_path / "settings.yaml").write_text(PASSTHROUGH)
    shutil.copy(EXAMPLES / "kustomize-legacy" / "render.yaml", tmp_path / "render.yaml")
    (tmp_path / "kustomization.yaml").write_text("resources:\n  - settings.yaml\n")
    plain = _kustomize(tmp_path, env)
    (tmp_path / "kustomization.yaml").write_text("resources:\n  - settings.yaml\ntransformers:\n  - render.yaml\n")
    transformed = _kustomize(tmp_path, env)
    assert plain.returncode == transformed.returncode == 0, plain.stderr + transformed.stderr
    assert transformed.stdout == plain.stdout


def test_kubectl_kustomize_invalid_dcd_fails_with_the_error(env: dict[str, str], tmp_path: Path) -> None:
    (tmp_path / "dcd.yaml").write_text(INVALID_DCD)
    shutil.copy(EXAMPLES / "kustomize-legacy" / "render.yaml", tmp_path / "render.yaml")
    (tmp_path / "kustomization.yaml").write_text("resources:\n  - dcd.yaml\ntransformers:\n  - render.yaml\n")
    done = _kustomize(tmp_path, env)
    assert done.returncode != 0
    assert done.stdout == ""
    assert "[error] DynamoComponentDeployment/broken spec.replicas: must be >= 0 (got -1)" in done.stderr


def test_kubectl_kustomize_bad_plugin_config_fails(env: dict[str, str], tmp_path: Path) -> None:
    (tmp_path / "dcd.yaml").write_text((GOLDEN / "input.yaml").read_text())
    (tmp_path / "render.yaml").write_text(
        "apiVersion: config.dynamo-render.dev/v1alpha1\nkind: DynamoRenderConfig\nmetadata:\n  name: render\nspec:\n  keepSource: true\n"
    )
    (tmp_path / "kustomization.yaml").write_text("resources:\n  - dcd.yaml\ntransformers:\n  - render.yaml\n")
    done = _kustomize(tmp_path, env)
    assert done.returncode != 0
    assert 'spec.keepSource: unknown field "keepSource"' in done.stderr


def test_kubectl_kustomize_legacy_plugin_listed_as_a_generator_fails_with_the_fix(env: dict[str, str], tmp_path: Path) -> None:
    """kustomize runs a legacy generator with empty input: the DCD must not leak through unrendered."""
    shutil.copy(EXAMPLES / "kustomize-legacy" / "dcds.yaml", tmp_path / "dcds.yaml")
    shutil.copy(EXAMPLES / "kustomize-legacy" / "render.yaml", tmp_path / "render.yaml")
    (tmp_path / "kustomization.yaml").write_text("resources:\n  - dcds.yaml\ngenerators:\n  - render.yaml\n")
    done = _kustomize(tmp_path, env)
    assert done.returncode != 0, done.stdout
    assert "DynamoComponentDeployment" not in done.stdout
    assert "listed under generators:" in done.stderr and "list it under transformers:" in done.stderr


def test_standalone_kustomize_exec_function_listed_as_a_generator_fails_with_the_fix(env: dict[str, str], tmp_path: Path) -> None:
    """A generator gets only its own configuration as input; the function says where it belongs."""
    from tests.tools import standalone_kustomize

    shutil.copy(EXAMPLES / "kustomize-exec" / "dcds.yaml", tmp_path / "dcds.yaml")
    shutil.copy(EXAMPLES / "kustomize-exec" / "render.yaml", tmp_path / "render.yaml")
    (tmp_path / "kustomization.yaml").write_text("resources:\n  - dcds.yaml\ngenerators:\n  - render.yaml\n")
    done = _run([standalone_kustomize(), "build", "--enable-alpha-plugins", "--enable-exec", str(tmp_path)], env)
    assert done.returncode != 0, done.stdout
    assert "DynamoComponentDeployment" not in done.stdout
    assert "listed under generators:" in done.stderr and "list it under transformers:" in done.stderr


def test_kubectl_kustomize_skips_exec_functions_silently(env: dict[str, str]) -> None:
    """Why the legacy plugin exists: kubectl has no --enable-exec, the DCDs leak unrendered."""
    done = _run(["kubectl", "kustomize", "--enable-alpha-plugins", str(EXAMPLES / "kustomize-exec")], env)
    assert done.returncode == 0, done.stderr
    assert [o["kind"] for o in _docs(done.stdout)].count("DynamoComponentDeployment") == 2


def test_kubectl_kustomize_container_function_example(env: dict[str, str], tmp_path: Path) -> None:
    """The container function path of kubectl kustomize, with a docker stand-in.

    There is no container engine here, so a ``docker`` script first on PATH checks the
    arguments kustomize passes and runs the image's entrypoint, ``dynamo-render-krm``, itself.
    """
    fakebin = tmp_path / "bin"
    fakebin.mkdir()
    argv_log = tmp_path / "docker-argv"
    docker = fakebin / "docker"
    docker.write_text(f'#!/bin/sh\nprintf "%s\\n" "$@" > "{argv_log}"\nexec dynamo-render-krm\n')
    docker.chmod(0o755)
    run_env = {**env, "PATH": f"{fakebin}{os.pathsep}{env['PATH']}"}
    done = _run(["kubectl", "kustomize", "--enable-alpha-plugins", str(EXAMPLES / "kustomize-container")], run_env)
    assert done.returncode == 0, done.stderr
    argv = argv_log.read_text().splitlines()
    assert argv[:2] == ["run", "--rm"] and argv[-1] == "dynamo-render:0.1.0"
    assert ["--network", "none"] == argv[argv.index("--network") : argv.index("--network") + 2]
    assert ["--user", "nobody"] == argv[argv.index("--user") : argv.index("--user") + 2]
    cli = _cli_render(EXAMPLES / "kustomize-container" / "dcds.yaml", env)
    assert _by_id(_docs(done.stdout)) == _by_id(cli)


def test_kpt_container_function(env: dict[str, str], tmp_path: Path) -> None:
    """``kpt fn eval --image``, with a docker stand-in that runs the image's entrypoint."""
    fakebin = tmp_path / "bin"
    fakebin.mkdir()
    argv_log = tmp_path / "docker-argv"
    docker = fakebin / "docker"
    # kpt asks for the client version first, then runs the image.
    docker.write_text(
        f'#!/bin/sh\nprintf "%s\\n" "$*" >> "{argv_log}"\n'
        'case "$1" in version) echo 24.0.0 ;; run) exec dynamo-render-krm ;; *) exit 1 ;; esac\n'
    )
    docker.chmod(0o755)
    pkg = _package(tmp_path, "pkg", {"app.yaml": (GOLDEN / "input.yaml").read_text()})
    run_env = {**env, "PATH": f"{fakebin}{os.pathsep}{env['PATH']}"}
    image = "registry.example/dynamo-render:0.1.0"
    done = _run(["kpt", "fn", "eval", str(pkg), "--image", image, "--", f"namespace={GOLDEN_NAMESPACE}"], run_env)
    assert done.returncode == 0, done.stdout + done.stderr
    [run_line] = [line for line in argv_log.read_text().splitlines() if line.startswith("run ")]
    assert run_line.endswith(f" {image}") and "--network none" in run_line and "--user nobody" in run_line
    _assert_golden_deployment(_docs((pkg / "app.yaml").read_text()))


# ---------------------------------------------------------------------------------------------
# The console scripts themselves


def test_console_scripts_return_items_and_results_on_error(env: dict[str, str]) -> None:
    resource_list = (
        "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"
        + "\n".join("- " + line if n == 0 else "  " + line for n, line in enumerate(INVALID_DCD.splitlines()))
        + "\n"
    )
    direct = _run([str(BIN / "dynamo-render-krm")], env, stdin=resource_list)
    via_cli = _run([str(BIN / "dynamo-render"), "krm"], env, stdin=resource_list)
    for done in (direct, via_cli):
        assert done.returncode == 1
        assert "[error] DynamoComponentDeployment/broken spec.replicas: must be >= 0 (got -1)" in done.stderr
        out = yaml.safe_load(done.stdout)
        assert [i["metadata"]["name"] for i in out["items"]] == ["broken"], "items must come back on error"
        assert out["results"][0]["field"] == {"path": "spec.replicas"}
    assert direct.stdout == via_cli.stdout
