"""Dynamo runtime versions: from ``runtimeVersionOverride`` or the main image tag.

Mirrors: internal/runtimeversion/runtimeversion.go (Parse, ParseImageVersion, Resolve).
"""

from __future__ import annotations

import re

_TAG = re.compile(
    r"^[vV]?(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)"
    r"(?:-((?:0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*)(?:\.(?:0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*))*))?"
    r"(?:\+([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?$"
)
_STRICT = re.compile(
    r"^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)"
    r"(?:-((?:0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*)(?:\.(?:0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*))*))?"
    r"(?:\+([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?$"
)
_UINT64 = 2**64 - 1
# The webhooks' message when neither the image tag nor runtimeVersionOverride gives a version.
RUNTIME_OVERRIDE_REQUIRED = "is required when the specified main container image has no parseable semantic-version tag"

Version = tuple[int, int, int]


_GO_SPACE = "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"


def go_trim_space(text: str) -> str:
    """Go strings.TrimSpace: Unicode White_Space only (Python's strip also drops \\x1c-\\x1f)."""
    return text.strip(_GO_SPACE)


def _version(match: re.Match[str] | None) -> Version | None:
    if match is None:
        return None
    parts = (int(match.group(1)), int(match.group(2)), int(match.group(3)))
    return parts if all(p <= _UINT64 for p in parts) else None


def parse(value: str) -> Version | None:
    """A strict semantic version (Masterminds StrictNewVersion), or None.

    Mirrors: runtimeversion.go Parse.
    """
    return _version(_STRICT.fullmatch(value))


def image_tag(image: str) -> str:
    """The text after the last ``:`` that follows the last ``/``, digest removed.

    Mirrors: runtimeversion.go imageTag.
    """
    reference = go_trim_space(image).split("@", 1)[0]
    slash = reference.rfind("/")
    colon = reference.rfind(":")
    if colon <= slash:
        return ""
    return reference[colon + 1 :]


def parse_image_version(image: str) -> Version | None:
    """MAJOR.MINOR.PATCH of an image tag (optional ``v``, pre-release, build), or None.

    Mirrors: runtimeversion.go ParseImageVersion.
    """
    tag = image_tag(image)
    if not tag:
        return None
    return _version(_TAG.fullmatch(go_trim_space(tag)))


def resolve(image: str, override: str) -> Version | None:
    """The override when set (strict), else the image tag's version.

    Mirrors: runtimeversion.go Resolve.
    """
    if override:
        return parse(override)
    return parse_image_version(image)


def format_version(version: Version) -> str:
    return f"{version[0]}.{version[1]}.{version[2]}"
