"""The text of a preservation annotation, checked the way the conversion decodes it.

Both directions of the conversion read ``nvidia.com/dcd-spec`` / ``nvidia.com/dgd-spec`` with
``json.Unmarshal`` into the other version's spec (inside the ``{"version","spec","rawJSON"}``
envelope, or bare in the legacy form), and the ``-status`` annotations into the v1alpha1
status. ``check_spec_annotation`` and ``check_status_annotation`` raise a ``RenderError`` at
``metadata.annotations[<key>]`` with Go's own error text when that decode fails, before any
reader of the annotation runs; the JSON may nest at most ``consts.MAX_DEPTH`` levels, the
limit of YAML and JSON input.

The operator's conversion ignores a spec annotation that does not decode (its
``restorePreservedSpec`` reports "not preserved") and fails on a status annotation that does
not. dynamo-render refuses both: a spec annotation the operator drops silently is content
whose effect nobody can see (docs "Differences from the operator").

Mirrors: api/v1alpha1/preservation.go restorePreservedSpec (the decode steps: a
map[string]json.RawMessage first, then the envelope or the legacy bare spec);
shared_spec_conversion.go getJSONAnnFromObj ("unmarshal <key> annotation: ...")
"""

from __future__ import annotations

from typing import Any

from renderer import consts
from renderer.gocompat import dynamo_types
from renderer.gocompat.gounmarshal import nesting_depth_exceeds, parse, unmarshal_error
from renderer.results import Code, RenderError

_MODULE = "github.com/ai-dynamo/dynamo/deploy/operator/api"
_SPEC_STRUCTS = {
    consts.ANNOTATION_DCD_SPEC: "DynamoComponentDeploymentSpec",
    consts.ANNOTATION_DGD_SPEC: "DynamoGraphDeploymentSpec",
}
_STATUS_STRUCTS = {
    consts.ANNOTATION_DCD_STATUS: "DynamoComponentDeploymentStatus",
    consts.ANNOTATION_DGD_STATUS: "DynamoGraphDeploymentStatus",
}
# the envelope's record type, as a table of its own (printed as package v1alpha1)
_RECORDS = "v1alpha1#preservation"
_TABLES: dict[str, Any] = {
    "v1alpha1": dynamo_types.V1ALPHA1,
    "v1beta1": dynamo_types.V1BETA1,
    _RECORDS: {
        "preservedRawJSON": (
            ("path", "Path", ("string",), False, False, ""),
            ("raw", "Raw", ("slice", ("uint8",)), True, False, ""),
            ("nil", "Nil", ("bool",), True, False, ""),
        )
    },
}
_IGNORED = "the operator's conversion ignores a preservation annotation it cannot decode: fix it or remove it"


def _field(key: str) -> str:
    return f"metadata.annotations[{key}]"


def _parsed(raw: str, key: str) -> Any:
    """The annotation's JSON (RenderError: nested too deep, or not JSON, in Go's words)."""
    if nesting_depth_exceeds(raw, consts.MAX_DEPTH):
        raise RenderError(
            f"annotation JSON nesting is too deep (more than {consts.MAX_DEPTH} levels)", _field(key), code=Code.INPUT
        )
    try:
        return parse(raw)
    except ValueError as err:
        raise RenderError(f"{err} ({_IGNORED})", _field(key), code=Code.CONVERSION) from None


def check_spec_annotation(raw: str, key: str, version: str) -> None:
    """Refuse a spec preservation annotation json.Unmarshal would not decode into ``version``'s spec.

    Mirrors: api/v1alpha1/preservation.go restorePreservedSpec
    """
    if not raw or key not in _SPEC_STRUCTS:
        return
    document = _parsed(raw, key)
    struct = _SPEC_STRUCTS[key]
    spec = ("struct", version, struct)
    fields: list[tuple[tuple[Any, ...], Any, str, tuple[str, ...]]]
    if document is not None and not isinstance(document, dict):
        fields = [(("map", ("string",), ("RawMessage",)), document, "", ())]
    elif document is None or "spec" not in document:
        fields = [(spec, document, "", ())]  # the legacy form: a bare spec
    else:
        envelope = f"preservedSpecEnvelope[{_MODULE}/{version}.{struct}]"
        shapes: dict[str, tuple[Any, ...]] = {"version": ("int",), "spec": spec, "rawjson": ("slice", ("struct", _RECORDS, "preservedRawJSON"))}
        names = {"version": "version", "spec": "spec", "rawjson": "rawJSON"}
        fields = [
            (shapes[name.lower()], value, envelope, (names[name.lower()],))
            for name, value in document.items()
            if name.lower() in shapes
        ]
    problem = unmarshal_error(fields, _TABLES)
    if problem:
        problem = problem.replace("map[string]RawMessage", "map[string]json.RawMessage")
        raise RenderError(f"{problem} ({_IGNORED})", _field(key), code=Code.CONVERSION)


def check_status_annotation(raw: str, key: str) -> None:
    """Refuse a status preservation annotation json.Unmarshal would not decode (the operator fails too).

    Mirrors: api/v1alpha1/shared_spec_conversion.go getJSONAnnFromObj
    """
    if not raw or key not in _STATUS_STRUCTS:
        return
    document = _parsed(raw, key)
    problem = unmarshal_error([(("struct", "v1alpha1", _STATUS_STRUCTS[key]), document, "", ())], _TABLES)
    if problem:
        raise RenderError(f"unmarshal {key} annotation: {problem}", _field(key), code=Code.CONVERSION)
