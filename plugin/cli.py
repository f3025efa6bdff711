"""Command-line entry points; thin wrappers that parse arguments and call the front ends.

This is the only module that calls ``sys.exit``. Any exception that reaches it is a bug:
the traceback goes to stderr and the exit code is 2.
"""

from __future__ import annotations

import sys
import traceback
from collections.abc import Callable
from typing import Any

import click

INTERNAL_ERROR = 2


def _guarded(fn: Callable[[], int]) -> int:
    try:
        return fn()
    except Exception:  # noqa: BLE001 - every unexpected exception is a bug report
        traceback.print_exc(file=sys.stderr)
        sys.stderr.write("dynamo-render: internal error (this is a bug; please report it with the input)\n")
        return INTERNAL_ERROR


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="dynamo-render")
def cli() -> None:
    """Render NVIDIA Dynamo custom resources into the Kubernetes objects the operator would create."""


@cli.command()
@click.argument("paths", nargs=-1, required=True)
@click.option("--operator-config", type=click.Path(dir_okay=False), help="OperatorConfiguration file (the operator's own config).")
@click.option("--config", "config_path", type=click.Path(dir_okay=False), help="DynamoRenderConfig file (plugin settings).")
@click.option("-n", "--namespace", help="Namespace for objects that have none (default: default).")
@click.option("--keep-sources", is_flag=True, help="Also emit the rendered DCDs themselves.")
@click.option("--lws/--no-lws", default=None, help="Force the LeaderWorkerSet gate (default: auto, on).")
@click.option("-o", "--output", type=click.Choice(["yaml", "json"]), default="yaml", show_default=True)
@click.option("-v", "--verbose", is_flag=True, help="Also print info notes (assumed defaults).")
def render(paths: tuple[str, ...], operator_config: str | None, config_path: str | None, namespace: str | None,
           keep_sources: bool, lws: bool | None, output: str, verbose: bool) -> None:
    """Render DynamoComponentDeployments in PATHS (files, directories, or - for stdin)."""
    from plugin.render_cmd import main_stdio

    code = _guarded(
        lambda: main_stdio(
            paths=paths,
            operator_config=operator_config,
            config=config_path,
            namespace=namespace,
            keep_sources=keep_sources,
            lws=lws,
            output=output,
            verbose=verbose,
        )
    )
    sys.exit(code)


def main(argv: list[str] | None = None) -> Any:
    """Console-script entry point."""
    return cli.main(args=argv, prog_name="dynamo-render")
