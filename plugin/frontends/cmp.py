"""Argo CD config-management plugin (CMP v2): ``dynamo-render cmp generate``.

Argo CD's ``argocd-cmp-server`` runs ``generate`` in the sidecar with the working directory set
to the application's path inside a fresh unpacked copy of the repository, with its own
environment plus what the repo-server sends: ``ARGOCD_APP_*``, ``KUBE_VERSION``,
``KUBE_API_VERSIONS``, ``ARGOCD_ENV_<name>`` for each ``plugin.env`` entry, and the Application's
plugin parameters as ``ARGOCD_APP_PARAMETERS`` (JSON; absent, ``null`` or a list) and
``PARAM_<NAME>``. It reads stdout as a YAML or JSON stream of objects; a non-zero exit fails
the sync with our stderr as the message.

The rules here:

- stdout carries the objects and nothing else, and stays empty on any error.
- Every problem is collected and reported on stderr, one line each, after a summary line.
- Reads stay inside the repository root (the unpacked tree; see ``resolve_repo_root``); a
  symlink or a parameter path that leads outside it is refused.
- An app folder that renders to nothing is an error unless ``allow-empty`` is set: exit 0 with
  empty output makes Argo CD prune every object of the Application.

``KUBE_API_VERSIONS`` decides the LeaderWorkerSet gate (and the checkpoint gate's PodSnapshot
check) as the operator decides them at start-up; empty means unknown. ``KUBE_VERSION`` is not
used: the operator never reads the server version at the reference commit.

Option precedence (highest first): Application parameter; ``plugin.env`` entry
``DYNAMO_RENDER_<NAME>`` (seen here as ``ARGOCD_ENV_DYNAMO_RENDER_<NAME>``); the sidecar's own
``DYNAMO_RENDER_<NAME>`` variable (set by the Argo CD administrator, so its paths may point
anywhere in the sidecar); the DynamoRenderConfig named by ``config``; the built-in default.

Mirrors the consumer side of: argo-cd cmpserver/plugin/plugin.go (runCommand, generateManifest),
reposerver/repository/repository.go (getPluginParamEnvs),
pkg/apis/application/v1alpha1/types.go (ApplicationSourcePluginParameters.Environ).
"""

from __future__ import annotations

import json
import os
import signal
import sys
from collections.abc import Mapping, Sequence
from renderer.records import dataclass, replace
from types import FrameType
from typing import Any, TextIO

from plugin.files import PathPolicy, TextsOrDisk, is_local_config
from plugin.frontends.cmp_sources import (
    Tree,
    collect_documents,
    not_deployable,
    resolve_repo_root,
    sent_folder,
)
from plugin.frontends.cmp_params import (
    INFO_PROBLEMS,
    INFO_RESOURCES,
    INFO_SETTINGS,
    ORIGIN_NAMES,
    PARAMETERS,
    SIDECAR,
    Value,
    announcements,
    escape_param_name,
    resolve_options,
)
from plugin.options import parse_strict, strict_text
from plugin.settings import Settings, resolve_settings, settings_files
from plugin.ownership import marker, renamed_after_render
from plugin.yamlio.codec import dump_documents, load_documents
from plugin.yamlio.lines import format_results, places
from renderer.bundle import Item, is_dcd, is_dgd, render_bundle
from renderer.results import Code, ResourceRef, Result, Severity

PLUGIN_NAME = "dynamo-render"
# The release (pyproject.toml's version): in the plugin name, so in Argo CD's manifest cache key.
PLUGIN_VERSION = "v0.1.0"
# What an Application sets as spec.source.plugin.name (Argo CD dials "<name>-<version>.sock").
APPLICATION_PLUGIN_NAME = f"{PLUGIN_NAME}-{PLUGIN_VERSION}"

MAX_REPORT_LINES = 100
EXIT_ERROR = 1
EXIT_TERMINATED = 143


# ---------------------------------------------------------------------------------------------
# Settings


@dataclass(frozen=True)
class Plan:
    """What generate needs besides the manifests: settings and files not to render."""

    settings: Settings
    allow_empty: bool
    skip: frozenset[str]
    prune_last: bool = True


def build_plan(tree: Tree, options: Mapping[str, Value], env: Mapping[str, str]) -> tuple[Plan | None, list[Result]]:
    """Turn the options into render settings; the resolver reads the files they name.

    Paths come from the repository, confined to it, except those the administrator set in the
    sidecar's environment (and the paths inside a config file set there), which are trusted.
    """
    results: list[Result] = []
    policy = PathPolicy(
        root=tree.root,
        base=tree.app,
        sent_folder=sent_folder(tree.root, tree.app, env),
        trusted=frozenset(name for name in ("config", "operator-config-path") if name in options and options[name].origin == SIDECAR),
        labels={name: value.label for name, value in options.items()},
    )
    # The layers of the settings: these values over the config file, and those under it.
    given: dict[str, Any] = {}
    below: dict[str, Any] = {}
    config_value = options.get("config")
    if config_value is not None and config_value.text:
        given["config"] = config_value.text

    # The operator configuration from the options: the highest origin wins; one origin, one form.
    # It gives way to the config file's own when the config file comes from a higher origin.
    candidates = [v for v in (options.get("operator-config"), options.get("operator-config-path")) if v is not None and v.text]
    if candidates:
        top = max(v.origin for v in candidates)
        winners = [v for v in candidates if v.origin == top]
        if len(winners) > 1:
            results.append(Result(
                f"set operator-config or operator-config-path, not both (both come from the {ORIGIN_NAMES[top]})",
                field=winners[0].label, code=Code.CONFIG,
            ))
        else:
            fallback = "config" in given and config_value is not None and top < config_value.origin
            name = "operator-config-path" if winners[0] is options.get("operator-config-path") else "operator-config"
            (below if fallback else given)[name] = winners[0].text

    # Plain settings: switches, gates ("auto" leaves a gate to the operator's own decision) and
    # strict (true, false or result codes; resolve_options has checked the text).
    for param in PARAMETERS:
        option = param.option
        if param.name not in options or option.kind not in ("bool", "gate", "strict") or not option.setting:
            continue
        text = options[param.name].text
        if option.kind == "strict":
            given[option.name] = parse_strict(text)[0]
        else:
            given[option.name] = None if text == "auto" else text == "true"
    # The namespace: the parameter's, else the config file's, else the destination's.
    namespace_value = options.get("namespace")
    if namespace_value is not None and namespace_value.text:
        given["namespace"] = namespace_value.text
    if env.get("ARGOCD_APP_NAMESPACE"):
        below["namespace"] = env["ARGOCD_APP_NAMESPACE"]
    allow_empty = "allow-empty" in options and options["allow-empty"].text == "true"
    prune_last = "prune-last" not in options or options["prune-last"].text == "true"
    if any(r.is_error for r in results):
        return None, results

    # The cluster facts Argo CD sends about the destination cluster.
    raw_versions = env.get("KUBE_API_VERSIONS", "")
    api_versions = [v for v in (s.strip() for s in raw_versions.split(",")) if v] or None
    if api_versions is not None:
        given["api-versions"] = api_versions
    settings, problems = resolve_settings(given, below=below, policy=policy)
    results.extend(problems)
    if settings is None:
        return None, results
    grove_note = _grove_off_note(settings, api_versions)
    if grove_note is not None:
        results.append(grove_note)

    # The files the settings name are configuration, never manifests to render.
    skip = settings_files(settings)
    return Plan(settings, allow_empty, skip, prune_last), results


def _grove_off_note(settings: Settings, api_versions: list[str] | None) -> Result | None:
    """Why Grove stays off although the destination serves grove.io (no operator config given).

    The operator's Helm chart writes ``orchestrators.grove.enabled: false`` unless it is
    installed with ``global.grove.enabled`` (or ``install``); only an unset value lets the
    operator detect grove.io itself. Without the operator's configuration the plugin assumes
    the chart's defaults, so the cluster's APIs alone do not switch Grove on.
    Mirrors: internal/features/gates.go New (Grove: the configured value, else detection).
    """
    config = settings.config
    if config.grove_enabled or config.operator_config_source != "helm-defaults" or settings.grove is not None:
        return None
    if not api_versions or not any(v.split("/", 1)[0] == "grove.io" for v in api_versions):
        return None
    return Result(
        "the destination cluster serves grove.io, but without an operator configuration the operator Helm chart's "
        "default keeps Grove off (global.grove.enabled: false), so graphs take the component pathway; set the "
        "grove-gate parameter to true, or give the operator configuration, if your operator runs with Grove",
        severity=Severity.INFO, code=Code.NOTE,
    )



# ---------------------------------------------------------------------------------------------
# generate


def _plan_for(cwd: str, env: Mapping[str, str]) -> tuple[Tree, dict[str, Value], Plan | None, list[Result]]:
    """The repository tree around ``cwd``, the options from the environment and the plan they give."""
    app = os.path.realpath(cwd)
    tree = Tree(resolve_repo_root(app, env), app)
    options, results = resolve_options(env)
    plan: Plan | None = None
    if not any(r.is_error for r in results):
        plan, problems = build_plan(tree, options, env)
        results.extend(problems)
    return tree, options, plan, results


def generate(cwd: str, env: Mapping[str, str], stdout: TextIO, stderr: TextIO) -> int:
    """Render the app folder ``cwd``; objects on stdout, or nothing and a report on stderr."""
    tree, options, plan, results = _plan_for(cwd, env)
    if plan is None or any(r.is_error for r in results):
        return _fail(results, env, stderr, TextsOrDisk({}, tree.root, tree.root))

    texts: dict[str, str] = {}
    documents, problems, described = collect_documents(tree, plan.skip, env, texts)
    results.extend(problems)
    items: list[Item] = []
    for doc in documents:
        if is_local_config(doc.obj):
            continue
        problem = not_deployable(doc.obj)
        if problem is not None:
            if isinstance(doc.obj, dict) and doc.obj.get("kind"):
                problem = replace(problem, resource=ResourceRef.of(doc.obj))
            results.append(problem.with_source(doc.file, doc.index))
        else:
            items.append(Item(doc.obj, doc.file, doc.index))
    results.extend(renamed_after_render((i.obj, i.file, i.index) for i in items))

    # Render whatever was readable even when some files were not: every problem is reported.
    rendered = render_bundle(
        items,
        plan.settings.config,
        plan.settings.namespace,
        cluster_layers=plan.settings.cluster_layers,
        mark=marker(plan.settings.namespace),
    )
    results.extend(rendered.results)
    if not rendered.objects and not plan.allow_empty and not any(r.is_error for r in results):
        results.append(Result(
            f"no objects to deploy in {tree.display(tree.app)} ({described}); an empty result "
            "makes Argo CD prune the whole Application, so it is refused unless the allow-empty parameter is true", code=Code.INPUT
        ))
    results = plan.settings.strict_results(results)
    # Two Applications of one namespace would both emit the namespace-shared objects: said once,
    # as a warning, until the settings say who owns them. Not an error under strict: a namespace
    # with one Application is fine as it is.
    if plan.settings.config.namespace_shared is None:
        results = [replace(r, severity=Severity.WARNING) if r.code is Code.NAMESPACE_SHARED else r for r in results]
    if any(r.is_error for r in results):
        return _fail(results, env, stderr, TextsOrDisk(texts, tree.root, tree.root))
    # On success Argo CD shows stderr nowhere but the sidecar's log (info level).
    notes = format_results(results, TextsOrDisk(texts, tree.root, tree.root))
    stderr.writelines(line + "\n" for line in notes[:MAX_REPORT_LINES])
    if len(notes) > MAX_REPORT_LINES:
        stderr.write(f"... and {len(notes) - MAX_REPORT_LINES} more\n")
    objects = rendered.objects
    if plan.prune_last:
        inputs = {id(item.obj) for item in items}
        objects = [obj if id(obj) in inputs else with_prune_last(obj) for obj in objects]
    stdout.write(dump_documents(objects))
    stdout.flush()
    return 0


SYNC_OPTIONS_ANNOTATION = "argocd.argoproj.io/sync-options"
PRUNE_LAST_WORKLOADS = frozenset({"Deployment", "LeaderWorkerSet", "PodCliqueSet"})


def with_prune_last(obj: dict[str, Any]) -> dict[str, Any]:
    """A rendered workload with Argo CD's ``PruneLast=true`` sync option added.

    The operator replaces a renamed worker with surge: new workload first, old one removed once
    the new one is ready. Argo CD prunes the old name in the same sync that creates the new
    one; ``PruneLast`` moves that prune to the end of the sync, after every other resource is
    synced and healthy, which is the closest Argo CD has. Sync options already on the object
    (copied from the DCD or DGD metadata) are kept, and a ``PruneLast`` value there wins.
    """
    if obj.get("kind") not in PRUNE_LAST_WORKLOADS:
        return obj
    metadata = dict(obj.get("metadata") or {})
    annotations = dict(metadata.get("annotations") or {})
    current = str(annotations.get(SYNC_OPTIONS_ANNOTATION, ""))
    options = [o.strip() for o in current.split(",") if o.strip()]
    if any(o.split("=", 1)[0] == "PruneLast" for o in options):
        return obj
    annotations[SYNC_OPTIONS_ANNOTATION] = ",".join([*options, "PruneLast=true"])
    metadata["annotations"] = annotations
    return {**obj, "metadata": metadata}



def _fail(results: Sequence[Result], env: Mapping[str, str], stderr: TextIO, texts: Mapping[str, str] | None = None) -> int:
    """A summary line, then one line per problem (warnings after errors), capped."""
    errors = [r for r in results if r.is_error]
    warnings = [r for r in results if r.severity is Severity.WARNING]
    app = env.get("ARGOCD_APP_NAME", "")
    where = f" for application {app}" if app else ""
    count = f"{len(errors)} error" + ("s" if len(errors) != 1 else "")
    stderr.write(f"dynamo-render: {count}{where}, nothing rendered\n")
    lines = format_results(errors + warnings, texts if texts is not None else {})
    stderr.writelines(line + "\n" for line in lines[:MAX_REPORT_LINES])
    if len(lines) > MAX_REPORT_LINES:
        stderr.write(f"... and {len(lines) - MAX_REPORT_LINES} more\n")
    stderr.flush()
    return EXIT_ERROR


# ---------------------------------------------------------------------------------------------
# parameters (plugin.yaml parameters.dynamic)


def parameters(cwd: str, env: Mapping[str, str], stdout: TextIO) -> int:
    """Announce, for the UI, the Dynamo resources the app folder holds and the settings in effect.

    Argo CD runs the dynamic parameters command in the app folder with the build environment
    but without ``ARGOCD_APP_NAMESPACE`` or ``KUBE_*``, so the namespace and the gates that
    depend on the destination cluster are described, not resolved. The output is always a JSON
    list of ParameterAnnouncements (exit 0); problems are announced too, since a failing
    command only shows as a broken Parameters tab.
    Mirrors the consumer side of: argo-cd reposerver/repository/repository.go
    getPluginParamsAnnouncements (JSON list, dynamic before static).
    """
    tree, options, plan, results = _plan_for(cwd, env)
    found: list[str] = []
    texts: dict[str, str] = {}
    if plan is not None:
        documents, problems, _ = collect_documents(tree, plan.skip, env, texts)
        results.extend(problems)
        resources = [doc for doc in documents if is_dcd(doc.obj) or is_dgd(doc.obj)]
        # each named by the line its document starts at: ``Kind/name (file:LINE)``
        stubs = [Result("", resource=ResourceRef.of(d.obj), file=d.file, index=d.index, code=Code.NOTE) for d in resources]
        where = places(stubs, TextsOrDisk(texts, tree.root, tree.root))
        found = [f"{ResourceRef.of(d.obj).short()} ({w})" for d, w in zip(resources, where)]

    effective: dict[str, str] = {}
    for param in PARAMETERS:
        value = options.get(param.name)
        if value is not None:
            effective[param.name] = f"{value.text} (from the {ORIGIN_NAMES[value.origin]})"
        elif param.name == "namespace":
            configured = plan.settings.namespace if plan is not None and "namespace" in plan.settings.from_file else None
            effective[param.name] = f"{configured} (from the config file)" if configured else "the destination namespace"
        elif param.name == "strict" and plan is not None and plan.settings.strict:
            effective[param.name] = f"{strict_text(plan.settings.strict)} (from the config file)"
        elif param.option.default:
            effective[param.name] = f"{param.option.default} (default)"
    if plan is not None:
        source = plan.settings.config.operator_config_source
        effective["operator configuration"] = "as given" if source == "given" else "the operator Helm chart defaults"

    out: list[dict[str, Any]] = [
        {
            "name": INFO_RESOURCES,
            "title": f"Dynamo resources found: {len(found)} (read-only)",
            "tooltip": "DynamoComponentDeployments and DynamoGraphDeployments the plugin renders in this folder",
            "collectionType": "array",
            "array": found,
        },
        {
            "name": INFO_SETTINGS,
            "title": "Settings in effect (read-only)",
            "tooltip": "Each plugin setting and where its value comes from; gates set to auto follow the destination "
            "cluster's APIs at generate time",
            "collectionType": "map",
            "map": effective,
        },
    ]
    problem_lines = format_results([r for r in results if r.severity is not Severity.INFO], TextsOrDisk(texts, tree.root, tree.root))
    if problem_lines:
        out.append({
            "name": INFO_PROBLEMS,
            "title": f"Problems: {len(problem_lines)} (read-only)",
            "tooltip": "What generate would report for this folder's settings and files (rendering not included)",
            "collectionType": "array",
            "array": problem_lines[:MAX_REPORT_LINES],
        })
    stdout.write(json.dumps(out, indent=None, separators=(",", ":")) + "\n")
    stdout.flush()
    return 0


# ---------------------------------------------------------------------------------------------
# Entry point

def _on_sigterm(signum: int, frame: FrameType | None) -> None:
    # Argo CD's deadline: SIGTERM to our process group, SIGKILL 5 s later. Nothing has been
    # written to stdout before rendering finished, so leaving now leaves it empty.
    sys.stderr.write("dynamo-render: terminated (Argo CD's generate deadline passed?)\n")
    sys.stderr.flush()
    os._exit(EXIT_TERMINATED)


def main() -> int:
    """``dynamo-render cmp generate`` in the working directory; returns the exit code."""
    signal.signal(signal.SIGTERM, _on_sigterm)
    return generate(os.getcwd(), os.environ, sys.stdout, sys.stderr)


__all__ = [
    "APPLICATION_PLUGIN_NAME",
    "PARAMETERS",
    "announcements",
    "escape_param_name",
    "generate",
    "main",
    "resolve_options",
    "resolve_repo_root",
]
