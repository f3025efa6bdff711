"""Identity clashes (DESIGN decision 12): two sources of one object are an error naming both.

A Hypothesis property over generated bundles: whatever the names, each way two sources can
land on one kind/namespace/name (the same DCD name in two files; DGD ``a`` component
``b-frontend`` and DGD ``a-b`` component ``frontend``; frontend DCDs ``a.b`` and ``a-b``, both
Service ``a-b``; a standalone DCD named like a DGD-generated one; a DCD and a hand-written
Deployment of its name) fails in every front end (render, KRM, CMP, validate, hydrate-check)
with an error line naming both files. Objects identical by construction (the discovery RBAC and
companions two DCDs of one namespace share) are merged, never errors.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from plugin.frontends import cmp, krm, precommit_hydrate, precommit_validate
from plugin.frontends import render as render_frontend
from tests.builders import dcd

IMAGE = "nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.3.0"
NAMESPACE = "llm"


def dgd(name: str, component: str) -> dict[str, Any]:
    return {
        "apiVersion": "nvidia.com/v1beta1",
        "kind": "DynamoGraphDeployment",
        "metadata": {"name": name, "namespace": NAMESPACE},
        "spec": {
            "components": [
                {"name": component, "type": "frontend", "podTemplate": {"spec": {"containers": [{"name": "main", "image": IMAGE}]}}}
            ]
        },
    }


def deployment(name: str) -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": NAMESPACE},
        "spec": {
            "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}}, "spec": {"containers": [{"name": "c", "image": IMAGE}]}},
        },
    }


# DNS labels short enough that every derived name stays valid.
label = st.from_regex(r"[a-z][a-z0-9]{0,5}", fullmatch=True)


@st.composite
def clashing_pair(draw: st.DrawFn) -> tuple[str, list[dict[str, Any]], list[dict[str, Any]]]:
    """A clash kind and the documents of the two files that clash."""
    kind = draw(st.sampled_from(["same-dcd", "dgd-components", "service-name", "standalone-like-generated", "hand-written"]))
    a, b = draw(label), draw(label)
    if kind == "same-dcd":
        component_type = draw(st.sampled_from(["frontend", "worker", "prefill", "decode"]))
        return kind, [dcd(a, type=component_type)], [dcd(a, type=draw(st.sampled_from(["frontend", "worker"])))]
    if kind == "dgd-components":
        return kind, [dgd(a, f"{b}-frontend")], [dgd(f"{a}-{b}", "frontend")]
    if kind == "service-name":
        return kind, [dcd(f"{a}.{b}", type="frontend")], [dcd(f"{a}-{b}", type="frontend")]
    if kind == "standalone-like-generated":
        return kind, [dgd(a, b)], [dcd(f"{a}-{b}", type="frontend")]
    return kind, [dcd(a, type="frontend")], [deployment(a)]


bundles = st.tuples(clashing_pair(), st.lists(label, max_size=1))


def _files(first: list[dict[str, Any]], second: list[dict[str, Any]], fillers: list[str]) -> dict[str, list[dict[str, Any]]]:
    """File name -> documents: the two clashing files plus unrelated DCDs (prefixed so they never clash)."""
    files = {"first.json": first, "second.json": second}
    for i, name in enumerate(fillers):
        files[f"filler{i}.json"] = [dcd(f"zz{name}", type="frontend")]
    return files


def _write(folder: Path, files: dict[str, list[dict[str, Any]]]) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, docs in files.items():
        path = folder / name
        # JSON documents: no YAML 1.1 reading of names such as "y" or "on"
        path.write_text("\n".join(json.dumps(doc) for doc in docs))
        paths.append(path)
    return paths


def run_render(folder: Path, files: dict[str, list[dict[str, Any]]]) -> tuple[int, str, str]:
    paths = _write(folder, files)
    out, err = io.StringIO(), io.StringIO()
    code = render_frontend.run([str(p) for p in paths], {}, out, err)
    return code, out.getvalue(), err.getvalue()


def run_krm(folder: Path, files: dict[str, list[dict[str, Any]]]) -> tuple[int, str, str]:
    items = []
    for name, docs in files.items():
        for index, doc in enumerate(docs):
            annotations = {krm.PATH_ANNOTATION: name, krm.INDEX_ANNOTATION: str(index)}
            items.append({**doc, "metadata": {**doc["metadata"], "annotations": annotations}})
    data = json.dumps({"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": items}).encode()
    out, err = io.StringIO(), io.StringIO()
    code = krm.run_resource_list(data, out, err)
    # The function always returns its ResourceList, with the items unchanged on error.
    returned = yaml.safe_load(out.getvalue())
    assert returned["kind"] == "ResourceList"
    if code != 0:
        assert len(returned["items"]) == len(items)
    return code, out.getvalue(), err.getvalue()


def run_cmp(folder: Path, files: dict[str, list[dict[str, Any]]]) -> tuple[int, str, str]:
    _write(folder, files)
    out, err = io.StringIO(), io.StringIO()
    code = cmp.generate(str(folder), {}, out, err)
    return code, out.getvalue(), err.getvalue()


def run_validate(folder: Path, files: dict[str, list[dict[str, Any]]]) -> tuple[int, str, str]:
    paths = _write(folder, files)
    out = io.StringIO()
    code = precommit_validate.run([str(p) for p in paths], {}, out)
    return code, "", out.getvalue()


def run_hydrate_check(folder: Path, files: dict[str, list[dict[str, Any]]]) -> tuple[int, str, str]:
    _write(folder / "src", files)
    out = io.StringIO()
    code = precommit_hydrate.run(str(folder / "src"), str(folder / "out"), True, False, False, {}, out)
    return code, "", out.getvalue()


FRONT_ENDS: dict[str, Callable[[Path, dict[str, list[dict[str, Any]]]], tuple[int, str, str]]] = {
    "render": run_render,
    "krm": run_krm,
    "cmp": run_cmp,
    "validate": run_validate,
    "hydrate-check": run_hydrate_check,
}


@pytest.mark.parametrize("front_end", list(FRONT_ENDS))
@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(bundle=bundles)
def test_every_clash_is_an_error_naming_both_sources(front_end: str, bundle: Any, tmp_path_factory: pytest.TempPathFactory) -> None:
    (kind, first, second), fillers = bundle
    folder = tmp_path_factory.mktemp(front_end)
    code, stdout, stderr = FRONT_ENDS[front_end](folder, _files(first, second, fillers))
    assert code == 1, f"{kind}: exit {code}\n{stderr}"
    if front_end in ("render", "cmp"):
        assert stdout == ""
    if front_end == "hydrate-check":
        assert not (folder / "out").exists(), "nothing may be written when a source fails"
    clash_lines = [line for line in stderr.splitlines() if "first.json" in line and "second.json" in line]
    assert clash_lines, f"{kind}: no error line names both sources:\n{stderr}"
    assert all("[error]" in line for line in clash_lines)


@pytest.mark.parametrize("front_end", list(FRONT_ENDS))
def test_companions_identical_by_construction_are_merged(front_end: str, tmp_path: Path) -> None:
    """Two standalone DCDs of one namespace share their discovery RBAC: merged, exit 0."""
    files = {"first.json": [dcd("alpha", type="frontend")], "second.json": [dcd("beta", type="worker")]}
    code, stdout, stderr = FRONT_ENDS[front_end](tmp_path, files)
    assert "clash" not in stderr
    if front_end == "hydrate-check":
        assert code == 1 and "wrote" in stderr  # the first --fix writes the output files
        text = "".join(p.read_text() for p in sorted((tmp_path / "out").rglob("*.yaml")))
        names = [(d["kind"], d["metadata"]["name"]) for d in yaml.safe_load_all(text) if d]
        assert len(names) == len(set(names))
        return
    assert code == 0, stderr
    if front_end in ("render", "cmp"):
        names = [(d["kind"], d["metadata"]["name"]) for d in yaml.safe_load_all(stdout) if d]
        assert len(names) == len(set(names))


def _without_file_annotations(obj: dict[str, Any]) -> dict[str, Any]:
    """An object without the file annotations the KRM function's wire format carries (kpt's path and index)."""
    meta = dict(obj.get("metadata") or {})
    annotations = {k: v for k, v in (meta.get("annotations") or {}).items() if not k.startswith(("config.kubernetes.io/", "internal.config.kubernetes.io/"))}
    if annotations:
        meta["annotations"] = annotations
    else:
        meta.pop("annotations", None)
    return {**obj, "metadata": meta}


def _emitted(front_end: str, folder: Path, stdout: str) -> list[str]:
    """What a front end emitted, as sorted canonical JSON (one object each)."""
    if front_end == "krm":
        docs = yaml.safe_load(stdout)["items"]
    elif front_end == "hydrate-check":
        docs = [d for p in sorted((folder / "out").rglob("*.yaml")) for d in yaml.safe_load_all(p.read_text())]
    else:
        docs = list(yaml.safe_load_all(stdout))
    return sorted(json.dumps(_without_file_annotations(d), sort_keys=True) for d in docs if d)


def test_every_front_end_emits_the_objects_render_prints(tmp_path: Path) -> None:
    """One bundle over several files, with what two files' sources both render (the planner RBAC of the namespace):
    the KRM function and hydrate-check emit exactly the objects render prints, each once (the CMP adds
    Argo CD's sync options to workloads)."""
    configmap = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "settings", "namespace": NAMESPACE}, "data": {"a": "1"}}
    files = {
        "first.json": [dcd("alpha", type="frontend"), configmap, dgd("delta", "frontend")],
        "second.json": [dcd("beta", type="worker"), deployment("hand")],
        "third.json": [dgd("gamma", "frontend")],
    }
    emitted: dict[str, list[str]] = {}
    for front_end in ("render", "krm", "hydrate-check"):
        folder = tmp_path / front_end
        code, stdout, stderr = FRONT_ENDS[front_end](folder, files)
        assert code == (1 if front_end == "hydrate-check" else 0), stderr  # hydrate-check --fix wrote the files
        emitted[front_end] = _emitted(front_end, folder, stdout)
    names = [(d["kind"], d["metadata"]["name"]) for d in map(json.loads, emitted["render"])]
    assert len(names) == len(set(names)), "an object several sources render is emitted once"
    assert ("ConfigMap", "settings") in names and ("Deployment", "hand") in names
    assert ("ServiceAccount", "planner-serviceaccount") in names
    for front_end in ("krm", "hydrate-check"):
        assert emitted[front_end] == emitted["render"], front_end


def test_a_hand_written_copy_of_a_rendered_object_goes_where_render_puts_it(tmp_path: Path) -> None:
    """A file holding a copy of what another file's source renders: hydrate-check writes the rendered
    copy, in the rendering file's output, as render prints it (the hand-written copy is merged into it)."""
    code, stdout, stderr = run_render(tmp_path / "alone", {"b.json": [dcd("alpha", type="frontend")]})
    assert code == 0, stderr
    service = next(d for d in yaml.safe_load_all(stdout) if d and d["kind"] == "Service")
    annotations = {k: v for k, v in service["metadata"].pop("annotations", {}).items() if not k.startswith("dynamo-render.dev/")}
    if annotations:
        service["metadata"]["annotations"] = annotations
    files = {"a.json": [service], "b.json": [dcd("alpha", type="frontend")]}
    code, stdout, stderr = run_render(tmp_path / "render", files)
    assert code == 0, stderr
    printed = _emitted("render", tmp_path / "render", stdout)
    code, _, stderr = run_hydrate_check(tmp_path / "hydrate", files)
    assert code == 1 and "wrote" in stderr, stderr
    assert sorted(p.name for p in (tmp_path / "hydrate" / "out").iterdir()) == ["b.yaml"]
    assert _emitted("hydrate-check", tmp_path / "hydrate", "") == printed
    assert sum(json.loads(d)["kind"] == "Service" for d in printed) == 1
