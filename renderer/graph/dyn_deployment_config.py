"""The legacy ``DYN_DEPLOYMENT_CONFIG`` rewrite of generated DCDs.

When a generated DCD's main container carries ``DYN_DEPLOYMENT_CONFIG`` (from the DGD's
``spec.env`` or the component's own env), the DGD controller reads it as JSON keyed by
component name: a frontend's entry gets ``"port": 8000`` (the whole value is written back
re-encoded), and ``ServiceArgs.workers`` / ``ServiceArgs.resources`` of the component's entry
set unset replicas and overwrite the main container's requests *and* limits.

The JSON is decoded the way Go's ``encoding/json`` decodes it into the operator's types
(field names matched case-insensitively, the first type error reported with Go's wording,
numbers kept as written), and re-encoded as Go does (sorted keys, float64 numbers, HTML-safe
escaping). Syntax errors keep Go's wording only for truncated input.

Mirrors: internal/dynamo/graph.go applyDynDeploymentConfig, getDynDeploymentServiceConfig,
getDynamoDeploymentConfig, setDynamoDeploymentConfig, updateDynDeploymentConfigBytes,
applyDynDeploymentResources, ParseDynDeploymentConfig (types DynDeploymentServiceConfig,
ServiceArgs, Resources).
"""

from __future__ import annotations

import json
import math
from renderer.records import dataclass, field
from typing import Any

from renderer import consts
from renderer.gocompat.gojson import go_json_untyped
from renderer.gocompat.quantity import parse_quantity
from renderer.results import RenderError, go_quote

ENV_NAME = "DYN_DEPLOYMENT_CONFIG"
_FRONTEND = consts.COMPONENT_TYPE_FRONTEND
_GPU = "nvidia.com/gpu"


class _Number(str):
    """A JSON number kept as its source text (Go reports and converts from the literal)."""


class _Object(list[tuple[str, Any]]):
    """A JSON object as its key/value pairs in source order (duplicates kept)."""


class _GoJSONError(Exception):
    pass


@dataclass
class Resources:
    cpu: str | None = None
    memory: str | None = None
    gpu: str | None = None
    custom: dict[str, str] | None = None


@dataclass
class ServiceArgs:
    workers: int | None = None
    resources: Resources | None = None


@dataclass
class ServiceConfig:
    service_args: ServiceArgs | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def apply_dyn_deployment_config(spec: dict[str, Any], component_name: str, component_type: str, env_field: str) -> None:
    """Rewrite a generated DCD spec (a dict, in place) from its ``DYN_DEPLOYMENT_CONFIG``.

    ``env_field`` is the field path reported with an error (where the variable was written).
    Mirrors: internal/dynamo/graph.go applyDynDeploymentConfig
    """
    main = _main_container(spec)
    if main is None:
        return
    env = next((e for e in main.get("env") or [] if e.get("name") == ENV_NAME), None)
    if env is None:
        return
    raw = str(env.get("value") or "")
    is_frontend = component_type == _FRONTEND
    try:
        if is_frontend:
            raw = rewrite_frontend_port(raw, component_name, consts.DYNAMO_SERVICE_PORT)
            env["value"] = raw
        config = parse_dyn_deployment_config(raw)
        service = _service_config(config, component_name, is_frontend)
        if service is None or service.service_args is None:
            return
        args = service.service_args
        if spec.get("replicas") is None and args.workers is not None:
            spec["replicas"] = args.workers
        if args.resources is not None:
            _apply_resources(main, args.resources)
    except _GoJSONError as err:
        raise RenderError(str(err), env_field) from None


def _main_container(spec: dict[str, Any]) -> dict[str, Any] | None:
    """Mirrors: internal/dynamo/v1beta1_helpers.go GetMainContainer."""
    template = spec.get("podTemplate")
    if not isinstance(template, dict):
        return None
    for container in (template.get("spec") or {}).get("containers") or []:
        if container.get("name") == consts.MAIN_CONTAINER_NAME:
            return dict_or_none(container)
    return None


def dict_or_none(value: Any) -> dict[str, Any] | None:
    return value if isinstance(value, dict) else None


def _service_config(
    config: dict[str, ServiceConfig | None] | None, component_name: str, is_frontend: bool
) -> ServiceConfig | None:
    """The component's entry; a frontend falls back to a key equal to "frontend" in any case.

    Go picks among several such keys in map order (at random); different candidates are
    refused here rather than guessed.
    Mirrors: internal/dynamo/graph.go getDynDeploymentServiceConfig
    """
    if config is None:
        return None
    exact = config.get(component_name)
    if exact is not None:
        return exact
    if not is_frontend:
        return None
    keys = [k for k in config if _equal_fold(k, _FRONTEND)]
    candidates = [config[k] for k in keys]
    if any(c != candidates[0] for c in candidates):
        raise _GoJSONError(_ambiguous(keys))
    return candidates[0] if candidates else None


def _ambiguous(keys: list[str]) -> str:
    shown = ", ".join(go_quote(k) for k in keys)
    return (
        f"DYN_DEPLOYMENT_CONFIG has several frontend keys ({shown}) and none equals the component name: "
        "the operator would pick one at random"
    )


def _equal_fold(a: str, b: str) -> bool:
    """Go strings.EqualFold for the ASCII target used here."""
    return len(a) == len(b) and a.lower() == b


def rewrite_frontend_port(raw: str, component_name: str, port: int) -> str:
    """Set ``port`` in the frontend's entry and re-encode the whole value as Go does.

    Mirrors: internal/dynamo/graph.go updateDynDeploymentConfigBytes
    """
    value = _loads(raw)
    if value is None:
        return "null"
    if not isinstance(value, _Object):
        raise _GoJSONError(_type_error(value, "map[string]map[string]interface {}"))
    config: dict[str, dict[str, Any] | None] = {}
    for key, item in value:
        if item is None:
            config[key] = None
        elif isinstance(item, _Object):
            config[key] = {k: _to_any(v) for k, v in item}
        else:
            raise _GoJSONError(_type_error(item, "map[string]interface {}"))
    if component_name in config:
        target_key: str | None = component_name
    else:
        keys = [k for k in config if _equal_fold(k, _FRONTEND)]
        if len(keys) > 1:
            raise _GoJSONError(_ambiguous(keys))
        target_key = keys[0] if keys else None
    if target_key is not None:
        target = config[target_key]
        if target is None:
            raise _GoJSONError(
                f"DYN_DEPLOYMENT_CONFIG entry {go_quote(target_key)} is null: the operator cannot set its port "
                "(its reconcile panics on this input)"
            )
        target["port"] = float(port)
    return go_json_untyped(config)


def parse_dyn_deployment_config(raw: str) -> dict[str, ServiceConfig | None] | None:
    """Decode into the operator's config type (a map of component name to service config).

    Mirrors: internal/dynamo/graph.go ParseDynDeploymentConfig
    """
    value = _loads(raw)
    if value is None:
        return None
    if not isinstance(value, _Object):
        raise _GoJSONError(_type_error(value, "map[string]*dynamo.DynDeploymentServiceConfig"))
    out: dict[str, ServiceConfig | None] = {}
    for key, item in value:
        if item is None:
            out[key] = None
        elif isinstance(item, _Object):
            out[key] = _decode_service_config(item)
        else:
            raise _GoJSONError(_type_error(item, "dynamo.DynDeploymentServiceConfig"))
    return out


# ---------------------------------------------------------------------------------------------
# Go encoding/json decoding into the operator's structs


def _loads(raw: str) -> Any:
    """Parse JSON as Go's scanner accepts it (no NaN/Infinity), numbers kept as text."""

    def constant(name: str) -> Any:
        if name.startswith("-"):
            raise _GoJSONError(f"invalid character '{name[1]}' in numeric literal")
        raise _GoJSONError(f"invalid character '{name[0]}' looking for beginning of value")

    try:
        return json.loads(raw, parse_int=_Number, parse_float=_Number, parse_constant=constant, object_pairs_hook=_Object)
    except json.JSONDecodeError as err:
        if err.pos >= len(raw.rstrip(" \t\r\n")):
            raise _GoJSONError("unexpected end of JSON input") from None
        raise _GoJSONError(f"invalid JSON at offset {err.pos}: {err.msg}") from None


def _kind(value: Any) -> str:
    if isinstance(value, _Object):
        return "object"
    if isinstance(value, list):
        return "array"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, _Number):
        return "number"
    return "string"


def _type_error(value: Any, go_type: str, struct_field: str = "", literal: bool = False) -> str:
    what = _kind(value)
    if literal and isinstance(value, _Number):
        what = f"number {value}"
    target = f"Go struct field {struct_field}" if struct_field else "Go value"
    return f"json: cannot unmarshal {what} into {target} of type {go_type}"


def _fold_match(key: str, names: tuple[str, ...]) -> str | None:
    """Go's field match: the exact JSON name, else a case-insensitive one."""
    if key in names:
        return key
    folded = key.replace("\u017f", "s").replace("\u212a", "k").lower()
    return next((n for n in names if n.lower() == folded), None)


def _decode_service_config(obj: _Object) -> ServiceConfig:
    out = ServiceConfig()
    for key, value in obj:
        if _fold_match(key, ("ServiceArgs",)) is None:
            out.extra[key] = value
            continue
        if value is None:
            continue
        if not isinstance(value, _Object):
            raise _GoJSONError(_type_error(value, "dynamo.ServiceArgs", "DynDeploymentServiceConfig.ServiceArgs"))
        out.service_args = _decode_service_args(value, out.service_args or ServiceArgs())
    return out


def _decode_service_args(obj: _Object, out: ServiceArgs) -> ServiceArgs:
    for key, value in obj:
        name = _fold_match(key, ("workers", "resources"))
        if name is None or value is None:
            continue
        if name == "workers":
            out.workers = _decode_int32(value, "ServiceArgs.ServiceArgs.workers")
        else:
            if not isinstance(value, _Object):
                raise _GoJSONError(_type_error(value, "dynamo.Resources", "ServiceArgs.ServiceArgs.resources"))
            out.resources = _decode_resources(value, out.resources or Resources())
    return out


def _decode_int32(value: Any, struct_field: str) -> int:
    if isinstance(value, _Number):
        text = str(value)
        digits = text[1:] if text.startswith("-") else text
        if digits.isdigit():
            number = int(text)
            if -(2**31) <= number < 2**31:
                return number
    raise _GoJSONError(_type_error(value, "int32", struct_field, literal=True))


def _decode_resources(obj: _Object, out: Resources) -> Resources:
    prefix = "Resources.ServiceArgs.resources"
    for key, value in obj:
        name = _fold_match(key, ("cpu", "memory", "gpu", "custom"))
        if name is None or value is None:
            continue
        if name == "custom":
            if not isinstance(value, _Object):
                raise _GoJSONError(_type_error(value, "map[string]string", f"{prefix}.custom"))
            custom = dict(out.custom or {})
            for custom_key, item in value:
                if item is None:
                    custom[custom_key] = ""
                elif not _is_string(item):
                    raise _GoJSONError(_type_error(item, "string", f"{prefix}.custom"))
                else:
                    custom[custom_key] = item
            out.custom = custom
            continue
        if not _is_string(value):
            raise _GoJSONError(_type_error(value, "string", f"{prefix}.{name}"))
        setattr(out, name, value)
    return out


def _is_string(value: Any) -> bool:
    return isinstance(value, str) and not isinstance(value, _Number)


def _apply_resources(main: dict[str, Any], resources: Resources) -> None:
    """Each given quantity becomes both the request and the limit of the main container.

    Custom resources are applied in sorted order (Go walks its map at random; only which
    invalid quantity is reported first can differ).
    Mirrors: internal/dynamo/graph.go applyDynDeploymentResources
    """
    current = main.get("resources") or {}
    requests = dict(current.get("requests") or {})
    limits = dict(current.get("limits") or {})
    updates: list[tuple[str, str]] = []
    for name, value in (("cpu", resources.cpu), ("memory", resources.memory), (_GPU, resources.gpu)):
        if value:
            updates.append((name, value))
    updates.extend(sorted((resources.custom or {}).items()))
    for name, value in updates:
        try:
            quantity = parse_quantity(value).string()
        except ValueError as err:
            raise _GoJSONError(f"parse resource {name} quantity {go_quote(value)}: {err}") from None
        requests[name] = quantity
        limits[name] = quantity
    updated = {k: v for k, v in current.items() if k not in ("limits", "requests")}
    if limits:
        updated["limits"] = dict(sorted(limits.items()))
    if requests:
        updated["requests"] = dict(sorted(requests.items()))
    if updated or "resources" in main:
        main["resources"] = updated


# ---------------------------------------------------------------------------------------------
# Go encoding/json: decoding into interface{} and marshalling it back


def _to_any(value: Any) -> Any:
    """Decode into Go's interface{}: objects become maps (last duplicate wins), numbers float64."""
    if isinstance(value, _Object):
        return {k: _to_any(v) for k, v in value}
    if isinstance(value, list):
        return [_to_any(v) for v in value]
    if isinstance(value, _Number):
        number = float(str(value))
        if math.isinf(number):
            raise _GoJSONError(f"json: cannot unmarshal number {value} into Go value of type float64")
        return number
    return value
