"""A YAML file of an app folder that holds no Kubernetes object (a Helm ``values.yaml``) is no source anywhere.

Argo CD's directory mode ignores such a file (reposerver findManifests), and so does the plugin
(tests/unit/test_cmp.py). Every other front end reads a folder by the same rule, so an app that
Argo CD syncs renders, validates, hydrates and diffs: ``render``, ``validate``, ``hydrate-check``
and ``diff --base`` with the real command and git. A file named on the command line is read as
asked, and is an error when it holds no object.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "vllm-agg.yaml"
VALUES = "replicaCount: 2\nimage:\n  repository: nvcr.io/nvidia/ai-dynamo/vllm-runtime\n  tag: 1.0.0\n"
NOTE = "app/values.yaml: [info]: not a Kubernetes manifest (no document has apiVersion and kind); ignored"


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    exe = Path(sys.executable).with_name("dynamo-render")
    command = [str(exe)] if exe.exists() else [sys.executable, "-m", "plugin"]
    return subprocess.run([*command, *args], cwd=cwd, capture_output=True, text=True, check=False, timeout=300)


def app(tmp_path: Path) -> Path:
    folder = tmp_path / "app"
    folder.mkdir()
    (folder / "graph.yaml").write_text(EXAMPLE.read_text())
    (folder / "values.yaml").write_text(VALUES)
    return tmp_path


def test_render_of_the_folder_ignores_the_values_file_with_a_note(tmp_path: Path) -> None:
    top = app(tmp_path)
    alone = tmp_path / "alone"
    alone.mkdir()
    (alone / "graph.yaml").write_text(EXAMPLE.read_text())
    done = cli("render", "-v", "app", cwd=top)
    assert done.returncode == 0, done.stderr
    assert NOTE in done.stderr
    assert done.stdout == cli("render", "alone", cwd=top).stdout.replace("alone/graph.yaml", "app/graph.yaml")
    assert "replicaCount" not in done.stdout


def test_the_values_file_named_on_the_command_line_is_an_error(tmp_path: Path) -> None:
    top = app(tmp_path)
    done = cli("render", "app/values.yaml", cwd=top)
    assert done.returncode == 1 and done.stdout == ""
    assert "app/values.yaml:1: [error]" in done.stderr and "apiVersion" in done.stderr


def test_validate_and_hydrate_check_pass_the_folder(tmp_path: Path) -> None:
    top = app(tmp_path)
    done = cli("validate", "app", cwd=top)
    assert done.returncode == 0, done.stdout + done.stderr
    fixed = cli("hydrate-check", "--fix", "app", "out", cwd=top)
    assert fixed.returncode == 1, fixed.stdout  # it wrote the outputs
    assert sorted(p.name for p in (top / "out").iterdir()) == ["graph.yaml"]
    again = cli("hydrate-check", "app", "out", cwd=top)
    assert again.returncode == 0, again.stdout


def test_diff_against_a_base_revision_reads_both_sides_by_the_same_rule(tmp_path: Path) -> None:
    top = app(tmp_path)
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
    for args in (["init", "-q"], ["add", "."], ["commit", "-qm", "app"]):
        subprocess.run(["git", *args], cwd=top, env=env, check=True, capture_output=True)
    (top / "app" / "values.yaml").write_text(VALUES.replace("replicaCount: 2", "replicaCount: 3"))
    done = cli("diff", "-o", "json", "--base", "HEAD", "app", cwd=top)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["changes"] == []
