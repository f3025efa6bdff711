"""``dynamo-render convert``: the real command, as a user runs it.

Expected v1beta1 objects come from the operator's own conversion (the ``beta`` entries of
tests/data/v1alpha1_conversion/corpus_from.json are its ConvertTo output for the corpus
files; scaling_adapter.json likewise).
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from plugin.frontends import convert as convert_cmd
from plugin.yamlio.codec import load_documents
from renderer.conversion.shared_from import prune
from tests.positions import document_start, line_of

BIN = Path(sys.executable).with_name("dynamo-render")
DATA = Path(__file__).resolve().parents[1] / "data"
CORPUS = DATA / "corpus"
CORPUS_CASES = json.loads((DATA / "v1alpha1_conversion" / "corpus_from.json").read_text())
PRESERVATION_KEYS = ("nvidia.com/dcd-spec", "nvidia.com/dcd-status", "nvidia.com/dgd-spec", "nvidia.com/dgd-status")


def run(*args: str | Path, cwd: Path | None = None, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(BIN), "convert", *map(str, args)], capture_output=True, text=True, cwd=cwd, input=stdin, check=False
    )


def norm(obj: Any) -> Any:
    obj = json.loads(json.dumps(obj))
    anns = (obj.get("metadata") or {}).get("annotations") or {}
    for key in PRESERVATION_KEYS:
        if key in anns:
            anns[key] = json.loads(anns[key])
    return prune(obj)


ADAPTER = """\
# a head comment
apiVersion: v1
kind: ConfigMap   # keep me
metadata:
  name: cm
data:
  b: "2"
  a: '1'
---
# the adapter
apiVersion: nvidia.com/v1alpha1
kind: DynamoGraphDeploymentScalingAdapter
metadata:
  name: ad
  namespace: ns
spec:
  replicas: 2
  dgdRef:
    name: graph
    serviceName: VllmDecodeWorker
# trailing comment
---
apiVersion: v1
kind: Service
metadata: {name: svc}   # flow style stays
"""

ADAPTER_V1BETA1 = """\
---
apiVersion: nvidia.com/v1beta1
kind: DynamoGraphDeploymentScalingAdapter
metadata:
  name: ad
  namespace: ns
spec:
  dgdRef:
    componentName: VllmDecodeWorker
    name: graph
  replicas: 2
"""


def test_stdout_stream(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text(ADAPTER)
    done = run("a.yaml", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    docs = done.stdout.split("---\n")[1:]
    assert len(docs) == 3
    assert "---\n" + docs[1] == ADAPTER_V1BETA1
    # pass-through objects are unchanged (as data; the stream is re-emitted deterministically)
    assert docs[0] == "apiVersion: v1\ndata:\n  a: '1'\n  b: '2'\nkind: ConfigMap\nmetadata:\n  name: cm\n"
    assert run("a.yaml", cwd=tmp_path).stdout == done.stdout


def test_json_output(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text(ADAPTER)
    done = run("-o", "json", "a.yaml", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    objs = [json.loads(line) for line in done.stdout.splitlines()]
    assert [o["kind"] for o in objs] == ["ConfigMap", "DynamoGraphDeploymentScalingAdapter", "Service"]
    assert objs[1]["spec"] == {"dgdRef": {"componentName": "VllmDecodeWorker", "name": "graph"}, "replicas": 2}


def test_stdin(tmp_path: Path) -> None:
    done = run("-", stdin=ADAPTER)
    assert done.returncode == 0, done.stderr
    assert ADAPTER_V1BETA1 in done.stdout


def test_in_place_keeps_untouched_documents_byte_for_byte(tmp_path: Path) -> None:
    path = tmp_path / "a.yaml"
    path.write_text(ADAPTER)
    other = tmp_path / "plain.yaml"
    other.write_text("# untouched file\nkind: ConfigMap\napiVersion: v1\n")
    os.chmod(path, 0o640)
    before = other.stat().st_mtime_ns
    done = run("--in-place", tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "" and done.stderr == ""
    text = path.read_text()
    head, _, rest = ADAPTER.partition("apiVersion: nvidia.com/v1alpha1")
    assert text.startswith(head)  # the first document and the comment above the adapter
    assert text.endswith("# trailing comment\n---\napiVersion: v1\nkind: Service\nmetadata: {name: svc}   # flow style stays\n")
    assert text == head + ADAPTER_V1BETA1[len("---\n") :] + "# trailing comment\n" + ADAPTER.split("# trailing comment\n")[1]
    assert path.stat().st_mode & 0o777 == 0o640
    assert other.stat().st_mtime_ns == before
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]
    # converting again changes nothing
    assert run("--in-place", path).returncode == 0
    assert path.read_text() == text


def test_in_place_json_file(tmp_path: Path) -> None:
    path = tmp_path / "a.json"
    path.write_text(json.dumps({"apiVersion": "nvidia.com/v1alpha1", "kind": "DynamoGraphDeploymentScalingAdapter",
                                "metadata": {"name": "ad"}, "spec": {"replicas": 1, "dgdRef": {"name": "g", "serviceName": "W"}}}))
    assert run("--in-place", path).returncode == 0
    obj = json.loads(path.read_text())
    assert obj["apiVersion"] == "nvidia.com/v1beta1"
    assert obj["spec"]["dgdRef"] == {"name": "g", "componentName": "W"}


BROKEN = """\
apiVersion: nvidia.com/v1alpha1
kind: DynamoGraphDeploymentScalingAdapter
metadata:
  name: bad
spec:
  replicas: 1
  dgdRef: [oops]
"""


def test_error_contract(tmp_path: Path) -> None:
    good = tmp_path / "good.yaml"
    good.write_text(ADAPTER)
    bad = tmp_path / "bad.yaml"
    text = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: first\n---\n" + BROKEN
    bad.write_text(text)
    done = run("bad.yaml", "good.yaml", cwd=tmp_path)
    assert done.returncode == 1
    assert done.stdout == ""
    # the line of the field, in the file's second document
    line = line_of(text, "  dgdRef: [oops]")
    assert done.stderr == f"bad.yaml:{line}: [error] DynamoGraphDeploymentScalingAdapter/bad spec.dgdRef: expected an object [conversion]\n"
    # --in-place writes no file at all when any file has an error
    done = run("--in-place", "bad.yaml", "good.yaml", cwd=tmp_path)
    assert done.returncode == 1
    assert good.read_text() == ADAPTER
    assert bad.read_text().endswith(BROKEN)


def test_invalid_yaml_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "x.yaml").write_text("a: [\n")
    done = run("x.yaml", cwd=tmp_path)
    assert done.returncode == 1 and done.stdout == ""
    # placed at the line the YAML error names: the stream ends inside the flow sequence
    assert len(done.stderr.splitlines()) == 1 and done.stderr.startswith("x.yaml:2: [error]: invalid YAML at line 2,")


@pytest.mark.parametrize(
    "args", [(), ("--in-place", "-"), ("--in-place", "-o", "json", "a.yaml"), ("-o", "xml", "a.yaml"), ("--nope", "a.yaml")]
)
def test_usage_errors_exit_2(tmp_path: Path, args: tuple[str, ...]) -> None:
    (tmp_path / "a.yaml").write_text(ADAPTER)
    done = run(*args, cwd=tmp_path)
    assert done.returncode == 2
    assert done.stdout == ""
    assert (tmp_path / "a.yaml").read_text() == ADAPTER


SPOKE = [c for c in CORPUS_CASES if "beta" in c]


@pytest.mark.parametrize("name", sorted({c["file"] for c in SPOKE}))
def test_corpus_file_converts_as_the_operator_stores_it(name: str) -> None:
    # in-process (the command path of ``convert --as-stored -o json FILE``): 200 files, no interpreter starts
    out, err = io.StringIO(), io.StringIO()
    assert convert_cmd.run_stream([str(CORPUS / name)], "json", out, err, as_stored=True) == 0, err.getvalue()
    got = [json.loads(line) for line in out.getvalue().splitlines()]
    docs = load_documents((CORPUS / name).read_text(encoding="utf-8"), name)[0]
    assert len(got) == len(docs)
    expected = {c["doc"]: c["beta"] for c in SPOKE if c["file"] == name}
    for doc, obj in zip(docs, got):
        if doc.index in expected and doc.obj.get("kind") == obj.get("kind"):
            assert norm(obj) == norm(expected[doc.index])


COMMENTED = """\
# a commented graph, as a person writes one
apiVersion: v1
kind: ConfigMap   # untouched, byte for byte
metadata: {name: notes}
---
apiVersion: nvidia.com/v1alpha1
kind: DynamoGraphDeployment
metadata:
  name: chat   # keep short
spec:
  # the graph's services, in reading order
  services:
    Frontend:   # the HTTP entry point
      componentType: frontend
      replicas: 2   # two for HA
      extraPodSpec:
        mainContainer:
          image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.6.1   # pinned
    VllmDecodeWorker:
      componentType: worker
      replicas: 1
      resources:
        limits:
          gpu: "2"   # TP=2 on H100
      envs:
        # cache location
        - name: HF_HOME
          value: /cache   # on the node
      extraPodSpec:
        mainContainer:
          image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.6.1
          args:
            - python3 -m dynamo.vllm --model Qwen/Qwen3-0.6B   # small model
"""


def comment_lines(text: str) -> list[str]:
    return [line[line.index("#"):] for line in text.splitlines() if "#" in line]


def test_in_place_keeps_comments_on_their_fields_and_writes_no_opaque_data(tmp_path: Path) -> None:
    from tests.fuzz.support import render

    path = tmp_path / "graph.yaml"
    path.write_text(COMMENTED)
    before = render([path])
    assert before.code == 0, before.stderr
    done = run("--in-place", path)
    assert done.returncode == 0, done.stderr
    text = path.read_text()
    first = COMMENTED.split("---\n")[0]
    assert text.startswith(first + "---\napiVersion: nvidia.com/v1beta1\n")
    # every comment survives, the moved ones on the field they moved with
    assert comment_lines(text) == comment_lines(COMMENTED)
    lines = [line.strip() for line in text.splitlines()]
    assert "name: chat  # keep short" in lines
    assert "replicas: 2 # two for HA" in lines
    assert "nvidia.com/gpu: '2'  # TP=2 on H100" in lines
    assert "- name: Frontend  # the HTTP entry point" in lines
    assert "- image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.6.1  # pinned" in lines
    assert lines[lines.index("# cache location") + 1] == "- name: HF_HOME"
    # no status, no preservation annotation: the render needs neither
    assert "status" not in text and "nvidia.com/dgd-spec" not in text
    after = render([path])
    assert after.code == 0, after.stderr
    assert after.stdout == before.stdout
    # --as-stored writes the API server's form, comments and all left to the plain writer
    path.write_text(COMMENTED)
    assert run("--in-place", "--as-stored", path).returncode == 0
    stored = path.read_text()
    assert "nvidia.com/dgd-spec" in stored and "status:" in stored
    assert render([path]).stdout == before.stdout


def test_default_output_keeps_only_the_preserved_fields_the_render_reads() -> None:
    # the operator stores dynamoNamespace only in the preservation annotation, and it sets the
    # nvidia.com/dynamo-namespace labels: that member stays, with an info line; the rest goes
    name = "ankdeshm_dynamo_disaag_serving_gke__llama31_70b_dynamo_a3u.yaml"
    out, err = io.StringIO(), io.StringIO()
    assert convert_cmd.run_stream([str(CORPUS / name)], "json", out, err) == 0, err.getvalue()
    (graph,) = [json.loads(line) for line in out.getvalue().splitlines()]
    assert "status" not in graph
    assert json.loads(graph["metadata"]["annotations"]["nvidia.com/dgd-spec"]) == {"version": 1, "spec": {"services": {
        "Frontend": {"dynamoNamespace": "llama3-disagg"}, "VllmDecodeWorker": {"dynamoNamespace": "llama3-disagg"},
        "VllmPrefillWorker": {"dynamoNamespace": "llama3-disagg"}}}}
    assert err.getvalue() == (
        f"{CORPUS / name}:{document_start((CORPUS / name).read_text(), 0)}: [info] DynamoGraphDeployment/llama3-disagg: keeps nvidia.com/dgd-spec with "
        "services.Frontend.dynamoNamespace, services.VllmDecodeWorker.dynamoNamespace, services.VllmPrefillWorker.dynamoNamespace: "
        "v1beta1 has no field for them, and the render reads them\n"
    )
    # a graph whose preserved fields change nothing that renders loses the annotation entirely
    name = "dynamo__recipes__qwen3-32b__vllm__cloud-providers__kustomize__base__deploy.yaml"
    out = io.StringIO()
    assert convert_cmd.run_stream([str(CORPUS / name)], "json", out, io.StringIO()) == 0
    (graph,) = [json.loads(line) for line in out.getvalue().splitlines()]
    assert "annotations" not in graph["metadata"] and "status" not in graph
