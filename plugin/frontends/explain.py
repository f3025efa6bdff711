"""The ``explain`` command: where every value of one rendered object came from.

``dynamo-render explain --object KIND/NAME [--field PATH] [-o text|json] PATH...`` renders PATH
as ``render`` does, picks the named object, and gives each of its leaf values an origin:

- ``input``: the value was written in a source (a DCD or DGD, at the path the user wrote, the
  v1alpha1 path for v1alpha1 input), or is computed from that one field;
- ``operator-config``: a field of the operator configuration (defaults included) or of the
  plugin settings;
- ``cluster-state``: an object of the bundle or the cluster-state input (a ServiceAccount, a pull
  Secret, a DynamoCheckpoint, ...);
- ``operator``: the operator computed it, from no input field or from several at once (a name
  with the worker hash).

The method is perturbation, which is exact because the core is pure and deterministic: each
scalar of the source, the operator configuration, the plugin settings and the cluster-state
objects is changed in turn (a digit or letter moved, an integer moved by one, a boolean
flipped, keeping the value's format so the render still succeeds), the bundle is rendered
again (with each of its mutations), and the leaves that changed are the ones that field determines. A leaf
whose value equals such a field's value is that field's (moved); a leaf only one field changes
is computed from it; anything else is ``operator``. A mutation the render refuses is replaced
by the next one; a field with no mutation the render accepts is listed in ``unresolved``.

The ``rule`` of a leaf is the Go function whose port wrote the value into its place: one more
render runs under a profiler that, at each return of a ``renderer`` function, claims the slots
of the dicts and lists it returns that no inner function claimed before, for the nearest
function on the stack whose docstring names what it mirrors (``Mirrors:``; the tracer is
``plugin.frontends.explain_rules``). Rendering itself is untouched; ``explain`` pays for the
extra renders.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, TextIO

from plugin.frontends.explain_rules import RuleTracer, Step
from plugin.frontends.render import report
from plugin.options import OptionValues
from plugin.settings import Settings, load_manifests, resolve_settings
from plugin.yamlio.codec import Document
from plugin.yamlio.lines import LineIndex, resolve
from renderer import consts
from renderer.bundle import Item, render_bundle
from renderer.config import RenderConfig, build_render_config
from renderer.operator_config import parse_operator_config
from renderer.records import dataclass, replace
from renderer.results import Code, Result, Severity

INPUT, OPERATOR_CONFIG, CLUSTER_STATE, OPERATOR = "input", "operator-config", "cluster-state", "operator"
# The kinds the cluster state reads from a bundle (renderer.cluster.state): their fields are facts.
STATE_KINDS = frozenset(
    {"ServiceAccount", "Secret", "PersistentVolumeClaim", "DynamoCheckpoint", "ResourceClaimTemplate", "DeviceClass", "Deployment", "LeaderWorkerSet", "Service"}
)
DYNAMO_KINDS = frozenset({consts.DCD_KIND, consts.DGD_KIND})


@dataclass(frozen=True)
class Field:
    """One scalar that can be perturbed: where it lives and how the explanation names it."""

    origin: str
    steps: tuple[Step, ...]
    value: Any
    object: str = ""
    file: str = ""
    line: int | None = None
    document: int = -1  # the bundle item it belongs to; -1 for the operator config or settings
    settings_part: str = ""  # "operator" or "plugin" for settings fields

    @property
    def path(self) -> str:
        return path_of(self.steps)


def path_of(steps: Sequence[Step]) -> str:
    """A field path in the renderer's spelling: dots, ``[i]``, ``[key]`` for keys with dots or slashes."""
    out = ""
    for step in steps:
        if isinstance(step, int):
            out += f"[{step}]"
        elif re.fullmatch(r"[A-Za-z0-9_-]+", step):
            out += f".{step}" if out else step
        else:
            out += f"[{step}]"
    return out


def leaves(value: Any, steps: tuple[Step, ...] = ()) -> Iterator[tuple[tuple[Step, ...], Any]]:
    """Every scalar under ``value`` with the steps that reach it, in document order."""
    if isinstance(value, dict):
        for key, child in value.items():
            yield from leaves(child, (*steps, key))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            yield from leaves(child, (*steps, index))
    else:
        yield steps, value


def _with(value: Any, steps: Sequence[Step], new: Any) -> Any:
    """A deep copy of ``value`` with the scalar at ``steps`` replaced."""
    out = copy.deepcopy(value)
    target = out
    for step in steps[:-1]:
        target = target[step]
    target[steps[-1]] = new
    return out


# Values of the enumerations a source names often: a changed value must be another member.
ENUMS: tuple[frozenset[str], ...] = (
    frozenset({consts.COMPONENT_TYPE_DECODE, consts.COMPONENT_TYPE_PREFILL, consts.COMPONENT_TYPE_WORKER}),
    frozenset({consts.COMPONENT_TYPE_FRONTEND, consts.COMPONENT_TYPE_PLANNER, consts.COMPONENT_TYPE_EPP}),
    frozenset(consts.BACKEND_FRAMEWORKS),
    frozenset({consts.DISCOVERY_BACKEND_KUBERNETES, consts.DISCOVERY_BACKEND_ETCD}),
)


def mutations(value: Any) -> Iterator[Any]:
    """Changed values of the same type and, where possible, the same format."""
    for members in ENUMS:
        if value in members:
            yield from sorted(members - {value})
    if isinstance(value, bool):
        yield not value
    elif isinstance(value, int):
        yield value + 1
        yield value - 1
    elif isinstance(value, float):
        yield value * 2 if value else 1.0
        yield value / 2
    elif isinstance(value, str):
        digits = [i for i, ch in enumerate(value) if ch.isdigit()]
        if digits:
            i = digits[-1]
            yield value[:i] + ("8" if value[i] == "9" else str(int(value[i]) + 1)) + value[i + 1 :]
        letters = [i for i, ch in enumerate(value) if ch.isalpha() and ch.isascii()]
        if letters:
            i = letters[-1]
            ch = value[i]
            swapped = "y" if ch.lower() == "z" else chr(ord(ch.lower()) + 1)
            yield value[:i] + (swapped.upper() if ch.isupper() else swapped) + value[i + 1 :]
        yield value + "x"


@dataclass(frozen=True)
class Target:
    """The object to explain: kind, name and, when given, namespace."""

    kind: str
    name: str
    namespace: str | None = None

    @classmethod
    def parse(cls, text: str) -> Target | None:
        parts = text.split("/")
        if len(parts) == 2 and all(parts):
            return cls(parts[0], parts[1])
        if len(parts) == 3 and all(parts):
            return cls(parts[0], parts[2], parts[1])
        return None

    def matches(self, obj: Mapping[str, Any]) -> bool:
        meta = obj.get("metadata") or {}
        return (
            obj.get("kind") == self.kind
            and meta.get("name") == self.name
            and (self.namespace is None or meta.get("namespace") == self.namespace)
        )


class Renderer:
    """Renders the bundle with one input field changed; the baseline once."""

    def __init__(self, documents: Sequence[Document], settings: Settings) -> None:
        self.documents = documents
        self.settings = settings
        self.objects = [doc.obj for doc in documents]
        # The choices the configuration is built from (perturbed by replacing one).
        self.choices = settings
        config = settings.config
        self.api_versions = list(config.api_versions) if config.api_versions is not None else None
        rebuilt, _ = build_render_config(config.operator, self.choices, self.api_versions)
        # Settings are perturbed by building the configuration again; that must give the same one.
        self.rebuilds = rebuilt == config

    def render(self, objects: Sequence[Any] | None = None, config: RenderConfig | None = None) -> tuple[list[dict[str, Any]], list[Result]]:
        items = [
            Item(obj, doc.file, doc.index) for obj, doc in zip(objects if objects is not None else self.objects, self.documents)
        ]
        out = render_bundle(
            items,
            config or self.settings.config,
            self.settings.namespace,
            cluster_layers=self.settings.cluster_layers,
        )
        return out.objects, out.results

    def perturbed(self, field: Field, new: Any) -> list[dict[str, Any]] | None:
        """The render with ``field`` set to ``new``; None when the render refuses it."""
        if field.document >= 0:
            objects = list(self.objects)
            objects[field.document] = _with(objects[field.document], field.steps, new)
            rendered, results = self.render(objects)
        else:
            config = self._config_with(field, new)
            if config is None:
                return None
            rendered, results = self.render(config=config)
        return None if any(r.is_error for r in results) else rendered

    def _config_with(self, field: Field, new: Any) -> RenderConfig | None:
        operator = self.settings.config.operator
        choices = self.choices
        if field.settings_part == "operator":
            dumped = operator.model_dump(by_alias=True, exclude_none=True)
            changed, problems = parse_operator_config(_with(dumped, field.steps, new), release=self.settings.config.release)
            if changed is None or any(p.is_error for p in problems):
                return None
            operator = changed
        else:
            try:
                choices = replace(choices, **{str(field.steps[-1]): new})
            except TypeError:
                return None
        if not self.rebuilds:
            return replace(self.settings.config, operator=operator) if field.settings_part == "operator" else None
        config, problems = build_render_config(operator, choices, self.api_versions)
        return None if any(p.is_error for p in problems) else config


def input_fields(documents: Sequence[Document], source_index: int | None, renderer: Renderer, operator_file: str | None = None) -> list[Field]:
    """Every scalar a perturbation may change: the source, the settings, the cluster-state objects."""
    fields: list[Field] = []
    indexes: dict[str, LineIndex] = {}
    for position, doc in enumerate(documents):
        obj = doc.obj
        if not isinstance(obj, dict):
            continue
        kind = obj.get("kind")
        if position == source_index:
            origin = INPUT
        elif kind in STATE_KINDS and position != source_index:
            origin = CLUSTER_STATE
        else:
            continue
        meta = obj.get("metadata") or {}
        name = f"{kind}/{meta.get('namespace') or renderer.settings.namespace}/{meta.get('name', '')}"
        for steps, value in leaves(obj):
            if value is None or steps[:1] in (("apiVersion",), ("kind",)):
                continue
            fields.append(Field(origin, steps, value, name, doc.file, _line(indexes, doc, steps), position))
    config = renderer.settings.config
    # The operator configuration as the render uses it: the file's fields with their lines, defaults without.
    written = Document(obj=None, file=operator_file, index=0) if operator_file else None
    for steps, value in leaves(config.operator.model_dump(by_alias=True, exclude_none=True)):
        if value is not None:
            line = _line(indexes, written, steps) if written is not None else None
            fields.append(
                Field(OPERATOR_CONFIG, steps, value, "OperatorConfiguration", operator_file or "" if line else "", line, settings_part="operator")
            )
    for name in ("operator_version", "lws", "grove", "kai_scheduler", "checkpoint", "dra", "companions"):
        value = getattr(renderer.choices, name, None)
        if value is not None:
            fields.append(Field(OPERATOR_CONFIG, (name,), value, "DynamoRenderConfig", settings_part="plugin"))
    return fields


def _line(indexes: dict[str, LineIndex], doc: Document, steps: Sequence[Step]) -> int | None:
    """The line of a field in its file, when the file can be read again (not for stdin)."""
    if not doc.file or doc.file == "-":
        return None
    if doc.file not in indexes:
        try:
            with open(doc.file, encoding="utf-8") as handle:
                indexes[doc.file] = LineIndex(handle.read())
        except OSError:
            return None
    index = indexes[doc.file]
    if doc.index is None or doc.index >= len(index.documents):
        return None
    node = resolve(index.documents[doc.index], path_of(steps))
    return int(node.start_mark.line) + 1 if node is not None else None


def _find(objects: Sequence[dict[str, Any]], target: Target) -> list[int]:
    return [i for i, obj in enumerate(objects) if target.matches(obj)]


def _counterpart(objects: Sequence[dict[str, Any]], position: int, kind: str, count: int, target: Target) -> dict[str, Any] | None:
    """The target in a perturbed render: same place in the stream (names may change), else same identity."""
    if len(objects) == count and objects[position].get("kind") == kind:
        return objects[position]
    found = _find(objects, target)
    return objects[found[0]] if len(found) == 1 else None


def changed_leaves(before: Mapping[tuple[Step, ...], Any], after: dict[str, Any]) -> set[tuple[Step, ...]]:
    """The leaf paths of ``before`` whose value differs (or is gone) in ``after``."""
    now = dict(leaves(after))
    return {steps for steps, value in before.items() if steps not in now or now[steps] != value or type(now[steps]) is not type(value)}


def explain(
    documents: Sequence[Document], settings: Settings, target: Target, field_prefix: str | None, operator_file: str | None = None
) -> tuple[tuple[dict[str, Any], list[dict[str, Any]]] | None, list[Result]]:
    """The target object and its explanation entries, or None with the results that say why."""
    renderer = Renderer(documents, settings)
    tracer = RuleTracer(renderer.objects)
    objects, results = tracer.run(renderer.render)
    if any(r.is_error for r in results):
        return None, results
    found = _find(objects, target)
    if len(found) != 1:
        what = "no rendered object is" if not found else f"{len(found)} rendered objects are"
        names = sorted({f"{o.get('kind')}/{(o.get('metadata') or {}).get('name')}" for o in objects})
        message = f"{what} {target.kind}/{target.name}" + (" (name the namespace: KIND/NAMESPACE/NAME)" if found else f" (rendered: {', '.join(names[:20])})")
        return None, [Result(message, field="--object", code=Code.INPUT)]
    position = found[0]
    obj = objects[position]
    before = {steps: value for steps, value in leaves(obj) if field_prefix is None or _under(path_of(steps), field_prefix)}
    if not before:
        return None, [Result(f"{target.kind}/{target.name} has no field {field_prefix}", field="--field", code=Code.INPUT)]
    source_index = _source_of(documents, renderer, position, target)
    fields = input_fields(documents, source_index, renderer, operator_file)
    needed = sum(1 for f in fields for _ in mutations(f.value))
    if needed > MAX_RENDERS:
        return None, [budget_exceeded(needed, len(fields))]
    effects: dict[tuple[Step, ...], list[Field]] = {steps: [] for steps in before}
    unresolved: list[Field] = []
    for field in fields:
        # Every mutation, not only the first the render accepts: a field may matter for some
        # values only (a v1alpha1 componentType "worker" and "decode" both give a decode DCD
        # when subComponentType says decode).
        changed: set[tuple[Step, ...]] = set()
        accepted = False
        for new in mutations(field.value):
            rendered = renderer.perturbed(field, new)
            counterpart = _counterpart(rendered, position, target.kind, len(objects), target) if rendered is not None else None
            if counterpart is None:
                continue
            accepted = True
            changed |= changed_leaves(before, counterpart)
        for steps in changed:
            effects[steps].append(field)
        if not accepted:
            unresolved.append(field)
    rules = tracer.rules(obj)
    entries = [_entry(steps, value, effects[steps], rules.get(steps, "")) for steps, value in sorted(before.items(), key=lambda kv: _sort_key(kv[0]))]
    notes = [
        Result(
            f"no accepted change of {f.path} was found, so what it determines is shown as operator",
            severity=Severity.INFO, field=f.path, file=f.file, index=documents[f.document].index if f.document >= 0 else None, code=Code.NOTE,
        )
        for f in unresolved
    ]
    return (obj, entries), notes


# The budget of one explain run (docs/explain.md "Budget"): at most this many perturbed renders of
# the bundle, counted before the first one runs. Each render costs time in proportion to the
# bundle, and the number of renders grows with its input fields, so an unbounded run grows with
# the square of the input (an 18 KB DGD took about a minute, a 711 KB one never finished).
MAX_RENDERS = 2_000


def budget_exceeded(needed: int, fields: int) -> Result:
    """The one-line error for a request past the render budget, saying how to narrow it."""
    return Result(
        f"explaining this object needs {needed:,} renders (one per change of {fields:,} input fields), more than the budget "
        f"of {MAX_RENDERS:,}; explain a smaller bundle: the one DCD or DGD that renders the object (a DGD with fewer components), "
        "with only the cluster-state objects it reads",
        field="--object", code=Code.INPUT,
    )


def _sort_key(steps: tuple[Step, ...]) -> tuple[tuple[int, str, int], ...]:
    """Leaves in the order ``render`` writes them: map keys sorted, list items in order."""
    return tuple((1, "", s) if isinstance(s, int) else (0, s, 0) for s in steps)


def _under(path: str, prefix: str) -> bool:
    return path == prefix or path.startswith(prefix + ".") or path.startswith(prefix + "[")


def _source_of(documents: Sequence[Document], renderer: Renderer, position: int, target: Target) -> int | None:
    """The bundle item that renders the target: the Dynamo source whose removal removes it."""
    for index, doc in enumerate(documents):
        obj = doc.obj
        if not (isinstance(obj, dict) and obj.get("kind") in DYNAMO_KINDS):
            continue
        objects = [o for i, o in enumerate(renderer.objects) if i != index]
        kept = [d for i, d in enumerate(documents) if i != index]
        items = [Item(o, d.file, d.index) for o, d in zip(objects, kept)]
        # (sources not kept: the question is which input the target is rendered from)
        config = replace(renderer.settings.config, keep_sources=False)
        out = render_bundle(items, config, renderer.settings.namespace, cluster_layers=renderer.settings.cluster_layers)
        if not _find(out.objects, target) and not any(r.is_error for r in out.results):
            return index
    return None


def _entry(steps: tuple[Step, ...], value: Any, causes: list[Field], rule: str) -> dict[str, Any]:
    """One leaf's explanation (see the module docstring for how the origin is chosen)."""
    equal = [f for f in causes if f.value == value and type(f.value) is type(value)]
    chosen = None
    if equal:
        # Several fields hold the value: the one whose path ends like the leaf's, then by origin.
        order = {INPUT: 0, OPERATOR_CONFIG: 1, CLUSTER_STATE: 2}
        chosen = min(equal, key=lambda f: (-_common_suffix(f.steps, steps), order[f.origin]))
    elif len(causes) == 1:
        chosen = causes[0]
    entry: dict[str, Any] = {"field": path_of(steps), "value": value}
    if chosen is None:
        entry["origin"] = OPERATOR
        if causes:
            entry["dependsOn"] = sorted({f"{f.origin}:{f.path}" for f in causes})
    else:
        entry["origin"] = chosen.origin
        source: dict[str, Any] = {"object": chosen.object, "path": chosen.path}
        if chosen.file:
            source["file"] = chosen.file
        if chosen.line is not None:
            source["line"] = chosen.line
        entry["source"] = source
    if rule and (chosen is None or not equal or rule):
        entry["rule"] = rule
    return entry


def _common_suffix(a: Sequence[Step], b: Sequence[Step]) -> int:
    n = 0
    while n < min(len(a), len(b)) and a[-1 - n] == b[-1 - n]:
        n += 1
    return n


def format_text(obj: Any, entries: Sequence[Mapping[str, Any]]) -> str:
    """The object as block YAML, keys sorted as ``render`` writes them, each leaf with a margin note."""
    notes = {entry["field"]: _note(entry) for entry in entries}
    lines: list[str] = []
    _emit(_pruned(obj, set(notes)), (), "", "", lines, notes)
    return "\n".join(lines) + "\n"


def _pruned(value: Any, wanted: set[str], steps: tuple[Step, ...] = ()) -> Any:
    """Only the parts of ``value`` that lead to an explained leaf (all of it without ``--field``)."""
    if isinstance(value, (dict, list)) and value:
        pairs = value.items() if isinstance(value, dict) else enumerate(value)
        kept = {k: _pruned(v, wanted, (*steps, k)) for k, v in pairs}
        if all(v is _GONE for v in kept.values()):
            return _GONE if steps else {}
        if isinstance(value, dict):
            return {k: v for k, v in kept.items() if v is not _GONE}
        return list(kept.values())  # dropped items stay as placeholders: indexes name the fields
    return value if path_of(steps) in wanted else _GONE


_GONE = object()


def _emit(value: Any, steps: tuple[Step, ...], indent: str, first: str, lines: list[str], notes: Mapping[str, str]) -> None:
    """Block YAML lines of a mapping or list; ``first`` stands for ``indent`` on the first line (a list item's dash)."""
    entries = [(k, v) for k, v in (sorted(value.items()) if isinstance(value, dict) else enumerate(value)) if v is not _GONE]
    for n, (key, child) in enumerate(entries):
        lead = first if n == 0 and first else indent
        here = (*steps, key)
        head = f"{lead}- " if isinstance(value, list) else f"{lead}{key}: "
        if isinstance(child, dict) and child and isinstance(value, list):
            _emit(child, here, indent + "  ", head, lines, notes)  # the item's first key on the dash line
        elif isinstance(child, (dict, list)) and child:
            lines.append(head.rstrip())
            _emit(child, here, indent + "  ", "", lines, notes)
        else:
            text = ("{}" if isinstance(child, dict) else "[]") if isinstance(child, (dict, list)) else _scalar(child)
            note = notes.get(path_of(here))
            lines.append(f"{head}{text}   ← {note}" if note else f"{head}{text}")


def _scalar(value: Any) -> str:
    plain = r"[A-Za-z_/][\w./@-]*(:[\w./@-]+)*"
    if isinstance(value, str) and re.fullmatch(plain, value) and value.lower() not in ("true", "false", "null", "yes", "no", "on", "off", "y", "n"):
        return value
    return json.dumps(value)


def _note(entry: Mapping[str, Any]) -> str:
    source = entry.get("source")
    rule = entry.get("rule", "")
    if source is None:
        return f"operator: {rule.rsplit('/', 1)[-1]}" if rule else "operator"
    where = f" ({source['file'].rsplit('/', 1)[-1]}:{source['line']})" if "line" in source and "file" in source else ""
    label = source["path"] if entry["origin"] == INPUT else f"{entry['origin']}: {source['path']}"
    return label + where


def run(
    paths: Sequence[str],
    common: OptionValues,
    stdout: TextIO,
    stderr: TextIO,
    *,
    target: str,
    field: str | None = None,
    output: str = "text",
) -> int:
    """Explain one rendered object of ``paths``; returns the exit code."""
    wanted = Target.parse(target)
    if wanted is None:
        stderr.write(f"error: --object wants KIND/NAME or KIND/NAMESPACE/NAME (got {target!r})\n")
        return 2
    settings, problems = resolve_settings(common)
    verbose = bool(common.get("verbose"))
    texts: dict[str, str] = {}
    documents, more = load_manifests(paths, settings, texts=texts)
    problems += more
    if settings is None or any(r.is_error for r in problems):
        report(problems, stderr, verbose, texts)
        return 1
    explained, results = explain(documents, settings, wanted, field, common.get("operator-config-path"))
    report(results, stderr, verbose, texts)
    if explained is None:
        return 1
    obj, entries = explained
    if output == "json":
        stdout.write(json.dumps(entries, indent=2, sort_keys=True) + "\n")
    else:
        stdout.write(format_text(obj, entries))
    return 0
