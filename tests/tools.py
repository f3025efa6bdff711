"""Finding the real tools the end-to-end tests run."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

# The standalone kustomize the tests need (exec KRM functions; kubectl's embedded one skips them):
# the version the image ships, the one Argo CD v3.5.1 bundles.
KUSTOMIZE_MODULE = "sigs.k8s.io/kustomize/kustomize/v5"
KUSTOMIZE_VERSION = "v5.8.1"
INSTALL_HINT = f"go install {KUSTOMIZE_MODULE}@{KUSTOMIZE_VERSION} (.ci/run does this)"


def _go_bin() -> Path | None:
    gobin = os.environ.get("GOBIN")
    if gobin:
        return Path(gobin)
    go = shutil.which("go") or (os.path.isfile("/usr/local/go/bin/go") and "/usr/local/go/bin/go") or None
    if go:
        done = subprocess.run([go, "env", "GOPATH"], capture_output=True, text=True, check=False, timeout=60)
        if done.returncode == 0 and done.stdout.strip():
            return Path(done.stdout.strip().split(os.pathsep)[0]) / "bin"
    return Path.home() / "go" / "bin"


def standalone_kustomize() -> str:
    """The standalone kustomize binary: on PATH, else where ``go install`` puts it. Never skipped."""
    found = shutil.which("kustomize")
    if found:
        return found
    go_bin = _go_bin()
    if go_bin is not None and (go_bin / "kustomize").is_file():
        return str(go_bin / "kustomize")
    raise AssertionError(f"standalone kustomize is required for these tests and was not found; install it with {INSTALL_HINT}")
