"""Every JSON value the operator writes comes out as Go's encoding/json writes it.

Go's ``json.Marshal`` escapes ``<``, ``>`` and ``&`` as ``\\u003c``, ``\\u003e``, ``\\u0026`` and prints
float64 values with the shortest digits, in exponent form below 1e-6 and from 1e21 with a
negative exponent unpadded (``1e-7``, ``1e+21``). The expected strings below are what Go 1.26's
json.Marshal and strconv.FormatFloat print for the same values:

    json.Marshal("a<b&c>d")                     "a\\u003cb\\u0026c\\u003ed"
    json.Marshal(1e-7), (1e21), (1e20)          1e-7, 1e+21, 100000000000000000000
    json.Marshal(5e-324), (math.MaxFloat64)     5e-324, 1.7976931348623157e+308
    FormatFloat(math.MaxFloat32, 'g', -1, 32)   3.4028235e+38
    FormatFloat(1.401298464324817e-45, 'g', -1, 32)   1e-45 (smallest float32)
    FormatFloat(1.1754943508222875e-38, 'g', -1, 32)  1.1754944e-38 (smallest normal float32)
    FormatFloat(16777217, 'g', -1, 32)          1.6777216e+07 (rounded to float32)

Writers covered: the ``nvidia.com/dgdr-spec`` annotation of a converted DGDR (profilingConfig
blob remainder), its ``nvidia.com/dgdr-status`` annotation (the v1alpha1 status fields v1beta1
cannot hold: strings and a bool only, so float text travels inside strings; Go 1.26 prints the
status of ``test_dgdr_status_annotation_escapes_as_go`` byte for byte as expected there, and
refuses a number for a string field: ``json: cannot unmarshal number into Go struct field
...backend of type string``), the ``nvidia.com/dcd-spec`` preservation annotation, DYN_DEPLOYMENT_CONFIG as
the operator rewrites it (internal/dynamo/graph.go updateDynDeploymentConfigBytes), and map keys
that YAML gives as floats (sigs.k8s.io/yaml formats them as float32).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from renderer.conversion.requests import dgdr_to_v1beta1
from renderer.conversion.to_v1beta1 import dcd_to_v1beta1
from renderer.gocompat.gofloat import format_float_g, go_float
from renderer.gocompat.gojson import go_json_untyped
from renderer.gocompat.goleaves import key_text
from renderer.graph.dyn_deployment_config import rewrite_frontend_port
from renderer.results import RenderError

HTML = "a<b&c>d"
HTML_GO = '"a\\u003cb\\u0026c\\u003ed"'
MAX64 = 1.7976931348623157e308


def test_dgdr_spec_annotation_escapes_and_formats_floats_as_go() -> None:
    blob = {"note": HTML, "sweep": {"min": 1e-7, "max": 1e21, "tiny": 5e-324, "huge": MAX64, "half": 0.5, "n": 1e20}}
    obj: dict[str, Any] = {
        "apiVersion": "nvidia.com/v1alpha1",
        "kind": "DynamoGraphDeploymentRequest",
        "metadata": {"name": "r", "namespace": "ns"},
        "spec": {"model": "m", "backend": "vllm", "profilingConfig": {"profilerImage": "img", "config": blob}},
    }
    ann = dgdr_to_v1beta1(obj)["metadata"]["annotations"]["nvidia.com/dgdr-spec"]
    # the unprojected blob keys are saved as a map[string]any: keys sorted, Go escaping and floats
    want = (
        '"config":{"note":' + HTML_GO + ',"sweep":{"half":0.5,"huge":1.7976931348623157e+308,'
        '"max":1e+21,"min":1e-7,"n":100000000000000000000,"tiny":5e-324}}'
    )
    assert want in ann
    assert json.loads(ann)["spec"]["profilingConfig"]["config"] == blob


def _dgdr_with_status(status: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": "nvidia.com/v1alpha1",
        "kind": "DynamoGraphDeploymentRequest",
        "metadata": {"name": "r", "namespace": "ns"},
        "spec": {"model": "m", "backend": "vllm"},
        "status": status,
    }


# float text at the edges of float64 and float32, as strconv writes it
FLOAT_TEXT = "ttft<=1e-07 & tps>1e+21, min 5e-324, max 1.7976931348623157e+308, f32 3.4028235e+38 1e-45"


def test_dgdr_status_annotation_escapes_as_go() -> None:
    status = {
        "state": "Custom<&>",
        "backend": HTML,
        "observedGeneration": 3,
        "profilingResults": FLOAT_TEXT,
        "deployment": {"name": "d<1>", "namespace": "n&s", "state": "s>t", "created": True},
    }
    ann = dgdr_to_v1beta1(_dgdr_with_status(status))["metadata"]["annotations"]["nvidia.com/dgdr-status"]
    # json.Marshal of the v1alpha1 DynamoGraphDeploymentRequestStatus save (Go 1.26)
    assert ann == (
        '{"state":"Custom\\u003c\\u0026\\u003e","backend":"a\\u003cb\\u0026c\\u003ed",'
        '"profilingResults":"ttft\\u003c=1e-07 \\u0026 tps\\u003e1e+21, min 5e-324, max 1.7976931348623157e+308,'
        ' f32 3.4028235e+38 1e-45","deployment":{"name":"d\\u003c1\\u003e","namespace":"n\\u0026s",'
        '"state":"s\\u003et","created":true}}'
    )
    assert json.loads(ann)["profilingResults"] == FLOAT_TEXT


@pytest.mark.parametrize(
    ("field", "value"),
    [("backend", 1e-7), ("profilingResults", 5e-324), ("state", 1e21), ("profilingResults", MAX64), ("backend", 3.4028234663852886e38)],
)
def test_dgdr_status_number_for_a_string_field_is_refused(field: str, value: float) -> None:
    # Go's decode of the stored status fails before the conversion could save anything
    status: dict[str, Any] = {"state": "Custom", "backend": "vllm", field: value}
    with pytest.raises(RenderError) as caught:
        dgdr_to_v1beta1(_dgdr_with_status(status))
    assert (caught.value.field, caught.value.message) == (f"status.{field}", "expected string, got number")


def test_dgdr_status_deployment_fields_are_typed() -> None:
    status = {"state": "Custom", "deployment": {"name": "d", "created": 1e-7}}
    with pytest.raises(RenderError) as caught:
        dgdr_to_v1beta1(_dgdr_with_status(status))
    assert (caught.value.field, caught.value.message) == ("status.deployment.created", "expected boolean, got number")


def test_dcd_spec_annotation_escapes_as_go() -> None:
    obj = {
        "apiVersion": "nvidia.com/v1alpha1",
        "kind": "DynamoComponentDeployment",
        "metadata": {"name": "w", "namespace": "ns"},
        "spec": {"backendFramework": "vllm", "componentType": "worker", "dynamoNamespace": HTML, "annotations": {"x&y": HTML}},
    }
    ann = dcd_to_v1beta1(obj)["metadata"]["annotations"]["nvidia.com/dcd-spec"]
    assert '"annotations":{"x\\u0026y":' + HTML_GO + '},"dynamoNamespace":' + HTML_GO in ann


def test_dyn_deployment_config_rewrite_writes_go_json() -> None:
    raw = json.dumps({"Frontend": {"port": 1, "note": HTML, "f": [1e-7, 1e21, 5e-324, MAX64, 0.5]}})
    assert rewrite_frontend_port(raw, "Frontend", 8000) == (
        '{"Frontend":{"f":[1e-7,1e+21,5e-324,1.7976931348623157e+308,0.5],"note":' + HTML_GO + ',"port":8000}}'
    )


@pytest.mark.parametrize(
    ("value", "text"),
    [(1e-7, "1e-7"), (1e21, "1e+21"), (1e20, "100000000000000000000"), (5e-324, "5e-324"), (MAX64, "1.7976931348623157e+308"),
     (0.000001, "0.000001"), (123456789.0, "123456789"), (3.0, "3")],
)
def test_json_floats(value: float, text: str) -> None:
    assert go_float(value) == text
    assert go_json_untyped({"v": value}) == '{"v":' + text + "}"


@pytest.mark.parametrize(
    ("value", "text"),
    [(3.4028234663852886e38, "3.4028235e+38"), (1.401298464324817e-45, "1e-45"), (1.1754943508222875e-38, "1.1754944e-38"),
     (16777217.0, "1.6777216e+07"), (0.1, "0.1"), (1e-5, "1e-05"), (1e6, "1e+06"), (100000.0, "100000"), (3.5e38, ".inf")],
)
def test_float32_map_keys(value: float, text: str) -> None:
    # sigs.k8s.io/yaml: strconv.FormatFloat(key, 'g', -1, 32), +Inf spelled .inf
    assert format_float_g(value, bits=32) == text
    assert key_text(value) == text


def test_float64_g() -> None:
    assert [format_float_g(v) for v in (16777217.0, 1e-5, 1e6, 3.5e38)] == ["1.6777217e+07", "1e-05", "1e+06", "3.5e+38"]
