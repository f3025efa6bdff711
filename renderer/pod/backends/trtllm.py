"""TRT-LLM backend shaping: MPI over SSH for multinode groups.

Single-node TRT-LLM pods are left as the user wrote them. In a multinode group every pod
mounts the SSH key pair from the operator's MPI Secret; workers run sshd on port 2222 and
are probed on it, and the leader waits for the workers' DNS names, then starts the whole
group with ``mpirun`` wrapping the user's original command in ``trtllm-llmapi-launch``.
Mirrors: internal/dynamo/backend_trtllm.go.
"""

from __future__ import annotations

from typing import Any

from renderer import consts
from renderer.pod.backends.common import BackendContext, Deployer, drop_probes, multinode_only
from renderer.admission.flags import is_python_command, shell_quote_for_bash_c
from renderer.results import RenderError

SSH_MOUNT_PATH = "/ssh-pk"
SSH_PORT = consts.MPI_RUN_SSH_PORT

# Environment forwarded to every rank besides the container's own variables.
COMMON_MPI_ENV = frozenset({
    "CPATH", "CUDA_VISIBLE_DEVICES", "MODEL_PATH", "HF_TOKEN", "HUGGING_FACE_HUB_TOKEN", "HF_ENDPOINT",
    "TOKENIZERS_PARALLELISM", "NCCL_DEBUG", "NCCL_IB_DISABLE", "NCCL_P2P_DISABLE",
    "TENSORRT_LLM_CACHE_DIR", "HF_HOME", "TRANSFORMERS_CACHE", "HF_DATASETS_CACHE",
    "PATH", "LD_LIBRARY_PATH", "PYTHONPATH", "HOME", "USER", "TRITON_PTXAS_PATH", "TRTLLM_USE_UCX_KVCACHE",
})

# $HOME, not ~: the image may set HOME while the shell user is root, and ssh/mpirun must find
# the keys where this put them. The printf strings hold literal backslash-n sequences.
_SSH_KEY_SETUP = [
    "ls -la /ssh-pk/",
    "cp /ssh-pk/private.key $HOME/.ssh/id_rsa",
    "cp /ssh-pk/private.key.pub $HOME/.ssh/id_rsa.pub",
    "cp /ssh-pk/private.key.pub $HOME/.ssh/authorized_keys",
    "chmod 600 $HOME/.ssh/id_rsa $HOME/.ssh/authorized_keys",
    "chmod 644 $HOME/.ssh/id_rsa.pub",
    f"printf 'Host *\\nIdentityFile '$HOME'/.ssh/id_rsa\\nStrictHostKeyChecking no\\nPort {SSH_PORT}\\n' > $HOME/.ssh/config",
]

_SSHD_SETUP = [
    "ssh-keygen -t rsa -f $HOME/.ssh/host_keys/ssh_host_rsa_key -N ''",
    "ssh-keygen -t ecdsa -f $HOME/.ssh/host_keys/ssh_host_ecdsa_key -N ''",
    "ssh-keygen -t ed25519 -f $HOME/.ssh/host_keys/ssh_host_ed25519_key -N ''",
    f"printf 'Port {SSH_PORT}\\nHostKey '$HOME'/.ssh/host_keys/ssh_host_rsa_key\\nHostKey '$HOME'/.ssh/host_keys/ssh_host_ecdsa_key"
    "\\nHostKey '$HOME'/.ssh/host_keys/ssh_host_ed25519_key\\nPidFile '$HOME'/.ssh/run/sshd.pid\\nStrictModes no"
    "\\nPermitRootLogin yes\\nPasswordAuthentication no\\nPubkeyAuthentication yes"
    "\\nAuthorizedKeysFile '$HOME'/.ssh/authorized_keys\\n' > $HOME/.ssh/sshd_config",
    "/usr/sbin/sshd -D -f $HOME/.ssh/sshd_config",
]


def mpi_env_flags(env: list[dict[str, Any]]) -> str:
    """``-x NAME`` for the common variables and every container variable, sorted, deduplicated.

    Mirrors: internal/dynamo/backend_trtllm.go generateEnvVarFlags, collectAllEnvVars.
    """
    names = set(COMMON_MPI_ENV) | {e.get("name", "") for e in env}
    return " ".join(f"-x {name}" for name in sorted(names, key=lambda n: n.encode()))


def original_command(container: dict[str, Any]) -> str:
    """The user's launch line as the leader re-runs it under mpirun.

    A python command is re-quoted token by token; any other command is dropped in favour of
    its args joined unquoted (so ``sh -c "<line>"`` becomes ``<line>``); with no args the
    command alone is used. Mirrors: internal/dynamo/backend_trtllm.go setupLeaderContainer.
    """
    command = list(container.get("command") or [])
    args = list(container.get("args") or [])
    if command and is_python_command(command[0]):
        return " ".join(shell_quote_for_bash_c(part) for part in command + args)
    if args:
        return " ".join(args)
    return " ".join(command)


def dns_wait_command(workers: list[str]) -> str:
    """Wait up to 300 s for each worker's DNS name (LWS pods start together).

    Mirrors: internal/dynamo/backend_trtllm.go setupLeaderContainer (DNS wait step).
    """
    return (
        f"TIMEOUT=300; START_TIME=$(date +%s); for worker in {' '.join(workers)}; do "
        'echo "Waiting for DNS: $worker"; until getent hosts $worker >/dev/null 2>&1; do '
        "CURRENT_TIME=$(date +%s); if [ $((CURRENT_TIME - START_TIME)) -gt $TIMEOUT ]; then "
        'echo "ERROR: Timeout waiting for DNS: $worker"; exit 1; fi; '
        'echo "DNS not ready for $worker, retrying..."; sleep 2; done; '
        'echo "\u2713 DNS resolved: $worker"; done; echo "All workers DNS ready"'
    )


def leader_launch(container: dict[str, Any], number_of_nodes: int, service_name: str, deployer: Deployer, gpus: int) -> str:
    """The leader's ``sh -c`` line: SSH keys, optional DNS wait, then mpirun over all hosts.

    ``-n`` is nodes x GPUs of the main container (0 when it asks for none).
    Mirrors: internal/dynamo/backend_trtllm.go setupLeaderContainer.
    """
    hosts = deployer.host_names(service_name, number_of_nodes)
    mpirun = (
        f'mpirun $([ "$(id -u)" = "0" ] && echo --allow-run-as-root) --oversubscribe -n {number_of_nodes * gpus} '
        f"-H {','.join(hosts)} --mca pml ob1 --mca plm_rsh_args "
        f'"-p {SSH_PORT} -o StrictHostKeyChecking=no -i $HOME/.ssh/id_rsa" '
        f"{mpi_env_flags(container.get('env') or [])} bash -c 'trtllm-llmapi-launch {original_command(container)}'"
    )
    steps = ["mkdir -p $HOME/.ssh", *_SSH_KEY_SETUP]
    if deployer.needs_dns_wait():
        steps.append(dns_wait_command(hosts[1:]))
    steps.append(mpirun)
    return " && ".join(steps)


def worker_launch() -> str:
    """The worker's ``sh -c`` line: SSH keys, host keys, then sshd in the foreground.

    Mirrors: internal/dynamo/backend_trtllm.go setupWorkerContainer.
    """
    steps = ["mkdir -p $HOME/.ssh $HOME/.ssh/host_keys $HOME/.ssh/run", *_SSH_KEY_SETUP, *_SSHD_SETUP]
    return " && ".join(steps)


class TRTLLMBackend:
    @multinode_only
    def update_container(self, container: dict[str, Any], ctx: BackendContext) -> None:
        """Mirrors: internal/dynamo/backend_trtllm.go TRTLLMBackend.UpdateContainer."""
        # Workers are probed on their sshd port; the leader keeps its probes.
        if ctx.role == consts.ROLE_WORKER:
            drop_probes(container, "livenessProbe", "startupProbe")
            container["readinessProbe"] = {
                "tcpSocket": {"port": SSH_PORT},
                "initialDelaySeconds": 20,
                "periodSeconds": 20,
                "timeoutSeconds": 5,
                "failureThreshold": 10,
            }
        # Every pod of the group mounts the SSH key pair and keeps FQDN host names in Open MPI.
        mount = {"name": ctx.mpi_ssh_secret_name, "mountPath": SSH_MOUNT_PATH, "readOnly": True}
        container["volumeMounts"] = [*(container.get("volumeMounts") or []), mount]
        container["env"] = [*(container.get("env") or []), {"name": "OMPI_MCA_orte_keep_fqdn_hostnames", "value": "1"}]
        if ctx.role == consts.ROLE_LEADER:
            try:
                gpus = ctx.gpu_count()
            except RenderError as err:
                raise RenderError(f"failed to resolve container GPUs: {err.message}", err.field, code=err.code, hint=err.hint) from None
            launch = leader_launch(container, ctx.number_of_nodes, ctx.service_name, ctx.deployer, gpus)
            container["command"] = ["/bin/sh", "-c"]
            container["args"] = [launch]
        elif ctx.role == consts.ROLE_WORKER:
            container["command"] = ["/bin/sh", "-c"]
            container["args"] = [worker_launch()]

    def update_pod_spec(self, pod_spec: dict[str, Any], ctx: BackendContext) -> dict[str, Any]:
        """The SSH key pair Secret as a volume (mode 0644) for every pod of a multinode group.

        Mirrors: internal/dynamo/backend_trtllm.go TRTLLMBackend.UpdatePodSpec.
        """
        if ctx.number_of_nodes <= 1:
            return pod_spec
        volume = {"name": ctx.mpi_ssh_secret_name, "secret": {"secretName": ctx.mpi_ssh_secret_name, "defaultMode": 0o644}}
        return dict(pod_spec, volumes=[*(pod_spec.get("volumes") or []), volume])


BACKEND = TRTLLMBackend()
