"""The Argo CD plugin's options: parameters, plugin env and sidecar env, with their precedence.

Every option comes from the option table (``plugin.options``). Values arrive as strings: the
Application's parameters (``ARGOCD_APP_PARAMETERS``, else ``PARAM_<NAME>``), its plugin env
(``ARGOCD_ENV_DYNAMO_RENDER_<NAME>``) and the sidecar's own ``DYNAMO_RENDER_<NAME>``.

Mirrors the consumer side of: argo-cd reposerver/repository/repository.go (getPluginParamEnvs),
pkg/apis/application/v1alpha1/types.go (ApplicationSourcePluginParameters.Environ, escaped).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from renderer.records import dataclass
from typing import Any

from plugin.options import Option, announcement, cmp_parameters, parse_strict
from renderer.results import Code, Result, Severity

APP_ENV_PREFIX = "ARGOCD_ENV_DYNAMO_RENDER_"
SIDECAR_ENV_PREFIX = "DYNAMO_RENDER_"

# The Application's parameters arrive in one environment variable; a few short strings in practice.
MAX_APP_PARAMETERS_BYTES = 1 * 2**20


@dataclass(frozen=True)
class Parameter:
    """One plugin parameter, from the option table (``plugin.options``)."""

    name: str
    option: Option

    @property
    def allowed(self) -> tuple[str, ...]:
        return self.option.allowed

    @property
    def env_suffix(self) -> str:
        return escape_param_name(self.name)

    def announcement(self) -> dict[str, Any]:
        return announcement(self.option)


# plugin.yaml's parameters.static must announce exactly these (a unit test checks it), because
# Argo CD never sends announced defaults: the defaults in the option table are the truth.
PARAMETERS: tuple[Parameter, ...] = tuple(Parameter(o.parameter or "", o) for o in cmp_parameters())
PARAMETERS_BY_NAME = {p.name: p for p in PARAMETERS}

# Read-only facts that ``cmp parameters`` (plugin.yaml parameters.dynamic) announces for the UI.
# They are not settings: a value set for one on an Application is ignored with a warning.
INFO_RESOURCES = "dynamo-resources"
INFO_SETTINGS = "effective-settings"
INFO_PROBLEMS = "problems"
READ_ONLY_NAMES = (INFO_RESOURCES, INFO_SETTINGS, INFO_PROBLEMS)

# Origins of an option value, lowest precedence first.
SIDECAR, APP_ENV, PARAMETER = 1, 2, 3
ORIGIN_NAMES = {SIDECAR: "sidecar environment", APP_ENV: "plugin env", PARAMETER: "parameter"}


@dataclass(frozen=True)
class Value:
    """An option value and where it came from (the label is what the user wrote)."""

    text: str
    origin: int
    label: str


def escape_param_name(name: str) -> str:
    """Argo CD's environment name for a parameter: upper case, anything outside [A-Z0-9_] as ``_``.

    Mirrors: argo-cd pkg/apis/application/v1alpha1/types.go escaped.
    """
    return re.sub(r"[^A-Z0-9_]", "_", name.upper())


def announcements() -> list[dict[str, Any]]:
    """The ``spec.parameters.static`` list of plugin.yaml."""
    return [p.announcement() for p in PARAMETERS]


# ---------------------------------------------------------------------------------------------
# Options


def resolve_options(env: Mapping[str, str]) -> tuple[dict[str, Value], list[Result]]:
    """Every option that is set, from the sidecar env, plugin env and parameters, with problems."""
    results: list[Result] = []
    values: dict[str, Value] = {}
    by_suffix = {p.env_suffix: p for p in PARAMETERS}

    # The sidecar's own DYNAMO_RENDER_* and the Application's plugin env, by name.
    for prefix, origin in ((SIDECAR_ENV_PREFIX, SIDECAR), (APP_ENV_PREFIX, APP_ENV)):
        for key in sorted(env):
            if not key.startswith(prefix):
                continue
            param = by_suffix.get(key[len(prefix):])
            if param is None:
                if origin == SIDECAR:
                    # Only documented names are read from the sidecar's environment: Kubernetes
                    # injects <SERVICE>_SERVICE_HOST, _PORT, ... for every Service in the namespace,
                    # so a Service named dynamo-render must not break every Application.
                    results.append(Result(f"not a dynamo-render setting; ignored (valid: {_valid_env_names(prefix)})",
                                          severity=Severity.INFO, field=key, code=Code.CONFIG))
                else:
                    results.append(Result(f"unknown setting (valid: {_valid_env_names(prefix)})", field=key, code=Code.CONFIG))
                continue
            if env[key] == "":
                continue  # an empty value means the default, as an unset one does
            values[param.name] = Value(env[key], origin, key)

    # Parameters: ARGOCD_APP_PARAMETERS is the canonical form; PARAM_* is read only without it.
    raw = env.get("ARGOCD_APP_PARAMETERS")
    if raw is not None:
        params, problems = _parse_app_parameters(raw)
    else:
        params, problems = _parse_param_env(env)
    results.extend(problems)
    for name, text in params.items():
        if text == "":
            continue  # the UI sends an emptied field as "": the default applies
        values[name] = Value(text, PARAMETER, name)

    for name, value in values.items():
        allowed = PARAMETERS_BY_NAME[name].allowed
        if allowed and value.text not in allowed:
            results.append(Result(f"invalid value {json.dumps(value.text)} (valid: {', '.join(allowed)})", field=value.label, code=Code.CONFIG))
        elif PARAMETERS_BY_NAME[name].option.kind == "strict":
            problem = parse_strict(value.text)[1]
            if problem:
                results.append(Result(problem, field=value.label, code=Code.CONFIG))
    return values, results


def _valid_env_names(prefix: str) -> str:
    return ", ".join(prefix + p.env_suffix for p in PARAMETERS)


def _parse_app_parameters(raw: str) -> tuple[dict[str, str], list[Result]]:
    """ARGOCD_APP_PARAMETERS: ``null`` or a JSON list of ``{name, string | array | map}``."""
    if len(raw) > MAX_APP_PARAMETERS_BYTES:
        return {}, [Result(
            f"larger than the limit of {MAX_APP_PARAMETERS_BYTES // 2**10} KiB for the plugin parameters",
            field="ARGOCD_APP_PARAMETERS", code=Code.CONFIG,
        )]
    try:
        data = json.loads(raw) if raw.strip() else None
    except ValueError as err:
        return {}, [Result(f"not valid JSON: {err}", field="ARGOCD_APP_PARAMETERS", code=Code.CONFIG)]
    except RecursionError:
        return {}, [Result("not valid JSON: nesting is too deep", field="ARGOCD_APP_PARAMETERS", code=Code.CONFIG)]
    if data is None:
        return {}, []
    if not isinstance(data, list):
        return {}, [Result("expected a JSON list of parameters", field="ARGOCD_APP_PARAMETERS", code=Code.CONFIG)]
    values: dict[str, str] = {}
    results: list[Result] = []
    for i, entry in enumerate(data):
        where = f"ARGOCD_APP_PARAMETERS[{i}]"
        if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
            results.append(Result("expected an object with a name", field=where, code=Code.CONFIG))
            continue
        name = entry["name"]
        if name in READ_ONLY_NAMES:
            results.append(_read_only(name))
            continue
        if name not in PARAMETERS_BY_NAME:
            results.append(Result(f"unknown parameter (valid: {', '.join(PARAMETERS_BY_NAME)})", field=name, code=Code.CONFIG))
            continue
        if "array" in entry or "map" in entry:
            got = "array" if "array" in entry else "map"
            results.append(Result(f"must be a string parameter (got {got})", field=name, code=Code.CONFIG))
            continue
        text = entry.get("string", "")
        if not isinstance(text, str):
            results.append(Result("must be a string parameter", field=name, code=Code.CONFIG))
            continue
        values[name] = text
    return values, results


def _read_only(label: str) -> Result:
    return Result("read-only information announced by the plugin, not a setting; its value is ignored",
                  severity=Severity.WARNING, field=label, code=Code.IGNORED)


def _parse_param_env(env: Mapping[str, str]) -> tuple[dict[str, str], list[Result]]:
    """``PARAM_<ESC(name)>`` variables, for runs without ARGOCD_APP_PARAMETERS."""
    by_env = {"PARAM_" + p.env_suffix: p.name for p in PARAMETERS}
    values: dict[str, str] = {}
    results: list[Result] = []
    for key in sorted(env):
        if not key.startswith("PARAM_"):
            continue
        name = by_env.get(key)
        read_only = [n for n in READ_ONLY_NAMES if key == "PARAM_" + escape_param_name(n) or key.startswith("PARAM_" + escape_param_name(n) + "_")]
        if name is None and read_only:
            results.append(_read_only(key))
            continue
        if name is None:
            results.append(Result(f"unknown parameter (valid: {', '.join(sorted(by_env))})", field=key, code=Code.CONFIG))
            continue
        values[name] = env[key]
    return values, results
