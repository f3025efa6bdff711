"""The ``render`` command: files in, one deterministic stream of objects out.

Contract (other tools call it): exit 0 and the objects on stdout; exit 1 with one line per
problem on stderr and nothing on stdout; exit 3 on an internal bug (traceback on stderr).
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import IO, TextIO

from plugin.ownership import marker, renamed_after_render
from plugin.options import OptionValues
from plugin.settings import load_manifests, resolve_settings
from plugin.state_sources import LIVE_SOURCE, LiveCluster, namespaces_of
from plugin.yamlio.fast import Emitter
from plugin.yamlio.codec import json_line
from renderer.bundle import Item, StateLayer, stream_bundle
from renderer.results import Result, Severity


def report(results: Sequence[Result], stream: TextIO, verbose: bool = False, texts: Mapping[str, str] | None = None) -> None:
    """One line per problem; info notes only when verbose.

    A result in a file whose text is in ``texts`` (or that can be read again: a settings file)
    is placed at its line (``file:LINE:``), any other by its document (``file (doc N):``).
    """
    shown = [r for r in results if verbose or r.severity is not Severity.INFO]
    if not shown:
        return
    from plugin.files import TextsOrDisk
    from plugin.yamlio.lines import format_results  # only a run with something to say composes nodes

    stream.writelines(line + "\n" for line in format_results(shown, TextsOrDisk(texts or {})))


def run(paths: Sequence[str], options: OptionValues, stdout: TextIO, stderr: TextIO) -> int:
    """Render ``paths`` and write the stream; returns the exit code.

    ``options`` are the command line's values by option name (``plugin.options``): the settings,
    ``output``, ``verbose``, ``kustomize``, and ``live`` (read cluster facts through
    ``kubeconfig`` and ``context``).
    """
    verbose = bool(options.get("verbose"))
    # The live lookup (opt-in): API discovery first, as the gates depend on it.
    results: list[Result] = []
    cluster: LiveCluster | None = None
    discovered: list[StateLayer] = []
    if options.get("live"):
        cluster, problems = LiveCluster.connect(options.get("kubeconfig"), options.get("context"))
        results.extend(problems)
        if cluster is not None:
            served, problems = cluster.discover()
            results.extend(problems)
            discovered.append(StateLayer(LIVE_SOURCE, api_versions=served))
    settings, problems = resolve_settings(options, extra_layers=discovered)
    results.extend(problems)
    texts: dict[str, str] = {}
    documents, problems = load_manifests(paths, settings, raw=options.get("kustomize") is False, texts=texts)
    results.extend(problems)
    if settings is None or any(r.is_error for r in results):
        report(results, stderr, verbose, texts)
        return 1
    layers = list(settings.cluster_layers)
    if cluster is not None:
        layer, problems = cluster.state_layer(namespaces_of((doc.obj for doc in documents), settings.namespace))
        results.extend(problems)
        layers.append(layer)
        if any(r.is_error for r in results):
            report(results, stderr, verbose, texts)
            return 1
    # Each object is serialised as soon as it is rendered and then dropped; the text waits in a
    # buffer until the run is known to have succeeded (nothing on stdout on any error).
    rendered_results: list[Result] = []
    # Objects an earlier render made and something renamed since: their pods name the old names.
    results.extend(renamed_after_render((doc.obj, doc.file, doc.index) for doc in documents))
    stream = stream_bundle(
        (Item(doc.obj, doc.file, doc.index) for doc in documents),
        settings.config,
        settings.namespace,
        rendered_results,
        cluster_layers=layers,
        mark=marker(settings.namespace),
    )
    del documents
    with OutputBuffer() as buffer, frozen_heap():
        if options.get("output") == "json":
            for obj in stream:
                buffer.write(json_line(obj))
        else:
            emitter = Emitter()
            for obj in stream:
                buffer.write(emitter.document(obj))
            buffer.write(emitter.end())
        results.extend(rendered_results)
        results = settings.strict_results(results)
        report(results, stderr, verbose, texts)
        if any(r.is_error for r in results):
            return 1
        buffer.copy_to(stdout)
    stdout.flush()
    return 0


@contextmanager
def frozen_heap() -> Iterator[None]:
    """Keep the cyclic garbage collector off the objects alive so far (the loaded input).

    They live until the end of the run and hold no reference cycles, yet every full collection
    would walk them again, which makes a large bundle's render time grow faster than its size.
    Reference counting still frees them.
    """
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


class OutputBuffer:
    """Serialised output held back until the run has succeeded.

    In memory up to ``MEMORY_LIMIT`` characters, then in an anonymous temporary file, so a
    large render does not hold its whole output text in memory. Where no temporary file can be
    created, everything stays in memory.
    """

    MEMORY_LIMIT = 8 * 2**20

    def __init__(self) -> None:
        self.chunks: list[str] = []
        self.size = 0
        self.file: IO[str] | None = None

    def __enter__(self) -> OutputBuffer:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.file is not None:
            self.file.close()

    def write(self, text: str) -> None:
        if self.file is not None:
            self.file.write(text)
            return
        self.chunks.append(text)
        self.size += len(text)
        if self.size > self.MEMORY_LIMIT:
            self._spill()

    def _spill(self) -> None:
        import tempfile  # only large outputs get here

        try:
            self.file = tempfile.TemporaryFile("w+", encoding="utf-8", newline="")
        except OSError:
            self.MEMORY_LIMIT = sys.maxsize
            return
        self.file.writelines(self.chunks)
        self.chunks = []

    def copy_to(self, stream: TextIO) -> None:
        if self.file is None:
            stream.write("".join(self.chunks))
            return
        self.file.seek(0)
        while chunk := self.file.read(2**20):
            stream.write(chunk)
