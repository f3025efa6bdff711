"""``convert`` and kustomize: patches written for v1alpha1 are refused, and every build is checked.

A kustomize patch is a partial object. Converted as if whole, a v1alpha1 patch of a
DynamoGraphDeployment becomes a full v1beta1 object, its target (``version: v1alpha1``) stops
matching the converted base, and ``kustomize build`` still succeeds with the patch silently
gone. So ``convert`` never converts a file a kustomization names as a patch, and it refuses
(exit 1, nothing written) while a kustomization holds a patch or a target for a v1alpha1
Dynamo kind, naming each one: a target with ``version: v1alpha1``, a v1alpha1 object, or a
patch that writes spec fields only the v1alpha1 shape has. A target with no version matches
the converted object as well, so a patch of fields both shapes share is left to the build check.

Why not migrate such patches: the v1beta1 ``components`` list replaces the v1alpha1
``services`` map. A strategic-merge patch of that list merges by ``name`` only where the
build has an OpenAPI schema saying so (upstream recipes ship one as a component), and replaces
the whole list elsewhere; a JSON 6902 patch addresses components and the main container by
index, so it is right only for the bases it was computed against, and a shared component
applies to many bases, some of them outside the tree. Either way the result depends on files
``convert`` does not see, so the patch needs a person.

After the conversion, every Kustomization in the tree is built with the converted files (in
a scratch copy of the folders it reads) and must render to the same objects as before; else
the run fails and writes nothing.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from plugin.files import read_text
from plugin.app_reader import kustomize_build, kustomize_command
from plugin.files import KUSTOMIZATION_FILES
from plugin.frontends.convert_check import CHECKS, Check, rendering
from plugin.yamlio.codec import load_documents
from renderer.records import dataclass
from renderer.results import Code, Result, Severity

ALPHA_GROUP, ALPHA_VERSION = "nvidia.com", "v1alpha1"
# The converted kinds (plugin.frontends.convert.CONVERTERS).
DYNAMO_KINDS = frozenset({
    "DynamoGraphDeployment", "DynamoComponentDeployment", "DynamoGraphDeploymentRequest", "DynamoGraphDeploymentScalingAdapter",
})
# Past this many files the scratch copy for the build check is not made (the run fails).
MAX_COPIED_FILES = 20_000


@dataclass(frozen=True)
class Kustomization:
    """A kustomization file found by the run, and what it says."""

    path: str
    obj: dict[str, Any]

    @property
    def directory(self) -> str:
        return os.path.dirname(os.path.abspath(self.path))

    @property
    def buildable(self) -> bool:
        """A Kustomization builds on its own; a Component only inside one."""
        return bool(self.obj.get("kind", "Kustomization") != "Component")

    def local(self, entry: Any) -> str | None:
        """The real path of a file or folder entry (resources, components, patches), None for a URL or junk."""
        if not isinstance(entry, str) or not entry or "://" in entry or entry.startswith(("git@", "github.com/")):
            return None
        return os.path.realpath(os.path.join(self.directory, entry))


def find_kustomizations(paths: Iterable[str]) -> tuple[list[Kustomization], list[Result]]:
    """The kustomizations under each folder of ``paths``, and those beside or above each file.

    A file's own folder and its parents are searched too, so that converting one patch file
    by name still finds the kustomization that names it. Hidden folders are skipped.
    """
    found: dict[str, Kustomization] = {}
    results: list[Result] = []

    def add(path: str) -> None:
        real = os.path.realpath(path)
        if real in found or not os.path.isfile(real):
            return
        text, problems = read_text(path)
        docs, more = load_documents(text, path) if text is not None else ([], [])
        if problems or more or len(docs) != 1 or not isinstance(docs[0].obj, dict):
            return  # not ours to report: kustomize reports its own files
        found[real] = Kustomization(path, docs[0].obj)

    for path in paths:
        if path == "-":
            continue
        if os.path.isdir(path):
            for folder, dirs, files in os.walk(path, followlinks=True):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                for name in KUSTOMIZATION_FILES:
                    if name in files:
                        add(os.path.join(folder, name))
        folder = os.path.dirname(os.path.abspath(path)) if not os.path.isdir(path) else os.path.abspath(path)
        while True:
            for name in KUSTOMIZATION_FILES:
                add(os.path.join(folder, name))
            parent = os.path.dirname(folder)
            if parent == folder or os.path.isdir(os.path.join(folder, ".git")):
                break
            folder = parent
    return sorted(found.values(), key=lambda k: k.path), results


@dataclass(frozen=True)
class PatchRef:
    """One patch of a kustomization: where it is written and what it says."""

    field: str
    file: str | None  # real path of a patch file, None for an inline patch
    target: Mapping[str, Any] | None
    docs: tuple[Any, ...]  # the patch's documents (a strategic-merge object, or a JSON 6902 op list)


def patches_of(kustomization: Kustomization) -> list[PatchRef]:
    """Every patch a kustomization applies: ``patches``, ``patchesStrategicMerge``, ``patchesJson6902``."""
    obj = kustomization.obj
    refs: list[PatchRef] = []

    def read(entry: Any, field: str, target: Any, inline: Any) -> None:
        target = target if isinstance(target, Mapping) else None
        path = kustomization.local(entry)
        if isinstance(inline, str):
            docs, _ = load_documents(inline, f"{kustomization.path} {field}")
            refs.append(PatchRef(field, None, target, tuple(d.obj for d in docs)))
        elif path is not None:
            text, problems = read_text(path) if os.path.isfile(path) else (None, [])
            docs = load_documents(text, path)[0] if text is not None else []
            refs.append(PatchRef(field, path, target, tuple(d.obj for d in docs)))

    for i, entry in enumerate(obj.get("patches") or []):
        if isinstance(entry, Mapping):
            read(entry.get("path"), f"patches[{i}]", entry.get("target"), entry.get("patch"))
    for i, entry in enumerate(obj.get("patchesStrategicMerge") or []):
        # an entry is a file name, or the patch itself inline
        inline = entry if isinstance(entry, str) and "\n" in entry else None
        read(None if inline else entry, f"patchesStrategicMerge[{i}]", None, inline)
    for i, entry in enumerate(obj.get("patchesJson6902") or []):
        if isinstance(entry, Mapping):
            read(entry.get("path"), f"patchesJson6902[{i}]", entry.get("target"), entry.get("patch"))
    return refs


def _alpha_object(obj: Any) -> bool:
    return isinstance(obj, Mapping) and obj.get("apiVersion") == f"{ALPHA_GROUP}/{ALPHA_VERSION}" and obj.get("kind") in DYNAMO_KINDS


def _alpha_only_fields(kind: str) -> tuple[str, ...]:
    """The top-level spec fields of a v1alpha1 ``kind`` that its v1beta1 spec does not have.

    Read from the generated API type tables (``renderer.gocompat.dynamo_types``): for a
    DynamoGraphDeployment ``services``, ``pvcs`` and ``envs``; for a DynamoComponentDeployment
    ``serviceName``, ``componentType``, ``extraPodSpec``, ``resources``, ``envs`` and the rest
    that conversion moves into ``name``, ``type`` and ``podTemplate`` or the preservation annotation.
    Mirrors: api/v1alpha1 and api/v1beta1 <kind>Spec
    """
    from renderer.gocompat.dynamo_types import V1ALPHA1, V1BETA1

    beta = {row[0] for row in V1BETA1.get(f"{kind}Spec", ())}
    return tuple(row[0] for row in V1ALPHA1.get(f"{kind}Spec", ()) if row[0] not in beta)


def _alpha_fields_written(kind: str | None, doc: Any) -> list[str]:
    """The v1alpha1-only spec fields a patch document writes: JSON 6902 op paths, or a strategic-merge spec's keys.

    ``kind`` is the kind the patch applies to (its target's, else the document's own).
    """
    if isinstance(doc, Mapping) and doc.get("kind") in DYNAMO_KINDS:
        kind = str(doc["kind"])
    if kind not in DYNAMO_KINDS:
        return []
    fields = _alpha_only_fields(str(kind))
    written: list[str] = []
    if isinstance(doc, list):
        for op in doc:
            path = str(op.get("path", "")) if isinstance(op, Mapping) else ""
            parts = path.split("/")
            if len(parts) > 2 and parts[1] == "spec" and parts[2] in fields:
                written.append(f"spec.{parts[2]}")
    elif isinstance(doc, Mapping) and isinstance(doc.get("spec"), Mapping):
        written.extend(f"spec.{key}" for key in doc["spec"] if key in fields)
    return list(dict.fromkeys(written))


def _why_v1alpha1(ref: PatchRef) -> tuple[str, str | None] | None:
    """Why a patch is written for a v1alpha1 Dynamo kind, and that kind when known (None when it is not).

    A target with ``version: v1alpha1`` stops matching once its object is converted. A target
    with no version matches both versions, so such a patch is refused only when it writes the
    v1alpha1 shape (a v1alpha1 object, or spec fields v1beta1 does not have); one that writes
    only fields both shapes share (a JSON 6902 op on ``/spec/replicas``) applies to the converted
    object as it did, and the build check below compares the render.
    """
    target = ref.target or {}
    kind, version = target.get("kind"), target.get("version")
    ours = kind in DYNAMO_KINDS and target.get("group") in (None, "", ALPHA_GROUP)
    if ours and version == ALPHA_VERSION:
        return f"targets {kind} with version: {ALPHA_VERSION}", str(kind)
    for doc in ref.docs:
        if _alpha_object(doc):
            return f"is a {ALPHA_GROUP}/{ALPHA_VERSION} {doc['kind']} patch", str(doc["kind"])
        if kind is not None and not ours:
            continue
        written = _alpha_fields_written(str(kind) if kind else "DynamoGraphDeployment", doc)
        if written:
            applies_to = str(doc["kind"]) if isinstance(doc, Mapping) and doc.get("kind") in DYNAMO_KINDS else kind
            return f"changes {', '.join(written)}, the v1alpha1 shape", str(applies_to or "DynamoGraphDeployment")
    return None


# What conversion makes of the v1alpha1 shape, by kind, for the refusal's message.
SHAPES = {
    "DynamoGraphDeployment": "the v1alpha1 shape (spec.services), which conversion replaces with spec.components",
    "DynamoComponentDeployment": (
        "the v1alpha1 shape (spec.serviceName, spec.componentType, spec.extraPodSpec, spec.resources, spec.envs, ...), "
        "which conversion replaces with spec.name, spec.type and spec.podTemplate"
    ),
}


def _why_selector(kustomization: Kustomization) -> list[tuple[str, str]]:
    """``replacements`` whose selectors name a v1alpha1 Dynamo kind."""
    found: list[tuple[str, str]] = []
    for i, entry in enumerate(kustomization.obj.get("replacements") or []):
        if not isinstance(entry, Mapping):
            continue
        selectors = [("source", entry.get("source"))]
        for j, target in enumerate(entry.get("targets") or []):
            if isinstance(target, Mapping):
                selectors.append((f"targets[{j}].select", target.get("select")))
        for where, sel in selectors:
            if isinstance(sel, Mapping) and sel.get("kind") in DYNAMO_KINDS and sel.get("version") == ALPHA_VERSION:
                found.append((f"replacements[{i}].{where}", f"selects {sel['kind']} with version: {ALPHA_VERSION}"))
    return found


def refusals(kustomizations: Sequence[Kustomization]) -> list[Result]:
    """One error per patch or selector written for a v1alpha1 Dynamo kind."""
    results: list[Result] = []
    for k in kustomizations:
        for ref in patches_of(k):
            found = _why_v1alpha1(ref)
            if found is None:
                continue
            why, kind = found
            named = f" ({os.path.relpath(ref.file, k.directory)})" if ref.file else " (inline)"
            shape = SHAPES.get(kind or "", f"{ALPHA_VERSION}, which conversion replaces with v1beta1")
            results.append(Result(
                f"patch{named} {why}: it is written for {shape}; migrate it by hand (see the convert documentation), "
                "nothing was written",
                file=k.path, field=ref.field, code=Code.CONVERSION,
            ))
        for field, why in _why_selector(k):
            results.append(Result(
                f"{why}: it stops matching once the object is converted; change it by hand, nothing was written",
                file=k.path, field=field, code=Code.CONVERSION,
            ))
    return results


# ---------------------------------------------------------------------------
# the build check
# ---------------------------------------------------------------------------


def _referenced(kustomization: Kustomization) -> list[str]:
    """Real paths of the files and folders a kustomization reads by name."""
    obj = kustomization.obj
    entries: list[Any] = []
    for key in ("resources", "bases", "components", "crds", "configurations", "transformers", "generators", "validators"):
        entries.extend(obj.get(key) or [])
    openapi = obj.get("openapi")
    if isinstance(openapi, Mapping):
        entries.append(openapi.get("path"))
    for ref in patches_of(kustomization):
        if ref.file:
            entries.append(ref.file)
    for key in ("configMapGenerator", "secretGenerator"):
        for gen in obj.get(key) or []:
            if isinstance(gen, Mapping):
                for item in [*(gen.get("files") or []), *(gen.get("envs") or []), gen.get("env")]:
                    if isinstance(item, str):
                        entries.append(item.split("=", 1)[-1])
    return [p for p in (kustomization.local(e) for e in entries) if p is not None]


def _closure(kustomizations: Sequence[Kustomization]) -> set[str]:
    """Every path the kustomizations read, through the kustomizations they name in turn."""
    seen: set[str] = set()
    todo = [k.directory for k in kustomizations]
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        if os.path.isdir(path):
            for name in KUSTOMIZATION_FILES:
                file = os.path.join(path, name)
                if os.path.isfile(file):
                    text, _ = read_text(file)
                    docs = load_documents(text, file)[0] if text is not None else []
                    if len(docs) == 1 and isinstance(docs[0].obj, dict):
                        todo.extend(_referenced(Kustomization(file, docs[0].obj)))
                    break
    return seen


def _built(tree_root: str, kustomization: str, env: Mapping[str, str]) -> tuple[list[Any] | None, str]:
    """The objects of one build (None and the reason when it fails)."""
    folder = os.path.dirname(kustomization)
    build = kustomize_build(folder, kustomization, env, lambda path: os.path.relpath(path, tree_root))
    errors = [r for r in build.results if r.is_error]
    if errors:
        return None, errors[0].message
    return [d.obj for d in build.documents], ""


def check_builds(
    kustomizations: Sequence[Kustomization], rewrites: Mapping[str, bytes], env: Mapping[str, str],
    checks: Sequence[Check] | None = None,
) -> list[Result]:
    """Errors for each Kustomization whose build renders differently once ``rewrites`` are applied.

    ``checks`` are the configurations both builds are rendered under (None: ``CHECKS``).

    ``rewrites`` maps real file paths to their new bytes. The converted tree is built in a
    scratch copy of every folder the kustomizations read; the files on disk are not touched.
    """
    buildable = [k for k in kustomizations if k.buildable]
    if not buildable or not rewrites:
        return []
    if kustomize_command(env) is None:
        return [Result("the tree holds kustomizations, but neither kustomize nor kubectl is on PATH to check that they "
                       "build as before; nothing was written", file=buildable[0].path, code=Code.INPUT)]
    paths = _closure(buildable) | set(rewrites)
    top = os.path.commonpath([p if os.path.isdir(p) else os.path.dirname(p) for p in paths])
    results: list[Result] = []
    with tempfile.TemporaryDirectory(prefix="dynamo-render-convert-") as scratch:
        copy = os.path.join(scratch, "tree")
        copied = 0

        def ignore(folder: str, names: list[str]) -> list[str]:
            nonlocal copied
            copied += len(names)
            if copied > MAX_COPIED_FILES:
                raise OverflowError
            return [n for n in names if n.startswith(".git")]

        try:
            shutil.copytree(top, copy, symlinks=True, ignore=ignore)
        except OverflowError:
            return [Result(f"cannot check the kustomizations: the folders they read hold more than {MAX_COPIED_FILES:,} "
                           "files; convert a smaller tree", file=buildable[0].path, code=Code.INPUT)]
        except OSError as err:
            return [Result(f"cannot check the kustomizations: {err.strerror or err}", file=buildable[0].path, code=Code.INPUT)]
        for real, data in rewrites.items():
            target = os.path.join(copy, os.path.relpath(real, top))
            with open(target, "wb") as handle:
                handle.write(data)
        for k in buildable:
            real = os.path.realpath(k.path)
            before, why = _built(os.path.dirname(real), real, env)
            if before is None:
                results.append(Result(f"does not build before the conversion, so it is not checked: {why}",
                                      severity=Severity.WARNING, file=k.path, code=Code.NOTE))
                continue
            moved = os.path.join(copy, os.path.relpath(real, top))
            after, why = _built(os.path.dirname(moved), moved, env)
            if after is None:
                results.append(Result(f"no longer builds once converted: {why}; nothing was written", file=k.path, code=Code.CONVERSION))
                continue
            was = rendering(before, checks or CHECKS)
            if was is None:
                results.append(Result("does not render before the conversion, so it is not checked",
                                      severity=Severity.WARNING, file=k.path, code=Code.NOTE))
            elif rendering(after, checks or CHECKS) != was:
                results.append(Result("builds, but renders differently once converted; nothing was written",
                                      file=k.path, code=Code.CONVERSION))
    return results
