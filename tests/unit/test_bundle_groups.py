"""The core owns the whole bundle: groups by origin, keepSources, the object limit and the notes, once.

``render_bundle`` takes the input objects grouped by origin (a file, a KRM item) and returns each
group's output; the groups are one bundle, so an object two groups' sources render is emitted
once, in the first group, and a clash between groups names both.
"""

from __future__ import annotations

from typing import Any

from renderer.bundle import BUNDLE, FACTS, IN_PLACE, Group, Item, render_bundle
from renderer.config import RenderConfig
from renderer.records import replace
from renderer.results import Code
from tests.builders import IMAGE, dcd

NAMESPACE = "llm"


def configmap(name: str, value: str = "1") -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": NAMESPACE}, "data": {"a": value}}


def dgd(name: str) -> dict[str, Any]:
    component = {"name": "frontend", "type": "frontend", "podTemplate": {"spec": {"containers": [{"name": "main", "image": IMAGE}]}}}
    return {"apiVersion": "nvidia.com/v1beta1", "kind": "DynamoGraphDeployment", "metadata": {"name": name, "namespace": NAMESPACE},
            "spec": {"components": [component]}}


def names(objects: list[dict[str, Any]]) -> list[str]:
    return [f"{o['kind']}/{o['metadata']['name']}" for o in objects]


def two_files() -> list[Group]:
    """Two files, each a graph and a ConfigMap: both graphs render the namespace's planner RBAC."""
    return [
        Group((Item(dgd("alpha"), "a.yaml", 0), Item(configmap("settings"), "a.yaml", 1))),
        Group((Item(dgd("beta"), "b.yaml", 0), Item(configmap("more"), "b.yaml", 1))),
    ]


def test_each_group_gets_its_output_and_shared_objects_go_to_the_first() -> None:
    rendered = render_bundle(two_files(), RenderConfig(), NAMESPACE)
    assert rendered.ok, [r.line() for r in rendered.results]
    first, second = (names(output) for output in rendered.outputs)
    # each file: what its sources render, then its other objects
    assert "Deployment/alpha-frontend" in first and first[-1] == "ConfigMap/settings"
    assert "Deployment/beta-frontend" in second and second[-1] == "ConfigMap/more"
    # the planner RBAC both graphs render is the first file's, once
    planner = [n for n in first if "planner" in n]
    assert planner and not any("planner" in n for n in second)
    assert not set(first) & set(second)
    # the flat stream is every group's output: rendered objects first, then the passed-through ones
    assert sorted(names(rendered.objects)) == sorted(first + second)
    assert names(rendered.objects)[-2:] == ["ConfigMap/settings", "ConfigMap/more"]


def test_the_same_objects_as_one_group() -> None:
    grouped = render_bundle(two_files(), RenderConfig(), NAMESPACE)
    flat = render_bundle([item for group in two_files() for item in group.items], RenderConfig(), NAMESPACE)
    assert grouped.objects == flat.objects
    assert grouped.results == flat.results


def test_whole_bundle_notes_come_once() -> None:
    rendered = render_bundle(two_files(), RenderConfig(), NAMESPACE)
    lines = [r.message for r in rendered.results]
    assert len(lines) == len(set(lines)), lines
    assert sum("assumed the operator Helm chart defaults" in line for line in lines) == 1
    assert sum(r.code is Code.NAMESPACE_SHARED for r in rendered.results) == 1


def test_a_clash_across_groups_names_both_files() -> None:
    groups = [Group((Item(configmap("x", "1"), "a.yaml", 0),)), Group((Item(configmap("x", "2"), "b.yaml", 3),))]
    rendered = render_bundle(groups, RenderConfig(), NAMESPACE)
    clashes = [r for r in rendered.results if r.code is Code.CLASH]
    assert len(clashes) == 1 and "(a.yaml, doc 0)" in clashes[0].message and clashes[0].file == "b.yaml" and clashes[0].index == 3
    # an identical copy is merged into the first
    same = render_bundle([Group((Item(configmap("x"), "a.yaml", 0),)), Group((Item(configmap("x"), "b.yaml", 0),))], RenderConfig(), NAMESPACE)
    assert same.ok and [len(o) for o in same.outputs] == [1, 0]


def test_keep_sources_is_the_core_s() -> None:
    source = dcd("alpha", type="frontend")
    dropped = render_bundle([Item(source)], RenderConfig(), NAMESPACE)
    kept = render_bundle([Item(source)], RenderConfig(keep_sources=True), NAMESPACE)
    assert not any(obj is source for obj in dropped.objects)
    assert kept.objects[-1] is source and kept.objects[:-1] == dropped.objects


def test_the_object_limit_is_the_core_s() -> None:
    config = RenderConfig()
    everything = render_bundle(two_files(), config, NAMESPACE)
    count = len(everything.objects)
    assert render_bundle(two_files(), replace(config, max_rendered_objects=count), NAMESPACE).ok
    over = render_bundle(two_files(), replace(config, max_rendered_objects=count - 1), NAMESPACE)
    assert [r.message for r in over.results if r.is_error] == [
        f"the input renders more than {count - 1:,} objects, the limit per run; split it into several runs"
    ]
    assert len(over.objects) == count - 1


def test_roles_in_place_and_facts() -> None:
    """In place: a hand-written object is only claimed, and one of a rendered identity is the front end's; facts: cluster facts only."""
    rendered_name = render_bundle([Item(dcd("alpha", type="frontend"))], RenderConfig(), NAMESPACE).objects[0]
    hand_written = {**rendered_name, "metadata": {**rendered_name["metadata"], "labels": {"mine": "yes"}}}
    bad_labels = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "odd", "namespace": NAMESPACE, "labels": {"a": 1}}}
    groups = [
        Group((Item(dcd("alpha", type="frontend"), "a.yaml", 0),), IN_PLACE),
        Group((Item(hand_written, "b.yaml", 0),), IN_PLACE),
        Group((Item(bad_labels, "c.yaml", 0),), IN_PLACE),
        Group((Item(configmap("facts-only", "1"), "d.yaml", 0),), FACTS),
        Group((Item(configmap("facts-only", "2"), "e.yaml", 0),), BUNDLE),
    ]
    rendered = render_bundle(groups, RenderConfig(), NAMESPACE)
    assert rendered.ok, [r.line() for r in rendered.results]
    assert rendered.outputs[1:4] == [[], [], []]
    assert names(rendered.outputs[4]) == ["ConfigMap/facts-only"]
    # the same bad labels passed through in a bundle group are refused as the API server would
    refused = render_bundle([Item(bad_labels, "c.yaml", 0)], RenderConfig(), NAMESPACE)
    assert not refused.ok
