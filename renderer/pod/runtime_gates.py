"""Runtime feature gates: rendered defaults that follow a component's Dynamo runtime version.

The operator decides some pod defaults by the runtime version a component resolves to (its
``runtimeVersionOverride``, else the main container image's tag), so that an operator upgrade
alone never changes what an existing worker runs: a new default arrives with a new runtime
version, which changes the worker hash and rolls the workers on purpose. An unknown version
(a custom image without a version tag and no override) keeps every gated default off.

A gate only decides anything under a profile whose release ships the rule that reads it
(renderer.releases): at the reference commit no rendering rule consults a runtime gate.

Mirrors: internal/features/runtime/gate.go (Gate.Enabled) and gates.go (the gate table of
the release that reads each gate), internal/dynamo/graph.go generateComponentContext (the
resolved runtime version).
"""

from __future__ import annotations

from renderer.gocompat import runtimeversion
from renderer.gocompat.runtimeversion import Version
from renderer.records import dataclass


@dataclass(frozen=True)
class RuntimeGate:
    """One gate: a name and the first runtime version that gets the gated default."""

    name: str
    min_runtime_version: Version

    def enabled(self, version: Version | None) -> bool:
        """Whether a known runtime ``version`` meets the gate; an unknown one never does.

        Mirrors: internal/features/runtime/gate.go Gate.Enabled.
        """
        return version is not None and version >= self.min_runtime_version


# Worker liveness tolerates three failed probes from runtime 1.5.0 (ai-dynamo/dynamo#13512).
INCREASED_WORKER_FAILURE_THRESHOLD = RuntimeGate("IncreasedWorkerFailureThreshold", (1, 5, 0))


def resolve_component_runtime_version(image: str, override: str) -> Version | None:
    """The runtime version a component renders with: the override when set, else the image tag.

    An override that is not a strict semantic version, or an image tag that gives none, leaves
    the version unknown (None). The CRD schema refuses a malformed override before rendering.

    Mirrors: internal/dynamo/graph.go generateComponentContext (RuntimeVersion) over
    internal/runtimeversion/runtimeversion.go Resolve.
    """
    return runtimeversion.resolve(image, override)


__all__ = ["INCREASED_WORKER_FAILURE_THRESHOLD", "RuntimeGate", "resolve_component_runtime_version"]
