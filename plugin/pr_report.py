"""The change report where reviews happen: one pull-request comment (or merge-request note) per run.

Run by the GitHub Action (``action.yml``) and the GitLab CI template (docs/diff-convert.md) as
``python -m plugin.pr_report --base REV [options] PATH... [-- DIFF-OPTION...]``. It:

1. makes sure the base revision is in the clone (a shallow CI checkout often lacks it: one
   ``git fetch --depth=1 origin REV``);
2. runs ``dynamo-render diff --base REV`` on the paths, once for JSON (what changed) and once
   for Markdown (what the reviewer reads), with any extra diff options given after ``--``
   (settings files they name are read from the base revision for the base side, as the
   manifests are; ``--settings-from-worktree`` keeps the work tree's);
3. appends the report to the job summary (``$GITHUB_STEP_SUMMARY`` when set, or ``--summary``);
4. creates one comment on the pull request, or updates the one it made before, found again by
   a hidden marker (``--marker``); ``--dry-run`` prints the requests instead of sending them;
5. exits 1 when a side fails to render, or with ``--fail-on-replace`` when any workload would be
   replaced (a worker-hash rename, a move to or from the Grove pathway, a component becoming
   multinode or single-node, a renamed component), and 0 otherwise.

Where the forge is told by ``--provider`` (``github`` or ``gitlab``, default ``github``), it reads
the CI's own variables: ``GITHUB_API_URL``, ``GITHUB_REPOSITORY``, ``GITHUB_EVENT_PATH`` (the pull
request number) and ``GITHUB_TOKEN``; or ``CI_API_V4_URL``, ``CI_PROJECT_ID``,
``CI_MERGE_REQUEST_IID`` and ``GITLAB_TOKEN`` (a token allowed to write notes: ``CI_JOB_TOKEN``
cannot). The report never includes a render's objects, only the change summary and the
problems, which name files and fields.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, TextIO

MARKER = "<!-- dynamo-render change report -->"
# A comment body GitHub and GitLab accept (both cap a comment near 65,536 characters).
MAX_BODY = 60_000


def main(argv: Sequence[str] | None = None, env: Mapping[str, str] | None = None, stdout: TextIO = sys.stdout, stderr: TextIO = sys.stderr) -> int:
    """Run the report; returns the exit code."""
    env = os.environ if env is None else env
    args, diff_options = _parse(list(sys.argv[1:] if argv is None else argv))
    if not _have_revision(args.base) and not _fetch(args.base, stderr):
        stderr.write(f"error: the base revision {args.base} is not in this clone and could not be fetched\n")
        return 1
    changes, problems, failed = _diff(args.base, args.paths, diff_options, "json")
    markdown, _, _ = _diff(args.base, args.paths, diff_options, "markdown")
    body = _body(args.marker, markdown if not failed else "", problems, failed)
    replaced = [c for c in (changes or {}).get("changes", []) if c.get("action") == "replaced"]
    summary = args.summary or env.get("GITHUB_STEP_SUMMARY")
    if summary:
        with open(summary, "a", encoding="utf-8") as handle:
            handle.write(body.replace(args.marker + "\n", "") + "\n")
    if args.comment:
        try:
            _post(args, env, body, stdout)
        except (urllib.error.URLError, OSError, KeyError, ValueError) as error:
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


def _parse(argv: list[str]) -> tuple[argparse.Namespace, list[str]]:
    """The report's own options, and the diff options after ``--``."""
    split = argv.index("--") if "--" in argv else len(argv)
    parser = argparse.ArgumentParser(prog="python -m plugin.pr_report", description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--base", required=True, help="the revision to compare against (the pull request's base)")
    parser.add_argument("--provider", choices=("github", "gitlab"), default="github")
    parser.add_argument("--fail-on-replace", action="store_true", help="exit 1 when any workload would be replaced")
    parser.add_argument("--comment", action=argparse.BooleanOptionalAction, default=True, help="post or update the comment")
    parser.add_argument("--dry-run", action="store_true", help="print the comment requests instead of sending them")
    parser.add_argument("--summary", help="append the report to this file (default: $GITHUB_STEP_SUMMARY)")
    parser.add_argument("--marker", default=MARKER, help="the hidden text that finds the comment again")
    parser.add_argument("paths", nargs="+", help="the app folders or files to report on")
    return parser.parse_args(argv[:split]), argv[split + 1 :]


def _have_revision(rev: str) -> bool:
    done = subprocess.run(["git", "cat-file", "-e", f"{rev}^{{commit}}"], capture_output=True, check=False)
    return done.returncode == 0


def _fetch(rev: str, stderr: TextIO) -> bool:
    done = subprocess.run(["git", "fetch", "--no-tags", "--depth=1", "origin", rev], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        stderr.write(done.stderr)
    return done.returncode == 0 and _have_revision(rev)


def _diff(base: str, paths: Sequence[str], options: Sequence[str], output: str) -> tuple[Any, str, bool]:
    """One ``dynamo-render diff`` run: its parsed (JSON) or raw output, its problems, and whether it failed."""
    command = [sys.executable, "-c", "import sys; from plugin.console import main; sys.exit(main())"]
    done = subprocess.run([*command, "diff", "--base", base, "-o", output, *options, *paths], capture_output=True, text=True, check=False)
    failed = done.returncode != 0
    if output == "json" and not failed:
        return json.loads(done.stdout), done.stderr, False
    return done.stdout, done.stderr, failed


def _body(marker: str, markdown: str, problems: str, failed: bool) -> str:
    """The comment: the marker, the Markdown report, then any problems in a code block."""
    parts = [marker]
    if failed:
        parts += ["### dynamo-render diff", "", "**The change does not render.** The problems:"]
    else:
        parts.append(markdown.rstrip("\n"))
    if problems.strip():
        if not failed:
            parts += ["", "Warnings:"]
        parts += ["", "```", problems.rstrip("\n").replace("```", "'''"), "```"]
    body = "\n".join(parts) + "\n"
    if len(body) > MAX_BODY:
        body = body[: MAX_BODY - 200] + "\n```\n\n(the report is cut here: see the job log for the rest)\n"
    return body


def _post(args: argparse.Namespace, env: Mapping[str, str], body: str, stdout: TextIO) -> None:
    """Create the report's comment, or update the one an earlier run made."""
    if args.provider == "github":
        api = env.get("GITHUB_API_URL", "https://api.github.com").rstrip("/")
        event = json.loads(Path(env["GITHUB_EVENT_PATH"]).read_text(encoding="utf-8"))
        number = (event.get("pull_request") or {}).get("number") or event.get("number")
        if not number:
            raise ValueError("the workflow event is not a pull request (no pull_request.number)")
        listing = f"{api}/repos/{env['GITHUB_REPOSITORY']}/issues/{number}/comments"
        headers = {"Authorization": f"Bearer {env['GITHUB_TOKEN']}", "Accept": "application/vnd.github+json"}
        update = f"{api}/repos/{env['GITHUB_REPOSITORY']}/issues/comments/{{id}}"
        update_method = "PATCH"
    else:
        api = env["CI_API_V4_URL"].rstrip("/")
        listing = f"{api}/projects/{env['CI_PROJECT_ID']}/merge_requests/{env['CI_MERGE_REQUEST_IID']}/notes"
        headers = {"PRIVATE-TOKEN": env["GITLAB_TOKEN"]}
        update = listing + "/{id}"
        update_method = "PUT"
    if args.dry_run:
        stdout.write(f"dry run: find the comment holding the marker in {listing}, then PATCH/PUT it or POST a new one\n")
        stdout.write(body)
        return
    existing = _find(listing, headers, args.marker)
    if existing is None:
        _request("POST", listing, headers, {"body": body})
    else:
        _request(update_method, update.format(id=existing), headers, {"body": body})


def _find(listing: str, headers: Mapping[str, str], marker: str) -> int | None:
    """The id of the first comment that holds the marker, over every page of the listing."""
    page = 1
    while True:
        comments = _request("GET", f"{listing}?per_page=100&page={page}", headers, None)
        if not isinstance(comments, list) or not comments:
            return None
        for comment in comments:
            if marker in str(comment.get("body", "")):
                return int(comment["id"])
        page += 1


def _request(method: str, url: str, headers: Mapping[str, str], payload: Any) -> Any:
    data = None if payload is None else json.dumps(payload).encode()
    request = urllib.request.Request(url, data=data, method=method, headers={**headers, "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:  # noqa: S310 (the forge's API address)
        text = response.read().decode() or "null"
    return json.loads(text)


if __name__ == "__main__":
    sys.exit(main())
