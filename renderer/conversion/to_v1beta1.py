"""v1alpha1 DynamoComponentDeployment / DynamoGraphDeployment -> v1beta1, as the webhook converts.

``dcd_to_v1beta1`` and ``dgd_to_v1beta1`` take a v1alpha1 object that passed v1alpha1 admission
(a JSON-like dict, never modified) and return the v1beta1 object the API server keeps after
calling the operator's conversion webhook:

* ``spec`` and ``status`` in Go JSON shape: what encoding/json writes for the typed v1beta1
  struct (omitempty fields absent, a Go nil that no tag drops as ``None``, quantities
  canonical, map keys sorted), then the v1beta1 objects' normalising MarshalJSON (a ``{}``
  of a non-pointer struct dropped);
* ``metadata`` is the input's, with the labels and annotations of the converted object (the
  API server keeps nothing else of a webhook's metadata): the preservation annotations read
  on input are consumed, the ones the conversion writes are added
  (``renderer.conversion.preservation``).

A failure is a ``RenderError`` whose field is a v1alpha1 path.

Mirrors: api/v1alpha1/dynamocomponentdeployment_conversion.go ConvertTo,
dynamographdeployment_conversion.go ConvertTo (and the spec/status helpers they call);
apiextensions-apiserver conversion/webhook_converter.go restoreObjectMeta
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from renderer.conversion import preservation as pres
from renderer.conversion import typed
from renderer.conversion.preserved_text import check_spec_annotation
from renderer.conversion.shared_to import alpha_save_is_zero, shared_to_hub
from renderer.gocompat.merge import copy_json
from renderer.results import RenderError, go_quote

API_VERSION = "nvidia.com/v1beta1"
_ANNOTATIONS_TOTAL_LIMIT = 256 * 1024  # apimachinery TotalAnnotationSizeLimitB


# -- entry points ------------------------------------------------------------------------------


def dcd_to_v1beta1(obj: dict[str, Any], roles: bool = False) -> dict[str, Any]:
    """The v1beta1 DynamoComponentDeployment the API server stores for a v1alpha1 one.

    ``roles``: the operator release has explicit multinode roles (1.5.0 and later), which convert
    field for field (``_decoded_with_roles``).

    Mirrors: dynamocomponentdeployment_conversion.go DynamoComponentDeployment.ConvertTo
    """
    meta, annotations, spec, status = _dcd_converted(obj, roles)
    return _object(obj, meta, annotations, "DynamoComponentDeployment", spec, status)


def dcd_conversion_annotations(obj: dict[str, Any]) -> dict[str, str]:
    """The annotations of ``dcd_to_v1beta1(obj)`` (sorted), without encoding its spec and status.

    Mirrors: dynamocomponentdeployment_conversion.go DynamoComponentDeployment.ConvertTo (the
    annotations it writes) and webhook_converter.go restoreObjectMeta (their size limit)
    """
    _, annotations, _, _ = _dcd_converted(obj)
    return _checked_annotations(annotations)


def _dcd_converted(obj: dict[str, Any], roles: bool = False) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any], dict[str, Any]]:
    """Metadata, annotations, hub spec and hub status of a v1alpha1 DCD's conversion (not yet encoded).

    Mirrors: dynamocomponentdeployment_conversion.go DynamoComponentDeployment.ConvertTo (its body,
    before the object is assembled)
    """
    meta, annotations, src_spec, src_status = _decode(obj, "DynamoComponentDeployment")
    src_spec = _decoded_with_roles(obj.get("spec"), src_spec) if roles else src_spec
    name = str(meta.get("name") or "")

    restored = _take_hub_spec(annotations, pres.ANN_DCD_SPEC, pres.restore_dcd_hub_spec, pres.DCD_ANNOTATIONS)
    hub_origin = restored is not None

    spoke_save: dict[str, Any] = {}
    spec = _dcd_spec_to_hub(src_spec, restored, spoke_save, name, include_origin_splits=not hub_origin)
    status_save = _dcd_status_save(src_status)
    empty_service_name = not src_spec.get("serviceName") and name != "" and spec.get("name") == name
    save_spec = (
        (not hub_origin and "podTemplate" in spec)
        or empty_service_name
        or not typed.is_zero(typed.shape_of(typed.ALPHA, "DynamoComponentDeploymentSpec"), spoke_save)
    )
    status = _dcd_status_to_hub(src_status)
    if save_spec:
        annotations[pres.ANN_DCD_SPEC] = pres.marshal_dcd_spoke_spec(spoke_save, empty_service_name)
    if status_save:
        annotations[pres.ANN_DCD_STATUS] = pres.marshal_status("DynamoComponentDeploymentStatus", status_save)
    return meta, annotations, spec, status


def dgd_to_v1beta1(obj: dict[str, Any], roles: bool = False) -> dict[str, Any]:
    """The v1beta1 DynamoGraphDeployment the API server stores for a v1alpha1 one.

    ``roles`` as for ``dcd_to_v1beta1``.

    Mirrors: dynamographdeployment_conversion.go DynamoGraphDeployment.ConvertTo
    """
    meta, annotations, src_spec, src_status = _decode(obj, "DynamoGraphDeployment")
    src_spec = _decoded_with_roles(obj.get("spec"), src_spec) if roles else src_spec

    restored = _take_hub_spec(annotations, pres.ANN_DGD_SPEC, pres.restore_dgd_hub_spec, pres.DGD_ANNOTATIONS)
    hub_origin = restored is not None

    spoke_save: dict[str, Any] = {}
    spec = _dgd_spec_to_hub(src_spec, restored, spoke_save, include_origin_splits=not hub_origin)
    status_save = _dgd_status_save(src_status)
    status = _dgd_status_to_hub(src_status)
    if not typed.is_zero(typed.shape_of(typed.ALPHA, "DynamoGraphDeploymentSpec"), spoke_save):
        annotations[pres.ANN_DGD_SPEC] = pres.marshal_dgd_spoke_spec(spoke_save)
    if status_save:
        annotations[pres.ANN_DGD_STATUS] = pres.marshal_status("DynamoGraphDeploymentStatus", status_save)
    return _object(obj, meta, annotations, "DynamoGraphDeployment", spec, status)


# -- object envelope ---------------------------------------------------------------------------


def _decode(obj: dict[str, Any], kind: str) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any], dict[str, Any]]:
    """Metadata, a copy of its annotations, and the v1alpha1 spec and status decoded as Go types."""
    meta = _metadata(obj)
    annotations = dict(meta.get("annotations") or {})
    src_spec = typed.decode(typed.ALPHA, f"{kind}Spec", obj.get("spec"), "spec")
    src_status = typed.decode(typed.ALPHA, f"{kind}Status", obj.get("status"), "status")
    return meta, annotations, src_spec, src_status


def _take_hub_spec(
    annotations: dict[str, Any],
    key: str,
    restore: Callable[[str], dict[str, Any] | None],
    conversion_annotations: Iterable[str],
) -> dict[str, Any] | None:
    """The hub spec an earlier ConvertFrom saved under ``key`` (None: none saved); the conversion
    annotations are removed from ``annotations``."""
    restored = None
    raw = annotations.get(key)
    if raw:
        check_spec_annotation(str(raw), key, typed.BETA)
        restored = restore(str(raw))
    for name in conversion_annotations:
        annotations.pop(name, None)
    return restored


def _metadata(obj: dict[str, Any]) -> dict[str, Any]:
    meta = obj.get("metadata")
    return meta if isinstance(meta, dict) else {}


def _decoded_with_roles(written: Any, decoded: dict[str, Any]) -> dict[str, Any]:
    """The decoded v1alpha1 spec with the explicit roles of the ``written`` one (a DCD's, or a DGD's services).

    The reference commit's v1alpha1 types have no ``roles``, so their decoder drops it; only a
    1.5.0 v1alpha1 schema admits it (renderer.admission.v1alpha1.schema).

    The converters call it only when asked (``roles=True``: the operator release has the field,
    renderer.admission.roles); otherwise the reference types drop ``roles`` as before.

    Ported from ai-dynamo/dynamo#14419 (v1.5.0): api/v1alpha1 DynamoComponentDeploymentSharedSpec Roles.
    """
    if not isinstance(written, dict):
        return decoded
    if isinstance(written.get("roles"), list):
        decoded = {**decoded, "roles": copy_json(written["roles"])}
    services = written.get("services")
    if isinstance(services, dict) and isinstance(decoded.get("services"), dict):
        merged = dict(decoded["services"])
        for name, service in services.items():
            if isinstance(service, dict) and isinstance(service.get("roles"), list) and isinstance(merged.get(name), dict):
                merged[name] = {**merged[name], "roles": copy_json(service["roles"])}
        decoded = {**decoded, "services": merged}
    return decoded


def _with_roles(spec: dict[str, Any], encoded: dict[str, Any]) -> dict[str, Any]:
    """``encoded`` with the explicit roles of ``spec`` (a DCD spec, or a DGD's components) put back.

    The reference commit's v1beta1 types have no ``roles``, so their encoder drops it; only a
    1.5.0 v1alpha1 schema admits the field (renderer.admission.v1alpha1.schema), so under the
    reference profile nothing changes. ``roles`` is already JSON-shaped (shared_to._roles).

    Ported from ai-dynamo/dynamo#14419 (v1.5.0): v1beta1 ComponentRoleSpec (name,
    providerOverride omitempty).
    """
    if "roles" in spec:
        encoded["roles"] = copy_json(spec["roles"])
    for given, written in zip(spec.get("components") or [], encoded.get("components") or []):
        if isinstance(given, dict) and isinstance(written, dict) and "roles" in given:
            written["roles"] = copy_json(given["roles"])
    return encoded


def _object(
    obj: dict[str, Any],
    meta: dict[str, Any],
    annotations: dict[str, Any],
    kind: str,
    spec: dict[str, Any],
    status: dict[str, Any],
) -> dict[str, Any]:
    """The converted object: Go-encoded spec and status, the input's metadata with new annotations.

    Mirrors: api/v1beta1/marshal.go MarshalJSON (normalizeV1Beta1JSON) and
    webhook_converter.go restoreObjectMeta (labels and annotations from the response, the
    rest from the original; annotations validated by ValidateAnnotations' size limit)
    """
    shape = typed.shape_of(typed.BETA, f"{kind}Spec")
    encoded_spec = typed.strip_value_struct_artefacts(shape, typed.encode(typed.BETA, f"{kind}Spec", spec, "spec"))
    status_shape = typed.shape_of(typed.BETA, f"{kind}Status")
    encoded_status = typed.strip_value_struct_artefacts(
        status_shape, typed.encode(typed.BETA, f"{kind}Status", status, "status")
    )
    encoded_spec = _with_roles(spec, encoded_spec)
    encoded_spec = _json_numbers(encoded_spec)
    encoded_status = _json_numbers(encoded_status)
    out_meta = copy_json(meta)
    out_meta.pop("annotations", None)
    if annotations:
        out_meta["annotations"] = _checked_annotations(annotations)
    out: dict[str, Any] = {"apiVersion": API_VERSION, "kind": obj.get("kind", kind), "metadata": out_meta}
    if encoded_spec:
        out["spec"] = encoded_spec
    if encoded_status:
        out["status"] = encoded_status
    return out


def _checked_annotations(annotations: dict[str, Any]) -> dict[str, Any]:
    """The converted object's annotations, sorted; RenderError past the API server's size limit.

    Mirrors: webhook_converter.go restoreObjectMeta (ValidateAnnotations' TotalAnnotationSizeLimitB)
    """
    size = sum(len(str(k).encode()) + len(str(v).encode()) for k, v in annotations.items())
    if size > _ANNOTATIONS_TOTAL_LIMIT:
        raise RenderError(
            f"metadata.annotation: Too long: may not be more than {_ANNOTATIONS_TOTAL_LIMIT} bytes",
            "metadata.annotations",
        )
    return {k: annotations[k] for k in sorted(annotations)}


def _json_numbers(value: Any) -> Any:
    """An integral float as the integer the API server reads back from Go's text (``50`` not ``50.0``).

    Mirrors: encoding/json float64 formatting (no exponent below 1e21) read back by
    apimachinery's JSON decoding into int64
    """
    if isinstance(value, dict):
        return {k: _json_numbers(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_json_numbers(v) for v in value]
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e21 and -(2**63) <= value < 2**63:
        return int(value)
    return value


# -- DCD ---------------------------------------------------------------------------------------


def _dcd_spec_to_hub(
    src: dict[str, Any],
    restored: dict[str, Any] | None,
    save: dict[str, Any],
    object_name: str,
    include_origin_splits: bool,
) -> dict[str, Any]:
    """Mirrors: dynamocomponentdeployment_conversion.go ConvertFromDynamoComponentDeploymentSpec"""
    shared = {k: v for k, v in src.items() if k != "backendFramework"}
    dst: dict[str, Any] = {}
    if src.get("backendFramework"):
        dst["backendFramework"] = src["backendFramework"]
    dst.update(
        shared_to_hub(
            shared,
            restored,
            save,
            include_origin_splits=include_origin_splits,
            pod_template_origin=restored is not None and "podTemplate" in restored,
        )
    )
    # v1beta1 requires spec.name: an empty v1alpha1 serviceName falls back to the object name
    if not dst.get("name"):
        dst["name"] = object_name
    if restored is not None and not restored.get("name") and dst.get("name") == object_name:
        dst.pop("name", None)
    return dst


def _component_names_to_hub(service: dict[str, Any]) -> list[str]:
    """Mirrors: dynamographdeployment_conversion.go componentNamesToHub"""
    names = list(service.get("componentNames") or [])
    if not names and service.get("componentName"):
        names = [service["componentName"]]
    return names


def _replica_status_to_hub(service: dict[str, Any]) -> dict[str, Any]:
    """Mirrors: dynamographdeployment_conversion.go ConvertFromServiceReplicaStatus"""
    out: dict[str, Any] = {
        "componentKind": service.get("componentKind", ""),
        "replicas": service.get("replicas", 0),
        "updatedReplicas": service.get("updatedReplicas", 0),
    }
    names = _component_names_to_hub(service)
    if names:
        out["componentNames"] = names
    for key in ("runtimeNamespace", "readyReplicas", "availableReplicas", "scheduledReplicas"):
        if key in service:
            out[key] = service[key]
    return out


def _service_name_save(service: dict[str, Any]) -> dict[str, Any]:
    """Mirrors: saveDGDAlphaOnlyStatus / saveDCDAlphaOnlyStatus (the saved ServiceReplicaStatus)"""
    out: dict[str, Any] = {"componentName": service.get("componentName", "")}
    if service.get("componentNames"):
        out["componentNames"] = list(service["componentNames"])
    return out


def _dcd_status_save(status: dict[str, Any]) -> dict[str, Any]:
    """Mirrors: dynamocomponentdeployment_conversion.go saveDCDAlphaOnlyStatus"""
    save: dict[str, Any] = {}
    if status.get("podSelector"):
        save["podSelector"] = dict(status["podSelector"])
    if pres.service_name_needs_preservation(status.get("service")):
        save["service"] = _service_name_save(status["service"])
    return save


def _conditions(status: dict[str, Any]) -> list[Any] | None:
    conditions = status.get("conditions")
    return copy_json(conditions) if conditions else None


def _dcd_status_to_hub(status: dict[str, Any]) -> dict[str, Any]:
    """Mirrors: dynamocomponentdeployment_conversion.go ConvertFromDynamoComponentDeploymentStatus"""
    out: dict[str, Any] = {}
    if status.get("observedGeneration"):
        out["observedGeneration"] = status["observedGeneration"]
    conditions = _conditions(status)
    if conditions is not None:
        out["conditions"] = conditions
    if "service" in status:
        out["component"] = _replica_status_to_hub(status["service"])
    return out


# -- DGD ---------------------------------------------------------------------------------------


def _copy_keys(src: dict[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    return {k: copy_json(src[k]) for k in keys if k in src}


def _dgd_spec_to_hub(
    src: dict[str, Any],
    restored: dict[str, Any] | None,
    save: dict[str, Any],
    include_origin_splits: bool,
) -> dict[str, Any]:
    """The v1beta1 DGD spec; ``save`` gets the top-level PVCs and the per-service saves.

    Mirrors: dynamographdeployment_conversion.go ConvertFromDynamoGraphDeploymentSpec
    """
    dst = _copy_keys(src, ("annotations", "labels", "priorityClassName", "backendFramework"))
    if "providerOverride" in src:
        dst["providerOverride"] = _copy_keys(src["providerOverride"], ("apiVersion", "target", "value"))
    if "restart" in src:
        restart = src["restart"]
        dst["restart"] = {"id": restart.get("id", "")}
        if "strategy" in restart:
            dst["restart"]["strategy"] = _copy_keys(restart["strategy"], ("type", "order"))
    if "topologyConstraint" in src:
        constraint = src["topologyConstraint"]
        dst["topologyConstraint"] = {"clusterTopologyName": constraint.get("topologyProfile", "")}
        if "packDomain" in constraint:
            dst["topologyConstraint"]["packDomain"] = constraint["packDomain"]
    if "experimental" in src:
        experimental = src["experimental"]
        dst["experimental"] = {}
        if "kvTransferPolicy" in experimental:
            dst["experimental"]["kvTransferPolicy"] = _copy_keys(
                experimental["kvTransferPolicy"],
                ("clusterTopologyName", "labelKey", "domain", "enforcement", "preferredWeight"),
            )
    if src.get("envs"):
        dst["env"] = copy_json(src["envs"])
    if src.get("pvcs"):
        save["pvcs"] = copy_json(src["pvcs"])

    services: dict[str, Any] = src.get("services") or {}
    restored_components = {c.get("name", ""): c for c in (restored or {}).get("components") or []}
    components = []
    for name in _service_names_in_emission_order(services, restored):
        service = services[name]
        restored_shared = restored_components.get(name)
        component_save: dict[str, Any] = {}
        path = f"spec.services.{name}"
        try:
            component = shared_to_hub(
                service,
                restored_shared,
                component_save,
                include_origin_splits=include_origin_splits,
                pod_template_origin=restored_shared is not None and "podTemplate" in restored_shared,
            )
        except RenderError as err:
            field = err.field if err.field.startswith(("spec.", "metadata.")) else path
            raise RenderError(f"component {go_quote(name)}: {err.message}", field, code=err.code, hint=err.hint) from None
        # the services-map key is the component name; a different serviceName is saved
        component["name"] = name
        if service.get("serviceName") and service["serviceName"] != name:
            component_save["serviceName"] = service["serviceName"]
        if not alpha_save_is_zero(component_save):
            save.setdefault("services", {})[name] = component_save
        components.append(component)
    if components:
        dst["components"] = components
    return dst


def _service_names_in_emission_order(services: dict[str, Any], restored: dict[str, Any] | None) -> list[str]:
    """Sorted names, unless the preserved v1beta1 list was in another order: then that order first.

    Mirrors: dynamographdeployment_conversion.go dgdServiceNamesInEmissionOrder,
    dgdComponentOrderNeedsPreservation
    """
    names = sorted(services)
    preserved = [c.get("name", "") for c in (restored or {}).get("components") or []]
    if not any(preserved[i - 1] > preserved[i] for i in range(1, len(preserved))):
        return names
    remaining = set(services)
    out = []
    for name in preserved:
        if name in remaining:
            remaining.discard(name)
            out.append(name)
    return out + sorted(remaining)


def _dgd_status_save(status: dict[str, Any]) -> dict[str, Any]:
    """Mirrors: dynamographdeployment_conversion.go saveDGDAlphaOnlyStatus"""
    saved = {
        name: _service_name_save(service)
        for name, service in (status.get("services") or {}).items()
        if pres.service_name_needs_preservation(service)
    }
    return {"services": saved} if saved else {}


def _dgd_status_to_hub(status: dict[str, Any]) -> dict[str, Any]:
    """Mirrors: dynamographdeployment_conversion.go ConvertFromDynamoGraphDeploymentStatus and
    the ConvertFromRestartStatus / ServiceCheckpointStatus / RollingUpdateStatus helpers
    """
    out: dict[str, Any] = {"state": status.get("state", "")}
    if status.get("observedGeneration"):
        out["observedGeneration"] = status["observedGeneration"]
    if "placement" in status:
        out["placement"] = _copy_keys(status["placement"], ("state", "score"))
    conditions = _conditions(status)
    if conditions is not None:
        out["conditions"] = conditions
    if status.get("services"):
        out["components"] = {k: _replica_status_to_hub(v) for k, v in status["services"].items()}
    if "restart" in status:
        out["restart"] = _copy_keys(status["restart"], ("observedID", "phase", "inProgress"))
    if status.get("checkpoints"):
        out["checkpoints"] = {
            k: _copy_keys(v, ("checkpointName", "checkpointID", "identityHash", "ready"))
            for k, v in status["checkpoints"].items()
        }
    if "rollingUpdate" in status:
        rolling = status["rollingUpdate"]
        out["rollingUpdate"] = _copy_keys(rolling, ("phase", "startTime", "endTime"))
        if rolling.get("updatedServices"):
            out["rollingUpdate"]["updatedComponents"] = list(rolling["updatedServices"])
    return out
