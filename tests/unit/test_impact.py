"""plugin.impact: GPU and pod counting per workload kind, and change classification.

Expected numbers follow the Kubernetes and workload-API semantics stated in each case (a pod's
effective request; LeaderWorkerSet groups of ``size`` pods; PodCliqueSet cliques multiplied by
their scaling group's replicas), not the module's own output.
"""

from __future__ import annotations

from typing import Any

import pytest

from plugin.impact import CHANGED, ROLLED, SCALED, classify, compare, usage_of


def _container(gpus: int | None = None, section: str = "limits", **extra: Any) -> dict[str, Any]:
    container: dict[str, Any] = {"name": "c", "image": "i", **extra}
    if gpus is not None:
        container["resources"] = {section: {"nvidia.com/gpu": str(gpus)}}
    return container


def _pod(*containers: dict[str, Any], init: list[dict[str, Any]] | None = None, **extra: Any) -> dict[str, Any]:
    spec: dict[str, Any] = {"containers": list(containers), **extra}
    if init:
        spec["initContainers"] = init
    return spec


def _deployment(pod: dict[str, Any], replicas: int | None = None, name: str = "d") -> dict[str, Any]:
    spec: dict[str, Any] = {"template": {"spec": pod}}
    if replicas is not None:
        spec["replicas"] = replicas
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name, "namespace": "ns"}, "spec": spec}


@pytest.mark.parametrize(
    ("obj", "gpus", "pods"),
    [
        # Deployment replicas default to 1 (apps/v1 defaulting).
        (_deployment(_pod(_container(2))), 2, 1),
        (_deployment(_pod(_container(2)), replicas=3), 6, 3),
        (_deployment(_pod(_container(2)), replicas=0), 0, 0),
        # Requests count when there are no limits.
        (_deployment(_pod(_container(1, section="requests"))), 1, 1),
        # Containers add up.
        (_deployment(_pod(_container(1), _container(2))), 3, 1),
        # An ordinary init container runs alone: the pod needs the larger of it and the containers.
        (_deployment(_pod(_container(1), init=[_container(4)])), 4, 1),
        (_deployment(_pod(_container(3), init=[_container(2)])), 3, 1),
        # A restartable (sidecar) init container runs beside the containers: it adds.
        (_deployment(_pod(_container(1), init=[_container(2, restartPolicy="Always")])), 3, 1),
        # Other GPU resource names count too.
        (
            _deployment({"containers": [{"name": "c", "resources": {"limits": {"amd.com/gpu": "2"}}}]}),
            2,
            1,
        ),
        # No GPUs.
        (_deployment(_pod(_container())), 0, 1),
    ],
    ids=["default-replicas", "replicas", "zero-replicas", "requests", "containers-add", "init-larger",
         "init-smaller", "sidecar-adds", "other-gpu-name", "no-gpus"],
)
def test_deployment_usage(obj: dict[str, Any], gpus: int, pods: int) -> None:
    usage = usage_of(obj)
    assert (usage.gpus, usage.pods) == (gpus, pods)


def _lws(size: int, leader: dict[str, Any] | None, worker: dict[str, Any], replicas: int | None = None) -> dict[str, Any]:
    lwt: dict[str, Any] = {"size": size, "workerTemplate": {"spec": worker}}
    if leader is not None:
        lwt["leaderTemplate"] = {"spec": leader}
    spec: dict[str, Any] = {"leaderWorkerTemplate": lwt}
    if replicas is not None:
        spec["replicas"] = replicas
    return {"apiVersion": "leaderworkerset.x-k8s.io/v1", "kind": "LeaderWorkerSet", "metadata": {"name": "l"}, "spec": spec}


def test_leader_worker_set_usage() -> None:
    # One group: a leader plus size-1 workers; replicas multiply groups.
    usage = usage_of(_lws(4, _pod(_container(8)), _pod(_container(8)), replicas=2))
    assert (usage.gpus, usage.pods) == (64, 8)
    # A leader that differs from its workers.
    usage = usage_of(_lws(2, _pod(_container(0)), _pod(_container(4))))
    assert (usage.gpus, usage.pods) == (4, 2)
    # No leader template: the leader runs the worker template.
    usage = usage_of(_lws(3, None, _pod(_container(2))))
    assert (usage.gpus, usage.pods) == (6, 3)


def test_pod_clique_set_usage() -> None:
    pcs = {
        "apiVersion": "grove.io/v1alpha1",
        "kind": "PodCliqueSet",
        "metadata": {"name": "g"},
        "spec": {
            "replicas": 2,
            "template": {
                "cliques": [
                    {"name": "frontend", "spec": {"replicas": 1, "podSpec": _pod(_container())}},
                    {"name": "ldr", "spec": {"replicas": 1, "podSpec": _pod(_container(4))}},
                    {"name": "wkr", "spec": {"replicas": 3, "podSpec": _pod(_container(4))}},
                ],
                # The scaling group repeats its cliques: 2 x (1 leader + 3 workers).
                "podCliqueScalingGroups": [{"name": "decode", "cliqueNames": ["ldr", "wkr"], "replicas": 2}],
            },
        },
    }
    usage = usage_of(pcs)
    assert usage.pods == 2 * (1 + 2 * (1 + 3))
    assert usage.gpus == 2 * (2 * (4 + 3 * 4))


def test_dra_pods_are_counted_and_flagged() -> None:
    usage = usage_of(_deployment(_pod(_container(), resourceClaims=[{"name": "gpu"}]), replicas=2))
    assert (usage.gpus, usage.pods, usage.dra_pods) == (0, 2, 2)


def test_classify() -> None:
    base = _deployment(_pod(_container(1)), replicas=1)
    assert classify(base, _deployment(_pod(_container(1)), replicas=2)) == SCALED
    assert classify(base, _deployment(_pod(_container(2)), replicas=2)) == ROLLED
    relabelled = {**base, "metadata": {**base["metadata"], "labels": {"a": "b"}}}
    assert classify(base, relabelled) == CHANGED
    service = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"}, "spec": {"ports": []}}
    assert classify(service, {**service, "spec": {"ports": [{"port": 1}]}}) == CHANGED
    lws = _lws(2, None, _pod(_container(1)))
    assert classify(lws, _lws(2, None, _pod(_container(1)), replicas=3)) == SCALED
    assert classify(lws, _lws(3, None, _pod(_container(1)))) == ROLLED


def test_replacement_needs_the_same_graph_component() -> None:
    def worker(name: str, component: str) -> dict[str, Any]:
        obj = _deployment(_pod(_container(1)), name=name)
        obj["metadata"]["labels"] = {"nvidia.com/dynamo-graph-deployment-name": "g", "nvidia.com/dynamo-component": component}
        return obj

    impact = compare([worker("g-a-1", "a"), worker("g-b-1", "b")], [worker("g-a-2", "a"), worker("g-c-1", "c")])
    actions = sorted((c.action, c.name, c.replaced_by) for c in impact.changes)
    assert actions == [("added", "g-c-1", None), ("removed", "g-b-1", None), ("replaced", "g-a-1", "g-a-2")]
    # Unlabelled objects are never paired.
    impact = compare([_deployment(_pod(), name="x")], [_deployment(_pod(), name="y")])
    assert sorted(c.action for c in impact.changes) == ["added", "removed"]


# Pairing across kinds: the labels the operator puts on what it renders for a graph component.
def _labels(component: str, graph: str = "g", **extra: str) -> dict[str, str]:
    return {"nvidia.com/dynamo-graph-deployment-name": graph, "nvidia.com/dynamo-component": component,
            "nvidia.com/dynamo-component-type": component, **extra}


def _labelled_deployment(name: str, component: str, gpus: int, replicas: int = 1) -> dict[str, Any]:
    labels = _labels(component)
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name, "namespace": "ns", "labels": labels},
            "spec": {"replicas": replicas, "template": {"metadata": {"labels": labels}, "spec": _pod(_container(gpus))}}}


def _pcs(*cliques: tuple[str, int, int]) -> dict[str, Any]:
    return {
        "apiVersion": "grove.io/v1alpha1", "kind": "PodCliqueSet",
        "metadata": {"name": "g", "namespace": "ns", "labels": {"nvidia.com/dynamo-graph-deployment-name": "g"}},
        "spec": {"replicas": 1, "template": {"cliques": [
            {"name": name, "labels": _labels(name), "spec": {"replicas": replicas, "podSpec": _pod(_container(gpus))}}
            for name, gpus, replicas in cliques
        ]}},
    }


def test_a_deployment_moved_into_a_clique_is_replaced_and_a_new_clique_is_added() -> None:
    impact = compare([_labelled_deployment("g-frontend", "frontend", 0)], [_pcs(("frontend", 0, 1), ("decode", 2, 3))])
    summary = [(c.action, c.kind, c.name, c.clique or c.replaced_by_clique) for c in impact.changes]
    assert summary == [("replaced", "Deployment", "g-frontend", "frontend"), ("added", "PodCliqueSet", "g", "decode")]
    (replaced, added) = impact.changes
    assert replaced.reason == "the graph moved to the Grove pathway" and replaced.replaced_by_kind == "PodCliqueSet"
    # the decode clique: 3 pods of 2 GPUs
    assert (added.gpus_after, added.pods_after) == (6, 3)
    # peak: the new side (frontend pod, 3 decode pods) plus the old frontend pod
    assert (impact.peak.gpus, impact.peak.pods) == (6, 5)


def test_workloads_without_the_operators_labels_are_never_paired() -> None:
    old = _deployment(_pod(_container(1)), name="a")
    new = {**_deployment(_pod(_container(1)), name="b"), "kind": "LeaderWorkerSet", "apiVersion": "leaderworkerset.x-k8s.io/v1"}
    assert sorted(c.action for c in compare([old], [new]).changes) == ["added", "removed"]


def test_a_removed_workload_holds_its_gpus_until_the_prune() -> None:
    impact = compare([_labelled_deployment("g-a", "a", 2, replicas=2)], [])
    assert [c.action for c in impact.changes] == ["removed"]
    assert (impact.before.gpus, impact.after.gpus, impact.peak.gpus) == (4, 0, 4)
