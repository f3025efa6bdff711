"""The Grove gate in the Argo CD plugin, run the way cmp-server runs ``generate``.

The operator decides Grove from its configuration: ``orchestrators.grove.enabled`` true or false
wins; unset, Grove is on when the cluster serves the grove.io API group
(internal/features/gates.go New). Its Helm chart writes ``enabled: false`` unless installed with
``global.grove.enabled`` or ``global.grove.install``
(deploy/helm/charts/platform/components/operator/templates/operator-config.yaml). So, for a
destination whose ``KUBE_API_VERSIONS`` lists grove.io:

- with the operator's configuration (Grove unset), the graph renders to a PodCliqueSet;
- with no operator configuration, the chart's default holds: the component pathway, and a
  note says why and how to switch Grove on;
- the ``grove-gate`` parameter forces it either way, as ``lws-gate`` does for LeaderWorkerSets.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.e2e.test_cmp import EXAMPLE_REPO, STOCK_APIS, Sidecar

GROVE_APIS = ["grove.io/v1alpha1", "grove.io/v1alpha1/PodCliqueSet"]

DGD = """\
apiVersion: nvidia.com/v1beta1
kind: DynamoGraphDeployment
metadata:
  name: chat
spec:
  components:
  - name: frontend
    type: frontend
    podTemplate:
      spec:
        containers:
        - name: main
          image: registry.example/runtime:1.5.0
"""

# The operator's configuration as its ConfigMap holds it (Grove left unset: detected).
OPERATOR_CONFIG = {
    "apiVersion": "operator.config.dynamo.nvidia.com/v1alpha1",
    "kind": "OperatorConfiguration",
    "namespace": {"restricted": "llm"},
    "mpi": {"sshSecretName": "mpi-run-ssh-secret", "sshSecretNamespace": "dynamo-system"},
}


@pytest.fixture
def sidecar(tmp_path: Path) -> Sidecar:
    side = Sidecar(tmp_path, EXAMPLE_REPO)
    app = side.repo / "apps" / "grove"
    app.mkdir()
    (app / "dgd.yaml").write_text(DGD)
    # beside the app folder, not in it (a file in it would be read as a manifest)
    (side.repo / "grove-operator-config.yaml").write_text(json.dumps(OPERATOR_CONFIG))
    return side


def kinds(run: object) -> list[str]:
    return sorted({o["kind"] for o in run.objects})  # type: ignore[attr-defined]


def test_with_the_operator_configuration_grove_follows_the_cluster(sidecar: Sidecar) -> None:
    params = [{"name": "operator-config-path", "string": "../../grove-operator-config.yaml"}]
    served = sidecar.generate("apps/grove", api_versions=STOCK_APIS + GROVE_APIS, parameters=params)
    assert served.code == 0, served.stderr
    assert "PodCliqueSet" in kinds(served) and "Deployment" not in kinds(served)
    not_served = sidecar.generate("apps/grove", api_versions=STOCK_APIS, parameters=params)
    assert not_served.code == 0, not_served.stderr
    assert "Deployment" in kinds(not_served) and "PodCliqueSet" not in kinds(not_served)


def test_without_an_operator_configuration_the_helm_default_holds_and_a_note_says_so(sidecar: Sidecar) -> None:
    run = sidecar.generate("apps/grove", api_versions=STOCK_APIS + GROVE_APIS, parameters=None)
    assert run.code == 0, run.stderr
    assert "Deployment" in kinds(run) and "PodCliqueSet" not in kinds(run)
    assert "serves grove.io, but without an operator configuration" in run.stderr
    assert "grove-gate parameter" in run.stderr


@pytest.mark.parametrize(("gate", "expected"), [("true", "PodCliqueSet"), ("false", "Deployment")])
def test_the_grove_gate_parameter_forces_it(sidecar: Sidecar, gate: str, expected: str) -> None:
    params = [{"name": "grove-gate", "string": gate}, {"name": "operator-config-path", "string": "../../grove-operator-config.yaml"}]
    run = sidecar.generate("apps/grove", api_versions=STOCK_APIS + GROVE_APIS, parameters=params)
    assert run.code == 0, run.stderr
    assert expected in kinds(run)
    assert "serves grove.io, but" not in run.stderr
    # Without an operator configuration too.
    alone = sidecar.generate("apps/grove", api_versions=STOCK_APIS + GROVE_APIS, parameters=params[:1])
    assert alone.code == 0, alone.stderr
    assert expected in kinds(alone)
