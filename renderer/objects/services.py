"""Services and ingress objects of a DCD.

Mirrors: internal/controller/dynamocomponentdeployment_renderer.go generateService,
internal/dynamo/graph.go GenerateComponentService, GenerateComponentIngress,
GenerateComponentVirtualService, GenerateDefaultIngressSpec, getIngressHost;
internal/dynamo/model_service.go generateHeadlessServiceForModel;
internal/controller/dynamocomponentdeployment_controller.go dcdIngressSpec.
"""

from __future__ import annotations

from renderer.records import dataclass
from typing import Any

from renderer import consts
from renderer.admission.api import DCD
from renderer.operator_config import IngressConfiguration
from renderer.pod.labels import component_name, dynamo_namespace, is_k8s_discovery_enabled, kube_annotations, kube_labels, object_meta
from renderer.pod.naming import hash_model_name, model_service_name, normalize_kube_resource_name
from renderer.results import RenderError


def render_component_service(dcd: DCD, workload_type: str, discovery_default: str) -> dict[str, Any] | None:
    """The component's ClusterIP Service, or None when the operator would delete it.

    It exists for every component under Kubernetes discovery, otherwise only for frontends.
    A multinode component selects the LWS leader; its selector has no worker hash.
    Mirrors: internal/controller/dynamocomponentdeployment_renderer.go generateService and
    internal/dynamo/graph.go GenerateComponentService.
    """
    annotations = kube_annotations(dcd)
    k8s_discovery = is_k8s_discovery_enabled(discovery_default, annotations)
    if not (k8s_discovery or dcd.component_type == consts.COMPONENT_TYPE_FRONTEND):
        return None
    namespace = dynamo_namespace(dcd)
    if not namespace:
        raise RenderError(f"expected DynamoComponentDeployment {dcd.name} to have a dynamoNamespace", "metadata.labels")

    selector = {
        consts.LABEL_COMPONENT_TYPE: workload_type,
        consts.LABEL_NAMESPACE: namespace,
        consts.LABEL_COMPONENT: component_name(dcd),
    }
    if dcd.spec.is_multinode:
        selector[consts.LABEL_ROLE] = consts.ROLE_LEADER
    return component_service(dcd.name, dcd.namespace, workload_type, kube_labels(dcd), annotations, selector, k8s_discovery)


def component_service(
    name: str,
    namespace: str,
    component_type: str,
    labels: dict[str, str],
    annotations: dict[str, str],
    selector: dict[str, str],
    k8s_discovery: bool,
) -> dict[str, Any]:
    """A component's ClusterIP Service: its port by component type, discovery labels when on.

    Shared by the DCD controller and the Grove pathway.
    Mirrors: internal/dynamo/graph.go GenerateComponentService.
    """
    if component_type == consts.COMPONENT_TYPE_FRONTEND:
        port: dict[str, Any] = {
            "name": consts.DYNAMO_SERVICE_PORT_NAME,
            "port": consts.DYNAMO_SERVICE_PORT,
            "targetPort": consts.DYNAMO_CONTAINER_PORT_NAME,
            "protocol": "TCP",
        }
    elif component_type == consts.COMPONENT_TYPE_EPP:
        port = {
            "name": consts.EPP_GRPC_PORT_NAME,
            "port": consts.EPP_GRPC_PORT,
            "targetPort": consts.EPP_GRPC_PORT,
            "protocol": "TCP",
            "appProtocol": "http2",
        }
    else:
        port = {
            "name": consts.DYNAMO_SYSTEM_PORT_NAME,
            "port": consts.DYNAMO_SYSTEM_PORT,
            "targetPort": consts.DYNAMO_SYSTEM_PORT_NAME,
            "protocol": "TCP",
        }
    labels = dict(labels)
    if k8s_discovery:
        labels[consts.LABEL_DISCOVERY_BACKEND] = consts.DISCOVERY_BACKEND_KUBERNETES
        labels[consts.LABEL_DISCOVERY_ENABLED] = consts.LABEL_VALUE_TRUE
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": object_meta(normalize_kube_resource_name(name), namespace, labels, annotations),
        "spec": {"selector": selector, "ports": [port]},
    }


def render_model_service(dcd: DCD) -> dict[str, Any] | None:
    """A headless Service per base model, shared by every component serving it.

    Mirrors: internal/dynamo/model_service.go generateHeadlessServiceForModel.
    """
    if dcd.spec.model_ref is None or not dcd.spec.model_ref.name:
        return None
    model = dcd.spec.model_ref.name
    return model_service(model, dcd.namespace, {consts.ANNOTATION_BASE_MODEL: model})


def model_service(model: str, namespace: str, annotations: dict[str, str]) -> dict[str, Any]:
    """The headless Service of one base model: it selects pods by the model's name hash.

    Shared by the DCD controller and the Grove pathway.
    Mirrors: internal/dynamo/model_service.go generateHeadlessServiceForModel.
    """
    model_hash = hash_model_name(model)
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": object_meta(
            model_service_name(model),
            namespace,
            {consts.LABEL_BASE_MODEL_HASH: model_hash, consts.LABEL_MANAGED_BY: "dynamo-operator"},
            annotations,
        ),
        "spec": {
            "clusterIP": "None",
            "selector": {consts.LABEL_BASE_MODEL_HASH: model_hash},
            "ports": [
                {
                    "name": consts.DYNAMO_SYSTEM_PORT_NAME,
                    "port": consts.DYNAMO_SYSTEM_PORT,
                    "targetPort": consts.DYNAMO_SYSTEM_PORT,
                    "protocol": "TCP",
                }
            ],
        },
    }


@dataclass(frozen=True)
class IngressSpec:
    """The operator's internal ingress shape (from config defaults for a frontend).

    Mirrors: internal/dynamo/ingress_types.go IngressSpec.
    """

    enabled: bool
    host: str
    use_virtual_service: bool
    virtual_service_gateway: str | None
    ingress_class_name: str | None
    tls_secret_name: str | None
    host_suffix: str | None
    host_prefix: str | None = None

    @property
    def virtual_service_enabled(self) -> bool:
        return self.enabled and self.use_virtual_service and self.virtual_service_gateway is not None

    def full_host(self) -> str:
        """Mirrors: internal/dynamo/graph.go getIngressHost."""
        host = (self.host_prefix or "") + self.host
        suffix = self.host_suffix if self.host_suffix is not None else consts.DEFAULT_INGRESS_SUFFIX
        return f"{host}.{suffix}"


def ingress_spec(dcd: DCD, config: IngressConfiguration) -> IngressSpec | None:
    """Only a frontend with a known parent DGD gets the operator's default ingress.

    A converted v1alpha1 component's own ``ingress`` (any component type) comes first.
    Mirrors: internal/controller/dynamocomponentdeployment_controller.go dcdIngressSpec and
    internal/dynamo/graph.go GenerateDefaultIngressSpec; v1beta1_helpers.go
    GetDCDPreservedAlphaIngressSpec.
    """
    preserved = dcd.alpha.ingress
    if preserved is not None:
        return preserved_ingress_spec(preserved)
    if dcd.component_type != consts.COMPONENT_TYPE_FRONTEND:
        return None
    parent = dcd.owner_dgd or dcd.labels.get(consts.LABEL_GRAPH_DEPLOYMENT_NAME, "")
    if not parent:
        return None
    return default_ingress_spec(parent, config)


def preserved_ingress_spec(preserved: dict[str, Any]) -> IngressSpec:
    """A preserved v1alpha1 ``ingress`` read as the operator's internal ingress shape.

    Mirrors: internal/dynamo/v1beta1_helpers.go GetDCDPreservedAlphaIngressSpec and
    internal/dynamo/graph.go GetDGDComponentPreservedIngressSpec (both a JSON round trip).
    """
    tls = preserved.get("tls")
    return IngressSpec(
        enabled=bool(preserved.get("enabled")),
        host=str(preserved.get("host") or ""),
        use_virtual_service=bool(preserved.get("useVirtualService")),
        virtual_service_gateway=preserved.get("virtualServiceGateway"),
        ingress_class_name=preserved.get("ingressControllerClassName"),
        tls_secret_name=str(tls.get("secretName") or "") if isinstance(tls, dict) else None,
        host_suffix=preserved.get("hostSuffix"),
        host_prefix=preserved.get("hostPrefix"),
    )


def default_ingress_spec(dgd_name: str, config: IngressConfiguration) -> IngressSpec:
    """Mirrors: internal/dynamo/graph.go GenerateDefaultIngressSpec."""
    return IngressSpec(
        enabled=bool(config.virtual_service_gateway or config.controller_class_name),
        host=dgd_name,
        use_virtual_service=bool(config.virtual_service_gateway),
        virtual_service_gateway=config.virtual_service_gateway or None,
        ingress_class_name=config.controller_class_name or None,
        tls_secret_name=config.controller_tls_secret_name or None,
        host_suffix=config.host_suffix or None,
    )


def render_ingress(dcd: DCD, spec: IngressSpec | None) -> dict[str, Any] | None:
    """Mirrors: internal/dynamo/graph.go GenerateComponentIngress (via generateIngress)."""
    return render_named_ingress(dcd.name, dcd.namespace, spec)


def render_named_ingress(resource_name: str, namespace: str, spec: IngressSpec | None) -> dict[str, Any] | None:
    """The frontend Ingress named after ``resource_name``, or None when ingress is off.

    Mirrors: internal/dynamo/graph.go GenerateComponentIngress.
    """
    if spec is None or not spec.enabled or spec.ingress_class_name is None:
        return None
    name = normalize_kube_resource_name(resource_name)
    host = spec.full_host()
    ingress_spec: dict[str, Any] = {
        "ingressClassName": spec.ingress_class_name,
        "rules": [
            {
                "host": host,
                "http": {
                    "paths": [
                        {
                            "path": "/",
                            "pathType": "Prefix",
                            "backend": {"service": {"name": name, "port": {"number": consts.DYNAMO_SERVICE_PORT}}},
                        }
                    ]
                },
            }
        ],
    }
    if spec.tls_secret_name is not None:
        ingress_spec["tls"] = [{"hosts": [host], "secretName": spec.tls_secret_name}]
    return {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "Ingress",
        "metadata": object_meta(name, namespace),
        "spec": ingress_spec,
    }


def render_virtual_service(dcd: DCD, spec: IngressSpec | None, config: IngressConfiguration) -> dict[str, Any] | None:
    """Istio VirtualService, reconciled only when the operator config names a gateway.

    Mirrors: internal/dynamo/graph.go GenerateComponentVirtualService (via generateVirtualService).
    """
    return render_named_virtual_service(dcd.name, dcd.namespace, spec, config)


def render_named_virtual_service(
    resource_name: str, namespace: str, spec: IngressSpec | None, config: IngressConfiguration
) -> dict[str, Any] | None:
    """The frontend VirtualService named after ``resource_name``, or None when it is off.

    Mirrors: internal/dynamo/graph.go GenerateComponentVirtualService.
    """
    if not config.virtual_service_gateway or spec is None or not spec.virtual_service_enabled:
        return None
    assert spec.virtual_service_gateway is not None
    name = normalize_kube_resource_name(resource_name)
    return {
        "apiVersion": "networking.istio.io/v1beta1",
        "kind": "VirtualService",
        "metadata": object_meta(name, namespace),
        "spec": {
            "hosts": [spec.full_host()],
            "gateways": [spec.virtual_service_gateway],
            "http": [
                {
                    "match": [{"uri": {"prefix": "/"}}],
                    "route": [{"destination": {"host": name, "port": {"number": consts.DYNAMO_SERVICE_PORT}}}],
                }
            ],
        },
    }
