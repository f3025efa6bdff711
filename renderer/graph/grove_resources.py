"""The stable side objects of the Grove pathway: model, component and elastic-EP Services, ingress.

On the Grove pathway no DCD exists, so the DGD controller creates what the DCD controller
would: a headless Service per base model, each component's Service (every component under
Kubernetes discovery, else only frontends), the headless Service a single-pod elastic-EP
leader is joined at, and the frontend's Ingress or VirtualService. A converted v1alpha1 DGD's
preserved component labels and annotations go on the component Services, and a frontend's
preserved ``ingress`` replaces the default one from the operator configuration.

Mirrors: internal/controller/dgd_grove_stable_resources_reconciler.go Reconcile,
reconcileComponentService, isSinglePodElasticEPLeader, reconcileElasticEPLeaderService,
reconcileFrontendIngress; internal/dynamo/model_service.go ReconcileModelServicesForComponents,
generateHeadlessServiceForModel; internal/dynamo/graph.go GenerateComponentService,
ElasticEPLeaderServiceName, GenerateElasticEPHeadlessService, GetDGDComponentResourceLabels,
GetDGDComponentResourceAnnotations, GetDGDComponentPreservedIngressSpec.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from renderer import consts
from renderer.config import RenderConfig
from renderer.admission.flags import is_elastic_ep_ray_launch
from renderer.conversion.alpha_view import AlphaView
from renderer.pod.labels import is_k8s_discovery_enabled, is_worker_component, object_meta
from renderer.pod.naming import normalize_kube_resource_name
from renderer.objects.services import (
    IngressSpec,
    component_service,
    default_ingress_spec,
    model_service,
    preserved_ingress_spec,
    render_named_ingress,
    render_named_virtual_service,
)

if TYPE_CHECKING:
    from renderer.graph.dgd import DGD, Component

MAX_SERVICE_NAME_LENGTH = 63
RAY_GCS_PORT = 6379


def render_stable_resources(dgd: DGD, config: RenderConfig, worker_hash: str) -> list[dict[str, Any]]:
    """Model Services first, then per component: its Service, the elastic-EP leader Service, ingress.

    ``worker_hash`` is the hash the worker components' pod templates carry on this render (the
    Services of workers are labelled with it, as their pods are).
    """
    from renderer.graph.grove import grove_alpha_views

    objects = render_model_services(dgd)
    k8s_discovery = is_k8s_discovery_enabled(config.operator.discovery.backend, dgd.annotations)
    views = grove_alpha_views(dgd)
    for component in dgd.components:
        view = views[component.name]
        labels = component_resource_labels(dgd, component, worker_hash, view)
        annotations = component_resource_annotations(dgd, component, view)
        service_name = f"{dgd.name}-{component.name.lower()}"
        if k8s_discovery or component.type == consts.COMPONENT_TYPE_FRONTEND:
            objects.append(render_component_service(dgd, component, service_name, labels, annotations, k8s_discovery))
        if is_single_pod_elastic_ep_leader(component):
            objects.append(render_elastic_ep_leader_service(dgd, component, service_name, labels, annotations))
        if component.type == consts.COMPONENT_TYPE_FRONTEND:
            spec = frontend_ingress_spec(dgd, view, config)
            ingress = render_named_ingress(service_name, dgd.namespace, spec)
            if ingress is not None:
                objects.append(ingress)
            virtual_service = render_named_virtual_service(service_name, dgd.namespace, spec, config.operator.ingress)
            if virtual_service is not None:
                objects.append(virtual_service)
    return objects


def frontend_ingress_spec(dgd: DGD, view: AlphaView, config: RenderConfig) -> IngressSpec:
    """A frontend's ingress: its preserved v1alpha1 ``ingress`` when it has one, else the default.

    Only frontends get an ingress on the Grove pathway; a preserved ingress of another component
    type is not read there (the component pathway honours it on any component).
    Mirrors: internal/controller/dgd_grove_stable_resources_reconciler.go reconcileFrontendIngress;
    internal/dynamo/graph.go GetDGDComponentPreservedIngressSpec, GenerateDefaultIngressSpec.
    """
    if view.ingress is not None:
        return preserved_ingress_spec(view.ingress)
    return default_ingress_spec(dgd.name, config.operator.ingress)


def render_model_services(dgd: DGD) -> list[dict[str, Any]]:
    """One headless Service per distinct base model, annotated with the DGD's spec annotations.

    Mirrors: internal/dynamo/model_service.go ReconcileModelServicesForComponents.
    """
    out: list[dict[str, Any]] = []
    seen: set[str] = set()
    for component in dgd.components:
        model = component.spec.model_ref
        if model is None or not model.name or model.name in seen:
            continue
        seen.add(model.name)
        annotations = dict(dgd.spec.annotations or {})
        annotations[consts.ANNOTATION_BASE_MODEL] = model.name
        out.append(model_service(model.name, dgd.namespace, annotations))
    return out


def _template_metadata(component: Component) -> dict[str, Any]:
    return (component.pod_template or {}).get("metadata") or {}


def component_resource_labels(dgd: DGD, component: Component, worker_hash: str, view: AlphaView) -> dict[str, str]:
    """The DGD's spec labels, then the preserved v1alpha1 component labels, then the component's
    pod-template labels (workers: plus the hash).

    Mirrors: internal/dynamo/graph.go GetDGDComponentResourceLabels (on the render copy that
    carries the worker hash; with getDGDComponentAlphaLabels).
    """
    labels = dict(dgd.spec.labels or {})
    labels.update(view.labels)
    labels.update(_template_metadata(component).get("labels") or {})
    if worker_hash and is_worker_component(component.type):
        labels[consts.LABEL_WORKER_HASH] = worker_hash
    return labels


def component_resource_annotations(dgd: DGD, component: Component, view: AlphaView) -> dict[str, str]:
    """The DGD's spec annotations, the preserved v1alpha1 component annotations, the pod template's.

    Mirrors: internal/dynamo/graph.go GetDGDComponentResourceAnnotations (with
    getDGDComponentAlphaAnnotations).
    """
    annotations = dict(dgd.spec.annotations or {})
    annotations.update(view.annotations)
    annotations.update(_template_metadata(component).get("annotations") or {})
    return annotations


def _selector(dgd: DGD, component: Component) -> dict[str, str]:
    return {
        consts.LABEL_COMPONENT_TYPE: component.type,
        consts.LABEL_NAMESPACE: dgd.dynamo_namespace(component),
        consts.LABEL_COMPONENT: component.name,
    }


def render_component_service(
    dgd: DGD, component: Component, service_name: str, labels: dict[str, str], annotations: dict[str, str], k8s_discovery: bool
) -> dict[str, Any]:
    """The component's ClusterIP Service; it selects every pod of the component.

    Mirrors: internal/dynamo/graph.go GenerateComponentService.
    """
    return component_service(
        service_name, dgd.namespace, component.type, labels, annotations, _selector(dgd, component), k8s_discovery
    )


def is_single_pod_elastic_ep_leader(component: Component) -> bool:
    """An elastic-EP Ray launch that renders as exactly one pod.

    Mirrors: internal/controller/dgd_grove_stable_resources_reconciler.go isSinglePodElasticEPLeader.
    """
    containers = ((component.pod_template or {}).get("spec") or {}).get("containers") or []
    main = next((c for c in containers if c.get("name") == consts.MAIN_CONTAINER_NAME), None)
    if main is None or not is_elastic_ep_ray_launch(main):
        return False
    if component.spec.number_of_nodes > 1:
        return False
    return component.spec.replicas is None or component.spec.replicas == 1


def elastic_ep_leader_service_name(service_name: str) -> str:
    """``<service>-ray``, cut with a 4-hex FNV-1a suffix past 63 characters.

    Mirrors: internal/dynamo/graph.go ElasticEPLeaderServiceName.
    """
    name = normalize_kube_resource_name(service_name + "-ray")
    if len(name) <= MAX_SERVICE_NAME_LENGTH:
        return name
    value = 0x811C9DC5
    for byte in name.encode():
        value = ((value ^ byte) * 0x01000193) & 0xFFFFFFFF
    suffix = f"{value & 0xFFFF:04x}"
    return f"{name[: MAX_SERVICE_NAME_LENGTH - len(suffix) - 1]}-{suffix}"


def render_elastic_ep_leader_service(
    dgd: DGD, component: Component, service_name: str, labels: dict[str, str], annotations: dict[str, str]
) -> dict[str, Any]:
    """A headless Service the followers join the single-pod leader's Ray head at.

    Headless (Ray uses several ports) and publishing not-ready addresses (the leader becomes
    ready only once its ranks have joined).
    Mirrors: internal/dynamo/graph.go GenerateElasticEPHeadlessService.
    """
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": object_meta(elastic_ep_leader_service_name(service_name), dgd.namespace, dict(labels), dict(annotations)),
        "spec": {
            "clusterIP": "None",
            "publishNotReadyAddresses": True,
            "selector": _selector(dgd, component),
            "ports": [
                {"name": "ray-gcs", "port": RAY_GCS_PORT, "targetPort": RAY_GCS_PORT, "protocol": "TCP"},
                {
                    "name": consts.DYNAMO_SYSTEM_PORT_NAME,
                    "port": consts.DYNAMO_SYSTEM_PORT,
                    "targetPort": consts.DYNAMO_SYSTEM_PORT_NAME,
                    "protocol": "TCP",
                },
            ],
        },
    }
