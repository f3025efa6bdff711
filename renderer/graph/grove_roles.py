"""Grove names and roles: which cliques a component becomes, and how long their names may be.

A single-node component is one clique named after it; a multinode one a ``-ldr`` and a ``-wkr``
clique in a PodCliqueScalingGroup. The PodCliqueSet's name is the DGD's, shortened with a hash
when the longest pod name would not fit Grove's limit.

Mirrors: internal/dynamo/graph.go expandRolesForComponent (and its expand* helpers),
LongestPodCliqueNameForDGDComponent, PCSNameForDGD.
"""

from __future__ import annotations

from collections.abc import Sequence
from renderer.records import dataclass

from renderer import consts
from renderer.admission.api import DynamoComponentDeploymentSharedSpec
from renderer.pod.backends.common import GROVE_ROLE_SUFFIX_LEADER, GROVE_ROLE_SUFFIX_WORKER
from renderer.results import RenderError

# A pod is named <pcs>-<index>-<pcsg>-<index>-<clique>-<suffix>; Grove leaves this much for the names.
MAX_COMBINED_NAME_LENGTH = 45
_MIN_PCS_NAME_LENGTH = 8


def uses_scaling_group(spec: DynamoComponentDeploymentSharedSpec) -> bool:
    """Multinode, inter-pod GMS, or a forced scaling group.

    Mirrors: api/v1beta1 DynamoComponentDeploymentSharedSpec.UsesPCSG.
    """
    return spec.number_of_nodes > 1 or is_inter_pod_gms(spec) or is_scaling_group_forced(spec)


def is_inter_pod_gms(spec: DynamoComponentDeploymentSharedSpec) -> bool:
    """Mirrors: api/v1beta1 DynamoComponentDeploymentSharedSpec.IsInterPodGMSEnabled."""
    experimental = spec.experimental
    return experimental is not None and experimental.gpu_memory_service is not None and experimental.gpu_memory_service.mode == "InterPod"


def is_inter_pod_failover(spec: DynamoComponentDeploymentSharedSpec) -> bool:
    """Mirrors: api/v1beta1 DynamoComponentDeploymentSharedSpec.IsInterPodFailoverEnabled."""
    experimental = spec.experimental
    return experimental is not None and experimental.failover is not None and experimental.failover.mode == "InterPod"


def is_scaling_group_forced(spec: DynamoComponentDeploymentSharedSpec) -> bool:
    """Mirrors: api/v1beta1 DynamoComponentDeploymentSharedSpec.IsGroveScalingGroupForced."""
    experimental = spec.experimental
    return experimental is not None and experimental.grove is not None and experimental.grove.force_scaling_group


FAILOVER_ENGINE_GROUP_LABEL = "nvidia.com/dynamo-failover-engine-group-member"


@dataclass(frozen=True)
class ServiceRole:
    """One clique of a component: its name, pod role, replica count and static rank.

    Mirrors: internal/dynamo/graph.go ServiceRole.
    """

    name: str
    role: str
    replicas: int
    rank: int = 0


def expand_roles(name: str, spec: DynamoComponentDeploymentSharedSpec) -> list[ServiceRole]:
    """The cliques of one component, in clique order.

    Single node: one clique of ``replicas`` pods (one pod when the scaling group is forced: the
    group then carries the replicas). Multinode: a one-pod leader clique and a worker clique of
    ``nodes - 1`` pods, replicated together by the scaling group.
    Mirrors: internal/dynamo/graph.go expandRolesForComponent, expandSingleNodeRoles,
    expandSingleNodeScalingGroupRoles, expandMultinodeRoles.
    """
    nodes = spec.number_of_nodes
    if is_inter_pod_gms(spec):
        return expand_gms_roles(name, spec)
    if nodes > 1:
        return [
            ServiceRole(f"{name}-{GROVE_ROLE_SUFFIX_LEADER}", consts.ROLE_LEADER, 1),
            ServiceRole(f"{name}-{GROVE_ROLE_SUFFIX_WORKER}", consts.ROLE_WORKER, nodes - 1),
        ]
    if is_scaling_group_forced(spec):
        return [ServiceRole(name, consts.ROLE_MAIN, 1)]
    return [ServiceRole(name, consts.ROLE_MAIN, spec.replicas if spec.replicas is not None else 1)]


def expand_gms_roles(name: str, spec: DynamoComponentDeploymentSharedSpec) -> list[ServiceRole]:
    """The inter-pod GPU Memory Service layout: per rank a weight-server clique, then the engine
    clique of the primary and its shadows.

    Mirrors: internal/dynamo/graph.go expandSingleNodeGMSRoles, expandMultinodeGMSRoles,
    api/v1beta1 GetTotalEnginePods (renderer.pod.failover.expand_gms_roles)
    """
    from renderer.pod import failover

    experimental = spec.experimental
    shadows = 0
    if is_inter_pod_failover(spec) and experimental is not None and experimental.failover is not None:
        shadows = max(experimental.failover.num_shadows, 1)
    roles = failover.expand_gms_roles(name, spec.number_of_nodes, shadows + 1)
    return [ServiceRole(r.name, r.role, r.replicas, r.rank) for r in roles]


def longest_clique_name(name: str, spec: DynamoComponentDeploymentSharedSpec) -> str:
    """Mirrors: internal/dynamo/graph.go LongestPodCliqueNameForDGDComponent."""
    longest = name.lower()
    if not uses_scaling_group(spec):
        return longest
    try:
        roles = expand_roles(name, spec)
    except RenderError:
        return longest
    for role in roles:
        if len(role.name) > len(longest):
            longest = role.name.lower()
    return longest


def pcs_name(dgd_name: str, components: Sequence[DynamoComponentDeploymentSharedSpec]) -> str:
    """The DGD name, cut with a 4-hex FNV-1a suffix when it leaves too little room for the cliques.

    Mirrors: internal/dynamo/graph.go PCSNameForDGD.
    """
    budget_used = 0
    for spec in components:
        name = spec.name or ""
        used = len(name.lower())
        if uses_scaling_group(spec):
            used += len(longest_clique_name(name, spec))
        budget_used = max(budget_used, used)
    budget = max(MAX_COMBINED_NAME_LENGTH - budget_used, _MIN_PCS_NAME_LENGTH)
    if len(dgd_name) <= budget:
        return dgd_name
    return f"{dgd_name[: budget - 5]}-{_fnv32a(dgd_name.encode()) & 0xFFFF:04x}"


def _fnv32a(data: bytes) -> int:
    value = 0x811C9DC5
    for byte in data:
        value = ((value ^ byte) * 0x01000193) & 0xFFFFFFFF
    return value


def combined_name_length(dgd_name: str, components: Sequence[DynamoComponentDeploymentSharedSpec], spec: DynamoComponentDeploymentSharedSpec) -> tuple[int, str]:
    """Mirrors: internal/webhook/validation/dynamographdeployment_helpers.go dgdComponentResourceNameLength."""
    name = spec.name or ""
    length = len(pcs_name(dgd_name, components)) + len(name.lower())
    detail = "PCS name + component name"
    if uses_scaling_group(spec):
        longest = longest_clique_name(name, spec)
        length += len(longest)
        detail = f'PCS name + PCSG name + longest PodClique name "{longest}"'
    return length, detail
