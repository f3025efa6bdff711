"""Metadata rules the API server applies to every object: namespace, labels, annotations.

A DCD or DGD read from Git has not been through the API server. Its namespace, labels and
annotations are copied onto every rendered object, so a value the API server would refuse on
the source must be refused here, or the rendered objects would be refused instead.

Mirrors: k8s.io/apimachinery/pkg/api/validation/objectmeta.go (ValidateObjectMeta: namespace,
ValidateAnnotations, TotalAnnotationSizeLimitB), k8s.io/apimachinery/pkg/apis/meta/v1/validation
ValidateLabels, k8s.io/apimachinery/pkg/util/validation/validation.go (IsDNS1123Label,
IsDNS1123Subdomain, IsQualifiedName, IsValidLabelValue).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from renderer.results import Code, Result

DNS1123_LABEL_MAX = 63
DNS1123_SUBDOMAIN_MAX = 253
QUALIFIED_NAME_MAX = 63
LABEL_VALUE_MAX = 63
TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024

# the one DNS-1123 label and subdomain patterns (apimachinery pkg/util/validation)
DNS1123_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
DNS1123_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
_QUALIFIED_NAME_PART = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")
_LABEL_VALUE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")
_SHOWN = 64
_ALPHANUMERIC_FORM = 'consist of alphanumerics, "-", "_" or ".", starting and ending with an alphanumeric'


def show(value: str) -> str:
    """A user value quoted for a one-line message; long values are cut (the length is kept)."""
    text = value if len(value) <= _SHOWN else f"{value[:_SHOWN]}... ({len(value)} characters)"
    return '"' + text.encode("unicode_escape").decode("ascii").replace('"', '\\"') + '"'


def _bounded_match(value: str, limit: int, pattern: re.Pattern[str], form: str, part: str = "") -> str | None:
    """The length check, then the format check, of a validation.go rule (``part`` names a part of the value)."""
    if len(value) > limit:
        return f"{part}must be no more than {limit} characters"
    if not pattern.fullmatch(value):
        return f"{part}must {form}"
    return None


def dns1123_label_problem(value: str) -> str | None:
    """Mirrors: validation.go IsDNS1123Label."""
    if not value:
        return "must not be empty"
    return _bounded_match(
        value, DNS1123_LABEL_MAX, DNS1123_LABEL,
        'be a lowercase RFC 1123 label (lowercase alphanumerics and "-", starting and ending with an alphanumeric)',
    )


def qualified_name_problem(value: str) -> str | None:
    """Mirrors: validation.go IsQualifiedName (an optional DNS subdomain prefix, then a name)."""
    prefix, slash, name = value.rpartition("/") if "/" in value else ("", "", value)
    if slash and value.count("/") > 1:
        return 'must be a name with an optional DNS subdomain prefix and "/" (e.g. "example.com/my-name")'
    if slash:
        if not prefix:
            return "prefix part must not be empty"
        if len(prefix) > DNS1123_SUBDOMAIN_MAX or not DNS1123_SUBDOMAIN.fullmatch(prefix):
            return "prefix part must be a lowercase RFC 1123 subdomain of at most 253 characters"
    if not name:
        return "name part must not be empty"
    return _bounded_match(name, QUALIFIED_NAME_MAX, _QUALIFIED_NAME_PART, _ALPHANUMERIC_FORM, "name part ")


def label_value_problem(value: str) -> str | None:
    """Mirrors: validation.go IsValidLabelValue."""
    return _bounded_match(value, LABEL_VALUE_MAX, _LABEL_VALUE, "be empty or " + _ALPHANUMERIC_FORM)


def validate_namespace(namespace: str, field: str = "metadata.namespace") -> list[Result]:
    """Mirrors: objectmeta.go ValidateObjectMeta (namespace: ValidateNamespaceName)."""
    problem = dns1123_label_problem(namespace)
    return [Result(f"invalid namespace {show(namespace)}: {problem}", field=field, code=Code.API_SERVER)] if problem else []


def validate_labels(labels: Mapping[str, str], field: str = "metadata.labels") -> list[Result]:
    """Mirrors: meta/v1/validation ValidateLabels."""
    results: list[Result] = []
    for key, value in labels.items():
        problem = qualified_name_problem(key)
        if problem:
            results.append(Result(f"invalid label key {show(key)}: {problem}", field=f"{field}[{key}]", code=Code.API_SERVER))
        problem = label_value_problem(value)
        if problem:
            results.append(Result(f"invalid label value {show(value)}: {problem}", field=f"{field}[{key}]", code=Code.API_SERVER))
    return results


def validate_annotations(annotations: Mapping[str, str], field: str = "metadata.annotations") -> list[Result]:
    """Mirrors: objectmeta.go ValidateAnnotations (keys are checked lower-cased)."""
    results: list[Result] = []
    total = 0
    for key, value in annotations.items():
        problem = qualified_name_problem(key.lower())
        if problem:
            results.append(Result(f"invalid annotation key {show(key)}: {problem}", field=f"{field}[{key}]", code=Code.API_SERVER))
        total += len(key.encode("utf-8")) + len(value.encode("utf-8"))
    if total > TOTAL_ANNOTATION_SIZE_LIMIT:
        results.append(
            Result(f"annotations are too long: must have at most {TOTAL_ANNOTATION_SIZE_LIMIT} bytes (got {total})", field=field, code=Code.API_SERVER)
        )
    return results
