"""The console scripts ``dynamo-render`` and ``dynamo-render-krm``: a short way to the common commands.

Every Argo CD refresh, kustomize build and pre-commit run starts a fresh process, so start-up
is most of what a small application costs. The commands those tools run — ``render``, ``krm``,
``cmp generate`` and ``cmp parameters`` — are parsed here, without importing click, when their
arguments are plain: known options spelled in full (``--name value``, ``--name=value``,
``-n value``), values that pass the checks click's types make, and at least one path where
one is required. Everything else (help, ``--version``, a usage error, shell completion,
combined short options, another command) goes to the click group in ``plugin.cli``, which
parses it as always; both ways run the same command functions (``plugin.commands``). A unit
test checks that this parser and click agree on every command line it accepts.

This module and ``plugin.cli`` are the only ones that call ``sys.exit``; exit codes and the
handling of failures: see ``plugin.commands``.
"""

from __future__ import annotations

import gc
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any

from plugin.commands import cmp_generate, cmp_parameters, guarded, krm, krm_usage_problem, render

# ---------------------------------------------------------------------------------------------
# The short way: plain command lines of the common commands

# ``render`` takes the option table's rows named by RENDER_OPTIONS (plugin.options), as plugin.cli
# declares them, and the hidden --strict-codes that --strict=CODES becomes.
_VALUE: Any = object()
STRICT_CODES_FLAG, STRICT_CODES_DEST = "--strict-codes", "strict_codes"


def render_flags() -> dict[str, tuple[str, Any]]:
    """Every flag ``render`` takes -> (destination, the value a switch sets, or the marker of a value)."""
    from plugin.options import BY_NAME, RENDER_OPTIONS

    table: dict[str, tuple[str, Any]] = {}
    for name in RENDER_OPTIONS:
        option = BY_NAME[name]
        if option.switch:
            positive, _, negative = option.flags[-1].partition("/")
            for flag in (*option.flags[:-1], positive):
                table[flag] = (option.dest, True)
            if negative:
                table[negative] = (option.dest, False)
        else:
            for flag in option.flags:
                table[flag] = (option.dest, _VALUE)
    table[STRICT_CODES_FLAG] = (STRICT_CODES_DEST, _VALUE)
    return table


def render_defaults() -> dict[str, Any]:
    """The keyword arguments of ``render`` when no option is given: the option table's defaults."""
    from plugin.options import BY_NAME, RENDER_OPTIONS

    return {**{BY_NAME[name].dest: BY_NAME[name].flag_default for name in RENDER_OPTIONS}, STRICT_CODES_DEST: None}


def _acceptable(dest: str, value: str) -> bool:
    """Whether a value passes the checks click's types make (plugin.cli): choices, an existing path, not a directory."""
    from plugin.options import BY_NAME, RENDER_OPTIONS, parse_strict

    if value == "" or value.startswith("-"):
        return False
    if dest == STRICT_CODES_DEST:
        return parse_strict(value)[0] is not None
    option = next(BY_NAME[name] for name in RENDER_OPTIONS if BY_NAME[name].dest == dest)
    if option.choices:
        return value in option.choices
    if option.path == "exists":
        return os.path.exists(value)
    if option.path == "file":
        return not os.path.isdir(value)
    return True


def parse_render(args: Sequence[str]) -> dict[str, Any] | None:
    """The keyword arguments of ``render`` for a plain command line, else None (click decides)."""
    table = render_flags()
    values = render_defaults()
    paths: list[str] = []
    only_paths = False
    index = 0
    while index < len(args):
        token = args[index]
        index += 1
        if only_paths or token == "-" or not token.startswith("-"):
            paths.append(token)
            continue
        if token == "--":
            only_paths = True
            continue
        flag, equals, inline = token.partition("=") if token.startswith("--") else (token, "", "")
        found = table.get(flag)
        if found is None:
            return None
        dest, value = found
        if value is _VALUE:
            if equals:
                value = inline
            elif index < len(args):
                value = args[index]
                index += 1
            else:
                return None
            if not _acceptable(dest, value):
                return None
        elif equals and flag == "--strict":
            # --strict=CODES: click's command reads it as --strict-codes CODES (plugin.cli).
            if not _acceptable(STRICT_CODES_DEST, inline):
                return None  # click reports the bad value
            dest, value = STRICT_CODES_DEST, inline
        elif equals:
            return None
        values[dest] = value
    if not paths:
        return None
    values["paths"] = tuple(paths)
    return values


def _plain_krm_args(args: Sequence[str]) -> bool:
    return all(not arg.startswith("-") for arg in args) and not krm_usage_problem(args)


def short_way(args: Sequence[str], prog_name: str) -> Callable[[], int] | None:
    """The command to run for a plain command line of a common command, else None."""
    if f"_{prog_name.replace('-', '_').upper()}_COMPLETE" in os.environ:
        return None
    if not args:
        return None
    command, rest = args[0], args[1:]
    if command == "render":
        values = parse_render(rest)
        return None if values is None else lambda: render(**values)
    if command == "krm" and _plain_krm_args(rest):
        return lambda: krm(rest)
    if command == "cmp" and list(rest) == ["generate"]:
        return cmp_generate
    if command == "cmp" and list(rest) == ["parameters"]:
        return cmp_parameters
    return None


# The front end each short-way command runs, imported before the command starts.
_FRONT_ENDS = {"render": "plugin.frontends.render", "krm": "plugin.frontends.krm", "cmp": "plugin.frontends.cmp"}


def _run(args: list[str], prog_name: str) -> Any:
    # Start-up allocates many objects and frees few: no cyclic garbage collection until the
    # modules are loaded (about 4% of a small run).
    gc.disable()
    try:
        command = short_way(args, prog_name)
        if command is not None:
            __import__(_FRONT_ENDS[args[0]])
    finally:
        gc.enable()
    if command is None:
        from plugin.cli import cli

        return cli.main(args=args, prog_name=prog_name)
    try:
        code = guarded(command)
    except (EOFError, KeyboardInterrupt):
        # As click reports an interrupted command.
        sys.stderr.write("\nAborted!\n")
        code = 1
    sys.exit(code)


def main(argv: list[str] | None = None) -> Any:
    """The ``dynamo-render`` console script."""
    return _run(sys.argv[1:] if argv is None else list(argv), "dynamo-render")


def krm_main() -> Any:
    """The zero-argument ``dynamo-render-krm`` console script (kustomize cannot pass a subcommand)."""
    return _run(["krm", *sys.argv[1:]], "dynamo-render-krm")
