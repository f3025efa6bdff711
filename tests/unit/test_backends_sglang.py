"""SGLang backend: multinode flag injection and worker probes.

Restates: internal/dynamo/backend_sglang_test.go (TestSGLangBackend_PythonCommandInjection,
TestSGLangBackend_ShellCommandInjection, TestSGLangBackend_GetMultinodeFlags,
TestSGLangBackend_ProbeRemoval, TestSGLangBackend_UpdateContainer_UseAsCompilationCache).
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from renderer import consts
from renderer.pod.backends.common import LWS, Deployer
from renderer.pod.backends.sglang import BACKEND, multinode_flags
from tests.unit.test_backends_deployers import GROVE, SHELL, SIMPLE, context

LEADER, WORKER, MAIN = consts.ROLE_LEADER, consts.ROLE_WORKER, consts.ROLE_MAIN
GROVE_LEADER = "$(GROVE_PCSG_NAME)-$(GROVE_PCSG_INDEX)-test-service-ldr-0.$(GROVE_HEADLESS_SERVICE)"

PYTHON_CASES = [
    ("single node", 1, MAIN, SIMPLE, ["python3"], ["-m", "dynamo.sglang"], ["python3"], ["-m", "dynamo.sglang"]),
    (
        "simple deployer appends", 2, WORKER, SIMPLE, ["python3"], ["-m", "dynamo.sglang", "--model", "llama"],
        ["python3"],
        ["-m", "dynamo.sglang", "--model", "llama", "--dist-init-addr", "leader.example.com:29500", "--nnodes", "2", "--node-rank", "1"],
    ),
    (
        "lws worker appends (kubelet expansion)", 2, WORKER, LWS, ["python3"], ["-m", "dynamo.sglang", "--model", "llama"],
        ["python3"],
        ["-m", "dynamo.sglang", "--model", "llama", "--dist-init-addr", "$(LWS_LEADER_ADDRESS):29500", "--nnodes", "2",
         "--node-rank", "$(LWS_WORKER_INDEX)"],
    ),
    (
        "lws leader appends", 2, LEADER, LWS, ["python3"], ["-m", "dynamo.sglang"], ["python3"],
        ["-m", "dynamo.sglang", "--dist-init-addr", "$(LWS_LEADER_ADDRESS):29500", "--nnodes", "2", "--node-rank", "0"],
    ),
    (
        "shell deployer wraps", 2, WORKER, SHELL, ["python3"], ["-m", "dynamo.sglang", "--model", "llama"], ["sh", "-c"],
        ["exec python3 -m dynamo.sglang --model llama --dist-init-addr $(LEADER_HOST):29500 --nnodes 2 --node-rank $(WORKER_INDEX)"],
    ),
    (
        "leader never wraps", 3, LEADER, SHELL, ["python"], ["-m", "dynamo.sglang"], ["python"],
        ["-m", "dynamo.sglang", "--dist-init-addr", "$(LEADER_HOST):29500", "--nnodes", "3", "--node-rank", "0"],
    ),
    (
        "python3.11", 2, WORKER, SIMPLE, ["python3.11"], ["-m", "dynamo.sglang"], ["python3.11"],
        ["-m", "dynamo.sglang", "--dist-init-addr", "leader.example.com:29500", "--nnodes", "2", "--node-rank", "1"],
    ),
    (
        "absolute path", 2, WORKER, SIMPLE, ["/usr/bin/python3.8"], ["-m", "dynamo.sglang", "--model", "llama"],
        ["/usr/bin/python3.8"],
        ["-m", "dynamo.sglang", "--model", "llama", "--dist-init-addr", "leader.example.com:29500", "--nnodes", "2", "--node-rank", "1"],
    ),
    (
        "pyenv shim wraps", 2, WORKER, SHELL, ["/home/user/.pyenv/shims/python3.9"], ["-m", "dynamo.sglang"], ["sh", "-c"],
        ["exec /home/user/.pyenv/shims/python3.9 -m dynamo.sglang --dist-init-addr $(LEADER_HOST):29500 --nnodes 2 --node-rank $(WORKER_INDEX)"],
    ),
    (
        "module in command, simple", 2, WORKER, SIMPLE, ["python3", "-m", "dynamo.sglang"],
        ["--model-path", "Qwen/Qwen3-0.6B", "--tp-size", "8"], ["python3", "-m", "dynamo.sglang"],
        ["--model-path", "Qwen/Qwen3-0.6B", "--tp-size", "8", "--dist-init-addr", "leader.example.com:29500", "--nnodes", "2",
         "--node-rank", "1"],
    ),
    (
        "module in command, shell", 2, WORKER, SHELL, ["python3", "-m", "dynamo.sglang"], ["--model-path", "Qwen/Qwen3-0.6B"],
        ["sh", "-c"],
        ["exec python3 -m dynamo.sglang --model-path Qwen/Qwen3-0.6B --dist-init-addr $(LEADER_HOST):29500 --nnodes 2 --node-rank $(WORKER_INDEX)"],
    ),
    (
        "no args, shell", 2, WORKER, SHELL, ["python3", "-m", "dynamo.sglang"], [], ["sh", "-c"],
        ["exec python3 -m dynamo.sglang --dist-init-addr $(LEADER_HOST):29500 --nnodes 2 --node-rank $(WORKER_INDEX)"],
    ),
    ("non-python unchanged", 2, WORKER, SHELL, ["java"], ["-jar", "app.jar"], ["java"], ["-jar", "app.jar"]),
]


@pytest.mark.parametrize(
    ("nodes", "role", "deployer", "command", "args", "want_command", "want_args"),
    [c[1:] for c in PYTHON_CASES],
    ids=[c[0] for c in PYTHON_CASES],
)
def test_python_command_injection(
    nodes: int, role: str, deployer: Deployer, command: list[str], args: list[str], want_command: list[str], want_args: list[str]
) -> None:
    container = {"command": list(command), "args": list(args)}
    out = BACKEND.update_container(container, context(nodes=nodes, role=role, deployer=deployer))
    assert (out.get("command"), out.get("args")) == (want_command, want_args)
    assert container == {"command": command, "args": args}, "the input container must not be edited"


SHELL_CASES = [
    ("single node", 1, MAIN, GROVE, ["python -m dynamo.sglang"], ["python -m dynamo.sglang"]),
    (
        "regex injection", 2, LEADER, GROVE, ["python -m dynamo.sglang"],
        [f"python -m dynamo.sglang --dist-init-addr {GROVE_LEADER}:29500 --nnodes 2 --node-rank 0"],
    ),
    (
        "complex pipeline", 2, LEADER, GROVE, ["echo blah | wc -l && python -m dynamo.sglang && ls -al"],
        [f"echo blah | wc -l && python -m dynamo.sglang --dist-init-addr {GROVE_LEADER}:29500 --nnodes 2 --node-rank 0 && ls -al"],
    ),
    (
        "grove worker rank", 3, WORKER, GROVE, ["python -m dynamo.sglang"],
        [f"python -m dynamo.sglang --dist-init-addr {GROVE_LEADER}:29500 --nnodes 3 --node-rank $((GROVE_PCLQ_POD_INDEX + 1))"],
    ),
    (
        "lws leader", 2, LEADER, LWS, ["python -m dynamo.sglang"],
        ["python -m dynamo.sglang --dist-init-addr $(LWS_LEADER_ADDRESS):29500 --nnodes 2 --node-rank 0"],
    ),
    (
        "pipes", 2, LEADER, GROVE, ["python -m dynamo.sglang | tee /tmp/log"],
        [f"python -m dynamo.sglang --dist-init-addr {GROVE_LEADER}:29500 --nnodes 2 --node-rank 0 | tee /tmp/log"],
    ),
    (
        "multiple args, one modified", 2, LEADER, GROVE, ["echo start", "python -m dynamo.sglang", "echo done"],
        ["echo start", f"python -m dynamo.sglang --dist-init-addr {GROVE_LEADER}:29500 --nnodes 2 --node-rank 0", "echo done"],
    ),
    ("no sglang module", 2, LEADER, GROVE, ["echo hello", "python -m some.other.module"], ["echo hello", "python -m some.other.module"]),
    (
        "stops after the first injection", 2, LEADER, GROVE, ["python -m dynamo.sglang", "python -m dynamo.sglang --other-flags"],
        [f"python -m dynamo.sglang --dist-init-addr {GROVE_LEADER}:29500 --nnodes 2 --node-rank 0", "python -m dynamo.sglang --other-flags"],
    ),
]


@pytest.mark.parametrize(
    ("nodes", "role", "deployer", "args", "want_args"), [c[1:] for c in SHELL_CASES], ids=[c[0] for c in SHELL_CASES]
)
def test_shell_command_injection(nodes: int, role: str, deployer: Deployer, args: list[str], want_args: list[str]) -> None:
    out = BACKEND.update_container({"command": ["sh", "-c"], "args": args}, context(nodes=nodes, role=role, deployer=deployer))
    assert out["args"] == want_args
    assert out["command"] == ["sh", "-c"]


@pytest.mark.parametrize(
    ("nodes", "role", "deployer", "flags", "needs_shell"),
    [
        (2, LEADER, SHELL, "--dist-init-addr $(LEADER_HOST):29500 --nnodes 2 --node-rank 0", False),
        (3, WORKER, SIMPLE, "--dist-init-addr leader.example.com:29500 --nnodes 3 --node-rank 1", False),
        (2, WORKER, SHELL, "--dist-init-addr $(LEADER_HOST):29500 --nnodes 2 --node-rank $(WORKER_INDEX)", True),
        # Role main (a Deployment of a multinode DCD) takes the deployer's rank too.
        (2, MAIN, LWS, "--dist-init-addr $(LWS_LEADER_ADDRESS):29500 --nnodes 2 --node-rank $(LWS_WORKER_INDEX)", False),
    ],
)
def test_multinode_flags(nodes: int, role: str, deployer: Deployer, flags: str, needs_shell: bool) -> None:
    assert multinode_flags(context(nodes=nodes, role=role, deployer=deployer)) == (flags, needs_shell)


PROBES: dict[str, Any] = {
    "livenessProbe": {"initialDelaySeconds": 30},
    "readinessProbe": {"initialDelaySeconds": 10},
    "startupProbe": {"initialDelaySeconds": 5},
}


@pytest.mark.parametrize(
    ("nodes", "role", "removed"), [(1, MAIN, False), (2, LEADER, False), (2, WORKER, True), (2, MAIN, False)]
)
def test_probe_removal(nodes: int, role: str, removed: bool) -> None:
    container = {"args": ["python -m dynamo.sglang"], **copy.deepcopy(PROBES)}
    out = BACKEND.update_container(container, context(nodes=nodes, role=role, deployer=GROVE))
    for probe in PROBES:
        assert (probe not in out) is removed
    assert all(probe in container for probe in PROBES)


def test_compilation_cache_sets_no_env() -> None:
    out = BACKEND.update_container({"env": []}, context(nodes=1, role=MAIN, cache_mount_path="/cache/sglang"))
    assert out == {"env": []}


def test_update_pod_spec_does_nothing() -> None:
    spec: dict[str, Any] = {"containers": [{"name": "main"}]}
    assert BACKEND.update_pod_spec(spec, context(nodes=3, role=WORKER)) is spec
