"""v1beta1-only fields restored from a preserved v1beta1 spec when an object goes back to v1beta1.

An object stored as v1beta1 and read as v1alpha1 carries its v1beta1-only parts in the
preserved-spec annotation; converting it to v1beta1 again puts them back.

Mirrors: api/v1alpha1/shared_spec_conversion.go restoreSharedHubOnlyFields
"""

from __future__ import annotations

from typing import Any

from renderer.results import unsupported


def restore_hub_only_fields(dst: dict[str, Any], restored: dict[str, Any], src: dict[str, Any]) -> None:
    """Put the preserved v1beta1-only fields of one component back into ``dst``.

    Mirrors: shared_spec_conversion.go restoreSharedHubOnlyFields
    """
    del src
    for key in ("podTemplate", "frontendSidecar", "experimental"):
        if key in restored:
            raise unsupported(f"preserved v1beta1 {key}", "restoring it from the preserved-spec annotation")
    del dst
