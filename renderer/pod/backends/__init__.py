"""Backend framework shaping: an explicit registry of the vLLM, SGLang, TRT-LLM and noop backends.

Each backend lives in its own module, imported when a component first needs it (start-up
time: a run that renders only vLLM components never loads the others).

Mirrors: internal/dynamo/graph.go Backend, BackendFactory, MultinodeDeployerFactory.
"""

from __future__ import annotations

import importlib
from typing import Any

from renderer import consts
from renderer.pod.backends.common import Backend, BackendContext
from renderer.results import RenderError

# Framework -> the module under renderer.pod.backends that defines its BACKEND.
MODULES: dict[str, str] = {
    consts.BACKEND_SGLANG: "sglang",
    consts.BACKEND_VLLM: "vllm",
    consts.BACKEND_TRTLLM: "trtllm",
    consts.BACKEND_NOOP: "noop",
}


def get_backend(framework: str) -> Backend:
    """Mirrors: internal/dynamo/graph.go BackendFactory (a miss is a render error)."""
    module = MODULES.get(framework)
    if module is None:
        raise RenderError(f"unsupported backend framework: {framework}", field="spec.backendFramework")
    backend: Backend = importlib.import_module(f"{__name__}.{module}").BACKEND
    return backend


def __getattr__(name: str) -> Any:
    """``BACKENDS``: every backend by framework (imports them all)."""
    if name == "BACKENDS":
        return {framework: get_backend(framework) for framework in MODULES}
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["BACKENDS", "MODULES", "Backend", "BackendContext", "get_backend"]
