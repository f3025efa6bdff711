"""The app reader's decisions that need no kustomize: what a file is to kustomize, what a patch check accepts.

The builds themselves run the real kustomize in tests/e2e/test_app_reader.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from plugin.app_reader import app_of_path, enclosing_kustomization, patch_files, role_of
from plugin.frontends.precommit_validate import check_patch

COMPONENT = """\
apiVersion: kustomize.config.k8s.io/v1alpha1
kind: Component
openapi:
  path: schema.json
patches:
  - path: patch-dgd.yaml
    target: {kind: DynamoGraphDeployment}
"""


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "base" / "sub").mkdir(parents=True)
    (tmp_path / "base" / "kustomization.yaml").write_text("resources: [dgd.yaml, sub/cm.yaml]\npatchesStrategicMerge: [smp.yaml]\n")
    for name in ("dgd.yaml", "smp.yaml", "sub/cm.yaml"):
        (tmp_path / "base" / name).write_text("{}\n")
    (tmp_path / "component").mkdir()
    (tmp_path / "component" / "kustomization.yaml").write_text(COMPONENT)
    for name in ("patch-dgd.yaml", "schema.json", "other.yaml"):
        (tmp_path / "component" / name).write_text("{}\n")
    (tmp_path / "plain.yaml").write_text("{}\n")
    return tmp_path


@pytest.mark.parametrize(
    ("path", "kind", "kustomization"),
    [
        ("plain.yaml", "plain", ""),
        ("base/kustomization.yaml", "app", "base/kustomization.yaml"),
        ("base/dgd.yaml", "app", "base/kustomization.yaml"),
        ("base/sub/cm.yaml", "app", "base/kustomization.yaml"),
        ("base/smp.yaml", "patch", "base/kustomization.yaml"),
        ("component/patch-dgd.yaml", "patch", "component/kustomization.yaml"),
        ("component/kustomization.yaml", "component", "component/kustomization.yaml"),
        ("component/schema.json", "config", "component/kustomization.yaml"),
        ("component/other.yaml", "plain", ""),
    ],
)
def test_a_file_is_read_by_its_place_in_a_kustomize_tree(tree: Path, path: str, kind: str, kustomization: str) -> None:
    role = role_of(str(tree / path), str(tree))
    assert role.kind == kind
    assert role.kustomization == (str(tree / kustomization) if kustomization else "")


def test_the_search_for_a_kustomization_stops_at_the_working_directory(tree: Path) -> None:
    (tree / "kustomization.yaml").write_text("resources: [plain.yaml]\n")
    (tree / "inner").mkdir()
    (tree / "inner" / "x.yaml").write_text("{}\n")
    assert enclosing_kustomization(str(tree / "inner" / "x.yaml"), str(tree)) == str(tree / "kustomization.yaml")
    assert enclosing_kustomization(str(tree / "inner" / "x.yaml"), str(tree / "inner")) is None


def test_an_app_path_is_a_kustomize_folder_or_its_kustomization_file(tree: Path) -> None:
    assert app_of_path(str(tree / "base"), raw=False) == (str(tree / "base"), str(tree / "base" / "kustomization.yaml"))
    assert app_of_path(str(tree / "base" / "kustomization.yaml"), raw=False) == (str(tree / "base"), str(tree / "base" / "kustomization.yaml"))
    assert app_of_path(str(tree / "base" / "dgd.yaml"), raw=False) is None
    assert app_of_path(str(tree / "base"), raw=True) is None
    assert app_of_path(str(tree), raw=False) is None


def test_patch_files_are_every_form_kustomize_reads() -> None:
    content = {
        "patches": [{"path": "a.yaml"}, {"patch": "inline: true"}],
        "patchesJson6902": [{"path": "b.json", "target": {"kind": "X"}}],
        "patchesStrategicMerge": ["c.yaml", "apiVersion: v1\nkind: X\n"],
    }
    assert patch_files(content) == ["a.yaml", "b.json", "c.yaml"]


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("apiVersion: nvidia.com/v1alpha1\nkind: DynamoGraphDeployment\nmetadata: {name: x}\nspec: {services: {}}\n", None),
        ("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: x}\n", None),
        ("- op: replace\n  path: /spec/replicas\n  value: 2\n", None),
        ("- op: replace\n", "a JSON 6902 patch must be a list of operations"),
        ("apiVersion: nvidia.com/v1alpha1\nmetadata: {name: x}\n", "must name the kind it patches"),
        ("apiVersion: nvidia.com/v1beta1\nkind: DynamoGraph\n", "unknown nvidia.com kind 'DynamoGraph'"),
        ("kind: [\n", "while parsing"),
    ],
    ids=["dgd-smp", "other-kind", "json6902", "json6902-without-path", "no-kind", "unknown-dynamo-kind", "broken-yaml"],
)
def test_a_patch_is_checked_as_a_patch(tmp_path: Path, text: str, problem: str | None) -> None:
    path = tmp_path / "patch.yaml"
    path.write_text(text)
    results, _ = check_patch(str(path), "k/kustomization.yaml")
    errors = [r for r in results if r.is_error]
    if problem is None:
        assert not errors
        assert [r.message for r in results] == [
            "a kustomize patch that k/kustomization.yaml applies: checked as a patch (it parses and names a known kind), "
            "not as a whole object"
        ]
    else:
        assert len(errors) == 1 and problem in errors[0].message, results
