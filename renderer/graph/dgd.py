"""DynamoGraphDeployment: the v1beta1 API types and the admitted ``DGD``.

The CRD schema of a DGD's spec as strict models (renderer.model), the annotations that route it, and
``DGD``/``Component``, the admitted graph the controllers read. Parsing a document is
``renderer.graph.dgd_parse``, the DGD webhook's rules ``renderer.graph.dgd_webhook``, the
expansion into DCDs ``renderer.graph.expand``, the component program ``renderer.graph.program``.

Mirrors: api/v1beta1/dynamographdeployment_types.go.
"""

from __future__ import annotations

from renderer.records import dataclass, field
from typing import Any, ClassVar, Literal

from renderer.model import Field

from renderer import consts
from renderer.admission.api import DynamoComponentDeploymentSharedSpec, ParsedSource, StrictModel
from renderer.pod.naming import compute_dynamo_namespace

WORKLOAD_PROVIDER_ANNOTATION = "nvidia.com/workload-provider"
ENABLE_GROVE_ANNOTATION = "nvidia.com/enable-grove"
GROVE_UPDATE_STRATEGY_ANNOTATION = "nvidia.com/grove-update-strategy"
GPU_POWER_LIMIT_ANNOTATION = "dynamo.nvidia.com/gpu-power-limit"
PROVIDER_COMPONENT = "component"
PROVIDER_GROVE = "grove"
WORKER_HASH_PLACEHOLDER = "worker-hash-placeholder"

# DGD metadata annotations copied into each component's pod template (component value wins).
PROPAGATED_ANNOTATIONS = (
    consts.ANNOTATION_ENABLE_METRICS,
    consts.ANNOTATION_DISCOVERY_BACKEND,
    consts.ANNOTATION_KUBE_DISCOVERY_MODE,
    consts.ANNOTATION_OPERATOR_ORIGIN_VERSION,
    consts.ANNOTATION_VLLM_DISTRIBUTED_EXECUTOR_BACKEND,
)
TOPOLOGY_VOLUME = "topology-labels"
# Mirrors: internal/dynamo/graph.go isWorkerKvTransferPolicyEnvVar
KV_TRANSFER_POLICY_ENV = frozenset(
    (
        "DYN_KV_TRANSFER_DOMAIN",
        "DYN_KV_TRANSFER_ENFORCEMENT",
        "DYN_KV_TRANSFER_PREFERRED_WEIGHT",
        "DYN_TOPOLOGY_ENABLED",
        "DYN_TOPOLOGY_MOUNT_PATH",
    )
)
TOPOLOGY_MOUNT_PATH = "/etc/dynamo/topology"
_LABEL_KEY_PATTERN = (
    r"^(([a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?)(\.[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?)*/)?"
    r"([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)$"
)


class KvTransferPolicy(StrictModel):
    cluster_topology_name: str | None = Field(default=None, alias="clusterTopologyName", min_length=1)
    label_key: str | None = Field(default=None, alias="labelKey", min_length=1, max_length=317, pattern=_LABEL_KEY_PATTERN)
    domain: str = Field(pattern=r"^[a-z0-9]([a-z0-9-]*[a-z0-9])?$")
    enforcement: Literal["required", "preferred"] = "required"
    preferred_weight: float | None = Field(default=None, alias="preferredWeight", ge=0, le=1)


class DGDExperimentalSpec(StrictModel):
    kv_transfer_policy: KvTransferPolicy | None = Field(default=None, alias="kvTransferPolicy")


class SpecTopologyConstraint(StrictModel):
    cluster_topology_name: str = Field(alias="clusterTopologyName", min_length=1)
    pack_domain: str | None = Field(default=None, alias="packDomain", pattern=r"^[a-z0-9]([a-z0-9-]*[a-z0-9])?$")


class RestartStrategy(StrictModel):
    type: Literal["Sequential", "Parallel"] = "Sequential"
    order: list[str] | None = None


class Restart(StrictModel):
    id: str = Field(min_length=1)
    strategy: RestartStrategy | None = None


class DynamoGraphDeploymentSpec(StrictModel):
    """``spec`` of a v1beta1 DGD."""

    provider_override: dict[str, Any] | None = Field(default=None, alias="providerOverride")
    annotations: dict[str, str] | None = None
    labels: dict[str, str] | None = None
    priority_class_name: str | None = Field(default=None, alias="priorityClassName")
    components: list[DynamoComponentDeploymentSharedSpec] | None = Field(default=None, max_length=25)
    env: list[dict[str, Any]] | None = None
    backend_framework: Literal["sglang", "vllm", "trtllm"] | None = Field(default=None, alias="backendFramework")
    restart: Restart | None = None
    topology_constraint: SpecTopologyConstraint | None = Field(default=None, alias="topologyConstraint")
    experimental: DGDExperimentalSpec | None = None


@dataclass(frozen=True)
class Component:
    """One DGD component: its validated spec and its Go-normalised pod template."""

    index: int
    spec: DynamoComponentDeploymentSharedSpec
    pod_template: dict[str, Any] | None
    raw: dict[str, Any]
    # The pod template exactly as admit_pod_template gave it (nulls kept), when it was admitted
    # without any problem; the generated DCD reuses it (renderer/graph/program.py _admitted_as_component).
    admitted_template: dict[str, Any] | None = field(default=None, compare=False, repr=False)

    @property
    def name(self) -> str:
        return self.spec.name or ""

    @property
    def type(self) -> str:
        return self.spec.type or ""

    @property
    def path(self) -> str:
        return f"spec.components[{self.index}]"


@dataclass(frozen=True)
class DGD(ParsedSource):
    """A validated, defaulted v1beta1 DGD on the component pathway."""

    name: str
    namespace: str
    labels: dict[str, str]
    annotations: dict[str, str]
    spec: DynamoGraphDeploymentSpec
    components: tuple[Component, ...]
    env: list[dict[str, Any]]
    source: dict[str, Any] = field(repr=False, compare=False, default_factory=dict)
    # the admitted v1alpha1 spec the user wrote, for a converted DGD (field paths map back to it)
    written_spec: dict[str, Any] | None = field(repr=False, compare=False, default=None)
    KIND: ClassVar[str] = consts.DGD_KIND

    @property
    def is_grove(self) -> bool:
        """Routed to the Grove pathway (the provider the defaulting webhook stamped)."""
        return self.annotations.get(WORKLOAD_PROVIDER_ANNOTATION) == PROVIDER_GROVE

    def has_epp(self) -> bool:
        """Mirrors: api/v1beta1 DynamoGraphDeployment.HasEPPComponent."""
        return any(c.type == consts.COMPONENT_TYPE_EPP for c in self.components)

    def has_multinode(self) -> bool:
        """Mirrors: api/v1beta1 DynamoGraphDeployment.HasAnyMultinodeComponent."""
        return any(c.spec.is_multinode for c in self.components)

    def dynamo_namespace(self, component: Component) -> str:
        """Mirrors: api/v1beta1 DynamoGraphDeployment.GetDynamoNamespaceForComponent."""
        return compute_dynamo_namespace(component.spec.global_dynamo_namespace, self.namespace, self.name)


def main_container(pod_template: dict[str, Any] | None) -> dict[str, Any] | None:
    containers: list[dict[str, Any]] = ((pod_template or {}).get("spec") or {}).get("containers") or []
    for container in containers:
        if container.get("name") == consts.MAIN_CONTAINER_NAME:
            return container
    return None
