"""The DGD's GPU Memory Service ResourceClaimTemplates, one per GMS component.

The graph controller syncs ``<dgd>-<component>-gpu`` for every component with
``experimental.gpuMemoryService`` (either mode), sized by the main container's GPU count,
before any component is rendered. Without the DRA gate a GMS or inter-pod failover component
stops the whole graph with the operator's error.

Mirrors: internal/controller/dgd_gms_resource_claims_reconciler.go Reconcile
"""

from __future__ import annotations

from typing import Any

from renderer.cluster.state import ClusterState
from renderer.config import RenderConfig
from renderer.graph.dgd import DGD, main_container
from renderer.pod import gms
from renderer.results import RenderError


def render_gms_claim_templates(dgd: DGD, config: RenderConfig, cluster: ClusterState) -> list[dict[str, Any]]:
    """Mirrors: internal/controller/dgd_gms_resource_claims_reconciler.go Reconcile"""
    if not config.dra_enabled:
        for component in dgd.components:
            experimental = component.spec.experimental
            if experimental is None:
                continue
            failover = experimental.failover
            if experimental.gpu_memory_service is not None or (failover is not None and failover.mode == gms.MODE_INTER_POD):
                raise RenderError(gms.DRA_UNAVAILABLE, f"{component.path}.experimental")
        return []
    out: list[dict[str, Any]] = []
    for component in dgd.components:
        experimental = component.spec.experimental
        spec = experimental.gpu_memory_service if experimental is not None else None
        if spec is None:
            continue
        resources = (main_container(component.pod_template) or {}).get("resources") or {}
        try:
            template = gms.component_claim_template(
                dgd.name, dgd.namespace, component.name, spec.device_class_name, resources, cluster
            )
        except RenderError as err:
            raise err.at(f"{component.path}.experimental.gpuMemoryService") from None
        if template is not None:
            out.append(template)
    return out
