"""Generate renderer/gocompat/k8s_types.py: the JSON shape of every Go struct a PodTemplateSpec reaches.

The operator decodes the user's podTemplate into k8s.io/api structs and re-encodes it with
encoding/json. To replay that round trip in Python (renderer/gocompat/gotypes.py) we need, for each
struct, its JSON fields in Go order with their tag options and Go type shapes. This tool
reads the Go sources of k8s.io/api core/v1 and k8s.io/apimachinery meta/v1, follows field
types from the root struct, flattens embedded structs the way encoding/json promotes their
fields, and prints the table as a Python module (a dict literal; nothing is read at runtime).

Run by hand; it touches nothing but its output. For example, with bare git mirrors:

    git -C <k8s.io/api repo> show v0.36.2:core/v1/types.go > /tmp/core_v1_types.go
    git -C <apimachinery repo> show v0.36.2:pkg/apis/meta/v1/types.go > /tmp/meta_v1_types.go
    python tools/gen_gotypes.py --core /tmp/core_v1_types.go --meta /tmp/meta_v1_types.go \\
        --api-version v0.36.2 --apimachinery-version v0.36.2 -o renderer/gocompat/k8s_types.py

``--core``/``--meta`` also take a checkout's package directory (every non-test ``.go`` file
in it is read).

The ``dynamo`` mode writes renderer/gocompat/dynamo_types.py instead: the shapes of the Dynamo
operator's v1beta1 ``DynamoComponentDeploymentSpec`` and v1alpha1
``DynamoComponentDeploymentSharedSpec`` (what the worker hashes marshal), with the gateway
inference extension's ``EndpointPickerConfig`` and meta/v1 ``TypeMeta`` followed, and every
core/v1 struct left as a reference into renderer/gocompat/k8s_types.py. Each argument is a package
directory, for example one exported with ``git archive <commit> <dir> | tar -x``:

    python tools/gen_gotypes.py dynamo --v1beta1 <api/v1beta1> --v1alpha1 <api/v1alpha1> \
        --gaie <apix/config/v1alpha1> --meta <meta/v1> --core <core/v1> \
        --dynamo-commit 2a6da14c8 --gaie-version v1.2.0 --apimachinery-version v0.36.2 \
        --api-version v0.36.2 --autoscaling <autoscaling/v2> -o renderer/gocompat/dynamo_types.py

``--autoscaling`` follows k8s.io/api autoscaling/v2 (the deprecated v1alpha1 ``autoscaling``
block: HPA behavior and metrics); without it those types stay ``("unsupported", ...)``.

A reached type with its own ``MarshalJSON`` stops the generator unless it is a declared leaf:
that is how the table proves encoding/json's default struct encoder applies everywhere else.

Mirrors: encoding/json typeFields (field naming, tag options, embedded-field promotion and
the dominant-field rule), applied to k8s.io/api core/v1 types.go and
k8s.io/apimachinery pkg/apis/meta/v1 types.go.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

CORE_PATH = "k8s.io/api/core/v1"
META_PATH = "k8s.io/apimachinery/pkg/apis/meta/v1"

# Types with their own JSON (un)marshalers: leaves of the table, handled by hand in gotypes.py.
LEAVES: dict[tuple[str, str], tuple[str, ...]] = {
    ("k8s.io/apimachinery/pkg/api/resource", "Quantity"): ("Quantity",),
    ("k8s.io/apimachinery/pkg/util/intstr", "IntOrString"): ("IntOrString",),
    (META_PATH, "Time"): ("Time",),
    (META_PATH, "MicroTime"): ("MicroTime",),
    (META_PATH, "Duration"): ("Duration",),
    ("k8s.io/apimachinery/pkg/types", "UID"): ("string",),
    ("k8s.io/apimachinery/pkg/types", "NodeName"): ("string",),
}

BUILTINS: dict[str, tuple[str, ...]] = {
    "string": ("string",),
    "bool": ("bool",),
    "int32": ("int32",),
    "int64": ("int64",),
    "int": ("int64",),
    "float64": ("float64",),
    "float32": ("float64",),
}

# The Dynamo CRDs are generated with controller-gen's generateEmbeddedObjectMeta, so every
# embedded ObjectMeta has only these properties in the schema and the API server prunes the
# rest before the operator ever decodes it.
EMBEDDED_OBJECT_META_FIELDS = ("name", "namespace", "labels", "annotations", "finalizers")
RESTRICTED: dict[str, tuple[str, ...]] = {"ObjectMeta": EMBEDDED_OBJECT_META_FIELDS}


class GoSourceError(Exception):
    """The Go source has a construct this generator does not understand."""


@dataclass
class RawField:
    """One line of a struct body: names (empty when embedded), type text and json tag."""

    names: list[str]
    type_text: str
    tag: str | None


@dataclass
class Package:
    """The top-level type declarations of one Go package."""

    path: str
    structs: dict[str, list[RawField]] = field(default_factory=dict)
    named: dict[str, str] = field(default_factory=dict)
    imports: dict[str, dict[str, str]] = field(default_factory=dict)
    origin: dict[str, str] = field(default_factory=dict)
    broken: dict[str, str] = field(default_factory=dict)
    # types with their own MarshalJSON method: encoding/json does not look at their fields
    marshalers: set[str] = field(default_factory=set)


@dataclass(frozen=True)
class JsonField:
    """A field as encoding/json sees it after promotion."""

    json_name: str
    go_name: str
    shape: tuple[object, ...]
    omitempty: bool
    omitzero: bool
    inline: str
    depth: int
    tagged: bool


def strip_comments(text: str) -> str:
    """Drop // and /* */ comments, keeping string, raw-string and rune literals intact."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "/" and text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif c == "/" and text.startswith("/*", i):
            j = text.find("*/", i + 2)
            if j < 0:
                raise GoSourceError("unterminated block comment")
            out.append(" ")
            i = j + 2
        elif c in "\"'`":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if c != "`" and text[j] == "\\" else 1
            out.append(text[i : j + 1])
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


_IMPORT_LINE = re.compile(r'^\s*(?:(\w+|\.|_)\s+)?"([^"]+)"\s*$')
_TYPE_START = re.compile(r"^type\s+(\w+)(\[[^\]]*\])?\s+(=\s*)?(.*)$")
_FIELD_NAMED = re.compile(r"^([A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)*)\s+(\S.*)$")
_FIELD_EMBEDDED = re.compile(r"^\*?[A-Za-z_][\w.]*$")
_JSON_TAG = re.compile(r'(?:^|\s)json:"([^"]*)"')
_MARSHALER = re.compile(r"^func\s*\(\s*(?:\w+\s+)?\*?(\w+)\s*\)\s*MarshalJSON\s*\(")


def parse_file(text: str, package: Package, file_name: str) -> None:
    """Add one Go file's imports and type declarations to ``package``."""
    lines = strip_comments(text).splitlines()
    imports: dict[str, str] = {}
    i = 0
    while i < len(lines):
        raw = lines[i]
        line = raw.strip()
        i += 1
        marshaler = _MARSHALER.match(raw)
        if marshaler:
            package.marshalers.add(marshaler.group(1))
            continue
        if not raw.startswith(("type", "import")):
            continue  # only top-level declarations start at column 0
        if line.startswith("import"):
            rest = line[len("import") :].strip()
            specs: list[str] = []
            if rest.startswith("("):
                while i < len(lines) and lines[i].strip() != ")":
                    specs.append(lines[i])
                    i += 1
                i += 1
            else:
                specs.append(rest)
            for spec in specs:
                if not spec.strip():
                    continue
                m = _IMPORT_LINE.match(spec)
                if not m:
                    raise GoSourceError(f"{file_name}: cannot read import {spec.strip()!r}")
                alias = m.group(1) or m.group(2).rsplit("/", 1)[-1]
                imports[alias] = m.group(2)
            continue
        if line == "type (":
            while i < len(lines) and lines[i].strip() != ")":
                spec = lines[i].strip()
                i += 1
                if spec:
                    i = _parse_type_spec("type " + spec, lines, i, package, file_name)
            i += 1
            continue
        if line.startswith("type "):
            i = _parse_type_spec(line, lines, i, package, file_name)
    package.imports[file_name] = imports


def _parse_type_spec(line: str, lines: list[str], i: int, package: Package, file_name: str) -> int:
    m = _TYPE_START.match(line)
    if not m:
        raise GoSourceError(f"{file_name}: cannot read {line!r}")
    name, underlying = m.group(1), m.group(4).strip()
    if name in package.origin:
        # build-tagged alternatives (fieldsv1_byte.go / fieldsv1_string.go): fatal only if reached
        package.broken[name] = f"{name} declared twice ({package.origin[name]}, {file_name})"
    if m.group(2):
        # a generic type: encoding/json sees only its instantiations; fatal only if reached
        package.broken[name] = f"{file_name}: generic type {name}"
    package.origin.setdefault(name, file_name)
    if underlying.startswith("struct"):
        body: list[str] = []
        depth = underlying.count("{") - underlying.count("}")
        if depth == 0:
            inner = underlying[underlying.index("{") + 1 : underlying.rindex("}")]
            body = [inner] if inner.strip() else []
        nested = False
        while depth > 0:
            text = lines[i]
            i += 1
            depth += text.count("{") - text.count("}")
            nested = nested or depth > 1
            if depth > 0:
                body.append(text)
        if nested:
            # a multi-line anonymous struct or interface: fatal only if the struct is reached
            package.broken[name] = f"{file_name}: anonymous struct inside {name}"
            return i
        package.structs[name] = [
            _parse_field(text, name, file_name) for text in body if text.strip()
        ]
    else:
        package.named[name] = underlying
    return i


def _parse_field(text: str, struct: str, file_name: str) -> RawField:
    text = text.strip()
    tag = None
    if text.endswith("`"):
        start = text.index("`")
        tag, text = text[start + 1 : -1], text[:start].strip()
    if _FIELD_EMBEDDED.match(text):
        return RawField(names=[], type_text=text, tag=tag)
    m = _FIELD_NAMED.match(text)
    if not m:
        raise GoSourceError(f"{file_name}: cannot read field {text!r} of {struct}")
    names = [n.strip() for n in m.group(1).split(",")]
    return RawField(names=names, type_text=m.group(2).strip(), tag=tag)


class Resolver:
    """Turns Go type text into shapes and struct bodies into encoding/json field lists.

    ``leaves`` adds types with their own JSON codec to ``LEAVES``; a struct of a package in
    ``delegate`` becomes ``("k8s", name)``, a reference into the k8s table, instead of being
    followed; any type of a package in ``opaque`` becomes ``("unsupported", "path.Name")``.
    """

    def __init__(
        self,
        packages: dict[str, Package],
        leaves: dict[tuple[str, str], tuple[str, ...]] | None = None,
        delegate: frozenset[str] = frozenset(),
        opaque: frozenset[str] = frozenset(),
    ) -> None:
        self.packages = packages
        self.struct_home: dict[str, str] = {}
        self.leaves = {**LEAVES, **(leaves or {})}
        self.delegate = delegate
        self.opaque = opaque

    def shape(self, text: str, pkg: Package, file_name: str) -> tuple[object, ...]:
        text = text.strip()
        if text.startswith("*"):
            return ("ptr", self.shape(text[1:], pkg, file_name))
        if text == "[]byte":
            return ("bytes",)
        if text.startswith("[]"):
            return ("slice", self.shape(text[2:], pkg, file_name))
        if text.startswith("map["):
            depth, j = 0, 3
            for j in range(3, len(text)):
                depth += {"[": 1, "]": -1}.get(text[j], 0)
                if depth == 0:
                    break
            key, value = text[4:j], text[j + 1 :]
            return ("map", self.shape(key, pkg, file_name), self.shape(value, pkg, file_name))
        instantiated = re.match(r"^[\w.]+\[", text)
        if instantiated:
            raise GoSourceError(f"generic type {text[: instantiated.end() - 1]} ({text!r}) is not supported")
        if text.startswith("[") or " " in text:
            raise GoSourceError(f"unsupported Go type {text!r}")
        if "." in text:
            alias, name = text.split(".", 1)
            imports = pkg.imports.get(file_name, {})
            if alias not in imports:
                raise GoSourceError(f"{file_name}: unknown package {alias!r} in {text!r}")
            return self.named(imports[alias], name)
        if text in BUILTINS:
            return BUILTINS[text]
        return self.named(pkg.path, text)

    def named(self, path: str, name: str) -> tuple[object, ...]:
        if (path, name) in self.leaves:
            return self.leaves[(path, name)]
        if path in self.opaque:
            return ("unsupported", f"{path}.{name}")
        pkg = self.packages.get(path)
        if pkg is None:
            raise GoSourceError(f"no source given for {path}.{name}")
        if name in pkg.broken:
            raise GoSourceError(pkg.broken[name])
        if name in pkg.marshalers:
            raise GoSourceError(f"{path}.{name} has its own MarshalJSON; declare it a leaf")
        if path in self.delegate and name in pkg.structs:
            return ("k8s", name)
        if name in pkg.structs:
            home = self.struct_home.setdefault(name, path)
            if home != path:
                raise GoSourceError(f"struct name {name} exists in {home} and {path}")
            return ("struct", name)
        if name in pkg.named:
            return self.shape(pkg.named[name].lstrip("= ").strip(), pkg, pkg.origin[name])
        raise GoSourceError(f"type {name} not found in {path}")

    def fields(self, name: str) -> list[JsonField]:
        """The struct's JSON fields in encoding/json order, embedded structs promoted."""
        path = self.struct_home[name]
        candidates = list(self._collect(self.packages[path], name, depth=0, inline="", seen=()))
        by_name: dict[str, list[JsonField]] = {}
        for f in candidates:
            by_name.setdefault(f.json_name, []).append(f)
        kept: list[JsonField] = []
        for f in candidates:
            rivals = by_name[f.json_name]
            shallowest = min(r.depth for r in rivals)
            at_top = [r for r in rivals if r.depth == shallowest]
            if len(at_top) > 1:
                tagged = [r for r in at_top if r.tagged]
                at_top = tagged if len(tagged) == 1 else []
            if at_top and at_top[0] is f:
                kept.append(f)
        restricted = RESTRICTED.get(name)
        if restricted is not None:
            missing = set(restricted) - {f.json_name for f in kept}
            if missing:
                raise GoSourceError(f"{name} lacks restricted fields {sorted(missing)}")
            kept = [f for f in kept if f.json_name in restricted]
        return kept

    def _collect(
        self, pkg: Package, name: str, depth: int, inline: str, seen: tuple[str, ...]
    ) -> Iterable[JsonField]:
        if name in seen:
            raise GoSourceError(f"embedding cycle through {name}")
        file_name = pkg.origin[name]
        for raw in pkg.structs[name]:
            opts = _json_tag(raw.tag)
            if opts is not None and opts[0] == "-" and len(opts) == 1:
                continue
            tag_name = opts[0] if opts else ""
            flags = set(opts[1:]) if opts else set()
            if not raw.names:
                type_text = raw.type_text
                go_name = type_text.lstrip("*").rsplit(".", 1)[-1]
                if not tag_name:
                    shape = self.shape(type_text, pkg, file_name)
                    if shape[0] == "ptr":
                        raise GoSourceError(
                            f"embedded pointer {type_text} in {name} is not supported"
                        )
                    if shape[0] == "struct":
                        inner = str(shape[1])
                        inner_pkg = self.packages[self.struct_home[inner]]
                        via = f"{inline}.{inner}" if inline else inner
                        yield from self._collect(inner_pkg, inner, depth + 1, via, (*seen, name))
                        continue
                names = [go_name]
            else:
                names = raw.names
                type_text = raw.type_text
            for go_name in names:
                if not go_name[0].isupper():
                    continue
                yield JsonField(
                    json_name=tag_name or go_name,
                    go_name=go_name,
                    shape=self.shape(type_text, pkg, file_name),
                    omitempty="omitempty" in flags,
                    omitzero="omitzero" in flags,
                    inline=inline,
                    depth=depth,
                    tagged=bool(tag_name),
                )


def _json_tag(tag: str | None) -> list[str] | None:
    if tag is None:
        return None
    m = _JSON_TAG.search(tag)
    return m.group(1).split(",") if m else None


def reachable(
    resolver: Resolver, root: str, root_path: str = CORE_PATH
) -> dict[str, list[JsonField]]:
    """Every struct reachable from ``root`` through field types, with its JSON fields."""
    resolver.named(root_path, root)
    found: dict[str, list[JsonField]] = {}
    queue = [root]
    while queue:
        name = queue.pop()
        if name in found:
            continue
        found[name] = resolver.fields(name)
        for f in found[name]:
            queue.extend(_struct_refs(f.shape))
    return found


def _struct_refs(shape: tuple[object, ...]) -> list[str]:
    kind = shape[0]
    if kind == "struct":
        return [str(shape[1])]
    refs: list[str] = []
    for part in shape[1:]:
        if isinstance(part, tuple):
            refs.extend(_struct_refs(part))
    return refs


def load_package(path: str, sources: Sequence[str]) -> Package:
    package = Package(path=path)
    for source in sources:
        p = Path(source)
        files = (
            sorted(f for f in p.glob("*.go") if not f.name.endswith("_test.go"))
            if p.is_dir()
            else [p]
        )
        for f in files:
            parse_file(f.read_text(encoding="utf-8"), package, f.name)
    return package


def render_module(
    structs: dict[str, list[JsonField]],
    homes: dict[str, str],
    root: str,
    api_version: str,
    apimachinery_version: str,
) -> str:
    """The generated module's text."""
    out = [
        '"""Go struct JSON shapes reachable from core/v1 ' + root + ".",
        "",
        "GENERATED by tools/gen_gotypes.py -- do not edit by hand.",
        (
            f"Source: k8s.io/api {api_version} (core/v1) and k8s.io/apimachinery "
            f"{apimachinery_version} (pkg/apis/meta/v1)."
        ),
        "Regenerate (see the tool's docstring for getting the .go files out of a checkout):",
        "",
        "    python tools/gen_gotypes.py --core <core/v1 dir or types.go> \\",
        "        --meta <meta/v1 dir or types.go> \\",
        f"        --api-version {api_version} --apimachinery-version {apimachinery_version} \\",
        "        -o renderer/gocompat/k8s_types.py",
        "",
        "Each struct maps to its JSON fields in encoding/json order (embedded structs flattened",
        "in place). A field is (json name, Go name, shape, omitempty, omitzero, inline), where",
        'inline names the embedded struct(s) the field was promoted from ("" for its own).',
        'Shapes: ("string",) ("bool",) ("int32",) ("int64",) ("float64",) ("bytes",),',
        'leaves with their own JSON codec ("Quantity",) ("IntOrString",) ("Time",)',
        '("MicroTime",) ("Duration",), and ("ptr", s) ("slice", s) ("map", key, value)',
        '("struct", name). ObjectMeta is cut down to ' + ", ".join(EMBEDDED_OBJECT_META_FIELDS),
        "(controller-gen generateEmbeddedObjectMeta: the API server prunes everything else).",
        "",
        "Mirrors: encoding/json typeFields over k8s.io/api core/v1 types.go",
        '"""',
        "",
        "from typing import Any",
        "",
        (
            f'SOURCES: dict[str, str] = {{"k8s.io/api": "{api_version}", '
            f'"k8s.io/apimachinery": "{apimachinery_version}"}}'
        ),
        f'ROOT = "{root}"',
        "",
        "PACKAGES: dict[str, str] = {",
    ]
    for name in sorted(structs):
        out.append(f'    "{name}": "{homes[name]}",')
    out.append("}")
    out.append("")
    out.extend(_struct_table("STRUCTS", structs))
    out.append("")
    return "\n".join(out)


def _struct_table(var: str, structs: dict[str, list[JsonField]]) -> list[str]:
    """The lines of one ``name -> field rows`` dict literal."""
    out = [f"{var}: dict[str, tuple[tuple[Any, ...], ...]] = {{"]
    for name in sorted(structs):
        rows = [
            (f.json_name, f.go_name, f.shape, f.omitempty, f.omitzero, f.inline)
            for f in structs[name]
        ]
        one_line = f'    "{name}": ({_py(rows[0])},),' if len(rows) == 1 else ""
        if not rows:
            out.append(f'    "{name}": (),')
            continue
        if one_line and len(one_line) <= 100:
            out.append(one_line)
            continue
        out.append(f'    "{name}": (')
        for row in rows:
            line = f"        {_py(row)},"
            if len(line) <= 100:
                out.append(line)
            else:
                out.append("        (")
                out.extend(f"            {_py(part)}," for part in row)
                out.append("        ),")
        out.append("    ),")
    out.append("}")
    return out


def _py(value: object) -> str:
    """A Python literal in the project's formatting (double quotes, trailing comma for 1-tuples)."""
    if isinstance(value, bool):
        return repr(value)
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, tuple):
        inner = ", ".join(_py(v) for v in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    raise TypeError(f"cannot write {value!r}")


DYNAMO_API = "github.com/ai-dynamo/dynamo/deploy/operator/api"
DYNAMO_V1BETA1 = f"{DYNAMO_API}/v1beta1"
DYNAMO_V1ALPHA1 = f"{DYNAMO_API}/v1alpha1"
GAIE_PATH = "sigs.k8s.io/gateway-api-inference-extension/apix/config/v1alpha1"
APIEXTENSIONS_PATH = "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
AUTOSCALING_V2_PATH = "k8s.io/api/autoscaling/v2"

# More types with their own MarshalJSON, handled by hand in renderer/gocompat/gojson.py:
# apiextensions JSON and json.RawMessage print their stored bytes; the v1alpha1 ExtraPodSpec
# marshals an inline PodSpec whose containers list is shadowed by an omitempty copy.
DYNAMO_LEAVES: dict[tuple[str, str], tuple[str, ...]] = {
    (APIEXTENSIONS_PATH, "JSON"): ("RawJSON",),
    ("encoding/json", "RawMessage"): ("RawMessage",),
    (DYNAMO_V1ALPHA1, "ExtraPodSpec"): ("ExtraPodSpec",),
}
DYNAMO_ROOTS = {
    "V1BETA1": (DYNAMO_V1BETA1, "DynamoComponentDeploymentSpec"),
    "V1ALPHA1": (DYNAMO_V1ALPHA1, "DynamoComponentDeploymentSharedSpec"),
}
# Further roots whose structs join the same tables: the DCD and DGD specs and statuses of
# both versions, which the v1alpha1 <-> v1beta1 conversion decodes and marshals.
DYNAMO_EXTRA_ROOTS: dict[str, tuple[str, ...]] = {
    "V1BETA1": (
        "DynamoGraphDeploymentSpec",
        "DynamoComponentDeploymentStatus",
        "DynamoGraphDeploymentStatus",
    ),
    "V1ALPHA1": (
        "DynamoComponentDeploymentSpec",
        "DynamoGraphDeploymentSpec",
        "DynamoComponentDeploymentStatus",
        "DynamoGraphDeploymentStatus",
    ),
}


def render_dynamo_module(tables: dict[str, dict[str, list[JsonField]]], versions: dict[str, str]) -> str:
    """The text of renderer/gocompat/dynamo_types.py."""
    out = [
        '"""Go struct JSON shapes of the Dynamo component specs that the worker hashes marshal.',
        "",
        "GENERATED by tools/gen_gotypes.py (dynamo mode) -- do not edit by hand.",
        f"Source: github.com/ai-dynamo/dynamo {versions['dynamo']} deploy/operator/api/v1beta1 and",
        "api/v1alpha1 (common.go, dynamocomponentdeployment_types.go and the files they reach),",
        f"sigs.k8s.io/gateway-api-inference-extension {versions['gaie']} apix/config/v1alpha1,",
        f"k8s.io/apimachinery {versions['apimachinery']} meta/v1 and k8s.io/api {versions['api']} core/v1.",
        "Regenerate with the command in the tool's docstring.",
        "",
        "V1BETA1 holds every struct reachable from v1beta1 DynamoComponentDeploymentSpec and",
        "V1ALPHA1 every struct reachable from v1alpha1 DynamoComponentDeploymentSharedSpec (the two",
        "API versions reuse struct names, hence two tables); both also hold what the DCD and DGD",
        "specs and statuses of their version reach (the conversion webhook marshals those).",
        "Rows are as in renderer/gocompat/k8s_types.py:",
        "(json name, Go name, shape, omitempty, omitzero, inline). Extra shapes: (\"k8s\", name) is",
        "a core/v1 struct of renderer/gocompat/k8s_types.py; (\"RawJSON\",) an apiextensions JSON value;",
        "(\"RawMessage\",) a json.RawMessage; (\"ExtraPodSpec\",) the v1alpha1 ExtraPodSpec with its",
        "own MarshalJSON; (\"unsupported\", type) a type left unmodelled. autoscaling/v2 structs",
        "(the deprecated v1alpha1 autoscaling block) sit in the V1ALPHA1 table.",
        "",
        "Mirrors: encoding/json typeFields over deploy/operator/api/v1beta1 and api/v1alpha1",
        '"""',
        "",
        "from typing import Any",
        "",
        "SOURCES: dict[str, str] = {",
        f'    "github.com/ai-dynamo/dynamo": "{versions["dynamo"]}",',
        f'    "sigs.k8s.io/gateway-api-inference-extension": "{versions["gaie"]}",',
        f'    "k8s.io/apimachinery": "{versions["apimachinery"]}",',
        f'    "k8s.io/api": "{versions["api"]}",',
        "}",
        "ROOTS: dict[str, str] = {",
    ]
    for var, (_path, root) in DYNAMO_ROOTS.items():
        out.append(f'    "{var}": "{root}",')
    out.append("}")
    for var in DYNAMO_ROOTS:
        out.append("")
        out.extend(_struct_table(var, tables[var]))
    out.append("")
    return "\n".join(out)


def main_dynamo(argv: Sequence[str]) -> int:
    """The ``dynamo`` mode: write renderer/gocompat/dynamo_types.py."""
    parser = argparse.ArgumentParser(prog="gen_gotypes.py dynamo")
    parser.add_argument("--v1beta1", action="append", required=True, help="api/v1beta1 dir")
    parser.add_argument("--v1alpha1", action="append", required=True, help="api/v1alpha1 dir")
    parser.add_argument("--gaie", action="append", required=True, help="apix/config/v1alpha1 dir")
    parser.add_argument("--meta", action="append", required=True, help="meta/v1 .go file or dir")
    parser.add_argument("--core", action="append", required=True, help="core/v1 .go file or dir")
    parser.add_argument(
        "--autoscaling", action="append", help="autoscaling/v2 dir (else its types stay unsupported)"
    )
    parser.add_argument("--dynamo-commit", required=True, help="ai-dynamo/dynamo commit")
    parser.add_argument("--gaie-version", required=True, help="inference extension tag")
    parser.add_argument("--apimachinery-version", required=True, help="apimachinery tag")
    parser.add_argument("--api-version", required=True, help="k8s.io/api tag")
    parser.add_argument("-o", "--output", help="write here instead of stdout")
    args = parser.parse_args(argv)
    tables: dict[str, dict[str, list[JsonField]]] = {}
    try:
        shared = {
            GAIE_PATH: load_package(GAIE_PATH, args.gaie),
            META_PATH: load_package(META_PATH, args.meta),
            CORE_PATH: load_package(CORE_PATH, args.core),
        }
        opaque = frozenset({AUTOSCALING_V2_PATH})
        if args.autoscaling:
            shared[AUTOSCALING_V2_PATH] = load_package(AUTOSCALING_V2_PATH, args.autoscaling)
            opaque = frozenset()
        api = {DYNAMO_V1BETA1: args.v1beta1, DYNAMO_V1ALPHA1: args.v1alpha1}
        for var, (path, root) in DYNAMO_ROOTS.items():
            resolver = Resolver(
                {**shared, path: load_package(path, api[path])},
                leaves=DYNAMO_LEAVES,
                delegate=frozenset({CORE_PATH}),
                opaque=opaque,
            )
            tables[var] = reachable(resolver, root, path)
            for extra in DYNAMO_EXTRA_ROOTS.get(var, ()):
                tables[var].update(reachable(resolver, extra, path))
    except GoSourceError as err:
        print(f"gen_gotypes: {err}", file=sys.stderr)
        return 1
    versions = {
        "dynamo": args.dynamo_commit,
        "gaie": args.gaie_version,
        "apimachinery": args.apimachinery_version,
        "api": args.api_version,
    }
    text = render_dynamo_module(tables, versions)
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["dynamo"]:
        return main_dynamo(argv[1:])
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--core", action="append", required=True, help="core/v1 .go file or dir")
    parser.add_argument("--meta", action="append", required=True, help="meta/v1 .go file or dir")
    parser.add_argument("--api-version", required=True, help="k8s.io/api tag, e.g. v0.36.2")
    parser.add_argument("--apimachinery-version", required=True, help="apimachinery tag")
    parser.add_argument("--root", default="PodTemplateSpec", help="core/v1 struct to start from")
    parser.add_argument("-o", "--output", help="write here instead of stdout")
    args = parser.parse_args(argv)
    try:
        packages = {
            CORE_PATH: load_package(CORE_PATH, args.core),
            META_PATH: load_package(META_PATH, args.meta),
        }
        resolver = Resolver(packages)
        structs = reachable(resolver, args.root)
    except GoSourceError as err:
        print(f"gen_gotypes: {err}", file=sys.stderr)
        return 1
    text = render_module(
        structs, resolver.struct_home, args.root, args.api_version, args.apimachinery_version
    )
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
