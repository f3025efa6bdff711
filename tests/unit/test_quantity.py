"""Quantity parsing and printing, checked against upstream's own test vectors.

Every table below restates a table from k8s.io/apimachinery v0.36.2
pkg/api/resource/quantity_test.go (or quantity_example_test.go); the test ids name the
Go test a row comes from. Rows marked "quantity.go" instead follow a rule read directly
from ParseQuantity/CanonicalizeBytes (cited in the row's comment), not from our output.
"""

from __future__ import annotations

import pytest

from renderer.gocompat.gofloat import go_float
from renderer.gocompat.quantity import (
    BINARY_SI,
    DECIMAL_EXPONENT,
    DECIMAL_SI,
    ERR_FORMAT_WRONG,
    ERR_NUMERIC,
    ERR_SUFFIX,
    Quantity,
    _remove_factors,
    _split,
    canonical_quantity,
    parse_quantity,
    unmarshal_quantity,
)

_INT64_MAX = (1 << 63) - 1


def new_quantity(unscaled: int, exponent: int, fmt: str) -> Quantity:
    """A quantity built from a value, with no remembered text (the Go tests' decQuantity helper)."""
    return Quantity(unscaled=unscaled, exponent=exponent, format=fmt, big=True)
# Go tests use a format name no switch knows; CanonicalizeBytes falls back to DecimalExponent
_INVALID_FORMAT = "invalidFormatDefaultsToExponent"


def _same_value(q: Quantity, unscaled: int, exponent: int) -> bool:
    """Exact value equality of q with unscaled * 10**exponent (Go Quantity.Cmp == 0)."""
    shift = min(q.exponent, exponent)
    left: int = q.unscaled * 10 ** (q.exponent - shift)
    right: int = unscaled * 10 ** (exponent - shift)
    return left == right


def _int_quantity(value: int, scale: int, fmt: str) -> Quantity:
    """Go's int64Amount form, as NewQuantity/NewMilliQuantity/NewScaledQuantity build it."""
    return Quantity(unscaled=value, exponent=scale, format=fmt)


# TestQuantityParse: input -> decQuantity(unscaled, exponent, format)
PARSE_TABLE = [
    ("0", 0, 0, DECIMAL_SI),
    ("0n", 0, 0, DECIMAL_SI),
    ("0u", 0, 0, DECIMAL_SI),
    ("0m", 0, 0, DECIMAL_SI),
    ("0Ki", 0, 0, BINARY_SI),
    ("0k", 0, 0, DECIMAL_SI),
    ("0Mi", 0, 0, BINARY_SI),
    ("0M", 0, 0, DECIMAL_SI),
    ("0Gi", 0, 0, BINARY_SI),
    ("0G", 0, 0, DECIMAL_SI),
    ("0Ti", 0, 0, BINARY_SI),
    ("0T", 0, 0, DECIMAL_SI),
    ("1", 1, 0, DECIMAL_SI),
    ("1Ki", 1024, 0, BINARY_SI),
    ("8Ki", 8192, 0, BINARY_SI),
    ("7Mi", 7340032, 0, BINARY_SI),
    ("6Gi", 6442450944, 0, BINARY_SI),
    ("5Ti", 5497558138880, 0, BINARY_SI),
    ("4Pi", 4503599627370496, 0, BINARY_SI),
    ("3Ei", 3458764513820540928, 0, BINARY_SI),
    ("10Ti", 10995116277760, 0, BINARY_SI),
    ("100Ti", 109951162777600, 0, BINARY_SI),
    ("5n", 5, -9, DECIMAL_SI),
    ("4u", 4, -6, DECIMAL_SI),
    ("3m", 3, -3, DECIMAL_SI),
    ("9", 9, 0, DECIMAL_SI),
    ("8k", 8, 3, DECIMAL_SI),
    ("50k", 5, 4, DECIMAL_SI),
    ("7M", 7, 6, DECIMAL_SI),
    ("6G", 6, 9, DECIMAL_SI),
    ("5T", 5, 12, DECIMAL_SI),
    ("40T", 4, 13, DECIMAL_SI),
    ("300T", 3, 14, DECIMAL_SI),
    ("2P", 2, 15, DECIMAL_SI),
    ("1E", 1, 18, DECIMAL_SI),
    ("1E-3", 1, -3, DECIMAL_EXPONENT),
    ("1e3", 1, 3, DECIMAL_EXPONENT),
    ("1E6", 1, 6, DECIMAL_EXPONENT),
    ("1e9", 1, 9, DECIMAL_EXPONENT),
    ("1E12", 1, 12, DECIMAL_EXPONENT),
    ("1e15", 1, 15, DECIMAL_EXPONENT),
    ("1E18", 1, 18, DECIMAL_EXPONENT),
    ("1e14", 1, 14, DECIMAL_EXPONENT),
    ("1e13", 1, 13, DECIMAL_EXPONENT),
    ("1e3", 1, 3, DECIMAL_EXPONENT),
    ("100.035k", 100035, 0, DECIMAL_SI),
    ("0.001", 1, -3, DECIMAL_SI),
    ("0.0005k", 5, -1, DECIMAL_SI),
    ("0.005", 5, -3, DECIMAL_SI),
    ("0.05", 5, -2, DECIMAL_SI),
    ("0.5", 5, -1, DECIMAL_SI),
    ("0.00050k", 5, -1, DECIMAL_SI),
    ("0.00500", 5, -3, DECIMAL_SI),
    ("0.05000", 5, -2, DECIMAL_SI),
    ("0.50000", 5, -1, DECIMAL_SI),
    ("0.5e0", 5, -1, DECIMAL_EXPONENT),
    ("0.5e-1", 5, -2, DECIMAL_EXPONENT),
    ("0.5e-2", 5, -3, DECIMAL_EXPONENT),
    ("0.5e0", 5, -1, DECIMAL_EXPONENT),
    ("10.035M", 10035, 3, DECIMAL_SI),
    ("1.2e3", 12, 2, DECIMAL_EXPONENT),
    ("1.3E+6", 13, 5, DECIMAL_EXPONENT),
    ("1.40e9", 14, 8, DECIMAL_EXPONENT),
    ("1.53E12", 153, 10, DECIMAL_EXPONENT),
    ("1.6e15", 16, 14, DECIMAL_EXPONENT),
    ("1.7E18", 17, 17, DECIMAL_EXPONENT),
    ("9.01", 901, -2, DECIMAL_SI),
    ("8.1k", 81, 2, DECIMAL_SI),
    ("7.123456M", 7123456, 0, DECIMAL_SI),
    ("6.987654321G", 6987654321, 0, DECIMAL_SI),
    ("5.444T", 5444, 9, DECIMAL_SI),
    ("40.1T", 401, 11, DECIMAL_SI),
    ("300.2T", 3002, 11, DECIMAL_SI),
    ("2.5P", 25, 14, DECIMAL_SI),
    ("1.01E", 101, 16, DECIMAL_SI),
    ("3.001n", 4, -9, DECIMAL_SI),
    ("1.1E-9", 2, -9, DECIMAL_EXPONENT),
    ("0.0000000001", 1, -9, DECIMAL_SI),
    ("0.0000000005", 1, -9, DECIMAL_SI),
    ("0.00000000050", 1, -9, DECIMAL_SI),
    ("0.5e-9", 1, -9, DECIMAL_EXPONENT),
    ("0.9n", 1, -9, DECIMAL_SI),
    ("0.00000012345", 124, -9, DECIMAL_SI),
    ("0.00000012354", 124, -9, DECIMAL_SI),
    ("9Ei", _INT64_MAX, 0, BINARY_SI),
    ("9223372036854775807Ki", _INT64_MAX, 0, BINARY_SI),
    ("12E", 12, 18, DECIMAL_SI),
    ("100.035Ki", 10243584, -2, BINARY_SI),
    ("0.5Mi", 524288, 0, BINARY_SI),
    ("0.05Gi", 536870912, -1, BINARY_SI),
    ("0.025Ti", 274877906944, -1, BINARY_SI),
    ("0.000000000001Ki", 2, -9, DECIMAL_SI),
    (".001", 1, -3, DECIMAL_SI),
    (".0001k", 100, -3, DECIMAL_SI),
    ("1.", 1, 0, DECIMAL_SI),
    ("1.G", 1, 9, DECIMAL_SI),
]


@pytest.mark.parametrize(
    ("text", "unscaled", "exponent", "fmt"),
    PARSE_TABLE,
    ids=[f"TestQuantityParse/{row[0]}" for row in PARSE_TABLE],
)
def test_parse_value_and_format(text: str, unscaled: int, exponent: int, fmt: str) -> None:
    q = parse_quantity(text)
    assert _same_value(q, unscaled, exponent)
    assert q.format == fmt


@pytest.mark.parametrize(
    ("text", "unscaled", "exponent", "fmt"),
    PARSE_TABLE,
    ids=[f"TestQuantityParse/negative/{row[0]}" for row in PARSE_TABLE],
)
def test_parse_negative_of_every_row(text: str, unscaled: int, exponent: int, fmt: str) -> None:
    # TestQuantityParse "Try the negative version of everything": same format, negated value
    q = parse_quantity("-" + text)
    assert _same_value(q, -unscaled, exponent)
    assert q.format == fmt


@pytest.mark.parametrize(
    ("text", "unscaled", "exponent", "fmt"),
    PARSE_TABLE,
    ids=[f"TestQuantityParse/plus/{row[0]}" for row in PARSE_TABLE],
)
def test_parse_explicit_plus_of_every_row(
    text: str, unscaled: int, exponent: int, fmt: str
) -> None:
    # TestQuantityParse "Try everything with an explicit +"
    q = parse_quantity("+" + text)
    assert _same_value(q, unscaled, exponent)
    assert q.format == fmt


# TestQuantityParse "invalid" list (plus the empty string checked at its top)
INVALID = [
    "",
    "1.1.M",
    "1+1.0M",
    "0.1mi",
    "0.1am",
    "aoeu",
    ".5i",
    "1i",
    "-3.01i",
    "-3.01e-",
    " 1",
    "1 ",
]


@pytest.mark.parametrize("text", INVALID, ids=[f"TestQuantityParse/invalid/{t!r}" for t in INVALID])
def test_parse_invalid(text: str) -> None:
    with pytest.raises(ValueError) as err:
        parse_quantity(text)
    assert str(err.value) in (ERR_FORMAT_WRONG, ERR_SUFFIX, ERR_NUMERIC)


def test_non_numeric_fails() -> None:
    # TestQuantityParseNonNumericPanic: MustParse("Non-Numeric") panics
    with pytest.raises(ValueError):
        parse_quantity("Non-Numeric")


def test_error_texts_are_gos() -> None:
    # quantity.go ErrFormatWrong/ErrNumeric/ErrSuffix; TestQuantityUnmarshalCBOR "empty text
    # string" expects exactly ErrFormatWrong.Error() for an empty quantity
    assert ERR_FORMAT_WRONG == (
        "quantities must match the regular expression "
        "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
    )
    assert ERR_NUMERIC == "unable to parse numeric part of quantity"
    assert ERR_SUFFIX == "unable to parse quantity's suffix"
    with pytest.raises(ValueError, match="^quantities must match the regular expression"):
        unmarshal_quantity("")


# The error each malformed input gets, following parseQuantityString / interpret in quantity.go
# and suffix.go: a stray character after the suffix is a format error, an unknown suffix is
# a suffix error, and a number without digits on the slow path is a numeric error.
ERROR_KINDS = [
    ("1.1.M", ERR_FORMAT_WRONG),  # second '.' is neither suffix, sign nor digit
    ("aoeu", ERR_FORMAT_WRONG),  # 'a' ends the suffix scan at once, then is not a digit
    (" 1", ERR_FORMAT_WRONG),
    ("0.1mi", ERR_SUFFIX),  # "mi" scans as suffix characters but is no known suffix
    ("1i", ERR_SUFFIX),
    ("-3.01e-", ERR_SUFFIX),  # "e-" is too short to be an exponent
    ("1e99999999999999999999", ERR_SUFFIX),  # exponent does not fit strconv.ParseInt(.., 64)
    (".e-20", ERR_NUMERIC),  # scale below nano forces inf.Dec, which reads no digits
]


@pytest.mark.parametrize(
    ("text", "message"), ERROR_KINDS, ids=[f"quantity.go/{t}" for t, _ in ERROR_KINDS]
)
def test_error_kind(text: str, message: str) -> None:
    with pytest.raises(ValueError) as err:
        parse_quantity(text)
    assert str(err.value) == message


# TestParseQuantityString: input -> positive, value, num, denom, suffix
SPLIT_TABLE = [
    ("0.025Ti", True, "0.025", "0", "025", "Ti"),
    ("1.025Ti", True, "1.025", "1", "025", "Ti"),
    ("-1.025Ti", False, "-1.025", "1", "025", "Ti"),
    (".", True, ".", "0", "", ""),
    ("-.", False, "-.", "0", "", ""),
    ("1E-3", True, "1", "1", "", "E-3"),
]


@pytest.mark.parametrize(
    ("text", "positive", "value", "num", "denom", "suffix"),
    SPLIT_TABLE,
    ids=[f"TestParseQuantityString/{row[0]}" for row in SPLIT_TABLE],
)
def test_split(text: str, positive: bool, value: str, num: str, denom: str, suffix: str) -> None:
    assert _split(text) == (positive, value, num, denom, suffix)


# TestQuantityString: decQuantity(unscaled, exponent, format) -> canonical, alternate spelling
STRING_TABLE = [
    (1073741824, 0, BINARY_SI, "1Gi", "1024Mi"),
    (314572800, 0, BINARY_SI, "300Mi", "307200Ki"),
    (6144, 0, BINARY_SI, "6Ki", ""),
    (1074815565824, 0, BINARY_SI, "1001Gi", "1025024Mi"),
    (1099511627776, 0, BINARY_SI, "1Ti", "1024Gi"),
    (5, 0, BINARY_SI, "5", "5000m"),
    (500, -3, BINARY_SI, "500m", "0.5"),
    (1, 9, DECIMAL_SI, "1G", "1000M"),
    (1000, 6, DECIMAL_SI, "1G", "0.001T"),
    (1000000, 3, DECIMAL_SI, "1G", ""),
    (1000000000, 0, DECIMAL_SI, "1G", ""),
    (1, -3, DECIMAL_SI, "1m", "1000u"),
    (80, -3, DECIMAL_SI, "80m", ""),
    (1080, -3, DECIMAL_SI, "1080m", "1.08"),
    (108, -2, DECIMAL_SI, "1080m", "1080000000n"),
    (10800, -4, DECIMAL_SI, "1080m", ""),
    (300, 6, DECIMAL_SI, "300M", ""),
    (1, 12, DECIMAL_SI, "1T", ""),
    (1234567, 6, DECIMAL_SI, "1234567M", ""),
    (1234567, -3, BINARY_SI, "1234567m", ""),
    (3, 3, DECIMAL_SI, "3k", ""),
    (1025, 0, BINARY_SI, "1025", ""),
    (0, 0, DECIMAL_SI, "0", ""),
    (0, 0, BINARY_SI, "0", ""),
    (1, 9, DECIMAL_EXPONENT, "1e9", ".001e12"),
    (1, -3, DECIMAL_EXPONENT, "1e-3", "0.001e0"),
    (1, -9, DECIMAL_EXPONENT, "1e-9", "1000e-12"),
    (80, -3, DECIMAL_EXPONENT, "80e-3", ""),
    (300, 6, DECIMAL_EXPONENT, "300e6", ""),
    (1, 12, DECIMAL_EXPONENT, "1e12", ""),
    (1, 3, DECIMAL_EXPONENT, "1e3", ""),
    (3, 3, DECIMAL_EXPONENT, "3e3", ""),
    (3, 3, DECIMAL_SI, "3k", ""),
    (0, 0, DECIMAL_EXPONENT, "0", "00"),
    (1, -9, DECIMAL_SI, "1n", ""),
    (80, -9, DECIMAL_SI, "80n", ""),
    (1080, -9, DECIMAL_SI, "1080n", ""),
    (108, -8, DECIMAL_SI, "1080n", ""),
    (10800, -10, DECIMAL_SI, "1080n", ""),
    (1, -6, DECIMAL_SI, "1u", ""),
    (80, -6, DECIMAL_SI, "80u", ""),
    (1080, -6, DECIMAL_SI, "1080u", ""),
]


@pytest.mark.parametrize(
    ("unscaled", "exponent", "fmt", "expect", "alternate"),
    STRING_TABLE,
    ids=[f"TestQuantityString/{row[3]}" for row in STRING_TABLE],
)
def test_string(unscaled: int, exponent: int, fmt: str, expect: str, alternate: str) -> None:
    assert new_quantity(unscaled, exponent, fmt).string() == expect
    # "did not copy canonical string on parse": a canonical input is kept verbatim
    parsed = parse_quantity(expect)
    assert parsed.text == expect
    assert parsed.string() == expect
    if alternate:
        # "unexpected nested string": a non-canonical spelling is not kept, and prints canonically
        other = parse_quantity(alternate)
        assert other.text == ""
        assert other.string() == expect


@pytest.mark.parametrize(
    ("unscaled", "exponent", "fmt", "expect", "alternate"),
    [row for row in STRING_TABLE if row[0] != 0],
    ids=[f"TestQuantityString/negative/{row[3]}" for row in STRING_TABLE if row[0] != 0],
)
def test_string_negative(
    unscaled: int, exponent: int, fmt: str, expect: str, alternate: str
) -> None:
    assert new_quantity(-unscaled, exponent, fmt).string() == "-" + expect


# TestQuantityParseEmit: input -> String()
EMIT_TABLE = [
    ("1Ki", "1Ki"),
    ("1Mi", "1Mi"),
    ("1Gi", "1Gi"),
    ("1024Mi", "1Gi"),
    ("1000M", "1G"),
    (".001Ki", "1024m"),
    (".000001Ki", "1024u"),
    (".000000001Ki", "1024n"),
    (".000000000001Ki", "2n"),
]


@pytest.mark.parametrize(
    ("text", "expect"), EMIT_TABLE, ids=[f"TestQuantityParseEmit/{t}" for t, _ in EMIT_TABLE]
)
def test_parse_emit(text: str, expect: str) -> None:
    assert parse_quantity(text).string() == expect
    assert parse_quantity("-" + text).string() == "-" + expect


def test_parse_zero() -> None:
    # TestQuantityParseZero
    assert parse_quantity("0").string() == "0"


# TestJSONWhitespace: raw JSON -> String(); a JSON string arrives here as str, a number as int
JSON_WHITESPACE = [(" 1", "1"), ("1 ", "1"), (1, "1"), (10, "10"), (-1, "-1")]


@pytest.mark.parametrize(
    ("value", "expect"),
    JSON_WHITESPACE,
    ids=[f"TestJSONWhitespace/{v!r}" for v, _ in JSON_WHITESPACE],
)
def test_unmarshal_whitespace_and_numbers(value: object, expect: str) -> None:
    assert unmarshal_quantity(value).string() == expect


# TestMilliNewSet: NewMilliQuantity(value, format).String()
MILLI_TABLE = [
    (1, DECIMAL_SI, "1m"),
    (1000, DECIMAL_SI, "1"),
    (1234000, DECIMAL_SI, "1234"),
    (1024, BINARY_SI, "1024m"),
    (1000000, _INVALID_FORMAT, "1e3"),
    (1024 * 1024, BINARY_SI, "1048576m"),
]


@pytest.mark.parametrize(
    ("value", "fmt", "expect"),
    MILLI_TABLE,
    ids=[f"TestMilliNewSet/{v}/{f}" for v, f, _ in MILLI_TABLE],
)
def test_milli_new(value: int, fmt: str, expect: str) -> None:
    q = _int_quantity(value, -3, fmt)
    assert q.string() == expect
    if fmt != BINARY_SI:  # the test's "exact" rows round-trip through MilliValue
        assert parse_quantity(q.string()).milli_value() == value


# TestNewSet: NewQuantity(value, format).String(), and Value() after re-parsing it
NEW_TABLE = [
    (1, DECIMAL_SI, "1"),
    (1000, DECIMAL_SI, "1k"),
    (1234000, DECIMAL_SI, "1234k"),
    (1024, BINARY_SI, "1Ki"),
    (1000000, _INVALID_FORMAT, "1e6"),
    (1024 * 1024, BINARY_SI, "1Mi"),
]


@pytest.mark.parametrize(
    ("value", "fmt", "expect"), NEW_TABLE, ids=[f"TestNewSet/{v}/{f}" for v, f, _ in NEW_TABLE]
)
def test_new_set(value: int, fmt: str, expect: str) -> None:
    assert _int_quantity(value, 0, fmt).string() == expect
    assert new_quantity(value, 0, fmt).string() == expect  # the asDec variant
    assert parse_quantity(expect).value() == value


# TestNewScaledSet: NewScaledQuantity(value, scale).String(), and ScaledValue after re-parsing
SCALED_TABLE = [
    (1, -9, "1n"),
    (1000, -9, "1u"),
    (1, -6, "1u"),
    (1000, -6, "1m"),
    (1, -3, "1m"),
    (1000, -3, "1"),
    (1, 0, "1"),
    (0, -9, "0"),
    (0, -6, "0"),
    (0, -3, "0"),
    (0, 0, "0"),
]


@pytest.mark.parametrize(
    ("value", "scale", "expect"),
    SCALED_TABLE,
    ids=[f"TestNewScaledSet/{v}e{s}" for v, s, _ in SCALED_TABLE],
)
def test_new_scaled(value: int, scale: int, expect: str) -> None:
    assert _int_quantity(value, scale, DECIMAL_SI).string() == expect
    assert parse_quantity(expect).scaled_value(scale) == value


# TestScaledValue: NewScaledQuantity(1, from).ScaledValue(to)
SCALED_VALUE_TABLE = [
    (-9, -9, 1),
    (-9, -6, 1),
    (-9, -3, 1),
    (-9, 0, 1),
    (-6, -9, 1000),
    (-6, -6, 1),
    (-6, -3, 1),
    (-6, 0, 1),
    (-3, -9, 1000 * 1000),
    (-3, -6, 1000),
    (-3, -3, 1),
    (-3, 0, 1),
    (0, -9, 1000 * 1000 * 1000),
    (0, -6, 1000 * 1000),
    (0, -3, 1000),
    (0, 0, 1),
    (2, -2, 100 * 100),
]


@pytest.mark.parametrize(
    ("from_scale", "to_scale", "expected"),
    SCALED_VALUE_TABLE,
    ids=[f"TestScaledValue/{f}to{t}" for f, t, _ in SCALED_VALUE_TABLE],
)
def test_scaled_value(from_scale: int, to_scale: int, expected: int) -> None:
    assert _int_quantity(1, from_scale, DECIMAL_SI).scaled_value(to_scale) == expected
    assert new_quantity(1, from_scale, DECIMAL_SI).scaled_value(to_scale) == expected


def test_example_must_parse() -> None:
    # ExampleMustParse (quantity_example_test.go)
    memory = parse_quantity("5Gi")
    assert (memory.value(), memory.format) == (5368709120, BINARY_SI)
    disk = parse_quantity("5G")
    assert (disk.value(), disk.format) == (5000000000, DECIMAL_SI)
    cores = parse_quantity("5300m")
    assert (cores.milli_value(), cores.format) == (5300, DECIMAL_SI)
    cores2 = parse_quantity("5.4")
    assert (cores2.milli_value(), cores2.format) == (5400, DECIMAL_SI)


def test_example_format() -> None:
    # ExampleFormat (quantity_example_test.go)
    assert _int_quantity(5 * 1024 * 1024 * 1024, 0, BINARY_SI).string() == "5Gi"
    assert _int_quantity(5 * 1000 * 1000 * 1000, 0, DECIMAL_SI).string() == "5G"
    assert _int_quantity(5300, -3, DECIMAL_SI).string() == "5300m"


def test_quantity_value_set() -> None:
    # TestQuantityValueSet: "1Mi" has Value 1048576 and marshals as "1Mi"
    q = parse_quantity("1Mi")
    assert q.value() == 1024 * 1024
    assert q.string() == "1Mi"


# Canonicalisation the operator applies to what users commonly write. Each expectation is
# an upstream row above in another spelling: "1000m" is TestMilliNewSet's 1000 milli = "1",
# "8192Mi" = 8Gi follows TestQuantityParseEmit's "1024Mi" -> "1Gi", "0.5Gi" is 512Mi exactly
# (TestQuantityString: 300Mi etc. print in the largest exact binary unit).
COMMON = [
    ("1000m", "1"),
    ("8192Mi", "8Gi"),
    ("0.5Gi", "512Mi"),
    ("1e3", "1e3"),
    ("100M", "100M"),
    ("-100M", "-100M"),
    ("0", "0"),
    ("1024Ki", "1Mi"),
    ("2000m", "2"),
    ("1536Mi", "1536Mi"),
    ("1.5Gi", "1536Mi"),  # quantity.go Quantity doc comment: 1.5Gi serializes as "1536Mi"
    ("1.5", "1500m"),  # quantity.go Quantity doc comment: 1.5 serializes as "1500m"
    # the Quantity doc comment still says "0.1m will rounded up to 1m", but ParseQuantity
    # rounds to nano units (TestQuantityParse: "0.00000012345" is 124n), so 0.1m is 100u
    ("0.1m", "100u"),
]


@pytest.mark.parametrize(("text", "expect"), COMMON, ids=[f"canonical/{t}" for t, _ in COMMON])
def test_common_canonical_forms(text: str, expect: str) -> None:
    assert canonical_quantity(text) == expect


# Inputs Go echoes verbatim. ParseQuantity keeps the input text (q.s) on the int64 fast path
# when the digits with leading zeros stripped do not end in "000", do not start with "0",
# and the scale is a multiple of 3 (binary: the digits are not a multiple of 8); the sign
# and any leading zeros in the input are part of that text.
VERBATIM = [
    ("+1", "+1"),
    ("01", "01"),
    ("1.500", "1.500"),
    ("100.035k", "100.035k"),
    ("+1Ki", "+1Ki"),
    ("1E3", "1E3"),
    ("1.G", "1.G"),
]


@pytest.mark.parametrize(
    ("text", "expect"), VERBATIM, ids=[f"quantity.go/reuse/{t}" for t, _ in VERBATIM]
)
def test_canonical_looking_input_is_echoed(text: str, expect: str) -> None:
    assert canonical_quantity(text) == expect


def test_decimal_si_beyond_exa_loses_its_suffix() -> None:
    # quantity.go CanonicalizeBytes: the decimal suffix for 10^21 is missing from suffix.go's
    # table, constructBytes returns nil, and the value prints as a bare mantissa
    assert canonical_quantity("1000E") == "1"
    assert canonical_quantity("1000000P") == "1"
    assert canonical_quantity("100E") == "100E"


# YAML numbers reach UnmarshalJSON as Go's JSON text for them. Float texts follow the
# ES6 Number-to-string rule Go's encoder documents ("1e+21", "1e-7", plain decimals between).
FLOATS = [
    (0.5, "0.5"),
    (2.0, "2"),
    (1e20, "100000000000000000000"),
    (1e21, "1e+21"),
    (1e-7, "1e-7"),
    (0.000001, "0.000001"),
    (1.23e-18, "1.23e-18"),
    (-1.5, "-1.5"),
    (123456789.125, "123456789.125"),
]


@pytest.mark.parametrize(("number", "expect"), FLOATS, ids=[f"json-float/{n!r}" for n, _ in FLOATS])
def test_go_float(number: float, expect: str) -> None:
    assert go_float(number) == expect


YAML_NUMBERS = [
    (4, "4"),
    (0.5, "500m"),  # "0.5" -> TestQuantityString alternate of "500m"
    (1.5, "1500m"),
    (1000, "1k"),  # TestNewSet: 1000 DecimalSI is "1k"
    (1e21, "1e+21"),  # the JSON text "1e+21" has canonical digits, so it is kept verbatim
    (-1, "-1"),
]


@pytest.mark.parametrize(
    ("value", "expect"), YAML_NUMBERS, ids=[f"yaml-number/{v!r}" for v, _ in YAML_NUMBERS]
)
def test_yaml_numbers(value: object, expect: str) -> None:
    assert canonical_quantity(value) == expect


@pytest.mark.parametrize(
    "value", [True, False, [1], {"a": 1}], ids=["true", "false", "list", "map"]
)
def test_non_scalars_fail_the_format_check(value: object) -> None:
    # UnmarshalJSON hands the raw JSON text ("true", "[1]", ...) to ParseQuantity
    with pytest.raises(ValueError, match="^quantities must match"):
        unmarshal_quantity(value)


def test_null_is_zero() -> None:
    # UnmarshalJSON: null clears the value
    assert unmarshal_quantity(None).string() == "0"


SIGNS = [("1", 1), ("-1", -1), ("0", 0), ("0Ki", 0), ("-0.5Gi", -1), ("500m", 1), ("-0", 0)]


@pytest.mark.parametrize(("text", "sign"), SIGNS, ids=[f"sign/{t}" for t, _ in SIGNS])
def test_sign(text: str, sign: int) -> None:
    assert parse_quantity(text).sign() == sign


# The operator's GPU count: gpuCountFromQuantity accepts q only if q.CmpInt64(q.Value()) == 0
WHOLE = [
    ("4", 4),
    ("4000m", 4),
    ("500m", None),
    ("1.5", None),
    ("8", 8),
    ("0", 0),
    ("1k", 1000),
    ("12E", None),
]


@pytest.mark.parametrize(("text", "whole"), WHOLE, ids=[f"whole/{t}" for t, _ in WHOLE])
def test_whole(text: str, whole: int | None) -> None:
    q = parse_quantity(text)
    assert q.whole() == whole
    assert (q.cmp_int64(q.value()) == 0) == (whole is not None)


def test_value_rounds_up() -> None:
    # quantity.go Value: "rounded up to the nearest integer away from 0"
    assert parse_quantity("500m").value() == 1
    assert parse_quantity("1001m").value() == 2
    assert parse_quantity("-1.5").value() == -2


# -- edges of the port itself; expectations follow the cited Go code paths -------------------


def test_str_and_is_zero() -> None:
    assert str(parse_quantity("1Gi")) == "1Gi"
    assert parse_quantity("0.0Ki").is_zero()
    assert not parse_quantity("1m").is_zero()


def test_zero_on_the_slow_path() -> None:
    # scale -21 is below nano, so inf.Dec is used; a zero amount is not rounded
    q = parse_quantity("0.0e-20")
    assert (q.string(), q.value(), q.whole()) == ("0", 0, 0)


def test_below_nano_rounds_up_to_one_nano() -> None:
    # ParseQuantity rounds non-zero values up to the nano scale (inf.RoundUp)
    assert parse_quantity("1e-30").string() == "1e-9"
    assert parse_quantity("-1e-30").string() == "-1e-9"


def test_absurd_exponent_does_not_blow_up() -> None:
    # 20 digits force inf.Dec; the exponent is kept rather than multiplied out
    q = parse_quantity("12345678901234567890e500")
    assert q.string() == "1234567890123456789e501"
    assert q.cmp_int64(5) == 1
    assert q.whole() is None
    assert parse_quantity("-12345678901234567890e500").cmp_int64(5) == -1


def test_cmp_int64_with_tiny_values() -> None:
    tiny = new_quantity(1, -500, DECIMAL_SI)
    assert (tiny.cmp_int64(0), tiny.cmp_int64(1), tiny.cmp_int64(-1)) == (1, -1, 1)
    assert new_quantity(-1, -500, DECIMAL_SI).cmp_int64(0) == -1


def test_whole_outside_int64() -> None:
    # gpuCountFromQuantity: Value() cannot represent these, so CmpInt64(Value()) fails
    assert parse_quantity("-10E").whole() is None
    assert parse_quantity("10E").whole() is None


# Value() by representation (amount.go AsScaledInt64, scale_int.go scaledValue)
VALUE_EDGES = [
    ("1e30", 0),  # int64Amount{1, 30}: positiveScaleInt64 overflows, Value returns 0
    ("12E", 0),  # int64Amount{12, 18}: 12e18 overflows int64 the same way
    ("-1.5", -2),  # int64Amount{-15, -1}: negativeScaleInt64 rounds away from zero
    ("-1.5e-10", 1),  # inf.Dec -1n at scale 9: Go's truncating division gives 0, then +1
    ("99999999999999999999", 7766279631452241919),  # big.Int DivMod, then Int64's low 64 bits
]


@pytest.mark.parametrize(("text", "value"), VALUE_EDGES, ids=[f"value/{t}" for t, _ in VALUE_EDGES])
def test_value_edges(text: str, value: int) -> None:
    assert parse_quantity(text).value() == value


def test_integers_beyond_64_bits_arrive_as_floats() -> None:
    # go-yaml resolves such an integer as float64, which JSON prints "1.1805916207174113e+21";
    # 17 digits at scale 5 take the fast path and print with the exponent brought down to 3
    assert canonical_quantity(2**70) == "1180591620717411300e3"


def test_non_finite_floats_are_refused() -> None:
    # encoding/json refuses NaN and infinities (UnsupportedValueError)
    with pytest.raises(ValueError):
        go_float(float("nan"))
    with pytest.raises(ValueError):
        go_float(float("inf"))


def test_negative_zero_float() -> None:
    # strconv formats -0.0 as "-0"; the quantity is plain zero
    assert go_float(-0.0) == "-0"
    assert canonical_quantity(-0.0) == "0"


def test_remove_factors_of_zero() -> None:
    # math.go removeBigIntFactors: "If d == 0, then the return values will be (0, 0)"
    assert _remove_factors(0, 10) == (0, 0)
