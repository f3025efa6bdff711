"""What to change, in the project's words: the hints a result carries after the operator's own message.

The operator's messages are kept word for word (``Result.message``); a newcomer also needs to
know what a valid value looks like and which setting turns a feature on. Each hint here is
attached where the rule fires (``Result.hint``) and printed after the message as ``; fix: ...``.
"""

from __future__ import annotations

from collections.abc import Iterable

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


# The runtime image each backend's examples run (the upstream recipes and examples).
_RUNTIME_IMAGES = {"vllm": "vllm-runtime", "sglang": "sglang-runtime", "trtllm": "tensorrtllm-runtime"}


def main_image(backend_framework: str = "") -> str:
    """For a component whose main container has no image."""
    runtime = _RUNTIME_IMAGES.get(backend_framework, "vllm-runtime")
    return f'give the main container the Dynamo runtime image it runs, such as "nvcr.io/nvidia/ai-dynamo/{runtime}:1.4.0"'


def grove_pathway(standalone: bool = False) -> str:
    """For a feature that only the Grove pathway renders (minAvailable, the GPU Memory Service modes, forceScalingGroup)."""
    if standalone:
        return "a standalone DynamoComponentDeployment never runs on Grove: make it a component of a DynamoGraphDeployment on the Grove pathway"
    return (
        "put the graph on the Grove pathway: orchestrators.grove.enabled: true in the operator configuration "
        "(--operator-config), or, without one, the setting gates.grove: true (Grove installed in the cluster); "
        'a graph annotated nvidia.com/enable-grove: "false" stays on the component pathway'
    )


def checkpoints_disabled() -> str:
    """For a checkpoint on a component while the operator configuration disables checkpoints."""
    return "enable checkpoints in the operator configuration (checkpoint.enabled: true, with its storage) passed with --operator-config"


def placeholder(value: str) -> str:
    """For a name or namespace that is a template placeholder (``${DGD_NAME}``, ``<your-namespace>``), else empty."""
    if any(mark in value for mark in ("${", "{{", "<", ">", "$(")):
        return (
            f"{show(value)} is a template placeholder: fill it in before rendering "
            "(envsubst, helm template, or a kustomize patch), then render the result"
        )
    return ""


def dns_name(value: str, limit: int, subdomain: bool) -> str:
    """For a name the API server refuses: the nearest valid name, when there is one."""
    import re

    allowed = r"[^a-z0-9.-]" if subdomain else r"[^a-z0-9-]"
    guess = re.sub(allowed, "-", value.lower())
    guess = re.sub(r"-{2,}", "-", guess).strip("-.")[:limit].strip("-.")
    if not guess or guess == value:
        return ""
    characters = 'lowercase letters, digits, "-" and "."' if subdomain else 'lowercase letters, digits and "-"'
    return f"use {characters}, starting and ending with a letter or digit, such as {show(guess)}"


def did_you_mean(name: str, known: Iterable[str]) -> str:
    """For an unknown field: the known field it most likely meant, when one is close (else empty)."""
    import difflib

    names = sorted(str(k) for k in known)
    if not names:
        return ""
    folded = {n.lower(): n for n in names}
    close = [folded[name.lower()]] if name.lower() in folded and folded[name.lower()] != name else []
    close = close or difflib.get_close_matches(name, names, n=1, cutoff=0.75)
    return f"did you mean {show(close[0])}?" if close else ""


__all__ = [
    "checkpoints_disabled", "did_you_mean", "dns_name", "grove_pathway", "main_image", "placeholder", "quantity", "runtime_version",
    "whole_number",
]
