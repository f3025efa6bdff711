"""Kubernetes resource quantities, parsed and printed exactly as the operator's Go code does.

The operator decodes every ``resources.limits``/``requests`` value into a
``resource.Quantity`` and re-encodes it, so what lands in the Deployment is the
quantity's canonical text, not what the user wrote: ``"1000m"`` becomes ``"1"``,
``"8192Mi"`` becomes ``"8Gi"`` and ``"0.5Gi"`` becomes ``"512Mi"``. Some inputs are
echoed verbatim instead, because Go remembers the input text whenever its digits
already look canonical (``"1e3"`` stays ``"1e3"``, and so, surprisingly, do ``"+1"``,
``"01"`` and ``"1.500"``). Both behaviours are reproduced here with exact integer
arithmetic; no float ever touches a value.

A ``Quantity`` keeps Go's two internal representations apart (a small scaled int64,
or an arbitrary-precision decimal rounded to nano units) because ``Value()``
rounds negative fractions differently in each, and the operator's GPU counting goes
through ``Value()``.

Mirrors: k8s.io/apimachinery/pkg/api/resource/quantity.go (v0.36.2) ParseQuantity,
CanonicalizeBytes, String, MarshalJSON, UnmarshalJSON, Value, CmpInt64, Sign;
with the helpers in amount.go, math.go, suffix.go and scale_int.go.
"""

from __future__ import annotations

from renderer.records import dataclass

from renderer.gocompat.gofloat import go_float

DECIMAL_EXPONENT = "DecimalExponent"
BINARY_SI = "BinarySI"
DECIMAL_SI = "DecimalSI"

_SPLIT_RE = "^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$"
ERR_FORMAT_WRONG = f"quantities must match the regular expression '{_SPLIT_RE}'"
ERR_NUMERIC = "unable to parse numeric part of quantity"
ERR_SUFFIX = "unable to parse quantity's suffix"

_INT64_MAX = (1 << 63) - 1
_INT64_MIN = -(1 << 63)
_UINT64_MAX = (1 << 64) - 1
_NANO = -9
# the largest power of ten built on purpose; beyond it values keep their exponent
_MAX_EXPAND = 400
# at most this many decimal digits are parsed on the int64 fast path
_MAX_INT64_FACTORS = 18

_DIGITS = frozenset("0123456789")
_SUFFIX_CHARS = frozenset("eEinumkKMGTP")

# suffix -> (base, exponent, format); the "e<n>" decimal exponents are handled apart
_SUFFIXES: dict[str, tuple[int, int, str]] = {
    "": (10, 0, DECIMAL_SI),
    **{suffix: (10, exponent, DECIMAL_SI) for suffix, exponent in zip("numkMGTPE", (-9, -6, -3, 3, 6, 9, 12, 15, 18))},
    **{prefix + "i": (2, 10 * power, BINARY_SI) for power, prefix in enumerate("KMGTPE", 1)},
}
# decimal exponent -> SI suffix; an exponent missing here prints with NO suffix (Go quirk)
_DECIMAL_SI_SUFFIX = {exponent: suffix for suffix, (base, exponent, _) in _SUFFIXES.items() if base == 10}
# power of 1024 -> binary suffix
_BINARY_SI_SUFFIX = {exponent // 10: suffix for suffix, (base, exponent, _) in _SUFFIXES.items() if base == 2}

# Go strings.TrimSpace: ASCII whitespace plus Unicode White_Space (not Python's isspace set)
_GO_SPACE = (
    "\t\n\v\f\r \x85\xa0\u1680"
    "\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000"
)


@dataclass(frozen=True, slots=True)
class Quantity:
    """A parsed quantity: the exact value ``unscaled * 10**exponent`` and its print format.

    ``text`` is the input Go kept because it was already canonical (``q.s``); ``big`` is
    True when Go holds the value as an ``inf.Dec`` rather than an ``int64Amount``.

    Mirrors: k8s.io/apimachinery/pkg/api/resource/quantity.go Quantity
    """

    unscaled: int
    exponent: int
    format: str
    text: str = ""
    big: bool = False

    def __str__(self) -> str:
        return self.string()

    def string(self) -> str:
        """The text Go prints and marshals to JSON.

        Mirrors: quantity.go Quantity.String and Quantity.MarshalJSON
        """
        if self.text:
            return self.text
        number, suffix = self._canonical()
        return number + suffix

    def is_zero(self) -> bool:
        """Mirrors: quantity.go Quantity.IsZero"""
        return self.unscaled == 0

    def sign(self) -> int:
        """-1, 0 or 1. Mirrors: quantity.go Quantity.Sign"""
        return (self.unscaled > 0) - (self.unscaled < 0)

    def cmp_int64(self, other: int) -> int:
        """Exact comparison with an integer. Mirrors: quantity.go Quantity.CmpInt64"""
        return _cmp_scaled(self.unscaled, self.exponent, other)

    def whole(self) -> int | None:
        """The exact integer value, or None when it is fractional or outside int64.

        ``"4000m"`` is 4; ``"500m"`` is None. This is the operator's GPU-count test
        (``q.CmpInt64(q.Value()) == 0``): a value outside int64 fails it there too.

        Mirrors: dynamo internal/dra/dra.go gpuCountFromQuantity (the whole-number check)
        """
        if self.unscaled == 0:
            return 0
        if _cmp_scaled(self.unscaled, self.exponent, _INT64_MAX) > 0:
            return None
        if _cmp_scaled(self.unscaled, self.exponent, _INT64_MIN) < 0:
            return None
        if self.exponent >= 0:
            return self.unscaled * _pow10(self.exponent)
        whole, rest = divmod(self.unscaled, _pow10(-self.exponent))
        return whole if rest == 0 else None

    def value(self) -> int:
        """The value rounded up to an integer, as Go's ``Value()`` returns it.

        Positive fractions round up. Negative fractions round away from zero for the
        small int64 form but toward zero in the decimal form ("-1.5e-10" gives 1: the
        decimal form truncates and then adds one); int64 overflow gives 0 in the small
        form and wraps in the decimal form. All of that is Go's behaviour, kept on purpose.

        Mirrors: quantity.go Quantity.Value -> ScaledValue(0); amount.go AsScaledInt64;
        scale_int.go scaledValue
        """
        return self.scaled_value(0)

    def milli_value(self) -> int:
        """Mirrors: quantity.go Quantity.MilliValue"""
        return self.scaled_value(-3)

    def scaled_value(self, scale: int) -> int:
        """ceil(value / 10**scale) with Go's representation-specific rounding and overflow.

        Mirrors: quantity.go Quantity.ScaledValue
        """
        if not self.big:
            return _int_amount_scaled(self.unscaled, self.exponent, scale)
        return _dec_scaled(self.unscaled, -self.exponent, -scale)

    def _canonical(self) -> tuple[str, str]:
        """Mirrors: quantity.go Quantity.CanonicalizeBytes"""
        if self.unscaled == 0:
            return "0", ""
        fmt = self.format
        rounded = 0
        if fmt == BINARY_SI:
            if self.cmp_int64(-1024) > 0 and self.cmp_int64(1024) < 0:
                fmt = DECIMAL_SI
            else:
                rounded, exact = _round_to_integer(self.unscaled, self.exponent)
                if not exact:
                    fmt = DECIMAL_SI
        elif fmt != DECIMAL_SI:
            fmt = DECIMAL_EXPONENT
        if fmt == BINARY_SI:
            mantissa, power = _remove_factors(rounded, 1024)
            return str(mantissa), _BINARY_SI_SUFFIX.get(power, "")
        mantissa, exponent = _remove_factors(self.unscaled, 10)
        exponent += self.exponent
        # bring the exponent down to a multiple of three, growing the mantissa
        drop = exponent % 3
        mantissa *= _pow10(drop)
        exponent -= drop
        if fmt == DECIMAL_SI:
            return str(mantissa), _DECIMAL_SI_SUFFIX.get(exponent, "")
        return str(mantissa), (f"e{exponent}" if exponent else "")


def parse_quantity(text: str) -> Quantity:
    """Parse a quantity string strictly (no whitespace trimming); ValueError on bad input.

    Mirrors: quantity.go ParseQuantity
    """
    if not text:
        raise ValueError(ERR_FORMAT_WRONG)
    if text == "0":
        return Quantity(unscaled=0, exponent=0, format=DECIMAL_SI, text="0")

    positive, value, num, denom, suffix = _split(text)
    base, exponent, fmt = _interpret_suffix(suffix)

    # fast path: few enough digits to stay within an int64
    precision = -1
    scale = 0
    multiplier = 1
    if fmt == BINARY_SI:
        if exponent >= 0 and not denom:
            multiplier = 1 << exponent
            precision = 15 - len(num) - (exponent * 3) // 10 - 1
    else:
        scale = exponent
        precision = _MAX_INT64_FACTORS - (len(num) + len(denom))
    if precision >= 0:
        scale -= len(denom)
        if scale >= _NANO:
            shifted = num + denom
            digits = int(shifted)
            result = digits * multiplier
            # the precision bound keeps every suffix in the table inside int64; Go checks anyway
            if _INT64_MIN <= result <= _INT64_MAX:  # pragma: no branch
                if not positive:
                    result = -result
                # the input is reused verbatim when its digits are already canonical
                if fmt == BINARY_SI:
                    reuse = exponent % 10 == 0 and digits & 0x07 != 0
                else:
                    reuse = scale % 3 == 0 and not shifted.endswith("000") and shifted[0] != "0"
                return Quantity(
                    unscaled=result, exponent=scale, format=fmt, text=text if reuse else ""
                )

    # slow path: arbitrary precision, rounded up to nano units, binary capped at int64
    unscaled, dec_exponent = _decimal_of(value)
    if base == 10:
        dec_exponent += exponent
    else:
        unscaled <<= exponent
    negative = unscaled < 0
    amount = -unscaled if negative else unscaled
    if amount != 0:
        amount, dec_exponent = _round_up_to_nano(amount, dec_exponent)
    if fmt == BINARY_SI:
        if _cmp_scaled(amount, dec_exponent, _INT64_MAX) > 0:
            amount, dec_exponent = _INT64_MAX, 0
        if amount != 0 and _cmp_scaled(amount, dec_exponent, 1) < 0:
            fmt = DECIMAL_SI
    return Quantity(
        unscaled=-amount if negative else amount, exponent=dec_exponent, format=fmt, big=True
    )


def unmarshal_quantity(value: object) -> Quantity:
    """Decode a YAML/JSON scalar the way ``Quantity.UnmarshalJSON`` sees it.

    sigs.k8s.io/yaml turns the YAML into JSON first, so an int 4 arrives as ``4``
    and a float 0.5 as ``0.5`` (Go's float formatting); the JSON text, minus any
    quotes and surrounding whitespace, is then parsed. Null gives the zero quantity.
    Booleans, lists and maps reach ParseQuantity as their JSON text and fail its format check.

    Mirrors: quantity.go Quantity.UnmarshalJSON
    """
    if value is None:
        return Quantity(unscaled=0, exponent=0, format="")
    if isinstance(value, str):
        return parse_quantity(value.strip(_GO_SPACE))
    if isinstance(value, bool):
        raise ValueError(ERR_FORMAT_WRONG)
    if isinstance(value, int):
        if _INT64_MIN <= value <= _UINT64_MAX:
            return parse_quantity(str(value))
        # go-yaml hands integers beyond 64 bits over as floats
        return parse_quantity(go_float(float(value)))
    if isinstance(value, float):
        return parse_quantity(go_float(value))
    raise ValueError(ERR_FORMAT_WRONG)


def canonical_quantity(value: object) -> str:
    """The JSON string the operator writes for this YAML value; ValueError when invalid."""
    return unmarshal_quantity(value).string()


def _split(text: str) -> tuple[bool, str, str, str, str]:
    """Cut ``text`` into sign, numeric text, integer digits, fraction digits and suffix.

    Leading zeros are dropped from the integer digits; an all-zero number ends the scan.

    Mirrors: quantity.go parseQuantityString
    """
    end = len(text)
    pos = 0
    positive = True
    if text[0] == "-":
        positive = False
        pos = 1
    elif text[0] == "+":
        pos = 1

    while pos < end and text[pos] == "0":
        pos += 1
    if pos >= end:
        return positive, "0", "0", "", ""

    start = pos
    while pos < end and text[pos] in _DIGITS:
        pos += 1
    if pos >= end:
        return positive, text, text[start:], "", ""
    num = text[start:pos] or "0"

    denom = ""
    if text[pos] == ".":
        pos += 1
        start = pos
        while pos < end and text[pos] in _DIGITS:
            pos += 1
        denom = text[start:pos]
        if pos >= end:
            return positive, text, num, denom, ""
    value = text[:pos]

    suffix_start = pos
    while pos < end and text[pos] in _SUFFIX_CHARS:
        pos += 1
    if pos < end and text[pos] in "+-":
        pos += 1
    while pos < end and text[pos] in _DIGITS:
        pos += 1
    if pos < end:
        raise ValueError(ERR_FORMAT_WRONG)
    return positive, value, num, denom, text[suffix_start:]


def _interpret_suffix(suffix: str) -> tuple[int, int, str]:
    """Mirrors: suffix.go fastLookup.interpret / suffixHandler.interpret"""
    known = _SUFFIXES.get(suffix)
    if known is not None:
        return known
    if len(suffix) > 1 and suffix[0] in "eE":
        exponent = _parse_int64(suffix[1:])
        if exponent is None:
            raise ValueError(ERR_SUFFIX)
        # Go narrows the parsed exponent to int32
        exponent = (exponent + (1 << 31)) % (1 << 32) - (1 << 31)
        return 10, exponent, DECIMAL_EXPONENT
    raise ValueError(ERR_SUFFIX)


def _parse_int64(text: str) -> int | None:
    """Go strconv.ParseInt(text, 10, 64): optional sign, ASCII digits, int64 range."""
    body = text[1:] if text[:1] in ("+", "-") else text
    if not body or not all(c in _DIGITS for c in body):
        return None
    number = int(text)
    return number if _INT64_MIN <= number <= _INT64_MAX else None


def _decimal_of(value: str) -> tuple[int, int]:
    """Read ``[sign]digits[.digits]`` as (unscaled, exponent); ValueError without digits.

    Mirrors: gopkg.in/inf.v0 Dec.SetString as ParseQuantity uses it
    """
    body = value[1:] if value[:1] in ("+", "-") else value
    whole, _, fraction = body.partition(".")
    if not whole and not fraction:
        raise ValueError(ERR_NUMERIC)
    unscaled = int(whole + fraction)
    return (-unscaled if value[:1] == "-" else unscaled), -len(fraction)


def _round_up_to_nano(amount: int, exponent: int) -> tuple[int, int]:
    """A positive amount rounded up to whole nano units, re-expressed at 10**-9 as Go holds it.

    Go would build a gigantic integer for absurd exponents ("1e2000000000" written with
    more than 18 digits); those keep their exponent here, which changes no printed value.

    Mirrors: gopkg.in/inf.v0 Dec.Round(x, 9, RoundUp)
    """
    if exponent >= _NANO:
        if exponent - _NANO > _MAX_EXPAND:
            return amount, exponent
        return amount * _pow10(exponent - _NANO), _NANO
    shift = _NANO - exponent
    if shift > len(str(amount)):
        return 1, _NANO
    whole, rest = divmod(amount, _pow10(shift))
    return (whole + 1 if rest else whole), _NANO


def _cmp_scaled(unscaled: int, exponent: int, other: int) -> int:
    """Compare ``unscaled * 10**exponent`` with an integer, exactly."""
    if unscaled == 0:
        return (other < 0) - (other > 0)
    if abs(exponent) > _MAX_EXPAND:
        # far from any int64: the magnitude alone decides
        if exponent > 0:
            return 1 if unscaled > 0 else -1
        left_sign = 1 if unscaled > 0 else -1
        return left_sign if other == 0 else (-1 if other > 0 else 1)
    if exponent >= 0:
        left, right = unscaled * _pow10(exponent), other
    else:
        left, right = unscaled, other * _pow10(-exponent)
    return (left > right) - (left < right)


def _round_to_integer(unscaled: int, exponent: int) -> tuple[int, bool]:
    """Round away from zero to an integer; report whether that was exact.

    Mirrors: amount.go int64Amount.AsScale(0) and infDecAmount.AsScale(0)
    """
    if exponent >= 0:
        return unscaled * _pow10(exponent), True
    magnitude, rest = divmod(abs(unscaled), _pow10(-exponent))
    if rest:
        magnitude += 1
    return (-magnitude if unscaled < 0 else magnitude), rest == 0


def _remove_factors(value: int, base: int) -> tuple[int, int]:
    """Strip every factor of ``base``: value == result * base**times.

    Mirrors: math.go removeInt64Factors / removeBigIntFactors
    """
    if value == 0:
        return 0, 0
    times = 0
    while value % base == 0:
        value //= base
        times += 1
    return value, times


def _pow10(exponent: int) -> int:
    """10**exponent for a non-negative exponent, typed as int."""
    return int(10**exponent)


def _wrap_int64(number: int) -> int:
    return (number + (1 << 63)) % (1 << 64) - (1 << 63)


def _int_amount_scaled(value: int, scale: int, target: int) -> int:
    """Mirrors: amount.go int64Amount.AsScaledInt64 (overflow yields 0)"""
    if value == 0:
        return 0
    if scale < target:
        # drop digits, rounding away from zero
        magnitude, rest = divmod(abs(value), _pow10(target - scale))
        if rest:
            magnitude += 1
        return -magnitude if value < 0 else magnitude
    if scale - target > 19:
        return 0
    result = value * _pow10(scale - target)
    return result if _INT64_MIN <= result <= _INT64_MAX else 0


def _dec_scaled(unscaled: int, scale: int, new_scale: int) -> int:
    """Mirrors: scale_int.go scaledValue (int64 truncating division, then +1 on a remainder)"""
    if unscaled == 0:
        return 0
    dif = scale - new_scale
    if dif == 0:
        return _wrap_int64(unscaled)
    if dif < 0:
        factor = _pow10(-dif) if -dif <= 18 else _INT64_MIN
        return _wrap_int64(_wrap_int64(unscaled) * factor)
    if unscaled < _INT64_MAX and dif < 19:
        divisor = _pow10(dif)
        # Go's int64 division truncates toward zero, remainders keep the dividend's sign
        quotient = abs(unscaled) // divisor
        remainder = abs(unscaled) - quotient * divisor
        if unscaled < 0:
            quotient = -quotient
        return _wrap_int64(quotient + 1 if remainder else quotient)
    # big.Int DivMod is Euclidean
    quotient, remainder = divmod(unscaled, _pow10(dif))
    return _wrap_int64(quotient + 1 if remainder else quotient)
