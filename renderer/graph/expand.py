"""Expanding an admitted DGD into one DCD per component (the component pathway).

Each component becomes a DCD named ``<dgd>-<component>`` (with the worker hash for workers),
carrying the DGD's defaults, propagated annotations and metadata, the KV-transfer topology
mount and the ``DYN_DEPLOYMENT_CONFIG`` env; ``dcd_as_written`` is the object as the API server
would store it.

Mirrors: internal/dynamo/graph.go GenerateDynamoComponentsDeployments, generateSingleDCD,
backendFrameworkForGeneratedDCDs, applyDGDTemplateDefaults, propagateDGDAnnotations,
propagateDGDSpecMetadata.
"""

from __future__ import annotations

import json
import struct
from decimal import Decimal
from typing import Any

from renderer import consts
from renderer.gocompat import dynamo_types, k8s_types
from renderer.objects import epp
from renderer.graph.dgd import (
    DGD,
    KV_TRANSFER_POLICY_ENV,
    PROPAGATED_ANNOTATIONS,
    TOPOLOGY_MOUNT_PATH,
    TOPOLOGY_VOLUME,
    Component,
    KvTransferPolicy,
    main_container,
)
from renderer.gocompat.gojson import dcd_spec_go_json
from renderer.graph.dyn_deployment_config import ENV_NAME as DYN_DEPLOYMENT_CONFIG_ENV
from renderer.graph.dyn_deployment_config import apply_dyn_deployment_config
from renderer.gocompat.merge import copy_json, merge_envs
from renderer.pod.podspec import determine_backend_framework
from renderer.conversion.alpha_view import dgd_component_views, has_dgd_preservation
from renderer.releases import REFERENCE_RELEASE, Delta, Release
from renderer.results import RenderError

ALPHA_SERVICE_METADATA = Delta(
    "#14855",
    "1.5.0",
    "a converted v1alpha1 service's annotations and labels win over the DGD's spec metadata and its "
    "propagated annotations in the pod template (graph < service < pod template)",
)


def backend_framework_for_dcds(dgd: DGD) -> str:
    """The DGD's framework, else the one detected from its worker components (or "").

    Mirrors: internal/dynamo/graph.go backendFrameworkForGeneratedDCDs.
    """
    if dgd.spec.backend_framework:
        return dgd.spec.backend_framework
    detected = ""
    for component in dgd.components:
        if component.type not in consts.WORKER_COMPONENT_TYPES:
            continue
        main = main_container(component.pod_template) or {}
        try:
            framework = determine_backend_framework(component.type, main.get("command") or [], main.get("args") or [], "")
        except RenderError as err:
            raise RenderError(
                f"failed to determine backend framework for component {component.name}: {err.message}",
                f"{component.path}.podTemplate.spec.containers[main].command",
            ) from None
        if framework in ("", consts.BACKEND_NOOP):
            continue
        if detected and detected != framework:
            raise RenderError(
                f"multiple backend frameworks detected for generated DynamoComponentDeployments: {detected} and {framework}",
                "spec.backendFramework",
            )
        detected = framework
    return detected


def dcd_name(dgd: DGD, component: Component, worker_hash: str) -> str:
    """``<dgd>-<lowercase component>``, plus ``-<worker hash>`` for worker-type components.

    Mirrors: internal/dynamo/graph.go GetDCDResourceName.
    """
    base = f"{dgd.name}-{component.name.lower()}"
    if component.type in consts.WORKER_COMPONENT_TYPES and worker_hash:
        return f"{base}-{worker_hash}"
    return base


def _ensure_pod_template(spec: dict[str, Any]) -> dict[str, Any]:
    """Mirrors: internal/dynamo/v1beta1_helpers.go ensurePodTemplate (maps created, never nil)."""
    template: dict[str, Any] = spec.setdefault("podTemplate", {})
    metadata = template.setdefault("metadata", {})
    metadata.setdefault("labels", {})
    metadata.setdefault("annotations", {})
    template.setdefault("spec", {})
    return template


def _ensure_main_container(template: dict[str, Any]) -> dict[str, Any]:
    """Mirrors: internal/dynamo/v1beta1_helpers.go ensureMainContainer (prepends one if absent)."""
    containers: list[dict[str, Any]] = template["spec"].setdefault("containers", [])
    for container in containers:
        if container.get("name") == consts.MAIN_CONTAINER_NAME:
            return container
    main: dict[str, Any] = {"name": consts.MAIN_CONTAINER_NAME}
    containers.insert(0, main)
    return main


def _apply_kv_transfer_policy(template: dict[str, Any], kvt: KvTransferPolicy) -> None:
    """Env, downward-API volume and mount for topology-aware KV transfer on workers.

    Mirrors: internal/dynamo/graph.go applyKvTransferPolicyToWorkerComponent and
    component_worker.go TopologyLabelVolume (labelKey form; cluster topologies need Grove).
    """
    main = _ensure_main_container(template)
    policy_env = [
        {"name": "DYN_KV_TRANSFER_DOMAIN", "value": kvt.domain},
        {"name": "DYN_KV_TRANSFER_ENFORCEMENT", "value": kvt.enforcement},
        {"name": "DYN_TOPOLOGY_ENABLED", "value": "true"},
        {"name": "DYN_TOPOLOGY_MOUNT_PATH", "value": TOPOLOGY_MOUNT_PATH},
    ]
    if kvt.preferred_weight is not None:
        policy_env.append({"name": "DYN_KV_TRANSFER_PREFERRED_WEIGHT", "value": _format_float32(kvt.preferred_weight)})
    # Every policy variable the user or the DGD set is dropped first, even one this policy omits.
    kept = [e for e in main.get("env") or [] if e.get("name") not in KV_TRANSFER_POLICY_ENV]
    main["env"] = merge_envs(kept, policy_env)
    mount = {"name": TOPOLOGY_VOLUME, "mountPath": TOPOLOGY_MOUNT_PATH, "readOnly": True}
    mounts = [m for m in main.get("volumeMounts") or [] if m.get("name") != TOPOLOGY_VOLUME and m.get("mountPath") != TOPOLOGY_MOUNT_PATH]
    main["volumeMounts"] = [*mounts, mount]
    items = []
    if kvt.label_key:
        items = [{"path": kvt.domain, "fieldRef": {"fieldPath": f"metadata.labels['{kvt.label_key}']"}}]
    volume = {"name": TOPOLOGY_VOLUME, "downwardAPI": {"items": items} if items else {}}
    volumes = [v for v in template["spec"].get("volumes") or [] if v.get("name") != TOPOLOGY_VOLUME]
    template["spec"]["volumes"] = [*volumes, volume]


def _format_float32(value: float) -> str:
    """Go strconv.FormatFloat(v, 'f', -1, 32): the shortest decimal that round-trips as float32."""
    single = struct.unpack("f", struct.pack("f", value))[0]
    text = repr(single)
    for digits in range(1, 10):
        text = f"{single:.{digits}g}"
        if struct.unpack("f", struct.pack("f", float(text)))[0] == single:
            break
    return format(Decimal(text), "f")


def generate_dcds(
    dgd: DGD, worker_hash: str, dyn_deployment_config: bool = True, alpha_carriers: bool = True,
    release: Release = REFERENCE_RELEASE,
) -> list[tuple[Component, dict[str, Any]]]:
    """One DCD object per component, in component order.

    ``dyn_deployment_config`` False leaves the legacy ``DYN_DEPLOYMENT_CONFIG`` env unapplied:
    the Grove renderer reads these objects as its components, and the operator applies that
    env only in generateSingleDCD (the component pathway and the worker hash).
    ``alpha_carriers=False`` leaves out the conversion annotations (``nvidia.com/dcd-spec``) the
    operator copies onto each DCD, for a caller that reads neither them nor what they decide.
    ``release`` is the operator release whose DGD template defaults apply (``dgd_spec_metadata``).
    Mirrors: internal/dynamo/graph.go GenerateDynamoComponentsDeployments / generateSingleDCD
    (no restart state, no rollout in progress).
    """
    framework = backend_framework_for_dcds(dgd)
    has_epp = dgd.has_epp()
    kvt = dgd.spec.experimental.kv_transfer_policy if dgd.spec.experimental is not None else None
    specs = [_component_spec_dict(component) for component in dgd.components]
    spec_metadata = dgd_spec_metadata(dgd, release)
    # The carriers are computed before the specs are edited below (the conversion only reads them).
    carriers = _alpha_carrier_annotations(dgd, framework, worker_hash, specs) if alpha_carriers else {}
    out: list[tuple[Component, dict[str, Any]]] = []
    for component, spec in zip(dgd.components, specs):
        if framework:
            spec = {"backendFramework": framework, **spec}
        name = dcd_name(dgd, component, worker_hash)
        labels = dict(((spec.get("podTemplate") or {}).get("metadata") or {}).get("labels") or {})
        labels[consts.LABEL_COMPONENT] = component.name
        labels[consts.LABEL_NAMESPACE] = dgd.dynamo_namespace(component)
        labels[consts.LABEL_GRAPH_DEPLOYMENT_NAME] = dgd.name
        # The component's preserved v1alpha1 data travels on as the DCD's own conversion annotation.
        metadata_annotations: dict[str, str] = dict(carriers.get(component.name, {}))

        # Workers carry the generation hash (and the worker class when the graph has an EPP).
        if component.type in consts.WORKER_COMPONENT_TYPES:
            labels[consts.LABEL_WORKER_HASH] = worker_hash
            template = _ensure_pod_template(spec)
            template["metadata"]["labels"][consts.LABEL_WORKER_HASH] = worker_hash
            if has_epp:
                labels[consts.LABEL_COMPONENT_CLASS] = "worker"
                template["metadata"]["labels"][consts.LABEL_COMPONENT_CLASS] = "worker"

        # EPP pods opt out of Istio sidecar injection unless the component says otherwise.
        if component.type == consts.COMPONENT_TYPE_EPP:
            template = _ensure_pod_template(spec)
            template["metadata"]["annotations"].setdefault(consts.ANNOTATION_ISTIO_SIDECAR_INJECT, "false")

        # DGD-level defaults: env, KV transfer policy, propagated annotations, spec metadata.
        template = _ensure_pod_template(spec)
        if dgd.env:
            main = _ensure_main_container(template)
            main["env"] = merge_envs(copy_json(dgd.env), main.get("env") or [])
        applies_kvt = kvt is not None and bool(kvt.label_key or kvt.cluster_topology_name) and component.type in consts.WORKER_COMPONENT_TYPES
        if applies_kvt and kvt is not None:
            _apply_kv_transfer_policy(template, kvt)
        pod_annotations = template["metadata"]["annotations"]
        if release.ships(ALPHA_SERVICE_METADATA):
            # 1.5.0: the spec metadata (v1alpha1 service over graph) first, then the DGD's propagated annotations.
            annotations, pod_labels = spec_metadata[component.name]
            _merge_low_priority(pod_annotations, annotations)
            _merge_low_priority(template["metadata"]["labels"], pod_labels)
            _propagate_dgd_annotations(dgd, pod_annotations)
        else:
            _propagate_dgd_annotations(dgd, pod_annotations)
            _merge_low_priority(pod_annotations, dgd.spec.annotations or {})
            _merge_low_priority(template["metadata"]["labels"], dgd.spec.labels or {})
        if applies_kvt and kvt is not None:
            if kvt.label_key:
                metadata_annotations[consts.ANNOTATION_TOPOLOGY_LABEL_KEY] = kvt.label_key
            if kvt.cluster_topology_name:
                metadata_annotations[consts.ANNOTATION_TOPOLOGY_CLUSTER_TOPOLOGY_NAME] = kvt.cluster_topology_name

        # Planners always run as the planner ServiceAccount.
        if component.type == consts.COMPONENT_TYPE_PLANNER:
            template["spec"]["serviceAccountName"] = consts.PLANNER_SERVICE_ACCOUNT_NAME

        # The legacy DYN_DEPLOYMENT_CONFIG (DGD or component env) sets the main container's resources.
        if dyn_deployment_config:
            apply_dyn_deployment_config(spec, component.name, component.type, _dyn_config_field(dgd, component))

        metadata: dict[str, Any] = {"name": name, "namespace": dgd.namespace, "labels": labels}
        if metadata_annotations:
            metadata["annotations"] = metadata_annotations
        metadata["ownerReferences"] = [
            {
                "apiVersion": consts.V1BETA1,
                "kind": consts.DGD_KIND,
                "name": dgd.name,
                "controller": True,
                "blockOwnerDeletion": True,
            }
        ]
        dcd = {"apiVersion": consts.V1BETA1, "kind": consts.DCD_KIND, "metadata": metadata, "spec": spec}
        out.append((component, dcd))
    return out


def dgd_spec_metadata(dgd: DGD, release: Release) -> dict[str, tuple[dict[str, str], dict[str, str]]]:
    """The (annotations, labels) the DGD's spec metadata step gives each component's pod template as defaults.

    The reference merges the DGD's ``spec.annotations`` and ``spec.labels`` alone, under the pod
    template's own, after the propagated DGD annotations; so a key that a converted v1alpha1
    service also sets (kept only in the ``nvidia.com/dgd-spec`` payload, read back through the
    v1alpha1 view) takes the graph's value in the pods. Operator 1.5.0 merges the service's
    metadata over the graph's first (graph < service < pod template) and only then fills in the
    propagated DGD annotations, so the service's value wins over both.

    Mirrors: internal/dynamo/graph.go propagateDGDSpecMetadata (with getDGDAlphaComponent); the
    1.5.0 form ported from ai-dynamo/dynamo#14855 (cherry-picked as #14882).
    """
    graph_annotations = dict(dgd.spec.annotations or {})
    graph_labels = dict(dgd.spec.labels or {})
    out = {c.name: (graph_annotations, graph_labels) for c in dgd.components}
    if not release.ships(ALPHA_SERVICE_METADATA) or not has_dgd_preservation(dgd.annotations):
        return out
    views = dgd_component_views(dgd.source)
    for component in dgd.components:
        view = views.get(component.name)
        if view is not None and (view.annotations or view.labels):
            out[component.name] = ({**graph_annotations, **view.annotations}, {**graph_labels, **view.labels})
    return out


def _merge_low_priority(target: dict[str, str], defaults: dict[str, str]) -> None:
    """Add each default whose key ``target`` lacks. Mirrors: internal/dynamo/graph.go mergeLowPriorityMetadata."""
    for key, value in defaults.items():
        target.setdefault(key, value)


def _propagate_dgd_annotations(dgd: DGD, pod_annotations: dict[str, str]) -> None:
    """The DGD's own propagated annotations, where the pod template lacks them. Mirrors: internal/dynamo/graph.go propagateDGDAnnotations."""
    for key in PROPAGATED_ANNOTATIONS:
        if key in dgd.annotations and key not in pod_annotations:
            pod_annotations[key] = dgd.annotations[key]


def _dyn_config_field(dgd: DGD, component: Component) -> str:
    """Where the DYN_DEPLOYMENT_CONFIG a generated DCD carries was written (component env wins)."""
    pod = (component.pod_template or {}).get("spec") or {}
    for c, container in enumerate(pod.get("containers") or []):
        if container.get("name") != consts.MAIN_CONTAINER_NAME:
            continue
        for e, env in enumerate(container.get("env") or []):
            if env.get("name") == DYN_DEPLOYMENT_CONFIG_ENV:
                return f"{component.path}.podTemplate.spec.containers[{c}].env[{e}].value"
    index = next((i for i, env in enumerate(dgd.env) if env.get("name") == DYN_DEPLOYMENT_CONFIG_ENV), 0)
    return f"spec.env[{index}].value"


def _alpha_carrier_annotations(
    dgd: DGD, framework: str, worker_hash: str, specs: list[dict[str, Any]]
) -> dict[str, dict[str, str]]:
    """The carriers of the components whose DCD specs (``_component_spec_dict``) are ``specs``.

    Mirrors: internal/dynamo/graph.go applyDGDComponentAlphaCompatibilityToDCD (for every component).
    """
    from renderer.conversion.alpha_view import dgd_carrier_annotations

    stored = {
        "apiVersion": consts.V1BETA1,
        "kind": consts.DGD_KIND,
        "metadata": {"name": dgd.name, "namespace": dgd.namespace, "annotations": dict(dgd.annotations)},
        "spec": {**(dgd.source.get("spec") or {}), "components": specs},
    }
    names = {c.name: dcd_name(dgd, c, worker_hash) for c in dgd.components}
    return dgd_carrier_annotations(stored, framework, names)


def _component_spec_dict(component: Component) -> dict[str, Any]:
    """The component as a DCD spec dict: the user's fields, defaults applied, pod template normalised."""
    # A JSON-shaped copy (copy_json) is a full copy of parsed YAML: the spec is edited below and by the caller.
    # The written podTemplate is not copied: the admitted one replaces it below, in its place.
    spec: dict[str, Any] = {
        key: None if key == "podTemplate" else copy_json(value) for key, value in component.raw.items() if value is not None
    }
    spec["replicas"] = component.spec.replicas
    if component.spec.multinode is not None:
        spec["multinode"] = {**(spec.get("multinode") or {}), "nodeCount": component.spec.multinode.node_count}
    # CRD structural defaults of the experimental block (the API server stores them).
    if component.spec.experimental is not None:
        spec["experimental"] = component.spec.experimental.model_dump(by_alias=True, exclude_none=True)
    if component.pod_template is not None:
        spec["podTemplate"] = copy_json(component.pod_template)
    else:
        spec.pop("podTemplate", None)
    # The EPP reconciler stamps the inline config's TypeMeta on the DGD before its DCDs exist.
    epp_config = spec.get("eppConfig")
    if component.type == consts.COMPONENT_TYPE_EPP and isinstance(epp_config, dict) and isinstance(epp_config.get("config"), dict):
        config = epp.dcd_endpoint_picker_config(epp_config["config"], f"{component.path}.eppConfig.config")
        spec["eppConfig"] = {**epp_config, "config": config}
    return spec


def dcd_as_written(obj: dict[str, Any]) -> dict[str, Any]:
    """A generated DCD as emitted: its spec as the operator writes it, no ownerReference.

    The operator sends the typed DCD (Go field shapes, ``omitempty``), and the DCD type's own
    MarshalJSON strips the ``{}`` that value-typed structs such as a container's
    ``resources`` or an empty pod-template ``metadata`` would print; the API server then
    prunes ``null`` fields. The ownerReference needs the DGD's UID, unknown offline.
    Mirrors: api/v1beta1/marshal.go normalizeV1Beta1JSON (stripEmptyValueStructs)
    """
    metadata = {k: v for k, v in obj["metadata"].items() if k != "ownerReferences"}
    spec = json.loads(dcd_spec_go_json(obj["spec"]))
    _strip_go_artefacts(spec, dynamo_types.V1BETA1, dynamo_types.ROOTS["V1BETA1"])
    roles = obj["spec"].get("roles")
    if isinstance(roles, list):
        spec["roles"] = written_roles(roles)
    return {**obj, "metadata": metadata, "spec": spec}


def written_roles(roles: list[Any]) -> list[dict[str, Any]]:
    """A component's explicit ``roles`` as the generated DCD carries them (operator 1.5.0).

    The DGD controller copies the whole component spec into its DCD, ``roles`` included; the
    reference commit's type table has no such field (the reference profile refuses it before
    any DCD exists), so it is written here: each role's name and provider override.

    Ported from ai-dynamo/dynamo#14419 (v1.5.0): api/v1beta1 ComponentRoleSpec (name,
    providerOverride omitempty) in the DCD schema; internal/dynamo/graph.go generateSingleDCD.
    """
    out: list[dict[str, Any]] = []
    for role in roles:
        entry = {"name": role.get("name")} if isinstance(role, dict) else {}
        if isinstance(role, dict) and role.get("providerOverride") is not None:
            entry["providerOverride"] = copy_json(role["providerOverride"])
        out.append(entry)
    return out


def _strip_go_artefacts(value: dict[str, Any], table: dict[str, tuple[tuple[Any, ...], ...]], struct: str) -> None:
    """Drop null fields and empty value-typed struct fields of a Go-marshalled struct, in place."""
    rows = {row[0]: row[2] for row in table[struct]}
    for key in list(value):
        shape = rows[key]  # the typed marshal prints known fields only
        child = value[key]
        if child is None:
            del value[key]
            continue
        if _strip_shape(child, shape, table) and child == {}:
            del value[key]


def _strip_shape(child: Any, shape: tuple[Any, ...], table: dict[str, tuple[tuple[Any, ...], ...]]) -> bool:
    """Recurse into ``child`` by its Go shape; True when it is a value-typed (droppable) struct."""
    kind = shape[0]
    if kind in ("struct", "k8s") and isinstance(child, dict):
        nested = table if kind == "struct" else k8s_types.STRUCTS
        _strip_go_artefacts(child, nested, shape[1])
        return True
    if kind == "ptr":
        _strip_shape(child, shape[1], table)
        return False  # an empty pointer-typed struct is a sentinel (scalingAdapter: {})
    if kind == "slice" and isinstance(child, list):
        for item in child:
            _strip_shape(item, shape[1], table)
    if kind == "map" and isinstance(child, dict):
        for item in child.values():
            _strip_shape(item, shape[2], table)
    return False
