"""Reference integrity: every object a rendered pod needs must be there, or be reported.

A rendered pod template references ServiceAccounts, ConfigMaps, Secrets, PersistentVolumeClaims
and DRA ResourceClaimTemplates/ResourceClaims by name. Each must be emitted by this render,
present in the input bundle, or known from the cluster state; anything else is a warning. When
a source listed that kind in that namespace in full (the live lookup), the object is known to
be missing; otherwise it must exist in the cluster, which this render cannot see.

References marked ``optional: true`` are skipped, and so are the ``default`` ServiceAccount and
the ``kube-root-ca.crt`` ConfigMap, which Kubernetes creates in every namespace, and objects the
settings declare to exist on purpose (``existingObjects``), unless a full listing of their kind
shows them missing.

One pass over the rendered pod specs, against an index of (kind, namespace, name).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from renderer.records import dataclass
from typing import Any

from renderer.cluster.state import (
    CLUSTER_SCOPED,
    CONFIG_MAP,
    PERSISTENT_VOLUME_CLAIM,
    RESOURCE_CLAIM,
    RESOURCE_CLAIM_TEMPLATE,
    SECRET,
    SERVICE_ACCOUNT,
    ClusterState,
    Kind,
    describe,
    kind_of,
)
from renderer.results import Code, ResourceRef, Result, Severity

# Objects every namespace has.
_ALWAYS_PRESENT = {(SERVICE_ACCOUNT, "default"), (CONFIG_MAP, "kube-root-ca.crt")}
_WORKLOAD_TEMPLATES = {
    ("apps", "Deployment"): (("spec", "template"),),
    ("leaderworkerset.x-k8s.io", "LeaderWorkerSet"): (
        ("spec", "leaderWorkerTemplate", "leaderTemplate"),
        ("spec", "leaderWorkerTemplate", "workerTemplate"),
    ),
}


@dataclass(frozen=True)
class Reference:
    """One object a pod spec names: its kind and name, and where in the workload it is named."""

    kind: Kind
    name: str
    field: str


def pod_spec_references(pod_spec: Mapping[str, Any], prefix: str) -> Iterator[Reference]:
    """Every ServiceAccount, ConfigMap, Secret, PVC and resource claim a pod spec names (not optional ones)."""
    account = pod_spec.get("serviceAccountName")
    if isinstance(account, str) and account:
        yield Reference(SERVICE_ACCOUNT, account, f"{prefix}.serviceAccountName")
    for i, ref in enumerate(_list(pod_spec.get("imagePullSecrets"))):
        if _map(ref).get("name"):
            yield Reference(SECRET, str(ref["name"]), f"{prefix}.imagePullSecrets[{i}]")
    for i, volume in enumerate(_list(pod_spec.get("volumes"))):
        volume = _map(volume)
        path = f"{prefix}.volumes[{i}]"
        config_map = _map(volume.get("configMap"))
        if config_map.get("name") and not config_map.get("optional"):
            yield Reference(CONFIG_MAP, str(config_map["name"]), f"{path}.configMap")
        secret = _map(volume.get("secret"))
        if secret.get("secretName") and not secret.get("optional"):
            yield Reference(SECRET, str(secret["secretName"]), f"{path}.secret")
        claim = _map(volume.get("persistentVolumeClaim"))
        if claim.get("claimName"):
            yield Reference(PERSISTENT_VOLUME_CLAIM, str(claim["claimName"]), f"{path}.persistentVolumeClaim")
        for j, source in enumerate(_list(_map(volume.get("projected")).get("sources"))):
            for key, kind in (("configMap", CONFIG_MAP), ("secret", SECRET)):
                projected = _map(_map(source).get(key))
                if projected.get("name") and not projected.get("optional"):
                    yield Reference(kind, str(projected["name"]), f"{path}.projected.sources[{j}].{key}")
    for i, claim in enumerate(_list(pod_spec.get("resourceClaims"))):
        claim = _map(claim)
        if claim.get("resourceClaimTemplateName"):
            yield Reference(RESOURCE_CLAIM_TEMPLATE, str(claim["resourceClaimTemplateName"]), f"{prefix}.resourceClaims[{i}]")
        elif claim.get("resourceClaimName"):
            yield Reference(RESOURCE_CLAIM, str(claim["resourceClaimName"]), f"{prefix}.resourceClaims[{i}]")
    for group in ("initContainers", "containers"):
        for i, container in enumerate(_list(pod_spec.get(group))):
            yield from _container_references(_map(container), f"{prefix}.{group}[{i}]")


def _container_references(container: Mapping[str, Any], prefix: str) -> Iterator[Reference]:
    for i, env in enumerate(_list(container.get("env"))):
        source = _map(_map(env).get("valueFrom"))
        for key, kind in (("configMapKeyRef", CONFIG_MAP), ("secretKeyRef", SECRET)):
            ref = _map(source.get(key))
            if ref.get("name") and not ref.get("optional"):
                yield Reference(kind, str(ref["name"]), f"{prefix}.env[{i}].valueFrom.{key}")
    for i, env_from in enumerate(_list(container.get("envFrom"))):
        for key, kind in (("configMapRef", CONFIG_MAP), ("secretRef", SECRET)):
            ref = _map(_map(env_from).get(key))
            if ref.get("name") and not ref.get("optional"):
                yield Reference(kind, str(ref["name"]), f"{prefix}.envFrom[{i}].{key}")


def workload_references(obj: Mapping[str, Any]) -> Iterator[Reference]:
    """References of the pod templates of a rendered Deployment, LeaderWorkerSet or PodCliqueSet."""
    if obj.get("kind") == "PodCliqueSet":
        cliques = _map(_map(obj.get("spec")).get("template")).get("cliques")
        for i, clique in enumerate(_list(cliques)):
            spec = _map(_map(_map(clique).get("spec")).get("podSpec"))
            if spec:
                yield from pod_spec_references(spec, f"spec.template.cliques[{i}].spec.podSpec")
        return
    for path in _WORKLOAD_TEMPLATES.get(kind_of(obj), ()):
        template: Any = obj
        for key in path:
            template = _map(template).get(key)
        spec = _map(_map(template).get("spec"))
        if spec:
            yield from pod_spec_references(spec, ".".join((*path, "spec")))


def object_index(objects: Iterable[Any], default_namespace: str) -> set[tuple[Kind, str, str]]:
    """(kind, namespace, name) of every object of a stream (a namespace-less object takes the default)."""
    index: set[tuple[Kind, str, str]] = set()
    for obj in objects:
        if not isinstance(obj, dict):
            continue
        meta = _map(obj.get("metadata"))
        if not isinstance(meta.get("name"), str):
            continue
        kind = kind_of(obj)
        namespace = "" if kind in CLUSTER_SCOPED else str(meta.get("namespace") or default_namespace)
        index.add((kind, namespace, meta["name"]))
    return index


# A reference of a rendered workload: the namespace it resolves in, the workload naming it
# ("Deployment/name") and the reference itself.
Need = tuple[str, str, Reference]


def needed_references(owner: ResourceRef, rendered: Iterable[Mapping[str, Any]]) -> list[Need]:
    """Every reference the owner's rendered pods make, in order.

    Taken when the objects are rendered, so a streaming front end can write them out and drop
    them before the whole output is known.
    """
    needs: list[Need] = []
    for obj in rendered:
        namespace = str(_map(obj.get("metadata")).get("namespace") or owner.namespace)
        where = f"{kind_of(obj)[1]}/{_map(obj.get('metadata')).get('name', '')}"
        needs.extend((namespace, where, ref) for ref in workload_references(obj))
    return needs


def report_missing(
    owner: ResourceRef, needs: Iterable[Need], emitted: set[tuple[Kind, str, str]], cluster: ClusterState
) -> list[Result]:
    """One warning per needed object that neither the output stream nor the cluster state holds."""
    results: list[Result] = []
    reported: set[tuple[Kind, str]] = set()
    for namespace, where, ref in needs:
        if (ref.kind, ref.name) in _ALWAYS_PRESENT or (ref.kind, ref.name) in reported:
            continue
        if (ref.kind, namespace, ref.name) in emitted or cluster.get(ref.kind, namespace, ref.name)[1]:
            continue
        complete = cluster.is_complete(ref.kind, namespace)
        # Declared to exist on purpose: no warning, unless a full listing shows it is not there.
        if not complete and cluster.is_declared(ref.kind, namespace, ref.name):
            continue
        reported.add((ref.kind, ref.name))
        if complete:
            message = f"not found in the cluster: {describe(ref.kind)}/{ref.name} (referenced by {where} {ref.field})"
        else:
            message = f"must exist in the cluster: {describe(ref.kind)}/{ref.name} (referenced by {where} {ref.field})"
        results.append(Result(message, severity=Severity.WARNING, resource=owner, code=Code.REFERENCE))
    return results


def _map(value: Any) -> dict[str, Any]:
    return dict(value) if isinstance(value, Mapping) else {}


def _list(value: Any) -> list[Any]:
    return list(value) if isinstance(value, list) else []
