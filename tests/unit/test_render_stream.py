"""The streaming render path gives what the list path gives, and keeps the output contract.

``stream_bundle`` renders each source only when the consumer asks for its objects; the ``render`` command writes objects as they come into a buffer that spills to a
temporary file, and still writes nothing on stdout when anything failed.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import pytest

import plugin.frontends.render as render_cmd
from plugin.files import load_sources, read_sources
from plugin.settings import resolve_settings
from plugin.yamlio.codec import dump_documents, json_line
from renderer.bundle import Item, render_bundle, stream_bundle
from tests.fuzz.support import render

def _items(path: Path) -> list[Item]:
    sources, _ = read_sources([str(path)])
    documents, _ = load_sources(sources)
    return [Item(doc.obj, doc.file, doc.index) for doc in documents]


def test_the_stream_renders_each_source_only_when_asked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each object comes out as soon as its source is rendered: memory does not grow with the output.

    ``render_bundle`` is ``list(stream_bundle(...))``, so comparing the two would prove
    nothing; what the stream promises is that the next source is not rendered yet.
    """
    import renderer.bundle as bundle

    calls: list[str] = []
    real = bundle.render_component

    def counting(dcd: Any, *args: Any, **kwargs: Any) -> Any:
        calls.append(dcd.name)
        return real(dcd, *args, **kwargs)

    monkeypatch.setattr(bundle, "render_component", counting)
    settings, problems = resolve_settings()
    assert settings is not None, problems
    results: list[Any] = []
    stream = stream_bundle(_items(_bundle(tmp_path, 3)), settings.config, settings.namespace, results)
    first = next(stream)
    assert calls == ["web-0"] and first["metadata"]["name"].startswith("web-0")
    rest = list(stream)
    assert calls == ["web-0", "web-1", "web-2"]
    assert [first, *rest] == render_bundle(_items(_bundle(tmp_path, 3)), settings.config, settings.namespace).objects


def _bundle(tmp_path: Path, count: int, broken: bool = False) -> Path:
    docs = []
    for n in range(count):
        docs.append(
            "apiVersion: nvidia.com/v1beta1\nkind: DynamoComponentDeployment\n"
            f"metadata:\n  name: web-{n}\n  namespace: ns\n"
            "spec:\n  type: frontend\n  podTemplate:\n    spec:\n      containers:\n"
            "        - name: main\n          image: registry.example/frontend:1.0.0\n"
        )
    if broken:
        docs.append("apiVersion: nvidia.com/v1beta1\nkind: DynamoComponentDeployment\nmetadata:\n  name: bad\nspec:\n  replicas: -1\n")
    path = tmp_path / "bundle.yaml"
    path.write_text("---\n".join(docs), encoding="utf-8")
    return path


@pytest.mark.parametrize("output", ["yaml", "json"])
def test_spilled_output_is_the_same_stream(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, output: str) -> None:
    bundle = _bundle(tmp_path, 12)
    in_memory = render([bundle], output=output)
    assert in_memory.code == 0, in_memory.stderr
    monkeypatch.setattr(render_cmd.OutputBuffer, "MEMORY_LIMIT", 100)
    spilled = render([bundle], output=output)
    assert spilled.code == 0, spilled.stderr
    assert spilled.stdout == in_memory.stdout
    objects = [json.loads(line) for line in in_memory.stdout.splitlines()] if output == "json" else in_memory.objects()
    assert in_memory.stdout == ("".join(json_line(o) for o in objects) if output == "json" else dump_documents(objects))


def test_without_a_temporary_file_the_output_stays_in_memory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bundle = _bundle(tmp_path, 12)
    expected = render([bundle]).stdout

    def refuse(*args: object, **kwargs: object) -> None:
        raise OSError(30, "Read-only file system")

    monkeypatch.setattr(render_cmd.OutputBuffer, "MEMORY_LIMIT", 100)
    monkeypatch.setattr(tempfile, "TemporaryFile", refuse)
    run = render([bundle])
    assert run.code == 0, run.stderr
    assert run.stdout == expected


def test_nothing_on_stdout_when_a_late_object_fails(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The failing DCD comes after enough output to have spilled to the temporary file.
    monkeypatch.setattr(render_cmd.OutputBuffer, "MEMORY_LIMIT", 100)
    run = render([_bundle(tmp_path, 12, broken=True)])
    assert run.code == 1
    assert run.stdout == ""
    assert "spec.replicas" in run.stderr
