"""Golden cases: ``tests/golden/<group>/<case>/`` rendered through the CLI path.

Each case has ``input.yaml``, an optional ``config.yaml`` (DynamoRenderConfig or
OperatorConfiguration), an optional ``cluster.yaml`` (cluster facts, passed as
``--cluster-state``), a ``case.yaml`` naming the upstream test or rule it restates, and
either ``output.yaml`` (expected objects, with the operator golden harness's directives) or
``errors.txt`` (one regex per line, each must match a reported line; ``{line:TEXT}`` in a
regex stands for the 1-based line of input.yaml that is TEXT, or else the only line holding it,
``{line:TEXT@2}`` for the second such line, ``{line:EOF}`` for the line after the last, so that
positions are checked against the input as written). A rendering case may add
``messages.txt`` (regexes that warnings or notes on stderr must match).

``case.yaml`` keys besides ``source``: ``namespace``, ``lws``, ``keepSources``, ``partial``
(only kinds present in output.yaml are checked) and ``companions`` (true or false: force the
companion objects of standalone DCDs on or off; by default the config decides, else on),
``carryMetadata`` (false: the operator's own metadata, without the sources' GitOps metadata; a
case restating an operator fact about object metadata sets it), ``namespaceShared`` and
``operatorRelease`` (the release profile rendered, as ``--operator-release``; a case restating a
release delta sets it and names the pull request in ``source``).

A mismatch writes ``output.yaml.new`` beside the case. ``UPDATE_GOLDEN=1`` rewrites
``output.yaml`` from the actual render and still fails, so nothing is accepted unreviewed.
"""

from __future__ import annotations

import io
import os
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from plugin.frontends.render import run
from plugin.options import given_values
from plugin.ownership import RENDERED_AS_ANNOTATION, RENDERED_DIGEST_ANNOTATION, RENDERED_FROM_ANNOTATION, intact, object_name
from plugin.yamlio.codec import dump_documents
from tests.golden_match import match_stream
from tests.schemas import validate_object

GOLDEN = Path(__file__).parent / "golden"
CASES = sorted(p.parent for p in GOLDEN.glob("*/*/input.yaml"))


def test_cases_exist() -> None:
    assert CASES, f"no golden cases found under {GOLDEN}"


def _load_all(path: Path) -> list[Any]:
    return [d for d in yaml.safe_load_all(path.read_text()) if d is not None]


def render_case(case: Path) -> tuple[int, str, str, dict[str, Any]]:
    meta = yaml.safe_load((case / "case.yaml").read_text()) or {}
    config = case / "config.yaml"
    cluster = case / "cluster.yaml"
    stdout, stderr = io.StringIO(), io.StringIO()
    common = given_values(dict(
        config=str(config) if config.exists() else None,
        namespace=meta.get("namespace"),
        operator_release=meta.get("operatorRelease"),
        lws=meta.get("lws"),
        cluster_state=str(cluster) if cluster.exists() else None,
        verbose=True,
        keep_sources=bool(meta.get("keepSources")), companions=meta.get("companions"),
        carry_metadata=meta.get("carryMetadata"), namespace_shared=meta.get("namespaceShared"),
    ))
    code = run([str(case / "input.yaml")], common, stdout, stderr)
    return code, stdout.getvalue(), stderr.getvalue(), meta


_CODE_TAG = re.compile(r" \[[a-z-]+\]$")
_HINT = re.compile(r"; fix: .*$")


def reported_lines(err: str) -> list[str]:
    """The problem lines as the expected files state them: the operator's message, without our rule-code tag or hint.

    Every warning and error line ends in its rule code (`` [schema]``, ``Result.code_tag``), after
    the project's fix hint (``; fix: ...``) where there is one; the expected files restate upstream
    messages, and tests/unit/test_hints.py checks the hints.
    """
    lines = err.splitlines()
    for line in lines:
        if "] " in line and ("[error]" in line or "[warning]" in line):
            assert _CODE_TAG.search(line), f"a problem line without its rule code: {line!r}"
    return [_HINT.sub("", _CODE_TAG.sub("", line)) for line in lines]


def without_marker(obj: dict[str, Any]) -> dict[str, Any]:
    """``obj`` without the plugin's ownership marker, after checking it names the object as rendered.

    The marker is the plugin's bookkeeping (``plugin.ownership``), not an operator fact, so the
    expected files leave it out; its own tests are in tests/unit/test_ownership_marker.py.
    """
    meta = obj.get("metadata") or {}
    annotations = dict(meta.get("annotations") or {})
    source = annotations.pop(RENDERED_FROM_ANNOTATION, None)
    rendered_as = annotations.pop(RENDERED_AS_ANNOTATION, None)
    digest = annotations.pop(RENDERED_DIGEST_ANNOTATION, None)
    if source is None:
        return obj
    assert rendered_as == object_name(obj), f"{obj.get('kind')}/{meta.get('name')}: marked as rendered as {rendered_as}"
    assert digest is not None and intact(obj), f"{obj.get('kind')}/{meta.get('name')}: its rendered digest does not match"
    meta = {k: v for k, v in meta.items() if k != "annotations"}
    if annotations:
        meta["annotations"] = annotations
    return {**obj, "metadata": meta}


_LINE_PLACEHOLDER = re.compile(r"\{line:(.*?)\}(?=:)")


def with_input_lines(pattern: str, text: str) -> str:
    """``pattern`` with each ``{line:TEXT}`` replaced by the line of ``text`` it names (module docstring)."""
    lines = text.splitlines()

    def line_of(match: re.Match[str]) -> str:
        needle, _, nth = match.group(1).rpartition("@") if "@" in match.group(1) else (match.group(1), "", "1")
        if needle == "EOF":
            return str(len(lines) + 1)
        found = [n for n, line in enumerate(lines, 1) if line == needle] or [n for n, line in enumerate(lines, 1) if needle in line]
        assert len(found) == 1 or nth != "1", f"{needle!r} is on lines {found} of input.yaml: say which with @N"
        return str(found[int(nth) - 1])

    return _LINE_PLACEHOLDER.sub(line_of, pattern)


def test_line_placeholders_name_the_line_of_the_input() -> None:
    text = "a: 1\n  b: {}\nc: 2\nc: 2\n"
    assert with_input_lines(r"^f:{line:  b: {}}: x {line:c: 2@2}: {line:EOF}:", text) == r"^f:2: x 4: 5:"
    with pytest.raises(AssertionError, match="say which"):
        with_input_lines("{line:c: 2}:", text)


@pytest.mark.parametrize("case", CASES, ids=[f"{c.parent.name}/{c.name}" for c in CASES])
def test_golden(case: Path) -> None:
    code, out, err, meta = render_case(case)
    assert meta.get("source"), f"{case}/case.yaml must name the upstream test or rule it restates"
    errors_file = case / "errors.txt"
    if errors_file.exists():
        assert code == 1, f"expected exit 1, got {code}\nstdout:\n{out}\nstderr:\n{err}"
        assert out == "", "nothing may be printed on stdout when rendering fails"
        lines = reported_lines(err)
        text = (case / "input.yaml").read_text(encoding="utf-8")
        for pattern in [with_input_lines(p, text) for p in errors_file.read_text().splitlines() if p.strip()]:
            assert any(re.search(pattern, line) for line in lines), f"no error line matches {pattern!r}:\n{err}"
        assert "Traceback" not in err
        return

    assert code == 0, f"render failed (exit {code}):\n{err}"
    messages_file = case / "messages.txt"
    if messages_file.exists():
        lines = reported_lines(err)
        for pattern in [p for p in messages_file.read_text().splitlines() if p.strip()]:
            assert any(re.search(pattern, line) for line in lines), f"no reported line matches {pattern!r}:\n{err}"
    actual = [without_marker(d) for d in yaml.safe_load_all(out) if d is not None]
    schema_problems = [f"{o.get('kind')}/{o['metadata'].get('name')}: {p}" for o in actual for p in validate_object(o)]
    assert not schema_problems, "rendered objects fail schema validation:\n" + "\n".join(schema_problems)

    expected_file = case / "output.yaml"
    if os.environ.get("UPDATE_GOLDEN") == "1":
        expected_file.write_text(dump_documents(actual))
        pytest.fail(f"UPDATE_GOLDEN=1 rewrote {expected_file}; review the diff and run again")
    problems = match_stream(_load_all(expected_file), actual, partial=bool(meta.get("partial", False)))
    if problems:
        (case / "output.yaml.new").write_text(dump_documents(actual))
        pytest.fail(f"{len(problems)} mismatches (actual written to output.yaml.new):\n" + "\n".join(problems[:60]))
