"""Engine failover, intra-pod: the main container cloned into an active and a standby engine.

With ``experimental.failover`` in ``IntraPod`` mode (which needs intra-pod GMS), the pod's
first container becomes ``engine-0`` and ``engine-1``: each with its own system port (9090,
9091, named ``system-<i>``, HTTP probes retargeted to it), its own forward-pass metrics port,
the failover lock on the GMS control volume, and a not-ready start. vLLM is the only backend
the operator shapes further (shadow mode, staggered NIXL, KV-event and ``--master-port``);
any other backend is the operator's error. Inter-pod failover (shadow engine pods sharing a
GMS weight server) exists only on the Grove pathway.

Mirrors: internal/dynamo/failover.go IsIntraPodFailoverEnabled,
IntraPodFailoverEngineContainerNames, buildFailoverPod, buildEngineContainer;
internal/dynamo/failover_vllm.go applyVLLMOverrides, hasMasterPortFlag, staggerFlagValue;
inter-pod: failover.go gmsWeightServerPodSpec, augmentEngineForGMS, gmsEngineEnvVars,
gmsResourceClaimTemplateConfigs, gmsResourceSharingEntries, graph.go expandSingleNodeGMSRoles /
expandMultinodeGMSRoles (used by the Grove pathway).
"""

from __future__ import annotations

import copy
import re
from renderer.records import dataclass
from typing import Any

from renderer import consts
from renderer.pod.gms import SHARED_MOUNT_PATH
from renderer.results import RenderError

ENGINE_COUNT = 2
SYSTEM_PORT = 9090
FPM_BASE_PORT = 20380
LOCK_FILE = f"{SHARED_MOUNT_PATH}/failover.lock"
MASTER_PORT_FLAG = "--master-port"
MASTER_PORT_STRIDE = 100
_REPLACED_ENV = frozenset(
    (
        "DYN_SYSTEM_USE_ENDPOINT_HEALTH_STATUS",
        "DYN_SYSTEM_PORT",
        "DYN_SYSTEM_ENABLED",
        "DYN_HEALTH_CHECK_ENABLED",
        "CONTAINER_NAME",
        "DYN_FORWARDPASS_METRIC_PORT",
    )
)


def is_intra_pod(mode: str | None) -> bool:
    """Failover present with mode unset or IntraPod. Mirrors: failover.go IsIntraPodFailoverEnabled."""
    return mode in (None, "", "IntraPod")


def build_failover_pod(pod_spec: dict[str, Any], number_of_nodes: int, backend_framework: str) -> None:
    """Replace the first container with the two engines (sidecars kept), then backend overrides.

    Mirrors: internal/dynamo/failover.go buildFailoverPod
    """
    containers = pod_spec.get("containers") or []
    if not containers:
        raise RenderError(
            "failed to build failover pod: pod spec must have at least one container for failover transformation"
        )
    main, sidecars = containers[0], containers[1:]
    engines = [_engine_container(main, i, SYSTEM_PORT + i) for i in range(ENGINE_COUNT)]
    pod_spec["containers"] = [*engines, *sidecars]
    if backend_framework != consts.BACKEND_VLLM:
        raise RenderError(
            f"failed to build failover pod: failover is currently supported only for vLLM (detected: {backend_framework})",
            "spec.experimental.failover",
        )
    _apply_vllm_overrides(pod_spec, number_of_nodes)


def _engine_container(base: dict[str, Any], engine_id: int, system_port: int) -> dict[str, Any]:
    """Mirrors: internal/dynamo/failover.go buildEngineContainer"""
    engine = copy.deepcopy(base)
    engine["name"] = f"engine-{engine_id}"
    port_name = f"system-{engine_id}"
    engine["ports"] = [{"protocol": "TCP", "name": port_name, "containerPort": system_port}]
    env = [e for e in engine.get("env") or [] if e.get("name") not in _REPLACED_ENV]
    env += [
        {"name": "ENGINE_ID", "value": str(engine_id)},
        {"name": "CONTAINER_NAME", "value": engine["name"]},
        {"name": "FAILOVER_LOCK_PATH", "value": LOCK_FILE},
        {"name": "DYN_SYSTEM_STARTING_HEALTH_STATUS", "value": "notready"},
        {"name": "DYN_SYSTEM_PORT", "value": str(system_port)},
        {"name": "DYN_SYSTEM_ENABLED", "value": "true"},
        {"name": "DYN_FORWARDPASS_METRIC_PORT", "value": str(FPM_BASE_PORT + engine_id)},
    ]
    engine["env"] = env
    for probe in ("startupProbe", "livenessProbe", "readinessProbe"):
        http = (engine.get(probe) or {}).get("httpGet")
        if isinstance(http, dict):
            http["port"] = port_name
    return engine


def _apply_vllm_overrides(pod_spec: dict[str, Any], number_of_nodes: int) -> None:
    """Mirrors: internal/dynamo/failover_vllm.go applyVLLMOverrides"""
    for container in pod_spec["containers"]:
        name = str(container.get("name") or "")
        if not name.startswith("engine-"):
            continue
        engine_id = _atoi(name[len("engine-"):])
        env = container.setdefault("env", [])
        env += [
            {"name": "DYN_VLLM_GMS_SHADOW_MODE", "value": "true"},
            {"name": "VLLM_NIXL_SIDE_CHANNEL_PORT", "value": str(5600 + engine_id)},
            {"name": "DYN_VLLM_KV_EVENT_PORT", "value": str(20080 + engine_id)},
        ]
        if engine_id > 0:
            if _has_master_port_flag(container):
                _stagger_flag_value(container, MASTER_PORT_FLAG, engine_id * MASTER_PORT_STRIDE)
            else:
                container["args"] = [*(container.get("args") or []), MASTER_PORT_FLAG, str(29500 + engine_id * MASTER_PORT_STRIDE)]
        if number_of_nodes > 1:
            env.append({"name": "NNODES", "value": str(number_of_nodes)})


def _atoi(text: str) -> int:
    """Go strconv.Atoi with its error ignored (0)."""
    return int(text) if re.fullmatch(r"[+-]?[0-9]+", text) and len(text) < 19 else 0


def _has_master_port_flag(container: dict[str, Any]) -> bool:
    """Mirrors: internal/dynamo/failover_vllm.go hasMasterPortFlag"""
    flag = MASTER_PORT_FLAG
    if any(a == flag or f"{flag} " in a for a in container.get("args") or []):
        return True
    return any(f"{flag} " in c for c in container.get("command") or [])


def _leading_digits(text: str) -> str:
    match = re.match(r"[0-9]*", text)
    return match.group(0) if match else ""


def _stagger_flag_value(container: dict[str, Any], flag: str, offset: int) -> None:
    """Add ``offset`` to the first ``flag VALUE`` found: separate args, then inside args, then command.

    Mirrors: internal/dynamo/failover_vllm.go staggerFlagValue
    """
    args: list[str] = list(container.get("args") or [])
    for i, arg in enumerate(args):
        if arg == flag and i + 1 < len(args) and re.fullmatch(r"[+-]?[0-9]+", args[i + 1]):
            args[i + 1] = str(int(args[i + 1]) + offset)
            container["args"] = args
            return
    for key in ("args", "command"):
        items: list[str] = list(container.get(key) or [])
        for i, item in enumerate(items):
            if f"{flag} " not in item:
                continue
            digits = _leading_digits(item.split(f"{flag} ")[1])
            if digits:
                items[i] = item.replace(f"{flag} {digits}", f"{flag} {int(digits) + offset}", 1)
                container[key] = items
                return


# ---------------------------------------------------------------------------------------------
# Inter-pod GMS (Grove pathway): weight-server pods and engine pods sharing GPUs per rank.
# Mirrors: internal/dynamo/failover.go (inter-pod block) and graph.go expandRolesForComponent.

INTER_POD_VOLUME = "gms-shared"
INTER_POD_HOST_PATH = "/run/gms"
INTER_POD_MOUNT_PATH = "/run/gms/shared"
INTER_POD_LOCK_FILE = "failover.lock"
PERM_FIX_INIT_NAME = "fix-gms-perms"
ROLE_GMS = "gms"


@dataclass(frozen=True)
class ServiceRole:
    """One PodClique of a component. Mirrors: internal/dynamo/graph.go ServiceRole."""

    name: str
    role: str
    replicas: int
    rank: int = 0


def expand_gms_roles(component_name: str, number_of_nodes: int, total_engine_pods: int) -> list[ServiceRole]:
    """Per rank: a weight-server clique ``<c>-gms-<rank>`` then the engine clique (primary + shadows).

    Single node: the engine clique keeps the component name; multinode: ``<c>-ldr`` for rank 0
    and ``<c>-wkr-<rank>`` for the others.
    Mirrors: internal/dynamo/graph.go expandSingleNodeGMSRoles, expandMultinodeGMSRoles
    """
    if number_of_nodes <= 1:
        return [
            ServiceRole(f"{component_name}-gms-0", ROLE_GMS, 1, 0),
            ServiceRole(component_name, "main", total_engine_pods, 0),
        ]
    roles: list[ServiceRole] = []
    for rank in range(number_of_nodes):
        roles.append(ServiceRole(f"{component_name}-gms-{rank}", ROLE_GMS, 1, rank))
        if rank == 0:
            roles.append(ServiceRole(f"{component_name}-ldr", "leader", total_engine_pods, rank))
        else:
            roles.append(ServiceRole(f"{component_name}-wkr-{rank}", "worker", total_engine_pods, rank))
    return roles


def gms_wrapper_script() -> str:
    """Mirrors: internal/dynamo/failover.go gmsWrapperScript"""
    return (
        f"rm -f {INTER_POD_MOUNT_PATH}/gms_*.sock\n"
        "rc=1\n"
        'cleanup() { kill -- -$$ 2>/dev/null; exit "$rc"; }\n'
        "trap cleanup SIGTERM SIGINT\n"
        "python3 -m gpu_memory_service.cli.server &\n"
        'echo "Started GMS server pid=$!"\n'
        "wait -n\n"
        "rc=$?\n"
        'echo "GMS server exited (code=$rc), shutting down"\n'
        "cleanup"
    )


def gms_startup_probe_command(gpu_count: int) -> list[str]:
    """Two sockets (weights, kv_cache) per GPU. Mirrors: failover.go gmsStartupProbeCommand"""
    return ["sh", "-c", f"test $(ls {INTER_POD_MOUNT_PATH}/gms_*.sock 2>/dev/null | wc -l) -ge {2 * gpu_count}"]


def _shared_volume(rank: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """Mirrors: internal/dynamo/failover.go gmsSharedVolume"""
    volume = {"name": INTER_POD_VOLUME, "hostPath": {"path": INTER_POD_HOST_PATH, "type": "DirectoryOrCreate"}}
    mount = {
        "name": INTER_POD_VOLUME,
        "mountPath": INTER_POD_MOUNT_PATH,
        "subPathExpr": f"$(GROVE_PCSG_NAME)-$(GROVE_PCSG_INDEX)/rank-{rank}",
    }
    return volume, mount


def _perm_fix_init_container(rank: int, image: str) -> dict[str, Any]:
    """Mirrors: internal/dynamo/failover.go gmsPermFixInitContainer"""
    _, mount = _shared_volume(rank)
    out: dict[str, Any] = {"name": PERM_FIX_INIT_NAME}
    if image:
        out["image"] = image
    out["command"] = ["sh", "-c", f"chmod 1777 {INTER_POD_MOUNT_PATH}"]
    out["volumeMounts"] = [mount]
    out["securityContext"] = {"runAsUser": 0, "runAsNonRoot": False}
    return out


def _apply_shared_resources(pod_spec: dict[str, Any], container: dict[str, Any], rank: int) -> None:
    """Mirrors: internal/dynamo/failover.go applyGMSSharedResources"""
    from renderer.pod.gms import add_gpu_toleration, remove_gpu_resources

    resources = container.get("resources")
    if isinstance(resources, dict):
        remove_gpu_resources(resources)
    add_gpu_toleration(pod_spec)
    volume, mount = _shared_volume(rank)
    pod_spec["volumes"] = [*(pod_spec.get("volumes") or []), volume]
    container["volumeMounts"] = [*(container.get("volumeMounts") or []), mount]
    pod_spec["initContainers"] = [*(pod_spec.get("initContainers") or []), _perm_fix_init_container(rank, str(container.get("image") or ""))]


def weight_server_pod_spec(base: dict[str, Any], rank: int, gpu_count: int) -> dict[str, Any]:
    """The GMS weight-server pod of one rank, from the engine's base pod spec (a copy).

    Mirrors: internal/dynamo/failover.go gmsWeightServerPodSpec
    """
    pod_spec = copy.deepcopy(base)
    containers = pod_spec.get("containers") or []
    if not containers:
        return pod_spec
    container = containers[0]
    container["command"] = ["bash", "-c"]
    container["args"] = [gms_wrapper_script()]
    container["startupProbe"] = {
        "exec": {"command": gms_startup_probe_command(gpu_count)},
        "periodSeconds": 2,
        "timeoutSeconds": 2,
        "failureThreshold": 150,
    }
    container.pop("livenessProbe", None)
    container.pop("readinessProbe", None)
    container["env"] = [*(container.get("env") or []), {"name": "GMS_SOCKET_DIR", "value": INTER_POD_MOUNT_PATH}]
    _apply_shared_resources(pod_spec, container, rank)
    return pod_spec


def gms_engine_env() -> list[dict[str, Any]]:
    """Mirrors: internal/dynamo/failover.go gmsEngineEnvVars"""
    return [
        {"name": "ENGINE_ID", "valueFrom": {"fieldRef": {"fieldPath": "metadata.labels['grove.io/podclique-pod-index']"}}},
        {"name": "GMS_SOCKET_DIR", "value": INTER_POD_MOUNT_PATH},
        {"name": "FAILOVER_LOCK_PATH", "value": f"{INTER_POD_MOUNT_PATH}/{INTER_POD_LOCK_FILE}"},
        {"name": "DYN_SYSTEM_STARTING_HEALTH_STATUS", "value": "notready"},
    ]


def augment_engine_for_gms(pod_spec: dict[str, Any], rank: int, inter_pod_failover: bool) -> None:
    """Engine pod of the inter-pod layout (in place); failover engines never restart in place.

    Mirrors: internal/dynamo/failover.go augmentEngineForGMS
    """
    containers = pod_spec.get("containers") or []
    if not containers:
        return
    container = containers[0]
    env = [*(container.get("env") or []), *gms_engine_env()]
    container["env"] = [e for e in env if e.get("name") != "DYN_SYSTEM_USE_ENDPOINT_HEALTH_STATUS"]
    _apply_shared_resources(pod_spec, container, rank)
    if inter_pod_failover:
        pod_spec["restartPolicy"] = "Never"


def rct_name(service_name: str, rank: int) -> str:
    """Mirrors: internal/dynamo/failover.go gmsRCTName (NormalizeKubeResourceName of the service)."""
    from renderer.pod.naming import normalize_kube_resource_name

    return f"{normalize_kube_resource_name(service_name)}-gpu-rank-{rank}"


def resource_claim_template_configs(
    service_name: str, device_class: str, gpu_count: int, roles: list[ServiceRole]
) -> list[dict[str, Any]]:
    """One PodCliqueSet-level claim template per rank (request ``gpu``).

    Mirrors: internal/dynamo/failover.go gmsResourceClaimTemplateConfigs
    """
    out: list[dict[str, Any]] = []
    seen: set[int] = set()
    for role in roles:
        if role.rank in seen:
            continue
        seen.add(role.rank)
        out.append(
            {
                "name": rct_name(service_name, role.rank),
                "templateSpec": {
                    "metadata": {},
                    "spec": {
                        "devices": {
                            "requests": [
                                {
                                    "name": "gpu",
                                    "exactly": {
                                        "deviceClassName": device_class or "gpu.nvidia.com",
                                        "allocationMode": "ExactCount",
                                        "count": gpu_count,
                                    },
                                }
                            ]
                        }
                    }
                },
            }
        )
    return out


def resource_sharing_entries(service_name: str, roles: list[ServiceRole]) -> list[dict[str, Any]]:
    """Per rank, the claim shared PerReplica by that rank's weight-server and engine cliques only.

    Mirrors: internal/dynamo/failover.go gmsResourceSharingEntries
    """
    order: list[int] = []
    cliques: dict[int, list[str]] = {}
    for role in roles:
        if role.rank not in cliques:
            cliques[role.rank] = []
            order.append(role.rank)
        cliques[role.rank].append(role.name.lower())
    return [
        {"name": rct_name(service_name, rank), "scope": "PerReplica", "filter": {"childCliqueNames": cliques[rank]}}
        for rank in order
    ]
