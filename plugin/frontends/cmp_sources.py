"""What the Argo CD plugin reads: the repository around the app folder, and the folder's objects.

cmp-server unpacks the repository into a fresh folder of its own and runs the plugin in the
application's path inside it. Every read stays inside that repository (``Tree``; the files the
settings name, through the settings resolver's ``PathPolicy``): a symlink or a path that leads
outside is an error. The app folder's objects are what Argo CD itself would read there: the
``kustomize build`` of its kustomization when it has one, else its manifest files (YAML files
that hold no Kubernetes object at all, such as a Helm ``values.yaml``, are left out as Argo
CD's directory mode leaves them out), and documents marked
``config.kubernetes.io/local-config`` are never applied.

Mirrors: argo-cd cmpserver/plugin/plugin.go (the unpacked repository and the app path),
reposerver/repository/repository.go (findManifests, and kustomize for a folder with a
kustomization). The reading itself is the app reader's, shared by every front end
(``plugin.app_reader``): a sub-folder holding a kustomization is built too, never read raw.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Mapping, Sequence
from renderer.records import dataclass
from typing import Any

from plugin.app_reader import (
    build_apps,
    drop_non_manifests,
    find_kustomization,
    helm_chart_error,
    kustomize_build,
    split_apps,
)
from plugin.files import (
    HELM_CHART_FILE,
    LOCAL_CONFIG_ANNOTATION,
    ObjectBudget,
    is_within as _is_within,
    load_sources,
    read_files,
    shown_path,
    walk_manifests,
)
from plugin.yamlio.codec import Document
from renderer import consts
from plugin.settings import RENDER_CONFIG_KIND, is_kustomize_document
from renderer.results import Code, Result, Severity

# Argo CD's cmp-server unpacks every request into $ARGOCD_CMP_WORKDIR/_cmp_server/<uuid>/
# (or $TMPDIR/_cmp_server/<uuid>/); common/common.go GetCMPWorkDir, util/io/files CreateTempDir.
CMP_WORKDIR_ENV = "ARGOCD_CMP_WORKDIR"
CMP_WORKDIR_NAME = "_cmp_server"




def resolve_repo_root(app_dir: str, env: Mapping[str, str]) -> str:
    """The root of the unpacked repository that contains ``app_dir`` (both real paths).

    Argo CD's cmp-server unpacks each request into its own ``<workdir>/_cmp_server/<uuid>`` and
    runs us in ``<that>/<app path>``, so inside that work dir the root is the ``<uuid>``
    folder. Elsewhere, the working directory minus ``ARGOCD_APP_SOURCE_PATH`` when it ends with
    it; else the app folder itself (the strictest choice).
    Mirrors: argo-cd common/common.go GetCMPWorkDir (the work dir location).
    """
    base = env.get(CMP_WORKDIR_ENV) or env.get("TMPDIR") or "/tmp"
    work_dir = os.path.realpath(os.path.join(base, CMP_WORKDIR_NAME))
    if _is_within(app_dir, work_dir) and app_dir != work_dir:
        first = os.path.relpath(app_dir, work_dir).split(os.sep)[0]
        return os.path.join(work_dir, first)
    source = env.get("ARGOCD_APP_SOURCE_PATH", "")
    parts = [p for p in os.path.normpath(source).split("/") if p not in ("", ".")] if source else []
    if parts and ".." not in parts:
        app_parts = app_dir.split(os.sep)
        if len(app_parts) > len(parts) and app_parts[-len(parts):] == parts:
            return os.sep.join(app_parts[: -len(parts)]) or os.sep
    return app_dir


def sent_folder(root: str, app_dir: str, env: Mapping[str, str]) -> str | None:
    """The repository folder ``root`` is, when Argo CD sent only part of the repository, else None.

    With ``reposerver.plugin.use.manifest.generate.paths`` Argo CD streams only the common root
    of the Application's ``argocd.argoproj.io/manifest-generate-paths`` paths, while
    ``ARGOCD_APP_SOURCE_PATH`` still names the app path from the repository's root: the part
    of that path above the app folder's place in ``root`` is the folder that was sent.
    Mirrors: argo-cd reposerver/repository/repository.go runConfigManagementPluginSidecars
    (getApplicationRootPath).
    """
    source = env.get("ARGOCD_APP_SOURCE_PATH", "")
    parts = [p for p in source.split("/") if p not in ("", ".")]
    if not parts or ".." in parts:
        return None
    relative = os.path.relpath(app_dir, root)
    inner = [] if relative == "." else relative.split(os.sep)
    if len(parts) <= len(inner) or parts[len(parts) - len(inner):] != inner:
        return None
    return "/".join(parts[: len(parts) - len(inner)])


@dataclass(frozen=True)
class Tree:
    """The repository root, the app folder in it, and how to name files for the user."""

    root: str
    app: str

    def display(self, path: str) -> str:
        """A path as the user sees it in the repository (root-relative when inside)."""
        return shown_path(path, self.root)


def helm_chart_note(tree: Tree, chart: str) -> Result:
    """A Helm chart reached the plugin: one line saying so, instead of its templates' YAML errors (as every reader says)."""
    shown = tree.display(chart) if chart != tree.app else "the application folder"
    return helm_chart_error(shown, tree.display(os.path.join(chart, HELM_CHART_FILE)))


def collect_documents(
    tree: Tree, skip: Collection[str], env: Mapping[str, str], texts: dict[str, str] | None = None
) -> tuple[list[Document], list[Result], str]:
    """The app folder's documents, its problems, and a few words on what was read (``plugin.app_reader``).

    A folder holding a Helm chart (``Chart.yaml``) is refused with one line per chart: its
    templates are not manifests, and reading them would only give YAML errors. ``texts``, when
    given, is filled with the text of every file the documents are named by, for line numbers.
    """
    texts = {} if texts is None else texts
    if os.path.isfile(os.path.join(tree.app, HELM_CHART_FILE)):
        return [], [helm_chart_note(tree, tree.app)], "a Helm chart"
    kustomization = find_kustomization(tree.app)
    if kustomization is not None:
        built = kustomize_build(tree.app, kustomization, env, tree.display)
        texts.update(built.texts)
        return built.documents, built.results, f"kustomize build of {tree.display(kustomization)} gave {len(built.documents)} objects"
    found: list[tuple[str, str]] = []
    files, results = walk_manifests(tree.app, confine_to=tree.root, skip=skip, apps=found)
    charts = sorted({os.path.dirname(real) for real, _ in files if os.path.basename(real) == HELM_CHART_FILE})
    if charts:
        return [], [*results, *(helm_chart_note(tree, chart) for chart in charts)], f"{len(charts)} Helm charts"
    apps, notes = split_apps(found, tree.display)
    results.extend(notes)
    sources, problems = read_files(files)
    results.extend(problems)
    texts.update((source.name, source.text) for source in sources)
    # one object limit for the run: the files and every build count against it
    budget = ObjectBudget()
    documents, problems = load_sources(sources, budget)
    results.extend(problems)
    documents, problems = drop_non_manifests(documents, {source.name for source in sources if source.found})
    results.extend(problems)
    builds, problems = build_apps(apps, env, tree.display, budget)
    results.extend(problems)
    for built in builds:
        documents.extend(built.documents)
        texts.update(built.texts)
    described = f"found {len(files)} manifest files" + (f" and {len(apps)} kustomize apps" if apps else "")
    return documents, results, described


def not_deployable(obj: Any) -> Result | None:
    """Argo CD can only apply Kubernetes objects; our own config kinds are never applied."""
    if not isinstance(obj, dict):
        return Result("not a Kubernetes object (expected a mapping with apiVersion, kind and metadata.name)", code=Code.INPUT)
    if not obj.get("apiVersion") or not obj.get("kind"):
        return Result("not a Kubernetes object (apiVersion and kind are required)", code=Code.INPUT)
    metadata = obj.get("metadata")
    if not isinstance(metadata, dict) or not (metadata.get("name") or metadata.get("generateName")):
        return Result("metadata.name is required", field="metadata.name", code=Code.INPUT)
    if is_kustomize_document(obj):
        return Result(
            f"a kustomize {obj['kind']} is input to kustomize, not an object to deploy (a folder holding it is built)",
            code=Code.INPUT,
        )
    if obj.get("kind") in (RENDER_CONFIG_KIND, consts.OPERATOR_CONFIG_KIND):
        return Result(
            f"a {obj['kind']} is configuration, not an object to deploy: name its file with the config "
            f'parameter, or annotate it {LOCAL_CONFIG_ANNOTATION}: "true"', code=Code.CONFIG
        )
    return None

