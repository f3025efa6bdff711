"""vLLM backend: multinode dispatch (ray, mp, elastic EP, data parallel), wait-for-leader.

Restates: internal/dynamo/backend_vllm_test.go (TestVLLMBackend_UpdateContainer,
TestVLLMBackend_ShellCommandInjection, TestVLLMBackend_UpdateContainer_UseAsCompilationCache,
TestUpdateVLLMMultinodeArgs, TestVLLMBackend_UpdatePodSpec, TestGenerateWaitLeaderConfigMap,
TestGetWaitLeaderConfigMapName, TestShouldUseMpBackend),
internal/dynamo/graph_test.go TestGeneratePodSpecForComponent_VLLM (multinode cases).
"""

from __future__ import annotations

import copy
import subprocess
from typing import Any

import pytest

from renderer import consts
from renderer.pod.backends.common import LWS, Deployer
from renderer.pod.backends.vllm import (
    BACKEND,
    inject_data_parallel_launch_flags,
    k8s_to_shell_var_syntax,
    should_use_mp_backend,
    update_multinode_args,
    wait_leader_config_map_name,
)
from renderer.results import RenderError
from tests.unit.test_backends_deployers import GROVE, context, gpus_failing

LEADER, WORKER, MAIN = consts.ROLE_LEADER, consts.ROLE_WORKER, consts.ROLE_MAIN
ORIGIN = consts.ANNOTATION_OPERATOR_ORIGIN_VERSION
EXECUTOR = consts.ANNOTATION_VLLM_DISTRIBUTED_EXECUTOR_BACKEND
GROVE_LEADER = "$(GROVE_PCSG_NAME)-$(GROVE_PCSG_INDEX)-test-service-ldr-0.$(GROVE_HEADLESS_SERVICE)"
GROVE_RANK = "$((GROVE_PCLQ_POD_INDEX + 1))"
TP, DP, DPL = "--tensor-parallel-size", "--data-parallel-size", "--data-parallel-size-local"
ELASTIC = "--enable-elastic-ep"

RAY_WAIT = (
    "i=0; until python3 -c \"import socket; s=socket.create_connection(('127.0.0.1',6379),timeout=1); s.close()\" 2>/dev/null; "
    'do i=$((i+1)); [ "$i" -ge 150 ] && { echo "ERROR: Ray head did not start within 300s" >&2; exit 1; }; sleep 2; done && '
)
SINGLE_POD_HEAD = 'ray start --head --port=6379 --node-ip-address="$POD_IP" --block & ' + RAY_WAIT + "exec "
LEADER_HEAD = "ray start --head --port=6379 --block & " + RAY_WAIT


def health_gate(leader: str) -> str:
    return (
        f"i=0; until python3 -c \"import urllib.request; urllib.request.urlopen('http://{leader}:9090/live', timeout=5)\" "
        '2>/dev/null; do i=$((i+1)); [ "$i" -ge 720 ] && { echo "ERROR: leader /live did not become ready within 3h" >&2; exit 1; }; '
        f"echo 'waiting for leader dynamo.vllm /live to return 200...'; sleep 15; done && ray start --address={leader}:6379 --block"
    )


POD_IP = {"fieldRef": {"fieldPath": "status.podIP"}}
# (name, nodes, role, annotations, deployer, command, args, gpus, expected args or None = unchanged,
#  probes: "removed" | "kept" | None, single-pod Ray env expected)
UPDATE_CONTAINER: list[tuple[str, int, str, dict[str, str], Deployer, list[str], list[str], int, list[str] | None, str | None, bool]] = [
    ("single node does not modify args", 1, MAIN, {}, GROVE, ["python3"], ["-m", "dynamo.vllm"], 0, None, None, False),
    (
        "multinode leader uses ray (no annotations = legacy)", 3, LEADER, {}, GROVE, ["python3", "-m", "dynamo.vllm"],
        ["--model", "test", TP, "8"], 4,
        ["ray start --head --port=6379 && python3 -m dynamo.vllm --model test --tensor-parallel-size 8 --distributed-executor-backend ray"],
        None, False,
    ),
    (
        "multinode leader uses ray with JSON args", 3, LEADER, {}, GROVE, ["python3", "-m", "dynamo.vllm"],
        ["--model", "test", TP, "8", "--kv-transfer-config", '{"kv_connector": "NixlConnector", "kv_role": "kv_both"}'], 4,
        ['ray start --head --port=6379 && python3 -m dynamo.vllm --model test --tensor-parallel-size 8 --kv-transfer-config '
         '"{\\"kv_connector\\": \\"NixlConnector\\", \\"kv_role\\": \\"kv_both\\"}" --distributed-executor-backend ray'],
        None, False,
    ),
    (
        "multinode worker uses ray", 3, WORKER, {}, GROVE, ["python3"], ["-m", "dynamo.vllm", "--model", "test", TP, "8"], 4,
        [f"ray start --address={GROVE_LEADER}:6379 --block"], "removed", False,
    ),
    (
        "multinode worker with LWS (legacy ray)", 2, WORKER, {}, LWS, [], ["python3", "-m", "dynamo.vllm", TP, "8"], 4,
        ["ray start --address=$(LWS_LEADER_ADDRESS):6379 --block"], "removed", False,
    ),
    ("multinode leader with no initial args", 2, LEADER, {}, GROVE, [], [], 0, None, None, False),
    ("multinode main role does not modify args", 3, MAIN, {}, GROVE, [], ["python3", "-m", "dynamo.frontend"], 0, None, None, False),
    (
        "multinode leader uses mp (origin version >= threshold)", 2, LEADER, {ORIGIN: "1.0.0"}, GROVE, ["python3"],
        ["-m", "dynamo.vllm", TP, "16"], 8,
        ["-m", "dynamo.vllm", TP, "16", "--distributed-executor-backend", "mp", "--nnodes", "2", "--master-addr", GROVE_LEADER,
         "--master-port", "29500", "--node-rank", "0"],
        None, False,
    ),
    (
        "multinode worker uses mp Grove", 2, WORKER, {ORIGIN: "1.0.0"}, GROVE, ["python3"], ["-m", "dynamo.vllm", TP, "16"], 8,
        [f"exec python3 -m dynamo.vllm --tensor-parallel-size 16 --distributed-executor-backend mp --nnodes 2 --master-addr "
         f"{GROVE_LEADER} --master-port 29500 --node-rank {GROVE_RANK} --headless"],
        "removed", False,
    ),
    (
        "multinode leader uses ray (explicit override despite new version)", 2, LEADER, {ORIGIN: "1.0.0", EXECUTOR: "ray"}, GROVE,
        ["python3", "-m", "dynamo.vllm"], ["--model", "test", TP, "8"], 4,
        ["ray start --head --port=6379 && python3 -m dynamo.vllm --model test --tensor-parallel-size 8 --distributed-executor-backend ray"],
        None, False,
    ),
    (
        "multinode leader uses mp (explicit override on legacy)", 2, LEADER, {EXECUTOR: "mp"}, GROVE, ["python3"],
        ["-m", "dynamo.vllm", TP, "16"], 8,
        ["-m", "dynamo.vllm", TP, "16", "--distributed-executor-backend", "mp", "--nnodes", "2", "--master-addr", GROVE_LEADER,
         "--master-port", "29500", "--node-rank", "0"],
        None, False,
    ),
    (
        "single node elastic EP gets a ray head", 1, MAIN, {}, GROVE, ["python3", "-m", "dynamo.vllm"],
        ["--model", "test", "--data-parallel-backend", "ray", ELASTIC], 4,
        [SINGLE_POD_HEAD + "python3 -m dynamo.vllm --model test --data-parallel-backend ray --enable-elastic-ep"], "kept", True,
    ),
    (
        "single node elastic EP with the inline backend flag", 1, MAIN, {}, GROVE, ["python3", "-m", "dynamo.vllm"],
        ["--model", "test", "--data-parallel-backend=ray", ELASTIC], 4,
        [SINGLE_POD_HEAD + "python3 -m dynamo.vllm --model test --data-parallel-backend=ray --enable-elastic-ep"], "kept", True,
    ),
    (
        "single node elastic EP with the -dpb short alias", 1, MAIN, {}, GROVE, ["python3", "-m", "dynamo.vllm"],
        ["--model", "test", "-dpb", "ray", ELASTIC], 4,
        [SINGLE_POD_HEAD + "python3 -m dynamo.vllm --model test -dpb ray --enable-elastic-ep"], "kept", True,
    ),
    (
        "single node elastic EP with the inline -dpb alias", 1, MAIN, {}, GROVE, ["python3", "-m", "dynamo.vllm"],
        ["--model", "test", "-dpb=ray", ELASTIC], 4,
        [SINGLE_POD_HEAD + "python3 -m dynamo.vllm --model test -dpb=ray --enable-elastic-ep"], "kept", True,
    ),
    (
        "single node elastic EP detects flags placed in command", 1, MAIN, {}, GROVE,
        ["python3", "-m", "dynamo.vllm", "--data-parallel-backend", "ray", ELASTIC], [], 4,
        [SINGLE_POD_HEAD + "python3 -m dynamo.vllm --data-parallel-backend ray --enable-elastic-ep"], "kept", True,
    ),
    (
        "single node elastic EP with no command keeps the entry point", 1, MAIN, {}, GROVE, [],
        ["--model", "test", "--data-parallel-backend", "ray", ELASTIC], 4, None, None, False,
    ),
    (
        "single node without elastic EP keeps its plain command", 1, MAIN, {}, GROVE, ["python3", "-m", "dynamo.vllm"],
        ["--model", "test", "--data-parallel-backend", "ray"], 4, None, None, False,
    ),
    (
        "single node elastic EP without the ray backend is left alone", 1, MAIN, {}, GROVE, ["python3", "-m", "dynamo.vllm"],
        ["--model", "test", ELASTIC], 2, None, None, False,
    ),
    (
        "single node elastic EP on a non-ray backend is left alone", 1, MAIN, {}, GROVE, ["python3", "-m", "dynamo.vllm"],
        ["--model", "test", "--data-parallel-backend", "mp", ELASTIC], 2, None, None, False,
    ),
    (
        "multinode leader uses a DRA-sized GPU count", 2, LEADER, {EXECUTOR: "mp"}, GROVE, ["python3"],
        ["-m", "dynamo.vllm", TP, "2"], 1,
        ["-m", "dynamo.vllm", TP, "2", "--distributed-executor-backend", "mp", "--nnodes", "2", "--master-addr", GROVE_LEADER,
         "--master-port", "29500", "--node-rank", "0"],
        None, False,
    ),
    (
        "multinode worker computes data parallel ranks", 2, WORKER, {}, GROVE, ["python3"], ["-m", "dynamo.vllm", DP, "2"], 1,
        [f"exec python3 -m dynamo.vllm --data-parallel-size 2 --data-parallel-hybrid-lb --data-parallel-size-local 1 "
         f"--data-parallel-start-rank $(( 1 * {GROVE_RANK} )) --data-parallel-address {GROVE_LEADER} --data-parallel-rpc-port 13445"],
        "removed", False,
    ),
]

PROBES: dict[str, Any] = {"livenessProbe": {"periodSeconds": 5}, "readinessProbe": {"periodSeconds": 10}, "startupProbe": {"periodSeconds": 10}}


@pytest.mark.parametrize(
    ("nodes", "role", "annotations", "deployer", "command", "args", "gpus", "expected", "probes", "ray_env"),
    [c[1:] for c in UPDATE_CONTAINER],
    ids=[c[0] for c in UPDATE_CONTAINER],
)
def test_update_container(
    nodes: int, role: str, annotations: dict[str, str], deployer: Deployer, command: list[str], args: list[str], gpus: int,
    expected: list[str] | None, probes: str | None, ray_env: bool,
) -> None:
    container: dict[str, Any] = {"command": list(command), "args": list(args), **copy.deepcopy(PROBES)}
    before = copy.deepcopy(container)
    out = BACKEND.update_container(container, context(nodes=nodes, role=role, deployer=deployer, gpus=gpus, annotations=annotations))
    assert out.get("args") == (args if expected is None else expected)
    if probes == "removed":
        assert not any(p in out for p in PROBES)
    elif probes == "kept":
        assert {p: out[p] for p in PROBES} == PROBES
    env = {e["name"]: e for e in out.get("env") or []}
    if ray_env:
        assert out["command"] == ["/bin/sh", "-c"]
        assert out["env"] == [{"name": "POD_IP", "valueFrom": POD_IP}, {"name": "VLLM_DP_MASTER_IP", "valueFrom": POD_IP}]
    else:
        assert "POD_IP" not in env and "VLLM_DP_MASTER_IP" not in env
    assert container == before, "the input container must not be edited"


def test_mp_backend_adds_the_nixl_side_channel_host_on_every_path() -> None:
    """The env follows the mp choice, not the launch taken (here: no distributed launch at all)."""
    for role in (LEADER, WORKER):
        out = BACKEND.update_container({"command": ["python3"], "args": ["-m", "dynamo.vllm"]}, context(role=role, gpus=8, annotations={EXECUTOR: "mp"}))
        assert out["env"] == [{"name": "VLLM_NIXL_SIDE_CHANNEL_HOST", "valueFrom": POD_IP}]
        assert out["args"] == ["-m", "dynamo.vllm"]
    ray = BACKEND.update_container({"command": ["python3"], "args": ["-m", "dynamo.vllm"]}, context(gpus=8))
    assert "env" not in ray


def test_multinode_wraps_gpu_errors() -> None:
    failing = gpus_failing('GPU resource "nvidia.com/gpu" quantity "500m" must be a whole number')
    for role in (LEADER, WORKER):
        with pytest.raises(RenderError) as err:
            BACKEND.update_container({"args": ["x"]}, context(role=role, gpus=failing))
        assert err.value.message == 'failed to resolve container GPUs: GPU resource "nvidia.com/gpu" quantity "500m" must be a whole number'


def test_single_node_never_resolves_gpus() -> None:
    out = BACKEND.update_container({"command": ["python3"], "args": ["-m", "dynamo.vllm", TP, "8"]}, context(nodes=1, role=MAIN, gpus=gpus_failing("never")))
    assert out["args"] == ["-m", "dynamo.vllm", TP, "8"]


SHELL_INJECTION = [
    ("single node shell command not modified", 1, MAIN, GROVE, "python3 -m dynamo.vllm", 0, "python3 -m dynamo.vllm"),
    (
        "multinode shell command with regex injection", 2, LEADER, GROVE, "python3 -m dynamo.vllm --data-parallel-size 8", 4,
        f"python3 -m dynamo.vllm --data-parallel-hybrid-lb --data-parallel-size-local 4 --data-parallel-start-rank 0 "
        f"--data-parallel-address {GROVE_LEADER} --data-parallel-rpc-port 13445 --data-parallel-size 8",
    ),
    (
        "multinode shell command with complex pipeline", 2, LEADER, GROVE,
        "echo blah | wc -l && python3 -m dynamo.vllm --data-parallel-size 8 && ls -al", 4,
        f"echo blah | wc -l && python3 -m dynamo.vllm --data-parallel-hybrid-lb --data-parallel-size-local 4 "
        f"--data-parallel-start-rank 0 --data-parallel-address {GROVE_LEADER} --data-parallel-rpc-port 13445 --data-parallel-size 8 && ls -al",
    ),
    (
        "shell command with LWS deployer", 2, LEADER, LWS, "python3 -m dynamo.vllm --data-parallel-size 8", 4,
        "python3 -m dynamo.vllm --data-parallel-hybrid-lb --data-parallel-size-local 4 --data-parallel-start-rank 0 "
        "--data-parallel-address $(LWS_LEADER_ADDRESS) --data-parallel-rpc-port 13445 --data-parallel-size 8",
    ),
    (
        "shell command with pipes", 2, LEADER, GROVE, "python3 -m dynamo.vllm --data-parallel-size 8 | tee /tmp/log", 4,
        f"python3 -m dynamo.vllm --data-parallel-hybrid-lb --data-parallel-size-local 4 --data-parallel-start-rank 0 "
        f"--data-parallel-address {GROVE_LEADER} --data-parallel-rpc-port 13445 --data-parallel-size 8 | tee /tmp/log",
    ),
]


@pytest.mark.parametrize(
    ("nodes", "role", "deployer", "arg", "gpus", "expected"), [c[1:] for c in SHELL_INJECTION], ids=[c[0] for c in SHELL_INJECTION]
)
def test_shell_command_injection(nodes: int, role: str, deployer: Deployer, arg: str, gpus: int, expected: str) -> None:
    out = BACKEND.update_container({"command": ["sh", "-c"], "args": [arg]}, context(nodes=nodes, role=role, deployer=deployer, gpus=gpus))
    assert out["args"] == [expected]
    assert out["command"] == ["sh", "-c"]


@pytest.mark.parametrize(
    ("nodes", "cache", "expected"),
    [(1, "/root/.cache/vllm", [{"name": "VLLM_CACHE_ROOT", "value": "/root/.cache/vllm"}]),
     (1, "/custom/cache/path", [{"name": "VLLM_CACHE_ROOT", "value": "/custom/cache/path"}]),
     (1, "", []),
     (2, "/c", [{"name": "VLLM_CACHE_ROOT", "value": "/c"}])],
)
def test_compilation_cache_env(nodes: int, cache: str, expected: list[dict[str, str]]) -> None:
    out = BACKEND.update_container({"env": []}, context(nodes=nodes, role=WORKER if nodes > 1 else MAIN, cache_mount_path=cache, gpus=1))
    assert out["env"] == expected


MULTINODE_ARGS: list[tuple[str, str, Deployer, list[str], list[str], int, dict[str, str], list[str] | None]] = [
    (
        "leader uses ray (nil annotations = legacy)", LEADER, GROVE, ["python3"], ["-m", "dynamo.vllm", TP, "16"], 8, {},
        ["ray start --head --port=6379 && python3 -m dynamo.vllm --tensor-parallel-size 16 --distributed-executor-backend ray"],
    ),
    (
        "leader uses mp (origin version >= threshold)", LEADER, GROVE, ["python3"], ["-m", "dynamo.vllm", TP, "16"], 8, {ORIGIN: "1.0.0"},
        ["-m", "dynamo.vllm", TP, "16", "--distributed-executor-backend", "mp", "--nnodes", "2", "--master-addr", GROVE_LEADER,
         "--master-port", "29500", "--node-rank", "0"],
    ),
    (
        "worker uses mp Grove", WORKER, GROVE, ["python3"], ["-m", "dynamo.vllm", TP, "16"], 8, {ORIGIN: "1.0.0"},
        [f"exec python3 -m dynamo.vllm --tensor-parallel-size 16 --distributed-executor-backend mp --nnodes 2 --master-addr "
         f"{GROVE_LEADER} --master-port 29500 --node-rank {GROVE_RANK} --headless"],
    ),
    (
        "worker uses mp LWS", WORKER, LWS, ["python3"], ["-m", "dynamo.vllm", TP, "16"], 8, {ORIGIN: "1.0.0"},
        ["-m", "dynamo.vllm", TP, "16", "--distributed-executor-backend", "mp", "--nnodes", "2", "--master-addr", "$(LWS_LEADER_ADDRESS)",
         "--master-port", "29500", "--node-rank", "$(LWS_WORKER_INDEX)", "--headless"],
    ),
    (
        "leader uses mp LWS", LEADER, LWS, ["python3"], ["-m", "dynamo.vllm", TP, "16"], 8, {ORIGIN: "1.0.0"},
        ["-m", "dynamo.vllm", TP, "16", "--distributed-executor-backend", "mp", "--nnodes", "2", "--master-addr", "$(LWS_LEADER_ADDRESS)",
         "--master-port", "29500", "--node-rank", "0"],
    ),
    (
        "leader with data parallel launch LWS", LEADER, LWS, ["python3"], ["-m", "dynamo.vllm", DP, "16"], 8, {},
        ["-m", "dynamo.vllm", DP, "16", "--data-parallel-hybrid-lb", DPL, "8", "--data-parallel-start-rank", "0",
         "--data-parallel-address", "$(LWS_LEADER_ADDRESS)", "--data-parallel-rpc-port", "13445"],
    ),
    (
        "leader data parallel flags (annotations do not matter)", LEADER, GROVE, ["python3"], ["-m", "dynamo.vllm", DP, "16"], 8, {},
        ["-m", "dynamo.vllm", DP, "16", "--data-parallel-hybrid-lb", DPL, "8", "--data-parallel-start-rank", "0",
         "--data-parallel-address", GROVE_LEADER, "--data-parallel-rpc-port", "13445"],
    ),
    ("leader with empty args does not modify", LEADER, GROVE, [], [], 0, {}, None),
    (
        "worker with ray distributed launch Grove", WORKER, GROVE, [], ["python3", "-m", "dynamo.vllm", TP, "16"], 8, {},
        [f"ray start --address={GROVE_LEADER}:6379 --block"],
    ),
    (
        "worker with data parallel launch Grove", WORKER, GROVE, ["python3"], ["-m", "dynamo.vllm", DP, "16"], 8, {},
        [f"exec python3 -m dynamo.vllm --data-parallel-size 16 --data-parallel-hybrid-lb --data-parallel-size-local 8 "
         f"--data-parallel-start-rank $(( 8 * {GROVE_RANK} )) --data-parallel-address {GROVE_LEADER} --data-parallel-rpc-port 13445"],
    ),
    (
        "worker with data parallel launch Grove, tp > 1", WORKER, GROVE, ["python3"], ["-m", "dynamo.vllm", DP, "8", TP, "2"], 8, {},
        [f"exec python3 -m dynamo.vllm --data-parallel-size 8 --tensor-parallel-size 2 --data-parallel-hybrid-lb --data-parallel-size-local 4 "
         f"--data-parallel-start-rank $(( 4 * {GROVE_RANK} )) --data-parallel-address {GROVE_LEADER} --data-parallel-rpc-port 13445"],
    ),
    (
        "worker with ray distributed launch LWS", WORKER, LWS, [], ["python3", "-m", "dynamo.vllm", TP, "16"], 8, {},
        ["ray start --address=$(LWS_LEADER_ADDRESS):6379 --block"],
    ),
    ("main role does not modify args", MAIN, GROVE, [], ["python3", "-m", "dynamo.frontend"], 0, {}, None),
    (
        "elastic EP leader Grove", LEADER, GROVE, ["python3", "-m", "dynamo.vllm"],
        ["--model", "test", DP, "4", "--data-parallel-backend", "ray", ELASTIC], 2, {},
        [LEADER_HEAD + "python3 -m dynamo.vllm --model test --data-parallel-size 4 --data-parallel-backend ray --enable-elastic-ep"],
    ),
    (
        "elastic EP worker Grove", WORKER, GROVE, ["python3", "-m", "dynamo.vllm"],
        ["--model", "test", DP, "4", "--data-parallel-backend", "ray", ELASTIC], 2, {}, [health_gate(GROVE_LEADER)],
    ),
    (
        "elastic EP leader keeps a user --data-parallel-size-local", LEADER, GROVE, ["python3", "-m", "dynamo.vllm"],
        ["--model", "test", DP, "4", "--data-parallel-backend", "ray", ELASTIC, DPL, "2"], 2, {},
        [LEADER_HEAD + "python3 -m dynamo.vllm --model test --data-parallel-size 4 --data-parallel-backend ray --enable-elastic-ep --data-parallel-size-local 2"],
    ),
    (
        "elastic EP worker LWS", WORKER, LWS, ["python3", "-m", "dynamo.vllm"],
        ["--model", "test", DP, "4", "--data-parallel-backend", "ray", ELASTIC], 2, {}, [health_gate("$(LWS_LEADER_ADDRESS)")],
    ),
    (
        "elastic EP main takes the leader arm", MAIN, GROVE, ["python3", "-m", "dynamo.vllm"],
        ["--model", "test", "--data-parallel-backend", "ray", ELASTIC], 2, {},
        [SINGLE_POD_HEAD + "python3 -m dynamo.vllm --model test --data-parallel-backend ray --enable-elastic-ep"],
    ),
]


@pytest.mark.parametrize(
    ("role", "deployer", "command", "args", "gpus", "annotations", "expected"),
    [c[1:] for c in MULTINODE_ARGS],
    ids=[c[0] for c in MULTINODE_ARGS],
)
def test_update_multinode_args(
    role: str, deployer: Deployer, command: list[str], args: list[str], gpus: int, annotations: dict[str, str], expected: list[str] | None
) -> None:
    container: dict[str, Any] = {"command": list(command), "args": list(args)}
    update_multinode_args(container, context(nodes=2, role=role, deployer=deployer, annotations=annotations), gpus)
    assert container["args"] == (args if expected is None else expected)


@pytest.mark.parametrize(
    ("args", "gpus", "expected"),
    [
        # The "=" spelling is invisible to the dispatch: no launch shaping at all.
        (["-m", "dynamo.vllm", "--tensor-parallel-size=16"], 8, ["-m", "dynamo.vllm", "--tensor-parallel-size=16"]),
        # Zero GPUs (no GPU resources) never triggers TP or DP shaping.
        (["-m", "dynamo.vllm", TP, "16"], 0, ["-m", "dynamo.vllm", TP, "16"]),
        # World size fits in one pod and no DP: unchanged.
        (["-m", "dynamo.vllm", TP, "8"], 8, ["-m", "dynamo.vllm", TP, "8"]),
        # Pipeline parallelism counts toward the world size.
        (["-m", "dynamo.vllm", TP, "4", "--pipeline-parallel-size", "4"], 8,
         ["ray start --head --port=6379 && python3 -m dynamo.vllm --tensor-parallel-size 4 --pipeline-parallel-size 4 --distributed-executor-backend ray"]),
    ],
)
def test_flag_parsing_quirks(args: list[str], gpus: int, expected: list[str]) -> None:
    container: dict[str, Any] = {"command": ["python3"], "args": list(args)}
    update_multinode_args(container, context(role=LEADER), gpus)
    assert container["args"] == expected


def test_ray_leader_nests_a_shell_command() -> None:
    """A ``/bin/sh -c "<line>"`` command is re-quoted whole; the ray flag becomes the inner shell's $0."""
    container: dict[str, Any] = {"command": ["/bin/sh", "-c"], "args": ["python3 -m dynamo.vllm --tensor-parallel-size 16"]}
    update_multinode_args(container, context(role=LEADER), 8)
    assert container == {
        "command": ["/bin/sh", "-c"],
        "args": ['ray start --head --port=6379 && /bin/sh -c "python3 -m dynamo.vllm --tensor-parallel-size 16" --distributed-executor-backend ray'],
    }


def test_ray_main_role_keeps_args_but_loses_its_command() -> None:
    container: dict[str, Any] = {"command": ["python3"], "args": ["-m", "dynamo.vllm", TP, "16"]}
    update_multinode_args(container, context(role=MAIN), 8)
    assert container == {"command": ["/bin/sh", "-c"], "args": ["-m", "dynamo.vllm", TP, "16"]}


def test_mp_main_role_gets_no_rank() -> None:
    container: dict[str, Any] = {"command": ["python3"], "args": ["-m", "dynamo.vllm", TP, "16"]}
    update_multinode_args(container, context(role=MAIN, annotations={EXECUTOR: "mp"}), 8)
    assert container["args"][-2:] == ["--master-port", "29500"]


def test_data_parallel_total_defaults_to_ranks_per_node_times_nodes() -> None:
    """When the given total is 1 the flag is recomputed as ranks per node x nodes.

    The dispatch never reaches data parallelism with a total of 1 (tensor x pipeline would
    then already exceed the GPUs), so the rule is exercised on the injection directly.
    """
    container: dict[str, Any] = {"command": ["python3"], "args": ["-m", "dynamo.vllm", TP, "2"]}
    inject_data_parallel_launch_flags(container, context(nodes=3, role=LEADER), 8)
    assert container["args"] == ["-m", "dynamo.vllm", TP, "2", "--data-parallel-hybrid-lb", DP, "12", DPL, "4",
                                 "--data-parallel-start-rank", "0", "--data-parallel-address", "$(LWS_LEADER_ADDRESS)",
                                 "--data-parallel-rpc-port", "13445"]


def test_data_parallel_main_role_injects_an_empty_flag_string() -> None:
    """Role main gets no flags: a shell string gains a double space (the operator's quirk)."""
    container: dict[str, Any] = {"command": ["sh", "-c"], "args": ["python3 -m dynamo.vllm --data-parallel-size 4"]}
    inject_data_parallel_launch_flags(container, context(role=MAIN), 2)
    assert container["args"] == ["python3 -m dynamo.vllm  --data-parallel-size 4"]


def test_data_parallel_with_zero_world_size_is_an_error() -> None:
    container: dict[str, Any] = {"command": ["python3"], "args": ["-m", "dynamo.vllm", TP, "0", DP, "4"]}
    with pytest.raises(RenderError, match="tensor x pipeline parallel size 0"):
        inject_data_parallel_launch_flags(container, context(role=LEADER), -1)


def test_data_parallel_divides_like_go() -> None:
    container: dict[str, Any] = {"command": ["python3"], "args": ["-m", "dynamo.vllm", TP, "-4", DP, "-4"]}
    update_multinode_args(container, context(role=LEADER), 6)
    # 6 / -4 truncates toward zero in Go: -1 rank per node.
    assert container["args"][container["args"].index(DPL) + 1] == "-1"


def test_elastic_ep_leader_with_an_empty_command_is_left_alone() -> None:
    container: dict[str, Any] = {"args": ["--model", "m", ELASTIC]}
    update_multinode_args(container, context(role=LEADER), 2)
    assert container == {"args": ["--model", "m", ELASTIC]}


def test_elastic_ep_launch_is_valid_shell() -> None:
    container: dict[str, Any] = {"command": ["python3", "-m", "dynamo.vllm"], "args": ["--x", "it's", "", ELASTIC, "-dpb", "ray"]}
    out = BACKEND.update_container(container, context(nodes=1, role=MAIN))
    subprocess.run(["/bin/sh", "-n", "-c", out["args"][0]], check=True)
    assert out["args"][0].endswith("exec python3 -m dynamo.vllm --x 'it'\\''s' '' --enable-elastic-ep -dpb ray")


@pytest.mark.parametrize(
    ("annotations", "expected"),
    [
        ({}, False),
        ({ORIGIN: "0.1.0", EXECUTOR: "mp"}, True),
        ({ORIGIN: "1.0.0", EXECUTOR: "ray"}, False),
        ({EXECUTOR: "mp"}, True),
        ({ORIGIN: "1.0.0", EXECUTOR: "invalid"}, True),
        ({EXECUTOR: "MP"}, True),
        ({ORIGIN: "1.0.0", EXECUTOR: "RAY"}, False),
        ({ORIGIN: "1.0.0"}, True),
        ({ORIGIN: "0.9.0"}, False),
    ],
)
def test_should_use_mp_backend(annotations: dict[str, str], expected: bool) -> None:
    assert should_use_mp_backend(annotations) is expected


def mp_pod_spec(image: str) -> dict[str, Any]:
    return {"containers": [{"name": "main", "image": image, "command": ["python3"], "args": ["-m", "dynamo.vllm", TP, "16", "--distributed-executor-backend", "mp"]}]}


def dp_pod_spec(image: str) -> dict[str, Any]:
    return {"containers": [{"name": "main", "image": image, "command": ["python3"],
                            "args": ["-m", "dynamo.vllm", TP, "1", DP, "16", "--data-parallel-hybrid-lb", DPL, "8"]}]}


GROVE_SHELL_LEADER = "${GROVE_PCSG_NAME}-${GROVE_PCSG_INDEX}-test-service-ldr-0.${GROVE_HEADLESS_SERVICE}"
UPDATE_POD_SPEC: list[tuple[str, int, str, Deployer, dict[str, Any], str | None]] = [
    ("mp worker with Grove deployer", 2, WORKER, GROVE, mp_pod_spec("vllm:latest"), GROVE_SHELL_LEADER),
    ("mp worker with LWS deployer", 2, WORKER, LWS, mp_pod_spec("vllm:v2"), "${LWS_LEADER_ADDRESS}"),
    (
        "mp worker with executor flag in command", 2, WORKER, GROVE,
        {"containers": [{"name": "main", "image": "vllm:command", "command": ["python3", "-m", "dynamo.vllm", TP, "16", "--distributed-executor-backend", "mp"]}]},
        GROVE_SHELL_LEADER,
    ),
    (
        "mp worker with shell-form command", 2, WORKER, GROVE,
        {"containers": [{"name": "main", "image": "vllm:shell-command",
                         "command": ["sh", "-c", "exec python3 -m dynamo.vllm --tensor-parallel-size 16 --distributed-executor-backend    mp"]}]},
        GROVE_SHELL_LEADER,
    ),
    ("mp leader", 2, LEADER, GROVE, mp_pod_spec("vllm:latest"), None),
    ("data parallel worker", 2, WORKER, LWS, dp_pod_spec("vllm:dp"), None),
    (
        "non-mp worker command", 2, WORKER, GROVE,
        {"containers": [{"name": "main", "image": "vllm:latest", "command": ["/bin/sh", "-c"], "args": ["ray start --address=leader:6379 --block"]}]},
        None,
    ),
    ("single node", 1, MAIN, GROVE, {"containers": [{"name": "main", "image": "vllm:latest"}]}, None),
    (
        "mp worker preserves existing init containers", 2, WORKER, GROVE,
        dict(mp_pod_spec("vllm:latest"), initContainers=[{"name": "existing-init", "image": "busybox"}]), GROVE_SHELL_LEADER,
    ),
    ("no containers", 2, WORKER, GROVE, {"containers": []}, None),
]


@pytest.mark.parametrize(
    ("nodes", "role", "deployer", "spec", "leader"), [c[1:] for c in UPDATE_POD_SPEC], ids=[c[0] for c in UPDATE_POD_SPEC]
)
def test_update_pod_spec(nodes: int, role: str, deployer: Deployer, spec: dict[str, Any], leader: str | None) -> None:
    before = copy.deepcopy(spec)
    out = BACKEND.update_pod_spec(spec, context(nodes=nodes, role=role, deployer=deployer, parent_name="test-dgd"))
    assert spec == before, "the input pod spec must not be edited"
    if leader is None:
        assert out == spec
        return
    inits = out["initContainers"]
    assert inits[:-1] == spec.get("initContainers", [])
    assert inits[-1] == {
        "name": "wait-for-leader-mp",
        "image": spec["containers"][0]["image"],
        "command": ["sh", "-c", f'export LEADER_HOST="{leader}" LEADER_PORT="29500" && exec python3 /scripts/wait-for-leader.py'],
        "volumeMounts": [{"name": "wait-leader-script", "mountPath": "/scripts", "readOnly": True}],
    }
    assert out["volumes"] == [{"name": "wait-leader-script", "configMap": {"name": "test-dgd-wait-leader-script"}}]


def test_update_pod_spec_needs_a_parent_name() -> None:
    spec = mp_pod_spec("vllm")
    assert BACKEND.update_pod_spec(spec, context(role=WORKER, parent_name="")) is spec


def test_k8s_to_shell_var_syntax() -> None:
    assert k8s_to_shell_var_syntax("$(A)-$(B_1).$C $(not-a-var)") == "${A}-${B_1}.$C $(not-a-var)"


def test_wait_leader_config_map_name() -> None:
    assert wait_leader_config_map_name("foo") == "foo-wait-leader-script"
