"""Every front end marks what it renders (``plugin.ownership``), and warns about marked objects renamed since.

The KRM function's marking and its re-run logic have their own tests (test_krm.py); here the
``render`` command, ``hydrate-check`` and the Argo CD plugin write the same marker, and each of
them warns when its input holds an object an earlier render made that was renamed after it.
"""

from __future__ import annotations

import io
import textwrap
from pathlib import Path
from typing import Any

import pytest
import yaml

from plugin.frontends import cmp, precommit_hydrate, render
from plugin.ownership import RENDERED_AS_ANNOTATION, RENDERED_FROM_ANNOTATION

WORKER = textwrap.dedent(
    """\
    apiVersion: nvidia.com/v1beta1
    kind: DynamoComponentDeployment
    metadata:
      name: worker
      namespace: llm
    spec:
      type: decode
      podTemplate:
        spec:
          containers:
            - name: main
              image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.5.0
    ---
    apiVersion: v1
    kind: ConfigMap
    metadata:
      name: hand-written
      namespace: llm
    data: {a: b}
    """
)


def _render(paths: list[str], **more: Any) -> tuple[int, list[dict[str, Any]], str]:
    out, err = io.StringIO(), io.StringIO()
    code = render.run(paths, more, out, err)
    return code, [d for d in yaml.safe_load_all(out.getvalue()) if d], err.getvalue()


def _annotations(obj: dict[str, Any]) -> dict[str, str]:
    return obj["metadata"].get("annotations") or {}


def _renamed(objects: list[dict[str, Any]], prefix: str, namespace: str) -> list[dict[str, Any]]:
    """What kustomize namePrefix and namespace do to the objects' metadata."""
    return [{**o, "metadata": {**o["metadata"], "name": prefix + o["metadata"]["name"], "namespace": namespace}} for o in objects]


def test_render_marks_every_object_it_renders_and_nothing_it_passes_through(tmp_path: Path) -> None:
    source = tmp_path / "worker.yaml"
    source.write_text(WORKER)
    code, objects, err = _render([str(source)])
    assert code == 0, err
    rendered = [o for o in objects if o["kind"] != "ConfigMap"]
    assert rendered
    for obj in rendered:
        assert _annotations(obj)[RENDERED_FROM_ANNOTATION] == "DynamoComponentDeployment/llm/worker"
        assert _annotations(obj)[RENDERED_AS_ANNOTATION] == f"llm/{obj['metadata']['name']}"
    (hand_written,) = [o for o in objects if o["kind"] == "ConfigMap"]
    assert RENDERED_FROM_ANNOTATION not in _annotations(hand_written)


def test_render_warns_about_rendered_objects_renamed_since(tmp_path: Path) -> None:
    source = tmp_path / "worker.yaml"
    source.write_text(WORKER)
    _, objects, _ = _render([str(source)])
    overlay = tmp_path / "overlay.yaml"
    overlay.write_text(yaml.safe_dump_all(_renamed(objects, "dev-", "dev")))
    code, _, err = _render([str(overlay)])
    assert code == 0, err
    assert "[warning] Deployment/dev-worker: rendered as llm/worker but now named dev/dev-worker" in err
    assert "ConfigMap" not in err  # never rendered: not marked, nothing to say
    code, _, err = _render([str(overlay)], strict=True)
    assert code == 1 and "strict is on" in err


def test_an_unrenamed_render_output_passes_through_silently(tmp_path: Path) -> None:
    source = tmp_path / "worker.yaml"
    source.write_text(WORKER)
    out = io.StringIO()
    assert render.run([str(source)], {}, out, io.StringIO()) == 0
    again = tmp_path / "again.yaml"
    again.write_text(out.getvalue())
    second, err = io.StringIO(), io.StringIO()
    assert render.run([str(again)], {}, second, err) == 0
    assert err.getvalue() == ""
    assert second.getvalue() == out.getvalue()


def test_hydrate_check_marks_its_output_and_warns_about_a_renamed_source(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "deploy").mkdir()
    (tmp_path / "deploy" / "worker.yaml").write_text(WORKER)
    out = io.StringIO()
    assert precommit_hydrate.run("deploy", "rendered", True, False, False, {}, out) == 1
    hydrated = [d for d in yaml.safe_load_all((tmp_path / "rendered" / "worker.yaml").read_text()) if d]
    deployment = next(o for o in hydrated if o["kind"] == "Deployment")
    assert _annotations(deployment)[RENDERED_FROM_ANNOTATION] == "DynamoComponentDeployment/llm/worker"
    # A folder of hydrated output renamed by an overlay, checked as a source of its own.
    (tmp_path / "renamed").mkdir()
    (tmp_path / "renamed" / "all.yaml").write_text(yaml.safe_dump_all(_renamed(hydrated, "dev-", "dev")))
    out = io.StringIO()
    precommit_hydrate.run("renamed", "rendered-again", False, False, False, {}, out)
    assert "[warning] Deployment/dev-worker: rendered as llm/worker but now named dev/dev-worker" in out.getvalue()


def test_the_argo_cd_plugin_marks_its_output(tmp_path: Path) -> None:
    app = tmp_path / "repo" / "apps" / "web"
    app.mkdir(parents=True)
    (app / "worker.yaml").write_text(WORKER)
    out, err = io.StringIO(), io.StringIO()
    env = {"ARGOCD_APP_SOURCE_PATH": "apps/web", "ARGOCD_APP_NAMESPACE": "llm", "TMPDIR": "/nonexistent"}
    assert cmp.generate(str(app), env, out, err) == 0, err.getvalue()
    objects = [d for d in yaml.safe_load_all(out.getvalue()) if d]
    deployment = next(o for o in objects if o["kind"] == "Deployment")
    assert _annotations(deployment)[RENDERED_FROM_ANNOTATION] == "DynamoComponentDeployment/llm/worker"
    assert _annotations(deployment)[RENDERED_AS_ANNOTATION] == "llm/worker"


def test_a_hydrated_copy_of_a_rendered_object_is_the_same_object_as_a_fresh_render(tmp_path: Path) -> None:
    """Sources and their committed hydrated output read together (dynamo-validate over a whole commit) do not clash."""
    source = tmp_path / "worker.yaml"
    source.write_text(WORKER)
    out = io.StringIO()
    assert render.run([str(source)], {}, out, io.StringIO()) == 0
    hydrated = tmp_path / "hydrated.yaml"
    hydrated.write_text(out.getvalue())
    code, objects, err = _render([str(source), str(hydrated)])
    assert (code, err) == (0, ""), err
    assert len(objects) == len([d for d in yaml.safe_load_all(out.getvalue()) if d])
    # A real difference is still a clash, marker or not.
    changed = tmp_path / "changed.yaml"
    assert "vllm-runtime:1.5.0" in out.getvalue()
    changed.write_text(out.getvalue().replace("vllm-runtime:1.5.0", "vllm-runtime:1.6.0"))
    code, _, err = _render([str(source), str(changed)])
    assert code == 1 and "identity clash" in err


@pytest.mark.parametrize(
    ("annotations", "same"),
    [
        ({RENDERED_FROM_ANNOTATION: "DynamoComponentDeployment/llm/a", RENDERED_AS_ANNOTATION: "llm/x"}, True),
        ({RENDERED_FROM_ANNOTATION: "DynamoComponentDeployment/llm/a", "team": "b"}, False),
        ({"team": "b"}, False),
    ],
    ids=["marker-only", "marker-and-content", "content"],
)
def test_the_clash_fingerprint_ignores_only_the_marker(annotations: dict[str, str], same: bool) -> None:
    from renderer.clashes import fingerprint

    bare = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x", "namespace": "llm"}}
    marked = {**bare, "metadata": {**bare["metadata"], "annotations": annotations}}
    assert (fingerprint(marked) == fingerprint(bare)) is same
