"""``diff`` pairs the workloads that serve one graph component, through real git, as a pull request is reviewed.

Each case is a repository with a base commit and a head commit (the change under review), reported
by ``dynamo-render diff --base`` and by the PR reporter (``python -m plugin.pr_report``, and the
action's own shell step for the settings-only case):

- a Grove switch (the DGD drops ``nvidia.com/enable-grove: "false"`` under an operator
  configuration that enables Grove; or, settings only, the operator configuration enables it):
  every Deployment is one ``replaced`` entry naming the PodCliqueSet clique that takes its pods,
  with the reason, the frontend Service says its pods are replaced, and ``--fail-on-replace``
  fails;
- a multinode switch (``multinode.nodeCount: 2``, in the DGD, or set by a kustomize overlay's
  patch with both revisions built by kustomize): the Deployment is replaced by a
  LeaderWorkerSet, its GPUs and pods doubling, and the worker's Service follows it;
- an image bump on a 16-GPU graph (prefill and decode, 8 GPUs each): both workers are replaced
  (the graph has one worker hash), the prefill because the hash changed elsewhere, and the
  peak a sync needs is 16 GPUs over today's (new pods start before the old are pruned);
- a component renamed, the only one of its type: replaced with the old and new names; two
  renamed at once are not guessed at.

Expected values follow the operator's behaviour the renders already mirror (a DGD on the Grove
pathway is one PodCliqueSet with a clique per component; a multinode component under the LWS
pathway is a LeaderWorkerSet of ``nodeCount`` pods per replica) and Argo CD's PruneLast order
(every new object applied before anything is pruned), not the report's own output.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any


ROOT = Path(__file__).resolve().parents[2]

OPERATOR = """\
apiVersion: operator.config.dynamo.nvidia.com/v1alpha1
kind: OperatorConfiguration
namespace:
  restricted: llm
mpi:
  sshSecretName: mpi-run-ssh-secret
  sshSecretNamespace: dynamo-system
"""
GROVE_ON = OPERATOR + "orchestrators:\n  grove:\n    enabled: true\n"

WORKER = """\
  - name: {name}
    type: {type}
    replicas: {replicas}
{multinode}    podTemplate:
      spec:
        containers:
        - name: main
          image: {image}
          command: ["python3", "-m", "dynamo.vllm"]
          args: ["--model", "Qwen/Qwen3-0.6B"]
          resources:
            limits:
              nvidia.com/gpu: "{gpus}"
"""


def _dgd(*workers: str, annotations: str = "") -> str:
    return f"""\
apiVersion: nvidia.com/v1beta1
kind: DynamoGraphDeployment
metadata:
  name: chat
  namespace: llm
{annotations}spec:
  components:
  - name: frontend
    type: frontend
    podTemplate:
      spec:
        containers:
        - name: main
          image: registry.example/runtime:1.5.0
""" + "".join(workers)


def _worker(name: str = "decode", type: str = "decode", replicas: int = 2, gpus: int = 2,
            image: str = "registry.example/runtime:1.5.0", nodes: int | None = None) -> str:
    multinode = f"    multinode:\n      nodeCount: {nodes}\n" if nodes else ""
    return WORKER.format(name=name, type=type, replicas=replicas, gpus=gpus, image=image, multinode=multinode)


OPT_OUT = '  annotations:\n    nvidia.com/enable-grove: "false"\n'


def _cli() -> list[str]:
    exe = Path(sys.executable).with_name("dynamo-render")
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "plugin"]


def _git(repo: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
    return subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True, text=True).stdout.strip()


def _repo(tmp_path: Path, base: dict[str, str], head: dict[str, str]) -> tuple[Path, str]:
    """A repository: ``base`` files committed, then ``head`` files committed over them; returns it and the base commit."""
    root = tmp_path / "repo"
    root.mkdir()
    _git(root, "init", "-q", "-b", "main")
    for files in (base, head):
        for rel, text in files.items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(text)
        _git(root, "add", "-A")
        _git(root, "commit", "-qm", "change")
    return root, _git(root, "rev-parse", "HEAD~1")


def _diff(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*_cli(), "diff", *args], cwd=repo, capture_output=True, text=True, check=False)


def _json(repo: Path, *args: str) -> dict[str, Any]:
    proc = _diff(repo, "-o", "json", *args)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def _report(repo: Path, base: str, summary: Path, *args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "plugin.pr_report", "--base", base, "--no-comment", "--summary", str(summary), *args]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(command, cwd=repo, env=env, capture_output=True, text=True, check=False)


def _workloads(report: dict[str, Any]) -> list[dict[str, Any]]:
    return [c for c in report["changes"] if c["kind"] in ("Deployment", "LeaderWorkerSet", "PodCliqueSet")]


def _assert_grove_switch(report: dict[str, Any]) -> None:
    workloads = {c.get("replacedByClique"): c for c in _workloads(report)}
    assert set(workloads) == {"frontend", "decode"}
    for clique, change in workloads.items():
        assert change["action"] == "replaced", change
        assert change["kind"] == "Deployment" and change["replacedByKind"] == "PodCliqueSet"
        assert change["replacedBy"] == "chat"
        assert change["reason"] == "the graph moved to the Grove pathway"
    assert workloads["frontend"]["name"] == "chat-frontend" and workloads["frontend"]["pods"] == {"before": 1, "after": 1}
    assert re.fullmatch(r"chat-decode-[0-9a-f]{8}", workloads["decode"]["name"])
    # 2 replicas of 2 GPUs on both pathways
    assert workloads["decode"]["gpus"] == {"before": 4, "after": 4}
    assert workloads["decode"]["pods"] == {"before": 2, "after": 2}
    # No workload reads as removed or added: the PodCliqueSet is the replacement.
    assert report["summary"]["added"] == 0 or all(c["kind"] not in ("PodCliqueSet", "Deployment") for c in report["changes"] if c["action"] == "added")
    assert not [c for c in report["changes"] if c["action"] == "removed" and c["kind"] == "Deployment"]
    services = {c["name"]: c for c in report["changes"] if c["kind"] == "Service"}
    # The frontend Service stays, its pods do not: it never reads "no pod restart".
    assert services["chat-frontend"]["action"] == "changed"
    assert services["chat-frontend"]["reason"] == "the pods it selects are replaced (the graph moved to the Grove pathway)"
    decode_service = next(c for name, c in services.items() if name.startswith("chat-decode-"))
    assert decode_service["action"] == "replaced" and decode_service["replacedBy"] == "chat-decode"
    # Old Deployments and the new PodCliqueSet at once: 4 GPUs and 3 pods on each side.
    assert (report["gpus"]["before"], report["gpus"]["after"], report["gpus"]["peak"]) == (4, 4, 8)
    assert (report["pods"]["before"], report["pods"]["after"], report["pods"]["peak"]) == (3, 3, 6)
    assert report["replacedWorkloads"] == 2


def test_grove_switch_by_the_dgd_annotation(tmp_path: Path) -> None:
    repo, base = _repo(
        tmp_path,
        {"operator-config.yaml": GROVE_ON, "apps/chat/dgd.yaml": _dgd(_worker(), annotations=OPT_OUT)},
        {"apps/chat/dgd.yaml": _dgd(_worker())},
    )
    report = _json(repo, "--base", base, "--operator-config", "operator-config.yaml", "apps/chat")
    _assert_grove_switch(report)
    text = _diff(repo, "--base", base, "--operator-config", "operator-config.yaml", "apps/chat").stdout
    assert re.search(
        r"^replaced  Deployment llm/chat-decode-[0-9a-f]{8} -> PodCliqueSet chat \(clique decode\)  \(4 GPUs, pods 2\): "
        r"the graph moved to the Grove pathway$", text, flags=re.M,
    ), text
    assert "peak during the sync: 8 GPUs (+4 over today), 6 pods" in text
    assert "2 workload(s) replaced" in text
    assert "no pod restart" not in _diff(repo, "--base", base, "-o", "markdown", "--operator-config", "operator-config.yaml", "apps/chat").stdout
    done = _report(repo, base, tmp_path / "s.md", "--fail-on-replace", "apps/chat", "--", "--operator-config", "operator-config.yaml")
    assert done.returncode == 1, done.stderr
    assert re.search(r"error: the change replaces 3 object\(s\): Deployment/chat-decode-[0-9a-f]{8}, Deployment/chat-frontend, Service/chat-decode-", done.stderr), done.stderr
    summary = (tmp_path / "s.md").read_text()
    assert "replaced because the graph moved to the Grove pathway" in summary


def _action_step(repo: Path, base: str, tmp_path: Path, options: str, **inputs: str) -> tuple[subprocess.CompletedProcess[str], str]:
    """The action's steps as the runner runs them (tests/e2e/test_pr_report.py), its inputs as given, no comment posted."""
    from tests.e2e.test_pr_report import _run_action

    summary = tmp_path / "summary.md"
    summary.unlink(missing_ok=True)
    values = {"base": base, "paths": "apps/chat\n", "diff-options": options, "comment": "false", **inputs}
    done = _run_action(repo, tmp_path / "runner", values, {"GITHUB_STEP_SUMMARY": str(summary)})
    return done, summary.read_text() if summary.exists() else ""


def test_a_settings_only_pr_through_the_action_reports_the_grove_switch(tmp_path: Path) -> None:
    # The pull request changes only the operator configuration: Grove goes on.
    repo, base = _repo(
        tmp_path,
        {"operator-config.yaml": OPERATOR, "apps/chat/dgd.yaml": _dgd(_worker())},
        {"operator-config.yaml": GROVE_ON},
    )
    report = _json(repo, "--base", base, "--operator-config", "operator-config.yaml", "apps/chat")
    _assert_grove_switch(report)
    done, summary = _action_step(repo, base, tmp_path, "--operator-config operator-config.yaml", **{"fail-on-replace": "true"})
    assert done.returncode == 1, done.stderr
    assert "error: the change replaces 3 object(s)" in done.stderr
    assert "replaced because the graph moved to the Grove pathway" in summary
    # The work tree's settings on both sides: the manifests did not change, so nothing does.
    done, summary = _action_step(
        repo, base, tmp_path, "--operator-config operator-config.yaml",
        **{"fail-on-replace": "true", "settings-from-worktree": "true"},
    )
    assert done.returncode == 0, done.stderr
    assert "No change to rendered objects." in summary
    proc = _diff(repo, "--base", base, "--settings-from-worktree", "--operator-config", "operator-config.yaml", "apps/chat")
    assert proc.returncode == 0 and proc.stdout.startswith("no changes"), proc.stderr


def test_a_settings_file_new_in_the_pr_leaves_the_base_side_without_it(tmp_path: Path) -> None:
    repo, base = _repo(tmp_path, {"apps/chat/dgd.yaml": _dgd(_worker())}, {"operator-config.yaml": GROVE_ON})
    proc = _diff(repo, "-o", "json", "--base", base, "--operator-config", "operator-config.yaml", "apps/chat")
    assert proc.returncode == 0, proc.stderr
    assert f"--operator-config operator-config.yaml is not in revision {base}: the base side is rendered without it" in proc.stderr
    assert json.loads(proc.stdout)["replacedWorkloads"] == 2


def test_settings_from_worktree_needs_base(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text(_dgd(_worker()))
    proc = _diff(tmp_path, "--settings-from-worktree", "a.yaml", "a.yaml")
    assert proc.returncode == 2 and "--settings-from-worktree applies to --base REV only" in proc.stderr


def test_multinode_switch_replaces_the_deployment_by_a_leaderworkerset(tmp_path: Path) -> None:
    repo, base = _repo(tmp_path, {"apps/chat/dgd.yaml": _dgd(_worker())}, {"apps/chat/dgd.yaml": _dgd(_worker(nodes=2))})
    report = _json(repo, "--base", base, "apps/chat")
    (change,) = _workloads(report)
    assert change["action"] == "replaced" and change["kind"] == "Deployment"
    assert change["replacedByKind"] == "LeaderWorkerSet" and change["replacedBy"].startswith("chat-decode-")
    assert change["reason"] == "the component became multinode"
    # 2 replicas of one 2-GPU pod -> 2 replicas of a 2-pod group of 2-GPU pods
    assert change["gpus"] == {"before": 4, "after": 8} and change["pods"] == {"before": 2, "after": 4}
    assert (report["gpus"]["before"], report["gpus"]["after"], report["gpus"]["peak"]) == (4, 8, 12)
    assert report["replacedWorkloads"] == 1
    services = [c for c in report["changes"] if c["kind"] == "Service"]
    assert [(c["action"], c["reason"]) for c in services] == [("replaced", "the component became multinode")]


def test_image_bump_on_a_16_gpu_graph_needs_16_more_gpus_at_the_peak(tmp_path: Path) -> None:
    def graph(decode_image: str) -> str:
        return _dgd(_worker("prefill", "prefill", replicas=2, gpus=4), _worker("decode", "decode", replicas=2, gpus=4, image=decode_image))

    repo, base = _repo(
        tmp_path, {"apps/chat/dgd.yaml": graph("registry.example/runtime:1.5.0")},
        {"apps/chat/dgd.yaml": graph("registry.example/runtime:1.5.1")},
    )
    report = _json(repo, "--base", base, "apps/chat")
    workloads = {c["name"].rsplit("-", 1)[0]: c for c in _workloads(report)}
    assert set(workloads) == {"chat-prefill", "chat-decode"}
    assert all(c["action"] == "replaced" and c["gpus"] == {"before": 8, "after": 8} for c in workloads.values())
    # The decode worker changed: its image is the one pod change (no hash label, selector or suffix echo).
    assert workloads["chat-decode"]["reason"] == "the graph's worker hash changed"
    assert workloads["chat-decode"]["podChanges"] == [
        'container "main": image "registry.example/runtime:1.5.0" -> "registry.example/runtime:1.5.1"'
    ]
    # The prefill worker did not: only the graph's worker hash replaces it.
    assert workloads["chat-prefill"]["reason"] == "the graph's worker hash changed (its own pod template is otherwise unchanged)"
    assert "podChanges" not in workloads["chat-prefill"]
    assert (report["gpus"]["before"], report["gpus"]["after"], report["gpus"]["peak"]) == (16, 16, 32)
    text = _diff(repo, "--base", base, "apps/chat").stdout
    assert "peak during the sync: 32 GPUs (+16 over today)" in text
    assert "so 16 more GPUs must be free or the new pods stay Pending" in text
    assert "DYN_NAMESPACE_WORKER_SUFFIX" not in text and "dynamo-worker-hash" not in text


def test_a_renamed_component_is_replaced_when_the_pairing_is_certain(tmp_path: Path) -> None:
    repo, base = _repo(
        tmp_path, {"apps/chat/dgd.yaml": _dgd(_worker("decode"))}, {"apps/chat/dgd.yaml": _dgd(_worker("worker"))},
    )
    report = _json(repo, "--base", base, "apps/chat")
    (change,) = _workloads(report)
    assert change["action"] == "replaced" and change["name"].startswith("chat-decode-") and change["replacedBy"].startswith("chat-worker-")
    assert change["reason"] == "the component was renamed (decode -> worker)"
    services = [c for c in report["changes"] if c["kind"] == "Service"]
    assert [c["action"] for c in services] == ["replaced"]


def test_two_components_of_one_type_renamed_at_once_are_not_paired(tmp_path: Path) -> None:
    repo, base = _repo(
        tmp_path,
        {"apps/chat/dgd.yaml": _dgd(_worker("decode-a"), _worker("decode-b"))},
        {"apps/chat/dgd.yaml": _dgd(_worker("decode-c"), _worker("decode-d"))},
    )
    report = _json(repo, "--base", base, "apps/chat")
    assert sorted(c["action"] for c in _workloads(report)) == ["added", "added", "removed", "removed"]
    assert report["replacedWorkloads"] == 0


def test_multinode_switch_set_by_a_kustomize_overlay(tmp_path: Path) -> None:
    """The overlay's JSON 6902 patch makes the worker multinode; the base revision is built by kustomize too."""
    overlay = "resources:\n- ../../base\n"
    patch = (
        "patches:\n- target:\n    kind: DynamoGraphDeployment\n    name: chat\n  patch: |-\n"
        "    - op: add\n      path: /spec/components/1/multinode\n      value:\n        nodeCount: 2\n"
    )
    repo, base = _repo(
        tmp_path,
        {"base/dgd.yaml": _dgd(_worker()), "base/kustomization.yaml": "resources:\n- dgd.yaml\n",
         "apps/prod/kustomization.yaml": overlay},
        {"apps/prod/kustomization.yaml": overlay + patch},
    )
    report = _json(repo, "--base", base, "apps/prod")
    (change,) = _workloads(report)
    assert (change["action"], change["replacedByKind"], change["reason"]) == ("replaced", "LeaderWorkerSet", "the component became multinode")
    assert change["gpus"] == {"before": 4, "after": 8}
    assert (report["gpus"]["before"], report["gpus"]["after"], report["gpus"]["peak"]) == (4, 8, 12)
