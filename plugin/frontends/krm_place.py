"""Where the KRM function files what it renders, and how it settles what an earlier run left.

kpt writes each output item to the file its path annotation names (relative to its package),
at the index its index annotation gives, and refuses two items for one path and index. So a
rendered object takes its source's slot (or the next free index of the source's file), carries
the source's package and sequence-indent annotations, replaces last run's copy of itself (the
ownership marker, ``plugin.ownership``), and last run's objects that no source renders any more
are pruned. A hand-written object of a rendered identity is never overwritten: an error names
both. Orchestrator bookkeeping annotations never reach the cluster's view of an object.

Mirrors: kyaml/kio/kioutil (path, index and seqindent annotations), kpt pkg/fn (files written
from the output items).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence, Set as AbstractSet
from functools import partial
from renderer.records import dataclass
from typing import Any

from plugin import ownership
from plugin.files import LOCAL_CONFIG_ANNOTATION
from plugin.frontends.krm_wire import (
    INDEX_ANNOTATION,
    LEGACY_INDEX_ANNOTATION,
    LEGACY_PATH_ANNOTATION,
    PACKAGE_PATH_ANNOTATION,
    PATH_ANNOTATION,
    SEQINDENT_ANNOTATION,
    Deferred,
    Entry,
    InputItem,
    KeptSource,
)
from plugin.settings import Settings
from renderer.clashes import Identity, Origin, identity_of
from renderer.results import Code, ResourceRef, Result, Severity

# Orchestrator bookkeeping the cluster never sees: dropped from a DCD before it is rendered, so
# the operator's view of the object is what gets rendered, and never copied to rendered objects.
_BOOKKEEPING_PREFIXES = ("internal.config.kubernetes.io/", "config.k8s.io/", "kustomize.config.k8s.io/")
_BOOKKEEPING_KEYS = frozenset({LEGACY_PATH_ANNOTATION, LEGACY_INDEX_ANNOTATION, LOCAL_CONFIG_ANNOTATION})


# A rendered object as ``place`` takes it: its identity (``renderer.clashes.identity_of``, the one
# rule the core's clash check uses too) and the object.
Rendered = tuple[Identity | None, Deferred]


def held(obj: dict[str, Any], default_namespace: str) -> Rendered:
    """A rendered object as ``place`` takes it, held compact until written (a large input's output
    would otherwise hold several times its bytes)."""
    return identity_of(obj, default_namespace), Deferred.of(obj)


@dataclass
class Placed:
    items: list[Entry]
    results: list[Result]


def _file(item: InputItem) -> str:
    """The item's file as kpt names it (package/path), or "" without a path annotation."""
    if not item.path:
        return ""
    return f"{item.package}/{item.path}" if item.package else item.path


def _where(item: InputItem) -> str:
    """The item's place for messages: ``file (doc N)`` (kpt sends items, not the file's text)."""
    if not item.path:
        return "the input"
    return f"{_file(item)} (doc {item.index})" if item.index is not None else _file(item)


def place(
    items: Sequence[InputItem],
    rendered_by_item: Mapping[int, list[Rendered]],
    kept: set[int],
    settings: Settings,
    delegated: AbstractSet[int] = frozenset(),
) -> Placed:
    """Order the output, give rendered objects file annotations, and settle last run's output.

    Why: kpt writes each item to the file named by its path annotation (relative to its
    package, ``internal.config.kubernetes.io/package-path``, under ``kpt fn render``), at the
    position named by its index annotation, and refuses two items with the same path and
    index. Input items keep theirs untouched (functions must not modify them), so a source's
    first rendered object takes the source's own index and the others take indexes past the
    last one used in that file of that package.

    Input objects that an earlier run rendered (they carry ``dynamo-render.dev/rendered-from``):

    - one this run renders again is replaced in place, so re-rendering is idempotent;
    - one whose source is present but renders it no more is pruned;
    - one whose source is absent is pruned when sources are kept in the package (the source
      was renamed or deleted), and kept otherwise (an earlier run consumed its source).

    A hand-written input object (no marker) with the identity of a rendered one is an error:
    it is never overwritten. ``delegated`` items (a subpackage that renders itself) are written
    back as they came and take no part in any of this.
    """
    default_namespace = settings.namespace
    used: dict[tuple[str, str], set[int]] = {}
    for item in items:
        if item.path:
            used.setdefault((item.package, item.path), set()).add(item.index or 0)
    present = {ownership.source_key(without_bookkeeping(items[p].obj), default_namespace) for p in rendered_by_item}
    fresh = {key for objs in rendered_by_item.values() for key, _ in objs}
    # which source renders each identity, to name both sides of a clash
    renderer_of = {
        key: items[position]
        for position, objs in sorted(rendered_by_item.items(), reverse=True)
        for key, _ in objs
    }
    existing: dict[Identity | None, int] = {}
    pruned: set[int] = set()
    results: list[Result] = []
    for position, item in enumerate(items):
        if position in rendered_by_item or position in delegated:
            continue
        identity = identity_of(item.obj, default_namespace)
        owner = ownership.rendered_from(item.obj)
        if owner is None:
            if identity in fresh:
                source = renderer_of[identity]
                results.append(Result(
                    "a rendered object has the identity of this object, which dynamo-render did not render (no "
                    f"{ownership.RENDERED_FROM_ANNOTATION} annotation) and never overwrites: rename or delete one of them "
                    f"(identity clash with {Origin(ResourceRef.of(source.obj), source.path, source.index).describe()})",
                    resource=ResourceRef.of(item.obj),
                    file=_file(item), index=item.index if item.path else None, code=Code.CLASH,
                ))
            continue
        if identity in fresh:
            existing.setdefault(identity, position)
        elif (owner in present or settings.keep_sources) and not ownership.intact(item.obj):
            # a copied marker (a hand-written object made from a rendered one) or an edit since: never deleted
            results.append(Result(
                f"kept {ResourceRef.of(item.obj).short()} at {_where(item)}: it carries the marker of an object rendered "
                f"from {owner}, which renders it no more, but its content is not what was rendered "
                f"({ownership.RENDERED_DIGEST_ANNOTATION} does not match): a copy or an edit, so it is not pruned; "
                "delete it, or remove its dynamo-render.dev/ annotations to keep it as your own",
                severity=Severity.WARNING,
                resource=ResourceRef.of(item.obj), code=Code.CLASH,
            ))
        elif owner in present or settings.keep_sources:
            pruned.add(position)
            reason = "which no longer renders it" if owner in present else "which is no longer in the package"
            results.append(Result(
                f"pruned {ResourceRef.of(item.obj).short()} at {_where(item)}: an earlier run rendered it from {owner}, {reason}",
                severity=Severity.INFO,
                resource=ResourceRef.of(item.obj), code=Code.NOTE,
            ))
    if any(r.is_error for r in results):
        return Placed([item.position for item in items], results)
    results.extend(ownership.renamed_after_render(
        (item.obj, _file(item), item.index if item.path else None) for position, item in enumerate(items)
        if position not in rendered_by_item and position not in pruned and position not in delegated
    ))

    replaced: dict[int, Deferred] = {}
    placed_for: dict[int, list[Entry]] = {}
    seen: set[Identity | None] = set()
    for position in sorted(rendered_by_item):
        source = items[position]
        own_slot = None if position in kept else source.index
        placed_for[position] = []
        for key, obj in rendered_by_item[position]:
            if key in seen:
                continue  # shared by several sources: the first one files it
            seen.add(key)
            target = existing.get(key)
            if target is not None and target not in replaced:
                old = items[target]
                replaced[target] = obj.then(partial(_annotated, where=old, path=old.path, index=old.index,
                                                    seqindent=old.annotations.get(SEQINDENT_ANNOTATION)))
                continue
            index: int | None = None
            if source.path:
                if own_slot is not None:
                    index, own_slot = own_slot, None
                else:
                    taken = used.setdefault((source.package, source.path), set())
                    index = max(taken, default=-1) + 1
                    taken.add(index)
            placed_for[position].append(obj.then(partial(_annotated, where=source, path=source.path, index=index,
                                                         seqindent=source.annotations.get(SEQINDENT_ANNOTATION))))

    out: list[Entry] = []
    for position, item in enumerate(items):
        if position in rendered_by_item:
            out.extend(placed_for[position])
            if position in kept:
                # in a kpt package (its file is known) a kept source is the package's, never the cluster's
                out.append(KeptSource(item.position) if item.path else item.position)
        elif position in replaced:
            out.append(replaced[position])
        elif position not in pruned:
            out.append(item.position)
    return Placed(out, results)


def _annotated(obj: dict[str, Any], where: InputItem, path: str, index: int | None, seqindent: Any) -> dict[str, Any]:
    """A copy of a rendered object carrying the file annotations it is to be written with.

    ``where`` is the item whose package the object is filed in (its source, or last run's copy).
    """
    meta = dict(obj.get("metadata") or {})
    annotations = {k: v for k, v in (meta.get("annotations") or {}).items() if not _is_bookkeeping(k)}
    if path:
        annotations[LEGACY_PATH_ANNOTATION] = path
        annotations[PATH_ANNOTATION] = path
        if where.package:
            annotations[PACKAGE_PATH_ANNOTATION] = where.package
        if index is not None:
            annotations[LEGACY_INDEX_ANNOTATION] = str(index)
            annotations[INDEX_ANNOTATION] = str(index)
        if isinstance(seqindent, str):
            annotations[SEQINDENT_ANNOTATION] = seqindent
    if annotations:
        meta["annotations"] = annotations
    else:
        meta.pop("annotations", None)
    return {**obj, "metadata": meta}


def _is_bookkeeping(key: str) -> bool:
    return key in _BOOKKEEPING_KEYS or key.startswith(_BOOKKEEPING_PREFIXES)


def without_bookkeeping(obj: dict[str, Any]) -> dict[str, Any]:
    """The object as the cluster would store it: orchestrator annotations dropped.

    kpt and kustomize add path, index and id annotations to every item, and users may mark a
    source ``config.kubernetes.io/local-config`` so that it never reaches a cluster. None of
    them is part of what the operator sees, so none may reach what it renders.
    """
    meta = obj.get("metadata")
    if not isinstance(meta, dict) or not isinstance(meta.get("annotations"), dict):
        return obj
    annotations = {k: v for k, v in meta["annotations"].items() if not _is_bookkeeping(k)}
    meta = {**meta, "annotations": annotations}
    if not annotations:
        del meta["annotations"]
    return {**obj, "metadata": meta}
