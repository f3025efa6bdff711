"""Where Grove pods run and under which scheduler: the topology constraints of the PodCliqueSet
and its components, and the scheduler integrations' names, queue keys and queue.

A deployment-level pack domain constrains the whole PodCliqueSet (with its cluster topology's
name); a component's constrains its clique or scaling group, naming the topology itself only
when the PodCliqueSet has no pack. The KAI and Volcano integrations set ``schedulerName`` on the
cliques (renderer.graph.grove, render_clique) and their queue on the cliques (KAI) or the
PodCliqueSet (Volcano); the KAI queue is resolved once per DGD here.

Mirrors: internal/dynamo/grove.go specToGroveTopologyConstraint, toGroveTopologyConstraint,
groveTopologyConstraint, resolveKaiSchedulerQueueName; internal/dynamo/graph.go
resolveGroveSchedulerQueue.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from renderer.admission.api import DynamoComponentDeploymentSharedSpec
from renderer.config import RenderConfig
from renderer.results import Code, RenderError, Result, Severity

if TYPE_CHECKING:
    from renderer.graph.dgd import DGD

KAI_SCHEDULER_NAME = "kai-scheduler"
KAI_QUEUE_ANNOTATION = "nvidia.com/kai-scheduler-queue"
KAI_QUEUE_LABEL = "kai.scheduler/queue"
DEFAULT_KAI_QUEUE = "dynamo"
VOLCANO_SCHEDULER_NAME = "volcano"
VOLCANO_QUEUE_ANNOTATION = "nvidia.com/volcano-queue"
GROVE_VOLCANO_QUEUE_ANNOTATION = "scheduling.grove.io/volcano-queue"


def resolve_scheduler_queue(annotations: dict[str, str], config: RenderConfig, notes: list[Result]) -> str:
    """The KAI queue (annotation, else ``dynamo``); both scheduler integrations on is an error.

    The operator also checks that the Queue exists in the cluster; offline that is assumed and
    noted.
    Mirrors: internal/dynamo/graph.go resolveGroveSchedulerQueue and internal/dynamo/grove.go
    resolveKaiSchedulerQueueName (DetermineKaiSchedulerQueue's cluster check is not made).
    """
    if config.kai_scheduler_enabled and config.volcano_scheduler_enabled:
        raise RenderError(
            "kai-scheduler and volcano scheduler integrations cannot both be enabled for Grove",
            "orchestrators.kaiScheduler.enabled",
        )
    if not config.kai_scheduler_enabled:
        return ""
    queue = (annotations.get(KAI_QUEUE_ANNOTATION) or "").strip() or DEFAULT_KAI_QUEUE
    notes.append(
        Result(
            f'kai-scheduler queue "{queue}" is assumed to exist (the operator checks the scheduling.run.ai Queue in the cluster)',
            severity=Severity.INFO,
            code=Code.NOTE,
        )
    )
    return queue


def spec_topology_constraint(cluster_topology_name: str, pack_domain: str | None) -> dict[str, Any] | None:
    """Mirrors: internal/dynamo/grove.go specToGroveTopologyConstraint, groveTopologyConstraint."""
    if not pack_domain:
        return None
    constraint: dict[str, Any] = {"pack": {"required": pack_domain}}
    if cluster_topology_name:
        constraint = {"topologyName": cluster_topology_name, **constraint}
    return constraint


def component_topology_constraint(spec: DynamoComponentDeploymentSharedSpec, dgd: DGD) -> dict[str, Any] | None:
    """A component's pack domain; it names the topology itself only when the PCS has no pack.

    Mirrors: internal/dynamo/grove.go toGroveTopologyConstraint.
    """
    if spec.topology_constraint is None or not spec.topology_constraint.pack_domain:
        return None
    deployment = dgd.spec.topology_constraint
    topology = deployment.cluster_topology_name if deployment is not None and not deployment.pack_domain else ""
    return spec_topology_constraint(topology, spec.topology_constraint.pack_domain)
