"""GPUs and pods a workload asks for, and the totals of a side.

GPU totals count GPUs requested per pod times pods, over Deployments, LeaderWorkerSets and
PodCliqueSets, as the Kubernetes scheduler sums a pod's request: the containers plus restartable
(sidecar) init containers, or the largest other init container if that is larger. Pods that
ask for GPUs only through DRA claims are counted as pods. Pure: no I/O.
"""

from __future__ import annotations

from typing import Any

from renderer.clashes import Identity, identity_of
from renderer.cluster.dra import is_gpu_resource_name
from renderer.records import dataclass, field

WORKLOAD_KINDS = frozenset({"Deployment", "LeaderWorkerSet", "PodCliqueSet"})


@dataclass
class Capacity:
    """GPUs and pods of the workloads of one side, overall and per namespace."""

    gpus: int = 0
    pods: int = 0
    dra_pods: int = 0
    by_namespace: dict[str, tuple[int, int]] = field(default_factory=dict)  # namespace -> (gpus, pods)

    def add(self, namespace: str, usage: Usage) -> None:
        self.gpus += usage.gpus
        self.pods += usage.pods
        self.dra_pods += usage.dra_pods
        gpus, pods = self.by_namespace.get(namespace, (0, 0))
        self.by_namespace[namespace] = (gpus + usage.gpus, pods + usage.pods)


@dataclass(frozen=True)
class Usage:
    """What one workload asks for: GPUs and pods in total, and pods whose GPUs come from DRA claims."""

    gpus: int = 0
    pods: int = 0
    dra_pods: int = 0


def capacity(objects: Any, default_namespace: str = "default") -> Capacity:
    """GPU and pod totals of the workloads among ``objects``."""
    total = Capacity()
    for obj in objects:
        if isinstance(obj, dict) and obj.get("kind") in WORKLOAD_KINDS:
            total.add(identity(obj, default_namespace)[2], usage_of(obj))
    return total


def usage_of(obj: dict[str, Any]) -> Usage:
    """GPUs and pods one workload asks for (zero for anything that is not a workload)."""
    spec = obj.get("spec") or {}
    kind = obj.get("kind")
    if kind == "Deployment":
        replicas = _count(spec.get("replicas"), 1)
        return _scale(_pod(((spec.get("template") or {}).get("spec"))), replicas)
    if kind == "LeaderWorkerSet":
        replicas = _count(spec.get("replicas"), 1)
        lwt = spec.get("leaderWorkerTemplate") or {}
        size = _count(lwt.get("size"), 1)
        worker = _pod((lwt.get("workerTemplate") or {}).get("spec"))
        leader_template = lwt.get("leaderTemplate")
        leader = _pod(leader_template.get("spec")) if isinstance(leader_template, dict) else worker
        group = _sum(leader, _scale(worker, size - 1))
        return _scale(group, replicas)
    if kind == "PodCliqueSet":
        total = Usage()
        for _, usage in clique_usages(obj):
            total = _sum(total, usage)
        return total
    return Usage()


def clique_usages(obj: dict[str, Any]) -> list[tuple[dict[str, Any], Usage]]:
    """Each clique of a PodCliqueSet with what it asks for over the set's replicas (and its scaling group's)."""
    spec = obj.get("spec") or {}
    replicas = _count(spec.get("replicas"), 1)
    template = spec.get("template") or {}
    group_of: dict[str, int] = {}
    for group in template.get("podCliqueScalingGroups") or []:
        if isinstance(group, dict):
            for name in group.get("cliqueNames") or []:
                group_of[str(name)] = _count(group.get("replicas"), 1)
    out: list[tuple[dict[str, Any], Usage]] = []
    for clique in template.get("cliques") or []:
        if not isinstance(clique, dict):
            continue
        clique_spec = clique.get("spec") or {}
        pods = _count(clique_spec.get("replicas"), 1) * group_of.get(str(clique.get("name")), 1)
        out.append((clique, _scale(_pod(clique_spec.get("podSpec")), pods * replicas)))
    return out


def _pod(pod_spec: Any) -> Usage:
    """One pod: its effective GPU request, as the scheduler computes a pod's request."""
    if not isinstance(pod_spec, dict):
        return Usage(pods=1)
    regular = sum(_container_gpus(c) for c in pod_spec.get("containers") or [])
    sidecars = 0
    largest_init = 0
    for init in pod_spec.get("initContainers") or []:
        if isinstance(init, dict) and init.get("restartPolicy") == "Always":
            sidecars += _container_gpus(init)
        else:
            largest_init = max(largest_init, _container_gpus(init))
    gpus = max(regular + sidecars, largest_init)
    dra = 1 if gpus == 0 and pod_spec.get("resourceClaims") else 0
    return Usage(gpus=gpus, pods=1, dra_pods=dra)


def _container_gpus(container: Any) -> int:
    """Scalar GPUs of one container: limits, else requests (the API server copies limits into requests)."""
    if not isinstance(container, dict):
        return 0
    resources = container.get("resources") or {}
    for section in ("limits", "requests"):
        values = resources.get(section) or {}
        names = [n for n in values if is_gpu_resource_name(n)]
        if names:
            return sum(_count(values[n], 0) for n in names)
    return 0


def _count(value: Any, default: int) -> int:
    if value is None:
        return default
    if isinstance(value, bool):
        return default
    if isinstance(value, int):
        return value
    try:
        return int(str(value))
    except ValueError:
        return default


def _scale(usage: Usage, n: int) -> Usage:
    return Usage(usage.gpus * n, usage.pods * n, usage.dra_pods * n)


def _sum(a: Usage, b: Usage) -> Usage:
    return Usage(a.gpus + b.gpus, a.pods + b.pods, a.dra_pods + b.dra_pods)


def identity(obj: dict[str, Any], default_namespace: str = "default") -> Identity:
    """(API group, kind, namespace, name): the key an object is matched by on both sides.

    The identity the API server stores it under (``renderer.clashes.identity_of``: no namespace
    for a cluster-scoped kind); rendered objects always have a name.
    """
    key = identity_of(obj, default_namespace)
    if key is None:
        group = str(obj.get("apiVersion") or "").rpartition("/")[0]
        return group, str(obj.get("kind") or ""), default_namespace, ""
    return key
