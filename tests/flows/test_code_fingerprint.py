"""A stage's cache key includes the code it runs: an edited validator is not answered from the cache."""

from __future__ import annotations

import sys

from flows.code_fingerprint import STAGE_PACKAGES, package_fingerprint, stage_code


def test_an_edit_to_a_package_changes_its_fingerprint(tmp_path, monkeypatch):
    package = tmp_path / "probe_pkg_for_fingerprint"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "check.py").write_text("LIMIT = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    before = package_fingerprint("probe_pkg_for_fingerprint")
    assert package_fingerprint("probe_pkg_for_fingerprint") == before  # stable
    (package / "check.py").write_text("LIMIT = 2\n")
    package_fingerprint.cache_clear()
    assert package_fingerprint("probe_pkg_for_fingerprint") != before
    sys.modules.pop("probe_pkg_for_fingerprint", None)


def test_the_validate_stage_keys_on_the_validators_code():
    assert "validators" in STAGE_PACKAGES["validate"] and "analyzers" in STAGE_PACKAGES["analyze"]
    assert package_fingerprint("validators") in stage_code("validate")
    assert package_fingerprint("validators") not in stage_code("translate")
