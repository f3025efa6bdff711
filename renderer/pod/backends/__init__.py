"""Backend framework shaping: an explicit registry of the vLLM, SGLang, TRT-LLM and noop backends.

Mirrors: internal/dynamo/graph.go Backend, BackendFactory, MultinodeDeployerFactory.
"""

from __future__ import annotations

from renderer import consts
from renderer.pod.backends import noop, sglang, trtllm, vllm
from renderer.pod.backends.common import Backend, BackendContext
from renderer.results import RenderError

BACKENDS: dict[str, Backend] = {
    consts.BACKEND_SGLANG: sglang.BACKEND,
    consts.BACKEND_VLLM: vllm.BACKEND,
    consts.BACKEND_TRTLLM: trtllm.BACKEND,
    consts.BACKEND_NOOP: noop.BACKEND,
}


def get_backend(framework: str) -> Backend:
    """Mirrors: internal/dynamo/graph.go BackendFactory (a miss is a render error)."""
    try:
        return BACKENDS[framework]
    except KeyError:
        raise RenderError(f"unsupported backend framework: {framework}", field="spec.backendFramework") from None


__all__ = ["BACKENDS", "Backend", "BackendContext", "get_backend"]
