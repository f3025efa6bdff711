"""Resource names and name-derived values.

Mirrors: api/v1beta1/dynamocomponentdeployment_types.go ComputeDynamoNamespace,
internal/dynamo/graph.go NormalizeKubeResourceName, internal/discovery/resource.go
GetK8sDiscoveryServiceAccountName, internal/dynamo/model_service.go HashModelName.
"""

from __future__ import annotations

import hashlib

from renderer import consts


def compute_dynamo_namespace(global_namespace: bool, k8s_namespace: str, dgd_name: str) -> str:
    """``dynamo`` when global, else ``<k8s namespace>-<dgd name with dots as dashes>``.

    Mirrors: api/v1beta1 ComputeDynamoNamespace.
    """
    if global_namespace:
        return consts.GLOBAL_DYNAMO_NAMESPACE
    return f"{k8s_namespace}-{dgd_name.replace('.', '-')}"


def normalize_kube_resource_name(name: str) -> str:
    """Lower-case with dots as dashes, for Services/Ingresses that reject dots.

    Mirrors: internal/dynamo/graph.go NormalizeKubeResourceName.
    """
    return name.replace(".", "-").lower()


def k8s_discovery_service_account_name(parent_name: str) -> str:
    """Mirrors: internal/discovery/resource.go GetK8sDiscoveryServiceAccountName."""
    return f"{parent_name}{consts.K8S_DISCOVERY_SA_SUFFIX}"


def hash_model_name(model_name: str) -> str:
    """First 8 hex characters of SHA-256 of the model name.

    Mirrors: internal/dynamo/model_service.go HashModelName.
    """
    return hashlib.sha256(model_name.encode("utf-8")).hexdigest()[:8]


def model_service_name(model_name: str) -> str:
    """Mirrors: internal/dynamo/model_service.go GenerateModelServiceName."""
    return f"dynamo-model-{hash_model_name(model_name)}"


def lws_name(dcd_name: str) -> str:
    """The LeaderWorkerSet of a multinode DCD is ``<dcd>-0``.

    Why ``-0``: the LWS controller creates a headless Service named after the LWS, which would
    collide with the component Service ``<dcd>``; and older operators created one LWS per replica
    named ``<dcd>-<i>``, of which the native-scaling LWS adopts the first.
    Mirrors: internal/controller/dynamocomponentdeployment_controller.go generateLeaderWorkerSet.
    """
    return f"{dcd_name}-0"
