"""The render configuration: the operator configuration plus the plugin choices the core needs.

The plugin resolves its settings into one record (``plugin.settings.Settings``; the
DynamoRenderConfig schema, file paths included, is the plugin's); the core reads of it only the
choices ``Choices`` names: the gates a user forced, the cluster's API versions, and what to
emit. ``build_render_config`` combines them with the operator's configuration
(``renderer.operator_config``) into the ``RenderConfig`` the renderer reads, deciding each
feature gate as the operator does at start-up.

Mirrors: internal/features/gates.go New (feature detection of the LeaderWorkerSet, Grove, DRA, KAI
and Volcano APIs).
"""

from __future__ import annotations

from typing import Protocol

from renderer.records import dataclass, field

from renderer.operator_config import DEFAULT_OPERATOR_VERSION, OperatorConfiguration, helm_default_operator_config
from renderer.releases import REFERENCE_RELEASE, Release
from renderer.results import Code, Result

# ---------------------------------------------------------------------------------------------
# What the core reads of the plugin's settings


class Choices(Protocol):
    """The plugin settings the core needs (``plugin.settings.Settings`` has them).

    A gate left ``None`` is detected as the operator does: from the cluster API facts when
    known, else its default.
    """

    @property
    def lws(self) -> bool | None: ...
    @property
    def grove(self) -> bool | None: ...
    @property
    def checkpoint(self) -> bool | None: ...
    @property
    def dra(self) -> bool | None: ...
    # Stands in for the operator's detection of scheduling.run.ai when its config leaves KAI unset.
    @property
    def kai_scheduler(self) -> bool | None: ...
    # Cluster API group/versions when the settings name them (apiVersions), else None.
    @property
    def api_versions(self) -> tuple[str, ...] | None: ...
    @property
    def companions(self) -> bool: ...
    # The operator release whose behaviour is rendered (renderer.releases).
    @property
    def release(self) -> Release: ...
    # The operator version that admits DGDs (stamped as nvidia.com/dynamo-operator-origin-version).
    @property
    def operator_version(self) -> str: ...
    # "workloads" renders DGDs down to Deployments/LWS; "dcd" stops at the generated DCDs.
    @property
    def emit(self) -> str: ...
    # Emit DynamoGraphDeploymentScalingAdapter objects for components that ask for one.
    @property
    def scaling_adapters(self) -> bool: ...
    # Sources (Kind/namespace/name patterns) whose preserved-annotation content is accepted.
    @property
    def accept_preserved(self) -> tuple[str, ...]: ...
    # Move the sources' GitOps annotations and labels to what they render (renderer.gitops).
    @property
    def carry_metadata(self) -> bool: ...
    # The objects every graph of a namespace shares (renderer.objects.shared): None emits them
    # and notes it, True emits them (this app owns them), False leaves them out.
    @property
    def namespace_shared(self) -> bool | None: ...
    # Emit each rendered source itself after what it renders (keepSources).
    @property
    def keep_sources(self) -> bool: ...


# The most objects one render emits (docs/reliability.md "Input limits"): byte limits alone let
# small documents multiply, so past it the render stops with one error.
MAX_RENDERED_OBJECTS = 500_000


@dataclass(frozen=True)
class RenderConfig:
    """Everything the pure renderer needs besides the DCD and the cluster state."""

    operator: OperatorConfiguration = field(default_factory=helm_default_operator_config)
    lws_enabled: bool = True
    # Why the LWS gate is off, for the multinode refusal message.
    lws_reason: str = ""
    checkpoint_enabled: bool = False
    grove_enabled: bool = False
    kai_scheduler_enabled: bool = False
    volcano_scheduler_enabled: bool = False
    companions: bool = True
    # "given" or "helm-defaults": where the operator configuration came from.
    operator_config_source: str = "helm-defaults"
    # The operator release whose behaviour is rendered: the reference commit, or a release whose
    # deltas (renderer.releases) the rules that own them apply.
    release: Release = REFERENCE_RELEASE
    operator_version: str = DEFAULT_OPERATOR_VERSION
    # Cluster API group/versions when known (KUBE_API_VERSIONS), else None.
    api_versions: tuple[str, ...] | None = None
    emit: str = "workloads"
    scaling_adapters: bool = False
    # Sources (Kind/namespace/name patterns, ``*`` within a part) whose content that only a
    # preservation annotation carries is accepted: reported as info notes, not warnings.
    accept_preserved: tuple[str, ...] = ()
    # DRA (resource.k8s.io/v1): needed by GPU Memory Service; on unless known to be off.
    dra_enabled: bool = True
    carry_metadata: bool = True
    namespace_shared: bool | None = None
    # Emit each rendered source itself after what it renders, and the most objects one render emits.
    keep_sources: bool = False
    max_rendered_objects: int = MAX_RENDERED_OBJECTS


LWS_GROUP = "leaderworkerset.x-k8s.io"
VOLCANO_GROUP = "scheduling.volcano.sh"


def resolve_lws_gate(
    configured: bool | None, plugin_setting: bool | None, api_versions: list[str] | None
) -> tuple[bool, str, list[Result]]:
    """The LWS feature gate: (enabled, reason when off, problems).

    The operator enables LWS when its config says so, else when the cluster serves both the
    LeaderWorkerSet and the Volcano API groups; an explicit ``true`` with either group missing
    stops the operator at start-up. Offline, the plugin setting stands in for the cluster when
    the API list is unknown, and the gate defaults to on.
    Mirrors: internal/features/gates.go New (LWS block).
    """
    results: list[Result] = []
    lws_served = volcano_served = None
    if api_versions is not None:
        lws_served = _serves_group(api_versions, LWS_GROUP)
        volcano_served = _serves_group(api_versions, VOLCANO_GROUP)
    if configured is not None:
        if configured and api_versions is not None:
            if not lws_served:
                results.append(Result(
                    "LWS is explicitly enabled in config but the LWS API group was not detected in the cluster",
                    field="orchestrators.lws.enabled", code=Code.CONFIG,
                ))
            elif not volcano_served:
                results.append(Result(
                    "LWS is explicitly enabled in config but the Volcano API group was not detected in the cluster",
                    field="orchestrators.lws.enabled", code=Code.CONFIG,
                ))
        reason = "" if configured else "orchestrators.lws.enabled is false in the operator configuration"
        return configured, reason, results
    if plugin_setting is not None:
        reason = "" if plugin_setting else "the lws gate is off in the plugin settings"
        return plugin_setting, reason, results
    if api_versions is not None:
        if not lws_served:
            return False, f"the cluster does not serve {LWS_GROUP}", results
        if not volcano_served:
            return False, (
                f"the cluster does not serve {VOLCANO_GROUP} (the operator enables LWS only when both "
                f"{LWS_GROUP} and {VOLCANO_GROUP} are served)"
            ), results
        return True, "", results
    return True, "", results


DRA_GROUP_VERSION = "resource.k8s.io/v1"


def resolve_dra_gate(configured: bool | None, plugin_setting: bool | None, api_versions: list[str] | None) -> tuple[bool, list[Result]]:
    """The DRA feature gate: the operator config, else the plugin setting, else whether the
    cluster serves resource.k8s.io/v1 (on when unknown). An explicit ``true`` without the API
    stops the operator at start-up.

    Mirrors: internal/features/gates.go New (DRA block)
    """
    served = None
    if api_versions is not None:
        served = any(v.strip() == DRA_GROUP_VERSION or v.strip().startswith(DRA_GROUP_VERSION + "/") for v in api_versions)
    if configured is not None:
        if configured and served is False:
            return configured, [Result(
                "DRA is explicitly enabled in config but the resource.k8s.io/v1 API was not detected in the cluster "
                "(requires Kubernetes 1.34+)",
                field="dra.enabled", code=Code.CONFIG,
            )]
        return configured, []
    if plugin_setting is not None:
        return plugin_setting, []
    return served is not False, []


def build_render_config(
    operator: OperatorConfiguration | None,
    settings: Choices,
    api_versions: list[str] | None = None,
    cluster_api_versions: list[str] | None = None,
) -> tuple[RenderConfig, list[Result]]:
    """Combine the operator config, plugin settings and cluster API facts into a RenderConfig.

    API versions: ``api_versions`` when given, else the settings' (``apiVersions``, or the front
    end's ``KUBE_API_VERSIONS``), else those of the cluster state (a cluster-state file, a live
    lookup).
    """
    source = "given" if operator is not None else "helm-defaults"
    operator = operator or helm_default_operator_config()
    versions = api_versions if api_versions is not None else (
        list(settings.api_versions) if settings.api_versions is not None else None
    )
    if versions is None:
        versions = cluster_api_versions
    lws, reason, results = resolve_lws_gate(operator.orchestrators.lws.enabled, settings.lws, versions)
    # The checkpoint gate needs the PodSnapshot API besides the operator setting.
    checkpoint = operator.checkpoint.enabled
    if settings.checkpoint is not None:
        checkpoint = settings.checkpoint
    elif checkpoint and versions is not None:
        # The operator refuses to start when checkpointing is on and PodSnapshot is not served.
        entries = [v.strip() for v in versions]
        if any(v.count("/") >= 2 for v in entries):
            served = "nvidia.com/v1alpha1/PodSnapshot" in entries
        else:
            served = "nvidia.com/v1alpha1" in entries
        if not served:
            results.append(
                Result(
                    "checkpoint is explicitly enabled in config but the nvidia.com/v1alpha1 PodSnapshot API was not "
                    "detected in the cluster",
                    field="checkpoint.enabled", code=Code.CONFIG,
                )
            )
    # Grove: a given operator config decides, else the plugin setting, else whether grove.io is
    # served. Without an operator config the Helm chart's explicit "false" holds unless the
    # plugin setting says otherwise (the chart disables Grove unless it is installed with it).
    if source == "given":
        grove = operator.orchestrators.grove.enabled
        if grove is None:
            grove = settings.grove
        if grove is None:
            grove = versions is not None and _serves_group(versions, "grove.io")
    else:
        grove = settings.grove if settings.grove is not None else bool(operator.orchestrators.grove.enabled)
    dra, dra_problems = resolve_dra_gate(operator.dra.enabled, settings.dra, versions)
    results.extend(dra_problems)
    kai, volcano, scheduler_results = resolve_scheduler_gates(operator, source, settings.kai_scheduler, versions)
    results += scheduler_results
    config = RenderConfig(
        dra_enabled=dra,
        operator=operator,
        lws_enabled=lws,
        lws_reason=reason,
        checkpoint_enabled=checkpoint,
        grove_enabled=grove,
        kai_scheduler_enabled=kai,
        volcano_scheduler_enabled=volcano,
        companions=settings.companions,
        operator_config_source=source,
        release=settings.release,
        operator_version=settings.operator_version,
        api_versions=tuple(versions) if versions is not None else None,
        emit=settings.emit,
        scaling_adapters=settings.scaling_adapters,
        accept_preserved=settings.accept_preserved,
        carry_metadata=settings.carry_metadata,
        namespace_shared=settings.namespace_shared,
        keep_sources=settings.keep_sources,
    )
    return config, results


KAI_GROUP = "scheduling.run.ai"


def resolve_scheduler_gates(
    operator: OperatorConfiguration, source: str, plugin_kai: bool | None, api_versions: list[str] | None
) -> tuple[bool, bool, list[Result]]:
    """The KAI scheduler and Volcano scheduler gates: (kai, volcano, problems).

    KAI follows the operator config, else the detection of ``scheduling.run.ai`` (offline: the
    plugin setting ``gates.kaiScheduler``, else the API versions, else off); without an
    operator config the Helm chart's explicit ``false`` holds unless the plugin setting says
    otherwise. Volcano is on only when the operator config says so. Either explicitly on
    while the cluster does not serve its API group stops the operator at start-up.
    Mirrors: internal/features/gates.go New (KaiScheduler and VolcanoScheduler blocks).
    """
    results: list[Result] = []
    configured = operator.orchestrators.kai_scheduler.enabled
    if source != "given" and plugin_kai is not None:
        configured = None
    if configured is not None:
        kai = configured
        if kai and api_versions is not None and not _serves_group(api_versions, KAI_GROUP):
            results.append(Result(
                "Kai-scheduler is explicitly enabled in config but the scheduling.run.ai API group was not detected in the cluster",
                field="orchestrators.kaiScheduler.enabled", code=Code.CONFIG,
            ))
    elif plugin_kai is not None:
        kai = plugin_kai
    else:
        kai = api_versions is not None and _serves_group(api_versions, KAI_GROUP)
    volcano = bool(operator.orchestrators.volcano_scheduler.enabled)
    if volcano and api_versions is not None and not _serves_group(api_versions, VOLCANO_GROUP):
        results.append(Result(
            "Volcano scheduler integration is explicitly enabled in config but the Volcano API group was not detected in the cluster",
            field="orchestrators.volcanoScheduler.enabled", code=Code.CONFIG,
        ))
    return kai, volcano, results


def _serves_group(api_versions: list[str], group: str) -> bool:
    """True when a KUBE_API_VERSIONS-style list (``group/version[/Kind]``) serves ``group``."""
    prefix = group + "/"
    return any(entry.strip().startswith(prefix) for entry in api_versions)
