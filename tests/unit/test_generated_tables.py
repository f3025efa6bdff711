"""The generated Go type tables are fresh: regenerated from pinned sources, or checked by checksum.

``renderer/gocompat/k8s_types.py`` and ``dynamo_types.py`` are written by ``tools/gen_gotypes.py``
and never edited by hand. Where the pinned k8s.io modules are in the Go module cache
(``GOMODCACHE``, else ``~/go/pkg/mod``), k8s_types.py is regenerated and compared byte for byte;
``.ci/run`` fills the cache from the Go module proxy, and under CI a missing module fails the test
instead of skipping it. dynamo_types.py reads the operator's own API sources at the reference
commit, which no module proxy serves, so it is held by the checksum alone.
Everywhere, ``tools/gotypes.sha256`` pins the generator and both tables: a change to the
generator without regenerating, or a hand edit of a table, fails here. After regenerating (the
commands are in the tool's docstring), record the new state with

    sha256sum tools/gen_gotypes.py renderer/gocompat/k8s_types.py renderer/gocompat/dynamo_types.py > tools/gotypes.sha256
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHECKSUMS = ROOT / "tools" / "gotypes.sha256"
K8S_VERSION = "v0.36.2"


def _recorded() -> dict[str, str]:
    pairs = (line.split() for line in CHECKSUMS.read_text().splitlines() if line.strip())
    return {path: digest for digest, path in pairs}


def test_generator_and_tables_match_the_recorded_checksums() -> None:
    recorded = _recorded()
    assert set(recorded) == {"tools/gen_gotypes.py", "renderer/gocompat/k8s_types.py", "renderer/gocompat/dynamo_types.py"}
    stale = [path for path, digest in recorded.items() if hashlib.sha256((ROOT / path).read_bytes()).hexdigest() != digest]
    assert not stale, f"changed since the tables were generated: {stale}; regenerate them and update {CHECKSUMS.name} (see this module)"


def _module_cache() -> Path:
    return Path(os.environ.get("GOMODCACHE") or Path.home() / "go" / "pkg" / "mod")


def test_k8s_types_regenerate_byte_for_byte(tmp_path: Path) -> None:
    cache = _module_cache()
    core = cache / f"k8s.io/api@{K8S_VERSION}" / "core" / "v1"
    meta = cache / f"k8s.io/apimachinery@{K8S_VERSION}" / "pkg" / "apis" / "meta" / "v1"
    if not (core.is_dir() and meta.is_dir()):
        assert not os.environ.get("CI"), f"k8s.io/api and apimachinery {K8S_VERSION} must be in the Go module cache under CI (.ci/run downloads them)"
        pytest.skip(f"k8s.io/api and apimachinery {K8S_VERSION} are not in the Go module cache (the checksum test covers it)")
    out = tmp_path / "k8s_types.py"
    subprocess.run(
        [sys.executable, str(ROOT / "tools" / "gen_gotypes.py"), "--core", str(core), "--meta", str(meta),
         "--api-version", K8S_VERSION, "--apimachinery-version", K8S_VERSION, "-o", str(out)],
        check=True,
    )
    assert out.read_bytes() == (ROOT / "renderer" / "gocompat" / "k8s_types.py").read_bytes()
