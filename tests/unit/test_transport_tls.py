"""TLS certificate paths from the operator config (ai-dynamo/dynamo#13689, operator 1.5.0).

The PR's facts restated: each of the ten InfrastructureConfiguration TLS settings injects its
env var into the pods the operator renders (the main container, and a frontend sidecar as the
standard env is), an empty configuration injects none, a podTemplate env var of the same name
wins, and a client certificate and its key are set together or not at all. Under the reference
commit the settings do not exist and are refused naming 1.5.0. The golden side is
tests/golden/podspec/transport-tls-env-{13689,2a6da14c8}.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
import yaml

from plugin.frontends.render import run
from plugin.options import given_values
from renderer.operator_config import TRANSPORT_TLS, TRANSPORT_TLS_FIELDS, parse_operator_config
from renderer.releases import REFERENCE, RELEASES

BASE = {
    "apiVersion": "operator.config.dynamo.nvidia.com/v1alpha1",
    "kind": "OperatorConfiguration",
    "rbac": {"plannerClusterRoleName": "p", "dgdrProfilingClusterRoleName": "d", "eppClusterRoleName": "e"},
    "mpi": {"sshSecretName": "s", "sshSecretNamespace": "dynamo-system"},
}

# The values of the PR's TestAddTransportTLSEnvVars table, by JSON field name.
PR_VALUES = {
    "natsTLSCAPath": "/etc/certs/nats-ca.pem",
    "natsTLSClientCertPath": "/etc/certs/nats-client.pem",
    "natsTLSClientKeyPath": "/etc/certs/nats-client-key.pem",
    "tcpTLSCertPath": "/etc/certs/server.pem",
    "tcpTLSKeyPath": "/etc/certs/server-key.pem",
    "tcpTLSCAPath": "/etc/certs/ca.pem",
    "tcpTLSClientCertPath": "/etc/certs/client.pem",
    "tcpTLSClientKeyPath": "/etc/certs/client-key.pem",
    "tcpTLSClientCAPath": "/etc/certs/client-ca.pem",
    "tcpTLSServerName": "dynamo-worker.dynamo-system.svc.cluster.local",
}


def _config(infra: dict[str, str]) -> dict[str, Any]:
    return {**BASE, "infrastructure": infra}


def test_the_delta_and_its_ten_fields() -> None:
    assert TRANSPORT_TLS.change == "#13689" and TRANSPORT_TLS.release == "1.5.0"
    assert not RELEASES[REFERENCE].ships(TRANSPORT_TLS) and RELEASES["1.5.0"].ships(TRANSPORT_TLS)
    assert [name for _, name, _ in TRANSPORT_TLS_FIELDS] == list(PR_VALUES)


def test_13689_the_fields_parse_under_1_5_0_and_are_refused_under_the_reference() -> None:
    cfg, results = parse_operator_config(_config(PR_VALUES), release=RELEASES["1.5.0"])
    assert cfg is not None and not results
    assert cfg.infrastructure.tcp_tls_server_name == PR_VALUES["tcpTLSServerName"]
    cfg, results = parse_operator_config(_config({"tcpTLSCAPath": "/ca.pem"}))
    assert cfg is None
    assert [(r.field, r.code.value) for r in results] == [("infrastructure.tcpTLSCAPath", "unknown-field")]
    assert results[0].message.startswith("not in operator 2a6da14c8; added in 1.5.0 (ai-dynamo/dynamo#13689")


@pytest.mark.parametrize(
    ("infra", "field", "message"),
    [
        ({"tcpTLSClientCertPath": "/c.pem"}, "infrastructure.tcpTLSClientCertPath",
         'Invalid value: "/c.pem": tcpTLSClientCertPath and tcpTLSClientKeyPath must be set together'),
        ({"tcpTLSClientKeyPath": "/k.pem"}, "infrastructure.tcpTLSClientCertPath",
         'Invalid value: "": tcpTLSClientCertPath and tcpTLSClientKeyPath must be set together'),
        ({"natsTLSClientCertPath": "/c.pem"}, "infrastructure.natsTLSClientCertPath",
         'Invalid value: "/c.pem": natsTLSClientCertPath and natsTLSClientKeyPath must be set together'),
    ],
)
def test_13689_a_client_identity_is_a_pair(infra: dict[str, str], field: str, message: str) -> None:
    cfg, results = parse_operator_config(_config(infra), release=RELEASES["1.5.0"])
    assert cfg is None
    assert [(r.field, r.message) for r in results] == [(field, message)]


def _render(tmp_path: Path, doc: dict[str, Any], release: str, infra: dict[str, str]) -> tuple[int, list[dict[str, Any]], str]:
    source = tmp_path / "input.yaml"
    source.write_text(yaml.safe_dump(doc))
    config = tmp_path / "config.yaml"
    config.write_text(yaml.safe_dump({
        "apiVersion": "config.dynamo-render.dev/v1alpha1", "kind": "DynamoRenderConfig",
        "spec": {"companions": False, "operatorConfig": _config(infra)},
    }))
    stdout, stderr = io.StringIO(), io.StringIO()
    code = run([str(source)], given_values(dict(operator_release=release, config=str(config))), stdout, stderr)
    return code, [d for d in yaml.safe_load_all(stdout.getvalue()) if d], stderr.getvalue()


def _sidecar_dcd() -> dict[str, Any]:
    return {
        "apiVersion": "nvidia.com/v1beta1", "kind": "DynamoComponentDeployment",
        "metadata": {"name": "w", "namespace": "ns"},
        "spec": {
            "type": "worker", "backendFramework": "vllm", "frontendSidecar": "sidecar-frontend",
            "podTemplate": {"spec": {"containers": [
                {"name": "main", "image": "worker:1.5.0"},
                {"name": "sidecar-frontend", "image": "frontend:1.5.0", "env": [{"name": "NATS_TLS_CA_CERT_PATH", "value": "/mine.pem"}]},
            ]}},
        },
    }


def _env(container: dict[str, Any]) -> dict[str, str]:
    return {e["name"]: e.get("value", "") for e in container.get("env") or []}


def test_13689_main_container_and_frontend_sidecar_get_the_paths(tmp_path: Path) -> None:
    code, objects, err = _render(tmp_path, _sidecar_dcd(), "1.5.0", PR_VALUES)
    assert code == 0, err
    deployment = next(o for o in objects if o["kind"] == "Deployment")
    main, sidecar = deployment["spec"]["template"]["spec"]["containers"]
    expected = {env: PR_VALUES[name] for _, name, env in TRANSPORT_TLS_FIELDS}
    assert {k: v for k, v in _env(main).items() if k in expected} == expected
    # the sidecar's own env wins over the operator's value
    assert {k: v for k, v in _env(sidecar).items() if k in expected} == {**expected, "NATS_TLS_CA_CERT_PATH": "/mine.pem"}


def test_13689_an_empty_configuration_injects_nothing(tmp_path: Path) -> None:
    code, objects, err = _render(tmp_path, _sidecar_dcd(), "1.5.0", {})
    assert code == 0, err
    deployment = next(o for o in objects if o["kind"] == "Deployment")
    names = {n for c in deployment["spec"]["template"]["spec"]["containers"] for n in _env(c)}
    assert not names & {env for _, _, env in TRANSPORT_TLS_FIELDS if env != "NATS_TLS_CA_CERT_PATH"}


def test_13689_a_graph_on_grove_gets_the_paths_in_every_clique(tmp_path: Path) -> None:
    dgd = {
        "apiVersion": "nvidia.com/v1beta1", "kind": "DynamoGraphDeployment", "metadata": {"name": "g", "namespace": "ns"},
        "spec": {"backendFramework": "vllm", "components": [
            {"name": "frontend", "type": "frontend", "podTemplate": {"spec": {"containers": [{"name": "main", "image": "f:1.5.0"}]}}},
            {"name": "decode", "type": "decode", "podTemplate": {"spec": {"containers": [
                {"name": "main", "image": "w:1.5.0", "command": ["python3", "-m", "dynamo.vllm"]}]}}},
        ]},
    }
    source = tmp_path / "input.yaml"
    source.write_text(yaml.safe_dump(dgd))
    config = tmp_path / "config.yaml"
    config.write_text(yaml.safe_dump({
        "apiVersion": "config.dynamo-render.dev/v1alpha1", "kind": "DynamoRenderConfig",
        "spec": {"gates": {"grove": True}, "operatorConfig": _config({"tcpTLSCAPath": "/ca.pem"})},
    }))
    stdout, stderr = io.StringIO(), io.StringIO()
    assert run([str(source)], given_values(dict(operator_release="1.5.0", config=str(config))), stdout, stderr) == 0, stderr.getvalue()
    pcs = next(d for d in yaml.safe_load_all(stdout.getvalue()) if d and d["kind"] == "PodCliqueSet")
    cliques = pcs["spec"]["template"]["cliques"]
    assert len(cliques) == 2
    assert all(_env(c["spec"]["podSpec"]["containers"][0]).get("DYN_TCP_TLS_CA_CERT_PATH") == "/ca.pem" for c in cliques)
