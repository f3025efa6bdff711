"""The ``render`` command: files in, one deterministic stream of objects out.

Contract (other tools call it): exit 0 and the objects on stdout; exit 1 with one line per
problem on stderr and nothing on stdout; exit 2 on an internal bug (traceback on stderr).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TextIO

from plugin.inputs import load_sources, read_sources
from plugin.settings import resolve_settings
from plugin.state_sources import LIVE_SOURCE, LiveCluster, namespaces_of
from plugin.yamlio import dump_documents, dump_json
from renderer.cluster import StateLayer
from renderer.render import Item, render_items
from renderer.results import Result, Severity


def report(results: Sequence[Result], stream: TextIO, verbose: bool = False) -> None:
    """One line per problem; info notes only when verbose."""
    for result in results:
        if result.severity is Severity.INFO and not verbose:
            continue
        stream.write(result.line() + "\n")


def run(
    paths: Sequence[str],
    operator_config: str | None,
    config: str | None,
    namespace: str | None,
    keep_sources: bool,
    lws: bool | None,
    output: str,
    verbose: bool,
    stdout: TextIO,
    stderr: TextIO,
    cluster_state: str | None = None,
    live: bool = False,
    companions: bool | None = None,
    kubeconfig: str | None = None,
    context: str | None = None,
    emit: str | None = None,
) -> int:
    """Render ``paths`` and write the stream; returns the exit code."""
    overrides: dict[str, object] = {}
    if keep_sources:
        overrides["keepSources"] = True
    if lws is not None:
        overrides["gates"] = {"lws": lws}
    if emit is not None:
        overrides["emit"] = emit
    if companions is not None:
        overrides["companions"] = companions
    # The live lookup (opt-in): API discovery first, as the gates depend on it.
    results: list[Result] = []
    cluster: LiveCluster | None = None
    discovered: list[StateLayer] = []
    if live:
        cluster, problems = LiveCluster.connect(kubeconfig, context)
        results.extend(problems)
        if cluster is not None:
            served, problems = cluster.discover()
            results.extend(problems)
            discovered.append(StateLayer(LIVE_SOURCE, api_versions=served))
    settings, problems = resolve_settings(
        operator_config_path=operator_config,
        config_path=config,
        namespace=namespace,
        overrides=overrides,
        cluster_state_path=cluster_state,
        extra_layers=discovered,
    )
    results.extend(problems)
    sources, problems = read_sources(paths)
    results.extend(problems)
    documents, problems = load_sources(sources)
    results.extend(problems)
    if settings is None or any(r.is_error for r in results):
        report(results, stderr, verbose)
        return 1
    layers = list(settings.cluster_layers)
    if cluster is not None:
        layer, problems = cluster.state_layer(namespaces_of((doc.obj for doc in documents), settings.namespace))
        results.extend(problems)
        layers.append(layer)
        if any(r.is_error for r in results):
            report(results, stderr, verbose)
            return 1
    rendered = render_items(
        (Item(doc.obj, doc.file, doc.index) for doc in documents),
        settings.config,
        settings.namespace,
        keep_sources=settings.settings.keep_sources,
        cluster_layers=layers,
    )
    results.extend(rendered.results)
    report(results, stderr, verbose)
    if any(r.is_error for r in results):
        return 1
    text = dump_json(rendered.objects) if output == "json" else dump_documents(rendered.objects)
    stdout.write(text)
    stdout.flush()
    return 0


def main_stdio(**kwargs: object) -> int:
    return run(stdout=sys.stdout, stderr=sys.stderr, **kwargs)  # type: ignore[arg-type]
