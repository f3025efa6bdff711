"""The validating webhook's v1alpha1 rules, at the v1alpha1 field paths the user wrote.

The operator registers its DCD and DGD validating webhooks for v1beta1 only, with the default
``matchPolicy: Equivalent``: the API server converts a v1alpha1 request to v1beta1 and calls the
v1beta1 endpoint with ``requestKind`` v1alpha1. The handler then runs the v1beta1 rules on the
converted object (with the runtime-version rule switched to its v1alpha1 form) and these
v1alpha1 rules on the object converted back (ConvertFrom), which for a v1alpha1 request is the
object the user wrote. They run here on the admitted v1alpha1 spec; the v1beta1 rules run in
the v1beta1 admission of the converted object (renderer/admission/webhook.py,
renderer/graph/dgd.py) and their field paths are mapped back by
renderer/admission/v1alpha1/paths.py.

The mutating webhooks: the DCD defaulting webhook is registered with ``matchPolicy: Exact`` for
v1beta1, so a v1alpha1 DCD is never defaulted by it (the conversion already fills ``spec.name``
from ``metadata.name``); the DGD defaulting webhook (Equivalent) runs on the converted DGD.

Mirrors: internal/webhook/validation/{shared_v1alpha1.go,dynamocomponentdeployment_v1alpha1.go,
dynamographdeployment_v1alpha1.go} and shared_helpers.go runtimeVersionValidationSourceForRequest,
runtimeVersionImageAndPathV1Alpha1; the operator Helm chart's webhook-configuration.yaml
(rules and matchPolicy).
"""

from __future__ import annotations

from typing import Any

from renderer import consts, hints
from renderer.gocompat.runtimeversion import RUNTIME_OVERRIDE_REQUIRED, parse_image_version
from renderer.results import Code, Result, Severity, go_quote

FRONTEND_SIDECAR_CONTAINER = "sidecar-frontend"


def compute_dynamo_namespace(global_namespace: bool, namespace: str, parent: str) -> str:
    """Mirrors: api/v1alpha1/dynamocomponentdeployment_types.go ComputeDynamoNamespace"""
    if global_namespace:
        return consts.GLOBAL_DYNAMO_NAMESPACE
    return f"{namespace}-{parent.replace('.', '-')}"


def validate_dcd(spec: dict[str, Any], namespace: str) -> list[Result]:
    """The v1alpha1 rules of a standalone DCD (CREATE, v1alpha1 request).

    A standalone DCD may omit ``runtimeVersionOverride`` for an unparseable image tag
    (allowMissingRuntimeVersionOverride); the main container image itself is required.
    Mirrors: dynamocomponentdeployment_v1alpha1.go validateDynamoComponentDeploymentV1alpha1
    """
    dynamo_namespace = compute_dynamo_namespace(bool(spec.get("globalDynamoNamespace")), namespace, "")
    return _validate_shared(spec, "spec", dynamo_namespace, allow_missing_override=True)


def validate_dgd(spec: dict[str, Any], name: str, namespace: str) -> list[Result]:
    """The v1alpha1 rules of a DGD (CREATE, v1alpha1 request): pvcs, then services by name.

    Mirrors: dynamographdeployment_v1alpha1.go validateDynamoGraphDeploymentSpecV1alpha1,
    validatePVCV1alpha1
    """
    out: list[Result] = []
    for i, pvc in enumerate(spec.get("pvcs") or []):
        if not pvc.get("name"):
            out.append(Result("Required value: is required", field=f"spec.pvcs[{i}].name", code=Code.WEBHOOK))
    services = spec.get("services") or {}
    for service_name in sorted(services):
        service = services[service_name]
        if not isinstance(service, dict):
            continue
        dynamo_namespace = compute_dynamo_namespace(bool(service.get("globalDynamoNamespace")), namespace, name)
        out += _validate_shared(
            service, f"spec.services[{service_name}]", dynamo_namespace, allow_missing_override=False,
            backend_framework=str(spec.get("backendFramework") or ""),
        )
    return out


def _validate_shared(
    spec: dict[str, Any], path: str, dynamo_namespace: str, allow_missing_override: bool, backend_framework: str = ""
) -> list[Result]:
    """Mirrors: shared_v1alpha1.go validateDynamoComponentDeploymentSharedSpecV1alpha1

    ``backend_framework`` (the graph's, for a service) only shapes the hint of a missing image.
    """
    out: list[Result] = []

    def error(message: str, field: str, hint: str = "") -> None:
        out.append(Result(message, field=f"{path}.{field}", code=Code.WEBHOOK, hint=hint))

    def warn(message: str, field: str) -> None:
        out.append(Result(message, severity=Severity.WARNING, field=f"{path}.{field}", code=Code.IGNORED))

    annotations = spec.get("annotations") or {}
    backend = annotations.get(consts.ANNOTATION_VLLM_DISTRIBUTED_EXECUTOR_BACKEND)
    if backend is not None and backend.lower() not in ("mp", "ray"):
        error(
            f'Invalid value: {go_quote(backend)}: must be "mp" or "ray"',
            f"annotations[{consts.ANNOTATION_VLLM_DISTRIBUTED_EXECUTOR_BACKEND}]",
        )
    if spec.get("dynamoNamespace"):
        warn(
            f"is deprecated and ignored. Value {go_quote(spec['dynamoNamespace'])} will be replaced with "
            f"{go_quote(dynamo_namespace)}. Remove this field from your configuration",
            "dynamoNamespace",
        )
    if spec.get("autoscaling") is not None:
        warn(
            "is deprecated and ignored. Use DynamoGraphDeploymentScalingAdapter with HPA, KEDA, or Planner for "
            "autoscaling instead. See docs/kubernetes/autoscaling.md",
            "autoscaling",
        )
    for i, mount in enumerate(spec.get("volumeMounts") or []):
        if not mount.get("useAsCompilationCache") and not mount.get("mountPoint"):
            error("Required value: is required when useAsCompilationCache is false", f"volumeMounts[{i}].mountPoint")
    ingress = spec.get("ingress")
    if ingress is not None and ingress.get("enabled") and not ingress.get("host"):
        error("Required value: is required when ingress is enabled", "ingress.host")
    epp = spec.get("eppConfig")
    if epp is not None and (epp.get("configMapRef") is None) == (epp.get("config") is None):
        out.append(Result("Forbidden: exactly one of configMapRef or config is required", field=f"{path}.eppConfig", code=Code.WEBHOOK))
    extra = spec.get("extraPodSpec") or {}
    containers = extra.get("containers") or []
    if spec.get("frontendSidecar") is not None and any(c.get("name") == FRONTEND_SIDECAR_CONTAINER for c in containers):
        error(
            "Forbidden: cannot inject frontend sidecar: a container named "
            f'"{FRONTEND_SIDECAR_CONTAINER}" already exists in extraPodSpec.containers',
            "frontendSidecar",
        )
    failover = spec.get("failover")
    if failover is not None and failover.get("enabled") and failover.get("mode", "") == "intraPod":
        shadows = failover.get("numShadows", 0)
        if shadows not in (0, 1):
            error(
                f'Invalid value: {shadows}: is invalid for mode="intraPod": intraPod uses a fixed 1 primary + 1 '
                'shadow sidecar; use failover.mode="interPod" to configure numShadows',
                "failover.numShadows",
            )

    # Runtime version, in its v1alpha1 form (the request's source version).
    image = (extra.get("mainContainer") or {}).get("image") or ""
    if not image:
        error("Required value: is required", "extraPodSpec.mainContainer.image", hints.main_image(str(spec.get("backendFramework") or backend_framework)))
    elif not allow_missing_override and not spec.get("runtimeVersionOverride") and parse_image_version(image) is None:
        error(f"Required value: {RUNTIME_OVERRIDE_REQUIRED}", "runtimeVersionOverride", hints.runtime_version(image))
    return out
