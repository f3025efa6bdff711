"""A v1alpha1 DGD through the API server: schema, conversion, webhooks, then the DGD admission.

The steps are those of renderer/admission/v1alpha1/admit.py (which holds the DCD side); the DGD
side lives here because it ends in the v1beta1 DGD admission of renderer/graph/dgd.py.

Mirrors: internal/webhook/validation/dynamographdeployment_handler.go (the v1alpha1 request
path), api/v1alpha1/dynamographdeployment_conversion.go ConvertTo.
"""

from __future__ import annotations

from functools import partial

from renderer.records import replace
from typing import Any

from renderer.admission.roles import EXPLICIT_ROLES
from renderer.admission.v1alpha1 import admit, paths, webhook
from renderer.conversion.to_v1beta1 import dgd_to_v1beta1
from renderer.config import RenderConfig
from renderer.graph.dgd import DGD
from renderer.graph.dgd_parse import parse_dgd
from renderer.results import ResourceRef, Result


def parse_alpha_dgd(obj: dict[str, Any], default_namespace: str, config: RenderConfig) -> tuple[DGD | None, list[Result]]:
    """Admit, convert and parse a v1alpha1 DGD; the DGD returned is its stored v1beta1 form."""
    ref = ResourceRef.of(obj)
    spec, results = admit.admit_spec(obj, ref, config.release)
    if spec is None:
        return None, results
    converted, problems = admit.convert(partial(dgd_to_v1beta1, roles=config.release.ships(EXPLICIT_ROLES)), {**obj, "spec": spec}, ref)
    results += problems
    if converted is None:
        return None, results
    given = obj.get("metadata")
    metadata: dict[str, Any] = given if isinstance(given, dict) else {}  # not an object: the v1beta1 parse says so
    namespace = str(metadata.get("namespace") or default_namespace)
    results += [r.with_resource(ref) for r in webhook.validate_dgd(spec, str(metadata.get("name") or ""), namespace)]
    repeated = admit.repeated_envs(spec)
    for service_name, service in sorted((spec.get("services") or {}).items()):
        if isinstance(service, dict):
            repeated += admit.repeated_envs(service, f"spec.services[{service_name}]")
    results += [r.with_resource(ref) for r in repeated]
    dgd, beta_results = parse_dgd(converted, default_namespace, config, runtime_source=admit.RUNTIME_SOURCE)
    converted_spec = converted.get("spec") or {}
    results += admit.mapped(beta_results, lambda p: paths.dgd_path(p, converted_spec, spec))
    if dgd is None or any(r.is_error for r in results):
        return None, results
    return replace(dgd, written_spec=spec), results
