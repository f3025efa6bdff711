"""Origin-version gate and its semver parsing.

Restates: internal/features/compatibility/operator_origin_test.go (TestGateEnabled,
TestGateDifferentThresholds) and the Masterminds/semver v3.4.0 NewVersion / Compare rules
the gate relies on (loose parsing, pre-release precedence).
"""

from __future__ import annotations

import pytest

from renderer import consts
from renderer.pod.backends.compat import (
    VLLM_MULTIPROCESSING_MIN_ORIGIN,
    Version,
    compare_versions,
    origin_version_at_least,
    parse_version,
)

ORIGIN = consts.ANNOTATION_OPERATOR_ORIGIN_VERSION


@pytest.mark.parametrize(
    ("annotations", "expected"),
    [
        ({}, False),
        ({ORIGIN: "0.9.0"}, False),
        ({ORIGIN: "1.0.0"}, True),
        ({ORIGIN: "2.0.0"}, True),
        ({ORIGIN: "0.9.0-dev"}, False),
        ({ORIGIN: "not-a-version"}, False),
        ({ORIGIN: "0.0.0-unknown"}, False),
        ({"some.other/annotation": "value"}, False),
        # Pre-releases of the threshold sort before it.
        ({ORIGIN: "1.0.0-rc1"}, False),
        ({ORIGIN: "1.4.0-dev.3"}, True),
        # Coercing parse: v prefix, missing parts, leading zeros, build metadata.
        ({ORIGIN: "v1.0.0"}, True),
        ({ORIGIN: "1"}, True),
        ({ORIGIN: "1.2"}, True),
        ({ORIGIN: "01.0.0"}, True),
        ({ORIGIN: "1.0.0+build.5"}, True),
        # Rejected forms.
        ({ORIGIN: ""}, False),
        ({ORIGIN: " 1.0.0"}, False),
        ({ORIGIN: "1.0.0\n"}, False),
        ({ORIGIN: "1.0.0-01"}, False),
        ({ORIGIN: "1.0.0-a..b"}, False),
        ({ORIGIN: "1.0.0+"}, False),
        ({ORIGIN: "18446744073709551616.0.0"}, False),
    ],
)
def test_vllm_multiprocessing_gate(annotations: dict[str, str], expected: bool) -> None:
    assert origin_version_at_least(annotations, VLLM_MULTIPROCESSING_MIN_ORIGIN) is expected


@pytest.mark.parametrize(
    ("minimum", "expected"), [(Version(0, 8, 0), True), (Version(0, 9, 0), True), (Version(1, 0, 0), False)]
)
def test_gate_thresholds(minimum: Version, expected: bool) -> None:
    assert origin_version_at_least({ORIGIN: "0.9.0"}, minimum) is expected


def test_parse_version() -> None:
    assert parse_version("v2.3") == Version(2, 3, 0)
    assert parse_version("1.2.3-alpha.1+meta") == Version(1, 2, 3, "alpha.1")
    assert parse_version("1.2.3.4") is None


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        ("1.0.0", "1.0.0", 0),
        ("1.0.0+a", "1.0.0+b", 0),
        ("1.0.1", "1.0.0", 1),
        ("1.1.0", "1.2.0", -1),
        ("1.0.0-alpha", "1.0.0", -1),
        ("1.0.0", "1.0.0-alpha", 1),
        ("1.0.0-alpha", "1.0.0-alpha.1", -1),
        ("1.0.0-alpha.1", "1.0.0-alpha", 1),
        ("1.0.0-alpha.1", "1.0.0-alpha.beta", -1),
        ("1.0.0-beta.11", "1.0.0-beta.2", 1),
        ("1.0.0-beta", "1.0.0-alpha", 1),
        ("1.0.0-rc.1", "1.0.0-rc.1", 0),
        ("1.0.0-2", "1.0.0-10", -1),
        ("1.0.0-x", "1.0.0-1", 1),
    ],
)
def test_compare_versions(a: str, b: str, expected: int) -> None:
    va, vb = parse_version(a), parse_version(b)
    assert va is not None and vb is not None
    assert compare_versions(va, vb) == expected
