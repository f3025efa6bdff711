"""The EPP objects a DGD with an ``epp`` component yields besides its DCDs.

The ``<dgd>-epp-config`` ConfigMap holding the inline ``EndpointPickerConfig`` as YAML, the
``<dgd>-pool`` InferencePool (``renderer.objects.companions.inference_pool``) and, when the operator
runs with the Istio service mesh, a DestinationRule for the EPP Service. Each builder
returns a fresh dict.

Mirrors: internal/dynamo/epp/config.go, internal/dynamo/graph.go GenerateEPPDestinationRule,
internal/controller/dgd_epp_reconciler.go, internal/features/gates.go (Istio gate)
"""

from __future__ import annotations

import json
from typing import Any

from renderer import consts
from renderer.gocompat import dynamo_types, goyaml
from renderer.config import RenderConfig
from renderer.operator_config import ServiceMesh
from renderer.gocompat.gojson import dcd_spec_go_json
from renderer.pod.naming import normalize_kube_resource_name
from renderer.results import Code, RenderError, Result, Severity

# apix/config/v1alpha1 SchemeGroupVersion of gateway-api-inference-extension v1.2.0
ENDPOINT_PICKER_CONFIG_API_VERSION = "inference.networking.x-k8s.io/v1alpha1"
ENDPOINT_PICKER_CONFIG_KIND = "EndpointPickerConfig"
CONFIG_MAP_SUFFIX = "epp-config"
CONFIG_KEY = "epp-config-dynamo.yaml"
ISTIO_GROUP_VERSION = "networking.istio.io/v1beta1"
ISTIO_TLS_MODES = ("DISABLE", "SIMPLE", "MUTUAL", "ISTIO_MUTUAL")

# Fields of the GAIE config structs the CRD requires (schema ``required``), per struct.
_REQUIRED: dict[str, tuple[str, ...]] = {
    "EndpointPickerConfig": ("plugins", "schedulingProfiles"),
    "PluginSpec": ("type",),
    "SchedulingProfile": ("name", "plugins"),
    "SchedulingPlugin": ("pluginRef",),
}


def config_map_name(dgd_name: str) -> str:
    """Mirrors: internal/dynamo/epp/config.go GetConfigMapName."""
    return f"{dgd_name}-{CONFIG_MAP_SUFFIX}"


def endpoint_picker_config(raw: dict[str, Any], path: str) -> dict[str, Any]:
    """The inline config as the operator holds it: Go-typed, with its apiVersion and kind set.

    The operator decodes ``eppConfig.config`` into the GAIE ``EndpointPickerConfig`` struct
    (fields it does not know are dropped), then stamps the TypeMeta before marshalling. The
    result keeps Go's zero values where no ``omitempty`` drops them (``name: ""``,
    ``parameters: null``, ``weight: null``).

    Mirrors: internal/dynamo/epp/config.go marshalEndpointPickerConfig (TypeMeta) and
    encoding/json on apix/config/v1alpha1 EndpointPickerConfig
    """
    stamped = dict(raw, apiVersion=ENDPOINT_PICKER_CONFIG_API_VERSION, kind=ENDPOINT_PICKER_CONFIG_KIND)
    try:
        text = dcd_spec_go_json({"name": "", "eppConfig": {"config": stamped}}, path="spec")
    except RenderError as err:
        raise err.at(_under(path, err.field)) from None
    typed: dict[str, Any] = json.loads(text)["eppConfig"]["config"]
    return typed


def marshal_endpoint_picker_config(raw: dict[str, Any], path: str) -> str:
    """The ConfigMap value: the typed config through ``sigs.k8s.io/yaml.Marshal``.

    Mirrors: internal/dynamo/epp/config.go marshalEndpointPickerConfig
    """
    return goyaml.marshal(endpoint_picker_config(raw, path), path)


def _under(path: str, field: str) -> str:
    """A field of the Go spec wrapper (``spec.eppConfig.config...``) re-rooted under ``path``."""
    prefix = "spec.eppConfig.config"
    return path + field[len(prefix):] if field.startswith(prefix) else path


def render_config_map(dgd_name: str, namespace: str, component_name: str, raw: dict[str, Any], path: str) -> dict[str, Any]:
    """The ConfigMap the EPP pod mounts, from the component's inline ``eppConfig.config``.

    Mirrors: internal/dynamo/epp/config.go GenerateConfigMap
    """
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {
            "name": config_map_name(dgd_name),
            "namespace": namespace,
            "labels": {
                consts.LABEL_GRAPH_DEPLOYMENT_NAME: dgd_name,
                consts.LABEL_COMPONENT: component_name,
                consts.LABEL_COMPONENT_TYPE: consts.COMPONENT_TYPE_EPP,
            },
        },
        "data": {CONFIG_KEY: marshal_endpoint_picker_config(raw, path)},
    }


def dcd_endpoint_picker_config(raw: dict[str, Any], path: str) -> dict[str, Any]:
    """The EPP DCD's ``eppConfig.config`` as the API server stores what the operator sends.

    The EPP reconciler stamps the TypeMeta on the DGD's own in-memory config before the DCDs
    are generated from that same object, so the EPP DCD carries ``apiVersion``/``kind`` too.
    The typed marshal's ``null`` fields are pruned by the API server.

    Mirrors: internal/controller/dgd_shared_resources_reconciler.go (EPP before DCD sync)
    and internal/dynamo/epp/config.go marshalEndpointPickerConfig (mutates its argument)
    """
    return _drop_null_fields(endpoint_picker_config(raw, path), "EndpointPickerConfig")


def _drop_null_fields(value: dict[str, Any], struct: str) -> dict[str, Any]:
    """Drop struct fields whose value is null (free-form ``parameters`` are kept as they are)."""
    rows = {row[0]: row[2] for row in dynamo_types.V1BETA1[struct]}
    out: dict[str, Any] = {}
    for key, item in value.items():
        if item is None:
            continue
        shape = rows.get(key)
        element = shape[1] if shape is not None and shape[0] in ("slice", "ptr") else shape
        if element is not None and element[0] == "struct":
            if isinstance(item, list):
                item = [_drop_null_fields(i, element[1]) for i in item]
            elif isinstance(item, dict):
                item = _drop_null_fields(item, element[1])
        out[key] = item
    return out


def check_endpoint_picker_config(raw: dict[str, Any], path: str) -> list[Result]:
    """Schema problems of an inline config: required fields (errors), fields the operator drops (warnings).

    The CRD requires ``plugins`` and ``schedulingProfiles``, each plugin's ``type``, each
    profile's ``name`` and ``plugins`` and each profile plugin's ``pluginRef``. It keeps
    unknown keys (``x-kubernetes-preserve-unknown-fields``) but the operator's typed decode
    drops them, so they never reach the ConfigMap.

    Mirrors: config/crd/bases/nvidia.com_dynamographdeployments.yaml (eppConfig.config) and
    apix/config/v1alpha1 EndpointPickerConfig
    """
    out: list[Result] = []
    _check_struct(raw, "EndpointPickerConfig", path, out)
    return out


def _check_struct(raw: Any, struct: str, path: str, out: list[Result]) -> None:
    if not isinstance(raw, dict):
        return
    rows = {row[0]: row[2] for row in dynamo_types.V1BETA1[struct]}
    for key in _REQUIRED.get(struct, ()):
        if raw.get(key) is None:
            out.append(Result("Required value", field=f"{path}.{key}", code=Code.SCHEMA))
    for key, item in raw.items():
        shape = rows.get(key)
        if shape is None:
            out.append(
                Result(
                    f'unknown field "{key}": the operator decodes eppConfig.config into the EndpointPickerConfig '
                    "type and drops it",
                    severity=Severity.WARNING,
                    field=f"{path}.{key}",
                    code=Code.UNKNOWN_FIELD,
                )
            )
            continue
        element = shape[1] if shape[0] in ("slice", "ptr") else shape
        if element[0] != "struct":
            continue
        if shape[0] == "slice" and isinstance(item, list):
            for i, entry in enumerate(item):
                _check_struct(entry, element[1], f"{path}.{key}[{i}]", out)
        else:
            _check_struct(item, element[1], f"{path}.{key}", out)


def istio_gate(config: RenderConfig) -> tuple[bool, str]:
    """Whether the operator runs with the Istio gate on, and why it could not start if not.

    The gate is considered only when the service mesh is enabled with provider ``istio``
    (``serviceMesh.enabled`` not false). ``enabled: true`` requires the DestinationRule API
    (``networking.istio.io/v1beta1``), else the operator refuses to start; left unset, the
    gate follows whether that API is served. Offline, an unknown API list counts as served.

    Mirrors: internal/features/gates.go New (Istio block) and api/config/v1alpha1
    ServiceMeshConfiguration.IsEnabled
    """
    mesh: ServiceMesh = config.operator.service_mesh
    if mesh.enabled is False or mesh.provider != "istio":
        return False, ""
    available = True
    if config.api_versions is not None:
        available = any(
            v.strip() == ISTIO_GROUP_VERSION or v.strip().startswith(ISTIO_GROUP_VERSION + "/")
            for v in config.api_versions
        )
    if mesh.enabled is True and not available:
        return False, (
            "service mesh is explicitly enabled in config but the networking.istio.io DestinationRule API was not "
            "detected in the cluster"
        )
    return available, ""


def render_destination_rule(service_name: str, namespace: str, mesh: ServiceMesh) -> dict[str, Any]:
    """The DestinationRule that tells sidecars how to reach the EPP's TLS gRPC port.

    The name is the normalised Service name. The Istio API marshals with proto3 JSON rules,
    so fields at their zero value are omitted: TLS mode ``DISABLE`` (enum value 0) prints no
    ``mode`` at all, and the certificate paths appear only for ``MUTUAL``.

    Mirrors: internal/dynamo/graph.go GenerateEPPDestinationRule; istio.io/api networking
    v1beta1 DestinationRule MarshalJSON (jsonpb, EmitDefaults off)
    """
    name = normalize_kube_resource_name(service_name)
    rule: dict[str, Any] = {
        "apiVersion": ISTIO_GROUP_VERSION,
        "kind": "DestinationRule",
        "metadata": {"name": name, "namespace": namespace},
    }
    if mesh.provider != "istio" or mesh.istio is None:
        return rule
    mode = mesh.istio.tls_mode if mesh.istio.tls_mode in ISTIO_TLS_MODES else "SIMPLE"
    skip_verify = True if mesh.istio.insecure_skip_verify is None else mesh.istio.insecure_skip_verify
    tls: dict[str, Any] = {}
    if mode != "DISABLE":
        tls["mode"] = mode
    if mode == "MUTUAL":
        for key, value in (
            ("clientCertificate", mesh.istio.client_certificate),
            ("privateKey", mesh.istio.private_key),
            ("caCertificates", mesh.istio.ca_certificates),
        ):
            if value:
                tls[key] = value
    tls["insecureSkipVerify"] = skip_verify
    rule["spec"] = {"host": f"{name}.{namespace}.svc.cluster.local", "trafficPolicy": {"tls": tls}}
    return rule
