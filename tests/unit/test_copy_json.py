"""``renderer.gocompat.merge.copy_json``: an independent deep copy of a JSON-shaped tree."""

from __future__ import annotations

import copy
from decimal import Decimal
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from renderer.gocompat.merge import copy_json

json_trees = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=5)),
    lambda children: st.one_of(st.lists(children, max_size=4), st.dictionaries(st.text(max_size=5), children, max_size=4)),
    max_leaves=30,
)


@given(json_trees)
def test_copy_equals_deepcopy(tree: Any) -> None:
    assert copy_json(tree) == copy.deepcopy(tree) == tree


def test_copy_shares_no_container() -> None:
    shared = {"name": "x"}
    tree = {"a": [shared, shared], "b": {"c": [1, [2]]}}
    copied = copy_json(tree)
    copied["a"][0]["name"] = "y"
    copied["b"]["c"][1].append(3)
    assert tree == {"a": [{"name": "x"}, {"name": "x"}], "b": {"c": [1, [2]]}}
    assert copied["a"][1]["name"] == "x"  # a sub-tree seen twice is copied twice


def test_other_types_go_through_deepcopy() -> None:
    value: dict[str, Any] = {"set": {1, 2}, "number": Decimal("1.5"), "pair": (1, [2])}
    copied = copy_json(value)
    assert copied == value
    assert copied["set"] is not value["set"]
    assert copied["pair"][1] is not value["pair"][1]
