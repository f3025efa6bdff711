"""The console scripts' short way (plugin.console) agrees with the click group (plugin.cli).

A plain command line of ``render`` is parsed without click; these tests check that every command
line the short way accepts means the same to click, that it declines what only click can
answer (help, usage errors, completion), and that a one-DCD render imports only what it needs.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import click
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from plugin import console
from plugin.cli import cli

ROOT = Path(__file__).resolve().parents[2]
DCD = """\
apiVersion: nvidia.com/v1beta1
kind: DynamoComponentDeployment
metadata:
  name: decode
  namespace: llm
spec:
  backendFramework: vllm
  type: decode
  replicas: 1
  podTemplate:
    spec:
      containers:
      - name: main
        image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.6.1
        args: ["--model", "Qwen/Qwen3-0.6B"]
        resources:
          limits:
            nvidia.com/gpu: "1"
"""


def click_params(args: list[str]) -> dict[str, Any]:
    command = cli.commands["render"]
    with command.make_context("render", list(args)) as ctx:
        return dict(ctx.params)


def test_the_short_way_knows_every_render_option_click_declares() -> None:
    declared = set()
    for param in cli.commands["render"].params:
        declared.update(getattr(param, "opts", ()) if param.param_type_name == "option" else ())
        declared.update(getattr(param, "secondary_opts", ()) if param.param_type_name == "option" else ())
    declared -= {"-h", "--help"}
    assert set(console.render_flags()) == declared
    assert {**console.render_defaults(), "paths": ("x",)} == click_params(["x"])


def test_every_render_option_has_the_same_default_choices_and_path_check_in_both_parsers() -> None:
    """The short way reads defaults, choices and path checks from the option table, as click does."""
    from plugin.options import BY_NAME, RENDER_OPTIONS

    params = {param.name: param for param in cli.commands["render"].params if isinstance(param, click.Option)}
    defaults = console.render_defaults()
    assert set(defaults) == set(params)
    for name in RENDER_OPTIONS:
        option = BY_NAME[name]
        param = params[option.dest]
        assert defaults[option.dest] == param.default == option.flag_default, name
        assert param.is_flag == option.switch, name
        choices = tuple(param.type.choices) if isinstance(param.type, click.Choice) else ()
        assert choices == option.choices, name
        path = param.type if isinstance(param.type, click.Path) else None
        assert ("exists" if path and path.exists else "file" if path and not path.dir_okay else "") == option.path, name
        # What the short way accepts as a value is what click accepts.
        for value in (*option.choices, "other"):
            if option.choices:
                assert console._acceptable(option.dest, value) == (value in choices), (name, value)
    assert defaults["strict_codes"] is None and params["strict_codes"].hidden


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("console")
    (root / "dir").mkdir()
    (root / "file.yaml").write_text(DCD)
    (root / "state.yaml").write_text("")
    return root


@pytest.fixture()
def files(workdir: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(workdir)
    return workdir


PLAIN = [
    ["file.yaml"],
    ["-", "file.yaml", "dir"],
    ["-n", "ns", "--namespace", "other", "file.yaml"],
    ["--namespace=ns", "file.yaml", "--keep-sources", "--lws", "--no-lws", "--companions"],
    ["--no-companions", "--emit", "dcd", "--emit=workloads", "-o", "json", "--output=yaml", "-v", "file.yaml"],
    ["--cluster-state", "state.yaml", "--config", "file.yaml", "--operator-config", "file.yaml", "file.yaml"],
    ["--live", "--kubeconfig", "file.yaml", "--context", "ctx", "--verbose", "dir"],
    ["file.yaml", "--", "-n", "--help"],
    ["--", "--"],
    ["--strict=reference,ignored", "file.yaml", "--strict", "dir"],
    ["--strict", "file.yaml", "--no-strict", "--strict=false"],
    ["file.yaml", "--", "--strict=reference"],
]
DECLINED = [
    [],
    ["--help"],
    ["-h", "file.yaml"],
    ["-vo", "json", "file.yaml"],
    ["-nns", "file.yaml"],
    ["-n=ns", "file.yaml"],
    ["--namespace", "-x", "file.yaml"],
    ["--namespace", "", "file.yaml"],
    ["--emit", "all", "file.yaml"],
    ["-o", "xml", "file.yaml"],
    ["--cluster-state", "missing.yaml", "file.yaml"],
    ["--config", "dir", "file.yaml"],
    ["--operator-config=dir", "file.yaml"],
    ["--kubeconfig", "dir", "file.yaml"],
    ["--keep-sources=true", "file.yaml"],
    ["--unknown", "file.yaml"],
    ["--names", "ns", "file.yaml"],
    ["file.yaml", "-n"],
    ["--"],
    ["--strict=refrence", "file.yaml"],
    ["--strict=", "file.yaml"],
    ["--no-strict=reference", "file.yaml"],
]


@pytest.mark.parametrize("args", PLAIN, ids=lambda a: " ".join(a) or "(none)")
def test_a_plain_render_command_line_means_the_same_to_both_parsers(files: Path, args: list[str]) -> None:
    parsed = console.parse_render(args)
    assert parsed is not None
    assert parsed == click_params(args)


@pytest.mark.parametrize("args", DECLINED, ids=lambda a: " ".join(a) or "(none)")
def test_anything_else_is_left_to_click(files: Path, args: list[str]) -> None:
    assert console.parse_render(args) is None
    assert console.short_way(["render", *args], "dynamo-render") is None


TOKENS = st.sampled_from(
    ["file.yaml", "dir", "-", "--", "state.yaml", "missing.yaml", "ns", "json", "yaml", "dcd", "workloads", "xml", "",
     "-n", "--namespace", "--namespace=ns", "--keep-sources", "--lws", "--no-lws", "--companions", "--no-companions",
     "--emit", "--emit=dcd", "-o", "--output", "--output=json", "-v", "--verbose", "--live", "--kubeconfig",
     "--context", "--cluster-state", "--cluster-state=state.yaml", "--config", "--config=dir", "--operator-config",
     "-h", "--help", "-vn", "--unknown", "--lws=1", "--version", "--strict", "--no-strict", "--strict=clash,reference",
     "--strict=bogus", "--strict-codes"]
)


@settings(max_examples=300, deadline=None)
@given(args=st.lists(TOKENS, max_size=8))
def test_generated_command_lines_accepted_by_the_short_way_mean_the_same_to_click(workdir: Path, args: list[str]) -> None:
    here = os.getcwd()
    os.chdir(workdir)
    try:
        parsed = console.parse_render(args)
        if parsed is not None:
            assert parsed == click_params(args)
    finally:
        os.chdir(here)


def test_only_plain_command_lines_of_the_common_commands_take_the_short_way(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("_DYNAMO_RENDER_COMPLETE", raising=False)
    assert console.short_way(["cmp", "generate"], "dynamo-render") is console.cmp_generate
    assert console.short_way(["cmp", "parameters"], "dynamo-render") is console.cmp_parameters
    for args in (["cmp"], ["cmp", "generate", "x"], ["cmp", "--help"], ["--version"], ["--help"], ["convert", "x"],
                 ["validate", "x"], ["diff", "a", "b"], ["krm", "--help"], ["krm", "a", "b"], []):
        assert console.short_way(args, "dynamo-render") is None, args
    assert console.short_way(["krm"], "dynamo-render-krm") is not None
    monkeypatch.setenv("_DYNAMO_RENDER_COMPLETE", "bash_source")
    assert console.short_way(["cmp", "generate"], "dynamo-render") is None


def run_cli(*args: str, stdin: str | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "plugin", *args], input=stdin, capture_output=True, text=True,
                          cwd=cwd or ROOT, env=env, check=False)


def test_both_ways_give_the_same_output_and_exit_codes(tmp_path: Path) -> None:
    (tmp_path / "dcd.yaml").write_text(DCD)
    (tmp_path / "bad.yaml").write_text(DCD.replace("replicas: 1", "replicas: -1"))
    for name in ("dcd.yaml", "bad.yaml"):
        short = run_cli("render", str(tmp_path / name))
        # "-ndefault" is not a plain spelling: click parses it (namespace "default", as when none is given).
        through_click = run_cli("render", "-ndefault", str(tmp_path / name))
        assert (short.returncode, short.stdout) == (through_click.returncode, through_click.stdout)
        assert short.stderr == through_click.stderr
    assert run_cli("render").returncode == 2
    assert run_cli("render", "--help").stdout.startswith("Usage: dynamo-render render")


# Modules a one-DCD render (vLLM, no failover, no preserved v1alpha1 data) must not import: the DGD,
# Grove and v1alpha1 conversion code, other backends, failover, the live client, the other YAML
# library, the libraries only other command lines need, and the other front ends.
NOT_NEEDED_FOR_ONE_DCD = (
    "click",
    "pydantic",
    # Record classes come from renderer.records: dataclasses compiles code per class and loads inspect.
    "dataclasses",
    "inspect",
    "kubernetes",
    "ruamel",
    "renderer.graph",
    "renderer.admission.v1alpha1.admit",
    "renderer.conversion.to_v1beta1",
    "renderer.conversion.from_v1beta1",
    "renderer.conversion.shared_from",
    "renderer.pod.failover",
    "renderer.pod.backends.sglang",
    "renderer.pod.backends.trtllm",
    "renderer.pod.backends.noop",
    "plugin.frontends.krm",
    "plugin.frontends.cmp",
    "plugin.frontends.diff",
    "plugin.frontends.convert",
    "plugin.impact",
)


def imported_modules(result: subprocess.CompletedProcess[str]) -> set[str]:
    return {line.split("|")[-1].strip() for line in result.stderr.splitlines() if line.startswith("import time:")}


def test_rendering_one_dcd_imports_only_what_it_needs(tmp_path: Path) -> None:
    (tmp_path / "dcd.yaml").write_text(DCD)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "plugin", "render", str(tmp_path / "dcd.yaml")],
                          capture_output=True, text=True, cwd=tmp_path, env=env, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "kind: Deployment" in done.stdout
    modules = imported_modules(done)
    assert "renderer.bundle" in modules  # the probe sees our own modules
    unexpected = sorted(m for m in modules if any(m == n or m.startswith(n + ".") for n in NOT_NEEDED_FOR_ONE_DCD))
    assert unexpected == []
