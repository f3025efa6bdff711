"""The DGD render's shortcuts give what the full v1alpha1 round trip gives, on every corpus DGD.

A DCD generated from a DGD without preserved v1alpha1 data is parsed with the plain view of its
type instead of converting its ``nvidia.com/dcd-spec`` carrier back (renderer/graph/program.py
_known_alpha), and the worker-hash pass leaves the carriers out. The carriers themselves are
built from the DGD's services alone (converted without the hub-only save when nothing is
preserved) and from the converted DCD's annotations alone (its spec not encoded), and the real
pass reuses each worker pod template the worker-hash pass admitted, and each generated DCD the
component's admitted template spec where only the metadata changed. All are exact
only if the conversion the operator runs agrees: this runs that conversion on each DCD
generated from each DGD of the corpus (v1beta1 as written, v1alpha1 as converted) and compares.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.slow  # renders every corpus DGD twice (about a minute)

from plugin.settings import resolve_settings
from plugin.yamlio.codec import load_documents
from renderer.bundle import parse_source
from renderer.conversion.alpha_view import dcd_view, dgd_alpha, has_dgd_preservation
from renderer.conversion.from_v1beta1 import dgd_services_from_v1beta1
from renderer.conversion.to_v1beta1 import dcd_conversion_annotations, dcd_to_v1beta1
from renderer.graph.dgd import DGD, WORKER_HASH_PLACEHOLDER
from renderer.graph.expand import backend_framework_for_dcds, generate_dcds
from renderer.graph.program import _known_alpha, compute_worker_hash
from renderer.results import RenderError

CORPUS = Path(__file__).resolve().parents[1] / "data" / "corpus"
DGD_FILES = sorted(p.name for p in CORPUS.iterdir() if p.suffix in (".yaml", ".yml") and "DynamoGraphDeployment" in p.read_text(encoding="utf-8"))


def _dgds(name: str) -> list[DGD]:
    settings, _ = resolve_settings({"namespace": "default"})
    documents, _ = load_documents((CORPUS / name).read_text(encoding="utf-8"), name)
    out: list[DGD] = []
    for document in documents:
        obj: Any = document.obj
        if not isinstance(obj, dict) or obj.get("kind") != "DynamoGraphDeployment":
            continue
        parsed, _ = parse_source(obj, settings.namespace, settings.config)
        if isinstance(parsed, DGD):
            out.append(parsed)
    return out


def test_the_corpus_has_native_and_converted_dgds() -> None:
    dgds = [dgd for name in DGD_FILES for dgd in _dgds(name)]
    native = [dgd for dgd in dgds if not has_dgd_preservation(dgd.annotations)]
    assert len(DGD_FILES) > 100 and len(native) > 50 and len(dgds) - len(native) > 50


@pytest.mark.parametrize("name", DGD_FILES)
def test_known_view_and_hash_match_the_conversion(name: str) -> None:
    settings, _ = resolve_settings({"namespace": "default"})
    for dgd in _dgds(name):
        try:
            backend_framework_for_dcds(dgd)
            generated = generate_dcds(dgd, WORKER_HASH_PLACEHOLDER)
        except RenderError:
            continue  # refused before any DCD exists: nothing to compare
        for _, obj in generated:
            known = _known_alpha(dgd, obj)
            if known is not None:
                assert known == dcd_view(obj), obj["metadata"]["name"]
        # The hash with the carriers left out (a native DGD) is the hash with them.
        try:
            fast = compute_worker_hash(dgd, settings.config)
        except RenderError as err:
            fast = f"refused: {err.message}"
        full = _hash_with_carriers(dgd, settings.config)
        assert fast == full


def _hash_with_carriers(dgd: DGD, config: Any) -> str:
    """The worker hash computed as before the shortcuts: carriers on, every view converted."""
    from renderer.admission.parse import parse_dcd
    from renderer.graph.gohash import WorkerTemplate, resolve_runtime_version_for_hash, worker_hash
    from renderer.pod.labels import kube_annotations, kube_labels
    from renderer.graph.program import _refused
    from renderer import consts

    try:
        workers: dict[str, WorkerTemplate] = {}
        for component, obj in generate_dcds(dgd, WORKER_HASH_PLACEHOLDER, alpha_carriers=True):
            if component.type not in consts.WORKER_COMPONENT_TYPES:
                continue
            dcd, results = parse_dcd(obj, dgd.namespace, config.checkpoint_enabled, admission=False, list_maps=False)
            if dcd is None:
                raise _refused(obj, results, component)
            main = dcd.main_container() or {}
            workers[component.name] = WorkerTemplate(
                labels=kube_labels(dcd),
                annotations=kube_annotations(dcd),
                runtime_version=resolve_runtime_version_for_hash(main.get("image", ""), dcd.spec.runtime_version_override or ""),
                spec=obj["spec"],
            )
        return worker_hash(workers)
    except RenderError as err:
        return f"refused: {err.message}"


@pytest.mark.parametrize("name", DGD_FILES)
def test_carrier_shortcuts_match_the_conversion(name: str) -> None:
    from renderer.graph.expand import _component_spec_dict

    for dgd in _dgds(name):
        stored = {
            "apiVersion": "nvidia.com/v1beta1",
            "kind": "DynamoGraphDeployment",
            "metadata": {"name": dgd.name, "namespace": dgd.namespace, "annotations": dict(dgd.annotations)},
            "spec": {**(dgd.source.get("spec") or {}), "components": [_component_spec_dict(c) for c in dgd.components]},
        }
        native = not has_dgd_preservation(dgd.annotations)
        try:
            services = dgd_alpha(stored).get("services") or {}
        except RenderError as err:
            if native:
                with pytest.raises(RenderError, match=re.escape(err.message)):
                    dgd_services_from_v1beta1(stored)
            continue
        if native:
            fast = dgd_services_from_v1beta1(stored)
            assert list(fast) == list(services) and fast == services
        for service_name, service in services.items():
            obj = {
                "apiVersion": "nvidia.com/v1alpha1",
                "kind": "DynamoComponentDeployment",
                "metadata": {"name": f"{dgd.name}-{service_name.lower()}", "namespace": dgd.namespace},
                "spec": {"backendFramework": "vllm", **service},
            }
            try:
                full = (dcd_to_v1beta1(obj).get("metadata") or {}).get("annotations") or {}
            except RenderError as err:
                with pytest.raises(RenderError, match=re.escape(err.message)):
                    dcd_conversion_annotations(obj)
                continue
            assert dcd_conversion_annotations(obj) == full


@pytest.mark.parametrize("name", DGD_FILES)
def test_reused_worker_templates_match_a_fresh_admission(name: str) -> None:
    import json

    from renderer.admission.parse import admit_pod_template
    from renderer.graph.program import AdmittedTemplates, _reused_pod_template

    settings, _ = resolve_settings({"namespace": "default"})
    for dgd in _dgds(name):
        admitted: AdmittedTemplates = {}
        try:
            hash_value = compute_worker_hash(dgd, settings.config, admitted)
            generated = generate_dcds(dgd, hash_value)
        except RenderError:
            continue
        for component, obj in generated:
            reused = _reused_pod_template(admitted, component, obj, hash_value)
            if reused is None:
                assert component.name not in admitted or obj["spec"].get("podTemplate") is None
                continue
            fresh, problems = admit_pod_template(obj["spec"]["podTemplate"], "spec.podTemplate", False)
            assert problems == []
            assert json.dumps(fresh) == json.dumps(reused)


def test_a_worker_template_changed_after_the_hash_pass_is_admitted_anew() -> None:
    from renderer import consts
    from renderer.graph.program import AdmittedTemplates, _reused_pod_template

    settings, _ = resolve_settings({"namespace": "default"})
    dgd = next(d for name in DGD_FILES for d in _dgds(name) if any(c.type in consts.WORKER_COMPONENT_TYPES for c in d.components))
    admitted: AdmittedTemplates = {}
    hash_value = compute_worker_hash(dgd, settings.config, admitted)
    component, obj = next((c, o) for c, o in generate_dcds(dgd, hash_value) if c.name in admitted)
    assert _reused_pod_template(admitted, component, obj, hash_value) is not None
    obj["spec"]["podTemplate"]["spec"]["schedulerName"] = "other"  # as a checkpoint policy would edit it
    assert _reused_pod_template(admitted, component, obj, hash_value) is None


@pytest.mark.parametrize("name", DGD_FILES)
def test_templates_reused_from_the_component_match_a_fresh_admission(name: str) -> None:
    import json

    from renderer.admission.parse import admit_pod_template
    from renderer.graph.program import _admitted_as_component

    for dgd in _dgds(name):
        for hash_value in (WORKER_HASH_PLACEHOLDER, "0123abcd"):
            try:
                generated = generate_dcds(dgd, hash_value)
            except RenderError:
                continue
            for component, obj in generated:
                reused = _admitted_as_component(component, obj)
                if reused is None:
                    continue
                fresh, problems = admit_pod_template(obj["spec"]["podTemplate"], "spec.podTemplate", False)
                assert problems == []
                assert json.dumps(fresh) == json.dumps(reused)


def test_a_component_template_is_reused_only_when_its_spec_is_unchanged_and_its_metadata_clean() -> None:
    from renderer.graph.program import _admitted_as_component

    dgd = next(d for name in DGD_FILES for d in _dgds(name) if any(c.pod_template is not None for c in d.components))
    component, obj = next((c, o) for c, o in generate_dcds(dgd, "0123abcd") if c.pod_template is not None)
    assert _admitted_as_component(component, obj) is not None
    obj["spec"]["podTemplate"]["metadata"]["labels"]["bad"] = "not a label value!"
    assert _admitted_as_component(component, obj) is None  # admitted anew: the full message
    del obj["spec"]["podTemplate"]["metadata"]["labels"]["bad"]
    obj["spec"]["podTemplate"]["spec"]["schedulerName"] = "other"  # as a checkpoint policy would edit it
    assert _admitted_as_component(component, obj) is None


def test_the_dcd_and_dgd_crds_embed_the_same_pod_template_schema() -> None:
    import yaml

    crds = Path(__file__).resolve().parents[1] / "data" / "crds"

    def v1beta1(file: str) -> Any:
        crd = yaml.safe_load((crds / file).read_text(encoding="utf-8"))
        return next(v for v in crd["spec"]["versions"] if v["name"] == "v1beta1")["schema"]["openAPIV3Schema"]["properties"]["spec"]

    dcd = v1beta1("nvidia.com_dynamocomponentdeployments.yaml")["properties"]["podTemplate"]
    dgd = v1beta1("nvidia.com_dynamographdeployments.yaml")["properties"]["components"]["items"]["properties"]["podTemplate"]
    assert dcd == dgd and "properties" in dcd
