"""What every backend receives, and the multinode deployers (LeaderWorkerSet and Grove).

Mirrors: internal/dynamo/graph.go Backend and MultinodeDeployer interfaces, internal/dynamo/lws.go,
internal/dynamo/grove.go GroveMultinodeDeployer.
"""

from __future__ import annotations

from collections.abc import Callable
from renderer.gocompat.merge import copy_json
from renderer.records import dataclass
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

if TYPE_CHECKING:  # renderer.admission.api imports this package's flag helpers at run time
    from renderer.admission.api import DynamoComponentDeploymentSpec


class Deployer(Protocol):
    """How the pods of one multinode group find each other.

    Mirrors: internal/dynamo/graph.go MultinodeDeployer.
    """

    def leader_hostname(self, service_name: str) -> str: ...

    def node_rank(self) -> tuple[str, bool]: ...

    def needs_dns_wait(self) -> bool: ...

    def host_names(self, service_name: str, number_of_nodes: int) -> list[str]: ...


class LWSDeployer:
    """Host names and node rank under a LeaderWorkerSet.

    Why the odd host syntax: LWS injects LWS_LEADER_ADDRESS and LWS_WORKER_INDEX into every pod,
    and kubelet expands ``$(VAR)`` in command and args, so the leader address and the rank
    need no shell. LWS has no variable for the other pods' addresses: worker i's address is
    the leader's with ``-i`` spliced in before its first dot, which only a shell can
    compute, so those host names are ``$(echo ... | sed ...)`` command substitutions and
    are only valid inside a shell (the TRT-LLM mpirun launch is the one consumer).
    Mirrors: internal/dynamo/lws.go LWSMultinodeDeployer.
    """

    def leader_hostname(self, service_name: str) -> str:
        return "$(LWS_LEADER_ADDRESS)"

    def node_rank(self) -> tuple[str, bool]:
        return "$(LWS_WORKER_INDEX)", False

    def needs_dns_wait(self) -> bool:
        return True

    def host_names(self, service_name: str, number_of_nodes: int) -> list[str]:
        hosts = [self.leader_hostname(service_name)]
        for i in range(1, number_of_nodes):
            hosts.append(f"$(echo \"$LWS_LEADER_ADDRESS\" | sed 's/\\./-{i}\\./')")
        return hosts


LWS = LWSDeployer()

GROVE_ROLE_SUFFIX_LEADER = "ldr"
GROVE_ROLE_SUFFIX_WORKER = "wkr"
GROVE_ROLE_SUFFIX_GMS = "gms"


@dataclass(frozen=True)
class GroveDeployer:
    """Host names and node rank inside a Grove PodCliqueScalingGroup.

    Grove injects ``GROVE_PCSG_NAME``, ``GROVE_PCSG_INDEX``, ``GROVE_PCLQ_POD_INDEX`` and
    ``GROVE_HEADLESS_SERVICE`` into every pod, and each pod of a clique is reachable as
    ``<pcsg>-<index>-<clique>-<pod index>.<headless service>``. The leader clique holds one pod
    (``<component>-ldr``), the worker clique the other ``nodes - 1`` pods (``<component>-wkr``),
    so a worker's node rank is its pod index plus one: shell arithmetic, hence the shell flag.

    The inter-pod GPU Memory Service layout (``inter_pod_gms``) has one engine clique per rank
    whose pods at the same index form one group; its leader address uses the pod's own index and
    its rank is the clique's fixed ``rank``. That layout is rendered by the GMS pathway.
    Mirrors: internal/dynamo/grove.go GroveMultinodeDeployer.
    """

    inter_pod_gms: bool = False
    rank: int = 0

    def leader_hostname(self, service_name: str) -> str:
        index = "$(GROVE_PCLQ_POD_INDEX)" if self.inter_pod_gms else "0"
        return (
            f"$(GROVE_PCSG_NAME)-$(GROVE_PCSG_INDEX)-{service_name.lower()}-{GROVE_ROLE_SUFFIX_LEADER}-{index}"
            ".$(GROVE_HEADLESS_SERVICE)"
        )

    def node_rank(self) -> tuple[str, bool]:
        if self.inter_pod_gms:
            return str(self.rank), False
        return "$((GROVE_PCLQ_POD_INDEX + 1))", True

    def needs_dns_wait(self) -> bool:
        return False

    def host_names(self, service_name: str, number_of_nodes: int) -> list[str]:
        hosts = [self.leader_hostname(service_name)]
        lower = service_name.lower()
        if self.inter_pod_gms:
            for rank in range(1, number_of_nodes):
                hosts.append(
                    f"$(GROVE_PCSG_NAME)-$(GROVE_PCSG_INDEX)-{lower}-{GROVE_ROLE_SUFFIX_WORKER}-{rank}"
                    "-$(GROVE_PCLQ_POD_INDEX).$(GROVE_HEADLESS_SERVICE)"
                )
        else:
            for i in range(number_of_nodes - 1):
                hosts.append(f"$(GROVE_PCSG_NAME)-$(GROVE_PCSG_INDEX)-{lower}-{GROVE_ROLE_SUFFIX_WORKER}-{i}.$(GROVE_HEADLESS_SERVICE)")
        return hosts


GROVE = GroveDeployer()


@dataclass(frozen=True)
class BackendContext:
    """The arguments the operator passes to UpdateContainer / UpdatePodSpec.

    ``gpu_count`` is lazy: it is only called when a backend needs the count, exactly as the
    operator resolves it at most once and only on demand. ``deployer`` is the
    LeaderWorkerSet deployer on the DCD path, for every role (the operator passes "lws"
    even when it renders a Deployment pod), and the Grove deployer on the Grove pathway.
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
    deployer: Deployer = LWS


class Backend(Protocol):
    """One backend's container and pod-spec shaping; both return new dicts."""

    def update_container(self, container: dict[str, Any], ctx: BackendContext) -> dict[str, Any]: ...

    def update_pod_spec(self, pod_spec: dict[str, Any], ctx: BackendContext) -> dict[str, Any]: ...


_B = TypeVar("_B")


def multinode_only(
    update: Callable[[_B, dict[str, Any], BackendContext], None],
) -> Callable[[_B, dict[str, Any], BackendContext], dict[str, Any]]:
    """An ``update_container`` that changes only a multinode group's containers, on a copy.

    A single-node container is returned as it is; ``update`` shapes a deep copy in place.
    """

    def update_container(self: _B, container: dict[str, Any], ctx: BackendContext) -> dict[str, Any]:
        if ctx.number_of_nodes <= 1:
            return container
        container = copy_json(container)
        update(self, container, ctx)
        return container

    update_container.__doc__ = update.__doc__
    return update_container


def drop_probes(container: dict[str, Any], *names: str) -> None:
    """Remove probes from a container this backend copied (multinode workers)."""
    for name in names:
        container.pop(name, None)


ALL_PROBES = ("livenessProbe", "readinessProbe", "startupProbe")
