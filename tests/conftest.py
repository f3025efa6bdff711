"""Test lanes: ``pytest -m "not slow"`` is the fast lane for edits; CI runs everything.

Slow tests are marked here, by an explicit list, rather than test by test: whole folders that
run real clients, subprocesses or fuzzing, and the few unit tests that take seconds each.
Mark a new slow test by adding its folder, file or test name below.
"""

from __future__ import annotations

import pytest

# Folders and files whose every test is slow (paths relative to tests/).
SLOW_PATHS = (
    "e2e/",  # real kpt, kubectl, pre-commit, git and subprocess runs
    "fuzz/",  # property-based runs over generated and mutated inputs
    "test_corpus.py",  # every real-world manifest, one render each
    "test_corpus_convert.py",  # every real-world v1alpha1 manifest converted and rendered, in both modes
    "test_bench_smoke.py",  # the benchmark script end to end
    "unit/test_dockerfile.py",  # builds the install stage in a fresh directory
)
# Single slow tests: "file::test name" (any parametrisation).
SLOW_TESTS = (
    "unit/test_fastyaml.py::test_generated_objects_round_trip",
    "unit/test_fastyaml.py::test_all_golden_outputs_as_one_stream",
    "unit/test_hostile_yaml.py::test_many_small_documents",
    "unit/test_hostile_yaml.py::test_50_mb_input_renders_within_memory",
    "unit/test_hostile_yaml.py::test_deep_nesting_is_refused_in_a_subprocess",
    "unit/test_hostile_yaml.py::test_billion_laughs_is_refused_before_memory_grows",
    "unit/test_schemas.py::test_thousands_of_objects_validate_quickly",
    "unit/test_copy_json.py::test_copy_equals_deepcopy",
    "unit/test_console.py::test_both_ways_give_the_same_output_and_exit_codes",
    "unit/test_console.py::test_rendering_one_dcd_imports_only_what_it_needs",
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        path = item.nodeid.split("tests/", 1)[-1]
        test = path.split("[", 1)[0]
        if path.startswith(SLOW_PATHS) or test in SLOW_TESTS:
            item.add_marker(pytest.mark.slow)
