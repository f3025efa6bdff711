"""Render a DGD: the shared resources, then its PodCliqueSet (Grove) or each generated DCD, as the DGD controller does.

Mirrors: internal/controller/dgd_component_program.go Reconcile, dgd_grove_program.go Reconcile,
dgd_shared_resources_reconciler.go Reconcile, dgd_epp_reconciler.go Reconcile and
internal/dynamo/hash.go ComputeDGDWorkersSpecHash.
"""

from __future__ import annotations

import json

from renderer.records import replace
from typing import Any

from renderer import consts
from renderer.admission import dcd_crd, objectmeta
from renderer.admission.parse import admit_pod_template, parse_dcd
from renderer.cluster.state import ClusterState
from renderer.config import RenderConfig
from renderer.conversion.alpha_view import AlphaView, has_dgd_preservation, plain_view
from renderer.graph.dgd import DGD, WORKER_HASH_PLACEHOLDER, Component
from renderer.graph.expand import dcd_as_written, dcd_name, generate_dcds
from renderer.graph.gohash import WorkerTemplate, resolve_runtime_version_for_hash, worker_hash
from renderer.objects import companions
from renderer.objects.component import render_component
from renderer.pod.labels import is_k8s_discovery_enabled, kube_annotations, kube_labels
from renderer.results import Code, RenderError, Result, Severity, go_quote as show


def compute_worker_hash(dgd: DGD, config: RenderConfig, admitted: AdmittedTemplates | None = None) -> str:
    """The v2 worker hash: generate the DCDs with a placeholder hash and hash the worker ones.

    ``admitted`` receives the worker pod templates admitted on the way (see ``worker_templates``).
    Mirrors: internal/dynamo/hash.go ComputeDGDWorkersSpecHash.
    """
    return worker_hash(worker_templates(dgd, config, admitted))


# Per worker component: its generated pod template as written and as admitted, in the worker-hash pass.
AdmittedTemplates = dict[str, tuple[dict[str, Any], dict[str, Any]]]


def worker_templates(dgd: DGD, config: RenderConfig, admitted: AdmittedTemplates | None = None) -> dict[str, WorkerTemplate]:
    """What the worker hash covers, per worker component: its DCD generated with a placeholder hash.

    ``admitted`` receives, for each worker DCD parsed without any problem, its pod template as
    generated and as admitted (``admit_pod_template``), for the real pass to reuse
    (``_reused_pod_template``).
    Mirrors: internal/dynamo/hash.go ComputeDGDWorkersSpecHash (the inputs it collects).
    """
    workers: dict[str, WorkerTemplate] = {}
    # The hash reads a DCD's spec and its v1alpha1 view, never its carrier annotations, and a DGD
    # without preserved data has the plain view (_known_alpha): its carriers are left out here, as the
    # component pathway builds and checks them again in its real pass (Grove has no such pass).
    carriers = dgd.is_grove or has_dgd_preservation(dgd.annotations)
    for component, obj in generate_dcds(dgd, WORKER_HASH_PLACEHOLDER, alpha_carriers=carriers, release=config.release):
        if component.type not in consts.WORKER_COMPONENT_TYPES:
            continue
        dcd, results = parse_dcd(
            obj, dgd.namespace, config.checkpoint_enabled, admission=False, list_maps=False,
            known_alpha=_known_alpha(dgd, obj), admitted_pod_template=_admitted_as_component(component, obj),
        )
        if dcd is None:
            raise _refused(obj, results, component, dgd.name)
        raw_template = (obj.get("spec") or {}).get("podTemplate")
        if admitted is not None and not results and isinstance(raw_template, dict) and dcd.pod_template is not None:
            admitted[component.name] = (raw_template, dcd.pod_template)
        main = dcd.main_container() or {}
        workers[component.name] = WorkerTemplate(
            labels=kube_labels(dcd),
            annotations=kube_annotations(dcd),
            runtime_version=resolve_runtime_version_for_hash(main.get("image", ""), dcd.spec.runtime_version_override or ""),
            spec=obj["spec"],
        )
    return workers


def _known_alpha(dgd: DGD, obj: dict[str, Any]) -> AlphaView | None:
    """The v1alpha1 view of a DCD generated from ``dgd`` when it is known without a conversion, else None.

    A DGD without preserved v1alpha1 data converts to services holding no labels, annotations,
    dynamoNamespace or ingress (only a restore adds them), so the carrier annotation its DCDs get
    restores none either: each DCD reads back as the plain view of its type.
    Mirrors: internal/dynamo/v1beta1_helpers.go getDCDAlphaSharedSpec (on a DCD of a native DGD)
    """
    if has_dgd_preservation(dgd.annotations):
        return None
    return plain_view(str((obj.get("spec") or {}).get("type") or ""))


def _reused_pod_template(admitted: AdmittedTemplates, component: Component, obj: dict[str, Any], hash_value: str) -> dict[str, Any] | None:
    """The worker-hash pass's admitted pod template of ``component`` with the real worker hash, else None.

    The real pass generates each worker's pod template again, with the worker hash in place of
    the placeholder as the value of one label. Where the template is the hash pass's with only
    that value changed (same keys in the same order), admitting it gives the hash pass's result
    with the same value changed: both values are valid label values, and no defaulting,
    schema, pod or decoding rule reads a label's value except to check that it is one. A
    template that differs in anything else (a checkpoint policy applied in the real pass) is
    admitted anew.
    """
    entry = admitted.get(component.name)
    raw = (obj.get("spec") or {}).get("podTemplate")
    if entry is None or not isinstance(raw, dict):
        return None
    placeholder_raw, placeholder_admitted = entry
    labels = (placeholder_raw.get("metadata") or {}).get("labels")
    admitted_labels = (placeholder_admitted.get("metadata") or {}).get("labels")
    if not isinstance(labels, dict) or not isinstance(admitted_labels, dict):
        return None
    if labels.get(consts.LABEL_WORKER_HASH) != WORKER_HASH_PLACEHOLDER or admitted_labels.get(consts.LABEL_WORKER_HASH) != WORKER_HASH_PLACEHOLDER:
        return None
    relabelled = {**placeholder_raw, "metadata": {**placeholder_raw["metadata"], "labels": {**labels, consts.LABEL_WORKER_HASH: hash_value}}}
    if _json_text(relabelled) != _json_text(raw):
        return None
    # The hash pass's DCDs are dropped once the hash is known: its admitted template is handed on,
    # with new maps on the way to the relabelled value only.
    metadata = placeholder_admitted["metadata"]
    return {**placeholder_admitted, "metadata": {**metadata, "labels": {**admitted_labels, consts.LABEL_WORKER_HASH: hash_value}}}


def _admitted_as_component(component: Component, obj: dict[str, Any]) -> dict[str, Any] | None:
    """What ``admit_pod_template`` gives for the generated DCD's podTemplate, from the component's admission; else None.

    The generated podTemplate is the component's admitted template (nulls dropped) with only
    its metadata edited (labels, annotations: renderer/graph/expand.py generate_dcds). Where
    its ``spec`` is still JSON-equal to the component's admitted one (a checkpoint policy or
    DYN_DEPLOYMENT_CONFIG edit is not) and nothing but ``metadata`` and ``spec`` is there,
    admitting it again gives the component's admitted ``spec`` with no problem, and its
    ``metadata`` as admitting the metadata alone gives it:

    - admission treats the two parts apart: the structural defaults, required fields and
      list-map keys (podtemplate_schema) read only ``spec``; the pod rules (podrules) check the
      metadata's labels and annotations and the pod spec each on their own; the typed decode
      (gotypes, PodTemplateSpec) decodes each struct field from its own value;
    - the spec part is a fixed point: it is the typed decode's output of a template that was
      admitted without any problem, with nulls dropped. A null and an absent field decode to
      the same Go zero value; a decoded value encodes and decodes to itself; a default the
      first pass filled is there again (or, a zero value the encode omits, is filled and
      omitted again); and a value the decoder wrote passes the checks the raw value passed.
      The list-map keys checked on the component (a v1beta1 DGD) are only fewer here.

    The v1beta1 DCD and DGD CRDs embed the same PodTemplateSpec schema, so both admissions
    apply the same rules. The metadata is admitted for real (a podTemplate of ``metadata``
    only); when that has any problem, None: the whole template is admitted anew, so every
    message is as before. Within one DGD only: the component's admission is its own.
    Mirrors: the API server admitting the DCD create (internal/controller/dgd_component_program.go)
    """
    clean = component.admitted_template
    raw = (obj.get("spec") or {}).get("podTemplate")
    if clean is None or component.pod_template is None or not isinstance(raw, dict) or not set(raw) <= {"metadata", "spec"}:
        return None
    spec_text = _json_text(raw["spec"]) if isinstance(raw.get("spec"), dict) else None
    if spec_text is None or spec_text != _json_text(component.pod_template.get("spec") or {}):
        return None
    metadata, problems = admit_pod_template({"metadata": raw.get("metadata")}, "spec.podTemplate", False)
    if problems or metadata is None:
        return None
    return {**clean, "metadata": metadata["metadata"]}


def _json_text(value: dict[str, Any]) -> str | None:
    """``value`` as JSON text, keys in their order (None when it holds a value JSON cannot say).

    Only a comparison key for the reuse checks above, never written out (what the operator writes
    goes through renderer.gocompat.gojson). Unlike ``==`` it tells ``1``, ``1.0`` and ``true``
    apart, and key order counts: a mismatch only means admitting the template again.
    """
    try:
        return json.dumps(value, ensure_ascii=False, allow_nan=True)
    except (TypeError, ValueError):
        return None


def _refused(obj: dict[str, Any], results: list[Result], component: Component, dgd_name: str) -> RenderError:
    """A generated DCD the API server would refuse on create (the v1beta1 DCD CRD: schema and CEL).

    A converted v1alpha1 component can carry what v1alpha1 allows and v1beta1 refuses (a
    componentType such as ``main``): the DGD is stored, but its DCDs cannot be created.
    """
    errors = [r for r in results if r.is_error]
    detail = "; ".join(f"{r.field}: {r.message}" for r in errors) if errors else "invalid"
    meta = obj.get("metadata") or {}
    name = meta.get("name", "")
    return RenderError(
        f"the API server would refuse the generated DynamoComponentDeployment {name}: {detail}", component.path, code=Code.API_SERVER,
        hint=next((hint for r in errors if (hint := _too_long_hint(r, meta, dgd_name))), ""),
    )


def _too_long_hint(result: Result, meta: dict[str, Any], dgd_name: str) -> str:
    """For a Dynamo namespace label built from the namespace and the graph's name that is too long: the longest name that fits.

    The operator labels every pod ``nvidia.com/dynamo-namespace: <namespace>-<graph>``, and a
    label value holds at most 63 characters, so in a long namespace a graph name that is valid
    on its own cannot be created.
    """
    labels = meta.get("labels") or {}
    value = labels.get(consts.LABEL_NAMESPACE) if isinstance(labels, dict) else None
    namespace = str(meta.get("namespace") or "")
    if result.field != f"metadata.labels[{consts.LABEL_NAMESPACE}]" or not isinstance(value, str) or value != f"{namespace}-{dgd_name}":
        return ""
    longest = objectmeta.LABEL_VALUE_MAX - len(namespace) - 1
    return (
        f"the label is <namespace>-<graph name>, at most {objectmeta.LABEL_VALUE_MAX} characters: in namespace {show(namespace)} a "
        f"DynamoGraphDeployment name may have at most {longest} characters (this one has {len(dgd_name)})"
    )


def render_graph(
    dgd: DGD, config: RenderConfig, cluster: ClusterState, notes: list[Result] | None = None
) -> list[dict[str, Any]]:
    """Everything the DGD controller's selected program creates, rendered to workloads.

    Shared resources come first in the controller's order (planner and EPP RBAC, discovery
    RBAC, GMS claim templates, EPP resources, wait-for-leader ConfigMap). Then, on the Grove
    pathway, the PodCliqueSet and its stable side objects (renderer.graph.grove_resources); on
    the component pathway each component's DCD rendered by the DCD renderer (or, with
    ``emit: dcd``, the DCD itself). Last, the scaling adapters when the ``scalingAdapters``
    setting asks for them. ``notes`` receives info results for assumed cluster facts.
    Mirrors: internal/controller/dgd_component_program.go Reconcile,
    dgd_grove_program.go Reconcile and dgd_shared_resources_reconciler.go Reconcile
    """
    from renderer.graph.checkpoints import apply_checkpoint_startup_policy

    objects = render_shared_resources(dgd, config, cluster)

    if dgd.is_grove:
        from renderer.graph.grove import render_pod_clique_set
        from renderer.graph.grove_resources import render_stable_resources

        # A fresh install: the worker components carry the worker hash (none without workers).
        has_workers = any(c.type in consts.WORKER_COMPONENT_TYPES for c in dgd.components)
        hash_value = compute_worker_hash(dgd, config) if has_workers else ""
        objects.append(render_pod_clique_set(dgd, config, cluster, hash_value, notes if notes is not None else []))
        objects += render_stable_resources(dgd, config, hash_value)
        return objects + _render_scaling_adapters(dgd, config)

    # The component pathway needs LeaderWorkerSet for multinode components.
    if dgd.has_multinode() and not config.lws_enabled:
        first = next(c for c in dgd.components if c.spec.is_multinode)
        raise RenderError(
            f"no multinode orchestrator available ({config.lws_reason})", f"{first.path}.multinode.nodeCount"
        )

    admitted: AdmittedTemplates = {}
    worker_hash = compute_worker_hash(dgd, config, admitted)
    for component, obj in generate_dcds(dgd, worker_hash, release=config.release):
        if config.checkpoint_enabled:
            try:
                apply_checkpoint_startup_policy(obj, component, dgd.namespace, cluster)
            except RenderError as err:
                raise err.at(_component_field(component.path, err.field)) from None
        # The API server admits each DCD create against the v1beta1 DCD CRD (schema and CEL).
        dcd, results = parse_dcd(
            obj, dgd.namespace, config.checkpoint_enabled, admission=False, list_maps=False,
            known_alpha=_known_alpha(dgd, obj), admitted_pod_template=(
                _reused_pod_template(admitted, component, obj, worker_hash) or _admitted_as_component(component, obj)
            ),
        )
        if dcd is None:
            raise _refused(obj, results, component, dgd.name)
        refusals = dcd_crd.refusals(obj["spec"])
        if refusals:
            raise _refused(obj, refusals, component, dgd.name)
        if config.emit == "dcd":
            objects.append(dcd_as_written(obj))
            continue
        try:
            component_notes: list[Result] = []
            objects += render_component(dcd, config, cluster, component_notes)
        except RenderError as err:
            raise err.at(_component_field(component.path, err.field)) from None
        if notes is not None:
            notes.extend(
                replace(n, field=_component_field(component.path, n.field), resource=None, file="", index=None)
                for n in component_notes
            )

    return objects + _render_scaling_adapters(dgd, config)


def render_shared_resources(dgd: DGD, config: RenderConfig, cluster: ClusterState) -> list[dict[str, Any]]:
    """The DGD's shared resources, the same for both pathways, in the controller's order.

    Planner (and EPP) RBAC in cluster-wide mode, discovery RBAC, the GPU Memory Service claim
    templates, the EPP resources, then the wait-for-leader ConfigMap when any component is
    multinode.
    Mirrors: internal/controller/dgd_shared_resources_reconciler.go Reconcile
    """
    from renderer.graph.gms_claims import render_gms_claim_templates

    objects: list[dict[str, Any]] = []
    operator = config.operator
    if not operator.namespace.restricted:
        objects += companions.service_account_with_cluster_role(
            consts.PLANNER_SERVICE_ACCOUNT_NAME, dgd.namespace, operator.rbac.planner_cluster_role_name
        )
        if dgd.has_epp():
            objects += companions.service_account_with_cluster_role(
                consts.EPP_SERVICE_ACCOUNT_NAME, dgd.namespace, operator.rbac.epp_cluster_role_name
            )
    # Top-level PVCs a converted v1alpha1 DGD declares.
    from renderer.conversion.alpha_view import dgd_preserved_pvcs
    from renderer.objects.alpha_pvcs import render_preserved_pvcs

    objects += render_preserved_pvcs(dgd_preserved_pvcs(dgd.source), dgd.namespace, cluster)
    if is_k8s_discovery_enabled(operator.discovery.backend, dgd.annotations):
        objects += companions.discovery_rbac(dgd.name, dgd.namespace)

    # GPU Memory Service: one ResourceClaimTemplate per GMS component (DRA required).
    objects += render_gms_claim_templates(dgd, config, cluster)

    # EPP resources: its config, the InferencePool and, with the Istio mesh, a DestinationRule.
    epp_component = next((c for c in dgd.components if c.type == consts.COMPONENT_TYPE_EPP), None)
    if epp_component is not None:
        objects += _render_epp_resources(dgd, epp_component, config)
    if dgd.has_multinode():
        objects.append(companions.wait_leader_config_map(dgd.name, dgd.namespace))
    return objects


def _render_scaling_adapters(dgd: DGD, config: RenderConfig) -> list[dict[str, Any]]:
    """One scaling adapter per component that asks for one (an opt-in: the `scalingAdapters` setting).

    Mirrors: internal/controller/dgd_scaling_adapters_reconciler.go Reconcile
    """
    if not config.scaling_adapters:
        return []
    return [
        companions.scaling_adapter(dgd.name, dgd.namespace, component.name, component.spec.replicas)
        for component in dgd.components
        if component.spec.scaling_adapter is not None
    ]


def _render_epp_resources(dgd: DGD, component: Component, config: RenderConfig) -> list[dict[str, Any]]:
    """The EPP ConfigMap (inline config only), the InferencePool and the Istio DestinationRule.

    The operator writes the DestinationRule only while its Istio gate is on (service mesh
    enabled with provider istio and the DestinationRule API served); otherwise it only deletes
    one it owned before, which leaves nothing to render.
    Mirrors: internal/controller/dgd_epp_reconciler.go Reconcile
    """
    from renderer.objects import epp  # only graphs with an EPP component pay for it

    objects: list[dict[str, Any]] = []
    epp_config = component.raw.get("eppConfig") or {}
    if epp_config.get("configMapRef") is None:
        raw = epp_config.get("config")
        if not isinstance(raw, dict):
            raise RenderError(
                "EPP configuration is required: either eppConfig.configMapRef or eppConfig.config must be specified",
                f"{component.path}.eppConfig",
            )
        objects.append(
            epp.render_config_map(dgd.name, dgd.namespace, component.name, raw, f"{component.path}.eppConfig.config")
        )
    service = dcd_name(dgd, component, "")
    objects.append(
        companions.inference_pool(dgd.name, dgd.namespace, component.name, dgd.dynamo_namespace(component), service)
    )
    istio, problem = epp.istio_gate(config)
    if problem:
        raise RenderError(problem, "serviceMesh.enabled")
    if istio:
        objects.append(epp.render_destination_rule(service, dgd.namespace, config.operator.service_mesh))
    return objects


def _component_field(component_path: str, dcd_field: str) -> str:
    """Map a field path of a generated DCD back onto the DGD component it came from."""
    if dcd_field == "spec":
        return component_path
    if dcd_field.startswith("spec."):
        return f"{component_path}.{dcd_field[len('spec.'):]}"
    return component_path
