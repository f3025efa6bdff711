"""Metadata rules the API server applies to every object: namespace, labels, annotations.

A DCD or DGD read from Git has not been through the API server. Its namespace, labels and
annotations are copied onto every rendered object, so a value the API server would refuse on
the source must be refused here, or the rendered objects would be refused instead.

Mirrors: k8s.io/apimachinery/pkg/api/validation/objectmeta.go (ValidateObjectMeta: namespace,
ValidateAnnotations, TotalAnnotationSizeLimitB, ValidateOwnerReferences, ValidateFinalizers), k8s.io/apimachinery/pkg/apis/meta/v1/validation
ValidateLabels, k8s.io/apimachinery/pkg/util/validation/validation.go (IsDNS1123Label,
IsDNS1123Subdomain, IsQualifiedName, IsValidLabelValue).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from renderer.results import Code, Result, describe_kind

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
    if not problem:
        return []
    from renderer import hints  # the error path only

    hint = hints.placeholder(namespace) or hints.dns_name(namespace, 63, subdomain=False)
    return [Result(f"invalid namespace {show(namespace)}: {problem}", field=field, code=Code.API_SERVER, hint=hint)]


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


# The owners the API server refuses (objectmeta.go BannedOwners): group, version, kind.
_BANNED_OWNERS = {("", "v1", "Event")}
# Finalizers that ask for opposite garbage-collection policies (meta/v1 FinalizerOrphanDependents, FinalizerDeleteDependents).
_ORPHAN, _FOREGROUND = "orphan", "foregroundDeletion"


def _group_version(api_version: str) -> tuple[str, str]:
    """Mirrors: apimachinery runtime/schema ParseGroupVersion (an unparsable value has no version)."""
    if api_version in ("", "/") or api_version.count("/") > 1:
        return "", ""
    group, _, version = api_version.rpartition("/")
    return group, version


def validate_owner_references(owners: Any, field: str = "metadata.ownerReferences") -> list[Result]:
    """Each owner reference names apiVersion (with a version), kind, name and uid; one controller at most.

    The API server decodes the list first (a non-object entry or a non-string field is refused
    there), then validates; its paths do not index the entry, ours do, so the line points at it.
    Mirrors: objectmeta.go ValidateOwnerReferences and validateOwnerReference.
    """
    if owners is None:
        return []
    if not isinstance(owners, list):
        return [Result(f"expected array, got {describe_kind(owners)}", field=field, code=Code.SCHEMA)]
    results: list[Result] = []
    controller = ""
    for index, ref in enumerate(owners):
        where = f"{field}[{index}]"
        if not isinstance(ref, dict):
            results.append(Result(f"expected object, got {describe_kind(ref)}", field=where, code=Code.SCHEMA))
            continue
        values: dict[str, str] = {}
        for key in ("apiVersion", "kind", "name", "uid"):
            value = ref.get(key)
            if value is not None and not isinstance(value, str):
                results.append(Result(f"expected string, got {describe_kind(value)}", field=f"{where}.{key}", code=Code.SCHEMA))
            values[key] = value if isinstance(value, str) else ""
        group, version = _group_version(values["apiVersion"])
        if not version:
            results.append(Result(f"invalid value {show(values['apiVersion'])}: version must not be empty", field=f"{where}.apiVersion", code=Code.API_SERVER))
        for key in ("kind", "name", "uid"):
            if not values[key]:
                results.append(Result(f"invalid value {show(values[key])}: must not be empty", field=f"{where}.{key}", code=Code.API_SERVER))
        if (group, version, values["kind"]) in _BANNED_OWNERS:
            results.append(Result(f"{group}/{version}, Kind={values['kind']} is disallowed from being an owner", field=where, code=Code.API_SERVER))
        flag = ref.get("controller")
        if flag is not None and not isinstance(flag, bool):
            results.append(Result(f"expected boolean, got {describe_kind(flag)}", field=f"{where}.controller", code=Code.SCHEMA))
        elif flag:
            current = f"{values['kind']}/{values['name']}"
            if controller:
                results.append(Result(
                    f'Only one reference can have Controller set to true. Found "true" in references for {controller} and {current}',
                    field=field, code=Code.API_SERVER,
                ))
            else:
                controller = current
    return results


def validate_finalizers(finalizers: Any, field: str = "metadata.finalizers") -> list[Result]:
    """Each finalizer is a qualified name; ``orphan`` and ``foregroundDeletion`` do not go together.

    Mirrors: objectmeta.go ValidateFinalizers and ValidateFinalizerName.
    """
    if finalizers is None:
        return []
    if not isinstance(finalizers, list):
        return [Result(f"expected array, got {describe_kind(finalizers)}", field=field, code=Code.SCHEMA)]
    results: list[Result] = []
    for index, name in enumerate(finalizers):
        if not isinstance(name, str):
            results.append(Result(f"expected string, got {describe_kind(name)}", field=f"{field}[{index}]", code=Code.SCHEMA))
            continue
        problem = qualified_name_problem(name)
        if problem:
            results.append(Result(f"invalid finalizer {show(name)}: {problem}", field=f"{field}[{index}]", code=Code.API_SERVER))
    if _ORPHAN in finalizers and _FOREGROUND in finalizers:
        results.append(Result(f"finalizer {_ORPHAN} and {_FOREGROUND} cannot be both set", field=field, code=Code.API_SERVER))
    return results


def source_metadata_problems(obj: dict[str, Any]) -> list[Result]:
    """The owner-reference and finalizer rules on a DCD or DGD read from Git.

    Checked on the source only: a DCD the graph generates carries an owner reference to its
    graph whose uid only the cluster assigns, so the offline render leaves it empty.
    """
    meta = obj.get("metadata")
    if not isinstance(meta, dict):
        return []
    return validate_owner_references(meta.get("ownerReferences")) + validate_finalizers(meta.get("finalizers"))
