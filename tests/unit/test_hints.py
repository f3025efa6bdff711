"""Problem lines say how to fix the input and carry their rule code (issue 39 §2).

The operator's message comes first, word for word; the project's hint follows as ``; fix: ...``
and the line ends in the rule code that ``strict`` and ``existingObjects`` take.
"""

from __future__ import annotations

import io
from pathlib import Path

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
