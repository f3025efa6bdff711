"""Explicit multinode roles (``roles[]``): operator 1.5.0's rules, and their refusal before it.

Operator 1.5.0 names the two Pod-producing parts of a multinode component explicitly: a
component may list ``roles: [{name: leader}, {name: worker}]`` (each with an optional
``providerOverride``), and the role-scoped provider overrides move there from
``multinode.leader`` / ``multinode.worker``, which the 1.5.0 ``MultinodeSpec`` no longer has
(it keeps ``nodeCount`` only). A component that lists its roles lowers exactly as one that
does not: the role counts still come from ``nodeCount``, and an equivalent explicit list
changes no worker hash.

Under a profile without the change (the reference commit) ``roles`` is refused naming the
release that added it; under 1.5.0 the role fields later releases added (``replicas``,
``podTemplate``) are refused the same way.

Ported from ai-dynamo/dynamo#14419 (v1.5.0), cherry-picked to the release as #14488:
api/v1beta1 ComponentRoleSpec and MultinodeSpec, internal/webhook/validation/shared_v1beta1.go
validateComponentRoles and validateComponentRoleSpec.
"""

from __future__ import annotations

from collections.abc import Callable

from renderer.admission.api import DynamoComponentDeploymentSharedSpec
from renderer.releases import Delta, Release
from renderer.results import Code, Result, unknown_field_message

EXPLICIT_ROLES = Delta(
    "#14419",
    "1.5.0",
    "explicit multinode roles[] (leader, worker) with role-scoped provider overrides; multinode.leader/worker removed",
)

ROLE_LEADER = "leader"
ROLE_WORKER = "worker"
MULTINODE_ROLES: tuple[str, ...] = (ROLE_LEADER, ROLE_WORKER)

# Role fields added after 1.5.0: (JSON name, where the evidence places it).
_LATER_ROLE_FIELDS: tuple[tuple[str, str], ...] = (
    ("replicas", "added after it by ai-dynamo/dynamo#14477"),
    ("podTemplate", "added in 1.6.0 (ai-dynamo/dynamo#14468)"),
)

# Checks one role's providerOverride at its path (the caller's provider rules).
OverrideCheck = Callable[[str], list[Result]]


def refuse_roles(spec: DynamoComponentDeploymentSharedSpec, prefix: str, release: Release) -> list[Result]:
    """``roles`` under a profile that lacks it: refused naming the release that added it.

    Ported from ai-dynamo/dynamo#14419 (v1.5.0): the field does not exist before it.
    """
    if spec.roles is None:
        return []
    return [
        Result(
            f"not in operator {release.name}; added in {EXPLICIT_ROLES.release} "
            f"(ai-dynamo/dynamo{EXPLICIT_ROLES.change}: explicit multinode roles)",
            field=f"{prefix}.roles",
            code=Code.UNKNOWN_FIELD,
        )
    ]


def removed_multinode_roles(spec: DynamoComponentDeploymentSharedSpec, prefix: str) -> list[Result]:
    """``multinode.leader`` / ``multinode.worker`` under 1.5.0: unknown fields, with where they went.

    Ported from ai-dynamo/dynamo#14419 (v1.5.0): MultinodeSpec keeps nodeCount only; the role
    overrides live in roles[name=leader|worker].providerOverride.
    """
    out: list[Result] = []
    if spec.multinode is None:
        return out
    for role in MULTINODE_ROLES:
        if getattr(spec.multinode, role) is not None:
            out.append(
                Result(
                    f"{unknown_field_message(role)}; operator 1.5.0 moved multinode.{role}.providerOverride "
                    f"to roles[name={role}].providerOverride (ai-dynamo/dynamo#14419)",
                    field=f"{prefix}.multinode.{role}",
                    code=Code.UNKNOWN_FIELD,
                )
            )
    return out


def validate_roles(
    spec: DynamoComponentDeploymentSharedSpec, prefix: str, release: Release, check_override: OverrideCheck
) -> list[Result]:
    """The validating webhook's rules on ``roles`` (1.5.0), in its order.

    Roles need a component shape with a role schema (multinode only in 1.5.0); each name is
    ``leader`` or ``worker``, once; both must be listed. A known role's providerOverride goes
    through the caller's provider rules (``check_override``) at its own path. Role fields of
    later releases are refused first, naming the release.

    Ported from ai-dynamo/dynamo#14419 (v1.5.0): internal/webhook/validation/shared_v1beta1.go
    validateComponentRoles, validateComponentRoleSpec (field.NotSupported, field.Duplicate and
    field.Required wording).
    """
    if spec.roles is None:
        return []
    path = f"{prefix}.roles"
    out: list[Result] = []

    def error(message: str, where: str, code: Code = Code.WEBHOOK) -> None:
        out.append(Result(message, field=where, code=code))

    # Fields the 1.5.0 role does not have.
    for i, role in enumerate(spec.roles):
        for name, added in _LATER_ROLE_FIELDS:
            value = role.replicas if name == "replicas" else role.pod_template
            if value is not None:
                error(f"not in operator {release.name}; {added}", f"{path}[{i}].{name}", Code.UNKNOWN_FIELD)

    if spec.multinode is None:
        error(
            "Forbidden: roles are supported only for component shapes that define a role schema; "
            "this release supports multinode components",
            path,
        )
        return out

    # A closed schema: exactly one leader and one worker.
    seen: set[str] = set()
    supported = ", ".join(f'"{name}"' for name in MULTINODE_ROLES)
    for i, role in enumerate(spec.roles):
        role_path = f"{path}[{i}]"
        if role.name not in MULTINODE_ROLES:
            error(f'Unsupported value: "{role.name}": supported values: {supported}', f"{role_path}.name")
            continue
        if role.name in seen:
            error(f'Duplicate value: "{role.name}"', f"{role_path}.name")
        else:
            seen.add(role.name)
        if role.provider_override is not None:
            out.extend(check_override(f"{role_path}.providerOverride"))
    for name in MULTINODE_ROLES:
        if name not in seen:
            error(f'Required value: must contain the "{name}" role', path)
    return out


def hash_roles_dropped(roles: object) -> bool:
    """Whether a written ``roles`` list leaves the worker hash as if it were absent.

    An explicit list that only names the roles says what the implicit layout already is, so
    writing it (or removing it) rolls no worker.

    Ported from ai-dynamo/dynamo#14419 (v1.5.0): internal/dynamo/hash.go (implicit-to-explicit
    migration without a representation-only rollout).
    """
    return isinstance(roles, list) and all(isinstance(role, dict) and set(role) <= {"name"} for role in roles)


__all__ = [
    "EXPLICIT_ROLES",
    "MULTINODE_ROLES",
    "hash_roles_dropped",
    "refuse_roles",
    "removed_multinode_roles",
    "validate_roles",
]
