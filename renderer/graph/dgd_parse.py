"""Parsing a v1beta1 DGD document: schema, defaulting webhook, routing, admission.

``parse_dgd`` returns an admitted ``DGD`` (see ``renderer.graph.dgd``) whose provider
annotation says which pathway renders it (the component pathway or Grove), or the problems.

Mirrors: internal/webhook/defaulting/dynamographdeployment_handler.go,
internal/controller/dgd_workload_provider.go.
"""

from __future__ import annotations

from typing import Any

from renderer import consts
from renderer.gocompat import gotypes
from renderer.admission.parse import admit_pod_template, parse_head, strict_unknown_fields
from renderer.config import RenderConfig
from renderer.graph.dgd import (
    DGD,
    ENABLE_GROVE_ANNOTATION,
    PROVIDER_COMPONENT,
    PROVIDER_GROVE,
    WORKLOAD_PROVIDER_ANNOTATION,
    Component,
    DynamoGraphDeploymentSpec,
)
from renderer.graph.dgd_webhook import validate_dgd
from renderer.results import Code, ResourceRef, Result, Severity


def workload_provider(annotations: dict[str, str], grove_enabled: bool) -> str:
    """The provider the defaulting webhook stamps on CREATE, from routing intent only.

    Grove when the Grove gate is on and the DGD does not opt out with
    ``nvidia.com/enable-grove: "false"`` (compared lower-cased); the component pathway
    otherwise. A ``nvidia.com/workload-provider`` annotation written in Git is ignored on
    CREATE and overwritten (only an already stored value is authoritative, on UPDATE).

    Mirrors: internal/webhook/defaulting/dynamographdeployment_handler.go defaultWorkloadProvider
    (CREATE) and internal/controller/dgd_workload_provider.go ensureWorkloadProvider (step 3)
    """
    if grove_enabled and annotations.get(ENABLE_GROVE_ANNOTATION, "").lower() != consts.LABEL_VALUE_FALSE:
        return PROVIDER_GROVE
    return PROVIDER_COMPONENT


def parse_dgd(
    obj: dict[str, Any], default_namespace: str, config: RenderConfig, runtime_source: str = consts.V1BETA1
) -> tuple[DGD | None, list[Result]]:
    """Validate and default one DGD document; the provider annotation says which pathway renders it.

    ``obj`` is a v1beta1 DGD: a v1alpha1 one goes through renderer/graph/v1alpha1_dgd.py
    parse_alpha_dgd, which converts it and calls this; ``runtime_source`` is the API version
    the user wrote (the runtime-version rule's form).
    """
    ref = ResourceRef.of(obj)
    results: list[Result] = []
    head = parse_head(obj, ref, default_namespace, DynamoGraphDeploymentSpec, runtime_source, results, config.release, "components")
    if head is None:
        return None, results
    metadata, spec, raw_spec = head

    # Routing: the component pathway or Grove (renderer.graph.grove).
    provider = workload_provider(metadata.annotations, config.grove_enabled)
    written = metadata.annotations.get(WORKLOAD_PROVIDER_ANNOTATION)
    if written is not None and written != provider:
        results.append(
            Result(
                f'ignored on create: the defaulting webhook replaces "{written}" with "{provider}", derived from '
                f"the Grove gate and annotation {ENABLE_GROVE_ANNOTATION}",
                severity=Severity.WARNING,
                field=f"metadata.annotations[{WORKLOAD_PROVIDER_ANNOTATION}]",
                resource=ref,
                code=Code.IGNORED,
            )
        )
    # Defaulting webhook (CREATE): provider and origin-version annotations, replicas 1.
    annotations = dict(metadata.annotations)
    annotations[WORKLOAD_PROVIDER_ANNOTATION] = provider
    annotations.setdefault(consts.ANNOTATION_OPERATOR_ORIGIN_VERSION, config.operator_version)

    raw_components = raw_spec.get("components") or []
    components: list[Component] = []
    for index, component in enumerate(spec.components or []):
        path = f"spec.components[{index}]"
        if component.replicas is None:
            component = component.model_copy(update={"replicas": 1})
        pod_template: dict[str, Any] | None = None
        clean: dict[str, Any] | None = None
        if component.pod_template is not None:
            admitted, problems = admit_pod_template(component.pod_template, f"{path}.podTemplate", runtime_source == consts.V1BETA1)
            results.extend(p.with_resource(ref) for p in problems)
            if admitted is not None:
                pod_template = gotypes.drop_nulls(admitted)
                clean = admitted if not problems else None
        components.append(Component(index, component, pod_template, raw_components[index], clean))

    env: list[dict[str, Any]] = []
    for index, item in enumerate(spec.env or []):
        normalized, problems = gotypes.normalize("EnvVar", item, f"spec.env[{index}]")
        results.extend(p.with_resource(ref) for p in strict_unknown_fields(problems))
        if isinstance(normalized, dict):
            env.append(gotypes.drop_nulls(normalized))

    dgd = DGD(metadata.name, metadata.namespace, metadata.labels, annotations, spec, tuple(components), env, obj)
    results.extend(r.with_resource(ref) for r in validate_dgd(dgd, config, runtime_source, provider))
    if any(r.is_error for r in results):
        return None, results
    return dgd, results
