"""Problem positions (issue 26 §4): ``file:LINE`` where the text is known, ``file (doc N)`` where it is not.

A document index after a colon reads as a line (editors and grep jump to line 0): the renderer's
own form names the document in words, and the front ends that hold a file's text print its
1-based line, that of the field a result names or else where its document starts. Expected
lines are computed from each test's own input (``tests.positions``).
"""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest
import yaml

from plugin.files import TextsOrDisk
from plugin.frontends import convert as convert_cmd, precommit_hydrate, precommit_validate, render as render_cmd
from plugin.options import OptionValues, given_values
from plugin.yamlio.lines import format_results
from renderer.clashes import Origin
from renderer.results import ResourceRef, Result
from tests.builders import dcd, write
from tests.positions import document_start, line_of

CONFIG_MAP = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: first\n"


def _render(paths: list[str], common: OptionValues | None = None) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = render_cmd.run(paths, common or {}, out, err)
    return code, out.getvalue(), err.getvalue()


def test_the_helpers_count_documents_as_a_reader_of_the_file_does() -> None:
    text = "# head\n---\na: 1\n---\n---\n# c\n\nb: 2\n"
    assert [document_start(text, i) for i in (0, 2)] == [3, 8]
    assert document_start("a: 1\n---\nb: 1\n", 1) == 3
    with pytest.raises(AssertionError):
        document_start(text, 1)  # an empty document has no content line
    assert line_of(text, "b: 2") == 8 and line_of("x: 1\nx: 1\n", "x: 1", nth=2) == 2


# ---------------------------------------------------------------------------------------------
# The form without a line


@pytest.mark.parametrize(
    ("result", "line"),
    [
        (Result("m", file="f.yaml", index=0), "f.yaml (doc 0): [error]: m"),
        (Result("m", file="f.yaml", index=3, field="spec"), "f.yaml (doc 3): [error] spec: m"),
        (Result("m", file="f.yaml"), "f.yaml: [error]: m"),
        (Result("m"), "[error]: m"),
    ],
    ids=["index", "index-and-field", "file-only", "nothing"],
)
def test_the_renderer_never_prints_a_document_index_after_a_colon(result: Result, line: str) -> None:
    assert result.line() == line


def test_a_source_named_in_a_message_says_doc_in_words() -> None:
    origin = Origin(ResourceRef("nvidia.com/v1beta1", "DynamoComponentDeployment", "a"), "deploy/a.yaml", 2)
    assert origin.describe() == "DynamoComponentDeployment/a (deploy/a.yaml, doc 2)"
    assert Origin(ResourceRef(kind="ConfigMap", name="c"), index=1).describe() == "ConfigMap/c (doc 1)"


def test_without_the_file_s_text_the_document_is_named_not_a_line() -> None:
    """kpt's items, and any file a front end did not keep: ``file (doc N)``."""
    result = Result("bad", resource=ResourceRef("v1", "ConfigMap", "c"), field="data", file="pkg/a.yaml", index=1)
    assert format_results([result], {}) == ["pkg/a.yaml (doc 1): [error] ConfigMap/c data: bad"]


def test_a_text_that_does_not_hold_the_document_keeps_the_document_form() -> None:
    result = Result("bad", resource=ResourceRef("v1", "ConfigMap", "c"), field="data", file="a.yaml", index=4)
    assert format_results([result], {"a.yaml": CONFIG_MAP}) == ["a.yaml (doc 4): [error] ConfigMap/c data: bad"]


# ---------------------------------------------------------------------------------------------
# Lines in the render command


def test_an_error_in_the_third_document_names_the_field_s_line(tmp_path: Path) -> None:
    broken = yaml.safe_dump(dcd("worker", replicas=-2))
    text = CONFIG_MAP + "---\n# the second\n" + CONFIG_MAP.replace("first", "second") + "---\n" + broken
    path = write(tmp_path / "three.yaml", text)
    code, out, err = _render([str(path)])
    assert code == 1 and out == ""
    line = line_of(text, "  replicas: -2")
    assert line > document_start(text, 2) > document_start(text, 1) > 1
    assert err.splitlines() == [f"{path}:{line}: [error] DynamoComponentDeployment/worker spec.replicas: must be >= 0 (got -2) [schema]"]


def test_a_problem_without_a_field_names_the_line_its_document_starts(tmp_path: Path) -> None:
    text = CONFIG_MAP + "---\n# a comment before the content\n\njust text\n"
    path = write(tmp_path / "two.yaml", text)
    code, _, err = _render([str(path)])
    assert code == 1
    (line,) = err.splitlines()
    assert line.startswith(f"{path}:{document_start(text, 1)}: [error]: not a Kubernetes object")
    assert document_start(text, 1) == line_of(text, "just text")


def test_stdin_is_placed_by_its_own_text(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = CONFIG_MAP + "---\n" + yaml.safe_dump(dcd("worker", replicas=-1))
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(text.encode())))
    code, _, err = _render(["-"])
    assert code == 1
    assert err.splitlines() == [
        f"<stdin>:{line_of(text, '  replicas: -1')}: [error] DynamoComponentDeployment/worker spec.replicas: must be >= 0 (got -1) [schema]"
    ]


def test_a_yaml_error_is_placed_at_the_line_the_loader_names(tmp_path: Path) -> None:
    text = CONFIG_MAP + "---\na: 1\na: 2\n"
    path = write(tmp_path / "dup.yaml", text)
    code, _, err = _render([str(path)])
    assert code == 1
    (line,) = err.splitlines()
    expected = line_of(text, "a: 2")
    assert line.startswith(f"{path}:{expected}: [error]: invalid YAML at line {expected},")


def test_a_settings_file_is_placed_by_its_text(tmp_path: Path) -> None:
    """Settings are read apart from the manifests; their problem lines still give the line."""
    manifest = write(tmp_path / "dcd.yaml", yaml.safe_dump(dcd("worker")))
    text = (
        "apiVersion: config.dynamo-render.dev/v1alpha1\nkind: DynamoRenderConfig\nmetadata:\n  name: s\n"
        "spec:\n  companions: maybe\n"
    )
    config = write(tmp_path / "render.yaml", text)
    code, _, err = _render([str(manifest)], given_values(dict(config=str(config))))
    assert code == 1
    assert f"{config}:{line_of(text, '  companions: maybe')}: [error]" in err, err


def test_a_file_read_again_must_be_a_regular_file_and_stdin_never_is(tmp_path: Path) -> None:
    write(tmp_path / "a.yaml", CONFIG_MAP)
    texts = TextsOrDisk({"<stdin>": "kept: 1\n"}, str(tmp_path))
    assert texts["a.yaml"] == CONFIG_MAP and texts["<stdin>"] == "kept: 1\n"
    assert "-" not in texts and "missing.yaml" not in texts and "." not in texts
    # confined: a symlink leading outside is not read
    outside = write(tmp_path / "outside" / "secret.yaml", "token: s3cret\n")
    (tmp_path / "repo").mkdir()
    (tmp_path / "repo" / "leak.yaml").symlink_to(outside)
    assert "leak.yaml" not in TextsOrDisk({}, str(tmp_path / "repo"), str(tmp_path / "repo"))


# ---------------------------------------------------------------------------------------------
# A Helm chart folder: one line, not its templates' YAML errors

CHART = Path(__file__).resolve().parents[1] / "data" / "helm" / "llm-chart"
CHART_MESSAGE = "is a Helm chart (Chart.yaml): dynamo-render does not run Helm; render the chart first and pipe it in"


@pytest.fixture
def chart_repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A work tree holding a manifest folder with a copy of the test chart inside it."""
    import shutil

    shutil.copytree(CHART, tmp_path / "deploy" / "charts" / "llm")
    write(tmp_path / "deploy" / "worker.yaml", yaml.safe_dump(dcd("worker")))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_the_templates_are_not_yaml(chart_repo: Path) -> None:
    """Why the line exists: read as manifests, the templates are YAML errors."""
    code, _, err = _render(["deploy/charts/llm/templates"])
    assert code == 1 and "invalid YAML" in err


@pytest.mark.parametrize("path", ["deploy/charts/llm", "deploy"], ids=["the-chart", "a-folder-holding-it"])
def test_render_of_a_folder_with_a_chart_gives_one_line(chart_repo: Path, path: str) -> None:
    code, out, err = _render([path])
    assert code == 1 and out == ""
    assert err.splitlines() == [f"deploy/charts/llm/Chart.yaml: [error]: deploy/charts/llm {CHART_MESSAGE} "
                                "(helm template RELEASE CHART | dynamo-render render -), in a CI step or a plugin that runs both [input]"]


def test_hydrate_check_of_a_source_with_a_chart_gives_one_line(chart_repo: Path) -> None:
    out = io.StringIO()
    code = precommit_hydrate.run("deploy", "rendered", False, False, False, {}, out)
    assert code == 1
    (line,) = out.getvalue().splitlines()
    assert line.startswith(f"deploy/charts/llm/Chart.yaml: [error]: deploy/charts/llm {CHART_MESSAGE}")


def test_validate_leaves_a_chart_s_files_out_with_one_warning(chart_repo: Path) -> None:
    """The hook gets every changed file: a template is not a manifest, and must not fail each commit."""
    files = sorted(str(p.relative_to(chart_repo)) for p in (chart_repo / "deploy" / "charts" / "llm").rglob("*.yaml"))
    assert any("/templates/" in f for f in files)
    out = io.StringIO()
    code = precommit_validate.run([*files, "deploy/worker.yaml"], {}, out, env={})
    assert code == 0, out.getvalue()
    (line,) = out.getvalue().splitlines()
    assert line.startswith(f"deploy/charts/llm/Chart.yaml: [warning]: deploy/charts/llm {CHART_MESSAGE}")


@pytest.mark.parametrize("in_place", [False, True], ids=["stream", "in-place"])
def test_convert_leaves_a_chart_out_with_one_warning(chart_repo: Path, in_place: bool) -> None:
    """Converting a tree that holds a chart converts the rest; the templates are not YAML to rewrite."""
    err = io.StringIO()
    if in_place:
        code = convert_cmd.run_in_place(["deploy"], err)
    else:
        code = convert_cmd.run_stream(["deploy"], "yaml", io.StringIO(), err)
    assert code == 0, err.getvalue()
    (line,) = err.getvalue().splitlines()
    assert line.startswith(f"deploy/charts/llm/Chart.yaml: [warning]: deploy/charts/llm {CHART_MESSAGE}")


GENERATORS = """\
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
configMapGenerator:
  - name: settings
    literals: [a=b]
  - name: settings-extra
    literals: [c=d]
secretGenerator:
  - name: settings
    literals: [k=v]
"""


@pytest.mark.parametrize("kind,name,line", [
    ("ConfigMap", "settings-4h2mbtbbt6", 4),
    ("ConfigMap", "settings-extra", 6),
    ("ConfigMap", "eu-settings-extra-5k2h8f9gmb", 6),
    ("Secret", "eu-settings-ftgtgc4t9f", 9),
    ("ConfigMap", "unrelated", 1),
], ids=["hashed", "no-hash", "prefixed-and-hashed", "secret", "no-entry"])
def test_a_generated_object_is_placed_at_its_generator_entry(kind: str, name: str, line: int) -> None:
    from plugin.yamlio.lines import LineIndex

    result = Result("bad", resource=ResourceRef("v1", kind, name, "prod"), file="kustomization.yaml", index=0,
                    field="metadata.labels[x]")
    assert LineIndex(GENERATORS).line(result) == line
