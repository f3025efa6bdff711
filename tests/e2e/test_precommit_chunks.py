"""``dynamo-validate`` sees the whole file list even when pre-commit splits it.

pre-commit hands a hook its files on the command line. It splits the list into parts (one
process each) for two reasons (pre_commit/xargs.py ``partition``, lang_base.py ``run_xargs``):
parallelism, unless the hook says ``require_serial: true``; and the command-line length limit
(``min(ARG_MAX - 2048 - size of the environment, 128 KiB)``, at least 4 KiB), always. Two files
that render one object in different parts must still be an error naming both.

Small parts are forced with the real pre-commit by giving it a large environment: the limit then
drops to a few KiB of file names. A ``repo: local`` hook with the same file filter counts the
parts pre-commit actually made, so the test proves the split happened.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.e2e.test_precommit import GOOD, _git, _hook_config, _user_repo, hook_repo, pre_commit_home  # noqa: F401 (fixtures)

# Keep pre-commit's command-line limit near this many bytes (it is clamped to at least 4 KiB).
TARGET_LIMIT = 6000
# Under the kernel's limit for one environment string (MAX_ARG_STRLEN, 128 KiB).
PAD_CHUNK = 100_000

COUNTER_HOOK = """\
  - repo: local
    hooks:
      - id: count-parts
        name: count the parts pre-commit makes
        language: system
        entry: {python} -c "import sys; open('parts.log', 'a').write(str(len(sys.argv) - 1) + chr(10))"
        files: \\.(ya?ml|json)$
        require_serial: true
"""


def _padded_environment(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PAD_")}
    env.update({"PRE_COMMIT_HOME": str(home), "PRE_COMMIT_COLOR": "never", "GIT_CONFIG_NOSYSTEM": "1"})
    size = sum(len(k) + len(v) + 2 for k, v in env.items())
    pad = os.sysconf("SC_ARG_MAX") - 2048 - TARGET_LIMIT - size
    for n in range(pad // PAD_CHUNK + 1):
        value = "x" * max(0, min(PAD_CHUNK, pad - n * PAD_CHUNK) - len(f"PAD_{n:03d}") - 2)
        env[f"PAD_{n:03d}"] = value
    return env


def _run_split_list(tmp_path: Path, hook_repo: tuple[Path, str], pre_commit_home: Path, second: str) -> tuple[subprocess.CompletedProcess[str], list[int], int]:
    """pre-commit over a file list long enough to be split: a DCD first, ConfigMaps, ``second`` last.

    Returns the run, the number of files each part of the counting hook saw, and how many
    files the repository holds besides its .pre-commit-config.yaml.
    """
    files = {"deploy/a-first.yaml": GOOD}
    folder = "deploy/" + "long-folder-name-" * 3
    for n in range(240):
        files[f"{folder}/settings-{n:03d}.yaml"] = f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings-{n:03d}\n"
    files["deploy/z-second.yaml"] = second
    config = _hook_config(hook_repo, "      - id: dynamo-validate\n") + COUNTER_HOOK.format(python=sys.executable)
    repo = _user_repo(tmp_path / "user", config, files)
    _git(repo, "commit", "-q", "-m", "manifests")
    done = subprocess.run(
        [sys.executable, "-m", "pre_commit", "run", "--color", "never", "--all-files"],
        cwd=repo, env=_padded_environment(pre_commit_home), check=False, capture_output=True, text=True, timeout=900,
    )
    parts = [int(line) for line in (repo / "parts.log").read_text().split()]
    return done, parts, len(files)


def test_a_clash_across_parts_of_a_split_file_list_is_an_error(tmp_path: Path, hook_repo: tuple[Path, str], pre_commit_home: Path) -> None:
    # the same DCD (name and namespace) in the last file of the list
    done, parts, count = _run_split_list(tmp_path, hook_repo, pre_commit_home, GOOD.replace("replicas: 1", "replicas: 2"))
    # every file once, the .pre-commit-config.yaml included: the list really was split
    assert len(parts) >= 3 and sum(parts) == count + 1, parts
    assert done.returncode == 1, done.stdout + done.stderr
    clash = [line for line in done.stdout.splitlines() if "identity clash" in line]
    assert clash, done.stdout
    assert all("deploy/a-first.yaml" in line and "deploy/z-second.yaml" in line for line in clash), clash
    assert len(clash) == 1, clash


def test_without_a_clash_a_split_file_list_passes(tmp_path: Path, hook_repo: tuple[Path, str], pre_commit_home: Path) -> None:
    """The handoff adds no false clash: a part claims each earlier file once, as its own source."""
    done, parts, _ = _run_split_list(tmp_path, hook_repo, pre_commit_home, GOOD.replace("agg-frontend", "other-frontend"))
    assert len(parts) >= 3, parts
    assert done.returncode == 0, done.stdout + done.stderr
