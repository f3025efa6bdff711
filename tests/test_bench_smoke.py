"""The render benchmark runs end to end on a small bundle (timings are never asserted).

It drives the real console script, kubectl kustomize and the PyYAML round trip exactly as a
full benchmark run does, with N=20, and checks that the report and its JSON come out whole.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "bench" / "render_bench.py"


def test_render_benchmark_smoke(tmp_path: Path) -> None:
    report = tmp_path / "bench.json"
    done = subprocess.run(
        [sys.executable, str(BENCH), "--dcds", "20", "--scale", "10,20", "--repeat", "1", "--cold-repeat", "1",
         "--dgds", "2", "--json", str(report)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    for target in ("P1", "P2", "P3", "P4 peak RSS", "P4 time", "DGD cost"):
        assert f"| {target}" in done.stdout
    data = json.loads(report.read_text(encoding="utf-8"))
    assert data["dcds"] == 20
    assert data["objects"] > 20  # every DCD renders to several objects
    for name in ("render", "kustomize", "round_trip", "render_one", "render_one_dgd", "kustomize_one", "render_small",
                 "render_large"):
        assert data["wall_seconds"][name] > 0
        assert data["cpu_seconds"][name] > 0
    for name in ("render", "kustomize", "round_trip", "render_small", "render_large"):
        assert data["rss_mib"][name] > 0
    assert set(data["ratios"]) == {"p1", "p2", "p3", "p3_cpu", "p3_dgd", "p3_dgd_cpu", "p4_time", "p4_rss_mib", "dgd_cpu", "dgd_wall"}
    # Two DGD copies of three components against eight DCDs, each side with its Secrets and PVCs.
    assert data["dgd_objects"]["render_dgds"] > 2 * 3 and data["dgd_objects"]["render_dgd_dcds"] > 8
    # The -X importtime breakdown of the one-DCD run names our own modules.
    assert any(row["module"].startswith(("plugin.", "renderer.")) for row in data["imports_ms"])
    assert "| module | cumulative ms | self ms |" in done.stdout


def test_cold_start_benchmark_alone(tmp_path: Path) -> None:
    report = tmp_path / "cold.json"
    done = subprocess.run(
        [sys.executable, str(BENCH), "--cold-only", "--cold-repeat", "1", "--importtime-runs", "1", "--json", str(report)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "| P3 cold start" in done.stdout and "1 DGD with 4 components" in done.stdout
    assert "| P1" not in done.stdout
    data = json.loads(report.read_text(encoding="utf-8"))
    assert set(data["wall_seconds"]) == {"render_one", "render_one_dgd", "kustomize_one"}


def test_dgd_cost_benchmark_alone(tmp_path: Path) -> None:
    report = tmp_path / "dgd.json"
    done = subprocess.run(
        [sys.executable, str(BENCH), "--dgd-only", "--dgds", "2", "--repeat", "1", "--json", str(report)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "| DGD cost: per object, 2 DGDs vs 8 DCDs" in done.stdout
    assert "| P3" not in done.stdout and "| P1" not in done.stdout and "| module" not in done.stdout
    data = json.loads(report.read_text(encoding="utf-8"))
    assert set(data["wall_seconds"]) == {"render_dgds", "render_dgd_dcds"}
    assert data["ratios"]["dgd_cpu"] > 0


def test_generated_dgd_has_four_components() -> None:
    sys.path.insert(0, str(BENCH.parent))
    try:
        import render_bench
    finally:
        sys.path.remove(str(BENCH.parent))
    dgd = render_bench.generate_dgd()
    assert dgd["kind"] == "DynamoGraphDeployment"
    assert [c["name"] for c in dgd["spec"]["components"]] == ["frontend", "decode", "prefill", "planner"]
    assert all("backendFramework" not in c for c in dgd["spec"]["components"])


def test_generated_bundle_follows_the_corpus_mix(tmp_path: Path) -> None:
    sys.path.insert(0, str(BENCH.parent))
    try:
        import render_bench
    finally:
        sys.path.remove(str(BENCH.parent))
    root = render_bench.write_dcds(tmp_path / "dcds", 40)
    docs = [doc for path in sorted(root.glob("*.yaml")) for doc in yaml.safe_load_all(path.read_text(encoding="utf-8"))]
    dcds = [doc for doc in docs if doc["kind"] == "DynamoComponentDeployment"]
    assert len(dcds) == 40
    types = [dcd["spec"]["type"] for dcd in dcds]
    assert types.count("frontend") == 12
    assert types.count("planner") == 4
    assert sum(1 for dcd in dcds if "multinode" in dcd["spec"]) == 4  # one in ten
    assert {dcd["spec"]["backendFramework"] for dcd in dcds} == {"vllm", "sglang", "trtllm"}
    workers = [dcd for dcd in dcds if dcd["spec"]["type"] in ("prefill", "decode", "worker")]
    for dcd in workers:
        main = dcd["spec"]["podTemplate"]["spec"]["containers"][0]
        assert main["env"] and main["volumeMounts"] and main["resources"]["limits"]["nvidia.com/gpu"]
    # The Secrets, PVCs and ConfigMaps the pods reference travel with the bundle.
    assert {doc["kind"] for doc in docs} == {"DynamoComponentDeployment", "ConfigMap", "Secret", "PersistentVolumeClaim"}


def test_hydrate_check_benchmark_smoke(tmp_path: Path) -> None:
    """Issue 27 §5: the check-versus-render benchmark runs end to end (timings are never asserted)."""
    report = tmp_path / "hydrate.json"
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "hydrate_check_bench.py"), "--dcds", "10", "--repeat", "1", "--json", str(report)],
        capture_output=True, text=True, timeout=600, check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "| 10 |" in done.stdout
    data = json.loads(report.read_text(encoding="utf-8"))
    assert set(data["10"]) == {"render_wall", "render_cpu", "check_wall", "check_cpu", "ratio"}
