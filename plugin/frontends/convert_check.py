"""What ``convert`` checks its output against: the render of the objects, under the gates that shape it.

``convert`` promises that rendering what it writes gives what rendering the input gives. The
default output leaves out what the API server would store but the render never reads (status,
preservation annotations or parts of them), and it keeps the user's order of components; both
are kept only where this check shows the render unchanged.

What "the render" is here: the objects the core makes of the bundle under each of ``CHECKS``:
the operator's Helm defaults, on the component pathway and on the Grove pathway (the two
pathways read different parts of a graph; a PodCliqueSet lists its cliques in component order),
and both again under an operator configuration that reads a preserved ingress; and, when
``convert`` is given ``--operator-config`` or ``--config``, under those settings too
(``with_given``). A member is left out only when no one of them renders differently. Objects are
compared one by one, byte for byte as JSON, as a set: the order of objects in the stream follows
the order of components, and no client applies a stream in its order (kubectl and Argo CD
order by kind and sync wave).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from plugin.yamlio.codec import json_line
from renderer.bundle import Item, StateLayer, stream_bundle
from renderer.config import RenderConfig
from renderer.records import dataclass
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


@dataclass(frozen=True)
class Check:
    """One configuration the round-trip check renders under, and what it stands for in an info line."""

    label: str
    config: RenderConfig
    namespace: str = "default"
    cluster_layers: tuple[StateLayer, ...] = ()


# The configurations the round-trip check renders under, each with what it stands for in the
# info line that says who reads a kept member. Together they read every preserved member some
# operator configuration or gate the render knows could read (renderer.conversion.alpha_view
# lists the reads; only the ingress depends on the configuration).
DEFAULTS = "the Helm defaults"
GIVEN = "the given settings"
CHECKS: tuple[Check, ...] = (
    Check(DEFAULTS, RenderConfig()),
    Check("the Grove pathway", RenderConfig(grove_enabled=True)),
    Check("an operator configuration with ingress.virtualServiceGateway or ingress.controllerClassName", _with_ingress(False)),
    Check("the Grove pathway with ingress.virtualServiceGateway or ingress.controllerClassName", _with_ingress(True)),
)


def with_given(config: RenderConfig, namespace: str, cluster_layers: Sequence[StateLayer] = ()) -> tuple[Check, ...]:
    """``CHECKS`` and, last, the settings ``convert`` was given (``--operator-config``, ``--config``).

    The user's own operator configuration, gates, release profile and cluster facts may read a
    member none of the fixed configurations reads; rendering under them too keeps it. The
    sources themselves are never emitted by the check (``keepSources`` off): the comparison is of
    what they render to.
    """
    from renderer.records import replace

    given = Check(GIVEN, replace(config, keep_sources=False), namespace, tuple(cluster_layers))
    return (*CHECKS, given)


def primary(checks: Sequence[Check]) -> Check:
    """The configuration whose render problems explain a refusal: the given settings, else the Helm defaults."""
    return next((check for check in checks if check.label == GIVEN), checks[0])


def readers(target: Rendering, candidate: Rendering | None, checks: Sequence[Check] = CHECKS) -> list[str]:
    """What each check configuration that renders ``candidate`` differently from ``target`` stands for."""
    if candidate is None:
        return [check.label for check in checks]
    return [check.label for check, want, got in zip(checks, target, candidate) if want != got]


Rendering = tuple[tuple[str, ...] | None, ...]


def render_problems(objects: Sequence[Any], checks: Sequence[Check] = CHECKS) -> list[Result]:
    """Why ``objects`` do not render under the ``primary`` check: its errors (empty when they render there)."""
    check = primary(checks)
    results: list[Result] = []
    try:
        for _ in stream_bundle((Item(obj, "", i) for i, obj in enumerate(objects)), check.config, check.namespace, results,
                               check.cluster_layers):
            pass
    except RecursionError:  # pragma: no cover - hostile nesting
        return [Result("too deeply nested to render", code=Code.INPUT)]
    return [r for r in results if r.is_error]


def rendering(objects: Sequence[Any], checks: Sequence[Check] = CHECKS) -> Rendering | None:
    """The objects ``objects`` render to under each of ``checks`` (sorted; None where it fails).

    None when every configuration fails: then there is nothing to compare.
    """
    out: list[tuple[str, ...] | None] = []
    for check in checks:
        results: list[Result] = []
        try:
            lines = sorted(json_line(obj) for obj in stream_bundle(
                (Item(obj, "", i) for i, obj in enumerate(objects)), check.config, check.namespace, results,
                check.cluster_layers,
            ))
        except RecursionError:  # pragma: no cover - hostile nesting; the caller keeps the stored form
            return None
        out.append(None if any(r.is_error for r in results) else tuple(lines))
    return None if all(o is None for o in out) else tuple(out)
