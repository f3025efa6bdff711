"""Record classes: the part of ``dataclasses`` the project uses, without writing code at import time.

``dataclasses.dataclass`` writes the ``__init__``, ``__repr__``, ``__eq__`` and ``__hash__`` of
each class as source text and compiles it while the module is imported (about half a
millisecond a class), and ``dataclasses`` itself loads ``inspect``. Every command starts a fresh
process, so that was about a fifth of a one-DCD render. ``dataclass`` here gives the same
behaviour for what the project uses, with methods shared by every record class and an
``__init__`` written only when a class is first instantiated:

- fields from the class annotations, in order; a default value, or ``field(default=...)``,
  ``field(default_factory=...)``, ``field(repr=False)``, ``field(compare=False)``;
- ``__init__`` taking the fields by position or keyword (a missing or unknown argument is a
  TypeError, as for a dataclass), written on the first instantiation of the class;
- ``__repr__`` (``Name(a=1, b='x')``), ``__eq__`` on the compared fields of the same class,
  ``__hash__`` for frozen classes (unhashable otherwise), unless the class defines its own;
- ``frozen=True``: assigning or deleting a field raises ``FrozenInstanceError``;
- ``slots=True``: the class gets ``__slots__`` for its fields;
- ``replace(record, **changes)``: a copy with some fields changed.

Type checkers treat the decorator as a dataclass transform (PEP 681).

Closed to new features: this module exists only for start-up time (docs/architecture.md,
"Closed modules"). A record that needs more than the list above should be a plain class.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, dataclass_transform, overload

_T = TypeVar("_T")
_MISSING: Any = object()


class FrozenInstanceError(AttributeError):
    """Assignment to a field of a frozen record."""


class Field:
    """One declared field."""

    __slots__ = ("compare", "default", "default_factory", "name", "repr")

    def __init__(self, default: Any = _MISSING, default_factory: Any = _MISSING, repr: bool = True,
                 compare: bool = True) -> None:
        self.name = ""
        self.default = default
        self.default_factory = default_factory
        self.repr = repr
        self.compare = compare


def field(*, default: Any = _MISSING, default_factory: Callable[[], Any] | Any = _MISSING, repr: bool = True,
          compare: bool = True) -> Any:
    """A field's default (a value or a factory), and whether it shows in repr and counts in equality."""
    if default is not _MISSING and default_factory is not _MISSING:
        raise ValueError("cannot specify both default and default_factory")
    return Field(default, default_factory, repr, compare)


def _init(self: Any, *args: Any, **kwargs: Any) -> None:
    """The first ``__init__`` call of a record class: write its own ``__init__``, then use it.

    Only the classes a run instantiates pay for it (a dataclass pays at import for every class);
    the written ``__init__`` is the one ``dataclasses`` would write, as fast and as small.
    """
    cls = type(self).__record_class__
    init = _build_init(cls)
    cls.__init__ = init
    init(self, *args, **kwargs)


def _build_init(cls: Any) -> Any:
    params: list[str] = []
    body: list[str] = []
    namespace: dict[str, Any] = {"_MISSING": _MISSING, "_setattr": object.__setattr__}
    for index, spec in enumerate(cls.__record_fields__):
        name = spec.name
        if spec.default_factory is not _MISSING:
            namespace[f"_factory_{index}"] = spec.default_factory
            params.append(f"{name}=_MISSING")
            value = f"_factory_{index}() if {name} is _MISSING else {name}"
        elif spec.default is not _MISSING:
            namespace[f"_default_{index}"] = spec.default
            params.append(f"{name}=_default_{index}")
            value = name
        else:
            params.append(name)
            value = name
        body.append(f"    _setattr(self, {name!r}, {value})")
    source = f"def __init__(self, {', '.join(params)}):\n" + ("\n".join(body) if body else "    pass") + "\n"
    exec(source, namespace)  # noqa: S102 - our own field names, as dataclasses does
    init = namespace["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    return init


def _repr(self: Any) -> str:
    shown = ", ".join(f"{spec.name}={getattr(self, spec.name)!r}" for spec in type(self).__record_fields__ if spec.repr)
    return f"{type(self).__qualname__}({shown})"


def _compared(self: Any) -> tuple[Any, ...]:
    return tuple(getattr(self, spec.name) for spec in type(self).__record_fields__ if spec.compare)


def _eq(self: Any, other: object) -> Any:
    if other.__class__ is not self.__class__:
        return NotImplemented
    same: bool = _compared(self) == _compared(other)
    return same


def _hash(self: Any) -> int:
    return hash(_compared(self))


def _frozen_setattr(self: Any, name: str, value: Any) -> None:
    if type(self) is self.__record_class__ or name in self.__record_index__:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")
    object.__setattr__(self, name, value)


def _frozen_delattr(self: Any, name: str) -> None:
    if type(self) is self.__record_class__ or name in self.__record_index__:
        raise FrozenInstanceError(f"cannot delete field {name!r}")
    object.__delattr__(self, name)


def _slots_getstate(self: Any) -> list[Any]:
    return [getattr(self, name) for name in type(self).__record_names__]


def _slots_setstate(self: Any, state: list[Any]) -> None:
    for name, value in zip(type(self).__record_names__, state):
        object.__setattr__(self, name, value)


def _process(cls: type[_T], frozen: bool, slots: bool) -> type[_T]:
    specs: list[Field] = []
    for base in reversed(cls.__mro__[1:]):
        specs.extend(getattr(base, "__record_fields__", ()))
    own = cls.__dict__.get("__annotations__", {})
    seen_default = any(s.default is not _MISSING or s.default_factory is not _MISSING for s in specs)
    for name, annotation in own.items():
        if isinstance(annotation, str) and annotation.startswith(("ClassVar", "typing.ClassVar")):
            continue
        value = cls.__dict__.get(name, _MISSING)
        spec = value if isinstance(value, Field) else Field(default=value)
        spec.name = name
        has_default = spec.default is not _MISSING or spec.default_factory is not _MISSING
        if not has_default and seen_default:
            raise TypeError(f"non-default argument {name!r} follows default argument")
        seen_default = seen_default or has_default
        if isinstance(value, Field):
            if spec.default is not _MISSING:
                setattr(cls, name, spec.default)
            else:
                delattr(cls, name)
        specs = [s for s in specs if s.name != name] + [spec]
    names = tuple(spec.name for spec in specs)
    namespace: dict[str, Any] = {
        "__record_fields__": tuple(specs),
        "__record_names__": names,
        "__record_index__": frozenset(names),
        "__record_slots__": slots,
    }
    if slots:
        body = {key: value for key, value in cls.__dict__.items() if key not in ("__dict__", "__weakref__")}
        for name in names:
            body.pop(name, None)
        body["__slots__"] = names
        body["__getstate__"] = _slots_getstate
        body["__setstate__"] = _slots_setstate
        metaclass: Any = type(cls)
        cls = metaclass(cls.__name__, cls.__bases__, body)
    for key, value in namespace.items():
        setattr(cls, key, value)
    cls.__record_class__ = cls  # type: ignore[attr-defined]
    for key, method in (("__init__", _init), ("__repr__", _repr), ("__eq__", _eq)):
        if key not in cls.__dict__:
            setattr(cls, key, method)
    if "__hash__" not in cls.__dict__ or cls.__dict__["__hash__"] is None:
        cls.__hash__ = _hash if frozen else None  # type: ignore[assignment]
    if frozen:
        cls.__setattr__ = _frozen_setattr  # type: ignore[method-assign]
        cls.__delattr__ = _frozen_delattr  # type: ignore[method-assign]
    return cls


@overload
def dataclass(cls: type[_T], /) -> type[_T]: ...


@overload
def dataclass(*, frozen: bool = False, slots: bool = False) -> Callable[[type[_T]], type[_T]]: ...


@dataclass_transform(field_specifiers=(field, Field))
def dataclass(cls: type[_T] | None = None, /, *, frozen: bool = False, slots: bool = False) -> Any:
    """Make ``cls`` a record class (see the module docstring)."""
    if cls is not None:
        return _process(cls, frozen, slots)
    return lambda klass: _process(klass, frozen, slots)


def replace(obj: _T, /, **changes: Any) -> _T:
    """A copy of the record ``obj`` with ``changes`` applied (through its ``__init__``)."""
    values = {spec.name: getattr(obj, spec.name) for spec in type(obj).__record_fields__ if spec.name not in changes}  # type: ignore[attr-defined]
    return type(obj)(**values, **changes)


__all__ = ["Field", "FrozenInstanceError", "dataclass", "field", "replace"]
