"""Operator releases as profiles: the reference commit plus each release's named deltas.

The reference behaviour is the operator at ai-dynamo/dynamo ``2a6da14c8`` (a 1.5.0 development
commit). A *release profile* is that behaviour plus the upstream changes a release shipped on top
of it, each one a ``Delta`` named by its pull request and gated here by the first release that
ships it. A rule in the module that owns the behaviour asks ``config.release.ships(DELTA)``; no
module is forked per version (DESIGN.md decision 17).

``docs/operator-releases.md`` is the ledger behind this table: every upstream change of each
named release with its verdict (ported, no render effect, not portable offline, open) and its
evidence. ``Release.open`` lists the changes the ledger still has open with a possible render
effect for that release; ``Release.unported`` adds the earlier releases' (a release ships them
all). A profile with any is incomplete, and every render under it says so
(``renderer.bundle_notes.incomplete_release_note``: a warning naming them; an error under strict).

Mirrors: the release line of ai-dynamo/dynamo (v1.5.0 and later release notes; the deprecations
ledger), as recorded in docs/operator-releases.md.
"""

from __future__ import annotations

from renderer.records import dataclass

# The reference commit: today's behaviour, byte for byte.
REFERENCE = "2a6da14c8"


@dataclass(frozen=True)
class Delta:
    """One upstream change with a render effect: its pull request, the first release that ships it."""

    change: str
    release: str
    summary: str


@dataclass(frozen=True)
class Release:
    """One profile: whose behaviour is rendered.

    ``rank`` orders the profiles along the release line (the reference commit is 0); a delta
    applies to every profile at or after the release that first ships it. ``version`` is the
    operator version the profile stamps at admission by default
    (``nvidia.com/dynamo-operator-origin-version``). ``open`` names the ledger's open lines with a
    render effect (``docs/operator-releases.md``).
    """

    name: str
    version: str
    rank: int
    open: tuple[str, ...] = ()
    date: str = ""

    @property
    def unported(self) -> tuple[str, ...]:
        """The open render-visible lines this profile renders without: its own and every earlier release's.

        A release ships every change of the releases before it, so a line still open in 1.5.0 is
        missing from the 1.5.1 profile too.
        """
        return tuple(
            change
            for release in _PROFILES
            if not release.is_reference and release.rank <= self.rank
            for change in release.open
        )

    @property
    def complete(self) -> bool:
        """Whether the ledger has no open line with a render effect for this profile or a release before it."""
        return not self.unported

    @property
    def is_reference(self) -> bool:
        return self.name == REFERENCE

    def ships(self, delta: Delta) -> bool:
        """Whether this profile renders with ``delta`` applied."""
        first = RELEASES.get(delta.release)
        return first is not None and self.rank >= first.rank

    def at_least(self, name: str) -> bool:
        """Whether this profile is ``name`` or a later release."""
        other = RELEASES.get(name)
        return other is not None and self.rank >= other.rank


# The profiles the project names, oldest first. Each release's ``open`` tuple names the ledger's
# open lines with a possible render effect for that release alone (docs/operator-releases.md;
# tests/unit/test_releases.py keeps the two in step); ``Release.unported`` adds the earlier releases'.
_PROFILES: tuple[Release, ...] = (
    Release(REFERENCE, "1.5.0", 0, date="2026-08-21"),
    Release(
        "1.5.0", "1.5.0", 1, date="2026-09-18",
        open=(
            "#11083", "#11355", "#13218", "#13689-validation", "#14341", "#14724", "#14797",
        ),
    ),
    # v1.5.1 ships no operator change of its own (the ledger's 1.5.1 section); it inherits 1.5.0's open lines.
    Release("1.5.1", "1.5.1", 2, date="2026-10-06"),
)

RELEASES: dict[str, Release] = {release.name: release for release in _PROFILES}
REFERENCE_RELEASE = RELEASES[REFERENCE]


def default_release() -> Release:
    """The profile rendered when none is selected: the newest release whose ledger is complete.

    Until one is, the reference commit.
    """
    complete = [release for release in _PROFILES if release.complete and not release.is_reference]
    return complete[-1] if complete else REFERENCE_RELEASE


# Releases after the newest profile, known by name only: a field or value one of them added is
# refused under a profile that lacks it, naming the release ("not in operator 1.5.0; added in
# 1.6.0"). They are not profiles (nothing renders as them), so ``ships`` is False for their
# deltas under every profile. Name -> GA date.
LATER_RELEASES: dict[str, str] = {"1.6.0": "2026-10-22", "1.7.0": "2026-11-23"}


def find_release(name: str) -> Release | None:
    """The profile named ``name`` (a leading ``v`` is accepted: ``v1.5.0``), else None."""
    text = name.strip()
    if text[:1] in ("v", "V") and text[1:2].isdigit():
        text = text[1:]
    return RELEASES.get(text)


def release_names() -> tuple[str, ...]:
    """Every profile name, oldest first."""
    return tuple(release.name for release in _PROFILES)


__all__ = ["LATER_RELEASES", "REFERENCE", "REFERENCE_RELEASE", "RELEASES", "Delta", "Release", "default_release", "find_release", "release_names"]
