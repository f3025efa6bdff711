"""v1alpha1 -> v1beta1 conversion (the webhook's ConvertTo) of DCDs and DGDs.

Expected values are restated from the operator's conversion tests
(api/v1alpha1/*_conversion_test.go, *_conversion_bugs_test.go,
conversion_field_coverage_test.go) or were produced by the operator's own ConvertTo at the
pinned commit (the JSON fixtures under tests/data/v1alpha1_to, each naming its source).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from renderer.admission.v1alpha1.to_v1beta1 import dcd_to_v1beta1, dgd_to_v1beta1
from renderer.results import RenderError

FIXTURES = Path(__file__).resolve().parent.parent / "data" / "v1alpha1_to"


def _convert(obj: dict[str, Any]) -> dict[str, Any]:
    if obj["kind"] == "DynamoComponentDeployment":
        return dcd_to_v1beta1(obj)
    return dgd_to_v1beta1(obj)


def _fixture_cases() -> list[Any]:
    files = sorted(FIXTURES.glob("*.json"))
    assert files, "no conversion fixtures found"
    return [pytest.param(json.loads(f.read_text()), id=f.stem) for f in files]


@pytest.mark.parametrize("case", _fixture_cases())
def test_operator_output_fixtures(case: dict[str, Any]) -> None:
    before = copy.deepcopy(case["input"])
    got = _convert(case["input"])
    assert case["input"] == before, "the input was modified"
    assert json.dumps(got, sort_keys=True, indent=1) == json.dumps(case["expected"], sort_keys=True, indent=1)
