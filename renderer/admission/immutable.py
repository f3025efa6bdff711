"""CRD transition rules between a stored DCD or DGD and its update: what the API server refuses to change.

A transition rule compares an update with the object it replaces (CEL ``oldSelf``), so it is
checked only where both are known: between the base and the head of a change (``diff``), for an
object kept under the same identity. A refused update never reaches the operator; the change
cannot be applied as written.

Operator 1.5.0 makes a component's type immutable once set (ai-dynamo/dynamo#13763): the
v1beta1 component spec (a DCD's ``spec``, each DGD ``spec.components[]`` entry, matched by
``name`` as the list is a map) carries ``!has(oldSelf.type) || (has(self.type) && self.type ==
oldSelf.type)`` with the message "type is immutable after it is set", and the v1alpha1 one the
same rule on ``componentType`` ("componentType is immutable after it is set"; DGD
``spec.services`` entries matched by key). A component without a type on the stored object may
set one once; a new component has no old side and is not checked.

The two sides are compared in the head's API version, as the API server compares an update with
the stored object: a v1alpha1 base with a v1beta1 head (a migration) is converted to v1beta1
first (renderer.conversion.to_v1beta1); a v1beta1 base with a v1alpha1 head is not compared.

Ported from ai-dynamo/dynamo#13763 (v1.5.0): the CEL transition rules of the regenerated DCD and
DGD CRDs, and its envtest cases ("v1beta1 type change is rejected by CEL": ``spec: Invalid
value: type is immutable after it is set`` and ``spec.components[1]: ...``; the v1alpha1 case at
``spec.services[worker]``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from renderer import consts
from renderer.clashes import identity_of
from renderer.releases import Delta, Release
from renderer.results import Code, RenderError, ResourceRef, Result

TYPE_IMMUTABLE = Delta("#13763", "1.5.0", "a component's type (v1alpha1 componentType) is immutable once set (CRD CEL transition rule)")

# The field each API version names the component type by.
_TYPE_FIELD = {consts.V1BETA1: "type", consts.V1ALPHA1: "componentType"}


def type_transition_refusals(
    before: Iterable[tuple[Any, str, int | None]],
    after: Iterable[tuple[Any, str, int | None]],
    release: Release,
    default_namespace: str,
) -> list[Result]:
    """Every kept DCD or DGD component whose type the head changes or drops, refused as the API server refuses it.

    ``before`` and ``after`` are the source documents of each side as (object, file, document
    index); a result is placed on the head's document. Nothing is checked under a profile
    without the rule.

    Ported from ai-dynamo/dynamo#13763 (v1.5.0).
    """
    if not release.ships(TYPE_IMMUTABLE):
        return []
    stored: dict[Any, Any] = {}
    for obj, _, _ in before:
        key = _key(obj, default_namespace)
        if key is not None:
            stored[key] = obj
    out: list[Result] = []
    for obj, file, index in after:
        key = _key(obj, default_namespace)
        old = stored.get(key) if key is not None else None
        if old is not None and old.get("apiVersion") != obj.get("apiVersion"):
            old = _stored_as_v1beta1(old, obj, release)
        if old is None:
            continue
        field = _TYPE_FIELD[obj["apiVersion"]]
        for path, old_component, new_component in _kept_components(old, obj):
            problem = _type_change(old_component, new_component, field)
            if problem:
                out.append(
                    Result(
                        f"Invalid value: {field} is immutable after it is set ({problem}; the API server refuses "
                        f"this update under operator {release.name}, ai-dynamo/dynamo{TYPE_IMMUTABLE.change})",
                        field=path,
                        resource=ResourceRef.of(obj),
                        file=file,
                        index=index,
                        code=Code.WEBHOOK,
                    )
                )
    return out


def _stored_as_v1beta1(old: dict[str, Any], new: dict[str, Any], release: Release) -> dict[str, Any] | None:
    """A v1alpha1 base as the API server stores it (v1beta1), for a v1beta1 head; None for any other pair.

    The head of a migration written as v1beta1 is checked against the stored object, which is
    the base converted by the conversion webhook (renderer.conversion.to_v1beta1). A v1beta1
    base with a v1alpha1 head is not compared.
    """
    if old.get("apiVersion") != consts.V1ALPHA1 or new.get("apiVersion") != consts.V1BETA1:
        return None
    from renderer.admission.roles import EXPLICIT_ROLES
    from renderer.conversion.to_v1beta1 import dcd_to_v1beta1, dgd_to_v1beta1

    convert = dcd_to_v1beta1 if old.get("kind") == consts.DCD_KIND else dgd_to_v1beta1
    try:
        return convert(old, roles=release.ships(EXPLICIT_ROLES))
    except RenderError:
        return None


def _key(obj: Any, default_namespace: str) -> Any:
    """The identity of a DCD or DGD source, else None."""
    if not isinstance(obj, dict) or obj.get("apiVersion") not in _TYPE_FIELD:
        return None
    if obj.get("kind") not in (consts.DCD_KIND, consts.DGD_KIND):
        return None
    return identity_of(obj, default_namespace)


def _kept_components(old: dict[str, Any], new: dict[str, Any]) -> Iterator[tuple[str, Any, Any]]:
    """(path, stored component, updated component) for each component both sides hold."""
    old_spec, new_spec = old.get("spec"), new.get("spec")
    if not isinstance(old_spec, dict) or not isinstance(new_spec, dict):
        return
    if new.get("kind") == consts.DCD_KIND:
        yield "spec", old_spec, new_spec
    elif new.get("apiVersion") == consts.V1BETA1:
        # components is a list map keyed by name: an entry is correlated with the stored one of its name.
        old_components = old_spec.get("components")
        by_name = {
            c.get("name"): c for c in old_components if isinstance(c, dict) and isinstance(c.get("name"), str)
        } if isinstance(old_components, list) else {}
        new_components = new_spec.get("components")
        for i, component in enumerate(new_components if isinstance(new_components, list) else []):
            if isinstance(component, dict) and component.get("name") in by_name:
                yield f"spec.components[{i}]", by_name[component["name"]], component
    else:
        old_services, new_services = old_spec.get("services"), new_spec.get("services")
        if isinstance(old_services, dict) and isinstance(new_services, dict):
            for name, service in new_services.items():
                if name in old_services:
                    yield f"spec.services[{name}]", old_services[name], service


def _type_change(old: Any, new: Any, field: str) -> str:
    """How an update changes a set type ("" when the rule holds): ``!has(oldSelf.f) || (has(self.f) && self.f == oldSelf.f)``."""
    if not isinstance(old, dict) or field not in old:
        return ""
    if not isinstance(new, dict) or field not in new:
        return f'base {field} "{old[field]}", removed in the head'
    if new[field] != old[field]:
        return f'base {field} "{old[field]}", head "{new[field]}"'
    return ""


__all__ = ["TYPE_IMMUTABLE", "type_transition_refusals"]
