"""Cluster state: layering and precedence, API versions, lookups, companions and reference integrity."""

from __future__ import annotations

import base64
import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from plugin.frontends import cmp, krm
from plugin.frontends.render import run as render_run
from plugin.options import given_values
from plugin.state_sources import load_state_file, namespaces_of
from renderer.cluster.state import (
    DEPLOYMENT,
    DEVICE_CLASS,
    DYNAMO_CHECKPOINT,
    LEADER_WORKER_SET,
    SECRET,
    SERVICE,
    SERVICE_ACCOUNT,
    ClusterState,
    StateLayer,
    api_versions_from_objects,
    build_cluster_state,
    not_found_message,
)
from plugin.settings import Settings
from renderer.config import build_render_config
from renderer.operator_config import helm_default_operator_config
from renderer.objects.integrity import Reference, needed_references, object_index, pod_spec_references, report_missing
from renderer.results import ResourceRef, Result, Severity
from renderer.objects.standalone_companions import render_standalone_companions
from tests.builders import dcd, parsed_dcd

NS = "llm"


def obj(kind: str, name: str, api_version: str = "v1", namespace: str | None = NS, **fields: Any) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name}
    if namespace is not None:
        meta["namespace"] = namespace
    if "labels" in fields:
        meta["labels"] = fields.pop("labels")
    return {"apiVersion": api_version, "kind": kind, "metadata": meta, **fields}


COMPONENT_POD = {"nvidia.com/dynamo-component-pod": "true"}


def pull_secret(name: str, *registries: str) -> dict[str, Any]:
    payload = json.dumps({"auths": {r: {} for r in registries}}).encode()
    return obj("Secret", name, type="kubernetes.io/dockerconfigjson", data={".dockerconfigjson": base64.b64encode(payload).decode()})


# ---------------------------------------------------------------------------------------------
# Layers and precedence


def test_the_first_layer_wins_per_object_and_lists_are_the_union() -> None:
    bundle = StateLayer("input bundle", (obj("ServiceAccount", "shared"), obj("ServiceAccount", "b", labels=COMPONENT_POD)))
    file = StateLayer("file", (obj("ServiceAccount", "shared", labels=COMPONENT_POD), obj("ServiceAccount", "a", labels=COMPONENT_POD)))
    live = StateLayer("live cluster", (obj("ServiceAccount", "0-live", labels=COMPONENT_POD),))
    cluster, problems = build_cluster_state([bundle, file, live], "default")
    assert problems == []
    assert cluster.component_service_accounts == {NS: ("0-live", "a", "b")}
    assert cluster.component_service_account(NS) == ("0-live", True)
    assert cluster.origin(SERVICE_ACCOUNT, NS, "shared") == "input bundle"
    assert cluster.sources == ("input bundle", "file", "live cluster")


def test_status_comes_from_the_first_layer_that_has_one() -> None:
    git = obj("DynamoCheckpoint", "c", "nvidia.com/v1alpha1", spec={"identity": {"model": "git"}})
    live = obj("DynamoCheckpoint", "c", "nvidia.com/v1alpha1", spec={"identity": {"model": "live"}}, status={"phase": "Ready"})
    cluster, _ = build_cluster_state([StateLayer("bundle", (git,)), StateLayer("live", (live,))], "default")
    merged, found = cluster.get(DYNAMO_CHECKPOINT, NS, "c")
    assert found and merged["spec"] == {"identity": {"model": "git"}} and merged["status"] == {"phase": "Ready"}


def test_pull_secrets_follow_the_winning_copy() -> None:
    cluster, _ = build_cluster_state(
        [
            StateLayer("bundle", (pull_secret("regcred", "registry.example.com"),)),
            StateLayer("file", (pull_secret("regcred", "other.example.com"), pull_secret("extra", "registry.example.com:5000"))),
        ],
        "default",
    )
    assert cluster.image_pull_secrets(NS, "registry.example.com/x:1") == ("regcred",)
    assert cluster.image_pull_secrets(NS, "other.example.com/x:1") == ()
    assert cluster.image_pull_secrets(NS, "registry.example.com:5000/x") == ("extra",)
    # The state keeps Secrets without their data.
    secret, _ = cluster.get(SECRET, NS, "regcred")
    assert "data" not in secret and "stringData" not in secret


def test_objects_take_the_default_namespace_and_cluster_scoped_kinds_none() -> None:
    cluster, _ = build_cluster_state(
        [StateLayer("file", (obj("Service", "svc", namespace=None), obj("DeviceClass", "gpu.nvidia.com", "resource.k8s.io/v1", namespace="ignored")))],
        "team",
    )
    assert cluster.get(SERVICE, "team", "svc")[1]
    assert cluster.get(DEVICE_CLASS, "anywhere", "gpu.nvidia.com")[1]


def test_unnamed_objects_are_warned_about_outside_the_bundle() -> None:
    nameless = {"apiVersion": "v1", "kind": "Service", "metadata": {}}
    _, bundle_problems = build_cluster_state([StateLayer("bundle", (nameless,))], "default")
    _, file_problems = build_cluster_state([StateLayer("bundle", ()), StateLayer("cluster-state file x", (nameless,))], "default")
    assert bundle_problems == []
    assert [p.line() for p in file_problems] == ["[warning]: Service without metadata.name in cluster-state file x; it is ignored [input]"]


def test_completeness_makes_absence_known() -> None:
    cluster, _ = build_cluster_state([StateLayer("live", (), complete=frozenset({(SECRET, NS), (DEVICE_CLASS, "")}))], "default")
    assert cluster.is_complete(SECRET, NS) and not cluster.is_complete(SECRET, "other")
    assert cluster.is_complete(DEVICE_CLASS, "any-namespace")


def test_not_found_messages_are_the_api_servers() -> None:
    assert not_found_message(SERVICE, "x") == 'services "x" not found'
    assert not_found_message(LEADER_WORKER_SET, "x-0") == 'leaderworkersets.leaderworkerset.x-k8s.io "x-0" not found'


def test_legacy_selector_candidates_in_read_order() -> None:
    lws = obj(
        "LeaderWorkerSet",
        "d-0",
        "leaderworkerset.x-k8s.io/v1",
        spec={"leaderWorkerTemplate": {"leaderTemplate": {"metadata": {"labels": {"l": "1"}}}, "workerTemplate": {"metadata": {"labels": {"w": "1"}}}}},
    )
    deployment = obj("Deployment", "d", "apps/v1", spec={"template": {"metadata": {"labels": {"d": "1"}}}})
    service = obj("Service", "d", spec={"selector": {"s": "1"}})
    cluster, _ = build_cluster_state([StateLayer("file", (service, lws, deployment))], "default")
    assert cluster.workload_selector_labels(NS, "d", "d-0", "d") == [
        ("Deployment/d", {"d": "1"}),
        ("LeaderWorkerSet/d-0", {"l": "1"}),
        ("LeaderWorkerSet/d-0", {"w": "1"}),
        ("Service/d", {"s": "1"}),
    ]
    # The LWS gate off: the LeaderWorkerSet is not read.
    assert [s for s, _ in cluster.workload_selector_labels(NS, "d", None, "d")] == ["Deployment/d", "Service/d"]
    assert cluster.get(DEPLOYMENT, NS, "d")[1]


# ---------------------------------------------------------------------------------------------
# API versions


def test_api_versions_from_discovery_documents_and_crds() -> None:
    groups = {
        "kind": "APIGroupList",
        "groups": [{"name": "apps", "versions": [{"groupVersion": "apps/v1", "version": "v1"}]}],
    }
    resources = {
        "kind": "APIResourceList",
        "groupVersion": "nvidia.com/v1alpha1",
        "resources": [{"name": "podsnapshots", "kind": "PodSnapshot"}, {"name": "podsnapshots/status", "kind": "PodSnapshot"}],
    }
    crd = {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "leaderworkersets.leaderworkerset.x-k8s.io"},
        "spec": {"group": "leaderworkerset.x-k8s.io", "names": {"kind": "LeaderWorkerSet"}, "versions": [{"name": "v1", "served": True}, {"name": "v0", "served": False}]},
    }
    assert api_versions_from_objects([groups, resources, crd, {"kind": "APIVersions", "versions": ["v1"]}]) == (
        "apps/v1",
        "nvidia.com/v1alpha1",
        "nvidia.com/v1alpha1/PodSnapshot",
        "leaderworkerset.x-k8s.io/v1",
        "leaderworkerset.x-k8s.io/v1/LeaderWorkerSet",
        "v1",
    )
    assert api_versions_from_objects([obj("Service", "x")]) is None


def test_cluster_api_versions_are_the_last_fallback_of_the_gates() -> None:
    operator = helm_default_operator_config().model_copy(deep=True)
    operator.checkpoint.enabled = True
    served = ["leaderworkerset.x-k8s.io/v1", "nvidia.com/v1alpha1/PodSnapshot"]
    config, _ = build_render_config(operator, Settings(), cluster_api_versions=served)
    # No Volcano: the operator leaves LWS off; PodSnapshot served: checkpoints on.
    assert (config.lws_enabled, config.checkpoint_enabled) == (False, True)
    config, results = build_render_config(operator, Settings(), api_versions=["scheduling.volcano.sh/v1beta1", "leaderworkerset.x-k8s.io/v1"], cluster_api_versions=served)
    # Explicit API versions win; checkpointing on without PodSnapshot stops the operator at start-up.
    assert config.lws_enabled is True
    assert [r.field for r in results if r.is_error] == ["checkpoint.enabled"]
    assert "PodSnapshot API was not detected" in results[0].message


def test_state_file_layers_carry_their_api_versions(tmp_path: Path) -> None:
    path = tmp_path / "state.yaml"
    path.write_text(yaml.safe_dump_all([
        {"apiVersion": "v1", "kind": "List", "items": [obj("ServiceAccount", "sa")]},
        {"kind": "APIGroupList", "groups": [{"name": "grove.io", "versions": [{"groupVersion": "grove.io/v1alpha1"}]}]},
        ["not", "an", "object"],
    ]))
    layer, problems = load_state_file(str(path))
    assert layer is not None and layer.api_versions == ("grove.io/v1alpha1",)
    assert [o["kind"] for o in layer.objects] == ["ServiceAccount", "APIGroupList"]
    assert [p.severity for p in problems] == [Severity.WARNING]
    broken = tmp_path / "broken.yaml"
    broken.write_text("kind: [\n")
    assert load_state_file(str(broken))[0] is None


def test_live_lookup_namespaces_are_those_of_the_dynamo_objects() -> None:
    docs = [
        {"kind": "DynamoComponentDeployment", "metadata": {"name": "a"}},
        {"kind": "DynamoGraphDeployment", "metadata": {"name": "b", "namespace": "team"}},
        {"kind": "ConfigMap", "metadata": {"name": "c", "namespace": "elsewhere"}},
    ]
    assert namespaces_of(docs, "default") == ["default", "team"]


# ---------------------------------------------------------------------------------------------
# Companions of standalone DCDs


def companions(config_doc: dict[str, Any] | None = None, **kwargs: Any) -> list[str]:
    operator = helm_default_operator_config().model_copy(deep=True)
    for path, value in (config_doc or {}).items():
        target = operator
        *head, last = path.split(".")
        for part in head:
            target = getattr(target, part)
        setattr(target, last, value)
    config, _ = build_render_config(operator, Settings())
    return [f"{o['kind']}/{o['metadata']['name']}" for o in render_standalone_companions(parsed_dcd(dcd(image="test-image:latest", **kwargs)), config)]


DISCOVERY = ["ServiceAccount/worker-k8s-service-discovery", "Role/worker-k8s-service-discovery-role", "RoleBinding/worker-k8s-service-discovery-binding"]


def test_companions_follow_the_graph_controllers_conditions() -> None:
    assert companions() == DISCOVERY
    etcd = {"podTemplate": {"metadata": {"annotations": {"nvidia.com/dynamo-discovery-backend": "etcd"}}, "spec": {"containers": [{"name": "main", "image": "i"}]}}}
    assert companions(**etcd) == []
    assert companions({"discovery.backend": "etcd"}) == []
    assert companions(type="planner")[:2] == ["ServiceAccount/planner-serviceaccount", "RoleBinding/planner-serviceaccount-binding"]
    assert companions({"namespace.restricted": NS}, type="planner") == DISCOVERY
    multinode = companions(
        multinode={"nodeCount": 2},
        podTemplate={"spec": {"containers": [{"name": "main", "image": "i", "command": ["python3"], "args": ["x"]}]}},
    )
    assert multinode == [*DISCOVERY, "ConfigMap/worker-wait-leader-script"]


# ---------------------------------------------------------------------------------------------
# Reference integrity


def test_pod_spec_references_skip_optional_ones() -> None:
    spec = {
        "serviceAccountName": "sa",
        "imagePullSecrets": [{"name": "pull"}],
        "volumes": [
            {"name": "a", "configMap": {"name": "cm"}},
            {"name": "b", "configMap": {"name": "cm-optional", "optional": True}},
            {"name": "c", "secret": {"secretName": "s"}},
            {"name": "d", "persistentVolumeClaim": {"claimName": "pvc"}},
            {"name": "e", "projected": {"sources": [{"configMap": {"name": "p-cm"}}, {"secret": {"name": "p-s", "optional": True}}]}},
        ],
        "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "rct"}, {"name": "x", "resourceClaimName": "rc"}],
        "initContainers": [{"name": "i", "envFrom": [{"secretRef": {"name": "init-env"}}]}],
        "containers": [{"name": "main", "env": [{"name": "T", "valueFrom": {"secretKeyRef": {"name": "tok", "key": "k"}}}]}],
    }
    refs = [(r.kind[1], r.name) for r in pod_spec_references(spec, "spec")]
    assert refs == [
        ("ServiceAccount", "sa"),
        ("Secret", "pull"),
        ("ConfigMap", "cm"),
        ("Secret", "s"),
        ("PersistentVolumeClaim", "pvc"),
        ("ConfigMap", "p-cm"),
        ("ResourceClaimTemplate", "rct"),
        ("ResourceClaim", "rc"),
        ("Secret", "init-env"),
        ("Secret", "tok"),
    ]
    assert Reference(SECRET, "tok", "spec.containers[0].env[0].valueFrom.secretKeyRef") in list(pod_spec_references(spec, "spec"))


def check_references(owner: ResourceRef, rendered: list[dict[str, Any]], emitted: set[Any], cluster: ClusterState) -> list[Result]:
    """One warning per object the owner's rendered pods need that nothing provides (as the bundle checks)."""
    return report_missing(owner, needed_references(owner, rendered), emitted, cluster)


def test_check_references_reports_each_missing_object_once() -> None:
    deployment = obj(
        "Deployment",
        "w",
        "apps/v1",
        spec={"template": {"spec": {"serviceAccountName": "default", "volumes": [{"name": "v", "configMap": {"name": "gone"}}], "containers": [{"name": "main", "envFrom": [{"configMapRef": {"name": "gone"}}, {"configMapRef": {"name": "emitted"}}, {"configMapRef": {"name": "kube-root-ca.crt"}}, {"secretRef": {"name": "known"}}]}]}}},
    )
    cluster, _ = build_cluster_state([StateLayer("file", (obj("Secret", "known"),))], "default")
    owner = ResourceRef("nvidia.com/v1beta1", "DynamoComponentDeployment", "w", NS)
    emitted = object_index([deployment, obj("ConfigMap", "emitted")], NS)
    results = check_references(owner, [deployment], emitted, cluster)
    assert [r.message for r in results] == [
        "must exist in the cluster: ConfigMap/gone (referenced by Deployment/w spec.template.spec.volumes[0].configMap)"
    ]
    live, _ = build_cluster_state([StateLayer("live", (), complete=frozenset({(("", "ConfigMap"), NS)}))], "default")
    assert check_references(owner, [deployment], emitted, live)[0].message.startswith("not found in the cluster: ConfigMap/gone")


# ---------------------------------------------------------------------------------------------
# Front ends


DCD_TEXT = """\
apiVersion: nvidia.com/v1beta1
kind: DynamoComponentDeployment
metadata:
  name: decode
  namespace: llm
spec:
  type: decode
  podTemplate:
    spec:
      containers:
        - name: main
          image: test-image:latest
"""
LEGACY_DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: decode
  namespace: llm
spec:
  template:
    metadata:
      labels:
        nvidia.com/dynamo-component-type: worker
"""


def component_type(objects: list[dict[str, Any]]) -> str:
    deployment = next(o for o in objects if o["kind"] == "Deployment")
    return str(deployment["spec"]["template"]["metadata"]["labels"]["nvidia.com/dynamo-component-type"])


def test_render_command_reads_the_cluster_state_and_turns_companions_off(tmp_path: Path) -> None:
    (tmp_path / "dcd.yaml").write_text(DCD_TEXT)
    (tmp_path / "state.yaml").write_text(LEGACY_DEPLOYMENT)
    out, err = io.StringIO(), io.StringIO()
    common = given_values(dict(cluster_state=str(tmp_path / "state.yaml")))
    code = render_run([str(tmp_path / "dcd.yaml")], {**common, "companions": False}, out, err)
    assert code == 0, err.getvalue()
    objects = [d for d in yaml.safe_load_all(out.getvalue()) if d]
    assert component_type(objects) == "worker"
    assert [o["kind"] for o in objects] == ["Deployment", "Service"]
    assert "must exist in the cluster: ServiceAccount/decode-k8s-service-discovery" in err.getvalue()


def test_missing_cluster_state_file_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "dcd.yaml").write_text(DCD_TEXT)
    out, err = io.StringIO(), io.StringIO()
    code = render_run([str(tmp_path / "dcd.yaml")], given_values(dict(cluster_state=str(tmp_path / "missing.yaml"))), out, err)
    assert code == 1 and out.getvalue() == ""
    assert "missing.yaml: [error]: cannot read" in err.getvalue()


def test_krm_function_config_names_a_cluster_state_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "state.yaml").write_text(LEGACY_DEPLOYMENT)
    monkeypatch.chdir(tmp_path)
    resource_list = {
        "apiVersion": "config.kubernetes.io/v1",
        "kind": "ResourceList",
        "items": [yaml.safe_load(DCD_TEXT)],
        "functionConfig": {
            "apiVersion": "config.dynamo-render.dev/v1alpha1",
            "kind": "DynamoRenderConfig",
            "metadata": {"name": "render"},
            "spec": {"clusterStatePath": "state.yaml"},
        },
    }
    out, err = io.StringIO(), io.StringIO()
    code = krm.run_resource_list(yaml.safe_dump(resource_list).encode(), out, err)
    assert code == 0, err.getvalue()
    assert component_type(yaml.safe_load(out.getvalue())["items"]) == "worker"


def test_krm_files_companions_shared_by_two_sources_once() -> None:
    owner = [{"apiVersion": "nvidia.com/v1beta1", "kind": "DynamoGraphDeployment", "name": "graph", "uid": "u"}]
    items = []
    for name in ("a", "b"):
        item = yaml.safe_load(DCD_TEXT.replace("name: decode", f"name: {name}"))
        item["metadata"]["ownerReferences"] = owner
        items.append(item)
    out, err = io.StringIO(), io.StringIO()
    code = krm.run_resource_list(yaml.safe_dump({"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": items}).encode(), out, err)
    assert code == 0, err.getvalue()
    names = [f"{i['kind']}/{i['metadata']['name']}" for i in yaml.safe_load(out.getvalue())["items"]]
    assert names.count("ServiceAccount/graph-k8s-service-discovery") == 1
    assert len(names) == len(set(names))


def test_cmp_reads_a_cluster_state_file_in_the_repository_and_does_not_render_it(tmp_path: Path) -> None:
    app = tmp_path / "repo" / "apps" / "decode"
    (app / "state").mkdir(parents=True)
    (app / "dcd.yaml").write_text(DCD_TEXT)
    (app / "state" / "cluster.yaml").write_text(LEGACY_DEPLOYMENT)
    (app / "render.yaml").write_text(
        "apiVersion: config.dynamo-render.dev/v1alpha1\nkind: DynamoRenderConfig\nmetadata:\n  name: r\n"
        "spec:\n  clusterStatePath: state\n"
    )
    env = {"ARGOCD_APP_SOURCE_PATH": "apps/decode", "ARGOCD_APP_NAMESPACE": NS, "ARGOCD_APP_PARAMETERS": '[{"name":"config","string":"render.yaml"}]'}
    out, err = io.StringIO(), io.StringIO()
    code = cmp.generate(str(app), env, out, err)
    assert code == 0, err.getvalue()
    objects = [d for d in yaml.safe_load_all(out.getvalue()) if d]
    assert component_type(objects) == "worker"
    # The legacy Deployment of the state folder is a fact, not an object to deploy.
    assert [o["metadata"]["name"] for o in objects if o["kind"] == "Deployment"] == ["decode"]
    assert not any(o["kind"] == "Deployment" and "selector" not in o["spec"] for o in objects)


def test_cmp_refuses_a_cluster_state_path_outside_the_repository(tmp_path: Path) -> None:
    app = tmp_path / "repo" / "apps" / "decode"
    app.mkdir(parents=True)
    (app / "dcd.yaml").write_text(DCD_TEXT)
    (tmp_path / "outside.yaml").write_text(LEGACY_DEPLOYMENT)
    (app / "render.yaml").write_text(
        "apiVersion: config.dynamo-render.dev/v1alpha1\nkind: DynamoRenderConfig\nmetadata:\n  name: r\n"
        "spec:\n  clusterStatePath: ../../../outside.yaml\n"
    )
    env = {"ARGOCD_APP_SOURCE_PATH": "apps/decode", "ARGOCD_APP_NAMESPACE": NS, "ARGOCD_APP_PARAMETERS": '[{"name":"config","string":"render.yaml"}]'}
    out, err = io.StringIO(), io.StringIO()
    assert cmp.generate(str(app), env, out, err) == 1
    assert 'spec.clusterStatePath: path "../../../outside.yaml" leads outside the repository' in err.getvalue()


def test_validate_hook_takes_a_cluster_state(tmp_path: Path) -> None:
    from plugin.frontends import precommit_validate

    (tmp_path / "dcd.yaml").write_text(DCD_TEXT)
    (tmp_path / "state.yaml").write_text(LEGACY_DEPLOYMENT)
    out = io.StringIO()
    hook = given_values(dict(cluster_state=str(tmp_path / "state.yaml"), verbose=True))
    code = precommit_validate.run([str(tmp_path / "dcd.yaml")], hook, out)
    assert code == 0
    assert "existing Deployment/decode selects the pre-v1beta1 worker labels" in out.getvalue()


def test_rendering_without_live_never_imports_kubernetes(tmp_path: Path) -> None:
    (tmp_path / "dcd.yaml").write_text(DCD_TEXT)
    (tmp_path / "state.yaml").write_text(LEGACY_DEPLOYMENT)
    script = (
        "import sys\n"
        "from plugin.cli import main\n"
        "try:\n"
        f"    main(['render', '--cluster-state', {str(tmp_path / 'state.yaml')!r}, {str(tmp_path / 'dcd.yaml')!r}])\n"
        "except SystemExit as exit:\n"
        "    assert exit.code == 0, exit.code\n"
        "print('kubernetes' in sys.modules, any(m.startswith('kubernetes.') for m in sys.modules), file=sys.stderr)\n"
    )
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, "-c", script], cwd=root, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stderr.strip().splitlines()[-1] == "False False"
    assert "kind: Deployment" in done.stdout


def test_unreadable_pull_secrets_are_warned_about_without_their_data() -> None:
    bad_payload = obj("Secret", "broken", type="kubernetes.io/dockerconfigjson", data={".dockerconfigjson": "%%%"})
    not_json = obj("Secret", "text", type="kubernetes.io/dockerconfigjson", stringData={".dockerconfigjson": "hunter2"})
    bad_host = pull_secret("hosts", "https://[::1", "ok.example.com")
    cluster, problems = build_cluster_state([StateLayer("file", (bad_payload, not_json, bad_host))], "default")
    assert [p.line() for p in problems] == [
        "[warning] Secret/broken data[.dockerconfigjson]: unable to read the auths of docker config json secret llm/broken; "
        "it is not indexed for image pull secrets [input]",
        "[warning] Secret/text data[.dockerconfigjson]: unable to read the auths of docker config json secret llm/text; "
        "it is not indexed for image pull secrets [input]",
        "[warning] Secret/hosts: unable to get host for a registry of secret llm/hosts; that entry is not indexed [input]",
    ]
    assert "hunter2" not in "".join(p.line() for p in problems)
    assert cluster.pull_secrets == {NS: {"ok.example.com": ("hosts",)}}


def test_object_index_skips_nameless_items_and_defaults_the_namespace() -> None:
    index = object_index([obj("ConfigMap", "a", namespace=None), {"kind": "ConfigMap", "metadata": {}}, "junk"], "team")
    assert index == {(("", "ConfigMap"), "team", "a")}
