"""The corpus run: every real-world manifest renders, or is refused precisely, never crashes.

``tests/data/corpus`` holds public DynamoGraphDeployment and DynamoComponentDeployment
manifests (the operator repository at the reference commit, its deleted history, and
third-party repositories) with ``INDEX.tsv`` describing each file. Every file goes through the
real ``render`` command path in-process with the default settings (no operator configuration:
the Helm chart defaults), as a user would run ``dynamo-render render FILE``.

Skip rule, from INDEX.tsv's ``role`` column: only ``manifest`` files are counted. Files whose
role says they are not manifests yet are skipped, because their text only becomes a manifest
after another tool ran: ``template`` (Helm, Handlebars or envsubst text that does not parse),
``manifest(envsubst-template)`` (``${VAR}`` placeholders in names and images),
``kustomize-patch`` and ``kustomization`` (inputs to kustomize), ``embedded`` (a DGD inside a
DGDR's ``spec.overrides``), ``embedded-in-script`` (a heredoc in a CI script) and
``golden-output`` (the operator test harness's expected output, with ``$glob``/``$pattern``
directives). Skipped files are still rendered by ``test_skipped_files_never_crash``: whatever
they render to, the command must not crash on them.

Each counted file must keep the command's contract (tests/fuzz/support.py): no traceback, no
exit 3, one line per problem with a field path, and, when it renders, every rendered object
valid against the Kubernetes 1.36 and LeaderWorkerSet schemas. The session summary prints one
line, ``corpus: N rendered, M refused (reasons...), K skipped``, and the per-file outcomes go
to ``corpus-summary.txt`` in pytest's base temporary directory.

Expected outcomes: ``tests/data/corpus-expected.tsv`` records each counted file's outcome,
``rendered`` or ``refused`` with its grouped reasons (``reason``), and each file must keep it;
``tests/data/corpus-expected-grove.tsv`` does the same for the DGD files rendered with the Grove
gate on.
When a change moves outcomes on purpose (a feature that renders files that were refused, a
reworded refusal), regenerate the file and let the reviewer read the diff:

    scripts/update-corpus-expected.sh        # UPDATE_CORPUS=1 pytest tests/test_corpus.py

With ``UPDATE_CORPUS=1`` the run rewrites the file (rows sorted by name) and every file whose
outcome moved still fails, as ``UPDATE_GOLDEN=1`` does for the golden cases.
"""

from __future__ import annotations

import csv
import os
import re
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from plugin.yamlio.codec import load_documents
from renderer.results import Code
from tests.fuzz.support import add_summary_line, contract_problems, render

CORPUS = Path(__file__).parent / "data" / "corpus"
COUNTED_ROLES = frozenset({"manifest"})
SKIPPED_ROLES = frozenset(
    {
        "template",
        "manifest(envsubst-template)",
        "kustomize-patch",
        "kustomization",
        "embedded",
        "embedded-in-script",
        "golden-output",
        "crd",
    }
)


def _index() -> list[dict[str, str]]:
    with (CORPUS / "INDEX.tsv").open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle, delimiter="\t"))


INDEX = _index()
COUNTED = [row["name"] for row in INDEX if row["role"] in COUNTED_ROLES]
SKIPPED = [row["name"] for row in INDEX if row["role"] in SKIPPED_ROLES]

OUTCOMES: dict[str, tuple[str, list[str]]] = {}
EXPECTED_FILE = Path(__file__).parent / "data" / "corpus-expected.tsv"
UPDATE = os.environ.get("UPDATE_CORPUS") == "1"


def _expected(path: Path = EXPECTED_FILE) -> dict[str, tuple[str, list[str]]]:
    if not path.exists():
        return {}
    out: dict[str, tuple[str, list[str]]] = {}
    for line in path.read_text(encoding="utf-8").splitlines()[1:]:
        name, outcome, reasons = (line.split("\t") + ["", ""])[:3]
        out[name] = (outcome, reasons.split(" | ") if reasons else [])
    return out


EXPECTED = _expected()


def _write_expected(outcomes: dict[str, tuple[str, list[str]]], path: Path = EXPECTED_FILE, names: Sequence[str] = ()) -> None:
    merged = {**_expected(path), **outcomes}  # re-read: one row changes at a time
    rows = ["name\toutcome\treasons"]
    rows += [f"{name}\t{outcome}\t{' | '.join(reasons)}" for name, (outcome, reasons) in sorted(merged.items()) if name in (names or COUNTED)]
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")


def test_every_counted_file_has_an_expected_outcome() -> None:
    if UPDATE:
        pytest.skip("UPDATE_CORPUS=1 rewrites the expectations")
    assert sorted(EXPECTED) == sorted(COUNTED), (
        f"{EXPECTED_FILE.name} is out of date: missing {sorted(set(COUNTED) - set(EXPECTED))[:10]}, "
        f"extra {sorted(set(EXPECTED) - set(COUNTED))[:10]} (scripts/update-corpus-expected.sh)"
    )
# The same manifests rendered with the Grove gate on (the DGD files only), pinned like the default lane.
GROVE_OUTCOMES: dict[str, tuple[str, list[str]]] = {}
DGD_FILES = [name for name in COUNTED if "DynamoGraphDeployment" in (CORPUS / name).read_text(encoding="utf-8")]
GROVE_EXPECTED_FILE = Path(__file__).parent / "data" / "corpus-expected-grove.tsv"
GROVE_EXPECTED = _expected(GROVE_EXPECTED_FILE)
GROVE_ON = """\
apiVersion: config.dynamo-render.dev/v1alpha1
kind: DynamoRenderConfig
spec:
  gates:
    grove: true
"""


def test_every_dgd_file_has_an_expected_grove_outcome() -> None:
    if UPDATE:
        pytest.skip("UPDATE_CORPUS=1 rewrites the expectations")
    assert sorted(GROVE_EXPECTED) == sorted(DGD_FILES), (
        f"{GROVE_EXPECTED_FILE.name} is out of date: missing {sorted(set(DGD_FILES) - set(GROVE_EXPECTED))[:10]}, "
        f"extra {sorted(set(GROVE_EXPECTED) - set(DGD_FILES))[:10]} (scripts/update-corpus-expected.sh)"
    )


def test_index_covers_every_file() -> None:
    files = {p.name for p in CORPUS.iterdir() if p.suffix in (".yaml", ".yml")}
    listed = {row["name"] for row in INDEX}
    assert files == listed, f"not in INDEX.tsv: {sorted(files - listed)}; missing files: {sorted(listed - files)}"
    unknown = {row["role"] for row in INDEX} - COUNTED_ROLES - SKIPPED_ROLES
    assert not unknown, f"decide whether these roles are counted or skipped: {sorted(unknown)}"
    assert len(COUNTED) > 300


_LOCATION = re.compile(r" at line \d+, column \d+")


# Kubernetes field error types: their messages say what is wrong, the field says where.
_FIELD_ERROR_TYPES = ("Required value", "Invalid value", "Unsupported value", "Forbidden", "Duplicate value")


def reason(message: str, field: str = "") -> str:
    """The stable head of a message, for grouping refusals.

    ``not supported yet: <field>`` keeps its field; other messages keep the text before their
    first colon (``grove pathway not supported``, ``invalid YAML``), with positions and quoted
    values removed; a Kubernetes field error type (``Required value``) names the field it is
    about, without list indexes.
    """
    text = _LOCATION.sub("", message)
    if text.startswith("not supported yet: "):
        subject = re.split(r"[ (]", text[len("not supported yet: ") :], maxsplit=1)[0]
        return "not supported yet: " + re.sub(r"\[\d+\]", "[]", subject)
    head = text.split(":", 1)[0] if ":" in text else " ".join(text.split()[:6])
    head = re.sub(r'"[^"]*"', '"…"', head).strip()
    if head in _FIELD_ERROR_TYPES and field:
        leaf = re.sub(r"\[[^]]*\]", "", field).rsplit(".", 1)[-1]
        head = f"{head}: {leaf}"
    return head


@pytest.fixture(scope="module", autouse=True)
def _summary(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    yield
    if GROVE_OUTCOMES:
        grove_rendered = sum(1 for outcome, _ in GROVE_OUTCOMES.values() if outcome == "rendered")
        grove_refused = Counter(r[0] for outcome, r in GROVE_OUTCOMES.values() if outcome == "refused")
        text = "; ".join(f"{why} {count}" for why, count in grove_refused.most_common())
        add_summary_line(
            request.config,
            f"corpus with Grove on: {grove_rendered} of {len(GROVE_OUTCOMES)} DGD files rendered, "
            f"{sum(grove_refused.values())} refused ({text})",
        )
    if not OUTCOMES:
        return
    rendered = sorted(name for name, (outcome, _) in OUTCOMES.items() if outcome == "rendered")
    refused = {name: reasons for name, (outcome, reasons) in OUTCOMES.items() if outcome == "refused"}
    by_reason = Counter(reasons[0] for reasons in refused.values())
    reasons_text = "; ".join(f"{why} {count}" for why, count in by_reason.most_common())
    line = (
        f"corpus: {len(rendered)} rendered, {len(refused)} refused ({reasons_text}), "
        f"{len(SKIPPED)} skipped (role not a plain manifest), of {len(INDEX)} files"
    )
    path = tmp_path_factory.getbasetemp() / "corpus-summary.txt"
    lines = [line, ""]
    lines += [f"rendered\t{name}" for name in rendered]
    lines += [f"refused\t{name}\t" + " | ".join(reasons) for name, reasons in sorted(refused.items())]
    lines += [f"skipped\t{name}" for name in sorted(SKIPPED)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    add_summary_line(request.config, line)
    add_summary_line(request.config, f"corpus: per-file outcomes in {path}")


@pytest.mark.parametrize("name", COUNTED)
def test_corpus_manifest(name: str) -> None:
    run = render([CORPUS / name])
    sources = [d.obj for d in load_documents((CORPUS / name).read_text(encoding="utf-8"), name)[0]]
    problems = contract_problems(run, sources=sources)
    assert not problems, "\n".join(problems[:20]) + "\n--- stderr ---\n" + run.stderr[:3000]
    # errors as data: every result names the rule it reports
    assert not [r.line() for r in run.results if r.code is Code.UNCLASSIFIED]
    if run.code == 0:
        OUTCOMES[name] = ("rendered", [])
    else:
        OUTCOMES[name] = ("refused", list(dict.fromkeys(reason(r.message, r.field) for r in run.errors)))
    expected = EXPECTED.get(name)
    if UPDATE and OUTCOMES[name] != expected:
        _write_expected({name: OUTCOMES[name]})
        EXPECTED[name] = OUTCOMES[name]
    assert OUTCOMES[name] == expected, (
        f"{name}: {OUTCOMES[name][0]} {OUTCOMES[name][1]}, expected {expected}; if the change is intended, "
        "run scripts/update-corpus-expected.sh and review the diff of tests/data/corpus-expected.tsv"
    )


@pytest.fixture(scope="module")
def grove_on_config(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("grove") / "config.yaml"
    path.write_text(GROVE_ON, encoding="utf-8")
    return path


@pytest.mark.parametrize("name", DGD_FILES)
def test_corpus_manifest_grove_on(name: str, grove_on_config: Path) -> None:
    """With the Grove gate on, each DGD that does not opt out renders to a PodCliqueSet."""
    text = (CORPUS / name).read_text(encoding="utf-8")
    run = render([CORPUS / name], config=grove_on_config)
    sources = [d.obj for d in load_documents(text, name)[0]]
    problems = contract_problems(run, sources=sources)
    assert not problems, "\n".join(problems[:20]) + "\n--- stderr ---\n" + run.stderr[:3000]
    # errors as data: every result names the rule it reports
    assert not [r.line() for r in run.results if r.code is Code.UNCLASSIFIED]
    if run.code != 0:
        GROVE_OUTCOMES[name] = ("refused", list(dict.fromkeys(reason(r.message, r.field) for r in run.errors)))
    else:
        GROVE_OUTCOMES[name] = ("rendered", [])
        dgds = [d for d in sources if isinstance(d, dict) and d.get("kind") == "DynamoGraphDeployment"]
        opted_out = [d for d in dgds if str(((d.get("metadata") or {}).get("annotations") or {}).get("nvidia.com/enable-grove", "")).lower() == "false"]
        if dgds and not opted_out:
            assert run.stdout.count("kind: PodCliqueSet") == len(dgds), run.stdout[:2000]
    expected = GROVE_EXPECTED.get(name)
    if UPDATE and GROVE_OUTCOMES[name] != expected:
        _write_expected({name: GROVE_OUTCOMES[name]}, GROVE_EXPECTED_FILE, DGD_FILES)
        GROVE_EXPECTED[name] = GROVE_OUTCOMES[name]
    assert GROVE_OUTCOMES[name] == expected, (
        f"{name} with Grove on: {GROVE_OUTCOMES[name][0]} {GROVE_OUTCOMES[name][1]}, expected {expected}; if the change "
        "is intended, run scripts/update-corpus-expected.sh and review the diff of tests/data/corpus-expected-grove.tsv"
    )


@pytest.mark.parametrize("name", SKIPPED)
def test_skipped_files_never_crash(name: str) -> None:
    run = render([CORPUS / name])
    assert run.code in (0, 1), run.stderr[-3000:]
    assert "Traceback" not in run.stderr
    assert not run.stdout or run.code == 0


@pytest.mark.parametrize(
    "message, field, expected",
    [
        ("not supported yet: apiVersion (nvidia.com/v1alpha1 DynamoGraphDeployment; ...)", "apiVersion", "not supported yet: apiVersion"),
        ("not supported yet: spec.components[1].foo", "", "not supported yet: spec.components[].foo"),
        ("Required value: is required when ...", "spec.components[0].runtimeVersionOverride", "Required value: runtimeVersionOverride"),
        ("Required value: is required", "", "Required value"),
        ("grove pathway not supported: this DGD would be ...", "", "grove pathway not supported"),
        ("invalid YAML at line 3, column 5: mapping values are not allowed", "", "invalid YAML"),
        ('invalid name "x_y": must be ...', "metadata.name", 'invalid name "…"'),
        ("no multinode orchestrator available (the lws gate is off)", "", "no multinode orchestrator available (the lws"),
    ],
)
def test_reason_grouping(message: str, field: str, expected: str) -> None:
    assert reason(message, field) == expected
