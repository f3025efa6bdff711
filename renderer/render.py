"""Render a DCD, and a whole bundle of input objects, into what the operator would create.

Sequencing only: each step is a plain call in the operator's order. One DCD failing never
hides another; every problem comes back as a Result.

Mirrors: internal/controller/dynamocomponentdeployment_controller.go Reconcile (the order of
workload, component Service, model Service, Ingress, VirtualService).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from renderer import consts
from renderer.api import DCD, parse_dcd
from renderer.cluster import ClusterState, cluster_state_from_objects
from renderer.config import RenderConfig
from renderer.gpus import main_container_gpu_count
from renderer.labels import workload_component_type
from renderer.results import RenderError, ResourceRef, Result, Severity, unsupported
from renderer.services import (
    ingress_spec,
    render_component_service,
    render_ingress,
    render_model_service,
    render_virtual_service,
)
from renderer.workloads import render_deployment, render_leader_worker_set


def render_component(dcd: DCD, config: RenderConfig, cluster: ClusterState) -> list[dict[str, Any]]:
    """Every object the operator's DCD controller creates for one DCD, in reconcile order.

    Raises RenderError for the first problem in this DCD.
    """
    _check_namespace_allowed(dcd, config)
    workload_type = workload_component_type(dcd)
    gpu_count = _once(lambda: main_container_gpu_count(dcd))
    objects: list[dict[str, Any]] = []

    # Workload: a LeaderWorkerSet for multinode under the LWS gate, else a Deployment.
    if dcd.spec.is_multinode:
        if not config.lws_enabled:
            raise RenderError(
                f"multinode DCD needs LeaderWorkerSet but the LWS gate is off ({config.lws_reason}); the operator "
                "would render a broken single-pod Deployment, so this is refused",
                "spec.multinode.nodeCount",
            )
        objects.append(render_leader_worker_set(dcd, workload_type, config, cluster, gpu_count))
    else:
        objects.append(render_deployment(dcd, workload_type, config, cluster, gpu_count))

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


def render_items(
    items: Iterable[Item],
    config: RenderConfig,
    default_namespace: str,
    keep_sources: bool = False,
    cluster: ClusterState | None = None,
) -> Rendered:
    """Render every DCD of a bundle; pass every other object through untouched.

    Output order: the rendered objects of each DCD in input order (objects shared by several
    DCDs, such as a model Service, appear once, where first rendered), then every other input
    object in input order (rendered DCDs are dropped unless ``keep_sources``).
    """
    items = list(items)
    out = Rendered()
    if cluster is None:
        cluster, state_results = cluster_state_from_objects((i.obj for i in items), default_namespace)
        out.results.extend(state_results)
    rendered: list[dict[str, Any]] = []
    seen: set[tuple[str, str, str, str]] = set()
    passthrough: list[dict[str, Any]] = []
    for item in items:
        obj = item.obj
        if is_dgd(obj):
            ref = ResourceRef.of(obj)
            out.results.append(
                unsupported("kind", "DynamoGraphDeployment rendering").to_result(ref).with_source(item.file, item.index)
            )
            continue
        if not is_dcd(obj):
            passthrough.append(obj)
            continue
        dcd, results = parse_dcd(obj, default_namespace, config.checkpoint_enabled)
        out.results.extend(r.with_source(item.file, item.index) for r in results)
        if dcd is None:
            continue
        try:
            objects = render_component(dcd, config, cluster)
        except RenderError as err:
            out.results.append(err.to_result(dcd.ref).with_source(item.file, item.index))
            continue
        for obj_out in objects:
            key = _identity(obj_out)
            if key in seen:
                continue
            seen.add(key)
            rendered.append(obj_out)
        if keep_sources:
            passthrough.append(obj)
    if config.operator_config_source == "helm-defaults" and rendered:
        out.results.append(
            Result(
                "no operator configuration given: assumed the operator Helm chart defaults "
                "(discovery kubernetes, no NATS/etcd addresses, MPI secret mpi-run-ssh-secret)",
                severity=Severity.INFO,
            )
        )
    out.objects = rendered + passthrough
    return out


def _identity(obj: dict[str, Any]) -> tuple[str, str, str, str]:
    meta = obj.get("metadata") or {}
    return (obj.get("apiVersion", ""), obj.get("kind", ""), meta.get("namespace", ""), meta.get("name", ""))
