"""Operator configuration, and the plugin choices the core needs.

``OperatorConfiguration`` is the operator's own document
(``operator.config.dynamo.nvidia.com/v1alpha1``); we apply the operator's defaults and
validation to it so a user can reuse the config their operator runs with. When no document is
given at all, we use what the operator's Helm chart renders with its default values.

The plugin's own settings document (``DynamoRenderConfig``: its schema, file paths included)
lives in the plugin (``plugin.settings``); the core takes only ``PluginChoices``, plain typed
data: the gates a user forced, the cluster's API versions, and what to emit.
``build_render_config`` combines them into the ``RenderConfig`` the renderer reads.

Mirrors: api/config/v1alpha1/{types.go,defaults.go}, api/config/validation/validation.go,
deploy/helm/charts/platform/components/operator/templates/operator-config.yaml.
"""

from __future__ import annotations

from renderer.records import dataclass, field
from typing import Any

from renderer.model import BaseModel, ConfigDict, Field, ValidationError

from renderer import consts
from renderer.results import Code, Result, Severity, field_path

# The operator release at the reference commit (deploy/helm/charts/platform Chart appVersion).
DEFAULT_OPERATOR_VERSION = "1.5.0"


class _Loose(BaseModel):
    """Operator config models: unknown keys are kept so they can be reported as warnings.

    The operator decodes its config with a non-strict decoder, so unknown keys are ignored
    there; in Git they are usually typos, so we warn.
    """

    # Validators are built on first use, not at import (start-up time of the CLI).
    model_config = ConfigDict(strict=True, extra="allow", populate_by_name=True, defer_build=True)


class ServerSettings(_Loose):
    bind_address: str = Field(default="", alias="bindAddress")
    port: int = 0


class MetricsServer(ServerSettings):
    secure: bool | None = None


class WebhookServer(ServerSettings):
    host: str = ""
    cert_dir: str = Field(default="", alias="certDir")
    cert_provision_mode: str = Field(default="", alias="certProvisionMode")
    secret_name: str = Field(default="", alias="secretName")
    service_name: str = Field(default="", alias="serviceName")


class ServerConfiguration(_Loose):
    metrics: MetricsServer = Field(default_factory=MetricsServer)
    health_probe: ServerSettings = Field(default_factory=ServerSettings, alias="healthProbe")
    webhook: WebhookServer = Field(default_factory=WebhookServer)


class LeaderElection(_Loose):
    enabled: bool = False
    id: str = ""
    namespace: str = ""


class NamespaceScope(_Loose):
    lease_duration: str = Field(default="", alias="leaseDuration")
    lease_renew_interval: str = Field(default="", alias="leaseRenewInterval")


class NamespaceConfiguration(_Loose):
    restricted: str = ""
    scope: NamespaceScope = Field(default_factory=NamespaceScope)


class Toggle(_Loose):
    enabled: bool | None = None


class GroveConfiguration(Toggle):
    termination_delay: str = Field(default="", alias="terminationDelay")


class Orchestrators(_Loose):
    grove: GroveConfiguration = Field(default_factory=GroveConfiguration)
    lws: Toggle = Field(default_factory=Toggle)
    kai_scheduler: Toggle = Field(default_factory=Toggle, alias="kaiScheduler")
    volcano_scheduler: Toggle = Field(default_factory=Toggle, alias="volcanoScheduler")


class Infrastructure(_Loose):
    nats_address: str = Field(default="", alias="natsAddress")
    etcd_address: str = Field(default="", alias="etcdAddress")
    model_express_url: str = Field(default="", alias="modelExpressURL")
    prometheus_endpoint: str = Field(default="", alias="prometheusEndpoint")


class IngressConfiguration(_Loose):
    virtual_service_gateway: str = Field(default="", alias="virtualServiceGateway")
    controller_class_name: str = Field(default="", alias="controllerClassName")
    controller_tls_secret_name: str = Field(default="", alias="controllerTLSSecretName")
    host_suffix: str = Field(default="", alias="hostSuffix")


class IstioMesh(_Loose):
    tls_mode: str = Field(default="", alias="tlsMode")
    insecure_skip_verify: bool | None = Field(default=None, alias="insecureSkipVerify")
    client_certificate: str = Field(default="", alias="clientCertificate")
    private_key: str = Field(default="", alias="privateKey")
    ca_certificates: str = Field(default="", alias="caCertificates")


class ServiceMesh(_Loose):
    enabled: bool | None = None
    provider: str = ""
    istio: IstioMesh | None = None


class RBACConfiguration(_Loose):
    planner_cluster_role_name: str = Field(default="", alias="plannerClusterRoleName")
    dgdr_profiling_cluster_role_name: str = Field(default="", alias="dgdrProfilingClusterRoleName")
    epp_cluster_role_name: str = Field(default="", alias="eppClusterRoleName")


class MPIConfiguration(_Loose):
    ssh_secret_name: str = Field(default="", alias="sshSecretName")
    ssh_secret_namespace: str = Field(default="", alias="sshSecretNamespace")


class CheckpointSeccomp(_Loose):
    disabled: bool = False
    profile: str = ""


class CheckpointPVC(_Loose):
    pvc_name: str = Field(default="", alias="pvcName")
    base_path: str = Field(default="", alias="basePath")
    create: bool = False
    size: str = ""
    storage_class_name: str = Field(default="", alias="storageClassName")
    access_mode: str = Field(default="", alias="accessMode")


class CheckpointURIConfig(_Loose):
    uri: str = ""
    credentials_secret_ref: str = Field(default="", alias="credentialsSecretRef")


class CheckpointStorage(_Loose):
    type: str = ""
    pvc: CheckpointPVC = Field(default_factory=CheckpointPVC)
    s3: CheckpointURIConfig = Field(default_factory=CheckpointURIConfig)
    oci: CheckpointURIConfig = Field(default_factory=CheckpointURIConfig)


class CheckpointConfiguration(_Loose):
    enabled: bool = False
    seccomp: CheckpointSeccomp | None = None
    storage: CheckpointStorage = Field(default_factory=CheckpointStorage)
    cleanup_image: str = Field(default="", alias="cleanupImage")


class DiscoveryConfiguration(_Loose):
    backend: str = ""


class GPUConfiguration(_Loose):
    discovery_enabled: bool | None = Field(default=None, alias="discoveryEnabled")


class LoggingConfiguration(_Loose):
    level: str = ""
    format: str = ""


class SecurityConfiguration(_Loose):
    enable_http2: bool = Field(default=False, alias="enableHTTP2")


class OperatorConfiguration(_Loose):
    """The operator's configuration document (defaults not yet applied)."""

    api_version: str = Field(default=consts.OPERATOR_CONFIG_API_VERSION, alias="apiVersion")
    kind: str = consts.OPERATOR_CONFIG_KIND
    server: ServerConfiguration = Field(default_factory=ServerConfiguration)
    leader_election: LeaderElection = Field(default_factory=LeaderElection, alias="leaderElection")
    namespace: NamespaceConfiguration = Field(default_factory=NamespaceConfiguration)
    orchestrators: Orchestrators = Field(default_factory=Orchestrators)
    dra: Toggle = Field(default_factory=Toggle)
    infrastructure: Infrastructure = Field(default_factory=Infrastructure)
    ingress: IngressConfiguration = Field(default_factory=IngressConfiguration)
    service_mesh: ServiceMesh = Field(default_factory=ServiceMesh, alias="serviceMesh")
    rbac: RBACConfiguration = Field(default_factory=RBACConfiguration)
    mpi: MPIConfiguration = Field(default_factory=MPIConfiguration)
    checkpoint: CheckpointConfiguration = Field(default_factory=CheckpointConfiguration)
    discovery: DiscoveryConfiguration = Field(default_factory=DiscoveryConfiguration)
    gpu: GPUConfiguration = Field(default_factory=GPUConfiguration)
    logging: LoggingConfiguration = Field(default_factory=LoggingConfiguration)
    security: SecurityConfiguration = Field(default_factory=SecurityConfiguration)


def set_operator_defaults(cfg: OperatorConfiguration) -> OperatorConfiguration:
    """Apply the operator's own defaults to unset fields (returns a new object).

    Mirrors: api/config/v1alpha1/defaults.go SetDefaultsOperatorConfiguration.
    """
    cfg = cfg.model_copy(deep=True)
    metrics = cfg.server.metrics
    metrics.port = metrics.port or 8080
    metrics.bind_address = metrics.bind_address or "0.0.0.0"
    metrics.secure = True if metrics.secure is None else metrics.secure
    probe = cfg.server.health_probe
    probe.port = probe.port or 8081
    probe.bind_address = probe.bind_address or "0.0.0.0"
    hook = cfg.server.webhook
    hook.host = hook.host or "0.0.0.0"
    hook.port = hook.port or 9443
    hook.cert_dir = hook.cert_dir or "/tmp/k8s-webhook-server/serving-certs"
    hook.cert_provision_mode = hook.cert_provision_mode or "auto"
    hook.secret_name = hook.secret_name or "webhook-server-cert"
    grove = cfg.orchestrators.grove
    grove.termination_delay = grove.termination_delay or "15m"
    scope = cfg.namespace.scope
    scope.lease_duration = scope.lease_duration or "30s"
    scope.lease_renew_interval = scope.lease_renew_interval or "10s"
    cfg.discovery.backend = cfg.discovery.backend or consts.DISCOVERY_BACKEND_KUBERNETES
    if cfg.gpu.discovery_enabled is None:
        cfg.gpu.discovery_enabled = True
    if cfg.service_mesh.provider == "istio" and cfg.service_mesh.istio is None:
        cfg.service_mesh.istio = IstioMesh()
    if cfg.service_mesh.istio is not None:
        cfg.service_mesh.istio.tls_mode = cfg.service_mesh.istio.tls_mode or "SIMPLE"
        if cfg.service_mesh.istio.insecure_skip_verify is None:
            cfg.service_mesh.istio.insecure_skip_verify = True
    cfg.logging.level = cfg.logging.level or "info"
    cfg.logging.format = cfg.logging.format or "json"
    return cfg


def helm_default_operator_config(release_namespace: str = "dynamo-system") -> OperatorConfiguration:
    """What the operator Helm chart renders with its default values, defaults applied.

    The chart leaves NATS/etcd unset (neither is installed by default), keeps discovery on
    ``kubernetes``, sets the MPI SSH secret to ``mpi-run-ssh-secret`` and, in cluster-wide mode,
    names the planner/DGDR/EPP ClusterRoles after the release (``dynamo-platform`` assumed).
    Mirrors: deploy/helm/charts/platform/components/operator/templates/operator-config.yaml.
    """
    fullname = "dynamo-platform-dynamo-operator"
    cfg = OperatorConfiguration.model_validate(
        {
            "server": {
                "metrics": {"bindAddress": "0.0.0.0", "secure": True},
                "webhook": {
                    "certProvisionMode": "auto",
                    "secretName": "webhook-server-cert",
                    "serviceName": f"{fullname}-webhook-service",
                },
            },
            "leaderElection": {"enabled": True, "id": "dynamo.nvidia.com", "namespace": "kube-system"},
            "orchestrators": {
                "kaiScheduler": {"enabled": False},
                "volcanoScheduler": {"enabled": False},
                "grove": {"enabled": False},
            },
            "rbac": {
                "plannerClusterRoleName": f"{fullname}-planner",
                "dgdrProfilingClusterRoleName": f"{fullname}-dgdr-profiling",
                "eppClusterRoleName": f"{fullname}-epp",
            },
            "mpi": {"sshSecretName": "mpi-run-ssh-secret", "sshSecretNamespace": release_namespace},
        }
    )
    return set_operator_defaults(cfg)


def validate_operator_config(cfg: OperatorConfiguration) -> list[Result]:
    """The operator's startup validation of its (defaulted) configuration.

    Mirrors: api/config/validation/validation.go ValidateOperatorConfiguration.
    """
    out: list[Result] = []

    def err(path: str, message: str) -> None:
        out.append(Result(message, field=path))

    for path, port in (
        ("server.metrics.port", cfg.server.metrics.port),
        ("server.healthProbe.port", cfg.server.health_probe.port),
        ("server.webhook.port", cfg.server.webhook.port),
    ):
        if port < 0 or port > 65535:
            err(path, f"Invalid value: {port}: must be between 0 and 65535")
    if cfg.leader_election.enabled and not cfg.leader_election.id:
        err("leaderElection.id", "Required value: leader election ID is required when leader election is enabled")
    if not cfg.mpi.ssh_secret_name:
        err("mpi.sshSecretName", "Required value: MPI SSH secret name is required")
    if not cfg.mpi.ssh_secret_namespace:
        err("mpi.sshSecretNamespace", "Required value: MPI SSH secret namespace is required")
    if cfg.infrastructure.model_express_url:
        from urllib.parse import urlparse  # only for this rare setting (start-up time)

        parsed = urlparse(cfg.infrastructure.model_express_url)
        if not parsed.scheme and not parsed.netloc and not parsed.path:
            err("infrastructure.modelExpressURL", "Invalid value: must be a valid URL")
    if cfg.discovery.backend not in (consts.DISCOVERY_BACKEND_KUBERNETES, consts.DISCOVERY_BACKEND_ETCD):
        err(
            "discovery.backend",
            f'Unsupported value: "{cfg.discovery.backend}": supported values: "kubernetes", "etcd"',
        )
    if not cfg.namespace.restricted:
        rbac = cfg.rbac
        if not rbac.planner_cluster_role_name:
            err("rbac.plannerClusterRoleName", "Required value: planner ClusterRole name is required in cluster-wide mode")
        if not rbac.dgdr_profiling_cluster_role_name:
            err(
                "rbac.dgdrProfilingClusterRoleName",
                "Required value: DGDR profiling ClusterRole name is required in cluster-wide mode",
            )
        if not rbac.epp_cluster_role_name:
            err("rbac.eppClusterRoleName", "Required value: EPP ClusterRole name is required in cluster-wide mode")
    if cfg.service_mesh.istio is not None:
        tls = cfg.service_mesh.istio.tls_mode
        if tls not in ("DISABLE", "SIMPLE", "ISTIO_MUTUAL", "MUTUAL"):
            err(
                "serviceMesh.istio.tlsMode",
                f'Unsupported value: "{tls}": supported values: "DISABLE", "SIMPLE", "ISTIO_MUTUAL", "MUTUAL"',
            )
        if tls == "MUTUAL":
            if not cfg.service_mesh.istio.client_certificate:
                err("serviceMesh.istio.clientCertificate", "Required value: required when tlsMode is MUTUAL")
            if not cfg.service_mesh.istio.private_key:
                err("serviceMesh.istio.privateKey", "Required value: required when tlsMode is MUTUAL")
    return out


def parse_operator_config(doc: dict[str, Any], prefix: str = "") -> tuple[OperatorConfiguration | None, list[Result]]:
    """Parse, default and validate an OperatorConfiguration document."""
    results: list[Result] = []
    if doc.get("apiVersion", consts.OPERATOR_CONFIG_API_VERSION) != consts.OPERATOR_CONFIG_API_VERSION:
        results.append(
            Result(
                f'unsupported apiVersion "{doc.get("apiVersion")}" (valid: {consts.OPERATOR_CONFIG_API_VERSION})',
                field=field_path(prefix, ("apiVersion",)),
            )
        )
        return None, results
    try:
        cfg = OperatorConfiguration.model_validate(doc)
    except ValidationError as err:
        for error in err.errors(include_url=False):
            results.append(Result(str(error["msg"]).lower(), field=field_path(prefix, tuple(error["loc"]))))
        return None, results
    results.extend(_unknown_fields(cfg, prefix))
    cfg = set_operator_defaults(cfg)
    results.extend(
        Result(r.message, severity=r.severity, field=field_path(prefix, (r.field,)) if prefix else r.field)
        for r in validate_operator_config(cfg)
    )
    if any(r.is_error for r in results):
        return None, results
    return cfg, results


def _unknown_fields(model: BaseModel, prefix: str) -> list[Result]:
    out: list[Result] = []
    for key in (model.model_extra or {}):
        out.append(Result(f'unknown field "{key}" (the operator ignores it)', severity=Severity.WARNING, field=field_path(prefix, (key,)), code=Code.UNKNOWN_FIELD))
    for name, info in type(model).model_fields.items():
        value = getattr(model, name)
        if isinstance(value, BaseModel):
            out.extend(_unknown_fields(value, field_path(prefix, (info.alias or name,))))
    return out


# ---------------------------------------------------------------------------------------------
# What the core takes from the plugin's settings


@dataclass(frozen=True)
class PluginChoices:
    """The plugin settings the core needs, as plain data (the schema is ``plugin.settings``).

    A gate left ``None`` is detected as the operator does: from the cluster API facts when
    known, else its default.
    """

    lws: bool | None = None
    grove: bool | None = None
    checkpoint: bool | None = None
    dra: bool | None = None
    # Stands in for the operator's detection of scheduling.run.ai when its config leaves KAI unset.
    kai_scheduler: bool | None = None
    # Cluster API group/versions when the settings name them (apiVersions), else None.
    api_versions: tuple[str, ...] | None = None
    companions: bool = True
    # The operator version that admits DGDs (stamped as nvidia.com/dynamo-operator-origin-version).
    operator_version: str = DEFAULT_OPERATOR_VERSION
    # "workloads" renders DGDs down to Deployments/LWS; "dcd" stops at the generated DCDs.
    emit: str = "workloads"
    # Emit DynamoGraphDeploymentScalingAdapter objects for components that ask for one.
    scaling_adapters: bool = False


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
    operator_version: str = DEFAULT_OPERATOR_VERSION
    # Cluster API group/versions when known (KUBE_API_VERSIONS), else None.
    api_versions: tuple[str, ...] | None = None
    emit: str = "workloads"
    scaling_adapters: bool = False
    # DRA (resource.k8s.io/v1): needed by GPU Memory Service; on unless known to be off.
    dra_enabled: bool = True


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
                    field="orchestrators.lws.enabled",
                ))
            elif not volcano_served:
                results.append(Result(
                    "LWS is explicitly enabled in config but the Volcano API group was not detected in the cluster",
                    field="orchestrators.lws.enabled",
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
                field="dra.enabled",
            )]
        return configured, []
    if plugin_setting is not None:
        return plugin_setting, []
    return served is not False, []


def build_render_config(
    operator: OperatorConfiguration | None,
    choices: PluginChoices | None = None,
    api_versions: list[str] | None = None,
    cluster_api_versions: list[str] | None = None,
) -> tuple[RenderConfig, list[Result]]:
    """Combine the operator config, plugin settings and cluster API facts into a RenderConfig.

    API versions: the front end's (``KUBE_API_VERSIONS``), else the settings' ``apiVersions``,
    else those of the cluster state (a cluster-state file, a live lookup).
    """
    settings = choices or PluginChoices()
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
                    field="checkpoint.enabled",
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
        operator_version=settings.operator_version,
        api_versions=tuple(versions) if versions is not None else None,
        emit=settings.emit,
        scaling_adapters=settings.scaling_adapters,
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
                field="orchestrators.kaiScheduler.enabled",
            ))
    elif plugin_kai is not None:
        kai = plugin_kai
    else:
        kai = api_versions is not None and _serves_group(api_versions, KAI_GROUP)
    volcano = bool(operator.orchestrators.volcano_scheduler.enabled)
    if volcano and api_versions is not None and not _serves_group(api_versions, VOLCANO_GROUP):
        results.append(Result(
            "Volcano scheduler integration is explicitly enabled in config but the Volcano API group was not detected in the cluster",
            field="orchestrators.volcanoScheduler.enabled",
        ))
    return kai, volcano, results


def _serves_group(api_versions: list[str], group: str) -> bool:
    """True when a KUBE_API_VERSIONS-style list (``group/version[/Kind]``) serves ``group``."""
    prefix = group + "/"
    return any(entry.strip().startswith(prefix) for entry in api_versions)
