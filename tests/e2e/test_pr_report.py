"""The change report in CI: ``action.yml`` and ``python -m plugin.pr_report`` on a real git repository.

A repository with a base commit (a DGD: frontend plus a vLLM worker) and a head commit (the
worker image bumped, which replaces the worker) is reported on as a pull request would be:
- the job summary and the dry-run comment hold the Markdown report with the replaced worker;
- ``--fail-on-replace`` fails the job, naming the workload; a head that does not render fails it too;
- against a loopback stand-in for the GitHub and GitLab APIs (the forges do not run here), the
  first run creates the comment and the next one finds it again by its marker, pages included,
  and updates it instead of adding a second;
- the action's own shell step runs as the runner would run it, and ``action.yml`` passes the
  maintained GitHub Actions metadata schema (check-jsonschema's vendored copy).
"""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import yaml

from plugin import pr_report
from tests.builders import CHAT_DGD

ROOT = Path(__file__).resolve().parents[2]

DGD = CHAT_DGD


def _git(repo: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
    return subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True, text=True).stdout.strip()


@pytest.fixture()
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Path, str]]:
    """A repository whose base commit runs image 1.5.0 and whose work tree bumps it to 1.5.1."""
    root = tmp_path / "repo"
    (root / "apps").mkdir(parents=True)
    _git(root, "init", "-q", "-b", "main")
    (root / "apps" / "chat.yaml").write_text(DGD.format(image="registry.example/runtime:1.5.0"))
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "base")
    base = _git(root, "rev-parse", "HEAD")
    (root / "apps" / "chat.yaml").write_text(DGD.format(image="registry.example/runtime:1.5.1"))
    _git(root, "commit", "-qam", "bump the worker")
    monkeypatch.chdir(root)
    yield root, base


def _event(tmp_path: Path, number: int = 7) -> Path:
    path = tmp_path / "event.json"
    path.write_text(json.dumps({"pull_request": {"number": number}}))
    return path


def _run(argv: list[str], env: dict[str, str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = pr_report.main(argv, env, out, err)
    return code, out.getvalue(), err.getvalue()


def test_dry_run_reports_the_replaced_worker_in_summary_and_comment(repo: tuple[Path, str], tmp_path: Path) -> None:
    root, base = repo
    summary = tmp_path / "summary.md"
    env = {"GITHUB_EVENT_PATH": str(_event(tmp_path)), "GITHUB_REPOSITORY": "o/r", "GITHUB_TOKEN": "t", "GITHUB_STEP_SUMMARY": str(summary)}
    code, out, err = _run(["--base", base, "--dry-run", "apps"], env)
    assert code == 0, err
    text = summary.read_text()
    assert "| replaced |" in text and "Deployment" in text and pr_report.MARKER not in text
    assert out.startswith("dry run: find the comment holding the marker in https://api.github.com/repos/o/r/issues/7/comments")
    assert pr_report.MARKER in out and "| replaced |" in out


def test_fail_on_replace_fails_and_names_the_workload(repo: tuple[Path, str], tmp_path: Path) -> None:
    _, base = repo
    code, _, err = _run(["--base", base, "--no-comment", "--fail-on-replace", "--summary", str(tmp_path / "s.md"), "apps"], {})
    assert code == 1
    assert re.search(r"error: the change replaces 2 object\(s\): Deployment/chat-decode-[0-9a-f]{8}, Service/chat-decode-[0-9a-f]{8}$", err, flags=re.M), err


def test_no_replacement_passes_with_fail_on_replace(repo: tuple[Path, str], tmp_path: Path) -> None:
    root, _ = repo
    head = _git(root, "rev-parse", "HEAD")
    code, _, err = _run(["--base", head, "--no-comment", "--fail-on-replace", "--summary", str(tmp_path / "s.md"), "apps"], {})
    assert code == 0, err
    assert "No change to rendered objects." in (tmp_path / "s.md").read_text()


def test_a_head_that_does_not_render_fails_with_its_problems(repo: tuple[Path, str], tmp_path: Path) -> None:
    root, base = repo
    (root / "apps" / "chat.yaml").write_text(DGD.format(image="registry.example/runtime:1.5.1").replace("replicas: 2", "replicas: two"))
    code, out, err = _run(["--base", base, "--dry-run", "--summary", str(tmp_path / "s.md"), "apps"], {"GITHUB_EVENT_PATH": str(_event(tmp_path)), "GITHUB_REPOSITORY": "o/r", "GITHUB_TOKEN": "t"})
    assert code == 1
    assert "**The change does not render.**" in out and "replicas" in out
    assert "apps/chat.yaml" in err


def test_a_base_missing_from_a_shallow_clone_is_fetched(repo: tuple[Path, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root, base = repo
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", "--depth=1", f"file://{root}", str(clone)], check=True)
    monkeypatch.chdir(clone)
    assert subprocess.run(["git", "cat-file", "-e", f"{base}^{{commit}}"], capture_output=True).returncode != 0
    subprocess.run(["git", "config", "uploadpack.allowAnySHA1InWant", "true"], cwd=root, check=True)
    code, _, err = _run(["--base", base, "--no-comment", "--summary", str(tmp_path / "s.md"), "apps"], {})
    assert code == 0, err
    assert "| replaced |" in (tmp_path / "s.md").read_text()


class _Forge(BaseHTTPRequestHandler):
    """A loopback stand-in for the comment endpoints of the GitHub and GitLab REST APIs."""

    comments: list[dict[str, Any]] = []
    requests: list[tuple[str, str, Any]] = []

    def _reply(self, status: int, payload: Any) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        page = int(re.search(r"[?&]page=(\d+)", self.path).group(1))  # type: ignore[union-attr]
        self.requests.append(("GET", self.path, None))
        self._reply(200, self.comments[(page - 1) * 100 : page * 100])

    def _body(self) -> Any:
        return json.loads(self.rfile.read(int(self.headers["Content-Length"])))

    def do_POST(self) -> None:
        payload = self._body()
        self.requests.append(("POST", self.path, payload))
        self.comments.append({"id": 1000 + len(self.comments), "body": payload["body"]})
        self._reply(201, self.comments[-1])

    def _update(self) -> None:
        payload = self._body()
        self.requests.append((self.command, self.path, payload))
        number = int(self.path.rsplit("/", 1)[1])
        for comment in self.comments:
            if comment["id"] == number:
                comment["body"] = payload["body"]
        self._reply(200, {"id": number})

    do_PATCH = _update
    do_PUT = _update

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture()
def forge() -> Iterator[tuple[str, type[_Forge]]]:
    handler = type("Forge", (_Forge,), {"comments": [], "requests": []})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", handler
    finally:
        server.shutdown()
        server.server_close()


def test_github_comment_is_created_once_then_updated(repo: tuple[Path, str], tmp_path: Path, forge: tuple[str, type[_Forge]]) -> None:
    _, base = repo
    api, handler = forge
    # 150 other comments: the report's own lands on the second page of the listing.
    handler.comments.extend({"id": i, "body": f"comment {i}"} for i in range(150))
    env = {"GITHUB_API_URL": api, "GITHUB_EVENT_PATH": str(_event(tmp_path, 42)), "GITHUB_REPOSITORY": "o/r", "GITHUB_TOKEN": "t"}
    argv = ["--base", base, "--summary", str(tmp_path / "s.md"), "apps"]
    assert _run(argv, env)[0] == 0
    posts = [r for r in handler.requests if r[0] == "POST"]
    assert [p[1] for p in posts] == ["/repos/o/r/issues/42/comments"] and pr_report.MARKER in posts[0][2]["body"]
    handler.requests.clear()
    assert _run(argv, env)[0] == 0
    assert [r[0] for r in handler.requests] == ["GET", "GET", "PATCH"]
    assert handler.requests[-1][1] == "/repos/o/r/issues/comments/1150"
    assert len(handler.comments) == 151


def test_gitlab_note_is_created_then_updated(repo: tuple[Path, str], tmp_path: Path, forge: tuple[str, type[_Forge]]) -> None:
    _, base = repo
    api, handler = forge
    env = {"CI_API_V4_URL": api + "/api/v4", "CI_PROJECT_ID": "12", "CI_MERGE_REQUEST_IID": "3", "GITLAB_TOKEN": "t"}
    argv = ["--provider", "gitlab", "--base", base, "--summary", str(tmp_path / "s.md"), "apps"]
    assert _run(argv, env)[0] == 0
    assert _run(argv, env)[0] == 0
    methods = [(r[0], r[1].split("?")[0]) for r in handler.requests]
    assert methods == [
        ("GET", "/api/v4/projects/12/merge_requests/3/notes"),
        ("POST", "/api/v4/projects/12/merge_requests/3/notes"),
        ("GET", "/api/v4/projects/12/merge_requests/3/notes"),
        ("PUT", "/api/v4/projects/12/merge_requests/3/notes/1000"),
    ]


def test_a_comment_that_cannot_be_posted_fails_the_job(repo: tuple[Path, str], tmp_path: Path) -> None:
    _, base = repo
    env = {"GITHUB_API_URL": "http://127.0.0.1:9", "GITHUB_EVENT_PATH": str(_event(tmp_path)), "GITHUB_REPOSITORY": "o/r", "GITHUB_TOKEN": "t"}
    code, _, err = _run(["--base", base, "--summary", str(tmp_path / "s.md"), "apps"], env)
    assert code == 1 and err.startswith("error: could not post the report:")


def _action() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load((ROOT / "action.yml").read_text())
    return loaded


def test_the_action_shell_step_runs_as_the_runner_runs_it(repo: tuple[Path, str], tmp_path: Path) -> None:
    """The composite step's script, with its inputs as the runner passes them (env) and this venv as the install."""
    _, base = repo
    step = _action()["runs"]["steps"][-1]
    runner_temp = tmp_path / "runner"
    (runner_temp / "dynamo-render" / "bin").mkdir(parents=True)
    (runner_temp / "dynamo-render" / "bin" / "python").symlink_to(sys.executable)
    summary = tmp_path / "summary.md"
    env = {
        **os.environ,
        "RUNNER_TEMP": str(runner_temp),
        "GITHUB_STEP_SUMMARY": str(summary),
        "PYTHONPATH": str(ROOT),
        "REPORT_BASE": base,
        "REPORT_PATHS": "apps\n",
        "REPORT_DIFF_OPTIONS": "-n llm",
        "REPORT_FAIL_ON_REPLACE": "true",
        "REPORT_COMMENT": "false",
        "REPORT_SETTINGS_FROM_WORKTREE": "false",
    }
    assert set(step["env"]) >= {"REPORT_BASE", "REPORT_PATHS", "REPORT_DIFF_OPTIONS", "REPORT_FAIL_ON_REPLACE", "REPORT_COMMENT", "REPORT_SETTINGS_FROM_WORKTREE"}
    done = subprocess.run(["bash", "-c", step["run"]], env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 1, done.stderr
    assert "error: the change replaces 2 object(s): Deployment/chat-decode-" in done.stderr
    assert "| replaced |" in summary.read_text()


def test_the_action_inputs_reach_its_steps() -> None:
    action = _action()
    assert action["runs"]["using"] == "composite"
    used = set(re.findall(r"inputs\.([a-z-]+)", (ROOT / "action.yml").read_text()))
    assert used == set(action["inputs"]), (used, set(action["inputs"]))
    assert action["inputs"]["base"]["default"] == "${{ github.event.pull_request.base.sha }}"


def _check_jsonschema() -> str:
    return str(Path(sys.executable).parent / "check-jsonschema")


def test_action_yml_passes_the_actions_metadata_schema() -> None:
    done = subprocess.run([_check_jsonschema(), "--builtin-schema", "vendor.github-actions", str(ROOT / "action.yml")], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_schema_check_refuses_a_broken_action(tmp_path: Path) -> None:
    broken = _action()
    del broken["runs"]["using"]
    path = tmp_path / "action.yml"
    path.write_text(yaml.safe_dump(broken))
    done = subprocess.run([_check_jsonschema(), "--builtin-schema", "vendor.github-actions", str(path)], capture_output=True, text=True)
    assert done.returncode == 1
