"""A v1alpha1 DCD or DGD through the API server: schema, conversion, then the v1beta1 admission.

The order is the API server's for a v1alpha1 create:

1. the v1alpha1 structural schema and its CEL rules (renderer/admission/v1alpha1/schema.py):
   pruning, defaulting, validation, at the paths the user wrote;
2. the conversion webhook's ConvertTo (renderer/conversion/to_v1beta1.py), which yields
   the v1beta1 object the API server stores, preservation annotations included;
3. the webhooks, which see the v1beta1 object (``matchPolicy: Equivalent``): the DGD defaulting
   webhook and the v1beta1 validation rules run in the existing v1beta1 admission with the
   runtime-version rule in its v1alpha1 form, and the v1alpha1 rules run on the written object
   (renderer/admission/v1alpha1/webhook.py).

The DGD entry point is renderer/graph/v1alpha1_dgd.py (it calls the DGD admission, a later
stage). Results about the converted object have their field paths mapped back to v1alpha1
(renderer/admission/v1alpha1/paths.py). The parsed DCD or DGD carries the converted object as
its source, so everything downstream renders the object the operator would reconcile.

Mirrors: internal/webhook/validation/dynamocomponentdeployment_handler.go and
dynamographdeployment_handler.go (the v1alpha1 request path, castTo*, runtime version source),
api/v1alpha1/*_conversion.go ConvertTo.
"""

from __future__ import annotations

from functools import partial

from collections.abc import Callable
from renderer.records import replace
from typing import Any

from renderer import consts
from renderer.admission.roles import EXPLICIT_ROLES
from renderer.admission.api import DCD
from renderer.admission.parse import parse_dcd
from renderer.admission.v1alpha1 import paths, schema, webhook
from renderer.conversion.to_v1beta1 import dcd_to_v1beta1
from renderer.releases import REFERENCE_RELEASE, Release
from renderer.results import Code, RenderError, ResourceRef, Result, Severity, describe_kind, go_quote

RUNTIME_SOURCE = consts.V1ALPHA1


def admit_spec(
    obj: dict[str, Any], ref: ResourceRef, release: Release = REFERENCE_RELEASE
) -> tuple[dict[str, Any] | None, list[Result]]:
    """The admitted (pruned, defaulted) v1alpha1 spec, or None with the schema errors.

    The schema is the CRD of the selected operator ``release`` (renderer.admission.v1alpha1.schema).
    """
    raw = obj.get("spec")
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        return None, [Result(f"expected object, got {describe_kind(raw)}", field="spec", resource=ref, code=Code.SCHEMA)]
    spec, problems = schema.admit(str(obj.get("kind")), raw, release)
    results = [r.with_resource(ref) for r in problems]
    if any(r.is_error for r in results):
        return None, results
    assert isinstance(spec, dict)
    return spec, results


def repeated_envs(spec: dict[str, Any], path: str = "spec") -> list[Result]:
    """A warning on each ``envs`` entry whose name a later entry repeats.

    The v1alpha1 CRDs declare ``envs`` (and ``frontendSidecar.envs``) plain arrays, not lists
    keyed by name, so the API server admits a repeated name; the operator's env merges keep the
    last value. The entries it drops are reported, since a reviewer reads the first one.
    Mirrors: api/v1alpha1 (Envs has no listType marker), internal/dynamo/graph.go MergeEnvs.
    """
    out: list[Result] = []
    for field in ("envs", "frontendSidecar.envs"):
        node: Any = spec
        for key in field.split("."):
            node = node.get(key) if isinstance(node, dict) else None
        if not isinstance(node, list):
            continue
        last: dict[str, int] = {}
        for i, env in enumerate(node):
            if isinstance(env, dict) and isinstance(env.get("name"), str):
                last[env["name"]] = i
        for i, env in enumerate(node):
            name = env.get("name") if isinstance(env, dict) else None
            if isinstance(name, str) and last[name] != i:
                out.append(
                    Result(
                        f"env {go_quote(name)} is repeated at {path}.{field}[{last[name]}]: the v1alpha1 schema admits "
                        "repeated names and the operator keeps the last value",
                        severity=Severity.WARNING,
                        field=f"{path}.{field}[{i}]",
                        code=Code.IGNORED,
                    )
                )
    return out


def convert(convert: Callable[[dict[str, Any]], dict[str, Any]], obj: dict[str, Any], ref: ResourceRef) -> tuple[dict[str, Any] | None, list[Result]]:
    try:
        return convert(obj), []
    except RenderError as err:
        return None, [err.to_result(ref, stage=Code.CONVERSION)]


def mapped(results: list[Result], mapper: Callable[[str], str]) -> list[Result]:
    return [replace(r, field=mapper(r.field)) if r.field else r for r in results]


def parse_alpha_dcd(
    obj: dict[str, Any], default_namespace: str, checkpoint_gate: bool, release: Release = REFERENCE_RELEASE
) -> tuple[DCD | None, list[Result]]:
    """Admit, convert and parse a v1alpha1 DCD; the DCD returned is its stored v1beta1 form."""
    ref = ResourceRef.of(obj)
    spec, results = admit_spec(obj, ref, release)
    if spec is None:
        return None, results
    converted, problems = convert(partial(dcd_to_v1beta1, roles=release.ships(EXPLICIT_ROLES)), {**obj, "spec": spec}, ref)
    results += problems
    if converted is None:
        return None, results
    given = obj.get("metadata")
    metadata: dict[str, Any] = given if isinstance(given, dict) else {}  # not an object: the v1beta1 parse says so
    namespace = metadata.get("namespace") or default_namespace
    results += [r.with_resource(ref) for r in webhook.validate_dcd(spec, str(namespace))]
    results += [r.with_resource(ref) for r in repeated_envs(spec)]
    dcd, beta_results = parse_dcd(converted, default_namespace, checkpoint_gate, runtime_source=RUNTIME_SOURCE, release=release)
    converted_spec = converted.get("spec") or {}
    results += mapped(beta_results, lambda p: paths.dcd_path(p, converted_spec, spec))
    if any(r.is_error for r in results) or dcd is None:
        return None, results
    return replace(dcd, written_spec=spec), results
