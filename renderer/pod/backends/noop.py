"""The noop backend: frontends, planners, EPP and workers without a framework.

Mirrors: internal/dynamo/graph.go NoopBackend.
"""

from __future__ import annotations

from typing import Any

from renderer.pod.backends.common import BackendContext


class NoopBackend:
    def update_container(self, container: dict[str, Any], ctx: BackendContext) -> dict[str, Any]:
        return container

    def update_pod_spec(self, pod_spec: dict[str, Any], ctx: BackendContext) -> dict[str, Any]:
        return pod_spec


BACKEND = NoopBackend()
