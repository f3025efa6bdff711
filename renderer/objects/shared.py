"""Objects every graph of a namespace shares: the one list of them.

The DGD controller creates most of its side objects per graph, named after the graph. A few
are per namespace: every graph of the namespace asks for the same object, and the first one
creates it. Two Argo CD Applications whose graphs share a destination namespace therefore both
render them, and Argo CD reports a SharedResourceWarning and hands the objects back and forth;
deleting one Application deletes the other one's objects. ``NAMESPACE_SHARED`` names them, so
that one setting can leave them out of every Application but the one that owns them, and so
that no single graph's GitOps metadata is put on them (``renderer.gitops``).

Mirrors: internal/controller/dgd_rbac_reconciler.go Reconcile (planner RBAC for every graph,
EPP RBAC for graphs with an EPP, cluster-wide operators only; internal/rbac/manager.go
EnsureServiceAccountWithRBAC names them by the fixed ServiceAccount names), and
internal/dynamo/model_service.go ReconcileModelServicesForComponents (one headless Service per
base model and namespace, shared by every component serving that model). The MPI SSH key
Secret (dgd_ssh_keys_reconciler.go) is per namespace too, but the operator copies it from its
own namespace and it is never rendered here (a reference, checked as one).
"""

from __future__ import annotations

from typing import Any

from renderer import consts
from renderer.records import dataclass

MODEL_SERVICE_PREFIX = "dynamo-model-"


@dataclass(frozen=True)
class SharedObject:
    """One kind of namespace-shared object: its kind, its name (``None``: derived) and when it is rendered."""

    kind: str
    name: str | None
    rendered_when: str


NAMESPACE_SHARED: tuple[SharedObject, ...] = (
    SharedObject("ServiceAccount", consts.PLANNER_SERVICE_ACCOUNT_NAME, "every graph, cluster-wide operator"),
    SharedObject("RoleBinding", f"{consts.PLANNER_SERVICE_ACCOUNT_NAME}-binding", "every graph, cluster-wide operator"),
    SharedObject("ServiceAccount", consts.EPP_SERVICE_ACCOUNT_NAME, "graphs with an EPP, cluster-wide operator"),
    SharedObject("RoleBinding", f"{consts.EPP_SERVICE_ACCOUNT_NAME}-binding", "graphs with an EPP, cluster-wide operator"),
    # dynamo-model-<hash of the model name>, labelled with that hash
    SharedObject("Service", None, "components with a modelRef: the base model's headless Service"),
)


def is_namespace_shared(obj: dict[str, Any]) -> bool:
    """Whether ``obj`` is one of the objects every graph of its namespace shares."""
    kind = obj.get("kind")
    meta = obj.get("metadata") or {}
    name = meta.get("name")
    for shared in NAMESPACE_SHARED:
        if shared.kind != kind:
            continue
        if shared.name is not None and shared.name == name:
            return True
        if shared.name is None and kind == "Service":
            model_hash = (meta.get("labels") or {}).get(consts.LABEL_BASE_MODEL_HASH)
            if model_hash and name == MODEL_SERVICE_PREFIX + model_hash:
                return True
    return False
