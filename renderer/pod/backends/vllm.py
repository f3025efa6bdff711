"""vLLM backend shaping: multinode launch (Ray, multiprocessing, data parallel, elastic EP).

A multinode vLLM group picks one launch shape from the engine flags and the main
container's GPU count, in this order:

1. tensor x pipeline parallel size exceeds the GPUs of one pod: a distributed launch, with
   multiprocessing (``mp``) when the pod template asks for it, else Ray;
2. ``--enable-elastic-ep``: a Ray cluster whose workers join only once the leader serves;
3. tensor x pipeline x data parallel size exceeds the GPUs of one pod: hybrid-LB data
   parallelism, each node running its share of the ranks;
4. otherwise the command is left alone.

Flags are read only in their ``--flag value`` spelling (``--tensor-parallel-size=8`` is not
seen), exactly as the operator reads them.
Mirrors: internal/dynamo/backend_vllm.go.
"""

from __future__ import annotations

import re
from typing import Any

from renderer import consts
from renderer.gocompat.merge import copy_json
from renderer.pod.backends.common import ALL_PROBES, BackendContext, drop_probes
from renderer.pod.backends.compat import VLLM_MULTIPROCESSING_MIN_ORIGIN, origin_version_at_least
from renderer.admission.flags import (
    ENABLE_ELASTIC_EP_FLAG,
    container_command_line_has_arg,
    container_has_arg,
    expanded_args,
    get_flag_value,
    has_flag,
    inject_flags_into_container_command,
    is_elastic_ep_ray_launch,
    shell_quote_for_bash_c,
    shell_quote_posix,
)
from renderer.results import RenderError

RAY_PORT = "6379"
DATA_PARALLEL_RPC_PORT = "13445"
TENSOR_PARALLEL_SIZE_FLAG = "--tensor-parallel-size"
PIPELINE_PARALLEL_SIZE_FLAG = "--pipeline-parallel-size"
DATA_PARALLEL_SIZE_FLAG = "--data-parallel-size"
DATA_PARALLEL_SIZE_LOCAL_FLAG = "--data-parallel-size-local"
DISTRIBUTED_EXECUTOR_FLAG = "--distributed-executor-backend"

WAIT_LEADER_CONFIG_MAP_SUFFIX = "wait-leader-script"
WAIT_LEADER_SCRIPT_KEY = "wait-for-leader.py"
WAIT_LEADER_VOLUME_NAME = "wait-leader-script"
WAIT_LEADER_MOUNT_PATH = "/scripts"
WAIT_LEADER_INIT_CONTAINER_NAME = "wait-for-leader-mp"

_POD_IP_ENV_SOURCE = {"fieldRef": {"fieldPath": "status.podIP"}}
_K8S_VAR = re.compile(r"\$\(([0-9A-Za-z_]+)\)")

_INT64_MIN, _INT64_RANGE = -(2**63), 2**64


def _int64(value: int) -> int:
    """Wrap to int64 the way Go's int64 arithmetic overflows."""
    return (value - _INT64_MIN) % _INT64_RANGE + _INT64_MIN


def _go_div(a: int, b: int) -> int:
    """Go's integer division: truncated toward zero."""
    quotient = abs(a) // abs(b)
    return quotient if (a >= 0) == (b > 0) else -quotient


def should_use_mp_backend(annotations: dict[str, str]) -> bool:
    """Multiprocessing or Ray for a distributed launch.

    The pod-template annotation ``nvidia.com/vllm-distributed-executor-backend`` decides when
    it says ``mp`` or ``ray`` (any case); otherwise resources first created by operator
    1.0.0 or later (``nvidia.com/dynamo-operator-origin-version``) use mp. A standalone DCD
    with neither annotation therefore uses Ray.
    Mirrors: internal/dynamo/backend_vllm.go shouldUseMpBackend.
    """
    override = annotations.get(consts.ANNOTATION_VLLM_DISTRIBUTED_EXECUTOR_BACKEND)
    if override is not None:
        if override.lower() == "mp":
            return True
        if override.lower() == "ray":
            return False
    return origin_version_at_least(annotations, VLLM_MULTIPROCESSING_MIN_ORIGIN)


def world_size(tokens: list[str]) -> int:
    """Tensor x pipeline parallel size. Mirrors: internal/dynamo/backend_vllm.go getWorldSize."""
    return _int64(get_flag_value(tokens, TENSOR_PARALLEL_SIZE_FLAG) * get_flag_value(tokens, PIPELINE_PARALLEL_SIZE_FLAG))


def needs_tensor_parallel_multinode_launch(tokens: list[str], gpus: int) -> bool:
    """Mirrors: internal/dynamo/backend_vllm.go needsTensorParallelMultinodeLaunch."""
    return gpus != 0 and world_size(tokens) > gpus


def needs_data_parallel_multinode_launch(tokens: list[str], gpus: int) -> bool:
    """Mirrors: internal/dynamo/backend_vllm.go needsDataParallelMultinodeLaunch."""
    return gpus != 0 and _int64(world_size(tokens) * get_flag_value(tokens, DATA_PARALLEL_SIZE_FLAG)) > gpus


def _quoted_command_line(container: dict[str, Any]) -> tuple[str, str]:
    command = " ".join(shell_quote_for_bash_c(token) for token in container.get("command") or [])
    args = " ".join(shell_quote_for_bash_c(arg) for arg in container.get("args") or [])
    return command, args


def inject_mp_distributed_launch_flags(container: dict[str, Any], ctx: BackendContext) -> None:
    """vLLM multiprocessing across nodes: the leader is rank 0, workers run headless.

    Role ``main`` (a Deployment) gets the coordination flags without any rank.
    Mirrors: internal/dynamo/backend_vllm.go injectMpDistributedLaunchFlags.
    """
    leader = ctx.deployer.leader_hostname(ctx.service_name)
    flags = (
        f"{DISTRIBUTED_EXECUTOR_FLAG} mp --nnodes {ctx.number_of_nodes} --master-addr {leader} "
        f"--master-port {consts.VLLM_MP_MASTER_PORT}"
    )
    needs_shell = False
    if ctx.role == consts.ROLE_LEADER:
        flags += " --node-rank 0"
    elif ctx.role == consts.ROLE_WORKER:
        rank, needs_shell = ctx.deployer.node_rank()
        flags += f" --node-rank {rank} --headless"
    inject_flags_into_container_command(container, flags, needs_shell, consts.BACKEND_VLLM)


def inject_ray_distributed_launch_flags(container: dict[str, Any], ctx: BackendContext) -> None:
    """The leader starts a Ray head then the engine; workers only join the Ray cluster.

    Every role ends with ``/bin/sh -c`` as its command: the leader's original command and
    args are re-quoted into one shell line (so a ``/bin/sh -c "<line>"`` command ends up
    nested, with ``--distributed-executor-backend ray`` passed to the inner shell as ``$0``),
    and role ``main`` keeps its args but loses its command.
    Mirrors: internal/dynamo/backend_vllm.go injectRayDistributedLaunchFlags.
    """
    if ctx.role == consts.ROLE_LEADER:
        command, args = _quoted_command_line(container)
        container["args"] = [f"ray start --head --port={RAY_PORT} && {command} {args} {DISTRIBUTED_EXECUTOR_FLAG} ray"]
    elif ctx.role == consts.ROLE_WORKER:
        leader = ctx.deployer.leader_hostname(ctx.service_name)
        container["args"] = [f"ray start --address={leader}:{RAY_PORT} --block"]
    container["command"] = ["/bin/sh", "-c"]


def inject_elastic_ep_ray_launch_flags(container: dict[str, Any], role: str, ctx: BackendContext) -> bool:
    """A Ray cluster for elastic expert parallelism; returns whether the container was rewritten.

    The leader (or a single pod, role ``main``) starts a Ray head in the background, waits up
    to 300 s for its port, then runs the engine; a single pod pins the head to its pod IP
    and ``exec``s the engine so it receives SIGTERM. Workers poll the leader's ``/live`` on
    the system port (up to 3 h) before joining, so the engine places its initial ranks on the
    leader only. A leader with no explicit command is left alone: its real entry point is
    the image's, which the operator cannot see.
    Mirrors: internal/dynamo/backend_vllm.go injectElasticEPRayLaunchFlags.
    """
    if role in (consts.ROLE_LEADER, consts.ROLE_MAIN):
        command = list(container.get("command") or [])
        if not command:
            return False
        args = list(container.get("args") or [])
        engine = (
            " ".join(shell_quote_posix(token) for token in command) + " " + " ".join(shell_quote_posix(arg) for arg in args)
        ).strip(_GO_TRIM_SPACE)
        node_ip = ""
        if role == consts.ROLE_MAIN:
            engine = "exec " + engine
            node_ip = ' --node-ip-address="$POD_IP"'
        container["args"] = [
            f"ray start --head --port={RAY_PORT}{node_ip} --block & "
            f"i=0; until python3 -c \"import socket; s=socket.create_connection(('127.0.0.1',{RAY_PORT}),timeout=1); s.close()\" 2>/dev/null; "
            f'do i=$((i+1)); [ "$i" -ge 150 ] && {{ echo "ERROR: Ray head did not start within 300s" >&2; exit 1; }}; sleep 2; done && {engine}'
        ]
    elif role == consts.ROLE_WORKER:
        leader = ctx.deployer.leader_hostname(ctx.service_name)
        health_gate = (
            f"i=0; until python3 -c \"import urllib.request; urllib.request.urlopen('http://{leader}:{consts.DYNAMO_SYSTEM_PORT}/live', timeout=5)\" "
            f'2>/dev/null; do i=$((i+1)); [ "$i" -ge 720 ] && {{ echo "ERROR: leader /live did not become ready within 3h" >&2; exit 1; }}; '
            "echo 'waiting for leader dynamo.vllm /live to return 200...'; sleep 15; done"
        )
        container["args"] = [f"{health_gate} && ray start --address={leader}:{RAY_PORT} --block"]
    container["command"] = ["/bin/sh", "-c"]
    return True


# strings.TrimSpace trims Go's Unicode white space.
_GO_TRIM_SPACE = "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"


def inject_data_parallel_launch_flags(container: dict[str, Any], ctx: BackendContext, gpus: int) -> None:
    """Hybrid-LB data parallelism: each node runs ``gpus / world`` ranks of the total.

    The total is ``--data-parallel-size`` when given (and then not repeated), else ranks per
    node x nodes. A worker's start rank is shell arithmetic, so a python command is wrapped
    in ``sh -c``. Role ``main`` gets no flags.
    Mirrors: internal/dynamo/backend_vllm.go injectDataParallelLaunchFlags.
    """
    tokens = expanded_args(container)
    leader = ctx.deployer.leader_hostname(ctx.service_name)
    world = world_size(tokens)
    if world == 0:
        # Only reachable with a negative GPU count; the operator panics on the division.
        raise RenderError(
            f"cannot split {gpus} GPUs into data-parallel ranks of tensor x pipeline parallel size 0",
            "spec.podTemplate.spec.containers[main].args",
        )
    local = _go_div(gpus, world)
    total = get_flag_value(tokens, DATA_PARALLEL_SIZE_FLAG)
    if total == 1:
        total = _int64(local * ctx.number_of_nodes)
    flags: list[str] = []
    needs_shell = False
    if ctx.role in (consts.ROLE_LEADER, consts.ROLE_WORKER):
        if ctx.role == consts.ROLE_LEADER:
            start_rank = "0"
        else:
            rank, _ = ctx.deployer.node_rank()
            start_rank = f"$(( {local} * {rank} ))"
            needs_shell = True
        flags = ["--data-parallel-hybrid-lb"]
        if not has_flag(tokens, DATA_PARALLEL_SIZE_FLAG):
            flags += [DATA_PARALLEL_SIZE_FLAG, str(total)]
        flags += [
            DATA_PARALLEL_SIZE_LOCAL_FLAG, str(local),
            "--data-parallel-start-rank", start_rank,
            "--data-parallel-address", leader,
            "--data-parallel-rpc-port", DATA_PARALLEL_RPC_PORT,
        ]
    inject_flags_into_container_command(container, " ".join(flags), needs_shell, consts.BACKEND_VLLM)


def update_multinode_args(container: dict[str, Any], ctx: BackendContext, gpus: int) -> None:
    """Pick the multinode launch shape and apply it.

    Mirrors: internal/dynamo/backend_vllm.go updateVLLMMultinodeArgs.
    """
    tokens = expanded_args(container)
    distributed = needs_tensor_parallel_multinode_launch(tokens, gpus)
    if distributed and should_use_mp_backend(ctx.annotations):
        inject_mp_distributed_launch_flags(container, ctx)
    elif distributed:
        inject_ray_distributed_launch_flags(container, ctx)
    elif has_flag(tokens, ENABLE_ELASTIC_EP_FLAG):
        inject_elastic_ep_ray_launch_flags(container, ctx.role, ctx)
    elif needs_data_parallel_multinode_launch(tokens, gpus):
        inject_data_parallel_launch_flags(container, ctx, gpus)


def _append_env(container: dict[str, Any], *entries: dict[str, Any]) -> None:
    container["env"] = [*(container.get("env") or []), *entries]


class VLLMBackend:
    def update_container(self, container: dict[str, Any], ctx: BackendContext) -> dict[str, Any]:
        """Mirrors: internal/dynamo/backend_vllm.go VLLMBackend.UpdateContainer."""
        container = copy_json(container)  # a JSON-shaped container: copied whole, without deepcopy's memo
        # Inter-pod GMS engines load their weights from the rank's GMS weight server; failover
        # engines also start as shadows.
        experimental = ctx.spec.experimental
        gms_spec = experimental.gpu_memory_service if experimental is not None else None
        if gms_spec is not None and gms_spec.mode == "InterPod":
            if not container_has_arg(container, "--load-format", "gms"):
                inject_flags_into_container_command(container, "--load-format gms", False, consts.BACKEND_VLLM)
            if experimental is not None and experimental.failover is not None and experimental.failover.mode == "InterPod":
                _append_env(container, {"name": "DYN_VLLM_GMS_SHADOW_MODE", "value": "true"})
        if ctx.number_of_nodes > 1:
            try:
                gpus = ctx.gpu_count()
            except RenderError as err:
                raise RenderError(f"failed to resolve container GPUs: {err.message}", err.field, code=err.code, hint=err.hint) from None
            update_multinode_args(container, ctx, gpus)
            # The NIXL side channel binds the pod IP under multiprocessing, whatever launch was chosen.
            if should_use_mp_backend(ctx.annotations):
                _append_env(container, {"name": "VLLM_NIXL_SIDE_CHANNEL_HOST", "valueFrom": copy_json(_POD_IP_ENV_SOURCE)})
            if ctx.role == consts.ROLE_WORKER:
                drop_probes(container, *ALL_PROBES)
        elif ctx.role == consts.ROLE_MAIN and is_elastic_ep_ray_launch(container):
            # A single elastic-EP pod heads the Ray cluster that later pods join; the engine
            # must look for the DP master at the pod IP the head registered under.
            if inject_elastic_ep_ray_launch_flags(container, ctx.role, ctx):
                _append_env(
                    container,
                    {"name": "POD_IP", "valueFrom": copy_json(_POD_IP_ENV_SOURCE)},
                    {"name": "VLLM_DP_MASTER_IP", "valueFrom": copy_json(_POD_IP_ENV_SOURCE)},
                )
        # A compilation cache points vLLM at its mount path (appended, never de-duplicated).
        if ctx.compilation_cache_mount_path:
            _append_env(container, {"name": "VLLM_CACHE_ROOT", "value": ctx.compilation_cache_mount_path})
        return container

    def update_pod_spec(self, pod_spec: dict[str, Any], ctx: BackendContext) -> dict[str, Any]:
        """Workers of an mp group wait for the leader's master port in an init container.

        Only when the worker's final command line carries ``--distributed-executor-backend
        mp``. The script comes from the ConfigMap ``<parent>-wait-leader-script``, which the
        operator's graph controller creates (``renderer.objects.companions.wait_leader_config_map``).
        Mirrors: internal/dynamo/backend_vllm.go VLLMBackend.UpdatePodSpec,
        shouldInjectVLLMMpWaitLeaderInit.
        """
        containers = pod_spec.get("containers") or []
        if not ctx.parent_name or ctx.number_of_nodes <= 1 or ctx.role != consts.ROLE_WORKER or not containers:
            return pod_spec
        main = containers[0]
        if not container_command_line_has_arg(main, DISTRIBUTED_EXECUTOR_FLAG, "mp"):
            return pod_spec
        # An init container's env is not where LWS puts its variables first, so kubelet's
        # $(VAR) expansion could miss them: let the shell expand ${VAR} instead.
        leader = k8s_to_shell_var_syntax(ctx.deployer.leader_hostname(ctx.service_name))
        volume = {"name": WAIT_LEADER_VOLUME_NAME, "configMap": {"name": wait_leader_config_map_name(ctx.parent_name)}}
        init = {
            "name": WAIT_LEADER_INIT_CONTAINER_NAME,
            "image": main.get("image", ""),
            "command": [
                "sh",
                "-c",
                f'export LEADER_HOST="{leader}" LEADER_PORT="{consts.VLLM_MP_MASTER_PORT}" && '
                f"exec python3 {WAIT_LEADER_MOUNT_PATH}/{WAIT_LEADER_SCRIPT_KEY}",
            ],
            "volumeMounts": [{"name": WAIT_LEADER_VOLUME_NAME, "mountPath": WAIT_LEADER_MOUNT_PATH, "readOnly": True}],
        }
        return dict(
            pod_spec,
            volumes=[*(pod_spec.get("volumes") or []), volume],
            initContainers=[*(pod_spec.get("initContainers") or []), init],
        )


def k8s_to_shell_var_syntax(text: str) -> str:
    """Rewrite every ``$(VAR)`` to ``${VAR}``. Mirrors: internal/dynamo/backend_vllm.go k8sToShellVarSyntax."""
    return _K8S_VAR.sub(lambda m: "${" + m.group(1) + "}", text)


def wait_leader_config_map_name(parent_name: str) -> str:
    """Mirrors: internal/dynamo/backend_vllm.go GetWaitLeaderConfigMapName."""
    return f"{parent_name}-{WAIT_LEADER_CONFIG_MAP_SUFFIX}"


BACKEND = VLLMBackend()
