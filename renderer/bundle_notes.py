"""What the core notes about a bundle as a whole, each once: assumed defaults, namespace-shared objects, the object limit.

Also the note for a DynamoGraphDeploymentRequest, which passes through unrendered.
"""

from __future__ import annotations

from typing import Any

from renderer.cluster.state import BUNDLE_SOURCE, ClusterState
from renderer.config import RenderConfig
from renderer.releases import REFERENCE, Release
from renderer.results import Code, ResourceRef, Result, Severity


def dgdr_note(obj: dict[str, Any]) -> Result:
    """A DynamoGraphDeploymentRequest is passed through: its DGD comes from a profiling run.

    The operator's request controller runs a profiling Job on the cluster's GPUs and then
    creates a DynamoGraphDeployment from the profiler's output; neither can happen offline.
    Mirrors: internal/controller/dynamographdeploymentrequest_controller.go (not rendered)
    """
    return Result(
        "passed through unchanged: the operator would run a profiling job for this request and create a "
        "DynamoGraphDeployment from its results, which cannot happen offline; to manage the graph in Git, "
        "commit the DynamoGraphDeployment the request produced (or that the profiler writes out) and render that",
        severity=Severity.WARNING,
        resource=ResourceRef.of(obj),
        code=Code.UNSUPPORTED,
    )


def too_many_rendered(limit: int) -> Result:
    """The one-line error for a render past the output object limit."""
    return Result(f"the input renders more than {limit:,} objects, the limit per run; split it into several runs", code=Code.INPUT)


def bundle_notes(config: RenderConfig, cluster: ClusterState, rendered_any: bool, shared: dict[str, list[str]]) -> list[Result]:
    """The notes about the whole bundle, each once: assumed defaults and the namespace-shared objects."""
    notes: list[Result] = []
    if config.operator_config_source == "helm-defaults" and rendered_any:
        notes.append(
            Result(
                "no operator configuration given: assumed the operator Helm chart defaults "
                "(discovery kubernetes, no NATS/etcd addresses, MPI secret mpi-run-ssh-secret)",
                severity=Severity.INFO,
                code=Code.NOTE,
            )
        )
    if rendered_any and cluster.sources == (BUNDLE_SOURCE,):
        notes.append(
            Result(
                "no cluster state given (--cluster-state, clusterStatePath or --live): assumed a fresh cluster besides "
                "the input (no labelled component ServiceAccounts, pull secrets, existing workloads, DynamoCheckpoints "
                "or DRA objects)",
                severity=Severity.INFO,
                code=Code.NOTE,
            )
        )
    if rendered_any and config.release.unported:
        notes.append(incomplete_release_note(config.release))
    return notes + namespace_shared_notes(shared, config)


def incomplete_release_note(release: Release) -> Result:
    """The warning every render under an incomplete release profile carries, naming the changes it lacks.

    The ledger (docs/operator-releases.md) lists each release's changes; the ones still open with
    a possible render effect, for this release and the releases before it, are missing from the
    output. A warning, so ``strict`` fails the run (DESIGN.md decision 17).
    """
    missing = ", ".join(release.unported)
    return Result(
        f"operator release {release.name} is incomplete: this render lacks its changes not ported yet "
        f"(ai-dynamo/dynamo{missing}; docs/operator-releases.md); --operator-release {REFERENCE} renders the reference commit",
        severity=Severity.WARNING,
        code=Code.INCOMPLETE_RELEASE,
    )


def namespace_shared_notes(shared: dict[str, list[str]], config: RenderConfig) -> list[Result]:
    """One note per namespace naming the namespace-shared objects rendered, or left out; none when this app owns them.

    Every application whose graphs share the namespace renders them; Argo CD then reports a
    SharedResourceWarning, and deleting one application deletes what the others' pods use.
    Code ``namespace-shared``: the Argo CD plugin reports it as a warning.
    """
    if config.namespace_shared is True:
        return []
    out: list[Result] = []
    for namespace, names in sorted(shared.items()):
        listed = ", ".join(names)
        if config.namespace_shared is False:
            message = (
                f"left out the objects every graph of namespace {namespace} shares ({listed}): namespaceShared is false, "
                "so the application that owns them must emit them"
            )
        else:
            message = (
                f"emits objects every graph of namespace {namespace} shares ({listed}); when another application "
                "deploys graphs to this namespace too, let one application own them (namespace-shared: true) and set "
                "namespace-shared: false in the others"
            )
        out.append(Result(message, severity=Severity.INFO, code=Code.NAMESPACE_SHARED))
    return out
