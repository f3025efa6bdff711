"""Which objects a render made: the marker on rendered objects, and what it lets us check.

kpt keeps a function's output in the package: the next ``kpt fn eval`` or ``kpt fn render``
sees last run's rendered objects among its inputs, and a kustomize overlay over hydrated
``render`` or ``hydrate-check`` output hands them to the Argo CD plugin. So every object any
front end renders (the KRM function, ``render``, ``hydrate-check``, the Argo CD plugin) carries
three annotations, written by ``marker`` in one format for all:

- ``dynamo-render.dev/rendered-from``: the source that rendered it, ``Kind/namespace/name``;
- ``dynamo-render.dev/rendered-as``: its own ``namespace/name`` when rendered (``name`` for a
  cluster-scoped object);
- ``dynamo-render.dev/rendered-digest``: ``sha256:`` and 32 hex digits, a digest of the object as
  rendered (the two annotations above included; the digest itself and the orchestrators'
  bookkeeping annotations left out, ``digest``).

With them a re-run can tell its own earlier output from hand-written objects: it replaces what
a present source renders again, prunes what no source renders any more (a renamed or deleted
DCD), and refuses to overwrite a hand-written object whose name a rendered one would take. Only
an object whose digest still matches its content is pruned: a hand-written object carrying a
copied marker (a rendered Service copied to customise it) or one edited since is kept, with a
warning. ``mark`` must be the last change made to a rendered object. An
object whose current name or namespace differs from ``rendered-as`` was renamed after the
render (an overlay's ``namePrefix`` or ``namespace``), which leaves the rendered environment
(``DYN_NAMESPACE``, ``DYN_PARENT_DGD_K8S_NAMESPACE``, Service names in commands) pointing at the
old names: that is a warning wherever one of our front ends sees such an object.

Mirrors the role of: kpt's ``config.kubernetes.io/...`` inventory and ``kpt live`` prune (an
object owned by one applier is pruned by it), applied to function output in a package.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from renderer.clashes import BOOKKEEPING_PREFIX
from renderer.results import Code, ResourceRef, Result, Severity

# Under the prefix the core's clash check reads as bookkeeping (renderer.clashes.BOOKKEEPING_PREFIX).
RENDERED_FROM_ANNOTATION = BOOKKEEPING_PREFIX + "rendered-from"
RENDERED_AS_ANNOTATION = BOOKKEEPING_PREFIX + "rendered-as"
RENDERED_DIGEST_ANNOTATION = BOOKKEEPING_PREFIX + "rendered-digest"
# Annotations kpt and kustomize add or rewrite on the way (path, index, ids): not part of the digest.
_ORCHESTRATOR_PREFIXES = ("internal.config.kubernetes.io/", "config.kubernetes.io/", "config.k8s.io/", "kustomize.config.k8s.io/")


def _meta(obj: Any) -> dict[str, Any]:
    meta = obj.get("metadata") if isinstance(obj, dict) else None
    return meta if isinstance(meta, dict) else {}


def _annotations(obj: Any) -> dict[str, Any]:
    annotations = _meta(obj).get("annotations")
    return annotations if isinstance(annotations, dict) else {}


def object_name(obj: Any) -> str:
    """``namespace/name``, or ``name`` for an object without a namespace."""
    meta = _meta(obj)
    name, namespace = str(meta.get("name") or ""), str(meta.get("namespace") or "")
    return f"{namespace}/{name}" if namespace else name


def source_key(source: Any, default_namespace: str) -> str:
    """How a rendered object names its source: ``Kind/namespace/name``."""
    meta = _meta(source)
    kind = source.get("kind") if isinstance(source, dict) else ""
    namespace = str(meta.get("namespace") or default_namespace)
    return f"{kind}/{namespace}/{meta.get('name') or ''}"


def rendered_from(obj: Any) -> str | None:
    """The source an earlier render made this object from; None for anything else."""
    value = _annotations(obj).get(RENDERED_FROM_ANNOTATION)
    return value if isinstance(value, str) and value else None


def digest(obj: Any) -> str:
    """``sha256:`` and 32 hex digits over the object's content, the digest and bookkeeping annotations left out.

    The content is the object's canonical JSON (sorted keys), so the YAML spelling an
    orchestrator writes it back with does not count.
    """
    import hashlib
    import json

    meta = dict(_meta(obj))
    annotations = {
        key: value for key, value in _annotations(obj).items()
        if key != RENDERED_DIGEST_ANNOTATION and not key.startswith(_ORCHESTRATOR_PREFIXES)
    }
    if annotations:
        meta["annotations"] = annotations
    else:
        meta.pop("annotations", None)
    content = {**obj, "metadata": meta} if meta or "metadata" in obj else obj
    text = json.dumps(content, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return "sha256:" + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def mark(obj: dict[str, Any], source: str) -> dict[str, Any]:
    """A copy of a rendered object carrying the ownership marker (the last change made to it)."""
    meta = dict(_meta(obj))
    annotations = dict(_annotations(obj))
    annotations[RENDERED_FROM_ANNOTATION] = source
    annotations[RENDERED_AS_ANNOTATION] = object_name(obj)
    meta["annotations"] = annotations
    marked = {**obj, "metadata": meta}
    annotations[RENDERED_DIGEST_ANNOTATION] = digest(marked)
    return marked


def intact(obj: Any) -> bool:
    """Whether the object is what an earlier render made, unchanged: its digest matches its content."""
    recorded = _annotations(obj).get(RENDERED_DIGEST_ANNOTATION)
    return isinstance(recorded, str) and recorded == digest(obj)


def marker(default_namespace: str) -> Callable[[dict[str, Any], dict[str, Any]], dict[str, Any]]:
    """The marking every front end applies to what it renders (``renderer.bundle`` ``mark``): one format for all.

    ``default_namespace`` is the namespace of a source that names none.
    """

    def mark_rendered(obj: dict[str, Any], source: dict[str, Any]) -> dict[str, Any]:
        return mark(obj, source_key(source, default_namespace))

    return mark_rendered


def renamed_after_render(objects: Iterable[tuple[Any, str, int | None]]) -> list[Result]:
    """A warning for each rendered object whose name or namespace changed after the render.

    ``objects`` are ``(object, file, index)``. Only objects carrying the marker are checked.
    """
    results: list[Result] = []
    for obj, file, index in objects:
        annotations = _annotations(obj)
        was = annotations.get(RENDERED_AS_ANNOTATION)
        if not isinstance(was, str) or not rendered_from(obj):
            continue
        now = object_name(obj)
        if now == was:
            continue
        results.append(
            Result(
                f"rendered as {was} but now named {now}: something renamed it after dynamo-render ran (a kustomize "
                "namePrefix, nameSuffix or namespace?), so the names rendered into its pods (DYN_NAMESPACE, "
                "DYN_PARENT_DGD_K8S_NAMESPACE, Service hosts) still point at the old ones; run dynamo-render after "
                "the transformers that rename (in the overlay), not before them",
                severity=Severity.WARNING,
                resource=ResourceRef.of(obj),
                file=file,
                index=index,
                code=Code.REFERENCE,
            )
        )
    return results


__all__ = [
    "RENDERED_AS_ANNOTATION",
    "RENDERED_DIGEST_ANNOTATION",
    "RENDERED_FROM_ANNOTATION",
    "digest",
    "intact",
    "mark",
    "marker",
    "object_name",
    "renamed_after_render",
    "rendered_from",
    "source_key",
]
