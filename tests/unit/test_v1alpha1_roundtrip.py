"""Round trips through both directions of the DCD/DGD conversion, as upstream tests them.

- hub origin (every v1beta1 input V): ``to(from(V))`` equals what the operator's own
  ConvertTo(ConvertFrom(V)) gives, which is V itself except where the operator's round trip
  is knowingly lossy (those cases store the operator's result);
- spoke origin (every v1alpha1 corpus object A): ``from(to(A))`` equals the operator's
  ConvertFrom(ConvertTo(A)).

Restates the RoundTrip / Intermediate* / JSONRoundTrip_Bytes themes of
api/v1alpha1/dynamo{component,graph}deployment_conversion_test.go and the *_bugs_test.go files,
on the themed cases and on every DCD/DGD of tests/data/corpus.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from renderer.conversion.from_v1beta1 import dcd_from_v1beta1, dgd_from_v1beta1
from renderer.conversion.shared_from import prune

to_v1beta1 = pytest.importorskip(
    "renderer.conversion.to_v1beta1", reason="the v1alpha1 -> v1beta1 direction is not on this branch yet"
)

DATA = Path(__file__).resolve().parents[1] / "data"
HUB = json.loads((DATA / "v1alpha1_conversion" / "hub_roundtrip.json").read_text())
SPOKE = [c for c in json.loads((DATA / "v1alpha1_conversion" / "corpus_from.json").read_text()) if "beta" in c]
KEYS = ("nvidia.com/dcd-spec", "nvidia.com/dcd-status", "nvidia.com/dgd-spec", "nvidia.com/dgd-status")


def norm(obj: Any) -> Any:
    obj = json.loads(json.dumps(obj))
    anns = (obj.get("metadata") or {}).get("annotations") or {}
    for key in KEYS:
        if key in anns:
            anns[key] = prune(json.loads(anns[key]))
    return prune(obj)


def from_beta(obj: dict[str, Any]) -> dict[str, Any]:
    return dgd_from_v1beta1(obj) if obj["kind"] == "DynamoGraphDeployment" else dcd_from_v1beta1(obj)


def to_beta(obj: dict[str, Any]) -> dict[str, Any]:
    fn = to_v1beta1.dgd_to_v1beta1 if obj["kind"] == "DynamoGraphDeployment" else to_v1beta1.dcd_to_v1beta1
    result: dict[str, Any] = fn(obj)
    return result


def _corpus_doc(ref: str) -> dict[str, Any]:
    name, _, index = ref.partition("#")
    docs = list(yaml.safe_load_all((DATA / "corpus" / name).read_text(encoding="utf-8")))
    doc: dict[str, Any] = json.loads(json.dumps(docs[int(index)], default=str))
    return doc


@pytest.mark.parametrize("case", HUB, ids=[c["name"] for c in HUB])
def test_hub_origin_round_trip(case: dict[str, Any]) -> None:
    source = case["input"] if "input" in case else _corpus_doc(case["name"].removeprefix("corpus:"))
    back = to_beta(from_beta(source))
    expected = source if case.get("identity") else case["back"]
    assert norm(back) == norm(expected)


def test_most_hub_round_trips_are_the_identity() -> None:
    assert sum(1 for c in HUB if c.get("identity")) >= 250


@pytest.mark.parametrize("case", SPOKE, ids=[f'{c["file"]}#{c["doc"]}' for c in SPOKE])
def test_spoke_origin_round_trip(case: dict[str, Any]) -> None:
    alpha = _corpus_doc(f'{case["file"]}#{case["doc"]}')
    assert norm(from_beta(to_beta(alpha))) == norm(case["alpha"])
