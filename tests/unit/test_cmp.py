"""The Argo CD plugin's option, path and output rules (plugin/frontends/cmp.py), and the argocd/ manifests."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml

from plugin.files import PathPolicy
from plugin.frontends import cmp, cmp_params
from tests.builders import OPERATOR_CONFIG, write
from tests.schemas import FORMATS, CRDValidator, assert_valid, structural_to_jsonschema
from tests.positions import document_start, line_of

ROOT = Path(__file__).resolve().parents[2]
ARGOCD = ROOT / "argocd"
CMP_DATA = ROOT / "tests" / "data" / "cmp"
# The release: the plugin's spec.version and the image tag of the install recipes follow it.
RELEASE = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]

FRONTEND = """\
apiVersion: nvidia.com/v1beta1
kind: DynamoComponentDeployment
metadata:
  name: web
spec:
  type: frontend
  podTemplate:
    spec:
      containers:
        - name: main
          image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.9.0
"""



def run(app: Path, env: dict[str, str]) -> tuple[int, list[dict[str, Any]], str]:
    out, err = io.StringIO(), io.StringIO()
    code = cmp.generate(str(app), env, out, err)
    objects = [d for d in yaml.safe_load_all(out.getvalue()) if d]
    if code != 0:
        assert out.getvalue() == ""
    return code, objects, err.getvalue()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository root with one app folder holding a frontend DCD."""
    root = tmp_path / "repo"
    write(root / "apps" / "web" / "web.yaml", FRONTEND)
    return root


def app_env(**extra: str) -> dict[str, str]:
    return {"ARGOCD_APP_SOURCE_PATH": "apps/web", "ARGOCD_APP_NAMESPACE": "llm", "TMPDIR": "/nonexistent", **extra}


# ---------------------------------------------------------------------------------------------
# Parameters and options


@pytest.mark.parametrize(
    ("name", "escaped"),
    [
        # argo-cd types_test.go TestApplicationSourcePluginParameters_Environ_*
        ("version", "VERSION"),
        ("helm-parameters", "HELM_PARAMETERS"),
        ("image.repo", "IMAGE_REPO"),
        ("some-name", "SOME_NAME"),
        # ours
        ("keep-sources", "KEEP_SOURCES"),
        ("operator-config-path", "OPERATOR_CONFIG_PATH"),
    ],
    ids=lambda v: str(v),
)
def test_escape_param_name(name: str, escaped: str) -> None:
    assert cmp.escape_param_name(name) == escaped


def _texts(values: dict[str, cmp.Value]) -> dict[str, tuple[str, int]]:
    return {k: (v.text, v.origin) for k, v in values.items()}


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({}, {}),
        # A plugin block without parameters: the literal null.
        ({"ARGOCD_APP_PARAMETERS": "null"}, {}),
        ({"ARGOCD_APP_PARAMETERS": "[]"}, {}),
        (
            {"ARGOCD_APP_PARAMETERS": '[{"name":"keep-sources","string":"true"}]', "PARAM_KEEP_SOURCES": "true"},
            {"keep-sources": ("true", cmp_params.PARAMETER)},
        ),
        # PARAM_* are read only when ARGOCD_APP_PARAMETERS is absent (they are derived from it).
        ({"PARAM_NAMESPACE": "team-a"}, {"namespace": ("team-a", cmp_params.PARAMETER)}),
        ({"ARGOCD_APP_PARAMETERS": "null", "PARAM_NAMESPACE": "team-a"}, {}),
        # Precedence: parameter > plugin env > sidecar env.
        (
            {
                "DYNAMO_RENDER_NAMESPACE": "from-sidecar",
                "ARGOCD_ENV_DYNAMO_RENDER_NAMESPACE": "from-app-env",
                "DYNAMO_RENDER_COMPANIONS": "false",
            },
            {"namespace": ("from-app-env", cmp_params.APP_ENV), "companions": ("false", cmp_params.SIDECAR)},
        ),
        (
            {
                "ARGOCD_ENV_DYNAMO_RENDER_NAMESPACE": "from-app-env",
                "ARGOCD_APP_PARAMETERS": '[{"name":"namespace","string":"from-parameter"}]',
            },
            {"namespace": ("from-parameter", cmp_params.PARAMETER)},
        ),
        # Other plugin env entries are the user's business.
        ({"ARGOCD_ENV_FOO": "bar"}, {}),
    ],
    ids=["none", "null", "empty-list", "json", "param-env", "json-wins-over-param-env", "env-precedence", "param-precedence", "foreign-env"],
)
def test_resolve_options(env: dict[str, str], expected: dict[str, tuple[str, int]]) -> None:
    values, results = cmp.resolve_options(env)
    assert results == []
    assert _texts(values) == expected


@pytest.mark.parametrize(
    ("env", "line"),
    [
        ({"ARGOCD_APP_PARAMETERS": "[{"}, "[error] ARGOCD_APP_PARAMETERS: not valid JSON: "),
        ({"ARGOCD_APP_PARAMETERS": '{"name":"x"}'}, "[error] ARGOCD_APP_PARAMETERS: expected a JSON list of parameters"),
        ({"ARGOCD_APP_PARAMETERS": "[1]"}, "[error] ARGOCD_APP_PARAMETERS[0]: expected an object with a name"),
        ({"ARGOCD_APP_PARAMETERS": '[{"name":"image"}]'}, "[error] image: unknown parameter (valid: namespace, config, "),
        ({"ARGOCD_APP_PARAMETERS": '[{"name":"namespace","map":{}}]'}, "[error] namespace: must be a string parameter (got map)"),
        ({"ARGOCD_APP_PARAMETERS": '[{"name":"namespace","string":1}]'}, "[error] namespace: must be a string parameter"),
        ({"PARAM_VALUES_FILES_0": "a.yaml"}, "[error] PARAM_VALUES_FILES_0: unknown parameter (valid: PARAM_ALLOW_EMPTY, "),
        ({"ARGOCD_ENV_DYNAMO_RENDER_LWS": "true"}, "[error] ARGOCD_ENV_DYNAMO_RENDER_LWS: unknown setting (valid: ARGOCD_ENV_DYNAMO_RENDER_NAMESPACE, "),
        ({"DYNAMO_RENDER_LWS_GATE": "on"}, '[error] DYNAMO_RENDER_LWS_GATE: invalid value "on" (valid: auto, true, false)'),
        ({"PARAM_KEEP_SOURCES": "True"}, '[error] keep-sources: invalid value "True" (valid: true, false)'),
    ],
    ids=["bad-json", "not-a-list", "not-an-object", "unknown", "map", "non-string", "unknown-param-env", "unknown-env", "bad-gate", "bad-bool"],
)
def test_resolve_options_problems(env: dict[str, str], line: str) -> None:
    _, results = cmp.resolve_options(env)
    assert len(results) == 1
    assert results[0].line().startswith(line), results[0].line()


def test_plugin_yaml_announces_exactly_the_plugin_parameters() -> None:
    plugin = yaml.safe_load((ARGOCD / "plugin.yaml").read_text())
    assert plugin["kind"] == "ConfigManagementPlugin"
    assert plugin["metadata"]["name"] == cmp.PLUGIN_NAME
    assert plugin["spec"]["version"] == cmp.PLUGIN_VERSION == f"v{RELEASE}"
    assert plugin["spec"]["generate"]["command"] == ["dynamo-render", "cmp", "generate"]
    assert plugin["spec"]["preserveFileMode"] is False
    assert "discover" not in plugin["spec"], "no discovery rule by default"
    assert plugin["spec"]["parameters"]["static"] == cmp.announcements()


def test_example_application_uses_the_plugin_name_and_a_known_parameter() -> None:
    app = yaml.safe_load((ARGOCD / "application.yaml").read_text())
    plugin = app["spec"]["source"]["plugin"]
    assert plugin["name"] == cmp.APPLICATION_PLUGIN_NAME == f"dynamo-render-v{RELEASE}"
    assert {p["name"] for p in plugin["parameters"]} <= set(cmp_params.PARAMETERS_BY_NAME)
    assert (ROOT / app["spec"]["source"]["path"]).is_dir()


def test_example_application_is_valid_against_the_argo_cd_crd() -> None:
    crd = yaml.safe_load((CMP_DATA / "crds" / "argoproj.io_applications.v3.5.1.yaml").read_text())
    (version,) = [v for v in crd["spec"]["versions"] if v["name"] == "v1alpha1"]
    validator = CRDValidator(structural_to_jsonschema(version["schema"]["openAPIV3Schema"], root=True), format_checker=FORMATS)
    app = yaml.safe_load((ARGOCD / "application.yaml").read_text())
    assert [e.message for e in validator.iter_errors(app)] == []
    broken = json.loads(json.dumps(app))
    broken["spec"]["source"]["plugin"]["parameters"][0]["value"] = "x"  # the docs' wrong key
    assert [e.message for e in validator.iter_errors(broken)], "the CRD check must catch unknown fields"


# ---------------------------------------------------------------------------------------------
# Paths


@pytest.mark.parametrize(
    ("app", "env", "root"),
    [
        # Inside the cmp-server work dir: the <uuid> folder, whatever ARGOCD_APP_SOURCE_PATH says
        # (with --plugin-use-manifest-generate-paths the tree is rooted lower than the repository).
        ("/w/_cmp_server/u1/apps/web", {"ARGOCD_CMP_WORKDIR": "/w", "ARGOCD_APP_SOURCE_PATH": "deploy/apps/web"}, "/w/_cmp_server/u1"),
        ("/w/_cmp_server/u1", {"ARGOCD_CMP_WORKDIR": "/w", "ARGOCD_APP_SOURCE_PATH": "."}, "/w/_cmp_server/u1"),
        ("/t/_cmp_server/u1/a", {"TMPDIR": "/t"}, "/t/_cmp_server/u1"),
        # Elsewhere: strip ARGOCD_APP_SOURCE_PATH when the working directory ends with it.
        ("/src/repo/apps/web", {"TMPDIR": "/t", "ARGOCD_APP_SOURCE_PATH": "apps/web"}, "/src/repo"),
        ("/src/repo/apps/web", {"TMPDIR": "/t", "ARGOCD_APP_SOURCE_PATH": "./apps/web/"}, "/src/repo"),
        ("/src/repo/apps/web", {"TMPDIR": "/t", "ARGOCD_APP_SOURCE_PATH": "other/web"}, "/src/repo/apps/web"),
        ("/src/repo/apps/web", {"TMPDIR": "/t", "ARGOCD_APP_SOURCE_PATH": "../web"}, "/src/repo/apps/web"),
        ("/src/repo/apps/web", {"TMPDIR": "/t"}, "/src/repo/apps/web"),
    ],
    ids=["workdir", "workdir-root-app", "tmpdir", "source-path", "source-path-normalised", "mismatch", "dotdot", "none"],
)
def test_resolve_repo_root(app: str, env: dict[str, str], root: str) -> None:
    assert cmp.resolve_repo_root(app, env) == root


def test_confine(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    write(root / "config" / "op.yaml", OPERATOR_CONFIG)
    (root / "apps" / "web").mkdir(parents=True)
    write(tmp_path / "outside.yaml", "x: 1\n")
    os.symlink("../../outside.yaml", root / "apps" / "link.yaml")
    tree = cmp.Tree(str(root), str(root / "apps" / "web"))
    policy = PathPolicy(root=tree.root, base=tree.app)
    real, problems = policy.locate("../../config/op.yaml", tree.app, "p")
    assert (real, problems) == (str(root / "config" / "op.yaml"), [])
    for value, message in (
        ("../../../outside.yaml", 'path "../../../outside.yaml" leads outside the repository'),
        ("../link.yaml", 'path "../link.yaml" leads outside the repository'),
        ("/etc/passwd", 'must be a path relative to the application folder (got "/etc/passwd")'),
    ):
        real, problems = policy.locate(value, tree.app, "p")
        assert real is None and [p.message for p in problems] == [message]


# ---------------------------------------------------------------------------------------------
# generate, in process


# A standalone DCD with Kubernetes discovery comes with the discovery RBAC its pods use.
COMPANIONS = ["ServiceAccount", "Role", "RoleBinding"]


def test_generate_renders_into_the_destination_namespace(repo: Path) -> None:
    code, objects, err = run(repo / "apps" / "web", app_env())
    assert code == 0, err
    assert [(o["kind"], o["metadata"]["name"], o["metadata"]["namespace"]) for o in objects] == [
        ("ServiceAccount", "web-k8s-service-discovery", "llm"),
        ("Role", "web-k8s-service-discovery-role", "llm"),
        ("RoleBinding", "web-k8s-service-discovery-binding", "llm"),
        ("Deployment", "web", "llm"),
        ("Service", "web", "llm"),
    ]
    assert_valid(objects)


def test_namespace_precedence(repo: Path) -> None:
    write(repo / "apps" / "web" / "settings" / "render.yaml", "apiVersion: config.dynamo-render.dev/v1alpha1\n"
          "kind: DynamoRenderConfig\nmetadata:\n  name: s\n  annotations:\n    config.kubernetes.io/local-config: \"true\"\n"
          "spec:\n  namespace: from-config\n")
    config = '[{"name":"config","string":"settings/render.yaml"}]'
    _, objects, _ = run(repo / "apps" / "web", app_env(ARGOCD_APP_PARAMETERS=config))
    assert {o["metadata"]["namespace"] for o in objects} == {"from-config"}
    both = '[{"name":"config","string":"settings/render.yaml"},{"name":"namespace","string":"from-param"}]'
    _, objects, _ = run(repo / "apps" / "web", app_env(ARGOCD_APP_PARAMETERS=both))
    assert {o["metadata"]["namespace"] for o in objects} == {"from-param"}
    env = app_env()
    del env["ARGOCD_APP_NAMESPACE"]
    _, objects, _ = run(repo / "apps" / "web", env)
    assert {o["metadata"]["namespace"] for o in objects} == {"default"}


def test_config_file_with_operator_config_path_and_gates(repo: Path) -> None:
    write(repo / "config" / "op.yaml", OPERATOR_CONFIG)
    write(repo / "apps" / "web" / "render.yaml", "apiVersion: config.dynamo-render.dev/v1alpha1\n"
          "kind: DynamoRenderConfig\nmetadata:\n  name: s\nspec:\n  keepSources: true\n"
          "  operatorConfigPath: ../../config/op.yaml\n  gates:\n    checkpoint: false\n")
    env = app_env(ARGOCD_APP_PARAMETERS='[{"name":"config","string":"render.yaml"},{"name":"lws-gate","string":"true"}]')
    code, objects, err = run(repo / "apps" / "web", env)
    assert code == 0, err
    # The config file itself is not rendered; its settings and operator config apply.
    assert [o["kind"] for o in objects] == COMPANIONS + ["Deployment", "Service", "DynamoComponentDeployment"]
    container = objects[len(COMPANIONS)]["spec"]["template"]["spec"]["containers"][0]
    assert {"name": "NATS_SERVER", "value": "nats://nats.example:4222"} in container["env"]


def test_config_file_naming_an_operator_config_outside_the_repository_is_refused(repo: Path, tmp_path: Path) -> None:
    write(tmp_path / "op.yaml", OPERATOR_CONFIG)
    text = ("apiVersion: config.dynamo-render.dev/v1alpha1\n"
            "kind: DynamoRenderConfig\nmetadata:\n  name: s\nspec:\n  operatorConfigPath: ../../../op.yaml\n")
    write(repo / "apps" / "web" / "render.yaml", text)
    code, _, err = run(repo / "apps" / "web", app_env(ARGOCD_APP_PARAMETERS='[{"name":"config","string":"render.yaml"}]'))
    assert code == 1
    line = line_of(text, "  operatorConfigPath: ../../../op.yaml")
    assert f'apps/web/render.yaml:{line}: [error] spec.operatorConfigPath: path "../../../op.yaml" leads outside the repository' in err


def test_sidecar_settings_may_point_outside_the_repository(repo: Path, tmp_path: Path) -> None:
    """The administrator's DYNAMO_RENDER_* variables are trusted, e.g. a mounted operator ConfigMap."""
    op = write(tmp_path / "mounted" / "config.yaml", OPERATOR_CONFIG)
    code, objects, err = run(repo / "apps" / "web", app_env(DYNAMO_RENDER_OPERATOR_CONFIG_PATH=str(op)))
    assert code == 0, err
    deployment = objects[len(COMPANIONS)]
    assert {"name": "NATS_SERVER", "value": "nats://nats.example:4222"} in deployment["spec"]["template"]["spec"]["containers"][0]["env"]
    # An Application's own setting may not.
    code, _, err = run(repo / "apps" / "web", app_env(ARGOCD_ENV_DYNAMO_RENDER_OPERATOR_CONFIG_PATH=str(op)))
    assert code == 1 and "ARGOCD_ENV_DYNAMO_RENDER_OPERATOR_CONFIG_PATH: must be a path relative to the application folder" in err


def test_operator_config_forms_one_per_origin(repo: Path) -> None:
    write(repo / "op.yaml", OPERATOR_CONFIG)
    both = '[{"name":"operator-config-path","string":"../../op.yaml"},{"name":"operator-config","string":"{}"}]'
    code, _, err = run(repo / "apps" / "web", app_env(ARGOCD_APP_PARAMETERS=both))
    assert code == 1 and "set operator-config or operator-config-path, not both (both come from the parameter)" in err
    # Different origins: the higher one wins (a parameter beats the sidecar's default).
    env = app_env(DYNAMO_RENDER_OPERATOR_CONFIG="discovery: {backend: consul}",
                  ARGOCD_APP_PARAMETERS='[{"name":"operator-config-path","string":"../../op.yaml"}]')
    code, _, err = run(repo / "apps" / "web", env)
    assert code == 0, err


def test_operator_config_errors_name_the_file_in_the_repository(repo: Path) -> None:
    text = "apiVersion: operator.config.dynamo.nvidia.com/v1alpha1\nkind: OperatorConfiguration\ndiscovery:\n  backend: consul\n"
    write(repo / "op.yaml", text)
    code, _, err = run(repo / "apps" / "web", app_env(PARAM_OPERATOR_CONFIG_PATH="../../op.yaml"))
    assert code == 1
    assert f'op.yaml:{line_of(text, "  backend: consul")}: [error] discovery.backend: Unsupported value: "consul"' in err


@pytest.mark.parametrize(
    ("text", "where", "line"),
    [
        ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n---\n- just\n- a list\n", 1,
         "apps/web/junk.yaml:{}: [error]: not a Kubernetes object (expected a mapping"),
        ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n---\nname: values\nreplicas: 3\n", 1,
         "apps/web/junk.yaml:{}: [error]: not a Kubernetes object (apiVersion and kind are required)"),
        ("apiVersion: v1\nkind: ConfigMap\nmetadata: {}\n", "metadata: {}",
         "apps/web/junk.yaml:{}: [error] ConfigMap/<unnamed> metadata.name: metadata.name is required"),
        (
            "apiVersion: config.dynamo-render.dev/v1alpha1\nkind: DynamoRenderConfig\nmetadata:\n  name: s\nspec: {}\n", 0,
            "apps/web/junk.yaml:{}: [error] DynamoRenderConfig/s: a DynamoRenderConfig is configuration, not an object to deploy",
        ),
    ],
    ids=["list", "values-file", "unnamed", "render-config"],
)
def test_documents_argo_cd_could_not_apply_are_errors(repo: Path, text: str, where: int | str, line: str) -> None:
    """Each is placed at its line: the field's (as far as the document holds it), else where its document starts."""
    write(repo / "apps" / "web" / "junk.yaml", text)
    code, _, err = run(repo / "apps" / "web", app_env())
    assert code == 1
    assert line.format(document_start(text, where) if isinstance(where, int) else line_of(text, where)) in err, err


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("values.yaml", "replicaCount: 3\nimage:\n  tag: v1\n"),
        ("list.yml", "- just\n- a list\n"),
        ("two.yaml", "a: 1\n---\nb: 2\n"),
        ("kind-only.yaml", "kind: Component\nresources: []\n"),
    ],
    ids=["helm-values", "list", "two-documents", "kind-without-apiversion"],
)
def test_yaml_files_without_kubernetes_objects_are_ignored_with_a_note(repo: Path, name: str, text: str) -> None:
    """Argo CD's directory mode ignores YAML that is not a manifest (findManifests)."""
    write(repo / "apps" / "web" / name, text)
    code, objects, err = run(repo / "apps" / "web", app_env())
    assert code == 0, err
    assert [o["kind"] for o in objects] == COMPANIONS + ["Deployment", "Service"]
    assert f"apps/web/{name}: [info]: not a Kubernetes manifest (no document has apiVersion and kind); ignored" in err


def test_a_json_file_that_is_not_an_object_is_still_an_error(repo: Path) -> None:
    """Argo CD does not skip JSON files: it fails to unmarshal them."""
    write(repo / "apps" / "web" / "package.json", '{"name": "x"}')
    code, _, err = run(repo / "apps" / "web", app_env())
    assert code == 1
    assert "apps/web/package.json:1: [error]: not a Kubernetes object (apiVersion and kind are required)" in err  # its one line


def test_local_config_documents_are_dropped(repo: Path) -> None:
    write(repo / "apps" / "web" / "local.yaml", "apiVersion: config.dynamo-render.dev/v1alpha1\nkind: DynamoRenderConfig\n"
          "metadata:\n  name: s\n  annotations:\n    config.kubernetes.io/local-config: \"true\"\nspec: {}\n")
    code, objects, err = run(repo / "apps" / "web", app_env())
    assert code == 0, err
    assert [o["kind"] for o in objects] == COMPANIONS + ["Deployment", "Service"]


def test_invalid_utf8_and_every_dcd_problem_are_reported_together(repo: Path) -> None:
    (repo / "apps" / "web" / "bin.yaml").write_bytes(b"kind: \xff\n")
    bad = FRONTEND.replace("name: web", "name: Web_Bad")
    write(repo / "apps" / "web" / "bad.yaml", bad)
    code, _, err = run(repo / "apps" / "web", app_env(ARGOCD_APP_NAME="argocd_web"))
    assert code == 1
    lines = err.splitlines()
    assert lines[0] == "dynamo-render: 2 errors for application argocd_web, nothing rendered"
    assert "apps/web/bin.yaml: [error]: not valid UTF-8 at byte 6 [input]" in lines
    place = f"apps/web/bad.yaml:{line_of(bad, 'name: Web_Bad')}:"
    assert any(line.startswith(f"{place} [error] DynamoComponentDeployment/Web_Bad metadata.name:") for line in lines), lines


def test_report_is_capped(repo: Path) -> None:
    for i in range(cmp.MAX_REPORT_LINES + 5):
        write(repo / "apps" / "web" / f"junk-{i:03d}.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {}\n")
    code, _, err = run(repo / "apps" / "web", app_env())
    assert code == 1
    lines = err.splitlines()
    assert len(lines) == 1 + cmp.MAX_REPORT_LINES + 1
    assert lines[-1] == "... and 5 more"


def test_main_usage() -> None:
    from click.testing import CliRunner

    from plugin.cli import cli

    assert CliRunner().invoke(cli, ["cmp", "render"]).exit_code == 2
    assert CliRunner().invoke(cli, ["cmp", "generate", "extra"]).exit_code == 2
    assert CliRunner().invoke(cli, ["cmp", "--help"]).exit_code == 0


# ---------------------------------------------------------------------------------------------
# The repo-server sidecar overlay


def build_overlay(tmp_path: Path) -> list[dict[str, Any]]:
    """argocd/install built with the vendored stand-in of the stock install as its base."""
    shutil.copytree(ARGOCD, tmp_path / "argocd", ignore=shutil.ignore_patterns("example-repo"))
    shutil.copytree(CMP_DATA / "argocd-base", tmp_path / "base")
    kustomization = tmp_path / "argocd" / "install" / "kustomization.yaml"
    text = kustomization.read_text()
    remote = "https://raw.githubusercontent.com/argoproj/argo-cd/v3.5.1/manifests/install.yaml"
    assert remote in text, "the overlay must pin the stock install it patches"
    kustomization.write_text(text.replace(remote, "../../base"))
    proc = subprocess.run(["kubectl", "kustomize", str(kustomization.parent)], check=False, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return [d for d in yaml.safe_load_all(proc.stdout) if d]


def test_sidecar_overlay_builds_and_is_valid(tmp_path: Path) -> None:
    (deployment,) = [o for o in build_overlay(tmp_path) if o["kind"] == "Deployment"]
    assert_valid(deployment)
    assert deployment["metadata"]["namespace"] == "argocd"
    pod = deployment["spec"]["template"]["spec"]
    containers = {c["name"]: c for c in pod["containers"]}
    assert set(containers) == {"argocd-repo-server", "dynamo-render"}
    sidecar = containers["dynamo-render"]
    assert sidecar["image"] == "registry.example.com/dynamo-render:0.1.0"
    assert sidecar["command"] == ["/var/run/argocd/argocd-cmp-server"]
    security = sidecar["securityContext"]
    assert security["runAsUser"] == 999 and security["runAsNonRoot"] is True
    assert security["readOnlyRootFilesystem"] is True and security["allowPrivilegeEscalation"] is False
    mounts = {m["mountPath"]: m["name"] for m in sidecar["volumeMounts"]}
    assert mounts == {"/var/run/argocd": "var-files", "/home/argocd/cmp-server/plugins": "plugins", "/tmp": "dynamo-render-tmp"}
    volumes = {v["name"]: v for v in pod["volumes"]}
    assert volumes["dynamo-render-tmp"] == {"name": "dynamo-render-tmp", "emptyDir": {}}
    # The sidecar shares the stock volumes, never the repo-server's own /tmp.
    assert "var-files" in volumes and "plugins" in volumes
    repo_server_tmp = {m["name"] for m in containers["argocd-repo-server"]["volumeMounts"] if m["mountPath"] == "/tmp"}
    assert repo_server_tmp == {"tmp"}
    # The stock copyutil init container puts argocd-cmp-server where the sidecar runs it from.
    (copyutil,) = pod["initContainers"]
    assert "/var/run/argocd/argocd-cmp-server" in " ".join(copyutil["args"])


def test_operator_config_errors_in_a_config_file_name_that_file(repo: Path) -> None:
    text = ("apiVersion: config.dynamo-render.dev/v1alpha1\n"
            "kind: DynamoRenderConfig\nmetadata:\n  name: s\nspec:\n  operatorConfig:\n    discovery:\n      backend: consul\n")
    write(repo / "apps" / "web" / "render.yaml", text)
    code, _, err = run(repo / "apps" / "web", app_env(PARAM_CONFIG="render.yaml"))
    assert code == 1
    line = line_of(text, "      backend: consul")
    assert f'apps/web/render.yaml:{line}: [error] spec.operatorConfig.discovery.backend: Unsupported value: "consul"' in err


@pytest.mark.parametrize(
    ("kind", "annotations", "expected"),
    [
        ("Deployment", None, "PruneLast=true"),
        ("LeaderWorkerSet", {}, "PruneLast=true"),
        ("PodCliqueSet", {"a": "b"}, "PruneLast=true"),
        # Options already there are kept, in order; PruneLast is appended.
        ("Deployment", {"argocd.argoproj.io/sync-options": "ServerSideApply=true, Replace=false"},
         "ServerSideApply=true,Replace=false,PruneLast=true"),
        # A PruneLast the object already states wins.
        ("Deployment", {"argocd.argoproj.io/sync-options": "PruneLast=false"}, "PruneLast=false"),
        # Not a workload: untouched.
        ("Service", None, None),
    ],
    ids=["deployment", "lws", "pcs-keeps-annotations", "appends", "explicit-wins", "service"],
)
def test_with_prune_last(kind: str, annotations: dict[str, str] | None, expected: str | None) -> None:
    from plugin.frontends.cmp import with_prune_last

    metadata: dict[str, object] = {"name": "w"}
    if annotations is not None:
        metadata["annotations"] = dict(annotations)
    obj = {"apiVersion": "x/v1", "kind": kind, "metadata": metadata}
    out = with_prune_last(obj)
    assert obj["metadata"] == metadata and metadata.get("annotations") == annotations, "the input is never edited"
    got = (out["metadata"].get("annotations") or {}).get("argocd.argoproj.io/sync-options")
    assert got == expected
    for key, value in (annotations or {}).items():
        if key != "argocd.argoproj.io/sync-options":
            assert out["metadata"]["annotations"][key] == value
