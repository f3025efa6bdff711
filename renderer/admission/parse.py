"""Parsing a v1beta1 DCD document: schema, structural defaults, defaulting webhook, admission.

``parse_dcd`` takes one plain document and returns a validated, defaulted ``DCD`` (see
``renderer.admission.api``) or the problems, each a Result with a field path. Pydantic errors
are reworded here in the API server's terms.

Mirrors: internal/webhook/defaulting/dynamocomponentdeployment_handler.go (the component name
default), the API server's metadata rules.
"""

from __future__ import annotations

from renderer.records import dataclass
from typing import Any, TypeVar

from renderer.model import ValidationError

from renderer import consts, hints
from renderer.gocompat import gotypes
from renderer.admission import objectmeta, podrules, podtemplate_schema
from renderer.admission.api import DCD, DynamoComponentDeploymentSpec, StrictModel
from renderer.admission.objectmeta import DNS1123_SUBDOMAIN
from renderer.admission.later import later_spec_fields
from renderer.admission.webhook import validate_admission
from renderer.conversion.alpha_view import AlphaView, dcd_view
from renderer.releases import REFERENCE_RELEASE, Release
from renderer.results import Code, RenderError, ResourceRef, Result, Severity, describe_kind, field_path, unknown_field_message

ModelT = TypeVar("ModelT", bound=StrictModel)


def parse_dcd(
    obj: dict[str, Any],
    default_namespace: str,
    checkpoint_gate: bool = False,
    admission: bool = True,
    runtime_source: str = consts.V1BETA1,
    list_maps: bool | None = None,
    known_alpha: AlphaView | None = None,
    admitted_pod_template: dict[str, Any] | None = None,
    release: Release = REFERENCE_RELEASE,
) -> tuple[DCD | None, list[Result]]:
    """Validate and default one DCD document; every problem becomes a Result.

    Returns ``(None, results)`` when any error-severity problem was found; warnings (ignored
    fields) come back alongside a usable DCD. A v1alpha1 DCD goes
    through renderer/admission/v1alpha1/admit.py parse_alpha_dcd, which converts it and calls this; ``runtime_source`` is
    the API version the user wrote, which decides the form of the runtime-version rule.
    ``list_maps`` (default: a v1beta1 source) checks the podTemplate's list-map keys; a DCD a
    DGD generates has them checked with the whole v1beta1 CRD (renderer/admission/dcd_crd.py).
    ``known_alpha`` is the object's v1alpha1 view when the caller already knows it (a DCD generated
    from a DGD without preserved data); ``admitted_pod_template`` is what ``admit_pod_template``
    gives for its ``spec.podTemplate`` when the caller already knows that and that it has no
    problems (the worker DCDs of a DGD, admitted in the worker-hash pass).
    """
    ref = ResourceRef.of(obj)
    results: list[Result] = []

    head = parse_head(obj, ref, default_namespace, DynamoComponentDeploymentSpec, runtime_source, results, release)
    if head is None:
        return None, results
    metadata, spec, _ = head

    # Defaulting webhook (CREATE): the stable component name falls back to metadata.name.
    if not spec.name:
        spec = spec.model_copy(update={"name": metadata.name})

    pod_template: dict[str, Any] | None = None
    if spec.pod_template is not None and admitted_pod_template is not None:
        pod_template = admitted_pod_template
    elif spec.pod_template is not None:
        pod_template, problems = admit_pod_template(
            spec.pod_template, "spec.podTemplate", runtime_source == consts.V1BETA1 if list_maps is None else list_maps
        )
        results.extend(p.with_resource(ref) for p in problems)

    try:
        alpha = known_alpha if known_alpha is not None else dcd_view(obj)
    except RenderError as err:
        return None, [*results, err.to_result(ref, stage=Code.CONVERSION)]
    dcd = DCD(
        name=metadata.name,
        namespace=metadata.namespace,
        labels=metadata.labels,
        annotations=metadata.annotations,
        owner_dgd=metadata.owner_dgd,
        spec=spec,
        pod_template=pod_template,
        source=obj,
        alpha=alpha,
    )
    # DCDs generated from a DGD were already admitted as DGD components.
    if admission:
        results.extend(r.with_resource(ref) for r in validate_admission(dcd, checkpoint_gate, runtime_source, release))
    if any(r.is_error for r in results):
        return None, results
    return dcd, results


@dataclass(frozen=True)
class ObjectMetadata:
    name: str
    namespace: str
    labels: dict[str, str]
    annotations: dict[str, str]
    owner_dgd: str


def parse_head(
    obj: dict[str, Any],
    ref: ResourceRef,
    default_namespace: str,
    model: type[ModelT],
    runtime_source: str,
    results: list[Result],
    release: Release = REFERENCE_RELEASE,
    components_key: str | None = None,
) -> tuple[ObjectMetadata, ModelT, dict[str, Any]] | None:
    """Metadata, the spec validated against ``model``, and the raw spec of a DCD or DGD document.

    None when either has an error (every problem is in ``results``). A spec converted from
    v1alpha1 (``runtime_source``) was checked by its own schema first. A component field or
    ``type`` value a later release added is refused naming that release instead of as an
    unknown field or value (renderer.admission.later); ``components_key`` names the list of
    components of a DGD spec (None: the spec is one component, a DCD's).
    """
    metadata, meta_results = parse_metadata(obj, default_namespace)
    results.extend(r.with_resource(ref) for r in meta_results)
    raw_spec = spec_object(obj, ref, results)
    if raw_spec is None:
        return None
    if metadata is not None:
        results.extend(r.with_resource(ref) for r in preservation_text_problems(metadata.annotations))
        if any(r.is_error for r in results):
            return None
    spec_results: list[Result] = []
    spec = validate_model(model, raw_spec, "spec", spec_results, runtime_source != consts.V1BETA1)
    if runtime_source == consts.V1BETA1:
        later = later_spec_fields(raw_spec, components_key, release)
        named = {r.field for r in later}
        spec_results = later + [r for r in spec_results if r.field not in named]
        if later:
            spec = None
    results.extend(r.with_resource(ref) for r in spec_results)
    if spec is None or metadata is None:
        return None
    return metadata, spec, raw_spec


def preservation_text_problems(annotations: dict[str, str]) -> list[Result]:
    """The preservation annotations of a v1beta1 object that the conversion cannot decode (as v1alpha1).

    They are checked before any reader of the annotations runs (renderer/conversion/preserved_text.py).
    """
    keys = [k for k in (consts.ANNOTATION_DCD_SPEC, consts.ANNOTATION_DGD_SPEC, consts.ANNOTATION_DCD_STATUS,
                        consts.ANNOTATION_DGD_STATUS) if annotations.get(k)]
    if not keys:
        return []
    from renderer.conversion.preserved_text import check_spec_annotation, check_status_annotation

    problems: list[Result] = []
    for key in keys:
        try:
            if key.endswith("-spec"):
                check_spec_annotation(annotations[key], key, "v1alpha1")
            else:
                check_status_annotation(annotations[key], key)
        except RenderError as err:
            problems.append(err.to_result(None))
    return problems


def spec_object(obj: dict[str, Any], ref: ResourceRef, results: list[Result]) -> dict[str, Any] | None:
    """The object's ``spec`` mapping (absent: empty); None, with a Result, when it is not a mapping."""
    raw_spec = obj.get("spec")
    if raw_spec is None:
        return {}
    if not isinstance(raw_spec, dict):
        results.append(Result(f"expected object, got {describe_kind(raw_spec)}", field="spec", resource=ref, code=Code.SCHEMA))
        return None
    return raw_spec


def admit_pod_template(
    pod_template: dict[str, Any], path: str, list_maps: bool = True
) -> tuple[dict[str, Any] | None, list[Result]]:
    """An embedded pod template as the operator decodes it, and the problems on the way.

    The API server defaults and validates the pod template against the CRD's structural schema
    and its own pod rules; then the operator's typed Go decode normalises it. A template
    converted from v1alpha1 (``list_maps`` False) was validated against the v1alpha1 schema,
    which declares some of its sources plain arrays (``envs``, ``volumeMounts``,
    ``resources.claims``): the API server admits repeated keys there, so the v1beta1 list-map
    uniqueness is not checked on the converted template.
    """
    defaulted = podtemplate_schema.apply_defaults(pod_template)
    results = podtemplate_schema.validate(defaulted, path, list_maps)
    results.extend(podrules.validate(defaulted, path))
    normalized, problems = gotypes.normalize("PodTemplateSpec", defaulted, path)
    results.extend(strict_unknown_fields(problems))
    return (normalized if isinstance(normalized, dict) else None), results


def strict_unknown_fields(results: list[Result]) -> list[Result]:
    """Unknown fields of an embedded Kubernetes type as errors, as strict field validation refuses them.

    The typed decode drops them (a warning there); the policy is to refuse them everywhere
    (renderer.results.unknown_field_message).
    """
    from renderer.records import replace

    out: list[Result] = []
    for r in results:
        if r.code is Code.UNKNOWN_FIELD and r.severity is Severity.WARNING:
            # the typed decode names the field as its message's one quoted word
            name = r.message.split('"')[1] if r.message.count('"') >= 2 else r.field.rsplit(".", 1)[-1]
            r = replace(r, severity=Severity.ERROR, message=unknown_field_message(name))
        out.append(r)
    return out


def parse_metadata(obj: dict[str, Any], default_namespace: str) -> tuple[ObjectMetadata | None, list[Result]]:
    """Name, namespace (defaulted), labels, annotations and the owner DGD of an object."""
    results: list[Result] = []
    meta = obj.get("metadata")
    if not isinstance(meta, dict):
        return None, [Result("required field missing", field="metadata", code=Code.SCHEMA)]
    name = meta.get("name")
    if not isinstance(name, str) or not name:
        results.append(Result("required field missing", field="metadata.name", code=Code.SCHEMA))
    elif len(name) > 253 or not DNS1123_SUBDOMAIN.fullmatch(name):
        results.append(
            Result(
                f'invalid name "{name}": must be a lowercase RFC 1123 subdomain (lowercase alphanumerics, "-" and ".")',
                field="metadata.name",
                code=Code.API_SERVER,
                hint=hints.placeholder(name) or hints.dns_name(name, 253, subdomain=True),
            )
        )
    namespace = meta.get("namespace")
    if namespace is None or namespace == "":
        namespace = default_namespace
    elif not isinstance(namespace, str):
        results.append(Result(f"expected string, got {describe_kind(namespace)}", field="metadata.namespace", code=Code.SCHEMA))
    if isinstance(namespace, str):
        results.extend(objectmeta.validate_namespace(namespace))
    labels = _string_map(meta.get("labels"), "metadata.labels", results)
    annotations = _string_map(meta.get("annotations"), "metadata.annotations", results)
    # The API server's metadata rules: these are copied onto every rendered object.
    results.extend(objectmeta.validate_labels(labels))
    results.extend(objectmeta.validate_annotations(annotations))
    owner = ""
    owners = meta.get("ownerReferences")
    if isinstance(owners, list):
        for ref in owners:
            if isinstance(ref, dict) and ref.get("kind") == consts.DGD_KIND and isinstance(ref.get("name"), str):
                owner = ref["name"]
                break
    if results:
        return None, results
    assert isinstance(name, str) and isinstance(namespace, str)
    return ObjectMetadata(name, namespace, labels, annotations, owner), results


def _string_map(value: Any, path: str, results: list[Result]) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        results.append(Result(f"expected object, got {describe_kind(value)}", field=path, code=Code.SCHEMA))
        return {}
    out: dict[str, str] = {}
    for key, item in value.items():
        if not isinstance(item, str):
            results.append(Result(f"expected string, got {describe_kind(item)}", field=f"{path}[{key}]", code=Code.SCHEMA))
            continue
        out[str(key)] = item
    return out


def validate_model(
    model: type[ModelT], data: dict[str, Any], prefix: str, results: list[Result], converted: bool = False
) -> ModelT | None:
    """Validate ``data`` against a strict model, turning every validation error into a Result."""
    try:
        return model.model_validate(data, context={"converted": converted})
    except ValidationError as err:
        for error in err.errors(include_url=False):
            unknown = error["type"] == "extra_forbidden"
            code = Code.UNKNOWN_FIELD if unknown else Code.SCHEMA
            hint = hints.did_you_mean(str(error["loc"][-1]), _fields_at(model, tuple(error["loc"][:-1]))) if unknown else ""
            results.append(Result(validation_message(error), field=field_path(prefix, tuple(error["loc"])), code=code, hint=hint))
        return None


def _fields_at(model: type[Any], loc: tuple[Any, ...]) -> list[str]:
    """The JSON names of the fields a model accepts at ``loc`` (list indexes and map keys skipped), for a "did you mean"."""
    import typing

    from renderer.model import BaseModel, field_type

    current: Any = model
    for step in loc:
        if not (isinstance(current, type) and issubclass(current, BaseModel)):
            return []
        if isinstance(step, int):
            continue
        found = next((n for n, f in current.model_fields.items() if step in (n, f.alias)), None)
        if found is None:
            # a map key (a component or service name): the map's value type is already current's
            continue
        current = field_type(current, found)
        # Optional[X], list[X], dict[str, X]: the model inside
        for _ in range(4):
            args = [a for a in typing.get_args(current) if a is not type(None)]
            if not args or (isinstance(current, type) and issubclass(current, BaseModel)):
                break
            current = args[-1]
    if isinstance(current, type) and issubclass(current, BaseModel):
        return [f.alias or n for n, f in current.model_fields.items()]
    return []


def validation_message(error: Any) -> str:
    """Kubernetes-flavoured, lower-case wording for a validation error (renderer.model)."""
    kind = error["type"]
    value = error.get("input")
    ctx = error.get("ctx") or {}
    if kind == "extra_forbidden":
        loc = error["loc"]
        return unknown_field_message(str(loc[-1]))
    if kind == "missing":
        return "required field missing"
    if kind == "literal_error":
        return f"unsupported value {_show(value)} (valid: {ctx.get('expected', '')})".replace("'", "")
    if kind in {"greater_than_equal", "greater_than"}:
        return f"must be >= {ctx.get('ge', ctx.get('gt'))} (got {_show(value)})"
    if kind in {"less_than_equal", "less_than"}:
        return f"must be <= {ctx.get('le', ctx.get('lt'))} (got {_show(value)})"
    if kind == "string_pattern_mismatch":
        return f"must match {ctx.get('pattern')} (got {_show(value)})"
    if kind == "string_too_short":
        if ctx.get("min_length") == 1:
            return "must not be empty"
        return f"must be at least {ctx.get('min_length')} characters"
    if kind == "string_too_long":
        return f"must be at most {ctx.get('max_length')} characters"
    expected = {
        "int_type": "integer",
        "int_parsing": "integer",
        "int_from_float": "integer",
        "string_type": "string",
        "bool_type": "boolean",
        "bool_parsing": "boolean",
        "dict_type": "object",
        "model_type": "object",
        "model_attributes_type": "object",
        "list_type": "array",
    }.get(kind)
    if expected is not None:
        return f"expected {expected}, got {describe_kind(value)}"
    return str(error.get("msg", kind)).lower()


def _show(value: Any) -> str:
    if isinstance(value, str):
        return f'"{value}"'
    return repr(value)
