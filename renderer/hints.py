"""What to change, in the project's words: the hints a result carries after the operator's own message.

The operator's messages are kept word for word (``Result.message``); a newcomer also needs to
know what a valid value looks like and which setting turns a feature on. Each hint here is
attached where the rule fires (``Result.hint``) and printed after the message as ``; fix: ...``.
"""

from __future__ import annotations

from renderer.results import go_quote as show


def runtime_version(image: str) -> str:
    """For an image tag with no semantic version (``my-tag``, ``latest``, ``<your-registry>/...``)."""
    return (
        f'give the main container image a version tag such as ":1.4.0" (it is {show(image)}), '
        "or set runtimeVersionOverride to the Dynamo runtime version the image holds"
    )


_BYTE_UNITS = {"KB": "k", "MB": "M", "GB": "G", "TB": "T", "PB": "P", "EB": "E",
               "KIB": "Ki", "MIB": "Mi", "GIB": "Gi", "TIB": "Ti", "PIB": "Pi", "EIB": "Ei"}


def quantity(value: object) -> str:
    """For a value that is not a Kubernetes quantity (``80GB``, ``4 GPUs``, ``1.5 Gi``)."""
    hint = (
        'write a Kubernetes quantity: a number and an optional suffix, such as "4", "500m", "80Gi" '
        '(binary Ki Mi Gi Ti Pi Ei) or "80G" (decimal k M G T P E)'
    )
    text = str(value).strip() if isinstance(value, (str, int, float)) and not isinstance(value, bool) else ""
    number = text.rstrip("BbIiKkMmGgTtPpEe ")
    unit = text[len(number):].strip().upper()
    if number and unit in _BYTE_UNITS and _is_number(number):
        if unit.startswith("K") and len(unit) == 2:
            return f'{hint}; for {show(text)} write "{number}k" or "{number}Ki"'
        suffix = _BYTE_UNITS[unit]
        if len(unit) == 2:
            return f'{hint}; for {show(text)} write "{number}{suffix}" or "{number}{suffix}i"'
        return f'{hint}; for {show(text)} write "{number}{suffix}"'
    return hint


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def whole_number() -> str:
    """For a GPU or other extended resource whose quantity is not a whole number (the message shows the value)."""
    return 'GPUs and other extended resources are counted in whole units: write a whole number such as "1" or "4"'


__all__ = ["quantity", "runtime_version", "whole_number"]
