"""go-yaml v2's scalar rules: the tag and value a plain scalar resolves to.

The one resolver of the project: the plugin's reader (``plugin.yamlio.codec.Loader``) and
writer (``plugin.yamlio.dumper.Dumper`` quotes every string go-yaml would read as another type)
use it, and so does the operator's YAML text (``renderer.gocompat.goyaml``: a string is
printed plain only where ``plain_is_string`` holds).
"""

from __future__ import annotations

import math
import re
from typing import Any

NULL = "tag:yaml.org,2002:null"
BOOL = "tag:yaml.org,2002:bool"
INT = "tag:yaml.org,2002:int"
FLOAT = "tag:yaml.org,2002:float"
STR = "tag:yaml.org,2002:str"
BINARY = "tag:yaml.org,2002:binary"
TIMESTAMP = "tag:yaml.org,2002:timestamp"
MERGE = "tag:yaml.org,2002:merge"

# go-yaml v2, which kubectl and Argo CD read manifests with, differs from PyYAML's YAML 1.1:
# y/Y/n/N are booleans, 1e3 (no dot) is a float, 0o17 is an int, 1:30 is not sexagesimal,
# timestamps stay strings, and a number out of range falls back to another type or a string.
_GO_RESOLVE_MAP: dict[str, tuple[str, Any]] = {
    **{word: (BOOL, True) for word in ("y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON")},
    **{word: (BOOL, False) for word in ("n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF")},
    **{word: (NULL, None) for word in ("", "~", "null", "Null", "NULL")},
    **{word: (FLOAT, math.nan) for word in (".nan", ".NaN", ".NAN")},
    **{word: (FLOAT, math.inf) for word in (".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF")},
    **{word: (FLOAT, -math.inf) for word in ("-.inf", "-.Inf", "-.INF")},
}
_GO_HINTED = frozenset("+-0123456789.yYnNtTfFoO~")
# strconv.ParseInt/ParseUint with base 0, after go-yaml has removed every underscore.
_GO_BASE0INT = re.compile(r"^([-+]?)(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)$")
# go-yaml's yamlStyleFloat, tried on the underscore-free text before strconv.ParseFloat.
_GO_YAML_STYLE_FLOAT = re.compile(r"^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$")
# strconv.ParseFloat on text that starts with a dot (no underscores allowed there).
_GO_DOT_FLOAT = re.compile(r"^\.[0-9]+([eE][-+]?[0-9]+)?$")
INT64_RANGE = (-(2**63), 2**63 - 1)
UINT64_MAX = 2**64 - 1


def _go_int(plain: str) -> int | None:
    """strconv.ParseInt(plain, 0, 64), else ParseUint(plain, 0, 64); None when both fail."""
    match = _GO_BASE0INT.fullmatch(plain)
    if match is None:
        return None
    sign, digits = match.groups()
    if len(digits) > 70:
        # longer than any 64-bit integer in any base (Python refuses decimals past 4300 digits)
        return None
    if len(digits) > 1 and digits[0] == "0" and digits[1] in "xXoObB":
        value = int(digits[2:], {"x": 16, "o": 8, "b": 2}[digits[1].lower()])
    else:
        value = int(digits, 8) if digits[0] == "0" else int(digits)
    if sign == "-":
        value = -value
    if INT64_RANGE[0] <= value <= INT64_RANGE[1]:
        return value
    if not sign and value <= UINT64_MAX:
        return value
    return None


def _go_float(text: str, pattern: re.Pattern[str]) -> float | None:
    """strconv.ParseFloat of text matching ``pattern``; None on a syntax or range error."""
    if pattern.fullmatch(text) is None:
        return None
    value = float(text)
    return None if math.isinf(value) else value


def go_resolve(text: str) -> tuple[str, Any]:
    """The tag and value go-yaml v2 gives a plain (or explicitly tagged) scalar.

    Mirrors: gopkg.in/yaml.v2 resolve.go resolve (timestamps are kept as strings, as the
    decoder does for untyped values).
    """
    if text and text[0] not in _GO_HINTED:
        return STR, text
    if text in _GO_RESOLVE_MAP:
        return _GO_RESOLVE_MAP[text]
    if text[0] == ".":
        number = _go_float(text, _GO_DOT_FLOAT)
        return (FLOAT, number) if number is not None else (STR, text)
    if text[0] in "+-0123456789":
        plain = text.replace("_", "")
        integer = _go_int(plain)
        if integer is not None:
            return INT, integer
        number = _go_float(plain, _GO_YAML_STYLE_FLOAT)
        if number is not None:
            return FLOAT, number
    return STR, text


_BASE60_FLOAT = re.compile(r"^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$")
_TIMESTAMP_TEXT = re.compile(
    r"^([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})"
    r"(?:[Tt]([0-9]{1,2}):([0-9]{1,2}):([0-9]{1,2})(?:[.,][0-9]+)?(?:Z|[+-][0-9]{2}:[0-9]{2})"
    r"| ([0-9]{1,2}):([0-9]{1,2}):([0-9]{1,2})(?:[.,][0-9]+)?)?$"
)


def plain_is_string(text: str) -> bool:
    """go-yaml's encoder prints ``text`` as a plain scalar: it resolves to a string again.

    The encoder resolves the text as the decoder does, and also quotes timestamps (which the
    decoder would read as times) and YAML 1.1 base-60 floats (``1:30``).

    Mirrors: go-yaml encode.go stringv (resolve, isBase60Float), resolve.go parseTimestamp
    """
    if go_resolve(text)[0] != STR:
        return False
    if text[:1] in tuple("+-0123456789"):
        return not (_is_timestamp(text) or _BASE60_FLOAT.fullmatch(text))
    return True


def _is_timestamp(text: str) -> bool:
    """One of go-yaml's timestamp layouts that time.Parse accepts (valid date and clock).

    Mirrors: go-yaml resolve.go parseTimestamp (layouts "2006-1-2T15:4:5.999999999Z07:00",
    its lower-case "t" twin, "2006-1-2 15:4:5.999999999" and "2006-1-2")
    """
    match = _TIMESTAMP_TEXT.fullmatch(text)
    if match is None:
        return False
    year, month, day = (int(part) for part in match.group(1, 2, 3))
    clock = [int(part) for part in match.group(4, 5, 6, 7, 8, 9) if part is not None]
    if not (1 <= month <= 12 and 1 <= day <= 31):
        return False
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    days = [31, 29 if leap else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
    if day > days[month - 1]:
        return False
    return not clock or (clock[0] <= 23 and clock[1] <= 59 and clock[2] <= 59)
