"""renderer.model: strict typed models with pydantic v2's error types, locations and wording.

The API types and the settings were pydantic models; renderer.model replaced them for start-up
time, and every error the front ends print is built from these error dictionaries. The
expected outcomes below were recorded from pydantic 2.14 (strict mode) on the same
declarations: they are the compatibility target, one case per rule.
"""

from __future__ import annotations

import copy
from typing import Any, Literal

import pytest

from renderer.model import BaseModel, ConfigDict, CustomError, Field, ValidationError, ValidationInfo, field_validator


class Strict(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid", frozen=True, populate_by_name=False, defer_build=True)


class Loose(BaseModel):
    model_config = ConfigDict(strict=True, extra="allow", populate_by_name=True, defer_build=True)


class Nodes(Strict):
    count: int = Field(default=2, alias="nodeCount", ge=2, le=10)


class Spec(Strict):
    memory: int | str | None = Field(default=None, alias="sharedMemorySize")
    weight: float | None = Field(default=None, alias="preferredWeight", ge=0, le=1)
    nodes: Nodes | None = None
    parts: list[Nodes] | None = Field(default=None, max_length=2)
    names: list[str] | None = None
    mode: Literal["a", "b", "c"] = "a"
    label: str | None = Field(default=None, min_length=1, max_length=3, pattern=r"^[a-z]+$")
    tags: dict[str, str] | None = None
    blob: dict[str, Any] | None = None
    size: int | None = None
    flag: bool = False
    name: str
    kind: str | None = None

    @field_validator("kind")
    @classmethod
    def _known_kind(cls, value: str | None, info: ValidationInfo) -> str | None:
        if value == "bad" and not (info.context or {}).get("converted"):
            raise CustomError("literal_error", "unsupported value", {"expected": "'good'"})
        return value


class Server(Loose):
    bind_address: str = Field(default="", alias="bindAddress")
    port: int = 0
    nodes: Nodes = Field(default_factory=Nodes)


# (model, input, "ok" and model_dump(by_alias, exclude_none) and model_extra, or "error" and the
# errors and the first line of the exception's text), as pydantic 2.14 reports them.
EXPECTED: list[tuple[Any, ...]] = [('Spec',
  {'name': 'x', 'sharedMemorySize': True},
  'error',
  [{'type': 'int_type', 'loc': ('sharedMemorySize', 'int'), 'msg': 'Input should be a valid integer', 'input': True},
   {'type': 'string_type', 'loc': ('sharedMemorySize', 'str'), 'msg': 'Input should be a valid string', 'input': True}],
  '2 validation errors for Spec'),
 ('Spec',
  {'name': 'x', 'sharedMemorySize': 1.5, 'preferredWeight': 1},
  'error',
  [{'type': 'int_type', 'loc': ('sharedMemorySize', 'int'), 'msg': 'Input should be a valid integer', 'input': 1.5},
   {'type': 'string_type', 'loc': ('sharedMemorySize', 'str'), 'msg': 'Input should be a valid string', 'input': 1.5}],
  '2 validation errors for Spec'),
 ('Spec',
  {'name': 'x', 'preferredWeight': True, 'size': 2.0, 'nodes': 'x'},
  'error',
  [{'type': 'float_type', 'loc': ('preferredWeight',), 'msg': 'Input should be a valid number', 'input': True},
   {'type': 'model_type',
    'loc': ('nodes',),
    'msg': 'Input should be a valid dictionary or instance of Nodes',
    'input': 'x',
    'ctx': {'class_name': 'Nodes'}},
   {'type': 'int_type', 'loc': ('size',), 'msg': 'Input should be a valid integer', 'input': 2.0}],
  '3 validation errors for Spec'),
 ('Spec',
  {'name': 'x', 'parts': [{'nodeCount': 1}, {}, {'zz': 1}]},
  'error',
  [{'type': 'too_long',
    'loc': ('parts',),
    'msg': 'List should have at most 2 items after validation, not 3',
    'input': [{'nodeCount': 1}, {}, {'zz': 1}],
    'ctx': {'field_type': 'List', 'max_length': 2, 'actual_length': 3}}],
  '1 validation error for Spec'),
 ('Spec',
  {'name': 'x', 'parts': ({},), 'mode': 'd', 'label': '', 'tags': {'a': 1, 2: 'b'}},
  'error',
  [{'type': 'list_type', 'loc': ('parts',), 'msg': 'Input should be a valid list', 'input': ({},)},
   {'type': 'literal_error',
    'loc': ('mode',),
    'msg': "Input should be 'a', 'b' or 'c'",
    'input': 'd',
    'ctx': {'expected': "'a', 'b' or 'c'"}},
   {'type': 'string_too_short',
    'loc': ('label',),
    'msg': 'String should have at least 1 character',
    'input': '',
    'ctx': {'min_length': 1}},
   {'type': 'string_type', 'loc': ('tags', 'a'), 'msg': 'Input should be a valid string', 'input': 1},
   {'type': 'string_type', 'loc': ('tags', 2, '[key]'), 'msg': 'Input should be a valid string', 'input': 2}],
  '5 validation errors for Spec'),
 ('Spec',
  {'name': 'x', 'label': 'abcd'},
  'error',
  [{'type': 'string_too_long',
    'loc': ('label',),
    'msg': 'String should have at most 3 characters',
    'input': 'abcd',
    'ctx': {'max_length': 3}}],
  '1 validation error for Spec'),
 ('Spec',
  {'name': 'x', 'label': 'ab\n'},
  'error',
  [{'type': 'string_pattern_mismatch',
    'loc': ('label',),
    'msg': "String should match pattern '^[a-z]+$'",
    'input': 'ab\n',
    'ctx': {'pattern': '^[a-z]+$'}}],
  '1 validation error for Spec'),
 ('Spec',
  {'name': 'x', 'label': 'AB', 'extra': 1, 'sharedMemorySize': '1Gi'},
  'error',
  [{'type': 'string_pattern_mismatch',
    'loc': ('label',),
    'msg': "String should match pattern '^[a-z]+$'",
    'input': 'AB',
    'ctx': {'pattern': '^[a-z]+$'}},
   {'type': 'extra_forbidden', 'loc': ('extra',), 'msg': 'Extra inputs are not permitted', 'input': 1}],
  '2 validation errors for Spec'),
 ('Spec',
  {'label': 'ab', 'name': 5},
  'error',
  [{'type': 'string_type', 'loc': ('name',), 'msg': 'Input should be a valid string', 'input': 5}],
  '1 validation error for Spec'),
 ('Spec',
  {'label': 'ab', 'count': 5},
  'error',
  [{'type': 'missing', 'loc': ('name',), 'msg': 'Field required', 'input': {'label': 'ab', 'count': 5}},
   {'type': 'extra_forbidden', 'loc': ('count',), 'msg': 'Extra inputs are not permitted', 'input': 5}],
  '2 validation errors for Spec'),
 ('Spec',
  'text',
  'error',
  [{'type': 'model_type',
    'loc': (),
    'msg': 'Input should be a valid dictionary or instance of Spec',
    'input': 'text',
    'ctx': {'class_name': 'Spec'}}],
  '1 validation error for Spec'),
 ('Spec',
  {'name': 'x', 'nodes': {'nodeCount': True}},
  'error',
  [{'type': 'int_type', 'loc': ('nodes', 'nodeCount'), 'msg': 'Input should be a valid integer', 'input': True}],
  '1 validation error for Spec'),
 ('Spec',
  {'name': 'x', 'preferredWeight': 2},
  'error',
  [{'type': 'less_than_equal',
    'loc': ('preferredWeight',),
    'msg': 'Input should be less than or equal to 1',
    'input': 2,
    'ctx': {'le': 1.0}}],
  '1 validation error for Spec'),
 ('Spec',
  {'name': 'x', 'preferredWeight': -0.5},
  'error',
  [{'type': 'greater_than_equal',
    'loc': ('preferredWeight',),
    'msg': 'Input should be greater than or equal to 0',
    'input': -0.5,
    'ctx': {'ge': 0.0}}],
  '1 validation error for Spec'),
 ('Spec',
  {'name': 'x', 'parts': [{'nodeCount': 1}, {'nodeCount': 11, 'q': 1}]},
  'error',
  [{'type': 'greater_than_equal',
    'loc': ('parts', 0, 'nodeCount'),
    'msg': 'Input should be greater than or equal to 2',
    'input': 1,
    'ctx': {'ge': 2}},
   {'type': 'less_than_equal',
    'loc': ('parts', 1, 'nodeCount'),
    'msg': 'Input should be less than or equal to 10',
    'input': 11,
    'ctx': {'le': 10}},
   {'type': 'extra_forbidden', 'loc': ('parts', 1, 'q'), 'msg': 'Extra inputs are not permitted', 'input': 1}],
  '3 validation errors for Spec'),
 ('Spec',
  {'name': 'x', 'names': ['a', 1, None]},
  'error',
  [{'type': 'string_type', 'loc': ('names', 1), 'msg': 'Input should be a valid string', 'input': 1},
   {'type': 'string_type', 'loc': ('names', 2), 'msg': 'Input should be a valid string', 'input': None}],
  '2 validation errors for Spec'),
 ('Spec',
  {'name': 'x', 'kind': 'bad'},
  'error',
  [{'type': 'literal_error',
    'loc': ('kind',),
    'msg': 'unsupported value',
    'input': 'bad',
    'ctx': {'expected': "'good'"}}],
  '1 validation error for Spec'),
 ('Spec',
  {'name': 'x', 'mode': None, 'flag': 1, 'size': None},
  'error',
  [{'type': 'literal_error',
    'loc': ('mode',),
    'msg': "Input should be 'a', 'b' or 'c'",
    'input': None,
    'ctx': {'expected': "'a', 'b' or 'c'"}},
   {'type': 'bool_type', 'loc': ('flag',), 'msg': 'Input should be a valid boolean', 'input': 1}],
  '2 validation errors for Spec'),
 ('Spec',
  {'name': 'x', 'mode': 'b', 'flag': True, 'size': -3, 'sharedMemorySize': 5, 'nodes': {}, 'blob': {'k': [None]}},
  'ok',
  {'sharedMemorySize': 5,
   'nodes': {'nodeCount': 2},
   'mode': 'b',
   'blob': {'k': [None]},
   'size': -3,
   'flag': True,
   'name': 'x'},
  None),
 ('Server',
  {'bindAddress': 'a', 'port': 5, 'zzz': 1, 'nodes': {'nodeCount': 3}},
  'ok',
  {'bindAddress': 'a', 'port': 5, 'nodes': {'nodeCount': 3}, 'zzz': 1},
  {'zzz': 1}),
 ('Server',
  {'bind_address': 'a', 'port': True},
  'error',
  [{'type': 'int_type', 'loc': ('port',), 'msg': 'Input should be a valid integer', 'input': True}],
  '1 validation error for Server'),
 ('Server', {}, 'ok', {'bindAddress': '', 'port': 0, 'nodes': {'nodeCount': 2}}, {})]


MODELS = {"Spec": Spec, "Server": Server}


@pytest.mark.parametrize("case", EXPECTED, ids=[f"{i}-{c[0]}" for i, c in enumerate(EXPECTED)])
def test_outcomes_match_pydantic(case: tuple[Any, ...]) -> None:
    name, data, outcome, detail, last = case
    model = MODELS[name]
    if outcome == "ok":
        value = model.model_validate(copy.deepcopy(data))
        assert value.model_dump(by_alias=True, exclude_none=True) == detail
        assert value.model_extra == last
        return
    with pytest.raises(ValidationError) as raised:
        model.model_validate(copy.deepcopy(data))
    assert [{k: e[k] for k in ("type", "loc", "msg", "input", "ctx") if k in e} for e in raised.value.errors()] == detail
    assert str(raised.value).splitlines()[0] == last


def test_the_validation_context_reaches_field_validators() -> None:
    assert Spec.model_validate({"name": "x", "kind": "bad"}, context={"converted": True}).kind == "bad"


def test_copies_defaults_and_equality() -> None:
    spec = Spec.model_validate({"name": "x", "nodes": {}})
    assert spec.nodes is not None and spec.nodes.count == 2
    assert spec.model_fields_set == {"name", "nodes"}
    changed = spec.model_copy(update={"size": 3})
    assert changed.size == 3 and spec.size is None and changed != spec
    assert changed.model_fields_set == {"name", "nodes", "size"}
    assert spec == Spec.model_validate({"name": "x", "nodes": {}})
    deep = Server().model_copy(deep=True)
    assert deep.nodes is not Server().nodes and deep == Server()
    # Mutable defaults and default factories are per instance.
    first, second = Server(), Server()
    assert first.nodes is not second.nodes
    assert Spec.model_fields["memory"].alias == "sharedMemorySize"


def test_frozen_models_refuse_assignment_and_hash() -> None:
    nodes = Nodes()
    with pytest.raises(TypeError):
        nodes.count = 3  # type: ignore[misc]
    assert hash(nodes) == hash(Nodes())
    server = Server()
    server.port = 8080
    assert server.port == 8080


def test_an_instance_validates_as_itself() -> None:
    nodes = Nodes.model_validate({"nodeCount": 4})
    assert Nodes.model_validate(nodes) is nodes
    assert Spec.model_validate({"name": "x", "nodes": nodes}).nodes is nodes


def test_keyword_construction_validates_by_alias() -> None:
    assert Nodes(nodeCount=5).count == 5
    with pytest.raises(ValidationError):
        Nodes(count=5)  # populate_by_name is off: the field name is an unknown key
    assert Server(bind_address="x").bind_address == "x"  # populate_by_name is on
