"""TRT-LLM backend shaping.

Single-node TRT-LLM pods are left as the user wrote them.
Mirrors: internal/dynamo/backend_trtllm.go.
"""

from __future__ import annotations

from typing import Any

from renderer.backends.common import BackendContext
from renderer.results import unsupported


class TRTLLMBackend:
    def update_container(self, container: dict[str, Any], ctx: BackendContext) -> dict[str, Any]:
        if ctx.number_of_nodes <= 1:
            return container
        raise unsupported("spec.multinode", "multinode TRT-LLM MPI/SSH launch shaping")

    def update_pod_spec(self, pod_spec: dict[str, Any], ctx: BackendContext) -> dict[str, Any]:
        return pod_spec


BACKEND = TRTLLMBackend()
