"""Render a bundle of input objects: the one render API every front end calls.

``render_bundle`` (and ``stream_bundle``, its streaming form) takes the input objects in order,
or grouped by origin (``Group``: a file, an app's build, a KRM item; the groups together are one
bundle), and, as DESIGN.md's data flow says:

1. builds the cluster state from the bundle's own objects over the given cluster layers;
2. splits Dynamo objects (DCDs, DGDs) from everything else, which passes through in order;
3. admits each Dynamo object (CRD schema, CEL, webhooks) and renders it on its own
   (``render_source``, the per-source API): a DGD through the graph program
   (``renderer.graph.program``), a DCD through the component renderer
   (``renderer.objects.component``) plus its standalone companions; what the API server would
   refuse (``renderer.admission.apiserver``) is an error, never output;
4. merges the sources' objects by identity (``_admit``: the one place where two sources'
   objects meet; the clash check belongs there, with the one identity rule of
   ``renderer.clashes``), keeps the sources when ``keep_sources`` is set and stops at the
   configured object limit;
5. notes what holds for the whole bundle once (assumed defaults, namespace-shared objects) and
   checks that every object a rendered pod references is there (``renderer.objects.integrity``).

Each object comes back with its group, so a front end files it beside its origin; the front
ends only read inputs, call this once and place the output. One source failing never hides
another; every problem comes back as a Result.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from renderer.records import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Literal

from renderer import consts, gitops
from renderer.admission import apiserver, objectmeta
from renderer.admission.api import DCD, ParsedSource
from renderer.admission.dynamo_kinds import refused_kind
from renderer.admission.parse import parse_dcd
from renderer.clashes import Identities, Identity, Origin, identity_of
from renderer.cluster.state import BUNDLE_SOURCE, ClusterState, Kind, build_cluster_state
# The cluster facts besides the bundle's own objects (a cluster-state file, a live lookup): part of this API.
from renderer.cluster.state import StateLayer as StateLayer
from renderer.config import RenderConfig
from renderer.objects.component import render_component
from renderer.objects.preserved_content import (
    contributions,
    identity_only,
    is_accepted,
    preserved_annotation,
    preserved_results,
)
from renderer.objects.shared import is_namespace_shared
from renderer.objects.integrity import Need, needed_references, object_index, report_missing
from renderer.objects.standalone_companions import render_standalone_companions
from renderer.bundle_notes import bundle_notes, dgdr_note, too_many_rendered
from renderer.results import Code, RenderError, ResourceRef, Result, describe_kind

if TYPE_CHECKING:
    from renderer.graph.dgd import DGD

# The graph modules (renderer.graph.*, renderer.objects.epp) are imported where a DGD is
# rendered: a run with DCDs only does not pay for them at start-up.


# A front end's ownership marker: (rendered object, the source it was rendered from) -> the object as emitted.
Mark = Callable[[dict[str, Any], dict[str, Any]], dict[str, Any]]


@dataclass(frozen=True)
class Item:
    """One input object and where it came from (file path and document index, if known)."""

    obj: Any
    file: str = ""
    index: int | None = None


def is_dcd(obj: Any) -> bool:
    return isinstance(obj, dict) and obj.get("kind") == consts.DCD_KIND and obj.get("apiVersion") in (
        consts.V1BETA1,
        consts.V1ALPHA1,
    )


def is_dgd(obj: Any) -> bool:
    return isinstance(obj, dict) and obj.get("kind") == consts.DGD_KIND and str(obj.get("apiVersion", "")).startswith(
        consts.DYNAMO_GROUP + "/"
    )


def is_dgdr(obj: Any) -> bool:
    return isinstance(obj, dict) and obj.get("kind") == DGDR_KIND and str(obj.get("apiVersion", "")).startswith(
        consts.DYNAMO_GROUP + "/"
    )


DGDR_KIND = "DynamoGraphDeploymentRequest"


@dataclass
class SourceRender:
    """What one Dynamo source renders on its own.

    ``objects`` is None when it failed (its results say why); ``needs`` names the source and
    the objects its pods reference, for the reference check once the bundle is complete.
    """

    objects: list[dict[str, Any]] | None
    results: list[Result] = field(default_factory=list)
    needs: tuple[ResourceRef, list[Need]] | None = None


def parse_source(obj: dict[str, Any], default_namespace: str, config: RenderConfig) -> tuple[DGD | DCD | None, list[Result]]:
    """A DGD or DCD document admitted as the API server admits it, by its apiVersion.

    v1alpha1 goes through its own schema and the conversion webhook into the v1beta1 parsers;
    v1beta1 goes to them directly, so the v1beta1 path never loads the v1alpha1 one. The
    imports are local: a bundle without DGDs (or without v1alpha1) never loads those modules.
    """
    alpha = obj.get("apiVersion") == consts.V1ALPHA1
    if is_dgd(obj):
        if alpha:
            from renderer.graph.v1alpha1_dgd import parse_alpha_dgd

            return parse_alpha_dgd(obj, default_namespace, config)
        from renderer.graph.dgd_parse import parse_dgd

        return parse_dgd(obj, default_namespace, config)
    if alpha:
        from renderer.admission.v1alpha1.admit import parse_alpha_dcd

        return parse_alpha_dcd(obj, default_namespace, config.checkpoint_enabled, config.release)
    return parse_dcd(obj, default_namespace, config.checkpoint_enabled, release=config.release)


def render_source(
    item: Item, config: RenderConfig, default_namespace: str, cluster: ClusterState, report_preserved: bool = True
) -> SourceRender | None:
    """One DCD or DGD, admitted and rendered on its own; None for any other object (pass-through).

    A DGD renders through the graph program, a DCD through the component renderer plus the
    companions the graph controller would create for it. Objects the API server would refuse
    are errors, never output. What only its spec preservation annotation carries is reported
    (``report_preserved``; off for the comparison render itself).
    """
    obj = item.obj
    source: DGD | DCD | None
    wrong_kind = refused_kind(obj)
    if wrong_kind is not None:
        return SourceRender(objects=None, results=[wrong_kind.with_source(item.file, item.index)])
    if is_dgd(obj) or is_dcd(obj):
        # Rules of the source's own metadata that generated DCDs (owned by their graph) never reach.
        refused = objectmeta.source_metadata_problems(obj)
        if refused:
            return SourceRender(objects=None, results=[r.with_resource(ResourceRef.of(obj)).with_source(item.file, item.index) for r in refused])
    if is_dgd(obj):
        source, found = parse_source(obj, default_namespace, config)
        render: Callable[[Any, RenderConfig, ClusterState, list[Result]], list[dict[str, Any]]] = _render_dgd
    elif is_dcd(obj):
        source, found = parse_source(obj, default_namespace, config)
        render = _render_dcd
    else:
        return None
    out = SourceRender(objects=None)

    def add(results: Iterable[Result]) -> None:
        out.results.extend(r.with_source(item.file, item.index) for r in results)

    add(found)
    if source is None:
        return out
    notes: list[Result] = []
    try:
        objects = render(source, config, cluster, notes)
    except RenderError as err:
        add([err.at(_as_written(err.field, source)).to_result(source.ref)])
        return out
    add(replace(n, field=_as_written(n.field, source)).with_resource(source.ref) for n in notes)
    # Objects the API server would refuse are errors, never output.
    refused = apiserver.refusals(objects)
    if refused:
        add(refused)
        return out
    out.objects = objects
    out.needs = (source.ref, needed_references(source.ref, objects))
    # What only the spec preservation annotation carries, made visible (DESIGN decision 16).
    key = preserved_annotation(obj) if report_preserved else None
    if key is not None:
        add(_preserved_content(item, key, objects, source.ref, config, default_namespace, cluster))
    return out


def _preserved_content(
    item: Item,
    key: str,
    objects: list[dict[str, Any]],
    ref: ResourceRef,
    config: RenderConfig,
    default_namespace: str,
    cluster: ClusterState,
) -> list[Result]:
    """The source's render compared with its render without the annotation: one result per difference.

    See renderer/objects/preserved_content.py for what counts as beyond the visible spec.
    """
    plain = render_source(Item(identity_only(item.obj, key)), config, default_namespace, cluster, report_preserved=False)
    accepted = is_accepted(ref, default_namespace, config.accept_preserved)
    if plain is None or plain.objects is None:
        first = next((r for r in plain.results if r.is_error), None) if plain is not None else None
        reason = f" ({first.field + ': ' if first and first.field else ''}{first.message if first else 'no output'})"
        items = [f"without it the source does not render{reason}: everything it renders depends on it"]
    else:
        items = contributions(objects, plain.objects)
    return preserved_results(items, ref, key, accepted)


def _render_dgd(dgd: DGD, config: RenderConfig, cluster: ClusterState, notes: list[Result]) -> list[dict[str, Any]]:
    """A DGD through the graph program, carrying the DGD's GitOps metadata."""
    from renderer.graph.program import render_graph

    return _carried(render_graph(dgd, config, cluster, notes), dgd, config, notes)


def _render_dcd(dcd: DCD, config: RenderConfig, cluster: ClusterState, notes: list[Result]) -> list[dict[str, Any]]:
    """A DCD through the component renderer, after the companions the graph controller would create for it.

    The companions are the same for every DCD of one parent, so they carry no DCD's metadata.
    """
    objects = _carried(render_component(dcd, config, cluster, notes), dcd, config, notes)
    if config.companions:
        objects = render_standalone_companions(dcd, config, cluster) + objects
    return objects


def _carried(objects: list[dict[str, Any]], source: ParsedSource, config: RenderConfig, notes: list[Result]) -> list[dict[str, Any]]:
    """``objects`` with the source's GitOps metadata on them (``renderer.gitops``), unless the setting is off."""
    if not config.carry_metadata:
        return objects
    carried, found = gitops.carry(objects, source.source)
    notes.extend(found)
    return carried


def _as_written(field: str, source: ParsedSource) -> str:
    """A field of a converted v1alpha1 source as the field the user wrote (others as they are)."""
    if source.written_spec is None or not field:
        return field
    from renderer.admission.v1alpha1.paths import dcd_path, dgd_path

    to_written = dcd_path if source.KIND == consts.DCD_KIND else dgd_path
    return to_written(field, source.source.get("spec") or {}, source.written_spec)


# A group's role (``Group.role``).
Role = Literal["bundle", "in-place", "facts"]
BUNDLE: Role = "bundle"
IN_PLACE: Role = "in-place"
FACTS: Role = "facts"


@dataclass(frozen=True)
class Group:
    """The inputs of one origin (a file, an app's build, a KRM item): their output is kept together.

    ``role`` says what the core does with them:

    - ``bundle``: Dynamo sources render; every other object is checked as the API server decodes
      it and passes through (an identical second copy of an object is merged into the first);
    - ``in-place``: the front end writes these inputs back where they are (the KRM function):
      sources render as in a ``bundle`` group, and a kept source is emitted; every other object
      is only claimed (a clash names both), except one whose identity a rendered object holds,
      which the front end settles (it may be last run's copy);
    - ``facts``: cluster facts only (read into the cluster state; never rendered, claimed or
      emitted).
    """

    items: Sequence[Item]
    role: Role = BUNDLE


@dataclass
class Rendered:
    """The output and every result, ready for a front end to emit.

    ``objects`` is the output in order; ``outputs`` the same objects by group (a file's or KRM
    item's output, in the group's own order: what its sources render, then its other objects);
    ``claims`` the identity index, naming the source every object came from
    (``Identities.origin_of``).
    """

    claims: Identities
    objects: list[dict[str, Any]] = field(default_factory=list)
    results: list[Result] = field(default_factory=list)
    outputs: list[list[dict[str, Any]]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not any(r.is_error for r in self.results)


def as_groups(inputs: Iterable[Item] | Iterable[Group]) -> list[Group]:
    """Groups as given, or input objects as the one group of a bundle."""
    given = list(inputs)
    if given and all(isinstance(entry, Group) for entry in given):
        return [entry for entry in given if isinstance(entry, Group)]
    return [Group(tuple(entry for entry in given if isinstance(entry, Item)))]


def render_bundle(
    inputs: Iterable[Item] | Iterable[Group],
    config: RenderConfig,
    default_namespace: str,
    cluster_layers: Sequence[StateLayer] = (),
    mark: Mark | None = None,
) -> Rendered:
    """Render every Dynamo source of a bundle; pass every other object through untouched.

    ``inputs`` are the input objects in order, or grouped by origin (``Group``: a file, a KRM
    item); the groups together are one bundle. Output order: the rendered objects of each
    source in input order (objects shared by several sources, such as a model Service, appear
    once, where first rendered), then every other input object in input order (rendered
    sources are dropped unless ``config.keep_sources``). Past ``config.max_rendered_objects``
    the render stops with one error.

    The cluster state is built from the bundle's own objects over ``cluster_layers`` (a
    cluster-state file, a live lookup). Standalone DCDs also get their companion objects when
    ``config.companions`` is on. Last, every object a rendered pod references is checked
    against the output and the cluster state.

    Two sources of one identity, or two sources rendering different objects of one identity,
    are errors naming both (``renderer.clashes``). ``mark`` (rendered object, its source)
    returns the object as emitted: a front end's ownership marker, applied after the clash check.
    """
    groups = as_groups(inputs)
    out = Rendered(Identities(default_namespace), outputs=[[] for _ in groups])
    for position, obj in stream_groups(groups, config, default_namespace, out.results, cluster_layers, mark, out.claims):
        out.objects.append(obj)
        out.outputs[position].append(obj)
    return out


def stream_bundle(
    inputs: Iterable[Item] | Iterable[Group],
    config: RenderConfig,
    default_namespace: str,
    results: list[Result],
    cluster_layers: Sequence[StateLayer] = (),
    mark: Mark | None = None,
) -> Iterator[dict[str, Any]]:
    """``render_bundle`` as a stream: each output object as soon as it is final, in the same order.

    A front end can write each object out and drop it, so memory does not grow with the output.
    Results are appended to ``results`` as they are found; the reference checks come last, once
    the stream is exhausted (they need every object of the output).
    """
    return (obj for _, obj in stream_groups(as_groups(inputs), config, default_namespace, results, cluster_layers, mark))


def stream_groups(
    groups: Sequence[Group],
    config: RenderConfig,
    default_namespace: str,
    results: list[Result],
    cluster_layers: Sequence[StateLayer] = (),
    mark: Mark | None = None,
    claims: Identities | None = None,
) -> Iterator[tuple[int, dict[str, Any]]]:
    """``stream_bundle`` with each object's group (its position in ``groups``).

    The cluster state is built when this is called, not when the stream starts: from then on
    the core holds the only reference it needs to each group, and lets go of each group once
    it is rendered, so a front end that drops its own references frees the inputs as the
    output grows.
    """
    pending: list[Group | None] = list(groups)
    bundle = StateLayer(BUNDLE_SOURCE, tuple(item.obj for group in groups for item in group.items))
    cluster, state_results = build_cluster_state([bundle, *cluster_layers], default_namespace)
    del bundle
    results.extend(state_results)
    return _stream(pending, config, default_namespace, results, cluster, mark, claims or Identities(default_namespace))


def _stream(
    pending: list[Group | None],
    config: RenderConfig,
    default_namespace: str,
    results: list[Result],
    cluster: ClusterState,
    mark: Mark | None,
    claims: Identities,
) -> Iterator[tuple[int, dict[str, Any]]]:
    """The bundle's output, group by group; ``pending`` is emptied as the groups are rendered."""
    owners: list[tuple[ResourceRef, str, int | None, list[Need]]] = []
    emitted: set[tuple[Kind, str, str]] = set()
    # What rendered objects hold: a hand-written object of one of these in an in-place group is the front end's.
    rendered_identities: set[Identity | None] = set()
    rendered_any = False
    count = 0
    # Namespace-shared objects rendered (or left out), by namespace: one note at the end.
    shared: dict[str, list[str]] = {}
    # (group, object, origin, emit it: False for an in-place group's hand-written object)
    passthrough: list[tuple[int, dict[str, Any], Origin, bool]] = []
    for position in range(len(pending)):
        group, pending[position] = pending[position], None
        if group is None or group.role == FACTS:
            continue
        in_place = group.role == IN_PLACE
        for item in group.items:
            obj = item.obj
            origin = Origin(ResourceRef.of(obj), item.file, item.index)
            source = render_source(item, config, default_namespace, cluster)
            if source is None:
                if in_place:
                    # a hand-written item the caller keeps in place as written: only an identity
                    # no cluster could hold is refused (the rest is the caller's to pass on)
                    refused_item = [r.with_resource(ResourceRef.of(obj)).with_source(item.file, item.index)
                                    for r in apiserver.refused_names_in_place(obj)] if isinstance(obj, dict) else []
                    results.extend(refused_item)
                    if refused_item:
                        continue
                elif _refused_passthrough(obj, item, results):
                    continue
                passthrough.append((position, obj, origin, not in_place))
                continue
            results.extend(source.results)
            if source.needs is not None:
                owners.append((source.needs[0], item.file, item.index, source.needs[1]))
            if source.objects is None:
                continue
            # Two sources of one identity: the cluster could hold only one of them.
            clash = claims.claim_source(obj, origin)
            if clash is not None:
                results.append(clash)
                continue
            rendered_any = True
            for rendered in _admit(source.objects, origin, claims, results, emitted, default_namespace, config, shared):
                count += 1
                if count > config.max_rendered_objects:
                    results.append(too_many_rendered(config.max_rendered_objects))
                    return
                rendered_identities.add(identity_of(rendered, default_namespace))
                yield position, rendered if mark is None else mark(rendered, obj)
            if config.keep_sources:
                passthrough.append((position, obj, origin, True))
        del group
    results.extend(bundle_notes(config, cluster, rendered_any, shared))
    # Every other input object, as it is; one that clashes with another object is an error.
    for position, obj, origin, emit_it in passthrough:
        if not emit_it and identity_of(obj, default_namespace) in rendered_identities:
            continue
        emit, clash = claims.claim(obj, origin, rendered=False)
        if clash is not None:
            results.append(clash)
        if emit and emit_it:
            count += 1
            if count > config.max_rendered_objects:
                results.append(too_many_rendered(config.max_rendered_objects))
                return
            emitted |= object_index((obj,), default_namespace)
            yield position, obj

    # Every ServiceAccount, ConfigMap, Secret, PVC and claim a rendered pod needs: there, or reported.
    for ref, file, index, needs in owners:
        results.extend(r.with_source(file, index) for r in report_missing(ref, needs, emitted, cluster))


def _refused_passthrough(obj: Any, item: Item, results: list[Result]) -> bool:
    """Whether the API server would refuse a hand-written object (the reasons go to ``results``).

    A DynamoGraphDeploymentRequest passes, with a note saying why it is not rendered.
    """
    if is_dgdr(obj):
        results.append(dgdr_note(obj).with_source(item.file, item.index))
        return False
    refused = passthrough_problems(item)
    results.extend(refused)
    return bool(refused)


def passthrough_problems(item: Item) -> list[Result]:
    """Why the API server would refuse a hand-written object that passes through (none: it would take it).

    The one check of every object that is not rendered, so that every front end (``validate``
    on a file without Dynamo objects too) refuses what ``render`` refuses.
    """
    # Anything the API server would not take as an object is an error, never output.
    problem = not_an_object(item.obj)
    if problem is not None:
        return [problem.with_source(item.file, item.index)]
    return [r.with_source(item.file, item.index) for r in apiserver.refused_on_decode(item.obj)]


def _admit(
    objects: list[dict[str, Any]],
    origin: Origin,
    claims: Identities,
    results: list[Result],
    emitted: set[tuple[Kind, str, str]],
    default_namespace: str,
    config: RenderConfig,
    shared: dict[str, list[str]],
) -> Iterator[dict[str, Any]]:
    """The objects not yet rendered, indexed as emitted: where the sources' objects meet.

    An object identical to one another source rendered (the discovery RBAC two DCDs share, a
    model's headless Service) is merged: it appears once, where first rendered. A different
    object of the same identity is a clash naming both sources (``renderer.clashes``).
    A namespace-shared object is left out when ``config.namespace_shared`` is false, but still
    counts as there for the reference check: the application that owns it emits it.
    """
    for obj in objects:
        emit, clash = claims.claim(obj, origin, rendered=True)
        if clash is not None:
            results.append(clash)
            continue
        emitted |= object_index((obj,), default_namespace)
        if emit and is_namespace_shared(obj):
            meta = obj.get("metadata") or {}
            shared.setdefault(str(meta.get("namespace") or default_namespace), []).append(f"{obj.get('kind')}/{meta.get('name')}")
            if config.namespace_shared is False:
                continue
        if emit:
            yield obj


def not_an_object(obj: Any) -> Result | None:
    """Why the API server would refuse ``obj`` as an object, or None.

    A bare scalar, a list or a null (a ``List`` item left empty) is not an object; apiVersion
    and kind must be strings; a name must be a non-empty string (``name: n`` is the YAML 1.1
    boolean false, which no cluster stores as a name).
    Mirrors: k8s.io/apimachinery pkg/runtime/serializer/json (Object 'Kind' is missing),
    pkg/apis/meta/v1 ObjectMeta (name is a string).
    """
    if not isinstance(obj, dict):
        return Result(f"not a Kubernetes object: a bare {describe_kind(obj)} value (expected a mapping with apiVersion, kind and metadata)", code=Code.INPUT)
    ref = ResourceRef.of(obj)
    for key in ("apiVersion", "kind"):
        value = obj.get(key)
        if not isinstance(value, str) or not value:
            got = "missing" if value is None else f"a {describe_kind(value)}"
            return Result(f"{key} must be a non-empty string (got {got})", resource=ref, field=key, code=Code.INPUT)
    metadata = obj.get("metadata")
    name = metadata.get("name") if isinstance(metadata, dict) else None
    if name is not None and (not isinstance(name, str) or not name):
        hint = " (an unquoted y, n, yes, no, on or off is a YAML 1.1 boolean; quote the name)" if isinstance(name, bool) else ""
        shown = {True: "true", False: "false"}.get(name, repr(name)) if not isinstance(name, str) else '""'
        return Result(f"metadata.name must be a non-empty string (got {describe_kind(name)} {shown}){hint}", resource=ref, field="metadata.name", code=Code.INPUT)
    return None
