"""The ``dynamo-validate`` pre-commit hook: every offline admission rule, then a render.

Each file named on the command line is checked, and the objects of every file of the run are
claimed in one identity index, so two files that render one object are an error naming both.
The hook runs serially (``require_serial: true``): pre-commit then hands it every file at once,
unless the command line would pass its limit, and then the parts run one after the other and
each claims the files of the parts before it (``ChunkHandoff``). A commit whose files never mention a Dynamo kind is skipped without
parsing; otherwise the other files are parsed too, only to claim their objects' identities: a
hand-written object named like a rendered one is a clash naming both files (DESIGN decision 12). Each DynamoComponentDeployment and DynamoGraphDeployment goes
through the renderer exactly as ``dynamo-render render`` would take it (CRD schema, CEL rules,
webhooks, then rendering), the plugin's own settings documents (DynamoRenderConfig,
OperatorConfiguration) are read as a render reads them, and every problem prints as one line::

    deploy/worker.yaml:14: [error] DynamoComponentDeployment/worker spec.replicas: must be >= 0 (got -1)

Unknown fields inside a pod template (a DCD's ``spec.podTemplate``, a DGD component's) are only
warnings when rendering (the operator's typed decode drops them) but errors here, as
``kubectl apply --validate=strict`` rejects them.
Lines are found on the error path only: files with nothing to report are never parsed twice.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
import tempfile
import time
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, TextIO

from plugin.app_reader import PLAIN, Role, enclosing_chart, helm_chart_error, role_of, show_from
from plugin.files import HELM_CHART_FILE, ObjectBudget, Source, TextsOrDisk, read_sources
from plugin.yamlio.codec import Document
from plugin.options import OptionValues
from plugin.yamlio.lines import report
from renderer import consts
from renderer.admission.dynamo_kinds import DYNAMO_CRD_KINDS
from renderer.records import replace
from renderer.results import Code, Result, Severity

if TYPE_CHECKING:
    from plugin.settings import Settings
    from renderer.clashes import Identities

DYNAMO_KINDS = (consts.DCD_KIND, consts.DGD_KIND)
# the plugin's own settings kinds (plugin.settings), checked when a file names one
SETTINGS_KIND_NAMES = ("DynamoRenderConfig", consts.OPERATOR_CONFIG_KIND)


def mentions_dynamo_kind(text: str) -> bool:
    """A cheap pre-filter: files that never name a Dynamo kind hold nothing to check."""
    return any(kind in text for kind in DYNAMO_KINDS)


def strict_preserved_content(result: Result) -> Result:
    """Content that only a preservation annotation carries is an error before a commit.

    A reviewer cannot see it in the visible spec; a source whose preserved content is accepted
    (``acceptPreservedContent``) reports it as info notes, which stay notes.
    """
    if result.severity is Severity.WARNING and result.code is Code.PRESERVED:
        return replace(result, severity=Severity.ERROR)
    return result


# A file's documents and YAML problems, parsed once per run (``ObjectBudget.load``).
Loaded = tuple[list[Document] | None, list[Result]]


def validate_source(
    source: Source,
    settings: Settings,
    identities: Identities | None = None,
    budget: ObjectBudget | None = None,
    loaded: Loaded | None = None,
) -> list[Result]:
    """Every problem in one file: YAML, admission rules and rendering.

    ``identities``, shared by the files of one run, makes two files rendering one object an
    error naming both (each file's claims are merged into it, ``Identities.merge``) (pre-commit may split a commit's files into chunks; each chunk is one run).
    ``loaded`` is the file already parsed.
    """
    if not mentions_dynamo_kind(source.text):
        return []
    documents, problems = loaded if loaded is not None else (budget or ObjectBudget()).load(source)
    results = list(problems)
    if documents is None:
        return results
    return results + validate_documents(documents, settings, identities, source.name)


def validate_documents(
    documents: Sequence[Document], settings: Settings, identities: Identities | None = None, file: str = ""
) -> list[Result]:
    """Admission rules and rendering for parsed documents (a file's, or an app's build); ``file`` names notes without one."""
    from renderer.bundle import Item, render_bundle

    items = [Item(doc.obj, doc.file, doc.index) for doc in documents]
    rendered = render_bundle(items, settings.config, settings.namespace, cluster_layers=settings.cluster_layers)
    # The file renders on its own (its cluster facts are its own); its identities join the run's.
    clashes = identities.merge(rendered.claims) if identities is not None else []
    results: list[Result] = []
    for result in [*rendered.results, *clashes]:
        if not result.file and result.resource is not None:
            # cluster-state notes name an object of this file but no document
            result = result.with_source(file or _first_file(documents, result), None)
        results.append(strict_preserved_content(result))
    return results


def _first_file(documents: Sequence[Document], result: Result) -> str:
    """The file of the first document holding the object a result names."""
    from renderer.results import ResourceRef

    for doc in documents:
        if isinstance(doc.obj, dict) and result.resource is not None and ResourceRef.of(doc.obj) == result.resource:
            return doc.file
    return documents[0].file if documents else ""


def mentions_settings_kind(text: str) -> bool:
    """A cheap pre-filter for files that may hold the plugin's own settings documents."""
    return any(kind in text for kind in SETTINGS_KIND_NAMES)


def validate_settings_documents(documents: Sequence[Document]) -> list[Result]:
    """The DynamoRenderConfig and OperatorConfiguration documents of a file, read as a render reads them.

    A typo in a settings file is then caught at commit time, not when a render first reads it.
    """
    from plugin.settings import RENDER_CONFIG_KIND, is_settings_document, parse_render_settings
    from renderer.operator_config import parse_operator_config
    from renderer.releases import default_release, find_release
    from renderer.results import ResourceRef

    results: list[Result] = []
    for doc in documents:
        if not is_settings_document(doc.obj):
            continue
        if doc.obj["kind"] == RENDER_CONFIG_KIND:
            _, found = parse_render_settings(doc.obj)
            spec = doc.obj.get("spec")
            inline = spec.get("operatorConfig") if isinstance(spec, dict) else None
            if isinstance(inline, dict):
                # Read as the profile the settings select reads it (a field of a later release is refused).
                named = spec.get("operatorRelease") if isinstance(spec, dict) else None
                release = (find_release(named) if isinstance(named, str) else None) or default_release()
                found += parse_operator_config(inline, "spec.operatorConfig", release)[1]
        else:
            _, found = parse_operator_config(doc.obj)
        ref = ResourceRef.of(doc.obj)
        results.extend(r.with_resource(ref).with_source(doc.file, doc.index) for r in found)
    return results


def claim_objects(
    source: Source, identities: Identities, budget: ObjectBudget | None = None, loaded: Loaded | None = None
) -> list[Result]:
    """Claim the identities of a file without Dynamo resources; a clash is an error naming both files.

    An object the API server would refuse (a name, namespace, kind, label or data map it
    cannot store) is an error here too, as ``render`` makes it one.
    """
    from renderer.bundle import Item, passthrough_problems
    from renderer.clashes import Origin
    from renderer.results import ResourceRef

    documents, problems = loaded if loaded is not None else (budget or ObjectBudget()).load(source)
    results = list(problems)
    # A file with no Kubernetes object at all (a workflow, a Helm values file, the pre-commit
    # configuration) is not a manifest, as the app reader reads folders (plugin.app_reader
    # drop_non_manifests): nothing in it is checked as an object.
    manifest = any(isinstance(d.obj, dict) and d.obj.get("apiVersion") and d.obj.get("kind") for d in documents or [])
    for doc in documents or []:
        refused = passthrough_problems(Item(doc.obj, doc.file, doc.index)) if manifest else []
        if refused:
            results += refused
            continue
        _, clash = identities.claim(doc.obj, Origin(ResourceRef.of(doc.obj), doc.file, doc.index), rendered=False)
        if clash is not None:
            results.append(clash)
    return results


def run(
    filenames: Sequence[str], args: OptionValues, stdout: TextIO, env: Mapping[str, str] | None = None, output: str = "text"
) -> int:
    """Check every file; 0 when every file is valid, 1 when any problem is an error.

    ``output`` is the form of the report (``plugin.yamlio.lines.REPORT_FORMATS``).

    Under pre-commit (``PRE_COMMIT=1`` in ``env``) the files of earlier chunks of the same run
    are claimed first (``ChunkHandoff``), so a clash across chunks is an error too.
    """
    handoff, refused = ChunkHandoff.of_run(env if env is not None else os.environ, args)
    raw, verbose = args.get("kustomize") is False, bool(args.get("verbose"))
    earlier, earlier_dynamo = handoff.earlier() if handoff is not None else ([], False)
    # Files that belong to a kustomization are read as kustomize reads them (plugin.app_reader):
    # through their folder's build, or as patches; only the others are read as they are.
    cwd = os.getcwd()
    # The files of a Helm chart are not manifests (its templates are not even YAML): one warning
    # per chart, not a failing commit for every template touched.
    filenames, charts = _outside_charts(filenames, cwd)
    roles = {} if raw else {name: role_of(name, cwd) for name in filenames}
    plain = [name for name in filenames if roles.get(name, PLAIN).kind == "plain"]
    earlier = [name for name in earlier if raw or role_of(name, cwd).kind == "plain"]
    sources, results = read_sources(plain, charts=charts)
    results[:0] = refused
    results.extend(_chart_warnings(charts))
    # The renderer (and the settings it needs) load only when some file names a Dynamo kind:
    # a commit without Dynamo manifests costs a read and a substring search per file.
    candidates = [source for source in sources if mentions_dynamo_kind(source.text)]
    if handoff is not None:
        handoff.record([source.name for source in sources], bool(candidates))
    texts: dict[str, str] = {}
    budget = ObjectBudget()
    # Files that may hold settings documents are parsed once: for their check here and for the
    # checks below. The settings files the hook's own options name are checked where the
    # settings are read.
    named = {os.path.realpath(path) for path in (args.get("config"), args.get("operator-config-path")) if path}
    loaded: dict[str, Loaded] = {}
    for source in sources:
        if not mentions_settings_kind(source.text) or os.path.realpath(source.name) in named:
            continue
        documents, problems = budget.load(source)
        if documents is None:  # past the object limit: its one error, and nothing more is read
            results.extend(problems)
            break
        loaded[source.name] = (documents, problems)
        found = [] if problems else validate_settings_documents(documents)
        results.extend(found)
        if found or problems:
            texts[source.name] = source.text
    if candidates or (earlier_dynamo and sources):
        from plugin.settings import resolve_settings
        from renderer.clashes import Identities

        settings, problems = resolve_settings(args)
        results.extend(problems)
        identities = Identities(settings.namespace) if settings is not None else None
        if settings is not None and identities is not None and earlier:
            # Earlier chunks reported their own problems; here they only hold their identities.
            earlier_sources, _ = read_sources(earlier)
            for source in earlier_sources:
                if mentions_dynamo_kind(source.text):
                    validate_source(source, settings, identities)
                else:
                    claim_objects(source, identities)
        for source in sources:
            if settings is None or identities is None or budget.left < 0:
                break
            if source in candidates:
                found = validate_source(source, settings, identities, budget, loaded.get(source.name))
            else:
                # Other files only claim their objects: one named like a rendered object is a clash.
                found = claim_objects(source, identities, budget, loaded.get(source.name))
            # (past the object limit the one error names the file, no line: no need to compose it again)
            if budget.left >= 0 and any(r.severity is not Severity.INFO or verbose for r in found):
                texts[source.name] = source.text
            results.extend(found)
    else:
        # Nothing is rendered: the YAML problems of the settings files parsed above still count.
        for _, problems in loaded.values():
            results.extend(problems)
    if roles:
        results.extend(validate_kustomize_files(roles, args, texts, os.environ if env is None else env))
    report(results, TextsOrDisk(texts), stdout, verbose, output)
    return 1 if any(r.is_error for r in results) else 0


def _outside_charts(filenames: Sequence[str], cwd: str) -> tuple[list[str], list[str]]:
    """The files not inside a Helm chart, and the chart folders the others are in (each once, in order)."""
    kept: list[str] = []
    charts: list[str] = []
    for name in filenames:
        chart = enclosing_chart(name, cwd) if name != "-" else None
        if chart is None:
            kept.append(name)
        elif chart not in charts:
            charts.append(chart)
    return kept, charts


def _chart_warnings(charts: Sequence[str]) -> list[Result]:
    """``helm_chart_error`` as a warning for each chart (also those found in a folder named)."""
    show = show_from(os.getcwd())
    seen: set[str] = set()
    out: list[Result] = []
    for chart in charts:
        real = os.path.realpath(chart)
        if real not in seen:
            seen.add(real)
            out.append(helm_chart_error(show(chart), show(os.path.join(chart, HELM_CHART_FILE)), Severity.WARNING))
    return out


def validate_kustomize_files(roles: Mapping[str, Role], args: OptionValues, texts: dict[str, str], env: Mapping[str, str]) -> list[Result]:
    """The files of the run that belong to a kustomization: patches checked as patches, apps through their build.

    Each app folder is built once (``plugin.app_reader.kustomize_build``) and its objects go
    through the same checks as a file's, in an identity index of their own: an app is deployed
    on its own, and the overlays of one base are alternatives, not one bundle. Problems name
    the source file each object came from. ``texts`` gets the texts of the files named.
    """
    from plugin.app_reader import kustomize_build, show_from

    show = show_from(os.getcwd())
    results: list[Result] = []
    apps: dict[str, Role] = {}
    for name, role in roles.items():
        if role.kind == "patch":
            found, text = check_patch(name, show(role.kustomization))
            results.extend(found)
            if text is not None and any(r.severity is not Severity.INFO for r in found):
                texts[name] = text
        elif role.kind == "component":
            results.append(Result(
                "a kustomize Component: not an object; it builds only in a Kustomization that lists it under components, "
                "and its patches are checked as patches", severity=Severity.INFO, file=name, code=Code.NOTE,
            ))
        elif role.kind == "config":
            results.append(Result(
                f"kustomize configuration that {show(role.kustomization)} reads: not an object", severity=Severity.INFO,
                file=name, code=Code.NOTE,
            ))
        elif role.kind == "app":
            apps.setdefault(os.path.realpath(role.folder), role)
            results.append(Result(
                f"checked through the kustomize build of {show(role.kustomization)}", severity=Severity.INFO, file=name, code=Code.NOTE,
            ))
    if not apps:
        return results
    from plugin.settings import resolve_settings, without_configuration
    from renderer.bundle import is_dcd, is_dgd
    from renderer.clashes import Identities

    settings, problems = resolve_settings(args)
    results.extend(problems)
    if settings is None:
        return results
    for role in apps.values():
        built = kustomize_build(role.folder, role.kustomization, env, show)
        results.extend(built.results)
        documents, _ = without_configuration(built.documents)
        if not any(is_dcd(d.obj) or is_dgd(d.obj) for d in documents):
            continue
        found = validate_documents(documents, settings, Identities(settings.namespace))
        results.extend(found)
        if any(r.severity is not Severity.INFO or args.get("verbose") for r in found):
            texts.update(built.texts)
    return results


DYNAMO_GROUP = consts.DYNAMO_GROUP


def check_patch(name: str, kustomization: str) -> tuple[list[Result], str | None]:
    """A kustomize patch file checked as a patch: it parses and names a known kind; never as a whole object.

    Why: a strategic-merge patch holds only the fields it changes (no image, no required
    fields), so checking it as an object refuses every real patch. A JSON 6902 patch is a list
    of operations, each with ``op`` and ``path``.
    """
    from plugin.files import read_text
    from plugin.yamlio.codec import load_documents

    text, problems = read_text(name)
    if text is None:
        return problems, None
    documents, problems = load_documents(text, name)
    if problems:
        return problems, text
    results: list[Result] = []
    for doc in documents:
        obj = doc.obj
        if isinstance(obj, list):
            if not all(isinstance(op, dict) and isinstance(op.get("op"), str) and isinstance(op.get("path"), str) for op in obj):
                results.append(Result("a JSON 6902 patch must be a list of operations, each with op and path", file=name, index=doc.index, code=Code.INPUT))
            continue
        if not isinstance(obj, dict) or not isinstance(obj.get("kind"), str) or not obj.get("kind"):
            results.append(Result("a kustomize patch must name the kind it patches (kind is missing)", field="kind", file=name, index=doc.index, code=Code.INPUT))
            continue
        api_version = obj.get("apiVersion")
        group = api_version.split("/", 1)[0] if isinstance(api_version, str) and "/" in api_version else ""
        if group == DYNAMO_GROUP and obj["kind"] not in DYNAMO_CRD_KINDS:
            results.append(Result(
                f"unknown {DYNAMO_GROUP} kind {obj['kind']!r} (valid: {', '.join(DYNAMO_CRD_KINDS)})", field="kind", file=name, index=doc.index,
                code=Code.INPUT,
            ))
    if not results:
        results.append(Result(
            f"a kustomize patch that {kustomization} applies: checked as a patch (it parses and names a known kind), "
            "not as a whole object", severity=Severity.INFO, file=name, code=Code.NOTE,
        ))
    return results, text


class ChunkHandoff:
    """The files earlier chunks of one pre-commit run checked, for the chunks that follow.

    Why: pre-commit splits a hook's file list into several processes when the command line
    would grow past its limit (128 KiB of file names; ``require_serial: true`` in
    ``.pre-commit-hooks.yaml`` keeps it from splitting for parallelism and runs the parts one
    after the other). Each part then sees only its own files, and two files that render one
    object in different parts would pass. So each part records its file names in a small state
    file of the run, and every later part claims those files' objects before its own.

    The run is told apart by pre-commit's process (the parent of every part: its id and start
    time), the working directory and the hook's options; a state file not touched for
    ``STALE_SECONDS`` is never read, and old ones are removed.
    """

    STALE_SECONDS = 600

    def __init__(self, path: str) -> None:
        self.path = path

    @classmethod
    def of_run(cls, env: Mapping[str, str], args: OptionValues) -> tuple[ChunkHandoff | None, list[Result]]:
        """The run's handoff (None outside pre-commit or without a usable folder), and a warning when the folder is refused."""
        if env.get("PRE_COMMIT") != "1":
            return None, []
        parent = os.getppid()
        key = json.dumps([parent, _start_time(parent), os.getcwd(), repr(sorted(args.items()))])
        uid = os.getuid() if hasattr(os, "getuid") else 0
        folder = os.path.join(tempfile.gettempdir(), f"dynamo-render-validate-{uid}")
        try:
            os.makedirs(folder, mode=0o700, exist_ok=True)
        except OSError:
            return None, []  # no writable temporary folder: each part checks its own files
        problem = _remove_stale(folder, cls.STALE_SECONDS, uid)
        if problem:
            return None, [Result(
                f"{problem}: it is not used, so each part of a long pre-commit run is checked on its own (a clash "
                "between files of different parts is not seen); remove it", severity=Severity.WARNING, file=folder,
                code=Code.INPUT,
            )]
        return cls(os.path.join(folder, hashlib.sha256(key.encode()).hexdigest()[:32] + ".json")), []

    def earlier(self) -> tuple[list[str], bool]:
        """The files of earlier parts, and whether any of them names a Dynamo kind."""
        try:
            if time.time() - os.stat(self.path).st_mtime > self.STALE_SECONDS:
                return [], False
            with open(self.path, encoding="utf-8") as handle:
                state = json.load(handle)
            files, dynamo = state["files"], state["dynamo"]
            if isinstance(files, list) and all(isinstance(f, str) for f in files) and isinstance(dynamo, bool):
                return files, dynamo
        except (OSError, ValueError, KeyError, TypeError):
            pass
        return [], False

    def record(self, files: Sequence[str], dynamo: bool) -> None:
        """Add this part's files (written atomically: a temporary file renamed over the state)."""
        earlier, earlier_dynamo = self.earlier()
        state = {"files": [*earlier, *files], "dynamo": earlier_dynamo or dynamo}
        try:
            fd, temporary = tempfile.mkstemp(dir=os.path.dirname(self.path), suffix=".tmp")
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(state, handle)
            os.replace(temporary, self.path)
        except OSError:
            pass


def _start_time(pid: int) -> str:
    """When a process started (Linux: its start time in clock ticks), to tell reused ids apart."""
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8", errors="replace") as handle:
            return handle.read().rpartition(")")[2].split()[19]
    except (OSError, IndexError):
        return ""


def _remove_stale(folder: str, seconds: float, uid: int) -> str:
    """Remove the folder's old state files; why the folder is refused ("" when it is fine).

    The folder is opened without following a symlink and checked on the opened descriptor: a
    real directory, owned by this user, mode 0700 (another local user may have created it
    first, or linked it elsewhere). Only regular files in that very directory are removed.
    """
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0))
    except OSError as err:
        return f"the state folder cannot be opened as a directory ({err.strerror or err}; a symlink?)"
    try:
        info = os.fstat(fd)
        if not stat.S_ISDIR(info.st_mode):
            return "the state folder is not a directory"
        if hasattr(os, "getuid") and info.st_uid != uid:
            return f"the state folder belongs to another user (uid {info.st_uid})"
        if stat.S_IMODE(info.st_mode) != 0o700:
            return f"the state folder has mode {stat.S_IMODE(info.st_mode):04o} (expected 0700)"
        now = time.time()
        for name in os.listdir(fd):
            try:
                entry = os.stat(name, dir_fd=fd, follow_symlinks=False)
                if stat.S_ISREG(entry.st_mode) and now - entry.st_mtime > seconds:
                    os.unlink(name, dir_fd=fd)
            except OSError:
                pass
        return ""
    finally:
        os.close(fd)
