"""SGLang backend shaping.

Single-node SGLang pods are left as the user wrote them (the compilation cache only logs).
Multinode pods get SGLang's distributed-init flags; workers lose their probes.
Mirrors: internal/dynamo/backend_sglang.go.
"""

from __future__ import annotations

from typing import Any

from renderer import consts
from renderer.pod.backends.common import ALL_PROBES, BackendContext, drop_probes, multinode_only
from renderer.admission.flags import inject_flags_into_container_command

SGLANG_DIST_INIT_PORT = "29500"


def multinode_flags(ctx: BackendContext) -> tuple[str, bool]:
    """``--dist-init-addr <leader>:29500 --nnodes <n> --node-rank <rank>`` and whether a shell is needed.

    The leader is rank 0; every other role (worker, and ``main`` on a Deployment) takes the
    deployer's rank. Mirrors: internal/dynamo/backend_sglang.go getMultinodeFlags.
    """
    leader = ctx.deployer.leader_hostname(ctx.service_name)
    if ctx.role == consts.ROLE_LEADER:
        rank, needs_shell = "0", False
    else:
        rank, needs_shell = ctx.deployer.node_rank()
    flags = f"--dist-init-addr {leader}:{SGLANG_DIST_INIT_PORT} --nnodes {ctx.number_of_nodes} --node-rank {rank}"
    return flags, needs_shell


class SGLangBackend:
    @multinode_only
    def update_container(self, container: dict[str, Any], ctx: BackendContext) -> None:
        """Mirrors: internal/dynamo/backend_sglang.go SGLangBackend.UpdateContainer."""
        # Multinode workers are not probed: only the leader serves.
        if ctx.role == consts.ROLE_WORKER:
            drop_probes(container, *ALL_PROBES)
        flags, needs_shell = multinode_flags(ctx)
        inject_flags_into_container_command(container, flags, needs_shell, consts.BACKEND_SGLANG)

    def update_pod_spec(self, pod_spec: dict[str, Any], ctx: BackendContext) -> dict[str, Any]:
        """Mirrors: internal/dynamo/backend_sglang.go SGLangBackend.UpdatePodSpec (nothing to do)."""
        return pod_spec


BACKEND = SGLangBackend()
