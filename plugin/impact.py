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

from renderer.records import dataclass, field
from typing import Any

from plugin.impact_pairs import REASON_WORKER_HASH, echoes_worker_hash, members_of, pair_members, pair_services, service_pods_replaced
from plugin.impact_usage import WORKLOAD_KINDS, Capacity, Usage, capacity, identity, usage_of
from renderer.clashes import Identity
from renderer.objects.podchanges import pod_changes, pod_facts

__all__ = [
    "ACTION_ORDER", "ADDED", "CHANGED", "REMOVED", "REPLACED", "ROLLED", "SCALED", "WORKLOAD_KINDS", "Capacity", "Change",
    "Impact", "Usage", "capacity", "classify", "compare", "identity", "pod_templates", "usage_of",
]

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
    member_pairs = pair_members(
        [m for ms in old_members.values() for m in ms], [m for ms in new_members.values() for m in ms], old, new
    )
    paired_old = {m.key for m, _, _ in member_pairs}
    paired_new = {n.key for _, n, _ in member_pairs}
    for m, n, reason in member_pairs:
        lines: tuple[str, ...] = ()
        if m.key[1] == n.key[1]:
            lines = tuple(pod_changes(old[m.key], new[n.key]))
            if reason == REASON_WORKER_HASH:
                lines = tuple(line for line in lines if not echoes_worker_hash(line))
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
    service_pairs = pair_services(
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
                                   gpus_after=usage.gpus, pods_after=usage.pods, pod_changes=tuple(pod_facts(new[key]))))

    # Objects on both sides.
    for key, obj in new.items():
        previous = old.get(key)
        if previous is None or previous == obj:
            continue
        action = classify(previous, obj)
        service_reason = service_pods_replaced(previous, obj, replaced_by) if obj.get("kind") == "Service" else None
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


def _index(objects: list[dict[str, Any]], default_namespace: str) -> dict[Identity, dict[str, Any]]:
    out: dict[Identity, dict[str, Any]] = {}
    for obj in objects:
        if isinstance(obj, dict):
            out[identity(obj, default_namespace)] = obj
    return out


def _change(action: str, key: Identity, obj: dict[str, Any], **kwargs: Any) -> Change:
    return Change(action, key[1], key[2], key[3], str(obj.get("apiVersion") or ""), **kwargs)
