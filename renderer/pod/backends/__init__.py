"""Backend framework shaping: an explicit registry of the vLLM, SGLang, TRT-LLM and noop backends.

Each backend lives in its own module, imported when a component first needs it (start-up
time: a run that renders only vLLM components never loads the others).

Mirrors: internal/dynamo/graph.go Backend, BackendFactory, MultinodeDeployerFactory.
"""

from __future__ import annotations

from typing import Any

from renderer import consts
from renderer.pod.backends.common import Backend, BackendContext
from renderer.results import RenderError

FRAMEWORKS = (consts.BACKEND_SGLANG, consts.BACKEND_VLLM, consts.BACKEND_TRTLLM, consts.BACKEND_NOOP)


def get_backend(framework: str) -> Backend:
    """Mirrors: internal/dynamo/graph.go BackendFactory (a miss is a render error).

    Each backend module is imported here, on first use, with a plain import.
    """
    if framework == consts.BACKEND_VLLM:
        from renderer.pod.backends import vllm

        return vllm.BACKEND
    if framework == consts.BACKEND_SGLANG:
        from renderer.pod.backends import sglang

        return sglang.BACKEND
    if framework == consts.BACKEND_TRTLLM:
        from renderer.pod.backends import trtllm

        return trtllm.BACKEND
    if framework == consts.BACKEND_NOOP:
        from renderer.pod.backends import noop

        return noop.BACKEND
    raise RenderError(f"unsupported backend framework: {framework}", field="spec.backendFramework")


def __getattr__(name: str) -> Any:
    """``BACKENDS``: every backend by framework (imports them all)."""
    if name == "BACKENDS":
        return {framework: get_backend(framework) for framework in FRAMEWORKS}
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["BACKENDS", "FRAMEWORKS", "Backend", "BackendContext", "get_backend"]
