"""The KRM function in packages that keep its output: kpt subpackages, re-runs, overlays.

Run with the real tools: kpt (exec functions) and standalone kustomize (``--enable-exec``; see
tests/tools.py). What is asserted comes from the tools' contracts: kpt files every item by its
``internal.config.kubernetes.io/path`` relative to ``internal.config.kubernetes.io/package-path``
and refuses two items for one path and index; a function's output replaces the package.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.e2e.test_krm import BIN, EXAMPLES, KPTFILE, _docs, _run, _snapshot, env  # noqa: F401 (env is a fixture)
from tests.tools import standalone_kustomize

KEEP = """\
apiVersion: config.dynamo-render.dev/v1alpha1
kind: DynamoRenderConfig
metadata:
  name: render-config
  annotations:
    config.kubernetes.io/local-config: "true"
spec:
  namespace: llm
  keepSources: true
"""

PIPELINE = KPTFILE + """\
pipeline:
  mutators:
    - exec: dynamo-render-krm
      configPath: render-config.yaml
"""

HAND_WRITTEN_SERVICE = """\
apiVersion: v1
kind: Service
metadata:
  name: agg-frontend
  namespace: llm
spec:
  ports:
    - port: 80
"""


def package(tmp_path: Path, config: str = KEEP) -> Path:
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "Kptfile").write_text(PIPELINE.format(name="pkg"))
    (pkg / "render-config.yaml").write_text(config)
    shutil.copy(EXAMPLES / "kpt-render" / "dcds.yaml", pkg / "dcds.yaml")
    return pkg


def objects(pkg: Path) -> dict[str, list[str]]:
    """``Kind/name`` of every object, per file of the package (subpackages included)."""
    out: dict[str, list[str]] = {}
    for path in sorted(pkg.rglob("*.yaml")):
        if path.name == "Kptfile":
            continue
        out[str(path.relative_to(pkg))] = [f"{d['kind']}/{d['metadata']['name']}" for d in _docs(path.read_text())]
    return out


def _edit_source(path: Path, name: str, edit: Any) -> None:
    """Apply ``edit`` to the text of the DCD document named ``name`` (documents split at ``---`` lines)."""
    docs = re.split(r"(?m)^(?=---\n)", path.read_text())
    hits = [i for i, doc in enumerate(docs) if "kind: DynamoComponentDeployment" in doc and f"\n  name: {name}\n" in doc]
    assert len(hits) == 1, hits
    docs[hits[0]] = edit(docs[hits[0]])
    path.write_text("".join(docs))


def render(pkg: Path, env: dict[str, str]) -> Any:
    return _run(["kpt", "fn", "render", str(pkg), "--allow-exec", "--truncate-output=false"], env)


# ---------------------------------------------------------------------------------------------
# Item 1: subpackages


@pytest.mark.parametrize("nested", [False, True], ids=["parent-and-sub", "parent-sub-and-subsub"])
def test_a_hierarchy_where_each_package_runs_dynamo_render_is_stable(env: dict[str, str], tmp_path: Path, nested: bool) -> None:
    """Issue 25 §4: a parent and subpackages each with their own dynamo-render step and a render-config named render-config.

    The two local-config settings documents clash with nothing; each package renders its own
    DCDs with its own settings (the parent leaves the subpackage's items alone), and a second
    ``kpt fn render`` of the hierarchy changes nothing.
    """
    pkg = package(tmp_path)
    packages = [pkg / "sub", pkg / "sub" / "deeper"] if nested else [pkg / "sub"]
    for number, sub in enumerate(packages, 1):
        sub.mkdir()
        (sub / "Kptfile").write_text(PIPELINE.format(name=sub.name))
        (sub / "render-config.yaml").write_text(KEEP.replace("namespace: llm", f"namespace: team{number}"))
        # no namespace of their own: the package's settings give it
        text = (EXAMPLES / "kpt-render" / "dcds.yaml").read_text().replace("  namespace: llm\n", "")
        (sub / "dcds.yaml").write_text(text.replace("agg-", f"s{number}-").replace("model-settings", f"s{number}-settings"))
    first = render(pkg, env)
    assert first.returncode == 0, first.stdout + first.stderr
    assert "identity clash" not in first.stdout + first.stderr
    for number, sub in enumerate(packages, 1):
        rendered = [d for d in _docs((sub / "dcds.yaml").read_text()) if d["kind"] == "Deployment"]
        assert {d["metadata"]["name"] for d in rendered} == {f"s{number}-decode", f"s{number}-frontend"}
        # the subpackage's own settings, not the parent's
        assert {d["metadata"]["namespace"] for d in rendered} == {f"team{number}"}
    assert {d["metadata"]["namespace"] for d in _docs((pkg / "dcds.yaml").read_text()) if d["kind"] == "Deployment"} == {"llm"}
    snapshot = _snapshot(pkg)
    again = render(pkg, env)
    assert again.returncode == 0, again.stdout + again.stderr
    assert _snapshot(pkg) == snapshot, "a second kpt fn render changed the package"
    assert "pruned" not in again.stdout + again.stderr


def test_two_local_config_documents_of_one_name_do_not_clash(env: dict[str, str], tmp_path: Path) -> None:
    """A subpackage without a pipeline of its own, holding a render-config of the parent's name: rendered by the parent."""
    pkg = package(tmp_path)
    sub = pkg / "sub"
    sub.mkdir()
    (sub / "Kptfile").write_text(KPTFILE.format(name="sub"))
    (sub / "render-config.yaml").write_text(KEEP)
    done = render(pkg, env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "identity clash" not in done.stdout + done.stderr



def test_a_parent_pipeline_renders_a_subpackage_in_the_subpackage(env: dict[str, str], tmp_path: Path) -> None:
    pkg = package(tmp_path)
    sub = pkg / "sub"
    sub.mkdir()
    (sub / "Kptfile").write_text(KPTFILE.format(name="sub"))
    shutil.copy(EXAMPLES / "kpt-render" / "dcds.yaml", sub / "dcds.yaml")
    # The subpackage's DCDs get other names, so both packages render distinct objects.
    (sub / "dcds.yaml").write_text((sub / "dcds.yaml").read_text().replace("agg-", "sub-").replace("model-settings", "sub-settings"))
    done = render(pkg, env)
    assert done.returncode == 0, done.stdout + done.stderr
    files = objects(pkg)
    # Both packages hold a dcds.yaml; each got its own rendered objects, none moved or invented.
    assert set(files) == {"dcds.yaml", "render-config.yaml", "sub/dcds.yaml"}
    assert "Deployment/sub-decode" in files["sub/dcds.yaml"] and "Deployment/sub-frontend" in files["sub/dcds.yaml"]
    assert not [name for name in files["dcds.yaml"] if name.startswith(("Deployment/sub-", "Service/sub-"))]
    assert "Deployment/agg-decode" in files["dcds.yaml"]
    # The rendered objects keep the annotation that ties them to their package, in memory only:
    # kpt strips internal annotations when it writes files.
    assert "internal.config.kubernetes.io" not in (sub / "dcds.yaml").read_text()
    # A second render changes nothing.
    snapshot = _snapshot(pkg)
    again = render(pkg, env)
    assert again.returncode == 0, again.stdout + again.stderr
    assert _snapshot(pkg) == snapshot


# ---------------------------------------------------------------------------------------------
# Item 2: ownership and prune


def test_a_renamed_source_leaves_no_stale_objects(env: dict[str, str], tmp_path: Path) -> None:
    pkg = package(tmp_path)
    first = render(pkg, env)
    assert first.returncode == 0, first.stdout + first.stderr
    assert "Deployment/agg-decode" in objects(pkg)["dcds.yaml"]
    # edited as text: a YAML round trip by another library may change what the rendered objects mean
    _edit_source(pkg / "dcds.yaml", "agg-decode", lambda doc: doc.replace("name: agg-decode\n", "name: agg-worker\n", 1))
    second = render(pkg, env)
    assert second.returncode == 0, second.stdout + second.stderr
    names = objects(pkg)["dcds.yaml"]
    assert "Deployment/agg-worker" in names and "Service/agg-worker" in names
    stale = [n for n in names if "agg-decode" in n]
    assert stale == [], f"objects of the old name survived: {stale}"
    assert "pruned Deployment/agg-decode" in second.stdout + second.stderr
    # The frontend was untouched by the rename and is still there, once.
    assert names.count("Deployment/agg-frontend") == 1


def test_a_deleted_source_takes_its_objects_along(env: dict[str, str], tmp_path: Path) -> None:
    pkg = package(tmp_path)
    assert render(pkg, env).returncode == 0
    _edit_source(pkg / "dcds.yaml", "agg-decode", lambda doc: "")
    done = render(pkg, env)
    assert done.returncode == 0, done.stdout + done.stderr
    names = objects(pkg)["dcds.yaml"]
    assert not [n for n in names if "agg-decode" in n]
    assert "Deployment/agg-frontend" in names


def test_a_hand_written_object_is_never_overwritten(env: dict[str, str], tmp_path: Path) -> None:
    pkg = package(tmp_path)
    (pkg / "service.yaml").write_text(HAND_WRITTEN_SERVICE)
    before = _snapshot(pkg)
    done = render(pkg, env)
    assert done.returncode != 0
    out = done.stdout + done.stderr
    assert "pkg/service.yaml (doc 0): [error] Service/agg-frontend: a rendered object has the identity of this object, which dynamo-render did not render" in out
    assert _snapshot(pkg) == before, "a failed render writes nothing"


def test_consumed_sources_keep_their_output_when_new_sources_arrive(env: dict[str, str], tmp_path: Path) -> None:
    """keepSources: false consumes the DCDs; their objects are then the package's, never pruned."""
    pkg = package(tmp_path, KEEP.replace("keepSources: true", "keepSources: false"))
    assert render(pkg, env).returncode == 0
    assert "DynamoComponentDeployment/agg-decode" not in objects(pkg)["dcds.yaml"]
    extra = (EXAMPLES / "kpt-render" / "dcds.yaml").read_text().replace("agg-", "new-").replace("model-settings", "new-settings")
    (pkg / "more.yaml").write_text(extra)
    done = render(pkg, env)
    assert done.returncode == 0, done.stdout + done.stderr
    files = objects(pkg)
    assert "Deployment/agg-decode" in files["dcds.yaml"], "earlier output was pruned"
    assert "Deployment/new-decode" in files["more.yaml"]


# ---------------------------------------------------------------------------------------------
# Item 7: renamed after the render


BASE_RENDER = """\
apiVersion: config.dynamo-render.dev/v1alpha1
kind: DynamoRenderConfig
metadata:
  name: render
  annotations:
    config.kubernetes.io/function: |
      exec:
        path: dynamo-render-krm
spec:
  namespace: llm
"""


def overlay_tree(tmp_path: Path, overlay_spec: str = "spec:\n  namespace: llm\n") -> Path:
    base = tmp_path / "base"
    base.mkdir(parents=True)
    shutil.copy(EXAMPLES / "kustomize-exec" / "dcds.yaml", base / "dcds.yaml")
    (base / "render.yaml").write_text(BASE_RENDER)
    (base / "kustomization.yaml").write_text("resources: [dcds.yaml]\ntransformers: [render.yaml]\n")
    overlay = tmp_path / "overlay"
    overlay.mkdir()
    (overlay / "render.yaml").write_text(BASE_RENDER.replace("spec:\n  namespace: llm\n", overlay_spec))
    (overlay / "kustomization.yaml").write_text("resources: [../base]\nnamePrefix: dev-\nnamespace: dev\ntransformers: [render.yaml]\n")
    return overlay


def test_objects_renamed_by_an_overlay_after_the_render_are_reported(env: dict[str, str], tmp_path: Path) -> None:
    kustomize = standalone_kustomize()
    overlay = overlay_tree(tmp_path)
    done = _run([kustomize, "build", "--enable-alpha-plugins", "--enable-exec", str(overlay)], env)
    assert done.returncode == 0, done.stderr
    assert "[warning] Deployment/dev-agg-decode: rendered as llm/agg-decode but now named dev/dev-agg-decode" in done.stderr
    assert "run dynamo-render after the transformers that rename" in done.stderr
    # strict turns the warning into a failed build.
    strict = overlay_tree(tmp_path / "strict", "spec:\n  strict: true\n")
    failed = _run([kustomize, "build", "--enable-alpha-plugins", "--enable-exec", str(strict)], env)
    assert failed.returncode != 0
    assert "strict is on" in failed.stderr


def test_rendering_in_the_overlay_after_the_rename_is_clean(env: dict[str, str], tmp_path: Path) -> None:
    """The documented placement: DCDs in the base, the function in the overlay only."""
    kustomize = standalone_kustomize()
    overlay = overlay_tree(tmp_path)
    (tmp_path / "base" / "kustomization.yaml").write_text("resources: [dcds.yaml]\n")
    done = _run([kustomize, "build", "--enable-alpha-plugins", "--enable-exec", str(overlay)], env)
    assert done.returncode == 0, done.stderr
    assert "[warning]" not in done.stderr
    deployments = {d["metadata"]["name"]: d for d in _docs(done.stdout) if d["kind"] == "Deployment"}
    decode = deployments["dev-agg-decode"]
    assert decode["metadata"]["namespace"] == "dev"
    container = decode["spec"]["template"]["spec"]["containers"][0]
    env_values = {e["name"]: e.get("value") for e in container.get("env", [])}
    assert env_values["DYN_NAMESPACE"] == "dev-dev-agg-decode"


@pytest.mark.parametrize("tool", ["kpt"])
def test_results_name_objects_by_api_version_kind_and_name(env: dict[str, str], tmp_path: Path, tool: str) -> None:
    """Item 8: every resourceRef kpt prints is apiVersion/Kind/name."""
    pkg = package(tmp_path)
    (pkg / "service.yaml").write_text(HAND_WRITTEN_SERVICE)
    done = render(pkg, env)
    assert "[error] v1/Service/llm/agg-frontend:" in done.stdout + done.stderr or "[error] v1/Service/agg-frontend" in done.stdout + done.stderr


def test_scripts_are_installed(env: dict[str, str]) -> None:
    assert (BIN / "dynamo-render-krm").is_file()


def test_a_hand_written_copy_of_a_rendered_object_is_never_deleted_from_disk(env: dict[str, str], tmp_path: Path) -> None:
    """Issue 27 §7: a Service copied from the output (marker included) and customised survives its source's rename."""
    pkg = package(tmp_path)
    assert render(pkg, env).returncode == 0
    service = next(d for d in _docs((pkg / "dcds.yaml").read_text()) if d["kind"] == "Service" and d["metadata"]["name"] == "agg-decode")
    for key in [k for k in service["metadata"]["annotations"] if k.startswith(("config.kubernetes.io/", "internal.config"))]:
        del service["metadata"]["annotations"][key]
    service["metadata"]["name"] = "agg-decode-nodeport"
    service["spec"]["type"] = "NodePort"
    (pkg / "custom.yaml").write_text(yaml.safe_dump(service))
    _edit_source(pkg / "dcds.yaml", "agg-decode", lambda doc: doc.replace("name: agg-decode\n", "name: agg-worker\n", 1))
    done = render(pkg, env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert objects(pkg)["custom.yaml"] == ["Service/agg-decode-nodeport"]
    assert "kept Service/agg-decode-nodeport" in done.stdout + done.stderr
    assert "pruned Service/agg-decode " in done.stdout + done.stderr
