"""A component's type is immutable once set under operator 1.5.0 (ai-dynamo/dynamo#13763).

The PR's envtest cases restated: "v1beta1 type change is rejected by CEL" on a DCD
(``spec: Invalid value: type is immutable after it is set``) and on a DGD component
(``spec.components[1]: ...``), "v1alpha1 componentType change is rejected by CEL" on a DCD
(``spec``) and on a DGD service (``spec.services[worker]``); a legacy object without a type may
set one once. ``diff`` reports such a change of a kept object as an update the API server
refuses (exit 1), and the reference profile, which has no such rule, compares it as before.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
import yaml

from plugin.frontends.diff import run
from plugin.options import given_values
from renderer.admission.immutable import TYPE_IMMUTABLE, type_transition_refusals
from renderer.releases import REFERENCE, RELEASES

R150 = RELEASES["1.5.0"]


def _dcd(api: str = "v1beta1", **spec: Any) -> dict[str, Any]:
    return {"apiVersion": f"nvidia.com/{api}", "kind": "DynamoComponentDeployment", "metadata": {"name": "worker"}, "spec": spec}


def _beta_dgd(*types: str | None) -> dict[str, Any]:
    components = [{"name": name, **({"type": t} if t else {})} for name, t in zip(("frontend", "worker"), types)]
    return {"apiVersion": "nvidia.com/v1beta1", "kind": "DynamoGraphDeployment", "metadata": {"name": "graph"},
            "spec": {"components": components}}


def _alpha_dgd(component_type: str) -> dict[str, Any]:
    return {"apiVersion": "nvidia.com/v1alpha1", "kind": "DynamoGraphDeployment", "metadata": {"name": "graph"},
            "spec": {"services": {"worker": {"componentType": component_type}}}}


def _refusals(old: Any, new: Any, release: str = "1.5.0") -> list[tuple[str, str]]:
    results = type_transition_refusals([(old, "old.yaml", 0)], [(new, "new.yaml", 0)], RELEASES[release], "default")
    return [(r.field, r.message.split(" (")[0]) for r in results]


def test_the_delta_is_gated_on_1_5_0() -> None:
    assert (TYPE_IMMUTABLE.change, TYPE_IMMUTABLE.release) == ("#13763", "1.5.0")
    assert not RELEASES[REFERENCE].ships(TYPE_IMMUTABLE) and R150.ships(TYPE_IMMUTABLE)


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        (_dcd(type="worker"), _dcd(type="epp"), [("spec", "Invalid value: type is immutable after it is set")]),
        (_beta_dgd("frontend", "worker"), _beta_dgd("frontend", "epp"),
         [("spec.components[1]", "Invalid value: type is immutable after it is set")]),
        (_dcd("v1alpha1", componentType="worker"), _dcd("v1alpha1", componentType="epp"),
         [("spec", "Invalid value: componentType is immutable after it is set")]),
        (_alpha_dgd("worker"), _alpha_dgd("epp"),
         [("spec.services[worker]", "Invalid value: componentType is immutable after it is set")]),
        (_dcd(type="worker"), _dcd(), [("spec", "Invalid value: type is immutable after it is set")]),
    ],
    ids=["v1beta1-dcd", "v1beta1-dgd-component", "v1alpha1-dcd", "v1alpha1-dgd-service", "type-removed"],
)
def test_13763_a_type_change_is_refused_where_the_rule_lives(old: Any, new: Any, expected: list[tuple[str, str]]) -> None:
    assert _refusals(old, new) == expected


@pytest.mark.parametrize(
    ("old", "new"),
    [
        (_dcd(), _dcd(type="worker")),  # a legacy object without a type sets it once
        (_dcd(type="worker"), _dcd(type="worker")),
        (_beta_dgd("frontend"), _beta_dgd("frontend", "worker")),  # a new component has no old side
        (_dcd(type="worker"), _dcd("v1alpha1", componentType="epp")),  # a v1alpha1 head over a v1beta1 base: not compared
        (_alpha_dgd("worker"), _beta_dgd(None, "worker")),  # a migration that keeps the converted type
        ({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "worker"}}, _dcd(type="epp")),
    ],
    ids=["set-once", "unchanged", "new-component", "alpha-head", "migration-kept", "other-kind"],
)
def test_what_the_rule_allows(old: Any, new: Any) -> None:
    assert _refusals(old, new) == []


def test_a_migration_to_v1beta1_is_checked_against_the_converted_base() -> None:
    assert _refusals(_alpha_dgd("worker"), _beta_dgd(None, "epp")) == [
        ("spec.components[1]", "Invalid value: type is immutable after it is set")
    ]
    assert _refusals(_dcd("v1alpha1", componentType="worker"), _dcd(type="epp")) == [
        ("spec", "Invalid value: type is immutable after it is set")
    ]


def test_the_reference_has_no_such_rule() -> None:
    assert _refusals(_dcd(type="worker"), _dcd(type="epp"), REFERENCE) == []


GRAPH = """\
apiVersion: nvidia.com/v1beta1
kind: DynamoGraphDeployment
metadata:
  name: graph
spec:
  backendFramework: vllm
  components:
  - name: frontend
    type: frontend
    podTemplate:
      spec:
        containers:
        - name: main
          image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.5.0
  - name: decode
    type: {worker_type}
    podTemplate:
      spec:
        containers:
        - name: main
          image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.5.0
          command: [python3]
          args: [-m, dynamo.vllm]
"""


def _diff(tmp_path: Path, release: str) -> tuple[int, str, str]:
    old, new = tmp_path / "old.yaml", tmp_path / "new.yaml"
    old.write_text(GRAPH.format(worker_type="worker"))
    new.write_text(GRAPH.format(worker_type="decode"))
    config = tmp_path / "config.yaml"
    config.write_text(yaml.safe_dump({"apiVersion": "config.dynamo-render.dev/v1alpha1", "kind": "DynamoRenderConfig",
                                      "spec": {"operatorRelease": release}}))
    stdout, stderr = io.StringIO(), io.StringIO()
    code = run([str(old)], [str(new)], None, "text", False, stdout, stderr, given_values({"config": str(config)}))
    return code, stdout.getvalue(), stderr.getvalue()


def test_diff_reports_the_type_change_of_a_kept_dgd_as_refused_under_1_5_0(tmp_path: Path) -> None:
    code, stdout, stderr = _diff(tmp_path, "1.5.0")
    assert code == 1 and stdout == ""
    # (besides the incomplete-profile warning every render under 1.5.0 prints)
    assert [line for line in stderr.splitlines() if "[warning]" not in line] == [
        f"{tmp_path / 'new.yaml'}:15: [error] DynamoGraphDeployment/graph spec.components[1]: Invalid value: type is "
        'immutable after it is set (base type "worker", head "decode"; the API server refuses this update under '
        "operator 1.5.0, ai-dynamo/dynamo#13763) [webhook]"
    ]


def test_diff_under_the_reference_reports_the_replacement(tmp_path: Path) -> None:
    code, stdout, stderr = _diff(tmp_path, REFERENCE)
    assert code == 0, stderr
    assert stdout.startswith("replaced  Deployment default/graph-decode-")
