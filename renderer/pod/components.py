"""Base container and base pod spec per component type.

Every dict here is built fresh on each call, so callers may edit what they get back.

Mirrors: internal/dynamo/component_common.go, component_frontend.go, component_worker.go,
component_planner.go, component_epp.go, internal/dynamo/epp/{config.go,inference_pool.go}.
"""

from __future__ import annotations

from renderer.records import dataclass
from typing import Any

from renderer import consts
from renderer.admission.api import EPPConfig
from renderer.gocompat.runtimeversion import Version
from renderer.pod.runtime_gates import INCREASED_WORKER_FAILURE_THRESHOLD
from renderer.releases import REFERENCE_RELEASE, Delta, Release

EPP_CONFIG_KEY = "epp-config-dynamo.yaml"
EPP_CONFIG_VOLUME = "epp-config"
EPP_CONFIG_MOUNT_PATH = "/etc/epp"
INFERENCE_POOL_GROUP = "inference.networking.k8s.io"

WORKER_LIVENESS_TOLERANCE = Delta(
    "#13512",
    "1.5.0",
    "worker liveness failureThreshold 1 -> 3 for Dynamo runtime 1.5.0 and later (gate IncreasedWorkerFailureThreshold)",
)
# A worker's liveness probe fails the pod after this many failed checks: the reference value,
# and the value of a release with WORKER_LIVENESS_TOLERANCE for a runtime that meets its gate.
WORKER_LIVENESS_FAILURE_THRESHOLD = 1
TOLERANT_WORKER_LIVENESS_FAILURE_THRESHOLD = 3


@dataclass(frozen=True)
class ComponentContext:
    """What the component defaults depend on.

    Mirrors: internal/dynamo/component_common.go ComponentContext.
    """

    component_type: str
    dynamo_namespace: str
    parent_name: str
    parent_namespace: str
    discovery_backend: str
    discovery_mode: str
    epp_config: EPPConfig | None = None
    worker_hash_suffix: str = ""
    # The resolved Dynamo runtime version (None when unknown) and the operator release rendered:
    # together they decide the runtime-gated defaults (renderer.pod.runtime_gates).
    runtime_version: Version | None = None
    release: Release = REFERENCE_RELEASE


def _env(name: str, value: str) -> dict[str, Any]:
    # EnvVar.value is omitempty in Go: an empty value is not serialised.
    return {"name": name, "value": value} if value else {"name": name}


def _field_env(name: str, field_path: str) -> dict[str, Any]:
    return {"name": name, "valueFrom": {"fieldRef": {"fieldPath": field_path}}}


def _port(name: str, port: int) -> dict[str, Any]:
    return {"name": name, "containerPort": port, "protocol": "TCP"}


def _http_probe(path: str, port: str, **timing: int) -> dict[str, Any]:
    return {"httpGet": {"path": path, "port": port}, **timing}


def _grpc_probe(**timing: int) -> dict[str, Any]:
    return {"grpc": {"port": consts.EPP_GRPC_HEALTH_PORT, "service": "inference-extension"}, **timing}


def common_container(ctx: ComponentContext) -> dict[str, Any]:
    """Mirrors: internal/dynamo/component_common.go BaseComponentDefaults.getCommonContainer."""
    env = [
        _env(consts.ENV_DYN_NAMESPACE, ctx.dynamo_namespace),
        _env(consts.ENV_DYN_COMPONENT, ctx.component_type),
        _env("DYN_PARENT_DGD_K8S_NAME", ctx.parent_name),
        _env("DYN_PARENT_DGD_K8S_NAMESPACE", ctx.parent_namespace),
        _field_env("POD_NAME", "metadata.name"),
        _field_env("POD_NAMESPACE", "metadata.namespace"),
        _field_env("POD_UID", "metadata.uid"),
    ]
    # Anything but an explicit "etcd" (an empty or unknown value too) means Kubernetes discovery.
    if ctx.discovery_backend != consts.DISCOVERY_BACKEND_ETCD:
        env.append(_env(consts.ENV_DYN_DISCOVERY_BACKEND, consts.DISCOVERY_BACKEND_KUBERNETES))
    if ctx.discovery_mode == consts.KUBE_DISCOVERY_MODE_CONTAINER:
        env.append(_env("CONTAINER_NAME", consts.MAIN_CONTAINER_NAME))
        env.append(_env("DYN_KUBE_DISCOVERY_MODE", consts.KUBE_DISCOVERY_MODE_CONTAINER))
    return {"name": consts.MAIN_CONTAINER_NAME, "command": ["/bin/sh", "-c"], "env": env}


def frontend_container(ctx: ComponentContext) -> dict[str, Any]:
    """Mirrors: internal/dynamo/component_frontend.go FrontendDefaults.GetBaseContainer."""
    container = common_container(ctx)
    container["command"] = ["python3"]
    container["args"] = ["-m", "dynamo.frontend"]
    container["ports"] = [_port(consts.DYNAMO_CONTAINER_PORT_NAME, consts.DYNAMO_SERVICE_PORT)]
    container["livenessProbe"] = _http_probe(
        "/live", consts.DYNAMO_CONTAINER_PORT_NAME, initialDelaySeconds=15, periodSeconds=10, timeoutSeconds=1, failureThreshold=3
    )
    container["readinessProbe"] = _http_probe(
        "/health", consts.DYNAMO_CONTAINER_PORT_NAME, initialDelaySeconds=10, periodSeconds=10, timeoutSeconds=3, failureThreshold=3
    )
    container["env"] += [
        _env(consts.ENV_DYNAMO_PORT, str(consts.DYNAMO_SERVICE_PORT)),
        _env("DYN_HTTP_PORT", str(consts.DYNAMO_SERVICE_PORT)),
        _env(consts.ENV_DYN_NAMESPACE_PREFIX, ctx.dynamo_namespace),
    ]
    return container


def _system_port_container(
    ctx: ComponentContext,
    ports: list[dict[str, Any]],
    env: list[dict[str, Any]],
    liveness_failure_threshold: int = WORKER_LIVENESS_FAILURE_THRESHOLD,
) -> dict[str, Any]:
    """The common container with ``ports``, the three system-port probes and ``env`` appended.

    Workers and the planner share this shape and the same probes; only the worker's liveness
    threshold can differ (``worker_liveness_failure_threshold``).
    Mirrors: internal/dynamo/component_worker.go and component_planner.go GetBaseContainer.
    """
    container = common_container(ctx)
    container["ports"] = ports
    container["livenessProbe"] = _http_probe(
        "/live", consts.DYNAMO_SYSTEM_PORT_NAME, periodSeconds=5, timeoutSeconds=4, failureThreshold=liveness_failure_threshold
    )
    container["readinessProbe"] = _http_probe(
        "/health", consts.DYNAMO_SYSTEM_PORT_NAME, periodSeconds=10, timeoutSeconds=4, failureThreshold=3
    )
    container["startupProbe"] = _http_probe(
        "/live", consts.DYNAMO_SYSTEM_PORT_NAME, periodSeconds=10, timeoutSeconds=5, failureThreshold=720
    )
    container["env"] += env
    return container


def worker_liveness_failure_threshold(ctx: ComponentContext) -> int:
    """How many failed liveness checks restart a worker: 1, or 3 from runtime 1.5.0 under 1.5.0+.

    Operator 1.5.0 lets a worker of runtime 1.5.0 or later survive two failed liveness checks
    in a row; a worker of an older runtime, or of an unknown one (a custom image without a
    version tag and no runtimeVersionOverride), keeps the single-failure default, so an
    operator upgrade alone changes no existing worker. A livenessProbe the user sets on the
    main container replaces this default whole (graph.go mergeContainerByName).

    Mirrors: ai-dynamo/dynamo#13512 (release 1.5.0, cherry-picked as #14490):
    internal/dynamo/component_worker.go WorkerDefaults.GetBaseContainer over the
    IncreasedWorkerFailureThreshold runtime gate (internal/features/runtime/gates.go).
    """
    if ctx.release.ships(WORKER_LIVENESS_TOLERANCE) and INCREASED_WORKER_FAILURE_THRESHOLD.enabled(ctx.runtime_version):
        return TOLERANT_WORKER_LIVENESS_FAILURE_THRESHOLD
    return WORKER_LIVENESS_FAILURE_THRESHOLD


def worker_container(ctx: ComponentContext) -> dict[str, Any]:
    """Mirrors: internal/dynamo/component_worker.go WorkerDefaults.GetBaseContainer."""
    env = [
        _env("DYN_SYSTEM_ENABLED", "true"),
        _env("DYN_SYSTEM_USE_ENDPOINT_HEALTH_STATUS", '["generate"]'),
        _env("DYN_SYSTEM_PORT", str(consts.DYNAMO_SYSTEM_PORT)),
        _env("DYN_HEALTH_CHECK_ENABLED", "false"),
        _env("NIXL_TELEMETRY_ENABLE", "n"),
        _env("NIXL_TELEMETRY_EXPORTER", "prometheus"),
        _env("NIXL_TELEMETRY_PROMETHEUS_PORT", str(consts.DYNAMO_NIXL_PORT)),
        _env("DYN_FORWARDPASS_METRIC_PORT", str(consts.DYNAMO_FPM_BASE_PORT)),
    ]
    if ctx.worker_hash_suffix:
        env.append(_env(consts.ENV_DYN_NAMESPACE_WORKER_SUFFIX, ctx.worker_hash_suffix))
    system = _port(consts.DYNAMO_SYSTEM_PORT_NAME, consts.DYNAMO_SYSTEM_PORT)
    ports = [system, _port(consts.DYNAMO_NIXL_PORT_NAME, consts.DYNAMO_NIXL_PORT)]
    return _system_port_container(ctx, ports, env, worker_liveness_failure_threshold(ctx))


def planner_container(ctx: ComponentContext) -> dict[str, Any]:
    """Mirrors: internal/dynamo/component_planner.go PlannerDefaults.GetBaseContainer."""
    metrics = _port(consts.DYNAMO_METRICS_PORT_NAME, consts.DYNAMO_PLANNER_METRICS_PORT)
    env = [
        _env("PLANNER_PROMETHEUS_PORT", str(consts.DYNAMO_PLANNER_METRICS_PORT)),
        _env("DYN_SYSTEM_PORT", str(consts.DYNAMO_SYSTEM_PORT)),
    ]
    return _system_port_container(ctx, [metrics, _port(consts.DYNAMO_SYSTEM_PORT_NAME, consts.DYNAMO_SYSTEM_PORT)], env)


def epp_config_volume(parent_name: str, epp_config: EPPConfig | None) -> tuple[dict[str, Any], dict[str, Any]]:
    """The EPP config volume and its mount: the user's ConfigMap, else ``<parent>-epp-config``.

    Mirrors: internal/dynamo/epp/config.go GetConfigMapVolumeMount.
    """
    name = f"{parent_name}-epp-config"
    key = EPP_CONFIG_KEY
    if epp_config is not None and epp_config.config_map_ref is not None:
        name = epp_config.config_map_ref.name
        key = epp_config.config_map_ref.key or EPP_CONFIG_KEY
    config_map: dict[str, Any] = {"items": [{"key": key, "path": EPP_CONFIG_KEY}]}
    if name:
        config_map = {"name": name, **config_map}
    volume = {"name": EPP_CONFIG_VOLUME, "configMap": config_map}
    mount = {"name": EPP_CONFIG_VOLUME, "mountPath": EPP_CONFIG_MOUNT_PATH, "readOnly": True}
    return volume, mount


def epp_container(ctx: ComponentContext) -> dict[str, Any]:
    """Mirrors: internal/dynamo/component_epp.go EPPDefaults.GetBaseContainer."""
    container = common_container(ctx)
    container["ports"] = [
        _port(consts.EPP_GRPC_PORT_NAME, consts.EPP_GRPC_PORT),
        _port("grpc-health", consts.EPP_GRPC_HEALTH_PORT),
        _port(consts.DYNAMO_METRICS_PORT_NAME, 9090),
    ]
    container["livenessProbe"] = _grpc_probe(initialDelaySeconds=5, periodSeconds=10)
    container["readinessProbe"] = _grpc_probe(initialDelaySeconds=5, periodSeconds=10)
    container["startupProbe"] = _grpc_probe(periodSeconds=10, failureThreshold=180)
    container["env"] += [
        _env("USE_STREAMING", "true"),
        _env("RUST_LOG", "info"),
        _env("DYN_ENFORCE_DISAGG", "false"),
        _env(consts.ENV_DYN_NAMESPACE_PREFIX, ctx.dynamo_namespace),
    ]
    # An empty command means the image entrypoint; Go omits the empty list.
    container.pop("command")
    container["args"] = [
        "--pool-name", f"{ctx.parent_name}-pool",
        "--pool-namespace", ctx.parent_namespace,
        "--pool-group", INFERENCE_POOL_GROUP,
        "-v", "4",
        "--zap-encoder", "json",
        "--grpc-port", str(consts.EPP_GRPC_PORT),
        "--grpc-health-port", str(consts.EPP_GRPC_HEALTH_PORT),
        "--config-file", f"{EPP_CONFIG_MOUNT_PATH}/{EPP_CONFIG_KEY}",
    ]  # fmt: skip
    _, mount = epp_config_volume(ctx.parent_name, ctx.epp_config)
    container["volumeMounts"] = [mount, {"name": "hf-cache", "mountPath": "/home/nonroot/.cache"}]
    return container


def base_container(ctx: ComponentContext) -> dict[str, Any]:
    """Pick the defaults by component type; unknown or empty types get the common container.

    Mirrors: internal/dynamo/component_common.go ComponentDefaultsFactory.
    """
    builder = {
        consts.COMPONENT_TYPE_FRONTEND: frontend_container,
        consts.COMPONENT_TYPE_WORKER: worker_container,
        consts.COMPONENT_TYPE_PREFILL: worker_container,
        consts.COMPONENT_TYPE_DECODE: worker_container,
        consts.COMPONENT_TYPE_PLANNER: planner_container,
        consts.COMPONENT_TYPE_EPP: epp_container,
    }.get(ctx.component_type, common_container)
    return builder(ctx)


def base_pod_spec(ctx: ComponentContext) -> dict[str, Any]:
    """Mirrors: component_*.go GetBasePodSpec (common, planner, epp)."""
    spec: dict[str, Any] = {"terminationGracePeriodSeconds": 60, "restartPolicy": "Always"}
    if ctx.component_type == consts.COMPONENT_TYPE_PLANNER:
        spec["serviceAccountName"] = consts.PLANNER_SERVICE_ACCOUNT_NAME
    elif ctx.component_type == consts.COMPONENT_TYPE_EPP:
        spec["serviceAccountName"] = consts.EPP_SERVICE_ACCOUNT_NAME
        spec["terminationGracePeriodSeconds"] = 130
        volume, _ = epp_config_volume(ctx.parent_name, ctx.epp_config)
        spec["volumes"] = [volume, {"name": "hf-cache", "emptyDir": {}}]
    return spec
