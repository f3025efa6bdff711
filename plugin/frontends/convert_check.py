"""What ``convert`` checks its output against: the render of the objects, under the gates that shape it.

``convert`` promises that rendering what it writes gives what rendering the input gives. The
default output leaves out what the API server would store but the render never reads (status,
preservation annotations or parts of them), and it keeps the user's order of components; both
are kept only where this check shows the render unchanged.

What "the render" is here: the objects the core makes of the bundle, with the operator's Helm
defaults, once on the component pathway and once on the Grove pathway (the two pathways read
different parts of a graph; a PodCliqueSet lists its cliques in component order). Objects are
compared one by one, byte for byte as JSON, as a set: the order of objects in the stream follows
the order of components, and no client applies a stream in its order (kubectl and Argo CD
order by kind and sync wave).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from plugin.yamlio.codec import json_line
from renderer.bundle import Item, stream_bundle
from renderer.config import RenderConfig
from renderer.results import Code, Result

def _with_ingress(grove: bool) -> RenderConfig:
    """An operator configuration under which every preserved ingress field is read.

    The render reads a converted component's preserved ``ingress`` on both pathways, but what
    it makes of it depends on the operator's ``ingress`` settings: a VirtualService only when
    they name a gateway, and a preserved ingress that is off hides the default frontend
    Ingress only when they name a controller class. Under the Helm defaults neither shows, so a
    check run only there would drop an ingress another cluster's operator reads.
    Mirrors: internal/dynamo/graph.go GenerateDefaultIngressSpec, GenerateComponentIngress,
    GenerateComponentVirtualService.
    """
    from renderer.operator_config import helm_default_operator_config
    from renderer.records import replace

    operator = helm_default_operator_config()
    ingress = operator.ingress.model_copy(update={
        "virtual_service_gateway": "istio-system/convert-check", "controller_class_name": "convert-check",
        "controller_tls_secret_name": "convert-check-tls", "host_suffix": "convert-check.example",
    })
    return replace(RenderConfig(grove_enabled=grove), operator=operator.model_copy(update={"ingress": ingress}))


# The configurations the round-trip check renders under, each with what it stands for in the
# info line that says who reads a kept member. Together they read every preserved member some
# operator configuration or gate the render knows could read (renderer.conversion.alpha_view
# lists the reads; only the ingress depends on the configuration).
DEFAULTS = "the Helm defaults"
CHECKS: tuple[tuple[str, RenderConfig], ...] = (
    (DEFAULTS, RenderConfig()),
    ("the Grove pathway", RenderConfig(grove_enabled=True)),
    ("an operator configuration with ingress.virtualServiceGateway or ingress.controllerClassName", _with_ingress(False)),
    ("the Grove pathway with ingress.virtualServiceGateway or ingress.controllerClassName", _with_ingress(True)),
)
CHECK_CONFIGS = tuple(config for _, config in CHECKS)


def readers(target: Rendering, candidate: Rendering | None) -> list[str]:
    """What each check configuration that renders ``candidate`` differently from ``target`` stands for."""
    if candidate is None:
        return [label for label, _ in CHECKS]
    return [label for (label, _), want, got in zip(CHECKS, target, candidate) if want != got]
DEFAULT_NAMESPACE = "default"

Rendering = tuple[tuple[str, ...] | None, ...]


def render_problems(objects: Sequence[Any]) -> list[Result]:
    """Why ``objects`` do not render on the component pathway: its errors (empty when they render there)."""
    results: list[Result] = []
    try:
        for _ in stream_bundle((Item(obj, "", i) for i, obj in enumerate(objects)), CHECK_CONFIGS[0], DEFAULT_NAMESPACE, results):
            pass
    except RecursionError:  # pragma: no cover - hostile nesting
        return [Result("too deeply nested to render", code=Code.INPUT)]
    return [r for r in results if r.is_error]


def rendering(objects: Sequence[Any]) -> Rendering | None:
    """The objects ``objects`` render to under each checked configuration (sorted; None where it fails).

    None when every configuration fails: then there is nothing to compare.
    """
    out: list[tuple[str, ...] | None] = []
    for config in CHECK_CONFIGS:
        results: list[Result] = []
        try:
            lines = sorted(json_line(obj) for obj in stream_bundle(
                (Item(obj, "", i) for i, obj in enumerate(objects)), config, DEFAULT_NAMESPACE, results
            ))
        except RecursionError:  # pragma: no cover - hostile nesting; the caller keeps the stored form
            return None
        out.append(None if any(r.is_error for r in results) else tuple(lines))
    return None if all(o is None for o in out) else tuple(out)
