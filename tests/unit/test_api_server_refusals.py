"""Objects the API server would refuse are errors in every front end, never output.

Restated from k8s.io/kubernetes pkg/apis/core/validation (validateEnvVarName with relaxed
environment variable names, ValidateResourceRequirements: quantities non-negative, extended
resources such as GPUs whole numbers in the API server's own workload kinds) and the decoder's
refusal of anything but an object with a kind.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from plugin.frontends import render as render_frontend
from tests.builders import dcd
from tests.positions import line_of



def render(text: str, tmp_path: Path) -> tuple[int, str, str]:
    path = tmp_path / "input.yaml"
    path.write_text(text)
    out, err = io.StringIO(), io.StringIO()
    code = render_frontend.run([str(path)], {}, out, err)
    return code, out.getvalue(), err.getvalue()


REFUSED = {
    "empty-env-name": (dcd("front", type="frontend", main={"env": [{"name": "", "value": "x"}]}), "env[0].name"),
    "env-name-with-equals": (dcd("front", type="frontend", main={"env": [{"name": "A=B", "value": "x"}]}), "env[0].name"),
    "non-ascii-env-name": (dcd("front", type="frontend", main={"env": [{"name": "名前", "value": "x"}]}), "env[0].name"),
    "negative-memory": (dcd("front", type="frontend", main={"resources": {"limits": {"memory": "-1Gi"}}}), "resources.limits.memory"),
    "negative-cpu-request": (dcd("front", type="frontend", main={"resources": {"requests": {"cpu": "-100m"}}}), "resources.requests.cpu"),
    # extended resources are whole numbers (ValidateResourceQuantityValue, isNotIntegerErrorMsg):
    # the rendered Deployment would be refused
    "half-a-gpu": (
        dcd("front", type="frontend", main={"resources": {"limits": {"nvidia.com/gpu": "0.5"}}}),
        'resources.limits.nvidia.com/gpu: invalid quantity "500m": must be an integer',
    ),
    "gpu-request-in-millis": (
        dcd("front", type="frontend", main={"resources": {"requests": {"nvidia.com/gpu": "1500m"}}}), "resources.requests.nvidia.com/gpu"
    ),
}


@pytest.mark.parametrize("quantity", ["1", "2000m", "4"])
def test_whole_gpu_quantities_are_accepted(quantity: str, tmp_path: Path) -> None:
    code, _, stderr = render(json.dumps(dcd("front", type="frontend", main={"resources": {"limits": {"nvidia.com/gpu": quantity}}})), tmp_path)
    assert code == 0, stderr


@pytest.mark.parametrize("case", list(REFUSED))
def test_pod_fields_the_api_server_refuses(case: str, tmp_path: Path) -> None:
    obj, field = REFUSED[case]
    code, stdout, stderr = render(json.dumps(obj), tmp_path)
    assert code == 1 and stdout == "", stderr
    assert field in stderr, stderr


@pytest.mark.parametrize(
    "env_name", ["A", "a.b", "_x", "with space", "1ABC", "-dash", "~!@#$%^&*()"]
)
def test_env_names_the_api_server_accepts(env_name: str, tmp_path: Path) -> None:
    code, _, stderr = render(json.dumps(dcd("front", type="frontend", main={"env": [{"name": env_name, "value": "x"}]})), tmp_path)
    assert code == 0, stderr


@pytest.mark.parametrize(
    "text,what",
    [
        ("--- 42\n", "bare scalar"),
        ("--- hello\n", "bare scalar"),
        ("- a\n- b\n", "bare list"),
        ("apiVersion: v1\nkind: List\nitems:\n- null\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: c\n", "null item"),
        ("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: n}\n", "name read as false"),
        ("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: y}\n", "name read as true"),
        ("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: 12}\n", "name read as a number"),
        ("kind: ConfigMap\nmetadata: {name: c}\n", "no apiVersion"),
        ("apiVersion: v1\nmetadata: {name: c}\n", "no kind"),
    ],
)
def test_documents_the_api_server_refuses(text: str, what: str, tmp_path: Path) -> None:
    code, stdout, stderr = render(text + "---\n" + json.dumps(dcd("front", type="frontend")), tmp_path)
    assert code == 1 and stdout == "", f"{what}: {stderr}"
    assert "input.yaml" in stderr


@pytest.mark.parametrize(
    ("claims", "refused"),
    [
        ([{"name": "gpu"}, {"name": "gpu"}], True),
        ([{"name": "gpu", "request": "a"}, {"name": "gpu", "request": "b"}], False),
        ([{"name": "gpu", "request": "a"}, {"name": "gpu", "request": "a"}], True),
    ],
    ids=["same-name", "same-name-other-request", "same-name-and-request"],
)
def test_container_resource_claims_are_keyed_by_name_and_request(claims: list[dict[str, str]], refused: bool) -> None:
    """validateResourceClaimNames: a claim repeats when its name and request both repeat."""
    from renderer.admission.apiserver import refused as refusals

    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "w", "namespace": "ns"},
        "spec": {
            "template": {
                "spec": {
                    "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "t"}],
                    "containers": [{"name": "main", "image": "i", "resources": {"claims": claims}}],
                }
            }
        },
    }
    messages = [r.message for r in refusals(deployment)]
    assert (messages == ['duplicate value "gpu"']) is refused, messages


# Issue 27 §7: pass-through objects the API server refuses as it decodes them.
DECODE_REFUSED = {
    "metadata-a-string": ("apiVersion: v1\nkind: ConfigMap\nmetadata: c\n", "ConfigMap/<unnamed> metadata: must be an object (got string)"),
    "metadata-a-list": ("apiVersion: v1\nkind: ConfigMap\nmetadata: [a]\n", "metadata: must be an object (got array)"),
    "label-key-two-slashes": (
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  labels:\n    bad/label/key: v\n",
        'ConfigMap/x metadata.labels[bad/label/key]: invalid label key "bad/label/key"',
    ),
    "label-value-too-long": (
        f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  labels:\n    a: {'v' * 64}\n",
        "must be no more than 63 characters",
    ),
    "label-value-a-number": ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  labels:\n    a: 1\n", "metadata.labels[a]: must be a string (got integer)"),
    "labels-a-list": ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  labels: [a]\n", "metadata.labels: must be an object of strings"),
    "annotation-key-bad": ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  annotations:\n    a/b/c: v\n", 'invalid annotation key "a/b/c"'),
    "secret-data-a-map": ("apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\ndata:\n  k:\n    a: b\n", "Secret/s data[k]: must be a string (got object)"),
    "secret-string-data-a-number": ("apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\nstringData:\n  k: 5\n", "Secret/s stringData[k]: must be a string"),
    "configmap-data-a-list": ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  k: [1]\n", "ConfigMap/c data[k]: must be a string (got array)"),
}


@pytest.mark.parametrize("case", list(DECODE_REFUSED))
def test_pass_through_objects_the_api_server_refuses(case: str, tmp_path: Path) -> None:
    text, expected = DECODE_REFUSED[case]
    code, stdout, stderr = render(text, tmp_path)
    assert code == 1 and stdout == "", stderr
    # the line of the field the message names: its last key, written on the text's last line
    # (a nested value's key, for a Secret's data map)
    needle = "  k:" if case == "secret-data-a-map" else text.splitlines()[-1]
    assert f"input.yaml:{line_of(text, needle)}: [error]" in stderr and expected in stderr, stderr


@pytest.mark.parametrize(
    "text",
    [
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  labels:\n    app.kubernetes.io/name: web\n    a: ''\n",
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\ndata:\n  k: dmFsdWU=\nstringData:\n  j: v\n",
        "apiVersion: example.com/v1\nkind: Secret\nmetadata:\n  name: s\ndata:\n  k: {nested: 1}\n",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  annotations:\n    Example.COM/Key: v\n",
    ],
    ids=["labels", "secret", "custom-secret-kind", "annotation-key-upper-case"],
)
def test_pass_through_objects_the_api_server_accepts(text: str, tmp_path: Path) -> None:
    code, stdout, stderr = render(text, tmp_path)
    assert code == 0 and stdout, stderr
