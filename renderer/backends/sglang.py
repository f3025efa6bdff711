"""SGLang backend shaping.

Single-node SGLang pods are left as the user wrote them (the compilation cache only logs).
Mirrors: internal/dynamo/backend_sglang.go.
"""

from __future__ import annotations

from typing import Any

from renderer.backends.common import BackendContext
from renderer.results import unsupported


class SGLangBackend:
    def update_container(self, container: dict[str, Any], ctx: BackendContext) -> dict[str, Any]:
        if ctx.number_of_nodes <= 1:
            return container
        raise unsupported("spec.multinode", "multinode SGLang launch shaping")

    def update_pod_spec(self, pod_spec: dict[str, Any], ctx: BackendContext) -> dict[str, Any]:
        return pod_spec


BACKEND = SGLangBackend()
