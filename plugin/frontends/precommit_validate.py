"""The ``dynamo-validate`` pre-commit hook: every offline admission rule, then a render.

Each file named on the command line is checked on its own, so pre-commit may split the file
list into parallel chunks. A commit whose files never mention a Dynamo kind is skipped without
parsing; otherwise the other files are parsed too, only to claim their objects' identities: a
hand-written object named like a rendered one is a clash naming both files (DESIGN decision 12). Each DynamoComponentDeployment and DynamoGraphDeployment goes
through the renderer exactly as ``dynamo-render render`` would take it (CRD schema, CEL rules,
webhooks, then rendering), and every problem prints as one line::

    deploy/worker.yaml:14: [error] DynamoComponentDeployment/worker spec.replicas: must be >= 0 (got -1)

Unknown fields inside a pod template (a DCD's ``spec.podTemplate``, a DGD component's) are only
warnings when rendering (the operator's typed decode drops them) but errors here, as
``kubectl apply --validate=strict`` rejects them.
Lines are found on the error path only: files with nothing to report are never parsed twice.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from renderer.records import dataclass, replace
from typing import TYPE_CHECKING, TextIO

from plugin.files import ObjectBudget, Source, read_sources
from plugin.yamlio.codec import load_documents
from plugin.options import CommonOptions
from plugin.yamlio.lines import report
from renderer import consts
from renderer.results import Code, Result, Severity

if TYPE_CHECKING:
    from plugin.settings import Settings
    from renderer.clashes import Identities

DYNAMO_KINDS = (consts.DCD_KIND, consts.DGD_KIND)
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


def validate_source(
    source: Source, settings: Settings, identities: Identities | None = None, budget: ObjectBudget | None = None
) -> list[Result]:
    """Every problem in one file: YAML, admission rules and rendering.

    ``identities``, shared by the files of one run, makes two files rendering one object an
    error naming both (pre-commit may split a commit's files into chunks; each chunk is one run).
    """
    from renderer.bundle import Item, render_bundle

    if not mentions_dynamo_kind(source.text):
        return []
    documents, results = load_documents(source.text, source.name)
    over = budget.take(len(documents), source.name) if budget is not None else None
    if over is not None:
        return [*results, over]
    items = [Item(doc.obj, doc.file, doc.index) for doc in documents]
    rendered = render_bundle(
        items, settings.config, settings.namespace, cluster_layers=settings.cluster_layers, identities=identities
    )
    for result in rendered.results:
        if not result.file and result.resource is not None:
            # cluster-state notes name an object of this file but no document
            result = result.with_source(source.name, None)
        results.append(strict_pod_template(result))
    return results


def claim_objects(source: Source, identities: Identities, budget: ObjectBudget | None = None) -> list[Result]:
    """Claim the identities of a file without Dynamo resources; a clash is an error naming both files."""
    from renderer.clashes import Origin
    from renderer.results import ResourceRef

    documents, results = load_documents(source.text, source.name)
    over = budget.take(len(documents), source.name) if budget is not None else None
    if over is not None:
        return [*results, over]
    for doc in documents:
        _, clash = identities.claim(doc.obj, Origin(ResourceRef.of(doc.obj), doc.file, doc.index), rendered=False)
        if clash is not None:
            results.append(clash)
    return results


def run(filenames: Sequence[str], args: CommonOptions, stdout: TextIO) -> int:
    """Check every file; 0 when every file is valid, 1 when any problem is an error."""
    sources, results = read_sources(filenames)
    # The renderer (and the settings it needs) load only when some file names a Dynamo kind:
    # a commit without Dynamo manifests costs a read and a substring search per file.
    candidates = [source for source in sources if mentions_dynamo_kind(source.text)]
    texts: dict[str, str] = {}
    if candidates:
        from plugin.settings import settings_from_args
        from renderer.clashes import Identities

        settings, problems = settings_from_args(args)
        results.extend(problems)
        identities = Identities(settings.namespace) if settings is not None else None
        budget = ObjectBudget()
        for source in sources:
            if settings is None or identities is None or budget.left < 0:
                break
            if source in candidates:
                found = validate_source(source, settings, identities, budget)
            else:
                # Other files only claim their objects: one named like a rendered object is a clash.
                found = claim_objects(source, identities, budget)
            # (past the object limit the one error names the file, no line: no need to compose it again)
            if budget.left >= 0 and any(r.severity is not Severity.INFO or args.verbose for r in found):
                texts[source.name] = source.text
            results.extend(found)
    report(results, texts, stdout, args.verbose)
    return 1 if any(r.is_error for r in results) else 0
