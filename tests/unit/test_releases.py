"""Release profiles: the table of profiles and how a setting selects one (renderer.releases)."""

from __future__ import annotations

import importlib
import pkgutil
import re
from pathlib import Path

import pytest

from plugin.settings import resolve_settings
from renderer.releases import LATER_RELEASES, REFERENCE, RELEASES, Delta, default_release, find_release
from renderer.results import Code, Result, Severity
from tests.fuzz.support import Run, render


def test_reference_commit_is_the_default_until_a_release_ledger_is_complete() -> None:
    assert default_release().name == REFERENCE or default_release().complete
    if any(not release.complete for name, release in RELEASES.items() if name != REFERENCE):
        incomplete = [name for name, release in RELEASES.items() if name != REFERENCE and not release.complete]
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


# The ledger behind the profiles: docs/operator-releases.md, one section per release, one table
# row per upstream pull request (PR, change, verdict, render, evidence).
LEDGER = Path(__file__).resolve().parents[2] / "docs" / "operator-releases.md"
VERDICTS = ("ported", "no render effect", "not portable offline", "open")
RENDER = ("yes", "no", "unknown")
SECTION = re.compile(r"^## Release (\S+)\s*$")


def _ledger_rows() -> dict[str, list[tuple[str, str, str]]]:
    """Each release section's rows as (PR, verdict, render), in page order."""
    rows: dict[str, list[tuple[str, str, str]]] = {}
    current: str | None = None
    for line in LEDGER.read_text().splitlines():
        if line.startswith("## "):
            match = SECTION.match(line)
            current = match.group(1) if match else None
            if current is not None:
                rows[current] = []
        elif current is not None and line.startswith("| #"):
            cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
            assert len(cells) == 5, f"release {current}: a row needs 5 cells: {line}"
            pr, _change, verdict, render, _evidence = cells
            # one PR, or a named part of one whose verdict differs from the rest (#13689-validation)
            assert re.fullmatch(r"#\d+(-[a-z]+)?", pr), f"release {current}: not one PR number or PR part: {pr!r}"
            assert verdict in VERDICTS, f"release {current} {pr}: verdict {verdict!r} (valid: {', '.join(VERDICTS)})"
            assert render in RENDER, f"release {current} {pr}: render {render!r} (valid: {', '.join(RENDER)})"
            rows[current].append((pr, verdict, render))
    return rows


def _deltas() -> list[Delta]:
    """Every Delta the rendering core defines, found by importing each of its modules."""
    import renderer

    found: dict[tuple[str, str], Delta] = {}
    for module in pkgutil.walk_packages(renderer.__path__, "renderer."):
        for value in vars(importlib.import_module(module.name)).values():
            if isinstance(value, Delta):
                found[(value.change, value.release)] = value
    return list(found.values())


def test_the_ledger_has_a_section_with_rows_for_every_release_profile() -> None:
    rows = _ledger_rows()
    releases = [name for name in RELEASES if name != REFERENCE]
    assert sorted(rows) == sorted(releases)
    for name in releases:
        assert rows[name], f"release {name}: no rows"
        prs = [pr for pr, _, _ in rows[name]]
        assert len(prs) == len(set(prs)), f"release {name}: a PR has two rows"


@pytest.mark.parametrize("name", [name for name in RELEASES if name != REFERENCE])
def test_release_open_is_the_ledgers_open_render_visible_rows(name: str) -> None:
    ledger_open = sorted(pr for pr, verdict, render in _ledger_rows()[name] if verdict == "open" and render != "no")
    assert sorted(RELEASES[name].open) == ledger_open


@pytest.mark.parametrize("name", [name for name in RELEASES if name != REFERENCE])
def test_the_counts_each_section_states_are_its_rows(name: str) -> None:
    text = LEDGER.read_text()
    section = text.split(f"## Release {name}\n", 1)[1].split("\n## ", 1)[0]
    rows = _ledger_rows()[name]
    stated = " ".join(section.split("|", 1)[0].split())
    assert f"**{len(rows)}**" in stated, stated
    for verdict in VERDICTS:
        count = sum(1 for _, v, _ in rows if v == verdict)
        assert f"{verdict} **{count}**" in stated, f"release {name}: {verdict} {count}: {stated}"


def test_every_delta_in_the_code_is_a_ported_row_of_its_release() -> None:
    rows = _ledger_rows()
    deltas = _deltas()
    assert deltas, "the rendering core defines no Delta"
    later = LEDGER.read_text().split("## Later releases", 1)[1]
    for delta in deltas:
        if delta.release in LATER_RELEASES:
            # an addition of a release with no profile yet: refused, and listed among the later releases
            assert f"| {delta.change} |" in later and delta.release in later, f"{delta.change} ({delta.release}) is not in the later-releases table"
            continue
        assert delta.release in rows, f"{delta.change}: release {delta.release} has no ledger section"
        verdicts = {pr: verdict for pr, verdict, _ in rows[delta.release]}
        # a rule the code applies: a ported behaviour, or the refusal of one that cannot be rendered offline
        assert verdicts.get(delta.change) in ("ported", "not portable offline"), (
            f"{delta.change} ({delta.release}): ledger says {verdicts.get(delta.change)}"
        )
        assert delta.change not in RELEASES[delta.release].open


def test_a_later_release_inherits_the_open_lines_of_the_releases_before_it() -> None:
    assert set(RELEASES["1.5.0"].open) <= set(RELEASES["1.5.1"].unported)
    assert not RELEASES["1.5.1"].complete or not RELEASES["1.5.0"].open
    assert RELEASES[REFERENCE].unported == () and RELEASES[REFERENCE].complete


EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "vllm-agg.yaml"


def _incomplete(run: Run) -> list[Result]:
    return [r for r in run.results if r.code is Code.INCOMPLETE_RELEASE]


def test_a_render_under_an_incomplete_profile_warns_naming_every_change_it_lacks() -> None:
    run = render([EXAMPLE], operator_release="1.5.1")
    (note,) = _incomplete(run)
    assert run.code == 0 and note.severity is Severity.WARNING
    assert RELEASES["1.5.1"].unported and all(change in note.message for change in RELEASES["1.5.1"].unported)
    assert "operator release 1.5.1 is incomplete" in note.message and "docs/operator-releases.md" in note.message


def test_the_incomplete_profile_warning_fails_a_strict_run() -> None:
    run = render([EXAMPLE], operator_release="1.5.0", strict=True)
    (note,) = _incomplete(run)
    assert note.is_error and run.code == 1 and run.stdout == ""


def test_the_reference_profile_renders_without_the_warning() -> None:
    assert _incomplete(render([EXAMPLE])) == [] and _incomplete(render([EXAMPLE], operator_release=REFERENCE)) == []
