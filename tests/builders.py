"""Builders for test inputs: the one place that knows what a minimal valid object looks like.

Tests build the documents they need with keyword arguments (``dcd("front", type="frontend")``)
instead of each keeping its own copy of a DCD literal (Dynamo's test rules: builders, not shared
fixture objects).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from renderer.admission.api import DCD

IMAGE = "nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.3.0"

# A complete OperatorConfiguration (every value the operator requires in cluster-wide mode).
OPERATOR_CONFIG = """\
apiVersion: operator.config.dynamo.nvidia.com/v1alpha1
kind: OperatorConfiguration
infrastructure:
  natsAddress: nats://nats.example:4222
rbac:
  plannerClusterRoleName: p
  dgdrProfilingClusterRoleName: d
  eppClusterRoleName: e
mpi:
  sshSecretName: s
  sshSecretNamespace: dynamo-system
"""


# A graph of a frontend and a two-GPU vLLM decode worker (two replicas); {image} is the worker's image.
CHAT_DGD = """\
apiVersion: nvidia.com/v1beta1
kind: DynamoGraphDeployment
metadata:
  name: chat
  namespace: llm
spec:
  components:
  - name: frontend
    type: frontend
    podTemplate:
      spec:
        containers:
        - name: main
          image: registry.example/runtime:1.5.0
  - name: decode
    type: decode
    replicas: 2
    podTemplate:
      spec:
        containers:
        - name: main
          image: {image}
          command: ["python3", "-m", "dynamo.vllm"]
          args: ["--model", "Qwen/Qwen3-0.6B"]
          resources:
            limits:
              nvidia.com/gpu: "2"
"""


def write(path: Path, text: str) -> Path:
    """Write ``text`` to ``path``, creating its folders."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def dcd(
    name: str = "worker",
    namespace: str | None = "llm",
    *,
    type: str | None = "worker",  # noqa: A002 - the field's name
    image: str = IMAGE,
    main: dict[str, Any] | None = None,
    containers: list[dict[str, Any]] | None = None,
    pod: dict[str, Any] | None = None,
    labels: dict[str, str] | None = None,
    annotations: dict[str, str] | None = None,
    **spec: Any,
) -> dict[str, Any]:
    """A v1beta1 DynamoComponentDeployment document.

    The pod template has one ``main`` container running ``image`` (plus the fields in ``main``)
    unless ``containers`` gives the list; ``pod`` adds pod-spec fields. Every other keyword is a
    spec field, written last (``podTemplate=...`` replaces the built one). ``namespace=None`` and
    ``type=None`` leave the field out.
    """
    metadata: dict[str, Any] = {"name": name}
    if namespace is not None:
        metadata["namespace"] = namespace
    if labels is not None:
        metadata["labels"] = dict(labels)
    if annotations is not None:
        metadata["annotations"] = dict(annotations)
    if containers is None:
        containers = [{"name": "main", "image": image, **(main or {})}]
    body: dict[str, Any] = {}
    if type is not None:
        body["type"] = type
    body["podTemplate"] = {"spec": {"containers": containers, **(pod or {})}}
    body.update(spec)
    return {"apiVersion": "nvidia.com/v1beta1", "kind": "DynamoComponentDeployment", "metadata": metadata, "spec": body}


def parsed_dcd(doc: dict[str, Any], default_namespace: str = "default") -> DCD:
    """``doc`` admitted as the renderer admits it; fails the test when it is refused."""
    from renderer.admission.parse import parse_dcd

    parsed, results = parse_dcd(doc, default_namespace)
    assert parsed is not None, [r.line() for r in results]
    return parsed
