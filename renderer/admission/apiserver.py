"""The API server's refusals, checked on every object a DCD or DGD renders to.

The operator derives names, labels and selectors from the source's name, namespace and
component names, and copies the user's pod template into its workloads. Nothing upstream
checks the result before the API server does: a 64-character DCD name gives label values one
character too long, a DCD named ``1abc`` gives a Service name that is not a DNS-1035 label, and
the operator's create call fails at reconcile time. Offline, that failure is a render error on
the rendered object and field, so the output never holds an object the API server refuses for
these rules.

Checked: object names (DNS-1035 label for a Service, DNS-1123 subdomain for the other kinds we
render, except RBAC names, which only need to be path segments), namespaces, labels and
annotations in every ``metadata`` of the object and its pod templates, selectors, and the pod
template rules of renderer.admission.podrules plus volume mounts that name no volume.

Mirrors: k8s.io/apimachinery/pkg/api/validation objectmeta.go ValidateObjectMeta (NameIsDNSSubdomain,
NameIsDNS1035Label for Services), pkg/api/validation/path ValidatePathSegmentName (RBAC),
k8s.io/kubernetes pkg/apis/core/validation ValidatePodTemplateSpec, validateVolumeMounts,
ValidateService (selector).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

from renderer.admission import objectmeta, podrules
from renderer.results import Code, ResourceRef, Result, describe_kind

_DNS1035_LABEL = re.compile(r"[a-z]([-a-z0-9]*[a-z0-9])?")
_RBAC_KINDS = frozenset({"Role", "RoleBinding", "ClusterRole", "ClusterRoleBinding"})
# kind -> paths of the pod templates it embeds
POD_TEMPLATE_PATHS: dict[str, tuple[tuple[str, ...], ...]] = {
    "Deployment": (("spec", "template"),),
    "LeaderWorkerSet": (("spec", "leaderWorkerTemplate", "leaderTemplate"), ("spec", "leaderWorkerTemplate", "workerTemplate")),
}


# Workload API versions whose pod templates the API server validates itself (apps/v1, batch/v1).
_BUILT_IN_WORKLOADS = frozenset({"apps/v1", "batch/v1", "v1"})


def name_problem(kind: str, name: str) -> str | None:
    """Why the API server refuses ``name`` for an object of ``kind``, or None."""
    if kind == "Service":
        if len(name) > objectmeta.DNS1123_LABEL_MAX or not _DNS1035_LABEL.fullmatch(name):
            return 'must be a DNS-1035 label (at most 63 lowercase alphanumerics or "-", starting with a letter)'
        return None
    if kind in _RBAC_KINDS:
        if name in (".", "..") or "/" in name or "%" in name:
            return 'must not be "." or ".." and must not contain "/" or "%"'
        return None
    if len(name) > objectmeta.DNS1123_SUBDOMAIN_MAX or not objectmeta.DNS1123_SUBDOMAIN.fullmatch(name):
        return 'must be a lowercase RFC 1123 subdomain (at most 253 lowercase alphanumerics, "-" or ".")'
    return None


def refused(obj: dict[str, Any]) -> list[Result]:
    """Every problem the API server would refuse ``obj`` for, as errors on the object's fields."""
    kind = str(obj.get("kind", ""))
    ref = ResourceRef.of(obj)
    results: list[Result] = []
    raw_metadata = obj.get("metadata")
    metadata: dict[str, Any] = raw_metadata if isinstance(raw_metadata, dict) else {}
    name = metadata.get("name")
    if isinstance(name, str):
        problem = name_problem(kind, name)
        if problem:
            results.append(Result(f"invalid {kind} name {objectmeta.show(name)}: {problem}", field="metadata.name", code=Code.API_SERVER))
    namespace = metadata.get("namespace")
    if isinstance(namespace, str) and namespace:
        results += objectmeta.validate_namespace(namespace)
    for meta, path in _metadata(obj, ""):
        if isinstance(meta.get("labels"), dict):
            results += objectmeta.validate_labels(meta["labels"], f"{path}labels")
        if isinstance(meta.get("annotations"), dict):
            results += objectmeta.validate_annotations(meta["annotations"], f"{path}annotations")
    spec = obj.get("spec")
    if kind == "Service" and isinstance(spec, dict) and isinstance(spec.get("selector"), dict):
        results += objectmeta.validate_labels(spec["selector"], "spec.selector")
    templates = POD_TEMPLATE_PATHS.get(kind, ())
    for template_path in templates:
        template = _get(obj, template_path)
        if isinstance(template, dict):
            prefix = ".".join(template_path)
            # labels and annotations of the template are checked above with every metadata
            results += podrules.validate({"spec": template.get("spec")}, prefix)
            if obj.get("apiVersion") in _BUILT_IN_WORKLOADS:
                # only the API server's own kinds validate their pod template's quantities; a
                # LeaderWorkerSet or PodCliqueSet is stored as it is (its pods are refused later)
                results += podrules.whole_extended_resources({"spec": template.get("spec")}, prefix)
            results += _mount_references(template.get("spec"), f"{prefix}.spec")
    if not templates:
        for selector, where in podrules.match_labels(spec, "spec"):
            results += objectmeta.validate_labels(selector, where)
    elif isinstance(spec, dict) and isinstance(spec.get("selector"), dict):
        for selector, where in podrules.match_labels(spec["selector"], "spec.selector"):
            results += objectmeta.validate_labels(selector, where)
    return [r.with_resource(ref) for r in results]


# Kinds whose ``data`` the API server decodes as a map of strings (Secret: base64 text; ConfigMap).
_STRING_MAPS: dict[tuple[str, str], tuple[str, ...]] = {
    ("v1", "Secret"): ("data", "stringData"),
    ("v1", "ConfigMap"): ("data", "binaryData"),
}


def refused_on_decode(obj: dict[str, Any]) -> list[Result]:
    """Why the API server refuses a hand-written object as it decodes it: shapes no cluster can store.

    Checked on objects that pass through unchanged (what a DCD renders is checked by
    ``refused``): the kind and apiVersion can name a resource; ``metadata`` is an object; the
    name is valid for its kind (``name_problem``; a Namespace's is a DNS-1123 label) and the
    namespace a DNS-1123 label; labels and annotations are maps of strings with valid keys (and
    label values); a Secret's or ConfigMap's data maps hold strings.
    Mirrors: k8s.io/apimachinery pkg/apis/meta/v1 ObjectMeta (labels, annotations map[string]string),
    objectmeta.go ValidateObjectMeta, k8s.io/api core/v1 Secret.Data (map[string][]byte) and
    ConfigMap.Data (map[string]string).
    """
    ref = ResourceRef.of(obj)
    results: list[Result] = []
    metadata = obj.get("metadata")
    if metadata is not None and not isinstance(metadata, dict):
        results.append(Result(f"must be an object (got {describe_kind(metadata)})", field="metadata", code=Code.API_SERVER))
        metadata = None
    results += refused_names(obj)
    for key, validate in (("labels", objectmeta.validate_labels), ("annotations", objectmeta.validate_annotations)):
        value = (metadata or {}).get(key)
        if value is None:
            continue
        strings, problems = _string_map(value, f"metadata.{key}")
        results += problems
        if strings is not None:
            results += validate(strings, f"metadata.{key}")
    for key in _STRING_MAPS.get((str(obj.get("apiVersion")), str(obj.get("kind"))), ()):
        value = obj.get(key)
        if value is not None:
            results += _string_map(value, key)[1]
    return [r.with_resource(ref) for r in results]


def refused_names(obj: dict[str, Any]) -> list[Result]:
    """The names no cluster could hold: the object's kind, apiVersion, name or namespace.

    The part of ``refused_on_decode`` that also applies to items a KRM caller keeps in place
    (their other fields pass through exactly as written), with the keys and values of their
    string-valued labels.
    """
    results = _type_problems(obj)
    metadata = obj.get("metadata")
    metadata = metadata if isinstance(metadata, dict) else None
    kind = str(obj.get("kind", ""))
    name = (metadata or {}).get("name")
    if isinstance(name, str) and name:
        # a Namespace's name is a DNS-1123 label, as every namespace field is (ValidateNamespaceName)
        problem = objectmeta.dns1123_label_problem(name) if kind == "Namespace" else name_problem(kind, name)
        if problem:
            results.append(Result(f"invalid {kind} name {objectmeta.show(name)}: {problem}", field="metadata.name", code=Code.API_SERVER))
    namespace = (metadata or {}).get("namespace")
    if namespace is not None:
        if not isinstance(namespace, str):
            results.append(Result(f"must be a string (got {describe_kind(namespace)})", field="metadata.namespace", code=Code.API_SERVER))
        elif namespace:
            results += objectmeta.validate_namespace(namespace)
    return results


def refused_names_in_place(obj: dict[str, Any]) -> list[Result]:
    """``refused_names`` and the string-valued labels' keys and values (other values are passed on as written)."""
    results = refused_names(obj)
    metadata = obj.get("metadata")
    labels = metadata.get("labels") if isinstance(metadata, dict) else None
    if isinstance(labels, dict):
        strings = {k: v for k, v in labels.items() if isinstance(k, str) and isinstance(v, str)}
        results += objectmeta.validate_labels(strings, "metadata.labels")
    return results


def _type_problems(obj: dict[str, Any]) -> list[Result]:
    """Why no API server serves an object of this apiVersion and kind: a kind or group no resource can have.

    A kind is a resource's name in CamelCase: lower-cased, a DNS-1035 label. A group is a
    DNS-1123 subdomain and a version a DNS-1035 label (``v1``, ``v1beta1``).
    Mirrors: k8s.io/apiextensions-apiserver pkg/apis/apiextensions/validation
    ValidateCustomResourceDefinitionNames (kind) and ValidateCustomResourceDefinitionSpec (group, versions)
    """
    results: list[Result] = []
    kind, api_version = obj.get("kind"), obj.get("apiVersion")
    if isinstance(kind, str) and kind and (len(kind) > objectmeta.DNS1123_LABEL_MAX or not _DNS1035_LABEL.fullmatch(kind.lower())):
        results.append(Result(f"invalid kind {objectmeta.show(kind)}: no resource has this kind (letters, digits and \"-\", starting with a letter)",
                              field="kind", code=Code.API_SERVER))
    if isinstance(api_version, str) and api_version:
        group, _, version = api_version.rpartition("/")
        bad_group = "/" in api_version and (len(group) > objectmeta.DNS1123_SUBDOMAIN_MAX or not objectmeta.DNS1123_SUBDOMAIN.fullmatch(group))
        if bad_group or len(version) > objectmeta.DNS1123_LABEL_MAX or not _DNS1035_LABEL.fullmatch(version):
            results.append(Result(f"invalid apiVersion {objectmeta.show(api_version)}: not GROUP/VERSION (a DNS subdomain and a DNS-1035 label)",
                                  field="apiVersion", code=Code.API_SERVER))
    return results


def _string_map(value: Any, field: str) -> tuple[dict[str, str] | None, list[Result]]:
    """``value`` as a map of strings, or the errors saying where it is not one."""
    if not isinstance(value, dict):
        return None, [Result(f"must be an object of strings (got {describe_kind(value)})", field=field, code=Code.API_SERVER)]
    problems = [
        Result(f"must be a string (got {describe_kind(item)})", field=f"{field}[{key}]", code=Code.API_SERVER)
        for key, item in value.items() if not isinstance(item, str)
    ]
    return (None if problems else value), problems


def _metadata(node: Any, path: str) -> Iterator[tuple[dict[str, Any], str]]:
    """Every ``metadata`` object: the object's own and those of the templates it embeds."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "metadata" and isinstance(value, dict):
                yield value, f"{path}metadata."
            elif isinstance(value, dict) and key in ("spec", "template", "leaderWorkerTemplate", "leaderTemplate", "workerTemplate"):
                yield from _metadata(value, f"{path}{key}.")


def _mount_references(spec: Any, prefix: str) -> list[Result]:
    """A container's volume mounts must each name a volume of the pod and have a path of their own,
    and its resource claims must be distinct (validateVolumeMounts, validateResourceClaimNames).

    A v1alpha1 source declares ``volumeMounts`` and ``resources.claims`` plain arrays, so a
    repeat reaches the workload and the API server refuses the workload.
    """
    if not isinstance(spec, dict):
        return []
    volumes = {v.get("name") for v in spec.get("volumes") or [] if isinstance(v, dict)}
    results: list[Result] = []
    for field in podrules.CONTAINER_LISTS:
        for index, container in enumerate(spec.get(field) or []):
            if not isinstance(container, dict):
                continue
            where = f"{prefix}.{field}[{index}]"
            for position, mount_path in _repeats(container.get("volumeMounts"), _mount_path):
                message = f"invalid value {objectmeta.show(mount_path)}: must be unique"
                results.append(Result(message, field=f"{where}.volumeMounts[{position}].mountPath", code=Code.API_SERVER))
            resources = container.get("resources")
            claims: list[Any] = (resources.get("claims") if isinstance(resources, dict) else None) or []
            for position, _key in _repeats(claims, _claim_key):
                message = f"duplicate value {objectmeta.show(str(claims[position].get('name')))}"
                results.append(Result(message, field=f"{where}.resources.claims[{position}]", code=Code.API_SERVER))
            for position, mount in enumerate(container.get("volumeMounts") or []):
                name = mount.get("name") if isinstance(mount, dict) else None
                if isinstance(name, str) and name not in volumes:
                    results.append(
                        Result(
                            f"volume {objectmeta.show(name)} not found in the pod's volumes",
                            field=f"{prefix}.{field}[{index}].volumeMounts[{position}].name",
                            code=Code.API_SERVER,
                        )
                    )
    return results


def _repeats(items: Any, key_of: Callable[[Any], str | None]) -> Iterator[tuple[int, str]]:
    """(position, key) of each item of a list whose key an earlier item already had (None: no key)."""
    seen: set[str] = set()
    for position, item in enumerate(items or []):
        key = key_of(item)
        if key is None:
            continue
        if key in seen:
            yield position, key
        seen.add(key)


def _mount_path(mount: Any) -> str | None:
    path = mount.get("mountPath") if isinstance(mount, dict) else None
    return path if isinstance(path, str) else None


def _claim_key(claim: Any) -> str | None:
    """A resource claim is keyed by its name and request."""
    if not isinstance(claim, dict):
        return None
    name = claim.get("name")
    key = f"{name}/{claim.get('request')}" if claim.get("request") else name
    return key if isinstance(key, str) else None


def _get(node: Any, path: tuple[str, ...]) -> Any:
    for key in path:
        if not isinstance(node, dict):
            return None
        node = node.get(key)
    return node


def refusals(objects: list[dict[str, Any]]) -> list[Result]:
    """``refused`` for every object of one render."""
    return [result for obj in objects for result in refused(obj)]
