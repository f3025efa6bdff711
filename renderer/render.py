"""Render a DCD, and a whole bundle of input objects, into what the operator would create.

Sequencing only: each step is a plain call in the operator's order. One DCD failing never
hides another; every problem comes back as a Result.

Mirrors: internal/controller/dynamocomponentdeployment_controller.go Reconcile (the order of
workload, component Service, model Service, Ingress, VirtualService).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from renderer.admission import apiserver
from renderer import consts
from renderer.admission.api import DCD, parse_dcd
from renderer.objects import companions
from renderer.pod.labels import is_k8s_discovery_enabled, kube_annotations, kube_labels
from renderer.pod.checkpoint import CheckpointInfo, overlay_gms_clients, render_checkpoint_storage, resolve_checkpoint
from renderer.cluster.state import BUNDLE_SOURCE, ClusterState, Kind, StateLayer, build_cluster_state
from renderer.config import RenderConfig
from renderer.pod.gpus import main_container_gpu_count
from renderer.objects.integrity import Need, needed_references, object_index, report_missing
from renderer.pod.labels import has_legacy_worker_selector, workload_component_type
from renderer.pod.naming import lws_name, normalize_kube_resource_name
from renderer.objects.standalone_companions import render_standalone_companions
from renderer.results import RenderError, ResourceRef, Result, Severity, unsupported
from renderer.objects.services import (
    ingress_spec,
    render_component_service,
    render_ingress,
    render_model_service,
    render_virtual_service,
)
from renderer.objects.workloads import render_deployment, render_leader_worker_set

if TYPE_CHECKING:
    from renderer.graph.dgd import DGD, Component

# The graph modules (renderer.graph.dgd, renderer.objects.epp) are imported where a DGD is rendered: a run
# with DCDs only does not pay for them at start-up.


def render_component(
    dcd: DCD, config: RenderConfig, cluster: ClusterState, notes: list[Result] | None = None
) -> list[dict[str, Any]]:
    """Every object the operator's DCD controller creates for one DCD, in reconcile order.

    Raises RenderError for the first problem in this DCD. ``notes``, when given, receives info
    results naming the defaults assumed for facts the cluster state did not have.
    """
    _check_namespace_allowed(dcd, config)
    notes = notes if notes is not None else []
    existing_legacy = _resolve_existing_legacy_selector(dcd, config, cluster, notes)
    workload_type = workload_component_type(dcd, existing_legacy=existing_legacy)
    gpu_count = _once(lambda: main_container_gpu_count(dcd, cluster))
    objects: list[dict[str, Any]] = []

    # Checkpoints (gate on, enabled on the DCD): the storage PVC first, then the checkpoint itself.
    checkpoint: CheckpointInfo | None = None
    checkpoint_config = dcd.spec.experimental.checkpoint if dcd.spec.experimental is not None else None
    if config.checkpoint_enabled and checkpoint_config is not None and checkpoint_config.enabled:
        pvcs, pvc_notes = render_checkpoint_storage(dcd.namespace, config.operator.checkpoint, cluster)
        objects += pvcs
        notes += pvc_notes
        checkpoint, checkpoint_notes = resolve_checkpoint(checkpoint_config, dcd.namespace, cluster)
        notes += checkpoint_notes
        gms_spec = dcd.spec.experimental.gpu_memory_service if dcd.spec.experimental is not None else None
        if gms_spec is not None:
            checkpoint = overlay_gms_clients(checkpoint, gms_spec.model_dump(by_alias=True, exclude_none=True))

    # Workload: a LeaderWorkerSet for multinode under the LWS gate, else a Deployment.
    if dcd.spec.is_multinode:
        if not config.lws_enabled:
            raise RenderError(
                f"multinode DCD needs LeaderWorkerSet but the LWS gate is off ({config.lws_reason}); the operator "
                "would render a broken single-pod Deployment, so this is refused",
                "spec.multinode.nodeCount",
            )
        objects.append(render_leader_worker_set(dcd, workload_type, config, cluster, gpu_count, checkpoint))
    else:
        objects.append(render_deployment(dcd, workload_type, config, cluster, gpu_count, checkpoint))

    # Component Service, the model's headless Service, then ingress objects.
    service = render_component_service(dcd, workload_type, config.operator.discovery.backend)
    if service is not None:
        objects.append(service)
    model_service = render_model_service(dcd)
    if model_service is not None:
        objects.append(model_service)
    spec = ingress_spec(dcd, config.operator.ingress)
    ingress = render_ingress(dcd, spec)
    if ingress is not None:
        objects.append(ingress)
    virtual_service = render_virtual_service(dcd, spec, config.operator.ingress)
    if virtual_service is not None:
        objects.append(virtual_service)
    return objects


def _resolve_existing_legacy_selector(dcd: DCD, config: RenderConfig, cluster: ClusterState, notes: list[Result]) -> bool:
    """Whether an existing workload or Service of this DCD still selects pods as a legacy worker.

    Only prefill/decode DCDs whose own labels do not settle it read the cluster (a
    Deployment ``<dcd>``, under the LWS gate a LeaderWorkerSet ``<dcd>-0``, a Service
    ``normalize(<dcd>)``); not found means a fresh install.
    Mirrors: internal/controller/dynamocomponentdeployment_renderer.go getDCDWorkloadComponentType,
    hasExistingLegacyWorkerSelector.
    """
    component_type = workload_component_type(dcd)
    if component_type not in (consts.COMPONENT_TYPE_PREFILL, consts.COMPONENT_TYPE_DECODE):
        return False
    service = normalize_kube_resource_name(dcd.name)
    candidates = cluster.workload_selector_labels(
        dcd.namespace, dcd.name, lws_name(dcd.name) if config.lws_enabled else None, service
    )
    for source, labels in candidates:
        if has_legacy_worker_selector(labels, component_type):
            notes.append(
                Result(
                    f"existing {source} selects the pre-v1beta1 worker labels: rendered as component type worker, "
                    "as the operator keeps it",
                    severity=Severity.INFO,
                )
            )
            return True
    return False


def _check_namespace_allowed(dcd: DCD, config: RenderConfig) -> None:
    """The operator ignores DCDs outside its restricted namespace, and in "ephemeral" ones.

    Mirrors: internal/controller_common/predicate.go NamespaceAllowed.
    """
    restricted = config.operator.namespace.restricted
    if restricted and dcd.namespace != restricted:
        raise RenderError(
            f'the operator is restricted to namespace "{restricted}" and would not reconcile a DCD in "{dcd.namespace}"',
            "metadata.namespace",
        )
    if not restricted and "ephemeral" in dcd.namespace:
        raise RenderError(
            f'the operator ignores namespaces whose name contains "ephemeral" and would not reconcile a DCD in "{dcd.namespace}"',
            "metadata.namespace",
        )


def _once(fn: Callable[[], int]) -> Callable[[], int]:
    """Resolve a value at most once and only when asked (the operator's sync.OnceValues)."""
    cache: list[int] = []
    error: list[RenderError] = []

    def get() -> int:
        if error:
            raise error[0]
        if not cache:
            try:
                cache.append(fn())
            except RenderError as err:
                error.append(err)
                raise
        return cache[0]

    return get


# ---------------------------------------------------------------------------------------------
# Graphs


def compute_worker_hash(dgd: DGD, config: RenderConfig) -> str:
    """The v2 worker hash: generate the DCDs with a placeholder hash and hash the worker ones.

    Mirrors: internal/dynamo/hash.go ComputeDGDWorkersSpecHash.
    """
    from renderer.graph.dgd import WORKER_HASH_PLACEHOLDER, generate_dcds
    from renderer.graph.gohash import WorkerTemplate, resolve_runtime_version_for_hash, worker_hash

    workers: dict[str, WorkerTemplate] = {}
    for component, obj in generate_dcds(dgd, WORKER_HASH_PLACEHOLDER):
        if component.type not in consts.WORKER_COMPONENT_TYPES:
            continue
        dcd, results = parse_dcd(obj, dgd.namespace, config.checkpoint_enabled, admission=False)
        if dcd is None:
            raise RenderError(results[0].message if results else "generated DCD is invalid", component.path)
        main = dcd.main_container() or {}
        workers[component.name] = WorkerTemplate(
            labels=kube_labels(dcd),
            annotations=kube_annotations(dcd),
            runtime_version=resolve_runtime_version_for_hash(main.get("image", ""), dcd.spec.runtime_version_override or ""),
            spec=obj["spec"],
        )
    return worker_hash(workers)


def render_graph(
    dgd: DGD, config: RenderConfig, cluster: ClusterState, notes: list[Result] | None = None
) -> list[dict[str, Any]]:
    """Everything the DGD controller's component program creates, rendered to workloads.

    Shared resources come first in the controller's order (planner and EPP RBAC, discovery
    RBAC, EPP resources, wait-for-leader ConfigMap), then each component's DCD rendered by
    the DCD renderer (or, with ``emit: dcd``, the DCD itself), then the scaling adapters when
    the ``scalingAdapters`` setting asks for them.
    Mirrors: internal/controller/dgd_component_program.go Reconcile and
    dgd_shared_resources_reconciler.go Reconcile
    """
    from renderer.graph.dgd import dcd_as_written, generate_dcds
    from renderer.graph.checkpoints import apply_checkpoint_startup_policy
    from renderer.graph.gms_claims import render_gms_claim_templates

    objects: list[dict[str, Any]] = []
    operator = config.operator

    # Shared resources: planner (and EPP) RBAC in cluster-wide mode, then discovery RBAC.
    if not operator.namespace.restricted:
        objects += companions.service_account_with_cluster_role(
            consts.PLANNER_SERVICE_ACCOUNT_NAME, dgd.namespace, operator.rbac.planner_cluster_role_name
        )
        if dgd.has_epp():
            objects += companions.service_account_with_cluster_role(
                consts.EPP_SERVICE_ACCOUNT_NAME, dgd.namespace, operator.rbac.epp_cluster_role_name
            )
    if is_k8s_discovery_enabled(operator.discovery.backend, dgd.annotations):
        objects += companions.discovery_rbac(dgd.name, dgd.namespace)

    # GPU Memory Service: one ResourceClaimTemplate per GMS component (DRA required).
    objects += render_gms_claim_templates(dgd, config, cluster)

    # EPP resources: its config, the InferencePool and, with the Istio mesh, a DestinationRule.
    epp_component = next((c for c in dgd.components if c.type == consts.COMPONENT_TYPE_EPP), None)
    if epp_component is not None:
        objects += _render_epp_resources(dgd, epp_component, config)
    if dgd.has_multinode():
        objects.append(companions.wait_leader_config_map(dgd.name, dgd.namespace))

    # The component pathway needs LeaderWorkerSet for multinode components.
    if dgd.has_multinode() and not config.lws_enabled:
        first = next(c for c in dgd.components if c.spec.is_multinode)
        raise RenderError(
            f"no multinode orchestrator available ({config.lws_reason})", f"{first.path}.multinode.nodeCount"
        )

    worker_hash = compute_worker_hash(dgd, config)
    for component, obj in generate_dcds(dgd, worker_hash):
        if config.checkpoint_enabled:
            try:
                apply_checkpoint_startup_policy(obj, component, dgd.namespace, cluster)
            except RenderError as err:
                raise RenderError(err.message, _component_field(component.path, err.field)) from None
        if config.emit == "dcd":
            objects.append(dcd_as_written(obj))
            continue
        dcd, results = parse_dcd(obj, dgd.namespace, config.checkpoint_enabled, admission=False)
        if dcd is None:
            first_error = next((r for r in results if r.is_error), None)
            raise RenderError(first_error.message if first_error else "generated DCD is invalid", component.path)
        try:
            component_notes: list[Result] = []
            objects += render_component(dcd, config, cluster, component_notes)
        except RenderError as err:
            raise RenderError(err.message, _component_field(component.path, err.field)) from None
        if notes is not None:
            notes.extend(
                Result(n.message, severity=n.severity, field=_component_field(component.path, n.field))
                for n in component_notes
            )

    # Scaling adapters, one per component that asks for one (an opt-in: see RenderSettings).
    if config.scaling_adapters:
        for component in dgd.components:
            if component.spec.scaling_adapter is not None:
                objects.append(
                    companions.scaling_adapter(dgd.name, dgd.namespace, component.name, component.spec.replicas)
                )
    return objects


def _render_epp_resources(dgd: DGD, component: Component, config: RenderConfig) -> list[dict[str, Any]]:
    """The EPP ConfigMap (inline config only), the InferencePool and the Istio DestinationRule.

    The operator writes the DestinationRule only while its Istio gate is on (service mesh
    enabled with provider istio and the DestinationRule API served); otherwise it only deletes
    one it owned before, which leaves nothing to render.
    Mirrors: internal/controller/dgd_epp_reconciler.go Reconcile
    """
    from renderer.objects import epp
    from renderer.graph.dgd import dcd_name

    objects: list[dict[str, Any]] = []
    epp_config = component.raw.get("eppConfig") or {}
    if epp_config.get("configMapRef") is None:
        raw = epp_config.get("config")
        if not isinstance(raw, dict):
            raise RenderError(
                "EPP configuration is required: either eppConfig.configMapRef or eppConfig.config must be specified",
                f"{component.path}.eppConfig",
            )
        objects.append(
            epp.render_config_map(dgd.name, dgd.namespace, component.name, raw, f"{component.path}.eppConfig.config")
        )
    service = dcd_name(dgd, component, "")
    objects.append(
        companions.inference_pool(dgd.name, dgd.namespace, component.name, dgd.dynamo_namespace(component), service)
    )
    istio, problem = epp.istio_gate(config)
    if problem:
        raise RenderError(problem, "serviceMesh.enabled")
    if istio:
        objects.append(epp.render_destination_rule(service, dgd.namespace, config.operator.service_mesh))
    return objects


def _component_field(component_path: str, dcd_field: str) -> str:
    """Map a field path of a generated DCD back onto the DGD component it came from."""
    if dcd_field == "spec":
        return component_path
    if dcd_field.startswith("spec."):
        return f"{component_path}.{dcd_field[len('spec.'):]}"
    return component_path


# ---------------------------------------------------------------------------------------------
# Bundles


@dataclass(frozen=True)
class Item:
    """One input object and where it came from (file path and document index, if known)."""

    obj: Any
    file: str = ""
    index: int | None = None


@dataclass
class Rendered:
    """The output stream and every result, ready for a front end to emit."""

    objects: list[dict[str, Any]] = field(default_factory=list)
    results: list[Result] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not any(r.is_error for r in self.results)


def is_dcd(obj: Any) -> bool:
    return isinstance(obj, dict) and obj.get("kind") == consts.DCD_KIND and obj.get("apiVersion") in (
        consts.V1BETA1,
        consts.V1ALPHA1,
    )


def is_dgd(obj: Any) -> bool:
    return isinstance(obj, dict) and obj.get("kind") == consts.DGD_KIND and str(obj.get("apiVersion", "")).startswith(
        consts.DYNAMO_GROUP + "/"
    )


def is_dgdr(obj: Any) -> bool:
    return isinstance(obj, dict) and obj.get("kind") == DGDR_KIND and str(obj.get("apiVersion", "")).startswith(
        consts.DYNAMO_GROUP + "/"
    )


DGDR_KIND = "DynamoGraphDeploymentRequest"


def dgdr_note(obj: dict[str, Any]) -> Result:
    """A DynamoGraphDeploymentRequest is passed through: its DGD comes from a profiling run.

    The operator's request controller runs a profiling Job on the cluster's GPUs and then
    creates a DynamoGraphDeployment from the profiler's output; neither can happen offline.
    Mirrors: internal/controller/dynamographdeploymentrequest_controller.go (not rendered)
    """
    return Result(
        "passed through unchanged: the operator would run a profiling job for this request and create a "
        "DynamoGraphDeployment from its results, which cannot happen offline; to manage the graph in Git, "
        "commit the DynamoGraphDeployment the request produced (or that the profiler writes out) and render that",
        severity=Severity.WARNING,
        resource=ResourceRef.of(obj),
    )


def render_items(
    items: Iterable[Item],
    config: RenderConfig,
    default_namespace: str,
    keep_sources: bool = False,
    cluster: ClusterState | None = None,
    cluster_layers: Sequence[StateLayer] = (),
) -> Rendered:
    """Render every DCD of a bundle; pass every other object through untouched.

    Output order: the rendered objects of each DCD in input order (objects shared by several
    DCDs, such as a model Service, appear once, where first rendered), then every other input
    object in input order (rendered DCDs are dropped unless ``keep_sources``).

    The cluster state is built from the bundle's own objects over ``cluster_layers`` (a
    cluster-state file, a live lookup), unless ``cluster`` is given. Standalone DCDs also get
    their companion objects when ``config.companions`` is on. Last, every object a rendered pod
    references is checked against the output and the cluster state.
    """
    out = Rendered()
    out.objects = list(
        stream_items(items, config, default_namespace, out.results, keep_sources, cluster, cluster_layers)
    )
    return out


def stream_items(
    items: Iterable[Item],
    config: RenderConfig,
    default_namespace: str,
    results: list[Result],
    keep_sources: bool = False,
    cluster: ClusterState | None = None,
    cluster_layers: Sequence[StateLayer] = (),
) -> Iterator[dict[str, Any]]:
    """``render_items`` as a stream: each output object as soon as it is final, in the same order.

    A front end can write each object out and drop it, so memory does not grow with the output.
    Results are appended to ``results`` as they are found; the reference checks come last, once
    the stream is exhausted (they need every object of the output).
    """
    items = list(items)
    if cluster is None:
        bundle = StateLayer(BUNDLE_SOURCE, tuple(i.obj for i in items))
        cluster, state_results = build_cluster_state([bundle, *cluster_layers], default_namespace)
        results.extend(state_results)
    owners: list[tuple[ResourceRef, Item, list[Need]]] = []
    emitted: set[tuple[Kind, str, str]] = set()
    seen: set[tuple[str, str, str, str]] = set()
    passthrough: list[dict[str, Any]] = []
    for item in items:
        obj = item.obj
        if is_dgd(obj):
            from renderer.graph.dgd import parse_dgd

            dgd, parse_results = parse_dgd(obj, default_namespace, config)
            results.extend(r.with_source(item.file, item.index) for r in parse_results)
            if dgd is None:
                continue
            graph_notes: list[Result] = []
            try:
                objects = render_graph(dgd, config, cluster, graph_notes)
            except RenderError as err:
                results.append(err.to_result(dgd.ref).with_source(item.file, item.index))
                continue
            results.extend(n.with_resource(dgd.ref).with_source(item.file, item.index) for n in graph_notes)
            # Objects the API server would refuse are errors, never output.
            refused = apiserver.refusals(objects)
            if refused:
                results.extend(r.with_source(item.file, item.index) for r in refused)
                continue
            owners.append((dgd.ref, item, needed_references(dgd.ref, objects)))
            yield from _unique(objects, seen, emitted, default_namespace)
            if keep_sources:
                passthrough.append(obj)
            continue
        if is_dgdr(obj):
            passthrough.append(obj)
            results.append(dgdr_note(obj).with_source(item.file, item.index))
            continue
        if not is_dcd(obj):
            passthrough.append(obj)
            continue
        dcd, parse_results = parse_dcd(obj, default_namespace, config.checkpoint_enabled)
        results.extend(r.with_source(item.file, item.index) for r in parse_results)
        if dcd is None:
            continue
        notes: list[Result] = []
        try:
            objects = render_component(dcd, config, cluster, notes)
        except RenderError as err:
            results.append(err.to_result(dcd.ref).with_source(item.file, item.index))
            continue
        results.extend(n.with_resource(dcd.ref).with_source(item.file, item.index) for n in notes)
        owners.append((dcd.ref, item, needed_references(dcd.ref, objects)))
        # Companions the graph controller would create: before the workload, as it creates them.
        if config.companions:
            try:
                objects = render_standalone_companions(dcd, config, cluster) + objects
            except RenderError as err:
                results.append(err.to_result(dcd.ref).with_source(item.file, item.index))
                continue
        # Objects the API server would refuse are errors, never output.
        refused = apiserver.refusals(objects)
        if refused:
            results.extend(r.with_source(item.file, item.index) for r in refused)
            continue
        yield from _unique(objects, seen, emitted, default_namespace)
        if keep_sources:
            passthrough.append(obj)
    if config.operator_config_source == "helm-defaults" and seen:
        results.append(
            Result(
                "no operator configuration given: assumed the operator Helm chart defaults "
                "(discovery kubernetes, no NATS/etcd addresses, MPI secret mpi-run-ssh-secret)",
                severity=Severity.INFO,
            )
        )
    if seen and cluster.sources == (BUNDLE_SOURCE,):
        results.append(
            Result(
                "no cluster state given (--cluster-state, clusterStatePath or --live): assumed a fresh cluster besides "
                "the input (no labelled component ServiceAccounts, pull secrets, existing workloads, DynamoCheckpoints "
                "or DRA objects)",
                severity=Severity.INFO,
            )
        )
    emitted |= object_index(passthrough, default_namespace)
    yield from passthrough

    # Every ServiceAccount, ConfigMap, Secret, PVC and claim a rendered pod needs: there, or reported.
    for ref, item, needs in owners:
        results.extend(r.with_source(item.file, item.index) for r in report_missing(ref, needs, emitted, cluster))


def _unique(
    objects: list[dict[str, Any]],
    seen: set[tuple[str, str, str, str]],
    emitted: set[tuple[Kind, str, str]],
    default_namespace: str,
) -> Iterator[dict[str, Any]]:
    """The objects not yet rendered (shared objects such as a model Service appear once), indexed as emitted."""
    for obj in objects:
        key = _identity(obj)
        if key not in seen:
            seen.add(key)
            emitted |= object_index((obj,), default_namespace)
            yield obj


def _identity(obj: dict[str, Any]) -> tuple[str, str, str, str]:
    meta = obj.get("metadata") or {}
    return (obj.get("apiVersion", ""), obj.get("kind", ""), meta.get("namespace", ""), meta.get("name", ""))
