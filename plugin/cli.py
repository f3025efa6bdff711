"""The command line: one click group for every command; thin wrappers over the front ends.

The console scripts start in ``plugin.console``, which runs plain command lines of the common
commands without click; this group parses every other command line. Both call the same command
functions (``plugin.commands``); exit codes and the handling of failures: see there.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import click

from plugin import commands
from plugin.commands import ENVIRONMENT_ERROR, INTERNAL_ERROR, guarded
from plugin.options import BY_NAME, RENDER_OPTIONS, OptionValues, given_values

if TYPE_CHECKING:
    from plugin.frontends.diff import OldSettings

F = TypeVar("F", bound=Callable[..., Any])


def _exit(fn: Callable[[], int]) -> None:
    """Run a command through ``guarded`` and exit with its code."""
    sys.exit(guarded(fn))


def table_options(*names: str) -> Callable[[F], F]:
    """Click options for the named rows of the option table (``plugin.options``), in that order.

    Each becomes the keyword argument ``Option.dest`` (``operator-config-path`` ->
    ``operator_config_path``) with the row's default (None: not given, the settings decide),
    choices and path check.
    """

    def decorate(fn: F) -> F:
        for name in reversed(names):
            option = BY_NAME[name]
            kwargs: dict[str, Any] = {"help": option.help or None, "default": option.flag_default}
            if option.switch:
                kwargs.update(is_flag=True)
            elif option.choices:
                kwargs.update(type=click.Choice(list(option.choices)), show_default=option.flag_default is not None)
            elif option.path == "exists":
                kwargs.update(type=click.Path(exists=True))
            elif option.path == "file":
                kwargs.update(type=click.Path(dir_okay=False))
            fn = click.option(*option.flags, option.dest, **kwargs)(fn)
        return fn

    return decorate


def _strict_codes(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """Check the value of ``--strict=CODES``: result codes, comma-separated (or true or false)."""
    from plugin.options import parse_strict

    if value is not None and parse_strict(value)[0] is None:
        raise click.BadParameter(parse_strict(value)[1], ctx=ctx, param_hint="'--strict'")
    return value


class StrictValueCommand(click.Command):
    """A command whose ``--strict`` switch also takes ``--strict=CODES`` (the value only after ``=``).

    ``--strict PATH`` keeps meaning the switch and a path; ``--strict=CODES`` is read as the
    hidden ``--strict-codes CODES`` option.
    """

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        rewritten: list[str] = []
        for index, arg in enumerate(args):
            if arg == "--":
                rewritten.extend(args[index:])
                break
            if arg.startswith("--strict="):
                rewritten.extend(("--strict-codes", arg.partition("=")[2]))
            else:
                rewritten.append(arg)
        return super().parse_args(ctx, rewritten)


strict_codes_option = click.option("--strict-codes", "strict_codes", callback=_strict_codes, hidden=True, default=None)
SHARED = ("operator-config-path", "config", "namespace", "lws", "cluster-state", "kustomize")
verbose_option = table_options("verbose")


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="dynamo-render")
def cli() -> None:
    """Render NVIDIA Dynamo custom resources into the Kubernetes objects the operator would create."""


@cli.command(cls=StrictValueCommand)
@click.argument("paths", nargs=-1, required=True)
@table_options(*RENDER_OPTIONS[:-2])
@strict_codes_option
@table_options(*RENDER_OPTIONS[-2:])
def render(**values: Any) -> None:
    """Render DynamoComponentDeployments and DynamoGraphDeployments in PATHS (files, directories, or - for stdin)."""
    _exit(lambda: commands.render(**values))


@cli.command()
@click.argument("paths", nargs=-1, required=True)
@click.option("-o", "--output", type=click.Choice(["yaml", "json"]), default="yaml", show_default=True)
@click.option("--in-place", is_flag=True, help="Rewrite the files; documents that need no conversion keep their exact text.")
@click.option("--as-stored", is_flag=True, help="Write each object exactly as the API server stores it (status and preservation annotations in full), as kubectl get -o yaml shows it.")
@table_options("operator-config-path", "config")
def convert(paths: tuple[str, ...], output: str, in_place: bool, as_stored: bool, **settings: Any) -> None:
    """Write v1alpha1 Dynamo objects in PATHS as the v1beta1 objects the operator stores (others unchanged).

    What the default output leaves out is checked by rendering both forms under the Helm
    defaults and the configurations that read preserved fields, and also under --operator-config
    and --config when given (the settings the cluster's operator runs with).
    """
    if in_place and "-" in paths:
        raise click.UsageError("--in-place cannot rewrite stdin")
    if in_place and output != "yaml":
        raise click.UsageError("--in-place keeps each file's own format; -o applies to stdout only")
    from plugin.frontends.convert import main_stdio

    given = given_values(settings)
    _exit(lambda: main_stdio(paths=paths, output=output, in_place=in_place, as_stored=as_stored, options=given))


@cli.command()
@click.argument("paths", nargs=-1, required=True)
@click.option("--base", metavar="REV", help="Compare PATHS in the work tree against git revision REV (then every argument is NEW).")
@click.option(
    "--old-operator-config", metavar="FILE|REV:PATH",
    help="The old side's OperatorConfiguration: PATHS are rendered under it and under the new settings "
    "(then every argument is a PATH). REV:PATH reads it from git revision REV.",
)
@click.option(
    "--old-config", metavar="FILE|REV:PATH",
    help="The old side's DynamoRenderConfig file (plugin settings), as --old-operator-config. REV:PATH reads it "
    "from git revision REV, with the files it names.",
)
@click.option(
    "--old-cluster-state", metavar="FILE|REV:PATH",
    help="The old side's cluster-state file, as --old-operator-config.",
)
@click.option(
    "--old-operator-release", metavar="RELEASE",
    help="The old side's operator release profile (as --operator-release): PATHS rendered under it and under the "
    "selected release are what moving the operator does to unchanged manifests.",
)
@click.option(
    "--settings-from-worktree", is_flag=True,
    help="With --base: render both sides under the work tree's settings files (by default a settings file "
    "named by path and kept in git is read from REV for the base side, as the sources are).",
)
@click.option("-o", "--output", type=click.Choice(["text", "json", "markdown"]), default="text", show_default=True)
@click.option("--exit-code", is_flag=True, help="Exit 1 when anything changed, as git diff --exit-code does.")
@table_options(*SHARED, "operator-release", "keep-sources")
def diff(
    paths: tuple[str, ...], base: str | None, old_operator_config: str | None, old_config: str | None,
    old_cluster_state: str | None, old_operator_release: str | None, settings_from_worktree: bool, output: str,
    exit_code: bool, **shared: Any,
) -> None:
    """What a change does to running workloads and GPUs: diff OLD NEW, diff --base REV PATH..., or
    diff --old-operator-config OLD [--old-config OLD] PATH... (an operator or settings upgrade).

    Both sides are rendered with the same settings unless old settings are given; workloads are
    reported as replaced (worker hash rename), rolled (pods restart), scaled, added, removed or
    changed, with GPU and pod totals.
    """
    from plugin.frontends.diff import OldSettings, run

    if old_operator_release is not None:
        from renderer.releases import find_release, release_names

        found = find_release(old_operator_release)
        if found is None:
            raise click.UsageError(
                f"--old-operator-release {old_operator_release!r}: unknown operator release (known: {', '.join(release_names())})"
            )
        old_operator_release = found.name
    old_settings = OldSettings(old_operator_config, old_config, old_cluster_state, old_operator_release)
    common = given_values(shared)
    problem = _diff_usage_problem(paths, base, old_settings, common)
    if settings_from_worktree and base is None:
        problem = "--settings-from-worktree applies to --base REV only"
    if problem:
        raise click.UsageError(problem)
    # --base reads the old side from git; old settings alone render the same PATHs on both sides.
    old, new = ((), paths) if base is not None else (paths, paths) if old_settings.given else ((paths[0],), (paths[1],))
    _exit(lambda: run(old, new, base, output, exit_code, sys.stdout, sys.stderr, common, old_settings, settings_from_worktree))


def _diff_usage_problem(paths: tuple[str, ...], base: str | None, old: OldSettings, common: OptionValues) -> str:
    """Why a diff command line makes no sense ("" when it does)."""
    for flag, value in (
        ("--old-operator-config", old.operator_config), ("--old-config", old.config), ("--old-cluster-state", old.cluster_state),
    ):
        if value is not None and not value.strip():
            return f"{flag} needs a file (or REV:path)"
    if not old.given:
        return "" if base is not None or len(paths) == 2 else (
            "give OLD and NEW, --base REV and one or more PATHs, or old settings (--old-operator-config, "
            "--old-config) and one or more PATHs"
        )
    if "-" in paths:
        return "old settings render the same sources twice: stdin (-) cannot be read twice"
    same = (
        _same_file(old.operator_config, common.get("operator-config-path")) and _same_file(old.config, common.get("config"))
        and _same_file(old.cluster_state, common.get("cluster-state"))
        and (old.operator_release is None or old.operator_release == common.get("operator-release"))
    )
    if base is None and same:
        return (
            "the old settings are the new settings: nothing differs between the sides (give --operator-config or "
            "--config for the new side, or --base REV)"
        )
    return ""


def _same_file(old: str | None, new: str | None) -> bool:
    """Whether an old settings flag names the new side's file (not given: the new side's)."""
    if old is None or old == new:
        return True
    return new is not None and os.path.exists(old) and os.path.exists(new) and os.path.samefile(old, new)


@cli.command()
@click.argument("paths", nargs=-1, required=True)
@click.option("--object", "target", required=True, metavar="KIND/NAME", help="The rendered object to explain (KIND/NAME or KIND/NAMESPACE/NAME).")
@click.option("--field", metavar="PATH", help="Explain only this field subtree of the object (spec.template.spec.containers[0].env).")
@click.option("-o", "--output", type=click.Choice(["text", "json"]), default="text", show_default=True)
@table_options(*SHARED)
@verbose_option
def explain(paths: tuple[str, ...], target: str, field: str | None, output: str, **shared: Any) -> None:
    """Where every value of one rendered object came from: the input, the settings, the cluster state, or the operator.

    PATHS are rendered as ``render`` renders them; each leaf of the object is traced to the
    source field that gives it (changing that field changes the leaf), or to the operator rule
    that computed it.
    """
    if field is not None and not field.strip():
        raise click.UsageError("--field needs a field path")
    from plugin.frontends.explain import run

    common = given_values(shared)
    _exit(lambda: run(paths, common, sys.stdout, sys.stderr, target=target, field=field, output=output))


@cli.command(context_settings={"ignore_unknown_options": True})
@click.argument("args", nargs=-1, metavar="[PLUGIN_CONFIG]")
def krm(args: tuple[str, ...]) -> None:
    """KRM function: ResourceList on stdin, ResourceList on stdout (kpt, kustomize).

    Run as a kustomize legacy exec plugin, it takes the plugin config file as its one argument
    and reads and writes plain YAML streams.
    """
    problem = commands.krm_usage_problem(args)
    if problem:
        raise click.UsageError(problem)
    _exit(lambda: commands.krm(args))


@cli.group()
def cmp() -> None:
    """Argo CD config-management plugin commands (run by argocd-cmp-server in the application folder).

    Settings come from the Application's plugin parameters and env; see argocd/plugin.yaml.
    """


@cmp.command()
def generate() -> None:
    """Render the application folder (the working directory): objects on stdout, or a report on stderr."""
    _exit(commands.cmp_generate)


@cmp.command()
def parameters() -> None:
    """Announce the app folder's Dynamo resources and the settings in effect (Argo CD's dynamic parameters)."""
    _exit(commands.cmp_parameters)


@cli.command()
@click.argument("filenames", nargs=-1, metavar="[FILE]...")
@click.option(
    "-o", "--output", type=click.Choice(["text", "json", "github"]), default="text", show_default=True,
    help="text: one line per problem; json: one record per problem (file, line, object, field, code, fix); "
    "github: workflow commands that annotate the line in a pull request.",
)
@table_options(*SHARED)
@verbose_option
def validate(filenames: tuple[str, ...], output: str, **shared: Any) -> None:
    """Check Dynamo manifests against every offline admission rule and render them (pre-commit hook)."""
    from plugin.frontends.precommit_validate import run

    hook = given_values(shared)
    _exit(lambda: run(filenames, hook, sys.stdout, output=output))


@cli.command("operator-config")
@click.option(
    "--defaults", is_flag=True,
    help="Print the OperatorConfiguration the operator's Helm chart renders with its default values: the one a render "
    "assumes when none is given, as a file to edit and pass with --operator-config.",
)
@click.option(
    "--release-namespace", default="dynamo-system", show_default=True, metavar="NAMESPACE",
    help="The namespace the chart is installed in (it sets mpi.sshSecretNamespace).",
)
def operator_config(defaults: bool, release_namespace: str) -> None:
    """Print an OperatorConfiguration to start from (--defaults: the Helm chart's)."""
    if not defaults:
        raise click.UsageError("give --defaults (the Helm chart's document; to read a cluster's, see docs/configuration.md)")
    from plugin.yamlio.codec import dump_documents
    from renderer.operator_config import helm_default_operator_document

    def write() -> int:
        sys.stdout.write(dump_documents([helm_default_operator_document(release_namespace)]))
        return 0

    _exit(write)


@cli.command("hydrate-check")
@click.argument("source", metavar="SOURCE")
@click.argument("output", metavar="OUTPUT")
@click.option("--fix", is_flag=True, help="Rewrite OUTPUT (still exits 1 when anything changed).")
@click.option(
    "--tracked-only/--no-tracked-only",
    default=False,
    help="Read only files git tracks: untracked sources are not rendered, untracked output files count as missing "
    "(the pre-commit hook's default).",
)
@table_options("keep-sources")
@table_options(*SHARED)
@verbose_option
def hydrate_check(source: str, output: str, fix: bool, tracked_only: bool, keep_sources: bool, **shared: Any) -> None:
    """Fail when committed rendered output (OUTPUT) differs from a fresh render of SOURCE (pre-commit hook)."""
    from plugin.frontends.precommit_hydrate import run

    hook = given_values(shared)
    _exit(lambda: run(source, output, fix, tracked_only, keep_sources, hook, sys.stdout))


def main(argv: list[str] | None = None) -> Any:
    """Parse every command line with click (the console scripts start in ``plugin.console``)."""
    return cli.main(args=argv, prog_name="dynamo-render")


def krm_main() -> Any:
    """``dynamo-render-krm`` through click (the console script starts in ``plugin.console``)."""
    return cli.main(args=["krm", *sys.argv[1:]], prog_name="dynamo-render-krm")


__all__ = ["ENVIRONMENT_ERROR", "INTERNAL_ERROR", "cli", "guarded", "krm_main", "main"]
