"""The recipe for Helm charts: ``helm template … | dynamo-render render -``.

The plugin does not run Helm (a chart reaching it gets one line, tests/e2e/test_cmp_messages.py).
The chart in tests/data/helm/llm-chart templates two DCDs; ``llm-chart.rendered.yaml`` beside it
is what ``helm template llm tests/data/helm/llm-chart -n llm`` printed with helm v4.2.1 (the
version Argo CD v3.5.1 bundles, hack/tool-versions.sh), byte for byte. The pipe runs on that
output always; with a ``helm`` binary on PATH the chart is templated for real as well (CI has
no helm: building it from source takes longer than the rest of CI).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.positions import line_of

HELM_DATA = Path(__file__).resolve().parents[1] / "data" / "helm"
CHART = HELM_DATA / "llm-chart"
RENDERED = HELM_DATA / "llm-chart.rendered.yaml"
RENDER = [sys.executable, "-c", "from plugin.console import main; main()", "render", "-n", "llm", "-"]


def objects(text: str) -> dict[str, dict[str, Any]]:
    return {f"{d['kind']}/{d['metadata']['name']}": d for d in yaml.safe_load_all(text) if d}


def main_container(deployment: dict[str, Any]) -> dict[str, Any]:
    (main,) = [c for c in deployment["spec"]["template"]["spec"]["containers"] if c["name"] == "main"]
    return main


def assert_rendered(stdout: str) -> None:
    out = objects(stdout)
    assert not any(key.startswith("DynamoComponentDeployment/") for key in out)
    decode, frontend = out["Deployment/llm-decode"], out["Deployment/llm-frontend"]
    # The chart's values reached the workloads: replicas, image, model, GPUs.
    assert decode["spec"]["replicas"] == 2
    assert main_container(decode)["image"] == "nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.9.0"
    assert main_container(decode)["resources"]["limits"]["nvidia.com/gpu"] == "1"
    assert "Qwen/Qwen3-0.6B" in main_container(decode)["args"]
    assert frontend["metadata"]["namespace"] == "llm"
    assert "Service/llm-frontend" in out


def test_the_pre_rendered_chart_is_helm_template_output_of_two_dcds() -> None:
    text = RENDERED.read_text()
    assert text.startswith("---\n# Source: llm/templates/dcds.yaml\n")
    assert sorted(objects(text)) == ["DynamoComponentDeployment/llm-decode", "DynamoComponentDeployment/llm-frontend"]


def test_helm_template_output_piped_into_render() -> None:
    done = subprocess.run(RENDER, input=RENDERED.read_text(), capture_output=True, text=True, check=False, timeout=120)
    assert done.returncode == 0, done.stderr
    assert_rendered(done.stdout)


def test_the_pipe_reports_problems_against_stdin() -> None:
    broken = RENDERED.read_text().replace("replicas: 2", "replicas: -2")
    done = subprocess.run(RENDER, input=broken, capture_output=True, text=True, check=False, timeout=120)
    assert done.returncode == 1 and done.stdout == ""
    # stdin's own text gives the line: the decode worker's replicas
    line = line_of(broken, "  replicas: -2")
    assert f"<stdin>:{line}: [error] DynamoComponentDeployment/llm-decode spec.replicas: must be >= 0 (got -2)" in done.stderr


HELM = shutil.which("helm")
needs_helm = pytest.mark.skipif(HELM is None, reason="no helm binary on PATH (go install helm.sh/helm/v4/cmd/helm@v4.2.1)")


@needs_helm
def test_helm_template_prints_the_pre_rendered_output() -> None:
    assert HELM is not None
    done = subprocess.run([HELM, "template", "llm", str(CHART), "-n", "llm"], capture_output=True, text=True, check=False, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout == RENDERED.read_text()


@needs_helm
def test_helm_template_piped_into_render() -> None:
    assert HELM is not None
    helm = subprocess.Popen([HELM, "template", "llm", str(CHART), "-n", "llm"], stdout=subprocess.PIPE)
    try:
        done = subprocess.run(RENDER, stdin=helm.stdout, capture_output=True, text=True, check=False, timeout=120)
    finally:
        assert helm.stdout is not None
        helm.stdout.close()
        assert helm.wait(timeout=60) == 0
    assert done.returncode == 0, done.stderr
    assert_rendered(done.stdout)
