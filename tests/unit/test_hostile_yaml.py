"""Hostile YAML through the real reading path: every input ends in objects or in one-line errors.

Each case goes through ``plugin.frontends.render.run`` (files in, stdout/stderr out) and checks the
command contract (tests/fuzz/support.py): exit 0 or 1, nothing on stdout on failure, one line
per problem, never a traceback. Cases that could take the process down (deep nesting, alias
bombs, 50 MB files) run the CLI in a subprocess with a memory limit, so a crash, a segfault or
a blow-up fails the test instead of the test run.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
import yaml

from plugin.files import decode
from plugin.yamlio.codec import MAX_DEPTH, allowed_alias_ratio, dump_documents, load_documents
from renderer.gocompat.yamlresolve import go_resolve
from tests.fuzz.support import Run, contract_problems, render_text

ROOT = Path(__file__).resolve().parents[2]
CONFIG_MAP = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n"
DCD = textwrap.dedent(
    """\
    apiVersion: nvidia.com/v1beta1
    kind: DynamoComponentDeployment
    metadata:
      name: web
      namespace: ns
    spec:
      type: frontend
      podTemplate:
        spec:
          containers:
            - name: main
              image: registry.example/dynamo/frontend:1.0.0
    """
)
MEMORY_LIMIT = 1536 * 2**20


def _ok(run: Run) -> Run:
    assert not contract_problems(run, validate=False), contract_problems(run, validate=False)
    return run


def _refused(run: Run, pattern: str) -> Run:
    _ok(run)
    assert run.code == 1, run.stderr
    assert run.stdout == ""
    assert pattern in run.stderr, run.stderr
    return run


def _cli(args: list[str], cwd: Path, stdin: bytes | None = None, timeout: float = 600) -> subprocess.CompletedProcess[bytes]:
    """The console entry point in a child process whose address space is capped."""

    def limit() -> None:  # runs in the child before exec
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))

    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "plugin", *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        timeout=timeout,
        preexec_fn=limit,
        env=env,
    )


def _assert_clean_refusal(proc: subprocess.CompletedProcess[bytes], pattern: str) -> None:
    stderr = proc.stderr.decode("utf-8", "replace")
    assert proc.returncode == 1, f"exit {proc.returncode} (negative: killed by a signal)\n{stderr[-3000:]}"
    assert proc.stdout == b""
    assert "Traceback" not in stderr
    assert pattern in stderr, stderr
    assert len(stderr.splitlines()) == 1, stderr


# ---------------------------------------------------------------------------------------------
# Tags


@pytest.mark.parametrize(
    "value",
    [
        "!!python/object/apply:os.system ['touch {canary}']",
        "!!python/object/new:os.system ['touch {canary}']",
        "!!python/name:os.system",
        "!!python/module:os",
        "!!python/object:builtins.dict {{}}",
        "!<tag:yaml.org,2002:python/object/apply:os.system> ['touch {canary}']",
    ],
    ids=["apply", "new", "name", "module", "object", "verbatim-tag"],
)
def test_python_tags_are_refused_and_never_run(tmp_path: Path, value: str) -> None:
    canary = tmp_path / "pwned"
    run = render_text(CONFIG_MAP + "data:\n  x: " + value.format(canary=canary) + "\n", tmp_path)
    _refused(run, "unsupported YAML tag tag:yaml.org,2002:python/")
    assert not canary.exists()


@pytest.mark.parametrize(
    "value, tag",
    [("!foo bar", "!foo"), ("!!set {a, b}", "!!set"), ("!!omap [a: 1]", "!!omap"), ("!!pairs [a: 1]", "!!pairs")],
)
def test_other_tags_are_refused_by_name(tmp_path: Path, value: str, tag: str) -> None:
    run = render_text(CONFIG_MAP + f"data:\n  x: {value}\n", tmp_path)
    expected = tag if tag.startswith("!foo") else "tag:yaml.org,2002:" + tag[2:]
    _refused(run, f"unsupported YAML tag {expected} (allowed: !!str")


@pytest.mark.parametrize(
    "value, expected",
    [
        ("!!str 123", "123"),
        ("!!binary aGVsbG8=", "hello"),
        ("!!timestamp 2001-12-14", "2001-12-14"),
        ('!!int "12"', 12),
        ("!!float 1", 1.0),
        ("!!bool yes", True),
        ("!!null ~", None),
    ],
)
def test_core_tags_decode_as_go_yaml_does(value: str, expected: object) -> None:
    docs, results = load_documents(f"x: {value}\n", "f")
    assert not results
    assert docs[0].obj == {"x": expected}


@pytest.mark.parametrize(
    "value, problem",
    [
        ("!!int abc", "cannot decode a !!str value as a !!int"),
        ("!!bool maybe", "cannot decode a !!str value as a !!bool"),
        ("!!null x", "cannot decode a !!str value as a !!null"),
        ("!!int 1.5", "cannot decode a !!float value as a !!int"),
        ("!!binary '%%%'", "!!binary value contains invalid base64 data"),
        ("!!timestamp yesterday", "cannot decode a !!str value as a !!timestamp"),
    ],
)
def test_core_tags_with_values_that_do_not_fit_are_errors(tmp_path: Path, value: str, problem: str) -> None:
    _refused(render_text(CONFIG_MAP + f"data:\n  x: {value}\n", tmp_path), problem)


# ---------------------------------------------------------------------------------------------
# Scalars: go-yaml v2 rules, including the values JSON cannot hold


@pytest.mark.parametrize(
    "text, value",
    [
        ("0x_", "0x_"),  # fuzz regression: was a ValueError from PyYAML's int constructor
        ("0b_", "0b_"),
        ("0o17", 15),
        ("0x1F", 31),
        ("017", 15),
        ("08", 8.0),
        ("1_000", 1000),
        ("-_1", -1),
        ("9223372036854775807", 2**63 - 1),
        ("18446744073709551615", 2**64 - 1),
        ("-9223372036854775809", -9.223372036854776e18),
        ("99999999999999999999999", 1e23),
        ("1e400", "1e400"),
        (".5e3", 500.0),
        ("-.5", -0.5),
        ("1e3", 1000.0),
        ("y", True),
        ("Off", False),
        ("~", None),
        ("1:30", "1:30"),
        ("2001-12-14", "2001-12-14"),
        ("=", "="),
        ("<<x", "<<x"),
    ],
)
def test_plain_scalars_resolve_like_go_yaml(text: str, value: object) -> None:
    docs, results = load_documents(f"x: {text}\n", "f")
    assert not results
    assert docs[0].obj == {"x": value}
    assert type(docs[0].obj["x"]) is type(value)


@pytest.mark.parametrize("text", [".inf", "-.Inf", "+.INF", ".nan", "!!float .NaN"])
def test_values_json_cannot_hold_are_refused(tmp_path: Path, text: str) -> None:
    _refused(render_text(CONFIG_MAP + f"data:\n  x: {text}\n", tmp_path), "cannot be represented in JSON")


@pytest.mark.parametrize(
    "value", ["0o17", "y", "n", "1e3", "1_000", "0x_1", ".5", "-.5", "08", "+1", "~", "2001-12-14", "1:30", "=", "<<"]
)
def test_strings_that_look_like_other_types_stay_strings_through_a_dump(value: str) -> None:
    dumped = dump_documents([{"x": value}])
    docs, results = load_documents(dumped, "f")
    assert not results
    assert docs[0].obj == {"x": value}, dumped
    assert yaml.safe_load(dumped) == {"x": value}, dumped


def test_go_resolve_table_matches_go_yaml_for_hinted_words() -> None:
    assert go_resolve("") == ("tag:yaml.org,2002:null", None)
    assert go_resolve("YES") == ("tag:yaml.org,2002:bool", True)
    assert go_resolve("yEs") == ("tag:yaml.org,2002:str", "yEs")
    assert go_resolve("0x") == ("tag:yaml.org,2002:str", "0x")


# ---------------------------------------------------------------------------------------------
# Mapping keys: converted to JSON object keys as sigs.k8s.io/yaml does; duplicates are errors


def test_non_string_keys_become_json_keys() -> None:
    docs, results = load_documents("1: a\n1.5: b\ntrue: c\nn: d\n-3: e\n0x10: f\n", "f")
    assert not results
    assert docs[0].obj == {"1": "a", "1.5": "b", "true": "c", "false": "d", "-3": "e", "16": "f"}


def test_bool_keys_collide_like_json_keys(tmp_path: Path) -> None:
    # y and true are both the JSON key "true"
    _refused(render_text("true: c\ny: d\n", tmp_path), 'mapping key "true" already defined')


@pytest.mark.parametrize(
    "text, problem",
    [
        ("a: 1\na: 2\n", 'mapping key "a" already defined'),
        ("1: a\n'1': b\n", 'mapping key "1" already defined'),
        ("null: a\n", "unsupported mapping key of type null"),
        ("~: a\n", "unsupported mapping key of type null"),
        ("18446744073709551615: a\n", "unsupported mapping key of type uint64"),
        ("? [a]\n: 1\n", "unsupported mapping key of type list"),
        ("? {a: 1}\n: 1\n", "unsupported mapping key of type dict"),
    ],
)
def test_bad_keys_are_errors(tmp_path: Path, text: str, problem: str) -> None:
    _refused(render_text(CONFIG_MAP + "data:\n" + textwrap.indent(text, "  "), tmp_path), problem)


def test_duplicate_keys_in_a_dcd_are_reported_with_their_line(tmp_path: Path) -> None:
    run = _refused(render_text(DCD + "  replicas: 1\n  replicas: 2\n", tmp_path), 'mapping key "replicas" already defined')
    assert "line 14" in run.stderr


# ---------------------------------------------------------------------------------------------
# Anchors and aliases


def _laughs(levels: int, width: int = 9) -> str:
    lines = ['a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    previous = "a"
    for index in range(1, levels):
        name = f"l{index}"
        lines.append(f"{name}: &{name} [" + ", ".join([f"*{previous}"] * width) + "]")
        previous = name
    return CONFIG_MAP + "data:\n" + textwrap.indent("\n".join(lines) + "\n", "  ")


def test_billion_laughs_is_refused_in_process(tmp_path: Path) -> None:
    started = time.monotonic()
    run = _refused(render_text(_laughs(10), tmp_path), "document contains excessive aliasing")
    assert run.errors[0].file.endswith("input.yaml") and run.errors[0].index == 0
    print(f"billion laughs refused in {time.monotonic() - started:.3f}s")


def test_billion_laughs_is_refused_before_memory_grows(tmp_path: Path) -> None:
    (tmp_path / "bomb.yaml").write_text(_laughs(10))
    _assert_clean_refusal(_cli(["render", "bomb.yaml"], tmp_path), "document contains excessive aliasing")


def test_quadratic_blowup_with_few_anchors_is_refused(tmp_path: Path) -> None:
    # one 1,000-item anchor aliased 10,000 times: ten million nodes from ~60 kB of text
    anchor = "big: &big [" + ", ".join(["x"] * 1000) + "]\n"
    uses = "uses: [" + ", ".join(["*big"] * 10000) + "]\n"
    _refused(render_text(CONFIG_MAP + "data:\n" + textwrap.indent(anchor + uses, "  "), tmp_path), "excessive aliasing")


def test_ordinary_anchors_and_merge_keys_are_fine(tmp_path: Path) -> None:
    text = textwrap.dedent(
        """\
        apiVersion: v1
        kind: ConfigMap
        metadata:
          name: cm
          labels: &labels {app: web, tier: front}
          annotations:
            <<: *labels
            note: merged
        data:
          a: &value shared
          b: *value
        """
    )
    run = _ok(render_text(text, tmp_path))
    assert run.code == 0
    (obj,) = run.objects()
    assert obj["metadata"]["annotations"] == {"app": "web", "tier": "front", "note": "merged"}
    assert obj["data"] == {"a": "shared", "b": "shared"}
    assert "&" not in run.stdout and "*" not in run.stdout  # no anchors or aliases are emitted


@pytest.mark.parametrize("text", ["a: &x [1, *x]\n", "a: &x {b: *x}\n", "a: &x {<<: *x}\n"])
def test_an_anchor_that_contains_itself_is_refused(tmp_path: Path, text: str) -> None:
    _refused(render_text(CONFIG_MAP + "data:\n" + textwrap.indent(text, "  "), tmp_path), "anchor value contains itself")


def test_alias_budget_follows_go_yaml() -> None:
    assert allowed_alias_ratio(1_000) == 0.99
    assert allowed_alias_ratio(400_000) == 0.99
    assert allowed_alias_ratio(4_000_000) == 0.10
    assert allowed_alias_ratio(2_200_000) == pytest.approx(0.99 - 0.89 * 0.5)
    # a 200-item anchor (201 decodes) aliased k times: 201k of 202k + 206 decodes come from
    # aliases, which passes 99% between k = 100 (98.5%) and k = 1,000 (99.4%)
    anchor = "a: &x [" + ", ".join(["1"] * 200) + "]\n"
    assert not load_documents(anchor + "b: [" + ", ".join(["*x"] * 100) + "]\n", "f")[1]
    (problem,) = load_documents(anchor + "b: [" + ", ".join(["*x"] * 1000) + "]\n", "f")[1]
    assert "document contains excessive aliasing" in problem.message


# ---------------------------------------------------------------------------------------------
# Nesting


def _nested(kind: str, depth: int) -> str:
    if kind == "block-seq":
        return CONFIG_MAP + "data:\n  x:\n    " + "- " * depth + "leaf\n"
    if kind == "flow-seq":
        return CONFIG_MAP + "data:\n  x: " + "[" * depth + "]" * depth + "\n"
    if kind == "flow-map":
        return CONFIG_MAP + "data:\n  x: " + "{a: " * depth + "1" + "}" * depth + "\n"
    raise AssertionError(kind)


@pytest.mark.parametrize("kind", ["block-seq", "flow-seq", "flow-map"])
@pytest.mark.parametrize("depth", [10_000, 100_000])
def test_deep_nesting_is_refused_in_a_subprocess(tmp_path: Path, kind: str, depth: int) -> None:
    (tmp_path / "deep.yaml").write_text(_nested(kind, depth))
    _assert_clean_refusal(_cli(["render", "deep.yaml"], tmp_path), "exceeded maximum nesting depth")


@pytest.mark.parametrize("depth", [MAX_DEPTH - 2, MAX_DEPTH - 1, 400, 990])
def test_nesting_limit(tmp_path: Path, depth: int) -> None:
    # the document root is level 1 and data is level 2: x's value starts at level 3; the carrier
    # is a custom kind, as a ConfigMap's data holds only strings (the API server refuses a list)
    run = render_text(_nested("flow-seq", depth).replace("apiVersion: v1\nkind: ConfigMap", "apiVersion: example.com/v1\nkind: Widget"), tmp_path)
    assert not contract_problems(run, validate=False), contract_problems(run, validate=False)
    if depth + 2 <= MAX_DEPTH:
        assert run.code == 0
        assert run.objects()[0]["data"]["x"]
    else:
        assert run.code == 1
        assert f"document nesting is too deep (more than {MAX_DEPTH} levels)" in run.stderr


def test_nesting_through_aliases_counts_the_expanded_depth(tmp_path: Path) -> None:
    inner = "[" * 60 + "]" * 60
    text = f"a: &a {inner}\nb: " + "[" * 50 + "*a" + "]" * 50 + "\n"
    _refused(render_text(CONFIG_MAP + "data:\n" + textwrap.indent(text, "  "), tmp_path), "document nesting is too deep")


def test_deep_dcd_free_form_field_is_refused_not_crashed(tmp_path: Path) -> None:
    deep = "{a: " * 300 + "1" + "}" * 300
    text = DCD.replace("  type: frontend\n", f"  type: frontend\n  eppConfig:\n    config: {deep}\n")
    _refused(render_text(text, tmp_path), "document nesting is too deep")


# ---------------------------------------------------------------------------------------------
# Encodings


@pytest.mark.parametrize(
    "encode",
    [
        lambda t: t.encode("utf-8"),
        lambda t: b"\xef\xbb\xbf" + t.encode("utf-8"),
        lambda t: b"\xff\xfe" + t.encode("utf-16-le"),
        lambda t: b"\xfe\xff" + t.encode("utf-16-be"),
    ],
    ids=["utf-8", "utf-8-bom", "utf-16-le-bom", "utf-16-be-bom"],
)
def test_encodings_kubectl_reads(tmp_path: Path, encode: object) -> None:
    text = CONFIG_MAP + "data:\n  greeting: grüß dich ✓\n"
    run = _ok(render_text(encode(text), tmp_path))  # type: ignore[operator]
    assert run.code == 0
    assert run.objects()[0]["data"] == {"greeting": "grüß dich ✓"}


@pytest.mark.parametrize(
    "data, problem",
    [
        (b"apiVersion: v1\nkind: ConfigMap\ndata: {x: \"\xff\"}\n", "not valid UTF-8 at byte 42"),
        (b"a: \xc3\x28\n", "not valid UTF-8 at byte 3"),
        ("a: é".encode("latin-1"), "not valid UTF-8 at byte 3"),
        (b"\xff\xfea\x00:", "not valid UTF-16 at byte 4"),
        (b"\xff\xfe\x00\xd8a\x00", "not valid UTF-16 at byte 2"),
        (b"\xff\xfe\x00\x00a\x00\x00\x00", "UTF-32 is not supported"),
        (b"\x00\x00\xfe\xff\x00\x00\x00a", "UTF-32 is not supported"),
    ],
    ids=["invalid-byte", "bad-continuation", "latin-1", "odd-utf-16", "lone-surrogate", "utf-32-le", "utf-32-be"],
)
def test_undecodable_files_are_one_line_errors(tmp_path: Path, data: bytes, problem: str) -> None:
    run = _refused(render_text(data, tmp_path), problem)
    assert run.stderr.startswith(str(tmp_path / "input.yaml") + ": [error]")


@pytest.mark.parametrize("char", ["\x00", "\x07", "\x1b", "\ufffe"])
def test_control_characters_in_the_text_are_yaml_errors(tmp_path: Path, char: str) -> None:
    _refused(render_text(CONFIG_MAP + f"data:\n  x: a{char}b\n", tmp_path), "invalid YAML")


def test_escaped_odd_unicode_round_trips(tmp_path: Path) -> None:
    text = CONFIG_MAP + 'data:\n  x: "\\0\\x07\\u2028\\u2029\\ufeff\\U0001F600\\u200b\\ud7ff"\n'
    run = _ok(render_text(text, tmp_path))
    assert run.code == 0
    run.stdout.encode("utf-8")
    assert run.objects()[0]["data"]["x"] == "\x00\x07\u2028\u2029\ufeff\U0001f600\u200b\ud7ff"


def test_decode_keeps_text_as_is() -> None:
    assert decode(b"a: 1\r\n", "f") == ("a: 1\r\n", [])


# ---------------------------------------------------------------------------------------------
# Streams: empty documents, lists


def test_empty_documents_and_lists_are_flattened_as_kubectl_does(tmp_path: Path) -> None:
    text = textwrap.dedent(
        """\
        ---
        ---
        # only a comment
        ---
        apiVersion: v1
        kind: List
        items:
          - {apiVersion: v1, kind: ConfigMap, metadata: {name: a}}
          - apiVersion: v1
            kind: ConfigMapList
            items:
              - {apiVersion: v1, kind: ConfigMap, metadata: {name: b}}
              - {apiVersion: v1, kind: List, items: [{apiVersion: v1, kind: ConfigMap, metadata: {name: e}}]}
              - {apiVersion: v1, kind: ConfigMap, metadata: {name: c}}
          - {apiVersion: v1, kind: ConfigMap, metadata: {name: d}}
        ---
        null
        ---
        apiVersion: v1
        kind: List
        items: []
        ---
        ...
        ---
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: f}
        """
    )
    run = _ok(render_text(text, tmp_path))
    assert run.code == 0
    # kubectl expands nested lists breadth first (cli-runtime FlattenListVisitor)
    assert [o["metadata"]["name"] for o in run.objects()] == ["a", "d", "b", "c", "e", "f"]


def test_list_of_dcds_renders_each_and_files_errors_by_document(tmp_path: Path) -> None:
    item = textwrap.indent(DCD, "    ")
    text = "apiVersion: v1\nkind: List\nitems:\n  -\n" + item + "---\n" + DCD.replace("name: web", "name: Bad_Name")
    run = render_text(text, tmp_path)
    assert not contract_problems(run, validate=False), contract_problems(run, validate=False)
    assert run.code == 1
    assert {r.index for r in run.errors} == {1}


@pytest.mark.parametrize(
    "text",
    ["", "\n\n", "---\n", "--- \n...\n", "# nothing\n", "---\n---\n---\n", "null\n", "~\n"],
    ids=["empty", "blank", "marker", "marker-end", "comment", "markers", "null", "tilde"],
)
def test_inputs_without_objects_render_nothing(tmp_path: Path, text: str) -> None:
    run = _ok(render_text(text, tmp_path))
    assert (run.code, run.stdout) == (0, "")


@pytest.mark.parametrize(
    "text", ["just a string\n", "- a\n- b\n", "42\n", "[1, 2]\n"], ids=["scalar", "sequence", "number", "flow"]
)
def test_documents_that_are_not_objects_never_crash(tmp_path: Path, text: str) -> None:
    run = render_text(text, tmp_path)
    assert not contract_problems(run, validate=False), contract_problems(run, validate=False)


def test_syntax_error_after_good_documents_fails_the_whole_file(tmp_path: Path) -> None:
    run = _refused(render_text(DCD + "---\n" + CONFIG_MAP + "data: {x: [}\n", tmp_path), "invalid YAML at line")
    assert run.errors[0].index == 1


# ---------------------------------------------------------------------------------------------
# Size


def test_50_mb_input_renders_within_memory(tmp_path: Path) -> None:
    """50 MB of manifests: big ConfigMap payloads (the usual reason a bundle is large) and DCDs.

    The child process may use at most 1.5 GB of address space; the time is printed, not asserted.
    """
    blob = ("0123456789abcdef" * 64 + "\n") * 1000  # ~1 MB literal block
    parts = []
    for index in range(50):
        parts.append(
            f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: blob-{index}\n  namespace: ns\ndata:\n  payload: |\n"
            + textwrap.indent(blob, "    ")
        )
    for index in range(200):
        parts.append(DCD.replace("name: web", f"name: web-{index}"))
    path = tmp_path / "big.yaml"
    path.write_text("---\n".join(parts))
    size = path.stat().st_size
    assert size > 50 * 10**6
    started = time.monotonic()
    proc = _cli(["render", "big.yaml"], tmp_path, timeout=1800)
    elapsed = time.monotonic() - started
    stderr = proc.stderr.decode("utf-8", "replace")
    assert proc.returncode == 0, stderr[-3000:]
    assert "Traceback" not in stderr
    out = proc.stdout.decode("utf-8")
    assert out.count("\nkind: Deployment\n") == 200
    assert len(out) > 50 * 10**6
    print(f"50 MB input: {size / 1e6:.1f} MB rendered in {elapsed:.1f}s")


def test_many_small_documents(tmp_path: Path) -> None:
    """A node-dense input (50,000 small ConfigMaps, ~5 MB) in-process."""
    text = "".join(
        f"---\napiVersion: v1\nkind: ConfigMap\nmetadata: {{name: c{i}, labels: {{a: b}}}}\ndata: {{k: v{i}}}\n"
        for i in range(50_000)
    )
    started = time.monotonic()
    run = _ok(render_text(text, tmp_path))
    assert run.code == 0
    assert run.stdout.count("kind: ConfigMap") == 50_000
    print(f"50,000 documents ({len(text) / 1e6:.1f} MB) in {time.monotonic() - started:.1f}s")


# ---------------------------------------------------------------------------------------------
# JSON streams (kubectl's YAML-or-JSON decoder)


def test_a_json_stream_reads_as_one_object_per_value(tmp_path: Path) -> None:
    text = '{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}}\n{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "b"}}\n'
    run = _ok(render_text(text, tmp_path, name="stream.json"))
    assert [o["metadata"]["name"] for o in run.objects()] == ["a", "b"]


def test_json_with_escapes_yaml_cannot_hold_reads_as_go_does(tmp_path: Path) -> None:
    # a surrogate pair is one character; an unpaired surrogate becomes U+FFFD, as in Go
    text = '{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}, "data": {"x": "\\ud83d\\ude00", "y": "\\ud800"}}'
    run = _ok(render_text(text, tmp_path, name="x.json"))
    assert run.objects()[0]["data"] == {"x": "\U0001f600", "y": "\ufffd"}


@pytest.mark.parametrize(
    "text, problem",
    [
        ('{"a": 1}\n{"b": ', "invalid JSON at line 2, column 7"),
        ('{"a": 1}\n{"a": 1, "a": 2}', 'invalid JSON: mapping key "a" already defined'),
        ('{"x": "\\ud800", "a": 1, "a": 2}', 'mapping key "a" already defined'),
        ('{"x": "\\ud800", "a": Infinity}', "Infinity cannot be represented in JSON"),
        ('{"x": "\\ud800", "a": ' + "[" * 200 + "]" * 200 + "}", "document nesting is too deep"),
    ],
)
def test_broken_json_streams_are_one_line_errors(tmp_path: Path, text: str, problem: str) -> None:
    _refused(render_text(text, tmp_path, name="x.json"), problem)
