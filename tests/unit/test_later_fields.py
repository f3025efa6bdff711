"""Component fields of later operator releases are refused naming the release (renderer.admission.later).

Facts restated: ai-dynamo/dynamo#14927 (v1.7.0) adds ``dynamoSidecar`` to the v1beta1 component
spec; ai-dynamo/dynamo#15062 (v1.6.0) adds LPX components (``type: lpx`` and the ``lpx`` block).
The admission messages of whole manifests are checked in tests/golden/validation/later-release-*.
"""

from __future__ import annotations

import pytest

from renderer.admission.later import DYNAMO_SIDECAR, LATER_COMPONENT_FIELDS, LPX_COMPONENTS, later_component_fields, later_spec_fields
from renderer.releases import LATER_RELEASES, RELEASES, Delta
from renderer.results import Code


@pytest.mark.parametrize("delta", [DYNAMO_SIDECAR, LPX_COMPONENTS], ids=lambda d: d.change)
def test_every_later_delta_names_a_known_later_release_and_no_profile_ships_it(delta: Delta) -> None:
    assert delta.release in LATER_RELEASES
    assert delta.release not in RELEASES
    assert not any(profile.ships(delta) for profile in RELEASES.values())


def test_the_deltas_name_their_pull_requests() -> None:
    assert (DYNAMO_SIDECAR.change, DYNAMO_SIDECAR.release) == ("#14927", "1.7.0")
    assert (LPX_COMPONENTS.change, LPX_COMPONENTS.release) == ("#15062", "1.6.0")
    assert [name for name, _, _ in LATER_COMPONENT_FIELDS] == ["dynamoSidecar", "lpx"]


@pytest.mark.parametrize("profile", sorted(RELEASES))
def test_each_field_is_refused_at_its_path_naming_profile_and_release(profile: str) -> None:
    release = RELEASES[profile]
    results = later_component_fields({"type": "lpx", "lpx": {"buildId": "b"}, "dynamoSidecar": "runtime"}, "spec", release)
    assert [(r.field, r.code) for r in results] == [
        ("spec.dynamoSidecar", Code.UNKNOWN_FIELD),
        ("spec.lpx", Code.UNKNOWN_FIELD),
        ("spec.type", Code.SCHEMA),
    ]
    assert results[0].message == f"not in operator {profile}; added in 1.7.0 (ai-dynamo/dynamo#14927: Dynamo sidecar workloads)"
    assert results[2].message == f'not in operator {profile}; added in 1.6.0 (ai-dynamo/dynamo#15062: LPX components, type "lpx")'


def test_a_component_without_later_fields_and_other_types_are_not_reported() -> None:
    release = RELEASES["1.5.0"]
    assert later_component_fields({"type": "worker", "replicas": 1}, "spec", release) == []
    assert later_component_fields("not a mapping", "spec", release) == []


def test_a_dgd_spec_is_checked_per_component() -> None:
    release = RELEASES["1.5.0"]
    spec = {"components": [{"name": "a"}, {"name": "b", "dynamoSidecar": "runtime"}]}
    assert [r.field for r in later_spec_fields(spec, "components", release)] == ["spec.components[1].dynamoSidecar"]
    assert later_spec_fields({"components": "junk"}, "components", release) == []
    assert [r.field for r in later_spec_fields({"dynamoSidecar": "x"}, None, release)] == ["spec.dynamoSidecar"]


def test_an_unknown_v1alpha1_lpx_block_names_the_release_and_other_unknown_fields_stay_generic() -> None:
    from renderer.admission.later import later_alpha_field
    from renderer.results import Result

    release = RELEASES["1.5.0"]
    lpx = later_alpha_field(Result("unknown", field="spec.services[engine].lpx", code=Code.UNKNOWN_FIELD), release)
    assert lpx.message == "not in operator 1.5.0; added in 1.6.0 (ai-dynamo/dynamo#15062: LPX components)"
    assert later_alpha_field(Result("unknown", field="spec.lpx", code=Code.UNKNOWN_FIELD), release).message.startswith("not in operator")
    for other in (
        Result("unknown", field="spec.services[engine].dynamoSidecar", code=Code.UNKNOWN_FIELD),
        Result("bad", field="spec.services[engine].lpx", code=Code.SCHEMA),
        Result("unknown", field="spec.services[engine].extraPodSpec.lpx", code=Code.UNKNOWN_FIELD),
    ):
        assert later_alpha_field(other, release) is other
