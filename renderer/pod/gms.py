"""GPU Memory Service (GMS), intra-pod: a server sidecar and DRA-shared GPUs in one pod.

With ``experimental.gpuMemoryService`` in ``IntraPod`` mode the operator takes the main
container's scalar GPU resources away and gives the pod one DRA claim,
``intrapod-shared-gpu``, from the ResourceClaimTemplate ``<parent>-<component>-gpu`` that the
graph controller creates (one per component, sized by the main container's GPU count). The
main container, every extra client container and the ``gms-server`` native sidecar (an init
container with ``restartPolicy: Always``) share the claim and an emptyDir for the UDS sockets.
The inter-pod mode renders its weight-server pods only on the Grove pathway; off Grove the
engine pod is left as it is here (the vLLM backend adds ``--load-format gms``).

Mirrors: internal/gms/gms.go (EnsureServerSidecar, EnsureClient, Container),
internal/dra/dra.go (ApplyClaim, ResourceClaimTemplateName, RemoveGPUResources,
GenerateResourceClaimTemplate), internal/dynamo/graph.go GenerateBasePodSpec (intra-pod GMS
block) and gmsExtraClientContainersError, internal/controller/dgd_gms_resource_claims_reconciler.go.
"""

from __future__ import annotations

from typing import Any

from renderer import consts, hints
from renderer.cluster.dra import is_gpu_resource_name
from renderer.cluster.state import DEVICE_CLASS, ClusterState
from renderer.results import RenderError, go_quote

CLAIM_NAME = "intrapod-shared-gpu"
DEFAULT_DEVICE_CLASS = "gpu.nvidia.com"
SERVER_CONTAINER_NAME = "gms-server"
SHARED_VOLUME_NAME = "gms-intrapod-control"
SHARED_MOUNT_PATH = "/gms-intrapod-control"
ENV_SOCKET_DIR = "GMS_SOCKET_DIR"
SERVER_MODULE = "gpu_memory_service.cli.server"
MODE_INTRA_POD = "IntraPod"
MODE_INTER_POD = "InterPod"
GPU_TOLERATION = {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}
DRA_UNAVAILABLE = (
    "gpuMemoryService / inter-pod GMS failover requires DRA (Dynamic Resource Allocation), but DRA is not available "
    "(either the resource.k8s.io/v1 API is not registered on this cluster, which requires Kubernetes 1.34+, or DRA "
    "has been explicitly disabled in the operator configuration)"
)


def claim_template_name(parent_name: str, component_name: str) -> str:
    """Mirrors: internal/dra/dra.go ResourceClaimTemplateName."""
    return f"{parent_name}-{component_name.lower()}-gpu"


def extra_client_containers_error(names: list[str], containers: list[dict[str, Any]]) -> str | None:
    """Duplicate or missing extra client containers, as one sorted message (None when all resolve).

    Mirrors: internal/dynamo/graph.go gmsExtraClientContainersError
    """
    declared = {c.get("name") for c in containers}
    seen: set[str] = set()
    missing: list[str] = []
    duplicate: list[str] = []
    for name in names:
        if name in seen:
            duplicate.append(name)
            continue
        seen.add(name)
        if name not in declared:
            missing.append(name)
    if not missing and not duplicate:
        return None
    problems = []
    if duplicate:
        problems.append(f"contains duplicate names {_go_string_slice(sorted(duplicate))}")
    if missing:
        problems.append(f"references missing pod containers {_go_string_slice(sorted(missing))}")
    return f"gpuMemoryService.extraClientContainers {'; '.join(problems)}"


def _go_string_slice(values: list[str]) -> str:
    """Go's %q of a []string: ``["a" "b"]``."""
    return "[" + " ".join(go_quote(v) for v in values) + "]"


def remove_gpu_resources(resources: dict[str, Any]) -> None:
    """Drop every scalar GPU resource from limits and requests (empty lists disappear, as omitempty).

    Mirrors: internal/dra/dra.go RemoveGPUResources
    """
    for section in ("limits", "requests"):
        values = resources.get(section)
        if not isinstance(values, dict):
            continue
        kept = {k: v for k, v in values.items() if not is_gpu_resource_name(k)}
        if kept:
            resources[section] = kept
        else:
            del resources[section]


def _add_claim(container: dict[str, Any]) -> None:
    resources = container.setdefault("resources", {})
    remove_gpu_resources(resources)
    claims = resources.setdefault("claims", [])
    if not any(c.get("name") == CLAIM_NAME for c in claims):
        claims.append({"name": CLAIM_NAME})


def add_gpu_toleration(pod_spec: dict[str, Any]) -> None:
    """Mirrors: internal/dra/dra.go ApplyClaim (toleration) and failover.go addGPUToleration."""
    tolerations = pod_spec.setdefault("tolerations", [])
    if not any(t.get("key") == GPU_TOLERATION["key"] and t.get("effect") == GPU_TOLERATION["effect"] for t in tolerations):
        tolerations.append(dict(GPU_TOLERATION))


def apply_claim(pod_spec: dict[str, Any], template_name: str) -> None:
    """The first container's GPUs become the shared claim; the pod references the template.

    Mirrors: internal/dra/dra.go ApplyClaim
    """
    containers = pod_spec.get("containers") or []
    if not containers:
        raise RenderError("failed to apply DRA claim for GMS: pod spec must have at least one container for DRA claim")
    _add_claim(containers[0])
    add_gpu_toleration(pod_spec)
    claim = {"name": CLAIM_NAME, "resourceClaimTemplateName": template_name}
    claims = pod_spec.setdefault("resourceClaims", [])
    for i, existing in enumerate(claims):
        if existing.get("name") == CLAIM_NAME:
            claims[i] = claim
            return
    claims.append(claim)


def ensure_client(pod_spec: dict[str, Any], container: dict[str, Any]) -> None:
    """Socket volume and mount, ``GMS_SOCKET_DIR`` and the shared claim on one GMS client container.

    Mirrors: internal/gms/gms.go EnsureClient
    """
    volume = {"name": SHARED_VOLUME_NAME, "emptyDir": {}}
    _replace_or_append(pod_spec.setdefault("volumes", []), volume)
    _replace_or_append(container.setdefault("volumeMounts", []), {"name": SHARED_VOLUME_NAME, "mountPath": SHARED_MOUNT_PATH})
    _replace_or_append(container.setdefault("env", []), {"name": ENV_SOCKET_DIR, "value": SHARED_MOUNT_PATH})
    _add_claim(container)


def _replace_or_append(items: list[dict[str, Any]], item: dict[str, Any]) -> None:
    for i, existing in enumerate(items):
        if existing.get("name") == item["name"]:
            items[i] = item
            return
    items.append(item)


def server_container(image: str) -> dict[str, Any]:
    """The GMS server as a native sidecar. Mirrors: internal/gms/gms.go Container + EnsureServerSidecar."""
    out: dict[str, Any] = {"name": SERVER_CONTAINER_NAME}
    if image:
        out["image"] = image
    out.update(
        {
            "command": ["python3", "-m", SERVER_MODULE],
            "env": [{"name": ENV_SOCKET_DIR, "value": SHARED_MOUNT_PATH}],
            "volumeMounts": [{"name": SHARED_VOLUME_NAME, "mountPath": SHARED_MOUNT_PATH}],
            "resources": {"claims": [{"name": CLAIM_NAME}]},
            "restartPolicy": "Always",
        }
    )
    return out


def ensure_server_sidecar(pod_spec: dict[str, Any], main: dict[str, Any]) -> None:
    """Mirrors: internal/gms/gms.go EnsureServerSidecar"""
    ensure_client(pod_spec, main)
    init = pod_spec.setdefault("initContainers", [])
    if not any(c.get("name") == SERVER_CONTAINER_NAME for c in init):
        init.append(server_container(str(main.get("image") or "")))


def apply_intra_pod_gms(pod_spec: dict[str, Any], extra_clients: list[str], parent_name: str, component_name: str) -> None:
    """Shape a rendered pod for intra-pod GMS (the pod's first container is the main one).

    Mirrors: internal/dynamo/graph.go GenerateBasePodSpec (intra-pod GMS block)
    """
    containers = pod_spec.get("containers") or []
    problem = extra_client_containers_error(extra_clients, containers)
    if problem:
        raise RenderError(problem, "spec.experimental.gpuMemoryService.extraClientContainers")
    apply_claim(pod_spec, claim_template_name(parent_name, component_name))
    ensure_server_sidecar(pod_spec, containers[0])
    for name in extra_clients:
        container = next(c for c in containers if c.get("name") == name)
        ensure_client(pod_spec, container)


def resource_claim_template(name: str, namespace: str, gpu_count: int, device_class: str) -> dict[str, Any]:
    """The template every GMS pod of a component claims its GPUs from.

    Mirrors: internal/dra/dra.go GenerateResourceClaimTemplate
    """
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaimTemplate",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {
            "spec": {
                "devices": {
                    "requests": [
                        {
                            "name": "gpus",
                            "exactly": {
                                "deviceClassName": device_class or DEFAULT_DEVICE_CLASS,
                                "allocationMode": "ExactCount",
                                "count": gpu_count,
                            },
                        }
                    ]
                }
            }
        },
    }


def main_gpu_count(resources: dict[str, Any]) -> int:
    """Scalar GPUs of the main container, limits first; RenderError with the operator's message.

    Mirrors: internal/dra/dra.go ExtractGPUCountFromResourceRequirements
    """
    from renderer.gocompat.quantity import unmarshal_quantity

    for section in ("limits", "requests"):
        values = resources.get(section) or {}
        names = sorted(n for n in values if is_gpu_resource_name(n))
        if not names:
            continue
        quantity = unmarshal_quantity(values[names[0]])
        whole = quantity.whole()
        if whole is None:
            raise RenderError(
                f"GPU resource {go_quote(names[0])} quantity {go_quote(quantity.string())} must be a whole number",
                hint=hints.whole_number(),
            )
        return whole
    return 0


def component_claim_template(
    parent_name: str,
    namespace: str,
    component_name: str,
    device_class: str,
    main_resources: dict[str, Any],
    cluster: ClusterState,
) -> dict[str, Any] | None:
    """The ResourceClaimTemplate the graph controller syncs for one GMS component (None: none).

    A component whose main container asks for no GPU gets none (the operator deletes any).
    The DeviceClass must exist when the cluster state lists DeviceClasses in full; otherwise
    its presence is assumed.
    Mirrors: internal/controller/dgd_gms_resource_claims_reconciler.go Reconcile and
    internal/dra/dra.go GenerateResourceClaimTemplate
    """
    try:
        gpus = main_gpu_count(main_resources)
    except (RenderError, ValueError) as err:
        message = err.message if isinstance(err, RenderError) else str(err)
        raise RenderError(
            f"invalid GPU resource requirements for GMS ResourceClaimTemplate for {component_name}: {message}"
        ) from None
    if gpus <= 0:
        return None
    device_class = device_class or DEFAULT_DEVICE_CLASS
    _, found = cluster.get(DEVICE_CLASS, "", device_class)
    if not found and cluster.is_complete(DEVICE_CLASS, ""):
        raise RenderError(
            f"failed to sync GMS ResourceClaimTemplate for {component_name}: DeviceClass {go_quote(device_class)} not "
            "found: ensure the GPU DRA driver is installed and the device class is registered"
        )
    return resource_claim_template(claim_template_name(parent_name, component_name), namespace, gpus, device_class)
