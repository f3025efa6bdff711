"""The CEL rules (``x-kubernetes-validations``) of the v1alpha1 DCD and DGD schemas and of the v1beta1 DCD schema, ported.

The schemas carry a few dozen rules, each a small boolean expression over the object it
sits on. Rather than interpret CEL, each rule is ported by hand and registered under its exact
rule text: the schema walker (renderer/admission/v1alpha1/schema.py) looks a rule up by that
text, and tests/unit/test_v1alpha1_schema.py and tests/unit/test_dcd_crd.py fail when a CRD
holds a rule that is neither ported nor listed as an update-only (transition) rule. The
v1beta1 DCD rules are checked on the DCDs a DGD generates (renderer/admission/dcd_crd.py); a
DCD written in v1beta1 has them in renderer/admission/webhook.py. On a create, which is what rendering
from Git models, a transition rule (one that reads ``oldSelf``) is never evaluated.

``self`` is the object after pruning and structural defaulting; ``has(self.x)`` is presence of
the key.

Mirrors: config/crd/bases/nvidia.com_dynamo{component,graph}deployments.yaml (v1alpha1
x-kubernetes-validations, and v1beta1 of the DCD CRD), generated from the
+kubebuilder:validation:XValidation markers in api/v1alpha1 and api/v1beta1 and the podTemplate
rules the operator's Makefile adds; k8s.io/apiserver CEL library quantity (isGreaterThan),
cel-go strings extension (lowerAscii).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from renderer.gocompat.quantity import unmarshal_quantity

Rule = Callable[[dict[str, Any]], bool]


def _min_available(self: dict[str, Any]) -> bool:
    if "minAvailable" not in self:
        return True
    replicas = self.get("replicas")
    if "replicas" in self and replicas == 0:
        return True
    return bool(self["minAvailable"] <= (replicas if "replicas" in self else 1))


def _checkpoint_job(self: dict[str, Any]) -> bool:
    return "job" not in self or "checkpointRef" not in self or len(self["checkpointRef"]) == 0


def _gms_extra_containers(self: dict[str, Any]) -> bool:
    return "extraClientContainers" not in self or len(self["extraClientContainers"]) == 0 or self.get("mode") == "intraPod"


def _gms_extra_pods_mode(self: dict[str, Any]) -> bool:
    return "extraClientPods" not in self or len(self["extraClientPods"]) == 0 or self.get("mode") == "interPod"


def _gms_extra_pods_reserved(self: dict[str, Any]) -> bool:
    return "extraClientPods" not in self or len(self["extraClientPods"]) == 0


def _shared_memory(self: dict[str, Any]) -> bool:
    if self.get("disabled") is True:
        return True
    if "size" not in self:
        return False
    try:
        return unmarshal_quantity(self["size"]).sign() > 0
    except ValueError:
        return False  # the schema's pattern reports the malformed quantity itself


def _kvt_exactly_one(self: dict[str, Any]) -> bool:
    return ("labelKey" in self) != ("clusterTopologyName" in self)


def _kvt_weight_required(self: dict[str, Any]) -> bool:
    return "enforcement" not in self or self["enforcement"] != "preferred" or "preferredWeight" in self


def _kvt_weight_only_preferred(self: dict[str, Any]) -> bool:
    return "preferredWeight" not in self or self.get("enforcement") == "preferred"


def _label_key_prefix(self: Any) -> bool:
    return "/" not in self or len(self.split("/")[0]) <= 253


def _pvc_create(self: dict[str, Any]) -> bool:
    return (
        "create" not in self
        or self["create"] is False
        or ("size" in self and "storageClass" in self and "volumeAccessMode" in self)
    )


def _epp_config_only_on_epp(self: dict[str, Any]) -> bool:
    return "eppConfig" not in self or self.get("type") == "epp"


def _epp_config_exactly_one(self: dict[str, Any]) -> bool:
    return ("configMapRef" in self) != ("config" in self)


def _gms_extra_containers_beta(self: dict[str, Any]) -> bool:
    return "extraClientContainers" not in self or len(self["extraClientContainers"]) == 0 or self.get("mode") == "IntraPod"


def _gms_extra_pods_mode_beta(self: dict[str, Any]) -> bool:
    return "extraClientPods" not in self or len(self["extraClientPods"]) == 0 or self.get("mode") == "InterPod"


def _lower_ascii(text: str) -> str:
    """CEL's lowerAscii: only the ASCII letters A-Z change."""
    return "".join(chr(ord(c) + 32) if "A" <= c <= "Z" else c for c in text)


def _vllm_executor_backend(self: dict[str, Any]) -> bool:
    key = "nvidia.com/vllm-distributed-executor-backend"
    return key not in self or _lower_ascii(str(self[key])) in ("mp", "ray")


def _sidecar_image(self: dict[str, Any]) -> bool:
    return self.get("name") == "main" or bool(self.get("image"))


def _init_container_image(self: dict[str, Any]) -> bool:
    return bool(self.get("image"))


# rule text -> its port
RULES: dict[str, Callable[[Any], bool]] = {
    "!has(self.minAvailable) || (has(self.replicas) && self.replicas == 0) || self.minAvailable <= (has(self.replicas) ? self.replicas : 1)": _min_available,
    "!has(self.job) || !has(self.checkpointRef) || size(self.checkpointRef) == 0": _checkpoint_job,
    "!has(self.extraClientContainers) || size(self.extraClientContainers) == 0 || self.mode == 'intraPod'": _gms_extra_containers,
    "!has(self.extraClientPods) || size(self.extraClientPods) == 0 || self.mode == 'interPod'": _gms_extra_pods_mode,
    "!has(self.extraClientPods) || size(self.extraClientPods) == 0": _gms_extra_pods_reserved,
    "(has(self.disabled) && self.disabled) || (has(self.size) && quantity(self.size).isGreaterThan(quantity('0')))": _shared_memory,
    "(has(self.labelKey) && !has(self.clusterTopologyName)) || (!has(self.labelKey) && has(self.clusterTopologyName))": _kvt_exactly_one,
    "!has(self.enforcement) || self.enforcement != 'preferred' || has(self.preferredWeight)": _kvt_weight_required,
    "!has(self.preferredWeight) || (has(self.enforcement) && self.enforcement == 'preferred')": _kvt_weight_only_preferred,
    "!self.contains('/') || self.split('/')[0].size() <= 253": _label_key_prefix,
    "!has(self.create) || self.create == false || (has(self.size) && has(self.storageClass) && has(self.volumeAccessMode))": _pvc_create,
    # v1beta1 DCD
    "!has(self.eppConfig) || (has(self.type) && self.type == 'epp')": _epp_config_only_on_epp,
    "has(self.configMapRef) != has(self.config)": _epp_config_exactly_one,
    "!has(self.extraClientContainers) || size(self.extraClientContainers) == 0 || self.mode == 'IntraPod'": _gms_extra_containers_beta,
    "!has(self.extraClientPods) || size(self.extraClientPods) == 0 || self.mode == 'InterPod'": _gms_extra_pods_mode_beta,
    '!("nvidia.com/vllm-distributed-executor-backend" in self) || self["nvidia.com/vllm-distributed-executor-backend"].lowerAscii() in ["mp", "ray"]': _vllm_executor_backend,
    'self.name == "main" || (has(self.image) && self.image != "")': _sidecar_image,
    'has(self.image) && self.image != ""': _init_container_image,
}

# Not evaluated here. Transition rules read oldSelf, so the API server evaluates them on update
# only. ``oldSelf.hasValue() || !has(self.restart)`` (optionalOldSelf) does run on create, but
# spec.restart converts unchanged and the v1beta1 DGD admission reports it at the same path
# (renderer/graph/dgd.py validate_dgd), so it is left to that one place.
NOT_EVALUATED: frozenset[str] = frozenset(
    {
        "!has(oldSelf.minAvailable) || (has(self.minAvailable) && self.minAvailable == oldSelf.minAvailable)",
        "oldSelf.hasValue() || !has(self.restart)",
    }
)


def rule(text: str) -> Callable[[Any], bool] | None:
    """The port of a rule evaluated here, None for one that is not; KeyError if unported."""
    if text in NOT_EVALUATED:
        return None
    return RULES[text]
