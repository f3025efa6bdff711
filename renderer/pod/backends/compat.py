"""Behaviour gated on the operator version that first created a resource.

The operator stamps ``nvidia.com/dynamo-operator-origin-version`` on a graph at creation and
never changes it; new defaults apply only to resources created by a new enough operator.
The version is parsed the way Masterminds/semver v3.4.0 ``NewVersion`` does (coercing: an
optional ``v``, missing minor or patch allowed, leading zeros tolerated) and compared with
semver precedence (a pre-release sorts before its release).

Mirrors: internal/features/compatibility/operator_origin.go Gate.Enabled,
internal/features/compatibility/gates.go VLLMMultiprocessing.
"""

from __future__ import annotations

import re
from itertools import zip_longest
from renderer.records import dataclass

from renderer import consts

# Masterminds/semver's loose pattern, used by NewVersion while CoerceNewVersion is true.
_LOOSE = re.compile(
    r"v?([0-9]+)(\.[0-9]+)?(\.[0-9]+)?"
    r"(-([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?"
    r"(\+([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?"
)
_DIGITS = re.compile(r"[0-9]+")
_UINT64_MAX = 2**64 - 1


@dataclass(frozen=True)
class Version:
    major: int
    minor: int
    patch: int
    pre: str = ""


def parse_version(text: str) -> Version | None:
    """A version, or None where NewVersion returns an error.

    Mirrors: github.com/Masterminds/semver/v3 v3.4.0 NewVersion (coerceNewVersion).
    """
    match = _LOOSE.fullmatch(text)
    if match is None:
        return None
    numbers = [match.group(1), (match.group(2) or ".0")[1:], (match.group(3) or ".0")[1:]]
    values = [int(n) for n in numbers]
    if any(v > _UINT64_MAX for v in values):
        return None
    # The pattern already limits pre-release and build parts to non-empty [0-9A-Za-z-]
    # runs; what is left to check is that numeric pre-release parts have no leading zero.
    pre = match.group(5) or ""
    if any(_DIGITS.fullmatch(part) and len(part) > 1 and part[0] == "0" for part in pre.split(".")):
        return None
    return Version(values[0], values[1], values[2], pre)


def compare_versions(a: Version, b: Version) -> int:
    """-1, 0 or 1 by semver precedence (build metadata ignored).

    Mirrors: github.com/Masterminds/semver/v3 v3.4.0 Version.Compare, comparePrerelease.
    """
    for x, y in ((a.major, b.major), (a.minor, b.minor), (a.patch, b.patch)):
        if x != y:
            return -1 if x < y else 1
    if a.pre == b.pre:
        return 0
    if not a.pre:
        return 1
    if not b.pre:
        return -1
    parts = zip_longest(a.pre.split("."), b.pre.split("."), fillvalue="")
    return next((result for result in (_compare_pre_part(x, y) for x, y in parts) if result), 0)


def _compare_pre_part(s: str, o: str) -> int:
    """A missing part sorts first; numbers sort before words; words compare byte-wise."""
    if s == o:
        return 0
    if not s:
        return -1
    if not o:
        return 1
    s_num = _DIGITS.fullmatch(s) is not None and int(s) <= _UINT64_MAX
    o_num = _DIGITS.fullmatch(o) is not None and int(o) <= _UINT64_MAX
    if not s_num and not o_num:
        return 1 if s.encode() > o.encode() else -1
    if not o_num:
        return -1
    if not s_num:
        return 1
    return 1 if int(s) > int(o) else -1


VLLM_MULTIPROCESSING_MIN_ORIGIN = Version(1, 0, 0)


def origin_version_at_least(annotations: dict[str, str], minimum: Version) -> bool:
    """True when the origin-version annotation parses and is at least ``minimum``.

    Absent or unparseable (``not-a-version``) means an old resource: the gate is off.
    Mirrors: internal/features/compatibility/operator_origin.go Gate.Enabled.
    """
    text = annotations.get(consts.ANNOTATION_OPERATOR_ORIGIN_VERSION)
    if text is None:
        return False
    version = parse_version(text)
    return version is not None and compare_versions(version, minimum) >= 0
