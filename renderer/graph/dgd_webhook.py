"""Admission rules of a v1beta1 DGD: CRD CEL rules and the DGD validating webhook on CREATE.

Mirrors: internal/webhook/validation/{dynamographdeployment.go,dynamographdeployment_helpers.go},
the CEL rules of the DynamoGraphDeployment CRD.
"""

from __future__ import annotations

import re

from renderer import consts, hints
from renderer.gocompat import gotypes
from renderer.objects import epp
from renderer.admission.objectmeta import DNS1123_SUBDOMAIN
from renderer.admission.webhook import AdmissionContext, ignored_fields, validate_shared_spec
from renderer.config import RenderConfig
from renderer.graph.dgd import (
    DGD,
    GPU_POWER_LIMIT_ANNOTATION,
    GROVE_UPDATE_STRATEGY_ANNOTATION,
    PROVIDER_COMPONENT,
    PROVIDER_GROVE,
    Component,
    RestartStrategy,
)
from renderer.results import Code, Result, Severity, unsupported

_SEMVER_LENIENT = re.compile(
    r"^v?([0-9]+)(\.[0-9]+)?(\.[0-9]+)?"
    r"(-([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?"
    r"(\+([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?$"
)


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

    def error(message: str, path: str, severity: Severity = Severity.ERROR, code: Code = Code.WEBHOOK) -> None:
        # a rule only the Grove pathway satisfies says how to get there
        hint = hints.grove_pathway() if message.endswith(grove_requirement) else ""
        out.append(Result(message, severity=severity, field=path, code=code, hint=hint))

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
            Code.IGNORED,
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
            from renderer.graph.grove_roles import MAX_COMBINED_NAME_LENGTH, combined_name_length

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
            release=config.release,
        )
        out.extend(validate_shared_spec(component.spec, component.pod_template, component.path, ctx))
        out.extend(r for r in ignored_fields(component.spec, component.path, standalone=False) if not (grove and r.field.endswith(".topologyConstraint")))
        if component.spec.scaling_adapter is not None and not config.scaling_adapters:
            error(
                "not emitted: the operator creates a DynamoGraphDeploymentScalingAdapter for this component, an "
                "operator-managed object; set scalingAdapters: true in the DynamoRenderConfig to emit it",
                f"{component.path}.scalingAdapter",
                Severity.INFO,
                Code.NOTE,
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
                Code.IGNORED,
            )
        elif spec.topology_constraint.cluster_topology_name:
            error(
                f'ClusterTopologyBinding "{spec.topology_constraint.cluster_topology_name}" is assumed to exist and to '
                "define the requested domains (the operator's webhook reads it from the cluster)",
                "spec.topologyConstraint.clusterTopologyName",
                Severity.INFO,
                Code.NOTE,
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
    if not DNS1123_SUBDOMAIN.fullmatch(value):
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
        return [Result("Forbidden: cannot be specified when strategy is parallel", field=path, code=Code.WEBHOOK)]
    out: list[Result] = []
    unique = list(dict.fromkeys(order))
    shown = gotypes.go_json_dumps(order)
    if len(unique) != len(order):
        out.append(Result(f"Invalid value: {shown}: must be unique", field=path, code=Code.WEBHOOK))
    if len(unique) != len(set(names)):
        out.append(Result(f"Invalid value: {shown}: must have the same number of unique components as the deployment", field=path, code=Code.WEBHOOK))
    supported = ", ".join(f'"{n}"' for n in sorted(names))
    for i, name in enumerate(order):
        if name not in names:
            out.append(Result(f'Unsupported value: "{name}": supported values: {supported}', field=f"{path}[{i}]", code=Code.WEBHOOK))
    return out
