"""``dynamo-render diff``: real renders of two versions of a graph, compared by what they do.

Each case renders a DGD (frontend plus a vLLM decode worker on GPUs) before and after one edit,
through the installed ``dynamo-render`` command, and checks the classification the issue asks
for: a worker image change is one ``replaced`` entry (the worker hash renames the workload),
a replica change is ``scaled`` with its GPU delta, a frontend image change is ``rolled`` with the
untouched worker absent from the report; ``--base REV`` reads the old side from git.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.positions import document_start, line_of

DGD = """\
apiVersion: nvidia.com/v1beta1
kind: DynamoGraphDeployment
metadata:
  name: chat
  namespace: llm
spec:
  components:
  - name: frontend
    type: frontend
    podTemplate:
      spec:
        containers:
        - name: main
          image: {frontend_image}
  - name: decode
    type: decode
    replicas: {replicas}
    podTemplate:
      spec:
        containers:
        - name: main
          image: {worker_image}
          command: ["python3", "-m", "dynamo.vllm"]
          args: ["--model", "Qwen/Qwen3-0.6B"]
          resources:
            limits:
              nvidia.com/gpu: "{gpus}"
"""

BASE = {
    "frontend_image": "registry.example/runtime:1.5.0",
    "worker_image": "registry.example/runtime:1.5.0",
    "replicas": 2,
    "gpus": 2,
}


def _write(path: Path, **changes: Any) -> Path:
    path.write_text(DGD.format(**{**BASE, **changes}))
    return path


def _cli() -> list[str]:
    exe = Path(sys.executable).with_name("dynamo-render")
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "plugin"]


def _diff(*args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*_cli(), "diff", *map(str, args)], capture_output=True, text=True, cwd=cwd, check=False)


def _json(*args: str | Path, cwd: Path | None = None) -> dict[str, Any]:
    proc = _diff("-o", "json", *args, cwd=cwd)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def _workloads(report: dict[str, Any]) -> list[dict[str, Any]]:
    return [c for c in report["changes"] if c["kind"] in ("Deployment", "LeaderWorkerSet", "PodCliqueSet")]


def test_worker_image_change_is_one_replacement_with_gpus_unchanged(tmp_path: Path) -> None:
    old = _write(tmp_path / "old.yaml")
    new = _write(tmp_path / "new.yaml", worker_image="registry.example/runtime:1.5.1")
    report = _json(old, new)
    workloads = _workloads(report)
    assert [c["action"] for c in workloads] == ["replaced"]
    (change,) = workloads
    assert change["name"].startswith("chat-decode-") and change["replacedBy"].startswith("chat-decode-")
    assert change["name"] != change["replacedBy"]
    # No separate added/removed entry for the two worker names.
    names = {c["name"] for c in report["changes"]}
    assert change["replacedBy"] not in names
    # the new workers start before the old ones are pruned: 4 more GPUs at the peak
    assert report["gpus"] == {"before": 4, "after": 4, "peak": 8, "byNamespace": {"llm": {"before": 4, "after": 4, "peak": 8}}}
    assert report["pods"]["before"] == report["pods"]["after"] == 3


def test_worker_replica_change_is_scaled_with_the_gpu_delta(tmp_path: Path) -> None:
    old = _write(tmp_path / "old.yaml")
    new = _write(tmp_path / "new.yaml", replicas=3)
    report = _json(old, new)
    assert [(c["action"], c["kind"]) for c in report["changes"]] == [("scaled", "Deployment")]
    (change,) = report["changes"]
    assert change["gpus"] == {"before": 4, "after": 6}
    assert (report["gpus"]["before"], report["gpus"]["after"]) == (4, 6)
    assert (report["pods"]["before"], report["pods"]["after"]) == (3, 4)


def test_frontend_image_change_rolls_the_frontend_and_leaves_workers_out(tmp_path: Path) -> None:
    old = _write(tmp_path / "old.yaml")
    new = _write(tmp_path / "new.yaml", frontend_image="registry.example/runtime:1.5.1")
    report = _json(old, new)
    workloads = _workloads(report)
    assert [(c["action"], c["name"]) for c in workloads] == [("rolled", "chat-frontend")]
    assert not any(c["name"].startswith("chat-decode") for c in report["changes"])
    assert report["gpus"]["before"] == report["gpus"]["after"] == 4


def test_gpu_count_change_replaces_the_worker_and_reports_the_new_total(tmp_path: Path) -> None:
    old = _write(tmp_path / "old.yaml")
    new = _write(tmp_path / "new.yaml", gpus=4)
    report = _json(old, new)
    (change,) = _workloads(report)
    assert change["action"] == "replaced"
    assert change["gpus"] == {"before": 4, "after": 8}
    assert (report["gpus"]["before"], report["gpus"]["after"]) == (4, 8)


def test_no_change_and_exit_code(tmp_path: Path) -> None:
    old = _write(tmp_path / "old.yaml")
    same = _write(tmp_path / "same.yaml")
    proc = _diff("--exit-code", old, same)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("no changes\n")
    changed = _write(tmp_path / "new.yaml", replicas=1)
    proc = _diff("--exit-code", old, changed)
    assert proc.returncode == 1
    assert "scaled" in proc.stdout
    # Without --exit-code a change is still success.
    assert _diff(old, changed).returncode == 0


def test_added_and_removed_graphs(tmp_path: Path) -> None:
    empty = tmp_path / "empty.yaml"
    empty.write_text("")
    dgd = _write(tmp_path / "dgd.yaml")
    added = _json(empty, dgd)
    assert {c["action"] for c in added["changes"]} == {"added"}
    assert (added["gpus"]["before"], added["gpus"]["after"]) == (0, 4)
    removed = _json(dgd, empty)
    assert {c["action"] for c in removed["changes"]} == {"removed"}
    assert (removed["gpus"]["before"], removed["gpus"]["after"]) == (4, 0)
    # Every change names the graph it was rendered from, on the side that has it.
    for report in (added, removed):
        # at the line where its document starts
        assert {c["source"] for c in report["changes"]} == {f"DynamoGraphDeployment/llm/chat ({dgd}:{document_start(dgd.read_text(), 0)})"}


def test_a_changed_hand_written_object_names_its_own_document(tmp_path: Path) -> None:
    config_map = "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {{name: settings, namespace: llm}}\ndata: {{a: '{}'}}\n"
    old = _write(tmp_path / "old.yaml")
    old.write_text(old.read_text() + config_map.format(1))
    new = _write(tmp_path / "new.yaml")
    new.write_text(new.read_text() + config_map.format(2))
    (change,) = _json(old, new)["changes"]
    line = document_start(new.read_text(), 1)
    assert (change["action"], change["kind"], change["source"]) == ("changed", "ConfigMap", f"ConfigMap/llm/settings ({new}:{line})")


def test_text_and_markdown_reports(tmp_path: Path) -> None:
    old = _write(tmp_path / "old.yaml")
    new = _write(tmp_path / "new.yaml", worker_image="registry.example/runtime:1.5.1", replicas=3)
    text = _diff(old, new)
    assert text.returncode == 0, text.stderr
    first = text.stdout.splitlines()[0]
    assert first.startswith("replaced  Deployment llm/chat-decode-") and " -> chat-decode-" in first
    assert "GPUs 4 -> 6 (+2)" in first
    assert "GPUs: 4 -> 6 (+2); pods: 3 -> 4 (+1)" in text.stdout
    markdown = _diff("-o", "markdown", old, new)
    assert markdown.returncode == 0, markdown.stderr
    assert "| action | object | GPUs | what happens |" in markdown.stdout
    assert "| replaced | `Deployment llm/chat-decode-" in markdown.stdout


def test_a_side_that_fails_to_render_is_exit_1_with_the_problem(tmp_path: Path) -> None:
    old = _write(tmp_path / "old.yaml")
    bad = tmp_path / "bad.yaml"
    text = DGD.format(**BASE).replace("type: decode", "type: nonsense")
    bad.write_text(text)
    proc = _diff(old, bad)
    assert proc.returncode == 1
    assert proc.stdout == ""
    assert f"bad.yaml:{line_of(text, 'type: nonsense')}: [error]" in proc.stderr and "type" in proc.stderr


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    old = _write(tmp_path / "old.yaml")
    assert _diff(old).returncode == 2
    assert _diff("-o", "xml", old, old).returncode == 2


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_base_revision_in_a_git_repository(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "apps").mkdir(parents=True)
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}

    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True)

    git("init", "-q")
    _write(repo / "apps" / "chat.yaml")
    git("add", ".")
    git("commit", "-qm", "chat")
    _write(repo / "apps" / "chat.yaml", worker_image="registry.example/runtime:1.5.1")
    report = _json("--base", "HEAD", "apps", cwd=repo)
    assert [c["action"] for c in _workloads(report)] == ["replaced"]
    start = document_start((repo / "apps" / "chat.yaml").read_text(), 0)
    assert _workloads(report)[0]["source"] == f"DynamoGraphDeployment/llm/chat (apps/chat.yaml:{start})"
    # A file added since the base revision: everything in it is added.
    (repo / "apps" / "second.yaml").write_text(DGD.format(**BASE).replace("name: chat", "name: second"))
    report = _json("--base", "HEAD", "apps", cwd=repo)
    actions = {(c["action"], c["name"].split("-")[0]) for c in _workloads(report)}
    assert ("added", "second") in actions and ("replaced", "chat") in actions
    # A whole path new since the base revision.
    (repo / "new").mkdir()
    _write(repo / "new" / "x.yaml")
    report = _json("--base", "HEAD", "new", cwd=repo)
    assert {c["action"] for c in report["changes"]} == {"added"}
    # A graph deleted since the base revision is named by its file there, as REV:path.
    git("add", ".")
    git("commit", "-qm", "second")
    (repo / "apps" / "second.yaml").unlink()
    report = _json("--base", "HEAD", "apps", cwd=repo)
    assert {(c["action"], c["source"]) for c in report["changes"]} == {
        ("removed", f"DynamoGraphDeployment/llm/second (HEAD:apps/second.yaml:{start})")
    }
    # An unknown revision is one line, exit 1.
    proc = _diff("--base", "no-such-rev", "apps", cwd=repo)
    assert proc.returncode == 1 and "no-such-rev" in proc.stderr and proc.stdout == ""
    # Problems in the base revision's files name them as REV:path.
    (repo / "apps" / "chat.yaml").write_text(DGD.format(**BASE).replace("type: decode", "type: nonsense"))
    git("add", ".")
    git("commit", "-qm", "broken")
    _write(repo / "apps" / "chat.yaml")
    proc = _diff("--base", "HEAD", "apps", cwd=repo)
    assert proc.returncode == 1
    line = line_of(DGD.format(**BASE).replace("type: decode", "type: nonsense"), "type: nonsense")
    assert f"HEAD:apps/chat.yaml:{line}: [error]" in proc.stderr


def test_settings_files_inside_the_compared_folder_are_configuration_on_both_sides(tmp_path: Path) -> None:
    """The base revision's copies of the named config and state files are not rendered either."""
    repo = tmp_path / "repo"
    (repo / "apps" / "state").mkdir(parents=True)
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
    _write(repo / "apps" / "chat.yaml")
    (repo / "apps" / "settings.yaml").write_text(
        "apiVersion: config.dynamo-render.dev/v1alpha1\nkind: DynamoRenderConfig\nmetadata: {name: s}\nspec: {companions: false}\n"
    )
    (repo / "apps" / "state" / "secret.yaml").write_text(
        "apiVersion: v1\nkind: Secret\nmetadata: {name: live, namespace: llm}\ndata: {token: czNjcjN0}\n"
    )
    for args in (["init", "-q"], ["add", "."], ["commit", "-qm", "chat"]):
        subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True)
    _write(repo / "apps" / "chat.yaml", replicas=3)
    proc = _diff("-o", "json", "--config", "apps/settings.yaml", "--cluster-state", "apps/state", "--base", "HEAD", "apps",
                 cwd=repo)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert not [c for c in report["changes"] if c["kind"] in ("Secret", "DynamoRenderConfig")]
    assert [c["action"] for c in _workloads(report)] == ["scaled"]
    assert "is configuration" not in proc.stderr


@pytest.mark.parametrize(
    ("name", "target"),
    [("host.yaml", "/etc/hostname"), ("up", "../../.."), ("escape.yaml", "../../outside.yaml")],
    ids=["absolute", "relative-up", "relative-file"],
)
def test_a_base_revision_symlink_out_of_the_tree_is_an_error_naming_rev_path(tmp_path: Path, name: str, target: str) -> None:
    """Issue 27 §4: a link in the base tree that leaves it is one line naming REV:path, exit 1, never a crash."""
    repo = tmp_path / "repo"
    (repo / "apps").mkdir(parents=True)
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
    _write(repo / "apps" / "chat.yaml")
    os.symlink(target, repo / "apps" / name)
    for args in (("init", "-q"), ("add", "."), ("commit", "-qm", "link")):
        subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True)
    (repo / "apps" / name).unlink()
    proc = _diff("--base", "HEAD", "apps", cwd=repo)
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout == ""
    assert proc.stderr == f"HEAD:apps/{name}: [error]: symlink points outside the repository (-> {target}); it is not read [input]\n"


def test_a_base_revision_symlink_inside_the_tree_is_followed(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "apps" / "shared").mkdir(parents=True)
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
    _write(repo / "apps" / "shared" / "chat.yaml")
    os.symlink("shared", repo / "apps" / "linked")
    for args in (("init", "-q"), ("add", "."), ("commit", "-qm", "link")):
        subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True)
    proc = _diff("--base", "HEAD", "apps", cwd=repo)
    assert proc.returncode == 0 and "no changes" in proc.stdout, proc.stderr
