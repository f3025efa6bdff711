"""The KRM front end in process: ResourceList contract, annotations, functionConfig kinds, results.

The wire rules restated here come from the KRM functions spec (kustomize
cmd/config/docs/api-conventions/functions-spec.md), kyaml's kio/kioutil annotation handling, kpt's
"resource at path and index already exists" check, and kustomize's exec plugin contract
(api/internal/plugins/execplugin). What a DCD renders into is the renderer's business and is
checked against the CLI path, not restated.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from plugin.frontends import krm
from plugin.settings import resolve_settings
from plugin.yamlio.dumper import Dumper
from renderer.bundle import Item, render_bundle
from renderer.results import ResourceRef, Result
from tests import builders

# ---------------------------------------------------------------------------------------------
# Builders


def dcd(name: str = "decode", **overrides: Any) -> dict[str, Any]:
    """A vLLM decode worker, the usual source of these tests."""
    decode = {"type": "decode", "image": "registry.example/worker:1", "backendFramework": "vllm", "replicas": 1}
    return builders.dcd(name, **{**decode, **overrides})


def kpt_annotations(path: str, index: int, seq_id: int, seqindent: str = "compact") -> dict[str, str]:
    """What kpt puts on every item it sends (observed from kpt 1.0 fn eval)."""
    return {
        "config.kubernetes.io/index": str(index),
        "config.kubernetes.io/path": path,
        "internal.config.kubernetes.io/index": str(index),
        "internal.config.kubernetes.io/path": path,
        "internal.config.kubernetes.io/seqindent": seqindent,
        "internal.config.kubernetes.io/annotations-migration-resource-id": str(seq_id - 1),
        "internal.config.kubernetes.io/id": str(seq_id),
        "config.k8s.io/id": str(seq_id),
    }


def _dump(value: Any) -> str:
    """YAML as kpt and kustomize write it: strings that read as other types are quoted."""
    return yaml.dump(value, Dumper=Dumper, sort_keys=False, default_flow_style=False)


def resource_list(items: list[Any], function_config: Any = None) -> str:
    doc: dict[str, Any] = {"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": items}
    if function_config is not None:
        doc["functionConfig"] = function_config
    return _dump(doc)


def function_input(**data: str) -> dict[str, Any]:
    """kpt's ConfigMap functionConfig for ``kpt fn eval ... -- key=value``."""
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "function-input"}, "data": dict(data)}


def run_krm(text: str | bytes) -> tuple[int, str, str, dict[str, Any]]:
    stdout, stderr = io.StringIO(), io.StringIO()
    data = text.encode() if isinstance(text, str) else text
    code = krm.run_resource_list(data, stdout, stderr)
    out = stdout.getvalue()
    parsed = yaml.safe_load(out) if out.strip() else {}
    return code, out, stderr.getvalue(), parsed


def kinds(parsed: dict[str, Any]) -> list[str]:
    return [f"{i['kind']}/{i['metadata']['name']}" for i in parsed["items"]]


def annos(obj: dict[str, Any]) -> dict[str, Any]:
    return (obj.get("metadata") or {}).get("annotations") or {}


def file_annos(obj: dict[str, Any]) -> dict[str, Any]:
    """The orchestrators' annotations only (rendered objects may carry the operator's own)."""
    prefixes = ("config.kubernetes.io/", "internal.config.kubernetes.io/", "config.k8s.io/", "kustomize.config.k8s.io/")
    return {k: v for k, v in annos(obj).items() if k.startswith(prefixes)}


def rendered_by_cli(source: dict[str, Any], namespace: str = "default") -> list[dict[str, Any]]:
    """What the CLI path renders for one DCD (the KRM function must render the same)."""
    settings, problems = resolve_settings({"namespace": namespace})
    assert settings is not None, problems
    rendered = render_bundle([Item(source)], settings.config, settings.namespace)
    assert rendered.ok, rendered.results
    return rendered.objects


def cli_ids(source: dict[str, Any], namespace: str = "default") -> list[str]:
    return [f"{o['kind']}/{o['metadata']['name']}" for o in rendered_by_cli(krm.without_bookkeeping(source), namespace)]


# A pass-through item written the way a user might: scalars whose spelling differs between
# YAML readers, keys out of order, a comment, kpt's annotations.
CONFIGMAP = """\
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: settings
    namespace: llm
    annotations:
      config.kubernetes.io/index: '1'
      config.kubernetes.io/path: 'deploy/app.yaml'
      internal.config.kubernetes.io/index: '1'
      internal.config.kubernetes.io/path: 'deploy/app.yaml'
      internal.config.kubernetes.io/seqindent: 'compact'
      internal.config.kubernetes.io/annotations-migration-resource-id: '1'
      internal.config.kubernetes.io/id: '2'
      config.k8s.io/id: '2'
      team.example/owner: "ml-platform"
  # user comment
  data:
    zeta: last-key-first
    quoted: "yes"
    date: 2024-01-01
    exponent: 1e3
    octal: 0755
    hex: 0x1F
    empty:
    multi: |
      line one
      line two
"""


def _kpt_list(dcd_item: dict[str, Any], extra: str = CONFIGMAP, function_config: Any = None) -> str:
    head = {"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList"}
    text = _dump(head) + "items:\n"
    text += _dump([dcd_item])
    text += extra
    if function_config is not None:
        text += _dump({"functionConfig": function_config})
    return text


def _raw_items(text: str) -> list[Any]:
    """Items read without any type resolution: every scalar as the string it was written as."""
    items: list[Any] = yaml.load(text, Loader=yaml.BaseLoader)["items"]
    return items


# ---------------------------------------------------------------------------------------------
# ResourceList contract


def test_dcd_is_replaced_by_what_it_renders_and_the_rest_passes_through() -> None:
    source = dcd("decode", annotations=kpt_annotations("deploy/app.yaml", 0, 1))
    code, out, err, parsed = run_krm(_kpt_list(source))
    assert code == 0, err
    assert parsed["apiVersion"] == "config.kubernetes.io/v1" and parsed["kind"] == "ResourceList"
    expected = rendered_by_cli(krm.without_bookkeeping(source))
    assert {"Deployment/decode", "Service/decode"} <= set(cli_ids(source))
    assert kinds(parsed) == [*cli_ids(source), "ConfigMap/settings"]
    for got, want in zip(parsed["items"], expected, strict=False):
        got_meta = {k: v for k, v in got["metadata"].items() if k != "annotations"}
        want_meta = {k: v for k, v in want["metadata"].items() if k != "annotations"}
        assert {**got, "metadata": got_meta} == {**want, "metadata": want_meta}


def test_pass_through_items_keep_every_scalar_spelling_key_order_and_annotation() -> None:
    text = _kpt_list(dcd(annotations=kpt_annotations("deploy/app.yaml", 0, 1)))
    code, out, err, _ = run_krm(text)
    assert code == 0, err
    before = _raw_items(text)[-1]
    after = _raw_items(out)[-1]
    assert after == before
    assert list(after["data"]) == list(before["data"])
    assert list(after["metadata"]["annotations"]) == list(before["metadata"]["annotations"])
    for line in ("exponent: 1e3", "date: 2024-01-01", 'quoted: "yes"', "octal: 0755", "hex: 0x1F"):
        assert line in out


@pytest.mark.parametrize("where", ["last", "before-a-rendered-object"])
def test_literal_blocks_survive_in_both_writers(where: str) -> None:
    """Multi-line strings, including a keep-chomped ("|+") block, in pass-through and rendered items."""
    configmap = (
        "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: scripts\n  data:\n"
        "    strip: |-\n      one\n      two\n    keep: |+\n      kept\n\n"
    )
    source = dcd("decode", podTemplate={"spec": {"containers": [{
        "name": "main", "image": "registry.example/worker:1", "env": [{"name": "SCRIPT", "value": "line one\nline two\n"}],
    }]}})
    head = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"
    text = head + (_dump([source]) + configmap if where == "last" else configmap + _dump([source]))
    code, out, err, parsed = run_krm(text)
    assert code == 0, err
    data = next(o for o in parsed["items"] if o["kind"] == "ConfigMap")["data"]
    assert data == {"strip": "one\ntwo", "keep": "kept\n\n"}
    assert "\n...\n" not in out
    env = {e["name"]: e.get("value") for e in _deployment(parsed)["spec"]["template"]["spec"]["containers"][0]["env"]}
    assert env["SCRIPT"] == "line one\nline two\n"
    assert "value: |\n" in out


def test_output_has_no_anchors_or_aliases_even_when_the_input_has_them() -> None:
    text = """\
apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: a
    labels: &shared
      app: demo
  data: {x: "1"}
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: b
    labels: *shared
"""
    code, out, err, parsed = run_krm(text)
    assert code == 0, err
    events = list(yaml.parse(out))
    assert not [e for e in events if getattr(e, "anchor", None)], out
    assert not [e for e in events if isinstance(e, yaml.AliasEvent)], out
    assert parsed["items"][1]["metadata"]["labels"] == {"app": "demo"}
    # Flow collections keep their style (as kpt and kustomize write them back around a no-op function).
    assert 'data: {x: "1"}' in out


def test_json_resource_list_is_accepted() -> None:
    doc = {"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": [dcd("decode")]}
    # Tab indentation is valid JSON but not valid YAML.
    code, out, err, parsed = run_krm(json.dumps(doc, indent="\t"))
    assert code == 0, err
    assert kinds(parsed) == cli_ids(dcd("decode"))
    assert not out.lstrip().startswith("{")


def test_resource_list_without_dynamo_resources_is_a_pass_through_no_op() -> None:
    text = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n" + CONFIGMAP
    code, out, err, parsed = run_krm(text)
    assert code == 0, err
    assert _raw_items(out) == _raw_items(text)
    assert parsed["results"] == [{"message": "rendered 0 Dynamo resources into 0 objects", "severity": "info"}]


def test_empty_item_list_stays_empty_and_succeeds() -> None:
    code, _, err, parsed = run_krm("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\n")
    assert code == 0, err
    assert parsed["items"] == []


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n", 'expected apiVersion "config.kubernetes.io/v1" and kind "ResourceList"'),
        ("items: [unclosed\n", "invalid YAML at line"),
        ("- just\n- a list\n", "expected a ResourceList object"),
        ("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: {}\n", "items: expected a list"),
    ],
    ids=["not-a-resource-list", "broken-yaml", "not-a-mapping", "items-not-a-list"],
)
def test_unreadable_input_fails_with_a_resource_list_of_results(text: str, message: str) -> None:
    """Issue 26: input that cannot be read gets a result kpt can show, not a bare echo.

    kpt cannot read an echo of unreadable input as a function's answer (it prints a YAML error
    about the output and hides the problem); with exit 1 it writes nothing back, so the empty
    item list deletes nothing.
    """
    stdout, stderr = io.StringIO(), io.StringIO()
    code = krm.run_resource_list(text.encode(), stdout, stderr)
    assert code == 1
    assert message in stderr.getvalue()
    answer = yaml.safe_load(stdout.getvalue())
    assert answer["kind"] == "ResourceList" and answer["items"] == []
    assert [r["severity"] for r in answer["results"]] == ["error"]
    assert message in answer["results"][0]["message"]


def test_recursive_alias_is_an_error_not_a_crash() -> None:
    text = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- &a\n  kind: ConfigMap\n  data: {self: *a}\n"
    stdout, stderr = io.StringIO(), io.StringIO()
    assert krm.run_resource_list(text.encode(), stdout, stderr) == 1
    assert "contains itself" in stderr.getvalue()
    assert "contains itself" in yaml.safe_load(stdout.getvalue())["results"][0]["message"]


@pytest.mark.parametrize("item", ["1", '"s"', "null", "true", "[1, 2]", "[]", "2024-01-01"])
def test_a_non_object_item_is_an_error_per_item_not_a_crash(item: str) -> None:
    """Issue 27 §3: the list comes back unchanged with an error result per non-object item, exit 1."""
    text = resource_list([{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "kept"}}])
    text = text.replace("items:\n", f"items:\n- {item}\n- {item}\n", 1)
    stdout, stderr = io.StringIO(), io.StringIO()
    assert krm.run_resource_list(text.encode(), stdout, stderr) == 1
    answer = yaml.safe_load(stdout.getvalue())
    assert answer["items"] == yaml.safe_load(text)["items"], "the items come back unchanged"
    errors = [r for r in answer["results"] if r["severity"] == "error"]
    assert [e["message"].split(":")[0] for e in errors] == ["items[0]", "items[1]"]
    assert all("not a Kubernetes object" in e["message"] for e in errors)
    assert stderr.getvalue().count("[error]") == 2


def test_a_non_object_item_beside_a_dcd_leaves_the_dcd_unrendered() -> None:
    text = resource_list([dcd()]).replace("items:\n", "items:\n- !!int 7\n", 1)
    stdout, stderr = io.StringIO(), io.StringIO()
    assert krm.run_resource_list(text.encode(), stdout, stderr) == 1
    assert yaml.safe_load(stdout.getvalue())["items"] == [7, dcd()]
    results = yaml.safe_load(stdout.getvalue())["results"]
    assert [r["message"] for r in results if r["severity"] == "error"] == [
        "items[0]: not a Kubernetes object: a bare integer value (expected a mapping with apiVersion, kind and metadata)"
    ]


@pytest.mark.parametrize(
    "result",
    [
        Result("m", field="items"),
        Result("m", resource=ResourceRef("v1", "ConfigMap", ""), field="data.x"),
        Result("m", resource=ResourceRef("", "Widget", "w"), field="spec"),
    ],
    ids=["no-ref", "no-name", "no-api-version"],
)
def test_a_krm_result_with_a_field_always_has_a_resource_ref(result: Result) -> None:
    """Issue 26 §4: a field path without its object means nothing to kpt; it moves into the message."""
    out = result.to_krm()
    assert "field" not in out and "resourceRef" not in out
    assert out["message"] == f"{result.field}: m"


def test_a_krm_result_with_a_field_and_a_full_ref_keeps_both() -> None:
    out = Result("m", resource=ResourceRef("v1", "ConfigMap", "c"), field="data.x").to_krm()
    assert out == {"message": "m", "severity": "error", "resourceRef": {"apiVersion": "v1", "kind": "ConfigMap", "name": "c"},
                   "field": {"path": "data.x"}}


def test_a_node_that_contains_itself_cannot_be_written() -> None:
    node = yaml.compose("&a {self: *a}", Loader=yaml.SafeLoader)
    assert node is not None
    with pytest.raises(krm.UnwritableInput, match="contains itself"):
        krm.write_resource_list([0], [], krm.NodeSource([node]), io.StringIO())


def test_invalid_utf8_is_an_error_not_a_crash() -> None:
    stdout, stderr = io.StringIO(), io.StringIO()
    assert krm.run_resource_list(b"kind: ResourceList\nitems: [\xff]\n", stdout, stderr) == 1
    assert "not valid UTF-8 at byte" in stderr.getvalue()


# ---------------------------------------------------------------------------------------------
# Errors: items unchanged, results, stderr


def test_invalid_dcd_returns_the_items_unchanged_with_results_and_stderr() -> None:
    bad = dcd("broken", annotations=kpt_annotations("deploy/app.yaml", 0, 1), replicas=-1)
    good = dcd("fine", annotations=kpt_annotations("deploy/other.yaml", 0, 3))
    text = _kpt_list(bad, extra=_dump([good]) + CONFIGMAP)
    code, out, err, parsed = run_krm(text)
    assert code == 1
    assert _raw_items(out) == _raw_items(text), "on error every item must come back unchanged"
    errors = [r for r in parsed["results"] if r["severity"] == "error"]
    assert errors == [
        {
            "message": "must be >= 0 (got -1)",
            "severity": "error",
            "resourceRef": {"apiVersion": "nvidia.com/v1beta1", "kind": "DynamoComponentDeployment", "name": "broken", "namespace": "llm"},
            "field": {"path": "spec.replicas"},
            "file": {"path": "deploy/app.yaml", "index": 0},
            "tags": {"code": "schema"},
        }
    ]
    lines = err.splitlines()
    # kpt sends items, not the file: the item's document index, never a bare number that reads as a line
    assert "deploy/app.yaml (doc 0): [error] DynamoComponentDeployment/broken spec.replicas: must be >= 0 (got -1) [schema]" in lines
    assert lines[-1] == "dynamo-render: 1 error; the items are returned unchanged"


def test_every_failing_dcd_is_reported() -> None:
    text = resource_list([dcd("one", replicas=-1), dcd("two", replicas=-2)])
    code, _, err, parsed = run_krm(text)
    assert code == 1
    assert [r["resourceRef"]["name"] for r in parsed["results"] if r["severity"] == "error"] == ["one", "two"]
    assert "dynamo-render: 2 errors" in err


def test_warnings_go_to_stderr_info_does_not() -> None:
    secret = {
        "apiVersion": "v1",
        "kind": "Secret",
        "type": "kubernetes.io/dockerconfigjson",
        "metadata": {"name": "pull", "namespace": "llm"},
        "stringData": {".dockerconfigjson": "not json"},
    }
    code, _, err, parsed = run_krm(resource_list([secret, dcd()]))
    assert code == 0, err
    severities = {r["severity"] for r in parsed["results"]}
    assert {"warning", "info"} <= severities
    assert "[warning]" in err and "[info]" not in err


# ---------------------------------------------------------------------------------------------
# Annotations


def test_rendered_objects_are_filed_beside_their_source_with_unique_indexes() -> None:
    source = dcd("decode", annotations=kpt_annotations("deploy/app.yaml", 0, 1, seqindent="wide"))
    code, _, err, parsed = run_krm(_kpt_list(source))
    assert code == 0, err
    *rendered, configmap = parsed["items"]
    assert len(rendered) >= 2
    # The first object takes the source's slot; the others go past the last index in the file
    # (the ConfigMap keeps index 1: functions must not renumber other items).
    indexes = ["0", *(str(i) for i in range(2, len(rendered) + 1))]
    for obj, index in zip(rendered, indexes, strict=True):
        assert file_annos(obj) == {
            "config.kubernetes.io/path": "deploy/app.yaml",
            "internal.config.kubernetes.io/path": "deploy/app.yaml",
            "config.kubernetes.io/index": index,
            "internal.config.kubernetes.io/index": index,
            "internal.config.kubernetes.io/seqindent": "wide",
        }
    assert annos(configmap)["config.kubernetes.io/index"] == "1"


def test_rendered_objects_carry_no_orchestrator_ids_or_source_bookkeeping() -> None:
    source = dcd(
        "decode",
        annotations={
            **kpt_annotations("app.yaml", 0, 1),
            "config.kubernetes.io/local-config": "true",
            "kustomize.config.k8s.io/id": "kind: DynamoComponentDeployment\nname: decode\n",
            "internal.config.kubernetes.io/previousNames": "decode,decode",
        },
    )
    code, out, err, parsed = run_krm(resource_list([source]))
    assert code == 0, err
    for obj in parsed["items"]:
        keys = set(annos(obj))
        assert not {k for k in keys if k.endswith("/id") or "previous" in k or "migration" in k or "local-config" in k}
    # Nothing of the orchestrator's reaches the pod template either.
    assert "internal.config.kubernetes.io/id" not in out.split("items:", 1)[1].split("results:", 1)[0]


def test_kustomize_items_without_a_path_get_no_file_annotations() -> None:
    source = dcd(
        "decode",
        annotations={
            "config.kubernetes.io/index": "0",
            "internal.config.kubernetes.io/index": "0",
            "internal.config.kubernetes.io/id": "1",
            "config.k8s.io/id": "1",
            "kustomize.config.k8s.io/id": "group: nvidia.com\nkind: DynamoComponentDeployment\nname: decode\n",
        },
    )
    code, _, err, parsed = run_krm(resource_list([source]))
    assert code == 0, err
    assert len(parsed["items"]) >= 2
    assert [file_annos(o) for o in parsed["items"]] == [{}] * len(parsed["items"])


def test_every_rendered_object_has_a_distinct_path_and_index() -> None:
    items = [
        dcd("a", annotations=kpt_annotations("app.yaml", 0, 1), modelRef={"name": "Qwen/Qwen3-0.6B"}),
        dcd("b", annotations=kpt_annotations("app.yaml", 1, 2), modelRef={"name": "Qwen/Qwen3-0.6B"}),
    ]
    code, _, err, parsed = run_krm(resource_list(items))
    assert code == 0, err
    slots = [(annos(o)["internal.config.kubernetes.io/path"], annos(o)["internal.config.kubernetes.io/index"]) for o in parsed["items"]]
    assert len(slots) == len(set(slots)), slots
    # The model's headless Service is shared by both DCDs and rendered once.
    names = kinds(parsed)
    assert len(names) == len(set(names)), names
    assert [n for n in names if n.startswith("Deployment/")] == ["Deployment/a", "Deployment/b"]


def test_keep_sources_keeps_the_dcd_and_files_rendered_objects_after_it() -> None:
    source = dcd("decode", annotations=kpt_annotations("app.yaml", 0, 1))
    code, out, err, parsed = run_krm(resource_list([source], function_input(keepSources="true")))
    assert code == 0, err
    rendered = cli_ids(source)
    assert kinds(parsed) == [*rendered, "DynamoComponentDeployment/decode"]
    # Issue 25 §4: in a kpt package the kept source is the package's, marked so kpt live apply never sends it
    assert annos(parsed["items"][-1]) == {**source["metadata"]["annotations"], "config.kubernetes.io/local-config": "true"}
    assert '    config.kubernetes.io/local-config: "true"\n' in out
    assert [annos(o)["config.kubernetes.io/index"] for o in parsed["items"][:-1]] == [str(i) for i in range(1, len(rendered) + 1)]


@pytest.mark.parametrize(
    "metadata",
    [
        {"name": "decode"},
        {"name": "decode", "annotations": {"team": "a"}},
        {"name": "decode", "annotations": {"config.kubernetes.io/local-config": "false"}},
    ],
    ids=["no-annotations", "other-annotations", "local-config-already-set"],
)
def test_a_kept_source_in_a_package_is_marked_local_config_and_otherwise_unchanged(metadata: dict[str, Any]) -> None:
    source = dcd("decode")
    source["metadata"] = {**metadata, "annotations": {**metadata.get("annotations", {}), **kpt_annotations("app.yaml", 0, 1)}}
    code, _, err, parsed = run_krm(resource_list([source], function_input(keepSources="true")))
    assert code == 0, err
    kept = parsed["items"][-1]
    expected = {**source["metadata"]["annotations"]}
    expected.setdefault("config.kubernetes.io/local-config", "true")
    assert kept == {**source, "metadata": {**source["metadata"], "annotations": expected}}


def test_a_kept_source_without_a_file_is_not_marked() -> None:
    """kustomize sends no files: a kept source there is meant for a cluster that runs the operator."""
    source = dcd("decode")
    code, _, err, parsed = run_krm(resource_list([source], function_input(keepSources="true")))
    assert code == 0, err
    assert parsed["items"][-1] == source


def test_re_rendering_beside_a_kept_source_replaces_the_previous_output() -> None:
    source = dcd("decode", annotations=kpt_annotations("app.yaml", 0, 1))
    _, _, _, first = run_krm(resource_list([source], function_input(keepSources="true")))
    previous = first["items"][:-1]
    for seq, obj in enumerate(previous, start=2):
        obj["metadata"]["annotations"].update({"internal.config.kubernetes.io/id": str(seq), "config.k8s.io/id": str(seq)})
    code, _, err, second = run_krm(resource_list([source, *previous], function_input(keepSources="true")))
    assert code == 0, err
    rendered = cli_ids(source)
    assert {"Deployment/decode", "Service/decode"} <= set(rendered)
    assert kinds(second) == ["DynamoComponentDeployment/decode", *rendered]
    assert [annos(o)["config.kubernetes.io/index"] for o in second["items"]] == [str(i) for i in range(len(rendered) + 1)]
    # Last run's output is ours (it carries the marker): replaced quietly, nothing pruned.
    assert {r["severity"] for r in second["results"]} == {"info"}
    assert not [r for r in second["results"] if "pruned" in r["message"]]
    assert second["results"][-1]["message"].startswith("rendered 1 Dynamo resource into")


def test_without_bookkeeping_leaves_the_input_alone() -> None:
    source = dcd(annotations={**kpt_annotations("a.yaml", 0, 1), "user/keep": "me"})
    snapshot = json.dumps(source, sort_keys=True)
    cleaned = krm.without_bookkeeping(source)
    assert json.dumps(source, sort_keys=True) == snapshot
    assert cleaned["metadata"]["annotations"] == {"user/keep": "me"}
    assert "annotations" not in krm.without_bookkeeping(dcd(annotations=kpt_annotations("a.yaml", 0, 1)))["metadata"]


# ---------------------------------------------------------------------------------------------
# functionConfig kinds


def _deployment(parsed: dict[str, Any], name: str = "decode") -> dict[str, Any]:
    return next(o for o in parsed["items"] if o["kind"] == "Deployment" and o["metadata"]["name"] == name)


def _env(deployment: dict[str, Any]) -> dict[str, Any]:
    return {e["name"]: e.get("value") for e in deployment["spec"]["template"]["spec"]["containers"][0]["env"]}


def test_no_function_config_and_kpts_empty_configmap_mean_defaults() -> None:
    _, out_none, _, _ = run_krm(resource_list([dcd(namespace=None)]))
    _, out_empty, _, parsed = run_krm(resource_list([dcd(namespace=None)], function_input()))
    assert out_none == out_empty
    assert _deployment(parsed)["metadata"]["namespace"] == "default"


def test_configmap_keys_set_the_settings() -> None:
    code, _, err, parsed = run_krm(resource_list([dcd(namespace=None)], function_input(namespace="team-a", companions="false", lws="true")))
    assert code == 0, err
    assert _deployment(parsed)["metadata"]["namespace"] == "team-a"


@pytest.mark.parametrize(
    ("data", "field", "message"),
    [
        ({"bogus": "1"}, "data.bogus", 'unknown key "bogus" (valid: namespace, operatorConfigPath, keepSources, companions, lws, checkpoint, grove, strict, operatorRelease, apiVersions, acceptPreservedContent, carryMetadata, namespaceShared)'),
        ({"keepSources": "yes"}, "data.keepSources", 'expected true or false, got "yes"'),
    ],
    ids=["unknown-key", "bad-bool"],
)
def test_bad_configmap_is_an_error_and_items_come_back(data: dict[str, str], field: str, message: str) -> None:
    text = resource_list([dcd()], function_input(**data))
    code, out, err, parsed = run_krm(text)
    assert code == 1
    assert _raw_items(out) == _raw_items(text)
    [result] = [r for r in parsed["results"] if r["severity"] == "error"]
    assert result["field"] == {"path": field}
    assert result["message"] == message
    assert result["resourceRef"] == {"apiVersion": "v1", "kind": "ConfigMap", "name": "function-input"}
    assert f"[error] ConfigMap/function-input {field}: {message}" in err


def test_dynamo_render_config_function_config() -> None:
    config = {
        "apiVersion": "config.dynamo-render.dev/v1alpha1",
        "kind": "DynamoRenderConfig",
        "metadata": {"name": "render", "annotations": {"config.kubernetes.io/function": "exec:\n  path: dynamo-render-krm\n"}},
        "spec": {"namespace": "from-config", "keepSources": True},
    }
    code, _, err, parsed = run_krm(resource_list([dcd(namespace=None)], config))
    assert code == 0, err
    assert kinds(parsed)[-1] == "DynamoComponentDeployment/decode"
    assert _deployment(parsed)["metadata"]["namespace"] == "from-config"


def test_dynamo_render_config_errors_name_the_field() -> None:
    config = {"apiVersion": "config.dynamo-render.dev/v1alpha1", "kind": "DynamoRenderConfig", "metadata": {"name": "r"}, "spec": {"keepSource": True}}
    code, _, err, parsed = run_krm(resource_list([dcd()], config))
    assert code == 1
    [result] = [r for r in parsed["results"] if r["severity"] == "error"]
    assert result["field"] == {"path": "spec.keepSource"}
    assert result["message"] == 'unknown field "keepSource"'


OPERATOR_CONFIG = {
    "apiVersion": "operator.config.dynamo.nvidia.com/v1alpha1",
    "kind": "OperatorConfiguration",
    # kustomize puts the function annotation here; it is not part of the operator's document.
    "metadata": {"name": "operator", "annotations": {"config.kubernetes.io/function": "exec:\n  path: dynamo-render-krm\n"}},
    "discovery": {"backend": "etcd"},
    "infrastructure": {"etcdAddress": "etcd.dynamo-system:2379"},
    "mpi": {"sshSecretName": "mpi-run-ssh-secret", "sshSecretNamespace": "dynamo-system"},
    "namespace": {"restricted": "llm"},
}


def test_operator_configuration_function_config() -> None:
    code, _, err, parsed = run_krm(resource_list([dcd()], OPERATOR_CONFIG))
    assert code == 0, err
    env = _env(_deployment(parsed))
    # component_common.go sets DYN_DISCOVERY_BACKEND only when the backend is not etcd;
    # graph.go adds ETCD_ENDPOINTS from infrastructure.etcdAddress.
    assert "DYN_DISCOVERY_BACKEND" not in env
    assert env["ETCD_ENDPOINTS"] == "etcd.dynamo-system:2379"
    assert not [r for r in parsed["results"] if "Helm chart defaults" in r["message"]]


def test_operator_configuration_is_validated_like_the_operator_does() -> None:
    config = {k: v for k, v in OPERATOR_CONFIG.items() if k != "mpi"}
    code, _, err, parsed = run_krm(resource_list([dcd()], config))
    assert code == 1
    fields = {r["field"]["path"] for r in parsed["results"] if r["severity"] == "error"}
    assert fields == {"mpi.sshSecretName", "mpi.sshSecretNamespace"}


def test_unknown_function_config_kind_is_an_error() -> None:
    config = {"apiVersion": "example.com/v1", "kind": "SetNamespace", "metadata": {"name": "x"}}
    code, out, err, parsed = run_krm(resource_list([dcd()], config))
    assert code == 1
    assert kinds(parsed) == ["DynamoComponentDeployment/decode"]
    [result] = parsed["results"]
    assert result["message"].startswith('unsupported functionConfig "example.com/v1" "SetNamespace" (valid: ')
    assert "config.dynamo-render.dev/v1alpha1 DynamoRenderConfig" in result["message"]
    assert result["field"] == {"path": "kind"}


# ---------------------------------------------------------------------------------------------
# Calling conventions


LEGACY_CONFIG = """\
apiVersion: config.dynamo-render.dev/v1alpha1
kind: DynamoRenderConfig
metadata:
  name: render
spec:
  operatorConfigPath: operator.yaml
"""

OPERATOR_FILE = """\
apiVersion: operator.config.dynamo.nvidia.com/v1alpha1
kind: OperatorConfiguration
discovery:
  backend: etcd
mpi:
  sshSecretName: mpi-run-ssh-secret
  sshSecretNamespace: dynamo-system
namespace:
  restricted: llm
"""


def _legacy(tmp_path: Path, stream: str, config: str = LEGACY_CONFIG) -> tuple[int, str, str]:
    root = tmp_path / "kustomization"
    root.mkdir(exist_ok=True)
    (root / "operator.yaml").write_text(OPERATOR_FILE)
    config_file = tmp_path / "kust-plugin-config-1"  # kustomize passes a temporary copy
    config_file.write_text(config)
    env = {"KUSTOMIZE_PLUGIN_CONFIG_STRING": config, "KUSTOMIZE_PLUGIN_CONFIG_ROOT": str(root)}
    stdout, stderr = io.StringIO(), io.StringIO()
    code = krm.run(str(config_file), lambda: stream.encode(), stdout, stderr, env)
    return code, stdout.getvalue(), stderr.getvalue()


def test_legacy_exec_plugin_transforms_a_plain_stream(tmp_path: Path) -> None:
    source = dcd("decode", annotations={"kustomize.config.k8s.io/id": "group: nvidia.com\nkind: DynamoComponentDeployment\nname: decode\n"})
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x", "namespace": "llm"}, "data": {"k": "v"}}
    code, out, err = _legacy(tmp_path, yaml.safe_dump_all([source, cm]))
    assert code == 0, err
    docs = list(yaml.safe_load_all(out))
    # operatorConfigPath is resolved against the kustomization directory: etcd discovery there,
    # so a worker gets no component Service (generateService: kubernetes discovery or frontend).
    ids = [f"{d['kind']}/{d['metadata']['name']}" for d in docs]
    assert "Deployment/decode" in ids and "Service/decode" not in ids
    assert "DYN_DISCOVERY_BACKEND" not in _env(docs[ids.index("Deployment/decode")])
    assert out.startswith("---\n")
    assert docs[-1] == cm


def test_legacy_exec_plugin_error_fails_with_stderr(tmp_path: Path) -> None:
    stream = yaml.safe_dump(dcd("broken", replicas=-1))
    code, out, err = _legacy(tmp_path, stream)
    assert code == 1
    assert "[error] DynamoComponentDeployment/broken spec.replicas: must be >= 0 (got -1)" in err
    assert yaml.safe_load(out)["metadata"]["name"] == "broken"


def test_legacy_exec_plugin_bad_config(tmp_path: Path) -> None:
    code, _, err = _legacy(tmp_path, yaml.safe_dump(dcd()), config=LEGACY_CONFIG.replace("operatorConfigPath", "operatorConfigPat"))
    assert code == 1
    assert 'spec.operatorConfigPat: unknown field "operatorConfigPat"' in err


def test_legacy_exec_plugin_unreadable_config(tmp_path: Path) -> None:
    code, out, err = _legacy(tmp_path, yaml.safe_dump(dcd()), config=LEGACY_CONFIG + "kind: Again\n")
    assert code == 1
    assert 'mapping key "kind" already defined' in err
    assert yaml.safe_load(out)["kind"] == "DynamoComponentDeployment"


def _krm_cli(args: list[str], env: dict[str, str], stdin: str = "") -> Any:
    from click.testing import CliRunner

    from plugin.cli import cli

    return CliRunner(env=env).invoke(cli, ["krm", *args], input=stdin)


def test_legacy_plugin_arguments_are_a_usage_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """kustomize appends argsOneLiner/argsFromFile after the config file; the plugin has none."""
    config = tmp_path / "kust-plugin-config-1"
    config.write_text(LEGACY_CONFIG)
    monkeypatch.setenv("KUSTOMIZE_PLUGIN_CONFIG_ROOT", str(tmp_path))
    done = _krm_cli([str(config), "--one", "two"], {})
    assert done.exit_code == 2
    assert "unexpected plugin arguments '--one two'" in done.stderr


def test_a_file_argument_without_kustomizes_environment_is_a_usage_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = tmp_path / "render.yaml"
    config.write_text(LEGACY_CONFIG)
    for name in krm.KUSTOMIZE_PLUGIN_ENV:
        monkeypatch.delenv(name, raising=False)
    done = _krm_cli([str(config)], {})
    assert done.exit_code == 2
    assert "unexpected arguments" in done.stderr and "dynamo-render render" in done.stderr
    assert done.stdout == ""


def test_is_legacy_plugin_call(tmp_path: Path) -> None:
    config = tmp_path / "c.yaml"
    config.write_text("x: 1\n")
    assert krm.is_legacy_plugin_call(str(config), {"KUSTOMIZE_PLUGIN_CONFIG_ROOT": "/k"})
    assert krm.is_legacy_plugin_call(str(config), {"KUSTOMIZE_PLUGIN_CONFIG_STRING": "x: 1"})
    assert not krm.is_legacy_plugin_call(str(config), {})
    assert not krm.is_legacy_plugin_call(str(tmp_path / "missing.yaml"), {"KUSTOMIZE_PLUGIN_CONFIG_ROOT": "/k"})
    assert not krm.is_legacy_plugin_call(None, {"KUSTOMIZE_PLUGIN_CONFIG_ROOT": "/k"})


def test_help_and_terminal_stdin() -> None:
    done = _krm_cli(["--help"], {})
    assert done.exit_code == 0 and "ResourceList" in done.stdout
    stdout, stderr = io.StringIO(), io.StringIO()
    assert krm.run(None, lambda: pytest.fail("stdin must not be read from a terminal"), stdout, stderr, env={}, stdin_is_tty=True) == 1
    assert "usage:" in stderr.getvalue() and stdout.getvalue() == ""


def test_console_script_turns_a_bug_into_exit_3_with_a_traceback(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from plugin.cli import krm_main

    def broken(plugin_config: str | None) -> int:
        raise RuntimeError("boom")

    monkeypatch.setattr(krm, "main", broken)
    monkeypatch.setattr("sys.argv", ["dynamo-render-krm"])
    with pytest.raises(SystemExit) as exited:
        krm_main()
    assert exited.value.code == 3
    err = capsys.readouterr().err
    assert "Traceback" in err and "RuntimeError: boom" in err and "internal error" in err


@pytest.mark.parametrize(
    ("ref", "expected"),
    [
        (ResourceRef("v1", "Service", "web", "llm"), {"apiVersion": "v1", "kind": "Service", "name": "web", "namespace": "llm"}),
        (ResourceRef("v1", "Service", "web"), {"apiVersion": "v1", "kind": "Service", "name": "web"}),
        (ResourceRef("", "Service", "web"), None),
        (ResourceRef("v1", "", "web"), None),
        (ResourceRef("v1", "ConfigMap", ""), None),
    ],
    ids=["full", "cluster-scoped", "no-api-version", "no-kind", "no-name"],
)
def test_result_resource_ref_always_has_api_version_kind_and_name(ref: ResourceRef, expected: dict[str, str] | None) -> None:
    """kpt and kyaml print and match results by apiVersion/kind/name: a partial ref is left out."""
    krm = Result("m", resource=ref).to_krm()
    assert krm.get("resourceRef") == expected


KEEP_SOURCES = {"apiVersion": "config.dynamo-render.dev/v1alpha1", "kind": "DynamoRenderConfig", "metadata": {"name": "c"},
                "spec": {"keepSources": True}}


def _first_run() -> list[dict[str, Any]]:
    code, _, err, parsed = run_krm(resource_list([dcd("decode")], KEEP_SOURCES))
    assert code == 0, err
    items: list[dict[str, Any]] = parsed["items"]
    return items


def test_every_rendered_object_carries_a_digest_of_its_content() -> None:
    from plugin import ownership

    rendered = [item for item in _first_run() if item["kind"] != "DynamoComponentDeployment"]
    assert rendered
    for obj in rendered:
        assert annos(obj)[ownership.RENDERED_DIGEST_ANNOTATION].startswith("sha256:")
        assert ownership.intact(obj)
    edited = json.loads(json.dumps(rendered[0]))
    edited["metadata"].setdefault("labels", {})["team"] = "mine"
    assert not ownership.intact(edited)


def test_a_copied_marker_is_never_pruned_only_what_was_rendered() -> None:
    """Issue 27 §7: a hand-written object made from a rendered one keeps its copied marker and is not deleted.

    The source is renamed: what it rendered before (digest intact) is pruned; a customised copy
    of its Service and an edited Deployment carrying the same marker are kept, with a warning each.
    """
    items = _first_run()
    service = next(i for i in items if i["kind"] == "Service")
    copy = json.loads(json.dumps(service))
    copy["metadata"]["name"] = "decode-custom"
    copy["spec"]["type"] = "NodePort"
    edited = json.loads(json.dumps(next(i for i in items if i["kind"] == "Deployment")))
    edited["spec"]["replicas"] = 5
    renamed = [dcd("worker") if i["kind"] == "DynamoComponentDeployment" else i for i in items if i["kind"] != "Deployment"]
    code, _, err, parsed = run_krm(resource_list([*renamed, copy, edited], KEEP_SOURCES))
    assert code == 0, err
    names = kinds(parsed)
    assert "Service/decode-custom" in names and "Deployment/decode" in names, names
    assert "Service/decode" not in names, "what the source rendered, unchanged, is pruned"
    warnings = [r["message"] for r in parsed["results"] if r["severity"] == "warning" and r["message"].startswith("kept ")]
    assert sorted(m.split(" at ")[0] for m in warnings) == ["kept Deployment/decode", "kept Service/decode-custom"], warnings
    assert all("rendered-digest does not match" in m for m in warnings)
    assert "[warning]" in err
