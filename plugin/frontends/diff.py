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
and ``clusterStatePath`` name, from the same revision.

Exit codes: 0 (no change, or any change without ``--exit-code``), 1 when a side fails to render
or git cannot give the base revision, or, with ``--exit-code``, when anything changed (as
``git diff --exit-code``); 2 on a usage error.
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

from plugin import markdown as _markdown
from plugin.impact import WORKLOAD_KINDS, ADDED, CHANGED, REMOVED, REPLACED, ROLLED, SCALED, Change, Impact, compare, identity
from plugin.options import OptionValues
from plugin.files import KUSTOMIZATION_FILES, TextsOrDisk, is_within
from plugin.settings import Settings, is_settings_document, load_manifests, resolve_settings, settings_files
from plugin.yamlio.codec import load_documents
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

    @property
    def given(self) -> bool:
        return self.operator_config is not None or self.config is not None


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
) -> int:
    """Render both sides, compare them, print the report; returns the exit code.

    With ``old_settings`` given, the old side renders ``old`` (or the base revision of ``new``)
    under them, and the new side ``new`` under ``common``.
    """
    common = common or {}
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
        (before, sources_before), problems_before = render_side(old_side, before_settings, raw, named, texts)
        (after, sources_after), problems_after = render_side(Side("new", tuple(new)), settings, raw, named, texts)
    problems = problems_before + problems_after
    _report(problems, stderr, texts)
    if before is None or after is None:
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
    texts: dict[str, str] | None = None,
) -> tuple[tuple[list[dict[str, Any]] | None, dict[Identity, str]], list[Result]]:
    """Every object the render command would print for ``side`` (None when any error), and its sources.

    An object's source names the DCD or DGD it was rendered from (or the object itself when it
    passed through) with its file and document index, as ``Kind/namespace/name (file:LINE)`` (``(file, doc N)`` without its text).
    ``named`` are the work-tree files that are configuration (default: those ``settings`` name).
    ``texts``, when given, is filled with the text of each file read, named as in problem lines.
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
    if not any(r.is_error for r in results):
        rendered = render_bundle(
            (Item(doc.obj, doc.file, doc.index) for doc in documents),
            settings.config,
            settings.namespace,
            cluster_layers=list(settings.cluster_layers),
        )
        results.extend(rendered.results)
    results = [_relabel(r, side) for r in results]
    if any(r.is_error for r in results):
        return (None, {}), results
    # Each object's source, placed at the line its document starts where the file's text is known.
    found: list[tuple[Identity, Origin]] = []
    for obj in rendered.objects:
        origin = rendered.claims.origin_of(obj)
        if origin is not None:
            found.append((identity(obj, settings.namespace), replace(origin, file=_display(origin.file, side))))
    stubs = [Result("", resource=o.source, file=o.file, index=o.index, code=Code.NOTE) for _, o in found]
    where = places(stubs, shown)
    origins = {key: o.describe() if w == stub.place() else f"{o.label()} ({w})" for (key, o), stub, w in zip(found, stubs, where)}
    return (rendered.objects, origins), results


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
    for label, value in (("--old-operator-config", old.operator_config), ("--old-config", old.config)):
        if value is not None and is_revision_path(value):
            root = os.path.join(scratch, f"settings-{len(renames)}")
            extracted = root if label == "--old-config" else extracted
            path, rename, problems = _from_revision(value, label, root)
            if path is None or rename is None:
                return None, [], problems
            renames.append(rename)
            value = path
        values.append(value)
    options = dict(common)
    for name, value in zip(("operator-config-path", "config"), values):
        if value is not None:
            options[name] = value
    # A config read from a revision names files of that revision only (its extraction).
    settings, problems = resolve_settings(options, nested_root=extracted)
    problems = [replace(r, file=_renamed(r.file, renames)) if r.file else r for r in problems]
    if settings is None or any(r.is_error for r in problems):
        return None, renames, problems
    return settings, renames, problems


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


_VERBS = {
    REPLACED: "replaced",
    ROLLED: "rolled",
    SCALED: "scaled",
    ADDED: "added",
    REMOVED: "removed",
    CHANGED: "changed",
}
_MEANING = {
    REPLACED: "new workload name (worker hash): new pods start, the old workload is removed",
    ROLLED: "pod template changed: pods restart",
    SCALED: "replica count changed",
    ADDED: "new object",
    REMOVED: "object removed",
    CHANGED: "no pod restart",
}


def _target(change: Change) -> str:
    where = f"{change.namespace}/" if change.namespace else ""
    text = f"{change.kind} {where}{change.name}"
    if change.replaced_by is not None:
        text += f" -> {change.replaced_by}"
    return text


def _gpu_delta(change: Change) -> str:
    if change.gpus_before == change.gpus_after:
        return f"{change.gpus_after} GPUs" if change.gpus_after and change.action in (REPLACED, ROLLED) else ""
    return f"GPUs {change.gpus_before} -> {change.gpus_after} ({change.gpus_after - change.gpus_before:+d})"


def format_text(impact: Impact) -> str:
    """The human report."""
    lines: list[str] = []
    if not impact.changes:
        lines.append("no changes")
    for change in impact.changes:
        detail = _gpu_delta(change)
        lines.append(f"{_VERBS[change.action]:<9} {_target(change)}" + (f"  ({detail})" if detail else ""))
        lines += [f"{'':<9}   {line}" for line in change.pod_changes]
    lines.append("")
    lines.extend(_totals(impact, markdown=False))
    return "\n".join(lines) + "\n"


def format_markdown(impact: Impact) -> str:
    """The report as Markdown, for a pull-request comment: every value from the manifests as code (plugin/markdown.py)."""
    lines = ["### dynamo-render diff", ""]
    if not impact.changes:
        lines.append("No change to rendered objects.")
    else:
        lines += ["| action | object | GPUs | what happens |", "|---|---|---|---|"]
        for change in impact.changes:
            gpus = _gpu_delta(change) or "-"
            lines.append(f"| {change.action} | {_markdown.cell(_target(change))} | {gpus} | {_MEANING[change.action]} |")
        detailed = [c for c in impact.changes if c.pod_changes]
        if detailed:
            lines += ["", "#### What changes in the pods", ""]
            for change in detailed:
                lines.append(f"- {_markdown.code(_target(change))}")
                lines += [f"  - {_markdown.code(line)}" for line in change.pod_changes]
    lines.append("")
    lines.extend(_totals(impact, markdown=True))
    return "\n".join(lines) + "\n"


def _totals(impact: Impact, markdown: bool) -> list[str]:
    before, after = impact.before, impact.after
    bullet = "- " if markdown else ""
    lines = [
        f"{bullet}GPUs: {before.gpus} -> {after.gpus} ({after.gpus - before.gpus:+d}); "
        f"pods: {before.pods} -> {after.pods} ({after.pods - before.pods:+d})"
    ]
    namespaces = sorted(set(before.by_namespace) | set(after.by_namespace))
    if len(namespaces) > 1:
        for ns in namespaces:
            gb, pb = before.by_namespace.get(ns, (0, 0))
            ga, pa = after.by_namespace.get(ns, (0, 0))
            shown = _markdown.code(ns) if markdown else ns
            lines.append(f"{'  - ' if markdown else '  '}namespace {shown}: GPUs {gb} -> {ga}, pods {pb} -> {pa}")
    if before.dra_pods or after.dra_pods:
        lines.append(
            f"{bullet}pods whose GPUs come from DRA claims (not counted above): {before.dra_pods} -> {after.dra_pods}"
        )
    replaced = sum(1 for c in impact.changes if c.action == REPLACED and c.kind in WORKLOAD_KINDS)
    if replaced:
        lines.append(
            f"{bullet}{replaced} workload(s) replaced: in Argo CD the old workload is pruned in the same sync "
            "(after the rest of the sync with PruneLast=true); capacity drops until the new pods are ready"
        )
    return lines
