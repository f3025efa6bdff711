"""The change report where reviews happen: one pull-request comment (or merge-request note) per run.

Run by the GitHub Action (``action.yml``) and the GitLab CI template (docs/diff-convert.md) as
``python -I -m plugin.pr_report --base REV [options] PATH... [-- DIFF-OPTION...]`` (or the
``dynamo-render-pr-report`` console script) from an environment outside the checkout, so that
nothing the pull request adds to the checkout is ever imported. It:

1. makes sure the base revision is in the clone (a shallow CI checkout often lacks it: one
   ``git fetch --depth=1 origin REV``);
2. runs ``dynamo-render diff --base REV`` on the paths, once for JSON (what changed) and once
   for Markdown (what the reviewer reads), with any extra diff options given after ``--``
   (settings files they name are read from the base revision for the base side, as the
   manifests are; ``--settings-from-worktree`` keeps the work tree's);
3. appends the report to the job summary (``$GITHUB_STEP_SUMMARY`` when set, or ``--summary``);
4. creates one comment on the pull request, or updates its own one from before: written by the
   token's user (``GET /user``; ``github-actions[bot]`` for a workflow token, ``--author``) and
   holding the hidden marker (``--marker``); a refused edit posts a new comment; ``--dry-run``
   prints the comment instead of sending it. A report too long for a comment starts with what a
   reviewer must see (totals, replaced and added workloads, security-relevant pod facts), and
   ``--full-report PATH`` writes it whole;
5. exits 1 when a side fails to render, or with ``--fail-on-replace`` when any workload would be
   replaced (a worker-hash rename, a move to or from the Grove pathway, a component becoming
   multinode or single-node, a renamed component), and 0 otherwise.

Where the forge is told by ``--provider`` (``github`` or ``gitlab``, default ``github``), it reads
the CI's own variables: ``GITHUB_API_URL``, ``GITHUB_REPOSITORY``, ``GITHUB_EVENT_PATH`` (the pull
request number) and ``GITHUB_TOKEN``; or ``CI_API_V4_URL``, ``CI_PROJECT_ID``,
``CI_MERGE_REQUEST_IID`` and ``GITLAB_TOKEN`` (a token allowed to write notes: ``CI_JOB_TOKEN``
cannot). The report never includes a render's objects, only the change summary and the
problems, which name files and fields. The token is sent only to the API host (a redirect to
another host stops the report), and no process the report starts gets a variable whose name
holds ``TOKEN``; a ``--base`` that could be read as a git option is refused.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, TextIO

from plugin.markdown import code, fenced

MARKER = "<!-- dynamo-render change report -->"
# A comment body GitHub and GitLab accept (both cap a comment near 65,536 characters).
MAX_BODY = 60_000
# The author of comments made with a GitHub Actions workflow token, whose ``GET /user`` is
# refused (403 "Resource not accessible by integration": an app installation token has no user).
ACTIONS_BOT = "github-actions[bot]"
# A pod fact a reviewer must see before anything else (plugin/impact.py pod-change lines).
_SECURITY = re.compile(
    r"privileged|root|runAsUser|runAsNonRoot|allowPrivilegeEscalation|capabilities|\bhost|shareProcessNamespace"
    r"|serviceAccountName|envFrom|Secret|container .* added"
)


class ForgeError(Exception):
    """The forge refused a request or answered in a way the report cannot use."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


def main(argv: Sequence[str] | None = None, env: Mapping[str, str] | None = None, stdout: TextIO = sys.stdout, stderr: TextIO = sys.stderr) -> int:
    """Run the report; returns the exit code."""
    env = os.environ if env is None else env
    args, diff_options = _parse(list(sys.argv[1:] if argv is None else argv))
    if not _have_revision(args.base) and not _fetch(args.base, stderr):
        stderr.write(f"error: the base revision {args.base} is not in this clone and could not be fetched\n")
        return 1
    changes, problems, failed = _diff(args.base, args.paths, diff_options, "json")
    markdown, _, _ = _diff(args.base, args.paths, diff_options, "markdown")
    full = _body(args.marker, markdown if not failed else "", problems, failed)
    body = _cut(full, changes if not failed else None, args.marker)
    replaced = [c for c in (changes or {}).get("changes", []) if c.get("action") == "replaced"]
    summary = args.summary or env.get("GITHUB_STEP_SUMMARY")
    if summary:
        with open(summary, "a", encoding="utf-8") as handle:
            handle.write(body.replace(args.marker + "\n", "") + "\n")
    if args.full_report:
        Path(args.full_report).write_text(full.replace(args.marker + "\n", ""), encoding="utf-8")
    if args.comment:
        try:
            _post(args, env, body, stdout)
        except (ForgeError, urllib.error.URLError, OSError, KeyError, ValueError) as error:
            stderr.write(f"error: could not post the report: {error}\n")
            return 1
    if failed:
        stderr.write(problems)
        return 1
    if args.fail_on_replace and replaced:
        names = ", ".join(f"{c['kind']}/{c['name']}" for c in replaced)
        stderr.write(f"error: the change replaces {len(replaced)} object(s): {names}\n")
        return 1
    return 0


def _revision(value: str) -> str:
    """A ``--base`` value git can only read as a revision: never an option (``--upload-pack=...``)."""
    if not value or value.startswith("-") or any(ch.isspace() or ord(ch) < 32 for ch in value):
        raise argparse.ArgumentTypeError(f"not a revision: {value!r} (a commit, branch or tag; it may not start with '-')")
    return value


def _parse(argv: list[str]) -> tuple[argparse.Namespace, list[str]]:
    """The report's own options, and the diff options after ``--``."""
    split = argv.index("--") if "--" in argv else len(argv)
    parser = argparse.ArgumentParser(prog="dynamo-render-pr-report", description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--base", required=True, type=_revision, help="the revision to compare against (the pull request's base)")
    parser.add_argument("--provider", choices=("github", "gitlab"), default="github")
    parser.add_argument("--fail-on-replace", action="store_true", help="exit 1 when any workload would be replaced")
    parser.add_argument("--comment", action=argparse.BooleanOptionalAction, default=True, help="post or update the comment")
    parser.add_argument("--dry-run", action="store_true", help="print the comment requests instead of sending them")
    parser.add_argument("--summary", help="append the report to this file (default: $GITHUB_STEP_SUMMARY)")
    parser.add_argument("--full-report", help="write the whole report, never cut, to this file (a job artifact or the job log)")
    parser.add_argument("--marker", default=MARKER, help="the hidden text that finds the comment again")
    parser.add_argument(
        "--author", help=f"the user whose comment is the report's (default: the token's user, {ACTIONS_BOT} for a workflow token)"
    )
    parser.add_argument("paths", nargs="+", help="the app folders or files to report on")
    return parser.parse_args(argv[:split]), argv[split + 1 :]


def child_environment(env: Mapping[str, str]) -> dict[str, str]:
    """The environment of every process the report starts: no forge or CI token reaches it."""
    return {k: v for k, v in env.items() if "TOKEN" not in k.upper()}


def _git(args: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], capture_output=True, text=True, check=False, env=child_environment(os.environ))


def _have_revision(rev: str) -> bool:
    return _git(["cat-file", "-e", "--end-of-options", f"{rev}^{{commit}}"]).returncode == 0


def _fetch(rev: str, stderr: TextIO) -> bool:
    done = _git(["fetch", "--no-tags", "--depth=1", "--end-of-options", "origin", rev])
    if done.returncode != 0:
        stderr.write(done.stderr)
    return done.returncode == 0 and _have_revision(rev)


def _diff(base: str, paths: Sequence[str], options: Sequence[str], output: str) -> tuple[Any, str, bool]:
    """One ``dynamo-render diff`` run: its parsed (JSON) or raw output, its problems, and whether it failed.

    ``-I`` (isolated): the working directory, which is the pull request's checkout, is not on the
    child's ``sys.path``, and no ``PYTHON*`` variable changes what it imports.
    """
    command = [sys.executable, "-I", "-m", "plugin", "diff", "--base", base, "-o", output, *options, "--", *paths]
    done = subprocess.run(command, capture_output=True, text=True, check=False, env=child_environment(os.environ))
    failed = done.returncode != 0
    if output == "json" and not failed:
        return json.loads(done.stdout), done.stderr, False
    return done.stdout, done.stderr, failed


def _body(marker: str, markdown: str, problems: str, failed: bool) -> str:
    """The whole comment: the marker, the Markdown report, then any problems in a code block."""
    parts = [marker]
    if failed:
        parts += ["### dynamo-render diff", "", "**The change does not render.** The problems:"]
    else:
        parts.append(markdown.rstrip("\n"))
    if problems.strip():
        if not failed:
            parts += ["", "Warnings:"]
        parts += ["", *fenced(problems.rstrip("\n"))]
    return "\n".join(parts) + "\n"


def _cut(body: str, changes: Any, marker: str, limit: int = MAX_BODY) -> str:
    """The comment within the forge's size: what a reviewer must see first, then as much of the rest as fits.

    First come the totals, the replaced and added workloads and every security-relevant pod fact
    (privileged, host namespaces and paths, root, added containers, ``envFrom`` and Secrets), so
    that no padding in a pull request can push them out of the comment; the full report is in the
    job log and the job's artifact (``--full-report``).
    """
    if len(body) <= limit:
        return body
    first = [marker, "### dynamo-render diff", "", *_essentials(changes or {})]
    note = "(the report is cut here: the full report is in the job log and the job's artifact)"
    head = "\n".join(first) + "\n"
    if len(head) > limit - 200:
        head = head[: limit - 200].rsplit("\n", 1)[0] + "\n"
    rest = body[len(marker) + 1 :]
    room = limit - len(head) - len(note) - 200
    kept = rest[: max(room, 0)].rsplit("\n", 1)[0] if room > 0 else ""
    return head + "\n#### The report\n\n" + kept + "\n\n" + note + "\n"


def _essentials(report: Mapping[str, Any]) -> list[str]:
    """Totals, replaced and added workloads, and security-relevant pod facts, as Markdown lines."""
    gpus, pods = report.get("gpus") or {}, report.get("pods") or {}
    lines = [
        f"- GPUs: {gpus.get('before', 0)} -> {gpus.get('after', 0)} ({gpus.get('after', 0) - gpus.get('before', 0):+d}); "
        f"pods: {pods.get('before', 0)} -> {pods.get('after', 0)} ({pods.get('after', 0) - pods.get('before', 0):+d})"
    ]
    changes = [c for c in report.get("changes") or [] if isinstance(c, dict)]
    for action in ("replaced", "added"):
        for change in changes:
            if change.get("action") != action or change.get("kind") not in ("Deployment", "LeaderWorkerSet", "PodCliqueSet"):
                continue
            target = f"{change.get('kind')} {change.get('namespace')}/{change.get('name')}"
            if change.get("replacedBy"):
                target += f" -> {change['replacedBy']}"
            gpus_of = change.get("gpus") or {}
            lines.append(f"- {action} {code(target)}: GPUs {gpus_of.get('before', 0)} -> {gpus_of.get('after', 0)}")
    facts = [
        (change, line) for change in changes for line in change.get("podChanges") or [] if _SECURITY.search(str(line))
    ]
    if facts:
        lines += ["", "#### Security-relevant pod facts", ""]
        lines += [f"- {code(str(c.get('kind')) + ' ' + str(c.get('namespace')) + '/' + str(c.get('name')))}: {code(line)}" for c, line in facts]
    return lines


def _post(args: argparse.Namespace, env: Mapping[str, str], body: str, stdout: TextIO) -> None:
    """Create the report's comment, or update the one an earlier run made (its own, never another user's)."""
    if args.dry_run:
        stdout.write("dry run: find this job's own comment holding the marker, then update it or post a new one\n")
        stdout.write(body)
        return
    forge = _forge(args, env)
    author = args.author or _token_user(forge)
    existing = _find(forge, author, args.marker)
    if existing is not None:
        try:
            _request(forge, forge.update_method, forge.update.format(id=existing), {"body": body})
            return
        except ForgeError as error:
            if error.status not in (403, 404):
                raise
            # The forge refuses the edit (not ours after all, or deleted meanwhile): post anew.
    _request(forge, "POST", forge.listing, {"body": body})


class Forge:
    """Where the comments of one pull request (merge request) are, and the token that may write them."""

    def __init__(self, provider: str, api: str, listing: str, update: str, update_method: str, user: str, headers: dict[str, str]) -> None:
        self.provider, self.api, self.listing, self.update = provider, api, listing, update
        self.update_method, self.user, self.headers = update_method, user, headers
        self.host = urllib.parse.urlsplit(api)[:2]


def _forge(args: argparse.Namespace, env: Mapping[str, str]) -> Forge:
    if args.provider == "github":
        api = env.get("GITHUB_API_URL", "https://api.github.com").rstrip("/")
        event = json.loads(Path(env["GITHUB_EVENT_PATH"]).read_text(encoding="utf-8"))
        number = (event.get("pull_request") or {}).get("number") or event.get("number")
        if not number:
            raise ValueError("the workflow event is not a pull request (no pull_request.number)")
        repository = env["GITHUB_REPOSITORY"]
        return Forge(
            "github", api, f"{api}/repos/{repository}/issues/{number}/comments", f"{api}/repos/{repository}/issues/comments/{{id}}",
            "PATCH", f"{api}/user", {"Authorization": f"Bearer {env['GITHUB_TOKEN']}", "Accept": "application/vnd.github+json"},
        )
    api = env["CI_API_V4_URL"].rstrip("/")
    listing = f"{api}/projects/{env['CI_PROJECT_ID']}/merge_requests/{env['CI_MERGE_REQUEST_IID']}/notes"
    return Forge("gitlab", api, listing, listing + "/{id}", "PUT", f"{api}/user", {"PRIVATE-TOKEN": env["GITLAB_TOKEN"]})


def _token_user(forge: Forge) -> str:
    """The login of the token's user: ``GET /user``; a GitHub workflow token has none and writes as the Actions bot."""
    try:
        user = _request(forge, "GET", forge.user, None)
    except ForgeError as error:
        if forge.provider == "github" and error.status == 403:
            return ACTIONS_BOT
        raise
    login = user.get("login") or user.get("username") if isinstance(user, dict) else None
    if not login:
        raise ForgeError(f"{forge.user} did not name the token's user")
    return str(login)


def _find(forge: Forge, author: str, marker: str) -> int | None:
    """The id of the first comment by ``author`` that holds the marker, over every page of the listing."""
    page = 1
    while True:
        comments = _request(forge, "GET", f"{forge.listing}?per_page=100&page={page}", None)
        if not isinstance(comments, list) or not comments:
            return None
        for comment in comments:
            if not isinstance(comment, dict):
                continue
            who = comment.get("user") if forge.provider == "github" else comment.get("author")
            login = (who or {}).get("login" if forge.provider == "github" else "username") if isinstance(who, dict) else None
            if login == author and marker in str(comment.get("body", "")):
                return int(comment["id"])
        page += 1


class _SameHostRedirects(urllib.request.HTTPRedirectHandler):
    """Follow a redirect only within the API's own scheme and host: the token never leaves it."""

    def __init__(self, host: tuple[str, str]) -> None:
        self.host = host

    def redirect_request(self, req: urllib.request.Request, fp: Any, code: int, msg: str, headers: Any, newurl: str) -> urllib.request.Request | None:
        if urllib.parse.urlsplit(newurl)[:2] != self.host:
            raise ForgeError(f"the forge redirected {req.full_url} to another host ({newurl}); the token is not sent there", code)
        return super().redirect_request(req, fp, code, msg, headers, newurl)


def _request(forge: Forge, method: str, url: str, payload: Any) -> Any:
    data = None if payload is None else json.dumps(payload).encode()
    if urllib.parse.urlsplit(url)[:2] != forge.host:
        raise ForgeError(f"{url} is not on the forge's API host; the token is not sent there")
    request = urllib.request.Request(url, data=data, method=method, headers={**forge.headers, "Content-Type": "application/json"})
    opener = urllib.request.build_opener(_SameHostRedirects(forge.host))
    try:
        with opener.open(request, timeout=30) as response:
            text = response.read().decode() or "null"
    except urllib.error.HTTPError as error:
        raise ForgeError(f"{method} {url}: {error.code} {error.reason}", error.code) from None
    return json.loads(text)


if __name__ == "__main__":
    sys.exit(main())
