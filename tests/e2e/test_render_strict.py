"""``render --strict``: any warning fails the run like an error, and the flag beats the config file.

The warning used here is a real one: with companions off, a standalone worker's discovery
ServiceAccount is neither rendered nor in the cluster state.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.builders import dcd

WARNING = "must exist in the cluster: ServiceAccount/worker-k8s-service-discovery"


def _render(tmp_path: Path, *flags: str, config_strict: bool | None = None) -> subprocess.CompletedProcess[str]:
    (tmp_path / "dcd.yaml").write_text(yaml.safe_dump(dcd()))
    args = [*flags]
    if config_strict is not None:
        settings = {"apiVersion": "config.dynamo-render.dev/v1alpha1", "kind": "DynamoRenderConfig",
                    "spec": {"strict": config_strict}}
        (tmp_path / "settings.yaml").write_text(yaml.safe_dump(settings))
        args += ["--config", str(tmp_path / "settings.yaml")]
    command = [sys.executable, "-c", "from plugin.console import main; main()", "render", "--no-companions", *args,
               str(tmp_path / "dcd.yaml")]
    return subprocess.run(command, capture_output=True, text=True, check=False)


def test_without_strict_a_warning_is_printed_and_the_render_succeeds(tmp_path: Path) -> None:
    run = _render(tmp_path)
    assert run.returncode == 0, run.stderr
    assert "[warning]" in run.stderr and WARNING in run.stderr
    assert any(d["kind"] == "Deployment" for d in yaml.safe_load_all(run.stdout))


@pytest.mark.parametrize(("flags", "config_strict"), [(("--strict",), None), ((), True), (("--strict",), False)])
def test_strict_turns_the_warning_into_an_error_and_prints_nothing(
    tmp_path: Path, flags: tuple[str, ...], config_strict: bool | None
) -> None:
    run = _render(tmp_path, *flags, config_strict=config_strict)
    assert run.returncode == 1
    assert run.stdout == ""
    assert "[error]" in run.stderr and WARNING in run.stderr and "strict is on" in run.stderr


def test_no_strict_on_the_command_line_beats_the_config_file(tmp_path: Path) -> None:
    run = _render(tmp_path, "--no-strict", config_strict=True)
    assert run.returncode == 0, run.stderr
    assert WARNING in run.stderr
