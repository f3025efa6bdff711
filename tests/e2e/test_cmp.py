"""``dynamo-render cmp generate`` run the way Argo CD's cmp-server runs it.

What the sidecar does for every manifest request (argo-cd cmpserver/plugin/plugin.go,
reposerver/repository/repository.go), and what ``run_generate`` reproduces:

- the repository is unpacked into a fresh ``$ARGOCD_CMP_WORKDIR/_cmp_server/<uuid>/`` with
  files 0644 and folders 0755 (``preserveFileMode: false``);
- the command from plugin.yaml runs with no shell, in ``<that>/<app path>``, in its own process
  group, with the sidecar's environment plus the build environment (``newEnv``), ``KUBE_*``,
  ``ARGOCD_ENV_*`` and the parameters (``ApplicationSourcePluginParameters.Environ``), and no
  standard input; it is killed at the request deadline (60 s by default);
- stdout is split with a YAML-or-JSON decoder, empty and ``null`` documents are skipped, every
  document must be an object with a kind, and ``List`` objects are flattened.

Expected objects come from the operator's own goldens (tests/data/upstream, and
tests/golden/upstream) or from rules stated next to each assertion.
"""

from __future__ import annotations

import copy
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.golden_match import match_stream
from tests.positions import line_of
from tests.schemas import assert_valid

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE_REPO = ROOT / "argocd" / "example-repo"
UPSTREAM = ROOT / "tests" / "data" / "upstream" / "dcd"
PLUGIN_YAML = ROOT / "argocd" / "plugin.yaml"
DEADLINE = 60.0  # Argo CD's default repo-server timeout (server/controller .repo.server.timeout.seconds)

# KUBE_API_VERSIONS as Argo CD sends it: sorted, group/version and group/version/Kind entries.
STOCK_APIS = ["apps/v1", "apps/v1/Deployment", "v1", "v1/ConfigMap", "v1/Pod", "v1/Service", "v1/ServiceAccount"]
LWS_APIS = ["leaderworkerset.x-k8s.io/v1", "leaderworkerset.x-k8s.io/v1/LeaderWorkerSet"]
VOLCANO_APIS = ["scheduling.volcano.sh/v1beta1", "scheduling.volcano.sh/v1beta1/PodGroup"]

_UNSET = object()


# ---------------------------------------------------------------------------------------------
# The Argo CD side


def plugin_environ(parameters: Any = _UNSET, plugin_env: Mapping[str, str] | None = None) -> dict[str, str]:
    """The plugin-block variables the repo-server adds (``getPluginParamEnvs``).

    ``parameters`` is the Application's ``plugin.parameters`` list (``None`` for a plugin block
    without parameters, which Argo CD sends as the JSON literal ``null``).
    """
    env = {f"ARGOCD_ENV_{name}": value for name, value in (plugin_env or {}).items()}
    if parameters is _UNSET:
        return env
    env["ARGOCD_APP_PARAMETERS"] = json.dumps(parameters, separators=(",", ":"))
    for param in parameters or []:
        base = "PARAM_" + re.sub(r"[^A-Z0-9_]", "_", param["name"].upper())
        if "string" in param:
            env[base] = param["string"]
        for key, value in (param.get("map") or {}).items():
            env[f"{base}_{re.sub(r'[^A-Z0-9_]', '_', key.upper())}"] = value
        for i, value in enumerate(param.get("array") or []):
            env[f"{base}_{i}"] = value
    return env


def test_plugin_environ_matches_argo_cd_vectors() -> None:
    """Restates argo-cd types_test.go TestApplicationSourcePluginParameters_Environ_*."""
    env = plugin_environ([{"name": "version", "string": "1.2.3"}])
    assert env == {"ARGOCD_APP_PARAMETERS": '[{"name":"version","string":"1.2.3"}]', "PARAM_VERSION": "1.2.3"}
    env = plugin_environ([{"name": "dependencies", "array": ["redis", "minio"]}])
    assert env["PARAM_DEPENDENCIES_0"] == "redis" and env["PARAM_DEPENDENCIES_1"] == "minio"
    env = plugin_environ([{"name": "helm-parameters", "map": {"image.repo": "quay.io/argoproj/argo-cd", "image.tag": "v2.4.0"}}])
    assert env["PARAM_HELM_PARAMETERS_IMAGE_REPO"] == "quay.io/argoproj/argo-cd"
    assert env["PARAM_HELM_PARAMETERS_IMAGE_TAG"] == "v2.4.0"
    assert plugin_environ(None) == {"ARGOCD_APP_PARAMETERS": "null"}
    assert plugin_environ() == {}


def argo_split(stdout: str) -> list[dict[str, Any]]:
    """What the cmp-server and repo-server make of our stdout (kube.SplitYAML, List flattening)."""
    text = stdout.removesuffix("\n")
    if text.lstrip().startswith("{"):
        decoder, docs, pos = json.JSONDecoder(), [], 0
        while pos < len(text):
            while pos < len(text) and text[pos].isspace():
                pos += 1
            if pos == len(text):
                break
            doc, pos = decoder.raw_decode(text, pos)
            docs.append(doc)
    else:
        docs = list(yaml.safe_load_all(text))
    objects: list[dict[str, Any]] = []
    for doc in docs:
        if doc is None:
            continue
        assert isinstance(doc, dict), f"failed to unmarshal manifest: {doc!r}"
        assert doc.get("kind"), f"Object 'Kind' is missing in {doc!r}"
        if doc["kind"].endswith("List") and isinstance(doc.get("items"), list):
            objects.extend(doc["items"])
        else:
            objects.append(doc)
    return objects


def generate_command() -> list[str]:
    """plugin.yaml's generate command, resolved the way the sidecar's PATH would."""
    spec = yaml.safe_load(PLUGIN_YAML.read_text())["spec"]["generate"]
    argv = [*spec["command"], *spec.get("args", [])]
    script = Path(sys.executable).with_name(argv[0])
    assert script.exists(), f"console script {argv[0]} is not installed next to {sys.executable}"
    return [str(script), *argv[1:]]


@dataclass
class Run:
    code: int
    stdout: str
    stderr: str
    seconds: float

    @property
    def objects(self) -> list[dict[str, Any]]:
        return argo_split(self.stdout)


class Sidecar:
    """One unpacked repository in a cmp-server work dir, and the sidecar's own environment."""

    def __init__(self, base: Path, repo: Path) -> None:
        self.work_dir = base / "_cmp_server"
        self.repo = self.work_dir / str(uuid.uuid4())
        self.outside = base  # a folder next to the work dir, outside every repository
        shutil.copytree(repo, self.repo, symlinks=True)
        # Upstream golden DCDs as apps of their own.
        for case in ("deployment", "lws"):
            target = self.repo / "apps" / f"upstream-{case}"
            target.mkdir(parents=True)
            shutil.copy(UPSTREAM / case / "input.yaml", target / "input.yaml")
        self.normalise_modes()
        home = base / "home"
        home.mkdir(exist_ok=True)
        # The sidecar's environment (Dockerfile ENV and the sidecar patch), nothing from ours.
        self.env = {
            "PATH": f"{Path(sys.executable).parent}:/usr/local/bin:/usr/bin:/bin",
            "HOME": str(home),
            "LANG": "C.UTF-8",
            "PYTHONDONTWRITEBYTECODE": "1",
            "ARGOCD_CMP_WORKDIR": str(base),
        }

    def normalise_modes(self) -> None:
        """preserveFileMode: false unpacks files 0644 and folders 0755 (util/io/files Untgz)."""
        for path in [self.repo, *self.repo.rglob("*")]:
            if path.is_symlink():
                continue
            path.chmod(0o755 if path.is_dir() else 0o644)

    def generate(
        self,
        app_path: str,
        *,
        namespace: str = "llm",
        api_versions: Sequence[str] = (),
        parameters: Any = None,
        plugin_env: Mapping[str, str] | None = None,
        app_name: str = "demo",
        source_path: str | None = None,
    ) -> Run:
        """Run generate in ``app_path`` of the unpacked tree; ``source_path`` is the Application's
        path in the repository when the tree is only part of it (default: ``app_path``)."""
        env = dict(self.env)
        # newEnv + getPluginEnvs: the build environment and the destination cluster's facts.
        env.update({
            "ARGOCD_APP_NAME": app_name,
            "ARGOCD_APP_NAMESPACE": namespace,
            "ARGOCD_APP_PROJECT_NAME": "default",
            "ARGOCD_APP_REVISION": "0123456789abcdef0123456789abcdef01234567",
            "ARGOCD_APP_REVISION_SHORT": "0123456",
            "ARGOCD_APP_REVISION_SHORT_8": "01234567",
            "ARGOCD_APP_SOURCE_REPO_URL": "https://git.example.com/platform/llm.git",
            "ARGOCD_APP_SOURCE_PATH": app_path if source_path is None else source_path,
            "ARGOCD_APP_SOURCE_TARGET_REVISION": "main",
            "KUBE_VERSION": "1.33.1",
            "KUBE_API_VERSIONS": ",".join(sorted(api_versions)),
        })
        env.update(plugin_environ(parameters, plugin_env))
        started = time.monotonic()
        proc = subprocess.run(
            generate_command(),
            check=False,
            cwd=self.repo / app_path,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=DEADLINE,
            start_new_session=True,
        )
        return Run(proc.returncode, proc.stdout, proc.stderr, time.monotonic() - started)


@pytest.fixture
def sidecar(tmp_path: Path) -> Sidecar:
    return Sidecar(tmp_path, EXAMPLE_REPO)


def by_kind(objects: list[dict[str, Any]]) -> dict[tuple[str, str], dict[str, Any]]:
    return {(o["kind"], o["metadata"]["name"]): o for o in objects}


def main_env(workload: dict[str, Any]) -> dict[str, Any]:
    container = workload["spec"]["template"]["spec"]["containers"][0]
    return {e["name"]: e.get("value") for e in container.get("env", [])}


def assert_failed(run: Run, *patterns: str) -> None:
    """Argo CD's error contract: non-zero exit, nothing on stdout, a readable stderr."""
    assert run.code != 0, f"expected failure, got exit 0\n{run.stdout}"
    assert run.stdout == "", "stdout must stay empty when generation fails"
    assert "Traceback" not in run.stderr, run.stderr
    assert run.stderr.startswith("dynamo-render: "), run.stderr
    for pattern in patterns:
        assert re.search(pattern, run.stderr), f"{pattern!r} not in stderr:\n{run.stderr}"


# ---------------------------------------------------------------------------------------------
# A DCD app renders


def test_dcd_app_renders_deployments_and_services_in_the_destination_namespace(sidecar: Sidecar) -> None:
    run = sidecar.generate("apps/vllm-agg", namespace="llm", api_versions=STOCK_APIS, parameters=None)
    assert run.code == 0, run.stderr
    objects = run.objects
    assert_valid(objects)
    kinds = by_kind(objects)
    for name in ("vllm-agg-frontend", "vllm-agg-decode"):
        deployment, service = kinds[("Deployment", name)], kinds[("Service", name)]
        assert deployment["metadata"]["namespace"] == "llm"
        assert service["metadata"]["namespace"] == "llm"
        # The Dynamo namespace is "<namespace>-<dcd name>" (upstream dcd/deployment golden:
        # clusterenv-.*-deployment-manifest), so it follows ARGOCD_APP_NAMESPACE too.
        labels = deployment["spec"]["template"]["metadata"]["labels"]
        assert labels["nvidia.com/dynamo-namespace"] == f"llm-{name}"
        assert main_env(deployment)["DYN_NAMESPACE"] == f"llm-{name}"
    # Non-Dynamo objects pass through unchanged; the DCDs themselves are not emitted.
    assert kinds[("PersistentVolumeClaim", "model-cache")] == yaml.safe_load((EXAMPLE_REPO / "apps/vllm-agg/model-cache.yaml").read_text())
    assert not [o for o in objects if o["kind"] == "DynamoComponentDeployment"]
    # Nothing but objects on stdout: the raw stream is YAML documents only.
    assert run.stdout.startswith("---\napiVersion: ")
    assert run.seconds < DEADLINE / 4


def test_upstream_deployment_golden(sidecar: Sidecar) -> None:
    """The operator's dcd/deployment golden, through the plugin, in namespace clusterenv-golden."""
    run = sidecar.generate("apps/upstream-deployment", namespace="clusterenv-golden", api_versions=STOCK_APIS)
    assert run.code == 0, run.stderr
    expected = list(yaml.safe_load_all((ROOT / "tests/golden/upstream/dcd-deployment/output.yaml").read_text()))
    problems = match_stream([e for e in expected if e], run.objects, partial=True)
    assert not problems, "\n".join(problems)
    deployment = by_kind(run.objects)[("Deployment", "deployment-manifest")]
    assert deployment["metadata"]["namespace"] == "clusterenv-golden"


def test_output_is_the_same_bytes_every_time(sidecar: Sidecar) -> None:
    first = sidecar.generate("apps/vllm-agg", api_versions=STOCK_APIS)
    second = sidecar.generate("apps/vllm-agg", api_versions=STOCK_APIS)
    assert first.code == second.code == 0
    assert first.stdout == second.stdout


# ---------------------------------------------------------------------------------------------
# Multinode and the LeaderWorkerSet gate


def expected_upstream_lws() -> dict[str, Any]:
    """The operator's dcd/lws golden without what the LWS API adds after the operator's create.

    Dropped: ``spec.networkConfig`` and ``spec.rolloutStrategy`` (lws pkg/webhooks
    leaderworkerset_webhook.go Default) and ``leaderWorkerTemplate.restartPolicy`` (CRD default
    RecreateGroupOnPodRestart). The operator sets none of them (generateLeaderWorkerSet).
    ``metadata`` is not strict, as in the upstream golden.
    """
    docs = [d for d in yaml.safe_load_all((UPSTREAM / "lws" / "output.yaml").read_text()) if d]
    (lws,) = [d for d in docs if d["kind"] == "LeaderWorkerSet"]
    lws = copy.deepcopy(lws)
    lws["metadata"] = {"$strict": False, "name": lws["metadata"]["name"], "namespace": "clusterenv-golden"}
    lws["spec"].pop("networkConfig")
    lws["spec"].pop("rolloutStrategy")
    lws["spec"]["leaderWorkerTemplate"].pop("restartPolicy")
    return lws


def test_multinode_with_lws_and_volcano_served_renders_the_upstream_leaderworkerset(sidecar: Sidecar) -> None:
    run = sidecar.generate(
        "apps/upstream-lws", namespace="clusterenv-golden", api_versions=STOCK_APIS + LWS_APIS + VOLCANO_APIS
    )
    assert run.code == 0, run.stderr
    problems = match_stream([expected_upstream_lws()], run.objects, partial=True)
    assert not problems, "\n".join(problems)
    assert_valid(run.objects)
    assert not [o for o in run.objects if o["kind"] == "Deployment"]


def test_multinode_example_app_renders_a_leaderworkerset(sidecar: Sidecar) -> None:
    run = sidecar.generate("apps/vllm-multinode", api_versions=STOCK_APIS + LWS_APIS + VOLCANO_APIS)
    assert run.code == 0, run.stderr
    lws = by_kind(run.objects)[("LeaderWorkerSet", "vllm-multinode-decode-0")]
    assert lws["metadata"]["namespace"] == "llm"
    assert lws["spec"]["leaderWorkerTemplate"]["size"] == 2
    assert_valid(run.objects)


def test_multinode_without_lws_served_is_refused(sidecar: Sidecar) -> None:
    run = sidecar.generate("apps/upstream-lws", api_versions=STOCK_APIS + VOLCANO_APIS)
    line = line_of((sidecar.repo / "apps" / "upstream-lws" / "input.yaml").read_text(), "nodeCount:")
    assert_failed(
        run,
        rf"apps/upstream-lws/input.yaml:{line}: \[error\] DynamoComponentDeployment/lws-manifest spec.multinode.nodeCount: ",
        r"the cluster does not serve leaderworkerset\.x-k8s\.io",
    )


def test_multinode_with_lws_but_not_volcano_is_refused_as_the_operator_would_not_enable_lws(sidecar: Sidecar) -> None:
    """internal/features/gates.go: LWS is auto-enabled only when both API groups are served."""
    run = sidecar.generate("apps/upstream-lws", api_versions=STOCK_APIS + LWS_APIS)
    assert_failed(run, r"spec.multinode.nodeCount: ", r"scheduling\.volcano\.sh")


def test_lws_gate_parameter_overrides_the_cluster_facts(sidecar: Sidecar) -> None:
    run = sidecar.generate(
        "apps/upstream-lws",
        api_versions=STOCK_APIS + LWS_APIS + VOLCANO_APIS,
        parameters=[{"name": "lws-gate", "string": "false"}],
    )
    assert_failed(run, r"the lws gate is off in the plugin settings")


# ---------------------------------------------------------------------------------------------
# Parameters and plugin env change the output


def test_keep_sources_parameter_emits_the_dcds(sidecar: Sidecar) -> None:
    base = sidecar.generate("apps/vllm-agg", api_versions=STOCK_APIS, parameters=None)
    kept = sidecar.generate("apps/vllm-agg", api_versions=STOCK_APIS, parameters=[{"name": "keep-sources", "string": "true"}])
    assert base.code == kept.code == 0, kept.stderr
    dcds = [o["metadata"]["name"] for o in kept.objects if o["kind"] == "DynamoComponentDeployment"]
    assert dcds == ["vllm-agg-frontend", "vllm-agg-decode"]
    assert len(kept.objects) == len(base.objects) + 2


def test_plugin_env_setting_applies_and_a_parameter_beats_it(sidecar: Sidecar) -> None:
    env = {"DYNAMO_RENDER_KEEP_SOURCES": "true"}
    by_env = sidecar.generate("apps/vllm-agg", api_versions=STOCK_APIS, plugin_env=env, parameters=None)
    assert by_env.code == 0, by_env.stderr
    assert any(o["kind"] == "DynamoComponentDeployment" for o in by_env.objects)
    overridden = sidecar.generate(
        "apps/vllm-agg", api_versions=STOCK_APIS, plugin_env=env, parameters=[{"name": "keep-sources", "string": "false"}]
    )
    assert overridden.code == 0, overridden.stderr
    assert not any(o["kind"] == "DynamoComponentDeployment" for o in overridden.objects)


def test_operator_config_path_parameter_feeds_the_operator_configuration(sidecar: Sidecar) -> None:
    """graph.go AddStandardEnvVars: infrastructure.natsAddress becomes NATS_SERVER."""
    nats = "nats://dynamo-platform-nats.dynamo-system.svc.cluster.local:4222"
    base = sidecar.generate("apps/vllm-agg", api_versions=STOCK_APIS)
    assert base.code == 0, base.stderr
    assert "NATS_SERVER" not in main_env(by_kind(base.objects)[("Deployment", "vllm-agg-decode")])
    run = sidecar.generate(
        "apps/vllm-agg",
        api_versions=STOCK_APIS,
        parameters=[{"name": "operator-config-path", "string": "../../config/operator-config.yaml"}],
    )
    assert run.code == 0, run.stderr
    assert main_env(by_kind(run.objects)[("Deployment", "vllm-agg-decode")])["NATS_SERVER"] == nats


def test_inline_operator_config_parameter(sidecar: Sidecar) -> None:
    inline = "apiVersion: operator.config.dynamo.nvidia.com/v1alpha1\nkind: OperatorConfiguration\n" \
        "infrastructure:\n  etcdAddress: etcd.dynamo-system:2379\n" \
        "rbac:\n  plannerClusterRoleName: p\n  dgdrProfilingClusterRoleName: d\n  eppClusterRoleName: e\n" \
        "mpi:\n  sshSecretName: s\n  sshSecretNamespace: dynamo-system\n"
    run = sidecar.generate("apps/vllm-agg", api_versions=STOCK_APIS, parameters=[{"name": "operator-config", "string": inline}])
    assert run.code == 0, run.stderr
    assert main_env(by_kind(run.objects)[("Deployment", "vllm-agg-decode")])["ETCD_ENDPOINTS"] == "etcd.dynamo-system:2379"
    bad = sidecar.generate(
        "apps/vllm-agg", api_versions=STOCK_APIS, parameters=[{"name": "operator-config", "string": "discovery:\n  backend: consul\n"}]
    )
    assert_failed(bad, r'operator-config.discovery.backend: Unsupported value: "consul"')


def test_namespace_parameter_beats_the_destination_namespace(sidecar: Sidecar) -> None:
    run = sidecar.generate("apps/vllm-agg", namespace="llm", api_versions=STOCK_APIS, parameters=[{"name": "namespace", "string": "team-a"}])
    assert run.code == 0, run.stderr
    deployment = by_kind(run.objects)[("Deployment", "vllm-agg-frontend")]
    assert deployment["metadata"]["namespace"] == "team-a"
    assert deployment["spec"]["template"]["metadata"]["labels"]["nvidia.com/dynamo-namespace"] == "team-a-vllm-agg-frontend"


def test_unknown_or_malformed_parameters_are_refused(sidecar: Sidecar) -> None:
    run = sidecar.generate("apps/vllm-agg", parameters=[{"name": "keep-source", "string": "true"}])
    assert_failed(run, r"keep-source: unknown parameter \(valid: namespace, config, ")
    run = sidecar.generate("apps/vllm-agg", parameters=[{"name": "keep-sources", "string": "yes"}])
    assert_failed(run, r'keep-sources: invalid value "yes" \(valid: true, false\)')
    run = sidecar.generate("apps/vllm-agg", parameters=[{"name": "keep-sources", "array": ["true"]}])
    assert_failed(run, r"keep-sources: must be a string parameter \(got array\)")
    run = sidecar.generate("apps/vllm-agg", plugin_env={"DYNAMO_RENDER_KEEPSOURCES": "true"})
    assert_failed(run, r"ARGOCD_ENV_DYNAMO_RENDER_KEEPSOURCES: unknown setting")


# ---------------------------------------------------------------------------------------------
# Failures


def test_invalid_dcd_fails_with_empty_stdout_and_every_problem_on_stderr(sidecar: Sidecar) -> None:
    app = sidecar.repo / "apps" / "vllm-agg"
    broken = (
        "apiVersion: nvidia.com/v1beta1\nkind: DynamoComponentDeployment\nmetadata:\n  name: broken\n"
        "spec:\n  type: decode\n  replicas: -1\n  podTemplate:\n    spec:\n      containers:\n"
        "        - name: main\n          image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.9.0\n"
    )
    (app / "broken.yaml").write_text(broken)
    (app / "garbled.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: [unclosed\n")
    run = sidecar.generate("apps/vllm-agg", app_name="team_demo")
    assert_failed(
        run,
        r"^dynamo-render: 2 errors for application team_demo, nothing rendered\n",
        rf"apps/vllm-agg/broken.yaml:{line_of(broken, '  replicas: -1')}: \[error\] DynamoComponentDeployment/broken spec.replicas: ",
        # the YAML error's own line: the stream ends inside the flow sequence opened on line 3
        r"apps/vllm-agg/garbled.yaml:4: \[error\]: invalid YAML at line 4, column 1",
    )


def test_a_symlink_out_of_the_repository_is_refused(sidecar: Sidecar) -> None:
    secret = sidecar.outside / "outside.yaml"
    secret.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: stolen\ndata:\n  token: s3cret\n")
    os.symlink(os.path.relpath(secret, sidecar.repo / "apps" / "vllm-agg"), sidecar.repo / "apps" / "vllm-agg" / "leak.yaml")
    run = sidecar.generate("apps/vllm-agg")
    assert_failed(run, r"apps/vllm-agg/leak.yaml: \[error\]: symlink points outside the repository")
    assert "s3cret" not in run.stderr


def test_a_symlinked_folder_out_of_the_repository_is_refused(sidecar: Sidecar) -> None:
    outside = sidecar.outside / "elsewhere"
    outside.mkdir()
    (outside / "cm.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: stolen\n")
    os.symlink(outside, sidecar.repo / "apps" / "vllm-agg" / "more")
    assert_failed(sidecar.generate("apps/vllm-agg"), r"apps/vllm-agg/more: \[error\]: symlink points outside the repository")


def test_a_parameter_path_out_of_the_repository_is_refused(sidecar: Sidecar) -> None:
    (sidecar.outside / "operator-config.yaml").write_text("apiVersion: operator.config.dynamo.nvidia.com/v1alpha1\nkind: OperatorConfiguration\n")
    run = sidecar.generate("apps/vllm-agg", parameters=[{"name": "operator-config-path", "string": "../../../../operator-config.yaml"}])
    assert_failed(run, r'operator-config-path: path "../../../../operator-config.yaml" leads outside the repository')
    run = sidecar.generate("apps/vllm-agg", parameters=[{"name": "config", "string": "/etc/passwd"}])
    assert_failed(run, r"config: must be a path relative to the application folder")


def test_symlinks_inside_the_repository_are_followed(sidecar: Sidecar) -> None:
    linked = sidecar.repo / "apps" / "linked"
    linked.mkdir()
    os.symlink("../vllm-agg/dcds.yaml", linked / "dcds.yaml")
    run = sidecar.generate("apps/linked")
    assert run.code == 0, run.stderr
    assert ("Deployment", "vllm-agg-decode") in by_kind(run.objects)


def test_an_empty_app_folder_is_refused_unless_allowed(sidecar: Sidecar) -> None:
    empty = sidecar.repo / "apps" / "empty"
    empty.mkdir()
    (empty / "NOTES.md").write_text("nothing to deploy yet\n")
    run = sidecar.generate("apps/empty")
    assert_failed(run, r"no objects to deploy in apps/empty \(found 0 manifest files\)", r"allow-empty")
    allowed = sidecar.generate("apps/empty", parameters=[{"name": "allow-empty", "string": "true"}])
    assert allowed.code == 0, allowed.stderr
    assert allowed.stdout == "" and allowed.objects == []


# ---------------------------------------------------------------------------------------------
# Scale and the deadline


def write_bundle(app: Path, count: int) -> None:
    """``count`` DCDs: frontend and vLLM worker pairs built from the example app."""
    pair = [d for d in yaml.safe_load_all((EXAMPLE_REPO / "apps/vllm-agg/dcds.yaml").read_text()) if d]
    app.mkdir(parents=True)
    for chunk in range(count // 50):
        docs = []
        for i in range(chunk * 25, chunk * 25 + 25):
            for dcd in pair:
                dcd = copy.deepcopy(dcd)
                dcd["metadata"]["name"] = f"{dcd['metadata']['name']}-{i:03d}"
                docs.append(dcd)
        (app / f"dcds-{chunk:02d}.yaml").write_text(yaml.safe_dump_all(docs))


def test_500_dcds_render_well_inside_the_generate_deadline(sidecar: Sidecar) -> None:
    write_bundle(sidecar.repo / "apps" / "fleet", 500)
    run = sidecar.generate("apps/fleet", api_versions=STOCK_APIS)
    assert run.code == 0, run.stderr[:2000]
    objects = run.objects
    assert sum(1 for o in objects if o["kind"] == "Deployment") == 500
    print(f"\n500 DCDs -> {len(objects)} objects, {len(run.stdout) / 1e6:.1f} MB, generate took {run.seconds:.2f} s")
    assert run.seconds < DEADLINE / 4, f"generate took {run.seconds:.1f} s for 500 DCDs"


def test_sigterm_at_the_deadline_leaves_stdout_empty(sidecar: Sidecar) -> None:
    """The cmp-server sends SIGTERM to the process group at the deadline (runCommand)."""
    write_bundle(sidecar.repo / "apps" / "fleet", 500)
    env = dict(sidecar.env, ARGOCD_APP_SOURCE_PATH="apps/fleet", ARGOCD_APP_NAMESPACE="llm", KUBE_API_VERSIONS="")
    proc = subprocess.Popen(
        generate_command(), cwd=sidecar.repo / "apps/fleet", env=env, stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
    )
    time.sleep(0.5)
    os.killpg(proc.pid, signal.SIGTERM)
    stdout, stderr = proc.communicate(timeout=DEADLINE)
    assert proc.returncode in (143, -signal.SIGTERM), (proc.returncode, stderr)
    assert stdout == ""


# ---------------------------------------------------------------------------------------------
# Rollout safety: PruneLast on rendered workloads


SYNC_OPTIONS = "argocd.argoproj.io/sync-options"


def test_rendered_workloads_carry_prune_last_by_default(sidecar: Sidecar) -> None:
    """A worker renamed by its hash is pruned at the end of the sync, after the rest is healthy."""
    agg = sidecar.generate("apps/vllm-agg", api_versions=STOCK_APIS)
    multinode = sidecar.generate("apps/vllm-multinode", api_versions=STOCK_APIS + LWS_APIS + VOLCANO_APIS)
    assert agg.code == multinode.code == 0, agg.stderr + multinode.stderr
    workloads = [o for o in agg.objects + multinode.objects if o["kind"] in ("Deployment", "LeaderWorkerSet")]
    assert {o["kind"] for o in workloads} == {"Deployment", "LeaderWorkerSet"}
    for workload in workloads:
        assert workload["metadata"]["annotations"][SYNC_OPTIONS] == "PruneLast=true", workload["metadata"]["name"]
    # Nothing else is marked: Services, RBAC, ConfigMaps and passed-through objects sync as usual.
    others = [o for o in agg.objects + multinode.objects if o["kind"] not in ("Deployment", "LeaderWorkerSet")]
    assert others and not [o for o in others if SYNC_OPTIONS in (o["metadata"].get("annotations") or {})]
    assert_valid(workloads)


def test_prune_last_parameter_turns_it_off(sidecar: Sidecar) -> None:
    run = sidecar.generate("apps/vllm-agg", api_versions=STOCK_APIS, parameters=[{"name": "prune-last", "string": "false"}])
    assert run.code == 0, run.stderr
    assert not [o for o in run.objects if SYNC_OPTIONS in (o["metadata"].get("annotations") or {})]


def test_prune_last_skips_hand_written_workloads(sidecar: Sidecar) -> None:
    app = sidecar.repo / "apps" / "sync-options"
    app.mkdir()
    app.joinpath("dcd.yaml").write_text(
        "apiVersion: nvidia.com/v1beta1\n"
        "kind: DynamoComponentDeployment\n"
        "metadata:\n"
        "  name: fe\n"
        "spec:\n"
        "  type: frontend\n"
        "  podTemplate:\n"
        "    spec:\n"
        "      containers:\n"
        "      - name: main\n"
        "        image: registry.example/runtime:1.5.0\n"
        "---\n"
        "apiVersion: apps/v1\n"
        "kind: Deployment\n"
        "metadata:\n"
        "  name: hand-written\n"
        "spec:\n"
        "  selector: {matchLabels: {app: x}}\n"
        "  template:\n"
        "    metadata: {labels: {app: x}}\n"
        "    spec: {containers: [{name: x, image: x}]}\n"
    )
    run = sidecar.generate("apps/sync-options", api_versions=STOCK_APIS)
    assert run.code == 0, run.stderr
    kinds = by_kind(run.objects)
    assert kinds[("Deployment", "fe")]["metadata"]["annotations"][SYNC_OPTIONS] == "PruneLast=true"
    assert SYNC_OPTIONS not in (kinds[("Deployment", "hand-written")]["metadata"].get("annotations") or {})


def test_rendered_pod_clique_sets_carry_prune_last(sidecar: Sidecar) -> None:
    """On the Grove pathway (the Grove gate on in the plugin settings) the PodCliqueSet is marked too."""
    app = sidecar.repo / "apps" / "grove"
    app.mkdir()
    app.joinpath("dgd.yaml").write_text(
        "apiVersion: nvidia.com/v1beta1\n"
        "kind: DynamoGraphDeployment\n"
        "metadata:\n"
        "  name: chat\n"
        "spec:\n"
        "  components:\n"
        "  - name: frontend\n"
        "    type: frontend\n"
        "    podTemplate:\n"
        "      spec:\n"
        "        containers:\n"
        "        - name: main\n"
        "          image: registry.example/runtime:1.5.0\n"
    )
    app.joinpath("render-config.yaml").write_text(
        "apiVersion: config.dynamo-render.dev/v1alpha1\n"
        "kind: DynamoRenderConfig\n"
        "spec:\n"
        "  gates:\n"
        "    grove: true\n"
    )
    grove = ["grove.io/v1alpha1", "grove.io/v1alpha1/PodCliqueSet"]
    run = sidecar.generate(
        "apps/grove", api_versions=STOCK_APIS + grove, parameters=[{"name": "config", "string": "render-config.yaml"}]
    )
    assert run.code == 0, run.stderr
    kinds = [o["kind"] for o in run.objects]
    assert "PodCliqueSet" in kinds, (kinds, run.stderr)
    (pcs,) = [o for o in run.objects if o["kind"] == "PodCliqueSet"]
    assert pcs["metadata"]["annotations"][SYNC_OPTIONS] == "PruneLast=true"
    assert not [o for o in run.objects if o["kind"] in ("Deployment", "LeaderWorkerSet")]
