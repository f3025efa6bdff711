"""The paths a settings file names stay inside its git work tree, in every front end.

A pull request writes the DynamoRenderConfig (or the KRM functionConfig) as it writes the
manifests. Its ``operatorConfigPath`` and ``clusterStatePath`` must not read ``/etc/passwd``,
another tree's OperatorConfiguration (whose NATS password would reach the report) or a file a
symlink in the tree points out to: each is one error at the field, in render, validate, the
KRM function and diff (its ``--old-config REV:path`` included). The CMP confines them already
(tests/e2e/test_cmp*.py).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.builders import CHAT_DGD, OPERATOR_CONFIG

CLI = str(Path(sys.executable).parent / "dynamo-render")
DGD = CHAT_DGD.format(image="registry.example/runtime:1.5.0")
SECRET_OPERATOR = OPERATOR_CONFIG


def _git(repo: Path, *args: str) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
    subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True)


def _config(path_key: str, value: str) -> str:
    return yaml.safe_dump({"apiVersion": "config.dynamo-render.dev/v1alpha1", "kind": "DynamoRenderConfig", "metadata": {"name": "r"}, "spec": {path_key: value}})


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    """A git work tree with an app; beside it, outside the tree, an OperatorConfiguration."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "operator.yaml").write_text(SECRET_OPERATOR)
    root = tmp_path / "repo"
    (root / "apps").mkdir(parents=True)
    (root / "apps" / "chat.yaml").write_text(DGD)
    (root / "deploy").mkdir()
    (root / "deploy" / "escape.yaml").symlink_to(outside / "operator.yaml")
    _git(root, "init", "-q", "-b", "main")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "base")
    return root


ESCAPES = {
    "absolute-etc-passwd": ("operatorConfigPath", "/etc/passwd", "must be a path relative"),
    "dot-dot-outside-the-tree": ("operatorConfigPath", "../../outside/operator.yaml", "leads outside the repository"),
    "symlink-out-of-the-tree": ("operatorConfigPath", "escape.yaml", "leads outside the repository"),
    "cluster-state-outside": ("clusterStatePath", "../../outside/operator.yaml", "leads outside the repository"),
}


def _one_error(done: subprocess.CompletedProcess[str], field: str, says: str) -> None:
    errors = [line for line in (done.stdout + done.stderr).splitlines() if "[error]" in line]
    assert done.returncode == 1, done.stdout + done.stderr
    assert len(errors) == 1 and f"spec.{field}" in errors[0] and says in errors[0], errors
    assert "nats" not in (done.stdout + done.stderr).lower()


@pytest.mark.parametrize("case", sorted(ESCAPES))
def test_a_config_file_cannot_name_a_file_outside_its_work_tree(case: str, repo: Path) -> None:
    field, value, says = ESCAPES[case]
    (repo / "deploy" / "render-config.yaml").write_text(_config(field, value))
    config = ["--config", "deploy/render-config.yaml"]
    _one_error(subprocess.run([CLI, "render", *config, "apps"], cwd=repo, capture_output=True, text=True, check=False), field, says)
    _one_error(subprocess.run([CLI, "validate", *config, "apps/chat.yaml"], cwd=repo, capture_output=True, text=True, check=False), field, says)
    _one_error(subprocess.run([CLI, "diff", *config, "apps/chat.yaml", "apps/chat.yaml"], cwd=repo, capture_output=True, text=True, check=False), field, says)


@pytest.mark.parametrize("case", sorted(ESCAPES))
def test_a_krm_function_config_cannot_name_a_file_outside_its_work_tree(case: str, repo: Path) -> None:
    field, value, says = ESCAPES[case]
    if case == "symlink-out-of-the-tree":
        value = "../deploy/escape.yaml"
    function_config = yaml.safe_load(_config(field, value))
    resource_list = {"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": [yaml.safe_load(DGD)], "functionConfig": function_config}
    done = subprocess.run([CLI, "krm"], cwd=repo / "apps", input=json.dumps(resource_list), capture_output=True, text=True, check=False)
    _one_error(done, field, says)


@pytest.mark.parametrize("case", ["absolute-etc-passwd", "dot-dot-outside-the-tree"])
def test_an_old_config_from_a_revision_cannot_name_a_file_outside_it(case: str, repo: Path) -> None:
    field, value, says = ESCAPES[case]
    (repo / "deploy" / "render-config.yaml").write_text(_config(field, value))
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "settings")
    (repo / "deploy" / "render-config.yaml").unlink()
    done = subprocess.run([CLI, "diff", "--base", "HEAD", "--old-config", "HEAD:deploy/render-config.yaml", "apps"], cwd=repo,
                          capture_output=True, text=True, check=False)
    _one_error(done, field, says)


def test_a_config_inside_the_tree_still_names_files_beside_it(repo: Path) -> None:
    (repo / "deploy" / "operator.yaml").write_text(SECRET_OPERATOR)
    (repo / "deploy" / "render-config.yaml").write_text(_config("operatorConfigPath", "operator.yaml"))
    done = subprocess.run([CLI, "render", "--config", "deploy/render-config.yaml", "apps"], cwd=repo, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
