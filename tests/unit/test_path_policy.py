"""The settings resolver's path policy: where the files the settings name may lie, and how they are shown.

Real files and symlinks in a temporary repository; the Argo CD plugin's policy (confined to the
repository, sidecar-origin inputs trusted) against the command line's (unconfined).
"""

from __future__ import annotations

import io
import json
import os
from pathlib import Path
from typing import Any

import pytest
import yaml

from plugin.files import UNCONFINED, PathPolicy
from plugin.frontends import cmp
from plugin.settings import Settings, resolve_settings
from renderer.results import Result
from tests.builders import OPERATOR_CONFIG, dcd, write

SECRET = """\
apiVersion: v1
kind: Secret
metadata:
  name: pull
  namespace: llm
type: kubernetes.io/dockerconfigjson
data:
  .dockerconfigjson: eyJhdXRocyI6eyJudmNyLmlvIjp7ImF1dGgiOiJlRHA1In19fQ==
"""

FRONTEND = json.dumps(dcd("web", namespace=None, type="frontend"))


def render_config(**spec: str) -> str:
    return json.dumps({"apiVersion": "config.dynamo-render.dev/v1alpha1", "kind": "DynamoRenderConfig", "metadata": {"name": "c"}, "spec": spec})


@pytest.fixture
def tree(tmp_path: Path) -> tuple[Path, Path]:
    """``tmp/repo`` (real path) with the app folder ``apps/web``; ``tmp/outside`` is not in it."""
    base = Path(os.path.realpath(tmp_path))
    root = base / "repo"
    (root / "apps" / "web").mkdir(parents=True)
    write(base / "outside" / "op.yaml", OPERATOR_CONFIG)
    write(base / "outside" / "state.yaml", SECRET)
    return root, root / "apps" / "web"


def confined(root: Path, app: Path, *trusted: str) -> PathPolicy:
    return PathPolicy(root=str(root), base=str(app), trusted=frozenset(trusted), labels={"config": "config"})


def lines(results: list[Result]) -> list[str]:
    return [r.line() for r in results if r.is_error]


# ---------------------------------------------------------------------------------------------
# locate


def test_unconfined_paths_are_taken_as_given(tmp_path: Path) -> None:
    assert UNCONFINED.locate("a/b.yaml", None, "x") == ("a/b.yaml", [])
    assert UNCONFINED.locate("b.yaml", "conf", "x") == ("conf/b.yaml", [])
    assert UNCONFINED.locate("/etc/b.yaml", "conf", "x") == ("/etc/b.yaml", [])
    assert UNCONFINED.show("/etc/b.yaml") == "/etc/b.yaml"


def test_a_repository_path_resolves_to_its_real_path(tree: tuple[Path, Path]) -> None:
    root, app = tree
    write(root / "config" / "op.yaml", OPERATOR_CONFIG)
    os.symlink("../../config", app / "conf")
    policy = confined(root, app)
    assert policy.locate("conf/op.yaml", str(app), "p") == (str(root / "config" / "op.yaml"), [])
    assert policy.show(str(root / "config" / "op.yaml")) == "config/op.yaml"
    assert policy.show("/elsewhere/op.yaml") == "/elsewhere/op.yaml"


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("../../../outside/op.yaml", 'path "../../../outside/op.yaml" leads outside the repository'),
        ("link.yaml", 'path "link.yaml" leads outside the repository'),
        # Out of the repository as written, back in through a symlink: refused all the same.
        ("../../../back/apps/web/x.yaml", 'path "../../../back/apps/web/x.yaml" leads outside the repository'),
        ("/etc/passwd", 'must be a path relative to the application folder (got "/etc/passwd")'),
        ("a\0b.yaml", "must not contain a NUL byte"),
    ],
    ids=["dot-dot", "symlink-out", "out-and-back", "absolute", "nul"],
)
def test_a_repository_path_leading_outside_is_refused(tree: tuple[Path, Path], value: str, message: str) -> None:
    root, app = tree
    os.symlink(root.parent / "outside" / "op.yaml", app / "link.yaml")
    os.symlink(root, root.parent / "back")
    write(app / "x.yaml", "{}\n")
    path, problems = confined(root, app).locate(value, str(app), "operator-config-path")
    assert path is None
    assert [(p.message, p.field) for p in problems] == [(message, "operator-config-path")]


def test_a_trusted_path_may_be_absolute_and_lead_anywhere(tree: tuple[Path, Path]) -> None:
    root, app = tree
    outside = root.parent / "outside" / "op.yaml"
    policy = confined(root, app, "operator-config-path")
    assert policy.locate(str(outside), str(app), "p", trusted=True) == (str(outside), [])
    assert policy.locate("../../../outside/op.yaml", str(app), "p", trusted=True) == (str(outside), [])
    path, problems = policy.locate("a\0b", str(app), "p", trusted=True)
    assert path is None and [p.message for p in problems] == ["must not contain a NUL byte"]


# ---------------------------------------------------------------------------------------------
# resolve_settings under a policy


def resolve(
    policy: PathPolicy, config_path: str | None = None, operator_config_path: str | None = None,
    operator_config: str | None = None, operator_config_fallback: bool = False,
) -> tuple[Settings | None, list[Result]]:
    """The settings from a config file and an operator configuration given over it, or under it (a fallback)."""
    operator = {name: value for name, value in (("operator-config-path", operator_config_path), ("operator-config", operator_config)) if value is not None}
    given = {"config": config_path} if config_path is not None else {}
    if operator_config_fallback:
        return resolve_settings(given, below=operator, policy=policy)
    return resolve_settings({**given, **operator}, policy=policy)


@pytest.mark.parametrize("setting", ["operatorConfigPath", "clusterStatePath"])
def test_a_repository_config_naming_a_file_outside_is_refused(tree: tuple[Path, Path], setting: str) -> None:
    root, app = tree
    target = "../../../outside/" + ("op.yaml" if setting == "operatorConfigPath" else "state.yaml")
    write(app / "render.yaml", render_config(**{setting: target}))
    settings, results = resolve(confined(root, app), config_path="render.yaml")
    assert settings is None
    # the settings carry the document index; the front ends turn it into a line
    assert lines(results) == [f'apps/web/render.yaml (doc 0): [error] spec.{setting}: path "{target}" leads outside the repository [config]']


def test_a_trusted_config_may_name_files_outside(tree: tuple[Path, Path]) -> None:
    root, app = tree
    config = write(root.parent / "sidecar" / "render.yaml", render_config(operatorConfigPath="../outside/op.yaml",
                                                                          clusterStatePath="../outside/state.yaml"))
    settings, results = resolve(confined(root, app, "config"), config_path=str(config))
    assert settings is not None, results
    assert settings.config.operator_config_source == "given"
    assert [o["metadata"]["name"] for layer in settings.cluster_layers for o in layer.objects] == ["pull"]
    outside = root.parent / "outside"
    assert settings.config_files == {str(config), str(outside / "op.yaml"), str(outside / "state.yaml")}


def test_an_untrusted_config_outside_the_repository_is_refused(tree: tuple[Path, Path]) -> None:
    root, app = tree
    config = write(root.parent / "sidecar" / "render.yaml", render_config())
    settings, results = resolve(confined(root, app, "operator-config-path"), config_path=str(config))
    assert settings is None
    assert lines(results) == [f'[error] config: must be a path relative to the application folder (got "{config}") [config]']


def test_a_symlink_out_inside_a_cluster_state_folder_is_refused(tree: tuple[Path, Path]) -> None:
    root, app = tree
    write(app / "state" / "own.yaml", SECRET)
    os.symlink(root.parent / "outside" / "state.yaml", app / "state" / "stolen.yaml")
    write(app / "render.yaml", render_config(clusterStatePath="state"))
    settings, results = resolve(confined(root, app), config_path="render.yaml")
    assert settings is None
    assert lines(results) == ["apps/web/state/stolen.yaml: [error]: symlink points outside the repository (-> "
                              f"{root.parent / 'outside' / 'state.yaml'}) [input]"]


def test_a_fifo_in_the_repository_is_not_read(tree: tuple[Path, Path]) -> None:
    root, app = tree
    os.mkfifo(app / "op.yaml")
    settings, results = resolve(confined(root, app), operator_config_path="op.yaml")
    assert settings is None
    assert lines(results) == ["apps/web/op.yaml: [error]: is a FIFO, not a regular file; it is not read [input]"]


def test_the_files_the_settings_name_are_reported(tree: tuple[Path, Path]) -> None:
    root, app = tree
    write(root / "config" / "op.yaml", OPERATOR_CONFIG)
    write(app / "state" / "pull.yaml", SECRET)
    write(app / "render.yaml", render_config(operatorConfigPath="../../config/op.yaml", clusterStatePath="state"))
    settings, results = resolve(confined(root, app), config_path="render.yaml")
    assert settings is not None, results
    assert settings.config_files == {str(app / "render.yaml"), str(root / "config" / "op.yaml"), str(app / "state")}


def test_an_operator_config_given_as_config(tree: tuple[Path, Path]) -> None:
    root, app = tree
    write(app / "op.yaml", OPERATOR_CONFIG)
    settings, results = resolve(confined(root, app), config_path="op.yaml")
    assert settings is not None, results
    assert settings.config.operator_config_source == "given"
    assert settings.config_files == {str(app / "op.yaml")}


@pytest.mark.parametrize(("fallback", "used"), [(False, "flag"), (True, "config")])
def test_the_flag_operator_config_wins_unless_it_is_a_fallback(tree: tuple[Path, Path], fallback: bool, used: str) -> None:
    root, app = tree
    # The flag's file is broken: whether it was read shows in the result.
    write(app / "flag.yaml", "kind: OperatorConfiguration\ndiscovery:\n  backend: consul\n")
    write(app / "op.yaml", OPERATOR_CONFIG)
    write(app / "render.yaml", render_config(operatorConfigPath="op.yaml"))
    settings, results = resolve(confined(root, app), config_path="render.yaml", operator_config_path="flag.yaml",
                                operator_config_fallback=fallback)
    if used == "flag":
        assert settings is None and any("apps/web/flag.yaml (doc 0): [error] discovery.backend" in line for line in lines(results))
    else:
        assert settings is not None, results
        assert str(app / "flag.yaml") not in settings.config_files


def test_an_inline_operator_config_is_named_by_its_label(tree: tuple[Path, Path]) -> None:
    root, app = tree
    policy = PathPolicy(root=str(root), base=str(app), labels={"operator-config": "PARAM_OPERATOR_CONFIG"})
    settings, results = resolve(policy, operator_config="discovery: {backend: consul}")
    assert settings is None
    assert any(line.startswith("[error] PARAM_OPERATOR_CONFIG.discovery.backend: ") for line in lines(results)), lines(results)
    assert all(line.startswith("[error] PARAM_OPERATOR_CONFIG.") for line in lines(results))
    _, results = resolve(policy, operator_config="[1, 2]")
    assert lines(results) == ["[error] PARAM_OPERATOR_CONFIG: expected exactly one YAML or JSON object [config]"]


# ---------------------------------------------------------------------------------------------
# The Argo CD plugin end to end: what it reads, what it renders


def generate(app: Path, env: dict[str, str]) -> tuple[int, list[dict[str, Any]], str]:
    out, err = io.StringIO(), io.StringIO()
    code = cmp.generate(str(app), {"ARGOCD_APP_SOURCE_PATH": "apps/web", "ARGOCD_APP_NAMESPACE": "llm",
                                   "TMPDIR": "/nonexistent", **env}, out, err)
    return code, [d for d in yaml.safe_load_all(out.getvalue()) if d], err.getvalue()


def test_the_settings_files_in_the_app_folder_are_not_rendered(tree: tuple[Path, Path]) -> None:
    root, app = tree
    write(app / "web.yaml", FRONTEND)
    write(app / "settings" / "op.yaml", OPERATOR_CONFIG)
    write(app / "settings" / "state" / "pull.yaml", SECRET)
    write(app / "settings" / "render.yaml", render_config(operatorConfigPath="op.yaml", clusterStatePath="state"))
    code, objects, err = generate(app, {"ARGOCD_APP_PARAMETERS": json.dumps([{"name": "config", "string": "settings/render.yaml"}])})
    assert code == 0, err
    kinds = [o["kind"] for o in objects]
    assert "Deployment" in kinds
    assert not {"DynamoRenderConfig", "OperatorConfiguration", "Secret"} & set(kinds), kinds
    # The operator configuration and the cluster state were used.
    deployment = next(o for o in objects if o["kind"] == "Deployment")
    assert {"name": "NATS_SERVER", "value": "nats://nats.example:4222"} in deployment["spec"]["template"]["spec"]["containers"][0]["env"]
    assert deployment["spec"]["template"]["spec"].get("imagePullSecrets") == [{"name": "pull"}], deployment["spec"]["template"]["spec"]


def test_an_app_parameter_config_naming_files_outside_is_refused(tree: tuple[Path, Path]) -> None:
    root, app = tree
    write(app / "web.yaml", FRONTEND)
    text = render_config(operatorConfigPath="../../../outside/op.yaml")
    write(app / "render.yaml", text)
    code, objects, err = generate(app, {"ARGOCD_APP_PARAMETERS": json.dumps([{"name": "config", "string": "render.yaml"}])})
    assert code == 1 and objects == []
    # one line of JSON: the field is on line 1
    assert 'apps/web/render.yaml:1: [error] spec.operatorConfigPath: path "../../../outside/op.yaml" leads outside the repository' in err


def test_a_sidecar_config_naming_files_outside_is_read(tree: tuple[Path, Path]) -> None:
    root, app = tree
    write(app / "web.yaml", FRONTEND)
    config = write(root.parent / "sidecar" / "render.yaml", render_config(operatorConfigPath="../outside/op.yaml",
                                                                          clusterStatePath="../outside/state.yaml"))
    code, objects, err = generate(app, {"DYNAMO_RENDER_CONFIG": str(config)})
    assert code == 0, err
    deployment = next(o for o in objects if o["kind"] == "Deployment")
    assert {"name": "NATS_SERVER", "value": "nats://nats.example:4222"} in deployment["spec"]["template"]["spec"]["containers"][0]["env"]
    # The same file named by the Application is refused.
    code, _, err = generate(app, {"ARGOCD_ENV_DYNAMO_RENDER_CONFIG": str(config)})
    assert code == 1 and "ARGOCD_ENV_DYNAMO_RENDER_CONFIG: must be a path relative to the application folder" in err
