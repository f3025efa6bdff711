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

from plugin.files import MAX_RENDERED_OBJECTS, too_many_rendered, walk_manifests
from plugin.frontends.cmp_sources import (
    Tree,
    collect_documents,
    is_local_config,
    not_deployable,
    read_one_document,
    resolve_repo_root,
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
from plugin.settings import RENDER_CONFIG_API_VERSION, RENDER_CONFIG_KIND, Settings, parse_render_settings, resolve_settings
from plugin.ownership import renamed_after_render
from plugin.yamlio.codec import dump_documents, load_documents
from renderer import consts
from renderer.bundle import Item, is_dcd, is_dgd, render_bundle
from renderer.results import Code, ResourceRef, Result, Severity, strict

PLUGIN_NAME = "dynamo-render"
PLUGIN_VERSION = "v1"
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
    namespace: str
    allow_empty: bool
    skip: frozenset[str]
    prune_last: bool = True
    strict: bool = False


def _files_below(path: str) -> list[str]:
    """Real paths of the files under a directory (none for a file)."""
    if not os.path.isdir(path):
        return []
    return [real for real, _ in walk_manifests(path)[0]]


def build_plan(tree: Tree, options: Mapping[str, Value], env: Mapping[str, str]) -> tuple[Plan | None, list[Result]]:
    """Turn the options into render settings; reads the config files they name."""
    results: list[Result] = []
    skip: set[str] = set()
    # Real paths the administrator named (sidecar environment): read wherever they are.
    trusted: set[str] = set()

    def path_option(name: str, base: str) -> tuple[str | None, str]:
        value = options[name]
        if value.origin == SIDECAR:
            # The administrator's own setting: any path in the sidecar, as given.
            path = value.text if os.path.isabs(value.text) else os.path.join(base, value.text)
            trusted.add(os.path.realpath(path))
            return os.path.realpath(path), value.text
        real, problems = tree.confine(value.text, base, value.label)
        results.extend(problems)
        return real, tree.display(real) if real else value.text

    # The DynamoRenderConfig file, if any: plugin settings and maybe the operator config.
    spec: dict[str, Any] = {}
    operator_path: str | None = None
    operator_origin = 0
    # Who wrote spec.operatorConfig, for error messages: (label, file).
    inline_source = ("spec.operatorConfig", "")
    config_value = options.get("config")
    if config_value is not None and config_value.text:
        real, display = path_option("config", tree.app)
        if real is not None:
            skip.add(real)
            doc, problems = read_one_document(real, display)
            results.extend(problems)
            if doc is not None and doc.get("kind") == consts.OPERATOR_CONFIG_KIND:
                operator_path, operator_origin = real, config_value.origin
            elif doc is not None:
                parsed, problems = parse_render_settings(doc)
                results.extend(p.with_source(display, 0) for p in problems)
                if parsed is not None:
                    spec = dict(doc.get("spec") or {})
                    if "operatorConfig" in spec:
                        operator_origin = config_value.origin
                        inline_source = ("spec.operatorConfig", display)
                    nested = spec.pop("operatorConfigPath", None)
                    if nested is not None:
                        base = os.path.dirname(real)
                        if config_value.origin == SIDECAR:
                            operator_path = os.path.realpath(os.path.join(base, nested))
                            trusted.add(operator_path)
                        else:
                            operator_path, problems = tree.confine(nested, base, "spec.operatorConfigPath")
                            results.extend(p.with_source(display, 0) for p in problems)
                        if operator_path is not None:
                            skip.add(operator_path)
                        operator_origin = config_value.origin
                    # The cluster-state file is read from the repository too, and is not rendered itself.
                    state = spec.pop("clusterStatePath", None)
                    if isinstance(state, str):
                        base = os.path.dirname(real)
                        if config_value.origin == SIDECAR:
                            resolved = os.path.realpath(os.path.join(base, state))
                            trusted.add(resolved)
                            state_path: str | None = resolved
                        else:
                            state_path, problems = tree.confine(state, base, "spec.clusterStatePath")
                            results.extend(p.with_source(display, 0) for p in problems)
                        if state_path is not None:
                            spec["clusterStatePath"] = state_path
                            skip.update([state_path, *_files_below(state_path)])

    # The operator configuration from the options: the highest origin wins; one origin, one form.
    inline = options.get("operator-config")
    by_path = options.get("operator-config-path")
    candidates = [v for v in (inline, by_path) if v is not None and v.text]
    if candidates:
        top = max(v.origin for v in candidates)
        winners = [v for v in candidates if v.origin == top]
        if len(winners) > 1:
            results.append(Result(
                f"set operator-config or operator-config-path, not both (both come from the {ORIGIN_NAMES[top]})",
                field=winners[0].label, code=Code.CONFIG,
            ))
        elif top >= operator_origin:
            winner = winners[0]
            spec.pop("operatorConfig", None)
            operator_path = None
            if winner is by_path:
                operator_path, _ = path_option("operator-config-path", tree.app)
                if operator_path is not None:
                    skip.add(operator_path)
            else:
                doc, problems = _parse_inline_document(winner)
                results.extend(problems)
                if doc is not None:
                    spec["operatorConfig"] = doc
                    inline_source = (winner.label, "")

    # Plain settings: switches and gates ("auto" leaves a gate to the operator's own decision).
    for param in PARAMETERS:
        option = param.option
        if param.name not in options or option.kind not in ("bool", "gate") or not option.setting:
            continue
        text = options[param.name].text
        *parents, key = option.setting
        target = spec
        for part in parents:
            target[part] = dict(target.get(part) or {})
            target = target[part]
        if text == "auto":
            target.pop(key, None)
        else:
            target[key] = text == "true"
    allow_empty = "allow-empty" in options and options["allow-empty"].text == "true"
    prune_last = "prune-last" not in options or options["prune-last"].text == "true"

    if any(r.is_error for r in results):
        return None, results

    # The cluster facts Argo CD sends about the destination cluster.
    raw_versions = env.get("KUBE_API_VERSIONS", "")
    api_versions = [v for v in (s.strip() for s in raw_versions.split(",")) if v] or None
    settings_doc = {"apiVersion": RENDER_CONFIG_API_VERSION, "kind": RENDER_CONFIG_KIND, "spec": spec}
    settings, problems = resolve_settings(
        operator_config_path=operator_path,
        settings_doc=settings_doc,
        api_versions=api_versions,
        confine_to=tree.root,
        trusted_paths=frozenset(trusted),
    )
    results.extend(_relabel(p, tree, inline_source) for p in problems)
    if settings is None:
        return None, results
    grove_note = _grove_off_note(settings, api_versions)
    if grove_note is not None:
        results.append(grove_note)

    namespace_value = options.get("namespace")
    namespace = (
        (namespace_value.text if namespace_value is not None else "")
        or settings.settings.namespace
        or env.get("ARGOCD_APP_NAMESPACE", "")
        or "default"
    )
    strict_on = options["strict"].text == "true" if "strict" in options else settings.settings.strict
    return Plan(settings, namespace, allow_empty, frozenset(skip), prune_last, strict_on), results


def _parse_inline_document(value: Value) -> tuple[dict[str, Any] | None, list[Result]]:
    docs, problems = load_documents(value.text, "")
    if problems:
        return None, [Result(p.message, field=value.label, code=p.code) for p in problems]
    if len(docs) != 1 or not isinstance(docs[0].obj, dict):
        return None, [Result("expected exactly one YAML or JSON object", field=value.label, code=Code.CONFIG)]
    return docs[0].obj, []


def _relabel(result: Result, tree: Tree, inline_source: tuple[str, str]) -> Result:
    """Show repository paths; name the inline operator config by where the user wrote it."""
    out = result
    if out.file:
        out = replace(out, file=tree.display(out.file))
    prefix = "spec.operatorConfig"
    if out.field == prefix or out.field.startswith(prefix + "."):
        label, file = inline_source
        out = replace(out, field=label + out.field[len(prefix):])
        if file:
            out = out.with_source(file, 0)
    return out


def _grove_off_note(settings: Settings, api_versions: list[str] | None) -> Result | None:
    """Why Grove stays off although the destination serves grove.io (no operator config given).

    The operator's Helm chart writes ``orchestrators.grove.enabled: false`` unless it is
    installed with ``global.grove.enabled`` (or ``install``); only an unset value lets the
    operator detect grove.io itself. Without the operator's configuration the plugin assumes
    the chart's defaults, so the cluster's APIs alone do not switch Grove on.
    Mirrors: internal/features/gates.go New (Grove: the configured value, else detection).
    """
    config = settings.config
    if config.grove_enabled or config.operator_config_source != "helm-defaults" or settings.settings.gates.grove is not None:
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
        return _fail(results, env, stderr)

    documents, problems, described = collect_documents(tree, plan.skip, env)
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
        plan.namespace,
        keep_sources=plan.settings.settings.keep_sources,
        cluster_layers=plan.settings.cluster_layers,
    )
    results.extend(rendered.results)
    if len(rendered.objects) > MAX_RENDERED_OBJECTS:
        results.append(too_many_rendered(MAX_RENDERED_OBJECTS))
    if not rendered.objects and not plan.allow_empty and not any(r.is_error for r in results):
        results.append(Result(
            f"no objects to deploy in {tree.display(tree.app)} ({described}); an empty result "
            "makes Argo CD prune the whole Application, so it is refused unless the allow-empty parameter is true", code=Code.INPUT
        ))
    if plan.strict:
        results = strict(results)
    if any(r.is_error for r in results):
        return _fail(results, env, stderr)
    # On success Argo CD shows stderr nowhere but the sidecar's log (info level).
    notes = [r.line() for r in results]
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



def _fail(results: Sequence[Result], env: Mapping[str, str], stderr: TextIO) -> int:
    """A summary line, then one line per problem (warnings after errors), capped."""
    errors = [r for r in results if r.is_error]
    warnings = [r for r in results if r.severity is Severity.WARNING]
    app = env.get("ARGOCD_APP_NAME", "")
    where = f" for application {app}" if app else ""
    count = f"{len(errors)} error" + ("s" if len(errors) != 1 else "")
    stderr.write(f"dynamo-render: {count}{where}, nothing rendered\n")
    lines = [r.line() for r in errors + warnings]
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
    if plan is not None:
        documents, problems, _ = collect_documents(tree, plan.skip, env)
        results.extend(problems)
        for doc in documents:
            if is_dcd(doc.obj) or is_dgd(doc.obj):
                found.append(f"{ResourceRef.of(doc.obj).short()} ({doc.file}:{doc.index})")

    effective: dict[str, str] = {}
    for param in PARAMETERS:
        value = options.get(param.name)
        if value is not None:
            effective[param.name] = f"{value.text} (from the {ORIGIN_NAMES[value.origin]})"
        elif param.name == "namespace":
            configured = plan.settings.settings.namespace if plan is not None else None
            effective[param.name] = f"{configured} (from the config file)" if configured else "the destination namespace"
        elif param.name == "strict" and plan is not None and plan.strict:
            effective[param.name] = "true (from the config file)"
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
    problem_lines = [r.line() for r in results if r.severity is not Severity.INFO]
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
