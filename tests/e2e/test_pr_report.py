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

import base64
import hashlib
import io
import json
import os
import re
import subprocess
import sys
import threading
import tomllib
import zipfile
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
    assert out.startswith("dry run: find this job's own comment holding the marker")
    assert pr_report.MARKER in out and "| replaced |" in out


def test_dry_run_works_outside_github(repo: tuple[Path, str]) -> None:
    """No workflow event, repository or token: the dry run still prints the comment it would post."""
    _, base = repo
    code, out, err = _run(["--base", base, "--dry-run", "--summary", os.devnull, "apps"], {})
    assert code == 0, err
    assert out.startswith("dry run:") and pr_report.MARKER in out and "| replaced |" in out


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
    """A loopback stand-in for the comment endpoints of the GitHub and GitLab REST APIs.

    ``GET /user`` names the token's user (``login``: None answers 403, as GitHub does for a
    workflow token); a comment records its author, and editing another user's comment is
    refused with 403, as the forges refuse it to a token without that right.
    """

    comments: list[dict[str, Any]] = []
    requests: list[tuple[str, str, Any]] = []
    headers_seen: list[tuple[str, dict[str, str]]] = []
    login: str | None = "report-bot"
    # path -> URL: answer a request for that path with a redirect there
    redirects: dict[str, str] = {}

    def _reply(self, status: int, payload: Any) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _seen(self) -> bool:
        """Record the request's headers; True when it was answered with a redirect."""
        self.headers_seen.append((self.path, dict(self.headers)))
        target = self.redirects.get(self.path.split("?")[0])
        if target is None:
            return False
        self.send_response(307)
        self.send_header("Location", target + self.path)
        self.send_header("Content-Length", "0")
        self.end_headers()
        return True

    def do_GET(self) -> None:
        if self._seen():
            return
        self.requests.append(("GET", self.path, None))
        if self.path.split("?")[0].endswith("/user"):
            if self.login is None:
                self._reply(403, {"message": "Resource not accessible by integration"})
            else:
                self._reply(200, {"login": self.login, "username": self.login, "id": 1})
            return
        page = int(re.search(r"[?&]page=(\d+)", self.path).group(1))  # type: ignore[union-attr]
        self._reply(200, self.comments[(page - 1) * 100 : page * 100])

    def _body(self) -> Any:
        return json.loads(self.rfile.read(int(self.headers["Content-Length"])))

    def _author(self) -> str:
        return self.login or "github-actions[bot]"

    def do_POST(self) -> None:
        if self._seen():
            return
        payload = self._body()
        self.requests.append(("POST", self.path, payload))
        author = self._author()
        self.comments.append({"id": 1000 + len(self.comments), "body": payload["body"], "user": {"login": author}, "author": {"username": author}})
        self._reply(201, self.comments[-1])

    def _update(self) -> None:
        if self._seen():
            return
        payload = self._body()
        self.requests.append((self.command, self.path, payload))
        number = int(self.path.rsplit("/", 1)[1])
        for comment in self.comments:
            if comment["id"] == number:
                if comment["user"]["login"] != self._author():
                    self._reply(403, {"message": "Must have admin rights to Repository."})
                    return
                comment["body"] = payload["body"]
        self._reply(200, {"id": number})

    do_PATCH = _update
    do_PUT = _update

    def log_message(self, *args: Any) -> None:
        pass


def _serve(handler: type[_Forge]) -> tuple[str, ThreadingHTTPServer]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}", server


def _handler() -> type[_Forge]:
    return type("Forge", (_Forge,), {"comments": [], "requests": [], "headers_seen": [], "redirects": {}})


@pytest.fixture()
def forge() -> Iterator[tuple[str, type[_Forge]]]:
    handler = _handler()
    url, server = _serve(handler)
    try:
        yield url, handler
    finally:
        server.shutdown()
        server.server_close()


def _comment(i: int, body: str, login: str) -> dict[str, Any]:
    return {"id": i, "body": body, "user": {"login": login}, "author": {"username": login}}


def test_github_comment_is_created_once_then_updated(repo: tuple[Path, str], tmp_path: Path, forge: tuple[str, type[_Forge]]) -> None:
    _, base = repo
    api, handler = forge
    # 150 other comments: the report's own lands on the second page of the listing.
    handler.comments.extend(_comment(i, f"comment {i}", "someone") for i in range(150))
    env = {"GITHUB_API_URL": api, "GITHUB_EVENT_PATH": str(_event(tmp_path, 42)), "GITHUB_REPOSITORY": "o/r", "GITHUB_TOKEN": "t"}
    argv = ["--base", base, "--summary", str(tmp_path / "s.md"), "apps"]
    assert _run(argv, env)[0] == 0
    posts = [r for r in handler.requests if r[0] == "POST"]
    assert [p[1] for p in posts] == ["/repos/o/r/issues/42/comments"] and pr_report.MARKER in posts[0][2]["body"]
    handler.requests.clear()
    assert _run(argv, env)[0] == 0
    assert [r[0] for r in handler.requests] == ["GET", "GET", "GET", "PATCH"]
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
        ("GET", "/api/v4/user"),
        ("GET", "/api/v4/projects/12/merge_requests/3/notes"),
        ("POST", "/api/v4/projects/12/merge_requests/3/notes"),
        ("GET", "/api/v4/user"),
        ("GET", "/api/v4/projects/12/merge_requests/3/notes"),
        ("PUT", "/api/v4/projects/12/merge_requests/3/notes/1000"),
    ]


def test_a_maintainers_comment_quoting_the_marker_is_never_edited(repo: tuple[Path, str], tmp_path: Path, forge: tuple[str, type[_Forge]]) -> None:
    """Someone else's comment holds the marker (a quote, or a forged report): the bot leaves it and finds its own."""
    _, base = repo
    api, handler = forge
    handler.comments.append(_comment(1, f"{pr_report.MARKER}\nforged: GPUs: 2 -> 2 (+0)", "attacker"))
    handler.comments.append(_comment(2, f"quoting the bot: {pr_report.MARKER}", "maintainer"))
    handler.comments.append(_comment(3, f"{pr_report.MARKER}\nan older report", "report-bot"))
    env = {"GITHUB_API_URL": api, "GITHUB_EVENT_PATH": str(_event(tmp_path, 4)), "GITHUB_REPOSITORY": "o/r", "GITHUB_TOKEN": "t"}
    code, _, err = _run(["--base", base, "--summary", os.devnull, "apps"], env)
    assert code == 0, err
    assert [(r[0], r[1].split("?")[0]) for r in handler.requests] == [
        ("GET", "/user"), ("GET", "/repos/o/r/issues/4/comments"), ("PATCH", "/repos/o/r/issues/comments/3")
    ]
    assert handler.comments[0]["body"].endswith("forged: GPUs: 2 -> 2 (+0)") and handler.comments[1]["body"].startswith("quoting")
    assert "| replaced |" in handler.comments[2]["body"]


def test_a_workflow_token_without_a_user_finds_the_actions_bots_comment(repo: tuple[Path, str], tmp_path: Path, forge: tuple[str, type[_Forge]]) -> None:
    """GitHub answers GET /user with 403 for a workflow token; its comments are github-actions[bot]'s."""
    _, base = repo
    api, handler = forge
    handler.login = None
    handler.comments.append(_comment(1, f"{pr_report.MARKER}\nforged", "attacker"))
    handler.comments.append(_comment(2, f"{pr_report.MARKER}\nold", "github-actions[bot]"))
    env = {"GITHUB_API_URL": api, "GITHUB_EVENT_PATH": str(_event(tmp_path, 4)), "GITHUB_REPOSITORY": "o/r", "GITHUB_TOKEN": "t"}
    code, _, err = _run(["--base", base, "--summary", os.devnull, "apps"], env)
    assert code == 0, err
    assert handler.requests[-1][:2] == ("PATCH", "/repos/o/r/issues/comments/2")
    assert handler.comments[0]["body"].endswith("forged")


def test_a_refused_edit_posts_a_new_comment(repo: tuple[Path, str], tmp_path: Path, forge: tuple[str, type[_Forge]]) -> None:
    """``--author`` names a user whose comment the token may not edit (403): the report is posted anew, the job passes."""
    _, base = repo
    api, handler = forge
    handler.comments.append(_comment(1, f"{pr_report.MARKER}\nforged by a lookalike", "lookalike"))
    env = {"CI_API_V4_URL": api + "/api/v4", "CI_PROJECT_ID": "12", "CI_MERGE_REQUEST_IID": "3", "GITLAB_TOKEN": "t"}
    code, _, err = _run(["--provider", "gitlab", "--author", "lookalike", "--base", base, "--summary", os.devnull, "apps"], env)
    assert code == 0, err
    assert [r[0] for r in handler.requests] == ["GET", "PUT", "POST"]
    assert handler.comments[0]["body"].endswith("lookalike") and "| replaced |" in handler.comments[1]["body"]


def test_the_size_cut_keeps_the_privileged_workload_first(repo: tuple[Path, str], tmp_path: Path) -> None:
    """800 ConfigMaps with long names pad the report past a comment's size; a privileged 64-GPU Deployment is added at the end.

    The comment keeps the totals, the added workload and its pod facts (privileged, host
    network, root, envFrom Secret) first; the full report goes to ``--full-report``.
    """
    root, base = repo
    padding = "".join(
        f"---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: pad-{i:04d}-{'x' * 200}\n  namespace: llm\ndata:\n  a: b\n" for i in range(800)
    )
    (root / "apps" / "pad.yaml").write_text(padding)
    (root / "apps" / "zz-miner.yaml").write_text(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: zz-miner\n  namespace: llm\nspec:\n  replicas: 8\n"
        "  selector:\n    matchLabels: {app: m}\n  template:\n    metadata:\n      labels: {app: m}\n    spec:\n"
        "      hostNetwork: true\n      containers:\n      - name: m\n        image: evil.example/miner:1\n"
        "        securityContext: {privileged: true, runAsUser: 0}\n        envFrom: [{secretRef: {name: cloud-keys}}]\n"
        "        resources: {limits: {nvidia.com/gpu: 8}}\n"
    )
    full = tmp_path / "full.md"
    code, out, err = _run(["--base", base, "--dry-run", "--summary", os.devnull, "--full-report", str(full), "apps"], {})
    assert code == 0, err
    body = out.split("\n", 1)[1]
    assert len(body) <= pr_report.MAX_BODY < len(full.read_text())
    head = body[: 4000]
    assert "- GPUs: 4 -> 68 (+64); pods: 3 -> 11 (+8)" in head
    assert "- added `Deployment llm/zz-miner`: GPUs 0 -> 64" in head
    for fact in ("privileged", "runAsUser 0 (root)", "envFrom Secret cloud-keys", "hostNetwork: unset -> true"):
        assert fact in head, fact
    assert body.rstrip().endswith("(the report is cut here: the full report is in the job log and the job's artifact)")
    assert full.read_text().count("| added | `ConfigMap llm/pad-") == 800


def test_a_comment_that_cannot_be_posted_fails_the_job(repo: tuple[Path, str], tmp_path: Path) -> None:
    _, base = repo
    env = {"GITHUB_API_URL": "http://127.0.0.1:9", "GITHUB_EVENT_PATH": str(_event(tmp_path)), "GITHUB_REPOSITORY": "o/r", "GITHUB_TOKEN": "t"}
    code, _, err = _run(["--base", base, "--summary", str(tmp_path / "s.md"), "apps"], env)
    assert code == 1 and err.startswith("error: could not post the report:")


def _action() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load((ROOT / "action.yml").read_text())
    return loaded


def _wheel(into: Path) -> Path:
    """A wheel of this source tree, made with the standard library: the action's pip installs it offline."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    dist = f"dynamo_render-{project['version']}.dist-info"
    files: dict[str, bytes] = {}
    for package in ("renderer", "plugin"):
        for path in sorted((ROOT / package).rglob("*.py")):
            files[path.relative_to(ROOT).as_posix()] = path.read_bytes()
    files[f"{dist}/METADATA"] = f"Metadata-Version: 2.1\nName: dynamo-render\nVersion: {project['version']}\n".encode()
    files[f"{dist}/WHEEL"] = b"Wheel-Version: 1.0\nGenerator: tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    files[f"{dist}/entry_points.txt"] = ("[console_scripts]\n" + "".join(f"{k} = {v}\n" for k, v in project["scripts"].items())).encode()
    record = "".join(
        f"{name},sha256={base64.urlsafe_b64encode(hashlib.sha256(data).digest()).decode().rstrip('=')},{len(data)}\n"
        for name, data in files.items()
    )
    files[f"{dist}/RECORD"] = (record + f"{dist}/RECORD,,\n").encode()
    wheel = into / f"dynamo_render-{project['version']}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return wheel


def _run_action(checkout: Path, runner: Path, inputs: dict[str, str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """Every ``run:`` step of action.yml in bash, as the runner runs a composite action.

    Each step's ``env`` gets the inputs (or their defaults) where it says ``${{ inputs.NAME }}``;
    ``uses:`` steps are the runner's (setup-python: the test's own Python is on PATH). The install
    step runs as written, with pip offline: the action path is a wheel of this tree, and the
    dependencies come from the test's environment (a ``.pth`` file), not from an index.
    """
    action = _action()
    given = {name: inputs.get(name, str(spec.get("default", ""))) for name, spec in action["inputs"].items()}
    tools = runner / "tools"
    tools.mkdir(parents=True, exist_ok=True)
    (tools / "python").unlink(missing_ok=True)
    (tools / "python").symlink_to(getattr(sys, "_base_executable", sys.executable))
    base_env = {
        **os.environ, **env,
        "PATH": f"{tools}{os.pathsep}{env.get('PATH', os.environ['PATH'])}",
        "RUNNER_TEMP": str(runner),
        "GITHUB_ACTION_PATH": str(_wheel(runner)),
        "PIP_NO_INDEX": "1", "PIP_NO_DEPS": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1",
    }
    base_env.pop("PYTHONPATH", None)
    done = subprocess.CompletedProcess[str]([], 0, "", "")
    for step in action["runs"]["steps"]:
        if "run" not in step:
            continue
        step_env = {
            name: re.sub(r"\$\{\{ inputs\.([a-z-]+) \}\}", lambda m: given[m.group(1)], str(value))
            for name, value in (step.get("env") or {}).items()
        }
        done = subprocess.run(["bash", "-c", step["run"]], cwd=checkout, env={**base_env, **step_env}, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            return done
        if "pip" in step["run"]:
            # The dependencies, from this test's environment (nothing of dynamo-render itself is there).
            site = next((runner / "dynamo-render" / "lib").glob("python3*/site-packages"))
            deps = next(Path(p) for p in sys.path if p.endswith("site-packages") and (Path(p) / "yaml").is_dir())
            (site / "test-dependencies.pth").write_text(f"{deps}\n")
    return done


PLANTED = """
import pathlib
pathlib.Path({marker!r}).write_text("the pull request's own code ran")
"""


def _plant(checkout: Path, marker: Path) -> None:
    """A pull request that adds its own ``plugin`` and ``renderer`` packages (and the interpreter's hooks) at its root."""
    code = PLANTED.format(marker=str(marker))
    for rel in ("plugin/__init__.py", "plugin/pr_report.py", "plugin/console.py", "plugin/__main__.py", "renderer/__init__.py",
                "sitecustomize.py", "usercustomize.py"):
        (checkout / rel).parent.mkdir(parents=True, exist_ok=True)
        (checkout / rel).write_text(code)


def _recording_git(runner: Path) -> Path:
    """A ``git`` first on PATH that records the environment it was given, then runs the real git."""
    real = subprocess.run(["sh", "-c", "command -v git"], capture_output=True, text=True, check=True).stdout.strip()
    shims = runner / "shims"
    shims.mkdir(parents=True, exist_ok=True)
    log = runner / "git-env.log"
    (shims / "git").write_text(f"#!/bin/sh\nenv >> {log}\nexec {real} \"$@\"\n")
    (shims / "git").chmod(0o755)
    return shims


def test_the_action_never_runs_code_the_pull_request_plants(repo: tuple[Path, str], tmp_path: Path, forge: tuple[str, type[_Forge]]) -> None:
    """A PR adds plugin/ and renderer/ packages at the checkout's root: the action runs only what it installed."""
    root, base = repo
    api, handler = forge
    marker = tmp_path / "planted-code-ran"
    _plant(root, marker)
    runner = tmp_path / "runner"
    shims = _recording_git(runner)
    summary = tmp_path / "summary.md"
    env = {
        "GITHUB_STEP_SUMMARY": str(summary), "GITHUB_API_URL": api, "GITHUB_REPOSITORY": "o/r",
        "GITHUB_EVENT_PATH": str(_event(tmp_path, 5)), "PATH": f"{shims}{os.pathsep}{os.environ['PATH']}",
    }
    inputs = {"paths": "apps\n", "base": base, "diff-options": "-n llm", "github-token": "secret-token-1234", "fail-on-replace": "true"}
    done = _run_action(root, runner, inputs, env)
    assert not marker.exists(), "the pull request's own code ran"
    assert done.returncode == 1, done.stderr
    assert "error: the change replaces 2 object(s): Deployment/chat-decode-" in done.stderr
    assert "| replaced |" in summary.read_text()
    # the comment was posted with the token, and the full report went to the job log and the artifact file
    assert [r[0] for r in handler.requests] == ["GET", "GET", "POST"]
    assert all(h.get("Authorization") == "Bearer secret-token-1234" for _, h in handler.headers_seen)
    assert "::group::dynamo-render change report (in full)" in done.stdout and "| replaced |" in done.stdout
    assert "| replaced |" in (runner / "dynamo-render-report" / "report.md").read_text()
    # no process the report started (git, and the diff run whose own git calls are logged) saw the token
    git_env = (runner / "git-env.log").read_text()
    assert git_env.count("PATH=") >= 3 and "secret-token-1234" not in git_env and "GITHUB_TOKEN" not in git_env


def _gitlab_recipe() -> dict[str, Any]:
    text = (ROOT / "docs" / "diff-convert.md").read_text()
    block = text.split("**GitLab.**", 1)[1].split("```yaml\n", 1)[1].split("```", 1)[0]
    job: dict[str, Any] = yaml.safe_load(block)["dynamo-render"]
    return job


def test_the_gitlab_recipe_never_runs_code_the_merge_request_plants(repo: tuple[Path, str], tmp_path: Path, forge: tuple[str, type[_Forge]]) -> None:
    """docs/diff-convert.md's GitLab job, line by line in bash, on a checkout that plants plugin/ and renderer/.

    Only the recipe's placeholders are filled in: the install source (a wheel of this tree, pip
    offline), the environment's folder (under the test's temporary folder) and the paths.
    """
    root, base = repo
    api, handler = forge
    marker = tmp_path / "planted-code-ran"
    _plant(root, marker)
    job = _gitlab_recipe()
    runner = tmp_path / "runner"
    shims = _recording_git(runner)
    tools = runner / "tools"
    tools.mkdir()
    (tools / "python").symlink_to(getattr(sys, "_base_executable", sys.executable))
    env = {
        **os.environ, **{k: str(v) for k, v in job["variables"].items()},
        "DYNAMO_RENDER": str(runner / "venv"),
        "PATH": f"{tools}{os.pathsep}{shims}{os.pathsep}{os.environ['PATH']}",
        "PIP_NO_INDEX": "1", "PIP_NO_DEPS": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1",
        "CI_API_V4_URL": api + "/api/v4", "CI_PROJECT_ID": "12", "CI_MERGE_REQUEST_IID": "3", "GITLAB_TOKEN": "secret-token-1234",
        "CI_MERGE_REQUEST_DIFF_BASE_SHA": base,
    }
    env.pop("PYTHONPATH", None)
    wheel = _wheel(runner)
    for line in [*job["script"], *job["after_script"]]:
        line = line.replace("git+https://<host>/<group>/dynamo-render.git@<version>", str(wheel))
        line = line.replace("apps/prod -- --config deploy/render-config.yaml", "apps")
        done = subprocess.run(["bash", "-c", line], cwd=root, env=env, capture_output=True, text=True, check=False)
        if "pip install" in line:
            site = next((runner / "venv" / "lib").glob("python3*/site-packages"))
            deps = next(Path(p) for p in sys.path if p.endswith("site-packages") and (Path(p) / "yaml").is_dir())
            (site / "test-dependencies.pth").write_text(f"{deps}\n")
        if "plugin.pr_report" in line:
            report = done
    assert not marker.exists(), "the merge request's own code ran"
    assert report.returncode == 1 and "error: the change replaces 2 object(s)" in report.stderr, report.stderr
    assert [r[0] for r in handler.requests] == ["GET", "GET", "POST"]
    assert "| replaced |" in done.stdout  # after_script: the full report in the job log
    assert (root / job["artifacts"]["paths"][0]).is_file()
    assert "secret-token-1234" not in (runner / "git-env.log").read_text()


def test_the_action_refuses_a_base_that_is_a_git_option(repo: tuple[Path, str], tmp_path: Path) -> None:
    """``base: --upload-pack=...`` would run a command in git fetch: it is refused before git sees it."""
    root, _ = repo
    marker = tmp_path / "upload-pack-ran"
    runner = tmp_path / "runner"
    shims = _recording_git(runner)
    env = {"GITHUB_STEP_SUMMARY": str(tmp_path / "s.md"), "PATH": f"{shims}{os.pathsep}{os.environ['PATH']}"}
    inputs = {"paths": "apps", "base": f"--upload-pack=touch {marker}", "comment": "false"}
    done = _run_action(root, runner, inputs, env)
    assert done.returncode == 2
    assert "argument --base: not a revision: '--upload-pack=touch" in done.stderr
    assert not marker.exists() and not (runner / "git-env.log").exists()


def test_a_base_that_is_an_option_is_refused_in_process(repo: tuple[Path, str]) -> None:
    for argv in (["--base=-x", "apps"], ["--base", "--upload-pack=x", "apps"], ["--base=a b", "apps"]):
        with pytest.raises(SystemExit) as exited:
            _run(argv, {})
        assert exited.value.code == 2


def test_the_token_is_not_sent_to_another_host_on_a_redirect(repo: tuple[Path, str], tmp_path: Path, forge: tuple[str, type[_Forge]]) -> None:
    """The API answers the comment listing with a redirect to another host: the report stops, and sends it nothing."""
    _, base = repo
    api, handler = forge
    elsewhere = _handler()
    other, server = _serve(elsewhere)
    try:
        handler.redirects["/repos/o/r/issues/9/comments"] = other
        env = {"GITHUB_API_URL": api, "GITHUB_EVENT_PATH": str(_event(tmp_path, 9)), "GITHUB_REPOSITORY": "o/r", "GITHUB_TOKEN": "secret-token-1234"}
        code, _, err = _run(["--base", base, "--summary", str(tmp_path / "s.md"), "apps"], env)
    finally:
        server.shutdown()
        server.server_close()
    assert code == 1
    assert f"to another host ({other}/repos/o/r/issues/9/comments" in err and "the token is not sent there" in err
    assert elsewhere.headers_seen == []


def test_the_token_follows_a_redirect_within_the_api_host(repo: tuple[Path, str], tmp_path: Path, forge: tuple[str, type[_Forge]]) -> None:
    """A renamed repository answers with a redirect on the same host: followed, with the token."""
    _, base = repo
    api, handler = forge
    handler.redirects["/user"] = api + "/moved"
    env = {"GITHUB_API_URL": api, "GITHUB_EVENT_PATH": str(_event(tmp_path, 9)), "GITHUB_REPOSITORY": "o/r", "GITHUB_TOKEN": "t"}
    code, _, err = _run(["--base", base, "--summary", str(tmp_path / "s.md"), "apps"], env)
    assert code == 0, err
    assert [path for path, _ in handler.headers_seen][:2] == ["/user", "/moved/user"]
    assert handler.headers_seen[1][1]["Authorization"] == "Bearer t"


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
