"""renderer.admission.podtemplate_schema: the CRD's structural defaults and rules for the embedded pod template."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from renderer.admission.podtemplate_schema import apply_defaults, validate

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
def test_apply_defaults(spec: dict[str, Any], want: dict[str, Any]) -> None:
    template = {"metadata": {"labels": {"a": "b"}}, "spec": spec}
    before = copy.deepcopy(template)
    got = apply_defaults(template)
    assert got == {"metadata": {"labels": {"a": "b"}}, "spec": want}
    assert template == before, "the input must not be modified"


@pytest.mark.parametrize("template", [None, "x", {"metadata": {}}, {"spec": None}], ids=["none", "string", "no-spec", "null-spec"])
def test_apply_defaults_without_spec(template: Any) -> None:
    assert apply_defaults(template) is template


MAIN = {"name": "main", "image": "img:1"}

VALIDATE_CASES = [
    ("valid", {"containers": [MAIN]}, []),
    ("containers-required", {"volumes": []}, ["spec.podTemplate.spec.containers: required field missing"]),
    (
        "mount-without-path",
        {"containers": [{**MAIN, "volumeMounts": [{"name": "data"}]}]},
        ["spec.podTemplate.spec.containers[0].volumeMounts[0].mountPath: required field missing"],
    ),
    (
        "null-counts-as-missing",
        {"initContainers": [{"name": None, "image": "i"}], "containers": [MAIN]},
        ["spec.podTemplate.spec.initContainers[0].name: required field missing"],
    ),
    (
        "duplicate-env",
        {"containers": [{**MAIN, "env": [{"name": "A", "value": "1"}, {"name": "B"}, {"name": "A", "value": "2"}]}]},
        ['spec.podTemplate.spec.containers[0].env[2]: duplicate entry {"name": "A"} (the list is keyed by name)'],
    ),
    (
        "duplicate-port-by-port-and-protocol",
        {"containers": [{**MAIN, "ports": [
            {"containerPort": 80, "protocol": "TCP"},
            {"containerPort": 80, "protocol": "UDP"},
            {"containerPort": 80, "protocol": "TCP", "name": "again"},
        ]}]},
        ['spec.podTemplate.spec.containers[0].ports[2]: duplicate entry {"containerPort": 80, "protocol": "TCP"} '
         "(the list is keyed by containerPort, protocol)"],
    ),
    (
        "duplicate-volumes-and-containers",
        {"containers": [MAIN, MAIN], "volumes": [{"name": "v", "emptyDir": {}}, {"name": "v", "emptyDir": {}}]},
        [
            'spec.podTemplate.spec.containers[1]: duplicate entry {"name": "main"} (the list is keyed by name)',
            'spec.podTemplate.spec.volumes[1]: duplicate entry {"name": "v"} (the list is keyed by name)',
        ],
    ),
    (
        "nested-required-in-affinity-and-volume-sources",
        {
            "containers": [{**MAIN, "readinessProbe": {"httpGet": {"path": "/h"}}}],
            "affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{"labelSelector": {"matchExpressions": [{"key": "a"}]}}]}},
            "volumes": [{"name": "p", "projected": {"sources": [{"secret": {"items": [{"key": "k"}]}}]}}],
        },
        [
            "spec.podTemplate.spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector.matchExpressions[0].operator: required field missing",
            "spec.podTemplate.spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: required field missing",
            "spec.podTemplate.spec.containers[0].readinessProbe.httpGet.port: required field missing",
            "spec.podTemplate.spec.volumes[0].projected.sources[0].secret.items[0].path: required field missing",
        ],
    ),
    ("items-missing-keys-are-not-duplicates", {"containers": [MAIN, {"image": "x"}, {"image": "y"}]}, [
        "spec.podTemplate.spec.containers[1].name: required field missing",
        "spec.podTemplate.spec.containers[2].name: required field missing",
    ]),
    ("wrong-types-are-left-to-the-decoder", {"containers": "nope", "volumes": [3]}, []),
]


@pytest.mark.parametrize(("spec", "want"), [(c[1], c[2]) for c in VALIDATE_CASES], ids=[c[0] for c in VALIDATE_CASES])
def test_validate(spec: dict[str, Any], want: list[str]) -> None:
    assert [f"{r.field}: {r.message}" for r in validate({"spec": spec}, "spec.podTemplate")] == want


@pytest.mark.parametrize("template", [None, {"metadata": {}}], ids=["none", "no-spec"])
def test_validate_without_spec(template: Any) -> None:
    assert validate(template, "spec.podTemplate") == []
