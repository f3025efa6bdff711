"""The Grove pathway: a DGD rendered as one ``grove.io/v1alpha1`` PodCliqueSet.

A DGD routed to Grove (the Grove gate on, no ``nvidia.com/enable-grove: "false"``) gets no
DCDs. The DGD controller's Grove program renders every component into cliques of one
PodCliqueSet: one clique per component and role (``<component>`` for a single-node
component; ``<component>-ldr`` and ``<component>-wkr`` for a multinode one), with a
PodCliqueScalingGroup wherever the component needs one (multinode, or forced). The pods are
the same base pod specs the DCD path builds, with the Grove multinode deployer.

Extension points for the GPU Memory Service and inter-pod failover pathway: ``expand_roles``
(the per-rank GMS weight-server and engine cliques), ``gms_clique_pod_spec`` (the weight-server
pod), ``gms_scaling_group_extras`` (resource sharing and claim templates); each refuses today.

The cliques each component becomes, and their names, are ``renderer.graph.grove_roles``; the
topology constraints and the scheduler queue are ``renderer.graph.grove_placement``.

Mirrors: internal/dynamo/graph.go GenerateGrovePodCliqueSet, buildCliqueForRole,
applyCliqueStartupDependencies, getCliqueStartupDependencies,
buildGroveScalingGroupConfig, groveUpdateStrategyFromAnnotations, generatePodSpecForRole,
generateLabels, generateAnnotations, setMetricsLabels;
internal/dynamo/grove.go injectKaiSchedulerIfEnabled, injectVolcanoSchedulerIfEnabled,
injectVolcanoQueueAnnotation, resolveVolcanoQueueName;
internal/controller/dgd_grove_workload_renderer.go Render (fresh install: no existing
PodCliqueSet, so the worker hash is applied to the worker components).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from renderer import consts
from renderer.admission.api import DCD
from renderer.admission.parse import parse_dcd
from renderer.conversion.alpha_view import AlphaView, dgd_component_views
from renderer.cluster.state import ClusterState
from renderer.config import RenderConfig
from renderer.gocompat.goduration import format_go_duration, parse_go_duration
from renderer.graph.grove_placement import (
    GROVE_VOLCANO_QUEUE_ANNOTATION,
    KAI_QUEUE_LABEL,
    KAI_SCHEDULER_NAME,
    VOLCANO_QUEUE_ANNOTATION,
    VOLCANO_SCHEDULER_NAME,
    component_topology_constraint,
    resolve_scheduler_queue,
    spec_topology_constraint,
)
from renderer.graph.grove_roles import (
    FAILOVER_ENGINE_GROUP_LABEL,
    ServiceRole,
    expand_roles,
    is_inter_pod_failover,
    is_inter_pod_gms,
    pcs_name,
    uses_scaling_group,
)
from renderer.objects.workloads import go_encode
from renderer.pod.backends.common import GroveDeployer
from renderer.pod.gpus import main_container_gpu_count
from renderer.pod.labels import discovery_backend, is_worker_component
from renderer.pod.naming import hash_model_name
from renderer.pod.podspec import generate_base_pod_spec
from renderer.results import RenderError, Result, unsupported

if TYPE_CHECKING:
    from renderer.graph.dgd import DGD, Component

GROVE_API_VERSION = "grove.io/v1alpha1"
PODCLIQUESET_KIND = "PodCliqueSet"
STARTUP_ANY_ORDER = "CliqueStartupTypeAnyOrder"
STARTUP_EXPLICIT = "CliqueStartupTypeExplicit"
UPDATE_STRATEGY_ANNOTATION = "nvidia.com/grove-update-strategy"
UPDATE_STRATEGIES = ("RollingRecreate", "OnDelete")


# ---------------------------------------------------------------------------------------------
# PodCliqueSet-level settings


def update_strategy(annotations: dict[str, str]) -> str | None:
    """The ``nvidia.com/grove-update-strategy`` annotation, checked.

    Mirrors: internal/dynamo/graph.go groveUpdateStrategyFromAnnotations.
    """
    value = annotations.get(UPDATE_STRATEGY_ANNOTATION)
    if value is None:
        return None
    if value not in UPDATE_STRATEGIES:
        raise RenderError(
            f'unsupported Grove update strategy annotation "{UPDATE_STRATEGY_ANNOTATION}"="{value}": supported values '
            f'are "{UPDATE_STRATEGIES[0]}" and "{UPDATE_STRATEGIES[1]}"',
            f"metadata.annotations[{UPDATE_STRATEGY_ANNOTATION}]",
        )
    return value


# ---------------------------------------------------------------------------------------------
# Cliques


def grove_alpha_views(dgd: DGD) -> dict[str, AlphaView]:
    """What the Grove pathway reads of each component's v1alpha1 form, by component name.

    The DGD is converted back to v1alpha1 (preserved data restored from ``nvidia.com/dgd-spec``);
    a component missing from that form reads as the empty view. Of the view the Grove pathway
    uses the labels, the annotations, the sub-component type and (frontends only) the ingress;
    it never reads ``dynamoNamespace`` (the Dynamo namespace comes from the v1beta1 spec alone).
    Mirrors: internal/dynamo/graph.go getDGDAlphaComponent, getDGDComponentAlphaLabels,
    getDGDComponentAlphaAnnotations, getDGDComponentAlphaSubComponentType, GetDynamoNamespace.
    """
    views = dgd_component_views(dgd.source)
    return {c.name: views.get(c.name, AlphaView()) for c in dgd.components}


def clique_labels(
    dgd: DGD, component: Component, template_labels: dict[str, str], config: RenderConfig, view: AlphaView
) -> dict[str, str]:
    """System labels, then the DGD's spec labels, the preserved v1alpha1 component labels and the
    pod template's, then system labels again.

    The sub-component type label comes from the component's v1alpha1 view (a promoted
    ``prefill``/``decode`` type, or a converted DGD's own ``subComponentType``, e.g. ``planner``).
    Mirrors: internal/dynamo/graph.go generateLabels (with getDGDComponentAlphaLabels and
    getDGDComponentAlphaSubComponentType) and setMetricsLabels (metrics follow the DGD's own
    ``nvidia.com/enable-metrics`` annotation).
    """
    system: dict[str, str] = {
        consts.LABEL_SELECTOR: f"{dgd.name}-{component.name.lower()}",
        consts.LABEL_GRAPH_DEPLOYMENT_NAME: dgd.name,
        consts.LABEL_COMPONENT: component.name,
    }
    if component.type:
        system[consts.LABEL_COMPONENT_TYPE] = component.type
    if dgd.has_epp() and is_worker_component(component.type):
        system[consts.LABEL_COMPONENT_CLASS] = "worker"
    if view.sub_component_type:
        system[consts.LABEL_SUB_COMPONENT_TYPE] = view.sub_component_type
    system[consts.LABEL_NAMESPACE] = dgd.dynamo_namespace(component)
    labels = dict(system)
    model = component.spec.model_ref
    if model is not None and model.name:
        labels[consts.LABEL_BASE_MODEL_HASH] = hash_model_name(model.name)
    if dgd.annotations.get(consts.ANNOTATION_ENABLE_METRICS) != consts.LABEL_VALUE_FALSE:
        labels[consts.LABEL_METRICS_ENABLED] = consts.LABEL_VALUE_TRUE
    labels.update(dgd.spec.labels or {})
    labels.update(view.labels)
    labels.update(template_labels)
    labels.update(system)
    if template_labels.get(consts.LABEL_WORKER_HASH):
        labels[consts.LABEL_WORKER_HASH] = template_labels[consts.LABEL_WORKER_HASH]
    if discovery_backend(config.operator.discovery.backend, dgd.annotations) == consts.DISCOVERY_BACKEND_KUBERNETES:
        labels[consts.LABEL_DISCOVERY_BACKEND] = consts.DISCOVERY_BACKEND_KUBERNETES
        labels[consts.LABEL_DISCOVERY_ENABLED] = consts.LABEL_VALUE_TRUE
    return labels


def clique_annotations(
    dgd: DGD, component: Component, template_annotations: dict[str, str], view: AlphaView
) -> dict[str, str]:
    """The DGD's spec annotations, then the preserved v1alpha1 component annotations, then the
    pod template's; topology keys only from the KV policy.

    Mirrors: internal/dynamo/graph.go generateAnnotations (with getDGDComponentAlphaAnnotations)
    and the annotation steps of buildCliqueForRole (applyKvTransferPolicyTopologyAnnotations).
    """
    annotations = dict(dgd.spec.annotations or {})
    annotations.update(view.annotations)
    annotations.update(template_annotations)
    for key in consts.TOPOLOGY_SOURCE_ANNOTATION_KEYS:
        annotations.pop(key, None)
    kvt = dgd.spec.experimental.kv_transfer_policy if dgd.spec.experimental is not None else None
    if kvt is not None and is_worker_component(component.type) and (kvt.label_key or kvt.cluster_topology_name):
        if kvt.label_key:
            annotations[consts.ANNOTATION_TOPOLOGY_LABEL_KEY] = kvt.label_key
        if kvt.cluster_topology_name:
            annotations[consts.ANNOTATION_TOPOLOGY_CLUSTER_TOPOLOGY_NAME] = kvt.cluster_topology_name
    return annotations


def gms_clique_pod_spec(
    role: ServiceRole, component: Component, dcd: DCD, config: RenderConfig, cluster: ClusterState, gpu_count: Callable[[], int]
) -> dict[str, Any]:
    """The GMS weight-server pod of one rank: a single-node main pod of the component, transformed.

    Mirrors: internal/dynamo/graph.go generatePodSpecForRole (RoleGMS branch), failover.go
    gmsWeightServerPodSpec
    """
    from renderer.records import replace

    from renderer.pod import failover, gms

    single = replace(dcd, spec=dcd.spec.model_copy(update={"multinode": None}))
    base = generate_base_pod_spec(
        single, component.type, consts.ROLE_MAIN, config.operator, cluster, gpu_count, None, GroveDeployer(), config.release
    )
    main: dict[str, Any] = next((c for c in (dcd.pod_template or {}).get("spec", {}).get("containers") or [] if c.get("name") == consts.MAIN_CONTAINER_NAME), {})
    try:
        gpus = gms.main_gpu_count(main.get("resources") or {})
    except (RenderError, ValueError) as err:
        message = err.message if isinstance(err, RenderError) else str(err)
        raise RenderError(f"failed to get GPU count for GMS weight server: {message}", f"{component.path}.podTemplate") from None
    return failover.weight_server_pod_spec(base, role.rank, gpus)


def with_dgd_spec_metadata(dcd: DCD, dgd: DGD, metadata_defaults: tuple[dict[str, str], dict[str, str]] | None = None) -> DCD:
    """The component as the Grove pod-spec builder reads it: the DGD's spec labels and annotations
    merged into its pod template as low-priority defaults.

    So a pod-shaping annotation written in the DGD's ``spec.annotations`` (kube discovery mode,
    vLLM executor backend, image-pull-secret discovery) shapes the Grove pods as it shapes the
    component pathway's; the clique's own labels and annotations are built apart (clique_labels,
    clique_annotations).
    ``metadata_defaults`` are the (annotations, labels) to merge (renderer.graph.expand
    dgd_spec_metadata: under 1.5.0 a converted v1alpha1 service's over the graph's, #14855);
    by default the DGD's spec metadata alone.
    Mirrors: internal/dynamo/graph.go generatePodSpecForComponent -> applyDGDTemplateDefaults ->
    propagateDGDSpecMetadata (mergeLowPriorityMetadata)
    """
    from renderer.records import replace

    annotations, labels = metadata_defaults or (dgd.spec.annotations or {}, dgd.spec.labels or {})
    template = copy.deepcopy(dcd.pod_template or {})
    metadata = template.setdefault("metadata", {})
    for kind, values in (("labels", labels), ("annotations", annotations)):
        if not values:
            continue
        merged = dict(metadata.get(kind) or {})
        for key, value in values.items():
            merged.setdefault(key, value)
        metadata[kind] = merged
    return replace(dcd, pod_template=template)


def render_clique(
    role: ServiceRole,
    dgd: DGD,
    component: Component,
    dcd: DCD,
    pod_dcd: DCD,
    config: RenderConfig,
    cluster: ClusterState,
    gpu_count: Callable[[], int],
    kai_queue: str,
    view: AlphaView,
) -> dict[str, Any]:
    """One PodCliqueTemplateSpec: the role's pod spec, replicas, minAvailable, labels, scheduler.

    ``minAvailable`` is 1, or the component's own for a clique outside a scaling group; a
    multinode clique needs all of its pods (its replica count). The scheduler integrations set
    ``schedulerName`` unless the user chose another scheduler, and KAI adds its queue label.
    ``pod_dcd`` is the component the pod spec is built from (with_dgd_spec_metadata), ``dcd``
    the one whose pod-template metadata the clique takes.
    Mirrors: internal/dynamo/graph.go buildCliqueForRole, generatePodSpecForRole;
    internal/dynamo/grove.go injectKaiSchedulerIfEnabled, injectVolcanoSchedulerIfEnabled.
    """
    spec = component.spec
    inter_pod = is_inter_pod_gms(spec)
    if role.role == "gms":
        pod_spec = gms_clique_pod_spec(role, component, pod_dcd, config, cluster, gpu_count)
    else:
        # Multinode inter-pod engines find their group by pod index and carry a fixed rank.
        deployer = GroveDeployer(inter_pod_gms=True, rank=role.rank) if inter_pod and spec.number_of_nodes > 1 else GroveDeployer()
        pod_spec = generate_base_pod_spec(
            pod_dcd, component.type, role.role, config.operator, cluster, gpu_count, None, deployer, config.release
        )
        if inter_pod:
            from renderer.pod import failover

            failover.augment_engine_for_gms(pod_spec, role.rank, is_inter_pod_failover(spec))
    scaling_group = uses_scaling_group(spec)
    min_available = 1
    if not scaling_group and spec.min_available is not None:
        min_available = spec.min_available
    if spec.number_of_nodes > 1 and not is_inter_pod_failover(spec):
        min_available = role.replicas

    # Scheduler integrations: only over no scheduler or their own.
    if config.kai_scheduler_enabled and pod_spec.get("schedulerName", "") in ("", KAI_SCHEDULER_NAME):
        pod_spec["schedulerName"] = KAI_SCHEDULER_NAME
    elif config.volcano_scheduler_enabled and pod_spec.get("schedulerName", "") in ("", VOLCANO_SCHEDULER_NAME):
        pod_spec["schedulerName"] = VOLCANO_SCHEDULER_NAME

    clique_spec: dict[str, Any] = {
        "roleName": role.name.lower(),
        "podSpec": go_encode("PodSpec", pod_spec, f"{component.path}.podTemplate.spec"),
        "replicas": role.replicas,
        "minAvailable": min_available,
    }
    labels = clique_labels(dgd, component, dcd.pod_template_labels, config, view)
    # Failover engines form a cohort the cascade controller deletes together; weight servers
    # never register with discovery.
    if is_inter_pod_failover(spec) and role.role != "gms":
        labels[FAILOVER_ENGINE_GROUP_LABEL] = consts.LABEL_VALUE_TRUE
    if role.role == "gms":
        labels.pop(consts.LABEL_DISCOVERY_BACKEND, None)
        labels.pop(consts.LABEL_DISCOVERY_ENABLED, None)
    if config.kai_scheduler_enabled and pod_spec.get("schedulerName") == KAI_SCHEDULER_NAME:
        labels[KAI_QUEUE_LABEL] = kai_queue
    clique: dict[str, Any] = {"name": role.name.lower(), "labels": labels}
    annotations = clique_annotations(dgd, component, dcd.pod_template_annotations, view)
    if annotations:
        clique["annotations"] = annotations
    if not scaling_group:
        constraint = component_topology_constraint(spec, dgd)
        if constraint is not None:
            clique["topologyConstraint"] = constraint
    clique["spec"] = clique_spec
    return clique


def apply_startup_dependencies(
    cliques: list[dict[str, Any]], roles: list[ServiceRole], framework: str, nodes: int, inter_pod_gms: bool = False
) -> bool:
    """Start order: inter-pod GMS engines after their rank's weight server; multinode TRT-LLM's
    leader after its workers (vLLM/SGLang workers after their leader only in that TRT-LLM gate).

    Returns True when any clique got a dependency (the PodCliqueSet then starts explicitly).
    Mirrors: internal/dynamo/graph.go applyCliqueStartupDependencies, getCliqueStartupDependencies
    """
    multinode = framework == consts.BACKEND_TRTLLM and nodes > 1
    if not multinode and not inter_pod_gms:
        return False
    by_name = {r.name.lower(): r for r in roles}
    leader = next((r.name.lower() for r in roles if r.role == consts.ROLE_LEADER), "")
    workers = [r.name.lower() for r in roles if r.role == consts.ROLE_WORKER]
    gms_by_rank = {r.rank: r.name.lower() for r in roles if r.role == "gms"}
    found = False
    for clique in cliques:
        role = by_name.get(clique["name"])
        if role is None:
            continue
        after: list[str] = []
        if inter_pod_gms and role.role != "gms" and role.rank in gms_by_rank:
            after.append(gms_by_rank[role.rank])
        if multinode:
            after += startup_dependencies(role.role, framework, leader, workers)
        if after:
            clique["spec"]["startsAfter"] = after
            found = True
    return found


def startup_dependencies(role: str, framework: str, leader: str, workers: list[str]) -> list[str]:
    """Mirrors: internal/dynamo/graph.go getCliqueStartupDependencies."""
    if framework in (consts.BACKEND_VLLM, consts.BACKEND_SGLANG):
        if role == consts.ROLE_WORKER and leader:
            return [leader]
    elif framework == consts.BACKEND_TRTLLM:
        if role == consts.ROLE_LEADER and workers:
            return list(workers)
    return []


def scaling_group_config(component: Component, dgd: DGD, clique_names: list[str]) -> dict[str, Any]:
    """One PodCliqueScalingGroup config: the component's cliques, replicas and minAvailable.

    Mirrors: internal/dynamo/graph.go buildGroveScalingGroupConfig (checkpoint gating and GMS
    resource sharing belong to their own pathways).
    """
    spec = component.spec
    config: dict[str, Any] = {"name": component.name.lower(), "cliqueNames": clique_names}
    if spec.replicas is not None:
        config["replicas"] = spec.replicas
    config["minAvailable"] = spec.min_available if spec.min_available is not None else 1
    if is_inter_pod_gms(spec):
        from renderer.pod import failover

        roles = expand_roles(component.name, spec)
        gms_roles = [failover.ServiceRole(r.name, r.role, r.replicas, r.rank) for r in roles]
        config["resourceSharing"] = failover.resource_sharing_entries(component.name, gms_roles)
    constraint = component_topology_constraint(spec, dgd)
    if constraint is not None:
        config["topologyConstraint"] = constraint
    return config


# ---------------------------------------------------------------------------------------------
# The PodCliqueSet


def grove_component_dcd(dgd: DGD, component: Component, obj: dict[str, Any], config: RenderConfig) -> DCD:
    """The component as the Grove renderer reads it, as a DCD for the shared pod-spec builder.

    From the generated DCD of the component pathway (DGD env, KV policy, propagated
    annotations, worker hash; never DYN_DEPLOYMENT_CONFIG): the backend framework is only the
    DGD's explicit one (the Grove path detects per component), the DGD's spec labels and
    annotations are not in the pod template (the clique metadata takes them itself, below the
    preserved v1alpha1 component metadata, and the pod spec builder gets them as low-priority
    defaults through with_dgd_spec_metadata), an EPP keeps no Istio opt-out it did not ask for, and the pod
    template also carries the Dynamo namespace label and the discovery-backend annotation the
    Grove renderer sets.
    Mirrors: internal/dynamo/graph.go GenerateGrovePodCliqueSet (per-component preparation:
    propagateDGDAnnotations only; propagateDGDSpecMetadata runs later, on the pod spec's copy),
    getBackendFrameworkFromComponent,
    generatePodSpecForComponent.
    """
    obj = copy.deepcopy(obj)
    spec = obj["spec"]
    spec.pop("backendFramework", None)
    if dgd.spec.backend_framework:
        spec["backendFramework"] = dgd.spec.backend_framework
    template = spec["podTemplate"]
    own_metadata = (component.pod_template or {}).get("metadata") or {}
    # The DGD's spec labels and annotations are not merged into a Grove component's pod template
    # (only generated DCDs get them as low-priority defaults): the clique metadata takes them
    # directly, under the preserved v1alpha1 component metadata.
    for kind, spec_values in (("labels", dgd.spec.labels or {}), ("annotations", dgd.spec.annotations or {})):
        values = template["metadata"][kind]
        own = own_metadata.get(kind) or {}
        for key, value in spec_values.items():
            if key not in own and values.get(key) == value:
                del values[key]
    # The Istio opt-out of EPP pods is stamped only on generated DCDs, not on Grove cliques.
    own_annotations = own_metadata.get("annotations") or {}
    if component.type == consts.COMPONENT_TYPE_EPP and consts.ANNOTATION_ISTIO_SIDECAR_INJECT not in own_annotations:
        template["metadata"]["annotations"].pop(consts.ANNOTATION_ISTIO_SIDECAR_INJECT, None)
    template["metadata"]["labels"][consts.LABEL_NAMESPACE] = dgd.dynamo_namespace(component)
    backend = discovery_backend(config.operator.discovery.backend, dgd.annotations)
    if backend:
        template["metadata"]["annotations"][consts.ANNOTATION_DISCOVERY_BACKEND] = backend
    dcd, results = parse_dcd(obj, dgd.namespace, config.checkpoint_enabled, admission=False, list_maps=False)
    if dcd is None:
        first = next((r for r in results if r.is_error), None)
        raise RenderError(first.message if first else "component is invalid", first.field if first and first.field else component.path)
    return dcd


def render_pod_clique_set(
    dgd: DGD, config: RenderConfig, cluster: ClusterState, worker_hash: str, notes: list[Result]
) -> dict[str, Any]:
    """The DGD's PodCliqueSet, as the operator creates it for a new DGD.

    Mirrors: internal/dynamo/graph.go GenerateGrovePodCliqueSet.
    """
    from renderer.graph.expand import dgd_spec_metadata, generate_dcds

    specs = [c.spec for c in dgd.components]
    labels = dict(dgd.spec.labels or {})
    labels[consts.LABEL_GRAPH_DEPLOYMENT_NAME] = dgd.name
    metadata: dict[str, Any] = {"name": pcs_name(dgd.name, specs), "namespace": dgd.namespace, "labels": labels}
    annotations = dict(dgd.spec.annotations or {})
    # Volcano reads its queue from the PodCliqueSet; KAI's goes on each clique.
    if config.volcano_scheduler_enabled:
        queue = (dgd.annotations.get(VOLCANO_QUEUE_ANNOTATION) or "").strip()
        if queue:
            annotations[GROVE_VOLCANO_QUEUE_ANNOTATION] = queue
    if annotations:
        metadata["annotations"] = annotations
    spec: dict[str, Any] = {"replicas": 1}
    strategy = update_strategy(dgd.annotations)
    if strategy is not None:
        spec["updateStrategy"] = {"type": strategy}
    template: dict[str, Any] = {
        "headlessServiceConfig": {"publishNotReadyAddresses": True},
        "cliqueStartupType": STARTUP_ANY_ORDER,
    }
    if dgd.spec.priority_class_name:
        template["priorityClassName"] = dgd.spec.priority_class_name
    delay = parse_go_duration(config.operator.orchestrators.grove.termination_delay or "0s")
    if delay > 0:
        template["terminationDelay"] = format_go_duration(delay)
    if dgd.spec.topology_constraint is not None:
        constraint = spec_topology_constraint(dgd.spec.topology_constraint.cluster_topology_name, dgd.spec.topology_constraint.pack_domain)
        if constraint is not None:
            template["topologyConstraint"] = constraint
    kai_queue = resolve_scheduler_queue(dgd.annotations, config, notes)
    kvt = dgd.spec.experimental.kv_transfer_policy if dgd.spec.experimental is not None else None
    if kvt is not None and kvt.cluster_topology_name:
        raise RenderError(
            unsupported("spec.experimental.kvTransferPolicy.clusterTopologyName", "the ClusterTopologyBinding domains the Grove renderer reads from the cluster").message,
            "spec.experimental.kvTransferPolicy.clusterTopologyName",
        )

    cliques: list[dict[str, Any]] = []
    scaling_groups: list[dict[str, Any]] = []
    claim_templates: list[dict[str, Any]] = []
    explicit = False
    views = grove_alpha_views(dgd)
    spec_metadata = dgd_spec_metadata(dgd, config.release)
    # The operator's Grove renderer never applies DYN_DEPLOYMENT_CONFIG (generateSingleDCD only).
    for component, obj in generate_dcds(dgd, worker_hash, dyn_deployment_config=False, release=config.release):
        checkpoint = component.spec.experimental.checkpoint if component.spec.experimental is not None else None
        if config.checkpoint_enabled and checkpoint is not None and checkpoint.enabled:
            # Extension point: the checkpoint-aware cliques (restore metadata, gated replicas).
            raise RenderError(
                unsupported(f"{component.path}.experimental.checkpoint", "checkpoint restore of graph components on the Grove pathway").message,
                f"{component.path}.experimental.checkpoint",
            )
        try:
            dcd = grove_component_dcd(dgd, component, obj, config)
            framework = _backend_framework(dcd)
            gpu_count = _once(_gpu_counter(dcd, cluster))
            roles = expand_roles(component.name, component.spec)
            # The pod spec is built from the component with the DGD's spec metadata merged in as
            # low-priority defaults; the clique metadata takes the component's own.
            pod_dcd = with_dgd_spec_metadata(dcd, dgd, spec_metadata[component.name])
            own = [render_clique(r, dgd, component, dcd, pod_dcd, config, cluster, gpu_count, kai_queue, views[component.name]) for r in roles]
        except RenderError as err:
            raise RenderError(f"component {component.name}: {err.message}", _component_field(component.path, err.field), code=err.code, hint=err.hint) from None
        cliques += own
        inter_pod = is_inter_pod_gms(component.spec)
        explicit = apply_startup_dependencies(own, roles, framework, component.spec.number_of_nodes, inter_pod) or explicit
        if inter_pod:
            claim_templates += _gms_claim_template_configs(component, roles)
        if uses_scaling_group(component.spec):
            scaling_groups.append(scaling_group_config(component, dgd, [r.name.lower() for r in roles]))
    if explicit:
        template["cliqueStartupType"] = STARTUP_EXPLICIT
    template["cliques"] = cliques
    if scaling_groups:
        template["podCliqueScalingGroups"] = scaling_groups
    if claim_templates:
        template["resourceClaimTemplates"] = claim_templates
    spec["template"] = template
    return {"apiVersion": GROVE_API_VERSION, "kind": PODCLIQUESET_KIND, "metadata": metadata, "spec": spec}


def _gms_claim_template_configs(component: Component, roles: list[ServiceRole]) -> list[dict[str, Any]]:
    """Mirrors: internal/dynamo/failover.go gmsResourceClaimTemplateConfigs (getGPUCount of the main container)."""
    from renderer.pod import failover, gms

    experimental = component.spec.experimental
    gms_spec = experimental.gpu_memory_service if experimental is not None else None
    main: dict[str, Any] = next((c for c in (component.pod_template or {}).get("spec", {}).get("containers") or [] if c.get("name") == consts.MAIN_CONTAINER_NAME), {})
    try:
        gpus = gms.main_gpu_count(main.get("resources") or {})
    except (RenderError, ValueError) as err:
        message = err.message if isinstance(err, RenderError) else str(err)
        raise RenderError(
            f"failed to build GMS ResourceClaimTemplate configs for component {component.name}: {message}", component.path
        ) from None
    gms_roles = [failover.ServiceRole(r.name, r.role, r.replicas, r.rank) for r in roles]
    device_class = gms_spec.device_class_name if gms_spec is not None else ""
    return failover.resource_claim_template_configs(component.name, device_class, gpus, gms_roles)


def _backend_framework(dcd: DCD) -> str:
    from renderer.pod.podspec import backend_framework

    return backend_framework(dcd)


def _gpu_counter(dcd: DCD, cluster: ClusterState) -> Callable[[], int]:
    def count() -> int:
        return main_container_gpu_count(dcd, cluster)

    return count


def _once(fn: Callable[[], int]) -> Callable[[], int]:
    """Resolve at most once, on demand (the operator's sync.OnceValues)."""
    cache: list[int] = []

    def get() -> int:
        if not cache:
            cache.append(fn())
        return cache[0]

    return get


def _component_field(component_path: str, field: str) -> str:
    """A DCD-relative field path mapped onto the DGD component."""
    if field.startswith(component_path) or field.startswith("metadata.") or field.startswith("spec.experimental.kv"):
        return field
    if field == "spec":
        return component_path
    if field.startswith("spec."):
        return f"{component_path}.{field[len('spec.'):]}"
    if field and not field.startswith("spec"):
        return f"{component_path}.{field}"
    return component_path
