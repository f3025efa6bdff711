"""The ``rule`` of ``explain``: which ported Go function wrote each slot of the rendered objects.

One render runs under a profiler (``sys.setprofile``). At each return of a ``renderer``
function, the slots of the dicts and lists it returns that no inner function claimed before are
claimed for the nearest function on the stack whose docstring names what it mirrors
(``Mirrors:``). Code that only copies or re-encodes values is transparent, code that only
validates claims nothing, and the input documents' own containers are the user's.
"""

from __future__ import annotations

import re
import sys
import types
from collections.abc import Callable, Iterator, Sequence
from typing import Any

# A key or an index on the way from an object to one of its slots.
Step = str | int


def _fingerprint(container: Any) -> tuple[Any, ...]:
    """A container's shape and scalar content, to recognise a copy of it."""
    if isinstance(container, dict):
        return ("{", tuple(sorted((k, repr(v)) for k, v in container.items() if not isinstance(v, (dict, list)))), tuple(sorted(k for k, v in container.items() if isinstance(v, (dict, list)))))
    return ("[", tuple(repr(v) if not isinstance(v, (dict, list)) else type(v).__name__ for v in container))


def _containers(value: Any) -> Iterator[Any]:
    """Every dict and list under ``value``, itself included."""
    if isinstance(value, (dict, list)):
        yield value
        for child in value.values() if isinstance(value, dict) else value:
            yield from _containers(child)


class RuleTracer:
    """Which ported Go function wrote each slot of the rendered objects (see the module docstring).

    Copies are transparent: a Go-encoding round trip or a deep copy (``renderer.gocompat``,
    ``copy.deepcopy``) hands each slot of its result the claim of the slot it copied, so the
    rule stays with the code that wrote the value, not with the code that copied it.
    """

    def __init__(self, inputs: Sequence[Any] = ()) -> None:
        self.owner: dict[tuple[int, Step], str] = {}
        # The input documents' own containers are the user's: no rule claims them.
        self.inputs = {id(c) for obj in inputs for c in _containers(obj)}
        self.keep: list[Any] = list(inputs)
        # code, what it does (write, copy, read), the containers it received, the nearest rule
        self.stack: list[tuple[types.CodeType, str, list[Any], str]] = []
        # (self.keep holds every claimed container, so no id is reused)
        self._rules: dict[types.CodeType, str] = {}

    def run(self, render: Callable[[], Any]) -> Any:
        previous = sys.getprofile()
        sys.setprofile(self._profile)
        try:
            return render()
        finally:
            sys.setprofile(previous)

    def _profile(self, frame: types.FrameType, event: str, arg: Any) -> None:
        if event == "call":
            module = frame.f_globals.get("__name__", "")
            code = frame.f_code
            received = [v for v in frame.f_locals.values() if isinstance(v, (dict, list))]
            if module.startswith(_COPIERS) or (module == "copy" and code.co_name == "deepcopy" and frame.f_locals.get("memo") is None):
                self.stack.append((code, "copy", received[:1], ""))
            elif module.startswith(_READERS):
                self.stack.append((code, "read", [], ""))  # validation reads and reports; it writes nothing
            elif module.startswith("renderer."):
                inherited = self.stack[-1][3] if self.stack else ""
                self.stack.append((code, "write", received, self._rule_of(frame) or inherited))
        elif event == "return" and self.stack and self.stack[-1][0] is frame.f_code:
            _, kind, received, rule = self.stack.pop()
            result = arg[0] if isinstance(arg, tuple) and arg else arg
            if not isinstance(result, (dict, list)):
                return
            if kind == "write":
                self._claim(result, rule, received)
            elif kind == "copy" and received:
                self._carry(received[0], result)

    def _rule_of(self, frame: types.FrameType) -> str:
        code = frame.f_code
        if code not in self._rules:
            target: Any = frame.f_globals
            for part in code.co_qualname.split("."):
                target = target.get(part) if isinstance(target, dict) else getattr(target, part, None)
                if target is None:
                    break
            self._rules[code] = _mirrors_reference(getattr(target, "__doc__", None) or "") if target is not None else ""
        return self._rules[code]

    def _claim(self, value: Any, rule: str, received: Sequence[Any] = ()) -> None:
        """Claim the unclaimed slots of a returned structure for ``rule``.

        A new container equal to one the function received (a copy made by plain code) keeps
        the claims of the one it copies.
        """
        pending = [value]
        seen: set[int] = set()
        originals: dict[tuple[Any, ...], Any] | None = None
        while pending:
            container = pending.pop()
            if id(container) in seen:
                continue
            seen.add(id(container))
            children = container.values() if isinstance(container, dict) else container
            pending.extend(child for child in children if isinstance(child, (dict, list)))
            if id(container) in self.inputs:
                continue
            keys = container.keys() if isinstance(container, dict) else range(len(container))
            unclaimed = [key for key in keys if (id(container), key) not in self.owner]
            if not unclaimed or not rule:
                continue
            if originals is None:
                originals = {_fingerprint(c): c for r in received for c in _containers(r) if c is not container}
            original = originals.get(_fingerprint(container))
            for key in unclaimed:
                carried = self.owner.get((id(original), key)) if original is not None else None
                self.owner[(id(container), key)] = carried or rule
            self.keep.append(container)

    def _carry(self, source: Any, copy_: Any) -> None:
        """Give each slot of ``copy_`` the claim of the slot of ``source`` it was copied from."""
        pending = [(source, copy_)]
        while pending:
            old, new = pending.pop()
            if isinstance(old, dict) and isinstance(new, dict):
                pairs: Iterator[tuple[Step, Any, Any]] = ((k, old[k], v) for k, v in new.items() if k in old)
            elif isinstance(old, list) and isinstance(new, list):
                pairs = ((i, a, b) for i, (a, b) in enumerate(zip(old, new)))
            else:
                continue
            self.keep.append(new)
            if id(old) in self.inputs:
                self.inputs.add(id(new))  # a copy of the user's data is still the user's
            for key, old_child, new_child in pairs:
                rule = self.owner.get((id(old), key))
                if rule and (id(new), key) not in self.owner:
                    self.owner[(id(new), key)] = rule
                if isinstance(new_child, (dict, list)):
                    pending.append((old_child, new_child))

    def rules(self, obj: Any) -> dict[tuple[Step, ...], str]:
        """The rule of each leaf of ``obj``: the Mirrors reference of the code that wrote its slot."""
        out: dict[tuple[Step, ...], str] = {}

        def walk(container: Any, steps: tuple[Step, ...], inherited: str) -> None:
            items = container.items() if isinstance(container, dict) else enumerate(container)
            for key, child in items:
                rule = self.owner.get((id(container), key)) or inherited
                if isinstance(child, (dict, list)):
                    walk(child, (*steps, key), rule)
                else:
                    out[(*steps, key)] = rule

        walk(obj, (), "")
        return out


_NOT_A_COPY = object()
# Code that re-encodes, validates or copies values without deciding them: transparent to claims.
_COPIERS = ("renderer.gocompat.", "renderer.model", "renderer.records")
# Code that only validates (CRD rules, validating webhooks): it claims nothing.
_READERS = ("renderer.admission.webhook", "renderer.graph.dgd_webhook")


def _mirrors_reference(doc: str) -> str:
    """``internal/dynamo/graph.go GenerateBasePodSpec`` from a docstring's ``Mirrors:`` text."""
    found = re.search(r"Mirrors:\s*(\S+\.go)\s+(?!and\b)([A-Za-z_][\w.]*)", doc)
    return f"{found.group(1)} {found.group(2).rstrip('.')}" if found else ""
