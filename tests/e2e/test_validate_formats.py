"""``validate -o json`` and ``validate -o github``: problems a CI job can read, and annotations on the PR line (issue 39 §2).

The GitHub form follows the runner's workflow-command syntax: ``::error file=F,line=L,title=T::message``,
with ``%``, CR and LF escaped in the message and, in property values, ``:`` and ``,`` as well
(GitHub's "Workflow commands for GitHub Actions", the escaping its toolkit's ``issueCommand`` applies).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

MANIFEST = """\
apiVersion: nvidia.com/v1beta1
kind: DynamoComponentDeployment
metadata:
  name: worker
spec:
  type: worker
  backendFramework: vllm
  replicas: -1
  podTemplate:
    spec:
      containers:
      - name: main
        image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.4.0
"""


def _validate(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "plugin", "validate", *args], cwd=cwd, env=env, capture_output=True, text=True, check=False,
    )


def test_json_gives_one_record_per_problem_with_its_line_code_and_object(tmp_path: Path) -> None:
    (tmp_path / "worker.yaml").write_text(MANIFEST)
    done = _validate(tmp_path, "-o", "json", "worker.yaml")
    assert done.returncode == 1, done.stderr
    records = json.loads(done.stdout)
    replicas = [r for r in records if r["field"] == "spec.replicas"]
    assert len(replicas) == 1, records
    record = replicas[0]
    assert record["file"] == "worker.yaml" and record["line"] == 8 and record["document"] == 0
    assert record["severity"] == "error" and record["code"] == "schema"
    assert record["object"] == {"apiVersion": "nvidia.com/v1beta1", "kind": "DynamoComponentDeployment", "name": "worker", "namespace": ""}
    assert "must be >= 0" in record["message"] and record["text"].endswith("[schema]")


def test_json_of_a_valid_file_is_an_empty_list(tmp_path: Path) -> None:
    (tmp_path / "worker.yaml").write_text(MANIFEST.replace("replicas: -1", "replicas: 1"))
    done = _validate(tmp_path, "-o", "json", "worker.yaml")
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads(done.stdout) == []


GRAPH = """\
apiVersion: nvidia.com/v1beta1
kind: DynamoGraphDeployment
metadata:
  name: graph
spec:
  backendFramework: vllm
  components:
  - name: decode
    type: worker
    podTemplate:
      spec:
        containers:
        - name: main
          image: registry.example/vllm-runtime:my-tag
"""


def test_json_carries_the_fix_apart_from_the_operator_message(tmp_path: Path) -> None:
    (tmp_path / "graph.yaml").write_text(GRAPH)
    done = _validate(tmp_path, "-o", "json", "graph.yaml")
    assert done.returncode == 1, done.stdout + done.stderr
    [record] = [r for r in json.loads(done.stdout) if r["severity"] == "error"]
    assert record["field"].endswith("runtimeVersionOverride") and "semantic-version" in record["message"]
    assert record["line"] == 8  # the component: the field it needs is not written
    assert '":1.4.0"' in record["fix"] and "fix:" not in record["message"]
    assert record["text"].endswith(f"fix: {record['fix']} [{record['code']}]")


def test_github_annotates_the_file_and_line(tmp_path: Path) -> None:
    (tmp_path / "worker.yaml").write_text(MANIFEST)
    done = _validate(tmp_path, "-o", "github", "worker.yaml")
    assert done.returncode == 1
    [line] = [line for line in done.stdout.splitlines() if "spec.replicas" in line]
    assert line.startswith("::error file=worker.yaml,line=8,title=[schema] DynamoComponentDeployment/worker::"), line
    assert line.endswith("spec.replicas: must be >= 0 (got -1) [schema]")


def test_github_escapes_what_the_runner_would_read_as_syntax(tmp_path: Path) -> None:
    # A file name with a comma, a colon and a percent sign, and a value with a line break: the
    # annotation must still name the whole file and stay one command.
    name = "a,b:c%d.yaml"
    (tmp_path / name).write_text(MANIFEST)
    done = _validate(tmp_path, "-o", "github", name)
    assert done.returncode == 1
    commands = [line for line in done.stdout.splitlines() if "spec.replicas" in line]
    assert len(commands) == 1
    assert commands[0].startswith("::error file=a%2Cb%3Ac%25d.yaml,line=8,"), commands[0]
    assert all(line.startswith("::") for line in done.stdout.splitlines())


@pytest.mark.parametrize("output", ["json", "github"])
def test_a_warning_keeps_its_level_and_the_run_passes(output: str, tmp_path: Path) -> None:
    # An Argo CD hook annotation on the source is not carried to what it renders: a warning.
    text = MANIFEST.replace("replicas: -1", "replicas: 1").replace(
        "  name: worker\n", "  name: worker\n  annotations:\n    argocd.argoproj.io/hook: PreSync\n",
    )
    (tmp_path / "worker.yaml").write_text(text)
    done = _validate(tmp_path, "-o", output, "worker.yaml")
    assert done.returncode == 0, done.stdout + done.stderr
    if output == "json":
        [record] = json.loads(done.stdout)
        assert (record["severity"], record["code"], record["line"]) == ("warning", "ignored", 6), record
    else:
        [line] = done.stdout.splitlines()
        assert line.startswith("::warning file=worker.yaml,line=6,title=[ignored] DynamoComponentDeployment/worker::"), line
