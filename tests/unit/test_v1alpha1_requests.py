"""DynamoGraphDeploymentRequest conversion both ways, against the operator's own output.

``dgdr.json`` restates api/v1alpha1/dynamographdeploymentrequest_conversion_test.go and
dynamographdeploymentrequest_conversion_bugs_test.go themes (the full alpha and hub fixtures,
hub-only fields through sparse annotations, typed-looking blob values that do not project,
profiler container naming, status phase/state mapping); each input was converted by the
operator's ConvertTo/ConvertFrom, and each output converted back (the ``-back`` cases), so
round trips are checked step by step.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from renderer.conversion.requests import dgdr_to_v1beta1
from tests.reverse_conversion import dgdr_from_v1beta1
from renderer.conversion.shared_from import prune
from renderer.results import RenderError

DATA = json.loads((Path(__file__).resolve().parents[1] / "data" / "v1alpha1_conversion" / "dgdr.json").read_text())
KEYS = ("nvidia.com/dgdr-spec", "nvidia.com/dgdr-status")


def norm(obj: Any) -> Any:
    obj = json.loads(json.dumps(obj))
    anns = (obj.get("metadata") or {}).get("annotations") or {}
    for key in KEYS:
        if key in anns:
            anns[key] = prune(json.loads(anns[key]))
    return prune(obj)


@pytest.mark.parametrize("case", DATA["cases"], ids=[c["name"] for c in DATA["cases"]])
def test_dgdr_conversion(case: dict[str, Any]) -> None:
    if case["direction"] == "to":
        got = dgdr_to_v1beta1(case["input"], api_server_defaults=False)
    else:
        got = dgdr_from_v1beta1(case["input"])
    expected = case["expected"]
    if "status" not in case["input"]:
        # the operator's structs always carry a status; an object without one gets none here
        expected = {k: v for k, v in expected.items() if k != "status"}
    assert norm(got) == norm(expected)


def test_spoke_save_bytes_match_the_operator() -> None:
    case = next(c for c in DATA["cases"] if c["name"] == "alpha-full")
    got = dgdr_to_v1beta1(case["input"], api_server_defaults=False)
    ann = "nvidia.com/dgdr-spec"
    assert got["metadata"]["annotations"][ann] == case["expected"]["metadata"]["annotations"][ann]


def test_invalid_profiling_config() -> None:
    case = DATA["errors"][0]
    with pytest.raises(RenderError) as err:
        dgdr_to_v1beta1(case["input"])
    assert err.value.message == case["error"]
    assert err.value.field == "spec.profilingConfig.config"


def test_api_server_defaults_are_applied_first() -> None:
    obj = {"apiVersion": "nvidia.com/v1alpha1", "kind": "DynamoGraphDeploymentRequest", "metadata": {"name": "d"},
           "spec": {"model": "m", "backend": "vllm", "profilingConfig": {"profilerImage": "i", "configMapRef": {"name": "c"}}}}
    got = dgdr_to_v1beta1(obj)
    saved = json.loads(got["metadata"]["annotations"]["nvidia.com/dgdr-spec"])
    assert saved == {"version": 1, "spec": {"model": "", "backend": "", "profilingConfig": {
        "configMapRef": {"name": "c", "key": "disagg.yaml"}, "profilerImage": ""}, "enableGpuDiscovery": True}}
    assert "status" not in got
    assert obj["spec"]["profilingConfig"]["configMapRef"] == {"name": "c"}
