"""GitOps metadata, namespace-shared objects and rename detection, with the real tools.

- kustomize (standalone and ``kubectl kustomize``) puts ``commonLabels`` and
  ``commonAnnotations`` on a DGD; the Argo CD plugin, run as Argo CD's cmp-server runs it, moves
  them to the rendered objects' metadata, never into pods, and merges its own ``PruneLast=true``
  into the sync options;
- the planner ServiceAccount and RoleBinding every graph of the namespace shares: a warning once,
  and a parameter that leaves them out;
- ``render`` and ``hydrate-check`` output renamed by a kustomize overlay: the plugin and
  ``hydrate-check`` warn, as the KRM function does;
- kpt runs the KRM function with the ConfigMap keys of the same settings.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.e2e.test_cmp import EXAMPLE_REPO, STOCK_APIS, Sidecar, by_kind
from tests.e2e.test_cmp_gitops import with_path
from tests.e2e.test_krm import BIN, KPTFILE, _docs, _run, env  # noqa: F401 (env is a fixture)
from tests.schemas import assert_valid
from tests.tools import standalone_kustomize

pytestmark = pytest.mark.slow

GRAPH = """\
apiVersion: nvidia.com/v1beta1
kind: DynamoGraphDeployment
metadata:
  name: g
spec:
  backendFramework: vllm
  components:
    - name: Frontend
      type: frontend
      podTemplate:
        spec:
          containers:
            - name: main
              image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.5.0
    - name: Worker
      type: worker
      podTemplate:
        spec:
          containers:
            - name: main
              image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.5.0
              resources:
                limits:
                  nvidia.com/gpu: "1"
    - name: Planner
      type: planner
      podTemplate:
        spec:
          containers:
            - name: main
              image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.5.0
              command: ["python3", "-m", "dynamo.planner"]
"""

KUSTOMIZATION = """\
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
namespace: team-a
resources:
  - graph.yaml
"""

GITOPS = """\
commonLabels:
  app.kubernetes.io/part-of: llm
commonAnnotations:
  argocd.argoproj.io/sync-wave: "3"
  argocd.argoproj.io/sync-options: Prune=false,Delete=false
"""

SHARED_WARNING = "emits objects every graph of namespace team-a shares (ServiceAccount/planner-serviceaccount"


@pytest.fixture
def sidecar(tmp_path: Path) -> Sidecar:
    return Sidecar(tmp_path, EXAMPLE_REPO)


def _kustomize_tools(tool: str) -> dict[str, str]:
    if tool == "kustomize":
        return {"kustomize": standalone_kustomize()}
    kubectl = shutil.which("kubectl")
    if kubectl is None:
        pytest.skip("kubectl is not installed")
    return {"kubectl": kubectl}


def _app(sidecar: Sidecar, name: str, kustomization: str) -> str:
    app = sidecar.repo / "apps" / name
    app.mkdir(parents=True)
    (app / "graph.yaml").write_text(GRAPH)
    (app / "kustomization.yaml").write_text(kustomization)
    sidecar.normalise_modes()
    return f"apps/{name}"


def _workloads(objects: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {o["metadata"]["name"]: o for o in objects if o["kind"] == "Deployment"}


@pytest.mark.parametrize("tool", ["kustomize", "kubectl"])
def test_kustomize_common_labels_and_annotations_on_a_dgd_reach_what_the_plugin_renders(
    sidecar: Sidecar, tmp_path: Path, tool: str
) -> None:
    with_path(sidecar, tmp_path, _kustomize_tools(tool))
    plain = sidecar.generate(_app(sidecar, "plain", KUSTOMIZATION), api_versions=STOCK_APIS)
    carried = sidecar.generate(_app(sidecar, "gitops", KUSTOMIZATION + GITOPS), api_versions=STOCK_APIS)
    assert plain.code == 0 and carried.code == 0, plain.stderr + carried.stderr
    assert_valid(carried.objects)
    before, after = _workloads(plain.objects), _workloads(carried.objects)
    # The same workloads, worker hash names included, with byte-identical specs (pod templates, selectors).
    assert sorted(after) == sorted(before) and any(name.startswith("g-worker-") for name in after)
    for name, workload in after.items():
        assert workload["spec"] == before[name]["spec"], name
        meta = workload["metadata"]
        assert meta["labels"]["app.kubernetes.io/part-of"] == "llm"
        assert meta["annotations"]["argocd.argoproj.io/sync-wave"] == "3"
        # The plugin's own option is merged after the user's, not written over them.
        assert meta["annotations"]["argocd.argoproj.io/sync-options"] == "Prune=false,Delete=false,PruneLast=true"
        assert "app.kubernetes.io/part-of" not in workload["spec"]["template"]["metadata"]["labels"]
    objects = by_kind(carried.objects)
    assert objects[("ServiceAccount", "g-k8s-service-discovery")]["metadata"]["annotations"]["argocd.argoproj.io/sync-wave"] == "3"
    # Shared by every graph of the namespace: no single graph's directives.
    planner_sa = objects[("ServiceAccount", "planner-serviceaccount")]["metadata"]
    assert not [k for k in planner_sa.get("annotations", {}) if k.startswith("argocd.argoproj.io/")]
    assert "app.kubernetes.io/part-of" not in planner_sa["labels"]
    # Said once, as a warning (Argo CD keeps it in the sidecar's log when the render succeeds).
    assert carried.stderr.count(SHARED_WARNING) == 1 and "[warning]" in carried.stderr


def test_carry_metadata_false_renders_what_the_operator_would(sidecar: Sidecar, tmp_path: Path) -> None:
    with_path(sidecar, tmp_path, _kustomize_tools("kustomize"))
    plain = sidecar.generate(_app(sidecar, "plain", KUSTOMIZATION), api_versions=STOCK_APIS)
    parity = sidecar.generate(
        _app(sidecar, "gitops", KUSTOMIZATION + GITOPS), api_versions=STOCK_APIS,
        parameters=[{"name": "carry-metadata", "string": "false"}],
    )
    assert parity.code == 0, parity.stderr
    assert parity.objects == plain.objects


def test_two_applications_of_one_namespace_let_one_own_the_shared_objects(sidecar: Sidecar, tmp_path: Path) -> None:
    """The recipe: namespace-shared true in the owning Application, false in every other."""
    with_path(sidecar, tmp_path, _kustomize_tools("kustomize"))
    owner = sidecar.generate(
        _app(sidecar, "owner", KUSTOMIZATION), api_versions=STOCK_APIS,
        parameters=[{"name": "namespace-shared", "string": "true"}],
    )
    other_graph = KUSTOMIZATION + "nameSuffix: -b\n"
    other = sidecar.generate(
        _app(sidecar, "other", other_graph), api_versions=STOCK_APIS,
        parameters=[{"name": "namespace-shared", "string": "false"}],
    )
    assert owner.code == 0 and other.code == 0, owner.stderr + other.stderr
    assert SHARED_WARNING not in owner.stderr + other.stderr
    owned = {(o["kind"], o["metadata"]["name"]) for o in owner.objects}
    others = {(o["kind"], o["metadata"]["name"]) for o in other.objects}
    assert ("ServiceAccount", "planner-serviceaccount") in owned
    assert ("ServiceAccount", "planner-serviceaccount") not in others
    assert ("RoleBinding", "planner-serviceaccount-binding") not in others
    # The other app's planner still runs as the shared ServiceAccount, and no two apps emit one object.
    planner = _workloads(other.objects)["g-b-planner"]
    assert planner["spec"]["template"]["spec"]["serviceAccountName"] == "planner-serviceaccount"
    assert not owned & others
    # Left unset, it is a warning even under strict (a namespace with one Application is fine as it is).
    strict = sidecar.generate("apps/other", api_versions=STOCK_APIS, parameters=[{"name": "strict", "string": "true"}])
    assert strict.code == 0, strict.stderr
    assert "[warning]: emits objects every graph of namespace team-a shares" in strict.stderr


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(BIN / "dynamo-render"), *args], cwd=cwd, capture_output=True, text=True, timeout=300)


OVERLAY = "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - ../base\nnamePrefix: dev-\nnamespace: dev\n"
RENAMED = "rendered as team-a/g-frontend but now named dev/dev-g-frontend"


def test_an_overlay_over_render_output_is_reported_by_the_plugin(sidecar: Sidecar, tmp_path: Path) -> None:
    base = sidecar.repo / "apps" / "hydrated" / "base"
    base.mkdir(parents=True)
    (tmp_path / "graph.yaml").write_text(GRAPH)
    done = _cli("render", "--namespace", "team-a", "graph.yaml", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    (base / "rendered.yaml").write_text(done.stdout)
    (base / "kustomization.yaml").write_text("resources:\n  - rendered.yaml\n")
    (base.parent / "dev").mkdir()
    (base.parent / "dev" / "kustomization.yaml").write_text(OVERLAY)
    sidecar.normalise_modes()
    with_path(sidecar, tmp_path, _kustomize_tools("kustomize"))
    run = sidecar.generate("apps/hydrated/dev")
    assert run.code == 0, run.stderr
    assert f"[warning] Service/dev-g-frontend: {RENAMED}" in run.stderr
    # The rename left the pods pointing at the old namespace: what the warning is about.
    env = {e["name"]: e.get("value") for e in _workloads(run.objects)["dev-g-frontend"]["spec"]["template"]["spec"]["containers"][0]["env"]}
    assert env.get("DYN_PARENT_DGD_K8S_NAMESPACE") == "team-a"


def test_an_overlay_over_hydrate_check_output_is_reported_by_hydrate_check(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "graph.yaml").write_text(GRAPH)
    fixed = _cli("hydrate-check", "--fix", "--namespace", "team-a", "src", "base", cwd=tmp_path)
    assert fixed.returncode == 1 and "wrote base/graph.yaml" in fixed.stdout, fixed.stdout + fixed.stderr
    (tmp_path / "base" / "kustomization.yaml").write_text("resources:\n  - graph.yaml\n")
    (tmp_path / "dev").mkdir()
    (tmp_path / "dev" / "kustomization.yaml").write_text(OVERLAY)
    built = subprocess.run([standalone_kustomize(), "build", "dev"], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stderr
    # The overlay's build, committed as the source of another hydrated tree.
    (tmp_path / "dev-src").mkdir()
    (tmp_path / "dev-src" / "all.yaml").write_text(built.stdout)
    checked = _cli("hydrate-check", "--fix", "dev-src", "dev-out", cwd=tmp_path)
    assert f"[warning] Service/dev-g-frontend: {RENAMED}" in checked.stdout, checked.stdout + checked.stderr


def test_kpt_runs_the_function_with_the_same_settings_as_configmap_keys(env: dict[str, str], tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "Kptfile").write_text(KPTFILE.format(name="pkg"))
    graph = yaml.safe_load(GRAPH)
    graph["metadata"]["annotations"] = {"argocd.argoproj.io/sync-wave": "2", "kustomize.toolkit.fluxcd.io/prune": "disabled"}
    graph["metadata"]["labels"] = {"team": "inference"}
    (pkg / "graph.yaml").write_text(yaml.safe_dump(graph, sort_keys=False))
    done = _run(["kpt", "fn", "eval", str(pkg), "--exec", "dynamo-render-krm", "--", "namespace=team-a", "namespaceShared=false"], env)
    assert done.returncode == 0, done.stdout + done.stderr
    objects = _docs((pkg / "graph.yaml").read_text())
    names = {(o["kind"], o["metadata"]["name"]) for o in objects}
    assert ("ServiceAccount", "planner-serviceaccount") not in names and ("ServiceAccount", "g-k8s-service-discovery") in names
    for workload in _workloads(objects).values():
        assert workload["metadata"]["annotations"]["argocd.argoproj.io/sync-wave"] == "2"
        assert workload["metadata"]["annotations"]["kustomize.toolkit.fluxcd.io/prune"] == "disabled"
        assert workload["metadata"]["labels"]["team"] == "inference"
        assert "team" not in workload["spec"]["template"]["metadata"]["labels"]
    parity = tmp_path / "parity"
    parity.mkdir()
    (parity / "Kptfile").write_text(KPTFILE.format(name="parity"))
    (parity / "graph.yaml").write_text(yaml.safe_dump(graph, sort_keys=False))
    done = _run(["kpt", "fn", "eval", str(parity), "--exec", "dynamo-render-krm", "--", "namespace=team-a", "carryMetadata=false"], env)
    assert done.returncode == 0, done.stdout + done.stderr
    for workload in _workloads(_docs((parity / "graph.yaml").read_text())).values():
        assert "argocd.argoproj.io/sync-wave" not in workload["metadata"].get("annotations", {})
