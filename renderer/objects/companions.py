"""Objects the DGD controller creates beside the DCDs, which rendered pods reference.

The Kubernetes-discovery ServiceAccount, Role and RoleBinding; the planner and EPP
ServiceAccounts with their ClusterRole bindings (cluster-wide operators only); the vLLM
wait-for-leader ConfigMap; the EPP InferencePool. Each builder returns a fresh dict.

Mirrors: internal/discovery/resource.go, internal/rbac/manager.go EnsureServiceAccountWithRBAC,
internal/controller/{dgd_rbac_reconciler.go,dgd_discovery_reconciler.go,
dgd_wait_for_leader_reconciler.go,dgd_epp_reconciler.go}, internal/dynamo/backend_vllm.go
GenerateWaitLeaderConfigMap, internal/dynamo/epp/inference_pool.go GenerateInferencePool.
"""

from __future__ import annotations

import hashlib
from typing import Any

from renderer import consts
from renderer.pod.naming import k8s_discovery_service_account_name
from renderer.pod.wait_leader_script import WAIT_LEADER_SCRIPT

RBAC_GROUP = "rbac.authorization.k8s.io"
WAIT_LEADER_SCRIPT_KEY = "wait-for-leader.py"


def _rbac_labels(name: str) -> dict[str, str]:
    return {
        "app.kubernetes.io/component": "rbac",
        "app.kubernetes.io/managed-by": "dynamo-operator",
        "app.kubernetes.io/name": name,
    }


def discovery_label_value(service_account: str) -> str:
    """The SA name, or when longer than 63 characters its first 54 plus ``-`` and 8 hex of SHA-256.

    Mirrors: internal/discovery/resource.go getK8sDiscoveryLabelValue.
    """
    if len(service_account) <= 63:
        return service_account
    digest = hashlib.sha256(service_account.encode("utf-8")).hexdigest()[:8]
    return f"{service_account[: 63 - len(digest) - 1]}-{digest}"


def discovery_rbac(parent: str, namespace: str) -> list[dict[str, Any]]:
    """ServiceAccount, Role and RoleBinding that let pods use Kubernetes discovery.

    Mirrors: internal/discovery/resource.go GetK8sDiscoveryServiceAccount, GetK8sDiscoveryRole,
    GetK8sDiscoveryRoleBinding.
    """
    name = k8s_discovery_service_account_name(parent)
    labels = _rbac_labels(discovery_label_value(name))
    role = f"{name}-role"
    return [
        _service_account(name, namespace, labels),
        {
            "apiVersion": f"{RBAC_GROUP}/v1",
            "kind": "Role",
            "metadata": {"name": role, "namespace": namespace, "labels": dict(labels)},
            "rules": [
                {"apiGroups": [""], "resources": ["endpoints", "pods"], "verbs": ["get", "list", "watch"]},
                {"apiGroups": ["discovery.k8s.io"], "resources": ["endpointslices"], "verbs": ["get", "list", "watch"]},
                {
                    "apiGroups": [consts.DYNAMO_GROUP],
                    "resources": ["dynamoworkermetadatas"],
                    "verbs": ["create", "get", "list", "watch", "update", "patch", "delete"],
                },
            ],
        },
        _role_binding(name, namespace, labels, "Role", role),
    ]


def service_account_with_cluster_role(service_account: str, namespace: str, cluster_role: str) -> list[dict[str, Any]]:
    """A shared per-namespace ServiceAccount bound to an operator-installed ClusterRole.

    The operator first checks that the ClusterRole exists (Helm installs it); offline that
    check is assumed to pass.
    Mirrors: internal/rbac/manager.go EnsureServiceAccountWithRBAC.
    """
    labels = _rbac_labels(service_account)
    return [
        _service_account(service_account, namespace, labels),
        _role_binding(service_account, namespace, labels, "ClusterRole", cluster_role),
    ]


def _service_account(name: str, namespace: str, labels: dict[str, str]) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "ServiceAccount",
        "metadata": {"name": name, "namespace": namespace, "labels": dict(labels)},
    }


def _role_binding(service_account: str, namespace: str, labels: dict[str, str], role_kind: str, role: str) -> dict[str, Any]:
    """``<service account>-binding``: binds the service account to a Role or ClusterRole."""
    return {
        "apiVersion": f"{RBAC_GROUP}/v1",
        "kind": "RoleBinding",
        "metadata": {"name": f"{service_account}-binding", "namespace": namespace, "labels": dict(labels)},
        "subjects": [{"kind": "ServiceAccount", "name": service_account, "namespace": namespace}],
        "roleRef": {"apiGroup": RBAC_GROUP, "kind": role_kind, "name": role},
    }


def wait_leader_config_map(parent: str, namespace: str) -> dict[str, Any]:
    """Mirrors: internal/dynamo/backend_vllm.go GenerateWaitLeaderConfigMap."""
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {
            "name": f"{parent}-wait-leader-script",
            "namespace": namespace,
            "labels": {consts.LABEL_GRAPH_DEPLOYMENT_NAME: parent},
        },
        "data": {WAIT_LEADER_SCRIPT_KEY: WAIT_LEADER_SCRIPT},
    }


def inference_pool(dgd_name: str, namespace: str, component: str, dynamo_namespace: str, epp_service: str) -> dict[str, Any]:
    """The EPP's InferencePool selecting the graph's worker-class pods.

    Mirrors: internal/dynamo/epp/inference_pool.go GenerateInferencePool.
    """
    return {
        "apiVersion": "inference.networking.k8s.io/v1",
        "kind": "InferencePool",
        "metadata": {
            "name": f"{dgd_name}-pool",
            "namespace": namespace,
            "labels": {
                consts.LABEL_COMPONENT: component,
                consts.LABEL_COMPONENT_TYPE: consts.COMPONENT_TYPE_EPP,
                consts.LABEL_GRAPH_DEPLOYMENT_NAME: dgd_name,
            },
        },
        "spec": {
            "targetPorts": [{"number": consts.DYNAMO_SERVICE_PORT}],
            "selector": {
                "matchLabels": {
                    consts.LABEL_COMPONENT_CLASS: "worker",
                    consts.LABEL_NAMESPACE: dynamo_namespace,
                }
            },
            "endpointPickerRef": {"kind": "Service", "name": epp_service, "port": {"number": consts.EPP_GRPC_PORT}},
        },
    }


def scaling_adapter(dgd_name: str, namespace: str, component: str, replicas: int | None) -> dict[str, Any]:
    """The DynamoGraphDeploymentScalingAdapter of a component that sets ``scalingAdapter``.

    The operator writes the deprecated ``nvidia.com/v1alpha1`` form (``dgdRef.serviceName``);
    the API server stores it as v1beta1. ``spec.replicas`` is seeded from the component
    (1 when unset) when the adapter is created; afterwards the adapter owns it.
    Mirrors: internal/controller/dgd_scaling_adapters_reconciler.go Reconcile, generateAdapterName
    """
    return {
        "apiVersion": consts.V1ALPHA1,
        "kind": "DynamoGraphDeploymentScalingAdapter",
        "metadata": {
            "name": f"{dgd_name}-{component.lower()}",
            "namespace": namespace,
            "labels": {consts.LABEL_GRAPH_DEPLOYMENT_NAME: dgd_name, consts.LABEL_COMPONENT: component},
        },
        "spec": {"replicas": 1 if replicas is None else replicas, "dgdRef": {"name": dgd_name, "serviceName": component}},
    }
