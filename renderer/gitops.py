"""GitOps metadata moves with its source (DESIGN decision 15).

A DCD or DGD is replaced by what it renders, so the directives the GitOps tools read on it
would vanish with it: Argo CD's sync waves and sync options (``Prune=false,Delete=false`` on a
GPU graph), Flux's prune and apply policies, and the labels kustomize's ``labels`` or
``commonLabels`` put on it. The operator knows nothing of them (its objects are not applied by
a GitOps tool), so this is an intended difference from it, and ``carryMetadata: false`` turns
it off for byte parity.

What moves, onto the rendered object's own ``metadata`` only:

- annotations under ``CARRIED_PREFIXES``, except ``NOT_CARRIED`` (a warning each): a hook on a
  DGD would turn every rendered object into a hook, and Argo CD writes its tracking id itself;
- the source's ``metadata.labels``, except onto a rendered DCD (``emit: dcd``): the operator's
  DCD controller copies a DCD's labels into its pods, which would restart them.

Never into a pod template, a selector or a DCD spec: worker names (the worker hash) and pods
are the same with and without it. Where the rendered object already has a value, the
operator's value wins: a label key it sets keeps its value (a note names the keys), and an
annotation it (or the pod template) sets is kept, except the option lists
``sync-options`` and ``compare-options``, which are merged (its options first, then the
source's for option names it does not set).

Objects that several sources share get no source's metadata: the namespace-shared objects
(``renderer.objects.shared``) and the companions of a standalone DCD, which every DCD of one
parent renders alike (``renderer.objects.standalone_companions``). Giving them one source's
directives would make them depend on which source came first, and two sources' objects would
no longer merge.
"""

from __future__ import annotations

from typing import Any

from renderer import consts
from renderer.objects.shared import is_namespace_shared
from renderer.results import Code, Result, Severity

CARRIED_PREFIXES = ("argocd.argoproj.io/", "kustomize.toolkit.fluxcd.io/", "fluxcd.io/")
# Comma-separated option lists: the rendered object's own options and the source's are merged.
OPTION_LISTS = frozenset({"argocd.argoproj.io/sync-options", "argocd.argoproj.io/compare-options"})
NOT_CARRIED: dict[str, str] = {
    "argocd.argoproj.io/hook": (
        "a hook on the source would make every object it renders a hook (run on each sync and deleted by its "
        "hook-delete-policy), which is never what replacing the source means; put hooks on the objects that are hooks"
    ),
    "argocd.argoproj.io/hook-delete-policy": "it belongs with argocd.argoproj.io/hook, which is not carried either",
    "argocd.argoproj.io/tracking-id": "Argo CD writes its own tracking id on every object it applies",
}


def carried_metadata(source: dict[str, Any]) -> tuple[dict[str, str], dict[str, str], list[Result]]:
    """The labels and GitOps annotations that move from ``source`` to what it renders, and a warning per annotation left behind."""
    meta = source.get("metadata") or {}
    labels = {str(k): str(v) for k, v in (meta.get("labels") or {}).items()}
    annotations: dict[str, str] = {}
    results: list[Result] = []
    for key, value in sorted((meta.get("annotations") or {}).items()):
        if not str(key).startswith(CARRIED_PREFIXES):
            continue
        if key in NOT_CARRIED:
            results.append(Result(
                f"annotation {key} is not carried to the objects rendered from this source: {NOT_CARRIED[key]}",
                severity=Severity.WARNING, field=f"metadata.annotations.{key}", code=Code.IGNORED,
            ))
            continue
        annotations[key] = str(value)
    return labels, annotations, results


def carry(objects: list[dict[str, Any]], source: dict[str, Any]) -> tuple[list[dict[str, Any]], list[Result]]:
    """``objects`` rendered from ``source``, each with the source's carried metadata; new dicts where changed.

    Namespace-shared objects are returned as they are.
    """
    labels, annotations, results = carried_metadata(source)
    if not labels and not annotations:
        return objects, results
    kept: set[str] = set()
    out = [obj if is_namespace_shared(obj) else _with_metadata(obj, labels, annotations, kept) for obj in objects]
    if kept:
        results.append(Result(
            "labels of the source not carried where the operator sets the same key to another value (its value is "
            f"kept): {', '.join(sorted(kept))}",
            severity=Severity.INFO, field="metadata.labels", code=Code.NOTE,
        ))
    return out, results


def _with_metadata(obj: dict[str, Any], labels: dict[str, str], annotations: dict[str, str], kept: set[str]) -> dict[str, Any]:
    """A copy of ``obj`` whose metadata also holds ``labels`` and ``annotations`` (the object's own values win)."""
    meta = dict(obj.get("metadata") or {})
    if labels and obj.get("kind") != consts.DCD_KIND:
        own = dict(meta.get("labels") or {})
        for key, value in labels.items():
            if key not in own:
                own[key] = value
            elif own[key] != value:
                kept.add(key)
        meta["labels"] = own
    if annotations:
        own = dict(meta.get("annotations") or {})
        for key, value in annotations.items():
            if key not in own:
                own[key] = value
            elif key in OPTION_LISTS:
                own[key] = merge_options(str(own[key]), value)
        meta["annotations"] = own
    return {**obj, "metadata": meta}


def merge_options(own: str, added: str) -> str:
    """Two comma-separated Argo CD option lists as one: ``own``'s options, then ``added``'s for names ``own`` does not set."""
    options = [o.strip() for o in own.split(",") if o.strip()]
    names = {o.split("=", 1)[0] for o in options}
    for option in (o.strip() for o in added.split(",")):
        if option and option.split("=", 1)[0] not in names:
            options.append(option)
            names.add(option.split("=", 1)[0])
    return ",".join(options)
