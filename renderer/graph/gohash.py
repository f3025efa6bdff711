"""The DGD worker hash: Go's ``json.Marshal`` of the worker DCD templates, byte for byte.

The DGD controller names worker DCDs ``<dgd>-<component>-<hash8>``. The hash is the first
8 hex digits of the SHA-256 of ``json.Marshal(map[component]workerTemplate)``, where a
worker template holds the DCD's workload labels and annotations, the resolved runtime version
(1.5.0 and later only) and the generated ``DynamoComponentDeploymentSpec`` with the
scaling-only fields cleared, printed as Go's ``encoding/json`` prints it
(``renderer.gocompat.gojson``). Both raw user YAML and an already Go-normalised template give
the same bytes.

Mirrors: internal/dynamo/hash.go ComputeDGDWorkersSpecHash, workerHashSpec,
resolvedRuntimeVersionForHash.
"""

from __future__ import annotations

import copy
import hashlib
from collections.abc import Mapping
from renderer.records import dataclass, field
from typing import Any

from renderer import consts
from renderer.admission import podtemplate_schema
from renderer.admission.roles import hash_roles_dropped
from renderer.gocompat import dynamo_types, runtimeversion
from renderer.gocompat.gojson import V1BETA1_ENCODER, go_json
from renderer.results import RenderError, describe_kind

# the worker hash stands in for itself while the hash inputs are generated
WORKER_HASH_PLACEHOLDER = "worker-hash-placeholder"
# runtimes before this version are left out of the hash (their hashes predate the field)
MINIMUM_HASHED_RUNTIME_VERSION = (1, 5, 0)


# -- runtime version ------------------------------------------------------------------------


def resolve_runtime_version_for_hash(image: str, override: str) -> str:
    """``MAJOR.MINOR.PATCH`` when the resolved runtime version is 1.5.0 or later, else ``""``.

    The override wins when set (a strict semantic version, no fallback to the image when it
    is invalid); otherwise the main image's tag is read. Unresolvable versions hash as ``""``.

    Mirrors: internal/dynamo/hash.go resolvedRuntimeVersionForHash and
    internal/runtimeversion/runtimeversion.go Resolve
    """
    version = runtimeversion.resolve(image, override)
    if version is None or version < MINIMUM_HASHED_RUNTIME_VERSION:
        return ""
    return runtimeversion.format_version(version)


# -- the v2 worker hash ---------------------------------------------------------------------

# The CRD's structural defaults of a component spec outside its pod template, as (path,
# value): the API server fills them in before the operator reads the DGD, so they are part
# of the hashed spec. The pod template's own defaults are podtemplate_schema.DEFAULTS.
COMPONENT_CRD_DEFAULTS: tuple[tuple[tuple[str, ...], Any], ...] = (
    (("eppConfig", "configMapRef", "name"), ""),
    (("experimental", "checkpoint", "deletionPolicy"), "Delete"),
    (("experimental", "checkpoint", "identity", "pipelineParallelSize"), 1),
    (("experimental", "checkpoint", "identity", "tensorParallelSize"), 1),
    (("experimental", "checkpoint", "startupPolicy"), "Immediate"),
    (("experimental", "checkpoint", "targetContainerName"), "main"),
    (("experimental", "failover", "mode"), "IntraPod"),
    (("experimental", "failover", "numShadows"), 1),
    (("experimental", "gpuMemoryService", "deviceClassName"), "gpu.nvidia.com"),
    (("experimental", "gpuMemoryService", "mode"), "IntraPod"),
    (("multinode", "nodeCount"), 2),
)


class _Default:
    """A default value at the end of a path (a trie leaf)."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value


def _defaults_trie(table: tuple[tuple[tuple[str, ...], Any], ...]) -> dict[str, Any]:
    trie: dict[str, Any] = {}
    for path, value in table:
        node = trie
        for key in path[:-1]:
            node = node.setdefault(key, {})
        node[path[-1]] = _Default(value)
    return trie


_SPEC_DEFAULTS = _defaults_trie(
    COMPONENT_CRD_DEFAULTS
    + tuple((("podTemplate", "spec", *path), value) for path, value in podtemplate_schema.DEFAULTS)
)


def _with_defaults(node: Any, trie: dict[str, Any]) -> Any:
    """``node`` with the trie's defaults filled in; copies only what changes (``[]``: each item)."""
    if isinstance(node, list):
        sub = trie.get("[]")
        if sub is None:
            return node
        items = [_with_defaults(item, sub) for item in node]
        return items if any(a is not b for a, b in zip(items, node, strict=True)) else node
    if not isinstance(node, dict):
        return node
    out = node
    for key, sub in trie.items():
        if isinstance(sub, _Default):
            if node.get(key) is None:
                out = dict(out) if out is node else out
                out[key] = copy.deepcopy(sub.value)
            continue
        child = node.get(key)
        if child is None:
            continue  # a default never creates its parent
        changed = _with_defaults(child, sub)
        if changed is not child:
            out = dict(out) if out is node else out
            out[key] = changed
    return out


def apply_component_crd_defaults(spec: Mapping[str, Any]) -> dict[str, Any]:
    """The component (or DCD) spec with the CRD's structural defaults filled in.

    A default applies where its parent object exists and the field is absent or null.
    Applying it twice changes nothing. The input is never modified; unchanged parts are
    shared with the result.

    Mirrors: config/crd/bases/nvidia.com_dynamographdeployments.yaml and
    nvidia.com_dynamocomponentdeployments.yaml (v1beta1 ``default:`` markers; both CRDs carry
    the same 58 under a component spec)
    """
    result: dict[str, Any] = _with_defaults(dict(spec), _SPEC_DEFAULTS)
    return result



@dataclass(frozen=True)
class WorkerTemplate:
    """One worker DCD as the v2 hash sees it (the map value of ComputeDGDWorkersSpecHash).

    ``labels``/``annotations`` are the DCD's workload labels and annotations
    (``GetDCDKubeLabels``/``GetDCDKubeAnnotations``, see ``worker_template_from_dcd``),
    ``runtime_version`` the value of ``resolve_runtime_version_for_hash`` and ``spec`` the
    full generated DCD spec dict (replicas and the other scaling fields still in it; they are
    cleared when hashing; CRD defaults are filled in when hashing if still missing). The DCD
    was generated with ``WORKER_HASH_PLACEHOLDER`` as its worker hash.

    Mirrors: internal/dynamo/hash.go workerTemplate
    """

    labels: Mapping[str, str] = field(default_factory=dict)
    annotations: Mapping[str, str] = field(default_factory=dict)
    runtime_version: str = ""
    spec: Mapping[str, Any] = field(default_factory=dict)


def worker_hash_spec(spec: Mapping[str, Any]) -> dict[str, Any]:
    """The spec without the fields that scale the active generation instead of replacing it.

    An explicit ``roles`` list that only names the roles is left out too: it says what the
    implicit multinode layout already is (ai-dynamo/dynamo#14419, operator 1.5.0; the reference
    commit refuses ``roles`` before any hash is computed).

    Mirrors: internal/dynamo/hash.go workerHashSpec
    """
    drop = ("replicas", "minAvailable", "scalingAdapter", "runtimeVersionOverride")
    out = {k: v for k, v in spec.items() if k not in drop}
    if "roles" in out and hash_roles_dropped(out["roles"]):
        del out["roles"]
    return out


def _string_map(values: Mapping[str, Any], path: str) -> dict[str, str]:
    for key, value in values.items():
        if not isinstance(key, str) or not isinstance(value, str):
            raise RenderError(f"expected a string map, got {describe_kind(value)} for {key!r}", path)
    return {k: values[k] for k in sorted(values)}


def worker_hash_json(workers: Mapping[str, WorkerTemplate]) -> str:
    """The exact bytes ComputeDGDWorkersSpecHash feeds to SHA-256.

    Mirrors: internal/dynamo/hash.go ComputeDGDWorkersSpecHash (json.Marshal of the map)
    """
    document: dict[str, Any] = {}
    for name in sorted(workers):
        template = workers[name]
        if template.spec.get("type") not in consts.WORKER_COMPONENT_TYPES:
            continue  # frontends, planners and EPPs never reach the hash
        where = f"workers[{name}]"
        entry: dict[str, Any] = {}
        if template.labels:
            entry["labels"] = _string_map(template.labels, f"{where}.labels")
        if template.annotations:
            entry["annotations"] = _string_map(template.annotations, f"{where}.annotations")
        if template.runtime_version:
            entry["runtimeVersion"] = template.runtime_version
        spec = worker_hash_spec(apply_component_crd_defaults(template.spec))
        entry["spec"] = V1BETA1_ENCODER.encode(dynamo_types.ROOTS["V1BETA1"], spec, "spec")
        document[name] = entry
    return go_json(document)


def worker_hash(workers: Mapping[str, WorkerTemplate]) -> str:
    """The v2 worker hash: first 8 hex digits of SHA-256 over ``worker_hash_json``.

    ``workers`` maps component names to templates; only those whose spec ``type`` is
    ``worker``, ``prefill`` or ``decode`` count. No workers hash as ``44136fa3`` (the digest
    of ``{}``).

    Mirrors: internal/dynamo/hash.go ComputeDGDWorkersSpecHash
    """
    return hashlib.sha256(worker_hash_json(workers).encode("utf-8")).hexdigest()[:8]
