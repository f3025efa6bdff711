"""The schema validator used by every rendering test: it accepts what the operator emits and
catches what the API server would reject or silently prune.

Valid examples are the upstream operator goldens (tests/data/upstream, cleaned copies of
ai-dynamo/dynamo@2a6da14c8 testdata); invalid examples are those goldens with one thing broken.
"""

from __future__ import annotations

import copy
import functools
import json
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml

from tests import schemas
from tests.schemas import CRDValidator, assert_valid, structural_to_jsonschema, validate_object

DATA = Path(__file__).resolve().parent.parent / "data"
UPSTREAM = DATA / "upstream"


@functools.cache
def _load(relpath: str) -> tuple[dict[str, Any], ...]:
    with open(UPSTREAM / relpath) as f:
        return tuple(d for d in yaml.safe_load_all(f) if d)


def upstream(relpath: str, index: int = 0) -> dict[str, Any]:
    """A fresh copy of one upstream golden document; the caller owns it."""
    return copy.deepcopy(_load(relpath)[index])


def deployment() -> dict[str, Any]:
    return upstream("dcd/deployment/output.yaml")


def lws() -> dict[str, Any]:
    return upstream("dcd/lws/output.yaml")


def dcd() -> dict[str, Any]:
    return upstream("dcd/lws/input.yaml")


def dgd_v1alpha1() -> dict[str, Any]:
    return upstream("v1alpha1/agg.yaml")


def service(**spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "lws-manifest-decode", "labels": {"nvidia.com/dynamo-component": "decode"}},
        "spec": {
            "selector": {"nvidia.com/selector": "lws-manifest"},
            "ports": [{"name": "http", "port": 8000}],
            **spec,
        },
    }


def configmap() -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "lws-manifest-wait"},
        "data": {"wait.sh": "#!/bin/sh"},
    }


def role() -> dict[str, Any]:
    return {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "Role",
        "metadata": {"name": "lws-manifest-k8s-service-discovery"},
        "rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "list", "watch"]}],
    }


def inference_pool() -> dict[str, Any]:
    # the shape the operator's GenerateInferencePool sends (internal/dynamo/epp/inference_pool.go)
    return {
        "apiVersion": "inference.networking.k8s.io/v1",
        "kind": "InferencePool",
        "metadata": {"name": "graph-pool"},
        "spec": {
            "targetPorts": [{"number": 8000}],
            "selector": {"matchLabels": {"nvidia.com/dynamo-component-class": "worker"}},
            "endpointPickerRef": {"kind": "Service", "name": "graph-epp", "port": {"number": 9002}},
        },
    }


def virtual_service(name: str = "frontend") -> dict[str, Any]:
    return {
        "apiVersion": "networking.istio.io/v1beta1",
        "kind": "VirtualService",
        "metadata": {"name": name},
        "spec": {"hosts": ["frontend.example.com"], "gateways": ["istio-system/ingress"]},
    }


def _container(obj: dict[str, Any]) -> dict[str, Any]:
    container: dict[str, Any] = obj["spec"]["template"]["spec"]["containers"][0]
    return container


def _upstream_documents() -> list[Any]:
    params = []
    for path in sorted(UPSTREAM.rglob("*.yaml")):
        rel = path.relative_to(UPSTREAM).as_posix()
        for i, doc in enumerate(_load(rel)):
            params.append(pytest.param(rel, i, id=f"{rel}[{i}]-{doc['kind']}"))
    return params


UPSTREAM_DOCUMENTS = _upstream_documents()


def test_upstream_examples_are_found() -> None:
    assert len(UPSTREAM_DOCUMENTS) >= 10


@pytest.mark.parametrize(("relpath", "index"), UPSTREAM_DOCUMENTS)
def test_upstream_goldens_are_valid(relpath: str, index: int) -> None:
    assert validate_object(upstream(relpath, index)) == []


def test_crds_are_the_vendored_copies() -> None:
    assert schemas.CRD_DIR == DATA / "crds"
    assert sorted(p.name for p in schemas.CRD_DIR.glob("*.yaml")) == sorted(schemas.CRD_FILES.values())


def _keys(path: str | tuple[str, ...]) -> list[Any]:
    parts = path.split(".") if isinstance(path, str) else list(path)
    return [int(k) if k.isdigit() else k for k in parts]


def _set(path: str | tuple[str, ...], value: Any) -> Callable[[dict[str, Any]], None]:
    """A mutation that sets a path ("a.0.b" or a tuple of keys) on the object it is given."""

    def mutate(obj: dict[str, Any]) -> None:
        keys = _keys(path)
        node: Any = obj
        for key in keys[:-1]:
            node = node[key]
        node[keys[-1]] = value

    return mutate


def _delete(path: str) -> Callable[[dict[str, Any]], None]:
    def mutate(obj: dict[str, Any]) -> None:
        keys = _keys(path)
        node: Any = obj
        for key in keys[:-1]:
            node = node[key]
        del node[keys[-1]]

    return mutate


DEP_C0 = "spec.template.spec.containers.0"
LWS_LEADER = "spec.leaderWorkerTemplate.leaderTemplate"

# (id, object builder, mutation, regex one problem must match)
INVALID = [
    # Deployment (kubernetes-validate, strict, 1.36)
    ("deployment-unknown-container-field", deployment, _set(f"{DEP_C0}.imagePullPolicyy", "Always"),
     r"^spec\.template\.spec\.containers\[0\]: Additional properties are not allowed \('imagePullPolicyy' was unexpected\)$"),
    ("deployment-unknown-top-level-field", deployment, _set("extra", {}),
     r"^Additional properties are not allowed \('extra' was unexpected\)$"),
    ("deployment-wrong-type-replicas", deployment, _set("spec.replicas", "2"),
     r"^spec\.replicas: '2' is not of type 'integer', 'null'$"),
    ("deployment-wrong-type-args", deployment, _set(f"{DEP_C0}.args", "--model x"),
     r"^spec\.template\.spec\.containers\[0\]\.args: '--model x' is not of type 'array', 'null'$"),
    ("deployment-int32-overflow", deployment, _set("spec.replicas", 2**31),
     r"^spec\.replicas: 2147483648 is not a 'int32'$"),
    ("deployment-bad-quantity", deployment, _set("spec.template.spec.volumes.0.emptyDir.sizeLimit", "8 GB"),
     r"^spec\.template\.spec\.volumes\[0\]\.emptyDir\.sizeLimit: '8 GB' does not match"),
    ("deployment-bad-label-value-chars", deployment, _set(("spec", "template", "metadata", "labels", "nvidia.com/dynamo-component"), "de code"),
     r"^spec\.template\.metadata\.labels\['nvidia\.com/dynamo-component'\]: invalid label value 'de code'"),
    ("deployment-label-value-too-long", deployment, _set(("spec", "selector", "matchLabels", "nvidia.com/selector"), "x" * 64),
     r"^spec\.selector\.matchLabels\['nvidia\.com/selector'\]: invalid label value .*no more than 63 characters \(got 64\)$"),
    ("deployment-label-key-two-slashes", deployment, _set("metadata.labels", {"a/b/c": "x"}),
     r"^metadata\.labels\['a/b/c'\]: invalid label key: must be a name with an optional DNS subdomain prefix"),
    ("deployment-label-key-bad-prefix", deployment, _set("metadata.labels", {"Nvidia.com/x": "y"}),
     r"invalid label key: prefix part 'Nvidia\.com' must be a DNS-1123 subdomain"),
    ("deployment-label-key-name-too-long", deployment, _set("metadata.labels", {"nvidia.com/" + "k" * 64: "y"}),
     r"invalid label key: name part must be no more than 63 characters \(got 64\)$"),
    ("deployment-annotation-key", deployment, _set("metadata.annotations", {"-bad": "x"}),
     r"^metadata\.annotations\['-bad'\]: invalid annotation key: name part '-bad' must consist of"),
    ("deployment-label-not-string", deployment, _set("metadata.labels", {"enabled": True}),
     r"^metadata\.labels\.enabled: True is not of type 'string', 'null'$"),
    ("deployment-name-uppercase", deployment, _set("metadata.name", "Deployment-Manifest"),
     r"^metadata\.name: 'Deployment-Manifest' is not a DNS-1123 subdomain"),
    ("deployment-name-missing", deployment, _delete("metadata.name"), r"^metadata\.name: required$"),
    ("deployment-namespace", deployment, _set("metadata.namespace", "a.b"), r"^metadata\.namespace: 'a\.b' is not a DNS-1123 label$"),
    ("deployment-null", deployment, _set(f"{DEP_C0}.workingDir", None),
     r"^spec\.template\.spec\.containers\[0\]\.workingDir: null value \(omit the field instead\)$"),
    ("deployment-mount-without-volume", deployment, _set("spec.template.spec.volumes", []),
     r"^spec\.template\.spec\.containers\[0\]\.volumeMounts\[0\]\.name: volume 'shared-memory' not found in volumes$"),
    ("deployment-container-port-range", deployment, _set(f"{DEP_C0}.ports.0.containerPort", 70000),
     r"^spec\.template\.spec\.containers\[0\]\.ports\[0\]\.containerPort: must be between 1 and 65535 \(got 70000\)$"),
    ("deployment-container-port-name-too-long", deployment, _set(f"{DEP_C0}.ports.0.name", "system-metrics-port"),
     r"ports\[0\]\.name: 'system-metrics-port' is not a valid port name: must be 1 to 15 characters \(got 19\)$"),
    ("deployment-container-name", deployment, _set(f"{DEP_C0}.name", "Main"), r"containers\[0\]\.name: 'Main' is not a DNS-1123 label$"),
    ("deployment-spoofed-group", deployment, _set("apiVersion", "apps.example.com/v1"),
     r"^no schema for apps\.example\.com/v1/Deployment$"),
    # LeaderWorkerSet (vendored CRD v0.9.0)
    ("lws-missing-leaderworkertemplate", lws, _delete("spec.leaderWorkerTemplate"),
     r"^spec: 'leaderWorkerTemplate' is a required property$"),
    ("lws-unknown-spec-field", lws, _set("spec.leaderWorkerTemplates", {}),
     r"^spec: Additional properties are not allowed \('leaderWorkerTemplates' was unexpected\)$"),
    ("lws-unknown-container-field", lws, _set(f"{LWS_LEADER}.spec.containers.0.imagePullPolicyy", "Always"),
     r"^spec\.leaderWorkerTemplate\.leaderTemplate\.spec\.containers\[0\]: Additional properties are not allowed"),
    ("lws-template-metadata-pruned", lws, _set(f"{LWS_LEADER}.metadata.generateName", "x-"),
     r"leaderTemplate\.metadata: Additional properties are not allowed \('generateName' was unexpected\)$"),
    ("lws-wrong-type-size", lws, _set("spec.leaderWorkerTemplate.size", "2"),
     r"^spec\.leaderWorkerTemplate\.size: '2' is not of type 'integer'$"),
    ("lws-bad-enum", lws, _set("spec.startupPolicy", "LeaderFirst"), r"^spec\.startupPolicy: 'LeaderFirst' is not one of"),
    ("lws-bad-quantity", lws, _set(f"{LWS_LEADER}.spec.volumes.0.emptyDir.sizeLimit", "8 GB"),
     r"emptyDir\.sizeLimit: '8 GB' does not match"),
    ("lws-duplicate-env", lws, _set(f"{LWS_LEADER}.spec.containers.0.env.1", {"name": "DYN_COMPONENT", "value": "x"}),
     r"containers\[0\]\.env\[1\]: duplicate entry for list-map key \{\"name\": \"DYN_COMPONENT\"\} \(first at \[0\]\)$"),
    ("lws-duplicate-port-defaulted-protocol", lws, _set(f"{LWS_LEADER}.spec.containers.0.ports.1", {"containerPort": 9090}),
     r"ports\[1\]: duplicate entry for list-map key \{\"containerPort\": 9090, \"protocol\": \"TCP\"\}"),
    ("lws-bad-root-metadata", lws, _set("metadata.uid", 5), r"^metadata\.uid: 5 is not of type 'string', 'null'$"),
    ("lws-unknown-root-metadata-field", lws, _set("metadata.owner", "x"),
     r"^metadata: Additional properties are not allowed \('owner' was unexpected\)$"),
    ("lws-bad-template-label", lws, _set(f"{LWS_LEADER}.metadata.labels.role", "leader!"),
     r"leaderTemplate\.metadata\.labels\.role: invalid label value 'leader!'"),
    # DynamoComponentDeployment / DynamoGraphDeployment (vendored CRDs)
    ("dcd-unknown-spec-field", dcd, _set("spec.nodeCount", 2), r"^spec: Additional properties are not allowed \('nodeCount' was unexpected\)$"),
    ("dcd-wrong-type", dcd, _set("spec.multinode.nodeCount", "2"), r"^spec\.multinode\.nodeCount: '2' is not of type 'integer'$"),
    ("dcd-unknown-pod-field", dcd, _set("spec.podTemplate.spec.containers.0.imagee", "x"),
     r"^spec\.podTemplate\.spec\.containers\[0\]: Additional properties are not allowed \('imagee' was unexpected\)$"),
    ("dcd-unserved-version", dcd, _set("apiVersion", "nvidia.com/v1"), r"^no schema for nvidia\.com/v1/DynamoComponentDeployment$"),
    ("dgd-v1alpha1-unknown-service-field", dgd_v1alpha1, _set("spec.services.Frontend.componentTypo", "frontend"),
     r"^spec\.services\.Frontend: Additional properties are not allowed \('componentTypo' was unexpected\)$"),
    # Service
    ("service-port-string", service, _set("spec.ports", [{"name": "http", "port": "8000"}]),
     r"^spec\.ports\[0\]\.port: '8000' is not of type 'integer'$"),
    ("service-port-missing", service, _set("spec.ports", [{"name": "http", "targetPort": 8000}]),
     r"^spec\.ports\[0\]: 'port' is a required property$"),
    ("service-port-zero", service, _set("spec.ports.0.port", 0), r"^spec\.ports\[0\]\.port: must be between 1 and 65535 \(got 0\)$"),
    ("service-port-too-big", service, _set("spec.ports.0.port", 65536),
     r"^spec\.ports\[0\]\.port: must be between 1 and 65535 \(got 65536\)$"),
    ("service-target-port-name", service, _set("spec.ports.0.targetPort", "http_port"),
     r"^spec\.ports\[0\]\.targetPort: 'http_port' is not a valid port name: must contain only lower-case alphanumerics and '-'$"),
    ("service-target-port-digits", service, _set("spec.ports.0.targetPort", "8000"),
     r"^spec\.ports\[0\]\.targetPort: '8000' is not a valid port name: must contain at least one letter$"),
    ("service-target-port-range", service, _set("spec.ports.0.targetPort", 0),
     r"^spec\.ports\[0\]\.targetPort: must be between 1 and 65535 \(got 0\)$"),
    ("service-unnamed-ports", service, _set("spec.ports", [{"port": 80}, {"name": "b", "port": 81}]),
     r"^spec\.ports\[0\]\.name: required when a Service has more than one port$"),
    ("service-duplicate-port", service, _set("spec.ports", [{"name": "a", "port": 80}, {"name": "b", "port": 80, "protocol": "TCP"}]),
     r"^spec\.ports\[1\]: duplicate port 80/TCP$"),
    ("service-duplicate-port-name", service, _set("spec.ports", [{"name": "a", "port": 80}, {"name": "a", "port": 81}]),
     r"^spec\.ports\[1\]\.name: duplicate port name 'a'$"),
    ("service-bad-protocol", service, _set("spec.ports.0.protocol", "HTTP"),
     r"^spec\.ports\[0\]\.protocol: unsupported protocol 'HTTP' \(valid: TCP, UDP, SCTP\)$"),
    ("service-unknown-port-field", service, _set("spec.ports.0.target", 80),
     r"^spec\.ports\[0\]: Additional properties are not allowed \('target' was unexpected\)$"),
    ("service-name-dns1035", service, _set("metadata.name", "0-decode"), r"^metadata\.name: '0-decode' is not a DNS-1035 label"),
    ("service-name-with-dot", service, _set("metadata.name", "a.b"), r"^metadata\.name: 'a\.b' is not a DNS-1035 label"),
    ("service-selector-value", service, _set("spec.selector", {"a": "b c"}), r"^spec\.selector\.a: invalid label value 'b c'"),
    # ConfigMap, RBAC
    ("configmap-bad-key", configmap, _set("data", {"a b": "x"}), r"^data: invalid key 'a b'"),
    ("configmap-dotdot-key", configmap, _set("data", {"..a": "x"}), r"^data: invalid key '\.\.a'"),
    ("configmap-value-not-string", configmap, _set("data", {"a": 1}), r"^data\.a: 1 is not of type 'string', 'null'$"),
    ("role-misspelt-verbs", role, _set("rules.0", {"apiGroups": [""], "resources": ["pods"], "verb": ["get"]}),
     r"^rules\[0\]: 'verbs' is a required property$"),
    # kinds without a schema
    ("virtualservice-bad-name", virtual_service, _set("metadata.name", "Frontend"), r"^metadata\.name: 'Frontend' is not a DNS-1123 subdomain"),
    ("virtualservice-bad-metadata", virtual_service, _set("metadata.labels", {"a": 1}), r"^metadata\.labels\.a: 1 is not of type 'string', 'null'$"),
    ("inferencepool-no-name", inference_pool, _delete("metadata.name"), r"^metadata\.name: required$"),
]  # fmt: skip


@pytest.mark.parametrize(("build", "mutate", "expected"), [pytest.param(*c[1:], id=c[0]) for c in INVALID])
def test_catches(build: Callable[[], dict[str, Any]], mutate: Callable[[dict[str, Any]], None], expected: str) -> None:
    obj = build()
    assert validate_object(obj) == [], "the unmutated example must be valid"
    mutate(obj)
    problems = validate_object(obj)
    assert any(re.search(expected, p) for p in problems), problems


def test_dgd_v1alpha1_resource_items_are_strings() -> None:
    obj = dgd_v1alpha1()
    obj["spec"]["services"]["VllmDecodeWorker"]["resources"]["requests"]["custom"]["ephemeral-storage"] = 2
    assert validate_object(obj) == [
        "spec.services.VllmDecodeWorker.resources.requests.custom.ephemeral-storage: 2 is not of type 'string'"
    ]


@pytest.mark.parametrize(
    "obj",
    [
        pytest.param(service(ports=[{"name": "http", "port": 8000, "targetPort": "http", "protocol": "TCP"}]), id="service"),
        pytest.param(service(clusterIP="None", ports=[{"port": 8000, "targetPort": 8000}]), id="headless-service-one-unnamed-port"),
        pytest.param({"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "lws-manifest-k8s-service-discovery"}}, id="sa"),
        pytest.param({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"wait.sh": "#!/bin/sh", ".env": ""}}, id="cm"),
        pytest.param({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding", "metadata": {"name": "rb"},
                      "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "r"},
                      "subjects": [{"kind": "ServiceAccount", "name": "sa"}]}, id="rolebinding"),
        pytest.param({"apiVersion": "networking.k8s.io/v1", "kind": "Ingress", "metadata": {"name": "frontend"},
                      "spec": {"rules": [{"host": "a.example.com", "http": {"paths": [{"path": "/", "pathType": "Prefix",
                               "backend": {"service": {"name": "frontend", "port": {"number": 8000}}}}]}}]}}, id="ingress"),
        pytest.param(virtual_service(), id="virtualservice-shape-only"),
        pytest.param(inference_pool(), id="inferencepool"),
        pytest.param({"apiVersion": "networking.istio.io/v1beta1", "kind": "DestinationRule", "metadata": {"name": "epp"},
                      "spec": {"anything": {"goes": True}}}, id="destinationrule-shape-only"),
        pytest.param({"apiVersion": "nvidia.com/v1alpha1", "kind": "DynamoGraphDeploymentScalingAdapter",
                      "metadata": {"name": "graph-decode"},
                      "spec": {"replicas": 1, "dgdRef": {"name": "graph", "serviceName": "decode"}}}, id="dgdsa-v1alpha1"),
    ],
)  # fmt: skip
def test_accepts(obj: dict[str, Any]) -> None:
    assert validate_object(obj) == []


def test_operator_style_empty_resources_and_percent_surge_are_valid() -> None:
    # the operator emits `resources: {}` and `maxSurge: 25%`; strict schemas must not reject them
    obj = deployment()
    assert _container(obj)["resources"] == {}
    assert obj["spec"]["strategy"]["rollingUpdate"]["maxSurge"] == "25%"
    _container(obj)["resources"] = {
        "limits": {"nvidia.com/gpu": "1", "cpu": 2, "memory": "8Gi"},
        "requests": {"cpu": "500m"},
    }
    assert validate_object(obj) == []


def test_unknown_kind_is_one_problem() -> None:
    obj = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "Bad Name"}, "spec": None}
    assert validate_object(obj) == ["no schema for example.com/v1/Widget"]


@pytest.mark.parametrize(
    ("obj", "expected"),
    [
        pytest.param([], ["not a mapping (got list)"], id="list"),
        pytest.param({"kind": "Service"}, ["apiVersion and kind must be non-empty strings"], id="no-apiversion"),
        pytest.param(
            {"apiVersion": "v1", "kind": ""}, ["apiVersion and kind must be non-empty strings"], id="empty-kind"
        ),
    ],
)
def test_malformed_objects(obj: Any, expected: list[str]) -> None:
    assert validate_object(obj) == expected


def test_schema_sources_cover_the_rendered_kinds() -> None:
    covered = {
        ("apps/v1", "Deployment"): "kubernetes",
        ("v1", "Service"): "kubernetes",
        ("v1", "ServiceAccount"): "kubernetes",
        ("v1", "ConfigMap"): "kubernetes",
        ("rbac.authorization.k8s.io/v1", "Role"): "kubernetes",
        ("rbac.authorization.k8s.io/v1", "RoleBinding"): "kubernetes",
        ("networking.k8s.io/v1", "Ingress"): "kubernetes",
        ("leaderworkerset.x-k8s.io/v1", "LeaderWorkerSet"): "crd",
        ("nvidia.com/v1beta1", "DynamoComponentDeployment"): "crd",
        ("nvidia.com/v1alpha1", "DynamoComponentDeployment"): "crd",
        ("nvidia.com/v1beta1", "DynamoGraphDeployment"): "crd",
        ("nvidia.com/v1alpha1", "DynamoGraphDeployment"): "crd",
        ("networking.istio.io/v1beta1", "VirtualService"): "shape",
        ("inference.networking.k8s.io/v1", "InferencePool"): "crd",
        ("networking.istio.io/v1beta1", "DestinationRule"): "shape",
        ("nvidia.com/v1alpha1", "DynamoGraphDeploymentScalingAdapter"): "crd",
        ("nvidia.com/v1beta1", "DynamoGraphDeploymentScalingAdapter"): "crd",
        ("networking.istio.io/v1", "VirtualService"): None,
        ("leaderworkerset.x-k8s.io/v1alpha1", "LeaderWorkerSet"): None,
        ("v1", "Deployment"): None,
    }
    assert {gvk: schemas.schema_source(*gvk) for gvk in covered} == covered
    assert len(schemas.SHAPE_CHECKED_ONLY) == 2


def test_assert_valid_lists_every_problem_of_every_object() -> None:
    bad_dep = deployment()
    bad_dep["spec"]["replicas"] = "2"
    bad_dep["metadata"]["labels"] = {"a": "b c"}
    bad_lws = lws()
    del bad_lws["spec"]["leaderWorkerTemplate"]
    with pytest.raises(AssertionError) as caught:
        assert_valid([deployment(), bad_dep, bad_lws])
    message = str(caught.value)
    assert message.splitlines() == [
        "3 schema problem(s):",
        "[1] apps/v1/Deployment/deployment-manifest spec.replicas: '2' is not of type 'integer', 'null'",
        (
            "[1] apps/v1/Deployment/deployment-manifest metadata.labels.a: invalid label value 'b c': must be empty or "
            "consist of alphanumerics, '-', '_' or '.', and start and end with an alphanumeric"
        ),
        "[2] leaderworkerset.x-k8s.io/v1/LeaderWorkerSet/lws-manifest-0 spec: 'leaderWorkerTemplate' is a required property",
    ]
    assert_valid([deployment(), lws()])
    assert_valid(deployment())


# --- structural schema translation -------------------------------------------------------------


def _crd_problems(schema: dict[str, Any], instance: Any) -> list[str]:
    validator = CRDValidator(structural_to_jsonschema(schema), format_checker=schemas.FORMATS)
    return sorted(schemas._problem(e.absolute_path, e.message) for e in validator.iter_errors(instance))


OBJ = {
    "type": "object",
    "properties": {
        "port": {"anyOf": [{"type": "integer"}, {"type": "string"}], "x-kubernetes-int-or-string": True},
        "bare": {"x-kubernetes-int-or-string": True},
        "free": {
            "type": "object",
            "x-kubernetes-preserve-unknown-fields": True,
            "properties": {"n": {"type": "integer"}},
        },
        "any": {"x-kubernetes-preserve-unknown-fields": True},
        "opt": {"type": "string", "nullable": True},
        "embedded": {
            "type": "object",
            "x-kubernetes-embedded-resource": True,
            "properties": {"spec": {"type": "object"}},
        },
        "marker": {"type": "object"},
        "set": {"type": "array", "items": {"type": "string"}, "x-kubernetes-list-type": "set"},
    },
}


@pytest.mark.parametrize(
    ("instance", "expected"),
    [
        pytest.param({"port": 8000, "bare": "http"}, [], id="int-or-string-ok"),
        pytest.param({"port": 1.5, "bare": True}, ["bare: True is not valid under any of the given schemas",
                                                   "port: 1.5 is not valid under any of the given schemas"], id="int-or-string-bad"),
        pytest.param({"free": {"n": 1, "whatever": [1]}, "any": [{"x": None}]}, [], id="preserve-unknown-fields"),
        pytest.param({"free": {"n": "1"}}, ["free.n: '1' is not of type 'integer'"], id="preserve-unknown-fields-known-typed"),
        pytest.param({"opt": None}, [], id="nullable"),
        pytest.param({"embedded": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {}}}, [], id="embedded-ok"),
        pytest.param({"embedded": {"metadata": {"nam": "p"}}},
                     ["embedded.metadata: Additional properties are not allowed ('nam' was unexpected)",
                      "embedded: 'apiVersion' is a required property", "embedded: 'kind' is a required property"], id="embedded-bad"),
        pytest.param({"marker": {}}, [], id="empty-marker-object"),
        pytest.param({"marker": {"x": 1}}, ["marker: Additional properties are not allowed ('x' was unexpected)"], id="pruned-field"),
        pytest.param({"nope": 1}, ["Additional properties are not allowed ('nope' was unexpected)"], id="pruned-top-level"),
        pytest.param({"set": ["a", "b", "a"]}, ["set[2]: duplicate value 'a' in a list-type set"], id="list-set"),
    ],
)  # fmt: skip
def test_structural_extensions(instance: dict[str, Any], expected: list[str]) -> None:
    assert _crd_problems(OBJ, instance) == sorted(expected)


def test_non_nullable_crd_field_rejects_null() -> None:
    assert _crd_problems(OBJ, {"marker": None}) == ["marker: None is not of type 'object'"]


# --- the LWS CRD pod template is as strict as core 1.36 ---------------------------------------


def test_lws_crd_pod_template_is_not_looser_than_core() -> None:
    """Every core PodTemplateSpec.spec field, required list, type and enum is in the LWS CRD.

    This is why LWS templates are validated by the CRD alone (see tests/schemas.py docstring).
    """
    defs = schemas._core_registry().contents("https://kubernetes.io/api/_definitions.json")["$defs"]

    def resolve(node: dict[str, Any]) -> dict[str, Any]:
        while "$ref" in node:
            node = defs[node["$ref"].rsplit("/", 1)[-1]]
        return node

    gaps: list[str] = []

    def compare(crd: dict[str, Any], core: dict[str, Any], path: str, depth: int) -> None:
        core = resolve(core)
        if depth > 12:
            return
        core_types = [
            t for t in ([core["type"]] if isinstance(core.get("type"), str) else core.get("type", [])) if t != "null"
        ]
        if "type" in crd and core_types and [crd["type"]] != core_types:
            gaps.append(f"{path}: type {crd['type']} vs {core_types}")
        if not set(core.get("required", [])) <= set(crd.get("required", [])):
            gaps.append(f"{path}: required {crd.get('required')} vs {core.get('required')}")
        if "enum" in core and core.get("enum") != crd.get("enum"):
            gaps.append(f"{path}: enum {crd.get('enum')} vs {core['enum']}")
        for name, sub in (core.get("properties") or {}).items():
            if name not in (crd.get("properties") or {}):
                gaps.append(f"{path}.{name}: missing from the CRD")
            else:
                compare(crd["properties"][name], sub, f"{path}.{name}", depth + 1)
        for keyword, suffix in (("items", "[]"), ("additionalProperties", "{}")):
            if isinstance(core.get(keyword), dict) and isinstance(crd.get(keyword), dict):
                compare(crd[keyword], core[keyword], path + suffix, depth + 1)

    crd = schemas._load_crd(schemas.CRD_FILES[("leaderworkerset.x-k8s.io", "LeaderWorkerSet")])
    template = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"][
        "leaderWorkerTemplate"
    ]
    for which in ("leaderTemplate", "workerTemplate"):
        compare(
            template["properties"][which]["properties"]["spec"],
            {"$ref": "#/$defs/io.k8s.api.core.v1.PodSpec"},
            which,
            0,
        )
    # embedded ObjectMeta inside PodSpec volumes is narrowed by controller-gen exactly like the template metadata
    assert [g for g in gaps if ".ephemeral.volumeClaimTemplate.metadata." not in g] == []


# --- agreement with kubernetes-validate's own entry point and speed ---------------------------


@pytest.mark.parametrize(
    ("mutate", "valid"),
    [
        pytest.param(None, True, id="golden"),
        pytest.param(_set(f"{DEP_C0}.imagePullPolicyy", "Always"), False, id="unknown-field"),
        pytest.param(_set("spec.replicas", "2"), False, id="wrong-type"),
        pytest.param(_delete(f"{DEP_C0}.name"), False, id="missing-required"),
    ],
)
def test_agrees_with_kubernetes_validate(mutate: Callable[[dict[str, Any]], None] | None, valid: bool) -> None:
    obj = deployment()
    if mutate is not None:
        mutate(obj)
    try:
        kubernetes_validate.validate(obj, schemas.KUBERNETES_VERSION, strict=True)
        library_valid = True
    except kubernetes_validate.ValidationError:
        library_valid = False
    assert library_valid is valid
    assert (validate_object(obj) == []) is valid


def test_thousands_of_objects_validate_quickly() -> None:
    objs = [deployment(), lws(), service(ports=[{"name": "http", "port": 8000}])] * 200
    validate_object(objs[0])
    validate_object(objs[1])  # schema loading is paid once, outside the measurement
    started = time.perf_counter()
    assert_valid(objs)
    elapsed = time.perf_counter() - started
    # ~1,000 objects/s on a 2-core machine; uncached kubernetes_validate.validate is ~80/s
    assert elapsed < 20, f"{len(objs)} objects took {elapsed:.1f}s ({len(objs) / elapsed:.0f}/s)"


def test_schema_files_are_valid_json() -> None:
    # the quantity tightening must keep the definitions a valid 2020-12 document
    defs = schemas._core_registry().contents("https://kubernetes.io/api/_definitions.json")
    json.dumps(defs)
    assert defs["$defs"]["io.k8s.apimachinery.pkg.api.resource.Quantity"]["pattern"] == schemas.QUANTITY_PATTERN


def test_inference_pool_and_scaling_adapter_are_checked_against_their_crds() -> None:
    pool = inference_pool()
    pool["spec"]["endpointPickerRef"]["portNumber"] = 9002  # not a field: pruned by the API server
    assert validate_object(pool) != []
    adapter = {
        "apiVersion": "nvidia.com/v1alpha1",
        "kind": "DynamoGraphDeploymentScalingAdapter",
        "metadata": {"name": "graph-decode"},
        "spec": {"replicas": 1, "dgdRef": {"name": "graph"}},  # serviceName is required
    }
    assert validate_object(adapter) != []
