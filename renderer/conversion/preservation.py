"""The preservation annotations of the v1alpha1 <-> v1beta1 conversion.

What one version cannot express is kept in annotations on the converted object:

* ``nvidia.com/dcd-spec`` / ``nvidia.com/dgd-spec``: a JSON envelope
  ``{"version":1,"spec":{...},"rawJSON":[...]}``. On a v1beta1 object (written by the
  v1alpha1 -> v1beta1 direction) ``spec`` is a sparse **v1alpha1** spec: the v1alpha1-only
  fields (``dynamoNamespace``, ``ingress``, ``autoscaling``, top-level ``pvcs``, per-service
  ``annotations``/``labels``, ``subComponentType``, a disabled feature, ...) and where each
  main-container field came from. On a v1alpha1 object (written by the reverse direction)
  it is a sparse **v1beta1** spec, read back here. ``rawJSON`` records values JSON cannot
  carry in ``spec``: a nil EPP plugin ``parameters`` and, for a DCD, an empty ``serviceName``
  (path ``serviceName``, ``nil: true``). An annotation without a ``spec`` key is a bare spec
  (the legacy form).
* ``nvidia.com/dcd-status`` / ``nvidia.com/dgd-status``: plain JSON of a sparse v1alpha1
  status (``podSelector``, a replica status ``componentName`` that is not the last of
  ``componentNames``).

The operator's controllers read the v1beta1 object; what they take from these annotations
is for the rendering helpers to know (see the package docstring).

Mirrors: api/v1alpha1/preservation.go (marshalPreservedSpec, restorePreservedSpec,
restoreEPPPluginParameters), dynamocomponentdeployment_conversion.go and
dynamographdeployment_conversion.go annotation constants
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Callable
from typing import Any

from renderer import consts
from renderer.conversion import typed
from renderer.gocompat.gojson import go_json
from renderer.results import RenderError, unsupported

ANN_DCD_SPEC = consts.ANNOTATION_DCD_SPEC
ANN_DCD_STATUS = consts.ANNOTATION_DCD_STATUS
ANN_DGD_SPEC = consts.ANNOTATION_DGD_SPEC
ANN_DGD_STATUS = consts.ANNOTATION_DGD_STATUS
DCD_ANNOTATIONS = (ANN_DCD_SPEC, ANN_DCD_STATUS)
DGD_ANNOTATIONS = (ANN_DGD_SPEC, ANN_DGD_STATUS)

# rawJSON record path of a DCD whose v1alpha1 serviceName was empty
EMPTY_SERVICE_NAME_PATH = "serviceName"
ENVELOPE_VERSION = 1

Record = dict[str, Any]


def marshal_preserved_spec(version: str, struct: str, spec: dict[str, Any], records: list[Record]) -> str:
    """The envelope text: ``{"version":1,"spec":<json.Marshal(spec)>[,"rawJSON":[...]]}``.

    Mirrors: preservation.go marshalPreservedSpec
    """
    parts = [f'{{"version":{ENVELOPE_VERSION},"spec":', typed.marshal(version, struct, spec)]
    if records:
        parts.append(',"rawJSON":')
        parts.append(go_json([_record_json(r) for r in records]))
    parts.append("}")
    return "".join(parts)


def _record_json(record: Record) -> dict[str, Any]:
    """Mirrors: preservation.go preservedRawJSON (raw as base64, omitempty; nil omitempty)"""
    out: dict[str, Any] = {"path": record["path"]}
    if record.get("raw"):
        out["raw"] = base64.b64encode(record["raw"]).decode("ascii")
    if record.get("nil"):
        out["nil"] = True
    return out


def restore_preserved_spec(
    raw: str,
    version: str,
    struct: str,
    apply: Callable[[dict[str, Any], list[Record]], None] | None = None,
) -> dict[str, Any] | None:
    """The spec an annotation preserves (None when it does not decode: then it is ignored).

    Mirrors: preservation.go restorePreservedSpec
    """
    try:
        document = json.loads(raw)
    except ValueError:
        return None
    if document is not None and not isinstance(document, dict):
        return None
    try:
        if document is None or "spec" not in document:
            return typed.decode(version, struct, document, "")
        envelope_version = document.get("version")
        if envelope_version is not None and (
            isinstance(envelope_version, bool) or not isinstance(envelope_version, int)
        ):
            return None
        spec = typed.decode(version, struct, document.get("spec"), "")
        records = _decode_records(document.get("rawJSON"))
    except RenderError:
        return None
    if records is None:
        return None
    if apply is not None:
        apply(spec, records)
    return spec


def _decode_records(value: Any) -> list[Record] | None:
    """The ``rawJSON`` list (None: it does not decode as Go's []preservedRawJSON)."""
    if value is None:
        return []
    if not isinstance(value, list):
        return None
    out: list[Record] = []
    for item in value:
        if item is None:
            out.append({"path": "", "raw": b"", "nil": False})
            continue
        if not isinstance(item, dict):
            return None
        path, raw, nil = item.get("path", ""), item.get("raw"), item.get("nil", False)
        if not isinstance(path, str) or not isinstance(nil, bool):
            return None
        data = b""
        if raw is not None:
            if not isinstance(raw, str):
                return None
            try:
                data = base64.b64decode(raw, validate=True)
            except (binascii.Error, ValueError):
                return None
        out.append({"path": path, "raw": data, "nil": nil})
    return out


def restore_epp_plugin_parameters(
    config: dict[str, Any] | None, prefix: str, records: list[Record], annotation: str
) -> None:
    """Put back EPP plugin ``parameters`` recorded as nil or as raw bytes (in place).

    Raw bytes that are not JSON cannot be held here; the operator would fail to marshal
    them, so they are an error at the annotation.

    Mirrors: preservation.go restoreEPPPluginParameters
    """
    if config is None or not records:
        return
    by_path = {r["path"]: r for r in records}
    for i, plugin in enumerate(config.get("plugins") or []):
        record = by_path.get(f"{prefix}/plugins/{i}/parameters")
        if record is None:
            continue
        if record["nil"]:
            plugin["parameters"] = None
            continue
        try:
            plugin["parameters"] = json.loads(record["raw"].decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            raise unsupported(
                f"metadata.annotations[{annotation}]",
                f"rawJSON {prefix}/plugins/{i}/parameters is not valid JSON",
            ) from None


def restore_dcd_hub_spec(raw: str) -> dict[str, Any] | None:
    """The v1beta1 DCD spec a v1alpha1 object's ``nvidia.com/dcd-spec`` preserves.

    Mirrors: dynamocomponentdeployment_conversion.go restoreDCDHubSpec
    """

    def apply(spec: dict[str, Any], records: list[Record]) -> None:
        epp = spec.get("eppConfig")
        if epp is not None:
            restore_epp_plugin_parameters(epp.get("config"), "eppConfig/config", records, ANN_DCD_SPEC)

    return restore_preserved_spec(raw, typed.BETA, "DynamoComponentDeploymentSpec", apply)


def restore_dgd_hub_spec(raw: str) -> dict[str, Any] | None:
    """The v1beta1 DGD spec a v1alpha1 object's ``nvidia.com/dgd-spec`` preserves.

    Mirrors: dynamographdeployment_conversion.go restoreDGDHubSpec
    """

    def apply(spec: dict[str, Any], records: list[Record]) -> None:
        for i, component in enumerate(spec.get("components") or []):
            epp = component.get("eppConfig")
            if epp is not None:
                restore_epp_plugin_parameters(
                    epp.get("config"), f"components/{i}/eppConfig/config", records, ANN_DGD_SPEC
                )

    return restore_preserved_spec(raw, typed.BETA, "DynamoGraphDeploymentSpec", apply)


def marshal_dcd_spoke_spec(save: dict[str, Any], empty_service_name: bool) -> str:
    """The ``nvidia.com/dcd-spec`` text a converted v1beta1 DCD carries.

    Mirrors: dynamocomponentdeployment_conversion.go marshalDCDSpokeSpec
    """
    records: list[Record] = []
    if empty_service_name:
        records.append({"path": EMPTY_SERVICE_NAME_PATH, "nil": True})
    return marshal_preserved_spec(typed.ALPHA, "DynamoComponentDeploymentSpec", save, records)


def marshal_dgd_spoke_spec(save: dict[str, Any]) -> str:
    """The ``nvidia.com/dgd-spec`` text a converted v1beta1 DGD carries.

    Mirrors: dynamographdeployment_conversion.go marshalDGDSpokeSpec
    """
    return marshal_preserved_spec(typed.ALPHA, "DynamoGraphDeploymentSpec", save, [])


def marshal_status(struct: str, save: dict[str, Any]) -> str:
    """``json.Marshal`` of a sparse v1alpha1 status (the ``-status`` annotations).

    Mirrors: shared_spec_conversion.go setJSONAnnOnObj
    """
    return typed.marshal(typed.ALPHA, struct, save)


def service_name_needs_preservation(service: dict[str, Any] | None) -> bool:
    """A service status whose componentName is not the last of its componentNames.

    Mirrors: api/v1alpha1/dynamographdeployment_conversion.go serviceStatusComponentNameNeedsPreservation
    """
    if service is None:
        return False
    names = service.get("componentNames") or []
    if not names:
        return bool(service.get("componentName"))
    return bool(names[-1] != service.get("componentName", ""))
