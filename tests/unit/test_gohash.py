"""The DGD worker hash and the Go JSON bytes it is taken over.

Three kinds of evidence:

1. Upstream literal hash values. Every 8-hex literal in the operator's tests at 2a6da14c8 was
   classified. Computed from real inputs, reproduced here:
   - v2 ``1b69c0d3`` and ``cabcd5c9`` (internal/controller/dynamographdeployment_controller_test.go
     TestComponentWorkloadsReconciler_Reconcile): the DGD carries them as
     ``nvidia.com/current-worker-hash-v2`` and the reconcile reports the existing
     ``test-dgd-<comp>-<hash>`` DCDs ready, which only happens when the freshly computed hash
     equals the annotation (a different hash would create new, unready DCDs);
   - the sixteen v1 goldens of api/v1alpha1/legacy_worker_hash_test.go (the legacy hash is not
     used at render time, but it runs through the same Go JSON machinery, including a custom
     MarshalJSON, so it checks the encoder byte for byte).
   Arbitrary fixtures, not hashes of anything (only used as names, labels or inputs):
   ``abc12345``, ``aabb1122`` and ``2dad72b9`` (NewWorkerHash inputs in graph_test.go and
   rollout tests), ``db6b6891`` (an opaque stored v1 suffix), ``ea91a23f`` (the v2 annotation on a
   DGD without components, whose real hash would be ``44136fa3``), ``4e5bb2af`` (a DCD name in
   dynamocomponentdeployment_controller_test.go) and ``aabbccdd`` (golden-harness variables).
2. The relative properties internal/dynamo/hash_test.go asserts, restated on our inputs.
3. Go JSON derived by hand from the struct tags of api/v1beta1 (common.go,
   dynamocomponentdeployment_types.go), core/v1 and the inference extension's apix types.
"""

from __future__ import annotations

import copy
import hashlib
from typing import Any

import pytest

from renderer.gocompat import runtimeversion
from renderer.gocompat.gofloat import go_float
from renderer.gocompat.goduration import format_go_duration, parse_go_duration
from renderer.gocompat.gojson import dcd_spec_go_json, go_json
from renderer.graph.gohash import (
    WORKER_HASH_PLACEHOLDER,
    WorkerTemplate,
    resolve_runtime_version_for_hash,
    worker_hash,
    worker_hash_json,
    worker_hash_spec,
)
from tests.legacy_hash import (
    AlphaCompat,
    alpha_shared_spec_go_json,
    dcd_kube_annotations,
    dcd_kube_labels,
    legacy_worker_hash,
    main_container_image,
    worker_template_from_dcd,
)
from renderer.results import RenderError

P = WORKER_HASH_PLACEHOLDER

# -- 1a. upstream v2 literals ------------------------------------------------------------------


def _generated_dcd(
    dgd: str,
    namespace: str,
    component: str,
    component_type: str,
    *,
    replicas: int | None = None,
    backend: str = "",
    pod_template: dict[str, Any] | None = None,
    global_namespace: bool = False,
    extra_spec: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A worker DCD as generateSingleDCD builds it with the placeholder hash, by hand.

    Spec: the component copied, backendFramework from the DGD; metadata labels: the pod-template
    labels plus component, dynamo namespace (``<ns>-<dgd>`` or ``dynamo``), graph name and the
    worker hash; pod template: ensurePodTemplate (empty label/annotation maps) with the worker
    hash label. No DGD env, annotations or EPP in these fixtures.
    """
    template = copy.deepcopy(pod_template) if pod_template is not None else {}
    template.setdefault("metadata", {}).setdefault("labels", {})[
        "nvidia.com/dynamo-worker-hash"
    ] = P
    template["metadata"].setdefault("annotations", {})
    template.setdefault("spec", {})
    spec: dict[str, Any] = {}
    if backend:
        spec["backendFramework"] = backend
    spec.update({"name": component, "type": component_type})
    if global_namespace:
        spec["globalDynamoNamespace"] = True
    if replicas is not None:
        spec["replicas"] = replicas
    spec["podTemplate"] = template
    spec.update(extra_spec or {})
    labels = {
        **template["metadata"]["labels"],
        "nvidia.com/dynamo-component": component,
        "nvidia.com/dynamo-namespace": "dynamo" if global_namespace else f"{namespace}-{dgd}",
        "nvidia.com/dynamo-graph-deployment-name": dgd,
        "nvidia.com/dynamo-worker-hash": P,
    }
    metadata = {"name": f"{dgd}-{component}-{P}", "namespace": namespace, "labels": labels}
    return {"metadata": metadata, "spec": spec}


def _test_dgd_workers(components: dict[str, int]) -> dict[str, WorkerTemplate]:
    # The Go fixture is a v1alpha1 DGD "test-dgd" in "default" with backendFramework vllm and
    # services {name: {serviceName: name, dynamoNamespace: "default", componentType: name,
    # replicas: n}}. Conversion keeps dynamoNamespace as alpha-only data (AlphaCompat); it is
    # overridden by the DCD's own dynamo-namespace label in GetDCDKubeLabels.
    alpha = AlphaCompat(dynamo_namespace="default")
    return {
        name: worker_template_from_dcd(
            _generated_dcd("test-dgd", "default", name, name, replicas=n, backend="vllm"), alpha
        )
        for name, n in components.items()
    }


def test_upstream_v2_hash_decode_and_prefill() -> None:
    # frontend (replicas 1), decode (2), prefill (3); the frontend is not hashed
    workers = _test_dgd_workers({"decode": 2, "prefill": 3})
    frontend = _generated_dcd("test-dgd", "default", "frontend", "frontend", replicas=1, backend="vllm")
    workers["frontend"] = worker_template_from_dcd(frontend)
    assert worker_hash(workers) == "1b69c0d3"


def test_upstream_v2_hash_decode_only() -> None:
    assert worker_hash(_test_dgd_workers({"decode": 2})) == "cabcd5c9"


def test_upstream_v2_hash_bytes() -> None:
    # the exact document behind cabcd5c9: labels sorted, no annotations (the empty map is
    # omitted), no runtimeVersion (no main container), spec without replicas, the pod
    # template's nil containers slice as null and no creationTimestamp (omitzero)
    expected = (
        '{"decode":{"labels":{"nvidia.com/dynamo-component":"decode",'
        '"nvidia.com/dynamo-graph-deployment-name":"test-dgd",'
        '"nvidia.com/dynamo-namespace":"default-test-dgd",'
        '"nvidia.com/dynamo-sub-component-type":"decode",'
        '"nvidia.com/dynamo-worker-hash":"worker-hash-placeholder"},'
        '"spec":{"backendFramework":"vllm","name":"decode","type":"decode",'
        '"podTemplate":{"metadata":{"labels":{"nvidia.com/dynamo-worker-hash":'
        '"worker-hash-placeholder"}},"spec":{"containers":null}}}}}'
    )
    text = worker_hash_json(_test_dgd_workers({"decode": 2}))
    assert text == expected
    assert hashlib.sha256(expected.encode()).hexdigest()[:8] == "cabcd5c9"


def test_no_workers_hash_is_the_digest_of_an_empty_object() -> None:
    assert worker_hash({}) == "44136fa3" == hashlib.sha256(b"{}").hexdigest()[:8]


# -- 1b. upstream v1 (legacy) goldens ----------------------------------------------------------

W = "worker"


def _legacy_base() -> dict[str, Any]:
    # legacyWorkerHashDGD(): a frontend and a worker with resource and pod metadata
    return {
        "frontend": {"componentType": "frontend", "envs": [{"name": "FRONTEND_ONLY", "value": "ignored"}]},
        "worker": {
            "componentType": W,
            "annotations": {"resource": "base"},
            "labels": {"resource": "base"},
            "replicas": 2,
            "envs": [{"name": "MODEL", "value": "llama"}],
            "extraPodMetadata": {"labels": {"rollout": "base"}, "annotations": {"checksum/config": "base"}},
        },
    }


def _legacy_resource_metadata_changed() -> dict[str, Any]:
    services = _legacy_base()
    services["worker"].update(
        annotations={"resource": "changed"},
        labels={"resource": "changed"},
        replicas=99,
        ingress={"enabled": True, "host": "changed.example.com"},
    )
    services["frontend"]["envs"] = [{"name": "FRONTEND_ONLY", "value": "changed"}]
    return services


def _legacy_pod_metadata_changed() -> dict[str, Any]:
    services = _legacy_base()
    services["worker"]["extraPodMetadata"] = {
        "labels": {"rollout": "changed"},
        "annotations": {"checksum/config": "changed"},
    }
    return services


LEGACY_GOLDENS = [
    ("worker", _legacy_base(), "9b66accc"),
    ("resource metadata and non-workers ignored", _legacy_resource_metadata_changed(), "9b66accc"),
    ("pod metadata included", _legacy_pod_metadata_changed(), "af8a6c60"),
    ("no workers", {"frontend": {"componentType": "frontend"}}, "44136fa3"),
    ("nil services", {}, "44136fa3"),
    (
        "worker ordering",
        {
            "z-worker": {"componentType": W, "envs": [{"name": "Z", "value": "1"}]},
            "a-worker": {"componentType": W, "envs": [{"name": "A", "value": "1"}]},
        },
        "59cae8b3",
    ),
    (
        "all worker component types",
        {t: {"componentType": t, "envs": [{"name": "ROLE", "value": t}]} for t in ("decode", "prefill", "worker")},
        "b175ee30",
    ),
    (
        "main container name only",
        {"worker": {"componentType": W, "extraPodSpec": {"mainContainer": {"name": "main"}}}},
        "0c322ce0",
    ),
    (
        "main container rich",
        {
            "worker": {
                "componentType": W,
                "extraPodSpec": {
                    "mainContainer": {
                        "name": "main",
                        "image": "worker:1",
                        "command": ["python", "-m", "server"],
                        "args": ["--model", "qwen"],
                        "env": [{"name": "EXTRA", "value": "true"}],
                        "resources": {"requests": {"cpu": "2"}},
                    }
                },
            }
        },
        "9e64367a",
    ),
    (
        "pod spec rich",
        {
            "worker": {
                "componentType": W,
                "extraPodSpec": {
                    "nodeSelector": {"gpu": "true"},
                    "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists"}],
                    "volumes": [{"name": "cache", "emptyDir": {}}],
                },
            }
        },
        "1fcd5d7c",
    ),
    (
        "resources requests limits claims",
        {
            "worker": {
                "componentType": W,
                "resources": {
                    "requests": {"cpu": "1", "memory": "4Gi", "gpu": "1", "gpuType": "nvidia.com/gpu"},
                    "limits": {"cpu": "2", "memory": "8Gi", "gpu": "1"},
                    "claims": [{"name": "gpu-claim"}],
                },
            }
        },
        "a4172e4e",
    ),
    (
        "envs volume mounts secret",
        {
            "worker": {
                "componentType": W,
                "envs": [{"name": "MODEL", "value": "llama"}],
                "envFromSecret": "worker-secret",
                "volumeMounts": [{"name": "models", "mountPoint": "/models", "useAsCompilationCache": True}],
                "sharedMemory": {"size": "2Gi"},
                "livenessProbe": {"initialDelaySeconds": 5},
                "readinessProbe": {"timeoutSeconds": 3},
            }
        },
        "a0ceefd2",
    ),
    (
        "multiple compilation cache volume mounts",
        {
            "worker": {
                "componentType": W,
                "volumeMounts": [
                    {"name": "model-cache", "mountPoint": "/models", "useAsCompilationCache": True},
                    {"name": "compile-cache", "mountPoint": "/compile", "useAsCompilationCache": True},
                ],
            }
        },
        "5a3c0f65",
    ),
    (
        "ignored scaling ingress model",
        {
            "worker": {
                "componentType": W,
                "annotations": {"ignored": "true"},
                "labels": {"ignored": "true"},
                "replicas": 3,
                "autoscaling": {"enabled": True, "minReplicas": 1, "maxReplicas": 10},
                "ingress": {"enabled": True, "host": "example.com"},
                "modelRef": {"name": "model"},
                "scalingAdapter": {"enabled": True},
            }
        },
        "769fa7c7",
    ),
    (
        "multinode sidecar checkpoint",
        {
            "worker": {
                "componentType": W,
                "multinode": {"nodeCount": 2},
                "frontendSidecar": {"image": "frontend:1", "args": ["--router-mode", "direct"]},
                "checkpoint": {"enabled": True},
            }
        },
        "bf66a8e3",
    ),
    (
        "probe handler",
        {"worker": {"componentType": W, "readinessProbe": {"httpGet": {"path": "/health", "port": "http"}}}},
        "8ddbbadc",
    ),
]


@pytest.mark.parametrize(("services", "want"), [c[1:] for c in LEGACY_GOLDENS], ids=[c[0] for c in LEGACY_GOLDENS])
def test_upstream_legacy_worker_hash_goldens(services: dict[str, Any], want: str) -> None:
    assert legacy_worker_hash(services) == want
    assert legacy_worker_hash(copy.deepcopy(services)) == want  # stable


def test_legacy_extra_pod_spec_containers_print_after_the_pod_spec_fields() -> None:
    # ExtraPodSpec.MarshalJSON shadows PodSpec.Containers with an omitempty field declared
    # after the inline *PodSpec, so "containers" follows every PodSpec field, then mainContainer
    spec = {
        "extraPodSpec": {
            "mainContainer": {"name": "main"},
            "containers": [{"name": "side"}],
            "nodeSelector": {"a": "b"},
        }
    }
    assert alpha_shared_spec_go_json(spec) == (
        '{"extraPodSpec":{"nodeSelector":{"a":"b"},"containers":[{"name":"side","resources":{}}],'
        '"mainContainer":{"name":"main","resources":{}}}}'
    )
    # an empty containers list is dropped (omitempty), unlike a plain PodSpec's null
    assert alpha_shared_spec_go_json({"extraPodSpec": {"containers": [], "hostNetwork": True}}) == (
        '{"extraPodSpec":{"hostNetwork":true}}'
    )


# -- 2. properties of internal/dynamo/hash_test.go ---------------------------------------------


def _worker(
    component: str = "worker",
    component_type: str = "worker",
    namespace: str = "default",
    alpha: AlphaCompat | None = None,
    **kwargs: Any,
) -> WorkerTemplate:
    return worker_template_from_dcd(_generated_dcd("test", namespace, component, component_type, **kwargs), alpha)


def _main(**fields: Any) -> dict[str, Any]:
    return {"spec": {"containers": [{"name": "main", **fields}]}}


def test_deterministic_and_eight_hex_digits() -> None:
    workers = {"prefill": _worker("prefill", "prefill", replicas=2), "decode": _worker("decode", "decode", replicas=3)}
    first, second = worker_hash(workers), worker_hash(copy.deepcopy(workers))
    assert first == second
    assert len(first) == 8 and int(first, 16) >= 0


def test_ignores_non_workers() -> None:
    with_frontend = {"worker": _worker(), "frontend": _worker("frontend", "frontend")}
    assert worker_hash(with_frontend) == worker_hash({"worker": _worker()})


def test_ignores_generated_object_identity_with_global_namespace() -> None:
    # globalDynamoNamespace: the dynamo namespace is "dynamo" whatever the DGD's namespace
    assert worker_hash({"worker": _worker(namespace="other", global_namespace=True)}) == worker_hash(
        {"worker": _worker(global_namespace=True)}
    )


def test_tracks_the_dynamo_namespace() -> None:
    assert worker_hash({"worker": _worker(namespace="other")}) != worker_hash({"worker": _worker()})


@pytest.mark.parametrize(
    "change",
    [
        pytest.param({"pod_template": _main(resources={"requests": {"cpu": "2"}})}, id="resources"),
        pytest.param({"pod_template": _main(env=[{"name": "FOO", "value": "bar"}])}, id="env"),
        pytest.param({"extra_spec": {"sharedMemorySize": "1Gi"}}, id="shared-memory"),
        pytest.param({"global_namespace": True}, id="global-namespace"),
        pytest.param({"pod_template": {"metadata": {"labels": {"rollout": "required"}}}}, id="pod-labels"),
        pytest.param({"pod_template": {"metadata": {"annotations": {"rollout": "required"}}}}, id="pod-annotations"),
    ],
)
def test_changes_on_pod_affecting_fields(change: dict[str, Any]) -> None:
    assert worker_hash({"worker": _worker(**change)}) != worker_hash({"worker": _worker()})


def test_tracks_propagated_dgd_annotations_in_the_pod_template() -> None:
    # propagateDGDAnnotations copies vllm-distributed-executor-backend into the pod template
    def with_backend(value: str) -> str:
        template = {"metadata": {"annotations": {"nvidia.com/vllm-distributed-executor-backend": value}}}
        return worker_hash({"worker": _worker(pod_template=template)})

    assert with_backend("ray") != with_backend("mp")


def test_operator_origin_version_reaches_the_hash_through_the_spec_only() -> None:
    # GetDCDKubeAnnotations drops the origin version, but the pod template keeps it
    template = {"metadata": {"annotations": {"nvidia.com/dynamo-operator-origin-version": "1.4.0"}}}
    worker = _worker(pod_template=template)
    assert "nvidia.com/dynamo-operator-origin-version" not in worker.annotations
    assert worker_hash({"worker": worker}) != worker_hash({"worker": _worker()})


def test_ignores_non_rollout_fields() -> None:
    base = worker_hash({"worker": _worker()})
    assert worker_hash({"worker": _worker(replicas=99)}) == base
    assert worker_hash({"worker": _worker(replicas=0, extra_spec={"minAvailable": 1})}) == base
    assert worker_hash({"worker": _worker(extra_spec={"scalingAdapter": {}})}) == base


@pytest.mark.parametrize(
    ("left", "right", "equal"),
    [
        # omits resolved versions before 1.5
        (("registry.example/runtime:custom", ""), ("registry.example/runtime:custom", "1.4.9"), True),
        # canonicalizes equivalent implicit and explicit versions
        (
            ("nvcr.io/nvidia/ai-dynamo/runtime:v1.5.0-cuda13", ""),
            ("nvcr.io/nvidia/ai-dynamo/runtime:v1.5.0-cuda13", "1.5.0"),
            True,
        ),
        # changes at the 1.5 boundary
        (("registry.example/runtime:custom", "1.4.9"), ("registry.example/runtime:custom", "1.5.0"), False),
        # tracks override changes after 1.5
        (("registry.example/runtime:custom", "1.5.0"), ("registry.example/runtime:custom", "1.5.1"), False),
    ],
)
def test_uses_the_resolved_runtime_version(left: tuple[str, str], right: tuple[str, str], equal: bool) -> None:
    def hashed(image: str, override: str) -> str:
        extra = {"runtimeVersionOverride": override} if override else {}
        return worker_hash({"worker": _worker(pod_template=_main(image=image), extra_spec=extra)})

    assert (hashed(*left) == hashed(*right)) is equal


def test_tracks_preserved_alpha_resource_metadata() -> None:
    base = worker_hash({"worker": _worker()})
    assert worker_hash({"worker": _worker(alpha=AlphaCompat(annotations={"foo": "bar"}))}) != base
    assert worker_hash({"worker": _worker(alpha=AlphaCompat(labels={"foo": "bar"}))}) != base


def test_env_order_matters() -> None:
    forward = _main(env=[{"name": "A", "value": "1"}, {"name": "B", "value": "2"}])
    backward = _main(env=[{"name": "B", "value": "2"}, {"name": "A", "value": "1"}])
    assert worker_hash({"worker": _worker(pod_template=forward)}) != worker_hash(
        {"worker": _worker(pod_template=backward)}
    )


def test_every_worker_type_counts() -> None:
    workers = {"w": _worker("w", "worker"), "p": _worker("p", "prefill"), "d": _worker("d", "decode")}
    base = worker_hash(workers)
    changed = dict(workers, p=_worker("p", "prefill", pod_template=_main(env=[{"name": "X", "value": "1"}])))
    assert worker_hash(changed) != base


def test_worker_hash_spec_clears_only_the_scaling_fields() -> None:
    spec = {"name": "w", "replicas": 2, "minAvailable": 1, "scalingAdapter": {}, "runtimeVersionOverride": "1.5.0"}
    assert worker_hash_spec(spec) == {"name": "w"}
    assert spec["replicas"] == 2  # the input is not modified


# -- workload labels and annotations of a DCD --------------------------------------------------


def test_kube_labels_of_a_native_decode_worker() -> None:
    dcd = _generated_dcd("g", "ns", "Decode", "decode", extra_spec={"modelRef": {"name": "Qwen/Qwen3-0.6B"}})
    labels = dcd_kube_labels(dcd)
    assert labels == {
        "nvidia.com/dynamo-component": "Decode",
        "nvidia.com/dynamo-namespace": "ns-g",
        "nvidia.com/dynamo-graph-deployment-name": "g",
        "nvidia.com/dynamo-worker-hash": P,
        # v1beta1 decode round-trips to v1alpha1 worker + subComponentType decode
        "nvidia.com/dynamo-sub-component-type": "decode",
        # AddBaseModelLabel: HashModelName = first 8 hex of sha256(model name)
        "nvidia.com/dynamo-base-model-hash": hashlib.sha256(b"Qwen/Qwen3-0.6B").hexdigest()[:8],
    }


def test_kube_labels_object_labels_win_over_alpha_and_template() -> None:
    dcd = _generated_dcd("g", "ns", "w", "worker", pod_template={"metadata": {"labels": {"x": "pod"}}})
    alpha = AlphaCompat(labels={"x": "alpha", "y": "alpha"}, dynamo_namespace="legacy", sub_component_type="router")
    labels = dcd_kube_labels(dcd, alpha)
    assert labels["x"] == "pod"  # template labels are copied after the alpha labels
    assert labels["y"] == "alpha"
    assert labels["nvidia.com/dynamo-namespace"] == "ns-g"  # the object label wins at the end
    assert labels["nvidia.com/dynamo-sub-component-type"] == "router"  # kept for type worker


def test_kube_annotations_drop_origin_version_and_take_topology_from_the_object() -> None:
    template = {
        "metadata": {
            "annotations": {
                "nvidia.com/dynamo-operator-origin-version": "1.5.0",
                "nvidia.com/topology-label-key": "from-pod",
                "keep": "yes",
            }
        }
    }
    dcd = _generated_dcd("g", "ns", "w", "worker", pod_template=template)
    dcd["metadata"]["annotations"] = {"nvidia.com/topology-label-key": "rack-label", "other": "dropped"}
    assert dcd_kube_annotations(dcd, AlphaCompat(annotations={"alpha": "a"})) == {
        "alpha": "a",
        "keep": "yes",
        "nvidia.com/topology-label-key": "rack-label",
    }


def test_main_container_image() -> None:
    spec = {"podTemplate": {"spec": {"containers": [{"name": "side", "image": "s"}, {"name": "main", "image": "m:1"}]}}}
    assert main_container_image(spec) == "m:1"
    assert main_container_image({}) == ""
    assert main_container_image({"podTemplate": None}) == ""


# -- runtime versions (internal/runtimeversion/runtimeversion_test.go, hash.go) ------------------


@pytest.mark.parametrize(
    ("image", "override", "version"),
    [
        ("nvcr.io/nvidia/ai-dynamo/vllm-runtime:v1.2.3-cuda13", "", (1, 2, 3)),  # TestParseImageVersion
        ("registry.example/runtime:sha-123", "", None),
        ("nvcr.io/nvidia/ai-dynamo/runtime:v1.5.0-cuda13", "", (1, 5, 0)),  # TestResolve
        ("nvcr.io/nvidia/ai-dynamo/runtime:1.5.0", "1.4.0", (1, 4, 0)),  # the override wins
        ("nvcr.io/nvidia/ai-dynamo/runtime:1.5.0", "invalid", None),  # and never falls back
        ("", "1.2.3", (1, 2, 3)),  # TestParse
        ("", "1.2", None),
        ("", "18446744073709551616.0.0", None),  # uint64 overflow
        ("registry:5000/runtime", "", None),  # the port is no tag
        ("registry:5000/runtime:1.6.2@sha256:abc", "", (1, 6, 2)),  # digest stripped
    ],
)
def test_runtime_version_resolution(image: str, override: str, version: tuple[int, int, int] | None) -> None:
    assert runtimeversion.resolve(image, override) == version


@pytest.mark.parametrize(
    ("image", "override", "hashed"),
    [
        ("nvcr.io/nvidia/ai-dynamo/runtime:v1.5.0-cuda13", "", "1.5.0"),
        ("r/runtime:V2.0.1+build.7", "", "2.0.1"),
        ("r/runtime:1.4.9", "", ""),  # before 1.5.0: left out
        ("r/runtime:custom", "1.5.0", "1.5.0"),
        ("r/runtime:1.6.0", "1.4.0", ""),
        ("r/runtime:custom", "", ""),  # unresolvable: left out
        ("r/runtime:1.6.0", "v1.6.0", ""),  # the override is strict (no "v")
    ],
)
def test_runtime_version_for_hash(image: str, override: str, hashed: str) -> None:
    assert resolve_runtime_version_for_hash(image, override) == hashed


def test_runtime_version_is_taken_from_the_spec_before_clearing_the_override() -> None:
    dcd = _generated_dcd("g", "ns", "w", "worker", pod_template=_main(image="r/x:custom"))
    dcd["spec"]["runtimeVersionOverride"] = "1.7.3"
    template = worker_template_from_dcd(dcd)
    assert template.runtime_version == "1.7.3"
    assert '"runtimeVersion":"1.7.3"' in worker_hash_json({"w": template})
    assert "runtimeVersionOverride" not in worker_hash_json({"w": template})


# -- 3. Go JSON derived by hand from the struct tags -------------------------------------------


def test_minimal_decode_spec() -> None:
    # ComponentName `json:"name"` (no omitempty), ComponentType `json:"type,omitempty"`; every
    # other field is omitempty (strings, bools) or a nil pointer with omitempty
    assert dcd_spec_go_json({"name": "decode", "type": "decode"}) == '{"name":"decode","type":"decode"}'
    # an empty spec still prints the name
    assert dcd_spec_go_json({}) == '{"name":""}'


def test_multinode_defaulted_node_count_and_field_order() -> None:
    # MultinodeSpec.NodeCount int32 `json:"nodeCount"`: no omitempty, so {} prints 0;
    # leader/worker are *MultinodeRoleSpec omitempty. Field order: replicas, minAvailable,
    # multinode, sharedMemorySize (declaration order in DynamoComponentDeploymentSharedSpec)
    spec = {"sharedMemorySize": "8Gi", "multinode": {}, "replicas": 2, "type": "worker", "name": "w"}
    assert dcd_spec_go_json(spec) == (
        '{"name":"w","type":"worker","replicas":2,"multinode":{"nodeCount":0},"sharedMemorySize":"8Gi"}'
    )
    assert dcd_spec_go_json({"name": "w", "multinode": {"nodeCount": 2, "leader": {}}}) == (
        '{"name":"w","multinode":{"nodeCount":2,"leader":{}}}'
    )


def test_scaling_adapter_pointer_to_empty_struct_is_kept() -> None:
    # ScalingAdapter *ScalingAdapter `json:"scalingAdapter,omitempty"`: a non-nil pointer to a
    # struct without fields prints {} (omitempty drops only nil pointers)
    assert dcd_spec_go_json({"name": "w", "scalingAdapter": {}}) == '{"name":"w","scalingAdapter":{}}'
    assert dcd_spec_go_json({"name": "w", "scalingAdapter": None}) == '{"name":"w"}'


def test_quantities_are_canonical() -> None:
    # SharedMemorySize *resource.Quantity and ResourceList map values print
    # Quantity.MarshalJSON's canonical form; ResourceRequirements prints limits, then requests
    # (declaration order), map keys sorted; metadata is a value ObjectMeta: always {} here
    spec = {
        "name": "w",
        "sharedMemorySize": "1024Mi",
        "podTemplate": {
            "spec": {
                "containers": [
                    {
                        "name": "main",
                        "resources": {
                            "requests": {"memory": "1.5Gi", "cpu": "1000m"},
                            "limits": {"nvidia.com/gpu": 1},
                        },
                    }
                ]
            }
        },
    }
    assert dcd_spec_go_json(spec) == (
        '{"name":"w","podTemplate":{"metadata":{},"spec":{"containers":[{"name":"main",'
        '"resources":{"limits":{"nvidia.com/gpu":"1"},"requests":{"cpu":"1","memory":"1536Mi"}}}]}},'
        '"sharedMemorySize":"1Gi"}'
    )


def test_html_characters_are_escaped() -> None:
    # encoding/json escapes <, > and & as \u003c, \u003e, \u0026 in every string; EnvVar is
    # {name, value omitempty}; Container prints env before resources, resources always
    spec = {"name": "w", "podTemplate": _main(env=[{"name": "X", "value": "a<b>&c"}])}
    assert dcd_spec_go_json(spec) == (
        '{"name":"w","podTemplate":{"metadata":{},"spec":{"containers":[{"name":"main",'
        '"env":[{"name":"X","value":"a\\u003cb\\u003e\\u0026c"}],"resources":{}}]}}}'
    )


def test_empty_pod_template_metadata_and_spec() -> None:
    # PodTemplateSpec.ObjectMeta and .Spec are value structs: always printed. Empty label and
    # annotation maps are omitempty; CreationTimestamp is `omitempty,omitzero` in
    # apimachinery v0.36.2 (Go 1.26 honours omitzero), so no "creationTimestamp":null;
    # PodSpec.Containers `json:"containers"` is a nil slice: null
    spec = {"name": "w", "podTemplate": {"metadata": {"labels": {}, "annotations": {}}, "spec": {}}}
    assert dcd_spec_go_json(spec) == '{"name":"w","podTemplate":{"metadata":{},"spec":{"containers":null}}}'
    # an explicit empty list is not nil: []
    spec = {"name": "w", "podTemplate": {"spec": {"containers": []}}}
    assert dcd_spec_go_json(spec) == '{"name":"w","podTemplate":{"metadata":{},"spec":{"containers":[]}}}'


def test_checkpoint_enabled_has_no_omitempty() -> None:
    # ComponentCheckpointConfig.Enabled bool `json:"enabled"`
    spec = {"name": "w", "experimental": {"checkpoint": {}}}
    assert dcd_spec_go_json(spec) == '{"name":"w","experimental":{"checkpoint":{"enabled":false}}}'


def test_provider_override_value_is_sorted_compact_json() -> None:
    # ProviderOverride{APIVersion `json:"apiVersion"`, Target omitempty, Value apiextensionsv1.JSON
    # `json:"value"`}; JSON.MarshalJSON prints the raw bytes the API server served: keys sorted,
    # an integral number as an integer, and "null" when empty
    spec = {
        "name": "w",
        "providerOverride": {
            "value": {"spec": {"template": {"topologyConstraint": {"packDomain": "rack"}}}, "a": 1.0, "b<": [0.5]},
            "apiVersion": "grove.io/v1alpha1",
        },
    }
    assert dcd_spec_go_json(spec) == (
        '{"providerOverride":{"apiVersion":"grove.io/v1alpha1","value":{"a":1,"b\\u003c":[0.5],'
        '"spec":{"template":{"topologyConstraint":{"packDomain":"rack"}}}}},"name":"w"}'
    )
    assert dcd_spec_go_json({"name": "w", "providerOverride": {}}) == (
        '{"providerOverride":{"apiVersion":"","value":null},"name":"w"}'
    )


def test_endpoint_picker_config() -> None:
    # EndpointPickerConfig: TypeMeta inline (kind, apiVersion omitempty), Plugins and
    # SchedulingProfiles without omitempty (nil: null), FeatureGates omitempty,
    # SaturationDetector pointer; PluginSpec.Parameters json.RawMessage without omitempty (nil:
    # null); SchedulingPlugin.Weight *int without omitempty (nil: null);
    # MetricsStalenessThreshold metav1.Duration: a struct, always printed, as Duration.String
    spec = {
        "name": "e",
        "type": "epp",
        "eppConfig": {
            "config": {
                "apiVersion": "inference.networking.x-k8s.io/v1alpha1",
                "kind": "EndpointPickerConfig",
                "plugins": [{"type": "t", "name": "p"}, {"name": "q", "type": "u", "parameters": {"z": 1, "a": "x"}}],
                "schedulingProfiles": [{"name": "default", "plugins": [{"pluginRef": "p"}, {"pluginRef": "q", "weight": 2}]}],
                "saturationDetector": {"metricsStalenessThreshold": "90s", "kvCacheUtilThreshold": 0.8},
            }
        },
    }
    assert dcd_spec_go_json(spec) == (
        '{"name":"e","type":"epp","eppConfig":{"config":{"kind":"EndpointPickerConfig",'
        '"apiVersion":"inference.networking.x-k8s.io/v1alpha1",'
        '"plugins":[{"name":"p","type":"t","parameters":null},{"name":"q","type":"u","parameters":{"a":"x","z":1}}],'
        '"schedulingProfiles":[{"name":"default","plugins":[{"pluginRef":"p","weight":null},'
        '{"pluginRef":"q","weight":2}]}],'
        '"saturationDetector":{"kvCacheUtilThreshold":0.8,"metricsStalenessThreshold":"1m30s"}}}}'
    )
    empty = {"name": "e", "eppConfig": {"config": {"saturationDetector": {}}}}
    assert dcd_spec_go_json(empty) == (
        '{"name":"e","eppConfig":{"config":{"plugins":null,"schedulingProfiles":null,'
        '"saturationDetector":{"metricsStalenessThreshold":"0s"}}}}'
    )


def test_fields_print_in_declaration_order() -> None:
    spec = {
        "topologyConstraint": {"packDomain": "rack"},
        "compilationCache": {"mountPath": "/cache", "pvcName": "c"},
        "frontendSidecar": "sidecar-frontend",
        "modelRef": {"revision": "main", "name": "m"},
        "globalDynamoNamespace": True,
        "runtimeVersionOverride": "1.5.0",
        "type": "decode",
        "name": "d",
        "backendFramework": "vllm",
    }
    assert dcd_spec_go_json(spec) == (
        '{"backendFramework":"vllm","name":"d","type":"decode","runtimeVersionOverride":"1.5.0",'
        '"globalDynamoNamespace":true,"modelRef":{"name":"m","revision":"main"},'
        '"frontendSidecar":"sidecar-frontend","compilationCache":{"pvcName":"c","mountPath":"/cache"},'
        '"topologyConstraint":{"packDomain":"rack"}}'
    )


def test_a_whole_worker_template() -> None:
    # workerTemplate{Labels omitempty, Annotations omitempty, RuntimeVersion omitempty, Spec}
    template = WorkerTemplate(
        labels={"b": "2", "a": "1"},
        annotations={},
        runtime_version="1.5.0",
        spec={"name": "w", "type": "worker", "replicas": 4, "scalingAdapter": {}},
    )
    assert worker_hash_json({"w": template}) == (
        '{"w":{"labels":{"a":"1","b":"2"},"runtimeVersion":"1.5.0","spec":{"name":"w","type":"worker"}}}'
    )


def test_raw_yaml_and_normalised_templates_give_the_same_bytes() -> None:
    raw = {"name": "w", "podTemplate": _main(image="x", ports=[{"containerPort": 80}])}
    once = dcd_spec_go_json(raw)
    # feed the Go-shaped output back in (nulls included): nothing changes
    import json

    assert dcd_spec_go_json(json.loads(once)) == once
    # unknown keys are pruned, nulls are absent
    noisy = copy.deepcopy(raw)
    noisy["bogus"] = 1
    noisy["podTemplate"]["metadata"] = {"creationTimestamp": None, "labels": None}
    assert dcd_spec_go_json(noisy) == once


@pytest.mark.parametrize(
    ("spec", "field", "message"),
    [
        ({"name": 3}, "spec.name", "expected string, got integer"),
        ({"replicas": "2"}, "spec.replicas", "expected int32, got string"),
        ({"replicas": 2**31}, "spec.replicas", "out of range"),
        ({"sharedMemorySize": "8 GB"}, "spec.sharedMemorySize", "quantities must match"),
        ({"multinode": []}, "spec.multinode", "expected object, got array"),
        ({"podTemplate": {"spec": {"containers": [{"name": 1}]}}}, "spec.podTemplate.spec.containers[0].name", "expected string"),
        (
            {"eppConfig": {"config": {"saturationDetector": {"metricsStalenessThreshold": "5d"}}}},
            "spec.eppConfig.config.saturationDetector.metricsStalenessThreshold",
            'unknown unit "d"',
        ),
    ],
)
def test_type_errors_carry_the_field_path(spec: dict[str, Any], field: str, message: str) -> None:
    with pytest.raises(RenderError) as caught:
        dcd_spec_go_json(spec)
    assert caught.value.field == field
    assert message in caught.value.message


def test_deprecated_autoscaling_behavior_and_metrics_in_the_legacy_encoder() -> None:
    # autoscaling/v2 structs in Go field order; quantities canonical; a written empty behavior stays
    assert alpha_shared_spec_go_json({"autoscaling": {"behavior": {}}}) == '{"autoscaling":{"behavior":{}}}'
    metrics = [{"pods": {"target": {"averageValue": "1000m", "type": "AverageValue"}, "metric": {"name": "q"}}, "type": "Pods"}]
    assert alpha_shared_spec_go_json({"autoscaling": {"metrics": metrics}}) == (
        '{"autoscaling":{"metrics":[{"type":"Pods","pods":{"metric":{"name":"q"},'
        '"target":{"type":"AverageValue","averageValue":"1"}}}]}}'
    )
    # absent, they print nothing
    assert alpha_shared_spec_go_json({"autoscaling": {"enabled": True}}) == '{"autoscaling":{"enabled":true}}'


# -- Go number and duration text ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (1.0, "1"),
        (-0.0, "-0"),
        (0.8, "0.8"),
        (1e20, "100000000000000000000"),
        (1e21, "1e+21"),
        (1.5e300, "1.5e+300"),
        (0.000001, "0.000001"),
        (1e-7, "1e-7"),
        (-1.2345e-8, "-1.2345e-8"),
        (123456789.125, "123456789.125"),
        (5e-324, "5e-324"),
    ],
)
def test_go_float(value: float, text: str) -> None:
    # encoding/json floatEncoder: 'f' format, 'e' below 1e-6 and from 1e21, e-07 trimmed to e-7
    assert go_float(value) == text


def test_go_json_layout() -> None:
    assert go_json({"b": [1, 2.5, None, True], "a": {"\u2028": "&"}}) == '{"b":[1,2.5,null,true],"a":{"\\u2028":"\\u0026"}}'


@pytest.mark.parametrize(
    ("text", "nanoseconds"),
    [
        # from Go's time.ParseDuration tests
        ("0", 0),
        ("5s", 5_000_000_000),
        ("-5s", -5_000_000_000),
        ("+5s", 5_000_000_000),
        ("-0", 0),
        ("5.6s", 5_600_000_000),
        ("5.s", 5_000_000_000),
        (".5s", 500_000_000),
        ("1.004s", 1_004_000_000),
        ("10ns", 10),
        ("11us", 11_000),
        ("12\u00b5s", 12_000),
        ("12\u03bcs", 12_000),
        ("3h30m", 12_600_000_000_000),
        ("10.5s4m", 250_500_000_000),
        ("-2m3.4s", -123_400_000_000),
        ("1h2m3s4ms5us6ns", 3_723_004_005_006),
        ("0.3333333333333333333h", 1_200_000_000_000),
        ("9223372036854775807ns", (1 << 63) - 1),
        ("9223372036854775.807us", (1 << 63) - 1),
        ("-9223372036854775808ns", -(1 << 63)),
        ("0.830103483285477580700h", 2_988_372_539_827),
    ],
)
def test_parse_go_duration(text: str, nanoseconds: int) -> None:
    assert parse_go_duration(text) == nanoseconds


@pytest.mark.parametrize(
    "text", ["", "3", "-", "s", ".", "-.", ".s", "+.s", "1d", "9223372036854775808ns", "-9223372036854775809ns"]
)
def test_parse_go_duration_refuses(text: str) -> None:
    with pytest.raises(ValueError, match="time: "):
        parse_go_duration(text)


@pytest.mark.parametrize(
    ("nanoseconds", "text"),
    [
        # from Go's Duration.String tests
        (0, "0s"),
        (1, "1ns"),
        (1_100, "1.1\u00b5s"),
        (2_200_000, "2.2ms"),
        (3_300_000_000, "3.3s"),
        (245_000_000_000, "4m5s"),
        (245_001_000_000, "4m5.001s"),
        (18_367_001_000_000, "5h6m7.001s"),
        (480_000_000_001, "8m0.000000001s"),
        ((1 << 63) - 1, "2562047h47m16.854775807s"),
        (-(1 << 63), "-2562047h47m16.854775808s"),
    ],
)
def test_format_go_duration(nanoseconds: int, text: str) -> None:
    assert format_go_duration(nanoseconds) == text


def test_null_list_items_are_errors() -> None:
    with pytest.raises(RenderError, match="expected object, got null") as caught:
        dcd_spec_go_json({"eppConfig": {"config": {"plugins": [None]}}})
    assert caught.value.field == "spec.eppConfig.config.plugins[0]"


# -- the DGD expansion and the hash together ---------------------------------------------------


def test_dgd_expansion_reproduces_the_upstream_hashes() -> None:
    # renderer.graph.dgd.generate_dcds on the v1beta1 form of the Go fixture (conversion sorts the
    # v1alpha1 services by name); built without admission, as the Go test builds it
    from renderer.admission.api import DynamoComponentDeploymentSharedSpec
    from renderer.graph.dgd import DGD, Component, DynamoGraphDeploymentSpec
    from renderer.graph.expand import generate_dcds

    raws = [
        {"name": "decode", "type": "decode", "replicas": 2},
        {"name": "frontend", "type": "frontend", "replicas": 1},
        {"name": "prefill", "type": "prefill", "replicas": 3},
    ]

    def hashed(selected: list[dict[str, Any]]) -> str:
        components = tuple(
            Component(i, DynamoComponentDeploymentSharedSpec.model_validate(r), None, r) for i, r in enumerate(selected)
        )
        spec = DynamoGraphDeploymentSpec.model_validate({"backendFramework": "vllm", "components": selected})
        dgd = DGD("test-dgd", "default", {}, {}, spec, components, [])
        dcds = generate_dcds(dgd, WORKER_HASH_PLACEHOLDER)
        return worker_hash({c.name: worker_template_from_dcd(dcd) for c, dcd in dcds})

    assert hashed(raws) == "1b69c0d3"
    assert hashed(raws[:2]) == "cabcd5c9"


# -- the generator's dynamo mode (tools/gen_gotypes.py) ----------------------------------------

_GO_API = """
package v1beta1

import (
	"encoding/json"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

type Root struct {
	Template *corev1.PodTemplateSpec `json:"template,omitempty"`
	Value    apiextensionsv1.JSON `json:"value"`
	Params   json.RawMessage `json:"params,omitempty"`
	Scale    *autoscalingv2.MetricSpec `json:"scale,omitempty"`
	Marker   *Marker `json:"marker,omitempty"`
}

type Marker struct{}

type Custom struct {
	A string `json:"a"`
}

func (c Custom) MarshalJSON() ([]byte, error) { return nil, nil }

type Envelope[T any] struct {
	Spec T `json:"spec"`
}

type UsesCustom struct {
	C Custom `json:"c"`
}

type UsesGeneric struct {
	E Envelope[string] `json:"e"`
}
"""

_GO_CORE_MINI = """
package v1

type PodTemplateSpec struct {
	Name string `json:"name"`
}
"""


def _dynamo_resolver(gen: Any) -> Any:
    api_path = gen.DYNAMO_V1BETA1
    api = gen.Package(path=api_path)
    gen.parse_file(_GO_API, api, "types.go")
    core = gen.Package(path=gen.CORE_PATH)
    gen.parse_file(_GO_CORE_MINI, core, "types.go")
    return gen.Resolver(
        {api_path: api, gen.CORE_PATH: core},
        leaves=gen.DYNAMO_LEAVES,
        delegate=frozenset({gen.CORE_PATH}),
        opaque=frozenset({gen.AUTOSCALING_V2_PATH}),
    )


def test_generator_dynamo_mode_shapes() -> None:
    from tools import gen_gotypes as gen

    structs = gen.reachable(_dynamo_resolver(gen), "Root", gen.DYNAMO_V1BETA1)
    assert sorted(structs) == ["Marker", "Root"]
    assert [(f.json_name, f.shape) for f in structs["Root"]] == [
        ("template", ("ptr", ("k8s", "PodTemplateSpec"))),  # core/v1 is delegated
        ("value", ("RawJSON",)),
        ("params", ("RawMessage",)),
        ("scale", ("ptr", ("unsupported", "k8s.io/api/autoscaling/v2.MetricSpec"))),
        ("marker", ("ptr", ("struct", "Marker"))),
    ]
    assert structs["Marker"] == []
    text = gen.render_dynamo_module(
        {"V1BETA1": structs, "V1ALPHA1": {}}, {"dynamo": "c0ffee", "gaie": "v9", "apimachinery": "v8", "api": "v7"}
    )
    namespace: dict[str, Any] = {}
    exec(compile(text, "dynamo_types.py", "exec"), namespace)
    assert namespace["V1BETA1"]["Marker"] == ()
    assert namespace["SOURCES"]["github.com/ai-dynamo/dynamo"] == "c0ffee"


def test_generator_refuses_custom_marshalers_and_generics() -> None:
    from tools import gen_gotypes as gen

    with pytest.raises(gen.GoSourceError, match="Custom has its own MarshalJSON"):
        gen.reachable(_dynamo_resolver(gen), "UsesCustom", gen.DYNAMO_V1BETA1)
    with pytest.raises(gen.GoSourceError, match="generic type Envelope"):
        gen.reachable(_dynamo_resolver(gen), "UsesGeneric", gen.DYNAMO_V1BETA1)


def test_generated_dynamo_table_provenance() -> None:
    from renderer.gocompat import dynamo_types

    assert dynamo_types.SOURCES == {
        "github.com/ai-dynamo/dynamo": "2a6da14c8",
        "sigs.k8s.io/gateway-api-inference-extension": "v1.2.0",
        "k8s.io/apimachinery": "v0.36.2",
        "k8s.io/api": "v0.36.2",
    }
    # ScalingAdapter is an empty struct in v1beta1 and {enabled} in v1alpha1
    assert dynamo_types.V1BETA1["ScalingAdapter"] == ()
    assert [r[0] for r in dynamo_types.V1ALPHA1["ScalingAdapter"]] == ["enabled"]
    # the inline shared spec is flattened after backendFramework
    assert [r[0] for r in dynamo_types.V1BETA1["DynamoComponentDeploymentSpec"]][:3] == [
        "backendFramework",
        "providerOverride",
        "name",
    ]


# -- CRD defaults the API server fills in before the operator hashes ----------------------------


def test_crd_defaults_reach_the_hashed_spec() -> None:
    # nvidia.com_dynamographdeployments.yaml v1beta1: checkpoint startupPolicy Immediate,
    # deletionPolicy Delete, targetContainerName main; multinode nodeCount 2; a container port's
    # protocol TCP. ComponentCheckpointConfig prints enabled, mode, startupPolicy,
    # deletionPolicy, ..., targetContainerName in that order.
    spec = {
        "name": "w",
        "type": "worker",
        "multinode": {},
        "experimental": {"checkpoint": {"enabled": True}},
        "podTemplate": {"spec": {"containers": [{"name": "main", "ports": [{"containerPort": 9090}]}]}},
    }
    text = worker_hash_json({"w": WorkerTemplate(spec=spec)})
    assert text == (
        '{"w":{"spec":{"name":"w","type":"worker","podTemplate":{"metadata":{},"spec":{"containers":[{"name":"main",'
        '"ports":[{"containerPort":9090,"protocol":"TCP"}],"resources":{}}]}},"multinode":{"nodeCount":2},'
        '"experimental":{"checkpoint":{"enabled":true,"startupPolicy":"Immediate","deletionPolicy":"Delete",'
        '"targetContainerName":"main"}}}}}'
    )
    from renderer.graph.gohash import apply_component_crd_defaults

    defaulted = apply_component_crd_defaults(spec)
    assert apply_component_crd_defaults(defaulted) == defaulted
    assert worker_hash({"w": WorkerTemplate(spec=defaulted)}) == worker_hash({"w": WorkerTemplate(spec=spec)})
    assert "experimental" not in apply_component_crd_defaults({"name": "w"})  # parents are never created
    # explicit values are kept
    assert apply_component_crd_defaults({"multinode": {"nodeCount": 4}})["multinode"] == {"nodeCount": 4}


def test_hashing_never_modifies_its_input() -> None:
    spec = {
        "name": "w",
        "type": "worker",
        "replicas": 3,
        "multinode": {},
        "podTemplate": {"spec": {"containers": [{"name": "main", "ports": [{"containerPort": 1}]}]}},
    }
    before = copy.deepcopy(spec)
    from renderer.graph.gohash import apply_component_crd_defaults

    defaulted = apply_component_crd_defaults(spec)
    worker_hash({"w": WorkerTemplate(spec=spec)})
    assert spec == before
    assert defaulted["podTemplate"]["spec"]["containers"][0]["ports"][0]["protocol"] == "TCP"
    # untouched subtrees are shared, not copied
    untouched = {"name": "w", "modelRef": {"name": "m"}}
    assert apply_component_crd_defaults(untouched)["modelRef"] is untouched["modelRef"]


def test_go_json_without_floats_takes_the_same_escaping() -> None:
    assert go_json({"x": "a<b", "y": [1, None, True], "z": {}}) == '{"x":"a\\u003cb","y":[1,null,true],"z":{}}'


def test_kube_labels_dynamo_namespace_fallbacks() -> None:
    # GetDCDDynamoNamespace: preserved alpha value, else the label, else <ns>-<parent DGD>
    # (parent from the DGD ownerReference, else the graph label, else the DCD's own name)
    bare = {"metadata": {"name": "a.b", "namespace": "ns"}, "spec": {"name": "c", "type": "worker"}}
    assert dcd_kube_labels(bare)["nvidia.com/dynamo-namespace"] == "ns-a-b"
    owned = copy.deepcopy(bare)
    owned["metadata"]["ownerReferences"] = [{"kind": "DynamoGraphDeployment", "name": "g.1"}]
    assert dcd_kube_labels(owned)["nvidia.com/dynamo-namespace"] == "ns-g-1"
    assert dcd_kube_labels(owned, AlphaCompat(dynamo_namespace="legacy"))["nvidia.com/dynamo-namespace"] == "legacy"
    # a preserved empty value wins and sets no label at all
    assert "nvidia.com/dynamo-namespace" not in dcd_kube_labels(owned, AlphaCompat(dynamo_namespace=""))
    glob = copy.deepcopy(bare)
    glob["spec"]["globalDynamoNamespace"] = True
    assert dcd_kube_labels(glob)["nvidia.com/dynamo-namespace"] == "dynamo"
