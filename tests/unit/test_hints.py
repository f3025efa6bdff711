"""Problem lines say how to fix the input and carry their rule code (issue 39 §2).

The operator's message comes first, word for word; the project's hint follows as ``; fix: ...``
and the line ends in the rule code that ``strict`` and ``existingObjects`` take.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import yaml

from plugin.frontends import render as render_cmd
from renderer.results import Code, Result, Severity

PLACEHOLDER = "nvcr.io/nvidia/ai-dynamo/vllm-runtime:my-tag"
MESSAGE = "Required value: is required when the specified main container image has no parseable semantic-version tag"


def dgd(image: str, **component: object) -> dict[str, object]:
    """A one-component graph: in a graph the runtime version must come from the tag or the override."""
    main = {"name": "main", "image": image}
    worker = {"name": "worker", "type": "worker", "podTemplate": {"spec": {"containers": [main]}}, **component}
    return {
        "apiVersion": "nvidia.com/v1beta1",
        "kind": "DynamoGraphDeployment",
        "metadata": {"name": "chat", "namespace": "llm"},
        "spec": {"backendFramework": "vllm", "components": [worker]},
    }


def _render(tmp_path: Path, doc: dict[str, object]) -> tuple[int, str, str]:
    path = tmp_path / "app.yaml"
    path.write_text(yaml.safe_dump(doc))
    out, err = io.StringIO(), io.StringIO()
    code = render_cmd.run([str(path)], {}, out, err)
    return code, out.getvalue(), err.getvalue()


def test_a_placeholder_image_tag_names_the_fix_after_the_operators_message(tmp_path: Path) -> None:
    code, out, err = _render(tmp_path, dgd(PLACEHOLDER))
    assert code == 1 and out == ""
    [line] = [line for line in err.splitlines() if "[error]" in line]
    assert line.endswith(
        f"DynamoGraphDeployment/chat spec.components[0].runtimeVersionOverride: {MESSAGE}; "
        f'fix: give the main container image a version tag such as ":1.4.0" (it is "{PLACEHOLDER}"), '
        "or set runtimeVersionOverride to the Dynamo runtime version the image holds [webhook]"
    )


def test_following_either_fix_renders(tmp_path: Path) -> None:
    tagged = _render(tmp_path, dgd(PLACEHOLDER.replace("my-tag", "1.4.0")))
    overridden = _render(tmp_path, dgd(PLACEHOLDER, runtimeVersionOverride="1.4.0"))
    assert tagged[0] == 0 and overridden[0] == 0, tagged[2] + overridden[2]
    assert "Deployment" in tagged[1] and "Deployment" in overridden[1]


def test_notes_carry_no_code_and_warnings_do() -> None:
    assert Result("assumed the defaults", severity=Severity.INFO, code=Code.INPUT).line() == "[info]: assumed the defaults"
    assert Result("x is ignored", severity=Severity.WARNING, code=Code.IGNORED).line() == "[warning]: x is ignored [ignored]"
    assert Result("bad", code=Code.SCHEMA, hint="write 4").to_krm() == {
        "message": "bad; fix: write 4",
        "severity": "error",
        "tags": {"code": "schema"},
    }


# --- quantities: what a valid value looks like, with the value received -------------------------

def dcd(resources: dict[str, object]) -> dict[str, object]:
    main = {"name": "main", "image": "nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.4.0", "resources": {"limits": resources}}
    return {
        "apiVersion": "nvidia.com/v1beta1",
        "kind": "DynamoComponentDeployment",
        "metadata": {"name": "decode", "namespace": "llm"},
        "spec": {"type": "worker", "backendFramework": "vllm", "podTemplate": {"spec": {"containers": [main]}}},
    }


def _front_ends(tmp_path: Path, doc: dict[str, object]) -> dict[str, str]:
    """The problem text of render, validate, the CMP and the KRM function for one manifest."""
    from plugin.frontends import cmp, krm, precommit_validate

    folder = tmp_path / "app"
    folder.mkdir(exist_ok=True)
    path = folder / "app.yaml"
    path.write_text(yaml.safe_dump(doc))
    texts: dict[str, str] = {}
    out, err = io.StringIO(), io.StringIO()
    assert render_cmd.run([str(path)], {}, out, err) == 1 and out.getvalue() == ""
    texts["render"] = err.getvalue()
    out = io.StringIO()
    assert precommit_validate.run([str(path)], {}, out, env={}) == 1
    texts["validate"] = out.getvalue()
    out, err = io.StringIO(), io.StringIO()
    assert cmp.generate(str(folder), {}, out, err) == 1 and out.getvalue() == ""
    texts["cmp"] = err.getvalue()
    out, err = io.StringIO(), io.StringIO()
    listing = {"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": [doc]}
    assert krm.run_resource_list(yaml.safe_dump(listing).encode(), out, err) == 1
    texts["krm"] = "\n".join(r["message"] for r in yaml.safe_load(out.getvalue())["results"])
    return texts


QUANTITY_HINT = (
    'fix: write a Kubernetes quantity: a number and an optional suffix, such as "4", "500m", "80Gi" '
    '(binary Ki Mi Gi Ti Pi Ei) or "80G" (decimal k M G T P E)'
)


def test_a_byte_unit_quantity_names_the_value_and_the_two_spellings_in_every_front_end(tmp_path: Path) -> None:
    for front_end, text in _front_ends(tmp_path, dcd({"memory": "80GB"})).items():
        [line] = [line for line in text.splitlines() if "80GB" in line]
        assert "quantities must match the regular expression" in line and '(got "80GB")' in line, (front_end, line)
        assert f'{QUANTITY_HINT}; for "80GB" write "80G" or "80Gi"' in line, (front_end, line)


def test_a_malformed_quantity_gets_the_format_hint(tmp_path: Path) -> None:
    for front_end, text in _front_ends(tmp_path, dcd({"cpu": "4 cores"})).items():
        [line] = [line for line in text.splitlines() if "4 cores" in line]
        assert line.rstrip().removesuffix(" [schema]").endswith(QUANTITY_HINT), (front_end, line)


def test_following_the_quantity_hint_renders(tmp_path: Path) -> None:
    for fixed in ("80G", "80Gi"):
        path = tmp_path / f"{fixed}.yaml"
        path.write_text(yaml.safe_dump(dcd({"memory": fixed})))
        out, err = io.StringIO(), io.StringIO()
        assert render_cmd.run([str(path)], {}, out, err) == 0, err.getvalue()


def test_a_fractional_gpu_says_gpus_are_whole_units_with_the_value_written(tmp_path: Path) -> None:
    # A multinode vLLM worker resolves its GPUs to size the engine (as the vllm-gpu-not-whole golden case): the operator's error, then the fix with
    # the value as the API server would show it ("0.5" reads back as "500m").
    doc = dcd({"nvidia.com/gpu": "0.5"})
    spec: dict[str, Any] = doc["spec"]  # type: ignore[assignment]
    spec["multinode"] = {"nodeCount": 2}
    spec["podTemplate"]["spec"]["containers"][0].update(command=["python3", "-m", "dynamo.vllm"], args=["--tensor-parallel-size", "16"])
    for front_end, text in _front_ends(tmp_path, doc).items():
        [line] = [line for line in text.splitlines() if "must be a whole number" in line]
        assert 'GPU resource "nvidia.com/gpu" quantity "500m" must be a whole number' in line, (front_end, line)
        assert line.rstrip().removesuffix(" [render]").endswith(
            'fix: GPUs and other extended resources are counted in whole units: write a whole number such as "1" or "4"'
        ), (front_end, line)


# --- names, pathways, settings, images: each hint, and its fix followed ----------------------------

def _errors(tmp_path: Path, doc: dict[str, object], settings: dict[str, object] | None = None) -> list[str]:
    path = tmp_path / "app.yaml"
    path.write_text(yaml.safe_dump(doc))
    out, err = io.StringIO(), io.StringIO()
    code = render_cmd.run([str(path)], settings or {}, out, err)
    lines = [line for line in err.getvalue().splitlines() if "[error]" in line]
    assert (code == 1) == bool(lines), err.getvalue()
    return lines


def _named(name: str, namespace: str = "llm") -> dict[str, Any]:
    doc: dict[str, Any] = dgd(PLACEHOLDER.replace("my-tag", "1.4.0"))
    doc["metadata"] = {"name": name, "namespace": namespace}
    return doc


def test_an_invalid_name_suggests_the_nearest_valid_one_and_it_renders(tmp_path: Path) -> None:
    [line] = _errors(tmp_path, _named("Qwen3_Chat"))
    assert 'metadata.name: invalid name "Qwen3_Chat"' in line
    assert line.endswith('fix: use lowercase letters, digits, "-" and ".", starting and ending with a letter or digit, such as "qwen3-chat" [api-server]')
    assert _errors(tmp_path, _named("qwen3-chat")) == []


def test_an_invalid_namespace_suggests_a_label_without_dots(tmp_path: Path) -> None:
    [line] = _errors(tmp_path, _named("chat", "LLM.Prod"))
    assert line.endswith('such as "llm-prod" [api-server]'), line
    assert _errors(tmp_path, _named("chat", "llm-prod")) == []


def test_a_template_placeholder_says_to_fill_it_in(tmp_path: Path) -> None:
    [line] = _errors(tmp_path, _named("${DGD_NAME}"))
    assert line.endswith(
        'fix: "${DGD_NAME}" is a template placeholder: fill it in before rendering (envsubst, helm template, '
        "or a kustomize patch), then render the result [api-server]"
    ), line
    [line] = _errors(tmp_path, _named("chat", "<your-namespace>"))
    assert '"<your-namespace>" is a template placeholder' in line


def test_a_grove_only_field_says_how_to_reach_the_grove_pathway_and_the_gate_does(tmp_path: Path) -> None:
    doc = dgd(PLACEHOLDER.replace("my-tag", "1.4.0"), minAvailable=1)
    [line] = _errors(tmp_path, doc)
    assert "minAvailable: Forbidden: is currently supported only for Grove-backed DynamoGraphDeployment components; " in line
    assert "fix: put the graph on the Grove pathway: orchestrators.grove.enabled: true in the operator configuration" in line
    assert "gates.grove: true" in line
    config = tmp_path / "settings.yaml"
    config.write_text(yaml.safe_dump({
        "apiVersion": "config.dynamo-render.dev/v1alpha1", "kind": "DynamoRenderConfig", "metadata": {"name": "s"},
        "spec": {"gates": {"grove": True}},
    }))
    assert _errors(tmp_path, doc, {"config": str(config)}) == []


def test_a_standalone_component_is_told_grove_needs_a_graph(tmp_path: Path) -> None:
    doc = dcd({})
    spec: dict[str, Any] = doc["spec"]  # type: ignore[assignment]
    spec["minAvailable"] = 1
    [line] = _errors(tmp_path, doc)
    assert line.endswith(
        "fix: a standalone DynamoComponentDeployment never runs on Grove: make it a component of a "
        "DynamoGraphDeployment on the Grove pathway [webhook]"
    ), line


def test_a_missing_main_image_names_the_backends_runtime_image(tmp_path: Path) -> None:
    doc = dcd({})
    spec: dict[str, Any] = doc["spec"]  # type: ignore[assignment]
    spec["backendFramework"] = "sglang"
    del spec["podTemplate"]["spec"]["containers"][0]["image"]
    [line] = _errors(tmp_path, doc)
    assert "containers[0].image: Required value: is required; " in line
    assert line.endswith('fix: give the main container the Dynamo runtime image it runs, such as "nvcr.io/nvidia/ai-dynamo/sglang-runtime:1.4.0" [webhook]')


def _long(name: str) -> dict[str, Any]:
    doc: dict[str, Any] = dgd(PLACEHOLDER.replace("my-tag", "1.4.0"))
    doc["metadata"] = {"name": name, "namespace": "llm-production-inference"}
    return doc


def test_a_graph_name_too_long_for_its_namespace_gives_the_longest_that_fits_and_that_one_renders(tmp_path: Path) -> None:
    # nvidia.com/dynamo-namespace is <namespace>-<graph>, a label value of at most 63 characters:
    # in a 24-character namespace a graph name may have 63 - 24 - 1 = 38.
    [line] = _errors(tmp_path, _long("a" * 39))
    assert "metadata.labels[nvidia.com/dynamo-namespace]" in line and "must be no more than 63 characters" in line
    assert line.endswith(
        'fix: the label is <namespace>-<graph name>, at most 63 characters: in namespace "llm-production-inference" a '
        "DynamoGraphDeployment name may have at most 38 characters (this one has 39) [api-server]"
    ), line
    assert _errors(tmp_path, _long("a" * 38)) == []


TYPO = """\
apiVersion: nvidia.com/v1beta1
kind: DynamoGraphDeployment
metadata:
  name: chat
spec:
  backendFramework: vllm
  components:
  - name: decode
    type: worker
    podTemplate:
      spec:
        containers:
        - name: main
          image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.4.0
          resource:
            limits:
              nvidia.com/gpu: "1"
"""


def _render_text(tmp_path: Path, text: str) -> list[str]:
    path = tmp_path / "app.yaml"
    path.write_text(text)
    out, err = io.StringIO(), io.StringIO()
    render_cmd.run([str(path)], {}, out, err)
    return [line for line in err.getvalue().splitlines() if "[error]" in line]


def test_a_misspelled_dynamo_field_names_the_field_it_meant(tmp_path: Path) -> None:
    [line] = _render_text(tmp_path, TYPO.replace("    type: worker\n", "    type: worker\n    replica: 2\n"))
    assert 'spec.components[0].replica: unknown field "replica"' in line
    assert line.endswith('fix: did you mean "replicas"? [unknown-field]'), line


def test_a_misspelled_pod_template_field_names_the_kubernetes_field(tmp_path: Path) -> None:
    [line] = _render_text(tmp_path, TYPO)
    assert 'containers[0].resource: unknown field "resource"' in line
    assert line.endswith('fix: did you mean "resources"? [unknown-field]'), line
    assert _render_text(tmp_path, TYPO.replace("          resource:", "          resources:")) == []


def test_a_misspelled_v1alpha1_field_names_the_field_it_meant(tmp_path: Path) -> None:
    text = (
        "apiVersion: nvidia.com/v1alpha1\nkind: DynamoComponentDeployment\nmetadata:\n  name: decode\nspec:\n"
        "  componentType: worker\n  replica: 1\n  extraPodSpec:\n    mainContainer:\n"
        "      image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.4.0\n"
    )
    [line] = _render_text(tmp_path, text)
    assert line.endswith('spec.replica: unknown field "replica": the API server would prune this field and the operator '
                         'would ignore it; fix: did you mean "replicas"? [unknown-field]'), line


def test_an_unknown_field_with_nothing_close_gets_no_guess(tmp_path: Path) -> None:
    [line] = _render_text(tmp_path, TYPO.replace("          resource:", "          zzzqqq:"))
    assert "did you mean" not in line and line.endswith("[unknown-field]")
