"""Go's float text: the one formatter behind every float the operator or its libraries print.

``strconv.FormatFloat`` with the shortest digits that read back as the value, in its three
uses here: encoding/json (``1e-7``, ``1e+21``), ``'g'`` for float64 (go-yaml, ``1e+06``) and
``'g'`` for float32 (sigs.k8s.io/yaml map keys).

Mirrors: strconv ftoa.go (FormatFloat, shortest; formatDigits %e and %f);
encoding/json encode.go floatEncoder
"""

from __future__ import annotations

import math
import struct
from decimal import Decimal


def _float32(value: float) -> float:
    """``float32(value)``: rounded to the nearest single, an infinity beyond its range."""
    try:
        single: float = struct.unpack("f", struct.pack("f", value))[0]
    except OverflowError:
        return math.copysign(math.inf, value)
    return single


def _shortest_digits(value: float, bits: int) -> tuple[str, int]:
    """The shortest decimal digits of a finite non-zero ``abs(value)`` and its point.

    ``value == 0.<digits> * 10**point``; for ``bits == 32`` the digits read back as the
    same float32.
    """
    if bits == 64:
        _sign, digit_tuple, exponent = Decimal(repr(abs(value))).as_tuple()
        assert isinstance(exponent, int)
        raw = "".join(map(str, digit_tuple))
        point = len(raw) + exponent
    else:
        single = abs(value)
        text = ""
        for precision in range(1, 10):  # pragma: no branch (9 digits always suffice)
            text = f"{single:.{precision - 1}e}"
            if _float32(float(text)) == single:
                break
        mantissa, exp_text = text.split("e")
        raw = mantissa.replace(".", "")
        point = int(exp_text) + 1
    return raw.rstrip("0") or "0", point


def format_shortest(
    value: float, exponent_below: int, exponent_from: int, pad_negative_exponent: bool, bits: int = 64
) -> str:
    """A finite float with the shortest digits that read back as it, as strconv writes it.

    The exponent form (``1e+21``, ``1e-07``) is used when the decimal exponent is below
    ``exponent_below`` or at least ``exponent_from``; its exponent has at least two digits
    (a negative one only with ``pad_negative_exponent``).

    Mirrors: strconv ftoa.go formatDigits (shortest; %e and %f)
    """
    if bits == 32:
        value = _float32(value)
    if value == 0:
        return "-0" if math.copysign(1.0, value) < 0 else "0"
    digits, point = _shortest_digits(value, bits)
    prefix = "-" if value < 0 else ""
    exp = point - 1
    if exp < exponent_below or exp >= exponent_from:
        mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        exp_text = f"{abs(exp):02d}" if exp >= 0 or pad_negative_exponent else str(abs(exp))
        return f"{prefix}{mantissa}e{'+' if exp >= 0 else '-'}{exp_text}"
    if point <= 0:
        return f"{prefix}0.{'0' * -point}{digits}"
    if point >= len(digits):
        return prefix + digits + "0" * (point - len(digits))
    return f"{prefix}{digits[:point]}.{digits[point:]}"


def go_float(value: float) -> str:
    """A float64 as encoding/json prints it: shortest digits, ``e`` form below 1e-6 and from 1e21.

    Mirrors: encoding/json encode.go floatEncoder (bits 64)
    """
    if not math.isfinite(value):
        raise ValueError(f"json: unsupported value: {value!r}")
    # Go trims the exponent's leading zero when it is negative (e-07 becomes e-7).
    return format_shortest(value, exponent_below=-6, exponent_from=21, pad_negative_exponent=False)


def format_float_g(value: float, bits: int = 64) -> str:
    """``strconv.FormatFloat(v, 'g', -1, bits)`` with YAML's spellings of infinities and NaN.

    With the shortest digits Go switches to the exponent form when the decimal exponent is
    below -4 or at least 6 (``1e+06``, ``1e-05``), with at least two exponent digits. For
    ``bits == 32`` the value is first converted to float32 (beyond its range: an infinity).

    Mirrors: strconv ftoa.go formatDigits ('g', shortest); go-yaml encode.go floatv
    """
    if bits == 32 and math.isfinite(value):
        value = _float32(value)
    if math.isnan(value):
        return ".nan"
    if math.isinf(value):
        return ".inf" if value > 0 else "-.inf"
    return format_shortest(value, exponent_below=-4, exponent_from=6, pad_negative_exponent=True, bits=bits)
