"""Multinode deployers, and the deployers the backend table tests share.

The upstream backend tests run every backend against three more deployers besides LWS: the
Grove deployer (whose ``$((...))`` rank needs a shell) and two test doubles. They are
restated here so the backend tables can be ported case for case; the DCD path itself only
ever uses the LWS deployer.

Restates: internal/dynamo/backend_trtllm_test.go TestTRTLLMBackend_hostNamesList,
internal/dynamo/backend_sglang_test.go MockSimpleDeployer / MockShellDeployer,
internal/dynamo/grove.go GroveMultinodeDeployer (non-GMS layout).
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from renderer import consts
from renderer.admission.api import DynamoComponentDeploymentSpec
from renderer.pod.backends import BACKENDS, get_backend
from renderer.pod.backends.common import LWS, BackendContext, Deployer
from renderer.results import RenderError


class GroveDeployer:
    """The operator's Grove deployer, non-GMS layout (test restatement of grove.go)."""

    def leader_hostname(self, service_name: str) -> str:
        return f"$(GROVE_PCSG_NAME)-$(GROVE_PCSG_INDEX)-{service_name.lower()}-ldr-0.$(GROVE_HEADLESS_SERVICE)"

    def node_rank(self) -> tuple[str, bool]:
        return "$((GROVE_PCLQ_POD_INDEX + 1))", True

    def needs_dns_wait(self) -> bool:
        return False

    def host_names(self, service_name: str, number_of_nodes: int) -> list[str]:
        return [self.leader_hostname(service_name)] + [
            f"$(GROVE_PCSG_NAME)-$(GROVE_PCSG_INDEX)-{service_name.lower()}-wkr-{i}.$(GROVE_HEADLESS_SERVICE)"
            for i in range(number_of_nodes - 1)
        ]


class SimpleDeployer:
    """Upstream's MockSimpleDeployer: a plain rank that needs no shell."""

    def leader_hostname(self, service_name: str) -> str:
        return "leader.example.com"

    def node_rank(self) -> tuple[str, bool]:
        return "1", False

    def needs_dns_wait(self) -> bool:
        return False

    def host_names(self, service_name: str, number_of_nodes: int) -> list[str]:
        return ["leader.example.com"] + [f"worker{i}.example.com" for i in range(1, number_of_nodes)]


class ShellDeployer:
    """Upstream's MockShellDeployer: a rank that needs shell interpretation."""

    def leader_hostname(self, service_name: str) -> str:
        return "$(LEADER_HOST)"

    def node_rank(self) -> tuple[str, bool]:
        return "$(WORKER_INDEX)", True

    def needs_dns_wait(self) -> bool:
        return True

    def host_names(self, service_name: str, number_of_nodes: int) -> list[str]:
        return ["$(LEADER_HOST)"] + [f"$(WORKER_{i}_HOST)" for i in range(1, number_of_nodes)]


GROVE = GroveDeployer()
SIMPLE = SimpleDeployer()
SHELL = ShellDeployer()


def gpus_fixed(count: int) -> Callable[[], int]:
    return lambda: count


def gpus_failing(message: str) -> Callable[[], int]:
    def fail() -> int:
        raise RenderError(message, "spec.podTemplate.spec.containers[0].resources.limits[nvidia.com/gpu]")

    return fail


def context(
    nodes: int = 2,
    role: str = consts.ROLE_LEADER,
    deployer: Deployer = LWS,
    gpus: Callable[[], int] | int = 0,
    annotations: dict[str, str] | None = None,
    service_name: str = "test-service",
    parent_name: str = "",
    secret: str = "mpi-run-ssh-secret",
    cache_mount_path: str = "",
) -> BackendContext:
    """A BackendContext with the upstream tests' defaults (service ``test-service``)."""
    return BackendContext(
        number_of_nodes=nodes,
        role=role,
        spec=DynamoComponentDeploymentSpec.model_validate({}),
        annotations=annotations or {},
        service_name=service_name,
        parent_name=parent_name,
        mpi_ssh_secret_name=secret,
        compilation_cache_mount_path=cache_mount_path,
        gpu_count=gpus_fixed(gpus) if isinstance(gpus, int) else gpus,
        deployer=deployer,
    )


LWS_SED = "$(echo \"$LWS_LEADER_ADDRESS\" | sed 's/\\./-{}\\./')"


@pytest.mark.parametrize(
    ("deployer", "service", "nodes", "expected"),
    [
        pytest.param(
            GROVE, "test-service", 3,
            [
                "$(GROVE_PCSG_NAME)-$(GROVE_PCSG_INDEX)-test-service-ldr-0.$(GROVE_HEADLESS_SERVICE)",
                "$(GROVE_PCSG_NAME)-$(GROVE_PCSG_INDEX)-test-service-wkr-0.$(GROVE_HEADLESS_SERVICE)",
                "$(GROVE_PCSG_NAME)-$(GROVE_PCSG_INDEX)-test-service-wkr-1.$(GROVE_HEADLESS_SERVICE)",
            ],
            id="grove-3-nodes",
        ),
        pytest.param(LWS, "test-service", 2, ["$(LWS_LEADER_ADDRESS)", LWS_SED.format(1)], id="lws-2-nodes"),
        pytest.param(
            LWS, "worker", 4,
            ["$(LWS_LEADER_ADDRESS)", LWS_SED.format(1), LWS_SED.format(2), LWS_SED.format(3)],
            id="lws-4-nodes",
        ),
    ],
)
def test_host_names(deployer: Deployer, service: str, nodes: int, expected: list[str]) -> None:
    """Restates: backend_trtllm_test.go TestTRTLLMBackend_hostNamesList."""
    assert deployer.host_names(service, nodes) == expected


def test_lws_deployer_uses_kubelet_expansion() -> None:
    """Restates: internal/dynamo/lws.go (leader address and rank need no shell; DNS wait needed)."""
    assert LWS.leader_hostname("Any-Service") == "$(LWS_LEADER_ADDRESS)"
    assert LWS.node_rank() == ("$(LWS_WORKER_INDEX)", False)
    assert LWS.needs_dns_wait() is True


def test_backend_context_defaults_to_the_lws_deployer() -> None:
    ctx = BackendContext(
        number_of_nodes=2,
        role=consts.ROLE_WORKER,
        spec=DynamoComponentDeploymentSpec.model_validate({}),
        annotations={},
        service_name="x",
        parent_name="p",
        mpi_ssh_secret_name="s",
        compilation_cache_mount_path="",
        gpu_count=gpus_fixed(0),
    )
    assert ctx.deployer is LWS


def test_backend_registry_is_explicit() -> None:
    """Mirrors: internal/dynamo/graph.go BackendFactory (a miss is a render error)."""
    assert sorted(BACKENDS) == ["noop", "sglang", "trtllm", "vllm"]
    assert get_backend("vllm") is BACKENDS["vllm"]
    with pytest.raises(RenderError) as err:
        get_backend("tensorflow")
    assert (err.value.message, err.value.field) == ("unsupported backend framework: tensorflow", "spec.backendFramework")


def test_noop_backend_changes_nothing() -> None:
    container: dict[str, object] = {"args": ["x"]}
    spec: dict[str, object] = {"containers": [container]}
    noop = BACKENDS["noop"]
    assert noop.update_container(container, context(nodes=4, role=consts.ROLE_WORKER)) is container
    assert noop.update_pod_spec(spec, context(nodes=4, role=consts.ROLE_WORKER)) is spec
