"""The ``diff`` command's reports: text for a terminal, Markdown for a pull-request comment.

Each change is one line (the action, the object, its GPUs and pods, and its reason), with the
pod changes under it; the totals follow: GPUs and pods before and after, the peak a sync needs,
per namespace where there are several, and the replaced workloads. ``-o json`` is
``plugin.impact.Impact.as_json``.
"""

from __future__ import annotations

from plugin import markdown as _markdown
from plugin.impact import WORKLOAD_KINDS, ADDED, CHANGED, REMOVED, REPLACED, ROLLED, SCALED, Change, Impact

_VERBS = {
    REPLACED: "replaced",
    ROLLED: "rolled",
    SCALED: "scaled",
    ADDED: "added",
    REMOVED: "removed",
    CHANGED: "changed",
}
_MEANING = {
    REPLACED: "new pods start, the old workload is removed",
    ROLLED: "pod template changed: pods restart",
    SCALED: "replica count changed",
    ADDED: "new object",
    REMOVED: "object removed",
    CHANGED: "no pod restart",
}


def _target(change: Change) -> str:
    where = f"{change.namespace}/" if change.namespace else ""
    text = f"{change.kind} {where}{change.name}"
    if change.clique is not None:
        text += f" (clique {change.clique})"
    if change.replaced_by is not None:
        text += f" -> {change.replaced_by_kind + ' ' if change.replaced_by_kind else ''}{change.replaced_by}"
        if change.replaced_by_clique is not None:
            text += f" (clique {change.replaced_by_clique})"
    return text


def _gpu_delta(change: Change) -> str:
    pods = ""
    if change.action == REPLACED and change.kind in WORKLOAD_KINDS:
        pods = f", pods {change.pods_before}" if change.pods_before == change.pods_after else (
            f", pods {change.pods_before} -> {change.pods_after}"
        )
    if change.gpus_before == change.gpus_after:
        if change.gpus_after and change.action in (REPLACED, ROLLED):
            return f"{change.gpus_after} GPUs{pods}"
        return pods[2:]
    return f"GPUs {change.gpus_before} -> {change.gpus_after} ({change.gpus_after - change.gpus_before:+d}){pods}"


def _meaning(change: Change) -> str:
    """What the change does, with its reason where one is known."""
    if change.action == REPLACED:
        meaning = _MEANING[REPLACED] if change.kind in WORKLOAD_KINDS else "the Service is recreated under its new name"
        return f"replaced because {change.reason}: {meaning}" if change.reason else meaning
    if change.reason:
        return change.reason
    return _MEANING[change.action]


def format_text(impact: Impact) -> str:
    """The human report."""
    lines: list[str] = []
    if not impact.changes:
        lines.append("no changes")
    for change in impact.changes:
        detail = _gpu_delta(change)
        why = f": {change.reason}" if change.reason else ""
        lines.append(f"{_VERBS[change.action]:<9} {_target(change)}" + (f"  ({detail})" if detail else "") + why)
        lines += [f"{'':<9}   {line}" for line in change.pod_changes]
    lines.append("")
    lines.extend(_totals(impact, markdown=False))
    return "\n".join(lines) + "\n"


def format_markdown(impact: Impact) -> str:
    """The report as Markdown, for a pull-request comment."""
    lines = ["### dynamo-render diff", ""]
    if not impact.changes:
        lines.append("No change to rendered objects.")
    else:
        lines += ["| action | object | GPUs | what happens |", "|---|---|---|---|"]
        for change in impact.changes:
            gpus = _gpu_delta(change) or "-"
            lines.append(f"| {change.action} | {_markdown.cell(_target(change))} | {gpus} | {_markdown.prose_cell(_meaning(change))} |")
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
    before, after, peak = impact.before, impact.after, impact.peak
    bullet = "- " if markdown else ""
    lines = [
        f"{bullet}GPUs: {before.gpus} -> {after.gpus} ({after.gpus - before.gpus:+d}); "
        f"pods: {before.pods} -> {after.pods} ({after.pods - before.pods:+d})"
    ]
    extra = peak.gpus - max(before.gpus, after.gpus)
    if extra > 0 or peak.pods > max(before.pods, after.pods):
        lines.append(
            f"{bullet}peak during the sync: {peak.gpus} GPUs ({peak.gpus - before.gpus:+d} over today), {peak.pods} pods: "
            "the new workloads start before the old ones are pruned (Argo CD PruneLast=true), "
            f"so {max(peak.gpus - before.gpus, 0)} more GPUs must be free or the new pods stay Pending"
        )
    namespaces = sorted(set(before.by_namespace) | set(after.by_namespace))
    if len(namespaces) > 1:
        for ns in namespaces:
            gb, pb = before.by_namespace.get(ns, (0, 0))
            ga, pa = after.by_namespace.get(ns, (0, 0))
            gp, _ = peak.by_namespace.get(ns, (0, 0))
            shown = _markdown.code(ns) if markdown else ns
            lines.append(f"{'  - ' if markdown else '  '}namespace {shown}: GPUs {gb} -> {ga} (peak {gp}), pods {pb} -> {pa}")
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
