"""EPP side objects of a DGD, the go-yaml v2 text behind the EPP ConfigMap, and the other DGD
side objects (discovery label truncation, scaling adapters, emitted DCDs).

Expected values are the upstream tests' own: go.yaml.in/yaml/v2 v2.4.3 encode_test.go
(marshalTests, TestLineWrapping, TestSortedOutput), sigs.k8s.io/yaml v1.6.0 yaml_test.go
(TestYAMLToJSON's JSONToYAML direction), internal/discovery/resource_test.go and
internal/dynamo/graph_test.go.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from renderer.objects import companions, epp
from renderer.gocompat import goyaml
from plugin.settings import Settings
from renderer.config import RenderConfig, build_render_config
from renderer.operator_config import ServiceMesh, parse_operator_config
from renderer.graph.dgd import PROVIDER_COMPONENT, PROVIDER_GROVE
from renderer.graph.dgd_parse import workload_provider
from renderer.graph.expand import dcd_as_written
from renderer.results import RenderError, Severity

# -- go-yaml v2 marshal ------------------------------------------------------------------------

# go-yaml v2.4.3 encode_test.go marshalTests (the entries whose values JSON can express)
MARSHAL_TESTS: list[tuple[Any, str]] = [
    ({"v": "hi"}, "v: hi\n"),
    ({"v": "true"}, 'v: "true"\n'),
    ({"v": "false"}, 'v: "false"\n'),
    ({"v": True}, "v: true\n"),
    ({"v": False}, "v: false\n"),
    ({"v": 10}, "v: 10\n"),
    ({"v": -10}, "v: -10\n"),
    ({"v": 4294967296}, "v: 4294967296\n"),
    ({"v": "10"}, 'v: "10"\n'),
    ({"v": 0.1}, "v: 0.1\n"),
    ({"v": -0.1}, "v: -0.1\n"),
    ({"v": None}, "v: null\n"),
    ({"v": ""}, 'v: ""\n'),
    ({"v": ["A", "B"]}, "v:\n- A\n- B\n"),
    ({"v": ["A", "B\nC"]}, "v:\n- A\n- |-\n  B\n  C\n"),
    ({"v": ["A", 1, {"B": [2, 3]}]}, "v:\n- A\n- 1\n- B:\n  - 2\n  - 3\n"),
    ({"a": {"b": "c"}}, "a:\n  b: c\n"),
    ({"a": "-"}, "a: '-'\n"),
    ({}, "{}\n"),
    ({"a": "<foo>"}, "a: <foo>\n"),
    ({"a": "1:1"}, 'a: "1:1"\n'),
    ({"a": "\x00"}, 'a: "\\0"\n'),
    ({"a": "你好"}, "a: 你好\n"),
    ({"a": "2015-02-24T18:19:39Z"}, 'a: "2015-02-24T18:19:39Z"\n'),
    ({"a": "b: c"}, "a: 'b: c'\n"),
    ({"a": "Hello #comment"}, "a: 'Hello #comment'\n"),
    ({"a": "你好 #comment"}, "a: '你好 #comment'\n"),
]


@pytest.mark.parametrize(("value", "text"), MARSHAL_TESTS, ids=[t for _, t in MARSHAL_TESTS])
def test_go_yaml_marshal_tests(value: Any, text: str) -> None:
    assert goyaml.marshal(value) == text


def test_go_yaml_line_wrapping() -> None:
    # encode_test.go TestLineWrapping (default width 80; single-quoted because of the trailing space)
    long = (
        "abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ 1234567890 "
        "abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ 1234567890 "
    )
    assert goyaml.marshal({"a": long}) == (
        "a: 'abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ 1234567890 abcdefghijklmnopqrstuvwxyz\n"
        "  ABCDEFGHIJKLMNOPQRSTUVWXYZ 1234567890 '\n"
    )


def test_go_yaml_sorted_output() -> None:
    # encode_test.go TestSortedOutput, its string keys
    order = [
        "", ".1", ".2", ".a", "1", "2", "a!10", "a/0001", "a/002", "a/3", "a/10", "a/11", "a/0012", "a/100",
        "a~10", "ab/1", "b/1", "b/01", "b/2", "b/02", "b/3", "b/03", "b1", "b01", "b3", "c2.10", "c10.2",
        "d1", "d7", "d7abc", "d12", "d12a",
    ]  # fmt: skip
    shuffled = order[:]
    random.Random(7).shuffle(shuffled)
    assert goyaml.sorted_keys(shuffled) == order


# sigs.k8s.io/yaml yaml_test.go TestYAMLToJSON, read in the JSONToYAML direction
JSON_TO_YAML: list[tuple[str, str]] = [
    ('{"t":"a"}', "t: a\n"),
    ('{"t":null}', "t: null\n"),
    ('{"t":true}', "t: true\n"),
    ('{"t":9007199254740993}', "t: 9007199254740993\n"),
    ('{"t":1e+36}', "t: 1e+36\n"),
    (
        '{"t":"this is very long line with spaces and it must be longer than 80 so we will repeat that it must be longer that 80"}',
        "t: this is very long line with spaces and it must be longer than 80 so we will repeat\n  that it must be longer that 80\n",
    ),
    ('{"true":"a"}', '"true": a\n'),
    ('{"false":"a"}', '"false": a\n'),
    ('{"1":"a"}', '"1": a\n'),
    ('{"1.2":"a"}', '"1.2": a\n'),
    ('{"1e+36":"a"}', '"1e+36": a\n'),
    ('{"null":"a"}', '"null": a\n'),
    ('[{"t":"a"}]', "- t: a\n"),
    ('[{"t":"a"},{"t":{"b":1,"c":2}}]', "- t: a\n- t:\n    b: 1\n    c: 2\n"),
    ('[{"t":null}]', "- t: null\n"),
    ('{"a":"\\ufffd\\ufffd\\ufffd"}', "a: \ufffd\ufffd\ufffd\n"),
]


@pytest.mark.parametrize(("doc", "text"), JSON_TO_YAML, ids=[d for d, _ in JSON_TO_YAML])
def test_json_to_yaml(doc: str, text: str) -> None:
    assert goyaml.marshal(json.loads(doc)) == text


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (2.0, "2"),  # JSON prints 2; go-yaml reads an int
        (1e6, "1000000"),  # encoding/json prints integral floats below 1e21 without an exponent
        (1.5e6, "1500000"),  # integral: JSON prints 1500000, go-yaml reads an int
        (1234567.5, "1.2345675e+06"),  # a float from an exponent of 6 on: %g with shortest digits
        (123456.5, "123456.5"),
        (1e-5, "1e-05"),
        (0.0001, "0.0001"),
        (1e21, "1e+21"),
        (-0.0, "0"),  # "-0" reads back as the int 0
    ],
)
def test_numbers_read_back_as_go_yaml_does(value: float, text: str) -> None:
    assert goyaml.marshal({"v": value}) == f"v: {text}\n"


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ("on", '"on"'),
        ("<<", "<<"),  # not resolved: "<" has no entry in go-yaml's resolve table
        ("0x1F", '"0x1F"'),
        ("1_000", '"1_000"'),
        ("2024-02-30", "2024-02-30"),  # no such date: time.Parse fails, so it stays a string
        ("2024-02-29", '"2024-02-29"'),
        ("12:30", '"12:30"'),  # base-60 float notation
        # strconv.ParseFloat fails with a range error on both: go-yaml resolves them as strings
        (".5e400", ".5e400"),
        ("1e400", "1e400"),
        (".5", '".5"'),
        ("- item", "'- item'"),
        ("tab\there", '"tab\\there"'),
        ("emoji \U0001f600", '"emoji \\U0001F600"'),  # 4-byte runes are not printable for go-yaml
        ("trailing\n", "|\n  trailing"),
        ("two\n\n", "|+\n  two\n"),
        (" lead\nx", "|2-\n   lead\n  x"),
        ("tail \nx", '"tail \\nx"'),  # a space before a break rules out the block style
    ],
)
def test_scalar_styles(value: str, text: str) -> None:
    assert goyaml.marshal({"k": value}) == f"k: {text}\n"


def test_complex_keys_are_refused() -> None:
    with pytest.raises(RenderError) as caught:
        goyaml.marshal({"a": {"x" * 129: 1}}, "spec.config")
    assert caught.value.field == "spec.config.a." + "x" * 129


# -- the EPP ConfigMap ----------------------------------------------------------------------------


def _gaie_agg_config() -> dict[str, Any]:
    # examples/backends/vllm/deploy/gaie/agg.yaml eppConfig.config (upstream example)
    return {
        "plugins": [
            {"type": "disagg-profile-handler"},
            {
                "name": "decode-filter",
                "parameters": {"allowsNoLabel": True, "label": "nvidia.com/dynamo-component-type", "validValues": ["decode"]},
                "type": "label-filter",
            },
            {"name": "picker", "type": "max-score-picker"},
        ],
        "schedulingProfiles": [
            {"name": "decode", "plugins": [{"pluginRef": "decode-filter", "weight": 1}, {"pluginRef": "picker", "weight": 1}]}
        ],
    }


def test_config_map_of_the_upstream_gaie_example() -> None:
    config_map = epp.render_config_map("qwen", "ns", "Epp", _gaie_agg_config(), "spec.components[0].eppConfig.config")
    assert config_map["metadata"] == {
        "name": "qwen-epp-config",
        "namespace": "ns",
        "labels": {
            "nvidia.com/dynamo-graph-deployment-name": "qwen",
            "nvidia.com/dynamo-component": "Epp",
            "nvidia.com/dynamo-component-type": "epp",
        },
    }
    assert config_map["data"] == {
        "epp-config-dynamo.yaml": (
            "apiVersion: inference.networking.x-k8s.io/v1alpha1\n"
            "kind: EndpointPickerConfig\n"
            "plugins:\n"
            '- name: ""\n'
            "  parameters: null\n"
            "  type: disagg-profile-handler\n"
            "- name: decode-filter\n"
            "  parameters:\n"
            "    allowsNoLabel: true\n"
            "    label: nvidia.com/dynamo-component-type\n"
            "    validValues:\n"
            "    - decode\n"
            "  type: label-filter\n"
            "- name: picker\n"
            "  parameters: null\n"
            "  type: max-score-picker\n"
            "schedulingProfiles:\n"
            "- name: decode\n"
            "  plugins:\n"
            "  - pluginRef: decode-filter\n"
            "    weight: 1\n"
            "  - pluginRef: picker\n"
            "    weight: 1\n"
        )
    }


def test_user_type_meta_is_overwritten_and_unknown_fields_dropped() -> None:
    raw = dict(_gaie_agg_config(), apiVersion="example.com/v9", kind="Other", extra={"x": 1})
    typed = epp.endpoint_picker_config(raw, "cfg")
    assert typed["apiVersion"] == "inference.networking.x-k8s.io/v1alpha1"
    assert typed["kind"] == "EndpointPickerConfig"
    assert "extra" not in typed
    problems = epp.check_endpoint_picker_config(raw, "cfg")
    assert [(p.field, p.severity) for p in problems] == [("cfg.extra", Severity.WARNING)]


def test_the_epp_dcd_keeps_the_stamped_type_meta_without_nulls() -> None:
    # the EPP reconciler stamps TypeMeta on the DGD's config before the DCDs are generated; the
    # API server prunes the typed marshal's nulls
    typed = epp.dcd_endpoint_picker_config(_gaie_agg_config(), "cfg")
    assert typed["kind"] == "EndpointPickerConfig"
    assert typed["plugins"][0] == {"name": "", "type": "disagg-profile-handler"}
    assert typed["plugins"][1]["parameters"]["validValues"] == ["decode"]


def test_a_non_object_plugin_is_left_to_the_type_check() -> None:
    raw = dict(_gaie_agg_config(), plugins=["picker"])
    assert epp.check_endpoint_picker_config(raw, "cfg") == []
    with pytest.raises(RenderError) as caught:
        epp.endpoint_picker_config(raw, "cfg")
    assert caught.value.field == "cfg.plugins[0]"


def test_a_wrongly_typed_config_value_names_its_field() -> None:
    raw = _gaie_agg_config()
    raw["schedulingProfiles"][0]["plugins"][0]["weight"] = "heavy"
    with pytest.raises(RenderError) as caught:
        epp.marshal_endpoint_picker_config(raw, "spec.components[0].eppConfig.config")
    assert caught.value.field == "spec.components[0].eppConfig.config.schedulingProfiles[0].plugins[0].weight"


# -- DestinationRule and the Istio gate ------------------------------------------------------------


def _config(mesh: dict[str, Any], api_versions: list[str] | None = None) -> RenderConfig:
    operator, problems = parse_operator_config(
        {
            "namespace": {"restricted": "ns"},
            "mpi": {"sshSecretName": "s", "sshSecretNamespace": "ns"},
            "serviceMesh": mesh,
        }
    )
    assert operator is not None, problems
    config, _ = build_render_config(operator, Settings(), api_versions)
    return config


def test_mutual_destination_rule_carries_the_certificates() -> None:
    # graph_test.go TestGenerateEPPDestinationRule_MUTUALPropagatesCerts
    mesh = ServiceMesh.model_validate(
        {
            "provider": "istio",
            "istio": {
                "tlsMode": "MUTUAL",
                "clientCertificate": "/etc/certs/client.pem",
                "privateKey": "/etc/certs/client.key",
                "caCertificates": "/etc/certs/ca.pem",
            },
        }
    )
    rule = epp.render_destination_rule("qwen-epp", "dynamo-cloud", mesh)
    assert rule["spec"]["trafficPolicy"]["tls"] == {
        "mode": "MUTUAL",
        "clientCertificate": "/etc/certs/client.pem",
        "privateKey": "/etc/certs/client.key",
        "caCertificates": "/etc/certs/ca.pem",
        "insecureSkipVerify": True,
    }


def test_destination_rule_without_istio_settings_has_no_spec() -> None:
    rule = epp.render_destination_rule("My.Graph-epp", "ns", ServiceMesh.model_validate({"provider": "istio"}))
    assert rule == {
        "apiVersion": "networking.istio.io/v1beta1",
        "kind": "DestinationRule",
        "metadata": {"name": "my-graph-epp", "namespace": "ns"},
    }


@pytest.mark.parametrize(
    ("mesh", "api_versions", "expected"),
    [
        ({}, None, (False, "")),
        ({"provider": "istio", "enabled": False}, None, (False, "")),
        ({"provider": "istio"}, None, (True, "")),
        ({"provider": "istio"}, ["v1", "networking.istio.io/v1beta1"], (True, "")),
        ({"provider": "istio"}, ["v1", "networking.istio.io/v1"], (False, "")),
        ({"provider": "istio", "enabled": True}, ["networking.istio.io/v1beta1/DestinationRule"], (True, "")),
    ],
)
def test_istio_gate(mesh: dict[str, Any], api_versions: list[str] | None, expected: tuple[bool, str]) -> None:
    assert epp.istio_gate(_config(mesh, api_versions)) == expected


def test_istio_gate_enabled_without_the_api_stops_the_operator() -> None:
    enabled, problem = epp.istio_gate(_config({"provider": "istio", "enabled": True}, ["v1"]))
    assert not enabled
    assert problem.startswith("service mesh is explicitly enabled in config but the networking.istio.io")


# -- other DGD side objects --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("short-name", "short-name"),
        ("a" * 63, "a" * 63),
        ("b" * 64, "b" * 54 + "-a0fab137"),  # resource_test.go: sha256(64 * "b") starts with a0fab137
    ],
)
def test_discovery_label_value(name: str, value: str) -> None:
    assert companions.discovery_label_value(name) == value


def test_scaling_adapter_defaults_replicas_to_one() -> None:
    adapter = companions.scaling_adapter("test-dgd", "default", "Worker", None)
    assert adapter["metadata"]["name"] == "test-dgd-worker"
    assert adapter["spec"] == {"replicas": 1, "dgdRef": {"name": "test-dgd", "serviceName": "Worker"}}


def test_emitted_dcd_drops_go_artefacts_but_keeps_sentinels() -> None:
    obj: dict[str, Any] = {
        "apiVersion": "nvidia.com/v1beta1",
        "kind": "DynamoComponentDeployment",
        "metadata": {"name": "g-w", "ownerReferences": [{"kind": "DynamoGraphDeployment", "name": "g"}]},
        "spec": {
            "name": "w",
            "scalingAdapter": {},
            "podTemplate": {
                "metadata": {"labels": {}, "annotations": {}},
                "spec": {"containers": [{"name": "main", "image": "i", "resources": {}}]},
            },
        },
    }
    written = dcd_as_written(obj)
    assert "ownerReferences" not in written["metadata"]
    assert written["spec"] == {
        "name": "w",
        "podTemplate": {"spec": {"containers": [{"name": "main", "image": "i"}]}},
        "scalingAdapter": {},
    }
    assert obj["spec"]["podTemplate"]["metadata"] == {"labels": {}, "annotations": {}}  # input untouched


@pytest.mark.parametrize(
    ("annotations", "grove", "provider"),
    [
        ({}, False, PROVIDER_COMPONENT),
        ({}, True, PROVIDER_GROVE),
        ({"nvidia.com/enable-grove": "FALSE"}, True, PROVIDER_COMPONENT),
        # dynamographdeployment_handler_test.go: CREATE ignores a user-supplied provider
        ({"nvidia.com/workload-provider": "grove", "nvidia.com/enable-grove": "false"}, True, PROVIDER_COMPONENT),
        ({"nvidia.com/workload-provider": "component"}, True, PROVIDER_GROVE),
    ],
)
def test_workload_provider_on_create(annotations: dict[str, str], grove: bool, provider: str) -> None:
    assert workload_provider(annotations, grove) == provider


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (".5", '".5"'),
        (".a", ".a"),
        ("0o17", '"0o17"'),
        ("0b101", '"0b101"'),
        ("-0b101", '"-0b101"'),
        ("09", '"09"'),  # not octal, but a YAML float
        ("0x", "0x"),
        ("0xZZ", "0xZZ"),
        ("-9223372036854775808", '"-9223372036854775808"'),
        ("1e400", "1e400"),  # ParseFloat's range error: a string
        ("2024-13-01", "2024-13-01"),
        ("2024-01-02 25:00:00", "2024-01-02 25:00:00"),
        ("2024-01-02t10:20:30+01:00", '"2024-01-02t10:20:30+01:00"'),
        ("? x", "'? x'"),
        ("*x", "'*x'"),
        (": x", "': x'"),
        ("a: b", "'a: b'"),
        ("- it's", "'- it''s'"),
        ("it's", "it's"),
        ("a\rb", '"a\\rb"'),  # a carriage return is not printable for go-yaml: escaped
        ("x\u2028y", "'x\u2028  y'"),  # a printable break: single quotes, the next line indented
        ("\x01", '"\\x01"'),
        ("\ufffe", '"\\uFFFE"'),
        ("\ufeffbom", '"\\uFEFF\\x62\\x6F\\x6D"'),  # a leading BOM escapes every character (is_bom quirk)
        ("a\n b", "|-\n  a\n   b"),
    ],
)
def test_more_scalar_styles(value: str, text: str) -> None:
    assert goyaml.marshal({"k": value}) == f"k: {text}\n"


def test_empty_list_and_folded_double_quotes() -> None:
    assert goyaml.marshal({"k": []}) == "k: []\n"
    # double-quoted (a tab), folded at the first space past column 80; when the next character
    # is a space too, the continuation line starts with a backslash to keep it
    words = "word " * 16 + " tail\t"
    assert goyaml.marshal({"k": words}) == 'k: "' + " ".join(["word"] * 16) + '\n  \\ tail\\t"\n'
    words = "word " * 20 + " x\t"
    assert goyaml.marshal({"k": words}) == 'k: "' + " ".join(["word"] * 16) + '\n  word word word word  x\\t"\n'


@pytest.mark.parametrize("value", [{1: "a"}, float("inf"), {"k": {1, 2}}])
def test_values_json_cannot_hold_are_refused(value: Any) -> None:
    with pytest.raises(RenderError):
        goyaml.marshal(value, "cfg")


def test_integers_beyond_64_bits_come_back_as_floats() -> None:
    assert goyaml.marshal({"k": 1 << 70}) == "k: 1.1805916207174113e+21\n"


@pytest.mark.parametrize(
    ("value", "text"),
    [(float("nan"), ".nan"), (float("inf"), ".inf"), (float("-inf"), "-.inf"), (0.0, "0"), (-0.0, "-0"), (12345.0, "12345")],
)
def test_format_float_g(value: float, text: str) -> None:
    assert goyaml.format_float_g(value) == text
