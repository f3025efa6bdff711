"""Results: the error model shared by every front end.

A ``Result`` has the shape of a KRM functions-spec result (kyaml ``framework.Result``):
severity, message, resource reference, field path, file path and document index.
``RenderError`` is the one expected, user-fixable failure; any other exception is a bug.

Mirrors: sigs.k8s.io/kustomize/kyaml/fn/framework result.go (shape only).
"""

from __future__ import annotations

import enum
from renderer.records import dataclass, replace
from collections.abc import Collection, Mapping
from typing import Any


class Severity(str, enum.Enum):
    """How bad a result is; only ``error`` changes the exit code."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


class Code(str, enum.Enum):
    """Stable rule codes: strict modes, hooks and front ends decide on these, never on message text.

    A message may be reworded at any time; a code names the kind of rule a result reports and
    does not change. Every producer names its code; ``unclassified`` is only the default of a
    producer that has not said (a test keeps the renderer's results free of it).
    """

    SCHEMA = "schema"  # the CRD's structural schema refuses a value: type, enum, bound, pattern, required
    UNKNOWN_FIELD = "unknown-field"  # a field the schema does not know (strict validation refuses it)
    API_SERVER = "api-server"  # the API server's own checks: object metadata, pod rules, objects it refuses
    WEBHOOK = "webhook"  # a CRD CEL rule or one of the operator's validating webhooks
    CONVERSION = "conversion"  # the conversion webhook cannot convert the object
    RENDER = "render"  # the operator's controller would fail to reconcile the object
    UNSUPPORTED = "unsupported"  # a feature not ported yet, or that cannot happen offline (DESIGN decision 7)
    IGNORED = "ignored"  # a field that has no effect where it is written (a warning)
    CLASH = "clash"  # two sources render the same object
    REFERENCE = "reference"  # an object a rendered pod names is missing
    INPUT = "input"  # bytes, YAML, files or cluster-state documents that cannot be read; limits; unwritable outputs
    CONFIG = "config"  # plugin or operator settings
    PRESERVED = "preserved-content"  # a value only a preservation annotation carries takes effect (a warning; an error in validate and under strict)
    NOTE = "note"  # an info note: which default or cluster fact was assumed, what a run rendered or pruned
    NAMESPACE_SHARED = "namespace-shared"  # objects every graph of a namespace shares were rendered or left out
    INCOMPLETE_RELEASE = "incomplete-release"  # the selected operator release profile lacks changes its ledger has open
    UNCLASSIFIED = "unclassified"  # the producer did not say (never expected in output)


@dataclass(frozen=True)
class ResourceRef:
    """Identifies the object a result is about."""

    api_version: str = ""
    kind: str = ""
    name: str = ""
    namespace: str = ""

    @classmethod
    def of(cls, obj: Any) -> ResourceRef:
        """Build a reference from a plain Kubernetes object dict (tolerates junk)."""
        if not isinstance(obj, dict):
            return cls()
        meta = obj.get("metadata")
        meta = meta if isinstance(meta, dict) else {}
        return cls(
            api_version=_str(obj.get("apiVersion")),
            kind=_str(obj.get("kind")),
            name=_str(meta.get("name")),
            namespace=_str(meta.get("namespace")),
        )

    def short(self) -> str:
        """``Kind/name`` (or ``Kind/namespace/name``) for one-line messages."""
        kind = self.kind or "<unknown kind>"
        name = self.name or "<unnamed>"
        return f"{kind}/{name}"


# every character str.splitlines() breaks at
_LINE_BREAKS = str.maketrans(
    {ch: ch.encode("unicode_escape").decode("ascii") for ch in "\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"}
)


def one_line(text: str) -> str:
    """``text`` with every line break escaped, so that one problem prints as one line."""
    return text.translate(_LINE_BREAKS)


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""


@dataclass(frozen=True)
class Result:
    """One problem or note, in the kyaml result shape."""

    message: str
    severity: Severity = Severity.ERROR
    resource: ResourceRef | None = None
    field: str = ""
    file: str = ""
    index: int | None = None
    code: Code = Code.UNCLASSIFIED
    # What to change to fix it, in the project's words, after the operator's own message.
    hint: str = ""

    @property
    def is_error(self) -> bool:
        return self.severity is Severity.ERROR

    def with_source(self, file: str, index: int | None) -> Result:
        """Attach the file path and document index the object came from."""
        return replace(self, file=file or self.file, index=self.index if index is None else index)

    def with_resource(self, resource: ResourceRef) -> Result:
        return replace(self, resource=self.resource or resource)

    def place(self) -> str:
        """Where the result is, without a line number: ``file (doc N)``, ``file`` or nothing.

        The renderer knows only the document index (counted from 0, as the KRM ``file.index``
        counts); a front end that holds the file's text prints ``file:LINE`` instead
        (``plugin.yamlio.lines``). Never ``file:N``, which would read as a line number.
        """
        if not self.file:
            return ""
        return self.file if self.index is None else f"{self.file} (doc {self.index})"

    def line(self) -> str:
        """``file (doc N): [severity] Kind/name field: message`` (the form without line numbers)."""
        return self.line_at(self.place())

    def line_at(self, place: str) -> str:
        """The one-line form with ``place`` (``file:LINE``, ``file (doc N)``, ``file`` or empty) in front."""
        parts: list[str] = []
        if place:
            parts.append(f"{place}:")
        parts.append(f"[{self.severity.value}]")
        if self.resource is not None:
            parts.append(self.resource.short())
        head = " ".join(parts)
        if self.field:
            head = f"{head} {self.field}"
        # one problem, one line: line breaks from user values (names, keys) are escaped
        return f"{head}: {self.text()}{self.code_tag()}".translate(_LINE_BREAKS)

    def text(self) -> str:
        """The message, then the hint that says how to fix it (``; fix: ...``) when there is one."""
        return f"{self.message}; fix: {self.hint}" if self.hint else self.message

    def code_tag(self) -> str:
        """`` [code]`` for a warning or an error: the rule code ``strict`` and the hooks take; empty for notes."""
        if self.severity is Severity.INFO or self.code is Code.UNCLASSIFIED:
            return ""
        return f" [{self.code.value}]"

    def to_krm(self) -> dict[str, Any]:
        """The ``results[]`` entry of a ResourceList (functions spec v1)."""
        out: dict[str, Any] = {"message": self.text(), "severity": self.severity.value}
        if self.severity is not Severity.INFO and self.code is not Code.UNCLASSIFIED:
            out["tags"] = {"code": self.code.value}
        # kpt and kyaml identify the object by apiVersion, kind and name: a partial reference is
        # left out (the message and file still say which document it is).
        if self.resource is not None and self.resource.api_version and self.resource.kind and self.resource.name:
            ref: dict[str, Any] = {}
            if self.resource.api_version:
                ref["apiVersion"] = self.resource.api_version
            if self.resource.kind:
                ref["kind"] = self.resource.kind
            if self.resource.name:
                ref["name"] = self.resource.name
            if self.resource.namespace:
                ref["namespace"] = self.resource.namespace
            out["resourceRef"] = ref
        if self.field and "resourceRef" in out:
            out["field"] = {"path": self.field}
        elif self.field:
            # a field path means nothing to kpt without the object it is in: it goes into the message
            out["message"] = f"{self.field}: {self.text()}"
        if self.file:
            file: dict[str, Any] = {"path": self.file}
            if self.index is not None:
                file["index"] = self.index
            out["file"] = file
        return out

    def __str__(self) -> str:
        return self.line()


def strict(results: list[Result], codes: Collection[Code] | None = None) -> list[Result]:
    """The ``strict`` setting: every warning fails the run like an error (infos stay notes).

    With ``codes``, only the warnings of those rule codes do; the others stay warnings.
    """
    def hardened(r: Result) -> Result:
        note = "strict is on" if codes is None else f"strict is on for {r.code.value}"
        return replace(r, severity=Severity.ERROR, message=f"{r.message} (a warning; {note})")

    return [
        hardened(r) if r.severity is Severity.WARNING and (codes is None or r.code in codes) else r
        for r in results
    ]


class RenderError(Exception):
    """An expected, user-fixable failure with the field path it concerns.

    ``code`` names the rule when the raiser knows it; otherwise the stage that catches the error
    gives its own (``render`` for the controllers, ``conversion`` for the conversion webhook).
    """

    def __init__(self, message: str, field: str = "", code: Code | None = None, hint: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.field = field
        self.code = code
        # what to change to fix it (``Result.hint``)
        self.hint = hint

    def at(self, field: str) -> RenderError:
        """The same error at another field path (a caller that knows where the value was written)."""
        return RenderError(self.message, field, code=self.code, hint=self.hint)

    def to_result(self, resource: ResourceRef | None = None, stage: Code = Code.RENDER) -> Result:
        return Result(message=self.message, field=self.field, resource=resource, code=self.code or stage, hint=self.hint)


def unsupported(field: str, detail: str = "") -> RenderError:
    """The one wording for a feature that is not ported yet (DESIGN decision 7)."""
    message = f"not supported yet: {field}"
    if detail:
        message = f"{message} ({detail})"
    return RenderError(message, field=field, code=Code.UNSUPPORTED)


def field_path(prefix: str, loc: tuple[int | str, ...]) -> str:
    """Join a validation error's ``loc`` (aliases, list indexes) onto a JSON-path prefix.

    ``("podTemplate", "spec", "containers", 0, "image")`` under ``spec`` becomes
    ``spec.podTemplate.spec.containers[0].image``.
    """
    path = prefix
    for part in loc:
        if isinstance(part, int):
            path = f"{path}[{part}]"
        elif path:
            path = f"{path}.{part}"
        else:
            path = str(part)
    return path


# JSON kinds in the order a value is tested (bool before int: a bool is an int in Python)
_JSON_KINDS: tuple[tuple[type, str], ...] = (
    (type(None), "null"),
    (bool, "boolean"),
    (int, "integer"),
    (float, "number"),
    (str, "string"),
    (list, "array"),
    (dict, "object"),
)


def describe_kind(value: Any, names: Mapping[str, str] | None = None) -> str:
    """The JSON kind of a parsed YAML value, for type-mismatch messages.

    ``names`` renames kinds for messages worded in another vocabulary (Go's ``bool``, ``map``).
    """
    for kind_type, kind in _JSON_KINDS:
        if isinstance(value, kind_type):
            return names.get(kind, kind) if names else kind
    return type(value).__name__


def unknown_field_message(name: str) -> str:
    """The message of an unknown field: what strict validation and the operator would each do.

    The policy (docs: Differences from the operator): an unknown field is an error everywhere,
    in the Dynamo spec and in the embedded Kubernetes types, as kubectl and Argo CD validate
    strictly by default; a server-side create without strict validation would drop it.
    """
    return f'unknown field "{name}": the API server would prune this field and the operator would ignore it'


def go_quote(text: str) -> str:
    """Go's ``%q`` / strconv.Quote for a string: double quotes, Go escapes, UTF-8 kept."""
    out = ['"']
    for ch in text:
        code = ord(ch)
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch in _GO_ESCAPES:
            out.append(_GO_ESCAPES[ch])
        elif code < 0x20 or code == 0x7F:
            out.append(f"\\x{code:02x}")
        elif not ch.isprintable() and code > 0x7F:
            out.append(f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


_GO_ESCAPES = {"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v"}
