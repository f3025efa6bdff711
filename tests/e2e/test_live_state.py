"""``render --live`` against a local fake Kubernetes API server, through the real ``kubernetes`` client.

The fake server answers only the discovery and LIST URLs a read-only lookup needs, records
every request, and refuses any other method; the client is configured by a generated
kubeconfig, so a wrong URL, verb or header shows up as a failure here.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
import yaml

from tests.golden_match import match_stream

pytest.importorskip("kubernetes")

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "cluster"
TOKEN = "test-token"

PLURALS = {
    "ServiceAccount": ("/api/v1", "serviceaccounts"),
    "Secret": ("/api/v1", "secrets"),
    "ConfigMap": ("/api/v1", "configmaps"),
    "PersistentVolumeClaim": ("/api/v1", "persistentvolumeclaims"),
    "Service": ("/api/v1", "services"),
    "Deployment": ("/apis/apps/v1", "deployments"),
    "DaemonSet": ("/apis/apps/v1", "daemonsets"),
    "LeaderWorkerSet": ("/apis/leaderworkerset.x-k8s.io/v1", "leaderworkersets"),
    "ResourceClaimTemplate": ("/apis/resource.k8s.io/v1", "resourceclaimtemplates"),
    "ResourceClaim": ("/apis/resource.k8s.io/v1", "resourceclaims"),
    "DynamoCheckpoint": ("/apis/nvidia.com/v1alpha1", "dynamocheckpoints"),
}
GROUPS = ["apps/v1", "leaderworkerset.x-k8s.io/v1", "scheduling.volcano.sh/v1beta1", "resource.k8s.io/v1", "nvidia.com/v1alpha1"]


@dataclass
class FakeCluster:
    """What the fake API server serves, and what it was asked."""

    objects: list[dict[str, Any]] = field(default_factory=list)
    forbidden: set[str] = field(default_factory=set)  # resource plurals answered with 403
    requests: list[tuple[str, str, str]] = field(default_factory=list)  # (method, path, Authorization)

    def answer(self, path: str, query: dict[str, list[str]]) -> tuple[int, Any]:
        if path == "/api":
            return 200, {"kind": "APIVersions", "versions": ["v1"]}
        if path == "/apis":
            groups = [{"name": gv.split("/")[0], "versions": [{"groupVersion": gv, "version": gv.split("/")[1]}]} for gv in GROUPS]
            return 200, {"kind": "APIGroupList", "apiVersion": "v1", "groups": groups}
        if path == "/apis/nvidia.com/v1alpha1":
            resources = [
                {"name": "dynamocheckpoints", "namespaced": True, "kind": "DynamoCheckpoint", "verbs": ["get", "list"]},
                {"name": "podsnapshots", "namespaced": True, "kind": "PodSnapshot", "verbs": ["get", "list"]},
                {"name": "podsnapshots/status", "namespaced": True, "kind": "PodSnapshot", "verbs": ["get"]},
            ]
            return 200, {"kind": "APIResourceList", "groupVersion": "nvidia.com/v1alpha1", "resources": resources}
        for kind, (prefix, plural) in PLURALS.items():
            if not path.startswith(prefix + "/namespaces/") or not path.endswith("/" + plural):
                continue
            namespace = path[len(prefix + "/namespaces/") : -len("/" + plural)]
            if plural in self.forbidden:
                return 403, _status(403, "Forbidden", f'{plural} is forbidden: User "test" cannot list resource "{plural}"')
            selector = dict(s.split("=", 1) for s in ",".join(query.get("labelSelector", [])).split(",") if s)
            items = [
                _without_type_meta(o)
                for o in self.objects
                if o["kind"] == kind
                and o["metadata"].get("namespace") == namespace
                and all((o["metadata"].get("labels") or {}).get(k) == v for k, v in selector.items())
            ]
            return 200, {"kind": f"{kind}List", "apiVersion": prefix.rsplit("/", 1)[-1], "metadata": {}, "items": items}
        if path == "/apis/resource.k8s.io/v1/deviceclasses":
            return 200, {"kind": "DeviceClassList", "items": [_without_type_meta(o) for o in self.objects if o["kind"] == "DeviceClass"]}
        return 404, _status(404, "NotFound", "the server could not find the requested resource")


def _status(code: int, reason: str, message: str) -> dict[str, Any]:
    return {"kind": "Status", "apiVersion": "v1", "status": "Failure", "message": message, "reason": reason, "code": code}


def _without_type_meta(obj: dict[str, Any]) -> dict[str, Any]:
    """List items as the API server sends them: without apiVersion and kind."""
    return {k: v for k, v in obj.items() if k not in ("apiVersion", "kind")}


@pytest.fixture
def cluster() -> Iterator[tuple[FakeCluster, str]]:
    fake = FakeCluster()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def _refuse(self) -> None:
            fake.requests.append((self.command, self.path, self.headers.get("Authorization", "")))
            self.send_response(405)
            self.end_headers()

        do_POST = do_PUT = do_PATCH = do_DELETE = _refuse

        def do_GET(self) -> None:
            fake.requests.append(("GET", self.path, self.headers.get("Authorization", "")))
            url = urlsplit(self.path)
            code, body = fake.answer(url.path, parse_qs(url.query))
            data = json.dumps(body).encode()
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield fake, f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def kubeconfig(tmp_path: Path, server: str) -> Path:
    path = tmp_path / "kubeconfig"
    path.write_text(
        yaml.safe_dump(
            {
                "apiVersion": "v1",
                "kind": "Config",
                "clusters": [{"name": "fake", "cluster": {"server": server}}],
                "users": [{"name": "test", "user": {"token": TOKEN}}],
                "contexts": [{"name": "fake", "context": {"cluster": "fake", "user": "test"}}],
                "current-context": "fake",
            }
        )
    )
    return path


def render(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "plugin", "render", *args], cwd=cwd, capture_output=True, text=True, check=False, timeout=120
    )


def load(path: Path) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all(path.read_text()) if d]


def flatten(objects: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for obj in objects:
        out.extend(obj["items"] if obj.get("kind") == "List" else [obj])
    return out


@pytest.mark.parametrize("case", ["legacy-selector-existing-deployment", "legacy-selector-existing-lws", "dra-data-parallel-claim-from-file"])
def test_live_lookup_renders_what_the_cluster_state_file_gives(cluster: tuple[FakeCluster, str], tmp_path: Path, case: str) -> None:
    """The golden case's cluster.yaml served by the API server instead of read from a file: same output."""
    fake, server = cluster
    directory = GOLDEN / case
    fake.objects = [{**o, "metadata": {"namespace": "default", **o["metadata"]}} if o["kind"] != "DeviceClass" else o for o in flatten(load(directory / "cluster.yaml"))]
    done = render("--live", "--kubeconfig", str(kubeconfig(tmp_path, server)), "--no-companions", str(directory / "input.yaml"), cwd=Path.cwd())
    assert done.returncode == 0, done.stderr
    problems = match_stream(load(directory / "output.yaml"), [d for d in yaml.safe_load_all(done.stdout) if d], partial=True)
    assert not problems, problems

    # Read-only and authenticated: GET only, the kubeconfig's token on every request.
    assert {method for method, _, _ in fake.requests} == {"GET"}
    assert {auth for _, _, auth in fake.requests} == {f"Bearer {TOKEN}"}
    urls = [urlsplit(path) for _, path, _ in fake.requests]
    paths = [url.path for url in urls]
    assert paths[:3] == ["/api", "/apis", "/apis/nvidia.com/v1alpha1"]
    assert "/apis/apps/v1/namespaces/default/deployments" in paths
    assert "/apis/leaderworkerset.x-k8s.io/v1/namespaces/default/leaderworkersets" in paths
    assert "/apis/resource.k8s.io/v1/deviceclasses" in paths
    # The snapshot-agent DaemonSets are listed by the operator's label selector; everything else unfiltered.
    queries = {url.path: parse_qs(url.query) for url in urls if url.query}
    assert queries == {"/apis/apps/v1/namespaces/default/daemonsets": {"labelSelector": ["app.kubernetes.io/component=snapshot-agent"]}}
    # Only the namespaces of the objects rendered.
    assert not [p for p in paths if "/namespaces/" in p and "/namespaces/default/" not in p]


CHECKPOINTED = """\
apiVersion: nvidia.com/v1beta1
kind: DynamoComponentDeployment
metadata:
  name: worker
  namespace: llm
spec:
  backendFramework: vllm
  type: worker
  compilationCache:
    pvcName: vllm-cache
  experimental:
    checkpoint:
      enabled: true
      checkpointRef: {ref}
  podTemplate:
    spec:
      containers:
        - name: main
          image: test-image:latest
          command: [python3, -m, dynamo.vllm]
"""
OPERATOR_CONFIG = """\
apiVersion: operator.config.dynamo.nvidia.com/v1alpha1
kind: OperatorConfiguration
mpi: {sshSecretName: mpi-run-ssh-secret, sshSecretNamespace: dynamo-system}
rbac: {plannerClusterRoleName: planner, dgdrProfilingClusterRoleName: dgdr-profiling, eppClusterRoleName: epp}
checkpoint: {enabled: true}
"""


def test_live_lookup_knows_what_is_missing(cluster: tuple[FakeCluster, str], tmp_path: Path) -> None:
    """Every kind listed in full: a missing checkpoint fails as in the operator, a missing PVC is not found."""
    _, server = cluster
    (tmp_path / "dcd.yaml").write_text(CHECKPOINTED.format(ref="gone"))
    (tmp_path / "operator.yaml").write_text(OPERATOR_CONFIG)
    config = kubeconfig(tmp_path, server)
    done = render("--live", "--kubeconfig", str(config), "--operator-config", "operator.yaml", "dcd.yaml", cwd=tmp_path)
    assert done.returncode == 1 and done.stdout == ""
    # The PodSnapshot API is served, so the checkpoint gate is on (features.New, auto-detection).
    assert (
        "[error] DynamoComponentDeployment/worker spec.experimental.checkpoint.checkpointRef: failed to resolve checkpoint: "
        'failed to get referenced checkpoint gone: dynamocheckpoints.nvidia.com "gone" not found'
    ) in done.stderr


def test_live_lookup_reports_objects_not_found(cluster: tuple[FakeCluster, str], tmp_path: Path) -> None:
    fake, server = cluster
    fake.objects = [
        {
            "apiVersion": "nvidia.com/v1alpha1",
            "kind": "DynamoCheckpoint",
            "metadata": {"name": "ckpt", "namespace": "llm"},
            "spec": {"identity": {"model": "m", "backendFramework": "vllm"}},
            "status": {"phase": "Creating"},
        }
    ]
    (tmp_path / "dcd.yaml").write_text(CHECKPOINTED.format(ref="ckpt"))
    (tmp_path / "operator.yaml").write_text(OPERATOR_CONFIG)
    done = render("--live", "--kubeconfig", str(kubeconfig(tmp_path, server)), "--operator-config", "operator.yaml", "dcd.yaml", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "not found in the cluster: PersistentVolumeClaim/vllm-cache" in done.stderr
    deployment = next(d for d in yaml.safe_load_all(done.stdout) if d and d["kind"] == "Deployment")
    assert deployment["spec"]["template"]["metadata"]["annotations"]["nvidia.com/dynamo-checkpoint-name"] == "ckpt"


def test_forbidden_lists_are_warnings_and_stay_unknown(cluster: tuple[FakeCluster, str], tmp_path: Path) -> None:
    fake, server = cluster
    fake.forbidden = {"secrets"}
    (tmp_path / "dcd.yaml").write_text(CHECKPOINTED.format(ref="x").replace("checkpoint:\n      enabled: true", "checkpoint:\n      enabled: false"))
    done = render("--live", "--kubeconfig", str(kubeconfig(tmp_path, server)), "dcd.yaml", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "[warning]: live lookup: cannot list secrets in namespace llm: 403 forbidden" in done.stderr


def test_an_unreachable_cluster_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "dcd.yaml").write_text(CHECKPOINTED.format(ref="x"))
    done = render("--live", "--kubeconfig", str(kubeconfig(tmp_path, "http://127.0.0.1:9")), "dcd.yaml", cwd=tmp_path)
    assert done.returncode == 1 and done.stdout == ""
    assert "[error]: live lookup: API discovery failed" in done.stderr
