"""DynamoGraphDeployment: admission, the component pathway, and expansion into DCDs.

A v1beta1 DGD read from Git goes through what the API server and the operator's DGD webhooks
would do (CRD rules, replica and annotation defaults, validation), then the DGD controller's
component program: shared side objects, then one DCD per component, each rendered by the DCD
renderer with the DGD as its parent.

Mirrors: api/v1beta1/dynamographdeployment_types.go,
internal/webhook/defaulting/dynamographdeployment_handler.go,
internal/webhook/validation/{dynamographdeployment.go,dynamographdeployment_helpers.go},
internal/controller/{dgd_workload_provider.go,dgd_component_program.go,
dgd_shared_resources_reconciler.go}, internal/dynamo/graph.go GenerateDynamoComponentsDeployments,
generateSingleDCD, backendFrameworkForGeneratedDCDs, applyDGDTemplateDefaults,
propagateDGDAnnotations, propagateDGDSpecMetadata.
"""

from __future__ import annotations

import copy
import json
import re
import struct
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Literal

from pydantic import Field, ValidationError

from renderer import consts
from renderer.gocompat import dynamo_types, gotypes, k8s_types
from renderer.objects import epp
from renderer.admission import podrules, podtemplate_schema
from renderer.admission.api import DynamoComponentDeploymentSharedSpec, StrictModel
from renderer.admission.parse import parse_metadata, pydantic_message
from renderer.admission.webhook import AdmissionContext, ignored_fields, validate_shared_spec
from renderer.config import RenderConfig
from renderer.gocompat.gojson import dcd_spec_go_json
from renderer.graph.dyn_deployment_config import ENV_NAME as DYN_DEPLOYMENT_CONFIG_ENV
from renderer.graph.dyn_deployment_config import apply_dyn_deployment_config
from renderer.gocompat.merge import merge_envs
from renderer.pod.naming import compute_dynamo_namespace
from renderer.pod.podspec import determine_backend_framework
from renderer.results import (
    RenderError,
    ResourceRef,
    Result,
    Severity,
    field_path,
    unsupported,
)

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
_DNS1123_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
_SEMVER_LENIENT = re.compile(
    r"^v?([0-9]+)(\.[0-9]+)?(\.[0-9]+)?"
    r"(-([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?"
    r"(\+([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?$"
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
class DGD:
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

    @property
    def ref(self) -> ResourceRef:
        return ResourceRef(consts.V1BETA1, consts.DGD_KIND, self.name, self.namespace)

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


# ---------------------------------------------------------------------------------------------
# Admission


def workload_provider(annotations: dict[str, str], grove_enabled: bool) -> str:
    """The provider the defaulting webhook stamps on CREATE, from routing intent only.

    Grove when the Grove gate is on and the DGD does not opt out with
    ``nvidia.com/enable-grove: "false"`` (compared lower-cased); the component pathway
    otherwise. A ``nvidia.com/workload-provider`` annotation written in Git is ignored on
    CREATE and overwritten (only an already stored value is authoritative, on UPDATE).

    Mirrors: internal/webhook/defaulting/dynamographdeployment_handler.go defaultWorkloadProvider
    (CREATE) and internal/controller/dgd_workload_provider.go ensureWorkloadProvider (step 3)
    """
    if grove_enabled and annotations.get(ENABLE_GROVE_ANNOTATION, "").lower() != consts.LABEL_VALUE_FALSE:
        return PROVIDER_GROVE
    return PROVIDER_COMPONENT


def parse_dgd(
    obj: dict[str, Any], default_namespace: str, config: RenderConfig, runtime_source: str = consts.V1BETA1
) -> tuple[DGD | None, list[Result]]:
    """Validate and default one DGD document; the provider annotation says which pathway renders it.

    A v1alpha1 DGD is admitted and converted first (renderer/admission/v1alpha1/admit.py);
    ``runtime_source`` is the API version the user wrote (the runtime-version rule's form).
    """
    ref = ResourceRef.of(obj)
    if obj.get("apiVersion") == consts.V1ALPHA1:
        from renderer.graph.v1alpha1_dgd import parse_alpha_dgd

        return parse_alpha_dgd(obj, default_namespace, config)
    results: list[Result] = []
    metadata, problems = parse_metadata(obj, default_namespace)
    results.extend(r.with_resource(ref) for r in problems)
    raw_spec = obj.get("spec")
    if raw_spec is None:
        raw_spec = {}
    if not isinstance(raw_spec, dict):
        return None, results + [Result("expected object", field="spec", resource=ref)]
    try:
        spec = DynamoGraphDeploymentSpec.model_validate(raw_spec, context={"converted": runtime_source != consts.V1BETA1})
    except ValidationError as err:
        for error in err.errors(include_url=False):
            results.append(Result(pydantic_message(error), field=field_path("spec", tuple(error["loc"])), resource=ref))
        return None, results
    if metadata is None:
        return None, results

    # Routing: the component pathway or Grove (renderer.graph.grove).
    provider = workload_provider(metadata.annotations, config.grove_enabled)
    written = metadata.annotations.get(WORKLOAD_PROVIDER_ANNOTATION)
    if written is not None and written != provider:
        results.append(
            Result(
                f'ignored on create: the defaulting webhook replaces "{written}" with "{provider}", derived from '
                f"the Grove gate and annotation {ENABLE_GROVE_ANNOTATION}",
                severity=Severity.WARNING,
                field=f"metadata.annotations[{WORKLOAD_PROVIDER_ANNOTATION}]",
                resource=ref,
            )
        )
    # Defaulting webhook (CREATE): provider and origin-version annotations, replicas 1.
    annotations = dict(metadata.annotations)
    annotations[WORKLOAD_PROVIDER_ANNOTATION] = provider
    annotations.setdefault(consts.ANNOTATION_OPERATOR_ORIGIN_VERSION, config.operator_version)

    raw_components = raw_spec.get("components") or []
    components: list[Component] = []
    for index, component in enumerate(spec.components or []):
        path = f"spec.components[{index}]"
        if component.replicas is None:
            component = component.model_copy(update={"replicas": 1})
        pod_template: dict[str, Any] | None = None
        if component.pod_template is not None:
            defaulted = podtemplate_schema.apply_defaults(component.pod_template)
            results.extend(p.with_resource(ref) for p in podtemplate_schema.validate(defaulted, f"{path}.podTemplate"))
            results.extend(p.with_resource(ref) for p in podrules.validate(defaulted, f"{path}.podTemplate"))
            normalized, problems = gotypes.normalize("PodTemplateSpec", defaulted, f"{path}.podTemplate")
            results.extend(p.with_resource(ref) for p in problems)
            if isinstance(normalized, dict):
                pod_template = _drop_nulls(normalized)
        components.append(Component(index, component, pod_template, raw_components[index]))

    env: list[dict[str, Any]] = []
    for index, item in enumerate(spec.env or []):
        normalized, problems = gotypes.normalize("EnvVar", item, f"spec.env[{index}]")
        results.extend(p.with_resource(ref) for p in problems)
        if isinstance(normalized, dict):
            env.append(_drop_nulls(normalized))

    dgd = DGD(metadata.name, metadata.namespace, metadata.labels, annotations, spec, tuple(components), env, obj)
    results.extend(r.with_resource(ref) for r in validate_dgd(dgd, config, runtime_source, provider))
    if any(r.is_error for r in results):
        return None, results
    return dgd, results


def _drop_nulls(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _drop_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_drop_nulls(v) for v in value]
    return value


def is_semver(value: str) -> bool:
    """Masterminds semver NewVersion (lenient: optional ``v``, minor and patch)."""
    return _SEMVER_LENIENT.fullmatch(value) is not None


def validate_dgd(
    dgd: DGD, config: RenderConfig, runtime_source: str = consts.V1BETA1, provider: str = PROVIDER_COMPONENT
) -> list[Result]:
    """CRD CEL rules and the DGD validating webhook on CREATE, for the selected pathway.

    Mirrors: internal/webhook/validation/dynamographdeployment.go validateObjectMeta,
    validateDynamoGraphDeploymentSpec, validateRestartStrategy, validateKvTransferPolicy;
    the CEL rules on DynamoGraphDeploymentSpec.
    """
    out: list[Result] = []

    def error(message: str, path: str, severity: Severity = Severity.ERROR) -> None:
        out.append(Result(message, severity=severity, field=path))

    grove = provider == PROVIDER_GROVE
    grove_requirement = f'requires the Grove pathway, but workload provider "{PROVIDER_COMPONENT}" is selected'

    # Metadata annotations.
    annotations = dgd.annotations
    origin = annotations.get(consts.ANNOTATION_OPERATOR_ORIGIN_VERSION)
    if origin is not None and not is_semver(origin):
        error(f'Invalid value: "{origin}": must be valid semver', f"metadata.annotations[{consts.ANNOTATION_OPERATOR_ORIGIN_VERSION}]")
    backend = annotations.get(consts.ANNOTATION_VLLM_DISTRIBUTED_EXECUTOR_BACKEND)
    if backend is not None and backend.lower() not in ("mp", "ray"):
        error(f'Invalid value: "{backend}": must be "mp" or "ray"', f"metadata.annotations[{consts.ANNOTATION_VLLM_DISTRIBUTED_EXECUTOR_BACKEND}]")
    strategy = annotations.get(GROVE_UPDATE_STRATEGY_ANNOTATION)
    if strategy is not None and strategy not in ("RollingRecreate", "OnDelete"):
        error(
            f'Unsupported value: "{strategy}": supported values: "RollingRecreate", "OnDelete"',
            f"metadata.annotations[{GROVE_UPDATE_STRATEGY_ANNOTATION}]",
        )
    mode = annotations.get(consts.ANNOTATION_KUBE_DISCOVERY_MODE)
    if mode is not None and mode not in ("pod", "container"):
        error(f'Unsupported value: "{mode}": supported values: "pod", "container"', f"metadata.annotations[{consts.ANNOTATION_KUBE_DISCOVERY_MODE}]")
    if _has_intra_pod_failover(dgd) and mode != "container":
        error(
            f'Invalid value: "{mode or ""}": must be "container" when intra-pod failover is configured',
            f"metadata.annotations[{consts.ANNOTATION_KUBE_DISCOVERY_MODE}]",
        )
    # The provider annotation's own rule (component or grove) cannot fail on create: the
    # defaulting webhook has just written it (parse_dgd).

    spec = dgd.spec
    # CEL rules on spec.
    if spec.restart is not None:
        error(
            "spec.restart must be unset on create; set spec.restart.id after creation to request a restart "
            "(a restart is runtime state and is not rendered)",
            "spec.restart",
            Severity.WARNING,
        )
    # (v1beta1 CRD rules: a converted v1alpha1 DGD was checked against its own schema instead)
    converted = runtime_source != consts.V1BETA1
    if not converted and sum(1 for c in dgd.components if c.type == consts.COMPONENT_TYPE_EPP) > 1:
        error("at most one component may have type epp", "spec.components")
    lowered = [c.name.lower() for c in dgd.components if c.name]
    if not converted and len(set(lowered)) != len(lowered):
        error("component names must be unique case-insensitively", "spec.components")

    # Webhook: spec.
    if spec.provider_override is not None:
        if grove:
            out.append(unsupported("spec.providerOverride", "Grove provider overrides (merged into the PodCliqueSet)").to_result())
        else:
            error(f'Forbidden: requires workload provider "grove", but "{PROVIDER_COMPONENT}" is selected', "spec.providerOverride")
    if spec.priority_class_name and not grove:
        error(f"Forbidden: {grove_requirement}", "spec.priorityClassName")
    if not dgd.components:
        error("Required value: must have at least one component", "spec.components")
    pool_served = None
    if config.api_versions is not None:
        pool_served = any(v.strip().startswith("inference.networking.k8s.io/") for v in config.api_versions)
    for component in dgd.components:
        if not component.name:
            error("required field missing", f"{component.path}.name")
        elif grove:
            from renderer.graph.grove import MAX_COMBINED_NAME_LENGTH, combined_name_length

            length, detail = combined_name_length(dgd.name, [c.spec for c in dgd.components], component.spec)
            if length > MAX_COMBINED_NAME_LENGTH:
                error(
                    f'Invalid value: "{component.name}": combined resource name length {length} exceeds the '
                    f"{MAX_COMBINED_NAME_LENGTH}-character pod-name limit ({detail}); shorten DynamoGraphDeployment "
                    f'name "{dgd.name}" or component name "{component.name}"',
                    f"{component.path}.name",
                )
        gms_spec = component.spec.experimental.gpu_memory_service if component.spec.experimental is not None else None
        if gms_spec is not None and gms_spec.mode == "InterPod":
            # Inter-pod GMS runs its weight servers in a Grove scaling group, for vLLM only.
            mode_path = f"{component.path}.experimental.gpuMemoryService.mode"
            if not grove:
                error(f"Forbidden: {grove_requirement}", mode_path)
            if spec.backend_framework != consts.BACKEND_VLLM:
                detected = spec.backend_framework or "<unset>"
                error(
                    f'Invalid value: "{gms_spec.mode}": the inter-pod GMS layout is currently supported only for vLLM '
                    f"(detected backend: {detected})",
                    mode_path,
                )
        power = (((component.pod_template or {}).get("metadata") or {}).get("annotations") or {}).get(GPU_POWER_LIMIT_ANNOTATION)
        if power is not None:
            power_path = f"{component.path}.podTemplate.metadata.annotations[{GPU_POWER_LIMIT_ANNOTATION}]"
            if not re.fullmatch(r"[+-]?[0-9]+", power):
                error(f'Invalid value: "{power}": must be a decimal integer', power_path)
            elif int(power) <= 0:
                error(f'Invalid value: "{power}": must be greater than zero', power_path)
            dra_path = _dra_path(component)
            if dra_path is not None:
                error(
                    f'Forbidden: cannot be combined with annotation "{GPU_POWER_LIMIT_ANNOTATION}": power-aware '
                    "planning does not support DRA-backed device allocation",
                    dra_path,
                )
        ctx = AdmissionContext(
            standalone=False,
            backend_framework=spec.backend_framework or "",
            checkpoint_gate=config.checkpoint_enabled,
            workload_provider=provider,
            inference_pool_served=pool_served,
            runtime_source=runtime_source,
        )
        out.extend(validate_shared_spec(component.spec, component.pod_template, component.path, ctx))
        out.extend(r for r in ignored_fields(component.spec, component.path, standalone=False) if not (grove and r.field.endswith(".topologyConstraint")))
        if component.spec.scaling_adapter is not None and not config.scaling_adapters:
            error(
                "not emitted: the operator creates a DynamoGraphDeploymentScalingAdapter for this component, an "
                "operator-managed object; set scalingAdapters: true in the DynamoRenderConfig to emit it",
                f"{component.path}.scalingAdapter",
                Severity.INFO,
            )
        epp_config = component.raw.get("eppConfig")
        if component.type == consts.COMPONENT_TYPE_EPP and isinstance(epp_config, dict) and isinstance(epp_config.get("config"), dict):
            out.extend(epp.check_endpoint_picker_config(epp_config["config"], f"{component.path}.eppConfig.config"))

    if spec.restart is not None and spec.restart.strategy is not None and spec.restart.strategy.order:
        out.extend(_validate_restart_order(spec.restart.strategy, [c.name for c in dgd.components]))

    has_component_constraint = any(c.spec.topology_constraint is not None for c in dgd.components)
    if spec.topology_constraint is not None or has_component_constraint:
        if spec.topology_constraint is None:
            error("Required value: is required when any component topology constraint is set", "spec.topologyConstraint")
        elif not spec.topology_constraint.pack_domain and not has_component_constraint:
            error("Required value: is required when no component topologyConstraint is set", "spec.topologyConstraint.packDomain")
        elif not grove:
            error(
                "has no effect on the component pathway: the operator applies topology constraints only with Grove",
                "spec.topologyConstraint",
                Severity.WARNING,
            )
        elif spec.topology_constraint.cluster_topology_name:
            error(
                f'ClusterTopologyBinding "{spec.topology_constraint.cluster_topology_name}" is assumed to exist and to '
                "define the requested domains (the operator's webhook reads it from the cluster)",
                "spec.topologyConstraint.clusterTopologyName",
                Severity.INFO,
            )
    kvt = spec.experimental.kv_transfer_policy if spec.experimental is not None else None
    if kvt is not None and not converted:
        if kvt.label_key is not None and "/" in kvt.label_key and len(kvt.label_key.split("/")[0]) > 253:
            error("labelKey prefix must be 253 characters or less", "spec.experimental.kvTransferPolicy.labelKey")
        if (kvt.label_key is None) == (kvt.cluster_topology_name is None):
            error("exactly one of labelKey or clusterTopologyName is required", "spec.experimental.kvTransferPolicy")
        if kvt.enforcement == "preferred" and kvt.preferred_weight is None:
            error("preferredWeight is required when enforcement is preferred", "spec.experimental.kvTransferPolicy")
        if kvt.preferred_weight is not None and kvt.enforcement != "preferred":
            error("preferredWeight may only be set when enforcement is preferred", "spec.experimental.kvTransferPolicy")
    if kvt is not None:
        if kvt.cluster_topology_name:
            name_path = "spec.experimental.kvTransferPolicy.clusterTopologyName"
            problems = dns1123_subdomain_problems(kvt.cluster_topology_name)
            if problems:
                error(f'Invalid value: "{kvt.cluster_topology_name}": {"; ".join(problems)}', name_path)
            if not grove:
                error(f"Forbidden: {grove_requirement}", name_path)
    return out


def _has_intra_pod_failover(dgd: DGD) -> bool:
    """Mirrors: internal/webhook/validation/dynamographdeployment_helpers.go hasIntraPodFailover."""
    for component in dgd.components:
        experimental = component.spec.experimental
        if experimental is not None and experimental.failover is not None and experimental.failover.mode == "IntraPod":
            return True
    return False


def _dra_path(component: Component) -> str | None:
    """The first DRA-backed GPU source of a component, as a field path (None: no DRA).

    GPU Memory Service always allocates through DRA; otherwise any resource claim consumed
    by a container or an init container counts, since its DeviceClass is unknown here.
    Mirrors: internal/webhook/validation/dynamographdeployment_helpers.go dgdDRAPath
    """
    experimental = component.spec.experimental
    if experimental is not None and experimental.gpu_memory_service is not None:
        return f"{component.path}.experimental.gpuMemoryService"
    pod = (component.pod_template or {}).get("spec") or {}
    for key in ("containers", "initContainers"):
        for i, container in enumerate(pod.get(key) or []):
            if (container.get("resources") or {}).get("claims"):
                return f"{component.path}.podTemplate.spec.{key}[{i}].resources.claims"
    return None


def dns1123_subdomain_problems(value: str) -> list[str]:
    """Mirrors: k8s.io/apimachinery/pkg/util/validation IsDNS1123Subdomain."""
    out: list[str] = []
    if len(value) > 253:
        out.append("must be no more than 253 characters")
    if not _DNS1123_SUBDOMAIN.fullmatch(value):
        out.append(
            "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must "
            "start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
            "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
        )
    return out


def _validate_restart_order(strategy: RestartStrategy, names: list[str]) -> list[Result]:
    """Mirrors: internal/webhook/validation/dynamographdeployment.go validateRestartStrategy."""
    path = "spec.restart.strategy.order"
    order = strategy.order or []
    if strategy.type == "Parallel":
        return [Result("Forbidden: cannot be specified when strategy is parallel", field=path)]
    out: list[Result] = []
    unique = list(dict.fromkeys(order))
    shown = gotypes.go_json_dumps(order)
    if len(unique) != len(order):
        out.append(Result(f"Invalid value: {shown}: must be unique", field=path))
    if len(unique) != len(set(names)):
        out.append(Result(f"Invalid value: {shown}: must have the same number of unique components as the deployment", field=path))
    supported = ", ".join(f'"{n}"' for n in sorted(names))
    for i, name in enumerate(order):
        if name not in names:
            out.append(Result(f'Unsupported value: "{name}": supported values: {supported}', field=f"{path}[{i}]"))
    return out


def _main_container(pod_template: dict[str, Any] | None) -> dict[str, Any] | None:
    containers: list[dict[str, Any]] = ((pod_template or {}).get("spec") or {}).get("containers") or []
    for container in containers:
        if container.get("name") == consts.MAIN_CONTAINER_NAME:
            return container
    return None


# ---------------------------------------------------------------------------------------------
# Expansion into DCDs


def backend_framework_for_dcds(dgd: DGD) -> str:
    """The DGD's framework, else the one detected from its worker components (or "").

    Mirrors: internal/dynamo/graph.go backendFrameworkForGeneratedDCDs.
    """
    if dgd.spec.backend_framework:
        return dgd.spec.backend_framework
    detected = ""
    for component in dgd.components:
        if component.type not in consts.WORKER_COMPONENT_TYPES:
            continue
        main = _main_container(component.pod_template) or {}
        try:
            framework = determine_backend_framework(component.type, main.get("command") or [], main.get("args") or [], "")
        except RenderError as err:
            raise RenderError(
                f"failed to determine backend framework for component {component.name}: {err.message}",
                f"{component.path}.podTemplate.spec.containers[main].command",
            ) from None
        if framework in ("", consts.BACKEND_NOOP):
            continue
        if detected and detected != framework:
            raise RenderError(
                f"multiple backend frameworks detected for generated DynamoComponentDeployments: {detected} and {framework}",
                "spec.backendFramework",
            )
        detected = framework
    return detected


def dcd_name(dgd: DGD, component: Component, worker_hash: str) -> str:
    """``<dgd>-<lowercase component>``, plus ``-<worker hash>`` for worker-type components.

    Mirrors: internal/dynamo/graph.go GetDCDResourceName.
    """
    base = f"{dgd.name}-{component.name.lower()}"
    if component.type in consts.WORKER_COMPONENT_TYPES and worker_hash:
        return f"{base}-{worker_hash}"
    return base


def _ensure_pod_template(spec: dict[str, Any]) -> dict[str, Any]:
    """Mirrors: internal/dynamo/v1beta1_helpers.go ensurePodTemplate (maps created, never nil)."""
    template: dict[str, Any] = spec.setdefault("podTemplate", {})
    metadata = template.setdefault("metadata", {})
    metadata.setdefault("labels", {})
    metadata.setdefault("annotations", {})
    template.setdefault("spec", {})
    return template


def _ensure_main_container(template: dict[str, Any]) -> dict[str, Any]:
    """Mirrors: internal/dynamo/v1beta1_helpers.go ensureMainContainer (prepends one if absent)."""
    containers: list[dict[str, Any]] = template["spec"].setdefault("containers", [])
    for container in containers:
        if container.get("name") == consts.MAIN_CONTAINER_NAME:
            return container
    main: dict[str, Any] = {"name": consts.MAIN_CONTAINER_NAME}
    containers.insert(0, main)
    return main


def _apply_kv_transfer_policy(template: dict[str, Any], kvt: KvTransferPolicy) -> None:
    """Env, downward-API volume and mount for topology-aware KV transfer on workers.

    Mirrors: internal/dynamo/graph.go applyKvTransferPolicyToWorkerComponent and
    component_worker.go TopologyLabelVolume (labelKey form; cluster topologies need Grove).
    """
    main = _ensure_main_container(template)
    policy_env = [
        {"name": "DYN_KV_TRANSFER_DOMAIN", "value": kvt.domain},
        {"name": "DYN_KV_TRANSFER_ENFORCEMENT", "value": kvt.enforcement},
        {"name": "DYN_TOPOLOGY_ENABLED", "value": "true"},
        {"name": "DYN_TOPOLOGY_MOUNT_PATH", "value": TOPOLOGY_MOUNT_PATH},
    ]
    if kvt.preferred_weight is not None:
        policy_env.append({"name": "DYN_KV_TRANSFER_PREFERRED_WEIGHT", "value": _format_float32(kvt.preferred_weight)})
    # Every policy variable the user or the DGD set is dropped first, even one this policy omits.
    kept = [e for e in main.get("env") or [] if e.get("name") not in KV_TRANSFER_POLICY_ENV]
    main["env"] = merge_envs(kept, policy_env)
    mount = {"name": TOPOLOGY_VOLUME, "mountPath": TOPOLOGY_MOUNT_PATH, "readOnly": True}
    mounts = [m for m in main.get("volumeMounts") or [] if m.get("name") != TOPOLOGY_VOLUME and m.get("mountPath") != TOPOLOGY_MOUNT_PATH]
    main["volumeMounts"] = [*mounts, mount]
    items = []
    if kvt.label_key:
        items = [{"path": kvt.domain, "fieldRef": {"fieldPath": f"metadata.labels['{kvt.label_key}']"}}]
    volume = {"name": TOPOLOGY_VOLUME, "downwardAPI": {"items": items} if items else {}}
    volumes = [v for v in template["spec"].get("volumes") or [] if v.get("name") != TOPOLOGY_VOLUME]
    template["spec"]["volumes"] = [*volumes, volume]


def _format_float32(value: float) -> str:
    """Go strconv.FormatFloat(v, 'f', -1, 32): the shortest decimal that round-trips as float32."""
    single = struct.unpack("f", struct.pack("f", value))[0]
    text = repr(single)
    for digits in range(1, 10):
        text = f"{single:.{digits}g}"
        if struct.unpack("f", struct.pack("f", float(text)))[0] == single:
            break
    return format(Decimal(text), "f")


def generate_dcds(dgd: DGD, worker_hash: str) -> list[tuple[Component, dict[str, Any]]]:
    """One DCD object per component, in component order.

    Mirrors: internal/dynamo/graph.go GenerateDynamoComponentsDeployments / generateSingleDCD
    (no restart state, no rollout in progress).
    """
    framework = backend_framework_for_dcds(dgd)
    has_epp = dgd.has_epp()
    kvt = dgd.spec.experimental.kv_transfer_policy if dgd.spec.experimental is not None else None
    carriers = _alpha_carrier_annotations(dgd, framework, worker_hash)
    out: list[tuple[Component, dict[str, Any]]] = []
    for component in dgd.components:
        spec = _component_spec_dict(component)
        if framework:
            spec = {"backendFramework": framework, **spec}
        name = dcd_name(dgd, component, worker_hash)
        labels = dict(((spec.get("podTemplate") or {}).get("metadata") or {}).get("labels") or {})
        labels[consts.LABEL_COMPONENT] = component.name
        labels[consts.LABEL_NAMESPACE] = dgd.dynamo_namespace(component)
        labels[consts.LABEL_GRAPH_DEPLOYMENT_NAME] = dgd.name
        # The component's preserved v1alpha1 data travels on as the DCD's own conversion annotation.
        metadata_annotations: dict[str, str] = dict(carriers.get(component.name, {}))

        # Workers carry the generation hash (and the worker class when the graph has an EPP).
        if component.type in consts.WORKER_COMPONENT_TYPES:
            labels[consts.LABEL_WORKER_HASH] = worker_hash
            template = _ensure_pod_template(spec)
            template["metadata"]["labels"][consts.LABEL_WORKER_HASH] = worker_hash
            if has_epp:
                labels[consts.LABEL_COMPONENT_CLASS] = "worker"
                template["metadata"]["labels"][consts.LABEL_COMPONENT_CLASS] = "worker"

        # EPP pods opt out of Istio sidecar injection unless the component says otherwise.
        if component.type == consts.COMPONENT_TYPE_EPP:
            template = _ensure_pod_template(spec)
            template["metadata"]["annotations"].setdefault(consts.ANNOTATION_ISTIO_SIDECAR_INJECT, "false")

        # DGD-level defaults: env, KV transfer policy, propagated annotations, spec metadata.
        template = _ensure_pod_template(spec)
        if dgd.env:
            main = _ensure_main_container(template)
            main["env"] = merge_envs(copy.deepcopy(dgd.env), main.get("env") or [])
        applies_kvt = kvt is not None and bool(kvt.label_key or kvt.cluster_topology_name) and component.type in consts.WORKER_COMPONENT_TYPES
        if applies_kvt and kvt is not None:
            _apply_kv_transfer_policy(template, kvt)
        pod_annotations = template["metadata"]["annotations"]
        for key in PROPAGATED_ANNOTATIONS:
            if key in dgd.annotations and key not in pod_annotations:
                pod_annotations[key] = dgd.annotations[key]
        for key, value in (dgd.spec.annotations or {}).items():
            pod_annotations.setdefault(key, value)
        for key, value in (dgd.spec.labels or {}).items():
            template["metadata"]["labels"].setdefault(key, value)
        if applies_kvt and kvt is not None:
            if kvt.label_key:
                metadata_annotations[consts.ANNOTATION_TOPOLOGY_LABEL_KEY] = kvt.label_key
            if kvt.cluster_topology_name:
                metadata_annotations[consts.ANNOTATION_TOPOLOGY_CLUSTER_TOPOLOGY_NAME] = kvt.cluster_topology_name

        # Planners always run as the planner ServiceAccount.
        if component.type == consts.COMPONENT_TYPE_PLANNER:
            template["spec"]["serviceAccountName"] = consts.PLANNER_SERVICE_ACCOUNT_NAME

        # The legacy DYN_DEPLOYMENT_CONFIG (DGD or component env) sets the main container's resources.
        apply_dyn_deployment_config(spec, component.name, component.type, _dyn_config_field(dgd, component))

        metadata: dict[str, Any] = {"name": name, "namespace": dgd.namespace, "labels": labels}
        if metadata_annotations:
            metadata["annotations"] = metadata_annotations
        metadata["ownerReferences"] = [
            {
                "apiVersion": consts.V1BETA1,
                "kind": consts.DGD_KIND,
                "name": dgd.name,
                "controller": True,
                "blockOwnerDeletion": True,
            }
        ]
        dcd = {"apiVersion": consts.V1BETA1, "kind": consts.DCD_KIND, "metadata": metadata, "spec": spec}
        out.append((component, dcd))
    return out


def _dyn_config_field(dgd: DGD, component: Component) -> str:
    """Where the DYN_DEPLOYMENT_CONFIG a generated DCD carries was written (component env wins)."""
    pod = (component.pod_template or {}).get("spec") or {}
    for c, container in enumerate(pod.get("containers") or []):
        if container.get("name") != consts.MAIN_CONTAINER_NAME:
            continue
        for e, env in enumerate(container.get("env") or []):
            if env.get("name") == DYN_DEPLOYMENT_CONFIG_ENV:
                return f"{component.path}.podTemplate.spec.containers[{c}].env[{e}].value"
    index = next((i for i, env in enumerate(dgd.env) if env.get("name") == DYN_DEPLOYMENT_CONFIG_ENV), 0)
    return f"spec.env[{index}].value"


def _alpha_carrier_annotations(dgd: DGD, framework: str, worker_hash: str) -> dict[str, dict[str, str]]:
    """Mirrors: internal/dynamo/graph.go applyDGDComponentAlphaCompatibilityToDCD (for every component)."""
    from renderer.admission.v1alpha1.alpha_view import dgd_carrier_annotations

    stored = {
        "apiVersion": consts.V1BETA1,
        "kind": consts.DGD_KIND,
        "metadata": {"name": dgd.name, "namespace": dgd.namespace, "annotations": dict(dgd.annotations)},
        "spec": {**(dgd.source.get("spec") or {}), "components": [_component_spec_dict(c) for c in dgd.components]},
    }
    names = {c.name: dcd_name(dgd, c, worker_hash) for c in dgd.components}
    return dgd_carrier_annotations(stored, framework, names)


def _component_spec_dict(component: Component) -> dict[str, Any]:
    """The component as a DCD spec dict: the user's fields, defaults applied, pod template normalised."""
    spec = copy.deepcopy({k: v for k, v in component.raw.items() if v is not None})
    spec["replicas"] = component.spec.replicas
    if component.spec.multinode is not None:
        spec["multinode"] = {**(spec.get("multinode") or {}), "nodeCount": component.spec.multinode.node_count}
    # CRD structural defaults of the experimental block (the API server stores them).
    if component.spec.experimental is not None:
        spec["experimental"] = component.spec.experimental.model_dump(by_alias=True, exclude_none=True)
    if component.pod_template is not None:
        spec["podTemplate"] = copy.deepcopy(component.pod_template)
    else:
        spec.pop("podTemplate", None)
    # The EPP reconciler stamps the inline config's TypeMeta on the DGD before its DCDs exist.
    epp_config = spec.get("eppConfig")
    if component.type == consts.COMPONENT_TYPE_EPP and isinstance(epp_config, dict) and isinstance(epp_config.get("config"), dict):
        config = epp.dcd_endpoint_picker_config(epp_config["config"], f"{component.path}.eppConfig.config")
        spec["eppConfig"] = {**epp_config, "config": config}
    return spec


def dcd_as_written(obj: dict[str, Any]) -> dict[str, Any]:
    """A generated DCD as emitted: its spec as the operator writes it, no ownerReference.

    The operator sends the typed DCD (Go field shapes, ``omitempty``), and the DCD type's own
    MarshalJSON strips the ``{}`` that value-typed structs such as a container's
    ``resources`` or an empty pod-template ``metadata`` would print; the API server then
    prunes ``null`` fields. The ownerReference needs the DGD's UID, unknown offline.
    Mirrors: api/v1beta1/marshal.go normalizeV1Beta1JSON (stripEmptyValueStructs)
    """
    metadata = {k: v for k, v in obj["metadata"].items() if k != "ownerReferences"}
    spec = json.loads(dcd_spec_go_json(obj["spec"]))
    _strip_go_artefacts(spec, dynamo_types.V1BETA1, dynamo_types.ROOTS["V1BETA1"])
    return {**obj, "metadata": metadata, "spec": spec}


def _strip_go_artefacts(value: dict[str, Any], table: dict[str, tuple[tuple[Any, ...], ...]], struct: str) -> None:
    """Drop null fields and empty value-typed struct fields of a Go-marshalled struct, in place."""
    rows = {row[0]: row[2] for row in table[struct]}
    for key in list(value):
        shape = rows[key]  # the typed marshal prints known fields only
        child = value[key]
        if child is None:
            del value[key]
            continue
        if _strip_shape(child, shape, table) and child == {}:
            del value[key]


def _strip_shape(child: Any, shape: tuple[Any, ...], table: dict[str, tuple[tuple[Any, ...], ...]]) -> bool:
    """Recurse into ``child`` by its Go shape; True when it is a value-typed (droppable) struct."""
    kind = shape[0]
    if kind in ("struct", "k8s") and isinstance(child, dict):
        nested = table if kind == "struct" else k8s_types.STRUCTS
        _strip_go_artefacts(child, nested, shape[1])
        return True
    if kind == "ptr":
        _strip_shape(child, shape[1], table)
        return False  # an empty pointer-typed struct is a sentinel (scalingAdapter: {})
    if kind == "slice" and isinstance(child, list):
        for item in child:
            _strip_shape(item, shape[1], table)
    if kind == "map" and isinstance(child, dict):
        for item in child.values():
            _strip_shape(item, shape[2], table)
    return False
