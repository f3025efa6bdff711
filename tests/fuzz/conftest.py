"""Hypothesis profiles for the fuzz tests, chosen with ``DYNAMO_RENDER_FUZZ``.

- ``ci`` (default): a bounded, derandomized run, so CI is reproducible and never flaky; the
  example budget is per test (see tests/fuzz/test_fuzz_render.py for the totals).
- ``long``: random exploration for hunting by hand, e.g.
  ``DYNAMO_RENDER_FUZZ=long python -m pytest tests/fuzz -q -p no:cacheprovider``.
- ``smoke``: a handful of examples, for a quick local check.

``deadline=None`` everywhere: a render's duration depends on the machine, not on the input.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, Phase, settings

_COMMON = {
    "deadline": None,
    "suppress_health_check": [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
    "print_blob": True,
}

settings.register_profile("ci", max_examples=150, derandomize=True, database=None, **_COMMON)
settings.register_profile("long", max_examples=5000, **_COMMON)
settings.register_profile(
    "smoke", max_examples=10, derandomize=True, database=None, phases=[Phase.explicit, Phase.generate], **_COMMON
)
settings.load_profile(os.environ.get("DYNAMO_RENDER_FUZZ", "ci"))
