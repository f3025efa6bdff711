"""The reference YAML writer: PyYAML's dumper with the project's scalar and style rules.

Block style, sorted keys, no aliases, literal blocks for multi-line strings, and every string
that go-yaml v2 or YAML 1.1 would read as another type quoted. ``plugin.yamlio.fast`` writes the
same bytes faster and falls back on this writer; KRM pass-through nodes are written with it.
"""

from __future__ import annotations

from typing import Any

import yaml

from renderer.gocompat.yamlresolve import STR as _STR
from renderer.gocompat.yamlresolve import go_resolve

_BaseDumper: Any = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


class Dumper(_BaseDumper):  # type: ignore[misc]
    """Block style, no aliases, literal blocks for multi-line strings.

    Strings that go-yaml v2 would read as another type (``n``, ``1e3``, ``0o17``) are quoted,
    and so are those PyYAML's YAML 1.1 rules would (a string stays a string for either reader).
    """

    def resolve(self, kind: Any, value: Any, implicit: Any) -> Any:
        if kind is yaml.ScalarNode and implicit[0]:
            tag = go_resolve(value)[0]
            if tag != _STR:
                return tag
        return super().resolve(kind, value, implicit)

    def ignore_aliases(self, data: Any) -> bool:
        return True


def _represent_str(dumper: Any, data: str) -> Any:
    if "\n" in data:
        return dumper.represent_scalar("tag:yaml.org,2002:str", data, style="|")
    return dumper.represent_scalar("tag:yaml.org,2002:str", data)


Dumper.add_representer(str, _represent_str)


def dump_documents_reference(objects: list[Any]) -> str:
    """The same stream written by PyYAML with ``Dumper`` (the fast emitter's reference and fallback)."""
    if not objects:
        return ""
    return yaml.dump_all(
        objects,
        Dumper=Dumper,
        default_flow_style=False,
        sort_keys=True,
        allow_unicode=True,
        width=2**31 - 1,
        explicit_start=True,
    )
