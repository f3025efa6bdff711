"""Identity clashes through the real kpt: the losing file is never deleted from disk.

Two files of a kpt package that hold the same DCD (name and namespace) would render the same
objects. The function fails with an error naming both files and returns every item unchanged,
so ``kpt fn eval`` writes nothing: both files stay on disk byte for byte (issue 18: the first
source read used to win and kpt deleted the other file).
"""

from __future__ import annotations

from pathlib import Path

from tests.e2e.test_krm import BIN, KPTFILE, _run, _snapshot, env  # noqa: F401 (env is a fixture)

DCD = """\
apiVersion: nvidia.com/v1beta1
kind: DynamoComponentDeployment
metadata:
  name: front
  namespace: llm
spec:
  type: frontend
  replicas: {replicas}
  podTemplate:
    spec:
      containers:
      - name: main
        image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.3.0
"""


def test_kpt_fn_eval_with_two_files_of_one_dcd_fails_and_deletes_nothing(env: dict[str, str], tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "Kptfile").write_text(KPTFILE.format(name="pkg"))
    (pkg / "a.yaml").write_text(DCD.format(replicas=1))
    (pkg / "b.yaml").write_text(DCD.format(replicas=2))
    before = _snapshot(pkg)
    done = _run(["kpt", "fn", "eval", str(pkg), "--exec", str(BIN / "dynamo-render-krm")], env)
    assert done.returncode != 0, done.stdout + done.stderr
    assert _snapshot(pkg) == before
    lines = [line for line in (done.stdout + done.stderr).splitlines() if "identity clash" in line]
    assert lines and all("a.yaml" in line and "b.yaml" in line for line in lines), done.stdout + done.stderr
