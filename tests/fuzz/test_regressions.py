"""Minimal inputs the fuzzer found, kept as plain regression tests.

Each case is the shrunk input of one fuzz failure, rendered through the command path, with the
outcome the fix gives. The property is the same as in test_fuzz_render.py: valid objects or
one-line user errors with a field path, never an exception.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from renderer.admission.objectmeta import qualified_name_problem, show
from tests.fuzz.support import contract_problems, render_text

DCD = textwrap.dedent(
    """\
    apiVersion: nvidia.com/v1beta1
    kind: DynamoComponentDeployment
    metadata:
      name: agg-decode
      namespace: default
    spec:
      type: decode
      podTemplate:
        spec:
          containers:
            - name: main
              image: test-image:latest
    """
)


def _refused(tmp_path: Path, text: str, field: str, message: str) -> None:
    run = render_text(text, tmp_path)
    assert not contract_problems(run), contract_problems(run)
    assert run.code == 1, run.stdout
    assert any(r.field == field and message in r.message for r in run.errors), run.stderr


@pytest.mark.parametrize(
    "namespace, message",
    [
        ("x" * 100_000, 'invalid namespace "xxxxxxxx'),  # fuzz: a huge namespace rendered invalid objects
        ("Team_A", "must be a lowercase RFC 1123 label"),
        ("ns\n", "must be a lowercase RFC 1123 label"),
    ],
)
def test_invalid_namespace_is_refused_on_the_source(tmp_path: Path, namespace: str, message: str) -> None:
    text = DCD.replace("namespace: default", f"namespace: {namespace!r}".replace("'", '"') if "\n" in namespace else f"namespace: {namespace}")
    _refused(tmp_path, text, "metadata.namespace", message)


def test_name_with_trailing_newline_is_refused(tmp_path: Path) -> None:
    # Python's "$" matches before a final newline; Go's does not
    _refused(tmp_path, DCD.replace("name: agg-decode", 'name: "agg-decode\\n"'), "metadata.name", "invalid name")


@pytest.mark.parametrize(
    "labels, field, message",
    [
        ('{"a b": x}', "metadata.labels[a b]", "invalid label key"),
        ("{a: " + "v" * 64 + "}", "metadata.labels[a]", "invalid label value"),
        ('{a: "-x"}', "metadata.labels[a]", "invalid label value"),
        ('{"example.com/": x}', "metadata.labels[example.com/]", "name part must not be empty"),
        ('{"a/b/c": x}', "metadata.labels[a/b/c]", "optional DNS subdomain prefix"),
    ],
)
def test_invalid_labels_are_refused_on_the_source(tmp_path: Path, labels: str, field: str, message: str) -> None:
    _refused(tmp_path, DCD.replace("  namespace: default\n", f"  namespace: default\n  labels: {labels}\n"), field, message)


def test_oversized_annotations_are_refused_on_the_source(tmp_path: Path) -> None:
    text = DCD.replace("  namespace: default\n", "  namespace: default\n  annotations: {note: " + "x" * 300_000 + "}\n")
    _refused(tmp_path, text, "metadata.annotations", "annotations are too long")


def test_invalid_namespace_flag_is_refused(tmp_path: Path) -> None:
    run = render_text(DCD.replace("  namespace: default\n", ""), tmp_path, namespace="Not Valid")
    assert run.code == 1 and not contract_problems(run)
    assert any(r.field == "metadata.namespace" for r in run.errors)


def test_qualified_names_follow_kubernetes() -> None:
    assert qualified_name_problem("nvidia.com/dynamo-component-type") is None
    assert qualified_name_problem("A.b_c-D") is None
    assert qualified_name_problem("Example.com/x") is not None  # the prefix is a lowercase subdomain
    assert qualified_name_problem("x" * 64) is not None


def test_long_values_are_cut_in_messages() -> None:
    assert show("x" * 100) == '"' + "x" * 64 + '... (100 characters)"'
    assert show('a"\n') == '"a\\"\\n"'


def test_graph_component_pod_template_gets_the_crd_structural_rules(tmp_path: Path) -> None:
    # fuzz: a corpus DGD with a volume's name deleted rendered a Deployment with an unnamed volume
    text = textwrap.dedent(
        """\
        apiVersion: nvidia.com/v1beta1
        kind: DynamoGraphDeployment
        metadata: {name: g, annotations: {nvidia.com/enable-grove: "false"}}
        spec:
          components:
            - name: w
              type: worker
              podTemplate:
                spec:
                  containers: [{name: main, image: "registry.example/w:1.0.0"}]
                  volumes: [{emptyDir: {}}]
        """
    )
    _refused(tmp_path, text, "spec.components[0].podTemplate.spec.volumes[0].name", "required field missing")


def _with_pod_spec(extra: str) -> str:
    return DCD.replace("      containers:\n", extra + "      containers:\n")


@pytest.mark.parametrize(
    "text, field, message",
    [
        # fuzz: a sidecar named Bad_Name rendered a Deployment the API server refuses
        (
            DCD + "        - name: Bad_Name\n          image: busybox:1.36\n",
            "spec.podTemplate.spec.containers[1].name",
            'invalid container name "Bad_Name"',
        ),
        (
            _with_pod_spec("      initContainers: [{name: main, image: busybox:1.36}]\n"),
            "spec.podTemplate.spec.containers[0].name",
            'duplicate container name "main"',
        ),
        (
            _with_pod_spec("      volumes: [{name: Data, emptyDir: {}}]\n"),
            "spec.podTemplate.spec.volumes[0].name",
            'invalid volume name "Data"',
        ),
        (
            DCD + "          ports: [{containerPort: 70000}]\n",
            "spec.podTemplate.spec.containers[0].ports[0].containerPort",
            "must be between 1 and 65535",
        ),
        (
            DCD + "          ports: [{containerPort: 80, name: http_port}]\n",
            "spec.podTemplate.spec.containers[0].ports[0].name",
            'invalid port name "http_port"',
        ),
        (
            DCD + "          ports: [{containerPort: 80, protocol: HTTP}]\n",
            "spec.podTemplate.spec.containers[0].ports[0].protocol",
            'unsupported protocol "HTTP"',
        ),
        (
            _with_pod_spec("      nodeSelector: {gpu: h100 sxm}\n"),
            "spec.podTemplate.spec.nodeSelector[gpu]",
            "invalid label value",
        ),
        (
            DCD.replace("  podTemplate:\n", "  podTemplate:\n    metadata: {labels: {'team a': x}}\n"),
            "spec.podTemplate.metadata.labels[team a]",
            "invalid label key",
        ),
    ],
    ids=["container-name", "container-in-two-lists", "volume-name", "port-number", "port-name", "protocol", "node-selector", "template-label"],
)
def test_pod_template_values_the_api_server_refuses(tmp_path: Path, text: str, field: str, message: str) -> None:
    _refused(tmp_path, text, field, message)


def _refused_on(tmp_path: Path, text: str, kind: str, field: str, message: str) -> None:
    """Refused for an object the source would render to (the error names that object)."""
    run = render_text(text, tmp_path)
    assert not contract_problems(run), contract_problems(run)
    assert run.code == 1, run.stdout
    assert any(r.resource and r.resource.kind == kind and r.field == field and message in r.message for r in run.errors), run.stderr


FRONTEND = DCD.replace("type: decode", "type: frontend")


def test_a_64_character_name_is_refused_on_the_labels_derived_from_it(tmp_path: Path) -> None:
    # DNS subdomains may be 253 characters; the operator copies the name into label values (63)
    text = FRONTEND.replace("name: agg-decode", "name: " + "a" * 64)
    _refused_on(tmp_path, text, "Deployment", "metadata.labels[nvidia.com/dynamo-component]", "invalid label value")


def test_a_name_that_is_no_service_name_is_refused_on_the_service(tmp_path: Path) -> None:
    _refused_on(tmp_path, FRONTEND.replace("name: agg-decode", "name: 1abc"), "Service", "metadata.name", "must be a DNS-1035 label")


def test_a_compilation_cache_pvc_name_that_cannot_name_a_volume_is_refused(tmp_path: Path) -> None:
    # fuzz: a PVC name with a "/" became the name of the volume the operator adds
    text = DCD.replace("  type: decode\n", "  type: decode\n  backendFramework: vllm\n  compilationCache: {pvcName: nvidia.com/cache}\n")
    _refused(tmp_path, text, "spec.compilationCache.pvcName", "cannot name the pod's volume")


@pytest.mark.parametrize(
    "extra, field, message",
    [
        # fuzz: an empty init container name passed the CRD (required only means present)
        ("          initContainers: [{name: '', image: busybox:1.36}]\n", "spec.podTemplate.spec.initContainers[0].name", "must not be empty"),
        # fuzz: a mount named 'xxx...' made the operator add a PVC volume of that name
        (None, "spec.podTemplate.spec.containers[0].volumeMounts[0].name", 'invalid volume name "xxxxxxxx'),
    ],
    ids=["empty-container-name", "mount-name"],
)
def test_names_the_operator_turns_into_pod_names(tmp_path: Path, extra: str | None, field: str, message: str) -> None:
    if extra is None:
        text = DCD + "          volumeMounts: [{name: " + "x" * 300 + ", mountPath: /m}]\n"
    else:
        text = DCD.replace("      containers:\n", extra.replace("          ", "      ", 1) + "      containers:\n")
    _refused(tmp_path, text, field, message)


@pytest.mark.parametrize("kind", ["DynamoComponentDeployment", "DynamoGraphDeployment"])
def test_v1alpha1_source_whose_metadata_is_a_list_is_refused(tmp_path: Path, kind: str) -> None:
    """A v1alpha1 source with ``metadata: [a]`` is one error at metadata.name, not a crash reading its namespace."""
    spec = "  componentType: frontend\n" if kind == "DynamoComponentDeployment" else "  services: {}\n"
    text = f"apiVersion: nvidia.com/v1alpha1\nkind: {kind}\nmetadata: [a]\nspec:\n{spec}"
    _refused(tmp_path, text, "metadata.name", "required field missing")
