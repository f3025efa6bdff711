"""renderer.api: CRD structural defaults of the pod template and admission rules."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from renderer.api import apply_pod_template_defaults, parse_dcd


def dcd(type_: str | None = "worker", pod_spec: dict[str, Any] | None = None, **spec: Any) -> dict[str, Any]:
    """A v1beta1 DCD document with a main container unless ``pod_spec`` says otherwise."""
    body: dict[str, Any] = dict(spec)
    if type_ is not None:
        body["type"] = type_
    body["podTemplate"] = {"spec": pod_spec if pod_spec is not None else {"containers": [{"name": "main", "image": "img:1"}]}}
    return {
        "apiVersion": "nvidia.com/v1beta1",
        "kind": "DynamoComponentDeployment",
        "metadata": {"name": "test", "namespace": "default"},
        "spec": body,
    }


DEFAULT_CASES = [
    (
        "container-port-protocol",
        {"containers": [{"name": "main", "ports": [{"containerPort": 1}, {"containerPort": 2, "protocol": "UDP"}]}]},
        {"containers": [{"name": "main", "ports": [{"containerPort": 1, "protocol": "TCP"}, {"containerPort": 2, "protocol": "UDP"}]}]},
    ),
    (
        "init-and-ephemeral-ports",
        {"initContainers": [{"name": "i", "ports": [{"containerPort": 1}]}], "ephemeralContainers": [{"name": "e", "ports": [{"containerPort": 2}]}]},
        {
            "initContainers": [{"name": "i", "ports": [{"containerPort": 1, "protocol": "TCP"}]}],
            "ephemeralContainers": [{"name": "e", "ports": [{"containerPort": 2, "protocol": "TCP"}]}],
        },
    ),
    (
        "grpc-probe-service",
        {"containers": [{"name": "main", "livenessProbe": {"grpc": {"port": 9}}, "readinessProbe": {"httpGet": {"port": 1}}}]},
        {"containers": [{"name": "main", "livenessProbe": {"grpc": {"port": 9, "service": ""}}, "readinessProbe": {"httpGet": {"port": 1}}}]},
    ),
    (
        "null-counts-as-absent",
        {"containers": [{"name": "main", "ports": [{"containerPort": 1, "protocol": None}]}]},
        {"containers": [{"name": "main", "ports": [{"containerPort": 1, "protocol": "TCP"}]}]},
    ),
    (
        "env-key-refs",
        {"containers": [{"name": "main", "env": [{"name": "A", "valueFrom": {"secretKeyRef": {"key": "k"}, "fileKeyRef": {"path": "p"}}}]}]},
        {"containers": [{"name": "main", "env": [{"name": "A", "valueFrom": {"secretKeyRef": {"key": "k", "name": ""}, "fileKeyRef": {"path": "p", "optional": False}}}]}]},
    ),
    (
        "volume-sources",
        {"volumes": [{"name": "a", "rbd": {"image": "x"}}, {"name": "b", "configMap": {}}, {"name": "c", "emptyDir": {}}]},
        {
            "volumes": [
                {"name": "a", "rbd": {"image": "x", "keyring": "/etc/ceph/keyring", "pool": "rbd", "user": "admin"}},
                {"name": "b", "configMap": {"name": ""}},
                {"name": "c", "emptyDir": {}},
            ]
        },
    ),
    (
        "absent-parents-stay-absent",
        {"containers": [{"name": "main"}]},
        {"containers": [{"name": "main"}]},
    ),
    (
        "wrong-types-left-alone",
        {"containers": "nope", "volumes": [None, 3]},
        {"containers": "nope", "volumes": [None, 3]},
    ),
]


@pytest.mark.parametrize(("spec", "want"), [(c[1], c[2]) for c in DEFAULT_CASES], ids=[c[0] for c in DEFAULT_CASES])
def test_apply_pod_template_defaults(spec: dict[str, Any], want: dict[str, Any]) -> None:
    template = {"metadata": {"labels": {"a": "b"}}, "spec": spec}
    before = copy.deepcopy(template)
    got = apply_pod_template_defaults(template)
    assert got == {"metadata": {"labels": {"a": "b"}}, "spec": want}
    assert template == before, "the input must not be modified"


@pytest.mark.parametrize("template", [None, "x", {"metadata": {}}, {"spec": None}], ids=["none", "string", "no-spec", "null-spec"])
def test_apply_pod_template_defaults_without_spec(template: Any) -> None:
    assert apply_pod_template_defaults(template) is template


def test_parse_dcd_applies_defaults_before_decoding() -> None:
    doc = dcd(pod_spec={"containers": [{"name": "main", "image": "img:1", "ports": [{"containerPort": 8081}]}]})
    parsed, results = parse_dcd(doc, "default")
    assert parsed is not None, [r.line() for r in results]
    assert parsed.pod_spec["containers"][0]["ports"] == [{"containerPort": 8081, "protocol": "TCP"}]
    assert "protocol" not in doc["spec"]["podTemplate"]["spec"]["containers"][0]["ports"][0]
