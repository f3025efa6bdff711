"""A failing environment is exit 1 with one line on stderr, never an internal error.

Closed stdin, a full disk behind stdout, a reader that goes away (``| head``), a NUL byte in a
path setting, a FIFO or a device where a manifest should be, a file name that is not UTF-8: the
user (or the host) can fix each of these, so none of them is a traceback. The KRM function
always writes its ResourceList.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from plugin.frontends import cmp, krm
from tests.builders import dcd

ROOT = Path(__file__).resolve().parents[2]


def cli(*args: str, stdin: Any = subprocess.DEVNULL, stdout: Any = subprocess.PIPE, shell_suffix: str = "") -> subprocess.CompletedProcess[bytes]:
    command = [sys.executable, "-m", "plugin", *args]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    if shell_suffix:
        line = " ".join(f"'{a}'" for a in command) + shell_suffix
        return subprocess.run(["bash", "-c", line], capture_output=True, cwd=ROOT, env=env, timeout=300, check=False)
    return subprocess.run(command, stdin=stdin, stdout=stdout, stderr=subprocess.PIPE, cwd=ROOT, env=env, timeout=300, check=False)


def _one_line_failure(proc: subprocess.CompletedProcess[bytes]) -> None:
    stderr = proc.stderr.decode(errors="replace")
    assert proc.returncode == 1, stderr
    assert "Traceback" not in stderr and "internal error" not in stderr and "Exception ignored" not in stderr, stderr
    assert len(stderr.splitlines()) >= 1


@pytest.fixture()
def many(tmp_path: Path) -> Path:
    path = tmp_path / "many.yaml"
    path.write_text("\n".join(json.dumps(dcd(f"front-{i}", type="frontend")) for i in range(200)))
    return path


def test_render_to_a_full_disk(many: Path) -> None:
    with open("/dev/full", "wb") as full:
        proc = cli("render", str(many), stdout=full)
    _one_line_failure(proc)
    assert len(proc.stderr.splitlines()) == 1


def test_render_into_a_reader_that_goes_away(many: Path) -> None:
    # a reader that closes its end before anything is written (as ``| head`` does once it has its lines)
    proc = cli("render", str(many), shell_suffix=" | (exec 0<&-; sleep 2); exit ${PIPESTATUS[0]}")
    stderr = proc.stderr.decode()
    assert "Traceback" not in stderr and "Exception ignored" not in stderr, stderr
    assert proc.returncode == 1, stderr
    assert len(stderr.splitlines()) <= 1


def test_render_with_stdin_closed() -> None:
    proc = cli("render", "-", shell_suffix=" <&-")
    _one_line_failure(proc)


def test_krm_with_stdin_closed_still_writes_a_resource_list() -> None:
    proc = cli("krm", shell_suffix=" <&-")
    assert proc.returncode == 1, proc.stderr
    assert b"Traceback" not in proc.stderr
    assert yaml.safe_load(proc.stdout)["kind"] == "ResourceList"


def test_render_dev_zero_stops_at_the_input_limit() -> None:
    start = time.monotonic()
    proc = cli("render", "/dev/zero")
    _one_line_failure(proc)
    assert b"input limit" in proc.stderr
    assert time.monotonic() - start < 60


def test_a_fifo_in_a_folder_does_not_block(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text(json.dumps(dcd("front", type="frontend")))
    os.mkfifo(tmp_path / "pipe.yaml")
    proc = cli("render", str(tmp_path))
    _one_line_failure(proc)
    assert b"FIFO" in proc.stderr


def test_a_file_name_that_is_not_utf8(tmp_path: Path) -> None:
    with open(os.fsencode(str(tmp_path)) + b"/caf\xe9.yaml", "w") as handle:
        handle.write(json.dumps(dcd("front", type="frontend")))
    proc = cli("render", str(tmp_path))
    assert proc.returncode in (0, 1) and b"Traceback" not in proc.stderr


def test_a_nul_byte_in_a_cmp_path_parameter(tmp_path: Path) -> None:
    app = tmp_path / "app"
    app.mkdir()
    (app / "a.yaml").write_text(json.dumps(dcd("front", type="frontend")))
    for name in ("config", "operator-config-path"):
        env = {"ARGOCD_APP_PARAMETERS": json.dumps([{"name": name, "string": "a\u0000b.yaml"}])}
        out, err = io.StringIO(), io.StringIO()
        assert cmp.generate(str(app), env, out, err) == 1, err.getvalue()
        assert out.getvalue() == "" and "Traceback" not in err.getvalue()


def test_a_nul_byte_in_a_krm_path_setting() -> None:
    config = {
        "apiVersion": "config.dynamo-render.dev/v1alpha1",
        "kind": "DynamoRenderConfig",
        "metadata": {"name": "c"},
        "spec": {"operatorConfigPath": "a\u0000b.yaml"},
    }
    data = json.dumps({"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": [dcd("front", type="frontend")], "functionConfig": config})
    out, err = io.StringIO(), io.StringIO()
    assert krm.run_resource_list(data.encode(), out, err) == 1
    assert yaml.safe_load(out.getvalue())["kind"] == "ResourceList"


def test_a_nul_byte_in_a_cli_path_option(many: Path) -> None:
    # argv cannot carry a NUL byte; a config file naming one can
    config = many.parent / "render.yaml"
    config.write_text(json.dumps({
        "apiVersion": "config.dynamo-render.dev/v1alpha1", "kind": "DynamoRenderConfig", "metadata": {"name": "c"},
        "spec": {"clusterStatePath": "a\u0000b"},
    }))
    proc = cli("render", "--config", str(config), str(many))
    _one_line_failure(proc)


# Issue 27 §6: both parsers of the console script (plain command lines take the short way, the
# rest go through click) and the KRM function. "-ndefault" is not a plain spelling: click parses it.
STDOUT_COMMANDS = {
    "render-short-way": lambda many: ("render", str(many)),
    "render-click": lambda many: ("render", "-ndefault", str(many)),
    "render-json": lambda many: ("render", "-o", "json", str(many)),
    "convert": lambda many: ("convert", str(many)),
}


@pytest.mark.parametrize("command", list(STDOUT_COMMANDS))
def test_a_closed_stdout_is_the_environments_error(many: Path, command: str) -> None:
    proc = cli(*STDOUT_COMMANDS[command](many), shell_suffix=" >&-")
    _one_line_failure(proc)
    assert proc.stderr.decode().splitlines() == ["dynamo-render: stdout is closed, so the output cannot be written"]


@pytest.mark.parametrize("command", [name for name in STDOUT_COMMANDS if name != "convert"])  # convert's output fits a pipe
def test_a_reader_that_stops_early_fails_the_run(many: Path, command: str) -> None:
    """The pipe fills while the reader waits, then it takes one byte and goes: the rest is never delivered."""
    proc = cli(*STDOUT_COMMANDS[command](many), shell_suffix=" | (sleep 1; head -c1 >/dev/null); exit ${PIPESTATUS[0]}")
    _one_line_failure(proc)
    assert proc.stderr.decode().splitlines() == ["dynamo-render: the output was closed before it was written in full"]


def _krm_input(many: Path) -> bytes:
    items = [json.loads(line) for line in many.read_text().splitlines()]
    return json.dumps({"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": items}).encode()


def test_krm_with_a_closed_stdout(many: Path, tmp_path: Path) -> None:
    (tmp_path / "in.json").write_bytes(_krm_input(many))
    proc = cli("krm", shell_suffix=f" <'{tmp_path / 'in.json'}' >&-")
    _one_line_failure(proc)
    assert "stdout is closed" in proc.stderr.decode()


def test_krm_into_a_reader_that_stops_early(many: Path, tmp_path: Path) -> None:
    (tmp_path / "in.json").write_bytes(_krm_input(many))
    proc = cli("krm", shell_suffix=f" <'{tmp_path / 'in.json'}' | (sleep 1; head -c1 >/dev/null); exit ${{PIPESTATUS[0]}}")
    stderr = proc.stderr.decode()
    assert proc.returncode == 1, stderr
    assert stderr.splitlines()[-1] == "dynamo-render: the output was closed before it was written in full"


def test_whole_output_still_arrives_through_a_slow_reader(many: Path) -> None:
    whole = cli("render", str(many))
    assert whole.returncode == 0 and len(whole.stdout) > 4 * 65536
    proc = cli("render", str(many), shell_suffix=" | (sleep 1; cat)")
    assert proc.returncode == 0 and proc.stdout == whole.stdout
