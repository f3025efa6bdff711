"""vLLM backend shaping.

Mirrors: internal/dynamo/backend_vllm.go VLLMBackend.
"""

from __future__ import annotations

from typing import Any

from renderer.backends.common import BackendContext
from renderer.results import unsupported


class VLLMBackend:
    def update_container(self, container: dict[str, Any], ctx: BackendContext) -> dict[str, Any]:
        """Mirrors: backend_vllm.go VLLMBackend.UpdateContainer."""
        if ctx.number_of_nodes > 1:
            raise unsupported("spec.multinode", "multinode vLLM launch shaping")
        # A compilation cache points vLLM at its mount path (appended, never de-duplicated).
        if ctx.compilation_cache_mount_path:
            env = list(container.get("env") or [])
            env.append({"name": "VLLM_CACHE_ROOT", "value": ctx.compilation_cache_mount_path})
            container = dict(container, env=env)
        return container

    def update_pod_spec(self, pod_spec: dict[str, Any], ctx: BackendContext) -> dict[str, Any]:
        return pod_spec


BACKEND = VLLMBackend()
