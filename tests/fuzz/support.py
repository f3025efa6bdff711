"""Driving the real ``render`` command path in-process, and its output contract.

Contract (plugin/frontends/render.py): exit 0 with the objects on stdout, or exit 1 with nothing on
stdout and one line per problem on stderr; any exception escaping ``run`` is a bug (the CLI
turns it into exit 3). ``render`` records the results the command reported, so tests can check
them as data (field paths) as well as text.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

import plugin.frontends.render as render_cmd
from plugin.options import given_values
from renderer.results import Result, Severity
from tests.schemas import validate_object


@dataclass
class Run:
    code: int
    stdout: str
    stderr: str
    results: list[Result] = field(default_factory=list)

    @property
    def errors(self) -> list[Result]:
        return [r for r in self.results if r.is_error]

    def objects(self) -> list[Any]:
        return [d for d in yaml.safe_load_all(self.stdout) if d is not None]


def render(
    paths: Sequence[str | Path],
    *,
    namespace: str | None = None,
    keep_sources: bool = False,
    lws: bool | None = None,
    output: str = "yaml",
    config: str | Path | None = None,
    operator_config: str | Path | None = None,
    **extra: Any,
) -> Run:
    """Run ``dynamo-render render PATHS`` in-process; exceptions propagate (they are bugs)."""
    recorded: list[Result] = []
    original = render_cmd.report

    def recording_report(results: Sequence[Result], stream: Any, verbose: bool = False, texts: Any = None) -> None:
        recorded.extend(results)
        original(results, stream, verbose, texts)

    stdout, stderr = io.StringIO(), io.StringIO()
    render_cmd.report = recording_report  # type: ignore[assignment]
    try:
        more = {k: str(v) if isinstance(v, Path) else v for k, v in extra.items()}
        # The command line's values by option keyword (plugin.options Option.dest).
        options = given_values(dict(
            operator_config_path=str(operator_config) if operator_config else None,
            config=str(config) if config else None,
            namespace=namespace, lws=lws, keep_sources=keep_sources, output=output, **more,
        ))
        code = render_cmd.run([str(p) for p in paths], options, stdout, stderr)
    finally:
        render_cmd.report = original  # type: ignore[assignment]
    return Run(code, stdout.getvalue(), stderr.getvalue(), recorded)


def render_text(text: str | bytes, tmp_path: Path, name: str = "input.yaml", **kwargs: Any) -> Run:
    path = tmp_path / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return render([path], **kwargs)


def contract_problems(run: Run, validate: bool = True, sources: Sequence[Any] = ()) -> list[str]:
    """Everything wrong with a run against the command's contract (empty when it holds).

    With ``validate``, every output object is checked against the schemas, except those equal
    to one of ``sources`` (input objects passed through unchanged are the user's own).
    """
    problems: list[str] = []
    if run.code not in (0, 1):
        problems.append(f"exit code {run.code} (expected 0 or 1)")
    if "Traceback" in run.stderr:
        problems.append("traceback on stderr")
    shown = [r for r in run.results if r.severity is not Severity.INFO]
    lines = run.stderr.splitlines()
    if len(lines) != len(shown):
        problems.append(f"{len(lines)} stderr lines for {len(shown)} reported problems")
    for result in run.results:
        if len(result.line().splitlines()) != 1:
            problems.append(f"problem printed on several lines: {result.line()!r}")
        if result.is_error and result.resource is not None and (result.resource.kind or result.resource.name):
            if not result.field:
                problems.append(f"error about {result.resource.short()} has no field path: {result.line()}")
        elif result.is_error and not result.file:
            problems.append(f"error names neither an object nor a file: {result.line()}")
    if run.code == 1:
        if run.stdout:
            problems.append("output on stdout although the render failed")
        if not run.errors:
            problems.append("exit 1 without an error result")
    if run.code == 0:
        if run.errors:
            problems.append("exit 0 with error results")
        if validate:
            for obj in run.objects():
                if obj in sources:
                    continue
                for problem in validate_object(obj):
                    meta = obj.get("metadata") or {}
                    problems.append(f"schema: {obj.get('kind')}/{meta.get('name')}: {problem}")
    return problems


class _Summary:
    """Lines printed at the end of the session, whatever the capture mode (``-s`` or not)."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        for line in self.lines:
            terminalreporter.write_line(line)


def add_summary_line(config: Any, line: str) -> None:
    """Print ``line`` in the terminal summary of this pytest session."""
    summary = config.pluginmanager.get_plugin("dynamo-render-summary")
    if summary is None:
        summary = _Summary()
        config.pluginmanager.register(summary, "dynamo-render-summary")
    summary.lines.append(line)
