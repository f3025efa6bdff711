"""Render one DCD into what the operator's DCD controller creates, in reconcile order.

Sequencing only: each step is a plain call in the operator's order.

Mirrors: internal/controller/dynamocomponentdeployment_controller.go Reconcile (the order of
workload, component Service, model Service, Ingress, VirtualService).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from renderer import consts
from renderer.admission.api import DCD
from renderer.cluster.state import ClusterState
from renderer.config import RenderConfig
from renderer.objects.services import (
    ingress_spec,
    render_component_service,
    render_ingress,
    render_model_service,
    render_virtual_service,
)
from renderer.objects.workloads import render_pod_template, render_workload
from renderer.pod.checkpoint import CheckpointInfo, resolve_checkpoint
from renderer.pod.checkpoint_pvc import render_checkpoint_storage
from renderer.pod.checkpoint_restore import overlay_gms_clients
from renderer.pod.gpus import main_container_gpu_count
from renderer.pod.labels import has_legacy_worker_selector, workload_component_type
from renderer.pod.naming import lws_name, normalize_kube_resource_name
from renderer.results import Code, RenderError, Result, Severity


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
    template = partial(render_pod_template, dcd, workload_type, config, cluster, gpu_count, checkpoint)
    objects.append(render_workload(dcd, workload_type, config, template))

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
                    code=Code.NOTE,
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
