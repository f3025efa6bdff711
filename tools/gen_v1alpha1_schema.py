"""Generate renderer/admission/v1alpha1/crd_schema.py: the v1alpha1 structural schemas as data.

The API server admits a ``nvidia.com/v1alpha1`` DynamoComponentDeployment or
DynamoGraphDeployment against the v1alpha1 version of its CRD before the conversion webhook
turns it into v1beta1. The renderer may not read files, so this tool copies the two
``spec`` schemas out of the CRD manifests into a Python module: descriptions dropped, identical
subtrees stored once (the embedded PodSpec appears many times), child schemas replaced by
indexes into one ``NODES`` tuple. Every schema keyword the walker in
renderer/admission/v1alpha1/schema.py understands is kept; any other keyword stops the tool,
so a CRD that starts using one cannot be embedded without the walker learning it first.

With ``--target v1beta1-dcd`` it writes the v1beta1 ``spec`` schema of the DCD CRD instead
(renderer/admission/dcd_crd_schema.py): the API server checks every DCD the DGD controller
creates against it, CEL rules included (renderer/admission/dcd_crd.py).

Run by hand; it touches nothing but its output:

    python tools/gen_v1alpha1_schema.py tests/data/crds -o renderer/admission/v1alpha1/crd_schema.py
    python tools/gen_v1alpha1_schema.py tests/data/crds --target v1beta1-dcd -o renderer/admission/dcd_crd_schema.py

tests/unit/test_v1alpha1_schema.py and tests/unit/test_dcd_crd.py regenerate the modules in
memory from tests/data/crds and fail when a committed file differs.

Mirrors: config/crd/bases/nvidia.com_dynamo{component,graph}deployments.yaml (v1alpha1
openAPIV3Schema.properties.spec), as controller-gen writes it from api/v1alpha1.
"""

from __future__ import annotations

import argparse
import json
import pprint
import sys
from pathlib import Path
from typing import Any

import yaml

KINDS = {
    "DynamoComponentDeployment": "nvidia.com_dynamocomponentdeployments.yaml",
    "DynamoGraphDeployment": "nvidia.com_dynamographdeployments.yaml",
}
VERSION = "v1alpha1"
# target -> (CRD version, kinds, first docstring line, the Mirrors line's tail)
TARGETS: dict[str, tuple[str, tuple[str, ...], str, str]] = {
    "v1alpha1": (
        VERSION,
        tuple(KINDS),
        "The v1alpha1 ``spec`` schemas of the DCD and DGD CRDs, interned (see NODES).",
        "config/crd/bases/nvidia.com_dynamocomponentdeployments.yaml and\nnvidia.com_dynamographdeployments.yaml, version v1alpha1",
    ),
    "v1beta1-dcd": (
        "v1beta1",
        ("DynamoComponentDeployment",),
        "The v1beta1 ``spec`` schema of the DCD CRD, interned (see NODES).",
        "config/crd/bases/nvidia.com_dynamocomponentdeployments.yaml, version v1beta1",
    ),
}

# keywords kept as they are (scalars or lists of scalars)
_PLAIN = {
    "type",
    "required",
    "enum",
    "default",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minLength",
    "maxLength",
    "pattern",
    "format",
    "minItems",
    "maxItems",
    "maxProperties",
    "minProperties",
    "nullable",
    "x-kubernetes-preserve-unknown-fields",
    "x-kubernetes-int-or-string",
    "x-kubernetes-list-type",
    "x-kubernetes-list-map-keys",
    "x-kubernetes-map-type",
    "x-kubernetes-embedded-resource",
}
_DROPPED = {"description"}


def _compact(node: Any, path: str, nodes: list[dict[str, Any]], index: dict[str, int]) -> int:
    """Store ``node`` (and its children first) in ``nodes`` once; return its index."""
    if not isinstance(node, dict):
        raise SystemExit(f"{path}: schema node is not an object")
    out: dict[str, Any] = {}
    for key in sorted(node):
        value = node[key]
        if key in _DROPPED:
            continue
        if key in _PLAIN:
            out[key] = value
        elif key == "properties":
            out[key] = {name: _compact(child, f"{path}.{name}", nodes, index) for name, child in sorted(value.items())}
        elif key == "items":
            out[key] = _compact(value, f"{path}[]", nodes, index)
        elif key == "additionalProperties":
            out[key] = value if isinstance(value, bool) else _compact(value, f"{path}.*", nodes, index)
        elif key == "anyOf":
            if value != [{"type": "integer"}, {"type": "string"}]:
                raise SystemExit(f"{path}: anyOf other than integer-or-string is not supported: {value!r}")
            out[key] = "integer-or-string"
        elif key == "x-kubernetes-validations":
            out[key] = tuple((rule["rule"], rule.get("message", ""), bool(rule.get("optionalOldSelf", False))) for rule in value)
        else:
            raise SystemExit(f"{path}: schema keyword {key!r} is not understood by the walker")
    text = json.dumps(out, sort_keys=True)
    if text not in index:
        index[text] = len(nodes)
        nodes.append(out)
    return index[text]


def build(crd_dir: Path, target: str = "v1alpha1") -> tuple[list[dict[str, Any]], dict[str, int]]:
    """The interned nodes and the root index of each kind's ``spec`` schema."""
    version, kinds, _title, _mirrors = TARGETS[target]
    nodes: list[dict[str, Any]] = []
    index: dict[str, int] = {}
    roots: dict[str, int] = {}
    for kind in kinds:
        filename = KINDS[kind]
        crd = yaml.safe_load((crd_dir / filename).read_text())
        versions = [v for v in crd["spec"]["versions"] if v["name"] == version]
        if len(versions) != 1:
            raise SystemExit(f"{filename}: expected one {version} version")
        spec = versions[0]["schema"]["openAPIV3Schema"]["properties"]["spec"]
        roots[kind] = _compact(spec, "spec", nodes, index)
    return nodes, roots


def render(crd_dir: Path, target: str = "v1alpha1") -> str:
    """The generated module's text."""
    nodes, roots = build(crd_dir, target)
    _version, _kinds, title, mirrors = TARGETS[target]
    option = "" if target == "v1alpha1" else f" (--target {target})"
    lines = [
        f'"""{title}',
        "",
        f"GENERATED by tools/gen_v1alpha1_schema.py{option} -- do not edit by hand. Regenerate",
        "with the command in the tool's docstring.",
        "",
        "NODES holds every distinct schema node once, descriptions dropped. In a node, ``properties``",
        "maps a field to a node index, ``items`` and a non-boolean ``additionalProperties`` are node",
        "indexes, ``anyOf`` is the string ``integer-or-string``, and ``x-kubernetes-validations`` is",
        "a tuple of (rule, message, optionalOldSelf). ROOTS gives each kind's ``spec`` node.",
        "",
        *f"Mirrors: {mirrors}".split("\n"),
        '"""',
        "",
        "from typing import Any",
        "",
        f"ROOTS: dict[str, int] = {pprint.pformat(roots, width=100, sort_dicts=True)}",
        "",
        "# fmt: off",
        "NODES: tuple[dict[str, Any], ...] = (",
    ]
    for i, node in enumerate(nodes):
        lines.append(f"    {pprint.pformat(node, width=10**6, sort_dicts=True)},  # {i}")
    lines.append(")")
    lines.append("# fmt: on")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("crd_dir", type=Path, help="directory holding the two Dynamo CRD manifests")
    parser.add_argument("-o", "--output", type=Path, required=True)
    parser.add_argument("--target", choices=sorted(TARGETS), default="v1alpha1")
    args = parser.parse_args(argv)
    args.output.write_text(render(args.crd_dir, args.target))
    return 0


if __name__ == "__main__":
    sys.exit(main())
