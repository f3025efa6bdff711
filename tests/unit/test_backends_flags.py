"""Flag helpers: python detection, shell quoting, flag parsing and injection.

Restates: internal/dynamo/backend_sglang_test.go TestIsPythonCommand,
internal/dynamo/backend_trtllm_test.go TestShellQuoteForBashC,
internal/dynamo/backend_vllm_test.go TestShellQuotePOSIX_ArgvRoundTrip and the
IsElasticEPRayLaunch / getFlagValue cases of TestVLLMBackend_UpdateContainer, and the
rules of internal/dynamo/utils.go (hasArg, containerCommandLineHasArg,
injectFlagsIntoContainerCommand, injectFlagsIntoPythonCommand).
"""

from __future__ import annotations

import subprocess
from typing import Any

import pytest

from renderer.admission.flags import (
    container_command_line_has_arg,
    container_has_arg,
    expanded_args,
    expanded_command_line,
    get_flag_value,
    go_fields,
    has_arg,
    inject_flags_into_container_command,
    inject_flags_into_python_command,
    is_elastic_ep_ray_launch,
    is_python_command,
    shell_quote_for_bash_c,
    shell_quote_posix,
)

PYTHON_COMMANDS = [
    ("python", True), ("python3", True), ("python2", True), ("python3.11", True), ("python2.7", True),
    ("python3.12.1", True), ("/usr/bin/python", True), ("/usr/bin/python3", True), ("/usr/bin/python3.8", True),
    ("/usr/bin/python2.7", True), ("/opt/python/bin/python3.11", True), ("/usr/local/bin/python3.12.1", True),
    ("/home/user/.pyenv/shims/python3.9", True), ("./python3", True), ("../bin/python", True),
    ("bin/python3.10", True),
    ("java", False), ("sh", False), ("node", False), ("python-config", False), ("/usr/bin/python-config", False),
    ("", False), ("python ", False), ("/usr/bin/python ", False), ("pythonx", False), ("/usr/bin/pythonx", False),
    ("/usr/bin/", False), ("python/", False), ("/usr/bin/python/", False),
    # Go's $ is the end of the text and \d is ASCII only.
    ("python3\n", False), ("python\u0663", False),
]


@pytest.mark.parametrize(("command", "expected"), PYTHON_COMMANDS, ids=[repr(c) for c, _ in PYTHON_COMMANDS])
def test_is_python_command(command: str, expected: bool) -> None:
    assert is_python_command(command) is expected


BASH_C_QUOTES = [
    ("--model-path", "--model-path"),
    ("/usr/bin/python3", "/usr/bin/python3"),
    ("", ""),
    ('{"load_format": "DUMMY", "tensor_parallel_size": 8}', '"{\\"load_format\\": \\"DUMMY\\", \\"tensor_parallel_size\\": 8}"'),
    ("$HOME/path", '"\\$HOME/path"'),
    ("hello `world`", '"hello \\`world\\`"'),
    ("path\\to\\file", '"path\\\\to\\\\file"'),
    ("it's", "\"it'\"'\"'s\""),
    ("a!b", '"a!b"'),
    ("x[0]", '"x[0]"'),
    ("semi;colon", "semi;colon"),
]


@pytest.mark.parametrize(("token", "expected"), BASH_C_QUOTES, ids=[repr(t) for t, _ in BASH_C_QUOTES])
def test_shell_quote_for_bash_c(token: str, expected: str) -> None:
    assert shell_quote_for_bash_c(token) == expected


@pytest.mark.parametrize(
    ("token", "expected"),
    [("--model", "--model"), ("a=b,c:d@e%f+g/h.i_j-k", "a=b,c:d@e%f+g/h.i_j-k"), ("", "''"), ("a b", "'a b'"),
     ("it's", "'it'\\''s'"), ("$x", "'$x'")],
)
def test_shell_quote_posix(token: str, expected: str) -> None:
    assert shell_quote_posix(token) == expected


def test_shell_quote_posix_round_trips_argv_through_a_real_shell() -> None:
    """Restates: backend_vllm_test.go TestShellQuotePOSIX_ArgvRoundTrip."""
    tokens = [
        "python3", "-m", "dynamo.vllm", "--model", "test", "--data-parallel-backend=ray", "-dpb=ray",
        "--enable-elastic-ep", "--chat-template={{ 'it''s' }}", "", "a b\tc", "line1\nline2", "semi;pipe|amp&",
        "d$ollar$(whoami)", "back\\slash", "glob*?[x]",
    ]
    script = "set -- " + " ".join(shell_quote_posix(t) for t in tokens) + "; for a in \"$@\"; do printf '%s\\000' \"$a\"; done"
    out = subprocess.run(["/bin/sh", "-c", script], capture_output=True, check=True).stdout.decode()
    assert out.split("\x00")[:-1] == tokens


def test_shell_quote_for_bash_c_survives_a_real_shell() -> None:
    """A double-quoted token comes back as one argument (the single-quote escape aside)."""
    tokens = ['{"a": "b c"}', "$HOME/x", "back\\slash", "tick`s`", "bang!"]
    script = "set -- " + " ".join(shell_quote_for_bash_c(t) for t in tokens) + "; for a in \"$@\"; do printf '%s\\000' \"$a\"; done"
    out = subprocess.run(["/bin/sh", "-c", script], capture_output=True, check=True).stdout.decode()
    assert out.split("\x00")[:-1] == tokens


@pytest.mark.parametrize(
    ("args", "flag", "value", "expected"),
    [
        (["--load-format", "gms"], "--load-format", "gms", True),
        (["--load-format=gms"], "--load-format", "gms", True),
        (["python3 -m dynamo.vllm --load-format gms --x"], "--load-format", "gms", True),
        (["--load-format", "auto"], "--load-format", "gms", False),
        (["--load-format"], "--load-format", "gms", False),
        (["-dpb=ray"], "-dpb", "ray", True),
        # Substring matching: a longer value still counts (the operator's rule).
        (["--data-parallel-backend rayx"], "--data-parallel-backend", "ray", True),
    ],
)
def test_has_arg(args: list[str], flag: str, value: str, expected: bool) -> None:
    assert has_arg(args, flag, value) is expected


def test_container_has_arg_looks_at_args_only() -> None:
    container = {"command": ["python3", "--load-format", "gms"], "args": ["-m", "dynamo.vllm"]}
    assert container_has_arg(container, "--load-format", "gms") is False
    assert container_has_arg({"args": ["--load-format", "gms"]}, "--load-format", "gms") is True


@pytest.mark.parametrize(
    ("container", "expected"),
    [
        ({"command": ["python3"], "args": ["-m", "dynamo.vllm", "--distributed-executor-backend", "mp"]}, True),
        ({"command": ["python3", "-m", "dynamo.vllm", "--distributed-executor-backend", "mp"]}, True),
        # Only the white-space split pass sees two separated tokens inside one shell string.
        ({"command": ["sh", "-c", "exec python3 -m dynamo.vllm --distributed-executor-backend    mp"]}, True),
        ({"command": ["/bin/sh", "-c"], "args": ["ray start --address=leader:6379 --block"]}, False),
        ({}, False),
    ],
)
def test_container_command_line_has_arg(container: dict[str, Any], expected: bool) -> None:
    """Restates: backend_vllm_test.go TestVLLMBackend_UpdatePodSpec (mp detection cases)."""
    assert container_command_line_has_arg(container, "--distributed-executor-backend", "mp") is expected


@pytest.mark.parametrize(
    ("tokens", "flag", "expected"),
    [
        (["--tensor-parallel-size", "8"], "--tensor-parallel-size", 8),
        ([], "--tensor-parallel-size", 1),
        (["--tensor-parallel-size"], "--tensor-parallel-size", 1),
        # The "=" spelling is not understood: the default applies.
        (["--tensor-parallel-size=8"], "--tensor-parallel-size", 1),
        # A non-integer value is skipped and the scan continues.
        (["--tensor-parallel-size", "x", "--tensor-parallel-size", "4"], "--tensor-parallel-size", 4),
        (["--tensor-parallel-size", "+4"], "--tensor-parallel-size", 4),
        (["--tensor-parallel-size", "-2"], "--tensor-parallel-size", -2),
        (["--tensor-parallel-size", "1_0"], "--tensor-parallel-size", 1),
        (["--tensor-parallel-size", " 4"], "--tensor-parallel-size", 1),
        (["--tensor-parallel-size", "\u0664"], "--tensor-parallel-size", 1),
        (["--tensor-parallel-size", "9223372036854775808"], "--tensor-parallel-size", 1),
    ],
)
def test_get_flag_value(tokens: list[str], flag: str, expected: int) -> None:
    assert get_flag_value(tokens, flag) == expected


def test_expanded_args_and_command_line() -> None:
    container = {"command": ["python3 -m", "dynamo.vllm"], "args": ["--model  test", "--tp\t2"]}
    assert expanded_args(container) == ["--model", "test", "--tp", "2"]
    assert expanded_command_line(container) == ["python3", "-m", "dynamo.vllm", "--model", "test", "--tp", "2"]


def test_go_fields_splits_on_go_white_space_only() -> None:
    # Go's unicode.IsSpace excludes the ASCII separators \x1c-\x1f that Python's split() uses.
    assert go_fields("a\x1cb c\u00a0d\u3000e") == ["a\x1cb", "c", "d", "e"]


ELASTIC = [
    (["python3", "-m", "dynamo.vllm"], ["--data-parallel-backend", "ray", "--enable-elastic-ep"], True),
    (["python3", "-m", "dynamo.vllm"], ["--data-parallel-backend=ray", "--enable-elastic-ep"], True),
    (["python3", "-m", "dynamo.vllm"], ["-dpb", "ray", "--enable-elastic-ep"], True),
    (["python3", "-m", "dynamo.vllm"], ["-dpb=ray", "--enable-elastic-ep"], True),
    (["python3", "-m", "dynamo.vllm", "--data-parallel-backend", "ray", "--enable-elastic-ep"], [], True),
    ([], ["--data-parallel-backend ray --enable-elastic-ep"], True),
    (["python3", "-m", "dynamo.vllm"], ["--enable-elastic-ep"], False),
    (["python3", "-m", "dynamo.vllm"], ["--data-parallel-backend", "mp", "--enable-elastic-ep"], False),
    (["python3", "-m", "dynamo.vllm"], ["--data-parallel-backend", "ray"], False),
    (["python3", "-m", "dynamo.vllm"], ["--enable-elastic-ep=true", "-dpb", "ray"], False),
]


@pytest.mark.parametrize(("command", "args", "expected"), ELASTIC)
def test_is_elastic_ep_ray_launch(command: list[str], args: list[str], expected: bool) -> None:
    assert is_elastic_ep_ray_launch({"command": command, "args": args}) is expected


PYTHON_INJECTION = [
    ("python -m dynamo.sglang", "sglang", "python -m dynamo.sglang F"),
    ("echo blah | wc -l && python -m dynamo.sglang && ls -al", "sglang", "echo blah | wc -l && python -m dynamo.sglang F && ls -al"),
    ("python -m dynamo.sglang | tee /tmp/log", "sglang", "python -m dynamo.sglang F | tee /tmp/log"),
    ("python3 -m dynamo.vllm --data-parallel-size 8", "vllm", "python3 -m dynamo.vllm F --data-parallel-size 8"),
    ("python -m some.other.module", "sglang", "python -m some.other.module"),
    ("echo hello", "vllm", "echo hello"),
    # Every pipeline segment that runs the framework gets the flags.
    ("python3 -m dynamo.vllm; python3 -m dynamo.vllm", "vllm", "python3 -m dynamo.vllm F; python3 -m dynamo.vllm F"),
    # Greedy up to the framework name: the flags follow its last mention in the segment.
    ("python3 -m dynamo.vllm --model vllm-org/x --tp 2", "vllm", "python3 -m dynamo.vllm --model vllm-org/x F --tp 2"),
    # RE2's \s has no vertical tab, so a \v does not end the token.
    ("python3 -m dynamo.vllm\v--x 1", "vllm", "python3 -m dynamo.vllm\v--x F 1"),
    # $ is only the end of the text: a trailing newline is a delimiter, kept after the flags.
    ("python3 -m dynamo.vllm\n", "vllm", "python3 -m dynamo.vllm F\n"),
]


@pytest.mark.parametrize(("arg", "framework", "expected"), PYTHON_INJECTION)
def test_inject_flags_into_python_command(arg: str, framework: str, expected: str) -> None:
    assert inject_flags_into_python_command(arg, "F", framework) == expected


def test_inject_flags_into_python_command_keeps_replacement_text_literal() -> None:
    flags = "--start $(( 8 * $(LWS_WORKER_INDEX) )) \\1 \\g<0>"
    assert inject_flags_into_python_command("python3 -m dynamo.vllm", flags, "vllm") == f"python3 -m dynamo.vllm {flags}"


def test_inject_appends_split_flags_to_a_python_command() -> None:
    container: dict[str, Any] = {"command": ["python3"], "args": ["-m", "dynamo.vllm"]}
    inject_flags_into_container_command(container, "--a 1  --b\t2", False, "vllm")
    assert container == {"command": ["python3"], "args": ["-m", "dynamo.vllm", "--a", "1", "--b", "2"]}


def test_inject_wraps_a_python_command_in_a_shell_when_needed() -> None:
    container: dict[str, Any] = {"command": ["python3", "-m", "dynamo.vllm"], "args": ["--x", '{"a": 1}']}
    inject_flags_into_container_command(container, "--rank $((I + 1))", True, "vllm")
    assert container == {"command": ["sh", "-c"], "args": ['exec python3 -m dynamo.vllm --x "{\\"a\\": 1}" --rank $((I + 1))']}


def test_inject_wraps_a_python_command_without_args() -> None:
    container: dict[str, Any] = {"command": ["python3", "-m", "dynamo.sglang"]}
    inject_flags_into_container_command(container, "--r $(X)", True, "sglang")
    assert container == {"command": ["sh", "-c"], "args": ["exec python3 -m dynamo.sglang --r $(X)"]}


def test_inject_splices_only_the_first_matching_shell_arg() -> None:
    container: dict[str, Any] = {
        "command": ["sh", "-c"],
        "args": ["echo start", "python -m dynamo.sglang", "python -m dynamo.sglang --other-flags"],
    }
    inject_flags_into_container_command(container, "F", True, "sglang")
    assert container["args"] == ["echo start", "python -m dynamo.sglang F", "python -m dynamo.sglang --other-flags"]
    assert container["command"] == ["sh", "-c"]


def test_inject_leaves_an_unrecognised_command_alone() -> None:
    container: dict[str, Any] = {"command": ["java"], "args": ["-jar", "app.jar"]}
    inject_flags_into_container_command(container, "F", True, "sglang")
    assert container == {"command": ["java"], "args": ["-jar", "app.jar"]}
