"""``dynamo-render diff`` under old and new settings: what an operator or settings upgrade does.

The same DGD (a frontend and a vLLM decode worker on 2 GPUs, 2 replicas) is rendered under two
settings through the installed command. The expected outcomes come from the operator:

- ``infrastructure.natsAddress`` set: ``AddStandardEnvVars`` (internal/dynamo/graph.go) adds
  ``NATS_SERVER`` to the main container of every component's base pod spec
  (``GenerateBasePodSpec``), so the frontend and the worker both roll. The worker is not renamed:
  ``ComputeDGDWorkersSpecHash`` (internal/dynamo/hash.go) hashes the generated DCDs' labels,
  annotations and spec, and the operator configuration is none of them.
- ``operatorVersion`` changed: the defaulting webhook stamps it as the
  ``nvidia.com/dynamo-operator-origin-version`` annotation, ``propagateDGDAnnotations``
  (graph.go ``dgdPropagatedAnnotationKeys``) copies it into each component's pod template, which
  the worker hash covers (``workerHashSpec`` keeps the pod template): the worker is replaced.
  The frontend is not a worker (never hashed), and ``GetDCDKubeAnnotations`` leaves the
  annotation out of what reaches the pods (controller test
  ``getKubeAnnotations_DropsOperatorOriginVersion``): it does not roll.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from plugin import pr_report
from tests.e2e.test_diff import BASE, DGD, _diff, _workloads, _write

OPERATOR = """\
apiVersion: operator.config.dynamo.nvidia.com/v1alpha1
kind: OperatorConfiguration
mpi:
  sshSecretName: mpi-run-ssh-secret
  sshSecretNamespace: dynamo-system
rbac:
  plannerClusterRoleName: planner
  dgdrProfilingClusterRoleName: dgdr-profiling
  eppClusterRoleName: epp
"""
NATS = "nats://dynamo-nats.dynamo-system:4222"
WITH_NATS = OPERATOR + f"infrastructure:\n  natsAddress: {NATS}\n"
NATS_ADDED = f'container "main": env NATS_SERVER added ("{NATS}")'
NATS_REMOVED = 'container "main": env NATS_SERVER removed'


def _settings(path: Path, **spec: str) -> Path:
    body = ", ".join(f"{key}: {json.dumps(value)}" for key, value in spec.items())
    path.write_text(
        "apiVersion: config.dynamo-render.dev/v1alpha1\nkind: DynamoRenderConfig\nmetadata: {name: s}\n"
        f"spec: {{{body}}}\n"
    )
    return path


def _report(*args: str | Path, cwd: Path | None = None) -> dict[str, Any]:
    proc = _diff("-o", "json", *args, cwd=cwd)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def _actions(report: dict[str, Any]) -> dict[tuple[str, str], list[str]]:
    """(action, component) of each workload change, with its pod changes."""
    out = {}
    for change in _workloads(report):
        component = "decode" if change["name"].startswith("chat-decode-") else change["name"]
        out[(change["action"], component)] = change.get("podChanges", [])
    return out


def test_adding_nats_address_rolls_every_pod_that_gets_nats_server(tmp_path: Path) -> None:
    dgd = _write(tmp_path / "chat.yaml")
    (tmp_path / "old.yaml").write_text(OPERATOR)
    (tmp_path / "new.yaml").write_text(WITH_NATS)
    args = ("--old-operator-config", tmp_path / "old.yaml", "--operator-config", tmp_path / "new.yaml", dgd)
    report = _report(*args)
    assert _actions(report) == {("rolled", "decode"): [NATS_ADDED], ("rolled", "chat-frontend"): [NATS_ADDED]}
    assert {c["kind"] for c in report["changes"]} == {"Deployment"}
    assert report["gpus"]["before"] == report["gpus"]["after"] == 4
    # The same report as text and markdown, per workload; --exit-code says something changed.
    text = _diff(*args)
    assert text.returncode == 0
    lines = text.stdout.splitlines()
    assert lines[0].startswith("rolled    Deployment llm/chat-decode-") and lines[0].endswith("(4 GPUs)")
    assert lines[1].strip() == NATS_ADDED
    assert lines[2] == "rolled    Deployment llm/chat-frontend" and lines[3].strip() == NATS_ADDED
    markdown = _diff("-o", "markdown", *args).stdout
    assert "| rolled | `Deployment llm/chat-frontend` | - | pod template changed: pods restart |" in markdown
    assert markdown.count(f"`{NATS_ADDED}`") == 2
    assert _diff("--exit-code", *args).returncode == 1
    # The other way round (removing the address) rolls them back; the same content on both sides changes nothing.
    back = _report("--old-operator-config", tmp_path / "new.yaml", "--operator-config", tmp_path / "old.yaml", dgd)
    assert [c["podChanges"] for c in _workloads(back)] == [[NATS_REMOVED]] * 2
    shutil.copy(tmp_path / "old.yaml", tmp_path / "copy.yaml")
    same = _diff("--exit-code", "--old-operator-config", tmp_path / "old.yaml", "--operator-config", tmp_path / "copy.yaml", dgd)
    assert same.returncode == 0 and same.stdout.startswith("no changes"), same.stderr


def test_operator_version_replaces_the_worker(tmp_path: Path) -> None:
    dgd = _write(tmp_path / "chat.yaml")
    old = _settings(tmp_path / "old.yaml", operatorVersion="1.2.0")
    new = _settings(tmp_path / "new.yaml", operatorVersion="1.3.0")
    report = _report("--old-config", old, "--config", new, dgd)
    (worker,) = _workloads(report)
    assert worker["action"] == "replaced" and worker["name"] != worker["replacedBy"]
    assert worker["gpus"] == {"before": 4, "after": 4}
    assert {(c["action"], c["kind"]) for c in report["changes"]} == {("replaced", "Deployment"), ("replaced", "Service")}
    # An old flag not given takes the new side's value: the new config's operatorVersion on both sides.
    ops = tmp_path / "op.yaml"
    ops.write_text(WITH_NATS)
    report = _report("--old-operator-config", ops, "--config", new, dgd)
    assert _actions(report) == {("rolled", "decode"): [NATS_REMOVED], ("rolled", "chat-frontend"): [NATS_REMOVED]}


def test_old_settings_usage_errors_exit_2(tmp_path: Path) -> None:
    dgd = _write(tmp_path / "chat.yaml")
    settings = _settings(tmp_path / "s.yaml")
    cases = [
        ("--old-config", settings, "--config", settings, dgd),        # the same settings on both sides
        ("--old-config", settings, "--config", f"{tmp_path}/./s.yaml", dgd),   # the same file, named another way
        ("--old-operator-config", settings, "--operator-config", settings, "--config", settings, dgd),
        ("--old-config", settings, "-"),                              # stdin cannot be rendered twice
        ("--old-operator-config", "", dgd),                           # no file
        (dgd,),                                                       # neither OLD NEW nor old settings
    ]
    for args in cases:
        proc = _diff(*args)
        assert proc.returncode == 2, (args, proc.stderr)
        assert proc.stdout == ""
    assert "stdin (-) cannot be read twice" in _diff("--old-config", settings, "-").stderr
    # Two arguments with old settings are two PATHs rendered on both sides, not OLD and NEW.
    other = tmp_path / "other.yaml"
    other.write_text(DGD.format(**BASE).replace("name: chat", "name: other"))
    report = _report("--old-config", settings, "--config", _settings(tmp_path / "n.yaml", operatorVersion="9.9.9"), dgd, other)
    assert sorted(c["action"] for c in _workloads(report)) == ["replaced", "replaced"]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository whose settings (in the app folder) name an operator config without natsAddress at HEAD."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    root = tmp_path / "repo"
    (root / "apps").mkdir(parents=True)
    _write(root / "apps" / "chat.yaml")
    (root / "apps" / "operator.yaml").write_text(OPERATOR)
    _settings(root / "apps" / "render-config.yaml", operatorConfigPath="operator.yaml")
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
    for args in (["init", "-q"], ["add", "."], ["commit", "-qm", "chat"]):
        subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)
    # The change under review: the operator config gains natsAddress, and the worker a replica.
    (root / "apps" / "operator.yaml").write_text(WITH_NATS)
    _write(root / "apps" / "chat.yaml", replicas=3)
    return root


def test_base_with_old_settings_from_the_revision(repo: Path) -> None:
    config = "apps/render-config.yaml"
    # --settings-from-worktree: both sides use the work tree's settings, the worker only scales.
    report = _report("--config", config, "--base", "HEAD", "--settings-from-worktree", "apps", cwd=repo)
    assert _actions(report) == {("scaled", "decode"): []}
    # By default the settings named by path come from the base revision, as the sources do.
    default = _report("--config", config, "--base", "HEAD", "apps", cwd=repo)
    assert _actions(default) == {("rolled", "decode"): [NATS_ADDED], ("rolled", "chat-frontend"): [NATS_ADDED]}
    # HEAD:path reads the config, and the operator config it names, from the revision: the old
    # side has no natsAddress, so every pod rolls, and the worker also scales (4 -> 6 GPUs).
    proc = _diff("-o", "json", "--config", config, "--old-config", f"HEAD:{config}", "--base", "HEAD", "apps", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    assert "is configuration" not in proc.stderr and "DynamoRenderConfig" not in proc.stderr
    report = json.loads(proc.stdout)
    assert _actions(report) == {("rolled", "decode"): [NATS_ADDED], ("rolled", "chat-frontend"): [NATS_ADDED]}
    assert report["gpus"]["before"] == 4 and report["gpus"]["after"] == 6
    assert not [c for c in report["changes"] if c["kind"] in ("OperatorConfiguration", "DynamoRenderConfig")]
    # ./path is read from the working directory, as git show reads it.
    again = _report("--config", "render-config.yaml", "--old-config", "HEAD:./render-config.yaml", "--base", "HEAD", ".",
                    cwd=repo / "apps")
    assert _actions(again) == _actions(report) and again["gpus"] == report["gpus"]
    # The old operator config alone, from the revision; the new side's config file stays in effect.
    alone = _report("--config", config, "--old-operator-config", "HEAD:apps/operator.yaml", "--base", "HEAD", "apps", cwd=repo)
    assert alone["changes"] == report["changes"]


def test_old_settings_from_a_revision_that_lacks_them_is_one_error(repo: Path) -> None:
    proc = _diff("--old-config", "HEAD:apps/missing.yaml", "--config", "apps/render-config.yaml", "apps", cwd=repo)
    assert proc.returncode == 1 and proc.stdout == ""
    assert proc.stderr.strip() == "[error]: --old-config HEAD:apps/missing.yaml: no file apps/missing.yaml at revision HEAD [config]"
    proc = _diff("--old-config", "nope:apps/render-config.yaml", "--config", "apps/render-config.yaml", "apps", cwd=repo)
    assert proc.returncode == 1 and "unknown revision nope" in proc.stderr
    # A problem in the revision's file is named REV:path.
    (repo / "bad.yaml").write_text("apiVersion: config.dynamo-render.dev/v1alpha1\nkind: DynamoRenderConfig\nspec: {emit: nonsense}\n")
    subprocess.run(["git", "add", "bad.yaml"], cwd=repo, check=True)
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "bad"], cwd=repo, check=True)
    proc = _diff("--old-config", "HEAD:bad.yaml", "--config", "apps/render-config.yaml", "apps", cwd=repo)
    assert proc.returncode == 1 and proc.stderr.startswith("HEAD:bad.yaml"), proc.stderr


def test_pull_request_report_passes_the_old_settings_to_diff(repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(repo)
    summary = tmp_path / "summary.md"
    out, err = io.StringIO(), io.StringIO()
    argv = ["--base", "HEAD", "--no-comment", "--summary", str(summary), "apps", "--",
            "--config", "apps/render-config.yaml", "--old-config", "HEAD:apps/render-config.yaml"]
    assert pr_report.main(argv, {}, out, err) == 0, err.getvalue()
    text = summary.read_text()
    assert "| rolled | `Deployment llm/chat-frontend` |" in text and text.count(f"`{NATS_ADDED}`") == 2


def test_a_file_whose_name_has_a_colon_is_a_file_and_a_revision_folder_is_refused(repo: Path) -> None:
    (repo / "HEAD:old.yaml").write_text(OPERATOR)
    report = _report("--old-operator-config", "HEAD:old.yaml", "--config", "apps/render-config.yaml", "apps", cwd=repo)
    assert _actions(report) == {("rolled", "decode"): [NATS_ADDED], ("rolled", "chat-frontend"): [NATS_ADDED]}
    proc = _diff("--old-config", "HEAD:apps", "--config", "apps/render-config.yaml", "apps", cwd=repo)
    assert proc.returncode == 1 and proc.stderr.strip() == "[error]: --old-config HEAD:apps: apps is not a file at revision HEAD [config]"


def test_a_settings_file_that_is_a_symlink_in_the_revision_brings_its_target(repo: Path) -> None:
    (repo / "deploy").mkdir()
    (repo / "deploy" / "old-operator.yaml").write_text(OPERATOR)
    # Paths in it are relative to the folder it is named in (the link's), as for a work-tree file.
    _settings(repo / "deploy" / "render-config.yaml", operatorConfigPath="../deploy/old-operator.yaml")
    os.symlink("../deploy/render-config.yaml", repo / "apps" / "linked.yaml")
    subprocess.run(["git", "add", "deploy", "apps/linked.yaml"], cwd=repo, check=True)
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "link"], cwd=repo, check=True)
    proc = _diff("-o", "json", "--old-config", "HEAD:apps/linked.yaml", "--config", "apps/render-config.yaml", "apps", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    assert _actions(json.loads(proc.stdout)) == {("rolled", "decode"): [NATS_ADDED], ("rolled", "chat-frontend"): [NATS_ADDED]}
    # The link in the rendered folder is the old settings file: configuration, not a manifest.
    assert "linked.yaml" not in proc.stderr
    # A link out of the repository is not followed: one line naming it, exit 1.
    os.symlink("/etc/hostname", repo / "outside.yaml")
    subprocess.run(["git", "add", "outside.yaml"], cwd=repo, check=True)
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "out"], cwd=repo, check=True)
    proc = _diff("--old-config", "HEAD:outside.yaml", "--config", "apps/render-config.yaml", "apps", cwd=repo)
    assert proc.returncode == 1 and proc.stdout == ""
    assert proc.stderr == "HEAD:outside.yaml: [error]: symlink points outside the repository (-> /etc/hostname); it is not read [input]\n"
