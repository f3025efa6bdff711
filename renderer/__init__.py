"""dynamo-render's pure rendering core: no I/O, no environment, no clock.

Public surface (imported lazily so that importing a submodule stays cheap): render a bundle
(``render_bundle``, the one API every front end calls) or one DCD, the render configuration and
cluster state types, and the result model.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "ClusterState": "renderer.cluster.state",
    "cluster_state_from_objects": "renderer.cluster.state",
    "RenderConfig": "renderer.config",
    "build_render_config": "renderer.config",
    "Item": "renderer.bundle",
    "Rendered": "renderer.bundle",
    "render_bundle": "renderer.bundle",
    "stream_bundle": "renderer.bundle",
    "render_component": "renderer.objects.component",
    "RenderError": "renderer.results",
    "Result": "renderer.results",
    "Severity": "renderer.results",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'renderer' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
