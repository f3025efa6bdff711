"""What every backend receives, and the LWS multinode deployer.

Mirrors: internal/dynamo/graph.go Backend interface, internal/dynamo/lws.go.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from renderer.api import DynamoComponentDeploymentSpec


@dataclass(frozen=True)
class BackendContext:
    """The arguments the operator passes to UpdateContainer / UpdatePodSpec.

    ``gpu_count`` is lazy: it is only called when a backend needs the count, exactly as the
    operator resolves it at most once and only on demand.
    """

    number_of_nodes: int
    role: str
    spec: DynamoComponentDeploymentSpec
    annotations: dict[str, str]
    service_name: str
    parent_name: str
    mpi_ssh_secret_name: str
    compilation_cache_mount_path: str
    gpu_count: Callable[[], int]


class Backend(Protocol):
    """One backend's container and pod-spec shaping; both return new dicts."""

    def update_container(self, container: dict[str, Any], ctx: BackendContext) -> dict[str, Any]: ...

    def update_pod_spec(self, pod_spec: dict[str, Any], ctx: BackendContext) -> dict[str, Any]: ...


class LWSDeployer:
    """Host names and node rank under a LeaderWorkerSet.

    Why the odd host syntax: LWS injects LWS_LEADER_ADDRESS and LWS_WORKER_INDEX into every pod,
    and kubelet expands ``$(VAR)`` in command and args; worker i's address is the leader's
    with ``-i`` spliced in after its first label, which only a shell can compute.
    Mirrors: internal/dynamo/lws.go LWSMultinodeDeployer.
    """

    @staticmethod
    def leader_hostname(service_name: str) -> str:
        return "$(LWS_LEADER_ADDRESS)"

    @staticmethod
    def node_rank() -> tuple[str, bool]:
        return "$(LWS_WORKER_INDEX)", False

    @staticmethod
    def needs_dns_wait() -> bool:
        return True

    @staticmethod
    def host_names(service_name: str, number_of_nodes: int) -> list[str]:
        hosts = ["$(LWS_LEADER_ADDRESS)"]
        for i in range(1, number_of_nodes):
            hosts.append(f"$(echo \"$LWS_LEADER_ADDRESS\" | sed 's/\\./-{i}\\./')")
        return hosts


LWS = LWSDeployer()
