#!/usr/bin/env python3
"""Time ``dynamo-render hydrate-check`` (check mode) against a render of the same sources.

The case the check exists for: a hydrated repository, then an image bump in the sources, so
that every rendered worker of one large source file differs from what is committed. The check
renders the sources, compares each output file and prints a (capped) diff; it should cost a
small constant more than ``dynamo-render render`` of the same folder, at every size.

Generates N DCDs (the mix of bench/render_bench.py) in ONE source file (the worst case for a
diff over whole files), hydrates it with ``--fix``, bumps every image, and measures, in the same
run and interleaved, the check and the render. Times are medians of wall clock, with CPU time
(user + system of the child) beside them.

Usage:
    python bench/hydrate_check_bench.py                  # 100, 200 and 1,500 DCDs
    python bench/hydrate_check_bench.py --dcds 10 --repeat 1   # smoke test
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
from render_bench import IMAGES, generate_dcd  # noqa: E402  (the same generated DCDs)

BIN = Path(sys.executable).parent


def measure(args: list[str], cwd: Path) -> tuple[float, float, int]:
    """Wall seconds, CPU seconds of the child, exit code."""
    start = time.perf_counter()
    proc = subprocess.Popen(args, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    return wall, usage.ru_utime + usage.ru_stime, os.waitstatus_to_exitcode(status)


def setup(root: Path, count: int) -> None:
    source = root / "src"
    source.mkdir(parents=True)
    docs = [generate_dcd(n) for n in range(count)]
    (source / "graphs.yaml").write_text(yaml.safe_dump_all(docs, sort_keys=False, explicit_start=True), encoding="utf-8")
    exe = str(BIN / "dynamo-render")
    done = subprocess.run([exe, "hydrate-check", "--fix", "--no-tracked-only", "src", "out"], cwd=root, capture_output=True, text=True)
    if done.returncode not in (0, 1) or not (root / "out" / "graphs.yaml").exists():
        raise SystemExit(f"hydrating failed: {done.stdout}{done.stderr}")
    text = (source / "graphs.yaml").read_text(encoding="utf-8")
    for image in IMAGES.values():
        text = text.replace(image, image + "-bumped")
    (source / "graphs.yaml").write_text(text, encoding="utf-8")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--dcds", default="100,200,1500", help="comma-separated DCD counts (default 100,200,1500)")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each command (default 3)")
    parser.add_argument("--json", dest="json_path", help="also write the medians to this JSON file")
    options = parser.parse_args(argv)
    exe = str(BIN / "dynamo-render")
    report: dict[str, dict[str, float]] = {}
    print("| DCDs | render s (cpu) | hydrate-check s (cpu) | ratio (wall) |")
    print("| ---: | ---: | ---: | ---: |")
    for count in (int(part) for part in options.dcds.split(",")):
        with tempfile.TemporaryDirectory(prefix="dynamo-render-hydrate-bench-") as scratch:
            root = Path(scratch)
            setup(root, count)
            render, check = [], []
            for _ in range(options.repeat):
                render.append(measure([exe, "render", "src"], root))
                check.append(measure([exe, "hydrate-check", "--no-tracked-only", "src", "out"], root))
            if any(code != 0 for _, _, code in render) or any(code != 1 for _, _, code in check):
                raise SystemExit(f"unexpected exit codes: render {[c for *_, c in render]}, check {[c for *_, c in check]}")
        r_wall, r_cpu = statistics.median(w for w, _, _ in render), statistics.median(c for _, c, _ in render)
        c_wall, c_cpu = statistics.median(w for w, _, _ in check), statistics.median(c for _, c, _ in check)
        report[str(count)] = {"render_wall": r_wall, "render_cpu": r_cpu, "check_wall": c_wall, "check_cpu": c_cpu,
                              "ratio": c_wall / r_wall}
        print(f"| {count} | {r_wall:.2f} ({r_cpu:.2f}) | {c_wall:.2f} ({c_cpu:.2f}) | {c_wall / r_wall:.2f} |", flush=True)
    if options.json_path:
        Path(options.json_path).write_text(json.dumps(report, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
