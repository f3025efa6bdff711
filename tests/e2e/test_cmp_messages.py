"""Messages that point at the cause, from ``cmp generate`` run as Argo CD's cmp-server runs it.

- A Helm chart folder reaching the plugin gets one line saying it is a Helm chart and that the
  plugin does not run Helm, not the YAML errors of its templates.
- With ``reposerver.plugin.use.manifest.generate.paths``, Argo CD sends the sidecar only the
  common root of the Application's ``argocd.argoproj.io/manifest-generate-paths`` paths
  (reposerver/repository/repository.go runConfigManagementPluginSidecars, getApplicationRootPath)
  while ``ARGOCD_APP_SOURCE_PATH`` keeps the app's path from the repository's root; a settings
  path outside the folder sent says that this is why.
"""

from __future__ import annotations

import shutil
import uuid
from pathlib import Path

import pytest

from tests.e2e.test_cmp import EXAMPLE_REPO, Sidecar, assert_failed

CHART = Path(__file__).resolve().parents[1] / "data" / "helm" / "llm-chart"
CHART_LINE = (
    "is a Helm chart (Chart.yaml): dynamo-render does not run Helm; render the chart first and pipe it in "
    "(helm template RELEASE CHART | dynamo-render render -), in a CI step or a plugin that runs both"
)


@pytest.fixture
def sidecar(tmp_path: Path) -> Sidecar:
    return Sidecar(tmp_path, EXAMPLE_REPO)


def test_a_helm_chart_app_folder_gets_one_line(sidecar: Sidecar) -> None:
    shutil.copytree(CHART, sidecar.repo / "apps" / "llm-chart")
    sidecar.normalise_modes()
    run = sidecar.generate("apps/llm-chart")
    assert_failed(run)
    lines = run.stderr.splitlines()
    assert lines[0] == "dynamo-render: 1 error for application demo, nothing rendered"
    assert lines[1:] == [f"apps/llm-chart/Chart.yaml: [error]: the application folder {CHART_LINE} [input]"]


def test_a_helm_chart_inside_the_app_folder_gets_one_line(sidecar: Sidecar) -> None:
    app = sidecar.repo / "apps" / "vllm-agg"
    shutil.copytree(CHART, app / "charts" / "llm")
    sidecar.normalise_modes()
    run = sidecar.generate("apps/vllm-agg")
    assert_failed(run)
    assert run.stderr.splitlines()[1:] == [f"apps/vllm-agg/charts/llm/Chart.yaml: [error]: apps/vllm-agg/charts/llm {CHART_LINE} [input]"]


def test_without_the_chart_line_the_templates_would_fail_as_yaml(sidecar: Sidecar) -> None:
    """What the line replaces: the templates are not YAML (the chart's Chart.yaml taken away)."""
    target = sidecar.repo / "apps" / "llm-chart"
    shutil.copytree(CHART, target)
    (target / "Chart.yaml").unlink()
    sidecar.normalise_modes()
    run = sidecar.generate("apps/llm-chart")
    assert_failed(run, r"templates/dcds\.yaml")
    assert "Helm chart" not in run.stderr


def partial(tmp_path: Path, folder: str) -> Sidecar:
    """A sidecar that received only ``folder`` of the example repository, as its root."""
    sidecar = Sidecar(tmp_path, EXAMPLE_REPO)
    sent = sidecar.work_dir / str(uuid.uuid4())
    shutil.copytree(sidecar.repo / folder, sent)
    shutil.rmtree(sidecar.repo)
    sidecar.repo = sent
    sidecar.normalise_modes()
    return sidecar


OPERATOR_CONFIG = [{"name": "operator-config-path", "string": "../../config/operator-config.yaml"}]


def test_a_path_outside_the_folder_argo_cd_sent_says_why(tmp_path: Path) -> None:
    sidecar = partial(tmp_path, "apps/vllm-agg")
    run = sidecar.generate(".", source_path="apps/vllm-agg", parameters=OPERATOR_CONFIG)
    assert_failed(
        run,
        r'\[error\] operator-config-path: path "\.\./\.\./config/operator-config\.yaml" leads outside the folder Argo CD sent '
        r'to the plugin: only "apps/vllm-agg/" of the repository, the common root of the Application\'s '
        r"argocd\.argoproj\.io/manifest-generate-paths annotation \(reposerver\.plugin\.use\.manifest\.generate\.paths is on\); "
        r"list the folder this path needs in the annotation",
    )


def test_a_sent_folder_above_the_app_is_named(tmp_path: Path) -> None:
    """The annotation listed ``.`` and ``/apps``: Argo CD sent ``apps/``, the config is outside it."""
    sidecar = partial(tmp_path, "apps")
    run = sidecar.generate("vllm-agg", source_path="apps/vllm-agg", parameters=OPERATOR_CONFIG)
    assert_failed(run, r'leads outside the folder Argo CD sent to the plugin: only "apps/" of the repository')


def test_the_whole_repository_keeps_the_plain_message(sidecar: Sidecar) -> None:
    run = sidecar.generate("apps/vllm-agg", parameters=[{"name": "operator-config-path", "string": "../../../outside.yaml"}])
    assert_failed(run, r'path "\.\./\.\./\.\./outside\.yaml" leads outside the repository \[config\]$')
    assert "manifest-generate-paths" not in run.stderr


def test_the_annotation_listing_the_config_folder_renders(tmp_path: Path) -> None:
    """The fix the message gives: with ``/config`` listed too, Argo CD sends the repository's root."""
    sidecar = Sidecar(tmp_path, EXAMPLE_REPO)
    run = sidecar.generate("apps/vllm-agg", parameters=OPERATOR_CONFIG)
    assert run.code == 0, run.stderr
