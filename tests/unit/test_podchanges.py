"""Pod-level differences as ``diff`` and the preserved-content report name them."""

from __future__ import annotations

from typing import Any

import pytest

from renderer.objects.podchanges import object_summary, pod_changes


def deployment(spec: dict[str, Any] | None = None, labels: dict[str, str] | None = None, annotations: dict[str, str] | None = None) -> dict[str, Any]:
    pod = {"containers": [{"name": "main", "image": "img:1"}], **(spec or {})}
    meta: dict[str, Any] = {}
    if labels:
        meta["labels"] = labels
    if annotations:
        meta["annotations"] = annotations
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}, "spec": {"template": {"metadata": meta, "spec": pod}}}


def main(**fields: Any) -> dict[str, Any]:
    return {"containers": [{"name": "main", "image": "img:1", **fields}]}


CASES = [
    ("container-added", {}, {"containers": [{"name": "main", "image": "img:1"}, {"name": "x", "image": "e:1", "command": ["sh"], "securityContext": {"privileged": True, "runAsUser": 0}}]},
     ['container "x" (image e:1, command ["sh"], privileged, runAsUser 0 (root)) added']),
    ("container-removed", {"containers": [{"name": "main", "image": "img:1"}, {"name": "x", "image": "e:1"}]}, {}, ['container "x" removed']),
    ("image", {}, main(image="img:2"), ['container "main": image "img:1" -> "img:2"']),
    ("command-args", {}, main(command=["a"], args=["--b"]), ['container "main": command unset -> ["a"]', 'container "main": args unset -> ["--b"]']),
    ("privileged", main(securityContext={"privileged": False}), main(securityContext={"privileged": True}), ['container "main": privileged: false -> true']),
    ("run-as-root", {}, main(securityContext={"runAsUser": 0}), ['container "main": runAsUser: unset -> 0 (root)']),
    ("host-flags", {}, {"hostNetwork": True, "hostPID": True}, ["hostNetwork: unset -> true", "hostPID: unset -> true"]),
    ("env-secret", {}, main(env=[{"name": "T", "valueFrom": {"secretKeyRef": {"name": "s", "key": "k"}}}]), ['container "main": env T added (from Secret s/k)']),
    ("env-changed-removed", main(env=[{"name": "A", "value": "1"}, {"name": "B", "value": "2"}]), main(env=[{"name": "A", "value": "3"}]),
     ['container "main": env A: "1" -> "3"', 'container "main": env B removed']),
    ("env-from", main(envFrom=[{"configMapRef": {"name": "c"}}]), main(envFrom=[{"secretRef": {"name": "s"}}]),
     ['container "main": envFrom Secret s added', 'container "main": envFrom ConfigMap c removed']),
    ("volumes", {"volumes": [{"name": "a", "emptyDir": {}}]}, {"volumes": [{"name": "h", "hostPath": {"path": "/"}}]},
     ['volume "h" (hostPath /) added', 'volume "a" (emptyDir) removed']),
    ("mounts", {}, main(volumeMounts=[{"name": "h", "mountPath": "/h", "readOnly": True}]), ['container "main": volume mount "h" at /h read-only added']),
    ("resources", main(resources={"limits": {"cpu": "1"}}), main(resources={"limits": {"cpu": "2"}}),
     ['container "main": resources {"limits": {"cpu": "1"}} -> {"limits": {"cpu": "2"}}']),
    ("service-account", {}, {"serviceAccountName": "admin"}, ['serviceAccountName: unset -> "admin"']),
    ("other-fields", {}, {"nodeName": "n1"}, ["pod spec fields changed: nodeName"]),
]


@pytest.mark.parametrize(("before", "after", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_pod_spec_changes(before: dict[str, Any], after: dict[str, Any], expected: list[str]) -> None:
    assert pod_changes(deployment(before), deployment(after)) == expected


def test_pod_labels_and_annotations_by_key() -> None:
    before = deployment(labels={"a": "1", "b": "2"}, annotations={"x": "1"})
    after = deployment(labels={"a": "9", "c": "3"}, annotations={"y": "2"})
    assert pod_changes(before, after) == [
        'pod label "a": "1" -> "9"', 'pod label "b" removed', 'pod label "c" added ("3")',
        'pod annotation "x" removed', 'pod annotation "y" added ("2")',
    ]


def test_lws_roles_are_named() -> None:
    def lws(image: str) -> dict[str, Any]:
        template = {"spec": {"containers": [{"name": "main", "image": image}]}}
        return {"kind": "LeaderWorkerSet", "spec": {"leaderWorkerTemplate": {"leaderTemplate": template, "workerTemplate": template}}}

    assert pod_changes(lws("a"), lws("b")) == ['leader: container "main": image "a" -> "b"', 'worker: container "main": image "a" -> "b"']


def test_pvc_summary_has_its_size() -> None:
    pvc = {"kind": "PersistentVolumeClaim", "metadata": {"name": "p", "namespace": "n"}, "spec": {"resources": {"requests": {"storage": "100Ti"}}}}
    assert object_summary(pvc) == "PersistentVolumeClaim/n/p (size 100Ti)"
