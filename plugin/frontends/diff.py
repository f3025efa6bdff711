"""The ``diff`` command: what a change to Dynamo manifests does to running workloads and GPUs.

``dynamo-render diff OLD NEW`` renders both paths with the same settings and compares the
rendered objects (``plugin.impact``); ``dynamo-render diff --base REV PATH`` takes OLD from
git revision ``REV`` of ``PATH``. The report says which workloads are replaced (the worker
hash renamed them), which roll (pod template changed), which only scale, what else changed,
and the GPU and pod totals before and after.

With old settings (``--old-operator-config``, ``--old-config``; an old flag not given takes
the new side's value), the old side is rendered under them: ``PATH...`` under the old and the
new settings is what an operator or settings upgrade does, and with ``--base`` the old side
takes both the old revision and the old settings. An old settings file given as ``REV:path``
is read from git revision ``REV`` as ``git show`` reads it (``path`` from the top of the
repository, ``./path`` from the working directory), with the files its ``operatorConfigPath``
and ``clusterStatePath`` name, from the same revision. With ``--base REV`` and no old flag, a
settings file named by path inside the work tree is read from ``REV`` for the old side by
default (``--settings-from-worktree``: the work tree's on both sides). ``--old-operator-release``
renders the old side under another release profile; a graph the operator reconciles
(``keepSources``) keeps the origin version it was created with.

An update the API server would refuse fails the diff like a side that fails to render: a CRD
transition rule of the new side's operator release between a kept DCD or DGD on the two sides
(renderer/admission/immutable.py: under 1.5.0 a component's type is immutable once set) is an
error on the new side's document.

Exit codes: 0 (no change, or any change without ``--exit-code``), 1 when a side fails to render,
the API server would refuse an update, or git cannot give the base revision, or, with
``--exit-code``, when anything changed (as ``git diff --exit-code``); 2 on a usage error.
"""

from __future__ import annotations

import json
import os
import subprocess
import tarfile
import tempfile
from collections.abc import Collection, Mapping, Sequence
from renderer.records import dataclass, replace
from typing import Any, TextIO

from plugin.frontends.diff_report import format_markdown, format_text
from plugin.frontends.diff_stamp import OriginStamp, keep_origin, stamp_notes, without_stamp
from plugin.impact import compare, identity
from plugin.options import OptionValues
from plugin.files import KUSTOMIZATION_FILES, TextsOrDisk, is_within
from plugin.settings import Settings, is_settings_document, load_manifests, resolve_settings, settings_files
from plugin.yamlio.codec import load_documents
from renderer.admission.immutable import type_transition_refusals
from renderer.bundle import Item, render_bundle
from plugin.yamlio.lines import format_results, places
from renderer.clashes import Identity, Origin
from renderer.results import Code, Result, Severity

FORMATS = ("text", "json", "markdown")


@dataclass(frozen=True)
class OldSettings:
    """The old side's own settings files (None: the new side's); each a path or ``REV:path``."""

    operator_config: str | None = None
    config: str | None = None
    cluster_state: str | None = None
    # The old side's operator release profile (renderer/releases.py), by name.
    operator_release: str | None = None

    @property
    def given(self) -> bool:
        return any(v is not None for v in (self.operator_config, self.config, self.cluster_state, self.operator_release))


# An old settings value that says the old side has no such file (it is not in the base revision).
NOT_IN_BASE = ""
# (option name, OldSettings field, old flag)
_SETTINGS_FILES = (
    ("operator-config-path", "operator_config", "--old-operator-config"),
    ("config", "config", "--old-config"),
    ("cluster-state", "cluster_state", "--old-cluster-state"),
)


# One document a side read: (object, file as shown, document index).
Written = tuple[Any, str, int | None]


@dataclass(frozen=True)
class Side:
    """One side of the comparison: the paths to render and how to name its files in messages."""

    label: str
    paths: tuple[str, ...]
    # (prefix to replace, replacement) for file names in problem lines (a temporary checkout).
    rename: tuple[str, str] | None = None
    # The git work tree the temporary checkout copies (its files stand at the same relative paths).
    top: str | None = None


def run(
    old: Sequence[str],
    new: Sequence[str],
    base: str | None,
    output: str,
    exit_code: bool,
    stdout: TextIO,
    stderr: TextIO,
    common: OptionValues | None = None,
    old_settings: OldSettings = OldSettings(),
    settings_from_worktree: bool = False,
) -> int:
    """Render both sides, compare them, print the report; returns the exit code.

    With ``old_settings`` given, the old side renders ``old`` (or the base revision of ``new``)
    under them, and the new side ``new`` under ``common``. With ``base``, a settings file named
    by path and kept in git is read from the base revision for the old side (see
    ``settings_from_base``) unless ``settings_from_worktree``.
    """
    common = common or {}
    if base is not None and not settings_from_worktree:
        old_settings, notes = settings_from_base(base, common, old_settings)
        _report(notes, stderr)
    raw = common.get("kustomize") is False
    settings, problems = resolve_settings(common)
    if settings is None or any(r.is_error for r in problems):
        _report(problems, stderr)
        return 1
    missing = missing_kustomize(new if base is not None else [*old, *new], raw)
    if missing is not None:
        # one line for both sides
        _report([missing], stderr)
        return 1
    with tempfile.TemporaryDirectory(prefix="dynamo-render-diff-") as scratch:
        before_settings, renames = settings, list[Rename]()
        if old_settings.given:
            resolved, renames, problems = resolve_old_settings(common, old_settings, scratch)
            _report(problems, stderr)
            if resolved is None:
                return 1
            before_settings = resolved
        if base is not None:
            old_side, problems = checkout(base, new, scratch)
            if old_side is None:
                _report(problems, stderr)
                return 1
        else:
            old_side = Side("old", tuple(old))
        # A file either side's settings name is configuration on both sides, never a manifest.
        named = _work_tree_names(settings, renames) | _work_tree_names(before_settings, renames)
        texts: dict[str, str] = {}
        graphs: set[tuple[str, str]] = set()
        (before, sources_before, written_before), problems_before = render_side(
            old_side, before_settings, raw, named, texts, graphs=graphs,
        )
        # The operator stamps the origin version on a graph only when it creates it: a graph it
        # reconciles (keepSources) keeps the old side's stamp across an operator upgrade.
        stamp = None
        if settings.keep_sources and before_settings.operator_version != settings.operator_version:
            stamp = OriginStamp(before_settings.operator_version, frozenset(graphs))
        (after, sources_after, written_after), problems_after = render_side(
            Side("new", tuple(new)), settings, raw, named, texts, stamp=stamp,
        )
    problems = problems_before + problems_after + stamp_notes(before_settings, settings, graphs, stamp)
    _report(problems, stderr, texts)
    if before is None or after is None:
        return 1
    # An update the API server refuses (a CRD transition rule of the new side's operator) cannot be applied.
    refused = type_transition_refusals(written_before, written_after, settings.config.release, settings.namespace)
    if refused:
        _report(refused, stderr, texts)
        return 1
    impact = compare(before, after, sources_before, sources_after, default_namespace=settings.namespace)
    if output == "json":
        stdout.write(json.dumps(impact.as_json(), indent=2, sort_keys=True) + "\n")
    elif output == "markdown":
        stdout.write(format_markdown(impact))
    else:
        stdout.write(format_text(impact))
    stdout.flush()
    return 1 if exit_code and impact.changed else 0


def missing_kustomize(paths: Sequence[str], raw: bool) -> Result | None:
    """The one error when a path is a kustomize app and neither kustomize nor kubectl can be found."""
    from plugin.app_reader import app_of_path, kustomize_build, kustomize_command, show_from

    if raw or kustomize_command(os.environ) is not None:
        return None
    for path in paths:
        app = app_of_path(path, raw)
        if app is not None:
            return kustomize_build(*app, os.environ, show_from(os.getcwd())).results[0]
    return None


def render_side(
    side: Side, settings: Settings, raw: bool = False, named: Collection[str] | None = None,
    texts: dict[str, str] | None = None, graphs: set[tuple[str, str]] | None = None, stamp: OriginStamp | None = None,
) -> tuple[tuple[list[dict[str, Any]] | None, dict[Identity, str], list[Written]], list[Result]]:
    """Every object the render command would print for ``side`` (None when any error), its sources, and the documents read.

    An object's source names the DCD or DGD it was rendered from (or the object itself when it
    passed through) with its file and document index, as ``Kind/namespace/name (file:LINE)`` (``(file, doc N)`` without its text).
    ``named`` are the work-tree files that are configuration (default: those ``settings`` name).
    ``texts``, when given, is filled with the text of each file read, named as in problem lines.
    ``graphs``, when given, is filled with the (namespace, name) of each DGD read; ``stamp`` gives
    the DGDs it names the origin version they were created with. The documents read are (object,
    file as shown, document index), for the transition rules between the two sides
    (renderer.admission.immutable).
    """
    results: list[Result] = []
    named = [os.path.realpath(p) for p in (settings.config_files if named is None else named)]
    skip = settings_files(settings, named)
    if side.top is not None and side.rename is not None:
        # The settings name work-tree files; the base revision's copies of them are configuration too.
        top, root = os.path.realpath(side.top), os.path.join(os.path.realpath(side.rename[0]), "")
        skip = settings_files(settings, [root + os.path.relpath(p, top) for p in named if is_within(p, top)])
    read: dict[str, str] = {}
    documents, problems = load_manifests(side.paths, settings, skip, raw=raw, texts=read)
    results.extend(problems)
    shown = {_display(file, side): text for file, text in read.items()}
    if texts is not None:
        texts.update(shown)
    if graphs is not None:
        for doc in documents:
            obj = doc.obj
            if isinstance(obj, dict) and obj.get("kind") == "DynamoGraphDeployment" and isinstance(obj.get("metadata"), dict):
                graphs.add((str(obj["metadata"].get("namespace") or settings.namespace), str(obj["metadata"].get("name") or "")))
    if not any(r.is_error for r in results):
        rendered = render_bundle(
            (Item(doc.obj if stamp is None else keep_origin(doc, stamp, settings.namespace), doc.file, doc.index) for doc in documents),
            settings.config,
            settings.namespace,
            cluster_layers=list(settings.cluster_layers),
        )
        results.extend(rendered.results)
        if stamp is not None:
            rendered = replace(rendered, objects=[without_stamp(obj, documents, stamp, settings.namespace) for obj in rendered.objects])
    results = [_relabel(r, side) for r in results]
    if any(r.is_error for r in results):
        return (None, {}, []), results
    written: list[Written] = [(doc.obj, _display(doc.file, side), doc.index) for doc in documents]
    # Each object's source, placed at the line its document starts where the file's text is known.
    found: list[tuple[Identity, Origin]] = []
    for obj in rendered.objects:
        origin = rendered.claims.origin_of(obj)
        if origin is not None:
            found.append((identity(obj, settings.namespace), replace(origin, file=_display(origin.file, side))))
    stubs = [Result("", resource=o.source, file=o.file, index=o.index, code=Code.NOTE) for _, o in found]
    where = places(stubs, shown)
    origins = {key: o.describe() if w == stub.place() else f"{o.label()} ({w})" for (key, o), stub, w in zip(found, stubs, where)}
    return (rendered.objects, origins, written), results


# (prefix of files extracted from a revision, how to show that prefix, the work tree they come from)
Rename = tuple[str, str, str]


def resolve_old_settings(
    common: OptionValues, old: OldSettings, scratch: str
) -> tuple[Settings | None, list[Rename], list[Result]]:
    """The old side's settings: the old flags over the new side's options (None on any error).

    A ``REV:path`` value is extracted from git revision ``REV`` under ``scratch`` first; its
    files are named ``REV:path`` in messages. The renames map those files back to the work tree.
    """
    renames: list[Rename] = []
    values: list[str | None] = []
    extracted: str | None = None
    for _, attribute, label in _SETTINGS_FILES:
        value = getattr(old, attribute)
        if value is not None and value != NOT_IN_BASE and is_revision_path(value):
            root = os.path.join(scratch, f"settings-{len(renames)}")
            extracted = root if label == "--old-config" else extracted
            path, rename, problems = _from_revision(value, label, root)
            if path is None or rename is None:
                return None, [], problems
            renames.append(rename)
            value = path
        values.append(value)
    options = dict(common)
    if old.operator_release is not None:
        options["operator-release"] = old.operator_release
    for (name, _, _), value in zip(_SETTINGS_FILES, values):
        if value == NOT_IN_BASE:
            options.pop(name, None)
        elif value is not None:
            options[name] = value
    # A config read from a revision names files of that revision only (its extraction).
    settings, problems = resolve_settings(options, nested_root=extracted)
    problems = [replace(r, file=_renamed(r.file, renames)) if r.file else r for r in problems]
    if settings is None or any(r.is_error for r in problems):
        return None, renames, problems
    return settings, renames, problems


def settings_from_base(base: str, common: OptionValues, old: OldSettings) -> tuple[OldSettings, list[Result]]:
    """The old side's settings files with ``--base REV``: each one named by path, as the base revision holds it.

    A settings file (``--operator-config``, ``--config``, ``--cluster-state``) inside the git work
    tree is read from ``REV`` for the old side, exactly as the sources are (with the files a
    DynamoRenderConfig there names, from the same revision); an old flag given wins. A file the
    revision does not have leaves the old side without it, with a warning; a file outside the
    work tree (or inline text) is the same on both sides.
    """
    notes: list[Result] = []
    top_out, _ = _git(["rev-parse", "--show-toplevel"], os.getcwd())
    if top_out is None:
        return old, notes
    top = os.path.realpath(top_out.decode().strip())
    commit_out, _ = _git(["rev-parse", "--verify", "--quiet", f"{base}^{{commit}}"], top)
    if commit_out is None:
        # checkout() reports the unknown revision
        return old, notes
    commit = commit_out.decode().strip()
    changes: dict[str, str] = {}
    for name, attribute, label in _SETTINGS_FILES:
        value = common.get(name)
        if getattr(old, attribute) is not None or not isinstance(value, str) or not os.path.isfile(value):
            continue
        real = os.path.realpath(value)
        if not is_within(real, top):
            continue
        rel = os.path.relpath(real, top)
        listed, _ = _git(["ls-tree", "--name-only", commit, "--", rel], top)
        if listed:
            changes[attribute] = f"{base}:{rel}"
        else:
            changes[attribute] = NOT_IN_BASE
            flag = label.replace("--old-", "--")
            notes.append(Result(
                f"{flag} {value} is not in revision {base}: the base side is rendered without it "
                "(--settings-from-worktree uses the work tree's settings on both sides)",
                severity=Severity.WARNING, code=Code.CONFIG,
            ))
    return (replace(old, **changes) if changes else old), notes


def is_revision_path(value: str) -> bool:
    """Whether a settings file is given as ``REV:path`` (a colon, and no file of that name)."""
    rev, colon, _ = value.partition(":")
    return bool(colon and rev) and not os.path.lexists(value)


def _from_revision(value: str, label: str, root: str) -> tuple[str | None, Rename | None, list[Result]]:
    """Extract ``REV:path`` (and the files a DynamoRenderConfig there names) under ``root``.

    ``path`` is read as ``git show`` reads it: from the top of the repository, or from the
    working directory when it starts with ``./`` or ``../``.
    """
    rev, _, rel = value.partition(":")
    top_out, error = _git(["rev-parse", "--show-toplevel"], os.getcwd())
    if top_out is None:
        return None, None, [Result(f"{label} {value}: not in a git work tree: {error}", code=Code.CONFIG)]
    top = top_out.decode().strip()
    if rel in (".", "..") or rel.startswith(("./", "../")):
        rel = os.path.relpath(os.path.join(os.getcwd(), rel), top)
    rel = os.path.normpath(rel)
    if os.path.isabs(rel) or rel == os.pardir or rel.startswith(os.pardir + os.sep):
        return None, None, [Result(f"{label} {value}: the path is outside the git work tree {top}", code=Code.CONFIG)]
    commit_out, error = _git(["rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}"], top)
    if commit_out is None:
        return None, None, [Result(f"{label} {value}: unknown revision {rev} {error}".rstrip(), code=Code.CONFIG)]
    commit = commit_out.decode().strip()
    found, problems = _extract_files(top, commit, [rel], root, rev)
    if problems:
        return None, None, problems
    if not found:
        return None, None, [Result(f"{label} {value}: no file {rel} at revision {rev}", code=Code.CONFIG)]
    path = os.path.join(root, rel)
    if not os.path.isfile(path):
        return None, None, [Result(f"{label} {value}: {rel} is not a file at revision {rev}", code=Code.CONFIG)]
    # The files a DynamoRenderConfig names, relative to it, come from the same revision.
    nested: list[str] = []
    with open(path, "rb") as handle:
        documents, _ = load_documents(handle.read().decode("utf-8", errors="replace"), path)
    if len(documents) == 1 and isinstance(documents[0].obj, dict) and is_settings_document(documents[0].obj):
        spec = documents[0].obj.get("spec")
        for key in ("operatorConfigPath", "clusterStatePath"):
            named = spec.get(key) if isinstance(spec, dict) else None
            if isinstance(named, str) and named and not os.path.isabs(named):
                inner = os.path.normpath(os.path.join(os.path.dirname(rel), named))
                if inner != os.pardir and not inner.startswith(os.pardir + os.sep):
                    nested.append(inner)
    # One missing is reported by the settings, which read it, as REV:path.
    _, problems = _extract_files(top, commit, nested, root, rev)
    if problems:
        return None, None, problems
    return path, (os.path.join(os.path.realpath(root), ""), f"{rev}:", top), []


def _extract_files(top: str, commit: str, rels: Sequence[str], root: str, rev: str) -> tuple[bool, list[Result]]:
    """Write the files ``rels`` (paths from the repository's top) of ``commit`` under ``root``.

    Returns whether every one exists there, and the problems (a link leading out of the
    repository, as for the base revision). A file that is a symlink in the revision brings its
    target from the same revision (a few links deep).
    """
    present = [rel for rel in rels if _git(["ls-tree", "--name-only", commit, "--", rel], top)[0]]
    os.makedirs(root, exist_ok=True)
    if present:
        archive = root + ".tar"
        _, error = _git(["archive", "--format=tar", f"--output={archive}", commit, "--", *present], top)
        if error:
            return False, [Result(f"{rev}: git archive failed: {error}", code=Code.CONFIG)]
        problems = _extract(archive, root, rev)
        if problems:
            return False, problems
    for rel in present:
        for _ in range(8):
            link = os.path.join(root, rel)
            if not os.path.islink(link) or os.path.exists(link):
                break
            rel = os.path.normpath(os.path.join(os.path.dirname(rel), os.readlink(link)))
            if os.path.isabs(rel) or rel == os.pardir or rel.startswith(os.pardir + os.sep):
                break
            found, problems = _extract_files(top, commit, [rel], root, rev)
            if problems or not found:
                return found, problems
    return len(present) == len(rels), []


def _renamed(file: str, renames: Sequence[Rename]) -> str:
    """A file extracted from a revision as ``REV:path``; any other file as it is."""
    real = os.path.realpath(file) if file else file
    for prefix, shown, _ in renames:
        if real.startswith(prefix):
            return shown + real[len(prefix):]
    return file


def _work_tree_names(settings: Settings, renames: Sequence[Rename]) -> frozenset[str]:
    """The work-tree files the settings name: a file extracted from a revision stands for its work-tree path."""
    out: set[str] = set()
    for path in settings.config_files:
        real = os.path.realpath(path)
        for prefix, _, top in renames:
            if real.startswith(prefix):
                real = os.path.join(os.path.realpath(top), real[len(prefix):])
                break
        out.add(real)
    return frozenset(out)


def checkout(rev: str, paths: Sequence[str], scratch: str) -> tuple[Side | None, list[Result]]:
    """``paths`` as they are at git revision ``rev``, extracted under ``scratch``.

    The paths are taken relative to the top of the git work tree that holds them; a path that
    does not exist at ``rev`` is an empty side (everything in it is ``added``).
    """
    if not paths or any(p == "-" for p in paths):
        return None, [Result("--base needs PATH arguments inside a git work tree (not stdin)", code=Code.INPUT)]
    first = os.path.abspath(paths[0])
    cwd = first if os.path.isdir(first) else os.path.dirname(first)
    top_out, error = _git(["rev-parse", "--show-toplevel"], cwd)
    if top_out is None:
        return None, [Result(f"--base {rev}: not in a git work tree: {error}", file=paths[0], code=Code.INPUT)]
    top = top_out.decode().strip()
    commit, error = _git(["rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}"], top)
    if commit is None:
        return None, [Result(f"--base {rev}: unknown revision {error}".rstrip(), code=Code.INPUT)]
    relative: list[str] = []
    for path in paths:
        rel = os.path.relpath(os.path.abspath(path), top)
        if rel == os.pardir or rel.startswith(os.pardir + os.sep):
            return None, [Result(f"--base {rev}: path is outside the git work tree {top}", file=path, code=Code.INPUT)]
        relative.append(rel)
    present: list[str] = []
    for rel in relative:
        listed, _ = _git(["ls-tree", "--name-only", commit.decode().strip(), "--", rel], top)
        if listed:
            present.append(rel)
    root = os.path.join(os.path.realpath(scratch), "base")
    os.makedirs(root)
    if present:
        archive = os.path.join(scratch, "base.tar")
        # A kustomization may name files anywhere in the repository (an overlay's ../base, shared
        # components): then the revision's whole tree is extracted, so it builds as it would there.
        wanted = [] if any(_holds_kustomization(commit.decode().strip(), rel, top) for rel in present) else present
        _, error = _git(["archive", "--format=tar", f"--output={archive}", commit.decode().strip(), "--", *wanted], top)
        if error:
            return None, [Result(f"--base {rev}: git archive failed: {error}", code=Code.INPUT)]
        problems = _extract(archive, root, rev)
        if problems:
            return None, problems
    side_paths = tuple(os.path.join(root, rel) for rel in present)
    # A path absent at the base revision renders to nothing (an empty file stands in for it).
    if not side_paths:
        empty = os.path.join(root, "empty.yaml")
        open(empty, "w").close()
        side_paths = (empty,)
    return Side(rev, side_paths, rename=(root + os.sep, f"{rev}:"), top=top), []


def _holds_kustomization(commit: str, rel: str, top: str) -> bool:
    """Whether ``rel`` at ``commit`` is, or holds, a kustomization file."""
    listed, _ = _git(["ls-tree", "-r", "--name-only", commit, "--", rel], top)
    names = (listed or b"").decode(errors="replace").splitlines()
    return any(os.path.basename(name) in KUSTOMIZATION_FILES for name in names)


def _extract(archive: str, root: str, rev: str) -> list[Result]:
    """Extract the base revision's archive under ``root``; a link leaving the tree is an error naming ``REV:path``.

    A work-tree render refuses a symlink out of the repository when it is confined (the CMP);
    a base revision is confined to its own tree always: nothing outside is read, and a CI diff
    job gets one line per such link instead of a crash.
    """
    problems: list[Result] = []
    with tarfile.open(archive) as tar:
        members = tar.getmembers()
        for member in members:
            try:
                tarfile.data_filter(member, root)
            except tarfile.FilterError:
                what = f"symlink points outside the repository (-> {member.linkname})" if member.issym() else (
                    f"hard link points outside the repository (-> {member.linkname})" if member.islnk() else "leads outside the repository"
                )
                problems.append(Result(f"{what}; it is not read", file=f"{rev}:{member.name}", code=Code.INPUT))
        if not problems:
            tar.extractall(root, members=members, filter="data")
    return problems


def _git(args: list[str], cwd: str) -> tuple[bytes | None, str]:
    try:
        proc = subprocess.run(["git", *args], cwd=cwd, capture_output=True, check=False)
    except OSError as err:
        return None, f"cannot run git: {err.strerror or err}"
    if proc.returncode != 0:
        return None, proc.stderr.decode(errors="replace").strip().splitlines()[-1:][0] if proc.stderr.strip() else ""
    return proc.stdout, ""


def _display(file: str, side: Side) -> str:
    """A file as the user names it: a base-revision file as ``REV:path``."""
    if side.rename is None or not file.startswith(side.rename[0]):
        return file
    return side.rename[1] + file[len(side.rename[0]):]


def _relabel(result: Result, side: Side) -> Result:
    """Name a base-revision file as ``REV:path`` in problem lines."""
    return replace(result, file=_display(result.file, side)) if result.file else result


def _report(results: Sequence[Result], stream: TextIO, texts: Mapping[str, str] | None = None) -> None:
    """One line per problem (notes left out): ``file:LINE:`` where the file's text is in ``texts`` or can be read again."""
    shown = [r for r in results if r.severity is not Severity.INFO]
    stream.writelines(line + "\n" for line in format_results(shown, TextsOrDisk(texts or {})))
