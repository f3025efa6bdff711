"""The fast emitter writes the reference dumper's bytes, and every reader gets the objects back.

Three properties, over the golden outputs and over generated objects full of strings that YAML
readers like to turn into something else:
- byte for byte what ``plugin.yamlio.dumper.dump_documents_reference`` (PyYAML's C dumper with our
  resolvers) writes;
- PyYAML's ``safe_load_all`` (YAML 1.1) reads back exactly the objects;
- ``plugin.yamlio.codec.load_documents`` (go-yaml v2 rules, as kubectl reads) reads back exactly the objects.
kubectl itself (kustomize's kyaml reader and writer) reads a stream of tricky strings back unchanged.
"""

from __future__ import annotations

import shutil
import string
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from plugin.yamlio import fast as fastyaml
from plugin.yamlio.codec import dump_documents, load_documents
from plugin.yamlio.dumper import dump_documents_reference

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
GOLDEN_OUTPUTS = sorted(GOLDEN.glob("*/*/output.yaml"))

# Strings some reader takes for another type, an indicator, or a layout problem.
TRICKY = [
    "on", "off", "On", "OFF", "yes", "No", "y", "Y", "n", "N", "true", "False", "null", "Null", "~", "",
    "0123", "0o17", "0x1F", "0b101", "1e3", "1E3", "-1e3", "1_000", "+1", "-0", ".5", "5.", "1.0e+17",
    ".inf", "-.Inf", ".NaN", "1:30", "1:30:00", "12:00", "2001-01-01", "2001-12-14t21:59:43.10-05:00",
    "2001-12-14 21:59:43.10 -5", "<<", "=", "- x", "-x", "-", "--", "---", "---x", "...", "...x", "? x", "?x",
    ": x", ":x", "x:", "x: y", "a #b", "a#b", "#x", "@x", "`x", "!x", "&x", "*x", "|x", ">x", "%x", "'x'",
    '"x"', "x'y", 'x"y', "[x]", "{x}", "x,y", " lead", "trail ", " both ", "tab\there", "\ttab", "a\\b",
    "multi\nline", "multi\nline\n", "multi\nline\n\n", "\nleading break", "  indented\nblock", "a\n\nb",
    "trailing space \nline", "line\ntrailing space ", "\n", "\n\n", "x\r\ny", "nel\x85x", "ls\u2028x",
    "bom\ufeffx", "nul\x00x", "bell\x07", "del\x7fx", "é", "naïve café", "日本語", "☃ snow", "emoji 😀",
    "\u00a0nbsp", "x" * 127, "x" * 128, "x" * 129, "é" * 64, "é" * 65,
    "$(POD_IP):8000", "nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.6.1", "--model=Qwen/Qwen3-0.6B",
    "python3 -m dynamo.vllm --model x", "/bin/sh -c 'exec x'", "key=value", "50%", "100Mi", "0.5",
]

tricky = st.sampled_from(TRICKY)
strings = st.one_of(
    tricky,
    st.text(max_size=12),
    st.text(alphabet=string.printable, max_size=8),  # every ASCII indicator, quote and break
    st.text(alphabet="ab:#- \n'\"yn01.e", max_size=8),
)
scalars = st.one_of(
    strings,
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.floats(allow_nan=False, allow_infinity=False),
)
json_like = st.recursive(
    scalars,
    lambda children: st.one_of(st.lists(children, max_size=4), st.dictionaries(strings, children, max_size=5)),
    max_leaves=25,
)
documents = st.lists(
    st.one_of(st.dictionaries(strings, json_like, max_size=6), st.lists(json_like, max_size=4), json_like), max_size=4
)


def _golden_documents(path: Path) -> list[Any]:
    docs, problems = load_documents(path.read_text(encoding="utf-8"), str(path))
    assert not problems
    return [doc.obj for doc in docs]


def _check(objects: list[Any], go_reader: bool = True) -> str:
    text = fastyaml.dump_documents(objects)
    assert text == dump_documents_reference(objects)
    assert [obj for obj in yaml.safe_load_all(text)] == objects if text else objects == []
    if go_reader:
        docs, problems = load_documents(text, "out.yaml")
        assert not problems
        assert [doc.obj for doc in docs] == [obj for obj in objects if obj is not None]
    return text


def test_golden_outputs_exist() -> None:
    assert len(GOLDEN_OUTPUTS) > 50


@pytest.mark.parametrize("path", GOLDEN_OUTPUTS, ids=lambda p: f"{p.parent.parent.name}/{p.parent.name}")
def test_golden_output_round_trips(path: Path) -> None:
    _check(_golden_documents(path))


def test_all_golden_outputs_as_one_stream() -> None:
    objects = [obj for path in GOLDEN_OUTPUTS for obj in _golden_documents(path)]
    _check(objects)


@pytest.mark.parametrize("value", TRICKY, ids=repr)
def test_tricky_string_as_key_value_and_item(value: str) -> None:
    _check([{"value": value, "items": [value, [value]], "nested": {"value": value}}])
    if value:
        _check([{value: value}])


def test_yamlio_dump_documents_is_the_fast_emitter() -> None:
    objects = [{"a": TRICKY, "b": {"c": 1.5, "d": None, "e": True}}]
    assert dump_documents(objects) == fastyaml.dump_documents(objects) == dump_documents_reference(objects)


@pytest.mark.parametrize(
    ("objects", "expected"),
    [
        ([], ""),
        ([{}], "--- {}\n"),
        ([[]], "--- []\n"),
        ([{"a": [], "b": {}}], "---\na: []\nb: {}\n"),
        ([{"b": 1, "a": "x"}], "---\na: x\nb: 1\n"),
        ([{"k": ["a", {"x": 1, "z": [2]}, ["b", "c"]]}], "---\nk:\n- a\n- x: 1\n  z:\n  - 2\n- - b\n  - c\n"),
        ([{"k": "l1\nl2"}], "---\nk: |-\n  l1\n  l2\n"),
        ([{"k": {"s": "l1\n\nl2\n"}}], "---\nk:\n  s: |\n    l1\n\n    l2\n"),
        ([{"k": "x\n\n"}, {"a": 1}], "---\nk: |+\n  x\n\n---\na: 1\n"),
        ([{"a": 1}, {"k": "x\n\n"}], "---\na: 1\n---\nk: |+\n  x\n\n...\n"),
        ([{"k": ["y", "n", "1e3", "0o17", "1:30", "on"]}], "---\nk:\n- 'y'\n- 'n'\n- '1e3'\n- '0o17'\n- '1:30'\n- 'on'\n"),
        ([{"x" * 129: 1}], "---\n? " + "x" * 129 + "\n: 1\n"),
        ([{"big": 2**70}], "---\nbig: !!int 1180591620717411303424\n"),
    ],
    ids=lambda v: repr(v)[:40],
)
def test_layout(objects: list[Any], expected: str) -> None:
    assert fastyaml.dump_documents(objects) == expected
    assert dump_documents_reference(objects) == expected


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents)
def test_generated_objects_round_trip(objects: list[Any]) -> None:
    _check(objects)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(min_value=2**63, max_value=2**66), max_size=3))
def test_unsigned_and_oversized_integers(values: list[int]) -> None:
    # go-yaml reads up to uint64; larger integers are written with an explicit !!int tag,
    # which only PyYAML reads back as an integer.
    objects = [{"v": values}]
    _check(objects, go_reader=all(v <= 2**64 - 1 for v in values))


def test_string_cache_is_shared_across_documents() -> None:
    emitter = fastyaml.Emitter()
    first = emitter.document({"image": "nvcr.io/x:1", "args": ["multi\nline"]})
    second = emitter.document({"image": "nvcr.io/x:1", "args": ["multi\nline"]})
    assert first == second == "---\nargs:\n- |-\n  multi\n  line\nimage: nvcr.io/x:1\n"
    assert emitter.end() == ""


def test_kubectl_reads_the_fast_output_back(tmp_path: Path) -> None:
    """kustomize (kyaml over go-yaml) reads every tricky string back as the same string."""
    kubectl = shutil.which("kubectl")
    assert kubectl, "kubectl must be on PATH"
    # Left out: control characters (kyaml refuses them: "control characters are not allowed"),
    # and two strings kustomize reads right but writes back in a form YAML readers take
    # differently: "<<" unquoted (a merge key to go-yaml v2 rules) and U+0085 unquoted (a line
    # break in YAML 1.1).
    values = [v for v in TRICKY if v != "<<" and not any(c in v for c in "\x00\x07\x7f\x85")]
    config_map: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "tricky", "annotations": {f"example.com/v{i}": v for i, v in enumerate(values)}},
        "data": {f"v{i}": v for i, v in enumerate(values)},
    }
    pod: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "tricky"},
        "spec": {"containers": [{"name": "main", "image": "busybox", "args": values}]},
    }
    (tmp_path / "objects.yaml").write_text(fastyaml.dump_documents([config_map, pod]), encoding="utf-8")
    (tmp_path / "kustomization.yaml").write_text("resources:\n- objects.yaml\n", encoding="utf-8")
    done = subprocess.run([kubectl, "kustomize", str(tmp_path)], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    docs, problems = load_documents(done.stdout, "kustomize")
    assert not problems
    by_kind = {doc.obj["kind"]: doc.obj for doc in docs}
    assert by_kind["ConfigMap"]["data"] == config_map["data"]
    assert by_kind["ConfigMap"]["metadata"]["annotations"] == config_map["metadata"]["annotations"]
    assert by_kind["Pod"]["spec"]["containers"][0]["args"] == values


def test_output_is_unchanged_when_the_string_cache_starts_over(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fastyaml, "_CACHE_LIMIT", 4)
    objects = [{"name": f"object-{i}", "labels": {f"key-{i % 7}": f"value-{i % 5}", "on": "y"}} for i in range(50)]
    _check(objects)
