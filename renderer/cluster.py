"""Cluster facts the operator reads while rendering, as one explicit, immutable input.

The operator looks things up in the live cluster during a render. Offline, each of those reads
is a field here, filled from objects in the input bundle (and, later, a cluster-state file or
an opt-in live lookup). With nothing known, the defaults are those of a fresh cluster, as
``helm template`` assumes.

Mirrors: internal/secrets/docker.go DockerSecretIndexer, internal/common/url.go GetHost,
internal/controller/dynamocomponentdeployment_renderer.go (ServiceAccount fallback list).
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from renderer import consts
from renderer.results import ResourceRef, Result, Severity

DOCKER_CONFIG_JSON_TYPE = "kubernetes.io/dockerconfigjson"
DOCKER_CONFIG_JSON_KEY = ".dockerconfigjson"


@dataclass(frozen=True)
class ClusterState:
    """Facts about the target cluster; every lookup is a pure function of these fields."""

    # namespace -> names of ServiceAccounts labelled nvidia.com/dynamo-component-pod=true (sorted)
    component_service_accounts: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    # namespace -> registry host -> sorted, unique names of dockerconfigjson Secrets
    pull_secrets: Mapping[str, Mapping[str, tuple[str, ...]]] = field(default_factory=dict)

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


EMPTY = ClusterState()

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


def _secret_data(secret: dict[str, Any]) -> str | None:
    """The ``.dockerconfigjson`` payload of a Secret (``stringData`` wins, as the API server does)."""
    string_data = secret.get("stringData")
    if isinstance(string_data, dict) and isinstance(string_data.get(DOCKER_CONFIG_JSON_KEY), str):
        return string_data[DOCKER_CONFIG_JSON_KEY]
    data = secret.get("data")
    if isinstance(data, dict) and isinstance(data.get(DOCKER_CONFIG_JSON_KEY), str):
        try:
            return base64.b64decode(data[DOCKER_CONFIG_JSON_KEY], validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError):
            return None
    return None


def cluster_state_from_objects(objects: Iterable[dict[str, Any]], default_namespace: str) -> tuple[ClusterState, list[Result]]:
    """Index the cluster facts found among plain Kubernetes objects.

    Problems name the Secret but never include its data.
    Mirrors: internal/secrets/docker.go RefreshIndex.
    """
    service_accounts: dict[str, set[str]] = {}
    secrets: dict[str, dict[str, set[str]]] = {}
    results: list[Result] = []
    for obj in objects:
        if not isinstance(obj, dict) or obj.get("apiVersion") != "v1":
            continue
        meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
        name = meta.get("name")
        if not isinstance(name, str) or not name:
            continue
        namespace = meta.get("namespace") or default_namespace
        kind = obj.get("kind")
        if kind == "ServiceAccount":
            labels = meta.get("labels") if isinstance(meta.get("labels"), dict) else {}
            if labels.get(consts.LABEL_COMPONENT_POD) == consts.LABEL_VALUE_TRUE:
                service_accounts.setdefault(namespace, set()).add(name)
        elif kind == "Secret" and obj.get("type") == DOCKER_CONFIG_JSON_TYPE:
            payload = _secret_data(obj)
            auths: Any = None
            if payload is not None:
                try:
                    auths = json.loads(payload).get("auths")
                except (ValueError, AttributeError):
                    auths = None
            ref = ResourceRef("v1", "Secret", name, namespace)
            if not isinstance(auths, dict):
                results.append(
                    Result(
                        f"unable to read the auths of docker config json secret {namespace}/{name}; it is not indexed for image pull secrets",
                        severity=Severity.WARNING,
                        resource=ref,
                        field=f"data[{DOCKER_CONFIG_JSON_KEY}]",
                    )
                )
                continue
            for registry in auths:
                host = get_host(str(registry))
                if host is None:
                    results.append(
                        Result(
                            f"unable to get host for a registry of secret {namespace}/{name}; that entry is not indexed",
                            severity=Severity.WARNING,
                            resource=ref,
                        )
                    )
                    continue
                secrets.setdefault(namespace, {}).setdefault(host, set()).add(name)
    state = ClusterState(
        component_service_accounts={ns: tuple(sorted(names)) for ns, names in service_accounts.items()},
        pull_secrets={ns: {host: tuple(sorted(names)) for host, names in hosts.items()} for ns, hosts in secrets.items()},
    )
    return state, results
