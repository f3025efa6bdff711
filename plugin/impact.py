"""Change impact: what going from one rendered bundle to another does to running pods and GPUs.

Both sides are lists of rendered objects (the output of a render). Objects are matched by
identity (API group, kind, namespace, name) and each difference is classified by what it does
in a cluster:

- ``added`` / ``removed``: an object only on one side;
- ``replaced``: a workload (or a worker's Service) removed and another of the same kind added
  for the same graph component (the DGD worker hash renamed it), reported once with ``replacedBy``;
- ``rolled``: the same workload with a changed pod template (its pods restart);
  a rolled or replaced workload lists what changed in its pods (``pod_changes``: containers,
  images, commands, security flags, env, volumes, pod labels and annotations; see
  renderer/objects/podchanges.py);
- ``scaled``: the same workload with only its replica counts changed;
- ``changed``: any other difference (Services, RBAC, ConfigMaps, workload metadata).

GPU totals count GPUs requested per pod times pods, over Deployments, LeaderWorkerSets and
PodCliqueSets, as the Kubernetes scheduler sums a pod's request: the containers plus restartable
(sidecar) init containers, or the largest other init container if that is larger. Pods that
ask for GPUs only through DRA claims are counted as pods and reported, not guessed.

Pure: no I/O. The ``diff`` command renders both sides and formats what this returns.
"""

from __future__ import annotations

from collections import defaultdict
from renderer.records import dataclass, field
from typing import Any

from renderer import consts
from renderer.clashes import Identity, identity_of
from renderer.cluster.dra import is_gpu_resource_name
from renderer.objects.podchanges import pod_changes, pod_facts

WORKLOAD_KINDS = frozenset({"Deployment", "LeaderWorkerSet", "PodCliqueSet"})

ADDED = "added"
REMOVED = "removed"
REPLACED = "replaced"
ROLLED = "rolled"
SCALED = "scaled"
CHANGED = "changed"
# Report order: what restarts or replaces pods first.
ACTION_ORDER = (REPLACED, ROLLED, SCALED, ADDED, REMOVED, CHANGED)



@dataclass(frozen=True)
class Change:
    """One object-level difference between the two sides."""

    action: str
    kind: str
    namespace: str
    name: str
    api_version: str
    replaced_by: str | None = None
    source: str | None = None
    gpus_before: int = 0
    gpus_after: int = 0
    # What changed in the pods of a rolled or replaced workload, one line each.
    pod_changes: tuple[str, ...] = ()

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "action": self.action,
            "apiVersion": self.api_version,
            "kind": self.kind,
            "namespace": self.namespace,
            "name": self.name,
        }
        if self.replaced_by is not None:
            out["replacedBy"] = self.replaced_by
        if self.source:
            out["source"] = self.source
        if self.gpus_before or self.gpus_after:
            out["gpus"] = {"before": self.gpus_before, "after": self.gpus_after}
        if self.pod_changes:
            out["podChanges"] = list(self.pod_changes)
        return out


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


@dataclass
class Impact:
    """Every change, and capacity before and after."""

    changes: list[Change]
    before: Capacity
    after: Capacity

    @property
    def changed(self) -> bool:
        return bool(self.changes)

    def as_json(self) -> dict[str, Any]:
        namespaces = sorted(set(self.before.by_namespace) | set(self.after.by_namespace))

        def totals(before: int, after: int, column: int) -> dict[str, Any]:
            """A capacity before and after, in all and per namespace (``column`` 0: GPUs, 1: pods)."""
            by_namespace = {
                ns: {"before": self.before.by_namespace.get(ns, (0, 0))[column], "after": self.after.by_namespace.get(ns, (0, 0))[column]}
                for ns in namespaces
            }
            return {"before": before, "after": after, "byNamespace": by_namespace}

        return {
            "changes": [c.as_json() for c in self.changes],
            "gpus": totals(self.before.gpus, self.after.gpus, 0),
            "pods": totals(self.before.pods, self.after.pods, 1),
            "draPods": {"before": self.before.dra_pods, "after": self.after.dra_pods},
            "summary": {action: sum(1 for c in self.changes if c.action == action) for action in ACTION_ORDER},
        }


def compare(
    before: list[dict[str, Any]],
    after: list[dict[str, Any]],
    sources_before: dict[Identity, str] | None = None,
    sources_after: dict[Identity, str] | None = None,
    default_namespace: str = "default",
) -> Impact:
    """Classify every difference between two rendered bundles and total their GPUs and pods."""
    old = _index(before, default_namespace)
    new = _index(after, default_namespace)
    sources_before = sources_before or {}
    sources_after = sources_after or {}
    changes: list[Change] = []

    # Workloads that left and came back under another name for the same graph component.
    removed = [key for key in old if key not in new]
    added = [key for key in new if key not in old]
    replacements = _pair_replacements(removed, added, old, new)
    paired_new = set(replacements.values())
    for key in removed:
        obj = old[key]
        usage = usage_of(obj)
        if key in replacements:
            new_key = replacements[key]
            changes.append(
                _change(REPLACED, key, obj, replaced_by=new_key[3], source=sources_after.get(new_key) or sources_before.get(key),
                        gpus_before=usage.gpus, gpus_after=usage_of(new[new_key]).gpus,
                        pod_changes=tuple(pod_changes(obj, new[new_key])))
            )
        else:
            changes.append(_change(REMOVED, key, obj, source=sources_before.get(key), gpus_before=usage.gpus))
    for key in added:
        if key not in paired_new:
            changes.append(_change(ADDED, key, new[key], source=sources_after.get(key), gpus_after=usage_of(new[key]).gpus,
                                   pod_changes=tuple(pod_facts(new[key]))))

    # Objects on both sides.
    for key, obj in new.items():
        previous = old.get(key)
        if previous is None or previous == obj:
            continue
        action = classify(previous, obj)
        changes.append(
            _change(action, key, obj, source=sources_after.get(key),
                    gpus_before=usage_of(previous).gpus, gpus_after=usage_of(obj).gpus,
                    pod_changes=tuple(pod_changes(previous, obj)) if action == ROLLED else ())
        )

    rank = {action: i for i, action in enumerate(ACTION_ORDER)}
    changes.sort(key=lambda c: (rank[c.action], c.namespace, c.kind, c.name))
    return Impact(changes, capacity(old.values(), default_namespace), capacity(new.values(), default_namespace))


def classify(before: dict[str, Any], after: dict[str, Any]) -> str:
    """``rolled``, ``scaled`` or ``changed`` for one object present on both sides with a difference."""
    kind = after.get("kind")
    if kind not in WORKLOAD_KINDS or before.get("kind") != kind:
        return CHANGED
    if pod_templates(before) != pod_templates(after):
        return ROLLED
    if _without_scale(before) == _without_scale(after):
        return SCALED
    return CHANGED


def pod_templates(obj: dict[str, Any]) -> list[Any]:
    """The pod templates of a workload, in a fixed order: what, when changed, restarts its pods.

    A LeaderWorkerSet's group size is part of it (a new size recreates every group), and so is
    a PodCliqueSet clique's pod spec.
    """
    spec = obj.get("spec") or {}
    kind = obj.get("kind")
    if kind == "Deployment":
        return [spec.get("template")]
    if kind == "LeaderWorkerSet":
        lwt = spec.get("leaderWorkerTemplate") or {}
        return [lwt.get("leaderTemplate"), lwt.get("workerTemplate"), lwt.get("size")]
    if kind == "PodCliqueSet":
        template = spec.get("template") or {}
        cliques = template.get("cliques") or []
        return [
            (c.get("name"), c.get("labels"), c.get("annotations"), (c.get("spec") or {}).get("podSpec"))
            for c in cliques
            if isinstance(c, dict)
        ]
    return []


def _without_scale(obj: dict[str, Any]) -> dict[str, Any]:
    """A copy of a workload without its replica counts."""
    spec = dict(obj.get("spec") or {})
    spec.pop("replicas", None)
    if obj.get("kind") == "PodCliqueSet":
        template = dict(spec.get("template") or {})
        template["cliques"] = [_drop_clique_replicas(c) for c in template.get("cliques") or []]
        template["podCliqueScalingGroups"] = [
            {k: v for k, v in g.items() if k not in ("replicas", "minAvailable")} if isinstance(g, dict) else g
            for g in template.get("podCliqueScalingGroups") or []
        ]
        spec["template"] = template
    return {**obj, "spec": spec}


def _drop_clique_replicas(clique: Any) -> Any:
    if not isinstance(clique, dict):
        return clique
    spec = {k: v for k, v in (clique.get("spec") or {}).items() if k not in ("replicas", "minAvailable")}
    return {**clique, "spec": spec}


def _pair_replacements(
    removed: list[Identity], added: list[Identity], old: dict[Identity, Any], new: dict[Identity, Any]
) -> dict[Identity, Identity]:
    """Removed object -> added object of the same kind, namespace and graph component.

    The component is read from the labels the operator puts on what it renders for a graph
    component (``nvidia.com/dynamo-graph-deployment-name`` and ``nvidia.com/dynamo-component``):
    a worker's workload and its Service follow the worker-hash rename together. Objects without
    them (plain DCDs, hand-written ones) are never paired.
    """
    by_component: dict[tuple[str, str, str, str, str], list[Identity]] = defaultdict(list)
    for key in added:
        component = _component(new[key])
        if component is not None:
            by_component[(key[0], key[1], key[2], *component)].append(key)
    pairs: dict[Identity, Identity] = {}
    for key in removed:
        component = _component(old[key])
        if component is None:
            continue
        candidates = by_component.get((key[0], key[1], key[2], *component))
        if candidates:
            pairs[key] = candidates.pop(0)
    return pairs


def _component(obj: dict[str, Any]) -> tuple[str, str] | None:
    labels = (obj.get("metadata") or {}).get("labels") or {}
    graph = labels.get(consts.LABEL_GRAPH_DEPLOYMENT_NAME)
    component = labels.get(consts.LABEL_COMPONENT)
    if not graph or not component:
        return None
    return str(graph), str(component)


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
        replicas = _count(spec.get("replicas"), 1)
        template = spec.get("template") or {}
        group_of: dict[str, int] = {}
        for group in template.get("podCliqueScalingGroups") or []:
            if isinstance(group, dict):
                for name in group.get("cliqueNames") or []:
                    group_of[str(name)] = _count(group.get("replicas"), 1)
        total = Usage()
        for clique in template.get("cliques") or []:
            if not isinstance(clique, dict):
                continue
            clique_spec = clique.get("spec") or {}
            pods = _count(clique_spec.get("replicas"), 1) * group_of.get(str(clique.get("name")), 1)
            total = _sum(total, _scale(_pod(clique_spec.get("podSpec")), pods))
        return _scale(total, replicas)
    return Usage()


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


def _index(objects: list[dict[str, Any]], default_namespace: str) -> dict[Identity, dict[str, Any]]:
    out: dict[Identity, dict[str, Any]] = {}
    for obj in objects:
        if isinstance(obj, dict):
            out[identity(obj, default_namespace)] = obj
    return out


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


def _change(action: str, key: Identity, obj: dict[str, Any], **kwargs: Any) -> Change:
    return Change(action, key[1], key[2], key[3], str(obj.get("apiVersion") or ""), **kwargs)
