"""Which kustomize patches and selectors ``convert`` refuses: each form kustomize has for them."""

from __future__ import annotations

from pathlib import Path

import pytest

from plugin.frontends.convert_kustomize import find_kustomizations, refusals

ALPHA_PATCH = "apiVersion: nvidia.com/v1alpha1\nkind: DynamoGraphDeployment\nmetadata:\n  name: g\nspec:\n  services:\n    W:\n      replicas: 2\n"
BETA_PATCH = "apiVersion: nvidia.com/v1beta1\nkind: DynamoGraphDeployment\nmetadata:\n  name: g\nspec:\n  components:\n  - name: W\n"
OPS = '[{"op": "replace", "path": "/spec/services/W/replicas", "value": 3}]'

CASES = {
    "patches-target-v1alpha1": ("patches:\n- path: p.yaml\n  target: {group: nvidia.com, version: v1alpha1, kind: DynamoGraphDeployment}\n",
                                "patches[0]", "targets DynamoGraphDeployment with version: v1alpha1"),
    "patches-target-no-version-alpha-object": ("patches:\n- path: p.yaml\n  target: {kind: DynamoComponentDeployment}\n",
                                               "patches[0]", "is a nvidia.com/v1alpha1 DynamoGraphDeployment patch"),
    "patches-target-no-version-alpha-ops": ("patches:\n- target: {kind: DynamoComponentDeployment}\n  patch: "
                                            "'[{\"op\": \"add\", \"path\": \"/spec/envs/-\", \"value\": {\"name\": \"A\"}}]'\n",
                                            "patches[0]", "changes spec.envs, the v1alpha1 shape"),
    "patches-no-target-alpha-object": ("patches:\n- path: p.yaml\n", "patches[0]",
                                       "is a nvidia.com/v1alpha1 DynamoGraphDeployment patch"),
    "patches-inline-ops-on-services": (f"patches:\n- target: {{name: g}}\n  patch: '{OPS}'\n", "patches[0]",
                                       "changes spec.services, the v1alpha1 shape"),
    "strategic-merge-file": ("patchesStrategicMerge:\n- p.yaml\n", "patchesStrategicMerge[0]",
                             "is a nvidia.com/v1alpha1 DynamoGraphDeployment patch"),
    "json6902": ("patchesJson6902:\n- path: ops.json\n  target: {version: v1alpha1, kind: DynamoGraphDeployment, name: g}\n",
                 "patchesJson6902[0]", "targets DynamoGraphDeployment with version: v1alpha1"),
    "replacement-select": ("replacements:\n- source: {kind: ConfigMap, name: c, fieldPath: data.n}\n  targets:\n"
                           "  - select: {kind: DynamoGraphDeployment, version: v1alpha1}\n    fieldPaths: [spec.backendFramework]\n",
                           "replacements[0].targets[0].select", "selects DynamoGraphDeployment with version: v1alpha1"),
}


def write_tree(tmp_path: Path, body: str, patch: str = ALPHA_PATCH) -> None:
    (tmp_path / "kustomization.yaml").write_text("apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n" + body)
    (tmp_path / "p.yaml").write_text(patch)
    (tmp_path / "ops.json").write_text(OPS)


@pytest.mark.parametrize("body,field,why", CASES.values(), ids=CASES.keys())
def test_each_form_of_a_v1alpha1_patch_is_refused_by_name(tmp_path: Path, body: str, field: str, why: str) -> None:
    write_tree(tmp_path, body)
    kustomizations, _ = find_kustomizations([str(tmp_path)])
    (result,) = refusals(kustomizations)
    assert result.is_error and result.field == field and result.file == str(tmp_path / "kustomization.yaml")
    assert why in result.message and result.message.endswith("nothing was written")


@pytest.mark.parametrize("body", [
    "patches:\n- path: p.yaml\n  target: {group: nvidia.com, version: v1beta1, kind: DynamoGraphDeployment}\n",
    "patches:\n- path: p.yaml\n",
    "patches:\n- path: p.yaml\n  target: {kind: Deployment}\n",
], ids=["v1beta1-target", "v1beta1-object", "other-kind"])
def test_patches_for_v1beta1_or_other_kinds_are_not_refused(tmp_path: Path, body: str) -> None:
    write_tree(tmp_path, body, BETA_PATCH)
    kustomizations, _ = find_kustomizations([str(tmp_path)])
    assert refusals(kustomizations) == []


REPLICAS_OPS = '[{"op": "replace", "path": "/spec/replicas", "value": 3}]'
BETA_DCD_PATCH = "apiVersion: nvidia.com/v1beta1\nkind: DynamoComponentDeployment\nmetadata:\n  name: c\nspec:\n  replicas: 2\n"


@pytest.mark.parametrize("body,patch", [
    ("patchesJson6902:\n- path: ops.json\n  target: {group: nvidia.com, kind: DynamoComponentDeployment, name: c}\n", ""),
    (f"patches:\n- target: {{kind: DynamoComponentDeployment, name: c}}\n  patch: '{REPLICAS_OPS}'\n", ""),
    ("patches:\n- path: p.yaml\n  target: {kind: DynamoComponentDeployment}\n", BETA_DCD_PATCH),
], ids=["json6902-file", "inline-ops", "strategic-merge-v1beta1"])
def test_a_version_less_dcd_patch_of_fields_both_shapes_share_is_not_refused(tmp_path: Path, body: str, patch: str) -> None:
    """A target without a version matches the converted object too; ``/spec/replicas`` is a field of both shapes."""
    write_tree(tmp_path, body, patch or BETA_DCD_PATCH)
    (tmp_path / "ops.json").write_text(REPLICAS_OPS)
    kustomizations, _ = find_kustomizations([str(tmp_path)])
    assert refusals(kustomizations) == []


@pytest.mark.parametrize("body,patch,why", [
    ("patches:\n- path: p.yaml\n  target: {group: nvidia.com, version: v1alpha1, kind: DynamoComponentDeployment}\n",
     BETA_DCD_PATCH, "targets DynamoComponentDeployment with version: v1alpha1"),
    ("patches:\n- path: p.yaml\n  target: {kind: DynamoComponentDeployment}\n",
     BETA_DCD_PATCH.replace("  replicas: 2\n", "  extraPodSpec:\n    mainContainer:\n      image: x:1\n"),
     "changes spec.extraPodSpec, the v1alpha1 shape"),
    ("patchesStrategicMerge:\n- p.yaml\n", BETA_DCD_PATCH.replace("v1beta1", "v1alpha1"),
     "is a nvidia.com/v1alpha1 DynamoComponentDeployment patch"),
], ids=["target-v1alpha1", "version-less-alpha-field", "alpha-object"])
def test_a_refusal_for_a_dcd_names_the_dcd_shape_never_spec_services(tmp_path: Path, body: str, patch: str, why: str) -> None:
    write_tree(tmp_path, body, patch)
    kustomizations, _ = find_kustomizations([str(tmp_path)])
    (result,) = refusals(kustomizations)
    assert why in result.message, result.message
    assert "spec.services" not in result.message and "spec.components" not in result.message, result.message
    assert "spec.podTemplate" in result.message, result.message


def test_a_file_named_alone_finds_the_kustomization_beside_and_above_it(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    write_tree(tmp_path / "sub", CASES["patches-target-v1alpha1"][0])
    (tmp_path / "kustomization.yaml").write_text("resources:\n- sub\n")
    kustomizations, _ = find_kustomizations([str(tmp_path / "sub" / "p.yaml")])
    assert [k.path for k in kustomizations] == [str(tmp_path / "kustomization.yaml"), str(tmp_path / "sub" / "kustomization.yaml")]
