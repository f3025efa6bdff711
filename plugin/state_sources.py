"""Where cluster facts come from besides the input bundle: a cluster-state file, a live cluster.

A cluster-state file is any YAML or JSON stream of Kubernetes objects (``kind: List`` documents
are flattened), for example ``kubectl get sa,secrets,deploy,svc,dynamocheckpoints -o yaml``,
plus optional discovery documents (``kubectl get --raw /apis``) for API availability. A
directory is read like an input directory.

The live lookup is opt-in and read-only: it only sends GET requests (discovery, then one LIST
per kind and namespace the renderer may read), through the ``kubernetes`` client with the
kubeconfig (or the in-cluster configuration). The client is imported when the lookup starts,
never at start-up. A kind the cluster does not serve is skipped; one the credentials may not
list is reported and left unknown; every kind listed is known in full for that namespace.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from renderer.records import dataclass
from typing import Any

from plugin.files import load_sources, read_sources
from renderer import consts
from renderer.cluster.state import (
    CLUSTER_SCOPED,
    DAEMON_SET,
    DOCKER_CONFIG_JSON_KEY,
    DOCKER_CONFIG_JSON_TYPE,
    SECRET,
    STATE_KINDS,
    Kind,
    StateLayer,
    api_versions_from_objects,
)
from renderer.results import Code, Result, Severity

LIVE_SOURCE = "live cluster"
REQUEST_TIMEOUT_SECONDS = 30

# Versions the operator reads each group at, best first (the first one the cluster serves is used).
_GROUP_VERSIONS: dict[str, tuple[str, ...]] = {
    "": ("v1",),
    "apps": ("v1",),
    "leaderworkerset.x-k8s.io": ("v1",),
    "resource.k8s.io": ("v1", "v1beta2", "v1beta1"),
    consts.DYNAMO_GROUP: ("v1alpha1",),
}
# Label selectors of the LISTs that the operator makes with one (the rest list everything).
_SELECTORS: dict[Kind, Mapping[str, str]] = {DAEMON_SET: {"app.kubernetes.io/component": "snapshot-agent"}}


def load_state_file(path: str, confine_to: str | None = None) -> tuple[StateLayer | None, list[Result]]:
    """Read a cluster-state file (or directory) into a layer; broken YAML is an error.

    With ``confine_to`` every file read must lie inside that folder (symlinks resolved).
    """
    sources, results = read_sources([path], confine_to)
    documents, problems = load_sources(sources)
    results.extend(problems)
    if any(r.is_error for r in results):
        return None, results
    objects: list[Any] = []
    for doc in documents:
        if not isinstance(doc.obj, dict):
            results.append(
                Result("expected a Kubernetes object; it is ignored", severity=Severity.WARNING, file=doc.file, index=doc.index, code=Code.INPUT)
            )
            continue
        objects.append(doc.obj)
    if not sources:
        results.append(Result("no YAML or JSON files found", file=path, code=Code.INPUT))
        return None, results
    layer = StateLayer(
        source=f"cluster-state file {path}",
        objects=tuple(objects),
        api_versions=api_versions_from_objects(objects),
    )
    return layer, results


def namespaces_of(objects: Iterable[Any], default_namespace: str) -> list[str]:
    """Namespaces of the Dynamo objects to render (where the operator would read)."""
    found: set[str] = set()
    for obj in objects:
        if not isinstance(obj, dict) or obj.get("kind") not in (consts.DCD_KIND, consts.DGD_KIND):
            continue
        meta = obj.get("metadata")
        namespace = meta.get("namespace") if isinstance(meta, dict) else None
        found.add(namespace if isinstance(namespace, str) and namespace else default_namespace)
    return sorted(found)


def _minimal_secret(secret: Mapping[str, Any]) -> dict[str, Any]:
    """A Secret as the state needs it: metadata and type, plus only the docker config of pull secrets."""
    out = {k: v for k, v in secret.items() if k not in ("data", "stringData")}
    data = secret.get("data")
    if secret.get("type") == DOCKER_CONFIG_JSON_TYPE and isinstance(data, dict) and DOCKER_CONFIG_JSON_KEY in data:
        out["data"] = {DOCKER_CONFIG_JSON_KEY: data[DOCKER_CONFIG_JSON_KEY]}
    return out


@dataclass
class LiveCluster:
    """A read-only view of a cluster through the ``kubernetes`` client (GET requests only)."""

    api_client: Any
    served: tuple[str, ...] = ()

    @classmethod
    def connect(cls, kubeconfig: str | None = None, context: str | None = None) -> tuple[LiveCluster | None, list[Result]]:
        """Load the kubeconfig (or, failing that, the in-cluster configuration)."""
        try:
            import kubernetes  # noqa: PLC0415 - the live lookup is opt-in; never import it at start-up
        except ImportError:
            return None, [Result("--live needs the kubernetes package (pip install 'dynamo-render[live]')", code=Code.INPUT)]
        configuration = kubernetes.client.Configuration()
        try:
            kubernetes.config.load_kube_config(  # type: ignore[no-untyped-call]
                config_file=kubeconfig, context=context, client_configuration=configuration
            )
        except Exception as kube_error:  # noqa: BLE001 - any loader failure: try the in-cluster config next
            if kubeconfig is not None or context is not None:
                return None, [Result(f"live lookup: cannot load the kubeconfig: {kube_error}", code=Code.INPUT)]
            try:
                kubernetes.config.load_incluster_config(client_configuration=configuration)  # type: ignore[no-untyped-call]
            except Exception as incluster_error:  # noqa: BLE001
                return None, [
                    Result(f"live lookup: no kubeconfig ({kube_error}) and no in-cluster configuration ({incluster_error})", code=Code.INPUT)
                ]
        return cls(kubernetes.client.ApiClient(configuration)), []

    def _get(self, path: str, query: list[tuple[str, str]] | None = None) -> Any:
        """One GET returning the decoded JSON body (non-2xx answers raise the client's ApiException)."""
        client = self.api_client
        headers = {"Accept": "application/json"}
        if hasattr(client, "param_serialize"):
            # Newer clients: serialise, send, then deserialise, as their generated API methods do;
            # older ones (no param_serialize) take everything in one call_api.
            method, url, header_params, body, post_params = client.param_serialize(
                "GET", path, query_params=query or [], header_params=headers, auth_settings=["BearerToken"]
            )
            response = client.call_api(
                method, url, header_params=header_params, body=body, post_params=post_params,
                _request_timeout=REQUEST_TIMEOUT_SECONDS,
            )
            response.read()
            return client.response_deserialize(response_data=response, response_types_map={"200": "object"}).data
        return client.call_api(
            path,
            "GET",
            query_params=query or [],
            header_params=headers,
            auth_settings=["BearerToken"],
            response_type="object",
            _return_http_data_only=True,
            _preload_content=True,
            _request_timeout=REQUEST_TIMEOUT_SECONDS,
        )

    def discover(self) -> tuple[tuple[str, ...] | None, list[Result]]:
        """Served ``group/version`` entries, plus ``nvidia.com/v1alpha1/<Kind>`` for the Dynamo group."""
        try:
            versions: list[str] = []
            core = self._get("/api")
            versions.extend(v for v in (core or {}).get("versions") or [] if isinstance(v, str))
            groups = self._get("/apis")
            api_versions = api_versions_from_objects([{**(groups or {}), "kind": "APIGroupList"}]) or ()
            versions.extend(api_versions)
            dynamo = f"{consts.DYNAMO_GROUP}/v1alpha1"
            if dynamo in versions:
                resources = self._get(f"/apis/{dynamo}")
                versions.extend(api_versions_from_objects([{**(resources or {}), "kind": "APIResourceList"}]) or ())
        except Exception as err:  # noqa: BLE001 - client, HTTP and connection errors alike
            return None, [Result(f"live lookup: API discovery failed: {_describe(err)}", code=Code.INPUT)]
        self.served = tuple(dict.fromkeys(versions))
        return self.served, []

    def _group_version(self, group: str) -> str | None:
        for version in _GROUP_VERSIONS.get(group, ()):
            group_version = f"{group}/{version}" if group else version
            if group_version in self.served:
                return group_version
        return None

    def state_layer(self, namespaces: Iterable[str]) -> tuple[StateLayer, list[Result]]:
        """LIST every kind the renderer may read, in each namespace (cluster-scoped kinds once)."""
        objects: list[Any] = []
        complete: set[tuple[Kind, str]] = set()
        results: list[Result] = []
        scopes = [""] + sorted(set(namespaces))
        for kind, resource in STATE_KINDS.items():
            group_version = self._group_version(kind[0])
            if group_version is None:
                continue
            prefix = "/api/v1" if not kind[0] else f"/apis/{group_version}"
            for namespace in scopes:
                if (namespace == "") != (kind in CLUSTER_SCOPED):
                    continue
                path = f"{prefix}/{resource}" if not namespace else f"{prefix}/namespaces/{namespace}/{resource}"
                selector = _SELECTORS.get(kind)
                query = [("labelSelector", ",".join(f"{k}={v}" for k, v in selector.items()))] if selector else []
                try:
                    listed = self._get(path, query)
                except Exception as err:  # noqa: BLE001
                    status = getattr(err, "status", None)
                    if status == 404:
                        continue
                    where = f" in namespace {namespace}" if namespace else ""
                    severity = Severity.WARNING if status == 403 else Severity.ERROR
                    results.append(Result(f"live lookup: cannot list {resource}{where}: {_describe(err)}", severity=severity, code=Code.INPUT))
                    continue
                for item in (listed or {}).get("items") or []:
                    if not isinstance(item, dict):
                        continue
                    item = {**item, "apiVersion": group_version, "kind": kind[1]}
                    objects.append(_minimal_secret(item) if kind == SECRET else item)
                complete.add((kind, namespace))
        layer = StateLayer(LIVE_SOURCE, tuple(objects), api_versions=self.served or None, complete=frozenset(complete))
        return layer, results


def _describe(err: Exception) -> str:
    """A one-line reason for a client error (HTTP status and reason when there is one)."""
    status = getattr(err, "status", None)
    reason = getattr(err, "reason", None)
    if status is not None:
        return f"{status} {reason or ''}".strip().lower()
    return str(err).splitlines()[0] if str(err) else type(err).__name__

