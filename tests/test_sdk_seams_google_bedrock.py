"""The SDK seams of the google and bedrock families (``providers/<family>/_sdk_seam.py``, the
only modules that touch google-genai's or botocore's private internals) were written for the
releases their ``SDK_VERSIONS`` name: the installed SDK must be one of them, so an upgrade
past what a seam was written for fails here, loudly, before it breaks a call."""

from __future__ import annotations

import importlib
import importlib.metadata

import pytest
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet

# family -> the extra of pyproject.toml that installs its SDK
FAMILIES = {"google": "google", "bedrock": "bedrock"}


def _seam_versions(family: str) -> dict[str, str]:
    seam = importlib.import_module(f"aisuite_like.providers.{family}._sdk_seam")
    versions = seam.SDK_VERSIONS
    assert isinstance(versions, dict) and versions, f"{family}: SDK_VERSIONS is empty"
    return dict(versions)


def _unmet(versions: dict[str, str]) -> list[str]:
    """What of ``versions`` (distribution -> specifier) the installed distributions miss."""
    problems = []
    for distribution, specifier in versions.items():
        try:
            installed = importlib.metadata.version(distribution)
        except importlib.metadata.PackageNotFoundError:
            problems.append(f"{distribution} is not installed")
            continue
        if installed not in SpecifierSet(specifier):
            problems.append(f"{distribution} {installed} is not {specifier}")
    return problems


def _extra_requirements(extra: str) -> dict[str, Requirement]:
    found = {}
    for line in importlib.metadata.requires("aisuite-like") or ():
        requirement = Requirement(line)
        if requirement.marker is not None and requirement.marker.evaluate({"extra": extra}):
            found[requirement.name] = requirement
    return found


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_installed_sdk_is_one_the_seam_was_written_for(family: str) -> None:
    problems = _unmet(_seam_versions(family))
    assert not problems, (
        f"providers/{family}/_sdk_seam.py was written for {_seam_versions(family)}, but "
        f"{'; '.join(problems)}: check the seam against this release, then widen SDK_VERSIONS")


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_seam_names_the_sdk_its_extra_installs(family: str) -> None:
    """Each distribution of SDK_VERSIONS is the one the family's extra installs, and the
    releases the seam accepts start where the extra's do."""
    extra = _extra_requirements(FAMILIES[family])
    for distribution, specifier in _seam_versions(family).items():
        assert distribution in extra, f"the {family!r} extra does not install {distribution}"
        lows = {s.version for s in SpecifierSet(specifier) if s.operator == ">="}
        assert lows == {s.version for s in extra[distribution].specifier if s.operator == ">="}


def test_the_check_fails_on_a_release_the_seam_was_not_written_for() -> None:
    installed = importlib.metadata.version("google-genai")
    assert _unmet({"google-genai": f"=={installed}"}) == []
    assert _unmet({"google-genai": f"!={installed}"}) == [
        f"google-genai {installed} is not !={installed}"]
    assert _unmet({"botocore": "<1"}) == [
        f"botocore {importlib.metadata.version('botocore')} is not <1"]
    assert _unmet({"no-such-sdk-distribution": ">=1"}) == [
        "no-such-sdk-distribution is not installed"]
