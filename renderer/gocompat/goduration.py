"""Go's durations, read and written: ``time.ParseDuration`` and ``time.Duration.String``.

Mirrors: time/format.go ParseDuration and time/time.go Duration.String
"""

from __future__ import annotations

_DURATION_UNITS = {
    "ns": 1,
    "us": 1_000,
    "\u00b5s": 1_000,  # micro sign
    "\u03bcs": 1_000,  # Greek mu
    "ms": 1_000_000,
    "s": 1_000_000_000,
    "m": 60_000_000_000,
    "h": 3_600_000_000_000,
}


def parse_go_duration(text: str) -> int:
    """Nanoseconds of a Go duration string (``1h30m``, ``1.5s``, ``-300ms``, ``0``).

    Mirrors: time.ParseDuration
    """
    invalid = ValueError(f'time: invalid duration "{text}"')
    s = text
    neg = False
    if s and s[0] in "+-":
        neg, s = s[0] == "-", s[1:]
    if s == "0":
        return 0
    if not s:
        raise invalid
    total = 0
    while s:
        if not (s[0] == "." or "0" <= s[0] <= "9"):
            raise invalid
        i = 0
        whole = 0
        while i < len(s) and "0" <= s[i] <= "9":
            whole = whole * 10 + ord(s[i]) - 48
            if whole > 1 << 63:
                raise invalid
            i += 1
        pre, s = i > 0, s[i:]
        frac, scale, post = 0, 1.0, False
        if s and s[0] == ".":
            s = s[1:]
            i, overflow = 0, False
            while i < len(s) and "0" <= s[i] <= "9":
                if not overflow:
                    grown = frac * 10 + ord(s[i]) - 48
                    if frac > ((1 << 63) - 1) // 10 or grown > 1 << 63:
                        overflow = True
                    else:
                        frac, scale = grown, scale * 10
                i += 1
            post, s = i > 0, s[i:]
        if not pre and not post:
            raise invalid
        i = 0
        while i < len(s) and not (s[i] == "." or "0" <= s[i] <= "9"):
            i += 1
        if i == 0:
            raise ValueError(f'time: missing unit in duration "{text}"')
        unit_text, s = s[:i], s[i:]
        if unit_text not in _DURATION_UNITS:
            raise ValueError(f'time: unknown unit "{unit_text}" in duration "{text}"')
        unit = _DURATION_UNITS[unit_text]
        if whole > (1 << 63) // unit:
            raise invalid
        value = whole * unit
        if frac > 0:
            value += int(float(frac) * (float(unit) / scale))
            if value > 1 << 63:
                raise invalid
        total += value
        if total > 1 << 63:
            raise invalid
    if neg:
        return -total
    if total > (1 << 63) - 1:
        raise invalid
    return total


def format_go_duration(nanoseconds: int) -> str:
    """``72h3m0.5s``, ``1.5ms``, ``0s``: Go's duration text.

    Mirrors: time.Duration String
    """
    if nanoseconds == 0:
        return "0s"
    sign = "-" if nanoseconds < 0 else ""
    u = abs(nanoseconds)

    def with_fraction(value: int, precision: int) -> tuple[int, str]:
        whole, fraction = divmod(value, 10**precision)
        digits = f"{fraction:0{precision}d}".rstrip("0") if precision else ""
        return whole, f".{digits}" if digits else ""

    if u < 1_000_000_000:
        precision, unit = (0, "ns") if u < 1_000 else (3, "\u00b5s") if u < 1_000_000 else (6, "ms")
        whole, fraction = with_fraction(u, precision)
        return f"{sign}{whole}{fraction}{unit}"
    seconds, fraction = with_fraction(u, 9)
    text = f"{seconds % 60}{fraction}s"
    minutes = seconds // 60
    if minutes:
        text = f"{minutes % 60}m{text}"
        if minutes // 60:
            text = f"{minutes // 60}h{text}"
    return sign + text
