"""Object identities in one output: two sources that render one object is an error naming both.

The one identity rule (``identity_of``): API group, kind, namespace and name. It is the API
server's: it stores one object per group, kind, namespace and name, whatever API version it is
written in (a tool that keys on the version as well, such as a kustomize resource id, may hold
two copies the cluster would take for one). An object without a namespace is in the default
namespace, unless its kind is cluster-scoped (then it has none). kubectl and Argo CD keep the
last copy they are given. So when two sources (two DCDs, two DGDs,
a DCD and a hand-written object, ...) render the same identity, any silent choice is wrong and
the clash is an error that names both sources (DESIGN decision 12). Objects that are identical
by construction, such as the discovery RBAC two DCDs of one namespace share or the headless
Service of one model, are merged: the first copy is kept and the others add nothing.

A source's own identity counts too: two DCDs (or two DGDs) of one name are a clash even when
they render nothing in common, because the cluster could only hold one of them.

This is the one place every front end's clash check goes through: ``renderer.bundle`` claims
every source, every rendered object and every passed-through object of a bundle here; a front
end that renders files on their own (the validate hook: each file's cluster facts are its own)
merges each file's claims into one index (``Identities.merge``).
"""

from __future__ import annotations

import hashlib
import json
from renderer.records import dataclass
from typing import Any

from renderer.results import Code, ResourceRef, Result

# API group, kind, namespace ("" for cluster-scoped kinds) and name.
Identity = tuple[str, str, str, str]

# Built-in cluster-scoped kinds (API group, kind): their namespace is ignored.
CLUSTER_SCOPED: frozenset[tuple[str, str]] = frozenset({
    ("", "Namespace"), ("", "Node"), ("", "PersistentVolume"),
    ("rbac.authorization.k8s.io", "ClusterRole"), ("rbac.authorization.k8s.io", "ClusterRoleBinding"),
    ("apiextensions.k8s.io", "CustomResourceDefinition"), ("storage.k8s.io", "StorageClass"),
    ("scheduling.k8s.io", "PriorityClass"), ("resource.k8s.io", "DeviceClass"),
    ("admissionregistration.k8s.io", "ValidatingWebhookConfiguration"),
    ("admissionregistration.k8s.io", "MutatingWebhookConfiguration"),
    ("apiregistration.k8s.io", "APIService"),
})


def identity_of(obj: Any, default_namespace: str) -> Identity | None:
    """The identity the API server would store ``obj`` under, or None when it has no name.

    The API version is left out (``apps/v1`` and ``apps/v1beta1`` name one object), and an
    object without a namespace takes the default one unless its kind is cluster-scoped.
    """
    if not isinstance(obj, dict):
        return None
    meta = obj.get("metadata")
    name = meta.get("name") if isinstance(meta, dict) else None
    kind = obj.get("kind")
    if not isinstance(name, str) or not name or not isinstance(kind, str):
        return None
    api_version = obj.get("apiVersion")
    group = api_version.rpartition("/")[0] if isinstance(api_version, str) else ""
    if (group, kind) in CLUSTER_SCOPED:
        namespace = ""
    else:
        raw = meta.get("namespace") if isinstance(meta, dict) else None
        namespace = raw if isinstance(raw, str) and raw else default_namespace
    return (group, kind, namespace, name)


@dataclass(frozen=True)
class Origin:
    """The source an object came from: the source object and its file and document index."""

    source: ResourceRef
    file: str = ""
    index: int | None = None

    def label(self) -> str:
        """``DynamoComponentDeployment/ns/a``: the source object, without its place."""
        ref = self.source
        return f"{ref.kind or '<unknown kind>'}/{ref.namespace + '/' if ref.namespace else ''}{ref.name or '<unnamed>'}"

    def describe(self) -> str:
        """``DynamoComponentDeployment/a (deploy/a.yaml, doc 0)``, for messages (never ``file:N``, which reads as a line)."""
        where = self.label()
        if self.file:
            location = self.file if self.index is None else f"{self.file}, doc {self.index}"
            return f"{where} ({location})"
        if self.index is not None:
            return f"{where} (doc {self.index})"
        return where


@dataclass(frozen=True)
class _Claim:
    origin: Origin
    # sha256 of the canonical JSON of an output object; None for a source
    fingerprint: bytes | None
    rendered: bool = False


# Annotations the front ends write to mark what they rendered (plugin.ownership): bookkeeping, not
# content, so a hydrated copy of a rendered object is the same object as a fresh render of it.
BOOKKEEPING_PREFIX = "dynamo-render.dev/"


def fingerprint(obj: Any) -> bytes:
    """A digest of an object's content, independent of mapping key order and of the front ends' marker."""
    meta = obj.get("metadata") if isinstance(obj, dict) else None
    annotations = meta.get("annotations") if isinstance(meta, dict) else None
    if isinstance(meta, dict) and isinstance(annotations, dict) and any(str(k).startswith(BOOKKEEPING_PREFIX) for k in annotations):
        kept = {k: v for k, v in annotations.items() if not str(k).startswith(BOOKKEEPING_PREFIX)}
        bare = {k: v for k, v in meta.items() if k != "annotations"}
        obj = {**obj, "metadata": {**bare, "annotations": kept} if kept else bare}
    text = json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=repr)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()


def _describe_identity(identity: Identity) -> str:
    group, kind, namespace, name = identity
    return f"{kind}/{namespace + '/' if namespace else ''}{name}"


class Identities:
    """Every identity claimed so far in one output, and by which source."""

    def __init__(self, default_namespace: str) -> None:
        self.default_namespace = default_namespace
        self._claims: dict[Identity, _Claim] = {}

    def claim_source(self, obj: Any, origin: Origin) -> Result | None:
        """A DCD or DGD read as a source: a clash when another source already holds its identity."""
        identity = identity_of(obj, self.default_namespace)
        if identity is None:
            return None
        first = self._claims.get(identity)
        if first is None:
            self._claims[identity] = _Claim(origin, None)
            return None
        if first.origin == origin:
            return None
        return self._clash(identity, first.origin, origin, "is also defined by")

    def origin_of(self, obj: Any) -> Origin | None:
        """The source that claimed ``obj``'s identity first (the one whose object was emitted)."""
        identity = identity_of(obj, self.default_namespace)
        claim = self._claims.get(identity) if identity is not None else None
        return claim.origin if claim is not None else None

    def claim(self, obj: Any, origin: Origin, rendered: bool) -> tuple[bool, Result | None]:
        """Claim one output object: ``(emit it, clash error)``.

        An object identical to one already claimed (rendered by another source, or a second
        copy of a hand-written object) is merged: not emitted again, no error. Any other repeat
        is a clash. A source passed through as itself (``keepSources``) is its own claim.
        """
        identity = identity_of(obj, self.default_namespace)
        if identity is None:
            return True, None
        first = self._claims.get(identity)
        if first is None:
            self._claims[identity] = _Claim(origin, fingerprint(obj), rendered)
            return True, None
        if first.origin == origin and first.fingerprint is None and not rendered:
            return True, None
        if first.fingerprint is not None and fingerprint(obj) == first.fingerprint:
            return False, None
        verb = "is also rendered from" if rendered else "is also defined by"
        return False, self._clash(identity, first.origin, origin, verb)

    def merge(self, other: Identities) -> list[Result]:
        """Claim what another output claimed (a file rendered on its own), in its order: the clashes.

        The same rules as claiming each object here: an identical object merges, any other
        repeat is a clash naming both; a source that clashes claims nothing more.
        """
        results: list[Result] = []
        clashed: set[Origin] = set()
        for identity, claim in other._claims.items():
            if claim.origin in clashed:
                continue
            first = self._claims.get(identity)
            if first is None:
                self._claims[identity] = claim
                continue
            if first.origin == claim.origin or (claim.fingerprint is not None and claim.fingerprint == first.fingerprint):
                continue
            if claim.fingerprint is None:
                clashed.add(claim.origin)
            verb = "is also rendered from" if claim.rendered else "is also defined by"
            results.append(self._clash(identity, first.origin, claim.origin, verb))
        return results

    def _clash(self, identity: Identity, first: Origin, second: Origin, verb: str) -> Result:
        return Result(
            f"identity clash: {_describe_identity(identity)} from {first.describe()} {verb} {second.describe()}; "
            "the cluster can hold only one, so rename one of them",
            resource=second.source,
            field="metadata.name",
            file=second.file,
            index=second.index,
            code=Code.CLASH,
        )


__all__ = ["Identities", "Identity", "Origin", "fingerprint", "identity_of"]
