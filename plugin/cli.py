"""Command-line entry points; thin wrappers that parse arguments and call the front ends.

This is the only module that calls ``sys.exit``. Any exception that reaches it is a bug:
the traceback goes to stderr and the exit code is 2.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import Any

# The CLI uses no pydantic plugins; skipping their discovery saves an importlib.metadata scan
# at every start (a user who sets the variable keeps their value).
os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")

import click  # noqa: E402 (after the environment default above)

INTERNAL_ERROR = 2


def _guarded(fn: Callable[[], int]) -> int:
    try:
        return fn()
    except Exception:  # noqa: BLE001 - every unexpected exception is a bug report
        import traceback

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
@click.option(
    "--emit",
    type=click.Choice(["workloads", "dcd"]),
    default=None,
    help="Render DynamoGraphDeployments down to workloads, or stop at the generated DCDs (default: the config's "
    "emit setting, else workloads).",
)
@click.option(
    "--cluster-state",
    type=click.Path(exists=True),
    help="Cluster facts as Kubernetes objects (a file or directory, e.g. kubectl get -o yaml output); the input "
    "bundle's own objects win over it.",
)
@click.option("--live", is_flag=True, help="Also read cluster facts from the current kubeconfig context (read-only GET and LIST).")
@click.option("--kubeconfig", type=click.Path(dir_okay=False), help="Kubeconfig for --live (default: KUBECONFIG, ~/.kube/config, in-cluster).")
@click.option("--context", "kube_context", help="Kubeconfig context for --live.")
@click.option(
    "--companions/--no-companions",
    default=None,
    help="Emit the discovery RBAC, wait-for-leader ConfigMap and ServiceAccounts a standalone DCD's pods reference "
    "(default: the config's companions setting, else on).",
)
@click.option("-o", "--output", type=click.Choice(["yaml", "json"]), default="yaml", show_default=True)
@click.option("-v", "--verbose", is_flag=True, help="Also print info notes (assumed defaults).")
def render(paths: tuple[str, ...], operator_config: str | None, config_path: str | None, namespace: str | None,
           keep_sources: bool, lws: bool | None, emit: str | None, cluster_state: str | None, live: bool,
           kubeconfig: str | None, kube_context: str | None, companions: bool | None, output: str,
           verbose: bool) -> None:
    """Render DynamoComponentDeployments and DynamoGraphDeployments in PATHS (files, directories, or - for stdin)."""
    from plugin.frontends.render import main_stdio

    code = _guarded(
        lambda: main_stdio(
            paths=paths,
            operator_config=operator_config,
            config=config_path,
            namespace=namespace,
            keep_sources=keep_sources,
            lws=lws,
            emit=emit,
            output=output,
            verbose=verbose,
            cluster_state=cluster_state,
            live=live,
            companions=companions,
            kubeconfig=kubeconfig,
            context=kube_context,
        )
    )
    sys.exit(code)


_PASSTHROUGH = {"ignore_unknown_options": True, "allow_extra_args": True, "help_option_names": []}


def _delegate(module: str, args: tuple[str, ...]) -> None:
    """Hand raw arguments to a front end's ``main(argv) -> int`` (it parses its own options)."""
    import importlib

    entry = importlib.import_module(module).main
    sys.exit(_guarded(lambda: entry(list(args))))


@cli.command()
@click.argument("paths", nargs=-1, required=True)
@click.option("--base", metavar="REV", help="Compare PATHS in the work tree against git revision REV (then every argument is NEW).")
@click.option("-o", "--output", type=click.Choice(["text", "json", "markdown"]), default="text", show_default=True)
@click.option("--exit-code", is_flag=True, help="Exit 1 when anything changed, as git diff --exit-code does.")
@click.option("--operator-config", type=click.Path(dir_okay=False), help="OperatorConfiguration file (both sides).")
@click.option("--config", "config_path", type=click.Path(dir_okay=False), help="DynamoRenderConfig file (both sides).")
@click.option("-n", "--namespace", help="Namespace for objects that have none (default: default).")
@click.option("--lws/--no-lws", default=None, help="Force the LeaderWorkerSet gate (default: auto, on).")
@click.option("--cluster-state", type=click.Path(exists=True), help="Cluster facts as Kubernetes objects (both sides).")
def diff(paths: tuple[str, ...], base: str | None, output: str, exit_code: bool, operator_config: str | None,
         config_path: str | None, namespace: str | None, lws: bool | None, cluster_state: str | None) -> None:
    """What a change does to running workloads and GPUs: diff OLD NEW, or diff --base REV PATH...

    Both sides are rendered with the same settings; workloads are reported as replaced (worker
    hash rename), rolled (pods restart), scaled, added, removed or changed, with GPU and pod totals.
    """
    if base is None and len(paths) != 2:
        raise click.UsageError("give OLD and NEW, or --base REV and one or more PATHs")
    from plugin.frontends.diff import run

    old, new = ((), paths) if base is not None else ((paths[0],), (paths[1],))
    code = _guarded(
        lambda: run(
            old=old,
            new=new,
            base=base,
            output=output,
            exit_code=exit_code,
            stdout=sys.stdout,
            stderr=sys.stderr,
            operator_config=operator_config,
            config=config_path,
            namespace=namespace,
            lws=lws,
            cluster_state=cluster_state,
        )
    )
    sys.exit(code)


@cli.command(context_settings=_PASSTHROUGH, add_help_option=False)
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def krm(args: tuple[str, ...]) -> None:
    """KRM function: ResourceList on stdin, ResourceList on stdout (kpt, kustomize)."""
    _delegate("plugin.frontends.krm", args)


@cli.command(context_settings=_PASSTHROUGH, add_help_option=False)
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def cmp(args: tuple[str, ...]) -> None:
    """Argo CD config-management plugin commands (generate, ...)."""
    _delegate("plugin.frontends.cmp", args)


@cli.command(context_settings=_PASSTHROUGH, add_help_option=False)
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def validate(args: tuple[str, ...]) -> None:
    """Check Dynamo manifests against every offline admission rule (pre-commit hook)."""
    _delegate("plugin.frontends.precommit_validate", args)


@cli.command("hydrate-check", context_settings=_PASSTHROUGH, add_help_option=False)
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def hydrate_check(args: tuple[str, ...]) -> None:
    """Fail when committed rendered output differs from a fresh render (pre-commit hook)."""
    _delegate("plugin.frontends.precommit_hydrate", args)


def main(argv: list[str] | None = None) -> Any:
    """Console-script entry point."""
    return cli.main(args=argv, prog_name="dynamo-render")
