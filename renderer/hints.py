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


__all__ = ["runtime_version"]
