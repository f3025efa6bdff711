"""The typed JSON round trip of a pod template, rule by rule.

Each expectation follows from a Go struct tag in k8s.io/api v0.36.2 core/v1/types.go (or
apimachinery v0.36.2 meta/v1) and encoding/json's documented rules: omitempty drops
false, 0, "", and empty slices and maps; it never drops a struct; a nil pointer, slice or map
without omitempty marshals as null; omitzero drops a zero value. The comment on each row
quotes the tag that decides it.
"""

from __future__ import annotations

import copy
import datetime
from typing import Any

import pytest

from renderer.gocompat import gotypes, k8s_types
from renderer.gocompat.goleaves import JSON_WORDS, RAISE
from renderer.gocompat.gotypes import Codec, go_json_dumps, normalize
from renderer.gocompat.quantity import ERR_FORMAT_WRONG
from renderer.results import Code, RenderError, Result, Severity

PREFIX = "spec.podTemplate"


def _container(**fields: Any) -> dict[str, Any]:
    return {"name": "main", **fields}


def _template(*containers: dict[str, Any], **spec: Any) -> dict[str, Any]:
    return {"spec": {"containers": list(containers) or [_container()], **spec}}


def _run(data: Any, type_name: str = "PodTemplateSpec") -> tuple[Any, list[Result]]:
    return normalize(type_name, data, PREFIX)


def _first_container(data: dict[str, Any]) -> dict[str, Any]:
    out, results = _run(data)
    assert [r for r in results if r.is_error] == []
    container: dict[str, Any] = out["spec"]["containers"][0]
    return container


# -- omitempty on scalars and pointers ------------------------------------------------------

# (id, container fields in, key, expected container fragment out; None = key absent)
CONTAINER_CASES = [
    # EnvVar.Value string `json:"value,omitempty"`: "" is dropped, name is not omitempty
    ("EnvVar.value-empty", {"env": [{"name": "X", "value": ""}]}, "env", [{"name": "X"}]),
    (
        "EnvVar.value-set",
        {"env": [{"name": "X", "value": "1"}]},
        "env",
        [{"name": "X", "value": "1"}],
    ),
    # VolumeMount.ReadOnly bool `json:"readOnly,omitempty"`: false dropped;
    # VolumeMount.MountPath string `json:"mountPath"`: written even when absent
    (
        "VolumeMount.readOnly-false",
        {"volumeMounts": [{"name": "v", "mountPath": "/v", "readOnly": False}]},
        "volumeMounts",
        [{"name": "v", "mountPath": "/v"}],
    ),
    (
        "VolumeMount.mountPath-absent",
        {"volumeMounts": [{"name": "v"}]},
        "volumeMounts",
        [{"name": "v", "mountPath": ""}],
    ),
    # SecurityContext.Privileged *bool `json:"privileged,omitempty"`: a set pointer is kept
    (
        "SecurityContext.privileged-false",
        {"securityContext": {"privileged": False}},
        "securityContext",
        {"privileged": False},
    ),
    # SecurityContext.RunAsUser *int64 `json:"runAsUser,omitempty"`: pointer to 0 is kept
    (
        "SecurityContext.runAsUser-0",
        {"securityContext": {"runAsUser": 0}},
        "securityContext",
        {"runAsUser": 0},
    ),
    # Container.SecurityContext *SecurityContext `json:"securityContext,omitempty"`: {} stays {}
    ("SecurityContext-empty", {"securityContext": {}}, "securityContext", {}),
    # Container.RestartPolicy *ContainerRestartPolicy `json:"restartPolicy,omitempty"`
    ("Container.restartPolicy-empty-string", {"restartPolicy": ""}, "restartPolicy", ""),
    # Probe.InitialDelaySeconds int32 `json:"initialDelaySeconds,omitempty"`: 0 dropped;
    # Probe embeds ProbeHandler `json:",inline"`, whose Exec is `json:"exec,omitempty"`
    (
        "Probe.initialDelaySeconds-0",
        {
            "livenessProbe": {
                "exec": {"command": ["true"]},
                "initialDelaySeconds": 0,
                "periodSeconds": 5,
            }
        },
        "livenessProbe",
        {"exec": {"command": ["true"]}, "periodSeconds": 5},
    ),
    # GRPCAction.Service *string `json:"service"`: "" kept (pointer), absent is null (no omitempty);
    # GRPCAction.Port int32 `json:"port"`
    (
        "GRPCAction.service-empty",
        {"livenessProbe": {"grpc": {"port": 9000, "service": ""}}},
        "livenessProbe",
        {"grpc": {"port": 9000, "service": ""}},
    ),
    (
        "GRPCAction.service-absent",
        {"livenessProbe": {"grpc": {"port": 9000}}},
        "livenessProbe",
        {"grpc": {"port": 9000, "service": None}},
    ),
    # Probe.TerminationGracePeriodSeconds *int64 `json:"terminationGracePeriodSeconds,omitempty"`
    (
        "Probe.terminationGracePeriodSeconds-0",
        {"startupProbe": {"terminationGracePeriodSeconds": 0}},
        "startupProbe",
        {"terminationGracePeriodSeconds": 0},
    ),
    # Container.Stdin bool `json:"stdin,omitempty"`
    ("Container.stdin-false", {"stdin": False}, "stdin", None),
    ("Container.stdin-true", {"stdin": True}, "stdin", True),
    # Container.Args []string `json:"args,omitempty"`: an empty list is dropped
    ("Container.args-empty", {"args": []}, "args", None),
    # Container.Image string `json:"image,omitempty"`
    ("Container.image-empty", {"image": ""}, "image", None),
    # ContainerPort.ContainerPort int32 `json:"containerPort"`; HostPort `json:"hostPort,omitempty"`
    (
        "ContainerPort.containerPort-0",
        {"ports": [{"containerPort": 0, "hostPort": 0}]},
        "ports",
        [{"containerPort": 0}],
    ),
    # HTTPGetAction.Port intstr.IntOrString `json:"port"`: a struct with its own codec, always
    # written; the zero IntOrString is the integer 0
    (
        "HTTPGetAction.port-absent",
        {"readinessProbe": {"httpGet": {"path": "/h"}}},
        "readinessProbe",
        {"httpGet": {"path": "/h", "port": 0}},
    ),
    (
        "HTTPGetAction.port-int",
        {"readinessProbe": {"httpGet": {"port": 8080}}},
        "readinessProbe",
        {"httpGet": {"port": 8080}},
    ),
    (
        "HTTPGetAction.port-numeric-string",
        {"readinessProbe": {"httpGet": {"port": "8080"}}},
        "readinessProbe",
        {"httpGet": {"port": "8080"}},
    ),
    (
        "HTTPGetAction.port-name",
        {"readinessProbe": {"httpGet": {"port": "http"}}},
        "readinessProbe",
        {"httpGet": {"port": "http"}},
    ),
    # Lifecycle.PreStop *LifecycleHandler; LifecycleHandler.Sleep *SleepAction;
    # SleepAction.Seconds int64 `json:"seconds"`
    (
        "SleepAction.seconds-absent",
        {"lifecycle": {"preStop": {"sleep": {}}}},
        "lifecycle",
        {"preStop": {"sleep": {"seconds": 0}}},
    ),
]


@pytest.mark.parametrize(
    ("fields", "key", "expected"),
    [c[1:] for c in CONTAINER_CASES],
    ids=[c[0] for c in CONTAINER_CASES],
)
def test_container_field_rules(fields: dict[str, Any], key: str, expected: Any) -> None:
    container = _first_container(_template(_container(**fields)))
    if expected is None:
        assert key not in container
    else:
        assert container[key] == expected


def test_resources_always_present() -> None:
    # Container.Resources ResourceRequirements `json:"resources,omitempty"`: a non-pointer
    # struct, which omitempty never drops
    container = _first_container(_template(_container()))
    assert container == {"name": "main", "resources": {}}


def test_resources_empty_maps_dropped() -> None:
    # ResourceRequirements.Limits ResourceList `json:"limits,omitempty"` (a map): {} is dropped
    container = _first_container(_template(_container(resources={"limits": {}, "requests": {}})))
    assert container["resources"] == {}


def test_quantities_canonicalised_and_sorted() -> None:
    # ResourceList map[ResourceName]resource.Quantity: values re-encoded by Quantity.MarshalJSON,
    # keys sorted by encoding/json
    resources = {
        "limits": {"nvidia.com/gpu": 4, "memory": "8192Mi", "cpu": "1000m"},
        "requests": {"cpu": 0.5},
    }
    container = _first_container(_template(_container(resources=resources)))
    assert container["resources"] == {
        "limits": {"cpu": "1", "memory": "8Gi", "nvidia.com/gpu": "4"},
        "requests": {"cpu": "500m"},
    }
    assert list(container["resources"]["limits"]) == ["cpu", "memory", "nvidia.com/gpu"]


def test_invalid_quantity_is_an_error_with_gos_message() -> None:
    data = _template(_container(resources={"limits": {"memory": "8 GB"}}))
    out, results = _run(data)
    assert [(r.severity, r.field) for r in results] == [
        (Severity.ERROR, "spec.podTemplate.spec.containers[0].resources.limits.memory")
    ]
    assert results[0].message.startswith(ERR_FORMAT_WRONG)
    assert "8 GB" in results[0].message
    # the bad entry is left out, and the then-empty limits map goes with omitempty
    assert out["spec"]["containers"][0]["resources"] == {}


def test_divisor_zero_quantity_always_written() -> None:
    # ResourceFieldSelector.Divisor resource.Quantity `json:"divisor,omitempty"`: a struct, never
    # omitted, and the zero Quantity prints "0"; Resource string `json:"resource"`
    env = [{"name": "CPU", "valueFrom": {"resourceFieldRef": {"resource": "limits.cpu"}}}]
    container = _first_container(_template(_container(env=env)))
    assert container["env"] == [
        {
            "name": "CPU",
            "valueFrom": {"resourceFieldRef": {"resource": "limits.cpu", "divisor": "0"}},
        }
    ]


def test_empty_dir_pointer_struct_stays_empty_object() -> None:
    # VolumeSource.EmptyDir *EmptyDirVolumeSource `json:"emptyDir,omitempty"`, promoted into Volume
    # (`VolumeSource json:",inline"`); EmptyDirVolumeSource.SizeLimit *resource.Quantity omitempty
    out, _ = _run(_template(volumes=[{"name": "shm", "emptyDir": {}}]))
    assert out["spec"]["volumes"] == [{"name": "shm", "emptyDir": {}}]
    out, _ = _run(
        _template(volumes=[{"name": "shm", "emptyDir": {"medium": "Memory", "sizeLimit": "0.5Gi"}}])
    )
    assert out["spec"]["volumes"] == [
        {"name": "shm", "emptyDir": {"medium": "Memory", "sizeLimit": "512Mi"}}
    ]


# -- non-omitempty nil collections and absent structs ---------------------------------------


def test_absent_spec_and_containers() -> None:
    # PodTemplateSpec.ObjectMeta `json:"metadata,omitempty"` and Spec PodSpec
    # `json:"spec,omitempty"` are structs (always written); PodSpec.Containers []Container
    # `json:"containers"` is nil, so null
    out, results = _run({})
    assert results == []
    assert out == {"metadata": {}, "spec": {"containers": None}}


def test_empty_containers_list_is_kept() -> None:
    # PodSpec.Containers has no omitempty: an empty, non-nil slice prints as []
    out, _ = _run({"spec": {"containers": []}})
    assert out["spec"] == {"containers": []}


def test_non_pointer_struct_inside_list_item() -> None:
    # WeightedPodAffinityTerm.PodAffinityTerm PodAffinityTerm `json:"podAffinityTerm"` (struct);
    # PodAffinityTerm.TopologyKey string `json:"topologyKey"`
    affinity: dict[str, Any] = {
        "podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 1}]}
    }
    out, _ = _run(_template(affinity=affinity))
    assert out["spec"]["affinity"] == {
        "podAntiAffinity": {
            "preferredDuringSchedulingIgnoredDuringExecution": [
                {"weight": 1, "podAffinityTerm": {"topologyKey": ""}}
            ]
        }
    }


def test_nil_slice_without_omitempty_is_null() -> None:
    # NodeSelector.NodeSelectorTerms []NodeSelectorTerm `json:"nodeSelectorTerms"`
    affinity: dict[str, Any] = {
        "nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {}}
    }
    out, _ = _run(_template(affinity=affinity))
    assert out["spec"]["affinity"] == {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": None}
        }
    }


def test_omitempty_map_empty_dropped() -> None:
    # PodSpec.NodeSelector map[string]string `json:"nodeSelector,omitempty"`
    out, _ = _run(_template(nodeSelector={}))
    assert "nodeSelector" not in out["spec"]


# -- null, unknown fields, order -----------------------------------------------------------


def test_null_acts_as_absent() -> None:
    data = _template(
        _container(
            image=None,  # string omitempty: absent
            securityContext=None,  # pointer: absent
            env=[{"name": "A", "value": None}],
            volumeMounts=[{"name": "v", "mountPath": None}],  # not omitempty: zero value
        ),
        nodeSelector={"a": None, "b": "x"},  # map entries that are null are pruned
    )
    out, results = _run(data)
    assert results == []
    assert out["spec"]["containers"][0] == {
        "name": "main",
        "env": [{"name": "A"}],
        "resources": {},
        "volumeMounts": [{"name": "v", "mountPath": ""}],
    }
    assert out["spec"]["nodeSelector"] == {"b": "x"}


def test_unknown_fields_dropped_with_warning_paths() -> None:
    data = _template(
        _container(ports=[{"containerPort": 80}, {"containerPort": 81, "bogus": 1}]), extra=True
    )
    data["metadata"] = {"name": "x", "generateName": "g-", "creationTimestamp": None}
    out, results = _run(data)
    # ObjectMeta keeps only name/namespace/labels/annotations/finalizers
    # (the CRD is generated with generateEmbeddedObjectMeta)
    assert out["metadata"] == {"name": "x"}
    assert out["spec"]["containers"][0]["ports"] == [{"containerPort": 80}, {"containerPort": 81}]
    assert "extra" not in out["spec"]
    assert sorted((r.severity, r.field, r.message) for r in results) == [
        (
            Severity.WARNING,
            "spec.podTemplate.metadata.creationTimestamp",
            'unknown field "creationTimestamp"',
        ),
        (
            Severity.WARNING,
            "spec.podTemplate.metadata.generateName",
            'unknown field "generateName"',
        ),
        (
            Severity.WARNING,
            "spec.podTemplate.spec.containers[0].ports[1].bogus",
            'unknown field "bogus"',
        ),
        (Severity.WARNING, "spec.podTemplate.spec.extra", 'unknown field "extra"'),
    ]


def test_keys_are_case_sensitive() -> None:
    # the API server's structural schema prunes "ContainerPort" before Go's case-folding sees it
    out, results = _run(_template(_container(ports=[{"ContainerPort": 80}])))
    assert out["spec"]["containers"][0]["ports"] == [{"containerPort": 0}]
    assert [r.message for r in results] == ['unknown field "ContainerPort"']


def test_struct_fields_in_go_order_maps_sorted() -> None:
    # Container declares Name, Image, Command, Args, ..., Env, Resources, ... ImagePullPolicy
    container = _container(
        imagePullPolicy="Always", env=[{"value": "v", "name": "E"}], args=["a"], image="i"
    )
    data = {
        "spec": {"containers": [container]},
        "metadata": {"labels": {"b": "2", "a": "1"}, "name": "n"},
    }
    out, _ = _run(data)
    assert list(out) == ["metadata", "spec"]
    assert list(out["metadata"]) == ["name", "labels"]
    assert list(out["metadata"]["labels"]) == ["a", "b"]
    assert list(out["spec"]["containers"][0]) == [
        "name",
        "image",
        "args",
        "env",
        "resources",
        "imagePullPolicy",
    ]
    assert list(out["spec"]["containers"][0]["env"][0]) == ["name", "value"]


def test_inline_structs_are_flattened() -> None:
    # Volume embeds VolumeSource `json:",inline"`; EphemeralContainer embeds
    # EphemeralContainerCommon `json:",inline"`, then declares
    # TargetContainerName `json:"targetContainerName,omitempty"`
    data = _template(
        volumes=[{"configMap": {"name": "cm"}, "name": "c"}],
        ephemeralContainers=[{"targetContainerName": "main", "name": "debug", "tty": True}],
    )
    out, results = _run(data)
    assert results == []
    assert out["spec"]["volumes"] == [{"name": "c", "configMap": {"name": "cm"}}]
    assert out["spec"]["ephemeralContainers"] == [
        {"name": "debug", "resources": {}, "tty": True, "targetContainerName": "main"}
    ]


# -- type errors ----------------------------------------------------------------------------

# (id, container fields, error field below containers[0], message)
TYPE_ERRORS = [
    (
        "string-for-int32",
        {"ports": [{"containerPort": 80}, {"containerPort": "80"}]},
        "ports[1].containerPort",
        "expected int32, got string",
    ),
    ("bool-for-string", {"image": True}, "image", "expected string, got bool"),
    ("int-for-string", {"workingDir": 1}, "workingDir", "expected string, got integer"),
    ("string-for-bool", {"tty": "yes"}, "tty", "expected bool, got string"),
    ("list-for-object", {"securityContext": []}, "securityContext", "expected object, got list"),
    ("map-for-list", {"args": {"a": 1}}, "args", "expected list, got map"),
    (
        "int32-out-of-range",
        {"ports": [{"containerPort": 2**31}]},
        "ports[0].containerPort",
        "expected int32, got 2147483648 (out of range)",
    ),
    (
        "int64-out-of-range",
        {"securityContext": {"runAsUser": 2**63}},
        "securityContext.runAsUser",
        "expected int64, got 9223372036854775808 (out of range)",
    ),
    (
        "non-integral-float",
        {"ports": [{"containerPort": 80.5}]},
        "ports[0].containerPort",
        "expected int32, got non-integral number 80.5",
    ),
    (
        "intorstring-bool",
        {"livenessProbe": {"tcpSocket": {"port": True}}},
        "livenessProbe.tcpSocket.port",
        "expected integer or string, got bool",
    ),
    (
        "intorstring-out-of-range",
        {"livenessProbe": {"tcpSocket": {"port": 2**31}}},
        "livenessProbe.tcpSocket.port",
        "expected int32, got 2147483648 (out of range)",
    ),
    ("null-list-item", {"args": ["a", None]}, "args[1]", "expected string, got null"),
]


@pytest.mark.parametrize(
    ("fields", "field", "message"), [c[1:] for c in TYPE_ERRORS], ids=[c[0] for c in TYPE_ERRORS]
)
def test_type_errors(fields: dict[str, Any], field: str, message: str) -> None:
    _, results = _run(_template(_container(**fields)))
    assert [(r.severity, r.field, r.message) for r in results] == [
        (Severity.ERROR, f"spec.podTemplate.spec.containers[0].{field}", message)
    ]


def test_list_where_map_expected() -> None:
    # PodSpec.NodeSelector map[string]string
    _, results = _run(_template(nodeSelector=["a"]))
    assert [(r.field, r.message) for r in results] == [
        ("spec.podTemplate.spec.nodeSelector", "expected map, got list")
    ]


def test_annotation_values_must_be_strings() -> None:
    # ObjectMeta.Annotations map[string]string: a YAML bool is not a string
    out, results = _run(
        {"metadata": {"annotations": {"a": True, "b": "ok"}}, "spec": {"containers": []}}
    )
    assert [(r.severity, r.field, r.message) for r in results] == [
        (Severity.ERROR, "spec.podTemplate.metadata.annotations.a", "expected string, got bool")
    ]
    assert out["metadata"] == {"annotations": {"b": "ok"}}


def test_integral_float_accepted_for_int() -> None:
    # YAML 80.0 reaches Go as the JSON number 80
    container = _first_container(_template(_container(ports=[{"containerPort": 80.0}])))
    assert container["ports"] == [{"containerPort": 80}]
    assert type(container["ports"][0]["containerPort"]) is int


def test_non_object_template() -> None:
    out, results = _run(["not", "a", "map"])
    assert out is None
    assert [(r.field, r.message) for r in results] == [
        ("spec.podTemplate", "expected object, got list")
    ]


def test_unknown_type_name_is_a_bug() -> None:
    with pytest.raises(KeyError):
        normalize("NoSuchStruct", {}, "x")


def test_yaml_scalar_keys_become_json_keys() -> None:
    # sigs.k8s.io/yaml turns int, bool and float mapping keys into strings
    out, results = _run(_template(nodeSelector={1: "a", 1.5: "c"}))
    assert results == []
    assert out["spec"]["nodeSelector"] == {"1": "a", "1.5": "c"}
    out, _ = _run(_template(nodeSelector={True: "b", False: "d"}))
    assert out["spec"]["nodeSelector"] == {"false": "d", "true": "b"}


def test_input_is_not_modified_and_output_is_fresh() -> None:
    data = _template(
        _container(args=["a"], env=[{"name": "A", "value": ""}]), nodeSelector={"k": "v"}
    )
    before = copy.deepcopy(data)
    out, _ = _run(data)
    assert data == before
    assert out["spec"]["containers"][0]["args"] is not data["spec"]["containers"][0]["args"]
    assert out["spec"]["nodeSelector"] is not data["spec"]["nodeSelector"]


# -- metav1.Time, through a table that restates ObjectMeta's tags ---------------------------

# ObjectMeta (apimachinery v0.36.2 meta/v1 types.go):
#   CreationTimestamp Time `json:"creationTimestamp,omitempty,omitzero"`
#   DeletionTimestamp *Time `json:"deletionTimestamp,omitempty"`
# and, for contrast, the same Time field as it was tagged before omitzero was added:
#   CreationTimestamp Time `json:"creationTimestamp,omitempty"`
_TIME_TABLE: dict[str, tuple[tuple[Any, ...], ...]] = {
    "Meta": (
        ("name", "Name", ("string",), True, False, ""),
        ("creationTimestamp", "CreationTimestamp", ("Time",), True, True, ""),
        ("deletionTimestamp", "DeletionTimestamp", ("ptr", ("Time",)), True, False, ""),
    ),
    "OldMeta": (("creationTimestamp", "CreationTimestamp", ("Time",), True, False, ""),),
}


def test_zero_time_omitted_with_omitzero() -> None:
    codec = Codec(_TIME_TABLE)
    assert codec.normalize("Meta", {"name": "a"}, "metadata") == ({"name": "a"}, [])
    assert codec.normalize("Meta", {"creationTimestamp": None}, "metadata") == ({}, [])


def test_zero_time_is_null_without_omitzero() -> None:
    # metav1.Time.MarshalJSON writes null for the zero time; omitempty never drops a struct
    assert Codec(_TIME_TABLE).normalize("OldMeta", {}, "metadata") == (
        {"creationTimestamp": None},
        [],
    )


def test_time_marshals_utc_rfc3339() -> None:
    # metav1.Time.MarshalJSON: t.UTC().Format(time.RFC3339), so no fractional seconds
    out, results = Codec(_TIME_TABLE).normalize(
        "Meta",
        {
            "creationTimestamp": "2024-05-01T12:00:00.5+02:00",
            "deletionTimestamp": "2024-05-01T10:00:00Z",
        },
        "m",
    )
    assert results == []
    assert out == {
        "creationTimestamp": "2024-05-01T10:00:00Z",
        "deletionTimestamp": "2024-05-01T10:00:00Z",
    }


def test_bad_time_is_an_error() -> None:
    _, results = Codec(_TIME_TABLE).normalize("Meta", {"creationTimestamp": "yesterday"}, "m")
    assert [(r.field, r.is_error) for r in results] == [("m.creationTimestamp", True)]


# -- Go's JSON bytes --------------------------------------------------------------------------


def test_go_json_dumps_escaping_and_layout() -> None:
    # encoding/json: HTML-safe escaping of <, >, & and the JS line terminators; compact output;
    # other non-ASCII characters are written as UTF-8
    value = {"b": "<a href='x'>&</a>", "a": ["é", "\u2028\u2029"], "n": None, "t": True, "i": 1}
    assert go_json_dumps(value) == (
        '{"b":"\\u003ca href=\'x\'\\u003e\\u0026\\u003c/a\\u003e","a":["é","\\u2028\\u2029"],'
        '"n":null,"t":true,"i":1}'
    )


def test_go_json_dumps_control_characters() -> None:
    # Go (1.22+) writes \b \f \n \r \t short and other controls as \u00XX;
    # quotes and backslashes are escaped
    assert go_json_dumps('\b\f\n\r\t\x01"\\') == '"\\b\\f\\n\\r\\t\\u0001\\"\\\\"'


def test_go_json_dumps_of_a_normalized_template() -> None:
    out, _ = _run(_template(_container(env=[{"name": "A", "value": "<x>"}])))
    assert go_json_dumps(out) == (
        '{"metadata":{},"spec":{"containers":[{"name":"main","env":[{"name":"A","value":"\\u003cx\\u003e"}],'
        '"resources":{}}]}}'
    )


# -- the generated table restates the Go declarations ----------------------------------------


def test_generated_table_header() -> None:
    assert k8s_types.SOURCES == {"k8s.io/api": "v0.36.2", "k8s.io/apimachinery": "v0.36.2"}
    assert k8s_types.ROOT == "PodTemplateSpec"


def test_generated_object_meta_is_restricted() -> None:
    assert [f[0] for f in k8s_types.STRUCTS["ObjectMeta"]] == [
        "name",
        "namespace",
        "labels",
        "annotations",
        "finalizers",
    ]


def test_generated_probe_promotes_probe_handler() -> None:
    # Probe: ProbeHandler `json:",inline"` (Exec, HTTPGet, TCPSocket, GRPC),
    # then InitialDelaySeconds...
    fields = k8s_types.STRUCTS["Probe"]
    assert [(f[0], f[5]) for f in fields[:5]] == [
        ("exec", "ProbeHandler"),
        ("httpGet", "ProbeHandler"),
        ("tcpSocket", "ProbeHandler"),
        ("grpc", "ProbeHandler"),
        ("initialDelaySeconds", ""),
    ]


def test_generated_field_tags() -> None:
    by_name = {(struct, f[0]): f for struct, fields in k8s_types.STRUCTS.items() for f in fields}
    # Name string `json:"name"`
    assert by_name[("Container", "name")][2:5] == (("string",), False, False)
    # SecurityContext *SecurityContext `json:"securityContext,omitempty"`
    assert by_name[("Container", "securityContext")][2:5] == (
        ("ptr", ("struct", "SecurityContext")),
        True,
        False,
    )
    # Limits ResourceList `json:"limits,omitempty"`;
    # type ResourceList map[ResourceName]resource.Quantity
    assert by_name[("ResourceRequirements", "limits")][2:5] == (
        ("map", ("string",), ("Quantity",)),
        True,
        False,
    )
    # Protocol Protocol `json:"protocol,omitempty"`; type Protocol string
    assert by_name[("ContainerPort", "protocol")][2:5] == (("string",), True, False)
    # Port intstr.IntOrString `json:"port"`
    assert by_name[("TCPSocketAction", "port")][2:5] == (("IntOrString",), False, False)


# -- edges ------------------------------------------------------------------------------------


def test_null_template_is_the_zero_struct() -> None:
    assert _run(None) == ({"metadata": {}, "spec": {"containers": None}}, [])


def test_bad_list_items_are_left_out() -> None:
    out, results = _run(_template(_container(args=["a", 1, "b"])))
    assert out["spec"]["containers"][0]["args"] == ["a", "b"]
    assert [(r.field, r.message) for r in results] == [
        ("spec.podTemplate.spec.containers[0].args[1]", "expected string, got integer")
    ]


# a PyYAML date (unquoted 2024-01-01) is no JSON kind; its Python type name is reported
KIND_NAMES = [(1.5, "number"), ([], "list"), ({}, "map"), (datetime.date(2024, 1, 1), "date")]


@pytest.mark.parametrize(("value", "kind"), KIND_NAMES, ids=[k for _, k in KIND_NAMES])
def test_received_kind_names(value: Any, kind: str) -> None:
    _, results = _run(_template(_container(image=value)))
    assert [r.message for r in results] == [f"expected string, got {kind}"]


def test_unsupported_map_key() -> None:
    # sigs.k8s.io/yaml refuses a null mapping key
    out, results = _run(_template(nodeSelector={None: "x", "a": "b"}))
    assert out["spec"]["nodeSelector"] == {"a": "b"}
    assert [(r.field, r.message) for r in results] == [
        ("spec.podTemplate.spec.nodeSelector", "unsupported map key None")
    ]


def test_non_string_struct_key_is_an_unknown_field() -> None:
    _, results = _run(_template(_container(**{"ports": [{None: 1, "containerPort": 1}]})))
    assert [(r.severity, r.message) for r in results] == [
        (Severity.WARNING, 'unknown field "None"')
    ]


# Go strconv.FormatFloat(f, 'g', -1, 32): shortest float32 digits; %e when the decimal
# exponent is below -4 or at least 6, with a two-digit exponent; YAML names for the rest
FLOAT_KEYS = [
    (1.5, "1.5"),
    (0.1, "0.1"),
    (100.0, "100"),
    (123456.0, "123456"),
    (1234567.0, "1.234567e+06"),
    (1e20, "1e+20"),
    (0.0001, "0.0001"),
    (0.00001, "1e-05"),
    (-2.5, "-2.5"),
    (0.0, "0"),
    (-0.0, "-0"),
    (float("inf"), ".inf"),
    (float("-inf"), "-.inf"),
    (float("nan"), ".nan"),
    (1e39, ".inf"),
    (-1e300, "-.inf"),
]


@pytest.mark.parametrize(("key", "text"), FLOAT_KEYS, ids=[repr(k) for k, _ in FLOAT_KEYS])
def test_float_map_keys(key: float, text: str) -> None:
    out, _ = _run(_template(nodeSelector={key: "x"}))
    assert out["spec"]["nodeSelector"] == {text: "x"}


def test_time_edges() -> None:
    codec = Codec(_TIME_TABLE)
    # the zero time written out is still the zero time: null without omitzero, dropped with it
    zero = "0001-01-01T00:00:00Z"
    assert codec.normalize("OldMeta", {"creationTimestamp": zero}, "m") == (
        {"creationTimestamp": None},
        [],
    )
    assert codec.normalize("Meta", {"creationTimestamp": zero}, "m") == ({}, [])
    # a pointer to the zero time is kept, and Time.MarshalJSON writes it as null
    assert codec.normalize("Meta", {"deletionTimestamp": zero}, "m") == (
        {"deletionTimestamp": None},
        [],
    )
    # not a string, and a date that does not exist
    for bad in (5, "2024-02-30T00:00:00Z", "0001-01-01T00:00:00+01:00"):
        _, results = codec.normalize("Meta", {"creationTimestamp": bad}, "m")
        assert [r.field for r in results] == ["m.creationTimestamp"]


UNSUPPORTED_TABLES: list[dict[str, tuple[tuple[Any, ...], ...]]] = [
    {"S": (("f", "F", ("MicroTime",), False, False, ""),)},
    {"S": (("f", "F", ("bytes",), True, False, ""),)},
    {"S": (("f", "F", ("map", ("int32",), ("string",)), True, False, ""),)},
    {"S": (("f", "F", ("struct", "Missing"), True, False, ""),)},
    {"S": (("f", "F", ("struct", "S"), True, True, ""),)},
    {"S": (("f", "F", ("slice", ("MicroTime",)), True, False, ""),)},
    # a core/v1 struct, but no core codec to decode it with
    {"S": (("f", "F", ("ptr", ("k8s", "PodSpec")), True, False, ""),)},
    {"S": (("f", "F", ("ptr", ("ExtraPodSpec",)), True, False, ""),)},
]


@pytest.mark.parametrize("table", UNSUPPORTED_TABLES, ids=range(len(UNSUPPORTED_TABLES)))
def test_unsupported_shapes_fail_at_compile_time(
    table: dict[str, tuple[tuple[Any, ...], ...]],
) -> None:
    with pytest.raises(ValueError):
        Codec(table)


def test_list_element_names_in_messages() -> None:
    table: dict[str, tuple[tuple[Any, ...], ...]] = {
        "S": (
            ("q", "Q", ("slice", ("Quantity",)), True, False, ""),
            ("p", "P", ("slice", ("IntOrString",)), True, False, ""),
            ("s", "S", ("slice", ("struct", "S")), True, False, ""),
        )
    }
    _, results = Codec(table).normalize("S", {"q": [None], "p": [None], "s": [None]}, "x")
    assert [r.message for r in results] == [
        "expected quantity, got null",
        "expected integer or string, got null",
        "expected object, got null",
    ]


def test_go_json_dumps_lone_surrogate() -> None:
    # Go strings hold UTF-8; a lone surrogate decodes as U+FFFD
    assert go_json_dumps("a\ud800b") == '"a\ufffdb"'


# -- the generator (tools/gen_gotypes.py) on a small Go package -------------------------------

_GO_CORE = """
package v1

import (
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Mode is a named string; its fields are plain strings in JSON.
type Mode string

type Limits map[Mode]resource.Quantity

type Root struct {
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Inner `json:",inline"`
	Left  `json:",inline"`
	Right `json:",inline"`
	Name  string `json:"name"` // shallower than Inner.Name, so it wins
	Skip  string `json:"-"`
	Plain int32
	hidden bool
	Port  intstr.IntOrString `json:"port"`
	Modes []Mode `json:"modes,omitempty"`
	Limit Limits `json:"limit,omitempty"`
	When  *metav1.Time `json:"when,omitempty"`
}

type Inner struct {
	Name  string `json:"name"`
	Depth *int64 `json:"depth,omitempty,omitzero"`
}

type Left struct {
	Tie string `json:"tie"`
	Own string `json:"own"`
}

type Right struct {
	Tie string `json:"tie"`
}

type Unused struct {
	Weird struct {
		A int
	}
}
"""

_GO_META = """
package v1

type ObjectMeta struct {
	Name string `json:"name,omitempty"`
	GenerateName string `json:"generateName,omitempty"`
	Namespace string `json:"namespace,omitempty"`
	CreationTimestamp Time `json:"creationTimestamp,omitempty,omitzero"`
	Labels map[string]string `json:"labels,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
	Finalizers []string `json:"finalizers,omitempty"`
}
"""


def test_generator_follows_encoding_json_field_rules() -> None:
    from tools import gen_gotypes as gen

    core = gen.Package(path=gen.CORE_PATH)
    gen.parse_file(_GO_CORE, core, "types.go")
    meta = gen.Package(path=gen.META_PATH)
    gen.parse_file(_GO_META, meta, "types.go")
    structs = gen.reachable(gen.Resolver({gen.CORE_PATH: core, gen.META_PATH: meta}), "Root")
    assert sorted(structs) == ["ObjectMeta", "Root"]
    rows = [(f.json_name, f.shape, f.omitempty, f.omitzero, f.inline) for f in structs["Root"]]
    assert rows == [
        ("metadata", ("struct", "ObjectMeta"), True, False, ""),
        # Inner.Name loses to Root.Name (shallower); the two "tie" fields cancel out
        ("depth", ("ptr", ("int64",)), True, True, "Inner"),
        ("own", ("string",), False, False, "Left"),
        ("name", ("string",), False, False, ""),
        ("Plain", ("int32",), False, False, ""),  # no tag: the Go name
        ("port", ("IntOrString",), False, False, ""),
        ("modes", ("slice", ("string",)), True, False, ""),
        ("limit", ("map", ("string",), ("Quantity",)), True, False, ""),
        ("when", ("ptr", ("Time",)), True, False, ""),
    ]
    # generateEmbeddedObjectMeta keeps only these five, in Go order
    assert [f.json_name for f in structs["ObjectMeta"]] == [
        "name",
        "namespace",
        "labels",
        "annotations",
        "finalizers",
    ]
    text = gen.render_module(
        structs, {"Root": gen.CORE_PATH, "ObjectMeta": gen.META_PATH}, "Root", "vA", "vB"
    )
    namespace: dict[str, Any] = {}
    exec(compile(text, "k8s_types.py", "exec"), namespace)
    assert namespace["SOURCES"] == {"k8s.io/api": "vA", "k8s.io/apimachinery": "vB"}
    assert namespace["STRUCTS"]["Root"][0] == (
        "metadata",
        "ObjectMeta",
        ("struct", "ObjectMeta"),
        True,
        False,
        "",
    )


def test_generator_refuses_what_it_cannot_read() -> None:
    from tools import gen_gotypes as gen

    core = gen.Package(path=gen.CORE_PATH)
    gen.parse_file(_GO_CORE, core, "types.go")
    resolver = gen.Resolver({gen.CORE_PATH: core})
    with pytest.raises(gen.GoSourceError, match="anonymous struct"):
        gen.reachable(resolver, "Unused")
    with pytest.raises(gen.GoSourceError, match="no source given"):
        gen.reachable(gen.Resolver({gen.CORE_PATH: core}), "Root")  # meta/v1 missing


# -- one walk, the caller's error handling as a parameter -------------------------------------

_MIXED_TABLE: dict[str, tuple[tuple[Any, ...], ...]] = {
    "S": (
        ("n", "N", ("int32",), True, False, ""),
        ("tags", "Tags", ("slice", ("string",)), True, False, ""),
        ("env", "Env", ("map", ("string",), ("string",)), True, False, ""),
        ("main", "Main", ("ptr", ("k8s", "Container")), True, False, ""),
        ("hpa", "HPA", ("ptr", ("unsupported", "autoscalingv2.HorizontalPodAutoscalerSpec")), True, False, ""),
    )
}


def test_collecting_and_raising_walks_report_the_same_first_error() -> None:
    data = {"bogus": 1, "n": "2", "main": {"name": 3}}
    _, results = Codec(_MIXED_TABLE, core=gotypes.CORE).normalize("S", data, "spec")
    assert [(r.severity, r.field, r.message) for r in results] == [
        (Severity.WARNING, "spec.bogus", 'unknown field "bogus"'),
        (Severity.ERROR, "spec.n", "expected int32, got string"),
        (Severity.ERROR, "spec.main.name", "expected string, got integer"),
    ]
    # the raising sink stops at the first error, ignores warnings and leaves the code to the stage
    raising = Codec(_MIXED_TABLE, core=gotypes.CORE, words=JSON_WORDS)
    with pytest.raises(RenderError) as caught:
        raising.decode("S", data, "spec", RAISE)
    assert (caught.value.field, caught.value.message, caught.value.code) == ("spec.n", "expected int32, got string", None)


def test_raising_walk_keeps_the_unsupported_code_and_json_words() -> None:
    codec = Codec(_MIXED_TABLE, core=gotypes.CORE, words=JSON_WORDS)
    with pytest.raises(RenderError) as caught:
        codec.decode("S", {"hpa": {"minReplicas": 1}}, "spec", RAISE)
    assert caught.value.code is Code.UNSUPPORTED
    assert caught.value.field == "spec.hpa"
    with pytest.raises(RenderError, match="^expected array, got object$"):
        codec.decode("S", {"tags": {"a": 1}}, "spec", RAISE)
    # core/v1 structs keep the core codec's Go words
    with pytest.raises(RenderError, match="^expected object, got list$"):
        codec.decode("S", {"main": []}, "spec", RAISE)


def test_keep_empty_keeps_written_empty_collections_of_its_own_table_only() -> None:
    data = {"tags": [], "env": {}, "main": {"name": "m", "args": [], "env": []}}
    dropped, _ = Codec(_MIXED_TABLE, core=gotypes.CORE).normalize("S", data, "spec")
    kept, _ = Codec(_MIXED_TABLE, core=gotypes.CORE, keep_empty=True).normalize("S", data, "spec")
    assert dropped == {"main": {"name": "m", "resources": {}}}
    assert kept == {"tags": [], "env": {}, "main": {"name": "m", "resources": {}}}
