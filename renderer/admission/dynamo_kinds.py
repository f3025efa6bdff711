"""The kinds and versions the Dynamo CRDs define, and the error for a Dynamo object that names neither.

A Dynamo kind at a version its CRD does not serve, or a kind in the ``nvidia.com`` group that
looks like a Dynamo kind but that no Dynamo CRD defines (a typo), reaches no controller: the
API server (or kubectl's REST mapping) refuses it. Passed through, it would leave the render
without the objects the user meant to ask for. Other NVIDIA kinds share the group (the GPU
operator's ``ClusterPolicy`` at ``nvidia.com/v1``, ``NVIDIADriver``), so the group alone does
not decide: only kinds a Dynamo CRD defines, or that read as a misspelling of one, are checked.

Mirrors: deploy/operator/config/crd/bases/nvidia.com_*.yaml (spec.names.kind, spec.versions[].served)
at the reference commit; k8s.io/apimachinery pkg/api/meta NoKindMatchError (the "no matches for
kind" wording).
"""

from __future__ import annotations

import difflib
from typing import Any

from renderer import consts
from renderer.results import Code, ResourceRef, Result

# kind -> the versions its CRD serves, as the reference's CRDs declare them.
SERVED: dict[str, tuple[str, ...]] = {
    "DynamoCheckpoint": ("v1alpha1",),
    consts.DCD_KIND: ("v1alpha1", "v1beta1"),
    "DynamoGraphDeploymentRequest": ("v1alpha1", "v1beta1"),
    consts.DGD_KIND: ("v1alpha1", "v1beta1"),
    "DynamoGraphDeploymentScalingAdapter": ("v1alpha1", "v1beta1"),
    "DynamoModel": ("v1alpha1",),
    "DynamoWorkerMetadata": ("v1alpha1",),
}
DYNAMO_CRD_KINDS: tuple[str, ...] = tuple(SERVED)
_CLOSE = 0.8


def refused_kind(obj: Any) -> Result | None:
    """Why no Dynamo CRD takes ``obj`` (a served-version or unknown-kind error), or None.

    None for every object outside ``nvidia.com``, for a Dynamo kind at a served version, and
    for an ``nvidia.com`` kind that does not read as a Dynamo kind.
    """
    if not isinstance(obj, dict):
        return None
    api_version, kind = obj.get("apiVersion"), obj.get("kind")
    if not isinstance(api_version, str) or not isinstance(kind, str) or not api_version.startswith(consts.DYNAMO_GROUP + "/"):
        return None
    version = api_version[len(consts.DYNAMO_GROUP) + 1:]
    served = SERVED.get(kind)
    if served is not None:
        if version in served:
            return None
        listed = ", ".join(f"{consts.DYNAMO_GROUP}/{v}" for v in served)
        return Result(
            f'no matches for kind "{kind}" in version "{api_version}": its CRD serves {listed}',
            resource=ResourceRef.of(obj), field="apiVersion", code=Code.API_SERVER,
        )
    close = difflib.get_close_matches(kind, DYNAMO_CRD_KINDS, n=1, cutoff=_CLOSE)
    if not close and not kind.lower().startswith("dynamo"):
        return None
    hint = f"did you mean {close[0]}?" if close else f"the Dynamo kinds are {', '.join(DYNAMO_CRD_KINDS)}"
    return Result(
        f'no Dynamo CRD defines kind "{kind}" in group {consts.DYNAMO_GROUP}: {hint}',
        resource=ResourceRef.of(obj), field="kind", code=Code.API_SERVER,
    )


__all__ = ["DYNAMO_CRD_KINDS", "SERVED", "refused_kind"]
