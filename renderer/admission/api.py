"""v1beta1 DynamoComponentDeployment: the API types and the admitted ``DCD``.

The CRD schema of a DCD's spec as strict models (renderer.model) (types, enums, minimums, patterns,
structural defaults) and ``DCD``, the validated, defaulted object the controller reads. Parsing
a document into a ``DCD`` is ``renderer.admission.parse``; the CEL and validating-webhook rules
are ``renderer.admission.webhook``.

Mirrors: api/v1beta1/dynamocomponentdeployment_types.go, api/v1beta1/common.go,
config/crd/bases/nvidia.com_dynamocomponentdeployments.yaml (schema and defaults).
"""

from __future__ import annotations

import re
from renderer.records import dataclass, field
from typing import Any, ClassVar, Literal

from renderer.model import BaseModel, ConfigDict, CustomError, Field, ValidationInfo, field_validator

from renderer import consts
from renderer.admission.objectmeta import DNS1123_LABEL
from renderer.conversion.alpha_view import AlphaView
from renderer.results import ResourceRef

INT32_MAX = 2**31 - 1
DNS_LABEL = DNS1123_LABEL.pattern
COMPONENT_NAME_PATTERN = r"^[A-Za-z0-9]([-A-Za-z0-9]*[A-Za-z0-9])?$"
RUNTIME_VERSION_PATTERN = r"^(0|[1-9][0-9]{0,3})\.(0|[1-9][0-9]{0,3})\.(0|[1-9][0-9]{0,3})$"
TOPOLOGY_DOMAIN_PATTERN = r"^[a-z0-9]([a-z0-9-]*[a-z0-9])?$"


class StrictModel(BaseModel):
    """Dynamo-owned objects: camelCase JSON names, no coercion, unknown fields rejected."""

    # Validators are built on first use, not at import (start-up time of the CLI).
    model_config = ConfigDict(strict=True, extra="forbid", frozen=True, populate_by_name=False, defer_build=True)


def _int32(ge: int | None = None, le: int = INT32_MAX) -> Any:
    return Field(default=None, ge=ge, le=le)


class ProviderOverride(StrictModel):
    api_version: str = Field(alias="apiVersion", min_length=1)
    target: str | None = None
    value: dict[str, Any]


class MultinodeRoleSpec(StrictModel):
    provider_override: ProviderOverride | None = Field(default=None, alias="providerOverride")


class ComponentRoleSpec(StrictModel):
    """One entry of a component's ``roles[]`` (operator 1.5.0, ai-dynamo/dynamo#14419).

    ``replicas`` and ``podTemplate`` are later additions to the role; they are parsed so that
    renderer.admission.roles can refuse them naming the release that added them.

    Ported from ai-dynamo/dynamo#14419 (v1.5.0): api/v1beta1 ComponentRoleSpec (name: 1 to 63
    characters, a DNS-1123 label; providerOverride).
    """

    name: str = Field(min_length=1, max_length=63, pattern=DNS_LABEL)
    replicas: int | None = None
    pod_template: dict[str, Any] | None = Field(default=None, alias="podTemplate")
    provider_override: ProviderOverride | None = Field(default=None, alias="providerOverride")


class MultinodeSpec(StrictModel):
    # CRD structural default: an empty block means two nodes.
    node_count: int = Field(default=2, alias="nodeCount", ge=2, le=INT32_MAX)
    leader: MultinodeRoleSpec | None = None
    worker: MultinodeRoleSpec | None = None


class ModelReference(StrictModel):
    name: str = Field(min_length=1)
    revision: str | None = None


class ConfigMapKeySelector(StrictModel):
    name: str = ""
    key: str
    optional: bool | None = None


class EPPConfig(StrictModel):
    config_map_ref: ConfigMapKeySelector | None = Field(default=None, alias="configMapRef")
    # EndpointPickerConfig from gateway-api-inference-extension: the CRD keeps unknown keys.
    config: dict[str, Any] | None = None


class CompilationCacheConfig(StrictModel):
    pvc_name: str = Field(alias="pvcName", min_length=1)
    mount_path: str | None = Field(default=None, alias="mountPath")


class TopologyConstraint(StrictModel):
    pack_domain: str = Field(alias="packDomain", pattern=TOPOLOGY_DOMAIN_PATTERN)


class GMSClientPodSpec(StrictModel):
    name: str = Field(min_length=1, max_length=63, pattern=DNS_LABEL)
    pod_template: dict[str, Any] = Field(alias="podTemplate")


class GPUMemoryServiceSpec(StrictModel):
    mode: Literal["IntraPod", "InterPod"] = "IntraPod"
    device_class_name: str = Field(default="gpu.nvidia.com", alias="deviceClassName")
    extra_client_containers: list[str] | None = Field(default=None, alias="extraClientContainers")
    extra_client_pods: list[GMSClientPodSpec] | None = Field(default=None, alias="extraClientPods")


class FailoverSpec(StrictModel):
    mode: Literal["IntraPod", "InterPod"] = "IntraPod"
    num_shadows: int = Field(default=1, alias="numShadows", ge=1, le=1)


class GroveSpec(StrictModel):
    force_scaling_group: bool = Field(default=False, alias="forceScalingGroup")


class DynamoCheckpointIdentity(StrictModel):
    model: str = Field(min_length=1)
    backend_framework: Literal["vllm", "sglang", "trtllm"] = Field(alias="backendFramework")
    dynamo_version: str | None = Field(default=None, alias="dynamoVersion")
    tensor_parallel_size: int = Field(default=1, alias="tensorParallelSize", ge=1, le=INT32_MAX)
    pipeline_parallel_size: int = Field(default=1, alias="pipelineParallelSize", ge=1, le=INT32_MAX)
    dtype: str | None = None
    max_model_len: int | None = Field(default=None, alias="maxModelLen", ge=1, le=INT32_MAX)
    extra_parameters: dict[str, str] | None = Field(default=None, alias="extraParameters")


class ComponentCheckpointJobConfig(StrictModel):
    gms_client_containers: list[str] | None = Field(default=None, alias="gmsClientContainers")
    pod_template: dict[str, Any] | None = Field(default=None, alias="podTemplate")


class ComponentCheckpointConfig(StrictModel):
    enabled: bool
    mode: Literal["Auto", "Manual"] | None = None
    startup_policy: Literal["Immediate", "WaitForCheckpoint"] = Field(default="Immediate", alias="startupPolicy")
    deletion_policy: Literal["Delete", "Retain"] = Field(default="Delete", alias="deletionPolicy")
    checkpoint_ref: str | None = Field(default=None, alias="checkpointRef")
    identity: DynamoCheckpointIdentity | None = None
    target_container_name: str = Field(
        default="main", alias="targetContainerName", min_length=1, max_length=63, pattern=DNS_LABEL
    )
    job: ComponentCheckpointJobConfig | None = None


class ExperimentalSpec(StrictModel):
    gpu_memory_service: GPUMemoryServiceSpec | None = Field(default=None, alias="gpuMemoryService")
    failover: FailoverSpec | None = None
    grove: GroveSpec | None = None
    checkpoint: ComponentCheckpointConfig | None = None


ComponentType = Literal["frontend", "worker", "prefill", "decode", "planner", "epp"]
COMPONENT_TYPES: tuple[str, ...] = ("frontend", "worker", "prefill", "decode", "planner", "epp")


class DynamoComponentDeploymentSharedSpec(StrictModel):
    """The component spec shared by a DCD and a DGD's ``spec.components[]`` entries."""

    provider_override: ProviderOverride | None = Field(default=None, alias="providerOverride")
    name: str | None = Field(default=None, min_length=1, max_length=63)
    type: str | None = None
    runtime_version_override: str | None = Field(
        default=None, alias="runtimeVersionOverride", pattern=RUNTIME_VERSION_PATTERN
    )
    global_dynamo_namespace: bool = Field(default=False, alias="globalDynamoNamespace")
    pod_template: dict[str, Any] | None = Field(default=None, alias="podTemplate")
    replicas: int | None = _int32(ge=0)
    min_available: int | None = Field(default=None, alias="minAvailable", ge=1, le=INT32_MAX)
    multinode: MultinodeSpec | None = None
    # operator 1.5.0 and later only (renderer.admission.roles)
    roles: list[ComponentRoleSpec] | None = None
    shared_memory_size: int | str | None = Field(default=None, alias="sharedMemorySize")
    model_ref: ModelReference | None = Field(default=None, alias="modelRef")
    scaling_adapter: dict[str, Any] | None = Field(default=None, alias="scalingAdapter")
    epp_config: EPPConfig | None = Field(default=None, alias="eppConfig")
    frontend_sidecar: str | None = Field(default=None, alias="frontendSidecar")
    compilation_cache: CompilationCacheConfig | None = Field(default=None, alias="compilationCache")
    topology_constraint: TopologyConstraint | None = Field(default=None, alias="topologyConstraint")
    experimental: ExperimentalSpec | None = None

    # The v1beta1 CRD's enum and pattern. A converted v1alpha1 object is stored without being
    # validated against the v1beta1 schema (v1alpha1 allows any componentType and service name),
    # so they are checked only for objects written as v1beta1 (validation context "converted").
    @field_validator("type")
    @classmethod
    def _known_type(cls, value: str | None, info: ValidationInfo) -> str | None:
        if value is not None and value not in COMPONENT_TYPES and not (info.context or {}).get("converted"):
            expected = ", ".join(f"'{t}'" for t in COMPONENT_TYPES[:-1]) + f" or '{COMPONENT_TYPES[-1]}'"
            raise CustomError("literal_error", "unsupported value", {"expected": expected})
        return value

    @field_validator("name")
    @classmethod
    def _name_pattern(cls, value: str | None, info: ValidationInfo) -> str | None:
        if value is not None and not re.fullmatch(COMPONENT_NAME_PATTERN, value) and not (info.context or {}).get("converted"):
            raise CustomError("string_pattern_mismatch", "pattern", {"pattern": COMPONENT_NAME_PATTERN})
        return value

    @property
    def number_of_nodes(self) -> int:
        """Mirrors: api/v1beta1 DynamoComponentDeploymentSharedSpec.GetNumberOfNodes."""
        return self.multinode.node_count if self.multinode is not None else 1

    @property
    def is_multinode(self) -> bool:
        return self.number_of_nodes > 1


class DynamoComponentDeploymentSpec(DynamoComponentDeploymentSharedSpec):
    """``spec`` of a v1beta1 DCD: backendFramework plus the inlined shared spec."""

    backend_framework: Literal["sglang", "vllm", "trtllm"] | None = Field(default=None, alias="backendFramework")


class ParsedSource:
    """What a parsed DCD and DGD share: their reference, and the spec a converted v1alpha1 one was written as."""

    KIND: ClassVar[str] = ""
    name: str
    namespace: str
    source: dict[str, Any]
    written_spec: dict[str, Any] | None

    @property
    def ref(self) -> ResourceRef:
        return ResourceRef(consts.V1BETA1, self.KIND, self.name, self.namespace)


@dataclass(frozen=True)
class DCD(ParsedSource):
    """A validated, defaulted v1beta1 DCD: what the operator's controller would read.

    ``pod_template`` is the Go-typed normalisation of ``spec.podTemplate`` (or None).
    """

    name: str
    namespace: str
    labels: dict[str, str]
    annotations: dict[str, str]
    owner_dgd: str  # name of an ownerReference of kind DynamoGraphDeployment, else ""
    spec: DynamoComponentDeploymentSpec
    pod_template: dict[str, Any] | None
    source: dict[str, Any] = field(repr=False, compare=False, default_factory=dict)
    # what the controllers read back through ConvertFrom (preserved v1alpha1 data, if any)
    alpha: AlphaView = field(default_factory=AlphaView)
    # a converted v1alpha1 DCD: the spec the user wrote, to name its fields in messages
    written_spec: dict[str, Any] | None = field(repr=False, compare=False, default=None)
    KIND: ClassVar[str] = consts.DCD_KIND

    @property
    def component_type(self) -> str:
        return self.spec.type or ""

    @property
    def pod_template_annotations(self) -> dict[str, str]:
        return ((self.pod_template or {}).get("metadata") or {}).get("annotations") or {}

    @property
    def pod_template_labels(self) -> dict[str, str]:
        return ((self.pod_template or {}).get("metadata") or {}).get("labels") or {}

    @property
    def pod_spec(self) -> dict[str, Any]:
        return (self.pod_template or {}).get("spec") or {}

    def main_container(self) -> dict[str, Any] | None:
        """Mirrors: internal/dynamo/v1beta1_helpers.go GetMainContainer."""
        for container in self.pod_spec.get("containers") or []:
            if container.get("name") == consts.MAIN_CONTAINER_NAME:
                found: dict[str, Any] = container
                return found
        return None
