"""Commands that write files write only where they say, and all or nothing.

- ``hydrate-check --fix SRC ../escape`` would write rendered files outside the repository (a
  pull request's pre-commit config can name any OUTPUT): refused before anything is rendered,
  as is an OUTPUT inside the tree that is a symlink out of it.
- ``convert --in-place`` over two hard links to one file converted the first name, then found
  the second changed on disk and stopped, where the docs promise nothing written on an error:
  a second name of a file already in the run is refused before any file is written (one hard
  link named alone is converted in place, its links kept).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.builders import CHAT_DGD

CLI = str(Path(sys.executable).parent / "dynamo-render")
DGD = CHAT_DGD.format(image="registry.example/runtime:1.5.0")
ROOT = Path(__file__).resolve().parents[2]


def _repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "src").mkdir(parents=True)
    (root / "src" / "chat.yaml").write_text(DGD)
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    return root


def test_hydrate_fix_refuses_an_output_outside_the_repository(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    done = subprocess.run([CLI, "hydrate-check", "--fix", "src", "../escape"], cwd=root, capture_output=True, text=True, check=False)
    assert done.returncode == 1
    assert done.stdout.strip().endswith("--fix writes only inside it [input]") and "leads outside the repository" in done.stdout
    assert not (tmp_path / "escape").exists()


def test_hydrate_fix_refuses_an_output_that_is_a_symlink_out_of_the_repository(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    (tmp_path / "elsewhere").mkdir()
    (root / "hydrated").symlink_to(tmp_path / "elsewhere")
    done = subprocess.run([CLI, "hydrate-check", "--fix", "src", "hydrated"], cwd=root, capture_output=True, text=True, check=False)
    assert done.returncode == 1 and "hydrated: [error]: hydrated is a symlink; nothing is written through it" in done.stdout, done.stdout
    assert list((tmp_path / "elsewhere").iterdir()) == []


def test_hydrate_fix_still_writes_inside_the_repository(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    done = subprocess.run([CLI, "hydrate-check", "--fix", "src", "hydrated"], cwd=root, capture_output=True, text=True, check=False)
    assert done.returncode == 1, done.stdout  # files were written: --fix exits 1 when anything changed
    assert list((root / "hydrated").rglob("*.yaml"))


def test_convert_in_place_over_two_hard_links_writes_nothing(tmp_path: Path) -> None:
    alpha = (ROOT / "tests" / "golden" / "v1alpha1" / "dcd-single-node" / "input.yaml").read_text()
    first = tmp_path / "a.yaml"
    first.write_text(alpha)
    second = tmp_path / "b.yaml"
    os.link(first, second)
    done = subprocess.run([CLI, "convert", "--in-place", str(first), str(second)], capture_output=True, text=True, check=False)
    assert done.returncode == 1
    errors = [line for line in done.stderr.strip().splitlines() if "[error]" in line]
    assert len(errors) == 1 and f"is the same file as {first} (a hard link)" in errors[0] and errors[0].endswith("[input]"), errors
    assert first.read_text() == alpha and os.stat(first).st_ino == os.stat(second).st_ino
