"""Fuzzing the render command: every input ends in valid objects or in user errors, never a bug.

Inputs come from three sources:

- generated DCDs and DGDs, built field by field so that most of them render (this reaches the
  deep rendering code: backends, multinode, probes, volumes, services);
- mutations of real inputs: the golden case inputs under tests/golden and the corpus manifests
  under tests/data/corpus, with wrong types, deleted or added fields, nulls, extreme numbers,
  huge strings and odd unicode;
- mutations of the text itself (the YAML reader) and of the configuration documents.

Each input goes through ``plugin.frontends.render.run`` in-process (files in, stdout and stderr out,
see tests/fuzz/support.py). The property is that the run keeps the command's contract: exit 0
with every rendered object valid against the Kubernetes 1.36 and LeaderWorkerSet schemas, or
exit 1 with nothing on stdout, one line per problem, and a field path on every error about an
object. An exception escaping ``run`` fails the test: it would be exit 3 for a user.

The example budget comes from the Hypothesis profile (tests/fuzz/conftest.py,
``DYNAMO_RENDER_FUZZ=ci|long|smoke``); the session summary prints how many examples ran.
"""

from __future__ import annotations

import functools
import json
import math
import os
import string
import tempfile
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, note
from hypothesis import strategies as st

from plugin.yamlio.codec import dump_documents, load_documents
from tests.fuzz.support import Run, add_summary_line, contract_problems, render
from tests.schemas import validate_object

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "golden"
CORPUS = ROOT / "tests" / "data" / "corpus"

# DYNAMO_RENDER_FUZZ_LOG=<file>: one line per example (test, exit code, first error), for tuning
LOG = os.environ.get("DYNAMO_RENDER_FUZZ_LOG")
EXAMPLES: Counter[str] = Counter()
OUTCOMES: Counter[str] = Counter()


@pytest.fixture(scope="module", autouse=True)
def _example_summary(request: pytest.FixtureRequest) -> Iterator[None]:
    yield
    total = sum(EXAMPLES.values())
    per_test = ", ".join(f"{name} {count}" for name, count in sorted(EXAMPLES.items()))
    add_summary_line(
        request.config,
        f"fuzz: {total} examples ({per_test}); rendered {OUTCOMES['rendered']}, refused {OUTCOMES['refused']}",
    )


# ---------------------------------------------------------------------------------------------
# Seeds


def _documents(path: Path) -> list[Any]:
    try:
        docs, problems = load_documents(path.read_text(encoding="utf-8"), str(path))
    except (OSError, UnicodeDecodeError):
        return []
    return [] if problems else [d.obj for d in docs if isinstance(d.obj, dict)]


@functools.cache
def golden_inputs() -> tuple[tuple[str, tuple[Any, ...]], ...]:
    seeds = []
    for path in sorted(GOLDEN.glob("*/*/input.yaml")):
        docs = _documents(path)
        if docs:
            seeds.append((f"{path.parent.parent.name}/{path.parent.name}", tuple(docs)))
    assert seeds, "no golden inputs found"
    return tuple(seeds)


@functools.cache
def corpus_inputs() -> tuple[tuple[str, tuple[Any, ...]], ...]:
    seeds = []
    for path in sorted(CORPUS.glob("*.y*ml")):
        docs = [d for d in _documents(path) if str(d.get("kind", "")).startswith("Dynamo")]
        if docs:
            seeds.append((path.name, tuple(docs)))
    assert seeds, "no corpus manifests found"
    return tuple(seeds)


@functools.cache
def golden_configs() -> tuple[str, ...]:
    return tuple(sorted({p.read_text(encoding="utf-8") for p in GOLDEN.glob("*/*/config.yaml")}))


# ---------------------------------------------------------------------------------------------
# Values


EXTREME_INTS = [0, -1, 1, 2, 2**31 - 1, 2**31, -(2**31) - 1, 2**53 + 1, 2**63 - 1, 2**63, 2**64, -(2**63) - 1, 10**30]
EXTREME_FLOATS = [0.5, -0.0, 1.5, 1e-320, 3.5e38, 1e308, -1e308, 2.0**63, math.inf, -math.inf, math.nan]
NAMES = st.sampled_from(
    ["main", "", " ", "-", "a" * 64, "a" * 253, "A", "UPPER", "1.2.3", "latest", "a.b", "a_b", "x--y", "-x", "x-"]
)
INTERESTING_TEXT = st.sampled_from(
    [
        "nvidia.com/gpu",
        "$(VAR)",
        "${VAR}",
        "{{ .Values.x }}",
        "../../etc/passwd",
        "café",
        "\u202eevil",
        "zero\u200bwidth",
        "e\u0301",
        "\U0001f600",
        "\ufeffbom",
        "\u2028line",
        "tab\there",
        "new\nline",
        "nul\x00byte",
        "10Gi",
        "1.5",
        "0x10",
        "y",
        "null",
        "true",
        "--model",
        "python3 -m dynamo.vllm",
        "registry.example/img:1.2.3",
        "img@sha256:" + "a" * 64,
        ":",
        "a: b",
        "- x",
        "#",
        "&anchor",
        "*alias",
        "!tag",
        "%",
        "@",
        "`",
    ]
)
HUGE_TEXT = st.sampled_from(["x" * 100_000, "é" * 70_000, "\u202e" * 5_000, "a\n" * 20_000, "🙂" * 30_000])
ODD_TEXT = st.text(st.characters(exclude_categories=("Cs",)), max_size=30)
TEXT = st.one_of(NAMES, INTERESTING_TEXT, ODD_TEXT, st.text(string.ascii_lowercase + "-.", max_size=20))
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.sampled_from(EXTREME_INTS),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.sampled_from(EXTREME_FLOATS),
    st.floats(allow_nan=False, allow_infinity=False),
    TEXT,
)
KEYS = st.one_of(NAMES, INTERESTING_TEXT, st.text(string.ascii_letters, min_size=1, max_size=12), ODD_TEXT)
JSON_VALUES = st.recursive(
    SCALARS,
    lambda children: st.one_of(st.lists(children, max_size=4), st.dictionaries(KEYS, children, max_size=4)),
    max_leaves=12,
)
MUTATIONS = (
    "delete",
    "null",
    "replace",
    "wrong-type",
    "extreme-number",
    "huge-string",
    "odd-string",
    "empty",
    "add-key",
    "rename-key",
    "duplicate-item",
)


def _slots(node: Any, parent: Any = None, key: Any = None) -> Iterator[tuple[Any, Any, Any]]:
    """Every (container, key, value) in a document, parents before children."""
    if parent is not None:
        yield parent, key, node
    if isinstance(node, dict):
        for child_key, child in list(node.items()):
            yield from _slots(child, node, child_key)
    elif isinstance(node, list):
        for index, child in enumerate(node):
            yield from _slots(child, node, index)


def _wrong_type(draw: Any, value: Any) -> Any:
    if isinstance(value, dict):
        return draw(st.sampled_from([[], [value], "object", 1, True]))
    if isinstance(value, list):
        return draw(st.sampled_from([{}, {"0": value[0] if value else None}, "list", 0, False]))
    if isinstance(value, str):
        return draw(st.sampled_from([1, -1, True, 1.5, [value], {value: value}]))
    if isinstance(value, bool):
        return draw(st.sampled_from(["true", 1, "yes", [True]]))
    if isinstance(value, (int, float)):
        return draw(st.sampled_from([str(value), True, [value], {"value": value}, "1e3", "one"]))
    return draw(st.sampled_from(["", 0, [], {}]))


@st.composite
def mutated(draw: Any, docs: tuple[Any, ...]) -> list[Any]:
    """A deep copy of ``docs`` with one to four mutations at drawn places."""
    result = json.loads(json.dumps(list(docs)))
    for _ in range(draw(st.integers(min_value=1, max_value=4))):
        slots = list(_slots(result))
        if not slots:
            break
        container, key, value = slots[draw(st.integers(min_value=0, max_value=len(slots) - 1))]
        kind = draw(st.sampled_from(MUTATIONS))
        note(f"mutation {kind} at {key!r} ({type(value).__name__})")
        if kind == "delete":
            del container[key]
        elif kind == "null":
            container[key] = None
        elif kind == "replace":
            container[key] = draw(JSON_VALUES)
        elif kind == "wrong-type":
            container[key] = _wrong_type(draw, value)
        elif kind == "extreme-number":
            container[key] = draw(st.one_of(st.sampled_from(EXTREME_INTS), st.sampled_from(EXTREME_FLOATS)))
        elif kind == "huge-string":
            container[key] = draw(HUGE_TEXT)
        elif kind == "odd-string":
            container[key] = draw(st.one_of(ODD_TEXT, INTERESTING_TEXT))
        elif kind == "empty":
            container[key] = draw(st.sampled_from(["", [], {}]))
        elif kind == "add-key":
            target = value if isinstance(value, dict) else container if isinstance(container, dict) else None
            if target is not None:
                target[draw(KEYS)] = draw(JSON_VALUES)
        elif kind == "rename-key" and isinstance(container, dict):
            new_key = draw(KEYS)
            if new_key not in container:
                container[new_key] = container.pop(key)
        elif kind == "duplicate-item" and isinstance(container, list):
            container.insert(key, json.loads(json.dumps(value)))
    return result


# ---------------------------------------------------------------------------------------------
# Generated DCDs and DGDs


# mostly short names; sometimes names at and past the limits of what is derived from them
K8S_NAME = st.one_of(
    st.from_regex(r"\A[a-z]([-a-z0-9]{0,14}[a-z0-9])?\Z"),
    st.sampled_from(["a" * 40, "a" * 56, "a" * 63, "a" * 64, "a" * 253, "1abc", "a.b", "a-1"]),
)
COMPONENT_NAME = st.one_of(
    st.from_regex(r"\A[A-Za-z]([-A-Za-z0-9]{0,10}[A-Za-z0-9])?\Z"),
    st.sampled_from(["A" * 40, "a" * 63, "Decode-Worker", "9lives"]),
)
BACKENDS = [None, "vllm", "sglang", "trtllm"]
TYPES = [None, "frontend", "worker", "prefill", "decode", "planner", "epp"]
IMAGES = st.sampled_from(
    [
        "nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.3.0",
        "nvcr.io/nvidia/ai-dynamo/sglang-runtime:0.9.0",
        "nvcr.io/nvidia/ai-dynamo/tensorrtllm-runtime:1.5.0",
        "nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.5.0",
        "nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.4.1",
        "registry.example:5000/team/worker:1.2.3-rc1",
        "worker:latest",
        "my-registry/worker:my-tag",
        "worker",
        "localhost/a/b/c@sha256:" + "0" * 64,
    ]
)
QUANTITIES = st.sampled_from(["1", "2", "8", "0", "500m", "16Gi", "1.5", "100M", "1e3", "64Ki"])


def _backend_command(backend: str | None, draw: Any) -> dict[str, Any]:
    module = f"dynamo.{backend}" if backend else draw(st.sampled_from(["dynamo.frontend", "dynamo.planner", "app"]))
    flags = draw(
        st.lists(
            st.sampled_from(
                [
                    "--model",
                    "Qwen/Qwen3-0.6B",
                    "--tensor-parallel-size",
                    "2",
                    "--data-parallel-size",
                    "2",
                    "--pipeline-parallel-size",
                    "2",
                    "--tp-size",
                    "--dp-size",
                    "--enable-dp-attention",
                    "--is-prefill-worker",
                    "--disaggregation-mode",
                    "prefill",
                    "--distributed-executor-backend",
                    "ray",
                    "mp",
                    "--extra-engine-args",
                    "/config.yaml",
                    "--router-mode",
                    "kv",
                ]
            ),
            max_size=8,
        )
    )
    style = draw(st.sampled_from(["module", "shell", "args-only", "none"]))
    if style == "module":
        return {"command": ["python3", "-m", module], "args": flags}
    if style == "shell":
        return {"command": ["/bin/sh", "-c"], "args": [" ".join(["python3", "-m", module, *flags])]}
    if style == "args-only":
        return {"args": ["-m", module, *flags]}
    return {}


@st.composite
def component_spec(draw: Any, backend: str | None, in_graph: bool) -> dict[str, Any]:
    component_type = draw(st.sampled_from(TYPES))
    spec: dict[str, Any] = {}
    if component_type:
        spec["type"] = component_type
    if in_graph or draw(st.booleans()):
        spec["name"] = draw(COMPONENT_NAME)
    if draw(st.booleans()):
        spec["replicas"] = draw(st.integers(min_value=0, max_value=4))
    if component_type in ("worker", "prefill", "decode", None) and draw(st.integers(0, 3)) == 0:
        spec["multinode"] = {"nodeCount": draw(st.integers(min_value=2, max_value=4))} if draw(st.booleans()) else {}
    container: dict[str, Any] = {"name": "main", "image": draw(IMAGES)}
    container.update(_backend_command(backend, draw))
    gpus = draw(st.one_of(st.none(), QUANTITIES))
    if gpus is not None:
        container["resources"] = {"limits": {"nvidia.com/gpu": gpus}, "requests": {"cpu": draw(QUANTITIES)}}
    if draw(st.booleans()):
        names = draw(st.lists(st.sampled_from(["HF_HOME", "DYN_LOG", "POD_IP", "A_B"]), min_size=1, max_size=3, unique=True))
        container["env"] = [{"name": name, "value": draw(TEXT)} for name in names]
    pod_spec: dict[str, Any] = {"containers": [container]}
    if draw(st.booleans()):
        container["volumeMounts"] = [{"name": "cache", "mountPath": draw(st.sampled_from(["/cache", "/models", "/"]))}]
        pod_spec["volumes"] = [
            draw(
                st.sampled_from(
                    [
                        {"name": "cache", "emptyDir": {}},
                        {"name": "cache", "persistentVolumeClaim": {"claimName": "model-cache"}},
                        {"name": "other", "emptyDir": {"sizeLimit": "1Gi"}},
                    ]
                )
            )
        ]
    if draw(st.booleans()):
        # mostly a valid sidecar; sometimes a duplicate or invalid name
        sidecar = draw(st.sampled_from(["sidecar", "sidecar", "sidecar", "main", "Bad_Name"]))
        pod_spec["containers"].append({"name": sidecar, "image": "busybox:1.36"})
    if draw(st.booleans()):
        pod_spec.update(
            draw(
                st.sampled_from(
                    [
                        {"nodeSelector": {"gpu": "h100"}},
                        {"tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]},
                        {"imagePullSecrets": [{"name": "regcred"}]},
                        {"serviceAccountName": "custom"},
                        {"terminationGracePeriodSeconds": 0},
                        {"securityContext": {"runAsUser": 1000, "fsGroup": 2000}},
                    ]
                )
            )
        )
    template: dict[str, Any] = {"spec": pod_spec}
    if draw(st.booleans()):
        template["metadata"] = {"labels": {"team": "a"}, "annotations": {"note": draw(TEXT)}}
    spec["podTemplate"] = template
    if component_type == "epp":
        # an EPP needs its config and exactly one replica; sometimes leave either out
        if draw(st.integers(0, 5)):
            spec["eppConfig"] = draw(
                st.sampled_from([{"configMapRef": {"name": "epp", "key": "config.yaml"}}, {"config": {"a": 1}}])
            )
        if "replicas" in spec and draw(st.integers(0, 5)):
            spec["replicas"] = 1
    elif draw(st.integers(0, 20)) == 0:
        spec["eppConfig"] = {"configMapRef": {"name": "epp", "key": "config.yaml"}}
    for field, values, one_in in (
        ("sharedMemorySize", st.sampled_from(["8Gi", "0", "1Gi", "bogus", 1024]), 4),
        ("modelRef", st.sampled_from([{"name": "Qwen/Qwen3-0.6B"}, {"name": "m", "revision": "main"}]), 4),
        ("frontendSidecar", st.sampled_from(["sidecar", "sidecar", "main", "missing"]), 6),
        ("compilationCache", st.sampled_from([{"pvcName": "cache"}, {"pvcName": "cache", "mountPath": "/cc"}]), 6),
        ("runtimeVersionOverride", st.sampled_from(["1.3.0", "0.0.1", "1.3.0", "1.2"]), 6),
        ("globalDynamoNamespace", st.booleans(), 6),
        ("minAvailable", st.integers(1, 3), 20),
    ):
        if draw(st.integers(0, one_in - 1)) == 0:
            spec[field] = draw(values)
    return spec


@st.composite
def generated_dcd(draw: Any) -> dict[str, Any]:
    backend = draw(st.sampled_from(BACKENDS))
    spec = draw(component_spec(backend, in_graph=False))
    if backend:
        spec["backendFramework"] = backend
    metadata: dict[str, Any] = {"name": draw(K8S_NAME)}
    if draw(st.booleans()):
        metadata["namespace"] = draw(st.sampled_from(["default", "llm", "team-a"]))
    if draw(st.booleans()):
        metadata["annotations"] = draw(
            st.sampled_from(
                [
                    {"nvidia.com/dynamo-discovery-backend": "etcd"},
                    {"nvidia.com/vllm-distributed-executor-backend": "ray"},
                    {"nvidia.com/disable-image-pull-secret-discovery": "true"},
                    {"note": "x"},
                ]
            )
        )
    return {"apiVersion": "nvidia.com/v1beta1", "kind": "DynamoComponentDeployment", "metadata": metadata, "spec": spec}


@st.composite
def generated_dgd(draw: Any) -> dict[str, Any]:
    backend = draw(st.sampled_from(BACKENDS))
    components = draw(
        st.lists(
            component_spec(backend, in_graph=True),
            min_size=1,
            max_size=4,
            unique_by=lambda c: str(c.get("name", "")).lower(),
        )
    )
    spec: dict[str, Any] = {"components": components}
    if backend:
        spec["backendFramework"] = backend
    if draw(st.booleans()):
        spec["env"] = [{"name": "GRAPH_ENV", "value": draw(TEXT)}]
    annotations = {"nvidia.com/enable-grove": "false"} if draw(st.integers(0, 4)) else {}
    metadata: dict[str, Any] = {"name": draw(K8S_NAME), "annotations": annotations}
    if draw(st.booleans()):
        metadata["namespace"] = draw(st.sampled_from(["default", "llm"]))
    return {"apiVersion": "nvidia.com/v1beta1", "kind": "DynamoGraphDeployment", "metadata": metadata, "spec": spec}


CLUSTER_OBJECTS = st.sampled_from(
    [
        {
            "apiVersion": "v1",
            "kind": "ServiceAccount",
            "metadata": {"name": "pods", "namespace": "llm", "labels": {"nvidia.com/dynamo-component-pod": "true"}},
        },
        {
            "apiVersion": "v1",
            "kind": "Secret",
            "type": "kubernetes.io/dockerconfigjson",
            "metadata": {"name": "regcred", "namespace": "default"},
            "stringData": {".dockerconfigjson": '{"auths": {"nvcr.io": {"auth": "eDp5"}}}'},
        },
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "epp"}, "data": {"config.yaml": "a: 1"}},
    ]
)


# ---------------------------------------------------------------------------------------------
# Running


def _serialise(draw: Any, docs: list[Any]) -> str:
    style = draw(st.sampled_from(["ours", "json", "pyyaml"]))
    if style == "ours":
        return dump_documents(docs)
    if style == "json":
        ascii_only = draw(st.booleans())
        return "".join("---\n" + json.dumps(doc, ensure_ascii=ascii_only) + "\n" for doc in docs)
    return yaml.safe_dump_all(docs, allow_unicode=draw(st.booleans()), sort_keys=False)


def _read_output(text: str, output: str) -> list[Any]:
    """The objects of a render's stdout, read the way kubectl would read them."""
    if output == "json":
        return [json.loads(line) for line in text.split("\n") if line]
    docs, problems = load_documents(text, "<stdout>")
    assert not problems, f"the rendered YAML does not read back: {problems[0].message}"
    return [d.obj for d in docs]


def run_and_check(draw: Any, name: str, text: str, config_text: str | None = None) -> Run:
    """Render ``text`` with drawn options; assert the contract; count the example."""
    options = {
        "lws": draw(st.sampled_from([None, True, False])),
        "namespace": draw(st.sampled_from([None, "default", "llm"])),
        "keep_sources": draw(st.booleans()),
    }
    note(f"options: {options}")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "input.yaml"
        path.write_text(text, encoding="utf-8")
        config = None
        if config_text is not None:
            config = Path(tmp) / "config.yaml"
            config.write_text(config_text, encoding="utf-8")
        run = render([path], config=config, output="yaml", **options)  # an exception here is a bug: exit 3
        as_json = render([path], config=config, output="json", **options) if run.code == 0 else None
        inputs, _ = load_documents(text, str(path))
    note(f"exit {run.code}; stderr:\n{run.stderr[:4000]}")
    EXAMPLES[name] += 1
    OUTCOMES["rendered" if run.code == 0 else "refused"] += 1
    if LOG:
        with open(LOG, "a", encoding="utf-8") as log:
            first = run.errors[0].message if run.errors else ""
            log.write(f"{name}\t{run.code}\t{first[:200]!r}\n")
    problems = contract_problems(Run(run.code, "", run.stderr, run.results), validate=False)
    if run.code == 0 and as_json is not None:
        # YAML and JSON output are the same objects: the YAML emitter quoted every string that
        # kubectl would read as another type
        objects = _read_output(run.stdout, "yaml")
        if as_json.code != 0 or _read_output(as_json.stdout, "json") != objects:
            problems.append("the YAML and JSON outputs differ")
        # every object that is not an input passed through must be valid for the API server
        sources = [d.obj for d in inputs]
        for obj in objects:
            if obj in sources:
                continue
            meta = obj.get("metadata") or {}
            problems += [f"schema: {obj.get('kind')}/{meta.get('name')}: {p}" for p in validate_object(obj)]
    assert not problems, "\n".join(p[:500] for p in problems[:20]) + "\n--- stderr ---\n" + run.stderr[:4000]
    return run


# ---------------------------------------------------------------------------------------------
# Properties


@given(st.data())
def test_generated_dcds(data: st.DataObject) -> None:
    docs = data.draw(st.lists(generated_dcd(), min_size=1, max_size=3), label="dcds")
    docs += data.draw(st.lists(CLUSTER_OBJECTS, max_size=2), label="cluster objects")
    run_and_check(data.draw, "generated-dcd", _serialise(data.draw, docs))


@given(st.data())
def test_generated_dgds(data: st.DataObject) -> None:
    docs = [data.draw(generated_dgd(), label="dgd")]
    docs += data.draw(st.lists(CLUSTER_OBJECTS, max_size=2), label="cluster objects")
    run_and_check(data.draw, "generated-dgd", _serialise(data.draw, docs))


@given(st.data())
def test_mutated_golden_inputs(data: st.DataObject) -> None:
    name, docs = data.draw(st.sampled_from(golden_inputs()), label="golden case")
    note(f"seed: {name}")
    run_and_check(data.draw, "mutated-golden", _serialise(data.draw, data.draw(mutated(docs))))


@given(st.data())
def test_mutated_corpus_manifests(data: st.DataObject) -> None:
    name, docs = data.draw(st.sampled_from(corpus_inputs()), label="corpus manifest")
    note(f"seed: {name}")
    docs = data.draw(mutated(docs))
    # a DGD the operator would hand to Grove is refused before rendering: open the component
    # pathway most of the time so the mutations reach it
    for doc in docs:
        if isinstance(doc, dict) and isinstance(doc.get("metadata"), dict) and data.draw(st.integers(0, 3)):
            annotations = doc["metadata"].setdefault("annotations", {})
            if isinstance(annotations, dict):
                annotations["nvidia.com/enable-grove"] = "false"
    run_and_check(data.draw, "mutated-corpus", _serialise(data.draw, docs))


@given(st.data())
def test_mutated_text(data: st.DataObject) -> None:
    """Edits to the bytes of a real input: the YAML reader's error paths."""
    name, docs = data.draw(st.sampled_from(golden_inputs()), label="golden case")
    text = dump_documents(list(docs))
    for _ in range(data.draw(st.integers(1, 5))):
        position = data.draw(st.integers(0, len(text)))
        edit = data.draw(st.sampled_from(["insert", "delete", "truncate", "duplicate-line"]))
        if edit == "insert":
            text = text[:position] + data.draw(st.one_of(INTERESTING_TEXT, ODD_TEXT, st.sampled_from(list(":-[]{}&*!|>'\"#%@`\t\n ")))) + text[position:]
        elif edit == "delete":
            text = text[:position] + text[position + data.draw(st.integers(1, 10)) :]
        elif edit == "truncate":
            text = text[:position]
        else:
            lines = text.splitlines(keepends=True)
            if lines:
                line = data.draw(st.integers(0, len(lines) - 1))
                lines.insert(line, lines[line])
                text = "".join(lines)
    note(f"seed: {name}")
    run_and_check(data.draw, "mutated-text", text)


@given(st.data())
def test_mutated_configs(data: st.DataObject) -> None:
    """The configuration documents are user input too (OperatorConfiguration, DynamoRenderConfig)."""
    config_text = data.draw(st.sampled_from(golden_configs()), label="config")
    config_docs, problems = load_documents(config_text, "config.yaml")
    assert not problems
    config = data.draw(mutated(tuple(d.obj for d in config_docs)))
    _, docs = data.draw(st.sampled_from(golden_inputs()), label="golden case")
    run_and_check(data.draw, "mutated-config", dump_documents(list(docs)), config_text=_serialise(data.draw, config))
