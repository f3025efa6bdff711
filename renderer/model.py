"""Strict typed models: declared fields, validated the way the core needs, cheap to import.

The Dynamo API types (``renderer.admission.api``, ``renderer.graph.dgd``) and the settings
(``renderer.config``) are declared as classes with annotated fields, aliases and bounds. This
module validates such a declaration with the small set of rules they use, and reports problems
in the shape and wording of pydantic v2 in strict mode (error ``type``, ``loc``, ``msg``,
``input``, ``ctx``), which the callers turn into one-line Results:

- types: ``str``, ``int`` (not ``bool``), ``float`` (an ``int`` is accepted and becomes a
  float), ``bool``, ``Any``, ``Literal[...]`` of strings, ``X | None``, ``int | str``,
  ``list[X]``, ``dict[str, X]`` and nested models (a mapping, or an instance);
- no coercion between types (a ``"1"`` is not an integer);
- bounds: ``ge``/``le`` on numbers, ``min_length``/``max_length``/``pattern`` on strings and
  ``max_length`` on lists (a list that is too long is reported before its items);
- unknown keys: forbidden (an error each), allowed (kept in ``model_extra``) or ignored;
- ``field_validator`` functions that run after a field's own validation.

Declared fields are read from the class when it is created; their annotations are resolved
on the first validation (start-up pays only for the models a run uses). A model that is
``frozen`` refuses attribute assignment; ``model_copy(update=...)`` makes changed copies.

Closed to new features: this module exists only for start-up time (docs/architecture.md,
"Closed modules"). A new API type uses the rules above; a rule it lacks is checked in the
parsing code that needs it, not added here.
"""

from __future__ import annotations

import builtins
import copy
import functools
import operator
import re
import sys
import typing
from collections.abc import Callable
from types import UnionType
from typing import Any, ClassVar, Literal, Self, Union

_MISSING: Any = object()
_FAIL: Any = object()

# A validator: (value, loc, errors, context) -> the validated value, or _FAIL after appending errors.
_Validate = Callable[[Any, tuple[Any, ...], list[dict[str, Any]], Any], Any]


class FieldInfo:
    """One declared field: its default, JSON name and bounds."""

    __slots__ = ("alias", "default", "default_factory", "ge", "le", "max_length", "min_length", "pattern")

    def __init__(
        self,
        default: Any = _MISSING,
        *,
        default_factory: Callable[[], Any] | None = None,
        alias: str | None = None,
        ge: float | None = None,
        le: float | None = None,
        min_length: int | None = None,
        max_length: int | None = None,
        pattern: str | None = None,
    ) -> None:
        self.default = default
        self.default_factory = default_factory
        self.alias = alias
        self.ge = ge
        self.le = le
        self.min_length = min_length
        self.max_length = max_length
        self.pattern = pattern

    @property
    def is_required(self) -> bool:
        return self.default is _MISSING and self.default_factory is None

    def get_default(self) -> Any:
        if self.default_factory is not None:
            return self.default_factory()
        if isinstance(self.default, (list, dict, set)):
            return copy.deepcopy(self.default)
        return self.default


# A field's default, JSON name (``alias``) and bounds, declared as ``name: type = Field(...)``;
# typed loosely so that the declaration type-checks against the field's own type.
Field: Callable[..., Any] = FieldInfo


def ConfigDict(**settings: Any) -> dict[str, Any]:  # noqa: N802 - mirrors the class-level name it fills
    """Model settings: ``extra`` ("forbid", "allow", "ignore"), ``frozen``, ``populate_by_name``,
    ``alias_generator`` (the JSON name of a field declared without an alias).

    ``strict`` and ``defer_build`` are accepted and always in effect.
    """
    return settings


class ValidationInfo:
    """What a ``field_validator`` function may ask about the validation in progress."""

    __slots__ = ("context",)

    def __init__(self, context: Any) -> None:
        self.context = context


class CustomError(Exception):
    """Raised by a ``field_validator`` function: an error of ``error_type`` with ``message`` and ``ctx``."""

    def __init__(self, error_type: str, message: str, ctx: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.error_type = error_type
        self.message = message
        self.ctx = ctx


class ValidationError(ValueError):
    """Every problem found in one validation, as a list of error dictionaries."""

    def __init__(self, title: str, errors: list[dict[str, Any]]) -> None:
        self.title = title
        self._errors = errors
        count = len(errors)
        lines = [f"{count} validation error{'' if count == 1 else 's'} for {title}"]
        for error in errors:
            lines.append(".".join(str(part) for part in error["loc"]))
            lines.append(f"  {error['msg']}")
        super().__init__("\n".join(lines))

    def errors(self, include_url: bool = False) -> list[dict[str, Any]]:
        """The errors: ``type``, ``loc``, ``msg``, ``input`` and, for some types, ``ctx``."""
        return [dict(error) for error in self._errors]


class _FieldValidator:
    __slots__ = ("fields", "function")

    def __init__(self, fields: tuple[str, ...], function: Any) -> None:
        self.fields = fields
        self.function = function


def field_validator(*fields: str) -> Callable[[Any], Any]:
    """Run the decorated classmethod on the named fields after their own validation.

    It receives ``(cls, value)`` or ``(cls, value, info)`` and returns the value to keep, or
    raises ``CustomError``.
    """

    def decorate(function: Any) -> Any:
        return _FieldValidator(fields, function)

    return decorate


class _Compiled:
    __slots__ = ("extra", "fields", "known")

    def __init__(self, fields: list[tuple[str, str, str | None, _Validate, FieldInfo, tuple[Any, ...]]],
                 known: frozenset[str], extra: str) -> None:
        self.fields = fields
        self.known = known
        self.extra = extra


class BaseModel:
    """A model: annotated class attributes are its fields; see the module docstring."""

    model_config: ClassVar[dict[str, Any]] = {}
    model_fields: ClassVar[dict[str, FieldInfo]] = {}
    _model_validators: ClassVar[dict[str, tuple[Any, ...]]] = {}
    _model_compiled: ClassVar[_Compiled | None] = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        fields = dict(cls.model_fields)
        validators = {name: list(functions) for name, functions in cls._model_validators.items()}
        for name, annotation in cls.__dict__.get("__annotations__", {}).items():
            if name.startswith("_") or name in ("model_config", "model_fields") or "ClassVar" in str(annotation):
                continue
            value = cls.__dict__.get(name, _MISSING)
            info = value if isinstance(value, FieldInfo) else FieldInfo(default=value)
            if info.alias is None and "alias_generator" in cls.model_config:
                info.alias = cls.model_config["alias_generator"](name)
            fields[name] = info
            if name in cls.__dict__:
                delattr(cls, name)
        for name, value in list(cls.__dict__.items()):
            if isinstance(value, _FieldValidator):
                function = value.function.__func__ if isinstance(value.function, classmethod) else value.function
                for field_name in value.fields:
                    validators.setdefault(field_name, []).append(function)
                delattr(cls, name)
        cls.model_fields = fields
        cls._model_validators = {name: tuple(functions) for name, functions in validators.items()}
        cls._model_compiled = None
        if cls.model_config.get("frozen"):
            cls.__hash__ = BaseModel._frozen_hash  # type: ignore[method-assign,assignment]

    # -- construction ------------------------------------------------------------------------

    def __init__(self, **data: Any) -> None:
        errors: list[dict[str, Any]] = []
        values = _fill(type(self), data, (), errors, None)
        if errors:
            raise ValidationError(type(self).__name__, errors)
        self.__dict__.update(values)

    @classmethod
    def model_validate(cls, obj: Any, *, context: Any = None) -> Self:
        """Validate ``obj`` (a mapping, or an instance, returned as is); raises ValidationError."""
        errors: list[dict[str, Any]] = []
        out = _validate_model(cls, obj, (), errors, context)
        if errors:
            raise ValidationError(cls.__name__, errors)
        result: Self = out
        return result

    # -- use ---------------------------------------------------------------------------------

    @property
    def model_extra(self) -> dict[str, Any] | None:
        """Unknown keys kept (``extra="allow"``), in input order; None for other models."""
        extra: dict[str, Any] | None = self.__dict__.get("__model_extra__")
        return extra

    @property
    def model_fields_set(self) -> set[str]:
        """The names of the fields the input gave (not defaulted), and of those a copy updated."""
        given: set[str] = self.__dict__.get("__model_fields_set__", set())
        return given

    def model_copy(self, *, update: dict[str, Any] | None = None, deep: bool = False) -> Self:
        """A copy (deep on request) with ``update`` applied unvalidated, as pydantic does."""
        out = type(self).__new__(type(self))
        values = copy.deepcopy(self.__dict__) if deep else dict(self.__dict__)
        if update:
            values.update(update)
            values["__model_fields_set__"] = self.model_fields_set | set(update)
        out.__dict__.update(values)
        return out

    def model_dump(self, *, by_alias: bool = False, exclude_none: bool = False) -> dict[str, Any]:
        """The fields as plain data (nested models too), in declaration order, then unknown keys."""
        out: dict[str, Any] = {}
        values = self.__dict__
        for name, info in type(self).model_fields.items():
            value = values[name]
            if value is None and exclude_none:
                continue
            out[info.alias if by_alias and info.alias else name] = _dump(value, by_alias, exclude_none)
        for key, value in (self.model_extra or {}).items():
            out[key] = _dump(value, by_alias, exclude_none)
        return out

    def __setattr__(self, name: str, value: Any) -> None:
        if type(self).model_config.get("frozen"):
            raise TypeError(f"{type(self).__name__} is frozen: use model_copy(update=...)")
        object.__setattr__(self, name, value)

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return all(self.__dict__[name] == other.__dict__[name] for name in type(self).model_fields) and (
            self.model_extra == other.model_extra
        )

    __hash__ = None  # type: ignore[assignment]

    def _frozen_hash(self) -> int:
        return hash((type(self), *(self.__dict__[name] for name in type(self).model_fields)))

    def __repr__(self) -> str:
        items = [(name, self.__dict__[name]) for name in type(self).model_fields]
        items += list((self.model_extra or {}).items())
        shown = ", ".join(f"{name}={value!r}" for name, value in items)
        return f"{type(self).__name__}({shown})"


def _dump(value: Any, by_alias: bool, exclude_none: bool) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(by_alias=by_alias, exclude_none=exclude_none)
    if isinstance(value, list):
        return [_dump(item, by_alias, exclude_none) for item in value]
    if isinstance(value, dict):
        return {key: _dump(item, by_alias, exclude_none) for key, item in value.items()}
    return value


# ---------------------------------------------------------------------------------------------
# Validation


def _error(errors: list[dict[str, Any]], kind: str, loc: tuple[Any, ...], msg: str, value: Any,
           ctx: dict[str, Any] | None = None) -> Any:
    error: dict[str, Any] = {"type": kind, "loc": loc, "msg": msg, "input": value}
    if ctx is not None:
        error["ctx"] = ctx
    errors.append(error)
    return _FAIL


def _validate_model(cls: type[BaseModel], value: Any, loc: tuple[Any, ...], errors: list[dict[str, Any]],
                    context: Any) -> Any:
    if isinstance(value, cls):
        return value
    if not isinstance(value, dict):
        name = cls.__name__
        return _error(errors, "model_type", loc, f"Input should be a valid dictionary or instance of {name}", value,
                      {"class_name": name})
    before = len(errors)
    values = _fill(cls, value, loc, errors, context)
    if len(errors) > before:
        return _FAIL
    out = cls.__new__(cls)
    out.__dict__.update(values)
    return out


def _fill(cls: type[BaseModel], data: dict[str, Any], loc: tuple[Any, ...], errors: list[dict[str, Any]],
          context: Any) -> dict[str, Any]:
    compiled = cls._model_compiled or _compile(cls)
    values: dict[str, Any] = {}
    given: set[str] = set()
    for name, key, other_key, validate, info, after in compiled.fields:
        if key in data:
            raw = data[key]
        elif other_key is not None and other_key in data:
            raw = data[other_key]
        elif info.is_required:
            _error(errors, "missing", (*loc, key), "Field required", data)
            continue
        else:
            values[name] = info.get_default()
            continue
        where = (*loc, key)
        given.add(name)
        result = validate(raw, where, errors, context)
        if result is _FAIL:
            continue
        for function in after:
            try:
                if function.__code__.co_argcount >= 3:
                    result = function(cls, result, ValidationInfo(context))
                else:
                    result = function(cls, result)
            except CustomError as err:
                result = _error(errors, err.error_type, where, err.message.format(**(err.ctx or {})), raw, err.ctx)
                break
        if result is not _FAIL:
            values[name] = result
    if compiled.extra != "ignore":
        extra = {key: item for key, item in data.items() if key not in compiled.known}
        if compiled.extra == "forbid":
            for key, item in extra.items():
                _error(errors, "extra_forbidden", (*loc, key), "Extra inputs are not permitted", item)
        else:
            values["__model_extra__"] = extra
    values["__model_fields_set__"] = given
    return values


# Annotation text -> type, per module (the same few annotations recur across models).
_ANNOTATIONS: dict[tuple[str, str], Any] = {}


def field_type(cls: type[BaseModel], name: str) -> Any:
    """The declared type of field ``name`` of ``cls`` (its annotation, evaluated once per module)."""
    return _annotation(cls, name)


def _annotation(cls: type[BaseModel], name: str) -> Any:
    """The type of field ``name``, from the annotation of the class that declares it."""
    owner = next(k for k in cls.__mro__ if name in k.__dict__.get("__annotations__", {}))
    text = owner.__dict__["__annotations__"][name]
    if not isinstance(text, str):
        return text
    key = (owner.__module__, text)
    found = _ANNOTATIONS.get(key, _MISSING)
    if found is _MISSING:
        found = _ANNOTATIONS[key] = _evaluate(text, vars(sys.modules[owner.__module__]))
    return found


def _evaluate(text: str, namespace: dict[str, Any]) -> Any:
    """An annotation's text as a type: ``A | B`` part by part, names looked up, the rest evaluated."""
    parts, depth, start = [], 0, 0
    for index, char in enumerate(text):
        depth += (char == "[") - (char == "]")
        if char == "|" and depth == 0:
            parts.append(text[start:index].strip())
            start = index + 1
    parts.append(text[start:].strip())
    if len(parts) > 1:
        return functools.reduce(operator.or_, (_evaluate(part, namespace) for part in parts))
    if text == "None":
        return type(None)
    if text.isidentifier():
        return namespace[text] if text in namespace else getattr(builtins, text)
    return eval(text, namespace)  # noqa: S307 - the text of one of our own annotations, as typing.get_type_hints does


def _compile(cls: type[BaseModel]) -> _Compiled:
    hints = {name: _annotation(cls, name) for name in cls.model_fields}
    by_name = bool(cls.model_config.get("populate_by_name"))
    fields = []
    known: set[str] = set()
    for name, info in cls.model_fields.items():
        key = info.alias or name
        other = name if by_name and info.alias else None
        known.add(key)
        if other is not None:
            known.add(other)
        validate = _validator(hints[name], info)
        fields.append((name, key, other, validate, info, cls._model_validators.get(name, ())))
    compiled = _Compiled(fields, frozenset(known), cls.model_config.get("extra", "ignore"))
    cls._model_compiled = compiled
    return compiled


def _number_text(value: float) -> str:
    return str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)


def _validator(annotation: Any, info: FieldInfo | None = None) -> _Validate:
    """The validator of one annotation, with ``info``'s bounds applied to its non-None type."""
    origin = typing.get_origin(annotation)
    if origin is Union or origin is UnionType:
        members = typing.get_args(annotation)
        if type(None) in members:
            rest = tuple(m for m in members if m is not type(None))
            inner = _validator(rest[0] if len(rest) == 1 else Union[rest], info)  # noqa: UP007 - built at run time

            def optional(value: Any, loc: tuple[Any, ...], errors: list[dict[str, Any]], context: Any) -> Any:
                return None if value is None else inner(value, loc, errors, context)

            return optional
        if info is not None and _has_bounds(info):
            raise TypeError(f"bounds on a union are not supported: {annotation}")
        choices = [(getattr(m, "__name__", str(m)), _validator(m)) for m in members]

        def union(value: Any, loc: tuple[Any, ...], errors: list[dict[str, Any]], context: Any) -> Any:
            found: list[dict[str, Any]] = []
            for tag, choice in choices:
                attempt: list[dict[str, Any]] = []
                result = choice(value, (*loc, tag), attempt, context)
                if result is not _FAIL:
                    return result
                found.extend(attempt)
            errors.extend(found)
            return _FAIL

        return union
    if annotation is Any:
        return lambda value, loc, errors, context: value
    if origin is Literal:
        allowed = typing.get_args(annotation)
        reprs = [repr(a) for a in allowed]
        expected = reprs[0] if len(reprs) == 1 else ", ".join(reprs[:-1]) + " or " + reprs[-1]

        def literal(value: Any, loc: tuple[Any, ...], errors: list[dict[str, Any]], context: Any) -> Any:
            if isinstance(value, str) and value in allowed:
                return value
            return _error(errors, "literal_error", loc, f"Input should be {expected}", value, {"expected": expected})

        return literal
    if origin is list:
        (item_type,) = typing.get_args(annotation)
        item = _validator(item_type)
        max_length = info.max_length if info is not None else None

        def list_(value: Any, loc: tuple[Any, ...], errors: list[dict[str, Any]], context: Any) -> Any:
            if not isinstance(value, list):
                return _error(errors, "list_type", loc, "Input should be a valid list", value)
            if max_length is not None and len(value) > max_length:
                return _error(
                    errors, "too_long", loc,
                    f"List should have at most {max_length} item{'' if max_length == 1 else 's'} after validation, "
                    f"not {len(value)}",
                    value, {"field_type": "List", "max_length": max_length, "actual_length": len(value)},
                )
            out = []
            failed = False
            for index, element in enumerate(value):
                result = item(element, (*loc, index), errors, context)
                failed = failed or result is _FAIL
                out.append(result)
            return _FAIL if failed else out

        return list_
    if origin is dict:
        key_type, value_type = typing.get_args(annotation)
        if key_type is not str:
            raise TypeError(f"only str keys are supported: {annotation}")
        element = _validator(value_type)
        any_value = value_type is Any

        def dict_(value: Any, loc: tuple[Any, ...], errors: list[dict[str, Any]], context: Any) -> Any:
            if not isinstance(value, dict):
                return _error(errors, "dict_type", loc, "Input should be a valid dictionary", value)
            out = {}
            failed = False
            for key, item in value.items():
                if not isinstance(key, str):
                    failed = True
                    _error(errors, "string_type", (*loc, key, "[key]"), "Input should be a valid string", key)
                result = item if any_value else element(item, (*loc, key), errors, context)
                failed = failed or result is _FAIL
                out[key] = result
            return _FAIL if failed else out

        return dict_
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        model = annotation
        return lambda value, loc, errors, context: _validate_model(model, value, loc, errors, context)
    if annotation is str:
        return _string(info)
    if annotation is bool:

        def bool_(value: Any, loc: tuple[Any, ...], errors: list[dict[str, Any]], context: Any) -> Any:
            if isinstance(value, bool):
                return value
            return _error(errors, "bool_type", loc, "Input should be a valid boolean", value)

        return bool_
    if annotation is int or annotation is float:
        return _number(annotation, info)
    raise TypeError(f"unsupported field type: {annotation}")


def _has_bounds(info: FieldInfo) -> bool:
    return any(x is not None for x in (info.ge, info.le, info.min_length, info.max_length, info.pattern))


def _string(info: FieldInfo | None) -> _Validate:
    min_length = info.min_length if info is not None else None
    max_length = info.max_length if info is not None else None
    pattern = info.pattern if info is not None else None
    # Patterns are searched, and "$" ends the text only (not before a final newline).
    compiled = re.compile(pattern[:-1] + r"\Z" if pattern.endswith("$") and not pattern.endswith("\\$") else pattern) \
        if pattern is not None else None

    def string(value: Any, loc: tuple[Any, ...], errors: list[dict[str, Any]], context: Any) -> Any:
        if not isinstance(value, str):
            return _error(errors, "string_type", loc, "Input should be a valid string", value)
        if min_length is not None and len(value) < min_length:
            return _error(errors, "string_too_short", loc,
                          f"String should have at least {min_length} character{'' if min_length == 1 else 's'}",
                          value, {"min_length": min_length})
        if max_length is not None and len(value) > max_length:
            return _error(errors, "string_too_long", loc,
                          f"String should have at most {max_length} character{'' if max_length == 1 else 's'}",
                          value, {"max_length": max_length})
        if compiled is not None and compiled.search(value) is None:
            return _error(errors, "string_pattern_mismatch", loc, f"String should match pattern '{pattern}'", value,
                          {"pattern": pattern})
        return value

    return string


def _number(kind: type, info: FieldInfo | None) -> _Validate:
    is_float = kind is float
    ge = info.ge if info is not None else None
    le = info.le if info is not None else None
    if is_float:
        ge = float(ge) if ge is not None else None
        le = float(le) if le is not None else None
    type_error = ("float_type", "Input should be a valid number") if is_float else ("int_type", "Input should be a valid integer")

    def validate(value: Any, loc: tuple[Any, ...], errors: list[dict[str, Any]], context: Any) -> Any:
        if isinstance(value, bool) or not isinstance(value, (int, float) if is_float else int):
            return _error(errors, type_error[0], loc, type_error[1], value)
        number = float(value) if is_float else value
        if le is not None and not number <= le:
            return _error(errors, "less_than_equal", loc, f"Input should be less than or equal to {_number_text(le)}",
                          value, {"le": le})
        if ge is not None and not number >= ge:
            return _error(errors, "greater_than_equal", loc,
                          f"Input should be greater than or equal to {_number_text(ge)}", value, {"ge": ge})
        return number

    return validate
