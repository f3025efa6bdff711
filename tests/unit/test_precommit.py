"""The pre-commit front ends in-process: line mapping, argument handling, hydration layout."""

from __future__ import annotations

import io
import os
import sys
import subprocess
import textwrap
from pathlib import Path

import pytest

from plugin.frontends import hydrate_diff, precommit_hydrate, precommit_validate, render as render_cmd
from plugin.options import given_values
from plugin.yamlio.codec import load_documents
from plugin.yamlio.lines import LineIndex, format_results, resolve
from renderer.results import ResourceRef, Result, Severity
from tests.positions import document_start

DCD_REF = ResourceRef("nvidia.com/v1beta1", "DynamoComponentDeployment", "worker", "")

STREAM = textwrap.dedent(
    """\
    # leading comment
    apiVersion: v1
    kind: ConfigMap
    metadata:
      name: first
    ---
    ---
    apiVersion: nvidia.com/v1beta1
    kind: DynamoComponentDeployment
    metadata:
      name: worker
      annotations:
        nvidia.com/dcd-spec: "{}"
    spec:
      multinode: {}
      podTemplate:
        metadata:
          labels:
            app.kubernetes.io/name: worker
        spec:
          containers:
            - name: sidecar
              image: busybox
            - name: main
              image: example/worker:1
              args:
                - --flag
    """
)


def _line(text: str, needle: str) -> int:
    """1-based line equal to ``needle``, or else the only line containing it."""
    found = [n for n, line in enumerate(text.splitlines(), start=1) if line == needle]
    found = found or [n for n, line in enumerate(text.splitlines(), start=1) if needle in line]
    assert len(found) == 1, (needle, found)
    return found[0]


@pytest.mark.parametrize(
    ("field", "needle"),
    [
        ("", "apiVersion: nvidia.com/v1beta1"),
        ("kind", "kind: DynamoComponentDeployment"),
        ("spec.podTemplate.spec.containers[1].image", "image: example/worker:1"),
        ("spec.podTemplate.spec.containers[main].args", "args:"),
        ("spec.podTemplate.spec.containers[1].args[0]", "- --flag"),
        ("metadata.annotations[nvidia.com/dcd-spec]", "nvidia.com/dcd-spec"),
        # map keys with dots joined by "." (as the typed decode reports them): the longest key wins
        ("spec.podTemplate.metadata.labels.app.kubernetes.io/name", "app.kubernetes.io/name"),
        # the deepest existing node when the field is absent (a defaulted or missing field)
        ("spec.multinode.nodeCount", "multinode: {}"),
        ("spec.podTemplate.spec.containers[1].resources.limits", "- name: main"),
        ("spec.podTemplate.spec.containers[7].image", "containers:"),
        ("spec.podTemplate.spec.containers[ghost].args", "containers:"),
        ("spec.replicas", "spec:"),
    ],
    ids=lambda v: v if isinstance(v, str) else "",
)
def test_field_paths_resolve_to_the_line_that_holds_them(field: str, needle: str) -> None:
    index = LineIndex(STREAM)
    result = Result("x", resource=DCD_REF, field=field, file="f.yaml", index=2)
    assert index.line(result) == _line(STREAM, needle)


def test_document_indexes_count_empty_documents_as_the_loader_does() -> None:
    docs, problems = load_documents(STREAM, "f.yaml")
    assert not problems
    assert [d.index for d in docs] == [0, 2]
    index = LineIndex(STREAM)
    first = Result("x", resource=ResourceRef("v1", "ConfigMap", "first"), field="metadata.name", file="f.yaml", index=0)
    assert index.line(first) == _line(STREAM, "name: first")
    assert index.line(Result("x", file="f.yaml", index=1, field="spec")) is None
    assert index.line(Result("x", file="f.yaml", index=9, field="spec")) is None


def test_results_without_an_index_are_found_by_their_resource() -> None:
    index = LineIndex(STREAM)
    assert index.line(Result("x", resource=DCD_REF, field="spec.multinode")) == _line(STREAM, "multinode: {}")
    stranger = ResourceRef("v1", "Secret", "nowhere")
    assert index.line(Result("x", resource=stranger, field="data")) is None


def test_items_of_a_list_document_are_told_apart_by_their_resource() -> None:
    text = textwrap.dedent(
        """\
        apiVersion: v1
        kind: List
        items:
          - apiVersion: v1
            kind: ConfigMap
            metadata:
              name: one
            data:
              a: "1"
          - apiVersion: v1
            kind: ConfigMap
            metadata:
              name: two
            data:
              a: "2"
        """
    )
    index = LineIndex(text)
    two = Result("x", resource=ResourceRef("v1", "ConfigMap", "two"), field="data.a", file="l.yaml", index=0)
    assert index.line(two) == _line(text, 'a: "2"')


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("kind: DynamoComponentDeployment\nspec: [\n", None),
        ("a: 1\n---\nkind: DynamoComponentDeployment\nkind: again\n", "kind: again"),
        ("a: 1\n\tb: 2\n", "\tb: 2"),
    ],
    ids=["unclosed-flow", "duplicate-key", "tab-indent"],
)
def test_yaml_errors_point_at_the_line_the_loader_names(text: str, needle: str | None) -> None:
    _, problems = load_documents(text, "y.yaml")
    assert len(problems) == 1
    expected = len(text.splitlines()) + 1 if needle is None else _line(text, needle)
    assert f"at line {expected}," in problems[0].message
    assert LineIndex(text).line(problems[0]) == expected


def test_format_results_prefixes_file_and_line_and_composes_each_file_once() -> None:
    results = [
        Result("bad", resource=DCD_REF, field="kind", file="f.yaml", index=2),
        Result("note", severity=Severity.WARNING, resource=DCD_REF, field="spec.replicas", file="f.yaml", index=2),
        Result("global"),
        Result("cannot read: No such file or directory", file="gone.yaml"),
    ]
    assert format_results(results, {"f.yaml": STREAM}) == [
        f"f.yaml:{_line(STREAM, 'kind: Dynamo')}: [error] DynamoComponentDeployment/worker kind: bad",
        f"f.yaml:{_line(STREAM, 'spec:')}: [warning] DynamoComponentDeployment/worker spec.replicas: note",
        "[error]: global",
        "gone.yaml: [error]: cannot read: No such file or directory",
    ]


def test_resolve_on_an_empty_path_is_the_node_itself() -> None:
    node = LineIndex("a:\n  b: 1\n").documents[0]
    assert resolve(node, "") is node
    assert resolve(node, "a.b").start_mark.line == 1
    assert resolve(node, "a[unclosed").start_mark.line == 0


# ---------------------------------------------------------------------------------------------
# dynamo-validate


def _write(path: Path, text: str) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return str(path)


def _cli(*argv: str) -> tuple[int, str, str]:
    """Run a command through the one click group, in process."""
    from click.testing import CliRunner

    from plugin.cli import cli

    done = CliRunner().invoke(cli, list(argv))
    if done.exit_code == 3:
        raise AssertionError(done.stderr)
    return done.exit_code, done.stdout, done.stderr


def _validate(*argv: str) -> tuple[int, list[str]]:
    code, out, _ = _cli("validate", *argv)
    return code, out.splitlines()


WORKER = textwrap.dedent(
    """\
    apiVersion: nvidia.com/v1beta1
    kind: DynamoComponentDeployment
    metadata:
      name: worker
      namespace: llm
    spec:
      type: decode
      replicas: {replicas}
      podTemplate:
        spec:
          containers:
            - name: main
              image: example/worker:1
    """
)


def test_validate_without_files_passes() -> None:
    assert _validate() == (0, [])


def test_files_without_a_dynamo_kind_are_not_parsed(tmp_path: Path) -> None:
    broken = _write(tmp_path / "chart" / "templates" / "x.yaml", "{{ .Values.oops }}\n: [\n")
    assert _validate(broken) == (0, [])


def test_a_valid_file_passes_silently_and_notes_need_verbose(tmp_path: Path) -> None:
    good = _write(tmp_path / "w.yaml", WORKER.format(replicas=1))
    assert _validate(good) == (0, [])
    code, lines = _validate("-v", good, good)
    assert code == 0
    assert len(lines) == 2 and lines[0].startswith("[info]: no operator configuration given")
    assert lines[1].startswith("[info]: no cluster state given")


def test_directories_are_walked_and_every_bad_file_is_reported(tmp_path: Path) -> None:
    _write(tmp_path / "a" / "bad.yaml", WORKER.format(replicas=-1))
    _write(tmp_path / "b" / "bad.yml", WORKER.format(replicas=-2))
    _write(tmp_path / "b" / "good.yaml", WORKER.format(replicas=1))
    code, lines = _validate(str(tmp_path))
    row = _line(WORKER, "replicas:")
    assert code == 1
    assert lines == [
        f"{tmp_path}/a/bad.yaml:{row}: [error] DynamoComponentDeployment/worker spec.replicas: must be >= 0 (got -1) [schema]",
        f"{tmp_path}/b/bad.yml:{row}: [error] DynamoComponentDeployment/worker spec.replicas: must be >= 0 (got -2) [schema]",
    ]


def test_settings_options_reach_the_renderer(tmp_path: Path) -> None:
    multinode = (
        WORKER.format(replicas=1).replace("  replicas: 1\n", "  replicas: 1\n  backendFramework: vllm\n  multinode: {}\n")
        + "          command: [python3, -m, dynamo.vllm]\n          args: [--model, Qwen/Qwen3-0.6B]\n"
    )
    path = _write(tmp_path / "m.yaml", multinode)
    assert _validate("--lws", path) == (0, [])
    code, lines = _validate("--no-lws", path)
    assert code == 1
    assert lines[0].startswith(f"{path}:{_line(multinode, 'multinode')}: [error] DynamoComponentDeployment/worker spec.multinode.nodeCount: multinode DCD needs LeaderWorkerSet")


def test_unusable_settings_are_reported_and_no_file_is_checked(tmp_path: Path) -> None:
    bad = _write(tmp_path / "w.yaml", WORKER.format(replicas=-1))
    code, lines = _validate("--config", str(tmp_path / "missing.yaml"), bad)
    assert code == 1
    assert lines == [f"{tmp_path}/missing.yaml: [error]: cannot read: No such file or directory [input]"]


def test_settings_are_read_only_when_a_file_names_a_dynamo_kind(tmp_path: Path) -> None:
    other = _write(tmp_path / "cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n")
    assert _validate("--config", str(tmp_path / "missing.yaml"), other) == (0, [])


def test_unreadable_and_undecodable_files_are_errors(tmp_path: Path) -> None:
    latin = tmp_path / "latin.yaml"
    latin.write_bytes(b"kind: DynamoComponentDeployment\nname: caf\xe9\n")
    code, lines = _validate(str(tmp_path / "nope.yaml"), str(latin))
    assert code == 1
    assert lines == [
        f"{tmp_path}/nope.yaml: [error]: cannot read: No such file or directory [input]",
        f"{latin}: [error]: not valid UTF-8 at byte 41 [input]",
    ]


DGD = textwrap.dedent(
    """\
    apiVersion: nvidia.com/v1beta1
    kind: DynamoGraphDeployment
    metadata:
      name: graph
      annotations:
        nvidia.com/enable-grove: "false"
    spec:
      backendFramework: vllm
      components:
        - name: frontend
          type: frontend
          replicas: 1
          podTemplate:
            spec:
              containers:
                - name: main
                  image: registry.example/dynamo-frontend:1.4.0-test
                  imagePullPolice: Always
    ---
    apiVersion: nvidia.com/v1beta1
    kind: DynamoGraphDeployment
    metadata:
      name: negative
      annotations:
        nvidia.com/enable-grove: "false"
    spec:
      backendFramework: vllm
      components:
        - name: frontend
          type: frontend
          podTemplate:
            spec:
              containers:
                - name: main
                  image: registry.example/dynamo-frontend:1.4.0-test
        - name: decode
          type: decode
          replicas: -2
          podTemplate:
            spec:
              containers:
                - name: main
                  image: registry.example/dynamo-worker:1.4.0-test
    """
)


def test_graph_components_are_checked_and_located(tmp_path: Path) -> None:
    path = _write(tmp_path / "graph.yaml", DGD)
    code, lines = _validate(path)
    assert code == 1
    assert sorted(lines) == sorted(
        [
            f"{path}:{_line(DGD, 'replicas: -2')}: [error] DynamoGraphDeployment/negative spec.components[1].replicas: must be >= 0 (got -2) [schema]",
            (
                f"{path}:{_line(DGD, 'imagePullPolice')}: [error] DynamoGraphDeployment/graph "
                'spec.components[0].podTemplate.spec.containers[0].imagePullPolice: unknown field "imagePullPolice": the API server would prune this field and the operator would ignore it; fix: did you mean "imagePullPolicy"? [unknown-field]'
            ),
        ]
    )


def test_validate_usage_error_exits_2() -> None:
    code, _, err = _cli("validate", "--no-such-option")
    assert code == 2
    assert "No such option '--no-such-option'" in err


# ---------------------------------------------------------------------------------------------
# dynamo-hydrate-check


# The tree's settings file, named as the hook's args name it (unnamed, it is a warning).
CONFIG = ("--config", "deploy/settings.yaml")


def _hydrate(*argv: str) -> tuple[int, str]:
    code, out, _ = _cli("hydrate-check", *argv)
    return code, out


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository-like folder with sources under deploy/, used as the working directory.

    Run from a shell whose PATH has the ``dynamo-render`` script, outside pre-commit: the hint
    names the script (``fix_program``).
    """
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PATH", os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", ""))
    monkeypatch.delenv("PRE_COMMIT", raising=False)
    _write(tmp_path / "deploy" / "apps" / "worker.yaml", WORKER.format(replicas=1))
    _write(
        tmp_path / "deploy" / "apps" / "model.yaml",
        WORKER.format(replicas=1).replace("name: worker", "name: other") + "  modelRef:\n    name: Qwen/Qwen3-0.6B\n",
    )
    _write(
        tmp_path / "deploy" / "zz-model-twin.yaml",
        WORKER.format(replicas=1).replace("name: worker", "name: twin") + "  modelRef:\n    name: Qwen/Qwen3-0.6B\n",
    )
    _write(tmp_path / "deploy" / "namespace.json", '{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "llm"}}\n')
    _write(tmp_path / "deploy" / "empty.yaml", "# nothing here yet\n")
    _write(
        tmp_path / "deploy" / "settings.yaml",
        "apiVersion: config.dynamo-render.dev/v1alpha1\nkind: DynamoRenderConfig\nmetadata:\n  name: s\nspec:\n  namespace: llm\n",
    )
    return tmp_path


def _objects(path: Path) -> list[object]:
    docs, problems = load_documents(path.read_text(), str(path))
    assert not problems
    return [d.obj for d in docs]


def test_hydrate_layout_mirrors_the_source_tree(tree: Path) -> None:
    code, out = _hydrate("--fix", "--config", "deploy/settings.yaml", "deploy", "rendered")
    assert code == 1
    written = sorted(str(p.relative_to(tree / "rendered")) for p in (tree / "rendered").rglob("*") if p.is_file())
    # empty.yaml renders nothing; settings.yaml is configuration, not a cluster object
    assert written == ["apps/model.yaml", "apps/worker.yaml", "namespace.yaml", "zz-model-twin.yaml"]
    assert out.splitlines() == [f"wrote rendered/{name}" for name in written]
    for name in written:
        text = (tree / "rendered" / name).read_text()
        source = "deploy/namespace.json" if name == "namespace.yaml" else f"deploy/{name}"
        assert text.startswith(f"# Code generated by dynamo-render from {source}; DO NOT EDIT.\n---\n")
    # the shared model Service is written once, in the first file read that renders it: a
    # folder's own files come before its subfolders, as the render command reads a tree
    def names(path: Path) -> list[tuple[str, str]]:
        return [(o["kind"], o["metadata"]["name"]) for o in _objects(path)]  # type: ignore[index]

    assert names(tree / "rendered" / "zz-model-twin.yaml") == [
        ("ServiceAccount", "twin-k8s-service-discovery"),
        ("Role", "twin-k8s-service-discovery-role"),
        ("RoleBinding", "twin-k8s-service-discovery-binding"),
        ("Deployment", "twin"),
        ("Service", "twin"),
        ("Service", "dynamo-model-fb68f5a6"),
    ]
    assert names(tree / "rendered" / "apps" / "model.yaml") == [
        ("ServiceAccount", "other-k8s-service-discovery"),
        ("Role", "other-k8s-service-discovery-role"),
        ("RoleBinding", "other-k8s-service-discovery-binding"),
        ("Deployment", "other"),
        ("Service", "other"),
    ]
    assert _hydrate("--config", "deploy/settings.yaml", "deploy", "rendered") == (0, "")


def test_hydrated_files_hold_exactly_what_render_prints_for_the_tree(tree: Path) -> None:
    _hydrate("--fix", *CONFIG, "deploy", "rendered")
    stdout, stderr = io.StringIO(), io.StringIO()
    code = render_cmd.run(["deploy"], given_values(dict(config="deploy/settings.yaml")), stdout, stderr)
    assert code == 0, stderr.getvalue()
    assert stderr.getvalue() == ""  # the named settings file is configuration, not a manifest
    rendered, _ = load_documents(stdout.getvalue(), "-")

    def key(obj: object) -> str:
        return repr(sorted(obj.items()))  # type: ignore[attr-defined]

    hydrated = [obj for path in sorted((tree / "rendered").rglob("*.yaml")) for obj in _objects(path)]
    assert sorted(map(key, hydrated)) == sorted(key(d.obj) for d in rendered)


def test_check_prints_a_diff_and_writes_nothing(tree: Path) -> None:
    _hydrate(*CONFIG, "--fix", "deploy", "rendered")
    Path("deploy/apps/worker.yaml").write_text(WORKER.format(replicas=3))
    os.remove("deploy/namespace.json")
    Path("rendered/notes.yaml").write_text("hand: written\n")
    before = {p: p.read_bytes() for p in Path("rendered").rglob("*") if p.is_file()}

    code, out = _hydrate(*CONFIG, "deploy", "rendered")
    assert code == 1
    assert "--- a/rendered/apps/worker.yaml\n+++ b/rendered/apps/worker.yaml\n" in out
    assert "\n-  replicas: 1\n+  replicas: 3\n" in out
    assert "--- a/rendered/namespace.yaml\n+++ /dev/null\n" in out
    assert "notes.yaml" not in out
    assert out.endswith("2 file(s) under rendered differ from a fresh render; run: dynamo-render hydrate-check --fix --config deploy/settings.yaml deploy rendered\n")
    assert {p: p.read_bytes() for p in Path("rendered").rglob("*") if p.is_file()} == before

    code, out = _hydrate(*CONFIG, "--fix", "deploy", "rendered")
    assert (code, out) == (1, "wrote rendered/apps/worker.yaml\nremoved stale rendered/namespace.yaml\n")
    assert Path("rendered/notes.yaml").read_text() == "hand: written\n"
    assert _hydrate(*CONFIG, "deploy", "rendered") == (0, "")


def test_deleting_the_last_file_of_a_folder_removes_the_folder(tree: Path) -> None:
    _hydrate("--fix", "deploy", "rendered")
    for name in ("worker.yaml", "model.yaml"):
        os.remove(f"deploy/apps/{name}")
    code, _ = _hydrate("--fix", "deploy", "rendered")
    assert code == 1
    assert not Path("rendered/apps").exists()
    assert Path("rendered").is_dir()


def test_a_missing_output_folder_is_all_new_files(tree: Path) -> None:
    code, out = _hydrate("deploy", "rendered")
    assert code == 1
    assert "--- /dev/null\n+++ b/rendered/apps/worker.yaml\n" in out
    assert not Path("rendered").exists()


def test_a_committed_file_without_a_final_newline_shows_in_the_diff(tree: Path) -> None:
    _hydrate("--fix", "deploy", "rendered")
    path = Path("rendered/namespace.yaml")
    path.write_text(path.read_text().rstrip("\n"))
    code, out = _hydrate("deploy", "rendered")
    assert code == 1
    assert "\\ No newline at end of file\n" in out


def test_render_errors_are_reported_with_lines_and_nothing_is_written(tree: Path) -> None:
    Path("deploy/apps/worker.yaml").write_text(WORKER.format(replicas=-1))
    code, out = _hydrate(*CONFIG, "--fix", "deploy", "rendered")
    assert code == 1
    row = _line(WORKER, "replicas:")
    assert out == f"deploy/apps/worker.yaml:{row}: [error] DynamoComponentDeployment/worker spec.replicas: must be >= 0 (got -1) [schema]\n"
    assert not Path("rendered").exists()


def test_sources_that_map_to_one_output_file_are_an_error(tree: Path) -> None:
    _write(tree / "deploy" / "namespace.yaml", "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: other\n")
    code, out = _hydrate("deploy", "rendered")
    assert code == 1
    assert "deploy/namespace.yaml: [error]: renders to the same output file namespace.yaml as deploy/namespace.json" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["missing", "rendered"], "[error]: source folder missing does not exist or is not a folder\n"),
        (["deploy", "deploy/rendered"], "[error]: source folder deploy and output folder deploy/rendered must not contain each other\n"),
        (["deploy/apps", "deploy"], "[error]: source folder deploy/apps and output folder deploy must not contain each other\n"),
        (["deploy", "deploy"], "[error]: source folder deploy and output folder deploy must not contain each other\n"),
        (["deploy", "deploy.txt"], "[error]: output deploy.txt exists and is not a folder\n"),
    ],
    ids=["no-source", "output-inside", "source-inside", "same", "output-is-file"],
)
def test_hydrate_refuses_unusable_folders(tree: Path, argv: list[str], message: str) -> None:
    Path("deploy.txt").write_text("x\n")
    assert _hydrate(*argv) == (1, message)


def test_hydrate_needs_both_folders() -> None:
    code, _, err = _cli("hydrate-check", "deploy")
    assert code == 2
    assert "Missing argument 'OUTPUT'" in err


def test_keep_sources_writes_the_dynamo_resources_too(tree: Path) -> None:
    _hydrate("--fix", "--keep-sources", "deploy", "rendered")
    kinds = [o["kind"] for o in _objects(tree / "rendered" / "apps" / "worker.yaml")]  # type: ignore[index]
    assert kinds == ["ServiceAccount", "Role", "RoleBinding", "Deployment", "Service", "DynamoComponentDeployment"]


def _git(cwd: Path, *args: str) -> None:
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1"}
    subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True)


def test_tracked_only_ignores_untracked_sources_and_outputs(tree: Path) -> None:
    _git(tree, "init", "-q")
    _hydrate(*CONFIG, "--fix", "deploy", "rendered")
    _git(tree, "add", "-A")
    assert _hydrate(*CONFIG, "--tracked-only", "deploy", "rendered") == (0, "")

    # a scratch source nobody added is not rendered
    _write(tree / "deploy" / "scratch.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: scratch\n")
    assert _hydrate(*CONFIG, "--tracked-only", "deploy", "rendered") == (0, "")
    # an output file that --fix wrote but nobody added does not count as committed
    code, out = _hydrate(*CONFIG, "--fix", "deploy", "rendered")
    assert (code, out) == (1, "wrote rendered/scratch.yaml\n")
    _git(tree, "add", "deploy/scratch.yaml")
    code, out = _hydrate(*CONFIG, "--tracked-only", "deploy", "rendered")
    assert code == 1
    assert "--- /dev/null\n+++ b/rendered/scratch.yaml\n" in out
    assert out.endswith("run: dynamo-render hydrate-check --fix --tracked-only --config deploy/settings.yaml deploy rendered\n")
    _git(tree, "add", "rendered/scratch.yaml")
    assert _hydrate(*CONFIG, "--tracked-only", "deploy", "rendered") == (0, "")
    # the last flag wins, so a user's args can turn the hook's default off
    os.remove("deploy/scratch.yaml")
    code, out = _hydrate(*CONFIG, "--tracked-only", "--no-tracked-only", "deploy", "rendered")
    assert code == 1 and "+++ /dev/null" in out


def test_tracked_only_outside_a_git_work_tree_is_an_error(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tree.parent))
    code, out = _hydrate("--tracked-only", "deploy", "rendered")
    assert code == 1
    assert out.startswith("[error]: --tracked-only needs a git work tree: fatal: not a git repository")


def test_hydrate_diff_redacts_secret_data_but_names_the_secret() -> None:
    from plugin.frontends.hydrate_diff import _diff, redact_secret_data

    secret = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: pull\n  namespace: llm\ntype: Opaque\ndata:\n  token: czNjcjN0\n"
    redacted = redact_secret_data("---\n" + secret + "---\napiVersion: v1\nkind: ConfigMap\ndata:\n  a: b\n")
    assert "czNjcjN0" not in redacted and "token" not in redacted
    assert "  name: pull\n" in redacted and "<redacted>\n" in redacted
    assert "data:\n  a: b\n" in redacted  # other kinds are shown whole
    changed = _diff(secret, secret.replace("czNjcjN0", "b3RoZXI="), "out/s.yaml")
    assert changed == ["diff out/s.yaml: Secret data differs (values not shown)\n"]


def test_an_unnamed_settings_file_is_a_warning_and_never_output(tree: Path) -> None:
    """A DynamoRenderConfig the args do not name is neither applied nor written (render and hook alike)."""
    warning = (
        "[warning] DynamoRenderConfig/s: this DynamoRenderConfig is configuration, not an object for the cluster: "
        "not rendered and not applied (name its file with --config or --operator-config to apply it) [ignored]"
    )
    code, out = _hydrate("--fix", "deploy", "rendered")
    # the hook and the render command name the line where the document starts
    line = document_start((tree / "deploy" / "settings.yaml").read_text(), 0)
    assert code == 1 and out.splitlines()[0] == f"deploy/settings.yaml:{line}: " + warning
    assert not [p for p in (tree / "rendered").rglob("*") if p.is_file() and "DynamoRenderConfig" in p.read_text()]
    stdout, stderr = io.StringIO(), io.StringIO()
    assert render_cmd.run(["deploy"], {}, stdout, stderr) == 0
    assert stderr.getvalue().splitlines() == [f"deploy/settings.yaml:{line}: " + warning]
    assert "DynamoRenderConfig" not in stdout.getvalue()


SETTINGS_WITH_TYPOS = """\
apiVersion: config.dynamo-render.dev/v1alpha1
kind: DynamoRenderConfig
metadata:
  name: s
spec:
  gates:
    lws: maybe
  compnions: false
  operatorConfig:
    discovery:
      backend: kubernetes
"""


def test_validate_checks_settings_documents_with_their_lines(tmp_path: Path) -> None:
    """A typo in the plugin's settings fails the commit, as it would fail the first render."""
    settings = _write(tmp_path / "deploy" / "settings.yaml", SETTINGS_WITH_TYPOS)
    code, lines = _validate(settings)
    assert code == 1
    assert lines[:2] == [
        f"{settings}:7: [error] DynamoRenderConfig/s spec.gates.lws: input should be a valid boolean [config]",
        f'{settings}:8: [error] DynamoRenderConfig/s spec.compnions: unknown field "compnions" [unknown-field]',
    ]
    # the inline operator configuration is checked too (the Helm chart always writes these)
    # and the fix names the chart's document to start from
    assert (
        f"{settings}:9: [error] DynamoRenderConfig/s spec.operatorConfig.mpi.sshSecretName: Required value: MPI SSH secret name "
        "is required; fix: the operator's Helm chart always sets this field; start from the chart's document, "
        "`dynamo-render operator-config --defaults > operator-config.yaml`, and change only what you mean to [config]"
    ) in lines


def test_validate_passes_a_valid_settings_file_and_reports_a_named_one_once(tmp_path: Path) -> None:
    from tests.builders import OPERATOR_CONFIG

    good = _write(tmp_path / "operator.yaml", OPERATOR_CONFIG)
    assert _validate(good) == (0, [])
    bad = _write(tmp_path / "settings.yaml", SETTINGS_WITH_TYPOS)
    worker = _write(tmp_path / "worker.yaml", WORKER.format(replicas=1))
    code, lines = _validate("--config", bad, bad, worker)
    assert code == 1
    assert len([line for line in lines if "compnions" in line]) == 1


def test_validate_reports_broken_yaml_in_a_settings_file_without_dynamo_files(tmp_path: Path) -> None:
    broken = _write(tmp_path / "settings.yaml", "apiVersion: config.dynamo-render.dev/v1alpha1\nkind: DynamoRenderConfig\nspec: {a: [}\n")
    code, lines = _validate(broken)
    assert code == 1 and len(lines) == 1 and lines[0].startswith(f"{broken}:3: [error]: invalid YAML at line 3")


def test_validate_prints_its_problem_lines_on_stdout_as_the_docs_say(tmp_path: Path) -> None:
    """Issue 27 §7: code and docs agree: problem lines on stdout (the hook's output), stderr empty."""
    import sys

    bad = tmp_path / "bad.yaml"
    bad.write_text(
        "apiVersion: nvidia.com/v1beta1\nkind: DynamoComponentDeployment\nmetadata:\n  name: w\nspec:\n"
        "  backendFramework: vllm\n  replicas: -1\n"
    )
    root = Path(__file__).resolve().parents[2]
    proc = subprocess.run([sys.executable, "-m", "plugin", "validate", str(bad)], capture_output=True, text=True, cwd=root,
                          env={**os.environ, "PYTHONPATH": str(root)}, check=False)
    assert proc.returncode == 1
    assert proc.stderr == ""
    assert proc.stdout and all(line.startswith(f"{bad}:") for line in proc.stdout.splitlines()), proc.stdout
    section = (root / "docs" / "precommit.md").read_text().split("## dynamo-validate", 1)[1].split("\n## ", 1)[0]
    assert "Each problem is one line on stdout" in section
    assert "one line per\nproblem on stderr" not in (root / "docs" / "results.md").read_text() or (
        "`validate` and\n`hydrate-check` print their problem lines" in (root / "docs" / "results.md").read_text()
    )


def _validate_under_pre_commit(tmp_path: Path, tmpdir: Path) -> subprocess.CompletedProcess[str]:
    import sys

    good = tmp_path / "good.yaml"
    good.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n")
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": str(root), "PRE_COMMIT": "1", "TMPDIR": str(tmpdir)}
    return subprocess.run([sys.executable, "-m", "plugin", "validate", str(good)], capture_output=True, text=True, cwd=tmp_path,
                          env=env, check=False)


def _old_file(path: Path) -> Path:
    path.write_text("{}")
    os.utime(path, (1, 1))
    return path


@pytest.mark.parametrize("case", ["symlink", "group-readable", "other-owner"])
def test_validate_never_sweeps_a_state_folder_it_cannot_trust(tmp_path: Path, case: str) -> None:
    """Issue 27 §7: the state folder must be a real directory of this user with mode 0700, or it is not used."""
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    folder = tmpdir / f"dynamo-render-validate-{os.getuid()}"
    victim = tmp_path / "victim"
    victim.mkdir()
    if case == "symlink":
        folder.symlink_to(victim)
        kept = _old_file(victim / "precious.json")
    else:
        folder.mkdir(mode=0o700)
        kept = _old_file(folder / "someone-elses.json")
        if case == "group-readable":
            folder.chmod(0o755)
        else:
            if os.getuid() != 0:
                pytest.skip("only root can give a folder to another user")
            os.chown(folder, 4242, 4242)
    proc = _validate_under_pre_commit(tmp_path, tmpdir)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert kept.exists(), "a file outside a checked folder was removed"
    assert f"{folder}: [warning]: the state folder" in proc.stdout
    assert "remove it" in proc.stdout


def test_validate_sweeps_only_old_regular_files_of_its_own_folder(tmp_path: Path) -> None:
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    folder = tmpdir / f"dynamo-render-validate-{os.getuid()}"
    folder.mkdir(mode=0o700)
    stale = _old_file(folder / "stale.json")
    outside = _old_file(tmp_path / "outside.json")
    (folder / "link.json").symlink_to(outside)
    os.utime(folder / "link.json", (1, 1), follow_symlinks=False)
    proc = _validate_under_pre_commit(tmp_path, tmpdir)
    assert proc.returncode == 0 and proc.stdout == "", proc.stdout + proc.stderr
    assert not stale.exists()
    assert outside.exists() and (folder / "link.json").is_symlink()


def _hydrated_text(images: list[str], extra: int = 0) -> str:
    docs = []
    for i, image in enumerate(images):
        docs.append(
            f"---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: w{i}\nspec:\n  replicas: 1\n  template:\n"
            f"    spec:\n      containers:\n      - name: main\n        image: {image}\n        args:\n        - --port\n"
            f"        - '8000'\n"
        )
    docs.extend(f"---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: extra{i}\n" for i in range(extra))
    return "# Code generated by dynamo-render from s.yaml; DO NOT EDIT.\n" + "".join(docs)


@pytest.mark.parametrize(
    "change",
    ["image-bump-everywhere", "one-document", "documents-added", "documents-removed", "no-final-newline", "new-file", "deleted-file"],
)
def test_the_per_document_diff_applies_with_git(tmp_path: Path, change: str) -> None:
    """Issue 27 §5: the diff is found document by document and still is a patch git applies."""
    old: str | None = _hydrated_text(["r/x:1"] * 30, extra=3)
    new: str | None = {
        "image-bump-everywhere": _hydrated_text(["r/x:2"] * 30, extra=3),
        "one-document": _hydrated_text(["r/x:1"] * 14 + ["r/x:2"] + ["r/x:1"] * 15, extra=3),
        "documents-added": _hydrated_text(["r/x:1"] * 32, extra=5),
        "documents-removed": _hydrated_text(["r/x:1"] * 20, extra=0),
        "no-final-newline": _hydrated_text(["r/x:1"] * 30, extra=3).rstrip("\n"),
        "new-file": _hydrated_text(["r/x:1"] * 3),
        "deleted-file": None,
    }[change]
    if change == "new-file":
        old = None
    path = "out/a.yaml"
    repo = tmp_path / "repo"
    (repo / "out").mkdir(parents=True)
    if old is not None:
        (repo / path).write_text(old)
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    patch = tmp_path / "p.diff"
    patch.write_text("".join(hydrate_diff._diff(old, new, path)))
    done = subprocess.run(["git", "apply", "--check", "-v", str(patch)], cwd=repo, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr + patch.read_text()[:2000]
    subprocess.run(["git", "apply", str(patch)], cwd=repo, check=True)
    if new is None:
        assert not (repo / path).exists()
    else:
        assert (repo / path).read_text() == new


def test_the_check_caps_what_it_prints_and_counts_the_documents(tree: Path) -> None:
    """Issue 27 §5: a change to many documents prints at most DIFF_LINES_SHOWN lines of diff, then the count."""
    old = _hydrated_text(["r/x:1"] * 300)
    new = _hydrated_text(["r/x:2"] * 300)
    out = io.StringIO()
    changes = [precommit_hydrate.Change("rendered/a.yaml", old, new), precommit_hydrate.Change("rendered/b.yaml", None, new)]
    documents = precommit_hydrate.print_diffs(changes, out)
    assert documents == 600
    lines = out.getvalue().splitlines()
    assert len(lines) == hydrate_diff.DIFF_LINES_SHOWN + 1
    assert lines[-1] == f"... (the diff is cut after {hydrate_diff.DIFF_LINES_SHOWN} lines)"
    assert "rendered/b.yaml" not in out.getvalue()


@pytest.mark.parametrize(
    "kind",
    ["Secret", '"Secret"', "'Secret'", '"\\x53ecret"', '"Sec\\u0072et"'],
    ids=["plain", "double-quoted", "single-quoted", "hex-escape", "unicode-escape"],
)
def test_secret_data_is_redacted_however_its_kind_is_spelled(kind: str) -> None:
    """Only documents that may be Secrets are parsed for redaction; an escaped kind still is one."""
    text = f"---\napiVersion: v1\nkind: {kind}\nmetadata:\n  name: s\ndata:\n  token: c2VjcmV0LXZhbHVl\n"
    redacted = hydrate_diff.redact_secret_data(text)
    assert "c2VjcmV0LXZhbHVl" not in redacted and "<redacted>" in redacted
    assert hydrate_diff.redact_secret_data("---\nkind: Deployment\nspec:\n  imagePullSecrets:\n  - name: x\n") == (
        "---\nkind: Deployment\nspec:\n  imagePullSecrets:\n  - name: x\n"
    )


def test_hunks_are_grouped_as_difflib_groups_them() -> None:
    import difflib
    import random

    rng = random.Random(7)
    for _ in range(300):
        a = [rng.choice("abcde") for _ in range(rng.randrange(0, 40))]
        b = [rng.choice("abcde") if rng.random() < 0.3 else x for x in a] + [rng.choice("xy") for _ in range(rng.randrange(0, 3))]
        matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
        assert hydrate_diff._grouped(matcher.get_opcodes(), 3) == list(matcher.get_grouped_opcodes(3)), (a, b)


@pytest.mark.parametrize("env,program", [
    ({"PATH": os.path.dirname(sys.executable)}, "dynamo-render"),
    ({"PATH": os.path.dirname(sys.executable), "PRE_COMMIT": "1"}, "-I -m plugin"),
    ({"PATH": "/nonexistent"}, "-I -m plugin"),
], ids=["script-on-path", "under-pre-commit", "no-script-on-path"])
def test_the_fix_hint_names_a_command_that_runs_where_it_is_read(env: dict[str, str], program: str) -> None:
    from plugin.frontends.precommit_hydrate import fix_program

    got = fix_program(env)
    assert got.endswith(program)
    if program != "dynamo-render":
        assert got.startswith(sys.executable.replace("'", "")) or got.startswith("'")
