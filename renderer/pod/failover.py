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
internal/dynamo/failover_vllm.go applyVLLMOverrides, hasMasterPortFlag, staggerFlagValue.
"""

from __future__ import annotations

import copy
import re
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


def engine_container_names() -> list[str]:
    """Mirrors: internal/dynamo/failover.go IntraPodFailoverEngineContainerNames."""
    return [f"engine-{i}" for i in range(ENGINE_COUNT)]


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
