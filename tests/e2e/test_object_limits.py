"""The object limits (docs/reliability.md "Input limits"): one clear error per run, in every front end.

Byte limits alone let small documents multiply (64 MiB of ``{}`` are millions of objects), so
one run reads at most ``MAX_OBJECTS`` objects and writes at most ``MAX_RENDERED_OBJECTS`` (the core's limit, ``RenderConfig.max_rendered_objects``). Past
either, the run stops with one line naming the limit: exit 1, nothing on stdout (render, CMP),
and the KRM function returns its ResourceList with every item unchanged and the error result.
"""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from plugin import files
from plugin.frontends import cmp, krm, precommit_hydrate, precommit_validate
from plugin.frontends import render as render_frontend
from renderer.config import MAX_RENDERED_OBJECTS
from renderer.records import replace

IMAGE = "nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.3.0"
LIMIT_LINE = f"the input holds more than {files.MAX_OBJECTS:,} objects, the limit per run"


def dcd(name: str) -> dict[str, Any]:
    return {
        "apiVersion": "nvidia.com/v1beta1",
        "kind": "DynamoComponentDeployment",
        "metadata": {"name": name, "namespace": "llm"},
        "spec": {"type": "frontend", "podTemplate": {"spec": {"containers": [{"name": "main", "image": IMAGE}]}}},
    }


def configmaps(count: int) -> str:
    """``count`` small objects, one document each."""
    return "".join(f"---\napiVersion: v1\nkind: ConfigMap\nmetadata: {{name: c{i}}}\n" for i in range(count))


@pytest.fixture(scope="module")
def too_many(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder: one DCD beside one object more than the limit allows (in two files)."""
    folder = tmp_path_factory.mktemp("too-many")
    (folder / "a-dcd.yaml").write_text(json.dumps(dcd("front")))
    (folder / "b-objects.yaml").write_text(configmaps(files.MAX_OBJECTS))
    return folder


def test_the_limits_are_the_documented_ones() -> None:
    readme = (Path(__file__).resolve().parents[2] / "docs" / "reliability.md").read_text()
    assert f"{files.MAX_OBJECTS:,} objects" in readme
    assert f"{MAX_RENDERED_OBJECTS:,}" in readme


def test_render(too_many: Path) -> None:
    out, err = io.StringIO(), io.StringIO()
    code = render_frontend.run([str(too_many)], {}, out, err)
    assert code == 1 and out.getvalue() == ""
    assert LIMIT_LINE in err.getvalue() and "b-objects.yaml" in err.getvalue()
    assert "Traceback" not in err.getvalue()


def test_cmp_generate(too_many: Path) -> None:
    out, err = io.StringIO(), io.StringIO()
    assert cmp.generate(str(too_many), {}, out, err) == 1
    assert out.getvalue() == ""
    assert LIMIT_LINE in err.getvalue()


def test_validate(too_many: Path) -> None:
    out = io.StringIO()
    code = precommit_validate.run([str(too_many / "a-dcd.yaml"), str(too_many / "b-objects.yaml")], {}, out)
    assert code == 1
    assert LIMIT_LINE in out.getvalue()


def test_hydrate_check(too_many: Path, tmp_path: Path) -> None:
    out = io.StringIO()
    code = precommit_hydrate.run(str(too_many), str(tmp_path / "out"), True, False, False, {}, out)
    assert code == 1
    assert LIMIT_LINE in out.getvalue()
    assert not (tmp_path / "out").exists()


def test_krm_returns_every_item_unchanged_with_the_error() -> None:
    count = files.MAX_OBJECTS + 1
    text = (
        "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"
        + "- " + json.dumps(dcd("front")) + "\n"
        + "".join(f"- {{apiVersion: v1, kind: ConfigMap, metadata: {{name: c{i}}}}}\n" for i in range(count - 1))
    )
    out, err = io.StringIO(), io.StringIO()
    assert krm.run_resource_list(text.encode(), out, err) == 1
    returned = yaml.load(out.getvalue(), Loader=yaml.CSafeLoader)
    assert returned["kind"] == "ResourceList"
    assert len(returned["items"]) == count
    assert returned["items"][0]["kind"] == "DynamoComponentDeployment"
    assert returned["items"][-1]["metadata"]["name"] == f"c{count - 2}"
    assert [r["message"] for r in returned["results"] if r["severity"] == "error"] == [
        f"{LIMIT_LINE}; split it into several runs"
    ]
    assert LIMIT_LINE in err.getvalue()


def test_krm_stops_at_the_rendered_object_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    # The real limit needs hundreds of thousands of objects; the check is the same at any size.
    resolve = krm.resolve_function_config

    def with_limit(config: Any, base_dir: str) -> Any:
        settings, problems = resolve(config, base_dir)
        assert settings is not None
        return replace(settings, config=replace(settings.config, max_rendered_objects=3)), problems

    monkeypatch.setattr(krm, "resolve_function_config", with_limit)
    items = [dcd("one"), dcd("two")]
    text = json.dumps({"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": items})
    out, err = io.StringIO(), io.StringIO()
    assert krm.run_resource_list(text.encode(), out, err) == 1
    returned = yaml.safe_load(out.getvalue())
    assert [i["metadata"]["name"] for i in returned["items"]] == ["one", "two"]
    assert "the input renders more than 3 objects, the limit per run" in err.getvalue()


def one_line_documents(count: int) -> str:
    """``count`` one-line documents: about 62 MB for a million, under the 64 MiB input limit."""
    return "".join(f"--- {{apiVersion: v1, kind: ConfigMap, metadata: {{name: c{i}}}}}\n" for i in range(count))


@pytest.mark.slow
def test_cmp_stops_at_the_object_limit_of_a_million_one_line_documents(tmp_path: Path) -> None:
    # Counted while reading: the CMP stops at the 100,001st object, within Argo CD's deadline
    # (the Sidecar's timeout), instead of parsing 62 MB into objects first.
    from tests.e2e.test_cmp import EXAMPLE_REPO, Sidecar, assert_failed

    sidecar = Sidecar(tmp_path, EXAMPLE_REPO)
    app = sidecar.repo / "apps" / "huge"
    app.mkdir()
    text = one_line_documents(1_000_000)
    assert text.count("---") == 10 * files.MAX_OBJECTS and len(text) < files.MAX_FILE_BYTES
    (app / "objects.yaml").write_text(text)
    del text
    run = sidecar.generate("apps/huge")
    assert_failed(run, re.escape(f"apps/huge/objects.yaml:{files.MAX_OBJECTS + 1}: [error]: {LIMIT_LINE}"))
    assert run.stderr.count("\n") == 2, run.stderr


def test_the_limit_error_names_the_first_document_past_it() -> None:
    budget = files.ObjectBudget(limit=3)
    documents, problems = budget.read(one_line_documents(10), "objects.yaml")
    assert documents is None
    assert [(p.file, p.index, p.message) for p in problems] == [
        ("objects.yaml", 3, "the input holds more than 3 objects, the limit per run; split it into several runs")
    ]


def test_reading_stops_at_the_first_object_past_the_limit() -> None:
    from plugin.yamlio.codec import load_documents

    # a broken document after the limit is never read
    text = one_line_documents(5) + "--- {broken\n"
    documents, problems = load_documents(text, "objects.yaml", limit=3)
    assert [d.index for d in documents] == [0, 1, 2, 3] and problems == []
    documents, problems = load_documents(text, "objects.yaml")
    assert len(documents) == 5 and len(problems) == 1
    # a JSON stream too
    stream = "".join(json.dumps({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"c{i}"}}) + "\n" for i in range(5))
    documents, problems = load_documents(stream, "objects.json", limit=1)
    assert [d.index for d in documents] == [0, 1] and problems == []
