"""Change impact: what going from one rendered bundle to another does to running pods and GPUs.

Both sides are lists of rendered objects (the output of a render). Objects are matched by
identity (API group, kind, namespace, name) and each difference is classified by what it does
in a cluster:

- ``added`` / ``removed``: an object only on one side;
- ``replaced``: a workload removed and another added that serve the same graph component (a
  worker-hash rename, a move to or from a PodCliqueSet clique on the Grove pathway, a component
  becoming multinode or single-node, a component renamed where the pairing is certain),
  reported once with ``replacedBy`` and its reason; a worker's Service that follows its pods too;
- ``rolled``: the same workload with a changed pod template (its pods restart);
  a rolled or replaced workload lists what changed in its pods (``pod_changes``: containers,
  images, commands, security flags, env, volumes, pod labels and annotations; see
  renderer/objects/podchanges.py);
- ``scaled``: the same workload with only its replica counts changed;
- ``changed``: any other difference (Services, RBAC, ConfigMaps, workload metadata); a Service
  whose selected pods are replaced says so in its reason.

GPU totals count GPUs requested per pod times pods, over Deployments, LeaderWorkerSets and
PodCliqueSets, as the Kubernetes scheduler sums a pod's request: the containers plus restartable
(sidecar) init containers, or the largest other init container if that is larger. Pods that
ask for GPUs only through DRA claims are counted as pods and reported, not guessed. The peak is
the new side plus the old side of every replaced or removed workload: what a sync holds at once
when nothing is pruned before everything new is applied (Argo CD ``PruneLast=true``).

Pure: no I/O. The ``diff`` command renders both sides and formats what this returns.
"""

from __future__ import annotations

from collections import defaultdict
from renderer.records import dataclass, field
from typing import Any

from renderer import consts
from renderer.clashes import Identity, identity_of
from renderer.cluster.dra import is_gpu_resource_name
from renderer.objects.podchanges import pod_changes

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
    """One object-level difference between the two sides.

    A replaced workload that serves its component under another kind names the new kind
    (``replaced_by_kind``); a PodCliqueSet side names the clique that serves the component
    (``clique`` on the old side, ``replaced_by_clique`` on the new). ``reason`` says why pods
    are replaced (or, on a Service, that the pods it selects are).
    """

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
    reason: str | None = None
    replaced_by_kind: str | None = None
    clique: str | None = None
    replaced_by_clique: str | None = None
    pods_before: int = 0
    pods_after: int = 0

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
        if self.replaced_by_kind is not None:
            out["replacedByKind"] = self.replaced_by_kind
        if self.clique is not None:
            out["clique"] = self.clique
        if self.replaced_by_clique is not None:
            out["replacedByClique"] = self.replaced_by_clique
        if self.reason:
            out["reason"] = self.reason
        if self.source:
            out["source"] = self.source
        if self.gpus_before or self.gpus_after:
            out["gpus"] = {"before": self.gpus_before, "after": self.gpus_after}
        if self.pods_before or self.pods_after:
            out["pods"] = {"before": self.pods_before, "after": self.pods_after}
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
    """Every change, capacity before and after, and the peak a sync needs.

    ``peak`` is what the namespace holds at the moment of a sync when every new workload runs
    and nothing old is pruned yet (Argo CD with ``PruneLast=true``): the new side plus the old
    side of every replaced or removed workload. A rolling update's surge pods are not counted.
    """

    changes: list[Change]
    before: Capacity
    after: Capacity
    peak: Capacity = field(default_factory=Capacity)

    @property
    def changed(self) -> bool:
        return bool(self.changes)

    def as_json(self) -> dict[str, Any]:
        namespaces = sorted(set(self.before.by_namespace) | set(self.after.by_namespace))

        def totals(before: int, after: int, peak: int, column: int) -> dict[str, Any]:
            """A capacity before and after, in all and per namespace (``column`` 0: GPUs, 1: pods)."""
            by_namespace = {
                ns: {
                    "before": self.before.by_namespace.get(ns, (0, 0))[column],
                    "after": self.after.by_namespace.get(ns, (0, 0))[column],
                    "peak": self.peak.by_namespace.get(ns, (0, 0))[column],
                }
                for ns in namespaces
            }
            return {"before": before, "after": after, "peak": peak, "byNamespace": by_namespace}

        return {
            "changes": [c.as_json() for c in self.changes],
            "gpus": totals(self.before.gpus, self.after.gpus, self.peak.gpus, 0),
            "pods": totals(self.before.pods, self.after.pods, self.peak.pods, 1),
            "draPods": {"before": self.before.dra_pods, "after": self.after.dra_pods},
            "summary": {action: sum(1 for c in self.changes if c.action == action) for action in ACTION_ORDER},
            "replacedWorkloads": sum(1 for c in self.changes if c.action == REPLACED and c.kind in WORKLOAD_KINDS),
        }


# Why a workload is replaced.
REASON_GROVE = "the graph moved to the Grove pathway"
REASON_LEFT_GROVE = "the graph left the Grove pathway"
REASON_MULTINODE = "the component became multinode"
REASON_SINGLE_NODE = "the component became single-node"
REASON_WORKER_HASH = "the graph's worker hash changed"


@dataclass(frozen=True)
class Member:
    """The part of a workload that serves one graph component: a Deployment or LeaderWorkerSet
    whole, or one clique of a PodCliqueSet."""

    key: Identity
    clique: str | None
    graph: str | None
    component: str | None
    component_type: str | None
    # The labels of each of its pod templates (a LeaderWorkerSet's leader and worker).
    pod_labels: tuple[tuple[tuple[str, str], ...], ...]
    usage: Usage

    @property
    def serves(self) -> tuple[str, str, str] | None:
        """(namespace, graph, component), when the operator's labels name them."""
        if self.graph is None or self.component is None:
            return None
        return self.key[2], self.graph, self.component


def compare(
    before: list[dict[str, Any]],
    after: list[dict[str, Any]],
    sources_before: dict[Identity, str] | None = None,
    sources_after: dict[Identity, str] | None = None,
    default_namespace: str = "default",
) -> Impact:
    """Classify every difference between two rendered bundles and total their GPUs and pods.

    Workloads only on one side are paired when they serve the same graph component: the same
    kind under a new worker hash, across kinds (Deployment, LeaderWorkerSet, a PodCliqueSet's
    clique) when the graph changes pathway or a component becomes multinode, and a renamed
    component when it is the only one of its type that left and came in within its graph.
    Each pair is one ``replaced`` change with its reason; a Service is paired with the one that
    selects the replacement pods, and a Service kept whose pods are replaced says so.
    """
    old = _index(before, default_namespace)
    new = _index(after, default_namespace)
    sources_before = sources_before or {}
    sources_after = sources_after or {}
    changes: list[Change] = []

    removed = [key for key in old if key not in new]
    added = [key for key in new if key not in old]
    old_members = {key: members_of(old[key], key) for key in removed if old[key].get("kind") in WORKLOAD_KINDS}
    new_members = {key: members_of(new[key], key) for key in added if new[key].get("kind") in WORKLOAD_KINDS}
    member_pairs = _pair_members(
        [m for ms in old_members.values() for m in ms], [m for ms in new_members.values() for m in ms], old, new
    )
    paired_old = {m.key for m, _, _ in member_pairs}
    paired_new = {n.key for _, n, _ in member_pairs}
    for m, n, reason in member_pairs:
        lines: tuple[str, ...] = ()
        if m.key[1] == n.key[1]:
            lines = tuple(pod_changes(old[m.key], new[n.key]))
            if reason == REASON_WORKER_HASH:
                lines = tuple(line for line in lines if not _echoes_worker_hash(line))
                if not lines:
                    reason += " (its own pod template is otherwise unchanged)"
        changes.append(
            _change(
                REPLACED, m.key, old[m.key], replaced_by=n.key[3], source=sources_after.get(n.key) or sources_before.get(m.key),
                gpus_before=m.usage.gpus, gpus_after=n.usage.gpus, pods_before=m.usage.pods, pods_after=n.usage.pods,
                pod_changes=lines, reason=reason, clique=m.clique, replaced_by_clique=n.clique,
                replaced_by_kind=n.key[1] if n.key[1] != m.key[1] else None,
            )
        )
    # What a workload with some cliques paired keeps on its own: those cliques, one by one.
    for key, members in old_members.items():
        if key in paired_old:
            paired = {m.clique for m, _, _ in member_pairs if m.key == key}
            for m in members:
                if m.clique not in paired:
                    changes.append(_change(REMOVED, key, old[key], source=sources_before.get(key), clique=m.clique,
                                           gpus_before=m.usage.gpus, pods_before=m.usage.pods))
    for key, members in new_members.items():
        if key in paired_new:
            paired = {n.clique for _, n, _ in member_pairs if n.key == key}
            for n in members:
                if n.clique not in paired:
                    changes.append(_change(ADDED, key, new[key], source=sources_after.get(key), clique=n.clique,
                                           gpus_after=n.usage.gpus, pods_after=n.usage.pods))

    # Services that left and came back under another name for the pods of the same component.
    service_pairs = _pair_services(
        [k for k in removed if k not in paired_old], [k for k in added if k not in paired_new], old, new, member_pairs
    )
    replaced_by = {m: (n, reason) for m, n, reason in member_pairs}
    for key, (new_key, reason) in service_pairs.items():
        changes.append(_change(REPLACED, key, old[key], replaced_by=new_key[3], reason=reason,
                               source=sources_after.get(new_key) or sources_before.get(key)))
    paired_old |= set(service_pairs)
    paired_new |= {new_key for new_key, _ in service_pairs.values()}

    for key in removed:
        if key not in paired_old:
            usage = usage_of(old[key])
            changes.append(_change(REMOVED, key, old[key], source=sources_before.get(key),
                                   gpus_before=usage.gpus, pods_before=usage.pods))
    for key in added:
        if key not in paired_new:
            usage = usage_of(new[key])
            changes.append(_change(ADDED, key, new[key], source=sources_after.get(key),
                                   gpus_after=usage.gpus, pods_after=usage.pods))

    # Objects on both sides.
    for key, obj in new.items():
        previous = old.get(key)
        if previous is None or previous == obj:
            continue
        action = classify(previous, obj)
        service_reason = _service_pods_replaced(previous, obj, replaced_by) if obj.get("kind") == "Service" else None
        was, now = usage_of(previous), usage_of(obj)
        changes.append(
            _change(action, key, obj, source=sources_after.get(key),
                    gpus_before=was.gpus, gpus_after=now.gpus, pods_before=was.pods, pods_after=now.pods,
                    pod_changes=tuple(pod_changes(previous, obj)) if action == ROLLED else (), reason=service_reason)
        )

    rank = {action: i for i, action in enumerate(ACTION_ORDER)}
    changes.sort(key=lambda c: (rank[c.action], c.namespace, c.kind, c.name, c.clique or ""))
    after_capacity = capacity(new.values(), default_namespace)
    peak = capacity(new.values(), default_namespace)
    for change in changes:
        if change.action in (REPLACED, REMOVED) and change.kind in WORKLOAD_KINDS:
            peak.add(change.namespace, Usage(change.gpus_before, change.pods_before))
    return Impact(changes, capacity(old.values(), default_namespace), after_capacity, peak)


def _echoes_worker_hash(line: str) -> bool:
    """Whether a pod-change line only repeats the new worker hash (its label, the selector, the namespace suffix)."""
    return (
        f'pod label "{consts.LABEL_WORKER_HASH}"' in line
        or 'pod label "nvidia.com/selector"' in line
        or "env DYN_NAMESPACE_WORKER_SUFFIX:" in line
    )


def members_of(obj: dict[str, Any], key: Identity) -> list[Member]:
    """The parts of a workload that serve graph components, each with its GPUs and pods."""
    spec = obj.get("spec") or {}
    labels = (obj.get("metadata") or {}).get("labels") or {}
    if obj.get("kind") == "PodCliqueSet":
        out = []
        for clique, usage in _clique_usages(obj):
            clique_labels = clique.get("labels") or {}
            out.append(_member(key, str(clique.get("name")), labels, clique_labels, usage=usage))
        return out
    if obj.get("kind") == "Deployment":
        templates = [spec.get("template")]
    else:
        lwt = spec.get("leaderWorkerTemplate") or {}
        templates = [lwt.get("workerTemplate"), lwt.get("leaderTemplate")]
    pod_labels = [
        ((t.get("metadata") or {}).get("labels") or {}) for t in templates if isinstance(t, dict)
    ]
    return [_member(key, None, labels, *pod_labels, usage=usage_of(obj))]


def _member(key: Identity, clique: str | None, labels: dict[str, Any], *pod_labels: dict[str, Any], usage: Usage) -> Member:
    sets = [p for p in pod_labels if isinstance(p, dict)]

    def label(name: str) -> str | None:
        value = next((p[name] for p in sets if p.get(name)), None) or labels.get(name)
        return str(value) if value else None

    return Member(
        key, clique, label(consts.LABEL_GRAPH_DEPLOYMENT_NAME), label(consts.LABEL_COMPONENT),
        label(consts.LABEL_COMPONENT_TYPE),
        tuple(tuple(sorted((str(k), str(v)) for k, v in p.items())) for p in sets), usage,
    )


def _pair_members(
    removed: list[Member], added: list[Member], old: dict[Identity, Any], new: dict[Identity, Any]
) -> list[tuple[Member, Member, str]]:
    """Removed member -> added member serving the same component, with why the pods are replaced.

    First by the component the operator's labels name (``nvidia.com/dynamo-graph-deployment-name``
    and ``nvidia.com/dynamo-component``), the same kind first; then a renamed component: within
    one graph, the only removed and the only added member of one component type. Objects without
    those labels (plain DCDs, hand-written ones) are never paired.
    """
    pairs: list[tuple[Member, Member, str]] = []
    free = list(added)
    left: list[Member] = []
    for same_kind in (True, False):
        left = []
        for m in removed:
            if any(p[0] is m for p in pairs):
                continue
            match = next(
                (n for n in free if m.serves is not None and n.serves == m.serves and (n.key[1] == m.key[1]) == same_kind),
                None,
            )
            if match is None:
                left.append(m)
                continue
            free.remove(match)
            pairs.append((m, match, _reason(m, match)))
    # A renamed component: certain only when one member of its type left its graph and one came in.
    by_type_old: dict[tuple[str, str, str], list[Member]] = defaultdict(list)
    by_type_new: dict[tuple[str, str, str], list[Member]] = defaultdict(list)
    for m in left:
        if m.graph and m.component_type:
            by_type_old[(m.key[2], m.graph, m.component_type)].append(m)
    for n in free:
        if n.graph and n.component_type:
            by_type_new[(n.key[2], n.graph, n.component_type)].append(n)
    for group, ms in by_type_old.items():
        ns = by_type_new.get(group, [])
        if len(ms) == 1 and len(ns) == 1 and ms[0].component != ns[0].component:
            m, n = ms[0], ns[0]
            reason = f"the component was renamed ({m.component} -> {n.component})"
            if m.key[1] != n.key[1]:
                reason += "; " + _reason(m, n)
            pairs.append((m, n, reason))
    return pairs


def _reason(m: Member, n: Member) -> str:
    """Why the pods of ``m`` are replaced by those of ``n`` (the same component)."""
    kinds = (m.key[1], n.key[1])
    if kinds[1] == "PodCliqueSet" and kinds[0] != "PodCliqueSet":
        return REASON_GROVE
    if kinds[0] == "PodCliqueSet" and kinds[1] != "PodCliqueSet":
        return REASON_LEFT_GROVE
    if kinds == ("Deployment", "LeaderWorkerSet"):
        return REASON_MULTINODE
    if kinds == ("LeaderWorkerSet", "Deployment"):
        return REASON_SINGLE_NODE
    return REASON_WORKER_HASH if _hash(m) != _hash(n) else "the workload was renamed"


def _hash(m: Member) -> str | None:
    return next((dict(p)[consts.LABEL_WORKER_HASH] for p in m.pod_labels if consts.LABEL_WORKER_HASH in dict(p)), None)


def _selects(service: dict[str, Any], member: Member) -> bool:
    """Whether a Service's selector picks the member's pods (every selector label on the pod)."""
    selector = (service.get("spec") or {}).get("selector")
    if not isinstance(selector, dict) or not selector:
        return False
    return any(
        all(dict(labels).get(str(k)) == str(v) for k, v in selector.items()) for labels in member.pod_labels
    )


def _pair_services(
    removed: list[Identity], added: list[Identity], old: dict[Identity, Any], new: dict[Identity, Any],
    member_pairs: list[tuple[Member, Member, str]],
) -> dict[Identity, tuple[Identity, str]]:
    """Removed Service -> added Service that selects the replacements of the pods it selected."""
    pairs: dict[Identity, tuple[Identity, str]] = {}
    free = [k for k in added if k[1] == "Service"]
    for key in removed:
        if key[1] != "Service":
            continue
        chosen = [(m, n, r) for m, n, r in member_pairs if m.key[2] == key[2] and _selects(old[key], m)]
        if not chosen:
            continue
        wanted = {(n.key, n.clique) for _, n, _ in chosen}
        for candidate in free:
            if candidate[2] != key[2]:
                continue
            picks = {(n.key, n.clique) for _, n, _ in member_pairs if _selects(new[candidate], n)}
            if picks == wanted:
                pairs[key] = (candidate, chosen[0][2])
                free.remove(candidate)
                break
    return pairs


def _service_pods_replaced(
    before: dict[str, Any], after: dict[str, Any], replaced_by: dict[Member, tuple[Member, str]]
) -> str | None:
    """On a Service kept on both sides: that the pods it selects are replaced, and why."""
    for m, (n, reason) in replaced_by.items():
        if _selects(before, m) or _selects(after, n):
            return f"the pods it selects are replaced ({reason})"
    return None


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
        for _, usage in _clique_usages(obj):
            total = _sum(total, usage)
        return total
    return Usage()


def _clique_usages(obj: dict[str, Any]) -> list[tuple[dict[str, Any], Usage]]:
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
