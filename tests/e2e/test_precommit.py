"""The real pre-commit runs this repository's hooks in a throw-away git repository.

pre-commit installs a ``language: python`` hook by cloning the hook repository at ``rev`` and
pip-installing it into its own virtualenv, so the hook repository here is a git snapshot of the
working tree (tracked and new files, tests left out), committed in a temporary folder. This is
the same path a user's ``repo: https://...`` entry takes, minus the network clone.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]

GOOD = """\
apiVersion: nvidia.com/v1beta1
kind: DynamoComponentDeployment
metadata:
  name: agg-frontend
  namespace: llm
spec:
  type: frontend
  replicas: 1
  podTemplate:
    spec:
      containers:
        - name: main
          image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.9.0
"""

# Document 1 breaks the CRD schema (replicas has minimum 0); document 2 sets a field that
# corev1.Container does not have, which strict server-side validation rejects.
BAD = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
---
apiVersion: nvidia.com/v1beta1
kind: DynamoComponentDeployment
metadata:
  name: negative
spec:
  type: decode
  replicas: -1
  podTemplate:
    spec:
      containers:
        - name: main
          image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.9.0
---
apiVersion: nvidia.com/v1beta1
kind: DynamoComponentDeployment
metadata:
  name: typo
spec:
  type: decode
  podTemplate:
    spec:
      containers:
        - name: main
          image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.9.0
          imagePullPolice: Always
"""

WORKER = """\
apiVersion: nvidia.com/v1beta1
kind: DynamoComponentDeployment
metadata:
  name: worker
  namespace: llm
spec:
  backendFramework: vllm
  type: decode
  replicas: {replicas}
  podTemplate:
    spec:
      containers:
        - name: main
          image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.9.0
          command: [python3, -m, dynamo.vllm]
"""


def _line_of(text: str, needle: str) -> int:
    """1-based line of the only line of ``text`` that contains ``needle``."""
    found = [n for n, line in enumerate(text.splitlines(), start=1) if needle in line]
    assert len(found) == 1, (needle, found)
    return found[0]


def _git(cwd: Path, *args: str) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "test",
        "GIT_AUTHOR_EMAIL": "test@example.invalid",
        "GIT_COMMITTER_NAME": "test",
        "GIT_COMMITTER_EMAIL": "test@example.invalid",
        "GIT_CONFIG_NOSYSTEM": "1",
    }
    done = subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True)
    return done.stdout


def _project_files() -> list[str]:
    """Tracked and new (not ignored) files of the working tree, without the tests."""
    listed = _git(ROOT, "ls-files", "--cached", "--others", "--exclude-standard", "-z").split("\0")
    return sorted({p for p in listed if p and not p.startswith("tests/") and (ROOT / p).is_file()})


@pytest.fixture(scope="module")
def hook_repo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A git repository holding this working tree, and the commit to use as ``rev``."""
    repo = tmp_path_factory.mktemp("hook-repo")
    for relative in _project_files():
        target = repo / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / relative, target)
    assert (repo / ".pre-commit-hooks.yaml").is_file()
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "snapshot")
    return repo, _git(repo, "rev-parse", "HEAD").strip()


@pytest.fixture(scope="module")
def pre_commit_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One hook environment cache for the module: the pip install happens once."""
    return tmp_path_factory.mktemp("pre-commit-home")


def _hook_config(hook_repo: tuple[Path, str], hooks: str) -> str:
    repo, rev = hook_repo
    return f"repos:\n  - repo: {repo}\n    rev: {rev}\n    hooks:\n{hooks}"


def _user_repo(path: Path, config: str, files: dict[str, str]) -> Path:
    path.mkdir()
    _git(path, "init", "-q")
    (path / ".pre-commit-config.yaml").write_text(config)
    for relative, text in files.items():
        (path / relative).parent.mkdir(parents=True, exist_ok=True)
        (path / relative).write_text(text)
    _git(path, "add", "-A")
    return path


def _pre_commit(cwd: Path, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "PRE_COMMIT_NO_CONCURRENCY"}
    env["PRE_COMMIT_HOME"] = str(home)
    env["PRE_COMMIT_COLOR"] = "never"
    env["GIT_CONFIG_NOSYSTEM"] = "1"
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", "run", "--color", "never", *args],
        cwd=cwd,
        env=env,
        check=False,
        capture_output=True,
        text=True,
        timeout=900,
    )


@pytest.fixture
def validate_repo(tmp_path: Path, hook_repo: tuple[Path, str]) -> Iterator[Path]:
    config = _hook_config(hook_repo, "      - id: dynamo-validate\n")
    yield _user_repo(tmp_path / "user", config, {"deploy/good.yaml": GOOD, "deploy/bad.yaml": BAD, "docs/notes.txt": "x\n"})


def test_validate_passes_a_good_file(validate_repo: Path, pre_commit_home: Path) -> None:
    done = _pre_commit(validate_repo, pre_commit_home, "dynamo-validate", "--files", "deploy/good.yaml")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Passed" in done.stdout


def test_validate_reports_bad_documents_with_their_lines(validate_repo: Path, pre_commit_home: Path) -> None:
    done = _pre_commit(validate_repo, pre_commit_home, "dynamo-validate", "--all-files")
    assert done.returncode == 1, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    replicas = _line_of(BAD, "replicas: -1")
    typo = _line_of(BAD, "imagePullPolice")
    assert f"deploy/bad.yaml:{replicas}: [error] DynamoComponentDeployment/negative spec.replicas: must be >= 0 (got -1) [schema]" in lines
    assert (
        f'deploy/bad.yaml:{typo}: [error] DynamoComponentDeployment/typo '
        f'spec.podTemplate.spec.containers[0].imagePullPolice: unknown field "imagePullPolice": the API server would prune this field and the operator would ignore it; fix: did you mean "imagePullPolicy"? [unknown-field]'
    ) in lines
    assert not any(line.startswith("deploy/good.yaml") for line in lines), done.stdout


def test_validate_runs_on_json_sources(validate_repo: Path, pre_commit_home: Path) -> None:
    """kubectl, Argo CD and dynamo-render read .json manifests: the hook checks them too."""
    docs = [d for d in yaml.safe_load_all(BAD) if d]
    (validate_repo / "deploy" / "bad.json").write_text(json.dumps(docs[1], indent=2) + "\n")
    _git(validate_repo, "add", "-A")
    done = _pre_commit(validate_repo, pre_commit_home, "dynamo-validate", "--files", "deploy/bad.json", "deploy/good.yaml")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "deploy/bad.json:" in done.stdout and "[error] DynamoComponentDeployment/" in done.stdout, done.stdout
    assert not any(line.startswith("deploy/good.yaml") for line in done.stdout.splitlines())


def test_validate_in_parallel_chunks_reports_every_bad_file(tmp_path: Path, hook_repo: tuple[Path, str], pre_commit_home: Path) -> None:
    files = {f"deploy/ok-{n:02d}.yaml": GOOD.replace("agg-frontend", f"frontend-{n:02d}") for n in range(40)}
    files["deploy/a-bad.yaml"] = BAD
    # renamed: two files defining one object would also be an identity clash
    files["deploy/z-bad.yaml"] = BAD.replace("name: settings", "name: settings-z").replace("name: typo", "name: typo-z")
    config = _hook_config(hook_repo, "      - id: dynamo-validate\n")
    repo = _user_repo(tmp_path / "many", config, files)
    done = _pre_commit(repo, pre_commit_home, "dynamo-validate", "--all-files")
    assert done.returncode == 1, done.stdout + done.stderr
    errors = [line for line in done.stdout.splitlines() if ": [error] " in line]
    assert sorted({line.split(":", 1)[0] for line in errors}) == ["deploy/a-bad.yaml", "deploy/z-bad.yaml"]
    assert len(errors) == 4


def _render_to(source: str, output: str, cwd: Path) -> None:
    """Write hydrated output the way a user's earlier commit would have (the real command)."""
    done = subprocess.run(
        [sys.executable, "-m", "plugin", "hydrate-check", "--fix", source, output],
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        check=False,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 1 and "wrote " in done.stdout, done.stdout + done.stderr


def test_hydrate_check_fails_on_stale_output_and_fix_repairs_it(
    tmp_path: Path, hook_repo: tuple[Path, str], pre_commit_home: Path
) -> None:
    hooks = (
        "      - id: dynamo-hydrate-check\n"
        "        alias: hydrate-check\n"
        "        args: [deploy, rendered]\n"
        "      - id: dynamo-hydrate-check\n"
        "        alias: hydrate-fix\n"
        "        args: [--fix, deploy, rendered]\n"
    )
    files = {"deploy/worker.yaml": WORKER.format(replicas=1), "deploy/retired.yaml": GOOD}
    repo = _user_repo(tmp_path / "hydrated", _hook_config(hook_repo, hooks), files)
    # An earlier commit: rendered output for one replica and a since-retired frontend, and a
    # hand-written kustomization that the hook must leave alone.
    _render_to("deploy", "rendered", repo)
    (repo / "rendered" / "kustomization.yaml").write_text("resources: [worker.yaml]\n")
    (repo / "deploy" / "worker.yaml").write_text(WORKER.format(replicas=2))
    (repo / "deploy" / "retired.yaml").unlink()
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "stale")

    check = _pre_commit(repo, pre_commit_home, "hydrate-check", "--all-files")
    assert check.returncode == 1, check.stdout + check.stderr
    assert "--- a/rendered/worker.yaml\n+++ b/rendered/worker.yaml\n" in check.stdout
    assert "\n-  replicas: 1\n+  replicas: 2\n" in check.stdout
    assert "--- a/rendered/retired.yaml\n+++ /dev/null\n" in check.stdout
    assert _git(repo, "status", "--porcelain") == ""  # a check never writes

    fix = _pre_commit(repo, pre_commit_home, "hydrate-fix", "--all-files")
    assert fix.returncode == 1, fix.stdout + fix.stderr
    assert "files were modified by this hook" in fix.stdout
    assert "wrote rendered/worker.yaml" in fix.stdout
    assert "removed stale rendered/retired.yaml" in fix.stdout
    assert not (repo / "rendered" / "retired.yaml").exists()
    assert (repo / "rendered" / "kustomization.yaml").read_text() == "resources: [worker.yaml]\n"
    assert "  replicas: 2\n" in (repo / "rendered" / "worker.yaml").read_text()

    _git(repo, "add", "-A")
    again = _pre_commit(repo, pre_commit_home, "--all-files")
    assert again.returncode == 0, again.stdout + again.stderr
    assert again.stdout.count("Passed") == 2


def test_git_commit_is_blocked_until_the_rendered_output_is_staged(
    tmp_path: Path, hook_repo: tuple[Path, str], pre_commit_home: Path
) -> None:
    hooks = "      - id: dynamo-validate\n      - id: dynamo-hydrate-check\n        args: [--fix, deploy, rendered]\n"
    repo = _user_repo(tmp_path / "committing", _hook_config(hook_repo, hooks), {"deploy/worker.yaml": WORKER.format(replicas=1)})
    env = {**os.environ, "PRE_COMMIT_HOME": str(pre_commit_home), "PRE_COMMIT_COLOR": "never"}
    subprocess.run([sys.executable, "-m", "pre_commit", "install"], cwd=repo, env=env, check=True, capture_output=True)

    def commit(message: str) -> tuple[int, str]:
        git_env = {**env, "GIT_CONFIG_NOSYSTEM": "1", "GIT_AUTHOR_NAME": "test", "GIT_AUTHOR_EMAIL": "test@example.invalid",
                   "GIT_COMMITTER_NAME": "test", "GIT_COMMITTER_EMAIL": "test@example.invalid"}
        # git hands a hook's standard output to its own standard error
        done = subprocess.run(["git", "commit", "-q", "-m", message], cwd=repo, env=git_env, capture_output=True, text=True, check=False)
        return done.returncode, done.stdout + done.stderr

    # The first commit has no rendered output: the hook writes it, and the commit stops
    # (a written file that nobody staged does not count as committed).
    code, out = commit("sources")
    assert code == 1, out
    assert "wrote rendered/worker.yaml" in out
    assert commit("sources")[0] == 1
    _git(repo, "add", "rendered")
    code, out = commit("sources")
    assert code == 0, out

    # A source change staged without its rendered output is refused the same way.
    (repo / "deploy" / "worker.yaml").write_text(WORKER.format(replicas=2))
    _git(repo, "add", "deploy")
    code, out = commit("two replicas")
    assert code == 1, out
    assert "wrote rendered/worker.yaml" in out
    _git(repo, "add", "rendered")
    assert commit("two replicas")[0] == 0

    # An invalid source never reaches the rendered tree: validate names the line.
    (repo / "deploy" / "worker.yaml").write_text(WORKER.format(replicas=-2))
    _git(repo, "add", "deploy")
    code, out = commit("negative")
    assert code == 1
    row = _line_of(WORKER, "replicas:")
    assert f"deploy/worker.yaml:{row}: [error] DynamoComponentDeployment/worker spec.replicas: must be >= 0 (got -2) [schema]" in out.splitlines()
    assert _git(repo, "log", "--format=%s") == "two replicas\nsources\n"


def test_the_fix_hint_of_the_hook_runs_from_a_shell_without_dynamo_render(
    tmp_path: Path, hook_repo: tuple[Path, str], pre_commit_home: Path
) -> None:
    """The hint's command works where the hook's output is read: no ``dynamo-render`` on PATH there."""
    hooks = "      - id: dynamo-hydrate-check\n        args: [deploy, rendered]\n"
    repo = _user_repo(tmp_path / "hint", _hook_config(hook_repo, hooks), {"deploy/worker.yaml": WORKER.format(replicas=1)})
    _render_to("deploy", "rendered", repo)
    (repo / "deploy" / "worker.yaml").write_text(WORKER.format(replicas=2))
    _git(repo, "add", "-A")
    check = _pre_commit(repo, pre_commit_home, "--all-files")
    assert check.returncode == 1, check.stdout + check.stderr
    [hint] = [line for line in check.stdout.splitlines() if "differ from a fresh render; run: " in line]
    command = hint.split("; run: ", 1)[1]
    assert "hydrate-check --fix --tracked-only deploy rendered" in command, command
    shell = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "GIT_CONFIG_NOSYSTEM": "1"}
    assert subprocess.run(["sh", "-c", "command -v dynamo-render"], env=shell, check=False).returncode != 0
    fix = subprocess.run(["sh", "-c", command], cwd=repo, env=shell, check=False, capture_output=True, text=True)
    assert fix.returncode == 1 and "wrote rendered/worker.yaml" in fix.stdout, fix.stdout + fix.stderr
    _git(repo, "add", "-A")
    again = _pre_commit(repo, pre_commit_home, "--all-files")
    assert again.returncode == 0, again.stdout + again.stderr
