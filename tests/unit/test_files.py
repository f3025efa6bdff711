"""The one directory walker (plugin/files.py) and the same folder through every front end."""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest

from plugin.files import walk_manifests
from plugin.frontends import cmp
from plugin.frontends import render as render_cmd
from tests.builders import write

DCD = """\
apiVersion: nvidia.com/v1beta1
kind: DynamoComponentDeployment
metadata:
  name: {name}
  namespace: llm
spec:
  type: frontend
  podTemplate:
    spec:
      containers:
        - name: main
          image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.9.0
"""


def test_order_hidden_entries_and_symlink_cycles(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    app = root / "app"
    for name in ("b.yaml", "a.yml", "c.json", "z/1.yaml", "m/2.yaml", "m/n/3.yaml", ".argocd-source.yaml", ".hidden/x.yaml", "README.md"):
        write(app / name, "{}\n")
    os.symlink("..", app / "m" / "up")  # a cycle back into the app folder
    files, problems = walk_manifests(str(app), confine_to=str(root))
    assert problems == []
    # A folder's files first, then its sub-folders by name.
    assert [d for _, d in files] == ["app/a.yml", "app/b.yaml", "app/c.json", "app/m/2.yaml", "app/m/n/3.yaml", "app/z/1.yaml"]
    unconfined, problems = walk_manifests(str(app))
    assert problems == [] and [real for real, _ in unconfined] == [real for real, _ in files]
    assert unconfined[0][1] == os.path.join(str(app), "a.yml")


def test_broken_symlink_to_a_manifest_is_reported(tmp_path: Path) -> None:
    app = tmp_path / "repo" / "app"
    app.mkdir(parents=True)
    os.symlink("missing.yaml", app / "dangling.yaml")
    files, problems = walk_manifests(str(app), confine_to=str(tmp_path / "repo"))
    assert files == [] and [p.line() for p in problems] == ["app/dangling.yaml: [error]: broken symlink (-> missing.yaml) [input]"]


def test_confinement_refuses_a_symlink_leading_outside(tmp_path: Path) -> None:
    write(tmp_path / "outside" / "x.yaml", "{}\n")
    app = tmp_path / "repo" / "app"
    app.mkdir(parents=True)
    os.symlink(str(tmp_path / "outside"), app / "out")
    files, problems = walk_manifests(str(app), confine_to=str(tmp_path / "repo"))
    assert files == [] and [p.message for p in problems] == [f"symlink points outside the repository (-> {tmp_path / 'outside'})"]
    # Without confinement (the render command, a user's own folder) the link is followed.
    files, problems = walk_manifests(str(app))
    assert problems == [] and [real for real, _ in files] == [str((tmp_path / "outside" / "x.yaml").resolve())]


@pytest.fixture
def linked_app(tmp_path: Path) -> Path:
    """An app folder whose manifests sit in a symlinked subfolder (and one beside it)."""
    repo = tmp_path / "repo"
    write(repo / "shared" / "a.yaml", DCD.format(name="alpha"))
    write(repo / "shared" / "b.yaml", DCD.format(name="beta"))
    write(repo / "app" / "c.yaml", DCD.format(name="gamma"))
    os.symlink("../shared", repo / "app" / "linked")
    return repo / "app"


def test_symlinked_subfolder_renders_the_same_through_every_front_end(linked_app: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out, err = io.StringIO(), io.StringIO()
    # The same objects: the CMP's own sync-option annotation (prune-last) is switched off.
    env = {"ARGOCD_APP_SOURCE_PATH": "app", "ARGOCD_APP_PARAMETERS": '[{"name":"prune-last","string":"false"}]'}
    code = cmp.generate(str(linked_app), env, out, err)
    assert code == 0, err.getvalue()
    via_cmp = out.getvalue()

    monkeypatch.chdir(linked_app)
    out, err = io.StringIO(), io.StringIO()
    code = render_cmd.run(["."], {}, out, err)
    assert code == 0, err.getvalue()
    assert out.getvalue() == via_cmp
    # Every DCD was found, the two behind the link included.
    for name in ("alpha", "beta", "gamma"):
        assert f"name: {name}\n" in via_cmp
