"""GitOps metadata moves with its source (DESIGN decision 15), and the namespace-shared objects.

The invariance tests render every golden case twice, once as written and once with a new Argo
CD sync wave, sync options, Flux annotations and labels on each source: worker names, pod
templates and everything but the rendered objects' own labels and annotations must come out
the same, and those carry exactly what was added.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
import yaml

from plugin.frontends.render import run
from plugin.options import given_values
from renderer import gitops
from renderer.bundle import Item, render_bundle
from plugin.settings import Settings
from renderer.config import build_render_config
from renderer.objects.shared import NAMESPACE_SHARED, is_namespace_shared
from renderer.results import Code, Severity
from tests.test_golden import GOLDEN, without_marker

ADDED_ANNOTATIONS = {
    "argocd.argoproj.io/sync-wave": "7",
    "argocd.argoproj.io/sync-options": "Prune=false,Delete=false",
    "kustomize.toolkit.fluxcd.io/prune": "disabled",
}
ADDED_LABELS = {"example.com/added-by-kustomize": "yes"}


def _rendering_cases(groups: tuple[str, ...]) -> list[Path]:
    return sorted(
        p.parent for g in groups for p in (GOLDEN / g).glob("*/input.yaml") if not (p.parent / "errors.txt").exists()
    )


FAST_CASES = [GOLDEN / "dgd" / "planner-service-account", GOLDEN / "grove" / "multinode-vllm", GOLDEN / "multinode" / "vllm-controller-leader-worker-set"]
ALL_CASES = _rendering_cases(("dgd", "grove", "multinode", "gms", "v1alpha1", "failover", "components"))


def _with_gitops_metadata(doc: Any) -> Any:
    if not isinstance(doc, dict) or doc.get("kind") not in ("DynamoGraphDeployment", "DynamoComponentDeployment"):
        return doc
    meta = dict(doc.get("metadata") or {})
    meta["annotations"] = {**ADDED_ANNOTATIONS, **(meta.get("annotations") or {})}
    if doc["kind"] == "DynamoGraphDeployment":
        # (a DCD's own labels reach its pods: the operator's rule, GetDCDKubeLabels)
        meta["labels"] = {**ADDED_LABELS, **(meta.get("labels") or {})}
    return {**doc, "metadata": meta}


def _render(case: Path, input_path: Path) -> list[dict[str, Any]]:
    meta = yaml.safe_load((case / "case.yaml").read_text()) or {}
    config, cluster = case / "config.yaml", case / "cluster.yaml"
    common = given_values(dict(
        config=str(config) if config.exists() else None, namespace=meta.get("namespace"), lws=meta.get("lws"),
        operator_release=meta.get("operatorRelease"),
        cluster_state=str(cluster) if cluster.exists() else None,
        keep_sources=bool(meta.get("keepSources")), companions=meta.get("companions"),
    ))
    out, err = io.StringIO(), io.StringIO()
    assert run([str(input_path)], common, out, err) == 0, err.getvalue()
    return [without_marker(d) for d in yaml.safe_load_all(out.getvalue()) if d is not None]


def _without_added(obj: dict[str, Any]) -> dict[str, Any]:
    meta = dict(obj["metadata"])
    for key, added in (("labels", ADDED_LABELS), ("annotations", ADDED_ANNOTATIONS)):
        values = {k: v for k, v in (meta.get(key) or {}).items() if k not in added}
        meta.pop(key, None)
        if values:
            meta[key] = values
    return {**obj, "metadata": meta}


def _assert_same_but_metadata(case: Path, tmp_path: Path) -> None:
    written = [d for d in yaml.safe_load_all((case / "input.yaml").read_text()) if d is not None]
    plain = _render(case, case / "input.yaml")
    changed_input = tmp_path / "input.yaml"
    changed_input.write_text(yaml.safe_dump_all([_with_gitops_metadata(d) for d in written], sort_keys=False))
    changed = _render(case, changed_input)
    # The same objects, names (worker hashes) and order.
    assert [(o["kind"], o["metadata"]["name"]) for o in changed] == [(o["kind"], o["metadata"]["name"]) for o in plain]
    rendered_any = False
    for before, after in zip(plain, changed, strict=True):
        if before["kind"] in ("DynamoGraphDeployment", "DynamoComponentDeployment") and before in written:
            continue  # a kept source is passed through as written
        # Pod templates, selectors and every spec field are byte-identical; only the object's own metadata differs.
        assert _without_added(after) == _without_added(before), f"{after['kind']}/{after['metadata']['name']}"
        if is_namespace_shared(after) or before == after:
            continue
        rendered_any = True
        annotations = after["metadata"].get("annotations") or {}
        assert annotations.get("argocd.argoproj.io/sync-wave") == before["metadata"].get("annotations", {}).get(
            "argocd.argoproj.io/sync-wave", "7"
        )
    assert rendered_any or not [d for d in written if _with_gitops_metadata(d) is not d]


@pytest.mark.parametrize("case", FAST_CASES, ids=[f"{c.parent.name}/{c.name}" for c in FAST_CASES])
def test_a_new_sync_wave_changes_only_the_rendered_objects_metadata(case: Path, tmp_path: Path) -> None:
    _assert_same_but_metadata(case, tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("case", ALL_CASES, ids=[f"{c.parent.name}/{c.name}" for c in ALL_CASES])
def test_a_new_sync_wave_changes_only_the_rendered_objects_metadata_in_every_golden_case(case: Path, tmp_path: Path) -> None:
    _assert_same_but_metadata(case, tmp_path)


def test_the_worker_deployment_keeps_its_name_and_pod_template_with_a_new_sync_wave() -> None:
    plain = {(o["kind"], o["metadata"]["name"]): o for o in _bundle([_dgd()]).objects}
    changed = {(o["kind"], o["metadata"]["name"]): o for o in _bundle([_with_gitops_metadata(_dgd())]).objects}
    # the worker's name ends in the worker hash of its spec
    workers = [key for key in plain if key[0] == "Deployment" and key[1].startswith("g-worker-")]
    assert len(workers) == 1, plain.keys()
    assert sorted(changed) == sorted(plain)
    for name in workers:
        assert changed[name]["spec"] == plain[name]["spec"]
        assert changed[name]["metadata"]["annotations"]["argocd.argoproj.io/sync-wave"] == "7"
        assert changed[name]["metadata"]["labels"]["example.com/added-by-kustomize"] == "yes"


@pytest.mark.parametrize(
    ("own", "added", "merged"),
    [
        ("PruneLast=true", "Prune=false,Delete=false", "PruneLast=true,Prune=false,Delete=false"),
        ("ServerSideApply=true", "ServerSideApply=false,Replace=true", "ServerSideApply=true,Replace=true"),
        ("", " Prune=false , ,Prune=true", "Prune=false"),
        ("IgnoreExtraneous", "IgnoreExtraneous", "IgnoreExtraneous"),
    ],
    ids=["appended", "own-value-wins", "blanks-and-repeats", "same-option"],
)
def test_option_lists_merge(own: str, added: str, merged: str) -> None:
    assert gitops.merge_options(own, added) == merged


def _dgd(annotations: dict[str, str] | None = None, labels: dict[str, str] | None = None, **spec: Any) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": "g", "namespace": "llm"}
    if annotations:
        meta["annotations"] = annotations
    if labels:
        meta["labels"] = labels
    components = [
        {"name": "Frontend", "type": "frontend", "podTemplate": {"spec": {"containers": [{"name": "main", "image": "nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.5.0"}]}}},
        {
            "name": "Worker", "type": "worker", "modelRef": {"name": "Qwen/Qwen3-0.6B"},
            "podTemplate": {"spec": {"containers": [{"name": "main", "image": "nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.5.0"}]}},
        },
        {"name": "Planner", "type": "planner", "podTemplate": {"spec": {"containers": [{"name": "main", "image": "nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.5.0"}]}}},
    ]
    return {"apiVersion": "nvidia.com/v1beta1", "kind": "DynamoGraphDeployment", "metadata": meta,
            "spec": {"backendFramework": "vllm", "components": components, **spec}}


def _bundle(docs: list[dict[str, Any]], **choices: Any) -> Any:
    config, _ = build_render_config(None, Settings(**choices))
    return render_bundle([Item(d) for d in docs], config, "llm")


def test_the_namespace_shared_objects_are_the_planner_and_epp_rbac_and_the_model_services() -> None:
    rendered = _bundle([_dgd()])
    assert rendered.ok, rendered.results
    shared = sorted(f"{o['kind']}/{o['metadata']['name']}" for o in rendered.objects if is_namespace_shared(o))
    assert shared == ["RoleBinding/planner-serviceaccount-binding", "Service/dynamo-model-" + next(
        o["metadata"]["labels"]["nvidia.com/dynamo-base-model-hash"] for o in rendered.objects if o["metadata"]["name"].startswith("dynamo-model-")
    ), "ServiceAccount/planner-serviceaccount"]
    # The graph's own Services are not shared, though they carry the model's hash label.
    assert not is_namespace_shared({"kind": "Service", "metadata": {"name": "g-worker", "labels": {"nvidia.com/dynamo-base-model-hash": "x"}}})
    assert {s.kind for s in NAMESPACE_SHARED} == {"ServiceAccount", "RoleBinding", "Service"}


def test_namespace_shared_false_leaves_them_out_without_a_missing_reference() -> None:
    rendered = _bundle([_dgd()], namespace_shared=False)
    assert rendered.ok, [r.line() for r in rendered.results]
    assert not [o for o in rendered.objects if is_namespace_shared(o)]
    assert not [r for r in rendered.results if r.code is Code.REFERENCE]
    (note,) = [r for r in rendered.results if r.code is Code.NAMESPACE_SHARED]
    assert note.severity is Severity.INFO and note.message.startswith("left out the objects every graph of namespace llm shares")


def test_namespace_shared_objects_are_noted_once_for_two_graphs_and_not_when_owned() -> None:
    second = _dgd()
    second["metadata"] = {**second["metadata"], "name": "h"}
    rendered = _bundle([_dgd(), second])
    assert rendered.ok
    notes = [r for r in rendered.results if r.code is Code.NAMESPACE_SHARED]
    assert len(notes) == 1 and "ServiceAccount/planner-serviceaccount" in notes[0].message
    owned = _bundle([_dgd(), second], namespace_shared=True)
    assert not [r for r in owned.results if r.code is Code.NAMESPACE_SHARED]
    assert [o for o in owned.objects if o["metadata"]["name"] == "planner-serviceaccount"]


def test_two_graphs_with_different_sync_waves_still_share_the_namespace_objects() -> None:
    rendered = _bundle([_dgd({"argocd.argoproj.io/sync-wave": "1"}), {**_dgd({"argocd.argoproj.io/sync-wave": "2"}), "metadata": {
        "name": "h", "namespace": "llm", "annotations": {"argocd.argoproj.io/sync-wave": "2"}}}])
    assert rendered.ok, [r.line() for r in rendered.results]
    model_services = [o for o in rendered.objects if o["metadata"]["name"].startswith("dynamo-model-")]
    assert len(model_services) == 1
    assert "argocd.argoproj.io/sync-wave" not in model_services[0]["metadata"].get("annotations", {})
    waves = {o["metadata"]["name"]: o["metadata"].get("annotations", {}).get("argocd.argoproj.io/sync-wave") for o in rendered.objects}
    assert waves["g-frontend"] == "1" and waves["h-frontend"] == "2"


def test_carry_metadata_off_is_the_operators_metadata() -> None:
    annotations = {"argocd.argoproj.io/sync-wave": "3"}
    carried = _bundle([_dgd(annotations, {"team": "a"})])
    plain = _bundle([_dgd()])
    parity = _bundle([_dgd(annotations, {"team": "a"})], carry_metadata=False)
    assert parity.objects == plain.objects
    assert carried.objects != plain.objects


def test_emitted_dcds_carry_the_annotations_but_not_the_labels() -> None:
    rendered = _bundle([_dgd({"argocd.argoproj.io/sync-wave": "3"}, {"team": "a"})], emit="dcd")
    assert rendered.ok, [r.line() for r in rendered.results]
    dcds = [o for o in rendered.objects if o["kind"] == "DynamoComponentDeployment"]
    assert dcds
    for dcd in dcds:
        assert dcd["metadata"]["annotations"]["argocd.argoproj.io/sync-wave"] == "3"
        # the operator's DCD controller would copy DCD labels into the pods
        assert "team" not in dcd["metadata"]["labels"]


@pytest.mark.parametrize("key", sorted(gitops.NOT_CARRIED))
def test_annotations_that_make_no_sense_on_rendered_objects_are_left_behind_with_a_warning(key: str) -> None:
    rendered = _bundle([_dgd({key: "PreSync", "argocd.argoproj.io/sync-wave": "1", "example.com/other": "x"})])
    assert rendered.ok
    (warning,) = [r for r in rendered.results if r.severity is Severity.WARNING]
    assert warning.code is Code.IGNORED and warning.field == f"metadata.annotations.{key}"
    assert warning.resource is not None and warning.resource.name == "g"
    for obj in rendered.objects:
        annotations = obj["metadata"].get("annotations", {})
        assert key not in annotations and "example.com/other" not in annotations


def test_an_annotation_the_workload_already_has_keeps_its_value() -> None:
    """A pod template annotation reaches the workload's metadata (GetDCDKubeAnnotations): it wins over the DCD's."""
    dcd = {
        "apiVersion": "nvidia.com/v1beta1", "kind": "DynamoComponentDeployment",
        "metadata": {"name": "w", "namespace": "llm", "annotations": {"argocd.argoproj.io/sync-wave": "1"}},
        "spec": {"type": "decode", "backendFramework": "vllm", "podTemplate": {
            "metadata": {"annotations": {"argocd.argoproj.io/sync-wave": "9"}},
            "spec": {"containers": [{"name": "main", "image": "nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.5.0"}]}}},
    }
    rendered = _bundle([dcd])
    assert rendered.ok, [r.line() for r in rendered.results]
    waves = {(o["kind"], o["metadata"]["name"]): o["metadata"].get("annotations", {}).get("argocd.argoproj.io/sync-wave") for o in rendered.objects}
    assert waves[("Deployment", "w")] == waves[("Service", "w")] == "9"
