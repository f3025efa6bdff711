"""Cluster facts the operator reads while rendering, as one explicit, immutable input.

The operator looks things up in the live cluster during a render. Offline, each of those reads
is a lookup here, answered from objects gathered in layers, in this order of precedence:

1. objects in the input bundle (what Git will apply wins);
2. a cluster-state file (for example ``kubectl get ... -o yaml``);
3. an opt-in, read-only live lookup.

An object found in several layers is taken whole from the first one, except its ``status``:
Git never carries status, so it comes from the first layer whose copy has one. Lists (labelled
ServiceAccounts, dockerconfigjson Secrets, DynamoCheckpoints, ...) are the union of the layers
after that per-object choice. API versions come from the first layer that knows them.

With nothing known, the defaults are those of a fresh cluster, as ``helm template`` assumes:
no labelled ServiceAccount, no pull secret, no existing workload, no checkpoint. A layer may
say it listed a kind in a namespace in full (the live lookup does); only then does a missing
object count as known to be absent.

Mirrors: internal/secrets/docker.go DockerSecretIndexer, internal/common/url.go GetHost,
internal/controller/dynamocomponentdeployment_renderer.go (ServiceAccount fallback list,
hasExistingLegacyWorkerSelector reads).
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from renderer.records import dataclass, field
from typing import Any

from renderer import consts
from renderer.results import Code, ResourceRef, Result, Severity

DOCKER_CONFIG_JSON_TYPE = "kubernetes.io/dockerconfigjson"
DOCKER_CONFIG_JSON_KEY = ".dockerconfigjson"

# (API group, kind): the kinds the operator reads while rendering, or that rendered pods reference.
Kind = tuple[str, str]
SERVICE_ACCOUNT: Kind = ("", "ServiceAccount")
SECRET: Kind = ("", "Secret")
CONFIG_MAP: Kind = ("", "ConfigMap")
PERSISTENT_VOLUME_CLAIM: Kind = ("", "PersistentVolumeClaim")
SERVICE: Kind = ("", "Service")
DEPLOYMENT: Kind = ("apps", "Deployment")
DAEMON_SET: Kind = ("apps", "DaemonSet")
LEADER_WORKER_SET: Kind = ("leaderworkerset.x-k8s.io", "LeaderWorkerSet")
RESOURCE_CLAIM_TEMPLATE: Kind = ("resource.k8s.io", "ResourceClaimTemplate")
RESOURCE_CLAIM: Kind = ("resource.k8s.io", "ResourceClaim")
DEVICE_CLASS: Kind = ("resource.k8s.io", "DeviceClass")
DYNAMO_CHECKPOINT: Kind = (consts.DYNAMO_GROUP, "DynamoCheckpoint")

# Every kind the state keeps, with its API resource (plural) name, as in NotFound messages.
STATE_KINDS: dict[Kind, str] = {
    SERVICE_ACCOUNT: "serviceaccounts",
    SECRET: "secrets",
    CONFIG_MAP: "configmaps",
    PERSISTENT_VOLUME_CLAIM: "persistentvolumeclaims",
    SERVICE: "services",
    DEPLOYMENT: "deployments",
    DAEMON_SET: "daemonsets",
    LEADER_WORKER_SET: "leaderworkersets",
    RESOURCE_CLAIM_TEMPLATE: "resourceclaimtemplates",
    RESOURCE_CLAIM: "resourceclaims",
    DEVICE_CLASS: "deviceclasses",
    DYNAMO_CHECKPOINT: "dynamocheckpoints",
}
CLUSTER_SCOPED: frozenset[Kind] = frozenset({DEVICE_CLASS})

# Discovery documents a cluster-state file may carry (``kubectl get --raw /apis`` and friends).
_DISCOVERY_KINDS = frozenset({"APIGroupList", "APIResourceList", "APIVersions"})
_CRD = ("apiextensions.k8s.io", "CustomResourceDefinition")

ObjectKey = tuple[str, str, str, str]  # (group, kind, namespace, name)


def kind_of(obj: Mapping[str, Any]) -> Kind:
    """(API group, kind) of an object: ``apps/v1`` is group ``apps``, ``v1`` the core group."""
    api_version = obj.get("apiVersion")
    kind = obj.get("kind")
    group = api_version.rpartition("/")[0] if isinstance(api_version, str) else ""
    return group, kind if isinstance(kind, str) else ""


def describe(kind: Kind) -> str:
    """``Secret``, ``LeaderWorkerSet`` ...: the kind as users write it in messages."""
    return kind[1]


def not_found_message(kind: Kind, name: str) -> str:
    """The API server's NotFound text: ``resourceclaimtemplates.resource.k8s.io "x" not found``.

    Mirrors: k8s.io/apimachinery pkg/api/errors NewNotFound.
    """
    resource = STATE_KINDS.get(kind, kind[1].lower() + "s")
    qualified = f"{resource}.{kind[0]}" if kind[0] else resource
    return f'{qualified} "{name}" not found'


# The kinds a rendered pod references by name (renderer.objects.integrity), by the kind users write.
REFERENCED_KINDS: dict[str, Kind] = {
    kind[1]: kind
    for kind in (SECRET, CONFIG_MAP, PERSISTENT_VOLUME_CLAIM, SERVICE_ACCOUNT, RESOURCE_CLAIM_TEMPLATE, RESOURCE_CLAIM)
}


@dataclass(frozen=True)
class Existing:
    """Objects declared to exist in the cluster on purpose (kept out of Git): a kind and name globs.

    ``*`` matches any run of characters and ``?`` one; ``namespace`` ``None`` means every namespace.
    """

    kind: Kind
    name: str
    namespace: str | None = None

    def matches(self, kind: Kind, namespace: str, name: str) -> bool:
        return kind == self.kind and _glob(self.name, name) and (self.namespace is None or _glob(self.namespace, namespace))


def _glob(pattern: str, text: str) -> bool:
    """Shell-style ``*`` and ``?`` matching of the whole text (every other character is literal)."""
    regex = "".join(".*" if ch == "*" else "." if ch == "?" else re.escape(ch) for ch in pattern)
    return re.fullmatch(regex, text, re.DOTALL) is not None


@dataclass(frozen=True)
class StateLayer:
    """One source of cluster facts: plain Kubernetes objects and what the source knows in full.

    ``complete`` names the (kind, namespace) pairs the source listed entirely (cluster-scoped
    kinds use the namespace ``""``); ``api_versions`` are ``group/version[/Kind]`` entries when
    the source knows them (discovery documents among ``objects`` are read as well).
    """

    source: str
    objects: tuple[Any, ...] = ()
    api_versions: tuple[str, ...] | None = None
    complete: frozenset[tuple[Kind, str]] = frozenset()
    # Objects the settings declare to exist in the cluster (no object, only their kind and name).
    existing: tuple[Existing, ...] = ()

    @property
    def declares_only(self) -> bool:
        """A layer that only declares existing objects: it lends no facts about the cluster's contents."""
        return bool(self.existing) and not self.objects and self.api_versions is None and not self.complete


@dataclass(frozen=True)
class ClusterState:
    """Facts about the target cluster; every lookup is a pure function of these fields."""

    # namespace -> names of ServiceAccounts labelled nvidia.com/dynamo-component-pod=true (sorted)
    component_service_accounts: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    # namespace -> registry host -> sorted, unique names of dockerconfigjson Secrets
    pull_secrets: Mapping[str, Mapping[str, tuple[str, ...]]] = field(default_factory=dict)
    # (group, kind, namespace, name) -> the object (Secrets without their data)
    objects: Mapping[ObjectKey, Mapping[str, Any]] = field(default_factory=dict)
    # (group, kind, namespace, name) -> the source the object was taken from
    origins: Mapping[ObjectKey, str] = field(default_factory=dict)
    # (kind, namespace) pairs some source listed in full: a missing object there is absent
    complete: frozenset[tuple[Kind, str]] = frozenset()
    # group/version[/Kind] entries served by the cluster, when a source knew them
    api_versions: tuple[str, ...] | None = None
    # the sources that contributed, in precedence order
    sources: tuple[str, ...] = ()
    # objects declared to exist in the cluster on purpose (settings existingObjects)
    existing: tuple[Existing, ...] = ()

    def component_service_account(self, namespace: str) -> tuple[str, bool]:
        """The first labelled ServiceAccount by name, and whether one was found.

        The operator takes the first item of an unordered cache list; we sort by name so the
        choice is stable when several match.
        """
        names = self.component_service_accounts.get(namespace) or ()
        if names:
            return names[0], True
        return "", False

    def image_pull_secrets(self, namespace: str, image: str) -> tuple[str, ...]:
        """Secrets indexed under the image's registry host (none when the host cannot be parsed).

        Mirrors: internal/secrets/docker.go DockerSecretIndexer.GetSecrets.
        """
        host = get_host(image)
        if host is None:
            return ()
        return tuple(self.pull_secrets.get(namespace, {}).get(host, ()))

    def get(self, kind: Kind, namespace: str, name: str) -> tuple[Mapping[str, Any], bool]:
        """The object and whether it was found (the operator's client Get)."""
        obj = self.objects.get((kind[0], kind[1], "" if kind in CLUSTER_SCOPED else namespace, name))
        if obj is None:
            return {}, False
        return obj, True

    def list_objects(self, kind: Kind, namespace: str, labels: Mapping[str, str] | None = None) -> list[Mapping[str, Any]]:
        """Objects of a kind in a namespace matching every given label, sorted by name.

        The operator lists from an informer cache in no particular order; sorting keeps a
        render deterministic.
        """
        scope = "" if kind in CLUSTER_SCOPED else namespace
        found = [
            obj
            for (group, kind_name, ns, _), obj in sorted(self.objects.items())
            if (group, kind_name) == kind and ns == scope and _labels_match(obj, labels or {})
        ]
        return found

    def is_declared(self, kind: Kind, namespace: str, name: str) -> bool:
        """Whether the settings declare this object to exist in the cluster on purpose."""
        return any(existing.matches(kind, namespace, name) for existing in self.existing)

    def is_complete(self, kind: Kind, namespace: str) -> bool:
        """Whether a source listed this kind in this namespace in full (absence is then known)."""
        return (kind, "" if kind in CLUSTER_SCOPED else namespace) in self.complete

    def origin(self, kind: Kind, namespace: str, name: str) -> str:
        return self.origins.get((kind[0], kind[1], "" if kind in CLUSTER_SCOPED else namespace, name), "")

    def workload_selector_labels(
        self, namespace: str, deployment: str, leader_worker_set: str | None, service: str
    ) -> list[tuple[str, dict[str, str]]]:
        """Pod labels of existing workloads, and a Service selector, in the operator's read order.

        Each entry is (description, labels): the Deployment's template labels; when
        ``leader_worker_set`` is given (the LWS gate is on), the LeaderWorkerSet's leader then
        worker template labels; then the Service's selector. Objects not found are skipped,
        as the operator skips NotFound.
        Mirrors: internal/controller/dynamocomponentdeployment_renderer.go hasExistingLegacyWorkerSelector.
        """
        out: list[tuple[str, dict[str, str]]] = []
        obj, found = self.get(DEPLOYMENT, namespace, deployment)
        if found:
            out.append((f"Deployment/{deployment}", _string_map(_dig(obj, "spec", "template", "metadata", "labels"))))
        if leader_worker_set is not None:
            obj, found = self.get(LEADER_WORKER_SET, namespace, leader_worker_set)
            if found:
                template = _dig(obj, "spec", "leaderWorkerTemplate")
                leader = template.get("leaderTemplate")
                if isinstance(leader, dict):
                    out.append((f"LeaderWorkerSet/{leader_worker_set}", _string_map(_dig(leader, "metadata", "labels"))))
                out.append(
                    (
                        f"LeaderWorkerSet/{leader_worker_set}",
                        _string_map(_dig(template, "workerTemplate", "metadata", "labels")),
                    )
                )
        obj, found = self.get(SERVICE, namespace, service)
        if found:
            out.append((f"Service/{service}", _string_map(_dig(obj, "spec", "selector"))))
        return out


EMPTY = ClusterState()


def _dig(obj: Any, *keys: str) -> dict[str, Any]:
    """The mapping at ``keys`` below ``obj``, or an empty one when any step is missing."""
    current = obj
    for key in keys:
        current = current.get(key) if isinstance(current, Mapping) else None
    return dict(current) if isinstance(current, Mapping) else {}


def _string_map(value: Mapping[str, Any]) -> dict[str, str]:
    return {str(k): v for k, v in value.items() if isinstance(v, str)}


def _labels_match(obj: Mapping[str, Any], labels: Mapping[str, str]) -> bool:
    have = _dig(obj, "metadata", "labels")
    return all(have.get(key) == value for key, value in labels.items())


_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*$")
_HOST_OK = re.compile(r"^[A-Za-z0-9\-._~!$&'()*+,;=:\[\]<>\"%]*$")
_USERINFO_OK = re.compile(r"^[A-Za-z0-9\-._~!$&'()*+,;=:%@]*$")


def get_host(value: str) -> str | None:
    """The URL host (port included) of an image reference or registry key, or None on error.

    Go's url.Parse rules that matter here: a missing scheme is replaced by ``dummy://``; the
    authority ends at the first ``/``; userinfo ends at the last ``@``; the text after the
    last ``:`` outside brackets must be a decimal port or empty, so ``ubuntu:22.04`` (no
    registry part) has no host.
    Mirrors: internal/common/url.go GetHost (net/url Parse).
    """
    if any(ord(ch) < 0x20 or ord(ch) == 0x7F for ch in value):
        return None
    if "://" not in value:
        value = "dummy://" + value
    value = value.split("#", 1)[0]
    scheme, _, rest = value.partition(":")
    if not _SCHEME.match(scheme):
        return None
    rest = rest.split("?", 1)[0]
    if not rest.startswith("//"):
        return None
    authority = rest[2:].split("/", 1)[0]
    userinfo, at, host = authority.rpartition("@")
    if at and not _USERINFO_OK.match(userinfo):
        return None
    if host.startswith("["):
        close = host.find("]")
        if close < 0:
            return None
        port = host[close + 1 :]
        if port and not (port.startswith(":") and (port == ":" or (port[1:].isascii() and port[1:].isdigit()))):
            return None
    else:
        colon = host.rfind(":")
        if colon >= 0:
            port = host[colon + 1 :]
            if port and not (port.isascii() and port.isdigit()):
                return None
    if not _HOST_OK.match(host) or "%" in host and not _valid_escapes(host):
        return None
    if not host:
        return None
    return host


def _valid_escapes(text: str) -> bool:
    return all(
        len(part) >= 2 and all(c in "0123456789abcdefABCDEF" for c in part[:2]) for part in text.split("%")[1:]
    )


def _secret_data(secret: Mapping[str, Any]) -> str | None:
    """The ``.dockerconfigjson`` payload of a Secret (``stringData`` wins, as the API server does)."""
    string_data = secret.get("stringData")
    if isinstance(string_data, dict) and isinstance(string_data.get(DOCKER_CONFIG_JSON_KEY), str):
        return str(string_data[DOCKER_CONFIG_JSON_KEY])
    data = secret.get("data")
    if isinstance(data, dict) and isinstance(data.get(DOCKER_CONFIG_JSON_KEY), str):
        try:
            return base64.b64decode(data[DOCKER_CONFIG_JSON_KEY], validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError):
            return None
    return None


def _registry_hosts(secret: Mapping[str, Any], ref: ResourceRef) -> tuple[list[str], list[Result]]:
    """Registry hosts a dockerconfigjson Secret is indexed under, and problems naming it.

    Problems name the Secret but never include its data.
    Mirrors: internal/secrets/docker.go RefreshIndex.
    """
    payload = _secret_data(secret)
    auths: Any = None
    if payload is not None:
        try:
            auths = json.loads(payload).get("auths")
        except (ValueError, AttributeError, RecursionError):
            auths = None
    if not isinstance(auths, dict):
        return [], [
            Result(
                f"unable to read the auths of docker config json secret {ref.namespace}/{ref.name}; "
                "it is not indexed for image pull secrets",
                severity=Severity.WARNING,
                resource=ref,
                field=f"data[{DOCKER_CONFIG_JSON_KEY}]",
                code=Code.INPUT,
            )
        ]
    hosts: list[str] = []
    results: list[Result] = []
    for registry in auths:
        host = get_host(str(registry))
        if host is None:
            results.append(
                Result(
                    f"unable to get host for a registry of secret {ref.namespace}/{ref.name}; that entry is not indexed",
                    severity=Severity.WARNING,
                    resource=ref,
                    code=Code.INPUT,
                )
            )
            continue
        hosts.append(host)
    return hosts, results


def api_versions_from_objects(objects: Iterable[Any]) -> tuple[str, ...] | None:
    """``group/version[/Kind]`` entries from discovery documents and CRDs, or None if there are none.

    Accepted: ``APIGroupList`` (``kubectl get --raw /apis``), ``APIResourceList``
    (``kubectl get --raw /apis/<group>/<version>``), ``APIVersions`` (``/api``) and
    CustomResourceDefinitions (their served versions and kind).
    """
    found: list[str] = []
    seen = False
    for obj in objects:
        if not isinstance(obj, dict):
            continue
        kind = obj.get("kind")
        if kind == "APIGroupList":
            seen = True
            for group in obj.get("groups") or []:
                for version in (group.get("versions") if isinstance(group, dict) else None) or []:
                    if isinstance(version, dict) and isinstance(version.get("groupVersion"), str):
                        found.append(version["groupVersion"])
        elif kind == "APIResourceList" and isinstance(obj.get("groupVersion"), str):
            seen = True
            found.append(obj["groupVersion"])
            for resource in obj.get("resources") or []:
                if isinstance(resource, dict) and "/" not in str(resource.get("name", "")) and resource.get("kind"):
                    found.append(f"{obj['groupVersion']}/{resource['kind']}")
        elif kind == "APIVersions":
            seen = True
            found.extend(v for v in obj.get("versions") or [] if isinstance(v, str))
        elif kind_of(obj) == _CRD:
            seen = True
            spec = _dig(obj, "spec")
            group = spec.get("group")
            crd_kind = _dig(spec, "names").get("kind")
            for version in spec.get("versions") or []:
                if isinstance(version, dict) and version.get("served", True) and isinstance(group, str):
                    found.append(f"{group}/{version.get('name')}")
                    if isinstance(crd_kind, str):
                        found.append(f"{group}/{version.get('name')}/{crd_kind}")
    if not seen:
        return None
    return tuple(dict.fromkeys(found))


def _without_secret_data(secret: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in secret.items() if k not in ("data", "stringData")}


def build_cluster_state(layers: Sequence[StateLayer], default_namespace: str) -> tuple[ClusterState, list[Result]]:
    """Merge layers (highest precedence first) into one ClusterState.

    Objects of kinds the renderer never reads are ignored; objects without a kind or a name
    are ignored in the bundle (they are reported elsewhere) and warned about in other sources.
    """
    objects: dict[ObjectKey, Mapping[str, Any]] = {}
    origins: dict[ObjectKey, str] = {}
    secret_hosts: dict[ObjectKey, list[str]] = {}
    complete: set[tuple[Kind, str]] = set()
    api_versions: tuple[str, ...] | None = None
    results: list[Result] = []
    for position, layer in enumerate(layers):
        complete.update(layer.complete)
        versions = layer.api_versions if layer.api_versions is not None else api_versions_from_objects(layer.objects)
        if api_versions is None and versions is not None:
            api_versions = versions
        for obj in layer.objects:
            if not isinstance(obj, dict):
                continue
            kind = kind_of(obj)
            if kind not in STATE_KINDS:
                continue
            meta = _dig(obj, "metadata")
            name = meta.get("name")
            if not isinstance(name, str) or not name:
                if position > 0:
                    results.append(
                        Result(
                            f"{describe(kind)} without metadata.name in {layer.source}; it is ignored",
                            severity=Severity.WARNING,
                            code=Code.INPUT,
                        )
                    )
                continue
            namespace = "" if kind in CLUSTER_SCOPED else (meta.get("namespace") or default_namespace)
            key = (kind[0], kind[1], str(namespace), name)
            existing = objects.get(key)
            if existing is not None:
                # Status comes from the first source that has one (Git never carries it).
                if "status" not in existing and isinstance(obj.get("status"), dict):
                    objects[key] = {**existing, "status": obj["status"]}
                continue
            if kind == SECRET:
                if obj.get("type") == DOCKER_CONFIG_JSON_TYPE:
                    hosts, problems = _registry_hosts(obj, ResourceRef("v1", "Secret", name, str(namespace)))
                    secret_hosts[key] = hosts
                    results.extend(problems)
                obj = _without_secret_data(obj)
            objects[key] = obj
            origins[key] = layer.source

    service_accounts: dict[str, list[str]] = {}
    secrets: dict[str, dict[str, set[str]]] = {}
    for key, obj in sorted(objects.items()):
        group, kind_name, namespace, name = key
        if (group, kind_name) == SERVICE_ACCOUNT and _labels_match(obj, {consts.LABEL_COMPONENT_POD: consts.LABEL_VALUE_TRUE}):
            service_accounts.setdefault(namespace, []).append(name)
        for host in secret_hosts.get(key, ()):
            secrets.setdefault(namespace, {}).setdefault(host, set()).add(name)
    state = ClusterState(
        component_service_accounts={ns: tuple(names) for ns, names in service_accounts.items()},
        pull_secrets={ns: {host: tuple(sorted(names)) for host, names in hosts.items()} for ns, hosts in secrets.items()},
        objects=objects,
        origins=origins,
        complete=frozenset(complete),
        api_versions=api_versions,
        sources=tuple(layer.source for layer in layers if not layer.declares_only),
        existing=tuple(existing for layer in layers for existing in layer.existing),
    )
    return state, results


BUNDLE_SOURCE = "input bundle"
