"""The operator's own configuration document, with the operator's defaults and validation.

``OperatorConfiguration`` is the operator's document (``operator.config.dynamo.nvidia.com/v1alpha1``);
we apply the operator's defaults and validation to it so a user can reuse the config their
operator runs with. When no document is given at all, we use what the operator's Helm chart
renders with its default values (``helm_default_operator_config``).

Mirrors: api/config/v1alpha1/{types.go,defaults.go}, api/config/validation/validation.go,
deploy/helm/charts/platform/components/operator/templates/operator-config.yaml.
"""

from __future__ import annotations

from typing import Any

from renderer.model import BaseModel, ConfigDict, Field, ValidationError

from renderer import consts
from renderer.records import replace
from renderer.releases import REFERENCE_RELEASE, Delta, Release
from renderer.results import Code, Result, Severity, field_path, go_quote

# The operator release at the reference commit (deploy/helm/charts/platform Chart appVersion).
DEFAULT_OPERATOR_VERSION = "1.5.0"


def _camel(name: str) -> str:
    """The JSON name of a Go field: ``nats_address`` -> ``natsAddress``."""
    first, *rest = name.split("_")
    return first + "".join(part[:1].upper() + part[1:] for part in rest)


class _Loose(BaseModel):
    """Operator config models: unknown keys are kept so they can be reported as warnings.

    The operator decodes its config with a non-strict decoder, so unknown keys are ignored
    there; in Git they are usually typos, so we warn.
    """

    # Validators are built on first use, not at import (start-up time of the CLI).
    model_config = ConfigDict(strict=True, extra="allow", populate_by_name=True, alias_generator=_camel, defer_build=True)


class ServerSettings(_Loose):
    bind_address: str = ""
    port: int = 0


class MetricsServer(ServerSettings):
    secure: bool | None = None


class WebhookServer(ServerSettings):
    host: str = ""
    cert_dir: str = ""
    cert_provision_mode: str = ""
    secret_name: str = ""
    service_name: str = ""


class ServerConfiguration(_Loose):
    metrics: MetricsServer = Field(default_factory=MetricsServer)
    health_probe: ServerSettings = Field(default_factory=ServerSettings)
    webhook: WebhookServer = Field(default_factory=WebhookServer)


class LeaderElection(_Loose):
    enabled: bool = False
    id: str = ""
    namespace: str = ""


class NamespaceScope(_Loose):
    lease_duration: str = ""
    lease_renew_interval: str = ""


class NamespaceConfiguration(_Loose):
    restricted: str = ""
    scope: NamespaceScope = Field(default_factory=NamespaceScope)


class Toggle(_Loose):
    enabled: bool | None = None


class GroveConfiguration(Toggle):
    termination_delay: str = ""


class Orchestrators(_Loose):
    grove: GroveConfiguration = Field(default_factory=GroveConfiguration)
    lws: Toggle = Field(default_factory=Toggle)
    kai_scheduler: Toggle = Field(default_factory=Toggle)
    volcano_scheduler: Toggle = Field(default_factory=Toggle)


TRANSPORT_TLS = Delta(
    "#13689",
    "1.5.0",
    "TLS certificate paths in InfrastructureConfiguration, injected as NATS_TLS_* / DYN_TCP_TLS_* env into every DGD pod",
)

# The InfrastructureConfiguration TLS fields operator 1.5.0 added, as (field, JSON name, env
# var it injects), in the order the operator injects them (ai-dynamo/dynamo#13689).
TRANSPORT_TLS_FIELDS: tuple[tuple[str, str, str], ...] = (
    ("nats_tls_ca_path", "natsTLSCAPath", "NATS_TLS_CA_CERT_PATH"),
    ("nats_tls_client_cert_path", "natsTLSClientCertPath", "NATS_TLS_CLIENT_CERT_PATH"),
    ("nats_tls_client_key_path", "natsTLSClientKeyPath", "NATS_TLS_CLIENT_KEY_PATH"),
    ("tcp_tls_cert_path", "tcpTLSCertPath", "DYN_TCP_TLS_CERT_PATH"),
    ("tcp_tls_key_path", "tcpTLSKeyPath", "DYN_TCP_TLS_KEY_PATH"),
    ("tcp_tls_ca_path", "tcpTLSCAPath", "DYN_TCP_TLS_CA_CERT_PATH"),
    ("tcp_tls_client_cert_path", "tcpTLSClientCertPath", "DYN_TCP_TLS_CLIENT_CERT_PATH"),
    ("tcp_tls_client_key_path", "tcpTLSClientKeyPath", "DYN_TCP_TLS_CLIENT_KEY_PATH"),
    ("tcp_tls_client_ca_path", "tcpTLSClientCAPath", "DYN_TCP_TLS_CLIENT_CA_CERT_PATH"),
    ("tcp_tls_server_name", "tcpTLSServerName", "DYN_TCP_TLS_SERVER_NAME"),
)


class Infrastructure(_Loose):
    nats_address: str = ""
    etcd_address: str = ""
    model_express_url: str = Field(default="", alias="modelExpressURL")
    prometheus_endpoint: str = ""
    # Operator 1.5.0 (TRANSPORT_TLS): refused by name under a profile without it; None when unset.
    nats_tls_ca_path: str | None = Field(default=None, alias="natsTLSCAPath")
    nats_tls_client_cert_path: str | None = Field(default=None, alias="natsTLSClientCertPath")
    nats_tls_client_key_path: str | None = Field(default=None, alias="natsTLSClientKeyPath")
    tcp_tls_cert_path: str | None = Field(default=None, alias="tcpTLSCertPath")
    tcp_tls_key_path: str | None = Field(default=None, alias="tcpTLSKeyPath")
    tcp_tls_ca_path: str | None = Field(default=None, alias="tcpTLSCAPath")
    tcp_tls_client_cert_path: str | None = Field(default=None, alias="tcpTLSClientCertPath")
    tcp_tls_client_key_path: str | None = Field(default=None, alias="tcpTLSClientKeyPath")
    tcp_tls_client_ca_path: str | None = Field(default=None, alias="tcpTLSClientCAPath")
    tcp_tls_server_name: str | None = Field(default=None, alias="tcpTLSServerName")


class IngressConfiguration(_Loose):
    virtual_service_gateway: str = ""
    controller_class_name: str = ""
    controller_tls_secret_name: str = Field(default="", alias="controllerTLSSecretName")
    host_suffix: str = ""


class IstioMesh(_Loose):
    tls_mode: str = ""
    insecure_skip_verify: bool | None = None
    client_certificate: str = ""
    private_key: str = ""
    ca_certificates: str = ""


class ServiceMesh(_Loose):
    enabled: bool | None = None
    provider: str = ""
    istio: IstioMesh | None = None


class RBACConfiguration(_Loose):
    planner_cluster_role_name: str = ""
    dgdr_profiling_cluster_role_name: str = ""
    epp_cluster_role_name: str = ""


class MPIConfiguration(_Loose):
    ssh_secret_name: str = ""
    ssh_secret_namespace: str = ""


class CheckpointSeccomp(_Loose):
    disabled: bool = False
    profile: str = ""


class CheckpointPVC(_Loose):
    pvc_name: str = ""
    base_path: str = ""
    create: bool = False
    size: str = ""
    storage_class_name: str = ""
    access_mode: str = ""


class CheckpointURIConfig(_Loose):
    uri: str = ""
    credentials_secret_ref: str = ""


class CheckpointStorage(_Loose):
    type: str = ""
    pvc: CheckpointPVC = Field(default_factory=CheckpointPVC)
    s3: CheckpointURIConfig = Field(default_factory=CheckpointURIConfig)
    oci: CheckpointURIConfig = Field(default_factory=CheckpointURIConfig)


class CheckpointConfiguration(_Loose):
    enabled: bool = False
    seccomp: CheckpointSeccomp | None = None
    storage: CheckpointStorage = Field(default_factory=CheckpointStorage)
    cleanup_image: str = ""


class DiscoveryConfiguration(_Loose):
    backend: str = ""


class GPUConfiguration(_Loose):
    discovery_enabled: bool | None = None


class LoggingConfiguration(_Loose):
    level: str = ""
    format: str = ""


class SecurityConfiguration(_Loose):
    enable_http2: bool = Field(default=False, alias="enableHTTP2")


class OperatorConfiguration(_Loose):
    """The operator's configuration document (defaults not yet applied)."""

    api_version: str = consts.OPERATOR_CONFIG_API_VERSION
    kind: str = consts.OPERATOR_CONFIG_KIND
    server: ServerConfiguration = Field(default_factory=ServerConfiguration)
    leader_election: LeaderElection = Field(default_factory=LeaderElection)
    namespace: NamespaceConfiguration = Field(default_factory=NamespaceConfiguration)
    orchestrators: Orchestrators = Field(default_factory=Orchestrators)
    dra: Toggle = Field(default_factory=Toggle)
    infrastructure: Infrastructure = Field(default_factory=Infrastructure)
    ingress: IngressConfiguration = Field(default_factory=IngressConfiguration)
    service_mesh: ServiceMesh = Field(default_factory=ServiceMesh)
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


def helm_default_operator_document(release_namespace: str = "dynamo-system") -> dict[str, Any]:
    """The OperatorConfiguration document the operator Helm chart renders with its default values.

    The chart leaves NATS/etcd unset (neither is installed by default), keeps discovery on
    ``kubernetes``, sets the MPI SSH secret to ``mpi-run-ssh-secret`` and, in cluster-wide mode,
    names the planner/DGDR/EPP ClusterRoles after the release (``dynamo-platform`` assumed).
    This is also the file ``dynamo-render operator-config --defaults`` prints for a user to edit.
    Mirrors: deploy/helm/charts/platform/components/operator/templates/operator-config.yaml.
    """
    fullname = "dynamo-platform-dynamo-operator"
    return {
        "apiVersion": consts.OPERATOR_CONFIG_API_VERSION,
        "kind": consts.OPERATOR_CONFIG_KIND,
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


def helm_default_operator_config(release_namespace: str = "dynamo-system") -> OperatorConfiguration:
    """What the operator Helm chart renders with its default values, defaults applied (``helm_default_operator_document``)."""
    document = helm_default_operator_document(release_namespace)
    body = {key: value for key, value in document.items() if key not in ("apiVersion", "kind")}
    return set_operator_defaults(OperatorConfiguration.model_validate(body))


# The fields the operator requires that its Helm chart always sets: a document written from
# scratch with only the fields a user means to change misses them. The hint names the file to start from.
CHART_SET_REQUIRED = (
    "mpi.sshSecretName", "mpi.sshSecretNamespace",
    "rbac.plannerClusterRoleName", "rbac.dgdrProfilingClusterRoleName", "rbac.eppClusterRoleName",
)
CHART_DEFAULTS_HINT = (
    "the operator's Helm chart always sets this field; start from the chart's document, "
    "`dynamo-render operator-config --defaults > operator-config.yaml`, and change only what you mean to"
)


def validate_operator_config(cfg: OperatorConfiguration, release: Release = REFERENCE_RELEASE) -> list[Result]:
    """The operator's startup validation of its (defaulted) configuration.

    Mirrors: api/config/validation/validation.go ValidateOperatorConfiguration.
    """
    out: list[Result] = []

    def err(path: str, message: str) -> None:
        hint = CHART_DEFAULTS_HINT if path in CHART_SET_REQUIRED else ""
        out.append(Result(message, field=path, code=Code.CONFIG, hint=hint))

    if release.ships(TRANSPORT_TLS):
        for path, message in validate_transport_tls(cfg.infrastructure):
            err(path, message)

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


def validate_transport_tls(infra: Infrastructure) -> list[tuple[str, str]]:
    """Operator 1.5.0's startup rules on the TLS paths: each client identity is a cert and key pair.

    A client certificate without its key, or a key without its certificate, stops the operator
    at start-up, for the TCP and the NATS transport alike. Only the pair rules are ported: the
    PR's diff shows them; the rest of the dependency chain the release notes mention is open
    (docs/operator-releases.md).

    Mirrors: ai-dynamo/dynamo#13689 (release 1.5.0): api/config/validation/validation.go
    validateInfrastructure (the "must be set together" rules).
    """
    out: list[tuple[str, str]] = []
    for cert, key, cert_name, key_name in (
        (infra.tcp_tls_client_cert_path, infra.tcp_tls_client_key_path, "tcpTLSClientCertPath", "tcpTLSClientKeyPath"),
        (infra.nats_tls_client_cert_path, infra.nats_tls_client_key_path, "natsTLSClientCertPath", "natsTLSClientKeyPath"),
    ):
        if bool(cert) != bool(key):
            out.append((
                f"infrastructure.{cert_name}",
                f"Invalid value: {go_quote(cert or '')}: {cert_name} and {key_name} must be set together",
            ))
    return out


def refuse_transport_tls(doc: dict[str, Any], prefix: str, release: Release) -> list[Result]:
    """The TLS path fields under a profile without them: refused, naming the release that added them.

    Ported from ai-dynamo/dynamo#13689 (release 1.5.0): InfrastructureConfiguration has no TLS
    fields before it, so the operator would ignore them and inject nothing.
    """
    if release.ships(TRANSPORT_TLS):
        return []
    infra = doc.get("infrastructure")
    if not isinstance(infra, dict):
        return []
    return [
        Result(
            f"not in operator {release.name}; added in {TRANSPORT_TLS.release} "
            f"(ai-dynamo/dynamo{TRANSPORT_TLS.change}: TLS certificate paths injected into every pod)",
            field=field_path(prefix, ("infrastructure", name)),
            code=Code.UNKNOWN_FIELD,
        )
        for _, name, _ in TRANSPORT_TLS_FIELDS
        if name in infra
    ]


def parse_operator_config(
    doc: dict[str, Any], prefix: str = "", release: Release = REFERENCE_RELEASE
) -> tuple[OperatorConfiguration | None, list[Result]]:
    """Parse, default and validate an OperatorConfiguration document.

    ``release`` is the operator release rendered: fields a later release added are refused
    naming it.
    """
    results: list[Result] = []
    if doc.get("apiVersion", consts.OPERATOR_CONFIG_API_VERSION) != consts.OPERATOR_CONFIG_API_VERSION:
        results.append(
            Result(
                f'unsupported apiVersion "{doc.get("apiVersion")}" (valid: {consts.OPERATOR_CONFIG_API_VERSION})',
                field=field_path(prefix, ("apiVersion",)), code=Code.CONFIG,
            )
        )
        return None, results
    try:
        cfg = OperatorConfiguration.model_validate(doc)
    except ValidationError as err:
        for error in err.errors(include_url=False):
            results.append(Result(str(error["msg"]).lower(), field=field_path(prefix, tuple(error["loc"])), code=Code.CONFIG))
        return None, results
    results.extend(_unknown_fields(cfg, prefix))
    results.extend(refuse_transport_tls(doc, prefix, release))
    cfg = set_operator_defaults(cfg)
    results.extend(
        replace(r, field=field_path(prefix, (r.field,)) if prefix else r.field)
        for r in validate_operator_config(cfg, release)
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
