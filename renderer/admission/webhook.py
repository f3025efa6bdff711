"""Admission rules of a v1beta1 component spec: CRD CEL rules and the validating webhook.

The rules the API server (CEL) and the operator's validating webhook apply to a DCD's spec, or
to one DGD component's spec, and the warnings for fields that have no effect where they are
written. Features not ported yet are refused here too (DESIGN decision 7).

Mirrors: config/crd/bases/nvidia.com_dynamocomponentdeployments.yaml (CEL rules),
internal/webhook/validation/{dynamocomponentdeployment.go,shared_v1beta1.go,shared_helpers.go}.
"""

from __future__ import annotations

from renderer.records import dataclass
from typing import Any

from renderer import consts, hints
from renderer.admission.api import DCD, DynamoComponentDeploymentSharedSpec, ExperimentalSpec
from renderer.admission.flags import is_elastic_ep_ray_launch
from renderer.admission.snapshot import SNAPSHOT_CHECKPOINTS, refuse_snapshot_checkpoint
from renderer.admission.roles import EXPLICIT_ROLES, refuse_roles, removed_multinode_roles, validate_roles
from renderer.gocompat.quantity import unmarshal_quantity
from renderer.gocompat.runtimeversion import RUNTIME_OVERRIDE_REQUIRED, parse_image_version
from renderer.releases import REFERENCE_RELEASE, Release
from renderer.results import Code, Result, Severity, go_quote, unknown_field_message, unsupported



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
    # the operator release whose admission rules apply (renderer.releases)
    release: Release = REFERENCE_RELEASE


def validate_admission(
    dcd: DCD, checkpoint_gate: bool = False, runtime_source: str = consts.V1BETA1, release: Release = REFERENCE_RELEASE
) -> list[Result]:
    """Every offline admission rule for a standalone v1beta1 DCD, plus unsupported features.

    Mirrors: internal/webhook/validation/dynamocomponentdeployment.go validateDynamoComponentDeploymentSpec.
    """
    ctx = AdmissionContext(
        standalone=True,
        backend_framework=dcd.spec.backend_framework or "",
        checkpoint_gate=checkpoint_gate,
        runtime_source=runtime_source,
        release=release,
    )
    out = validate_shared_spec(dcd.spec, dcd.pod_template, "spec", ctx)
    out.extend(ignored_fields(dcd.spec, "spec", standalone=True))
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

    def error(message: str, path: str, hint: str = "") -> None:
        out.append(Result(message, field=f"{prefix}.{path}" if path else prefix, code=Code.WEBHOOK, hint=hint))

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
        error("Forbidden: is currently supported only for Grove-backed DynamoGraphDeployment components", "minAvailable", hints.grove_pathway(ctx.standalone))


    def role_override(path: str) -> list[Result]:
        # A role's provider override follows the component's provider rules, at its own path.
        if grove:
            return [unsupported(path, "Grove provider overrides (merged into the PodCliqueSet)").to_result()]
        return [Result(override_message, field=path, code=Code.WEBHOOK)]

    if ctx.release.ships(EXPLICIT_ROLES):
        # 1.5.0: role overrides live in roles[]; multinode.leader/worker are gone (#14419).
        out.extend(removed_multinode_roles(spec, prefix))
        out.extend(validate_roles(spec, prefix, ctx.release, role_override))
    else:
        out.extend(refuse_roles(spec, prefix, ctx.release))
        if spec.multinode is not None:
            for role in ("leader", "worker"):
                role_spec = getattr(spec.multinode, role)
                if role_spec is not None and role_spec.provider_override is not None:
                    out.extend(role_override(f"{prefix}.multinode.{role}.providerOverride"))
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
                "experimental.grove.forceScalingGroup", hints.grove_pathway(ctx.standalone),
            )
        if experimental.checkpoint is not None and experimental.checkpoint.enabled:
            # Standalone DCDs get checkpoint-aware pod shaping (renderer.pod.checkpoint); graph components
            # also need the graph controller's checkpoint creation, which is not ported.
            if ctx.checkpoint_gate and ctx.release.ships(SNAPSHOT_CHECKPOINTS):
                # 1.5.0: standalone Snapshot replaces DynamoCheckpoint (#14076).
                out.append(refuse_snapshot_checkpoint(prefix, ctx.release.name, bool(experimental.checkpoint.checkpoint_ref)))
            elif ctx.checkpoint_gate and not ctx.standalone and not experimental.checkpoint.checkpoint_ref:
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
                error("Forbidden: checkpoint functionality is disabled in the operator configuration", "experimental.checkpoint", hints.checkpoints_disabled())
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
        error("Required value: is required", f"podTemplate.spec.containers[{main_index}].image", hints.main_image(ctx.backend_framework))
    elif not ctx.standalone and not spec.runtime_version_override and parse_image_version(containers[main_index]["image"]) is None:
        error(f"Required value: {RUNTIME_OVERRIDE_REQUIRED}", "runtimeVersionOverride", hints.runtime_version(containers[main_index]["image"]))
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
                code=Code.WEBHOOK,
            )
        )
    for key, value in annotations.items():
        if len(value) > 262144:
            out.append(Result("must have at most 262144 characters", field=f"{prefix}.podTemplate.metadata.annotations[{key}]", code=Code.WEBHOOK))
    spec = _pod_spec(pod_template)
    for i, container in enumerate(spec.get("containers") or []):
        if container.get("name") != consts.MAIN_CONTAINER_NAME and not container.get("image"):
            out.append(Result("sidecar containers must specify a non-empty image", field=f"{prefix}.podTemplate.spec.containers[{i}]", code=Code.WEBHOOK))
    for i, container in enumerate(spec.get("initContainers") or []):
        if not container.get("image"):
            out.append(Result("init containers must specify a non-empty image", field=f"{prefix}.podTemplate.spec.initContainers[{i}]", code=Code.WEBHOOK))
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
            code=Code.WEBHOOK,
        )
    ]


def ignored_fields(spec: DynamoComponentDeploymentSharedSpec, prefix: str, standalone: bool) -> list[Result]:
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
                code=Code.IGNORED,
            )
        )
    checkpoint = experimental.checkpoint if experimental is not None else None
    if checkpoint is not None and checkpoint.enabled and (standalone or checkpoint.checkpoint_ref):
        # Only a DynamoCheckpoint the graph controller creates (a graph component without
        # checkpointRef) uses the job template and the deletion policy.
        reason = "a standalone DCD never creates its checkpoint" if standalone else "a referenced checkpoint is not created"
        if checkpoint.job is not None:
            out.append(Result(f"has no effect: {reason}", severity=Severity.WARNING, field=f"{prefix}.experimental.checkpoint.job", code=Code.IGNORED))
        if "deletion_policy" in checkpoint.model_fields_set:
            out.append(
                Result(f"has no effect: {reason}", severity=Severity.WARNING, field=f"{prefix}.experimental.checkpoint.deletionPolicy", code=Code.IGNORED)
            )
    if spec.topology_constraint is not None:
        out.append(
            Result(
                f"has no effect on {where}: the operator applies topology constraints only on the Grove pathway",
                severity=Severity.WARNING,
                field=f"{prefix}.topologyConstraint",
                code=Code.IGNORED,
            )
        )
    if spec.scaling_adapter is not None:
        if spec.scaling_adapter:
            out.append(Result(unknown_field_message(str(next(iter(spec.scaling_adapter)))), field=f"{prefix}.scalingAdapter", code=Code.UNKNOWN_FIELD))
        elif standalone:
            out.append(
                Result(
                    "has no effect on a standalone DCD: scaling adapters are created only for DynamoGraphDeployment components",
                    severity=Severity.WARNING,
                    field=f"{prefix}.scalingAdapter",
                    code=Code.IGNORED,
                )
            )
    return out
