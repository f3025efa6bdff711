"""The KRM function's settings: its functionConfig, in any of the three shapes kpt and kustomize pass.

A ``DynamoRenderConfig`` (the plugin's own settings), the operator's ``OperatorConfiguration``
(operator settings, plugin defaults), or the ``ConfigMap`` that ``kpt fn eval ... -- key=value``
builds (its keys come from the option table, ``plugin.options``). No functionConfig means the
defaults. Every shape resolves through ``plugin.settings``, as every other front end's settings do.

Mirrors: sigs.k8s.io/kustomize cmd/config/docs/api-conventions/functions-spec.md (functionConfig),
kpt pkg/fn (the ConfigMap of ``fn eval`` key=value arguments).
"""

from __future__ import annotations

import json
from typing import Any

from plugin.options import configmap_keys, parse_strict
from plugin.files import PathPolicy
from plugin.settings import RENDER_CONFIG_API_VERSION, RENDER_CONFIG_KIND, Settings, resolve_settings
from renderer import consts
from renderer.operator_config import parse_operator_config
from renderer.results import Code, ResourceRef, Result, describe_kind

# ConfigMap functionConfig (``kpt fn eval ... -- key=value``): key -> (setting path, kind), from
# the option table (a gate is true or false here).
CONFIGMAP_KEYS: dict[str, tuple[tuple[str, ...], str]] = {
    key: (option.setting, "bool" if option.kind == "gate" else option.kind) for key, option in configmap_keys().items()
}


def resolve_function_config(config: Any, base_dir: str = ".") -> tuple[Settings | None, list[Result]]:
    """Settings from a functionConfig: DynamoRenderConfig, OperatorConfiguration or ConfigMap.

    No functionConfig at all means the defaults, as does kpt's empty ``function-input``
    ConfigMap. ``operatorConfigPath`` is resolved against ``base_dir``.
    """
    if config is None:
        return resolve_settings()
    policy = PathPolicy(base=base_dir)
    ref = ResourceRef.of(config)
    if not isinstance(config, dict):
        return None, [Result(f"functionConfig must be an object, got {describe_kind(config)}", field="functionConfig", code=Code.CONFIG)]
    api_version, kind = config.get("apiVersion"), config.get("kind")
    if api_version == RENDER_CONFIG_API_VERSION and kind == RENDER_CONFIG_KIND:
        settings, results = resolve_settings(document=config, policy=policy)
    elif api_version == consts.OPERATOR_CONFIG_API_VERSION and kind == consts.OPERATOR_CONFIG_KIND:
        settings, results = _operator_config_settings(config)
    elif api_version == "v1" and kind == "ConfigMap":
        doc, results = configmap_settings_doc(config)
        settings = None
        if doc is not None:
            settings, problems = resolve_settings(document=doc, policy=policy)
            results.extend(problems)
    else:
        valid = ", ".join(
            (
                f"{RENDER_CONFIG_API_VERSION} {RENDER_CONFIG_KIND}",
                f"{consts.OPERATOR_CONFIG_API_VERSION} {consts.OPERATOR_CONFIG_KIND}",
                "v1 ConfigMap",
            )
        )
        settings, results = None, [Result(f'unsupported functionConfig "{api_version or ""}" "{kind or ""}" (valid: {valid})', field="kind", code=Code.CONFIG)]
    return settings, [r.with_resource(ref) for r in results]


def _operator_config_settings(config: dict[str, Any]) -> tuple[Settings | None, list[Result]]:
    """An OperatorConfiguration as the whole functionConfig: operator settings, plugin defaults.

    Its ``metadata`` (kustomize puts the function annotation there) is not part of the
    operator's document and is left out.
    """
    document = {key: value for key, value in config.items() if key != "metadata"}
    operator, results = parse_operator_config(document)
    if operator is None or any(r.is_error for r in results):
        return None, results
    settings, problems = Settings().with_operator(operator)
    results.extend(problems)
    if any(r.is_error for r in results):
        return None, results
    return settings, results


def configmap_settings_doc(config: dict[str, Any]) -> tuple[dict[str, Any] | None, list[Result]]:
    """A DynamoRenderConfig built from a ConfigMap's ``data`` (``kpt fn eval -- k=v``).

    Values are strings: ``true``/``false`` for switches, comma-separated for ``apiVersions``, and
    ``true``, ``false`` or comma-separated result codes for ``strict``.
    """
    data = config.get("data")
    if data is None:
        data = {}
    if not isinstance(data, dict):
        return None, [Result(f"expected object, got {describe_kind(data)}", field="data", code=Code.CONFIG)]
    spec: dict[str, Any] = {}
    results: list[Result] = []
    for key in sorted(data, key=str):
        value = data[key]
        where = f"data.{key}"
        if key not in CONFIGMAP_KEYS:
            results.append(Result(f'unknown key "{key}" (valid: {", ".join(CONFIGMAP_KEYS)})', field=where, code=Code.CONFIG))
            continue
        path, kind = CONFIGMAP_KEYS[key]
        parsed, problem = _configmap_value(value, kind)
        if problem:
            results.append(Result(problem, field=where, code=Code.CONFIG))
            continue
        target = spec
        for part in path[:-1]:
            target = target.setdefault(part, {})
        target[path[-1]] = parsed
    if results:
        return None, results
    return {"apiVersion": RENDER_CONFIG_API_VERSION, "kind": RENDER_CONFIG_KIND, "spec": spec}, results


def _configmap_value(value: Any, kind: str) -> tuple[Any, str]:
    if kind == "strict":
        parsed, problem = parse_strict(value)
        return parsed, problem
    if kind == "bool":
        if isinstance(value, bool):
            return value, ""
        if isinstance(value, str) and value.lower() in ("true", "false"):
            return value.lower() == "true", ""
        return None, f"expected true or false, got {json.dumps(value) if isinstance(value, str) else describe_kind(value)}"
    if not isinstance(value, str):
        return None, f"expected string, got {describe_kind(value)}"
    if kind == "list":
        return [part.strip() for part in value.split(",") if part.strip()], ""
    return value, ""
