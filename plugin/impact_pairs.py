"""Which workloads of two rendered bundles serve the same graph component, and why one replaces the other.

A *member* is what serves one component: a Deployment or a LeaderWorkerSet whole, or one clique
of a PodCliqueSet, read from the labels the operator puts on what it renders for a graph
component (``nvidia.com/dynamo-graph-deployment-name``, ``nvidia.com/dynamo-component``,
``nvidia.com/dynamo-component-type``). ``plugin.impact.compare`` pairs the members only on one
side each, and the Services that select their pods. Pure: no I/O.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from plugin.impact_usage import Usage, clique_usages, usage_of
from renderer import consts
from renderer.clashes import Identity
from renderer.records import dataclass

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


def echoes_worker_hash(line: str) -> bool:
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
        for clique, usage in clique_usages(obj):
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


def pair_members(
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


def pair_services(
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


def service_pods_replaced(
    before: dict[str, Any], after: dict[str, Any], replaced_by: dict[Member, tuple[Member, str]]
) -> str | None:
    """On a Service kept on both sides: that the pods it selects are replaced, and why."""
    for m, (n, reason) in replaced_by.items():
        if _selects(before, m) or _selects(after, n):
            return f"the pods it selects are replaced ({reason})"
    return None
