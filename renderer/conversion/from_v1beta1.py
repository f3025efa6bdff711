"""v1beta1 (hub) DCD and DGD objects -> v1alpha1 (spoke), as the operator's conversion webhook serves them.

Input and output are whole object dicts as the API server stores them. The spoke preservation
annotations written by the forward conversion (``nvidia.com/dcd-spec``, ``nvidia.com/dgd-spec``
and the ``-status`` ones) are read and removed; what v1alpha1 cannot express is saved sparsely
in the same annotation, in the envelope ``{"version":1,"spec":...}`` the forward direction reads.

Mirrors: api/v1alpha1/dynamocomponentdeployment_conversion.go and
api/v1alpha1/dynamographdeployment_conversion.go (the ConvertFrom halves) and
api/v1alpha1/preservation.go
"""

from __future__ import annotations

import copy
import json
from typing import Any

from renderer.conversion import preservation as pres
from renderer.conversion import shared_from, typed
from renderer.conversion.preserved_text import check_spec_annotation, check_status_annotation
from renderer.conversion.shared_from import Obj, hub_save_is_zero, is_empty, prune
from renderer.gocompat.gojson import go_json
from renderer.results import RenderError

ALPHA = "nvidia.com/v1alpha1"
ANN_DCD_SPEC = pres.ANN_DCD_SPEC
ANN_DCD_STATUS = pres.ANN_DCD_STATUS
ANN_DGD_SPEC = pres.ANN_DGD_SPEC
ANN_DGD_STATUS = pres.ANN_DGD_STATUS
_EMPTY_SERVICE_NAME_PATH = pres.EMPTY_SERVICE_NAME_PATH


# ---------------------------------------------------------------------------
# Preservation envelope
# ---------------------------------------------------------------------------


def restore_preserved(raw: str) -> tuple[Obj | None, list[Obj]]:
    """The spec inside a preservation annotation and its raw-JSON records (None when unreadable).

    Mirrors: api/v1alpha1/preservation.go restorePreservedSpec
    """
    try:
        data = json.loads(raw)
    except ValueError:
        return None, []
    if not isinstance(data, dict):
        return None, []
    if "spec" not in data:
        return data, []
    spec = data.get("spec")
    records = data.get("rawJSON") or []
    if not isinstance(spec, dict) or not isinstance(records, list):
        return ({} if spec is None else None), []
    _restore_epp_parameters(spec, records)
    return spec, [r for r in records if isinstance(r, dict)]


def _restore_epp_parameters(spec: Obj, records: list[Any]) -> None:
    """Plugin parameters the forward conversion recorded as null are null again.

    Mirrors: api/v1alpha1/preservation.go restoreEPPPluginParameters
    """
    nil_paths = {r.get("path") for r in records if isinstance(r, dict) and r.get("nil")}
    if not nil_paths:
        return

    def walk(config: Any, prefix: str) -> None:
        if not isinstance(config, dict):
            return
        for i, plugin in enumerate(config.get("plugins") or []):
            if isinstance(plugin, dict) and f"{prefix}/plugins/{i}/parameters" in nil_paths:
                plugin.pop("parameters", None)

    walk((spec.get("eppConfig") or {}).get("config"), "eppConfig/config")
    for name, svc in (spec.get("services") or {}).items():
        if isinstance(svc, dict):
            walk((svc.get("eppConfig") or {}).get("config"), f"services/{name}/eppConfig/config")


def marshal_preserved(spec: Obj, records: list[Obj] | None = None) -> str:
    """The envelope JSON the operator stores in a preservation annotation.

    Mirrors: api/v1alpha1/preservation.go marshalPreservedSpec
    """
    envelope: Obj = {"version": 1, "spec": spec}
    if records:
        envelope["rawJSON"] = records
    return go_json(envelope)


def _annotations(obj: Obj) -> dict[str, str]:
    return dict((obj.get("metadata") or {}).get("annotations") or {})


def _set_annotations(meta: Obj, annotations: dict[str, str]) -> None:
    if annotations:
        meta["annotations"] = annotations
    else:
        meta.pop("annotations", None)


def _json_annotation(annotations: dict[str, str], key: str, field: str) -> Obj | None:
    """Mirrors: api/v1alpha1/shared_spec_conversion.go getJSONAnnFromObj"""
    raw = annotations.get(key, "")
    if not raw:
        return None
    check_status_annotation(raw, key)
    try:
        value = json.loads(raw)
    except ValueError as exc:
        raise RenderError(f"unmarshal {key} annotation: {exc}", field) from None
    if value is None:
        return None  # json.Unmarshal of null leaves the zero status
    if not isinstance(value, dict):
        raise RenderError(f"unmarshal {key} annotation: not an object", field)
    return value


# ---------------------------------------------------------------------------
# Status
# ---------------------------------------------------------------------------


def replica_status_from_hub(src: Obj) -> Obj:
    """Mirrors: api/v1alpha1/dynamographdeployment_conversion.go ConvertToServiceReplicaStatus"""
    out: Obj = {}
    for key in ("componentKind", "componentNames", "runtimeNamespace", "replicas", "updatedReplicas",
                "readyReplicas", "availableReplicas", "scheduledReplicas"):
        if key in src and src[key] is not None:
            out[key] = copy.deepcopy(src[key])
    names = src.get("componentNames") or []
    if names:
        out["componentName"] = names[-1]
    return out


def _component_names_to_hub(saved: Obj) -> list[str]:
    """Mirrors: api/v1alpha1/dynamographdeployment_conversion.go componentNamesToHub"""
    names = list(saved.get("componentNames") or [])
    if not names and saved.get("componentName"):
        names = [saved["componentName"]]
    return names


def _restore_replica_status(dst: Obj, saved: Obj | None) -> None:
    """Mirrors: api/v1alpha1/dynamographdeployment_conversion.go shouldRestoreSavedServiceReplicaStatus"""
    if saved is None or not pres.service_name_needs_preservation(saved):
        return
    names = list(dst.get("componentNames") or [])
    ok = names == _component_names_to_hub(saved) or (
        bool(saved.get("componentName")) and not saved.get("componentNames") and not names
    )
    if ok:
        if saved.get("componentName"):
            dst["componentName"] = saved["componentName"]
        else:
            dst.pop("componentName", None)
        if saved.get("componentNames"):
            dst["componentNames"] = list(saved["componentNames"])
        else:
            dst.pop("componentNames", None)


def dcd_status_from_hub(src: Obj) -> Obj:
    """Mirrors: api/v1alpha1/dynamocomponentdeployment_conversion.go ConvertToDynamoComponentDeploymentStatus"""
    out: Obj = {}
    if src.get("observedGeneration"):
        out["observedGeneration"] = src["observedGeneration"]
    if src.get("conditions"):
        out["conditions"] = copy.deepcopy(src["conditions"])
    if src.get("component") is not None:
        out["service"] = replica_status_from_hub(src["component"])
    return out


def dgd_status_from_hub(src: Obj) -> Obj:
    """Mirrors: api/v1alpha1/dynamographdeployment_conversion.go ConvertToDynamoGraphDeploymentStatus
    (with ConvertToRestartStatus, ConvertToServiceCheckpointStatus and ConvertToRollingUpdateStatus)
    """
    out: Obj = {}
    for key in ("observedGeneration", "state", "placement", "conditions", "restart"):
        if not is_empty(src.get(key)) or (key == "placement" and src.get(key) is not None):
            out[key] = copy.deepcopy(src[key])
    if src.get("components"):
        out["services"] = {k: replica_status_from_hub(v or {}) for k, v in src["components"].items()}
    if src.get("checkpoints"):
        out["checkpoints"] = copy.deepcopy(src["checkpoints"])
    if src.get("rollingUpdate") is not None:
        ru = copy.deepcopy(src["rollingUpdate"])
        if "updatedComponents" in ru:
            ru["updatedServices"] = ru.pop("updatedComponents")
        out["rollingUpdate"] = ru
    return out


# ---------------------------------------------------------------------------
# DCD
# ---------------------------------------------------------------------------


def _start(obj: Obj) -> tuple[Obj, Obj, dict[str, str]]:
    if not isinstance(obj, dict):
        raise RenderError("expected an object", "")
    meta = copy.deepcopy(obj.get("metadata") or {})
    out: Obj = {"apiVersion": ALPHA, "kind": obj.get("kind", "")}
    return out, meta, _annotations(obj)


def _finish(out: Obj, meta: Obj, anns: dict[str, str], spec: Obj, status: Obj | None) -> Obj:
    """The converted object: metadata with the new annotations, spec, and status when there is one."""
    _set_annotations(meta, anns)
    out["metadata"] = meta
    out["spec"] = spec
    if status:
        out["status"] = status
    return out


def dcd_from_v1beta1(obj: Obj) -> Obj:
    """A v1beta1 DynamoComponentDeployment as the webhook serves it in v1alpha1.

    Mirrors: api/v1alpha1/dynamocomponentdeployment_conversion.go DynamoComponentDeployment.ConvertFrom
    (with ConvertToDynamoComponentDeploymentSpec, restoreDCDSpokeSpec, dcdHubSpecNeedsSave and
    marshalDCDHubSpec)
    """
    out, meta, anns = _start(obj)
    spoke_origin = ANN_DCD_SPEC in anns or ANN_DCD_STATUS in anns
    restored: Obj | None = None
    empty_service_name = False
    if anns.get(ANN_DCD_SPEC):
        check_spec_annotation(anns[ANN_DCD_SPEC], ANN_DCD_SPEC, typed.ALPHA)
        restored, records = restore_preserved(anns[ANN_DCD_SPEC])
        if restored is not None:
            empty_service_name = any(
                r.get("path") == _EMPTY_SERVICE_NAME_PATH and r.get("nil") for r in records
            )
    restored_status = _json_annotation(anns, ANN_DCD_STATUS, f"metadata.annotations[{ANN_DCD_STATUS}]")
    src_spec: Obj = obj.get("spec") or {}
    hub_save: Obj = {}
    spec: Obj = {}
    if src_spec.get("backendFramework"):
        spec["backendFramework"] = src_spec["backendFramework"]
    spec.update(shared_from.shared_from_v1beta1(src_spec, restored, hub_save))
    status = dcd_status_from_hub(obj.get("status") or {})
    # restore the v1alpha1-only spec and status from the spoke save
    name = meta.get("name", "")
    if empty_service_name and spec.get("serviceName", "") == name:
        spec.pop("serviceName", None)
    if restored_status is not None:
        if not status.get("podSelector") and restored_status.get("podSelector"):
            status["podSelector"] = dict(restored_status["podSelector"])
        if status.get("service") is not None:
            _restore_replica_status(status["service"], restored_status.get("service"))
    anns.pop(ANN_DCD_SPEC, None)
    anns.pop(ANN_DCD_STATUS, None)
    needs_save = not hub_save_is_zero(hub_save) or (
        not src_spec.get("name") and bool(name) or (not spoke_origin and src_spec.get("podTemplate") is not None)
    )
    if needs_save:
        hub_save = {k: v for k, v in hub_save.items() if k != "name"}
        if src_spec.get("name"):
            hub_save = {"name": src_spec["name"], **hub_save}
        anns[ANN_DCD_SPEC] = pres.marshal_preserved_spec(typed.BETA, "DynamoComponentDeploymentSpec", hub_save, [])
    return _finish(out, meta, anns, spec, status)


# ---------------------------------------------------------------------------
# DGD
# ---------------------------------------------------------------------------


def _dgd_spec_from_hub(src: Obj, restored: Obj | None, save: Obj, save_hub_origin: bool) -> Obj:
    """Mirrors: api/v1alpha1/dynamographdeployment_conversion.go ConvertToDynamoGraphDeploymentSpec
    (with ConvertToRestart, ConvertToSpecTopologyConstraint, ConvertToKvTransferPolicy)
    """
    dst: Obj = {}
    for key in ("annotations", "labels"):
        if src.get(key):
            dst[key] = dict(src[key])
    for key in ("priorityClassName", "backendFramework"):
        if src.get(key):
            dst[key] = src[key]
    for key in ("providerOverride", "restart", "experimental"):
        if src.get(key) is not None:
            dst[key] = copy.deepcopy(src[key])
    if src.get("topologyConstraint") is not None:
        tc = src["topologyConstraint"]
        out: Obj = {}
        if tc.get("clusterTopologyName"):
            out["topologyProfile"] = tc["clusterTopologyName"]
        if tc.get("packDomain"):
            out["packDomain"] = tc["packDomain"]
        dst["topologyConstraint"] = out
    if src.get("env"):
        dst["envs"] = copy.deepcopy(src["env"])
    components = src.get("components") or []
    if components:
        dst["services"] = _services_from_hub(components, restored, save, save_hub_origin)
    return dst


def _services_from_hub(components: list[Obj], restored: Obj | None, save: Obj | None, save_hub_origin: bool) -> Obj:
    """The v1alpha1 services of a DGD's components; the hub-only remainders go to ``save`` (None: not computed).

    Mirrors: api/v1alpha1/dynamographdeployment_conversion.go ConvertToDynamoGraphDeploymentSpec (the components)
    """
    names = [c.get("name", "") for c in components]
    keep_order = any(names[i - 1] > names[i] for i in range(1, len(names)))
    services: Obj = {}
    for i, comp in enumerate(components):
        cname = comp.get("name", "")
        if cname in services:
            raise RenderError(
                f'duplicate component name "{cname}" in spec.components', f"spec.components[{i}].name"
            )
        preserved = None
        if restored is not None and isinstance(restored.get("services"), dict):
            preserved = restored["services"].get(cname)
        comp_save: Obj | None = {"name": cname} if save is not None else None
        converted = shared_from.shared_from_v1beta1(comp, preserved, comp_save)
        converted.pop("serviceName", None)
        services[cname] = converted
        if save is None or comp_save is None:
            continue
        if keep_order or not hub_save_is_zero(comp_save) or (save_hub_origin and comp.get("podTemplate") is not None):
            save.setdefault("components", []).append(comp_save)
    return services


def dgd_services_from_v1beta1(obj: Obj) -> Obj:
    """The ``spec.services`` of ``dgd_from_v1beta1(obj)`` for a DGD without preservation annotations.

    Without ``nvidia.com/dgd-spec`` or ``nvidia.com/dgd-status`` nothing is restored, so each
    service is its component converted alone; the hub-only remainders (the served object's own
    ``nvidia.com/dgd-spec``), the status and the other spec fields are not computed.
    Mirrors: api/v1alpha1/dynamographdeployment_conversion.go ConvertToDynamoGraphDeploymentSpec (the components)
    """
    if ANN_DGD_SPEC in _annotations(obj) or ANN_DGD_STATUS in _annotations(obj):
        raise ValueError("dgd_services_from_v1beta1: the DGD carries preservation annotations")
    components = (obj.get("spec") or {}).get("components") or []
    return _services_from_hub(components, None, None, False) if components else {}


def dgd_from_v1beta1(obj: Obj) -> Obj:
    """A v1beta1 DynamoGraphDeployment as the webhook serves it in v1alpha1.

    Mirrors: api/v1alpha1/dynamographdeployment_conversion.go DynamoGraphDeployment.ConvertFrom
    (with restoreDGDSpokeAnnotations, restoreDGDAlphaOnlySpecFromSaved,
    restoreDGDAlphaOnlyStatusFromSaved and marshalDGDHubSpec)
    """
    out, meta, anns = _start(obj)
    spoke_origin = ANN_DGD_SPEC in anns or ANN_DGD_STATUS in anns
    restored: Obj | None = None
    if anns.get(ANN_DGD_SPEC):
        check_spec_annotation(anns[ANN_DGD_SPEC], ANN_DGD_SPEC, typed.ALPHA)
        restored, _ = restore_preserved(anns[ANN_DGD_SPEC])
    restored_status = _json_annotation(anns, ANN_DGD_STATUS, f"metadata.annotations[{ANN_DGD_STATUS}]")
    anns.pop(ANN_DGD_SPEC, None)
    anns.pop(ANN_DGD_STATUS, None)
    hub_save: Obj = {}
    spec = _dgd_spec_from_hub(obj.get("spec") or {}, restored, hub_save, not spoke_origin)
    status = dgd_status_from_hub(obj.get("status") or {})
    if restored is not None:
        if not spec.get("pvcs") and restored.get("pvcs"):
            spec["pvcs"] = copy.deepcopy(restored["pvcs"])
        saved_services = restored.get("services") if isinstance(restored.get("services"), dict) else None
        for name, saved in (saved_services or {}).items():
            if saved is None and name not in spec.setdefault("services", {}):
                spec["services"][name] = None
        if not spec.get("services"):
            spec.pop("services", None)
        for name, comp in (spec.get("services") or {}).items():
            saved = (saved_services or {}).get(name)
            if comp is None or not isinstance(saved, dict):
                continue
            if not comp.get("serviceName") and saved.get("serviceName") and saved["serviceName"] != name:
                comp["serviceName"] = saved["serviceName"]
    if restored_status is not None:
        saved_svcs = restored_status.get("services") or {}
        for name, svc in (status.get("services") or {}).items():
            if name in saved_svcs:
                _restore_replica_status(svc, saved_svcs[name])
    if prune(hub_save) is not None:
        anns[ANN_DGD_SPEC] = pres.marshal_preserved_spec(typed.BETA, "DynamoGraphDeploymentSpec", hub_save, [])
    return _finish(out, meta, anns, spec, status)
