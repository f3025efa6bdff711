"""Release profiles: the table of profiles and how a setting selects one (renderer.releases)."""

from __future__ import annotations

import pytest

from plugin.settings import resolve_settings
from renderer.releases import REFERENCE, RELEASES, Delta, default_release, find_release


def test_reference_commit_is_the_default_until_a_release_ledger_is_complete() -> None:
    assert default_release().name == REFERENCE or default_release().complete
    if any(release.open for name, release in RELEASES.items() if name != REFERENCE):
        incomplete = [name for name, release in RELEASES.items() if name != REFERENCE and release.open]
        assert default_release().rank < min(RELEASES[name].rank for name in incomplete) or default_release().complete


def test_a_delta_applies_from_its_release_on() -> None:
    delta = Delta("#13512", "1.5.0", "worker liveness failureThreshold 3")
    assert not RELEASES[REFERENCE].ships(delta)
    assert RELEASES["1.5.0"].ships(delta)
    assert RELEASES["1.5.1"].ships(delta)


@pytest.mark.parametrize(("text", "name"), [("1.5.0", "1.5.0"), ("v1.5.0", "1.5.0"), (REFERENCE, REFERENCE), ("1.4.9", None)])
def test_find_release(text: str, name: str | None) -> None:
    found = find_release(text)
    assert (found.name if found else None) == name


def test_operator_version_follows_the_selected_release_unless_set() -> None:
    settings, _ = resolve_settings({"operator-release": "1.5.1"})
    assert settings is not None
    assert settings.release.name == "1.5.1" and settings.config.release.name == "1.5.1"
    assert settings.operator_version == "1.5.1" == settings.config.operator_version
    doc = {"apiVersion": "config.dynamo-render.dev/v1alpha1", "kind": "DynamoRenderConfig",
           "spec": {"operatorRelease": "1.5.1", "operatorVersion": "1.5.0"}}
    settings, _ = resolve_settings(document=doc)
    assert settings is not None and settings.release.name == "1.5.1" and settings.config.operator_version == "1.5.0"


def test_an_unknown_release_is_refused_naming_the_valid_ones() -> None:
    settings, results = resolve_settings({"operator-release": "9.9.9"})
    assert settings is None
    assert any('unknown operator release "9.9.9"' in r.message and REFERENCE in r.message for r in results)
