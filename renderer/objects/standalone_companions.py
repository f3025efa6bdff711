"""Companion objects for a standalone DCD: what the graph controller would create beside it.

Rendered pods reference objects the DCD controller never creates: the Kubernetes-discovery
ServiceAccount ``<parent>-k8s-service-discovery`` (with its Role and RoleBinding), the vLLM
``<parent>-wait-leader-script`` ConfigMap, and the planner and EPP ServiceAccounts. The DGD
controller creates them for its components; for a DCD authored on its own nothing would, so we
render them as the DGD controller would for a one-component graph whose name is the DCD's
parent name (the owner DGD's name, else the DCD's own name).

The conditions are the DGD controller's, evaluated on the DCD:

- discovery RBAC when Kubernetes discovery is enabled for the DCD (operator config, overridden
  by the pod template's ``nvidia.com/dynamo-discovery-backend`` annotation: the same
  annotations that give the pod that ServiceAccount);
- planner and EPP ServiceAccounts bound to the operator's ClusterRoles only in cluster-wide
  mode, where the DGD controller creates them. Intended difference: the DGD controller creates
  the planner's for every graph; here it comes only with a planner DCD, whose pods use it (and
  the EPP's with an EPP DCD, as the DGD controller does);
- the GPU Memory Service ResourceClaimTemplate ``<parent>-<component>-gpu`` for an intra-pod
  GMS DCD, whose pods claim their GPUs from it (only when the DRA gate is on);
- the wait-for-leader ConfigMap for a multinode DCD.

Two DCDs with the same parent yield the same objects; the bundle renderer emits them once.

Mirrors: internal/controller/dgd_rbac_reconciler.go, dgd_discovery_reconciler.go,
dgd_gms_resource_claims_reconciler.go, dgd_wait_for_leader_reconciler.go (builders in
renderer.objects.companions and renderer.pod.gms).
"""

from __future__ import annotations

from typing import Any

from renderer.objects import companions
from renderer import consts
from renderer.admission.api import DCD
from renderer.config import RenderConfig
from renderer.cluster.state import EMPTY, ClusterState
from renderer.pod import gms
from renderer.pod.labels import component_name, is_k8s_discovery_enabled, parent_name


def render_standalone_companions(dcd: DCD, config: RenderConfig, cluster: ClusterState = EMPTY) -> list[dict[str, Any]]:
    """The objects the graph controller's shared-resource steps would create for this DCD, in its order."""
    operator = config.operator
    parent = parent_name(dcd)
    objects: list[dict[str, Any]] = []

    # Planner and EPP RBAC: cluster-wide operators only (restricted ones rely on Helm's).
    if not operator.namespace.restricted:
        if dcd.component_type == consts.COMPONENT_TYPE_PLANNER:
            objects += companions.service_account_with_cluster_role(
                consts.PLANNER_SERVICE_ACCOUNT_NAME, dcd.namespace, operator.rbac.planner_cluster_role_name
            )
        if dcd.component_type == consts.COMPONENT_TYPE_EPP:
            objects += companions.service_account_with_cluster_role(
                consts.EPP_SERVICE_ACCOUNT_NAME, dcd.namespace, operator.rbac.epp_cluster_role_name
            )

    # Kubernetes discovery: ServiceAccount, Role and RoleBinding named after the parent.
    if is_k8s_discovery_enabled(operator.discovery.backend, dcd.pod_template_annotations):
        objects += companions.discovery_rbac(parent, dcd.namespace)

    # Intra-pod GPU Memory Service: the claim template its pods reference.
    experimental = dcd.spec.experimental
    gms_spec = experimental.gpu_memory_service if experimental is not None else None
    if gms_spec is not None and gms_spec.mode != gms.MODE_INTER_POD and config.dra_enabled:
        resources = (dcd.main_container() or {}).get("resources") or {}
        template = gms.component_claim_template(
            parent, dcd.namespace, component_name(dcd), gms_spec.device_class_name, resources, cluster
        )
        if template is not None:
            objects.append(template)

    # vLLM multiprocessing workers wait for their leader with the operator's script.
    if dcd.spec.is_multinode:
        objects.append(companions.wait_leader_config_map(parent, dcd.namespace))
    return objects
