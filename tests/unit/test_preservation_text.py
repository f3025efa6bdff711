"""Malformed preservation annotations: one error at the annotation, in encoding/json's words.

The expected texts are what Go 1.26's encoding/json prints for the same struct layout (the
operator builds with Go 1.26): ``UnmarshalTypeError`` names the struct holding the field and
the JSON path from the root with the Go names of embedded structs, map keys left out; the
first type mismatch wins; syntax errors are the scanner's texts.
"""

from __future__ import annotations

import json

import pytest

from renderer import consts
from renderer.conversion.preserved_text import check_spec_annotation, check_status_annotation
from renderer.results import RenderError

DCD = consts.ANNOTATION_DCD_SPEC
DGD = consts.ANNOTATION_DGD_SPEC
ENVELOPE_ALPHA = "preservedSpecEnvelope[github.com/ai-dynamo/dynamo/deploy/operator/api/v1alpha1.DynamoComponentDeploymentSpec]"
SHARED = "DynamoComponentDeploymentSpec.spec.DynamoComponentDeploymentSharedSpec"

CASES = [
    ("labels-list", DCD, "v1alpha1", '{"version":1,"spec":{"labels":[1]}}',
     f"json: cannot unmarshal array into Go struct field {SHARED}.labels of type map[string]string"),
    ("label-number", DCD, "v1alpha1", '{"version":1,"spec":{"labels":{"a":1}}}',
     f"json: cannot unmarshal number into Go struct field {SHARED}.labels of type string"),
    ("annotation-bool", DCD, "v1alpha1", '{"version":1,"spec":{"annotations":{"a":true}}}',
     f"json: cannot unmarshal bool into Go struct field {SHARED}.annotations of type string"),
    ("first-mismatch-wins", DCD, "v1alpha1", '{"version":1,"spec":{"labels":{"a":true},"replicas":1.5}}',
     f"json: cannot unmarshal bool into Go struct field {SHARED}.labels of type string"),
    ("int32-range", DCD, "v1alpha1", '{"version":1,"spec":{"replicas":99999999999}}',
     f"json: cannot unmarshal number 99999999999 into Go struct field {SHARED}.replicas of type int32"),
    ("version-string", DCD, "v1alpha1", '{"version":"x","spec":{}}',
     f"json: cannot unmarshal string into Go struct field {ENVELOPE_ALPHA}.version of type int"),
    ("spec-array", DCD, "v1alpha1", '{"version":1,"spec":[]}',
     f"json: cannot unmarshal array into Go struct field {ENVELOPE_ALPHA}.spec of type v1alpha1.DynamoComponentDeploymentSpec"),
    ("container-name", DCD, "v1alpha1", '{"version":1,"spec":{"extraPodSpec":{"containers":[{"name":1}]}}}',
     "json: cannot unmarshal number into Go struct field "
     "Container.spec.DynamoComponentDeploymentSharedSpec.extraPodSpec.PodSpec.containers.name of type string"),
    ("main-command", DCD, "v1alpha1", '{"version":1,"spec":{"extraPodSpec":{"mainContainer":{"command":"x"}}}}',
     "json: cannot unmarshal string into Go struct field "
     "Container.spec.DynamoComponentDeploymentSharedSpec.extraPodSpec.mainContainer.command of type []string"),
    ("pod-bool", DCD, "v1alpha1", '{"version":1,"spec":{"extraPodSpec":{"hostPID":"x"}}}',
     "json: cannot unmarshal string into Go struct field "
     "ExtraPodSpec.spec.DynamoComponentDeploymentSharedSpec.extraPodSpec.PodSpec.hostPID of type bool"),
    ("case-insensitive-key", DCD, "v1alpha1", '{"version":1,"spec":{"Labels":{"a":1}}}',
     f"json: cannot unmarshal number into Go struct field {SHARED}.labels of type string"),
    ("raw-base64", DCD, "v1alpha1", '{"version":1,"spec":{},"rawJSON":[{"raw":"!!"}]}',
     "illegal base64 data at input byte 0"),
    ("raw-number", DCD, "v1alpha1", '{"version":1,"spec":{},"rawJSON":[{"raw":1}]}',
     "json: cannot unmarshal number into Go struct field preservedRawJSON.rawJSON.raw of type []uint8"),
    ("not-an-object", DCD, "v1alpha1", "[1]",
     "json: cannot unmarshal array into Go value of type map[string]json.RawMessage"),
    ("unterminated", DCD, "v1alpha1", '{"version":1,"spec":{', "unexpected end of JSON input"),
    ("after-key", DCD, "v1alpha1", '{"a" 1}', "invalid character '1' after object key"),
    ("trailing", DCD, "v1alpha1", '{"version":1,"spec":{}} x', "invalid character 'x' after top-level value"),
    ("legacy-bare-spec", DCD, "v1alpha1", '{"labels":{"a":1}}',
     "json: cannot unmarshal number into Go struct field "
     "DynamoComponentDeploymentSpec.DynamoComponentDeploymentSharedSpec.labels of type string"),
    ("dgd-service-labels", DGD, "v1alpha1", '{"version":1,"spec":{"services":{"fe":{"labels":[1]}}}}',
     "json: cannot unmarshal array into Go struct field "
     "DynamoComponentDeploymentSharedSpec.spec.services.labels of type map[string]string"),
    ("hub-replicas", DCD, "v1beta1", '{"version":1,"spec":{"replicas":"2"}}',
     "json: cannot unmarshal string into Go struct field DynamoComponentDeploymentSpec.spec"),
]


@pytest.mark.parametrize(("key", "version", "text", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_go_unmarshal_wording(key: str, version: str, text: str, expected: str) -> None:
    with pytest.raises(RenderError) as caught:
        check_spec_annotation(text, key, version)
    assert caught.value.field == f"metadata.annotations[{key}]"
    assert caught.value.message.startswith(expected), caught.value.message
    assert "\n" not in caught.value.message


@pytest.mark.parametrize(
    "text",
    [
        '{"version":1,"spec":{"labels":{"a":"b"},"replicas":2}}',
        '{"version":1,"spec":{"labels":null},"rawJSON":[{"path":"serviceName","nil":true}]}',
        '{"labels":{"a":"b"}}',
        "null",
        '{"version":1,"spec":{"unknownField":[1,{"x":2}]}}',
        '{"version":1,"spec":{"extraPodSpec":{"containers":[{"name":"a","resources":{"limits":{"cpu":2}}}]}}}',
    ],
)
def test_decodable_annotations_pass(text: str) -> None:
    check_spec_annotation(text, DCD, "v1alpha1")


def test_quantity_error_stops_decoding() -> None:
    """A Quantity's UnmarshalJSON error ends the decode and wins over an earlier type mismatch."""
    text = '{"version":1,"spec":{"labels":{"a":1},"extraPodSpec":{"containers":[{"name":"a","resources":{"limits":{"cpu":"x"}}}]}}}'
    with pytest.raises(RenderError) as caught:
        check_spec_annotation(text, DCD, "v1alpha1")
    assert caught.value.message.startswith("quantities must match the regular expression")


@pytest.mark.parametrize(
    "text",
    ["[" * 5000, '{"version":1,"spec":{"labels":' + '{"a":' * 3000 + "1" + "}" * 3000 + "}}", "[" * 101 + "]" * 101],
    ids=["5000-brackets", "labels-3000-deep", "101-levels"],
)
def test_depth_limit_as_for_yaml_and_json_input(text: str) -> None:
    with pytest.raises(RenderError) as caught:
        check_spec_annotation(text, DCD, "v1alpha1")
    assert caught.value.message == f"annotation JSON nesting is too deep (more than {consts.MAX_DEPTH} levels)"


def test_depth_limit_counts_levels_not_brackets_in_strings() -> None:
    inner = "[" * 99 + "]" * 99
    check_spec_annotation(json.dumps({"labels": {"a": "[" * 500}, "x": json.loads(inner)}), DCD, "v1alpha1")


def test_status_annotation_error_is_the_webhooks() -> None:
    with pytest.raises(RenderError) as caught:
        check_status_annotation('{"podSelector":1}', consts.ANNOTATION_DCD_STATUS)
    assert caught.value.message == (
        "unmarshal nvidia.com/dcd-status annotation: json: cannot unmarshal number into Go struct field "
        "DynamoComponentDeploymentStatus.podSelector of type map[string]string"
    )


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"version":1,"spec":{"livenessProbe":{"httpGet":{"port":true}}}}',
         "json: cannot unmarshal bool into Go struct field "
         "HTTPGetAction.spec.DynamoComponentDeploymentSharedSpec.livenessProbe.ProbeHandler.httpGet.port of type int32"),
        # an UnmarshalJSON error (IntOrString) wins over an earlier type mismatch
        ('{"version":1,"spec":{"labels":{"a":1},"livenessProbe":{"httpGet":{"port":1.5}}}}',
         "json: cannot unmarshal number 1.5 into Go struct field "
         "HTTPGetAction.spec.DynamoComponentDeploymentSharedSpec.livenessProbe.ProbeHandler.httpGet.port of type int32"),
    ],
    ids=["int-or-string-bool", "unmarshaler-error-wins"],
)
def test_unmarshaler_errors_carry_the_field_context(text: str, expected: str) -> None:
    with pytest.raises(RenderError) as caught:
        check_spec_annotation(text, DCD, "v1alpha1")
    assert caught.value.message.startswith(expected), caught.value.message


def test_a_time_in_a_status_annotation() -> None:
    with pytest.raises(RenderError) as caught:
        check_status_annotation('{"conditions":[{"type":"Ready","lastTransitionTime":5}]}', consts.ANNOTATION_DCD_STATUS)
    assert caught.value.message == (
        "unmarshal nvidia.com/dcd-status annotation: json: cannot unmarshal number into Go struct field "
        "Condition.conditions.lastTransitionTime of type string"
    )
