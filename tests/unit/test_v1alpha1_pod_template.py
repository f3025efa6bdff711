"""The one port of buildSharedPodTemplateFromAlpha, as both conversion directions use it.

The v1alpha1 -> v1beta1 direction builds the pod template from the flat v1alpha1 fields; the
v1beta1 -> v1alpha1 direction builds it again from what it decomposed, to find what only the hub
can say. Upstream both call one function (api/v1alpha1/shared_spec_conversion.go
buildSharedPodTemplateFromAlpha); the expected values below are read off that Go code.
"""

from __future__ import annotations

from typing import Any

from renderer.conversion.from_v1beta1 import dcd_from_v1beta1
from renderer.conversion.podtemplate_to import build_pod_template, has_pod_template_content
from renderer.conversion.to_v1beta1 import dcd_to_v1beta1


def _alpha_dcd(spec: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": "nvidia.com/v1alpha1",
        "kind": "DynamoComponentDeployment",
        "metadata": {"name": "worker", "namespace": "ns"},
        "spec": {"backendFramework": "vllm", "componentType": "worker", **spec},
    }


# a dedicated probe on the named port "http" under a main-container probe on 8080
PROBES = {
    "livenessProbe": {"httpGet": {"path": "/live", "port": "http"}},
    "extraPodSpec": {"mainContainer": {"image": "img", "livenessProbe": {"httpGet": {"port": 8080}}}},
}


def test_main_container_probe_merges_into_the_named_port() -> None:
    # mergo.Merge(WithOverride) merges the two *Probe values field by field; intstr.IntOrString
    # is a struct {Type, IntVal, StrVal}: the user's IntVal 8080 lands, but its zero Type does not
    # override Type=String, so the merged port still marshals as "http"
    template = build_pod_template(PROBES, False)
    assert template is not None
    main = template["spec"]["containers"][0]
    assert main["livenessProbe"] == {"httpGet": {"path": "/live", "port": "http"}}


def test_probe_origins_survive_the_round_trip() -> None:
    # ConvertTo saves the main container's own probe in nvidia.com/dcd-spec; ConvertFrom restores
    # it when the semantic main container of the preserved spec equals the one it decomposed,
    # which holds only when both directions merge the probe the same way ("http")
    alpha = _alpha_dcd(PROBES)
    back = dcd_from_v1beta1(dcd_to_v1beta1(alpha))
    assert back["spec"]["extraPodSpec"] == PROBES["extraPodSpec"]
    assert back["spec"]["livenessProbe"] == PROBES["livenessProbe"]
    assert "nvidia.com/dcd-spec" not in (back["metadata"].get("annotations") or {})


def test_null_resources_are_no_pod_template_content() -> None:
    # hasPodTemplateContent tests src.Resources != nil; JSON null decodes to a nil pointer
    assert not has_pod_template_content({"resources": None}, False)
    assert build_pod_template({"resources": None}, False) is None
    # a present, empty Resources is a non-nil pointer: content, and the main container gets it
    template = build_pod_template({"resources": {}}, False)
    assert template is not None
    assert template["spec"]["containers"] == [{"name": "main", "resources": {}}]


def test_frontend_sidecar_reference_alone_builds_a_template() -> None:
    # shouldBuildPodTemplate: hasPodTemplateContent || hasFrontendSidecarRef
    assert build_pod_template({}, False) is None
    assert build_pod_template({}, False, has_frontend_sidecar_ref=True) == {"spec": {"containers": [{"name": "main"}]}}
