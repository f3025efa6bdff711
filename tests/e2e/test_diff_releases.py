"""``diff --old-operator-release A``: what moving the operator from release A to the selected one does.

The same manifests are rendered under profile A (old side) and under ``--operator-release``
(new side), as ``renderer/releases.py`` defines the profiles:

- the option takes the profile names (a leading ``v`` too) and refuses any other, naming the
  known ones; the same release on both sides is a usage error, as other old settings are;
- the old side really renders under A: ai-dynamo/dynamo#14419's explicit ``roles`` (1.5.0) are
  refused on the side that runs the reference commit, whichever side that is;
- the origin-version stamp (``nvidia.com/dynamo-operator-origin-version``, covered by the worker
  hash): the 1.5.1 profile stamps 1.5.1 where the reference commit and 1.5.0 stamp 1.5.0. The
  operator stamps it only when it creates a graph (its defaulting webhook runs on CREATE), so a
  graph it reconciles (``keepSources``) keeps its stamp and no worker is renamed by the upgrade;
  rendered objects are created anew on every render, so there the stamp follows the profile and
  the workers are replaced. Each answer is said on stderr.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
ROLES = ROOT / "tests" / "golden" / "multinode" / "roles-explicit-lowering-14419" / "input.yaml"

DGD = """\
apiVersion: nvidia.com/v1beta1
kind: DynamoGraphDeployment
metadata:
  name: chat
  namespace: llm
spec:
  components:
  - name: frontend
    type: frontend
    podTemplate:
      spec:
        containers:
        - name: main
          image: registry.example/runtime:1.5.0
  - name: decode
    type: decode
    replicas: 2
    podTemplate:
      spec:
        containers:
        - name: main
          image: registry.example/runtime:1.5.0
          command: ["python3", "-m", "dynamo.vllm"]
          resources:
            limits:
              nvidia.com/gpu: "2"
"""

ANNOTATION = "nvidia.com/dynamo-operator-origin-version"


def _cli() -> list[str]:
    exe = Path(sys.executable).with_name("dynamo-render")
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "plugin"]


def _diff(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*_cli(), "diff", *map(str, args)], capture_output=True, text=True, check=False)


def _json(*args: str | Path) -> tuple[dict[str, Any], str]:
    proc = _diff("-o", "json", *args)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout), proc.stderr


def test_an_unknown_release_is_refused_naming_the_known_ones(tmp_path: Path) -> None:
    dgd = tmp_path / "dgd.yaml"
    dgd.write_text(DGD)
    proc = _diff("--old-operator-release", "1.4.9", dgd)
    assert proc.returncode == 2 and proc.stdout == ""
    assert "--old-operator-release '1.4.9': unknown operator release (known: 2a6da14c8, 1.5.0, 1.5.1)" in proc.stderr
    # a leading v is the release tag's spelling
    proc = _diff("--old-operator-release", "v1.5.0", "--operator-release", "1.5.0", dgd)
    assert proc.returncode == 2 and "the old settings are the new settings" in proc.stderr


def test_the_old_side_renders_under_the_old_release(tmp_path: Path) -> None:
    # explicit roles are a 1.5.0 field: the reference commit refuses them, on whichever side runs it
    for old, new in (("2a6da14c8", "1.5.0"), ("1.5.0", "2a6da14c8")):
        proc = _diff("--old-operator-release", old, "--operator-release", new, ROLES)
        assert proc.returncode == 1, proc.stdout
        assert "roles: not in operator 2a6da14c8; added in 1.5.0 (ai-dynamo/dynamo#14419" in proc.stderr


def test_reference_to_1_5_0_rolls_the_workers_of_a_1_5_runtime_for_the_liveness_threshold(tmp_path: Path) -> None:
    # ai-dynamo/dynamo#13512: a worker on runtime 1.5.0 or later gets liveness failureThreshold 3
    # under 1.5.0. Same names (the worker hash does not cover the probe), so the worker rolls in place.
    dgd = tmp_path / "dgd.yaml"
    dgd.write_text(DGD)
    report, stderr = _json("--old-operator-release", "2a6da14c8", "--operator-release", "1.5.0", dgd)
    assert [(c["action"], c["kind"], c["name"].rsplit("-", 1)[0]) for c in report["changes"]] == [("rolled", "Deployment", "chat-decode")]
    assert report["changes"][0]["podChanges"] == ['container "main": fields changed: livenessProbe']
    assert ANNOTATION not in stderr


def test_reference_to_1_5_0_changes_nothing_on_a_1_4_runtime(tmp_path: Path) -> None:
    dgd = tmp_path / "dgd.yaml"
    dgd.write_text(DGD.replace("runtime:1.5.0", "runtime:1.4.0"))
    report, stderr = _json("--old-operator-release", "2a6da14c8", "--operator-release", "1.5.0", dgd)
    assert report["changes"] == [] and ANNOTATION not in stderr


def test_rendered_objects_follow_the_new_stamp_and_replace_the_workers(tmp_path: Path) -> None:
    dgd = tmp_path / "dgd.yaml"
    dgd.write_text(DGD)
    report, stderr = _json("--old-operator-release", "1.5.0", "--operator-release", "1.5.1", dgd)
    workloads = [c for c in report["changes"] if c["kind"] == "Deployment"]
    assert [(c["action"], c["name"].rsplit("-", 1)[0]) for c in workloads] == [("replaced", "chat-decode")]
    assert workloads[0]["reason"] == "the graph's worker hash changed (its own pod template is otherwise unchanged)"
    assert f"{ANNOTATION} changes 1.5.0 -> 1.5.1: rendered objects are created anew on every render" in stderr


def test_a_graph_the_operator_reconciles_keeps_its_stamp(tmp_path: Path) -> None:
    dgd = tmp_path / "dgd.yaml"
    dgd.write_text(DGD)
    report, stderr = _json("--keep-sources", "--old-operator-release", "1.5.0", "--operator-release", "1.5.1", dgd)
    # No worker renamed, and the kept DGD is as Git holds it (the stamp lives in the cluster).
    assert report["changes"] == []
    assert f"the graphs keep {ANNOTATION} 1.5.0: the operator stamps it only when it creates a graph" in stderr
    # A graph that writes its own stamp keeps it on both sides, in either mode.
    dgd.write_text(DGD.replace("  namespace: llm\n", f"  namespace: llm\n  annotations:\n    {ANNOTATION}: 1.5.0\n"))
    report, _ = _json("--old-operator-release", "1.5.0", "--operator-release", "1.5.1", dgd)
    assert report["changes"] == []
