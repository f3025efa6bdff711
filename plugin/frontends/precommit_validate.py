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
import tempfile
import time
from collections.abc import Mapping, Sequence
from renderer.records import replace
from typing import TYPE_CHECKING, TextIO

from plugin.files import ObjectBudget, Source, read_sources
from plugin.yamlio.codec import Document
from plugin.options import CommonOptions
from plugin.yamlio.lines import report
from renderer import consts
from renderer.results import Code, Result, Severity

if TYPE_CHECKING:
    from plugin.settings import Settings
    from renderer.clashes import Identities

DYNAMO_KINDS = (consts.DCD_KIND, consts.DGD_KIND)
# the plugin's own settings kinds (plugin.settings), checked when a file names one
SETTINGS_KIND_NAMES = ("DynamoRenderConfig", consts.OPERATOR_CONFIG_KIND)
# a DCD's spec.podTemplate or a DGD component's spec.components[i].podTemplate, and below
POD_TEMPLATE_FIELD = re.compile(r"(?:^|\.)podTemplate(?:[.\[]|$)")


def mentions_dynamo_kind(text: str) -> bool:
    """A cheap pre-filter: files that never name a Dynamo kind hold nothing to check."""
    return any(kind in text for kind in DYNAMO_KINDS)


def strict_pod_template(result: Result) -> Result:
    """An unknown field inside the pod template is an error, as strict server-side validation says.

    The renderer reports it as a warning because the operator's typed decode silently drops
    it; the API server would have refused the DCD under ``kubectl apply --validate=strict``.
    """
    if (
        result.severity is Severity.WARNING
        and result.code is Code.UNKNOWN_FIELD
        and POD_TEMPLATE_FIELD.search(result.field) is not None
    ):
        return replace(result, severity=Severity.ERROR)
    return result


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
    error naming both (pre-commit may split a commit's files into chunks; each chunk is one run).
    ``loaded`` is the file already parsed.
    """
    from renderer.bundle import Item, render_bundle

    if not mentions_dynamo_kind(source.text):
        return []
    documents, problems = loaded if loaded is not None else (budget or ObjectBudget()).load(source)
    results = list(problems)
    if documents is None:
        return results
    items = [Item(doc.obj, doc.file, doc.index) for doc in documents]
    rendered = render_bundle(
        items, settings.config, settings.namespace, cluster_layers=settings.cluster_layers, identities=identities
    )
    for result in rendered.results:
        if not result.file and result.resource is not None:
            # cluster-state notes name an object of this file but no document
            result = result.with_source(source.name, None)
        results.append(strict_preserved_content(strict_pod_template(result)))
    return results


def mentions_settings_kind(text: str) -> bool:
    """A cheap pre-filter for files that may hold the plugin's own settings documents."""
    return any(kind in text for kind in SETTINGS_KIND_NAMES)


def validate_settings_documents(documents: Sequence[Document]) -> list[Result]:
    """The DynamoRenderConfig and OperatorConfiguration documents of a file, read as a render reads them.

    A typo in a settings file is then caught at commit time, not when a render first reads it.
    """
    from plugin.settings import RENDER_CONFIG_KIND, is_settings_document, parse_render_settings
    from renderer.operator_config import parse_operator_config
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
                found += parse_operator_config(inline, "spec.operatorConfig")[1]
        else:
            _, found = parse_operator_config(doc.obj)
        ref = ResourceRef.of(doc.obj)
        results.extend(r.with_resource(ref).with_source(doc.file, doc.index) for r in found)
    return results


def claim_objects(
    source: Source, identities: Identities, budget: ObjectBudget | None = None, loaded: Loaded | None = None
) -> list[Result]:
    """Claim the identities of a file without Dynamo resources; a clash is an error naming both files."""
    from renderer.clashes import Origin
    from renderer.results import ResourceRef

    documents, problems = loaded if loaded is not None else (budget or ObjectBudget()).load(source)
    results = list(problems)
    for doc in documents or []:
        _, clash = identities.claim(doc.obj, Origin(ResourceRef.of(doc.obj), doc.file, doc.index), rendered=False)
        if clash is not None:
            results.append(clash)
    return results


def run(filenames: Sequence[str], args: CommonOptions, stdout: TextIO, env: Mapping[str, str] | None = None) -> int:
    """Check every file; 0 when every file is valid, 1 when any problem is an error.

    Under pre-commit (``PRE_COMMIT=1`` in ``env``) the files of earlier chunks of the same run
    are claimed first (``ChunkHandoff``), so a clash across chunks is an error too.
    """
    handoff = ChunkHandoff.of_run(env if env is not None else os.environ, args)
    earlier, earlier_dynamo = handoff.earlier() if handoff is not None else ([], False)
    sources, results = read_sources(filenames)
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
    named = {os.path.realpath(path) for path in (args.config, args.operator_config) if path}
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
        from plugin.settings import settings_from_args
        from renderer.clashes import Identities

        settings, problems = settings_from_args(args)
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
            if budget.left >= 0 and any(r.severity is not Severity.INFO or args.verbose for r in found):
                texts[source.name] = source.text
            results.extend(found)
    else:
        # Nothing is rendered: the YAML problems of the settings files parsed above still count.
        for _, problems in loaded.values():
            results.extend(problems)
    report(results, texts, stdout, args.verbose)
    return 1 if any(r.is_error for r in results) else 0


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
    def of_run(cls, env: Mapping[str, str], args: CommonOptions) -> ChunkHandoff | None:
        if env.get("PRE_COMMIT") != "1":
            return None
        parent = os.getppid()
        key = json.dumps([parent, _start_time(parent), os.getcwd(), repr(args)])
        folder = os.path.join(tempfile.gettempdir(), f"dynamo-render-validate-{os.getuid() if hasattr(os, 'getuid') else 0}")
        try:
            os.makedirs(folder, mode=0o700, exist_ok=True)
            _remove_stale(folder, cls.STALE_SECONDS)
        except OSError:
            return None  # no writable temporary folder: each part checks its own files
        return cls(os.path.join(folder, hashlib.sha256(key.encode()).hexdigest()[:32] + ".json"))

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


def _remove_stale(folder: str, seconds: float) -> None:
    now = time.time()
    for name in os.listdir(folder):
        path = os.path.join(folder, name)
        try:
            if now - os.stat(path).st_mtime > seconds:
                os.unlink(path)
        except OSError:
            pass
