"""renderer.records behaves as dataclasses does for every feature the project uses.

Each check runs on a record class and on the same declaration made with the standard
``dataclasses`` module, and compares what they do.
"""

from __future__ import annotations

import copy
import dataclasses
import pickle
from typing import Any

import pytest

from renderer import records


def declare(module: Any, frozen: bool = False, slots: bool = False) -> Any:
    @module.dataclass(frozen=frozen, slots=slots)
    class Point:
        """A point."""

        x: int
        y: int = 0
        tags: list[str] = module.field(default_factory=list)
        note: str = module.field(default="", repr=False, compare=False)

        @property
        def norm(self) -> int:
            return abs(self.x) + abs(self.y)

    return Point


BOTH = pytest.mark.parametrize("frozen", [False, True], ids=["mutable", "frozen"])


@BOTH
def test_construction_repr_and_equality_match_dataclasses(frozen: bool) -> None:
    ours, theirs = declare(records, frozen), declare(dataclasses, frozen)
    for args, kwargs in (((1,), {}), ((1, 2), {}), ((), {"x": 3, "tags": ["a"]}), ((1, 2, ["t"], "n"), {})):
        a, b = ours(*args, **kwargs), theirs(*args, **kwargs)
        assert repr(a).split("(", 1)[1] == repr(b).split("(", 1)[1]
        assert vars(a) == vars(b)
        assert a.norm == b.norm
    assert ours(1, note="a") == ours(1, note="b")  # note is not compared
    assert ours(1) != ours(2)
    assert ours(1).tags is not ours(1).tags  # a fresh default per instance
    assert ours(1).__eq__(theirs(1)) is NotImplemented


@BOTH
def test_argument_errors_match_dataclasses(frozen: bool) -> None:
    ours, theirs = declare(records, frozen), declare(dataclasses, frozen)
    for args, kwargs in (((), {}), ((1, 2, [], "", 5), {}), ((1,), {"x": 2}), ((1,), {"z": 1})):
        with pytest.raises(TypeError):
            theirs(*args, **kwargs)
        with pytest.raises(TypeError):
            ours(*args, **kwargs)


def test_hashing_follows_frozen() -> None:
    frozen = declare(records, frozen=True)
    with pytest.raises(TypeError):
        hash(frozen(1, 2))  # a list field is unhashable, as for a dataclass
    assert declare(records).__hash__ is None
    assert declare(dataclasses).__hash__ is None

    @records.dataclass(frozen=True)
    class Key:
        """Hashable."""

        a: str
        b: int = 0

    assert hash(Key("x", 1)) == hash(Key("x", 1))
    assert {Key("x"), Key("x")} == {Key("x")}


def test_frozen_records_refuse_assignment() -> None:
    point = declare(records, frozen=True)(1)
    with pytest.raises(records.FrozenInstanceError):
        point.x = 2
    with pytest.raises(AttributeError):
        del point.x
    mutable = declare(records)(1)
    mutable.x = 2
    assert mutable.x == 2


@pytest.mark.parametrize("frozen", [False, True])
def test_replace_copy_and_pickle(frozen: bool) -> None:
    point = declare(records, frozen)(1, 2, ["a"], "n")
    moved = records.replace(point, y=5)
    assert (moved.x, moved.y, moved.tags, moved.note) == (1, 5, ["a"], "n") and point.y == 2
    with pytest.raises(TypeError):
        records.replace(point, z=1)
    assert copy.deepcopy(point) == point and copy.deepcopy(point).tags is not point.tags


@records.dataclass(frozen=True, slots=True)
class Amount:
    """An amount (module level, so that pickle finds it)."""

    value: int
    unit: str = ""


def test_slots() -> None:
    amount = Amount(3, "Gi")
    assert not hasattr(amount, "__dict__") and Amount.__slots__ == ("value", "unit")
    assert repr(amount) == "Amount(value=3, unit='Gi')"
    with pytest.raises(records.FrozenInstanceError):
        amount.value = 4
    assert copy.deepcopy(amount) == amount
    assert pickle.loads(pickle.dumps(amount)) == amount
    assert records.replace(amount, unit="Mi") == Amount(3, "Mi")


def test_declaration_errors() -> None:
    with pytest.raises(TypeError):

        @records.dataclass
        class Bad:
            a: int = 0
            b: int

    with pytest.raises(ValueError):
        records.field(default=1, default_factory=list)


def test_own_methods_are_kept() -> None:
    @records.dataclass(frozen=True)
    class Named:
        """Has its own repr."""

        name: str

        def __repr__(self) -> str:
            return f"<{self.name}>"

    assert repr(Named("a")) == "<a>"
