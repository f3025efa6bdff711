"""The three ways to add the plugin sidecar to argocd-repo-server give the same pod.

- kustomize: argocd/install (stock install + the argocd/sidecar Component), built for real with
  ``kubectl kustomize`` over the vendored stand-in of the stock install;
- the argo-cd Helm chart: argocd/install/helm-values.yaml. No helm binary or chart runs here, so
  the chart's template is replayed: argo-helm charts/argo-cd 10.1.1
  templates/argocd-repo-server/deployment.yaml appends ``repoServer.extraContainers`` to the
  containers, puts ``global.extraVolumes + repoServer.volumes`` before its own volumes (which
  include ``plugins`` and ``var-files``), and merges ``repoServer.podAnnotations`` into the pod
  template's annotations; its repo-server container is named ``repo-server``;
- the Argo CD Operator / OpenShift GitOps: argocd/install/argocd-operator.yaml, checked against
  the operator's ArgoCD v1beta1 CRD (excerpt in tests/data/cmp/argocd-operator-repo.json). The
  operator (controllers/argocd/repo_server.go) names its container ``argocd-repo-server``,
  provides ``var-files`` (filled by its copyutil init container) and ``plugins``, appends
  ``spec.repo.sidecarContainers`` and ``spec.repo.volumes``, and copies ``spec.repo.annotations``
  onto the pod template.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import yaml

from tests.schemas import FORMATS, CRDValidator, assert_valid, structural_to_jsonschema
from tests.unit.test_cmp import build_overlay

ROOT = Path(__file__).resolve().parents[2]
INSTALL = ROOT / "argocd" / "install"
OPERATOR_REPO = json.loads((ROOT / "tests" / "data" / "cmp" / "argocd-operator-repo.json").read_text())
DEFAULT_CONTAINER = "kubectl.kubernetes.io/default-container"
# Volumes the hosts' repo-server pods provide (the charts' and the operator's own).
HOST_VOLUMES = {"var-files", "plugins"}


def kustomize_pod(tmp_path: Path) -> dict[str, Any]:
    (deployment,) = [o for o in build_overlay(tmp_path) if o["kind"] == "Deployment"]
    return deployment


def sidecar_of(containers: list[dict[str, Any]]) -> dict[str, Any]:
    (sidecar,) = [c for c in containers if c["name"] == "dynamo-render"]
    return sidecar


def test_kustomize_install_names_the_default_container(tmp_path: Path) -> None:
    deployment = kustomize_pod(tmp_path)
    annotations = deployment["spec"]["template"]["metadata"]["annotations"]
    assert annotations[DEFAULT_CONTAINER] == "argocd-repo-server"
    assert annotations[DEFAULT_CONTAINER] in {c["name"] for c in deployment["spec"]["template"]["spec"]["containers"]}


def test_helm_values_give_the_same_sidecar_as_the_kustomize_install(tmp_path: Path) -> None:
    deployment = kustomize_pod(tmp_path)
    values = yaml.safe_load((INSTALL / "helm-values.yaml").read_text())["repoServer"]
    assert set(values) == {"podAnnotations", "extraContainers", "volumes"}
    # The health checks are the other top-level key (tests/unit/test_argocd_health.py checks them).
    assert set(yaml.safe_load((INSTALL / "helm-values.yaml").read_text())) == {"repoServer", "configs"}
    # The chart's template, replayed on the stock pod with the chart's container name.
    chart = copy.deepcopy(deployment)
    pod = chart["spec"]["template"]
    spec = pod["spec"]
    spec["containers"] = [c for c in spec["containers"] if c["name"] != "dynamo-render"]
    spec["containers"][0]["name"] = "repo-server"
    spec["containers"] += values["extraContainers"]
    spec["volumes"] = values["volumes"] + [v for v in spec["volumes"] if v["name"] != "dynamo-render-tmp"]
    pod["metadata"]["annotations"] = {**(pod["metadata"].get("annotations") or {}), **values["podAnnotations"]}
    assert_valid(chart)
    assert sidecar_of(spec["containers"]) == sidecar_of(deployment["spec"]["template"]["spec"]["containers"])
    assert pod["metadata"]["annotations"][DEFAULT_CONTAINER] == "repo-server"
    # Every volume the sidecar mounts exists in the pod, once.
    names = [v["name"] for v in spec["volumes"]]
    assert len(names) == len(set(names))
    assert {m["name"] for m in sidecar_of(spec["containers"])["volumeMounts"]} <= set(names)


def test_operator_resource_gives_the_same_sidecar_and_fits_the_argocd_crd(tmp_path: Path) -> None:
    deployment = kustomize_pod(tmp_path)
    cr = yaml.safe_load((INSTALL / "argocd-operator.yaml").read_text())
    assert (cr["apiVersion"], cr["kind"]) == ("argoproj.io/v1beta1", "ArgoCD")
    assert set(cr["spec"]) <= set(OPERATOR_REPO["specFields"]), set(cr["spec"]) - set(OPERATOR_REPO["specFields"])
    repo = cr["spec"]["repo"]
    assert set(repo) <= set(OPERATOR_REPO["repoFields"]), set(repo) - set(OPERATOR_REPO["repoFields"])
    for field in ("sidecarContainers", "annotations"):
        schema = structural_to_jsonschema(OPERATOR_REPO["schemas"][field], root=True)
        errors = [e.message for e in CRDValidator(schema, format_checker=FORMATS).iter_errors(repo[field])]
        assert errors == [], (field, errors)
    assert sidecar_of(repo["sidecarContainers"]) == sidecar_of(deployment["spec"]["template"]["spec"]["containers"])
    assert repo["annotations"][DEFAULT_CONTAINER] == "argocd-repo-server"
    mounts = {m["name"] for m in sidecar_of(repo["sidecarContainers"])["volumeMounts"]}
    assert mounts <= HOST_VOLUMES | {v["name"] for v in repo["volumes"]}
    # The volumes are core/v1 Volumes: validate them in a pod.
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "x"},
           "spec": {"containers": repo["sidecarContainers"], "volumes": repo["volumes"] + [{"name": n, "emptyDir": {}} for n in sorted(HOST_VOLUMES)]}}
    assert_valid(pod)


def test_the_crd_check_catches_a_misplaced_field() -> None:
    schema = structural_to_jsonschema(OPERATOR_REPO["schemas"]["sidecarContainers"], root=True)
    bad = [{"name": "x", "image": "y", "volumeMount": []}]
    assert list(CRDValidator(schema, format_checker=FORMATS).iter_errors(bad))


def test_every_recipe_installs_the_release_the_applications_name(tmp_path: Path) -> None:
    """The image tag is the release whose plugin.yaml the image bakes in (spec.version), so the
    plugin name Applications use, part of Argo CD's manifest cache key, changes with the image."""
    from tests.unit.test_cmp import RELEASE

    plugin = yaml.safe_load((ROOT / "argocd" / "plugin.yaml").read_text())
    assert plugin["spec"]["version"] == f"v{RELEASE}"
    images = [
        sidecar_of(kustomize_pod(tmp_path)["spec"]["template"]["spec"]["containers"])["image"],
        sidecar_of(yaml.safe_load((INSTALL / "helm-values.yaml").read_text())["repoServer"]["extraContainers"])["image"],
        sidecar_of(yaml.safe_load((INSTALL / "argocd-operator.yaml").read_text())["spec"]["repo"]["sidecarContainers"])["image"],
    ]
    assert {image.rpartition(":")[2] for image in images} == {RELEASE}
    app = yaml.safe_load((ROOT / "argocd" / "application.yaml").read_text())
    assert app["spec"]["source"]["plugin"]["name"] == f"{plugin['metadata']['name']}-{plugin['spec']['version']}"
