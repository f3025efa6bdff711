"""Component fields and values of later operator releases: refused naming the release that added them.

A manifest written for a newer operator may carry a component field (or a ``type`` value) that
the selected profile's CRD does not know. Refusing it as a generic unknown field would say
nothing about why; rendering it with the field ignored would be silently wrong. So each field a
later release added is listed here with that release, and a manifest that uses it under a
profile that lacks it is refused with ``not in operator <profile>; added in <release>``, the
wording of renderer.admission.roles.

Only fields whose first release the evidence fixes are listed:

- ``dynamoSidecar`` (a restartable init container running the Dynamo runtime beside the
  engine in ``main``): ai-dynamo/dynamo#14927, v1.7.0; v1beta1 only (the PR adds no v1alpha1
  field, only round-trip preservation).
- ``lpx`` and ``type: lpx`` (LPX components, behind the operator's ``lpx.enabled``):
  ai-dynamo/dynamo#15062, v1.6.0 (api/v1beta1/lpx_types.go LPXConfig; consts ComponentTypeLPX
  ``"lpx"``; the DCD reference's ``lpx`` field and ``type`` enum), and the v1alpha1 component's
  ``lpx`` (a v1alpha1 ``componentType`` is free text in every release, so ``lpx`` there is not
  refused: the profile's operator renders it as an ordinary component).

Mirrors: api/v1beta1 DynamoComponentDeploymentSharedSpec of the later releases (the fields
above), against the reference CRD that lacks them.
"""

from __future__ import annotations

import re
from typing import Any

from renderer.releases import Delta, Release
from renderer.results import Code, Result

DYNAMO_SIDECAR = Delta(
    "#14927",
    "1.7.0",
    "dynamoSidecar: a restartable init container runs the Dynamo runtime beside the engine in main",
)
LPX_COMPONENTS = Delta(
    "#15062",
    "1.6.0",
    "LPX components (type lpx and the lpx block), behind the operator's lpx.enabled",
)

LPX_TYPE = "lpx"

# A component field a later release added: (JSON name, the delta that adds it, what it is).
LATER_COMPONENT_FIELDS: tuple[tuple[str, Delta, str], ...] = (
    ("dynamoSidecar", DYNAMO_SIDECAR, "Dynamo sidecar workloads"),
    ("lpx", LPX_COMPONENTS, "LPX components"),
)
# A component ``type`` value a later release added: (value, the delta, what it is).
LATER_COMPONENT_TYPES: tuple[tuple[str, Delta, str], ...] = (
    (LPX_TYPE, LPX_COMPONENTS, "LPX components"),
)


def _refusal(release: Release, delta: Delta, what: str, path: str, code: Code = Code.UNKNOWN_FIELD) -> Result:
    return Result(
        f"not in operator {release.name}; added in {delta.release} (ai-dynamo/dynamo{delta.change}: {what})",
        field=path,
        code=code,
    )


def later_component_fields(component: Any, prefix: str, release: Release) -> list[Result]:
    """The later-release fields and ``type`` values one written v1beta1 component uses, refused.

    ``component`` is the component as written (a DCD's ``spec``, or one entry of a DGD's
    ``spec.components``); ``prefix`` is its path. A field the profile ships is not reported
    (none yet: every delta here belongs to a release after the newest profile).

    Ported from ai-dynamo/dynamo#14927 (v1.7.0) and #15062 (v1.6.0): the fields do not exist
    before those releases.
    """
    if not isinstance(component, dict):
        return []
    out: list[Result] = []
    for name, delta, what in LATER_COMPONENT_FIELDS:
        if name in component and not release.ships(delta):
            out.append(_refusal(release, delta, what, f"{prefix}.{name}"))
    value = component.get("type")
    for type_value, delta, what in LATER_COMPONENT_TYPES:
        if value == type_value and not release.ships(delta):
            # a value the profile's enum lacks: the schema refuses it
            out.append(_refusal(release, delta, f'{what}, type "{type_value}"', f"{prefix}.type", Code.SCHEMA))
    return out


# A v1alpha1 component field a later release added (the v1alpha1 spec gains ``lpx`` with LPX
# components; ``dynamoSidecar`` is v1beta1 only, so in v1alpha1 it stays a plain unknown field).
LATER_ALPHA_COMPONENT_FIELDS: tuple[tuple[str, Delta, str], ...] = (
    ("lpx", LPX_COMPONENTS, "LPX components"),
)
_ALPHA_COMPONENT_PATH = re.compile(r"spec(\.services\[[^\]]*\])?\.(?P<name>[A-Za-z]+)")


def later_alpha_field(result: Result, release: Release) -> Result:
    """An unknown v1alpha1 component field that a later release added, worded as such (else ``result``).

    Ported from ai-dynamo/dynamo#15062 (v1.6.0): the v1alpha1 component spec gains ``lpx``
    (api/v1alpha1 lpx_conversion_test.go round-trips ``service.LPX``).
    """
    found = _ALPHA_COMPONENT_PATH.fullmatch(result.field) if result.code is Code.UNKNOWN_FIELD else None
    if found is None:
        return result
    for name, delta, what in LATER_ALPHA_COMPONENT_FIELDS:
        if found.group("name") == name and not release.ships(delta):
            return _refusal(release, delta, what, result.field)
    return result


def later_spec_fields(spec: Any, components_key: str | None, release: Release) -> list[Result]:
    """``later_component_fields`` for a written spec: the spec itself (a DCD), or each of its components (a DGD)."""
    if components_key is None:
        return later_component_fields(spec, "spec", release)
    components = spec.get(components_key) if isinstance(spec, dict) else None
    if not isinstance(components, list):
        return []
    out: list[Result] = []
    for index, component in enumerate(components):
        out.extend(later_component_fields(component, f"spec.{components_key}[{index}]", release))
    return out


__all__ = [
    "DYNAMO_SIDECAR",
    "LATER_COMPONENT_FIELDS",
    "LATER_ALPHA_COMPONENT_FIELDS",
    "LATER_COMPONENT_TYPES",
    "LPX_COMPONENTS",
    "later_alpha_field",
    "later_component_fields",
    "later_spec_fields",
]
