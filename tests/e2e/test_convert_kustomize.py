"""``convert --in-place`` on kustomize trees: the upstream recipes' components, with real kustomize.

The tree is the upstream layout rebuilt from the corpus copies (INDEX.tsv ``source_path``): the
two recipe bases (a v1alpha1 DGD each) and every shared component, whose patch targets
``group: nvidia.com, version: v1alpha1, kind: DynamoGraphDeployment``. The base and overlay
kustomizations are written here the way upstream writes them (``resources: [../../base]``,
``components: [...]``), without upstream's OpenAPI component, which the corpus does not hold.

Before the refusal, ``convert --in-place`` rewrote each patch as a whole v1beta1 object; the
target then matched nothing and ``kustomize build`` succeeded with the patches' InfiniBand/RDMA
env, volumes and tolerations silently gone.
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.tools import standalone_kustomize

pytestmark = pytest.mark.slow

BIN = Path(sys.executable).with_name("dynamo-render")
CORPUS = Path(__file__).resolve().parents[1] / "data" / "corpus"
INDEX = list(csv.DictReader((CORPUS / "INDEX.tsv").open(encoding="utf-8"), delimiter="\t"))
RECIPE_FILES = {row["source_path"]: row["name"] for row in INDEX
                if row["source_path"].startswith("recipes/") and "/kustomize/" in row["source_path"]}
COMPONENTS = sorted(os.path.dirname(p) for p in RECIPE_FILES if p.endswith("/kustomization.yaml"))
BASES = {
    "vllm": "recipes/qwen3-32b/vllm/cloud-providers/kustomize",
    "trtllm": "recipes/qwen3-235b-a22b-fp8/trtllm/disagg/blackwell/kustomize",
}


def env() -> dict[str, str]:
    return {**os.environ, "PATH": os.path.dirname(standalone_kustomize()) + os.pathsep + os.environ.get("PATH", "")}


def build(folder: Path) -> str:
    done = subprocess.run([standalone_kustomize(), "build", str(folder)], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout


def render(text: str) -> str:
    done = subprocess.run([str(BIN), "render", "-"], input=text, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout


def convert(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(BIN), "convert", *map(str, args)], capture_output=True, text=True, env=env(), check=False)


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def upstream_tree(root: Path, overlays: bool = True) -> list[Path]:
    """The recipes' bases, the shared components and one overlay per (base, component); the overlays."""
    for source_path, name in RECIPE_FILES.items():
        target = root / source_path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes((CORPUS / name).read_bytes())
    # upstream's recipes/kustomize/components/aws-efa (no patch of its own, so not in the corpus)
    (root / "recipes/kustomize/components/aws-efa").mkdir()
    (root / "recipes/kustomize/components/aws-efa/kustomization.yaml").write_text(
        "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\ncomponents:\n  - ../disagg-workers/aws-efa\n"
    )
    made: list[Path] = []
    for backend, base in BASES.items():
        (root / base / "base" / "kustomization.yaml").write_text(
            "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nsortOptions:\n  order: fifo\n"
            "resources:\n  - deploy.yaml\n"
        )
        if not overlays:
            continue
        for component in COMPONENTS:
            own = component.startswith(base + "/")
            if not own and "/kustomize/components/" in component and not component.startswith("recipes/kustomize/"):
                continue  # a recipe's own component applies to that recipe only
            if backend == "trtllm" and "vllm" in component:
                continue
            overlay = root / base / "overlays" / component.replace("/", "-")
            overlay.mkdir(parents=True)
            relative = os.path.relpath(root / component, overlay)
            (overlay / "kustomization.yaml").write_text(
                "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nsortOptions:\n  order: fifo\n"
                f"resources:\n  - ../../base\ncomponents:\n  - {relative}\n"
            )
            made.append(overlay)
    return made


def drop_components(root: Path) -> None:
    """Only the bases and their own objects stay."""
    shutil.rmtree(root / "recipes/kustomize")
    for component in COMPONENTS:
        if (root / component).exists():
            shutil.rmtree(root / component)


def test_the_corpus_holds_the_upstream_components() -> None:
    assert len(COMPONENTS) == 15
    assert all(os.path.dirname(p) in COMPONENTS or p.endswith("/deploy.yaml") for p in RECIPE_FILES)


def test_every_upstream_component_is_refused_by_name_and_nothing_is_written(tmp_path: Path) -> None:
    overlays = upstream_tree(tmp_path)
    before = snapshot(tmp_path)
    built = {overlay: build(overlay) for overlay in overlays}
    # each component's patch does reach the build as v1alpha1 (what the conversion would lose)
    aks = next(o for o in overlays if o.name.endswith("components-aks-ib") and "qwen3-32b" in str(o))
    assert "/dev/infiniband" in built[aks]
    done = convert("--in-place", tmp_path / "recipes")
    assert done.returncode == 1, done.stderr
    assert done.stdout == ""
    lines = [line for line in done.stderr.splitlines() if ": [error] " in line]
    for component in COMPONENTS:
        expected = (f"{tmp_path / 'recipes'}/{os.path.relpath(component, 'recipes')}/kustomization.yaml: [error] patches[0]: "
                    "patch (patch-dgd.yaml) targets DynamoGraphDeployment with version: v1alpha1: it is written for the "
                    "v1alpha1 shape (spec.services)")
        assert any(line.startswith(expected) for line in lines), (component, done.stderr)
    assert len(lines) == len(COMPONENTS), done.stderr
    assert snapshot(tmp_path) == before
    assert {overlay: build(overlay) for overlay in overlays} == built


def test_a_patch_named_on_its_own_is_not_converted_as_a_whole_object(tmp_path: Path) -> None:
    upstream_tree(tmp_path, overlays=False)
    patch = tmp_path / "recipes/kustomize/components/aks-ib/patch-dgd.yaml"
    text = patch.read_bytes()
    for args in (("--in-place", patch), (patch,)):
        done = convert(*args)
        assert done.returncode == 1, done.stderr
        assert done.stdout == ""
        assert "patch" in done.stderr and "kustomization.yaml" in done.stderr
        assert patch.read_bytes() == text


def test_bases_without_v1alpha1_patches_convert_and_every_build_renders_as_before(tmp_path: Path) -> None:
    upstream_tree(tmp_path, overlays=False)
    drop_components(tmp_path)
    bases = [tmp_path / base / "base" for base in BASES.values()]
    rendered = {base: render(build(base)) for base in bases}
    done = convert("--in-place", tmp_path / "recipes")
    assert done.returncode == 0, done.stderr
    for base in bases:
        assert "apiVersion: nvidia.com/v1beta1" in (base / "deploy.yaml").read_text()
        assert sorted(render(build(base)).split("\n---\n")) == sorted(rendered[base].split("\n---\n"))


def test_a_kustomization_that_would_build_differently_stops_the_run(tmp_path: Path) -> None:
    # a replacement that reads a v1alpha1 field path: no selector names v1alpha1, but once the
    # DGD is converted the build fails, so nothing is written
    upstream_tree(tmp_path, overlays=False)
    base = tmp_path / BASES["vllm"] / "base"
    drop_components(tmp_path)
    (base / "kustomization.yaml").write_text(
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - deploy.yaml\n  - cm.yaml\n"
        "replacements:\n  - source:\n      kind: DynamoGraphDeployment\n      fieldPath: spec.services.Frontend.replicas\n"
        "    targets:\n      - select:\n          kind: ConfigMap\n        fieldPaths: [data.replicas]\n"
    )
    (base / "cm.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: counts\ndata:\n  replicas: x\n")
    before = snapshot(tmp_path)
    done = convert("--in-place", base)
    assert done.returncode == 1, done.stderr
    assert f"{base}/kustomization.yaml: [error]: no longer builds once converted" in done.stderr
    assert snapshot(tmp_path) == before


def objects(stream: str) -> list[str]:
    """The stream's objects as sorted JSON lines (their order aside)."""
    return sorted(json.dumps(doc, sort_keys=True) for doc in yaml.safe_load_all(stream) if doc)


V1BETA1_DCD = """\
apiVersion: nvidia.com/v1beta1
kind: DynamoComponentDeployment
metadata:
  name: chat-frontend
  namespace: llm
spec:
  name: Frontend
  type: frontend
  replicas: 1
  podTemplate:
    spec:
      containers:
      - name: main
        image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.4.0
"""

V1ALPHA1_DCD = """\
apiVersion: nvidia.com/v1alpha1
kind: DynamoComponentDeployment
metadata:
  name: chat-router
  namespace: llm
spec:
  serviceName: Router
  componentType: frontend
  replicas: 1
  extraPodSpec:
    mainContainer:
      image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.4.0
"""


@pytest.mark.parametrize("name", ["chat-frontend", "chat-router"], ids=["v1beta1-base", "v1alpha1-base"])
def test_a_version_less_dcd_replicas_patch_is_not_refused_and_builds_as_before(tmp_path: Path, name: str) -> None:
    """A JSON 6902 patch on ``/spec/replicas`` with a target of no version applies to both shapes alike.

    The tree's v1alpha1 DCD is converted; the patch (on the v1beta1 base, or on the v1alpha1 one
    that is converted) still applies, and the build renders as before.
    """
    app = tmp_path / "app"
    app.mkdir()
    (app / "frontend.yaml").write_text(V1BETA1_DCD)
    (app / "router.yaml").write_text(V1ALPHA1_DCD)
    (app / "replicas.json").write_text('[{"op": "replace", "path": "/spec/replicas", "value": 3}]\n')
    (app / "kustomization.yaml").write_text(
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - frontend.yaml\n  - router.yaml\n"
        f"patches:\n  - path: replicas.json\n    target:\n      group: nvidia.com\n      kind: DynamoComponentDeployment\n"
        f"      name: {name}\n"
    )
    before = build(app)
    assert "replicas: 3" in before
    done = convert("--in-place", app)
    assert done.returncode == 0, done.stderr
    assert "nvidia.com/v1beta1" in (app / "router.yaml").read_text()
    after = build(app)
    # kustomize orders a build by apiVersion too, so the converted DCD moves: compare the objects
    assert objects(render(after)) == objects(render(before))
