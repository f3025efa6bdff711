"""The DGD golden cases' worker hashes, re-derived from the Go JSON each case writes out by hand.

A DGD case that names worker DCDs carries ``workerHash`` and ``workerHashJSON`` in its
case.yaml: the exact bytes ``ComputeDGDWorkersSpecHash`` hashes (internal/dynamo/hash.go), written
from the Go types, not printed by the renderer. This test checks the digest of those bytes, that
the renderer's own worker-hash JSON for the case's input is the same text, and that the expected
output uses the hash as the worker DCD name suffix.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import pytest
import yaml

from plugin.settings import resolve_settings
from renderer import consts
from renderer.graph.dgd import WORKER_HASH_PLACEHOLDER
from renderer.graph.dgd_parse import parse_dgd
from renderer.graph.gohash import worker_hash_json
from renderer.graph.program import worker_templates

CASES_DIR = Path(__file__).resolve().parents[1] / "golden" / "dgd"


def _cases() -> list[Path]:
    out = []
    for case in sorted(CASES_DIR.glob("*/case.yaml")):
        meta = yaml.safe_load(case.read_text()) or {}
        if "workerHashJSON" in meta:
            out.append(case.parent)
    return out


CASES = _cases()


def test_some_cases_carry_a_hand_derived_hash() -> None:
    assert CASES, "no DGD golden case carries workerHashJSON"


def _renderer_hash_json(case: Path, namespace: str) -> str:
    config = case / "config.yaml"
    given = {"config": str(config), "namespace": namespace} if config.exists() else {"namespace": namespace}
    settings, problems = resolve_settings(given)
    assert settings is not None, problems
    doc = next(d for d in yaml.safe_load_all((case / "input.yaml").read_text()) if d and d.get("kind") == consts.DGD_KIND)
    dgd, results = parse_dgd(doc, settings.namespace, settings.config)
    assert dgd is not None, [str(r) for r in results]
    return worker_hash_json(worker_templates(dgd, settings.config))


def _names(path: Path) -> list[Any]:
    return [((d or {}).get("metadata") or {}).get("name") for d in yaml.safe_load_all(path.read_text())]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_hand_derived_worker_hash(case: Path) -> None:
    meta = yaml.safe_load((case / "case.yaml").read_text())
    expected_json: str = meta["workerHashJSON"]
    worker_hash: str = meta["workerHash"]
    assert hashlib.sha256(expected_json.encode("utf-8")).hexdigest()[:8] == worker_hash
    assert _renderer_hash_json(case, meta.get("namespace") or "default") == expected_json
    assert WORKER_HASH_PLACEHOLDER in expected_json
    if (case / "output.yaml").exists():
        assert any(isinstance(n, str) and n.endswith(f"-{worker_hash}") for n in _names(case / "output.yaml"))
