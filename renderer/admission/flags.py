"""Command-line helpers shared by the webhooks and the backends: python detection, shell quoting, flags.

The operator edits the main container's command line as strings, with Go's regexp and
strings packages. The helpers here keep Go's exact semantics where Python's differ:
``\\s`` is ASCII ``[\\t\\n\\f\\r ]`` (no vertical tab), ``$`` is the end of the text only,
``strings.Fields`` splits on Go's Unicode white space, and integers parse like
``strconv.ParseInt``.

Mirrors: internal/dynamo/utils.go (shellQuoteForBashC, shellQuotePOSIX, containerHasArg,
containerCommandLineHasArg, hasArg, injectFlagsIntoContainerCommand,
injectFlagsIntoPythonCommand), internal/dynamo/backend_sglang.go isPythonCommand,
internal/dynamo/backend_vllm.go (getExpandedArgs, getExpandedCommandLine, hasFlag,
getFlagValue, IsElasticEPRayLaunch).
"""

from __future__ import annotations

import re
from typing import Any

ENABLE_ELASTIC_EP_FLAG = "--enable-elastic-ep"
DATA_PARALLEL_BACKEND_FLAG = "--data-parallel-backend"
DATA_PARALLEL_BACKEND_SHORT_FLAG = "-dpb"

# Go's unicode.IsSpace set (Python's str.split() also splits on \x1c-\x1f; Go does not).
_GO_SPACE = "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
_FIELDS = re.compile(f"[^{_GO_SPACE}]+")

_PYTHON_COMMAND = re.compile(r"(.*/)?(python[0-9]*(\.[0-9]+)*)")
_SHELL_SAFE_TOKEN = re.compile(r"[A-Za-z0-9_@%+=:,./-]+")
_BASH_C_SPECIAL = frozenset(" \t\n'\"\\{}[]$`!")
_PARSE_INT = re.compile(r"[+-]?[0-9]+")
# RE2's \s (ASCII, without \v); "$" in RE2 without flags is the end of the text only.
_RE2_SPACE = r"[\t\n\f\r ]"


def go_fields(text: str) -> list[str]:
    """Split on runs of white space, as Go's strings.Fields does."""
    return _FIELDS.findall(text)


def is_python_command(command: str) -> bool:
    """``python``, ``python3``, ``python3.12.1``, or any path ending in one of those.

    Mirrors: internal/dynamo/backend_sglang.go isPythonCommand.
    """
    return command in ("python", "python3") or _PYTHON_COMMAND.fullmatch(command) is not None


def shell_quote_for_bash_c(token: str) -> str:
    """Double-quote a token for ``sh -c`` if it holds any shell-special character.

    Why the odd single-quote escape: the operator's strings are often nested inside a
    single-quoted ``bash -c '...'`` (the TRT-LLM mpirun launch), so a ``'`` must close and
    reopen that outer quote too. An empty token stays empty (it is not quoted).
    Mirrors: internal/dynamo/utils.go shellQuoteForBashC.
    """
    if not any(ch in _BASH_C_SPECIAL for ch in token):
        return token
    escaped = token.replace("\\", "\\\\").replace('"', '\\"').replace("$", "\\$").replace("`", "\\`")
    escaped = escaped.replace("'", "'\"'\"'")
    return f'"{escaped}"'


def shell_quote_posix(token: str) -> str:
    """Single-quote a token so ``sh -c`` gives it back as exactly one argument.

    Mirrors: internal/dynamo/utils.go shellQuotePOSIX.
    """
    if _SHELL_SAFE_TOKEN.fullmatch(token):
        return token
    return "'" + token.replace("'", "'\\''") + "'"


def has_arg(args: list[str], flag: str, value: str) -> bool:
    """``flag value`` or ``flag=value`` inside any element, or as two adjacent elements.

    Mirrors: internal/dynamo/utils.go hasArg.
    """
    joined, equals = f"{flag} {value}", f"{flag}={value}"
    for i, arg in enumerate(args):
        if joined in arg or equals in arg:
            return True
        if arg == flag and i + 1 < len(args) and args[i + 1] == value:
            return True
    return False


def container_has_arg(container: dict[str, Any], flag: str, value: str) -> bool:
    """Mirrors: internal/dynamo/utils.go containerHasArg (args only)."""
    return has_arg(list(container.get("args") or []), flag, value)


def container_command_line_has_arg(container: dict[str, Any], flag: str, value: str) -> bool:
    """The pair anywhere in command + args, raw first, then split on white space.

    Mirrors: internal/dynamo/utils.go containerCommandLineHasArg.
    """
    command_line = list(container.get("command") or []) + list(container.get("args") or [])
    if has_arg(command_line, flag, value):
        return True
    return has_arg([token for part in command_line for token in go_fields(part)], flag, value)


def expanded_args(container: dict[str, Any]) -> list[str]:
    """Every element of ``args`` split on white space (the command is not included).

    Mirrors: internal/dynamo/backend_vllm.go getExpandedArgs.
    """
    return [token for arg in container.get("args") or [] for token in go_fields(arg)]


def expanded_command_line(container: dict[str, Any]) -> list[str]:
    """Command then args, each element split on white space.

    Mirrors: internal/dynamo/backend_vllm.go getExpandedCommandLine.
    """
    parts = list(container.get("command") or []) + list(container.get("args") or [])
    return [token for part in parts for token in go_fields(part)]


def has_flag(tokens: list[str], flag: str) -> bool:
    """Mirrors: internal/dynamo/backend_vllm.go hasFlag (exact token match)."""
    return flag in tokens


def _parse_int64(text: str) -> int | None:
    """strconv.ParseInt(text, 10, 64): optional sign, ASCII digits, int64 range."""
    if not _PARSE_INT.fullmatch(text):
        return None
    value = int(text)
    if not -(2**63) <= value < 2**63:
        return None
    return value


def get_flag_value(tokens: list[str], flag: str) -> int:
    """The integer after the first ``flag`` token that is followed by one; 1 when absent.

    Only the space-separated spelling is seen: ``--tensor-parallel-size=8`` is not (a quirk
    the operator has; reproduced). A flag followed by a non-integer is skipped and the scan
    goes on. Mirrors: internal/dynamo/backend_vllm.go getFlagValue.
    """
    for i, token in enumerate(tokens):
        if token == flag and i + 1 < len(tokens):
            value = _parse_int64(tokens[i + 1])
            if value is None:
                continue
            return value
    return 1


def is_elastic_ep_ray_launch(container: dict[str, Any]) -> bool:
    """``--enable-elastic-ep`` with the Ray data-parallel backend, anywhere on the command line.

    The backend may be spelled ``--data-parallel-backend ray``, ``--data-parallel-backend=ray``
    or with vLLM's ``-dpb`` alias, in command or args.
    Mirrors: internal/dynamo/backend_vllm.go IsElasticEPRayLaunch.
    """
    tokens = expanded_command_line(container)
    if not has_flag(tokens, ENABLE_ELASTIC_EP_FLAG):
        return False
    return has_arg(tokens, DATA_PARALLEL_BACKEND_FLAG, "ray") or has_arg(tokens, DATA_PARALLEL_BACKEND_SHORT_FLAG, "ray")


def inject_flags_into_python_command(arg: str, flags: str, framework: str) -> str:
    """Insert ``flags`` after the python command that mentions ``framework`` in a shell string.

    Why "after the last mention": the operator's pattern is greedy up to the framework name
    and lazy after it, so the flags land after the last white-space-delimited token that
    contains the framework name within one pipeline segment (``|``, ``&`` and ``;`` end a
    segment); every such segment in the string gets the flags.
    Mirrors: internal/dynamo/utils.go injectFlagsIntoPythonCommand.
    """
    pattern = re.compile(
        rf"(python[0-9.]*{_RE2_SPACE}+[^|&;]*{re.escape(framework)}[^|&;]*?)({_RE2_SPACE}|\Z|[|&;])"
    )
    return pattern.sub(lambda m: f"{m.group(1)} {flags}{m.group(2)}", arg)


def inject_flags_into_container_command(
    container: dict[str, Any], flags: str, needs_shell: bool, framework: str
) -> None:
    """Add launch flags to a container's command line (edits ``container`` in place).

    A python command gets the flags appended to its args, or, when a flag needs shell
    evaluation (arithmetic), is rewritten to ``sh -c "exec <quoted command line> <flags>"``.
    Any other command (``sh -c`` included) gets the flags spliced into the first arg that
    holds a matching python invocation; when none does, nothing changes, silently.
    Mirrors: internal/dynamo/utils.go injectFlagsIntoContainerCommand.
    """
    command = list(container.get("command") or [])
    args = list(container.get("args") or [])
    if command and is_python_command(command[0]):
        if needs_shell:
            full_command = " ".join(shell_quote_for_bash_c(token) for token in command)
            if args:
                original_args = " ".join(shell_quote_for_bash_c(arg) for arg in args)
                shell_command = f"exec {full_command} {original_args} {flags}"
            else:
                shell_command = f"exec {full_command} {flags}"
            container["command"] = ["sh", "-c"]
            container["args"] = [shell_command]
        else:
            container["args"] = args + go_fields(flags)
        return
    for i, arg in enumerate(args):
        modified = inject_flags_into_python_command(arg, flags, framework)
        if modified != arg:
            args[i] = modified
            container["args"] = args
            return
