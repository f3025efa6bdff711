"""The catalog-style example package: ``kpt fn render`` must produce exactly ``.expected/``.

kpt's own end-to-end convention (as the kpt functions catalog runs its examples): copy the
package into a fresh git repository, commit, run the pipeline ``runCount`` times, then compare
``git diff`` with ``.expected/diff.patch`` and kpt's ``results.yaml`` with
``.expected/results.yaml``. Beyond the byte comparison, the rendered objects are checked
against the CLI's render of the same graph and the Kubernetes schemas, so a wrong expected file
cannot hide a wrong render.

``UPDATE_EXPECTED=1`` rewrites the expected files and fails, for review.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import yaml

from tests.e2e.test_krm import BIN, EXAMPLES, _cli_render, _docs, _run, _strip_file_annotations, env  # noqa: F401 (env is a fixture)
from tests.schemas import assert_valid

PACKAGE = EXAMPLES / "kpt-catalog"
EXPECTED = PACKAGE / ".expected"


def _git(cwd: Path, *args: str) -> str:
    git_env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid", "GIT_COMMITTER_NAME": "t",
               "GIT_COMMITTER_EMAIL": "t@example.invalid", "GIT_CONFIG_NOSYSTEM": "1"}
    return subprocess.run(["git", *args], cwd=cwd, env=git_env, check=True, capture_output=True, text=True).stdout


def _diff(repo: Path) -> str:
    """``git diff`` of everything the run changed, without the blob ids (they carry no meaning here)."""
    _git(repo, "add", "-A")
    text = _git(repo, "diff", "--cached", "--no-color", "--no-ext-diff", "--", ".")
    return "".join(line + "\n" for line in text.splitlines() if not line.startswith("index "))


def test_kpt_fn_render_gives_the_expected_package(env: dict[str, str], tmp_path: Path) -> None:
    config = yaml.safe_load((EXPECTED / "config.yaml").read_text())
    assert config["testType"] == "render" and config["allowExec"] is True
    repo = tmp_path / "repo"
    pkg = repo / PACKAGE.name
    shutil.copytree(PACKAGE, pkg, ignore=shutil.ignore_patterns(".expected"))
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "package")

    results_dir = tmp_path / "results"
    for run in range(config["runCount"]):
        results_dir.mkdir(exist_ok=True)
        done = _run(["kpt", "fn", "render", str(pkg), "--allow-exec", "--results-dir", str(results_dir)], env)
        assert done.returncode == config["exitCode"], done.stdout + done.stderr
        if run == 0:
            diff = _diff(repo)
            _git(repo, "commit", "-q", "-m", "rendered")
        else:
            assert _diff(repo) == "", "a second render changed the package"
    results = (results_dir / "results.yaml").read_text()

    if os.environ.get("UPDATE_EXPECTED"):
        (EXPECTED / "diff.patch").write_text(diff)
        (EXPECTED / "results.yaml").write_text(results)
        raise AssertionError("expected files rewritten; review them and run again without UPDATE_EXPECTED")
    assert diff == (EXPECTED / "diff.patch").read_text()
    assert results == (EXPECTED / "results.yaml").read_text()

    # What the expected diff adds is what the CLI renders for the graph, and schema-valid.
    objects = _docs((pkg / "graph.yaml").read_text())
    rendered = [_strip_file_annotations(o, keep_marker=True) for o in objects if o["kind"] != "DynamoGraphDeployment"]
    cli = _cli_render(PACKAGE / "graph.yaml", env, "--namespace", "llm")
    assert sorted(rendered, key=repr) == sorted(cli, key=repr)
    assert_valid(rendered)
    assert {o["metadata"]["annotations"]["dynamo-render.dev/rendered-from"] for o in objects if o["kind"] != "DynamoGraphDeployment"} == {
        "DynamoGraphDeployment/llm/qwen-agg"
    }
    assert (BIN / "dynamo-render-krm").is_file()
