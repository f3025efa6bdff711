"""The CMP reads nothing outside the repository, through any setting that names a path.

Every path setting a repository author controls (the ``config`` and ``operator-config-path``
parameters, as a parameter and as a plugin env entry, and the ``operatorConfigPath`` and
``clusterStatePath`` fields of a DynamoRenderConfig) is pointed at an escape: a symlinked file,
a symlinked folder, a folder holding a symlink, a symlink to ``/dev/zero``, a FIFO. Every file
the run opens is recorded; none may lie outside the repository, and each escape is a one-line
error. The sidecar's own ``DYNAMO_RENDER_*`` variables are the administrator's and may point
anywhere, so they are not walked here.
"""

from __future__ import annotations

import builtins
import io
import json
import os
import stat
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from plugin.frontends import cmp
from plugin.settings import RenderSettings

SECRET_NAME = "outside-pull-secret"

# Every CMP setting that names a path: (how it is set, the setting).
PARAMETER_PATHS = ("config", "operator-config-path")
CONFIG_PATHS = ("operatorConfigPath", "clusterStatePath")


def test_the_path_settings_table_is_complete() -> None:
    """A new setting that names a file must be added to this walk."""
    named = {p.name for p in cmp.PARAMETERS if "path" in p.name or "file" in p.option.title.lower()}
    assert named == set(PARAMETER_PATHS)
    fields = {f.alias for name, f in RenderSettings.model_fields.items() if name.endswith("_path")}
    assert fields == set(CONFIG_PATHS)


DCD = {
    "apiVersion": "nvidia.com/v1beta1",
    "kind": "DynamoComponentDeployment",
    "metadata": {"name": "front", "namespace": "llm"},
    "spec": {"type": "frontend", "podTemplate": {"spec": {"containers": [{"name": "main", "image": "nvcr.io/x/y:1"}]}}},
}
OUTSIDE_SECRET = {
    "apiVersion": "v1",
    "kind": "Secret",
    "metadata": {"name": SECRET_NAME, "namespace": "llm"},
    "type": "kubernetes.io/dockerconfigjson",
    "stringData": {".dockerconfigjson": json.dumps({"auths": {"nvcr.io": {"auth": "dTpw"}}})},
}
OPERATOR_CONFIG = {"apiVersion": "operator.config.dynamo.nvidia.com/v1alpha1", "kind": "OperatorConfiguration"}


def _write(path: Path, obj: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(obj))


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    """``tmp/repo`` with the app in ``apps/app``; ``tmp/outside`` holds what must never be read."""
    root = tmp_path / "repo"
    _write(root / "apps" / "app" / "dcd.yaml", DCD)
    _write(tmp_path / "outside" / "secret.yaml", OUTSIDE_SECRET)
    _write(tmp_path / "outside" / "operator.yaml", OPERATOR_CONFIG)
    return root


# An escape: given the repository and the outside folder, create it and return the path a
# setting names (relative to the app folder).
Escape = Callable[[Path, Path, str], str]


def _symlinked_file(root: Path, outside: Path, setting: str) -> str:
    target = outside / ("secret.yaml" if setting == "clusterStatePath" else "operator.yaml")
    (root / "conf").mkdir(exist_ok=True)
    (root / "conf" / "link.yaml").symlink_to(target)
    return "../../conf/link.yaml"


def _symlinked_folder(root: Path, outside: Path, setting: str) -> str:
    (root / "conf").mkdir(exist_ok=True)
    (root / "conf" / "dir").symlink_to(outside)
    name = "secret.yaml" if setting == "clusterStatePath" else "operator.yaml"
    return "../../conf/dir" if setting == "clusterStatePath" else f"../../conf/dir/{name}"


def _folder_holding_a_symlink(root: Path, outside: Path, setting: str) -> str:
    (root / "state").mkdir(exist_ok=True)
    (root / "state" / "secret.yaml").symlink_to(outside / "secret.yaml")
    return "../../state"


def _dev_zero(root: Path, outside: Path, setting: str) -> str:
    (root / "state").mkdir(exist_ok=True)
    (root / "state" / "zero.yaml").symlink_to("/dev/zero")
    return "../../state" if setting == "clusterStatePath" else "../../state/zero.yaml"


def _fifo(root: Path, outside: Path, setting: str) -> str:
    (root / "state").mkdir(exist_ok=True)
    os.mkfifo(root / "state" / "pipe.yaml")
    return "../../state" if setting == "clusterStatePath" else "../../state/pipe.yaml"


def _dot_dot(root: Path, outside: Path, setting: str) -> str:
    return "../../../outside" if setting == "clusterStatePath" else "../../../outside/operator.yaml"


ESCAPES: dict[str, Escape] = {
    "symlinked-file": _symlinked_file,
    "symlinked-folder": _symlinked_folder,
    "folder-holding-a-symlink": _folder_holding_a_symlink,
    "dev-zero": _dev_zero,
    "fifo": _fifo,
    "dot-dot": _dot_dot,
}


@pytest.fixture()
def opened(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Real paths of every file opened through ``open`` or ``os.open``.

    Opening a FIFO or a device fails the test on the spot: the read would block or never end.
    """
    paths: list[str] = []
    real_open, real_os_open = builtins.open, os.open

    def record(path: Any) -> None:
        if isinstance(path, int):
            return
        real = os.path.realpath(os.fsdecode(path))
        paths.append(real)
        if os.path.exists(real) and not stat.S_ISREG(os.stat(real).st_mode) and not stat.S_ISDIR(os.stat(real).st_mode):
            raise AssertionError(f"opened a file that is not a regular file: {real}")

    def spy_open(file: Any, *args: Any, **kwargs: Any) -> Any:
        record(file)
        return real_open(file, *args, **kwargs)

    def spy_os_open(path: Any, *args: Any, **kwargs: Any) -> Any:
        record(path)
        return real_os_open(path, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", spy_open)
    monkeypatch.setattr(io, "open", spy_open)
    monkeypatch.setattr(os, "open", spy_os_open)
    yield paths


def _cases() -> Iterator[Any]:
    for setting in (*PARAMETER_PATHS, *CONFIG_PATHS):
        for origin in (("parameter", "plugin-env") if setting in PARAMETER_PATHS else ("config-file",)):
            for escape in ESCAPES:
                yield pytest.param(setting, origin, escape, id=f"{setting}-{origin}-{escape}")


@pytest.mark.parametrize(("setting", "origin", "escape"), list(_cases()))
def test_no_setting_reads_outside_the_repository(
    repo: Path, opened: list[str], setting: str, origin: str, escape: str
) -> None:
    outside = repo.parent / "outside"
    value = ESCAPES[escape](repo, outside, setting)
    env = {"ARGOCD_APP_SOURCE_PATH": "apps/app", "ARGOCD_CMP_WORKDIR": str(repo.parent / "cmp-workdir")}
    if origin == "config-file":
        _write(repo / "apps" / "app" / "render.yaml", {
            "apiVersion": "config.dynamo-render.dev/v1alpha1",
            "kind": "DynamoRenderConfig",
            "spec": {setting: value},
        })
        env["ARGOCD_APP_PARAMETERS"] = json.dumps([{"name": "config", "string": "render.yaml"}])
    elif origin == "parameter":
        env["ARGOCD_APP_PARAMETERS"] = json.dumps([{"name": setting, "string": value}])
    else:
        env["ARGOCD_ENV_DYNAMO_RENDER_" + cmp.escape_param_name(setting)] = value
    out, err = io.StringIO(), io.StringIO()
    code = cmp.generate(str(repo / "apps" / "app"), env, out, err)
    root = os.path.realpath(repo)
    # Python's own files (plugin entry points, modules) are not the repository author's to choose.
    world = (os.path.realpath(repo.parent) + os.sep, "/dev/", "/proc/")
    escaped = [p for p in opened if p.startswith(world) and not p.startswith(root + os.sep)]
    assert escaped == [], f"read outside the repository: {escaped}"
    assert SECRET_NAME not in out.getvalue()
    assert code == 1, err.getvalue()
    assert out.getvalue() == ""
    lines = err.getvalue().splitlines()
    assert len(lines) >= 2 and "Traceback" not in err.getvalue()
