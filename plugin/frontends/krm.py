"""KRM function front end: kpt and kustomize run dynamo-render as a transformer.

Two wire formats, one transform:

- **KRM function** (kpt ``fn eval``/``fn render``, kustomize ``--enable-exec`` or
  ``container.image``): one ``config.kubernetes.io/v1`` ResourceList on stdin, one on stdout.
- **Legacy kustomize exec plugin** (the only local executable path ``kubectl kustomize``
  runs): chosen when the first argument names a file and kustomize's plugin environment
  (``KUSTOMIZE_PLUGIN_CONFIG_STRING`` or ``KUSTOMIZE_PLUGIN_CONFIG_ROOT``) is set. The
  argument is the plugin config; stdin and stdout are plain multi-document YAML streams.

The transform: every DynamoComponentDeployment item is replaced by what it renders; every other
item passes through untouched, annotations included. Pass-through items are re-emitted from
their parsed YAML nodes, never from Python values, so scalars keep their spelling (``1e3``,
``2024-01-01``, ``"yes"``), mapping keys their order and collections their flow or block style;
kpt restores their comments. Rendered
objects inherit the source's path annotation and take fresh, unique index annotations so that
``kpt fn render`` files them beside their source.

Error contract (kyaml ``framework.Execute``): the ResourceList is always written, with its
results; on any error the items come back unchanged (never an empty list, which would delete
everything), stderr carries one line per problem (kustomize never shows results) and the exit
code is 1. Output has no anchors or aliases (kustomize rejects them).

Mirrors: sigs.k8s.io/kustomize cmd/config/docs/api-conventions/functions-spec.md (wire format),
kyaml/fn/framework (results and exit code), api/internal/plugins/execplugin/execplugin.go
(legacy exec plugin contract), kyaml/kio/kioutil (path and index annotations).
"""

from __future__ import annotations

import gc
import os
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence, Set as AbstractSet
from renderer.records import dataclass, field, replace
from typing import Any, TextIO

from plugin import ownership
from plugin.files import LOCAL_CONFIG_ANNOTATION, MAX_FILE_BYTES, MAX_OBJECTS, decode, is_local_config, limit_text, too_many_objects
from plugin.frontends.krm_config import CONFIGMAP_KEYS, resolve_function_config
from plugin.frontends.krm_place import Rendered, held, place, without_bookkeeping
from plugin.frontends.krm_wire import (
    INDEX_ANNOTATION,
    PATH_ANNOTATION,
    Entry,
    InputItem,
    NodeSource,
    ResourceListInput,
    construct_item,
    read_resource_list,
    read_stream,
    write_resource_list,
    write_stream,
)
from plugin.settings import Settings
from plugin.yamlio.nodes import UnwritableInput, read_nodes
from plugin.ownership import marker
from renderer.bundle import FACTS, IN_PLACE, Group, Item, is_dcd, is_dgd, not_an_object, stream_groups
from renderer.results import Code, Result, Severity

# Names callers and tests reach through this module.
__all__ = [
    "CONFIGMAP_KEYS", "INDEX_ANNOTATION", "KUSTOMIZE_PLUGIN_ENV", "NodeSource", "PATH_ANNOTATION", "UnwritableInput",
    "is_legacy_plugin_call", "main", "resolve_function_config", "run", "run_legacy_plugin", "run_resource_list",
    "transform", "usage_problem", "without_bookkeeping", "write_resource_list",
]

KUSTOMIZE_PLUGIN_ENV = ("KUSTOMIZE_PLUGIN_CONFIG_STRING", "KUSTOMIZE_PLUGIN_CONFIG_ROOT")

USAGE = """\
usage: dynamo-render-krm  < resource-list.yaml > resource-list.yaml
       dynamo-render krm  < resource-list.yaml > resource-list.yaml

KRM function: reads a config.kubernetes.io/v1 ResourceList on stdin, replaces every
DynamoComponentDeployment item by the objects the Dynamo operator would create for it, passes
every other item through, and writes the ResourceList on stdout.

functionConfig: DynamoRenderConfig (config.dynamo-render.dev/v1alpha1), OperatorConfiguration
(operator.config.dynamo.nvidia.com/v1alpha1), or a ConfigMap whose data keys are
{keys} (kpt fn eval ... -- key=value).

Run as a kustomize legacy exec plugin (kubectl kustomize --enable-alpha-plugins), it takes the
plugin config file as its one argument and reads and writes plain YAML streams.

exit codes: 0 rendered; 1 errors (items returned unchanged, one line per error on stderr);
2 usage error; 3 internal error (a bug; traceback on stderr)
"""


# ---------------------------------------------------------------------------------------------
# Transform


@dataclass
class Transformed:
    """Output items (the position of a pass-through input item, or a rendered object) and every result."""

    items: list[Entry] = field(default_factory=list)
    results: list[Result] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not any(r.is_error for r in self.results)


def transform(items: list[InputItem], settings: Settings) -> Transformed:
    """Replace each DCD by its rendered objects; pass everything else through.

    The items are one bundle, each item a group of its own (``renderer.bundle.Group``), so
    the core files each rendered object beside its source. Rendered objects carry the
    ownership marker (``plugin.ownership``), so a re-run over a package that kept last run's
    output replaces what a present source renders again, prunes what no source renders any
    more, and refuses to overwrite a hand-written object. On any error the items come back
    unchanged (with every result), never half-rendered.

    Once the core holds the sources only their heads (apiVersion, kind, metadata) are needed
    here: the list entries are replaced by them, so a large input's specs are released while
    its output grows.
    """
    out = Transformed()
    # An item that is no object (a bare scalar, a list, a null) cannot be rendered or passed
    # on to a cluster: an error per item, and the items come back unchanged.
    refused = [_not_an_item(item) for item in items if not isinstance(item.obj, dict)]
    if refused:
        out.results.extend(refused)
        out.items = [item.position for item in items]
        return out
    delegated = delegated_positions(items)
    groups = _groups(items, delegated)
    positions = [position for position, group in enumerate(groups) if group.role == IN_PLACE and _is_source(items[position].obj)]
    # a kept source comes back as itself (keepSources); its spec is kept then anyway
    kept_sources = {position: groups[position].items[0].obj for position in positions} if settings.config.keep_sources else {}
    stream = stream_groups(groups, settings.config, settings.namespace, out.results, settings.cluster_layers, marker(settings.namespace))
    del groups
    if not kept_sources:
        for position in positions:
            item = items[position]
            items[position] = InputItem({key: item.obj.get(key) for key in ("apiVersion", "kind", "metadata")}, item.position)
    rendered_by_item: dict[int, list[Rendered]] = {position: [] for position in positions}
    kept: set[int] = set()
    for position, obj in stream:
        if obj is kept_sources.get(position):
            kept.add(position)
            continue
        rendered_by_item[position].append(held(obj, settings.namespace))
    if not out.ok:
        out.items = [item.position for item in items]
        return out

    # File rendered objects: replace last run's copy, else take the source's slot.
    placed = place(items, rendered_by_item, kept, settings, delegated)
    out.results.extend(placed.results)
    out.results = settings.strict_results(out.results)
    if not out.ok:
        out.items = [item.position for item in items]
        return out
    out.items = placed.items
    sources = len(rendered_by_item)
    count = sum(1 for entry in placed.items if not isinstance(entry, int))
    out.results.append(
        Result(
            f"rendered {sources} Dynamo resource{'s' if sources != 1 else ''} into {count} object{'s' if count != 1 else ''}",
            severity=Severity.INFO, code=Code.NOTE,
        )
    )
    return out


def _is_source(obj: Any) -> bool:
    return is_dcd(obj) or is_dgd(obj)


def _groups(items: Sequence[InputItem], delegated: AbstractSet[int]) -> list[Group]:
    """Each item as a group of the bundle: what the core renders, claims or only reads as a cluster fact.

    The DCDs and DGDs render, and every other item is claimed against them and each other:
    a hand-written object of a rendered identity, or two different hand-written objects of one
    identity, is a clash naming both (``place`` settles an object of a rendered identity: last
    run's copy is replaced, a hand-written one is an error). Orchestrator bookkeeping is no part
    of what the cluster would hold (``without_bookkeeping``). Cluster facts only: the items of a
    subpackage that renders itself (``delegated_positions``), local-config documents (settings,
    the Kptfile: they never reach a cluster) and last run's output (``place`` replaces or
    prunes it).
    """
    groups: list[Group] = []
    for position, item in enumerate(items):
        if position not in delegated and (_is_source(item.obj) or not (
            is_local_config(item.obj) or ownership.rendered_from(item.obj) is not None
        )):
            groups.append(Group((Item(without_bookkeeping(item.obj), item.path, item.index),), IN_PLACE))
        else:
            groups.append(Group((Item(item.obj, item.path, item.index),), FACTS))
    return groups


KPTFILE_GROUP = "kpt.dev/"


def _runs_dynamo_render(kptfile: dict[str, Any]) -> bool:
    """Whether a Kptfile's pipeline has a dynamo-render step (an ``exec`` or ``image`` naming dynamo-render)."""
    pipeline = kptfile.get("pipeline")
    if not isinstance(pipeline, dict):
        return False
    steps = [step for key in ("mutators", "validators") if isinstance(pipeline.get(key), list) for step in pipeline[key]]
    return any(
        isinstance(step, dict) and any(isinstance(step.get(key), str) and "dynamo-render" in step[key] for key in ("exec", "image"))
        for step in steps
    )


def delegated_positions(items: Sequence[InputItem]) -> set[int]:
    """The items of subpackages that render themselves, under ``kpt fn render`` of a package hierarchy.

    Why: kpt runs each subpackage's pipeline first, then the parent's over every item of the
    hierarchy (``internal.config.kubernetes.io/package-path`` names each item's package, and
    each package's Kptfile is among the items). A subpackage whose Kptfile runs dynamo-render
    has rendered its own sources with its own settings; the parent rendering them again with
    its settings would change them on every run. So the parent leaves every item of such a
    subpackage, and of the packages below it, as it is: not rendered, pruned or clash-checked.
    This run's own package is the topmost one (the hierarchy's root).
    Mirrors: kpt pkg/fn render (hydrate: subpackages first, then the parent over all resources).
    """
    packages = {item.package for item in items if item.package}
    if len(packages) < 2:
        return set()
    own = min(packages, key=len)
    roots = [
        item.package
        for item in items
        if item.package and item.package != own and isinstance(item.obj, dict) and item.obj.get("kind") == "Kptfile"
        and str(item.obj.get("apiVersion", "")).startswith(KPTFILE_GROUP) and _runs_dynamo_render(item.obj)
    ]
    return {
        position for position, item in enumerate(items)
        if any(item.package == root or item.package.startswith(root.rstrip("/") + "/") for root in roots)
    }


def _not_an_item(item: InputItem) -> Result:
    """The error for an item that is not an object, at its place in the list (and its file, under kpt)."""
    problem = not_an_object(item.obj)
    assert problem is not None
    return problem.with_source(item.path, item.index) if item.path else replace(problem, message=f"items[{item.position}]: {problem.message}")


# ---------------------------------------------------------------------------------------------
# Entry points


def is_legacy_plugin_call(plugin_config: str | None, env: Mapping[str, str]) -> bool:
    """kustomize's exec plugin contract: the config file as argument, its plugin env set."""
    return plugin_config is not None and os.path.isfile(plugin_config) and any(name in env for name in KUSTOMIZE_PLUGIN_ENV)


def usage_problem(args: Sequence[str], env: Mapping[str, str]) -> str:
    """Why these command-line arguments are not a call the KRM function accepts ("" when they are)."""
    if len(args) > 1 and is_legacy_plugin_call(args[0], env):
        return (
            f"unexpected plugin arguments {' '.join(args[1:])!r}: the plugin takes none "
            "(remove argsOneLiner/argsFromFile from the plugin config; settings go in its spec)"
        )
    if args and not is_legacy_plugin_call(args[0], env):
        return (
            f"unexpected arguments {' '.join(args)!r}: the KRM function takes none "
            "(a config file argument is only accepted from kustomize's legacy plugin loader, which sets "
            f"{KUSTOMIZE_PLUGIN_ENV[0]}); to render files use: dynamo-render render FILE..."
        )
    return ""


def report(results: Iterable[Result], stream: TextIO) -> None:
    """Errors and warnings, one line each (kustomize shows stderr, never results)."""
    for result in results:
        if result.severity is not Severity.INFO:
            stream.write(result.line() + "\n")


def _summary(results: Sequence[Result], what: str) -> str:
    errors = sum(1 for r in results if r.is_error)
    return f"dynamo-render: {errors} error{'s' if errors != 1 else ''}; {what}\n"


def _unreadable(results: Sequence[Result], stdout: TextIO, stderr: TextIO, what: str) -> int:
    """Nothing to hand back item by item: a ResourceList holding only the results, and exit 1.

    Why not echo the input: what could not be read as a ResourceList is no answer kpt can read
    either (it reports a YAML error about the function's output and hides the results). With a
    non-zero exit kpt and kustomize write nothing back, so the empty item list deletes nothing,
    and the results reach the user.
    """
    report(results, stderr)
    stderr.write(_summary(results, what))
    write_resource_list([], results, NodeSource(), stdout)
    return 1


def run_resource_list(data: bytes, stdout: TextIO, stderr: TextIO, base_dir: str = ".") -> int:
    """KRM function mode: ResourceList in, ResourceList out; returns the exit code."""
    if len(data) > MAX_FILE_BYTES:
        problem = Result(f"the ResourceList is larger than the input limit of {limit_text(MAX_FILE_BYTES)}", file="<stdin>", code=Code.INPUT)
        return _unreadable([problem], stdout, stderr, "the input was not read")
    text, results = decode(data, "<stdin>")
    parsed: ResourceListInput | None = None
    if text is not None:
        # the decoded text is not kept: pass-through items are read again from the bytes
        parsed, results = read_resource_list(text, lambda: decode(data, "<stdin>")[0] or "")
        del text
    if parsed is None:
        return _unreadable(results, stdout, stderr, "the input could not be read as a ResourceList")
    misplaced = generator_placement(parsed.items, parsed.function_config)
    if misplaced is not None:
        results.append(misplaced)
    if parsed.count > MAX_OBJECTS:
        results.append(too_many_objects(MAX_OBJECTS, "<stdin>"))
        return _respond(parsed.items, parsed.source, None, base_dir, results, write_resource_list, stdout, stderr,
                        "the items are returned unchanged", unchanged_count=parsed.count)
    return _respond(
        parsed.items, parsed.source, parsed.function_config, base_dir, results, write_resource_list, stdout, stderr,
        "the items are returned unchanged",
    )


def _identity(obj: Any) -> tuple[Any, Any, Any] | None:
    if not isinstance(obj, dict) or not isinstance(obj.get("metadata"), dict):
        return None
    return obj.get("apiVersion"), obj.get("kind"), obj["metadata"].get("name")


def generator_placement(items: Sequence[InputItem], function_config: Any) -> Result | None:
    """The error for a function listed under kustomize ``generators:`` instead of ``transformers:``.

    kustomize hands a generator no resources: its only item is the function's own configuration,
    marked ``config.kubernetes.io/local-config``. Run so, the function would return what it got
    and kustomize would emit the Dynamo resources unrendered, so it stops with the fix instead.
    """
    config = _identity(function_config)
    if config is None or not items:
        return None
    if all(_identity(item.obj) == config and item.annotations.get(LOCAL_CONFIG_ANNOTATION) == "true" for item in items):
        return Result(
            "the function received no resources, only its own configuration: it is listed under generators: in the "
            "kustomization; list it under transformers: so that it renders the resources the kustomization builds",
            field="functionConfig", code=Code.CONFIG,
        )
    return None


def _respond(
    items: list[InputItem],
    source: NodeSource,
    function_config: Any,
    base_dir: str,
    results: list[Result],
    write: Callable[[Sequence[Entry], Sequence[Result], NodeSource, TextIO], None],
    stdout: TextIO,
    stderr: TextIO,
    unchanged: str,
    unchanged_count: int | None = None,
) -> int:
    """Resolve the settings, transform, write; items unchanged on any error. Returns the exit code.

    The output is written as it is made; the readers have refused every input node that could
    not be written back (an anchor that contains itself), so writing cannot fail half-way.
    """
    settings, problems = resolve_function_config(function_config, base_dir)
    results.extend(problems)
    if settings is None or any(r.is_error for r in results):
        positions: list[Entry] = list(range(unchanged_count)) if unchanged_count is not None else [item.position for item in items]
        outcome = Transformed(items=positions, results=results)
    else:
        outcome = transform(items, settings)
        outcome.results[:0] = results
    write(outcome.items, outcome.results, source, stdout)
    report(outcome.results, stderr)
    if not outcome.ok:
        stderr.write(_summary(outcome.results, unchanged))
        return 1
    return 0


LEGACY_GENERATOR_MESSAGE = (
    "the plugin received no resources: it is listed under generators: in the kustomization (kustomize gives a "
    "generator no input); list it under transformers: so that it renders the resources the kustomization builds"
)


def run_legacy_plugin(config_path: str, data: bytes, env: Mapping[str, str], stdout: TextIO, stderr: TextIO) -> int:
    """kustomize legacy exec plugin mode: plain YAML stream in and out; returns the exit code.

    The plugin config comes from the file kustomize passes (a temporary copy), so paths in it
    are resolved against the kustomization directory, ``KUSTOMIZE_PLUGIN_CONFIG_ROOT``.
    """
    base_dir = env.get("KUSTOMIZE_PLUGIN_CONFIG_ROOT") or "."
    results: list[Result] = []
    config: Any = None
    try:
        with open(config_path, "rb") as handle:
            config_bytes = handle.read()
    except OSError as err:
        config_bytes = None
        results.append(Result(f"cannot read the plugin config: {err.strerror or err}", file=config_path, code=Code.CONFIG))
    if config_bytes is not None:
        config_text, problems = decode(config_bytes, config_path)
        results.extend(problems)
        if config_text is not None:
            nodes, problems = read_nodes(config_text, config_path, many=False)
            results.extend(problems)
            if nodes:
                item, problems = construct_item(nodes[0], "")
                results.extend(p.with_source(config_path, 0) for p in problems)
                config = item.obj if item is not None else None
    text, problems = decode(data, "<stdin>")
    results.extend(problems)
    read: tuple[list[InputItem], NodeSource] | None = None
    if text is not None:
        read, problems = read_stream(text, "<stdin>")
        results.extend(problems)
    if read is None or any(r.is_error for r in results):
        # a plain stream has no place for results: the input goes back as it came, kustomize shows stderr
        report(results, stderr)
        stderr.write(_summary(results, "the resources are returned unchanged"))
        stdout.write(data.decode("utf-8", errors="replace"))
        return 1
    items, source = read
    if not items:
        # kustomize runs a legacy generator with no input: listed so, the plugin would add
        # nothing and the kustomization's Dynamo resources would be emitted unrendered
        results.append(Result(LEGACY_GENERATOR_MESSAGE, file=config_path, code=Code.CONFIG))
        report(results, stderr)
        stderr.write(_summary(results, "nothing is returned"))
        return 1
    if len(items) > MAX_OBJECTS:
        results.append(too_many_objects(MAX_OBJECTS, "<stdin>"))
    return _respond(
        items, source, config, base_dir, results, lambda out, _, nodes, stream: write_stream(out, nodes, stream), stdout, stderr,
        "the resources are returned unchanged",
    )


def run(
    plugin_config: str | None,
    stdin: Callable[[], bytes],
    stdout: TextIO,
    stderr: TextIO,
    env: Mapping[str, str],
    stdin_is_tty: bool = False,
) -> int:
    """Dispatch on the calling convention (``usage_problem`` has vetted the arguments); returns the exit code."""
    if plugin_config is not None:
        return run_legacy_plugin(plugin_config, stdin(), env, stdout, stderr)
    if stdin_is_tty:
        stderr.write(USAGE.format(keys=", ".join(CONFIGMAP_KEYS)))
        return 1
    return run_resource_list(stdin(), stdout, stderr)


def main(plugin_config: str | None) -> int:
    """``dynamo-render krm`` and ``dynamo-render-krm``: process I/O around ``run``.

    The process is short-lived and builds hundreds of thousands of small objects that live
    until it writes them out; with the default thresholds the cycle collector rescans them over
    and over (about half the run time for a thousand DCDs). Collect cycles rarely instead, as
    mypy does for the same reason.
    """
    gc.set_threshold(200_000, 30, 30)
    return run(
        plugin_config,
        stdin=_read_stdin,
        stdout=sys.stdout,
        stderr=sys.stderr,
        env=os.environ,
        stdin_is_tty=sys.stdin is not None and sys.stdin.isatty(),
    )


def _read_stdin() -> bytes:
    """The whole of stdin (nothing when it is closed), up to the input limit plus one byte."""
    if sys.stdin is None:
        return b""
    return sys.stdin.buffer.read(MAX_FILE_BYTES + 1)
