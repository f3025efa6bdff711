"""The option table: every plugin option once, with its name in each front end.

One row per option: its help, its DynamoRenderConfig setting, its command-line flag with its
default, choices and path check, its Argo CD plugin parameter and its KRM ConfigMap key. The
click options (``plugin.cli``), the console scripts' short way (``plugin.console``), the CMP
parameter table and ``argocd/plugin.yaml``'s announcements (``plugin.frontends.cmp``) and the
KRM ConfigMap keys (``plugin.frontends.krm``) are generated from it; unit tests check
``argocd/plugin.yaml`` and the short way against it. Values arrive as strings in the CMP and in
a ConfigMap.

Every front end hands the settings resolver (``plugin.settings.resolve_settings``) the values it
was given as one mapping keyed by option name (``OptionValues``): a name that is absent was not
given; a present ``None`` is an explicit "auto" (a gate or ``namespace-shared`` set to auto).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from renderer.records import dataclass

from renderer.releases import release_names
from renderer.results import Code, describe_kind

BOOL_VALUES = ("true", "false")
GATE_VALUES = ("auto", "true", "false")
# The result codes a strict list may name (renderer.results.Code; docs/results.md).
STRICT_CODES: tuple[str, ...] = tuple(code.value for code in Code if code is not Code.UNCLASSIFIED)


@dataclass(frozen=True)
class Option:
    """One plugin option and how each front end spells it (``None``: not offered there)."""

    name: str
    # The DynamoRenderConfig ``spec`` path it sets, if it is a plugin setting.
    setting: tuple[str, ...] = ()
    # How its text is read in the CMP and in a ConfigMap: string, bool, gate (auto/true/false), list,
    # strict (true, false or result codes: ``parse_strict``).
    kind: str = "string"
    # Command line: the click declarations and help.
    flags: tuple[str, ...] = ()
    help: str = ""
    # Argo CD plugin parameter: name, title, tooltip and the default the plugin applies.
    parameter: str | None = None
    title: str = ""
    tooltip: str = ""
    default: str = ""
    # KRM ConfigMap functionConfig data key.
    configmap_key: str | None = None
    # Command line: the value when the flag is not given (None: not given, the settings decide),
    # the values click accepts (empty: any), and the path check click makes: "file" (not a
    # directory) or "exists".
    flag_default: Any = None
    choices: tuple[str, ...] = ()
    path: str = ""
    # The keyword argument the command functions take (empty: the name with ``_`` for ``-``).
    keyword: str = ""

    @property
    def allowed(self) -> tuple[str, ...]:
        """The values a string front end accepts (empty: any)."""
        return {"bool": BOOL_VALUES, "gate": GATE_VALUES}.get(self.kind, ())

    @property
    def dest(self) -> str:
        """The keyword argument of the command functions (``plugin.commands``) for this option."""
        return self.keyword or self.name.replace("-", "_")

    @property
    def switch(self) -> bool:
        """Whether the command line spells it as a switch (``--x`` or ``--x/--no-x``), not with a value."""
        return self.kind in ("bool", "gate", "strict")


def _setting(name: str, key: str, *, krm: bool = True, **fields: Any) -> Option:
    """An option that sets the DynamoRenderConfig ``spec.<key>``; a ConfigMap spells it ``key``."""
    return Option(name, setting=(key,), configmap_key=key if krm else None, **fields)


def _gate(name: str, title: str, tooltip: str, **fields: Any) -> Option:
    """A feature gate: ``spec.gates.<name>``, Argo CD parameter ``<name>-gate``, default auto."""
    return Option(
        name, setting=("gates", name), kind="gate", parameter=f"{name}-gate", title=title, tooltip=tooltip,
        default="auto", configmap_key=name, **fields,
    )


def _switch(name: str, title: str, default: str, tooltip: str, key: str | None = None, **fields: Any) -> Option:
    """A true/false option with an Argo CD parameter of the same name; ``key`` as for ``_setting``."""
    if key is not None:
        fields.update(setting=(key,), configmap_key=key)
    return Option(name, kind="bool", parameter=name, title=title, tooltip="true or false: " + tooltip, default=default, **fields)


OPTIONS: tuple[Option, ...] = (
    _setting(
        "namespace", "namespace", flags=("-n", "--namespace"), help="Namespace for objects that have none (default: default).",
        parameter="namespace", title="Namespace",
        tooltip="Namespace for objects without one, and for the Dynamo namespace of DCDs without one "
        "(default: the config file's spec.namespace, else the Application's destination namespace)",
    ),
    Option(
        "config", flags=("--config",), help="DynamoRenderConfig file (plugin settings).", path="file",
        parameter="config", title="DynamoRenderConfig file",
        tooltip="Path of a DynamoRenderConfig (or an OperatorConfiguration) file in the repository, relative "
        "to the application folder; it is not rendered itself",
    ),
    _setting(
        "operator-config-path", "operatorConfigPath", flags=("--operator-config",),
        help="OperatorConfiguration file (the operator's own config).", path="file",
        parameter="operator-config-path", title="OperatorConfiguration file",
        tooltip="Path of the operator's OperatorConfiguration (the config.yaml of its ConfigMap) in the "
        "repository, relative to the application folder (default: the operator Helm chart defaults)",
    ),
    _setting(
        "operator-config", "operatorConfig", krm=False, parameter="operator-config", title="OperatorConfiguration (inline)",
        tooltip="The operator's OperatorConfiguration as inline YAML or JSON; use this or operator-config-path",
    ),
    _switch(
        "keep-sources", "Keep sources", "false",
        "also emit the DynamoComponentDeployments themselves (for clusters that run the operator too)",
        key="keepSources", flags=("--keep-sources",), help="Also emit the rendered DCDs themselves.", flag_default=False,
    ),
    _switch(
        "companions", "Companion objects", "true",
        "emit the objects pods reference that only the graph controller would create "
        "(discovery ServiceAccount, Role, RoleBinding, ...)",
        key="companions", flags=("--companions/--no-companions",),
        help="Emit the discovery RBAC, wait-for-leader ConfigMap and ServiceAccounts a standalone DCD's pods reference "
        "(default: the config's companions setting, else on).",
    ),
    _gate(
        "lws", "LeaderWorkerSet gate",
        "auto: on when the cluster serves both leaderworkerset.x-k8s.io and scheduling.volcano.sh "
        "(KUBE_API_VERSIONS), as the operator decides; true or false to force it",
        flags=("--lws/--no-lws",), help="Force the LeaderWorkerSet gate (default: auto, on).",
    ),
    _gate(
        "checkpoint", "Checkpoint gate",
        "auto: the operator configuration's checkpoint.enabled, when the cluster serves PodSnapshot; true or false to force it",
    ),
    _gate(
        "grove", "Grove gate",
        "auto: the operator configuration's orchestrators.grove.enabled (unset: on when the cluster serves "
        "grove.io, KUBE_API_VERSIONS); without an operator configuration the Helm chart's default, off; "
        "true or false to force it",
    ),
    Option(
        "strict", setting=("strict",), kind="strict", flags=("--strict/--no-strict",),
        help="Fail on any warning as on an error; --strict=CODES only on warnings of those result codes, "
        "comma-separated (e.g. unknown-field,ignored,clash) (default: the config's strict setting, else off).",
        parameter="strict", title="Strict", default="false", configmap_key="strict",
        tooltip="true, false, or a comma-separated list of result codes (e.g. unknown-field,ignored,clash): fail on "
        "every warning (true) or on the warnings of those codes as on an error (Argo CD shows warnings nowhere but "
        "the sidecar's log when the render succeeds)",
    ),
    _setting(
        "emit", "emit", krm=False, flags=("--emit",),
        help="Render DynamoGraphDeployments down to workloads, or stop at the generated DCDs (default: the config's "
        "emit setting, else workloads).", choices=("workloads", "dcd"),
    ),
    _setting(
        "operator-release", "operatorRelease", flags=("--operator-release",),
        help="The operator release whose behaviour is rendered: the reference commit 2a6da14c8 or a release "
        "such as 1.5.0 (default: the config's operatorRelease, else the default profile; docs/operator-releases.md).",
        choices=release_names(), parameter="operator-release", title="Operator release",
        tooltip="The Dynamo operator release the cluster runs (its image tag, such as 1.5.0), or 2a6da14c8 for "
        "the reference commit (default: the config's operatorRelease, else the default profile)",
    ),
    _setting("api-versions", "apiVersions", kind="list"),
    _setting("accept-preserved-content", "acceptPreservedContent", kind="list"),
    _setting(
        "cluster-state", "clusterStatePath", krm=False, flags=("--cluster-state",),
        help="Cluster facts as Kubernetes objects (a file or directory, e.g. kubectl get -o yaml output); the input "
        "bundle's own objects win over it.", path="exists",
    ),
    Option(
        "kustomize", kind="bool", flags=("--kustomize/--no-kustomize",),
        help="Build a folder that holds a kustomization with kustomize first, as the Argo CD plugin does (default); "
        "--no-kustomize reads every file as it is.",
    ),
    _switch(
        "allow-empty", "Allow empty output", "false",
        "succeed with no objects when the folder renders to nothing (Argo CD then prunes everything the Application owns)",
    ),
    _switch(
        "carry-metadata", "Carry GitOps metadata", "true",
        "put each DCD's and DGD's Argo CD and Flux annotations (argocd.argoproj.io/, kustomize.toolkit.fluxcd.io/, "
        "fluxcd.io/) and its labels on the objects it renders (their metadata only, never pods); false for byte "
        "parity with the operator",
        key="carryMetadata", flags=("--carry-metadata/--no-carry-metadata",),
        help="Put each source's Argo CD and Flux annotations and its labels on the objects it renders (metadata only; "
        "default: the config's carryMetadata setting, else on).",
    ),
    Option(
        "namespace-shared", setting=("namespaceShared",), kind="gate", parameter="namespace-shared",
        title="Namespace-shared objects",
        tooltip="auto: emit the objects every graph of the namespace shares (planner and EPP ServiceAccounts and "
        "RoleBindings, model headless Services) and warn; true: emit them, this Application owns them; false: leave "
        "them out, another Application of the namespace owns them",
        default="auto", configmap_key="namespaceShared", flags=("--namespace-shared/--no-namespace-shared",),
        help="Emit (or with --no-namespace-shared leave out) the objects every graph of a namespace shares "
        "(default: the config's namespaceShared setting, else emit them with a note).",
    ),
    _switch(
        "prune-last", "Prune replaced workloads last", "true",
        "mark rendered Deployments, LeaderWorkerSets and PodCliqueSets with the sync option PruneLast=true, so a "
        "worker renamed by its hash is pruned only after the rest of the sync is healthy",
    ),
    # Command-line options of the commands themselves, not settings.
    Option(
        "live", kind="bool", flags=("--live",), flag_default=False,
        help="Also read cluster facts from the current kubeconfig context (read-only GET and LIST).",
    ),
    Option(
        "kubeconfig", flags=("--kubeconfig",), path="file",
        help="Kubeconfig for --live (default: KUBECONFIG, ~/.kube/config, in-cluster).",
    ),
    Option("context", flags=("--context",), keyword="kube_context", help="Kubeconfig context for --live."),
    Option("output", flags=("-o", "--output"), choices=("yaml", "json"), flag_default="yaml"),
    Option("verbose", kind="bool", flags=("-v", "--verbose"), flag_default=False, help="Also print info notes (assumed defaults)."),
)
BY_NAME = {option.name: option for option in OPTIONS}
# The options of the ``render`` command, in the order its help lists them (``plugin.cli``; the
# console scripts' short way parses the same, ``plugin.console``).
RENDER_OPTIONS = (
    "operator-config-path", "config", "namespace", "operator-release", "keep-sources", "lws", "emit", "cluster-state",
    "live", "kubeconfig", "context", "companions", "strict", "kustomize", "carry-metadata", "namespace-shared", "output", "verbose",
)


def parse_strict(value: Any) -> tuple[bool | tuple[str, ...] | None, str]:
    """The strict setting from ``true``/``false`` (a bool or its text) or result codes, and the problem (None when invalid).

    Codes come as a comma-separated string or a list of strings; each must be a result code
    (``STRICT_CODES``), and an empty list is refused (write false).
    """
    if isinstance(value, bool):
        return value, ""
    if isinstance(value, str) and value.strip().lower() in BOOL_VALUES:
        return value.strip().lower() == "true", ""
    if isinstance(value, str):
        parts = [part.strip() for part in value.split(",")]
    elif isinstance(value, (list, tuple)) and all(isinstance(part, str) for part in value):
        parts = [part.strip() for part in value]
    else:
        return None, f"expected true, false or a comma-separated list of result codes, got {describe_kind(value)}"
    codes = tuple(dict.fromkeys(part for part in parts if part))
    unknown = [code for code in codes if code not in STRICT_CODES]
    if unknown:
        return None, f"unknown result code {', '.join(json.dumps(c) for c in unknown)} (valid: true, false, or codes of {', '.join(STRICT_CODES)})"
    if not codes:
        return None, f"expected true, false or result codes, got {json.dumps(value) if isinstance(value, str) else 'an empty list'} (valid codes: {', '.join(STRICT_CODES)})"
    return codes, ""


def strict_text(value: bool | tuple[str, ...]) -> str:
    """How a strict setting is written: ``true``, ``false`` or its codes comma-separated."""
    return ",".join(value) if isinstance(value, tuple) else str(value).lower()


def cmp_parameters() -> tuple[Option, ...]:
    """The options the Argo CD plugin takes as parameters, in announcement order."""
    return tuple(option for option in OPTIONS if option.parameter is not None)


def configmap_keys() -> dict[str, Option]:
    """The KRM ConfigMap functionConfig keys."""
    return {option.configmap_key: option for option in OPTIONS if option.configmap_key is not None}


def announcement(option: Option) -> dict[str, Any]:
    """A ParameterAnnouncement (reposerver/repository/repository.proto) for plugin.yaml.

    Values always arrive as strings; Argo CD's UI only knows the "string" item type today.
    """
    return {"name": option.parameter, "title": option.title, "tooltip": option.tooltip, "string": option.default}


# The values a front end was given, by option name (``BY_NAME``): absent is not given, None is auto.
OptionValues = Mapping[str, Any]


def given_values(keywords: Mapping[str, Any]) -> dict[str, Any]:
    """The options a command line gave, by option name, from a command function's keyword arguments.

    A switch or value that was not given (click's None, or False for a one-way switch such as
    ``--keep-sources``) is left out, so that the settings file decides; keywords that are no
    option (paths, ``output`` of another command) are passed over.
    """
    values: dict[str, Any] = {}
    for option in OPTIONS:
        value = keywords.get(option.dest)
        one_way = option.switch and not any("/" in flag for flag in option.flags)
        if value is None or (value is False and one_way):
            continue
        values[option.name] = value
    return values
