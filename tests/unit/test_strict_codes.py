"""``strict`` as true, false or result codes, and objects declared to exist in the cluster.

One option-table parser (``plugin.options.parse_strict``) reads the setting in every front end;
the renderer's reference check leaves declared objects alone unless a full listing of their
kind shows them missing.
"""

from __future__ import annotations

from typing import Any

import pytest

from plugin.frontends.krm_config import configmap_settings_doc
from plugin.options import BY_NAME, STRICT_CODES, parse_strict
from plugin.settings import parse_render_settings, resolve_settings
from renderer.cluster.state import SECRET, Existing, StateLayer, build_cluster_state
from renderer.objects.integrity import Reference, report_missing
from renderer.results import Code, ResourceRef, Result, Severity, strict

CONFIG = {"apiVersion": "config.dynamo-render.dev/v1alpha1", "kind": "DynamoRenderConfig"}


@pytest.mark.parametrize(
    "value, expected",
    [
        (True, True),
        (False, False),
        ("true", True),
        ("False", False),
        ("reference", ("reference",)),
        (" unknown-field, ignored ,clash", ("unknown-field", "ignored", "clash")),
        ("reference,reference", ("reference",)),
        (["clash", "reference"], ("clash", "reference")),
        (("ignored",), ("ignored",)),
    ],
    ids=["bool-true", "bool-false", "text-true", "text-false-case", "one-code", "three-codes", "duplicate", "list", "tuple"],
)
def test_parse_strict_accepts(value: Any, expected: Any) -> None:
    assert parse_strict(value) == (expected, "")


@pytest.mark.parametrize(
    "value, problem",
    [
        ("refrence", 'unknown result code "refrence" (valid: true, false, or codes of schema, unknown-field,'),
        ("reference,unclassified", 'unknown result code "unclassified"'),
        ("", 'expected true, false or result codes, got ""'),
        (",", 'expected true, false or result codes, got ","'),
        ([], "expected true, false or result codes, got an empty list"),
        (3, "expected true, false or a comma-separated list of result codes, got integer"),
        ([1], "got array"),
    ],
    ids=["typo", "unclassified", "empty", "only-comma", "empty-list", "integer", "list-of-numbers"],
)
def test_parse_strict_refuses(value: Any, problem: str) -> None:
    parsed, message = parse_strict(value)
    assert parsed is None and problem in message


def test_every_code_but_unclassified_can_be_named() -> None:
    assert set(STRICT_CODES) == {c.value for c in Code} - {"unclassified"}
    assert BY_NAME["strict"].kind == "strict" and BY_NAME["strict"].parameter == "strict"
    assert BY_NAME["strict"].configmap_key == "strict" and BY_NAME["strict"].setting == ("strict",)


def _warnings() -> list[Result]:
    return [
        Result("a", severity=Severity.WARNING, code=Code.REFERENCE),
        Result("b", severity=Severity.WARNING, code=Code.IGNORED),
        Result("c", severity=Severity.INFO, code=Code.NOTE),
        Result("d", severity=Severity.ERROR, code=Code.SCHEMA),
    ]


def test_strict_with_codes_hardens_only_those_warnings() -> None:
    out = strict(_warnings(), {Code.IGNORED})
    assert [r.severity for r in out] == [Severity.WARNING, Severity.ERROR, Severity.INFO, Severity.ERROR]
    assert out[1].message == "b (a warning; strict is on for ignored)"
    assert [r.severity for r in strict(_warnings())] == [Severity.ERROR, Severity.ERROR, Severity.INFO, Severity.ERROR]
    assert strict(_warnings())[0].message == "a (a warning; strict is on)"


@pytest.mark.parametrize(
    "strict_value, severities",
    [
        (False, ["warning", "warning"]),
        (True, ["error", "error"]),
        ("reference", ["error", "warning"]),
        (["ignored"], ["warning", "error"]),
        ("reference,ignored", ["error", "error"]),
    ],
)
def test_settings_file_strict(strict_value: Any, severities: list[str]) -> None:
    settings, problems = resolve_settings(document={**CONFIG, "spec": {"strict": strict_value}})
    assert problems == [] and settings is not None
    out = settings.strict_results(_warnings()[:2])
    assert [r.severity.value for r in out] == severities


def test_settings_file_strict_refuses_an_unknown_code_with_its_field() -> None:
    settings, problems = parse_render_settings({**CONFIG, "spec": {"strict": "reference,ignord"}})
    assert settings is None
    (problem,) = problems
    assert problem.field == "spec.strict" and problem.code is Code.CONFIG
    assert problem.message.startswith('unknown result code "ignord" (valid: true, false, or codes of ')


@pytest.mark.parametrize(
    "data, expected",
    [
        ({"strict": "true"}, True),
        ({"strict": "clash,reference"}, ("clash", "reference")),
        ({"strict": False}, False),
    ],
)
def test_krm_configmap_strict(data: dict[str, Any], expected: Any) -> None:
    doc, problems = configmap_settings_doc({"apiVersion": "v1", "kind": "ConfigMap", "data": data})
    assert problems == [] and doc is not None
    settings, problems = parse_render_settings(doc)
    assert problems == [] and settings is not None and settings.strict == expected


def test_krm_configmap_refuses_an_unknown_code() -> None:
    doc, problems = configmap_settings_doc({"apiVersion": "v1", "kind": "ConfigMap", "data": {"strict": "clsh"}})
    assert doc is None
    (problem,) = problems
    assert problem.field == "data.strict" and 'unknown result code "clsh"' in problem.message


# ---------------------------------------------------------------------------------------------
# existingObjects


@pytest.mark.parametrize(
    "spec, field, message",
    [
        ({"existingObjects": [{"kind": "Pod", "name": "x"}]}, "spec.existingObjects[0].kind",
         'unsupported kind "Pod" (valid: Secret, ConfigMap, PersistentVolumeClaim, ServiceAccount, ResourceClaimTemplate, ResourceClaim)'),
        ({"existingObjects": [{"kind": "Secret"}]}, "spec.existingObjects[0].name", "field required"),
        ({"existingObjects": [{"kind": "Secret", "name": ""}]}, "spec.existingObjects[0].name", "string should have at least 1 character"),
        ({"existingObjects": [{"kind": "Secret", "name": "x", "label": "y"}]}, "spec.existingObjects[0].label", 'unknown field "label"'),
        ({"existingObjects": {"kind": "Secret"}}, "spec.existingObjects", "input should be a valid list"),
    ],
    ids=["kind", "no-name", "empty-name", "unknown-key", "not-a-list"],
)
def test_existing_objects_are_validated(spec: dict[str, Any], field: str, message: str) -> None:
    settings, problems = parse_render_settings({**CONFIG, "spec": spec})
    assert settings is None
    assert [(p.field, p.message) for p in problems] == [(field, message)]


OWNER = ResourceRef("nvidia.com/v1beta1", "DynamoComponentDeployment", "w", "llm")


def _missing(existing: tuple[Existing, ...], names: list[str], complete: bool = False) -> list[str]:
    layer = StateLayer("settings", existing=existing, complete=frozenset({(SECRET, "llm")}) if complete else frozenset())
    cluster, problems = build_cluster_state([layer], "llm")
    assert problems == []
    needs = [("llm", "Deployment/w", Reference(SECRET, name, f"spec.template.spec.volumes[{i}].secret")) for i, name in enumerate(names)]
    return [r.message for r in report_missing(OWNER, needs, set(), cluster)]


@pytest.mark.parametrize(
    "pattern, namespace, reported",
    [
        ("hf-token-*", None, ["hf-tokn", "ngc-pull"]),
        ("hf-token-llama", None, ["hf-token-qwen", "hf-tokn", "ngc-pull"]),
        ("hf-token-????", None, ["hf-token-llama", "hf-tokn", "ngc-pull"]),
        ("*", "llm", []),
        ("*", "other", ["hf-token-llama", "hf-token-qwen", "hf-tokn", "ngc-pull"]),
        ("*", "ll?", []),
        ("hf-token-[a]*", None, ["hf-token-llama", "hf-token-qwen", "hf-tokn", "ngc-pull"]),
    ],
    ids=["glob", "exact", "question-marks", "namespace", "other-namespace", "namespace-glob", "brackets-are-literal"],
)
def test_declared_objects_are_not_reported(pattern: str, namespace: str | None, reported: list[str]) -> None:
    names = ["hf-token-llama", "hf-token-qwen", "hf-tokn", "ngc-pull"]
    messages = _missing((Existing(SECRET, pattern, namespace),), names)
    assert [m.split("Secret/")[1].split(" ")[0] for m in messages] == reported
    assert all(m.startswith("must exist in the cluster: Secret/") for m in messages)


def test_a_declared_object_a_full_listing_lacks_is_still_reported() -> None:
    messages = _missing((Existing(SECRET, "hf-token-*"),), ["hf-token-llama"], complete=True)
    assert messages == ["not found in the cluster: Secret/hf-token-llama (referenced by Deployment/w spec.template.spec.volumes[0].secret)"]


def test_a_declaration_is_not_a_source_of_cluster_facts() -> None:
    """The 'no cluster state given' note still shows: declarations say nothing else about the cluster."""
    cluster, _ = build_cluster_state([StateLayer("input bundle"), StateLayer("settings", existing=(Existing(SECRET, "x"),))], "llm")
    assert cluster.sources == ("input bundle",)
    assert cluster.is_declared(SECRET, "llm", "x") and not cluster.is_declared(SECRET, "llm", "y")
