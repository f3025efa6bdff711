"""The Argo CD health check shipped for Grove PodCliqueSets (argocd/grove), run in Lua 5.1.

Argo CD runs resource health checks in gopher-lua (Lua 5.1) with the live object as the global
``obj``; the script's return value is ``{status, message}``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from lupa import lua51

ROOT = Path(__file__).resolve().parents[2]
COMPONENT = ROOT / "argocd" / "grove"
SCRIPT = (COMPONENT / "podcliqueset-health.lua").read_text(encoding="utf-8")
RENDERED = next(
    d
    for d in yaml.safe_load_all((ROOT / "tests/golden/upstream/dgd-grove/output.yaml").read_text(encoding="utf-8"))
    if d and d.get("kind") == "PodCliqueSet"
)


def health(obj: dict[str, Any]) -> tuple[str, str]:
    lua = lua51.LuaRuntime()
    lua.globals().obj = lua.table_from(obj, recursive=True)
    result = lua.execute(SCRIPT)
    return str(result["status"]), str(result["message"])


def pcs(generation: int | None = 2, status: dict[str, Any] | None = None, replicas: int | None = 1) -> dict[str, Any]:
    obj: dict[str, Any] = {"apiVersion": "grove.io/v1alpha1", "kind": "PodCliqueSet", "metadata": {"name": "llm"}, "spec": {}}
    if generation is not None:
        obj["metadata"]["generation"] = generation
    if replicas is not None:
        obj["spec"]["replicas"] = replicas
    if status is not None:
        obj["status"] = status
    return obj


@pytest.mark.parametrize(
    "obj, expected",
    [
        (pcs(status=None), ("Progressing", "Waiting for Grove to report status")),
        (pcs(status={"updatedReplicas": 1, "availableReplicas": 1}), ("Progressing", "Waiting for Grove to observe the latest spec")),
        (pcs(status={"observedGeneration": 1, "updatedReplicas": 1, "availableReplicas": 1}), ("Progressing", "Waiting for Grove to observe the latest spec")),
        (pcs(status={"observedGeneration": 2, "updatedReplicas": 0, "availableReplicas": 1}), ("Progressing", "Updated replicas: 0 of 1")),
        (pcs(status={"observedGeneration": 2, "updatedReplicas": 1, "availableReplicas": 0}), ("Progressing", "Available replicas: 0 of 1")),
        (pcs(status={"observedGeneration": 2, "updatedReplicas": 1, "availableReplicas": 1}), ("Healthy", "Available replicas: 1 of 1")),
        (pcs(replicas=None, status={"observedGeneration": 2}), ("Healthy", "Available replicas: 0 of 0")),
        (
            pcs(status={
                "observedGeneration": 2, "updatedReplicas": 1, "availableReplicas": 1,
                "conditions": [{"type": "TopologyLevelsUnavailable", "status": "True", "reason": "ClusterTopologyLevelsUnavailable", "message": "level rack is gone"}],
            }),
            ("Degraded", "level rack is gone"),
        ),
        (
            pcs(status={
                "observedGeneration": 2, "updatedReplicas": 1, "availableReplicas": 1,
                "conditions": [{"type": "TopologyLevelsUnavailable", "status": "False", "reason": "AllClusterTopologyLevelsAvailable"}],
            }),
            ("Healthy", "Available replicas: 1 of 1"),
        ),
    ],
    ids=["no-status", "not-observed", "stale", "updating", "unavailable", "healthy", "zero-replicas", "topology-degraded", "topology-ok"],
)
def test_health(obj: dict[str, Any], expected: tuple[str, str]) -> None:
    assert health(obj) == expected


def test_rendered_podcliqueset_is_progressing_until_grove_reports() -> None:
    assert health(RENDERED)[0] == "Progressing"
    live = {**RENDERED, "metadata": {**RENDERED["metadata"], "generation": 1}, "status": {"observedGeneration": 1, "updatedReplicas": 1, "availableReplicas": 1}}
    assert health(live)[0] == "Healthy"


def test_component_installs_the_check_under_argo_cds_key() -> None:
    component = yaml.safe_load((COMPONENT / "kustomization.yaml").read_text(encoding="utf-8"))
    assert component["kind"] == "Component"
    (generator,) = component["configMapGenerator"]
    assert generator["name"] == "argocd-cm" and generator["behavior"] == "merge"
    assert generator["options"]["disableNameSuffixHash"] is True
    assert generator["files"] == ["resource.customizations.health.grove.io_PodCliqueSet=podcliqueset-health.lua"]


def test_component_merges_into_a_stock_argocd_cm(tmp_path: Path) -> None:
    """kubectl kustomize merges the check into the argocd-cm of the install it is added to."""
    import os
    import shutil
    import subprocess

    kubectl = shutil.which("kubectl")
    assert kubectl, "kubectl is required for this test"
    base = tmp_path / "install"
    base.mkdir()
    (base / "argocd-cm.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: argocd-cm\n  labels:\n    app.kubernetes.io/part-of: argocd\n"
        "data:\n  url: https://argocd.example.com\n",
        encoding="utf-8",
    )
    (base / "kustomization.yaml").write_text(
        f"apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nnamespace: argocd\n"
        f"resources: [argocd-cm.yaml]\ncomponents: [{os.path.relpath(COMPONENT, base)}]\n",
        encoding="utf-8",
    )
    built = subprocess.run([kubectl, "kustomize", str(base)], capture_output=True, text=True, check=True).stdout
    (config_map,) = [d for d in yaml.safe_load_all(built) if d]
    assert config_map["metadata"]["name"] == "argocd-cm"
    assert config_map["metadata"]["labels"] == {"app.kubernetes.io/part-of": "argocd"}
    assert config_map["data"] == {"url": "https://argocd.example.com", "resource.customizations.health.grove.io_PodCliqueSet": SCRIPT}
