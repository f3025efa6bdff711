"""The plugin's settings: the DynamoRenderConfig schema, and one resolver from options and files to ``Settings``.

One chain: the option table (``plugin.options``) names every option; each front end hands
``resolve_settings`` the values it was given, by option name; the resolver layers them over the
settings file and the defaults into one ``Settings`` record, whose ``config`` is the
``renderer.config.RenderConfig`` the core renders with (the core reads the record's choices
through ``renderer.config.Choices``).

Accepted settings files: an OperatorConfiguration document (the operator's own config), and our
DynamoRenderConfig document (plugin settings, which may embed or reference the operator
config). With neither, the operator Helm chart's defaults are assumed. The DynamoRenderConfig
schema (``RenderSettings``), file paths included, is this module's and is read only here. The
same document is the KRM functionConfig and the CMP parameter file.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from typing import Any, Literal

from plugin.files import UNCONFINED, PathPolicy, is_local_config, load_sources, nested_policy, read_sources, read_text, walk_manifests
from plugin.options import BY_NAME, OPTIONS, OptionValues, parse_strict
from plugin.state_sources import load_state_file
from plugin.yamlio.codec import Document, load_documents
from renderer import consts
from renderer.cluster.state import REFERENCED_KINDS, Existing, StateLayer
from renderer.config import RenderConfig, build_render_config
from renderer.operator_config import DEFAULT_OPERATOR_VERSION, OperatorConfiguration, parse_operator_config
from renderer.model import BaseModel, ConfigDict, CustomError, Field, ValidationError, field_validator
from renderer.records import dataclass, field, replace
from renderer.releases import REFERENCE_RELEASE, Release, default_release, find_release, release_names
from renderer.results import Code, ResourceRef, Result, Severity, field_path, strict

RENDER_CONFIG_API_VERSION = "config.dynamo-render.dev/v1alpha1"
RENDER_CONFIG_KIND = "DynamoRenderConfig"

# ---------------------------------------------------------------------------------------------
# The DynamoRenderConfig schema


class _Strict(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid", populate_by_name=False, defer_build=True)


class Gates(_Strict):
    """``spec.gates`` of a DynamoRenderConfig: feature gates the operator detects from the cluster at start-up.

    ``None`` means auto-detect: use the cluster API facts when known, else the default.
    """

    lws: bool | None = None
    grove: bool | None = None
    checkpoint: bool | None = None
    dra: bool | None = None
    # Stands in for the operator's detection of scheduling.run.ai when its config leaves KAI unset.
    kai_scheduler: bool | None = Field(default=None, alias="kaiScheduler")


class ExistingObject(_Strict):
    """An object that exists in the cluster on purpose, outside Git (an ``hf-token`` Secret, a model cache PVC).

    A rendered pod's reference to it is not reported; ``name`` and ``namespace`` take ``*`` and
    ``?`` globs, and no namespace means every namespace.
    """

    kind: str
    name: str = Field(min_length=1)
    namespace: str | None = Field(default=None, min_length=1)

    @field_validator("kind")
    @classmethod
    def _referenced_kind(cls, value: str) -> str:
        if value not in REFERENCED_KINDS:
            raise CustomError("literal_error", f'unsupported kind "{value}" (valid: {", ".join(REFERENCED_KINDS)})')
        return value

    def existing(self) -> Existing:
        return Existing(REFERENCED_KINDS[self.kind], self.name, self.namespace)


class RenderSettings(_Strict):
    """The ``spec`` of a DynamoRenderConfig: the settings file's schema, read only by ``resolve_settings``."""

    operator_config: dict[str, Any] | None = Field(default=None, alias="operatorConfig")
    operator_config_path: str | None = Field(default=None, alias="operatorConfigPath")
    namespace: str | None = None
    keep_sources: bool = Field(default=False, alias="keepSources")
    companions: bool = True
    gates: Gates = Field(default_factory=Gates)
    api_versions: list[str] | None = Field(default=None, alias="apiVersions")
    # A cluster-state file (Kubernetes objects, e.g. kubectl get -o yaml output), relative to this config.
    cluster_state_path: str | None = Field(default=None, alias="clusterStatePath")
    # The operator release whose behaviour is rendered (renderer.releases); unset, the default profile.
    operator_release: str | None = Field(default=None, alias="operatorRelease")
    # The operator version that admits DGDs (stamped as nvidia.com/dynamo-operator-origin-version);
    # unset, the selected release's version.
    operator_version: str | None = Field(default=None, alias="operatorVersion")
    # "workloads" renders DGDs down to Deployments/LWS; "dcd" stops at the generated DCDs.
    emit: Literal["workloads", "dcd"] = "workloads"
    # Emit DynamoGraphDeploymentScalingAdapter objects for components that ask for one.
    scaling_adapters: bool = Field(default=False, alias="scalingAdapters")
    # Sources (Kind/namespace/name, * within a part) whose content that only a preservation
    # annotation carries is accepted: info notes instead of warnings, not an error under strict.
    accept_preserved_content: list[str] = Field(default_factory=list, alias="acceptPreservedContent")
    # Fail on warnings as on errors (the front ends apply it to their whole run): true for every
    # warning, or the result codes whose warnings fail (a list, or comma-separated text).
    strict: Any = False
    # Objects that exist in the cluster on purpose: their references are not reported.
    existing_objects: list[ExistingObject] = Field(default_factory=list, alias="existingObjects")
    # Move the sources' GitOps annotations and labels to what they render; false for byte parity with the operator.
    carry_metadata: bool = Field(default=True, alias="carryMetadata")
    # Emit the objects every graph of a namespace shares: unset emits them with a note, false leaves them out.
    namespace_shared: bool | None = Field(default=None, alias="namespaceShared")

    @field_validator("operator_release")
    @classmethod
    def _known_release(cls, value: str | None) -> str | None:
        release = find_release(value) if value is not None else None
        if value is not None and release is None:
            raise CustomError("value_error", f'unknown operator release "{value}" (valid: {", ".join(release_names())})')
        return release.name if release is not None else None

    @field_validator("strict")
    @classmethod
    def _strict_value(cls, value: Any) -> bool | tuple[str, ...]:
        parsed, problem = parse_strict(value)
        if parsed is None:
            raise CustomError("value_error", problem)
        return parsed


def parse_render_settings(doc: dict[str, Any]) -> tuple[RenderSettings | None, list[Result]]:
    """Validate a DynamoRenderConfig document (apiVersion, kind, optional metadata, spec)."""
    results: list[Result] = []
    if doc.get("apiVersion") != RENDER_CONFIG_API_VERSION or doc.get("kind") != RENDER_CONFIG_KIND:
        results.append(
            Result(
                f'expected apiVersion "{RENDER_CONFIG_API_VERSION}" and kind "{RENDER_CONFIG_KIND}", '
                f'got "{doc.get("apiVersion")}" "{doc.get("kind")}"',
                field="kind", code=Code.CONFIG,
            )
        )
        return None, results
    unknown = sorted(set(doc) - {"apiVersion", "kind", "metadata", "spec"})
    for key in unknown:
        results.append(Result(f'unknown field "{key}"', field=key, code=Code.UNKNOWN_FIELD))
    spec = doc.get("spec") or {}
    if not isinstance(spec, dict):
        results.append(Result("expected object", field="spec", code=Code.CONFIG))
        return None, results
    try:
        settings = RenderSettings.model_validate(spec)
    except ValidationError as err:
        for error in err.errors(include_url=False):
            extra = error["type"] == "extra_forbidden"
            # Lower-case the message's first letter only: kinds and patterns in it keep their case.
            text = str(error["msg"])
            message = f'unknown field "{error["loc"][-1]}"' if extra else text[:1].lower() + text[1:]
            code = Code.UNKNOWN_FIELD if extra else Code.CONFIG
            results.append(Result(message, field=field_path("spec", tuple(error["loc"])), code=code))
        return None, results
    if settings.operator_config is not None and settings.operator_config_path is not None:
        results.append(Result("set operatorConfig or operatorConfigPath, not both", field="spec", code=Code.CONFIG))
    if results:
        return None, results
    return settings, results


# ---------------------------------------------------------------------------------------------
# Resolving


@dataclass(frozen=True)
class Settings:
    """The resolved settings: everything a front end needs besides the objects to render.

    ``config`` is the renderer's input, built from the other fields and the operator
    configuration (``with_operator``); the fields from ``lws`` to ``namespace_shared`` are the
    choices the core reads to build it (``renderer.config.Choices``).
    """

    config: RenderConfig = field(default_factory=RenderConfig)
    namespace: str = "default"
    keep_sources: bool = False
    # Fail on every warning (True), or on the warnings of these result codes.
    strict: bool | tuple[str, ...] = False
    # Gates forced on or off (None: detected as the operator does).
    lws: bool | None = None
    grove: bool | None = None
    checkpoint: bool | None = None
    dra: bool | None = None
    kai_scheduler: bool | None = None
    # Cluster API group/versions the front end or the settings give, else None.
    api_versions: tuple[str, ...] | None = None
    companions: bool = True
    # The operator release whose behaviour is rendered, and the version stamped at admission.
    release: Release = field(default_factory=default_release)
    operator_version: str = DEFAULT_OPERATOR_VERSION
    emit: str = "workloads"
    scaling_adapters: bool = False
    accept_preserved: tuple[str, ...] = ()
    carry_metadata: bool = True
    namespace_shared: bool | None = None
    # Cluster facts besides the input bundle (a cluster-state file), highest precedence first.
    cluster_layers: tuple[StateLayer, ...] = ()
    # The files the settings name (config file, operator configuration, cluster-state file or
    # folder), as the path policy located them (real paths when it confines): not manifests.
    config_files: frozenset[str] = frozenset()
    # The options the settings file sets (by option name), for saying where a value came from.
    from_file: frozenset[str] = frozenset()

    def with_operator(
        self, operator: OperatorConfiguration | None, cluster_api_versions: list[str] | None = None
    ) -> tuple[Settings, list[Result]]:
        """These settings with their render configuration built under ``operator`` (None: the Helm chart defaults)."""
        config, problems = build_render_config(operator, self, None, cluster_api_versions)
        return replace(self, config=config), problems

    def strict_results(self, results: list[Result]) -> list[Result]:
        """``results`` with the warnings that ``strict`` names turned into errors."""
        if self.strict is True:
            return strict(results)
        if not self.strict:
            return results
        return strict(results, frozenset(Code(code) for code in self.strict))


# The settings' own document kinds: configuration files, which no cluster serves as objects.
SETTINGS_KINDS = frozenset({
    (RENDER_CONFIG_API_VERSION, RENDER_CONFIG_KIND),
    (consts.OPERATOR_CONFIG_API_VERSION, consts.OPERATOR_CONFIG_KIND),
})


def is_settings_document(obj: Any) -> bool:
    """A DynamoRenderConfig or OperatorConfiguration document."""
    if not isinstance(obj, dict):
        return False
    api_version, kind = obj.get("apiVersion"), obj.get("kind")
    return isinstance(api_version, str) and isinstance(kind, str) and (api_version, kind) in SETTINGS_KINDS


def settings_document_note(obj: dict[str, Any]) -> Result:
    """A settings document among the manifests: not rendered, and not applied either unless named."""
    return Result(
        f"this {obj.get('kind')} is configuration, not an object for the cluster: not rendered and not applied "
        "(name its file with --config or --operator-config to apply it)",
        severity=Severity.WARNING, resource=ResourceRef.of(obj), code=Code.IGNORED,
    )


def local_config_note(obj: dict[str, Any]) -> Result:
    """A document that configures a tool: never rendered, as kustomize never applies it."""
    return Result(
        'left out: marked config.kubernetes.io/local-config: "true" (configuration for a tool, never applied)',
        severity=Severity.INFO, resource=ResourceRef.of(obj), code=Code.NOTE,
    )


KUSTOMIZE_GROUP = "kustomize.config.k8s.io"


def is_kustomize_document(obj: Any) -> bool:
    """A Kustomization or Component document (``kustomize.config.k8s.io``): input to kustomize, never an object."""
    if not isinstance(obj, dict) or obj.get("kind") not in ("Kustomization", "Component"):
        return False
    api_version = obj.get("apiVersion")
    return isinstance(api_version, str) and api_version.split("/", 1)[0] == KUSTOMIZE_GROUP


def kustomize_document_note(obj: dict[str, Any]) -> Result:
    """A kustomization read as a file (``--no-kustomize``, or a file named directly): never emitted."""
    return Result(
        f"a kustomize {obj.get('kind')} is input to kustomize, not an object for the cluster: left out "
        "(name its folder to build it)",
        severity=Severity.WARNING, resource=ResourceRef.of(obj), code=Code.IGNORED,
    )


def settings_files(settings: Settings, named: Iterable[str] | None = None) -> frozenset[str]:
    """Real paths of the files the settings name and of every manifest below a named folder.

    They are configuration (a config file, the operator configuration, cluster state), never
    manifests to render, when a folder being rendered holds them. ``named`` replaces the
    settings' own list (the same files in another checkout).
    """
    out: set[str] = set()
    for path in settings.config_files if named is None else named:
        out.add(os.path.realpath(path))
        if os.path.isdir(path):
            out.update(real for real, _ in walk_manifests(path)[0])
    return frozenset(out)


def load_manifests(
    paths: Sequence[str],
    settings: Settings | None,
    skip: Collection[str] | None = None,
    *,
    raw: bool = False,
    env: Mapping[str, str] | None = None,
    show: Callable[[str], str] | None = None,
    texts: dict[str, str] | None = None,
) -> tuple[list[Document], list[Result]]:
    """The documents of ``paths`` to render, as the render command and the diff read them.

    Paths are read by the app reader (``plugin.app_reader.app_documents``): a folder holding a
    kustomization is built with kustomize (``env`` gives its PATH; default: this process's
    environment) unless ``raw``. Files the settings name are passed over where a folder holds
    them (``settings_files``, or ``skip`` when given). Documents marked
    ``config.kubernetes.io/local-config: "true"`` are left out with a note, as ``kustomize
    build`` leaves them out; other settings documents are left out with a warning
    (``settings_document_note``). ``show`` names files in messages (default: relative to the
    working directory when inside it). ``texts``, when given, is filled with the text of every
    file the documents are named by (display name -> text), for ``file:LINE`` problem lines.
    """
    from plugin.app_reader import app_documents, show_from

    if skip is None:
        skip = settings_files(settings) if settings is not None else ()
    documents, results, read = app_documents(
        paths, os.environ if env is None else env, show or show_from(os.getcwd()), raw=raw, skip=skip
    )
    if texts is not None:
        texts.update(read)
    kept, problems = without_configuration(documents)
    return kept, results + problems


def without_configuration(documents: Iterable[Document]) -> tuple[list[Document], list[Result]]:
    """The documents that are manifests: local-config, settings and kustomize documents are left out, each with its note."""
    kept: list[Document] = []
    results: list[Result] = []
    for doc in documents:
        if is_local_config(doc.obj):
            results.append(local_config_note(doc.obj).with_source(doc.file, doc.index))
        elif is_settings_document(doc.obj):
            results.append(settings_document_note(doc.obj).with_source(doc.file, doc.index))
        elif is_kustomize_document(doc.obj):
            results.append(kustomize_document_note(doc.obj).with_source(doc.file, doc.index))
        else:
            kept.append(doc)
    return kept, results


def _read_single_document(path: str, confine_to: str | None = None) -> tuple[dict[str, Any] | None, list[Result]]:
    text, problems = read_text(path, confine_to=confine_to, special_ok=confine_to is None)
    if text is None:
        return None, problems
    docs, problems = load_documents(text, path)
    if problems:
        return None, problems
    if len(docs) != 1 or not isinstance(docs[0].obj, dict):
        return None, [Result("expected exactly one YAML object", file=path, code=Code.CONFIG)]
    return docs[0].obj, []


def load_operator_config(path: str, confine_to: str | None = None, release: Release = REFERENCE_RELEASE) -> tuple[OperatorConfiguration | None, list[Result]]:
    """Read an OperatorConfiguration document from a file (inside ``confine_to`` when given), as ``release`` reads it."""
    doc, results = _read_single_document(path, confine_to)
    if doc is None:
        return None, results
    if doc.get("kind", consts.OPERATOR_CONFIG_KIND) != consts.OPERATOR_CONFIG_KIND:
        return None, [Result(f'expected kind "{consts.OPERATOR_CONFIG_KIND}", got "{doc.get("kind")}"', file=path, field="kind", code=Code.CONFIG)]
    cfg, problems = parse_operator_config(doc, release=release)
    return cfg, [p.with_source(path, 0) for p in problems]


def _parse_inline_operator_config(text: str, label: str, release: Release = REFERENCE_RELEASE) -> tuple[OperatorConfiguration | None, list[Result]]:
    """An operator configuration given as YAML or JSON text (an option's value named ``label``)."""
    docs, problems = load_documents(text, "")
    if problems:
        return None, [Result(p.message, field=label, code=p.code) for p in problems]
    if len(docs) != 1 or not isinstance(docs[0].obj, dict):
        return None, [Result("expected exactly one YAML or JSON object", field=label, code=Code.CONFIG)]
    return parse_operator_config(docs[0].obj, label, release)


def _merged(base: dict[str, Any], overrides: dict[str, Any]) -> dict[str, Any]:
    """``overrides`` over ``base``, nested objects merged key by key (a flag sets one gate only)."""
    out = dict(base)
    for key, value in overrides.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merged(out[key], value)
        else:
            out[key] = value
    return out


# The options that say where settings come from, and the namespace (an empty one is none given):
# read by the resolver itself rather than set in the DynamoRenderConfig ``spec`` of the layers.
_SOURCES = frozenset({"config", "operator-config-path", "operator-config", "cluster-state", "namespace"})


def _spec_fragment(values: OptionValues) -> dict[str, Any]:
    """A DynamoRenderConfig ``spec`` fragment from option values (options without a setting are passed over)."""
    spec: dict[str, Any] = {}
    for name, value in values.items():
        path = BY_NAME[name].setting
        if name in _SOURCES or not path:
            continue
        target = spec
        for part in path[:-1]:
            target = target.setdefault(part, {})
        target[path[-1]] = list(value) if isinstance(value, tuple) and name == "api-versions" else value
    return spec


def _operator_option(values: OptionValues) -> tuple[str, str] | None:
    """The operator configuration a layer gives: (option name, file path or YAML/JSON text), if any."""
    for name in ("operator-config-path", "operator-config"):
        if values.get(name) is not None:
            return name, values[name]
    return None


def _set_in(spec: Mapping[str, Any]) -> frozenset[str]:
    """The options whose setting a ``spec`` holds."""
    out = set()
    for option in OPTIONS:
        target: Any = spec
        for part in option.setting:
            target = target.get(part) if isinstance(target, Mapping) else None
        if option.setting and target is not None:
            out.add(option.name)
    return frozenset(out)


def resolve_settings(
    given: OptionValues | None = None,
    *,
    below: OptionValues | None = None,
    document: dict[str, Any] | None = None,
    policy: PathPolicy = UNCONFINED,
    extra_layers: Sequence[StateLayer] = (),
    nested_root: str | None = None,
) -> tuple[Settings | None, list[Result]]:
    """The settings from layered sources: defaults < ``below`` < the settings file < ``given``; any error means None.

    ``given`` and ``below`` are option values by option name (``plugin.options``: absent is not
    given, None is auto). The settings file is the one ``given["config"]`` names (an
    OperatorConfiguration there is taken as the operator configuration), or ``document``, an
    already-parsed DynamoRenderConfig (KRM functionConfig). ``operatorConfigPath`` and
    ``clusterStatePath`` inside it are relative to the file's folder (a ``document``'s: the
    policy's base). The operator configuration is one option of a layer, a file
    (``operator-config-path``) or YAML or JSON text (``operator-config``): ``given``'s wins over
    the file's own, the file's over ``below``'s. ``cluster-state`` wins over
    ``clusterStatePath``; ``extra_layers`` (a live lookup) only lend their API versions, after
    the cluster-state file's.

    Every path is located and read under ``policy`` (the caller's; see ``PathPolicy``): the
    config file, the operator configuration and the cluster state, whether named by an option or
    inside the config file (``plugin.files.nested_policy``). Files in messages are named as the policy shows them.
    """
    given = given or {}
    below = below or {}
    results: list[Result] = []
    named: list[str] = []

    def locate(value: str, base: str | None, label: str, trusted: bool, source: str = "", using: PathPolicy = policy) -> str | None:
        path, problems = using.locate(value, base, label, trusted)
        results.extend(p.with_source(source, 0) if source else p for p in problems)
        if path is not None:
            named.append(path)
        return path

    # The settings file: plugin settings, or the operator's own configuration.
    spec = RenderSettings()
    file_spec: dict[str, Any] = {}
    origin = ""
    base_dir = policy.base or "."
    config_path = given.get("config")
    config_trusted = "config" in policy.trusted
    config_operator: str | None = None
    if config_path is not None:
        path = locate(config_path, policy.base, policy.label("config"), config_trusted)
        if path is not None:
            doc, problems = _read_single_document(path, policy.confine_to(config_trusted))
            results.extend(problems)
            if doc is not None and doc.get("kind") == consts.OPERATOR_CONFIG_KIND:
                config_operator, doc = path, None
            document = doc if doc is not None else document
            origin = path
            base_dir = os.path.dirname(path) or "."
    if document is not None:
        parsed, problems = parse_render_settings(document)
        results.extend(p.with_source(origin, 0) if origin else p for p in problems)
        if parsed is not None:
            spec, file_spec = parsed, document.get("spec") or {}
    over, under = _spec_fragment(given), _spec_fragment(below)
    if over or under:
        try:
            spec = RenderSettings.model_validate(_merged(_merged(under, file_spec), over))
        except ValidationError as err:
            results.extend(Result(f"invalid setting: {e['msg']}", field=field_path("spec", tuple(e["loc"])), code=Code.CONFIG)
                           for e in err.errors(include_url=False))

    # The paths inside the config file are relative to it, trusted when it is, else confined.
    nested_trusted, (nested, nested_base) = config_trusted and config_path is not None, nested_policy(policy, base_dir, nested_root)
    nested_operator = nested_state = None
    if spec.operator_config_path is not None:
        nested_operator = locate(spec.operator_config_path, nested_base, "spec.operatorConfigPath", nested_trusted, origin, nested)
    if spec.cluster_state_path is not None:
        nested_state = locate(spec.cluster_state_path, nested_base, "spec.clusterStatePath", nested_trusted, origin, nested)

    # The operator configuration (given's, else the settings file's own, else below's), read as the profile's release reads it.
    release = (find_release(spec.operator_release) if spec.operator_release else None) or default_release()
    file_gives_operator = config_operator is not None or spec.operator_config is not None or spec.operator_config_path is not None
    option = _operator_option(given) or (None if file_gives_operator else _operator_option(below))
    operator: OperatorConfiguration | None = None
    problems = []
    if option is not None and option[0] == "operator-config-path":
        trusted = "operator-config-path" in policy.trusted
        path = locate(option[1], policy.base, policy.label("operator-config-path"), trusted)
        if path is not None:
            operator, problems = load_operator_config(path, policy.confine_to(trusted), release)
    elif option is not None:
        operator, problems = _parse_inline_operator_config(option[1], policy.label("operator-config"), release)
    elif config_operator is not None:
        operator, problems = load_operator_config(config_operator, policy.confine_to(config_trusted), release)
    elif spec.operator_config is not None:
        operator, problems = parse_operator_config(spec.operator_config, "spec.operatorConfig", release)
        problems = [p.with_source(origin, 0) if origin else p for p in problems]
    elif nested_operator is not None:
        operator, problems = load_operator_config(nested_operator, nested.confine_to(nested_trusted), release)
    results.extend(problems)

    # The cluster-state file: the option's, else the config's.
    layers: list[StateLayer] = []
    if spec.existing_objects:
        declared = tuple(item.existing() for item in spec.existing_objects)
        layers.append(StateLayer(f"{origin or 'settings'} spec.existingObjects", existing=declared))
    state_path, state_confine = nested_state, nested.confine_to(nested_trusted)
    if given.get("cluster-state") is not None:
        trusted = "cluster-state" in policy.trusted
        state_path = locate(given["cluster-state"], policy.base, policy.label("cluster-state"), trusted)
        state_confine = policy.confine_to(trusted)
    if state_path is not None:
        layer, problems = load_state_file(state_path, state_confine)
        results.extend(problems)
        if layer is not None:
            layers.append(layer)
    if any(r.is_error for r in results):
        return None, policy.shown(results)

    gates = spec.gates
    resolved = Settings(
        namespace=given.get("namespace") or spec.namespace or below.get("namespace") or "default",
        keep_sources=spec.keep_sources,
        strict=spec.strict,
        lws=gates.lws,
        grove=gates.grove,
        checkpoint=gates.checkpoint,
        dra=gates.dra,
        kai_scheduler=gates.kai_scheduler,
        api_versions=tuple(spec.api_versions) if spec.api_versions is not None else None,
        companions=spec.companions,
        release=release,
        operator_version=spec.operator_version or release.version,
        emit=spec.emit,
        scaling_adapters=spec.scaling_adapters,
        accept_preserved=tuple(spec.accept_preserved_content),
        carry_metadata=spec.carry_metadata,
        namespace_shared=spec.namespace_shared,
        cluster_layers=tuple(layers),
        config_files=frozenset(named),
        from_file=_set_in(file_spec),
    )
    cluster_versions = next((list(src.api_versions) for src in (*layers, *extra_layers) if src.api_versions is not None), None)
    resolved, problems = resolved.with_operator(operator, cluster_versions)
    results.extend(problems)
    if any(r.is_error for r in results):
        return None, policy.shown(results)
    return resolved, policy.shown(results)


__all__ = [
    "RENDER_CONFIG_API_VERSION",
    "RENDER_CONFIG_KIND",
    "SETTINGS_KINDS",
    "Gates",
    "PathPolicy",
    "RenderSettings",
    "Settings",
    "load_operator_config",
    "is_settings_document",
    "load_manifests",
    "parse_render_settings",
    "resolve_settings",
    "settings_document_note",
    "settings_files",
    "without_configuration",
]
