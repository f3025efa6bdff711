"""The one app reader of every front end: a folder holding a kustomization is built with kustomize first.

Argo CD reads an application folder that holds a kustomization (``kustomization.yaml``,
``kustomization.yml`` or ``Kustomization``) by building it, never by reading its files: the
kustomization, its components and its patch files are inputs to kustomize, not objects. The
plugin, ``render``, both sides of ``diff``, ``hydrate-check`` and ``validate`` all read an app
here, so each front end sees the same objects for the same folder.

What is read, by what a path names:

- a folder holding a kustomization of kind ``Kustomization`` (or none, kustomize's default) is
  an app: the ``kustomize build`` of it is what renders, built as the Argo CD plugin builds it;
- a folder holding a kustomization of kind ``Component`` does not build on its own (kustomize
  applies a component only inside a Kustomization that lists it): named directly it is an
  error, found while walking a folder it is left out with a note;
- any other folder is walked (``plugin.files.walk_manifests``): its manifest files are read as
  they are, and each sub-folder holding a kustomization is treated as above, never read raw;
- a file is read as a file, except a kustomization file named directly, which stands for its
  folder.

With ``raw`` (``--no-kustomize``) every folder is walked and every file read as it is.

Problems in a built app name the file each object came from. The build runs through a small
temporary kustomization that lists the app folder as its one resource and asks for kustomize's
``buildMetadata: [originAnnotations]``; the ``config.kubernetes.io/origin`` annotation names
the source file of each object and is removed again, so the objects are those of a plain
``kustomize build`` of the folder (the app's ``sortOptions`` are carried over: kustomize only
honours them at the top level). An app whose kustomization asks for origin annotations itself
is built directly and keeps them. When the build fails, the folder is built directly once more,
so the message is kustomize's own for the folder.

Mirrors: argo-cd reposerver/repository/repository.go (GenerateManifests: a folder with a
kustomization is built with kustomize), util/kustomize/kustomize.go (Build);
kustomize api/konfig/general.go RecognizedKustomizationFileNames.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import yaml

from plugin.files import (
    HELM_CHART_FILE,
    KUSTOMIZATION_FILES,
    find_kustomization as find_kustomization,
    ObjectBudget,
    Source,
    decode,
    load_sources,
    read_bytes,
    read_sources,
    too_many_objects,
)
from plugin.yamlio.codec import Document, load_documents
from renderer.records import dataclass
from renderer.results import Code, Result, Severity

if TYPE_CHECKING:
    import subprocess

# (subprocess, tempfile and shutil load only when a folder is built: a plain file's render starts faster)

KUSTOMIZATION_KIND = "Kustomization"
COMPONENT_KIND = "Component"
# Our own share of Argo CD's 60 s generate deadline for the build.
KUSTOMIZE_TIMEOUT = 40.0
MAX_TOOL_LINES = 20
ORIGIN_ANNOTATION = "config.kubernetes.io/origin"

# How a front end names a file for the user (a real path in, a display name out).
Show = Callable[[str], str]


def is_kustomization_file(path: str) -> bool:
    """A path named like a kustomization file (kustomize reads no other name)."""
    return os.path.basename(path) in KUSTOMIZATION_FILES


def kustomize_command(env: Mapping[str, str]) -> list[str] | None:
    """``kustomize build .`` when kustomize is on PATH, else ``kubectl kustomize .``."""
    import shutil

    search = env.get("PATH", os.defpath)
    kustomize = shutil.which("kustomize", path=search)
    if kustomize:
        return [kustomize, "build", "."]
    kubectl = shutil.which("kubectl", path=search)
    if kubectl:
        return [kubectl, "kustomize", "."]
    return None


def read_kustomization(path: str) -> tuple[dict[str, Any] | None, list[Result]]:
    """A kustomization file's content (an empty file is an empty kustomization), or why it cannot be read."""
    data, problems = read_bytes(path, path)
    if data is None:
        return None, problems
    try:
        content = yaml.safe_load(data.decode("utf-8", errors="replace"))
    except yaml.YAMLError as err:
        return None, [Result(f"not a valid kustomization: {str(err).splitlines()[0]}", file=path, code=Code.INPUT)]
    if content is None:
        return {}, []
    if not isinstance(content, dict):
        return None, [Result("not a valid kustomization (expected a mapping)", file=path, code=Code.INPUT)]
    return content, []


def kustomization_kind(content: Mapping[str, Any]) -> str:
    """``Kustomization`` or ``Component`` (kustomize's default is a Kustomization)."""
    kind = content.get("kind")
    return kind if isinstance(kind, str) and kind else KUSTOMIZATION_KIND


def patch_files(content: Mapping[str, Any]) -> list[str]:
    """The files a kustomization names as patches, as written (``patches``, and the deprecated forms)."""
    found: list[str] = []
    for key in ("patches", "patchesJson6902"):
        for entry in content.get(key) or []:
            if isinstance(entry, dict) and isinstance(entry.get("path"), str):
                found.append(entry["path"])
    for entry in content.get("patchesStrategicMerge") or []:
        # an entry is a file name or an inline patch (a YAML text with a line break)
        if isinstance(entry, str) and "\n" not in entry:
            found.append(entry)
    return found


def config_files(content: Mapping[str, Any]) -> list[str]:
    """The files a kustomization reads as kustomize configuration, not objects (its openapi schema, CRDs, transformer configs)."""
    found: list[str] = []
    openapi = content.get("openapi")
    if isinstance(openapi, dict) and isinstance(openapi.get("path"), str):
        found.append(openapi["path"])
    for key in ("configurations", "crds", "transformers", "generators", "validators"):
        found.extend(entry for entry in content.get(key) or [] if isinstance(entry, str) and "\n" not in entry)
    return found


@dataclass(frozen=True)
class Build:
    """The documents of one kustomize build, each named by its source file, and the build's problems."""

    documents: list[Document]
    results: list[Result]
    # source display name -> its text, for line numbers in problem lines
    texts: dict[str, str]


def _run(command: Sequence[str], cwd: str, env: Mapping[str, str], timeout: float) -> tuple[subprocess.CompletedProcess[bytes] | None, str]:
    import subprocess

    try:
        proc = subprocess.run(
            list(command), cwd=cwd, env=dict(env), stdin=subprocess.DEVNULL, capture_output=True, timeout=timeout, check=False
        )
    except subprocess.TimeoutExpired:
        shown = " ".join(os.path.basename(c) if i == 0 else c for i, c in enumerate(command))
        return None, f"{shown} did not finish within {KUSTOMIZE_TIMEOUT:.0f} s"
    except OSError as err:
        return None, f"cannot run {command[0]}: {err.strerror or err}"
    return proc, ""


def kustomize_build(folder: str, kustomization: str, env: Mapping[str, str], show: Show, budget: ObjectBudget | None = None) -> Build:
    """The objects ``kustomize build`` makes of ``folder``, each named by the file it came from.

    The build's objects are counted against ``budget`` (the run's object limit) while they are read.

    Why: Argo CD builds a folder holding a kustomization instead of reading its files, and every
    front end must read an app as Argo CD does. The build runs with the given environment and
    no standard input, as Argo CD runs its own kustomize (no alpha plugins, no exec functions,
    no Helm, kustomize's default load restrictor).
    """
    import tempfile
    import time

    display = show(kustomization)
    command = kustomize_command(env)
    if command is None:
        return Build([], [Result(
            "the folder holds a kustomization, but neither kustomize nor kubectl is on PATH", file=display, code=Code.INPUT
        )], {})
    content, problems = read_kustomization(kustomization)
    if content is None:
        return Build([], [p.with_source(display, None) for p in problems], {})
    if kustomization_kind(content) == COMPONENT_KIND:
        return Build([], [Result(
            "is a kustomize Component: it builds only as part of a Kustomization that lists it under components",
            file=display, code=Code.INPUT,
        )], {})
    tool = " ".join([os.path.basename(command[0]), *command[1:]])
    deadline = time.monotonic() + KUSTOMIZE_TIMEOUT
    metadata = content.get("buildMetadata")
    own_origins = isinstance(metadata, list) and "originAnnotations" in metadata
    with tempfile.TemporaryDirectory(prefix="dynamo-render-kustomize-") as wrapper:
        if own_origins:
            proc, failure = _run(command, folder, env, KUSTOMIZE_TIMEOUT)
            base = folder
        else:
            wrapper_content: dict[str, Any] = {
                "apiVersion": "kustomize.config.k8s.io/v1beta1",
                "kind": KUSTOMIZATION_KIND,
                "resources": [os.path.relpath(os.path.realpath(folder), os.path.realpath(wrapper))],
                "buildMetadata": ["originAnnotations"],
            }
            if "sortOptions" in content:
                wrapper_content["sortOptions"] = content["sortOptions"]
            with open(os.path.join(wrapper, "kustomization.yaml"), "w", encoding="utf-8") as handle:
                yaml.safe_dump(wrapper_content, handle)
            proc, failure = _run(command, wrapper, env, KUSTOMIZE_TIMEOUT)
            base = os.path.realpath(wrapper)
            if proc is not None and proc.returncode != 0:
                # the folder's own build, for kustomize's own message about it
                proc, failure = _run(command, folder, env, max(1.0, deadline - time.monotonic()))
        if proc is None:
            return Build([], [Result(failure, file=display, code=Code.INPUT)], {})
        if proc.returncode != 0:
            lines = [line.strip() for line in proc.stderr.decode("utf-8", errors="replace").splitlines() if line.strip()]
            detail = "; ".join(lines[:MAX_TOOL_LINES]) or "no message"
            return Build([], [Result(f"{tool} failed (exit {proc.returncode}): {detail}", file=display, code=Code.INPUT)], {})
    text, problems = decode(proc.stdout, display)
    if text is None:
        return Build([], problems, {})
    budget = budget if budget is not None else ObjectBudget()
    counted, problems = budget.read(text, display)
    if counted is None:
        # the build's output is no file of the repository: the error names the kustomization
        return Build([], [too_many_objects(budget.limit, display)], {})
    documents = counted
    if problems:
        return Build([], problems, {})
    return _named_by_origin(documents, base, display, show, strip=not own_origins)


def _named_by_origin(documents: list[Document], base: str, display: str, show: Show, strip: bool) -> Build:
    """Each built document named by the source file its origin annotation gives (then removed when ``strip``)."""
    named: list[Document] = []
    texts: dict[str, str] = {}
    sources: dict[str, list[Any]] = {}
    for doc in documents:
        obj, origin = _origin_of(doc.obj, strip)
        file, index = display, doc.index
        path = origin.get("path") if isinstance(origin, dict) else None
        if isinstance(path, str) and path and "repo" not in origin:
            real = os.path.normpath(os.path.join(base, path))
            file = show(real)
            index = _index_in(real, obj, sources, texts, file)
        elif isinstance(origin, dict) and isinstance(origin.get("configuredIn"), str) and "repo" not in origin:
            # a generated object: named by the kustomization that configured it (placed at the
            # generator entry that made it: plugin.yamlio.lines GENERATOR_LISTS)
            file = show(os.path.normpath(os.path.join(base, origin["configuredIn"])))
            index = 0
        named.append(Document(obj, file, index))
    return Build(named, [], texts)


def _origin_of(obj: Any, strip: bool) -> tuple[Any, Any]:
    """The object (without the origin annotation when ``strip``) and its parsed origin."""
    if not isinstance(obj, dict) or not isinstance(obj.get("metadata"), dict):
        return obj, None
    annotations = obj["metadata"].get("annotations")
    if not isinstance(annotations, dict) or ORIGIN_ANNOTATION not in annotations:
        return obj, None
    try:
        origin = yaml.safe_load(str(annotations[ORIGIN_ANNOTATION]))
    except yaml.YAMLError:
        origin = None
    if not strip:
        return obj, origin
    metadata = dict(obj["metadata"])
    rest = {k: v for k, v in annotations.items() if k != ORIGIN_ANNOTATION}
    if rest:
        metadata["annotations"] = rest
    else:
        del metadata["annotations"]
    return {**obj, "metadata": metadata}, origin


def _index_in(real: str, obj: Any, cache: dict[str, list[Any]], texts: dict[str, str], file: str) -> int:
    """The document index of ``obj`` in its source file: the first of its kind and name, else of its kind, else 0.

    A name kustomize changed (``namePrefix``, ``nameSuffix``) still holds the source's name: of
    the objects of that kind whose name it holds, the one with the longest name is taken.
    """
    if real not in cache:
        data, _ = read_bytes(real, real)
        text, _ = decode(data, real) if data is not None else (None, [])
        docs, problems = load_documents(text, real) if text is not None else ([], [])
        cache[real] = [] if problems else [(d.obj, d.index) for d in docs]
        if text is not None and not problems:
            texts[file] = text
    if not isinstance(obj, dict):
        return 0
    kind, name = obj.get("kind"), (obj.get("metadata") or {}).get("name")
    same_kind = [(o, i) for o, i in cache[real] if isinstance(o, dict) and o.get("kind") == kind]
    for candidate, index in same_kind:
        if (candidate.get("metadata") or {}).get("name") == name:
            return int(index)
    held = [
        (len(source), int(index)) for candidate, index in same_kind
        if isinstance(source := (candidate.get("metadata") or {}).get("name"), str) and source and isinstance(name, str) and source in name
    ]
    if held:
        return max(held, key=lambda entry: entry[0])[1]
    return int(same_kind[0][1]) if same_kind else 0


# ---------------------------------------------------------------------------------------------
# Reading paths


def helm_chart_error(chart: str, chart_file: str, severity: Severity = Severity.ERROR) -> Result:
    """A Helm chart reached a reader: one line saying so, instead of its templates' YAML errors.

    ``chart`` names the folder as the user knows it (the Argo CD plugin says "the application
    folder" for its own), ``chart_file`` its ``Chart.yaml`` as shown in problem lines.
    """
    return Result(
        f"{chart} is a Helm chart (Chart.yaml): dynamo-render does not run Helm; render the chart first and pipe it in "
        "(helm template RELEASE CHART | dynamo-render render -), in a CI step or a plugin that runs both",
        severity=severity, file=chart_file, code=Code.INPUT,
    )


def enclosing_chart(path: str, stop: str) -> str | None:
    """The nearest folder holding a ``Chart.yaml``, from the file's folder up to ``stop``; None outside any chart."""
    folder = os.path.dirname(os.path.abspath(path))
    stop = os.path.abspath(stop)
    if not (folder == stop or folder.startswith(stop.rstrip(os.sep) + os.sep)):
        return None
    while True:
        if os.path.isfile(os.path.join(folder, HELM_CHART_FILE)):
            return folder
        if folder == stop or os.path.dirname(folder) == folder:
            return None
        folder = os.path.dirname(folder)


def split_apps(found: Sequence[tuple[str, str]], show: Show) -> tuple[list[tuple[str, str]], list[Result]]:
    """The folders holding a kustomization found in a walk: the apps to build; Components left out with a note."""
    apps: list[tuple[str, str]] = []
    notes: list[Result] = []
    for folder, kustomization in found:
        content, _ = read_kustomization(kustomization)
        if content is not None and kustomization_kind(content) == COMPONENT_KIND:
            notes.append(Result(
                "a kustomize Component: its files render only through a Kustomization that lists it under components; "
                "left out", severity=Severity.INFO, file=show(kustomization), code=Code.NOTE,
            ))
            continue
        apps.append((folder, kustomization))
    return apps, notes


def build_apps(
    apps: Sequence[tuple[str, str]], env: Mapping[str, str], show: Show, budget: ObjectBudget | None = None
) -> tuple[list[Build], list[Result]]:
    """Build each app folder; its problems are collected. Past the run's object limit (``budget``) no more is built."""
    builds: list[Build] = []
    results: list[Result] = []
    budget = budget if budget is not None else ObjectBudget()
    for folder, kustomization in apps:
        if budget.left < 0:
            break
        built = kustomize_build(folder, kustomization, env, show, budget)
        results.extend(built.results)
        builds.append(built)
    return builds, results


def app_of_path(path: str, raw: bool) -> tuple[str, str] | None:
    """The app a path argument names: a folder holding a kustomization, or a kustomization file named directly."""
    if raw or path == "-":
        return None
    if os.path.isdir(path):
        kustomization = find_kustomization(path)
        return (path, kustomization) if kustomization is not None else None
    if is_kustomization_file(path) and os.path.isfile(path):
        return os.path.dirname(path) or ".", path
    return None


def read_paths(
    paths: Sequence[str], env: Mapping[str, str], show: Show, *, raw: bool = False, skip: Collection[str] = ()
) -> tuple[list[Source], list[tuple[str, str]], list[Result]]:
    """The raw sources ``paths`` hold and the apps to build, as the command line reads them (``-`` is stdin).

    An app path (``app_of_path``) is built; any other folder is walked, its sub-folders holding
    a kustomization becoming apps of their own; any other file is read as it is.
    """
    plain: list[str] = []
    apps: list[tuple[str, str]] = []
    for path in paths:
        app = app_of_path(path, raw)
        if app is not None:
            apps.append(app)
        else:
            plain.append(path)
    found: list[tuple[str, str]] | None = None if raw else []
    charts: list[str] = []
    sources, results = read_sources(plain, skip=skip, apps=found, charts=charts)
    more, notes = split_apps(found or [], show)
    # a Helm chart's templates are not manifests: one line per chart (also with --no-kustomize)
    notes.extend(helm_chart_error(show(chart), show(os.path.join(chart, HELM_CHART_FILE))) for chart in charts)
    return sources, apps + more, results + notes


def app_documents(
    paths: Sequence[str], env: Mapping[str, str], show: Show, *, raw: bool = False, skip: Collection[str] = ()
) -> tuple[list[Document], list[Result], dict[str, str]]:
    """Every document ``paths`` hold for a render: raw files first, in argument order, then each app's build.

    Also returns the text of every file the documents are named by (display name -> text): the
    raw files and stdin as read, and the source files of built objects, for line numbers.
    """
    sources, apps, results = read_paths(paths, env, show, raw=raw, skip=skip)
    # one object limit for the run: the raw files and every build count against it
    budget = ObjectBudget()
    documents, problems = load_sources(sources, budget)
    results.extend(problems)
    documents, problems = drop_non_manifests(documents, {source.name for source in sources if source.found})
    results.extend(problems)
    builds, problems = build_apps(apps, env, show, budget)
    results.extend(problems)
    texts = {source.name: source.text for source in sources}
    for built in builds:
        documents.extend(built.documents)
        texts.update(built.texts)
    return documents, results, texts


def _is_kubernetes_object(obj: Any) -> bool:
    return isinstance(obj, dict) and bool(obj.get("apiVersion")) and bool(obj.get("kind"))


def drop_non_manifests(documents: Sequence[Document], found: Collection[str]) -> tuple[list[Document], list[Result]]:
    """Leave out the YAML files a folder walk ``found`` that hold no Kubernetes object at all (a Helm ``values.yaml``).

    Why: Argo CD's directory mode reads every YAML file of the folder but ignores one that is
    not a Kubernetes manifest; a front end that failed on it would fail (or report "does not
    render" for) apps that sync without it. Every front end reads folders by this one rule. A
    file named on the command line is read as asked. A file with at least one object keeps all
    its documents (a stray non-object next to objects is the user's mistake and is reported).
    JSON files are not skipped, as Argo CD does not skip them.
    Mirrors: argo-cd reposerver/repository/repository.go findManifests (unrelated YAML ignored).
    """
    by_file: dict[str, list[Document]] = {}
    for doc in documents:
        by_file.setdefault(doc.file, []).append(doc)
    ignored = {
        file for file, docs in by_file.items()
        if file in found and file.endswith((".yaml", ".yml")) and not any(_is_kubernetes_object(d.obj) for d in docs)
    }
    notes = [
        Result("not a Kubernetes manifest (no document has apiVersion and kind); ignored, as Argo CD's directory mode "
               "ignores it", severity=Severity.INFO, file=file, code=Code.NOTE)
        for file in sorted(ignored)
    ]
    return [d for d in documents if d.file not in ignored], notes


def show_from(cwd: str) -> Show:
    """Name files relative to ``cwd`` when inside it, else by their path (the command line's way)."""
    from plugin.files import shown_path

    root = os.path.realpath(cwd)
    return lambda path: shown_path(os.path.realpath(path), root) if os.path.isabs(path) else os.path.normpath(path)


# ---------------------------------------------------------------------------------------------
# Files named one by one (the pre-commit hook)


@dataclass(frozen=True)
class Role:
    """What a file named on its own is to kustomize: part of an app, a patch, or a plain file.

    ``kind`` is ``plain`` (no kustomization around it, or not one it belongs to), ``app`` (the
    kustomization file or a file in a Kustomization's folder: checked through the folder's
    build), ``patch`` (a file a kustomization names as a patch), ``config`` (a file a
    Component reads as kustomize configuration, such as its openapi schema) or ``component``
    (a Component's own kustomization file). ``kustomization`` is the kustomization file concerned.
    """

    kind: str
    kustomization: str = ""
    folder: str = ""


PLAIN = Role("plain")


def enclosing_kustomization(path: str, stop: str) -> str | None:
    """The kustomization file of the nearest folder holding one, from the file's folder up to ``stop``."""
    folder = os.path.dirname(os.path.abspath(path))
    stop = os.path.abspath(stop)
    inside = folder == stop or folder.startswith(stop.rstrip(os.sep) + os.sep)
    while True:
        found = find_kustomization(folder)
        if found is not None:
            return found
        if not inside or folder == stop or os.path.dirname(folder) == folder:
            return None
        folder = os.path.dirname(folder)


def role_of(path: str, stop: str) -> Role:
    """How a file named on its own is read (``Role``); ``stop`` bounds the search upwards (the working directory).

    A file in a Kustomization's folder tree is checked through that folder's build, as Argo CD
    would deploy it; a file the nearest kustomization names as a patch is checked as a patch
    (also when that kustomization is a Component, which never builds on its own).
    """
    if path == "-":
        return PLAIN
    kustomization = enclosing_kustomization(path, stop)
    if kustomization is None:
        return PLAIN
    folder = os.path.dirname(kustomization)
    content, _ = read_kustomization(kustomization)
    if content is None:
        return Role("app", kustomization, folder)
    real = os.path.realpath(path)
    patches = {os.path.realpath(os.path.join(folder, name)) for name in patch_files(content)}
    if real in patches:
        return Role("patch", kustomization, folder)
    if kustomization_kind(content) == COMPONENT_KIND:
        if real == os.path.realpath(kustomization):
            return Role("component", kustomization, folder)
        if real in {os.path.realpath(os.path.join(folder, name)) for name in config_files(content)}:
            return Role("config", kustomization, folder)
        return PLAIN
    return Role("app", kustomization, folder)
