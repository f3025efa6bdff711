"""The real pre-commit: content only a preservation annotation carries fails dynamo-validate until accepted."""

from __future__ import annotations

from pathlib import Path

import yaml

from tests.e2e.test_precommit import _hook_config, _pre_commit, _user_repo, hook_repo, pre_commit_home
from tests.e2e.test_preserved_content import BETA_DCD, PREFIX

__all__ = ["hook_repo", "pre_commit_home"]  # the fixtures this module uses

SETTINGS = yaml.safe_dump({
    "apiVersion": "config.dynamo-render.dev/v1alpha1",
    "kind": "DynamoRenderConfig",
    "spec": {"acceptPreservedContent": ["DynamoComponentDeployment/llm/fe"]},
})


def test_validate_fails_on_preserved_content_and_accepts_a_reviewed_source(
    tmp_path: Path, hook_repo: tuple[Path, str], pre_commit_home: Path
) -> None:
    files = {"deploy/fe.yaml": yaml.safe_dump(BETA_DCD), "render-settings.yaml": SETTINGS}
    plain = _user_repo(tmp_path / "plain", _hook_config(hook_repo, "      - id: dynamo-validate\n"), files)
    done = _pre_commit(plain, pre_commit_home, "dynamo-validate", "--files", "deploy/fe.yaml")
    assert done.returncode == 1, done.stdout + done.stderr
    output = done.stdout + done.stderr
    assert f"[error] DynamoComponentDeployment/fe metadata.annotations[nvidia.com/dcd-spec]: {PREFIX}" in output
    assert 'pod annotation "container.apparmor.security.beta.kubernetes.io/main" added ("unconfined")' in output

    hooks = "      - id: dynamo-validate\n        args: [--config, render-settings.yaml]\n"
    accepted = _user_repo(tmp_path / "accepted", _hook_config(hook_repo, hooks), files)
    done = _pre_commit(accepted, pre_commit_home, "dynamo-validate", "--files", "deploy/fe.yaml")
    assert done.returncode == 0, done.stdout + done.stderr
