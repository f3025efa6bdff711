"""v1beta1 DynamoComponentDeployment: models, admission defaults and admission rules.

Everything the API server and the operator's admission webhooks do to a DCD before the
controller sees it happens here, because objects read from Git have not been through them:
the CRD schema (types, enums, minimums, patterns), its CEL rules, the structural defaults,
the defaulting webhook and the standalone-DCD validating webhook.

Mirrors: api/v1beta1/dynamocomponentdeployment_types.go, api/v1beta1/common.go,
config/crd/bases/nvidia.com_dynamocomponentdeployments.yaml (CEL rules and defaults),
internal/webhook/defaulting/dynamocomponentdeployment_handler.go,
internal/webhook/validation/{dynamocomponentdeployment.go,shared_v1beta1.go,shared_helpers.go}.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, ValidationInfo, field_validator
from pydantic_core import PydanticCustomError

from renderer import consts
from renderer.gocompat import gotypes
from renderer.admission import objectmeta, podrules, podtemplate_schema
from renderer.admission.flags import is_elastic_ep_ray_launch
from renderer.admission.v1alpha1.alpha_view import AlphaView, dcd_view
from renderer.gocompat.quantity import unmarshal_quantity
from renderer.gocompat.runtimeversion import parse_image_version
from renderer.results import (
    Code,
    RenderError,
    ResourceRef,
    Result,
    Severity,
    describe_kind,
    field_path,
    go_quote,
    unsupported,
)

INT32_MAX = 2**31 - 1
DNS_LABEL = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"
COMPONENT_NAME_PATTERN = r"^[A-Za-z0-9]([-A-Za-z0-9]*[A-Za-z0-9])?$"
RUNTIME_VERSION_PATTERN = r"^(0|[1-9][0-9]{0,3})\.(0|[1-9][0-9]{0,3})\.(0|[1-9][0-9]{0,3})$"
TOPOLOGY_DOMAIN_PATTERN = r"^[a-z0-9]([a-z0-9-]*[a-z0-9])?$"
DNS1123_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")


class _Strict(BaseModel):
    """Dynamo-owned objects: camelCase JSON names, no coercion, unknown fields rejected."""

    # Validators are built on first use, not at import (start-up time of the CLI).
    model_config = ConfigDict(strict=True, extra="forbid", frozen=True, populate_by_name=False, defer_build=True)


def _int32(ge: int | None = None, le: int = INT32_MAX) -> Any:
    return Field(default=None, ge=ge, le=le)


class ProviderOverride(_Strict):
    api_version: str = Field(alias="apiVersion", min_length=1)
    target: str | None = None
    value: dict[str, Any]


class MultinodeRoleSpec(_Strict):
    provider_override: ProviderOverride | None = Field(default=None, alias="providerOverride")


class MultinodeSpec(_Strict):
    # CRD structural default: an empty block means two nodes.
    node_count: int = Field(default=2, alias="nodeCount", ge=2, le=INT32_MAX)
    leader: MultinodeRoleSpec | None = None
    worker: MultinodeRoleSpec | None = None


class ModelReference(_Strict):
    name: str = Field(min_length=1)
    revision: str | None = None


class ConfigMapKeySelector(_Strict):
    name: str = ""
    key: str
    optional: bool | None = None


class EPPConfig(_Strict):
    config_map_ref: ConfigMapKeySelector | None = Field(default=None, alias="configMapRef")
    # EndpointPickerConfig from gateway-api-inference-extension: the CRD keeps unknown keys.
    config: dict[str, Any] | None = None


class CompilationCacheConfig(_Strict):
    pvc_name: str = Field(alias="pvcName", min_length=1)
    mount_path: str | None = Field(default=None, alias="mountPath")


class TopologyConstraint(_Strict):
    pack_domain: str = Field(alias="packDomain", pattern=TOPOLOGY_DOMAIN_PATTERN)


class GMSClientPodSpec(_Strict):
    name: str = Field(min_length=1, max_length=63, pattern=DNS_LABEL)
    pod_template: dict[str, Any] = Field(alias="podTemplate")


class GPUMemoryServiceSpec(_Strict):
    mode: Literal["IntraPod", "InterPod"] = "IntraPod"
    device_class_name: str = Field(default="gpu.nvidia.com", alias="deviceClassName")
    extra_client_containers: list[str] | None = Field(default=None, alias="extraClientContainers")
    extra_client_pods: list[GMSClientPodSpec] | None = Field(default=None, alias="extraClientPods")


class FailoverSpec(_Strict):
    mode: Literal["IntraPod", "InterPod"] = "IntraPod"
    num_shadows: int = Field(default=1, alias="numShadows", ge=1, le=1)


class GroveSpec(_Strict):
    force_scaling_group: bool = Field(default=False, alias="forceScalingGroup")


class DynamoCheckpointIdentity(_Strict):
    model: str = Field(min_length=1)
    backend_framework: Literal["vllm", "sglang", "trtllm"] = Field(alias="backendFramework")
    dynamo_version: str | None = Field(default=None, alias="dynamoVersion")
    tensor_parallel_size: int = Field(default=1, alias="tensorParallelSize", ge=1, le=INT32_MAX)
    pipeline_parallel_size: int = Field(default=1, alias="pipelineParallelSize", ge=1, le=INT32_MAX)
    dtype: str | None = None
    max_model_len: int | None = Field(default=None, alias="maxModelLen", ge=1, le=INT32_MAX)
    extra_parameters: dict[str, str] | None = Field(default=None, alias="extraParameters")


class ComponentCheckpointJobConfig(_Strict):
    gms_client_containers: list[str] | None = Field(default=None, alias="gmsClientContainers")
    pod_template: dict[str, Any] | None = Field(default=None, alias="podTemplate")


class ComponentCheckpointConfig(_Strict):
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


class ExperimentalSpec(_Strict):
    gpu_memory_service: GPUMemoryServiceSpec | None = Field(default=None, alias="gpuMemoryService")
    failover: FailoverSpec | None = None
    grove: GroveSpec | None = None
    checkpoint: ComponentCheckpointConfig | None = None


ComponentType = Literal["frontend", "worker", "prefill", "decode", "planner", "epp"]
COMPONENT_TYPES: tuple[str, ...] = ("frontend", "worker", "prefill", "decode", "planner", "epp")


class DynamoComponentDeploymentSharedSpec(_Strict):
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
            raise PydanticCustomError("literal_error", "unsupported value", {"expected": expected})
        return value

    @field_validator("name")
    @classmethod
    def _name_pattern(cls, value: str | None, info: ValidationInfo) -> str | None:
        if value is not None and not re.fullmatch(COMPONENT_NAME_PATTERN, value) and not (info.context or {}).get("converted"):
            raise PydanticCustomError("string_pattern_mismatch", "pattern", {"pattern": COMPONENT_NAME_PATTERN})
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


@dataclass(frozen=True)
class DCD:
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

    @property
    def ref(self) -> ResourceRef:
        return ResourceRef(consts.V1BETA1, consts.DCD_KIND, self.name, self.namespace)

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


# ---------------------------------------------------------------------------------------------
# Parsing


def parse_dcd(
    obj: dict[str, Any],
    default_namespace: str,
    checkpoint_gate: bool = False,
    admission: bool = True,
    runtime_source: str = consts.V1BETA1,
) -> tuple[DCD | None, list[Result]]:
    """Validate and default one DCD document; every problem becomes a Result.

    Returns ``(None, results)`` when any error-severity problem was found; warnings (unknown
    podTemplate fields, ignored fields) come back alongside a usable DCD. A v1alpha1 DCD is
    admitted and converted first (renderer/admission/v1alpha1/admit.py); ``runtime_source`` is
    the API version the user wrote, which decides the form of the runtime-version rule.
    """
    ref = ResourceRef.of(obj)
    results: list[Result] = []

    api_version = obj.get("apiVersion")
    if api_version == consts.V1ALPHA1:
        from renderer.admission.v1alpha1.admit import parse_alpha_dcd

        return parse_alpha_dcd(obj, default_namespace, checkpoint_gate)

    metadata, meta_results = parse_metadata(obj, default_namespace)
    results.extend(r.with_resource(ref) for r in meta_results)

    raw_spec = obj.get("spec")
    if raw_spec is None:
        raw_spec = {}
    if not isinstance(raw_spec, dict):
        results.append(Result(f"expected object, got {describe_kind(raw_spec)}", field="spec", resource=ref))
        return None, results

    spec_results: list[Result] = []
    converted = runtime_source != consts.V1BETA1
    spec = _validate_model(DynamoComponentDeploymentSpec, raw_spec, "spec", spec_results, converted)
    results.extend(r.with_resource(ref) for r in spec_results)
    if spec is None or metadata is None:
        return None, results

    # Defaulting webhook (CREATE): the stable component name falls back to metadata.name.
    if not spec.name:
        spec = spec.model_copy(update={"name": metadata.name})

    pod_template: dict[str, Any] | None = None
    if spec.pod_template is not None:
        # The API server defaults and validates the embedded pod template against the CRD's
        # structural schema before the operator decodes it.
        defaulted = podtemplate_schema.apply_defaults(spec.pod_template)
        results.extend(p.with_resource(ref) for p in podtemplate_schema.validate(defaulted, "spec.podTemplate"))
        results.extend(p.with_resource(ref) for p in podrules.validate(defaulted, "spec.podTemplate"))
        normalized, problems = gotypes.normalize("PodTemplateSpec", defaulted, "spec.podTemplate")
        results.extend(p.with_resource(ref) for p in problems)
        if isinstance(normalized, dict):
            pod_template = normalized

    dcd = DCD(
        name=metadata.name,
        namespace=metadata.namespace,
        labels=metadata.labels,
        annotations=metadata.annotations,
        owner_dgd=metadata.owner_dgd,
        spec=spec,
        pod_template=pod_template,
        source=obj,
        alpha=dcd_view(obj),
    )
    # DCDs generated from a DGD were already admitted as DGD components.
    if admission:
        results.extend(r.with_resource(ref) for r in validate_admission(dcd, checkpoint_gate, runtime_source))
    if any(r.is_error for r in results):
        return None, results
    return dcd, results


# The pod template's CRD structural rules live in renderer.admission.podtemplate_schema; these names are
# the ones the DCD and DGD parsers use.
POD_TEMPLATE_SPEC_DEFAULTS = podtemplate_schema.DEFAULTS
apply_pod_template_defaults = podtemplate_schema.apply_defaults
validate_pod_template_schema = podtemplate_schema.validate


@dataclass(frozen=True)
class _Metadata:
    name: str
    namespace: str
    labels: dict[str, str]
    annotations: dict[str, str]
    owner_dgd: str


def parse_metadata(obj: dict[str, Any], default_namespace: str) -> tuple[_Metadata | None, list[Result]]:
    """Name, namespace (defaulted), labels, annotations and the owner DGD of an object."""
    results: list[Result] = []
    meta = obj.get("metadata")
    if not isinstance(meta, dict):
        return None, [Result("required field missing", field="metadata")]
    name = meta.get("name")
    if not isinstance(name, str) or not name:
        results.append(Result("required field missing", field="metadata.name"))
    elif len(name) > 253 or not DNS1123_SUBDOMAIN.fullmatch(name):
        results.append(
            Result(
                f'invalid name "{name}": must be a lowercase RFC 1123 subdomain (lowercase alphanumerics, "-" and ".")',
                field="metadata.name",
            )
        )
    namespace = meta.get("namespace")
    if namespace is None or namespace == "":
        namespace = default_namespace
    elif not isinstance(namespace, str):
        results.append(Result(f"expected string, got {describe_kind(namespace)}", field="metadata.namespace"))
    if isinstance(namespace, str):
        results.extend(objectmeta.validate_namespace(namespace))
    labels = _string_map(meta.get("labels"), "metadata.labels", results)
    annotations = _string_map(meta.get("annotations"), "metadata.annotations", results)
    # The API server's metadata rules: these are copied onto every rendered object.
    results.extend(objectmeta.validate_labels(labels))
    results.extend(objectmeta.validate_annotations(annotations))
    owner = ""
    owners = meta.get("ownerReferences")
    if isinstance(owners, list):
        for ref in owners:
            if isinstance(ref, dict) and ref.get("kind") == consts.DGD_KIND and isinstance(ref.get("name"), str):
                owner = ref["name"]
                break
    if results:
        return None, results
    assert isinstance(name, str) and isinstance(namespace, str)
    return _Metadata(name, namespace, labels, annotations, owner), results


def _string_map(value: Any, path: str, results: list[Result]) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        results.append(Result(f"expected object, got {describe_kind(value)}", field=path))
        return {}
    out: dict[str, str] = {}
    for key, item in value.items():
        if not isinstance(item, str):
            results.append(Result(f"expected string, got {describe_kind(item)}", field=f"{path}[{key}]"))
            continue
        out[str(key)] = item
    return out


def _validate_model(
    model: type[_Strict], data: dict[str, Any], prefix: str, results: list[Result], converted: bool = False
) -> Any:
    """Validate ``data`` against a strict model, turning every pydantic error into a Result."""
    try:
        return model.model_validate(data, context={"converted": converted})
    except ValidationError as err:
        for error in err.errors(include_url=False):
            code = Code.UNKNOWN_FIELD if error["type"] == "extra_forbidden" else Code.INVALID
            results.append(Result(_message(error), field=field_path(prefix, tuple(error["loc"])), code=code))
        return None


def _message(error: Any) -> str:
    """Kubernetes-flavoured, lower-case wording for a pydantic error."""
    kind = error["type"]
    value = error.get("input")
    ctx = error.get("ctx") or {}
    if kind == "extra_forbidden":
        loc = error["loc"]
        return f'unknown field "{loc[-1]}"'
    if kind == "missing":
        return "required field missing"
    if kind == "literal_error":
        return f"unsupported value {_show(value)} (valid: {ctx.get('expected', '')})".replace("'", "")
    if kind in {"greater_than_equal", "greater_than"}:
        return f"must be >= {ctx.get('ge', ctx.get('gt'))} (got {_show(value)})"
    if kind in {"less_than_equal", "less_than"}:
        return f"must be <= {ctx.get('le', ctx.get('lt'))} (got {_show(value)})"
    if kind == "string_pattern_mismatch":
        return f"must match {ctx.get('pattern')} (got {_show(value)})"
    if kind == "string_too_short":
        if ctx.get("min_length") == 1:
            return "must not be empty"
        return f"must be at least {ctx.get('min_length')} characters"
    if kind == "string_too_long":
        return f"must be at most {ctx.get('max_length')} characters"
    expected = {
        "int_type": "integer",
        "int_parsing": "integer",
        "int_from_float": "integer",
        "string_type": "string",
        "bool_type": "boolean",
        "bool_parsing": "boolean",
        "dict_type": "object",
        "model_type": "object",
        "model_attributes_type": "object",
        "list_type": "array",
    }.get(kind)
    if expected is not None:
        return f"expected {expected}, got {describe_kind(value)}"
    return str(error.get("msg", kind)).lower()


def _show(value: Any) -> str:
    if isinstance(value, str):
        return f'"{value}"'
    return repr(value)


# ---------------------------------------------------------------------------------------------
# Admission rules (CRD CEL, validating webhook) and features not ported yet


@dataclass(frozen=True)
class AdmissionContext:
    """Where a component spec is admitted: a standalone DCD, or a DGD component.

    ``workload_provider`` is the DGD's provider (only ``component`` is rendered here);
    ``inference_pool_served`` is None when the cluster's APIs are unknown (assumed served).
    """

    standalone: bool = True
    backend_framework: str = ""
    checkpoint_gate: bool = False
    workload_provider: str = ""
    inference_pool_served: bool | None = None
    # the API version of the request: a v1alpha1 request checks the runtime version in its
    # v1alpha1 form instead (renderer/admission/v1alpha1/webhook.py)
    runtime_source: str = consts.V1BETA1


def validate_admission(dcd: DCD, checkpoint_gate: bool = False, runtime_source: str = consts.V1BETA1) -> list[Result]:
    """Every offline admission rule for a standalone v1beta1 DCD, plus unsupported features.

    Mirrors: internal/webhook/validation/dynamocomponentdeployment.go validateDynamoComponentDeploymentSpec.
    """
    ctx = AdmissionContext(
        standalone=True,
        backend_framework=dcd.spec.backend_framework or "",
        checkpoint_gate=checkpoint_gate,
        runtime_source=runtime_source,
    )
    out = validate_shared_spec(dcd.spec, dcd.pod_template, "spec", ctx)
    out.extend(_ignored_fields(dcd.spec, "spec", standalone=True))
    return out


def _pod_spec(pod_template: dict[str, Any] | None) -> dict[str, Any]:
    return (pod_template or {}).get("spec") or {}


def _pod_annotations(pod_template: dict[str, Any] | None) -> dict[str, str]:
    return ((pod_template or {}).get("metadata") or {}).get("annotations") or {}


def validate_shared_spec(
    spec: DynamoComponentDeploymentSharedSpec,
    pod_template: dict[str, Any] | None,
    prefix: str,
    ctx: AdmissionContext,
) -> list[Result]:
    """CRD CEL rules and validating-webhook rules of one component spec, off the Grove pathway.

    Mirrors: the CEL rules of the DCD/DGD CRDs and
    internal/webhook/validation/shared_v1beta1.go validateDynamoComponentDeploymentSharedSpec
    (grovePathway=false; provider overrides unsupported for a standalone DCD, and requiring the
    Grove provider inside a DGD), shared_helpers.go validateElasticEPRequiresCommand.
    """
    out: list[Result] = []

    def error(message: str, path: str) -> None:
        out.append(Result(message, field=f"{prefix}.{path}" if path else prefix))

    # CRD CEL rules on the component (not evaluated on a converted v1alpha1 object: its v1alpha1
    # schema's rules ran before conversion).
    experimental = spec.experimental
    if ctx.runtime_source == consts.V1BETA1:
        if spec.epp_config is not None and spec.type != consts.COMPONENT_TYPE_EPP:
            error("eppConfig may only be set when type is epp", "")
        if spec.min_available is not None and spec.replicas != 0:
            if spec.min_available > (spec.replicas if spec.replicas is not None else 1):
                error("minAvailable must be less than or equal to replicas unless replicas is 0", "")
        if spec.epp_config is not None and (spec.epp_config.config_map_ref is None) == (spec.epp_config.config is None):
            error("exactly one of configMapRef or config must be specified", "eppConfig")
        if experimental is not None and experimental.checkpoint is not None:
            ckpt = experimental.checkpoint
            if ckpt.job is not None and ckpt.checkpoint_ref:
                error("checkpoint.job cannot be set when checkpointRef is specified", "experimental.checkpoint")
        if experimental is not None and experimental.gpu_memory_service is not None:
            gms = experimental.gpu_memory_service
            if gms.extra_client_containers and gms.mode != "IntraPod":
                error("extraClientContainers is only supported with mode=IntraPod", "experimental.gpuMemoryService")
            if gms.extra_client_pods and gms.mode != "InterPod":
                error("extraClientPods is only supported with mode=InterPod", "experimental.gpuMemoryService")
            if gms.extra_client_pods:
                error("extraClientPods is reserved for inter-pod GMS and is not implemented yet", "experimental.gpuMemoryService")
        out.extend(_pod_template_cel(pod_template, prefix))

    # Validating webhook, in its order.
    override_message = (
        "Forbidden: provider overrides are supported only for components embedded in a DynamoGraphDeployment"
        if ctx.standalone
        else f'Forbidden: requires workload provider "grove", but "{ctx.workload_provider}" is selected'
    )
    grove = ctx.workload_provider == "grove" and not ctx.standalone
    if spec.provider_override is not None:
        if grove:
            out.append(unsupported(f"{prefix}.providerOverride", "Grove provider overrides (merged into the PodCliqueSet)").to_result())
        else:
            error(override_message, "providerOverride")
    if spec.min_available is not None and not grove:
        error("Forbidden: is currently supported only for Grove-backed DynamoGraphDeployment components", "minAvailable")
    if spec.multinode is not None:
        for role in ("leader", "worker"):
            role_spec = getattr(spec.multinode, role)
            if role_spec is not None and role_spec.provider_override is not None:
                if grove:
                    out.append(unsupported(f"{prefix}.multinode.{role}.providerOverride", "Grove provider overrides (merged into the PodCliqueSet)").to_result())
                else:
                    error(override_message, f"multinode.{role}.providerOverride")
    if spec.shared_memory_size is not None:
        try:
            if unmarshal_quantity(spec.shared_memory_size).sign() < 0:
                error(f'Invalid value: "{spec.shared_memory_size}": must be non-negative', "sharedMemorySize")
        except ValueError as exc:
            error(str(exc), "sharedMemorySize")
    if spec.type == consts.COMPONENT_TYPE_EPP:
        if not ctx.standalone and ctx.inference_pool_served is False:
            error(
                "Forbidden: cannot deploy EPP component: InferencePool API group (inference.networking.k8s.io) is not "
                "available in the cluster; install the Gateway API Inference Extension before deploying EPP components",
                "type",
            )
        if spec.is_multinode:
            error("Forbidden: EPP component cannot be multinode", "multinode")
        if spec.replicas is not None and spec.replicas != 1:
            error(f"Invalid value: {spec.replicas}: EPP component must have exactly 1 replica", "replicas")
        if spec.epp_config is None:
            error("Required value: is required for EPP components", "eppConfig")
    if spec.epp_config is not None and spec.epp_config.config_map_ref is not None:
        if spec.epp_config.config_map_ref.name == "":
            error("Required value: is required", "eppConfig.configMapRef.name")
    containers = _pod_spec(pod_template).get("containers") or []
    if spec.frontend_sidecar is not None:
        if spec.pod_template is None:
            error("Required value: is required when frontendSidecar is set", "podTemplate.spec.containers")
        elif spec.frontend_sidecar == "":
            error('Invalid value: "": must not be empty', "frontendSidecar")
        elif not any(c.get("name") == spec.frontend_sidecar for c in containers):
            error(f'Invalid value: "{spec.frontend_sidecar}": must match a podTemplate.spec.containers name', "frontendSidecar")
    if experimental is not None:
        main_resources = next(
            (c.get("resources") or {} for c in containers if c.get("name") == consts.MAIN_CONTAINER_NAME), {}
        )
        for message, path in _experimental_rules(experimental, spec.type or "", main_resources, containers):
            error(message, path)
        if experimental.grove is not None and experimental.grove.force_scaling_group and not grove:
            error(
                "Forbidden: is currently supported only for Grove-backed DynamoGraphDeployment components",
                "experimental.grove.forceScalingGroup",
            )
        if experimental.checkpoint is not None and experimental.checkpoint.enabled:
            # Standalone DCDs get checkpoint-aware pod shaping (renderer.pod.checkpoint); graph components
            # also need the graph controller's checkpoint creation, which is not ported.
            if ctx.checkpoint_gate and not ctx.standalone and not experimental.checkpoint.checkpoint_ref:
                # The graph controller creates this component's DynamoCheckpoint itself, named
                # checkpoint-<hash of namespace, DGD name, DGD UID, component, worker hash>.
                out.append(
                    unsupported(
                        f"{prefix}.experimental.checkpoint",
                        "needs the live cluster: the operator names the DynamoCheckpoint it creates for a graph component "
                        "after the DynamoGraphDeployment's UID, which only the API server assigns, and the checkpoint "
                        "Job runs in the cluster; set checkpointRef to a DynamoCheckpoint kept in Git or in the cluster state",
                    ).to_result()
                )
            elif not ctx.checkpoint_gate:
                error("Forbidden: checkpoint functionality is disabled in the operator configuration", "experimental.checkpoint")
        for message, path in _checkpoint_rules(experimental):
            error(message, path)

    # Runtime version on CREATE: the main container image is required; a DGD also needs a
    # parseable image version or runtimeVersionOverride.
    main_index = next((i for i, c in enumerate(containers) if c.get("name") == consts.MAIN_CONTAINER_NAME), -1)
    if ctx.runtime_source != consts.V1BETA1:
        pass  # a v1alpha1 request: the rule runs on extraPodSpec.mainContainer instead
    elif main_index < 0:
        error("Required value: is required", "podTemplate.spec.containers")
    elif not containers[main_index].get("image"):
        error("Required value: is required", f"podTemplate.spec.containers[{main_index}].image")
    elif not ctx.standalone and not spec.runtime_version_override and parse_image_version(containers[main_index]["image"]) is None:
        error(
            "Required value: is required when the specified main container image has no parseable semantic-version tag",
            "runtimeVersionOverride",
        )
    if main_index >= 0:
        out.extend(_elastic_ep_requires_command(containers[main_index], main_index, prefix, ctx.backend_framework))

    return out


def _main_gpu_count(resources: dict[str, Any]) -> tuple[int, str]:
    """Scalar GPUs of the main container (limits first, then requests) and the error, if any.

    Mirrors: internal/dra/dra.go ExtractGPUCountFromResourceRequirements (the webhook's use of it).
    """
    for section in ("limits", "requests"):
        values = resources.get(section) or {}
        names = sorted(n for n in values if _is_gpu_resource_name(n))
        if not names:
            continue
        try:
            quantity = unmarshal_quantity(values[names[0]])
        except ValueError as exc:
            return 0, str(exc)
        whole = quantity.whole()
        if whole is None:
            return 0, f"GPU resource {go_quote(names[0])} quantity {go_quote(quantity.string())} must be a whole number"
        return whole, ""
    return 0, ""


def _is_gpu_resource_name(name: str) -> bool:
    """Mirrors: internal/dra/dra.go isGPUResourceName."""
    lowered = name.lower()
    return (
        lowered in ("nvidia.com/gpu", "gpu")
        or lowered.endswith("/gpu")
        or "/mig-" in lowered
        or lowered.startswith("gpu.")
    )


def _experimental_rules(
    experimental: ExperimentalSpec, component_type: str, main_resources: dict[str, Any], containers: list[dict[str, Any]]
) -> list[tuple[str, str]]:
    """Webhook rules for GPU Memory Service and failover, as (message, path under the component).

    Mirrors: internal/webhook/validation/shared_v1beta1.go validateGPUMemoryServiceSpec and
    validateFailoverSpec.
    """
    out: list[tuple[str, str]] = []
    gms = experimental.gpu_memory_service
    gpus, gpu_error = _main_gpu_count(main_resources)
    if gms is not None:
        path = "experimental.gpuMemoryService"
        if component_type not in consts.WORKER_COMPONENT_TYPES:
            out.append(("Forbidden: GPU memory service is only supported for worker, prefill, or decode components", path))
        if gpu_error or gpus < 1:
            out.append((
                "Forbidden: GPU memory service requires podTemplate.spec.containers[main].resources.limits.nvidia.com/gpu >= 1",
                path,
            ))
        if gms.mode == "IntraPod":
            names = {c.get("name") for c in containers}
            seen: set[str] = set()
            for i, name in enumerate(gms.extra_client_containers or []):
                if name in seen:
                    out.append((f'Duplicate value: "{name}"', f"{path}.extraClientContainers[{i}]"))
                    continue
                seen.add(name)
                if name not in names:
                    out.append((
                        f'Invalid value: "{name}": does not name a container in podTemplate.spec.containers',
                        f"{path}.extraClientContainers[{i}]",
                    ))
    failover = experimental.failover
    if failover is not None:
        path = "experimental.failover"
        if gms is None:
            out.append((f'Forbidden: gpuMemoryService is required when failover mode is "{failover.mode}"', path))
        elif gms.mode != failover.mode:
            out.append((f'Invalid value: "{failover.mode}": must match gpuMemoryService.mode "{gms.mode}"', f"{path}.mode"))
        if failover.mode == "InterPod":
            if gpu_error:
                out.append((f"Forbidden: failed to read main-container GPU limit: {gpu_error}", path))
            elif gpus < 1:
                out.append((
                    "Forbidden: GMS failover requires at least 1 GPU in podTemplate.spec.containers[main].resources.limits.nvidia.com/gpu",
                    path,
                ))
            if component_type in (consts.COMPONENT_TYPE_EPP, consts.COMPONENT_TYPE_FRONTEND, consts.COMPONENT_TYPE_PLANNER):
                out.append((f'Forbidden: GMS failover is not supported for component type "{component_type}"', path))
    return out


def _checkpoint_rules(experimental: ExperimentalSpec) -> list[tuple[str, str]]:
    """Webhook rules tying checkpoints to GPU Memory Service and failover.

    Mirrors: internal/webhook/validation/shared_v1beta1.go validateComponentCheckpointJobConfig and
    internal/checkpoint/compatibility.go ValidateCheckpointCompatibility.
    """
    out: list[tuple[str, str]] = []
    checkpoint = experimental.checkpoint
    if checkpoint is None:
        return out
    gms = experimental.gpu_memory_service
    if checkpoint.job is not None and checkpoint.job.gms_client_containers:
        path = "experimental.checkpoint.job.gmsClientContainers"
        if gms is None:
            out.append(("Forbidden: requires gpuMemoryService to be set", path))
        elif gms.mode == "InterPod":
            out.append(("Forbidden: is only supported with gpuMemoryService.mode=IntraPod", path))
    if checkpoint.enabled:
        if gms is not None and gms.mode == "InterPod":
            out.append(("Forbidden: Snapshot with gpuMemoryService.mode=InterPod is unsupported", "experimental.checkpoint"))
        if experimental.failover is not None:
            out.append(("Forbidden: Snapshot with active/passive failover is temporarily unsupported", "experimental.checkpoint"))
    return out


def _pod_template_cel(pod_template: dict[str, Any] | None, prefix: str) -> list[Result]:
    """CEL rules the operator's Makefile adds to the podTemplate schema."""
    out: list[Result] = []
    annotations = _pod_annotations(pod_template)
    backend = annotations.get(consts.ANNOTATION_VLLM_DISTRIBUTED_EXECUTOR_BACKEND)
    if backend is not None and backend.lower() not in ("mp", "ray"):
        out.append(
            Result(
                "podTemplate backend annotation must be mp or ray, case-insensitively",
                field=f"{prefix}.podTemplate.metadata.annotations",
            )
        )
    for key, value in annotations.items():
        if len(value) > 262144:
            out.append(Result("must have at most 262144 characters", field=f"{prefix}.podTemplate.metadata.annotations[{key}]"))
    spec = _pod_spec(pod_template)
    for i, container in enumerate(spec.get("containers") or []):
        if container.get("name") != consts.MAIN_CONTAINER_NAME and not container.get("image"):
            out.append(Result("sidecar containers must specify a non-empty image", field=f"{prefix}.podTemplate.spec.containers[{i}]"))
    for i, container in enumerate(spec.get("initContainers") or []):
        if not container.get("image"):
            out.append(Result("init containers must specify a non-empty image", field=f"{prefix}.podTemplate.spec.initContainers[{i}]"))
    return out


def _elastic_ep_requires_command(main: dict[str, Any], main_index: int, prefix: str, backend_framework: str) -> list[Result]:
    """Mirrors: internal/webhook/validation/shared_helpers.go validateElasticEPRequiresCommand."""
    if backend_framework != consts.BACKEND_VLLM:
        return []
    if main.get("command") or not is_elastic_ep_ray_launch(main):
        return []
    return [
        Result(
            "Required value: elastic expert parallelism (--enable-elastic-ep with --data-parallel-backend ray) "
            "requires an explicit container command; the operator starts the single-pod Ray head by wrapping "
            "that command and cannot start it from the image ENTRYPOINT",
            field=f"{prefix}.podTemplate.spec.containers[{main_index}].command",
        )
    ]


def _ignored_fields(spec: DynamoComponentDeploymentSharedSpec, prefix: str, standalone: bool) -> list[Result]:
    """Fields the operator accepts off the Grove pathway but does not act on: say so."""
    out: list[Result] = []
    where = "a standalone DCD" if standalone else "the component pathway"
    experimental = spec.experimental
    gms_spec = experimental.gpu_memory_service if experimental is not None else None
    if standalone and gms_spec is not None and gms_spec.mode == "InterPod":
        out.append(
            Result(
                "the operator renders only the engine pod of a standalone DCD (vLLM: --load-format gms): the GMS "
                "weight-server pods of the inter-pod layout exist only for Grove-backed DynamoGraphDeployment components",
                severity=Severity.WARNING,
                field=f"{prefix}.experimental.gpuMemoryService.mode",
            )
        )
    checkpoint = experimental.checkpoint if experimental is not None else None
    if checkpoint is not None and checkpoint.enabled and (standalone or checkpoint.checkpoint_ref):
        # Only a DynamoCheckpoint the graph controller creates (a graph component without
        # checkpointRef) uses the job template and the deletion policy.
        reason = "a standalone DCD never creates its checkpoint" if standalone else "a referenced checkpoint is not created"
        if checkpoint.job is not None:
            out.append(Result(f"has no effect: {reason}", severity=Severity.WARNING, field=f"{prefix}.experimental.checkpoint.job"))
        if "deletion_policy" in checkpoint.model_fields_set:
            out.append(
                Result(f"has no effect: {reason}", severity=Severity.WARNING, field=f"{prefix}.experimental.checkpoint.deletionPolicy")
            )
    if spec.topology_constraint is not None:
        out.append(
            Result(
                f"has no effect on {where}: the operator applies topology constraints only on the Grove pathway",
                severity=Severity.WARNING,
                field=f"{prefix}.topologyConstraint",
            )
        )
    if spec.scaling_adapter is not None:
        if spec.scaling_adapter:
            out.append(Result(f'unknown field "{next(iter(spec.scaling_adapter))}"', field=f"{prefix}.scalingAdapter", code=Code.UNKNOWN_FIELD))
        elif standalone:
            out.append(
                Result(
                    "has no effect on a standalone DCD: scaling adapters are created only for DynamoGraphDeployment components",
                    severity=Severity.WARNING,
                    field=f"{prefix}.scalingAdapter",
                )
            )
    return out
