"""The v1beta1 DCD CRD, as the API server checks a DCD the DGD controller creates.

The DGD controller creates one DCD per component of a DGD on the component pathway. The API
server admits that create against the v1beta1 DCD CRD: structural schema, list types and every
CEL rule. A v1beta1 DGD was admitted with the same rules at component level, but a v1alpha1 DGD
was admitted against its own v1alpha1 schema, which lacks several of them (``eppConfig`` only on
type ``epp``, exactly one of ``configMapRef`` and ``config``, images for sidecars and init
containers, the vLLM executor annotation): the API server stores such a DGD, refuses its DCDs,
the reconcile fails and nothing is deployed. So every generated DCD goes through the CRD here
before it renders.

The schema table is generated from the CRD (renderer/admission/dcd_crd_schema.py) and the CEL
rules are looked up by their text in renderer/admission/v1alpha1/cel.py, so a rule added
upstream fails a test until it is ported. The operator builds the DCD from Go types, so an
unknown field cannot occur in it; fields the API server would prune are not reported.

Mirrors: config/crd/bases/nvidia.com_dynamocomponentdeployments.yaml (v1beta1), as
k8s.io/apiextensions-apiserver validates a create; internal/controller/dgd_component_program.go
(the DCD create whose refusal fails the reconcile).
"""

from __future__ import annotations

from typing import Any

from renderer.admission.dcd_crd_schema import NODES, ROOTS
from renderer.admission.v1alpha1.schema import admit_against
from renderer.results import Result

def refusals(spec: dict[str, Any]) -> list[Result]:
    """The errors the API server would refuse a generated DCD ``spec`` for, under ``spec``."""
    _out, results = admit_against(NODES, ROOTS["DynamoComponentDeployment"], frozenset(), spec, owned=False, strict=False)
    return [r for r in results if r.is_error]
