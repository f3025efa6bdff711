"""TRT-LLM backend: MPI/SSH multinode launch, worker sshd, SSH key volume.

The expected launch strings are the upstream test's literals, verbatim.
Restates: internal/dynamo/backend_trtllm_test.go (TestShellQuoteForBashC_InLeaderCommand,
TestTRTLLMBackend_UpdateContainer, TestTRTLLMBackend_UpdatePodSpec,
TestTRTLLMBackend_addSSHVolumeMount, TestTRTLLMBackend_setupLeaderContainer,
TestTRTLLMBackend_setupWorkerContainer, TestTRTLLMBackend_UpdateContainer_UseAsCompilationCache),
internal/dynamo/graph_test.go TestGenerateBasePodSpec_TRTLLMSSHMountUsesSecretVolume.
"""

from __future__ import annotations

import subprocess
from typing import Any

import pytest

from renderer import consts
from renderer.pod.backends.common import LWS, Deployer
from renderer.pod.backends.trtllm import BACKEND, leader_launch, worker_launch
from renderer.results import RenderError
from tests.unit.test_backends_deployers import GROVE, context, gpus_failing

LEADER, WORKER, MAIN = consts.ROLE_LEADER, consts.ROLE_WORKER, consts.ROLE_MAIN
SECRET = "mpi-run-ssh-secret"

EXPECTED = {
    'Leader with args and GPU resources': (
        "mkdir -p $HOME/.ssh && ls -la /ssh-pk/ && cp /ssh-pk/private.key $HOME/.ssh/id_rsa && cp /ssh-pk/private.key.pub $HOME/.ssh/id_rsa.pub && cp /ssh-pk/private.key.pub $HOME/.ssh/authorized_keys && chmod 600 $HOME/.ssh/id_rsa $HOME/.ssh/authorized_keys && chmod 644 $HOME/.ssh/id_rsa.pub && printf 'Host *\\nIdentityFile '$HOME'/.ssh/id_rsa\\nStrictHostKeyChecking no\\nPort 2222\\n' > $HOME/.ssh/config && mpirun $([ \"$(id -u)\" = \"0\" ] && echo --allow-run-as-root) --oversubscribe -n 6 -H $(GROVE_PCSG_NAME)-$(GROVE_PCSG_INDEX)-test-service-ldr-0.$(GROVE_HEADLESS_SERVICE),$(GROVE_PCSG_NAME)-$(GROVE_PCSG_INDEX)-test-service-wkr-0.$(GROVE_HEADLESS_SERVICE),$(GROVE_PCSG_NAME)-$(GROVE_PCSG_INDEX)-test-service-wkr-1.$(GROVE_HEADLESS_SERVICE) --mca pml ob1 --mca plm_rsh_args \"-p 2222 -o StrictHostKeyChecking=no -i $HOME/.ssh/id_rsa\" -x CPATH -x CUDA_VISIBLE_DEVICES -x HF_DATASETS_CACHE -x HF_ENDPOINT -x HF_HOME -x HF_TOKEN -x HOME -x HUGGING_FACE_HUB_TOKEN -x LD_LIBRARY_PATH -x MODEL_PATH -x NCCL_DEBUG -x NCCL_IB_DISABLE -x NCCL_P2P_DISABLE -x PATH -x PYTHONPATH -x TENSORRT_LLM_CACHE_DIR -x TOKENIZERS_PARALLELISM -x TRANSFORMERS_CACHE -x TRITON_PTXAS_PATH -x TRTLLM_USE_UCX_KVCACHE -x USER bash -c 'trtllm-llmapi-launch python3 --model test'"
    ),
    'Leader with command and no GPU resources': (
        "mkdir -p $HOME/.ssh && ls -la /ssh-pk/ && cp /ssh-pk/private.key $HOME/.ssh/id_rsa && cp /ssh-pk/private.key.pub $HOME/.ssh/id_rsa.pub && cp /ssh-pk/private.key.pub $HOME/.ssh/authorized_keys && chmod 600 $HOME/.ssh/id_rsa $HOME/.ssh/authorized_keys && chmod 644 $HOME/.ssh/id_rsa.pub && printf 'Host *\\nIdentityFile '$HOME'/.ssh/id_rsa\\nStrictHostKeyChecking no\\nPort 2222\\n' > $HOME/.ssh/config && TIMEOUT=300; START_TIME=$(date +%s); for worker in $(echo \"$LWS_LEADER_ADDRESS\" | sed 's/\\./-1\\./'); do echo \"Waiting for DNS: $worker\"; until getent hosts $worker >/dev/null 2>&1; do CURRENT_TIME=$(date +%s); if [ $((CURRENT_TIME - START_TIME)) -gt $TIMEOUT ]; then echo \"ERROR: Timeout waiting for DNS: $worker\"; exit 1; fi; echo \"DNS not ready for $worker, retrying...\"; sleep 2; done; echo \"✓ DNS resolved: $worker\"; done; echo \"All workers DNS ready\" && mpirun $([ \"$(id -u)\" = \"0\" ] && echo --allow-run-as-root) --oversubscribe -n 0 -H $(LWS_LEADER_ADDRESS),$(echo \"$LWS_LEADER_ADDRESS\" | sed 's/\\./-1\\./') --mca pml ob1 --mca plm_rsh_args \"-p 2222 -o StrictHostKeyChecking=no -i $HOME/.ssh/id_rsa\" -x CPATH -x CUDA_VISIBLE_DEVICES -x HF_DATASETS_CACHE -x HF_ENDPOINT -x HF_HOME -x HF_TOKEN -x HOME -x HUGGING_FACE_HUB_TOKEN -x LD_LIBRARY_PATH -x MODEL_PATH -x NCCL_DEBUG -x NCCL_IB_DISABLE -x NCCL_P2P_DISABLE -x PATH -x PYTHONPATH -x TENSORRT_LLM_CACHE_DIR -x TOKENIZERS_PARALLELISM -x TRANSFORMERS_CACHE -x TRITON_PTXAS_PATH -x TRTLLM_USE_UCX_KVCACHE -x USER bash -c 'trtllm-llmapi-launch python -m worker'"
    ),
    'Leader with both command and args (shell command - args take precedence)': (
        "mkdir -p $HOME/.ssh && ls -la /ssh-pk/ && cp /ssh-pk/private.key $HOME/.ssh/id_rsa && cp /ssh-pk/private.key.pub $HOME/.ssh/id_rsa.pub && cp /ssh-pk/private.key.pub $HOME/.ssh/authorized_keys && chmod 600 $HOME/.ssh/id_rsa $HOME/.ssh/authorized_keys && chmod 644 $HOME/.ssh/id_rsa.pub && printf 'Host *\\nIdentityFile '$HOME'/.ssh/id_rsa\\nStrictHostKeyChecking no\\nPort 2222\\n' > $HOME/.ssh/config && mpirun $([ \"$(id -u)\" = \"0\" ] && echo --allow-run-as-root) --oversubscribe -n 2 -H $(GROVE_PCSG_NAME)-$(GROVE_PCSG_INDEX)-test-ldr-0.$(GROVE_HEADLESS_SERVICE),$(GROVE_PCSG_NAME)-$(GROVE_PCSG_INDEX)-test-wkr-0.$(GROVE_HEADLESS_SERVICE) --mca pml ob1 --mca plm_rsh_args \"-p 2222 -o StrictHostKeyChecking=no -i $HOME/.ssh/id_rsa\" -x CPATH -x CUDA_VISIBLE_DEVICES -x HF_DATASETS_CACHE -x HF_ENDPOINT -x HF_HOME -x HF_TOKEN -x HOME -x HUGGING_FACE_HUB_TOKEN -x LD_LIBRARY_PATH -x MODEL_PATH -x NCCL_DEBUG -x NCCL_IB_DISABLE -x NCCL_P2P_DISABLE -x PATH -x PYTHONPATH -x TENSORRT_LLM_CACHE_DIR -x TOKENIZERS_PARALLELISM -x TRANSFORMERS_CACHE -x TRITON_PTXAS_PATH -x TRTLLM_USE_UCX_KVCACHE -x USER bash -c 'trtllm-llmapi-launch launch --config test.yaml'"
    ),
    'Leader with python command and args (combined)': (
        "mkdir -p $HOME/.ssh && ls -la /ssh-pk/ && cp /ssh-pk/private.key $HOME/.ssh/id_rsa && cp /ssh-pk/private.key.pub $HOME/.ssh/id_rsa.pub && cp /ssh-pk/private.key.pub $HOME/.ssh/authorized_keys && chmod 600 $HOME/.ssh/id_rsa $HOME/.ssh/authorized_keys && chmod 644 $HOME/.ssh/id_rsa.pub && printf 'Host *\\nIdentityFile '$HOME'/.ssh/id_rsa\\nStrictHostKeyChecking no\\nPort 2222\\n' > $HOME/.ssh/config && mpirun $([ \"$(id -u)\" = \"0\" ] && echo --allow-run-as-root) --oversubscribe -n 2 -H $(GROVE_PCSG_NAME)-$(GROVE_PCSG_INDEX)-test-ldr-0.$(GROVE_HEADLESS_SERVICE),$(GROVE_PCSG_NAME)-$(GROVE_PCSG_INDEX)-test-wkr-0.$(GROVE_HEADLESS_SERVICE) --mca pml ob1 --mca plm_rsh_args \"-p 2222 -o StrictHostKeyChecking=no -i $HOME/.ssh/id_rsa\" -x CPATH -x CUDA_VISIBLE_DEVICES -x HF_DATASETS_CACHE -x HF_ENDPOINT -x HF_HOME -x HF_TOKEN -x HOME -x HUGGING_FACE_HUB_TOKEN -x LD_LIBRARY_PATH -x MODEL_PATH -x NCCL_DEBUG -x NCCL_IB_DISABLE -x NCCL_P2P_DISABLE -x PATH -x PYTHONPATH -x TENSORRT_LLM_CACHE_DIR -x TOKENIZERS_PARALLELISM -x TRANSFORMERS_CACHE -x TRITON_PTXAS_PATH -x TRTLLM_USE_UCX_KVCACHE -x USER bash -c 'trtllm-llmapi-launch python3 -m dynamo.trtllm --model-path test'"
    ),
    'Leader with python module command and separate args': (
        "mkdir -p $HOME/.ssh && ls -la /ssh-pk/ && cp /ssh-pk/private.key $HOME/.ssh/id_rsa && cp /ssh-pk/private.key.pub $HOME/.ssh/id_rsa.pub && cp /ssh-pk/private.key.pub $HOME/.ssh/authorized_keys && chmod 600 $HOME/.ssh/id_rsa $HOME/.ssh/authorized_keys && chmod 644 $HOME/.ssh/id_rsa.pub && printf 'Host *\\nIdentityFile '$HOME'/.ssh/id_rsa\\nStrictHostKeyChecking no\\nPort 2222\\n' > $HOME/.ssh/config && mpirun $([ \"$(id -u)\" = \"0\" ] && echo --allow-run-as-root) --oversubscribe -n 2 -H $(GROVE_PCSG_NAME)-$(GROVE_PCSG_INDEX)-test-ldr-0.$(GROVE_HEADLESS_SERVICE),$(GROVE_PCSG_NAME)-$(GROVE_PCSG_INDEX)-test-wkr-0.$(GROVE_HEADLESS_SERVICE) --mca pml ob1 --mca plm_rsh_args \"-p 2222 -o StrictHostKeyChecking=no -i $HOME/.ssh/id_rsa\" -x CPATH -x CUDA_VISIBLE_DEVICES -x HF_DATASETS_CACHE -x HF_ENDPOINT -x HF_HOME -x HF_TOKEN -x HOME -x HUGGING_FACE_HUB_TOKEN -x LD_LIBRARY_PATH -x MODEL_PATH -x NCCL_DEBUG -x NCCL_IB_DISABLE -x NCCL_P2P_DISABLE -x PATH -x PYTHONPATH -x TENSORRT_LLM_CACHE_DIR -x TOKENIZERS_PARALLELISM -x TRANSFORMERS_CACHE -x TRITON_PTXAS_PATH -x TRTLLM_USE_UCX_KVCACHE -x USER bash -c 'trtllm-llmapi-launch python3 -m dynamo.trtllm --model-path Qwen/Qwen3-0.6B --served-model-name Qwen/Qwen3-0.6B --disaggregation-mode prefill'"
    ),
    'Leader with absolute path python command': (
        "mkdir -p $HOME/.ssh && ls -la /ssh-pk/ && cp /ssh-pk/private.key $HOME/.ssh/id_rsa && cp /ssh-pk/private.key.pub $HOME/.ssh/id_rsa.pub && cp /ssh-pk/private.key.pub $HOME/.ssh/authorized_keys && chmod 600 $HOME/.ssh/id_rsa $HOME/.ssh/authorized_keys && chmod 644 $HOME/.ssh/id_rsa.pub && printf 'Host *\\nIdentityFile '$HOME'/.ssh/id_rsa\\nStrictHostKeyChecking no\\nPort 2222\\n' > $HOME/.ssh/config && mpirun $([ \"$(id -u)\" = \"0\" ] && echo --allow-run-as-root) --oversubscribe -n 2 -H $(GROVE_PCSG_NAME)-$(GROVE_PCSG_INDEX)-test-ldr-0.$(GROVE_HEADLESS_SERVICE),$(GROVE_PCSG_NAME)-$(GROVE_PCSG_INDEX)-test-wkr-0.$(GROVE_HEADLESS_SERVICE) --mca pml ob1 --mca plm_rsh_args \"-p 2222 -o StrictHostKeyChecking=no -i $HOME/.ssh/id_rsa\" -x CPATH -x CUDA_VISIBLE_DEVICES -x HF_DATASETS_CACHE -x HF_ENDPOINT -x HF_HOME -x HF_TOKEN -x HOME -x HUGGING_FACE_HUB_TOKEN -x LD_LIBRARY_PATH -x MODEL_PATH -x NCCL_DEBUG -x NCCL_IB_DISABLE -x NCCL_P2P_DISABLE -x PATH -x PYTHONPATH -x TENSORRT_LLM_CACHE_DIR -x TOKENIZERS_PARALLELISM -x TRANSFORMERS_CACHE -x TRITON_PTXAS_PATH -x TRTLLM_USE_UCX_KVCACHE -x USER bash -c 'trtllm-llmapi-launch /usr/bin/python3.8 -m dynamo.trtllm --model-path test'"
    ),
    'Leader with all environment variables forwarded': (
        "mkdir -p $HOME/.ssh && ls -la /ssh-pk/ && cp /ssh-pk/private.key $HOME/.ssh/id_rsa && cp /ssh-pk/private.key.pub $HOME/.ssh/id_rsa.pub && cp /ssh-pk/private.key.pub $HOME/.ssh/authorized_keys && chmod 600 $HOME/.ssh/id_rsa $HOME/.ssh/authorized_keys && chmod 644 $HOME/.ssh/id_rsa.pub && printf 'Host *\\nIdentityFile '$HOME'/.ssh/id_rsa\\nStrictHostKeyChecking no\\nPort 2222\\n' > $HOME/.ssh/config && mpirun $([ \"$(id -u)\" = \"0\" ] && echo --allow-run-as-root) --oversubscribe -n 2 -H $(GROVE_PCSG_NAME)-$(GROVE_PCSG_INDEX)-test-ldr-0.$(GROVE_HEADLESS_SERVICE),$(GROVE_PCSG_NAME)-$(GROVE_PCSG_INDEX)-test-wkr-0.$(GROVE_HEADLESS_SERVICE) --mca pml ob1 --mca plm_rsh_args \"-p 2222 -o StrictHostKeyChecking=no -i $HOME/.ssh/id_rsa\" -x CPATH -x CUDA_VISIBLE_DEVICES -x HF_DATASETS_CACHE -x HF_ENDPOINT -x HF_HOME -x HF_TOKEN -x HOME -x HUGGING_FACE_HUB_TOKEN -x LD_LIBRARY_PATH -x MODEL_PATH -x NCCL_DEBUG -x NCCL_IB_DISABLE -x NCCL_P2P_DISABLE -x PATH -x PYTHONPATH -x TENSORRT_LLM_CACHE_DIR -x TOKENIZERS_PARALLELISM -x TRANSFORMERS_CACHE -x TRITON_PTXAS_PATH -x TRTLLM_USE_UCX_KVCACHE -x USER bash -c 'trtllm-llmapi-launch serve --model test'"
    ),
    'Leader with overlapping environment variables (deduplication test)': (
        "mkdir -p $HOME/.ssh && ls -la /ssh-pk/ && cp /ssh-pk/private.key $HOME/.ssh/id_rsa && cp /ssh-pk/private.key.pub $HOME/.ssh/id_rsa.pub && cp /ssh-pk/private.key.pub $HOME/.ssh/authorized_keys && chmod 600 $HOME/.ssh/id_rsa $HOME/.ssh/authorized_keys && chmod 644 $HOME/.ssh/id_rsa.pub && printf 'Host *\\nIdentityFile '$HOME'/.ssh/id_rsa\\nStrictHostKeyChecking no\\nPort 2222\\n' > $HOME/.ssh/config && mpirun $([ \"$(id -u)\" = \"0\" ] && echo --allow-run-as-root) --oversubscribe -n 2 -H $(GROVE_PCSG_NAME)-$(GROVE_PCSG_INDEX)-test-ldr-0.$(GROVE_HEADLESS_SERVICE),$(GROVE_PCSG_NAME)-$(GROVE_PCSG_INDEX)-test-wkr-0.$(GROVE_HEADLESS_SERVICE) --mca pml ob1 --mca plm_rsh_args \"-p 2222 -o StrictHostKeyChecking=no -i $HOME/.ssh/id_rsa\" -x CPATH -x CUDA_VISIBLE_DEVICES -x CUSTOM_VAR -x HF_DATASETS_CACHE -x HF_ENDPOINT -x HF_HOME -x HF_TOKEN -x HOME -x HUGGING_FACE_HUB_TOKEN -x LD_LIBRARY_PATH -x MODEL_PATH -x NCCL_DEBUG -x NCCL_IB_DISABLE -x NCCL_P2P_DISABLE -x PATH -x PYTHONPATH -x TENSORRT_LLM_CACHE_DIR -x TOKENIZERS_PARALLELISM -x TRANSFORMERS_CACHE -x TRITON_PTXAS_PATH -x TRTLLM_USE_UCX_KVCACHE -x USER bash -c 'trtllm-llmapi-launch serve --model test'"
    ),
    'Multinode leader with GPU resources': (
        "mkdir -p $HOME/.ssh && ls -la /ssh-pk/ && cp /ssh-pk/private.key $HOME/.ssh/id_rsa && cp /ssh-pk/private.key.pub $HOME/.ssh/id_rsa.pub && cp /ssh-pk/private.key.pub $HOME/.ssh/authorized_keys && chmod 600 $HOME/.ssh/id_rsa $HOME/.ssh/authorized_keys && chmod 644 $HOME/.ssh/id_rsa.pub && printf 'Host *\\nIdentityFile '$HOME'/.ssh/id_rsa\\nStrictHostKeyChecking no\\nPort 2222\\n' > $HOME/.ssh/config && mpirun $([ \"$(id -u)\" = \"0\" ] && echo --allow-run-as-root) --oversubscribe -n 6 -H $(GROVE_PCSG_NAME)-$(GROVE_PCSG_INDEX)-test-service-ldr-0.$(GROVE_HEADLESS_SERVICE),$(GROVE_PCSG_NAME)-$(GROVE_PCSG_INDEX)-test-service-wkr-0.$(GROVE_HEADLESS_SERVICE),$(GROVE_PCSG_NAME)-$(GROVE_PCSG_INDEX)-test-service-wkr-1.$(GROVE_HEADLESS_SERVICE) --mca pml ob1 --mca plm_rsh_args \"-p 2222 -o StrictHostKeyChecking=no -i $HOME/.ssh/id_rsa\" -x CPATH -x CUDA_VISIBLE_DEVICES -x HF_DATASETS_CACHE -x HF_ENDPOINT -x HF_HOME -x HF_TOKEN -x HOME -x HUGGING_FACE_HUB_TOKEN -x LD_LIBRARY_PATH -x MODEL_PATH -x NCCL_DEBUG -x NCCL_IB_DISABLE -x NCCL_P2P_DISABLE -x OMPI_MCA_orte_keep_fqdn_hostnames -x PATH -x PYTHONPATH -x TENSORRT_LLM_CACHE_DIR -x TOKENIZERS_PARALLELISM -x TRANSFORMERS_CACHE -x TRITON_PTXAS_PATH -x TRTLLM_USE_UCX_KVCACHE -x USER bash -c 'trtllm-llmapi-launch python3 --model test'"
    ),
    'Multinode worker': (
        "mkdir -p $HOME/.ssh $HOME/.ssh/host_keys $HOME/.ssh/run && ls -la /ssh-pk/ && cp /ssh-pk/private.key $HOME/.ssh/id_rsa && cp /ssh-pk/private.key.pub $HOME/.ssh/id_rsa.pub && cp /ssh-pk/private.key.pub $HOME/.ssh/authorized_keys && chmod 600 $HOME/.ssh/id_rsa $HOME/.ssh/authorized_keys && chmod 644 $HOME/.ssh/id_rsa.pub && printf 'Host *\\nIdentityFile '$HOME'/.ssh/id_rsa\\nStrictHostKeyChecking no\\nPort 2222\\n' > $HOME/.ssh/config && ssh-keygen -t rsa -f $HOME/.ssh/host_keys/ssh_host_rsa_key -N '' && ssh-keygen -t ecdsa -f $HOME/.ssh/host_keys/ssh_host_ecdsa_key -N '' && ssh-keygen -t ed25519 -f $HOME/.ssh/host_keys/ssh_host_ed25519_key -N '' && printf 'Port 2222\\nHostKey '$HOME'/.ssh/host_keys/ssh_host_rsa_key\\nHostKey '$HOME'/.ssh/host_keys/ssh_host_ecdsa_key\\nHostKey '$HOME'/.ssh/host_keys/ssh_host_ed25519_key\\nPidFile '$HOME'/.ssh/run/sshd.pid\\nStrictModes no\\nPermitRootLogin yes\\nPasswordAuthentication no\\nPubkeyAuthentication yes\\nAuthorizedKeysFile '$HOME'/.ssh/authorized_keys\\n' > $HOME/.ssh/sshd_config && /usr/sbin/sshd -D -f $HOME/.ssh/sshd_config"
    ),
    'Multinode leader with LWS deployment': (
        "mkdir -p $HOME/.ssh && ls -la /ssh-pk/ && cp /ssh-pk/private.key $HOME/.ssh/id_rsa && cp /ssh-pk/private.key.pub $HOME/.ssh/id_rsa.pub && cp /ssh-pk/private.key.pub $HOME/.ssh/authorized_keys && chmod 600 $HOME/.ssh/id_rsa $HOME/.ssh/authorized_keys && chmod 644 $HOME/.ssh/id_rsa.pub && printf 'Host *\\nIdentityFile '$HOME'/.ssh/id_rsa\\nStrictHostKeyChecking no\\nPort 2222\\n' > $HOME/.ssh/config && TIMEOUT=300; START_TIME=$(date +%s); for worker in $(echo \"$LWS_LEADER_ADDRESS\" | sed 's/\\./-1\\./'); do echo \"Waiting for DNS: $worker\"; until getent hosts $worker >/dev/null 2>&1; do CURRENT_TIME=$(date +%s); if [ $((CURRENT_TIME - START_TIME)) -gt $TIMEOUT ]; then echo \"ERROR: Timeout waiting for DNS: $worker\"; exit 1; fi; echo \"DNS not ready for $worker, retrying...\"; sleep 2; done; echo \"✓ DNS resolved: $worker\"; done; echo \"All workers DNS ready\" && mpirun $([ \"$(id -u)\" = \"0\" ] && echo --allow-run-as-root) --oversubscribe -n 2 -H $(LWS_LEADER_ADDRESS),$(echo \"$LWS_LEADER_ADDRESS\" | sed 's/\\./-1\\./') --mca pml ob1 --mca plm_rsh_args \"-p 2222 -o StrictHostKeyChecking=no -i $HOME/.ssh/id_rsa\" -x CPATH -x CUDA_VISIBLE_DEVICES -x HF_DATASETS_CACHE -x HF_ENDPOINT -x HF_HOME -x HF_TOKEN -x HOME -x HUGGING_FACE_HUB_TOKEN -x LD_LIBRARY_PATH -x MODEL_PATH -x NCCL_DEBUG -x NCCL_IB_DISABLE -x NCCL_P2P_DISABLE -x OMPI_MCA_orte_keep_fqdn_hostnames -x PATH -x PYTHONPATH -x TENSORRT_LLM_CACHE_DIR -x TOKENIZERS_PARALLELISM -x TRANSFORMERS_CACHE -x TRITON_PTXAS_PATH -x TRTLLM_USE_UCX_KVCACHE -x USER bash -c 'trtllm-llmapi-launch python3 --model test'"
    ),
    "Worker setup": (
        "mkdir -p $HOME/.ssh $HOME/.ssh/host_keys $HOME/.ssh/run && ls -la /ssh-pk/ && cp /ssh-pk/private.key $HOME/.ssh/id_rsa && cp /ssh-pk/private.key.pub $HOME/.ssh/id_rsa.pub && cp /ssh-pk/private.key.pub $HOME/.ssh/authorized_keys && chmod 600 $HOME/.ssh/id_rsa $HOME/.ssh/authorized_keys && chmod 644 $HOME/.ssh/id_rsa.pub && printf 'Host *\\nIdentityFile '$HOME'/.ssh/id_rsa\\nStrictHostKeyChecking no\\nPort 2222\\n' > $HOME/.ssh/config && ssh-keygen -t rsa -f $HOME/.ssh/host_keys/ssh_host_rsa_key -N '' && ssh-keygen -t ecdsa -f $HOME/.ssh/host_keys/ssh_host_ecdsa_key -N '' && ssh-keygen -t ed25519 -f $HOME/.ssh/host_keys/ssh_host_ed25519_key -N '' && printf 'Port 2222\\nHostKey '$HOME'/.ssh/host_keys/ssh_host_rsa_key\\nHostKey '$HOME'/.ssh/host_keys/ssh_host_ecdsa_key\\nHostKey '$HOME'/.ssh/host_keys/ssh_host_ed25519_key\\nPidFile '$HOME'/.ssh/run/sshd.pid\\nStrictModes no\\nPermitRootLogin yes\\nPasswordAuthentication no\\nPubkeyAuthentication yes\\nAuthorizedKeysFile '$HOME'/.ssh/authorized_keys\\n' > $HOME/.ssh/sshd_config && /usr/sbin/sshd -D -f $HOME/.ssh/sshd_config"
    ),
}

LEADER_CASES: list[tuple[str, int, Deployer, str, int, list[str], list[str], list[dict[str, Any]]]] = [
    ("Leader with args and GPU resources", 3, GROVE, "test-service", 2, [], ["python3", "--model", "test"], []),
    ("Leader with command and no GPU resources", 2, LWS, "worker", 0, ["python", "-m", "worker"], [], []),
    (
        "Leader with both command and args (shell command - args take precedence)", 2, GROVE, "test", 1,
        ["sh", "-c"], ["launch", "--config", "test.yaml"], [],
    ),
    (
        "Leader with python command and args (combined)", 2, GROVE, "test", 1,
        ["python3"], ["-m", "dynamo.trtllm", "--model-path", "test"], [],
    ),
    (
        "Leader with python module command and separate args", 2, GROVE, "test", 1, ["python3", "-m", "dynamo.trtllm"],
        ["--model-path", "Qwen/Qwen3-0.6B", "--served-model-name", "Qwen/Qwen3-0.6B", "--disaggregation-mode", "prefill"], [],
    ),
    (
        "Leader with absolute path python command", 2, GROVE, "test", 1,
        ["/usr/bin/python3.8"], ["-m", "dynamo.trtllm", "--model-path", "test"], [],
    ),
    ("Leader with all environment variables forwarded", 2, GROVE, "test", 1, [], ["serve", "--model", "test"], []),
    (
        "Leader with overlapping environment variables (deduplication test)", 2, GROVE, "test", 1, [],
        ["serve", "--model", "test"],
        [{"name": "CUDA_VISIBLE_DEVICES", "value": "0,1"}, {"name": "CUSTOM_VAR", "value": "test_value"},
         {"name": "PATH", "value": "/custom/path"}],
    ),
]


@pytest.mark.parametrize(
    ("name", "nodes", "deployer", "service", "gpus", "command", "args", "env"), LEADER_CASES, ids=[c[0] for c in LEADER_CASES]
)
def test_leader_launch(
    name: str, nodes: int, deployer: Deployer, service: str, gpus: int, command: list[str], args: list[str],
    env: list[dict[str, Any]],
) -> None:
    container = {"command": command, "args": args, "env": env}
    assert leader_launch(container, nodes, service, deployer, gpus) == EXPECTED[name]


def test_leader_launch_runs_a_bare_non_python_command() -> None:
    """No args and a non-python command: the command alone is re-run, unquoted."""
    launch = leader_launch({"command": ["/opt/serve.sh", "--port 1"]}, 2, "svc", GROVE, 1)
    assert launch.endswith("bash -c 'trtllm-llmapi-launch /opt/serve.sh --port 1'")


def test_worker_launch() -> None:
    assert worker_launch() == EXPECTED["Worker setup"]


def test_leader_launch_quotes_json_args_for_the_outer_bash_c() -> None:
    container = {
        "command": ["python3", "-m", "dynamo.trtllm"],
        "args": ["--model-path", "deepseek-ai/DeepSeek-R1", "--override-engine-args", '{"load_format": "DUMMY", "tensor_parallel_size": 8}'],
    }
    launch = leader_launch(container, 2, "dec", GROVE, 4)
    assert '--override-engine-args "{\\"load_format\\": \\"DUMMY\\", \\"tensor_parallel_size\\": 8}"' in launch
    assert "bash -c 'trtllm-llmapi-launch" in launch
    assert "-n 8 " in launch


def test_leader_launch_is_valid_shell() -> None:
    """The generated line parses as shell (sh -n), DNS wait and command substitutions included."""
    container = {"command": ["python3", "-m", "dynamo.trtllm"], "args": ["--x", "it's {a}"], "env": []}
    launch = leader_launch(container, 3, "svc", LWS, 4)
    subprocess.run(["/bin/sh", "-n", "-c", launch], check=True)
    subprocess.run(["/bin/sh", "-n", "-c", worker_launch()], check=True)


PROBES: dict[str, Any] = {"livenessProbe": {}, "readinessProbe": {}, "startupProbe": {}}
SSH_MOUNT = {"name": SECRET, "mountPath": "/ssh-pk", "readOnly": True}
OMPI_ENV = {"name": "OMPI_MCA_orte_keep_fqdn_hostnames", "value": "1"}
SSH_READINESS = {
    "tcpSocket": {"port": 2222}, "initialDelaySeconds": 20, "periodSeconds": 20, "timeoutSeconds": 5, "failureThreshold": 10,
}


def test_update_container_single_node_changes_nothing() -> None:
    container = {"args": ["python3", "--model", "test"], **PROBES}
    assert BACKEND.update_container(container, context(nodes=1, role=MAIN, deployer=GROVE)) is container


@pytest.mark.parametrize(
    ("name", "nodes", "role", "deployer", "gpus"),
    [
        ("Multinode leader with GPU resources", 3, LEADER, GROVE, 2),
        ("Multinode worker", 3, WORKER, GROVE, 0),
        ("Multinode leader with LWS deployment", 2, LEADER, LWS, 1),
    ],
)
def test_update_container_multinode(name: str, nodes: int, role: str, deployer: Deployer, gpus: int) -> None:
    container = {"args": ["python3", "--model", "test"], **PROBES}
    out = BACKEND.update_container(container, context(nodes=nodes, role=role, deployer=deployer, gpus=gpus))
    assert out["volumeMounts"] == [SSH_MOUNT]
    assert out["command"] == ["/bin/sh", "-c"]
    assert out["args"] == [EXPECTED[name]]
    assert out["env"] == [OMPI_ENV]
    if role == WORKER:
        assert "livenessProbe" not in out and "startupProbe" not in out
        assert out["readinessProbe"] == SSH_READINESS
    else:
        assert {k: out[k] for k in PROBES} == PROBES
    assert container == {"args": ["python3", "--model", "test"], **PROBES}, "the input container must not be edited"


def test_update_container_leader_relaunches_the_original_python_command() -> None:
    """The launch line is built from the command as the user gave it, before it becomes /bin/sh -c."""
    container = {"command": ["python3", "-m", "dynamo.trtllm"], "args": ["--model-path", "/m"]}
    out = BACKEND.update_container(container, context(nodes=2, role=LEADER, gpus=4))
    assert out["command"] == ["/bin/sh", "-c"]
    assert out["args"][0].endswith("bash -c 'trtllm-llmapi-launch python3 -m dynamo.trtllm --model-path /m'")
    assert " -n 8 " in out["args"][0]


def test_update_container_main_role_multinode_keeps_command_and_probes() -> None:
    """Role main with nodeCount > 1 (a Deployment without the LWS gate): mount and env only."""
    container = {"command": ["python3"], "args": ["-m", "dynamo.trtllm"], "volumeMounts": [{"name": "m", "mountPath": "/m"}], **PROBES}
    out = BACKEND.update_container(container, context(nodes=2, role=MAIN, gpus=gpus_failing("never asked")))
    assert out == {
        "command": ["python3"], "args": ["-m", "dynamo.trtllm"], "volumeMounts": [{"name": "m", "mountPath": "/m"}, SSH_MOUNT],
        "env": [OMPI_ENV], **PROBES,
    }


def test_update_container_worker_never_resolves_gpus() -> None:
    out = BACKEND.update_container({"args": ["x"]}, context(nodes=2, role=WORKER, gpus=gpus_failing("never asked")))
    assert out["args"] == [EXPECTED["Worker setup"]]


def test_update_container_leader_wraps_gpu_errors() -> None:
    with pytest.raises(RenderError) as err:
        BACKEND.update_container({"args": ["x"]}, context(nodes=2, role=LEADER, gpus=gpus_failing('GPU resource "nvidia.com/gpu" quantity "500m" must be a whole number')))
    assert err.value.message == 'failed to resolve container GPUs: GPU resource "nvidia.com/gpu" quantity "500m" must be a whole number'
    assert err.value.field == "spec.podTemplate.spec.containers[0].resources.limits[nvidia.com/gpu]"


def test_update_container_appends_the_ssh_env_after_existing_env() -> None:
    out = BACKEND.update_container(
        {"args": ["x"], "env": [{"name": "OMPI_MCA_orte_keep_fqdn_hostnames", "value": "0"}]}, context(nodes=2, role=WORKER)
    )
    assert out["env"] == [{"name": "OMPI_MCA_orte_keep_fqdn_hostnames", "value": "0"}, OMPI_ENV]


def test_compilation_cache_sets_no_env() -> None:
    out = BACKEND.update_container({"env": []}, context(nodes=1, role=MAIN, cache_mount_path="/cache/trtllm"))
    assert out == {"env": []}


@pytest.mark.parametrize(
    ("nodes", "role", "volumes", "expected_count"),
    [(1, MAIN, [], 0), (3, LEADER, [], 1), (2, WORKER, [], 1), (2, LEADER, [{"name": "existing-volume"}], 2)],
)
def test_update_pod_spec(nodes: int, role: str, volumes: list[dict[str, Any]], expected_count: int) -> None:
    spec: dict[str, Any] = {"containers": [{"name": "main", "env": []}], "volumes": list(volumes)}
    out = BACKEND.update_pod_spec(spec, context(nodes=nodes, role=role))
    assert len(out["volumes"]) == expected_count
    ssh = [v for v in out["volumes"] if v["name"] == SECRET]
    assert ssh == ([{"name": SECRET, "secret": {"secretName": SECRET, "defaultMode": 0o644}}] if nodes > 1 else [])
    assert spec["volumes"] == volumes, "the input pod spec must not be edited"


def test_ssh_secret_name_comes_from_the_operator_config() -> None:
    out = BACKEND.update_pod_spec({"containers": [{}]}, context(nodes=2, role=LEADER, secret="custom-ssh"))
    assert out["volumes"] == [{"name": "custom-ssh", "secret": {"secretName": "custom-ssh", "defaultMode": 420}}]
    container = BACKEND.update_container({"args": ["x"]}, context(nodes=2, role=WORKER, secret="custom-ssh"))
    assert container["volumeMounts"] == [{"name": "custom-ssh", "mountPath": "/ssh-pk", "readOnly": True}]
