"""A malformed preservation annotation is one error at the annotation in every front end, never a bug.

The four inputs of the reliability review (a list of labels, non-string label and annotation
values, 5,000 nested brackets, a labels value 3,000 objects deep) on v1alpha1 and v1beta1
DCDs and DGDs, through render, validate, the CMP, the KRM function and convert: exit 1 and
one line at ``metadata.annotations[nvidia.com/dcd-spec]`` (or ``dgd-spec``). The front ends
run in-process: an exception escaping them would be exit 3 for a user.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from plugin.frontends import convert
from tests.e2e.test_hostile_inputs import _resource_list_yaml, run_cmp, run_krm, run_render, run_validate

MALFORMED = {
    "labels-list": '{"version":1,"spec":{"labels":[1]}}',
    "label-number": '{"version":1,"spec":{"labels":{"a":1}}}',
    "annotation-bool": '{"version":1,"spec":{"annotations":{"a":true}}}',
    "5000-brackets": "[" * 5000,
    "labels-3000-deep": '{"version":1,"spec":{"labels":' + '{"a":' * 3000 + '"x"' + "}" * 3000 + "}}",
}
# what a v1alpha1 object's annotation holds: a v1beta1 spec (there, labels sit in the pod template)
MALFORMED_HUB = {
    "pod-labels-list": '{"version":1,"spec":{"podTemplate":{"metadata":{"labels":[1]}}}}',
    "pod-label-number": '{"version":1,"spec":{"podTemplate":{"metadata":{"labels":{"a":1}}}}}',
    "pod-annotation-bool": '{"version":1,"spec":{"podTemplate":{"metadata":{"annotations":{"a":true}}}}}',
    "5000-brackets": "[" * 5000,
    "labels-3000-deep": '{"version":1,"spec":{"podTemplate":{"metadata":{"labels":' + '{"a":' * 3000 + '"x"' + "}" * 3000 + "}}}}",
}


def beta_dcd(annotation: str) -> str:
    return json.dumps({
        "apiVersion": "nvidia.com/v1beta1",
        "kind": "DynamoComponentDeployment",
        "metadata": {"name": "fe", "namespace": "llm", "annotations": {"nvidia.com/dcd-spec": annotation}},
        "spec": {"type": "frontend", "podTemplate": {"spec": {"containers": [{"name": "main", "image": "nvcr.io/x:0.9.0"}]}}},
    })


def alpha_dcd(annotation: str) -> str:
    return json.dumps({
        "apiVersion": "nvidia.com/v1alpha1",
        "kind": "DynamoComponentDeployment",
        "metadata": {"name": "fe", "namespace": "llm", "annotations": {"nvidia.com/dcd-spec": annotation}},
        "spec": {"componentType": "frontend", "serviceName": "fe", "extraPodSpec": {"mainContainer": {"image": "nvcr.io/x:0.9.0"}}},
    })


def beta_dgd(annotation: str) -> str:
    services = annotation.replace('"spec":{', '"spec":{"services":{"fe":{', 1) + "}}" if annotation.startswith("{") else annotation
    return json.dumps({
        "apiVersion": "nvidia.com/v1beta1",
        "kind": "DynamoGraphDeployment",
        "metadata": {"name": "g", "namespace": "llm", "annotations": {"nvidia.com/dgd-spec": services}},
        "spec": {"components": [{"name": "fe", "type": "frontend", "podTemplate": {"spec": {"containers": [{"name": "main", "image": "nvcr.io/x:0.9.0"}]}}}]},
    })


CASES = [
    *[(f"v1beta1-dcd-{k}", beta_dcd(v), "nvidia.com/dcd-spec") for k, v in MALFORMED.items()],
    *[(f"v1alpha1-dcd-{k}", alpha_dcd(v), "nvidia.com/dcd-spec") for k, v in MALFORMED_HUB.items()],
    *[(f"v1beta1-dgd-{k}", beta_dgd(v), "nvidia.com/dgd-spec") for k, v in MALFORMED.items()],
]


def _one_line_at(stderr: str, key: str) -> None:
    lines = [line for line in stderr.splitlines() if "[error]" in line]
    assert len(lines) == 1, stderr[:2000]
    assert f"metadata.annotations[{key}]: " in lines[0], lines[0][:500]
    assert "Traceback" not in stderr


@pytest.mark.parametrize("runner", [run_render, run_cmp, run_validate], ids=["render", "cmp", "validate"])
@pytest.mark.parametrize(("text", "key"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_one_error_at_the_annotation(runner: Any, text: str, key: str, tmp_path: Path) -> None:
    code, stdout, stderr = runner(text, tmp_path)
    assert code == 1, stderr
    assert stdout == ""
    _one_line_at(stderr, key)


@pytest.mark.parametrize(("text", "key"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_krm_function(text: str, key: str) -> None:
    code, stdout, stderr = run_krm(_resource_list_yaml(text))
    assert code == 1
    _one_line_at(stderr, key)


@pytest.mark.parametrize("text", [alpha_dcd(v) for v in MALFORMED_HUB.values()], ids=list(MALFORMED_HUB))
def test_convert(text: str, tmp_path: Path) -> None:
    path = tmp_path / "in.yaml"
    path.write_text(text)
    out, err = io.StringIO(), io.StringIO()
    assert convert.run_stream([str(path)], "yaml", out, err) == 1
    assert out.getvalue() == ""
    _one_line_at(err.getvalue(), "nvidia.com/dcd-spec")


def test_type_error_is_worded_as_encoding_json(tmp_path: Path) -> None:
    code, _, stderr = run_render(beta_dcd(MALFORMED["label-number"]), tmp_path)
    assert code == 1
    assert (
        "json: cannot unmarshal number into Go struct field "
        "DynamoComponentDeploymentSpec.spec.DynamoComponentDeploymentSharedSpec.labels of type string"
    ) in stderr


def _with_status(text: str) -> str:
    obj = json.loads(beta_dcd("{}"))
    obj["metadata"]["annotations"] = {"nvidia.com/dcd-status": text}
    return json.dumps(obj)


def test_a_null_status_annotation_is_the_zero_status(tmp_path: Path) -> None:
    """json.Unmarshal of null leaves the status zero: nothing to restore (was exit 3, found by the fuzz test)."""
    code, stdout, stderr = run_render(_with_status("null"), tmp_path)
    assert code == 0, stderr
    assert stdout


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"podSelector":1}', "unmarshal nvidia.com/dcd-status annotation: json: cannot unmarshal number into Go struct field "
         "DynamoComponentDeploymentStatus.podSelector of type map[string]string"),
        ("[1]", "unmarshal nvidia.com/dcd-status annotation: json: cannot unmarshal array into Go value of type "
         "v1alpha1.DynamoComponentDeploymentStatus"),
    ],
    ids=["pod-selector-number", "array"],
)
def test_a_status_annotation_that_does_not_decode_fails_as_in_the_operator(text: str, message: str, tmp_path: Path) -> None:
    code, _, stderr = run_render(_with_status(text), tmp_path)
    assert code == 1
    _one_line_at(stderr, "nvidia.com/dcd-status")
    assert message in stderr
