#!/usr/bin/env python3
"""Peak memory of the KRM function on a large ResourceList (the sidecar limit is 1 GiB).

Generates a ResourceList of realistic DCDs (``render_bench.generate_dcd``: the component mix
of the public Dynamo manifests) of about ``--mb`` megabytes of YAML, the way kpt sends it
(path and index annotations on every item), pipes it into ``dynamo-render-krm`` and reports
the child's peak RSS, CPU time, wall time and output size. Each measurement runs in its own
process tree so one run's peak cannot hide in another's (``/usr/bin/time -v`` where present,
else ``resource.getrusage(RUSAGE_CHILDREN)`` of a fresh wrapper process).

Also reported: ``dynamo-render render`` of the same DCDs as a plain YAML stream, and, for
scale, a plain PyYAML C-loader parse of the ResourceList (the Python floor of holding it).

Usage:
    python bench/krm_memory.py                 # 50 MB (several minutes on a small machine)
    python bench/krm_memory.py --mb 2          # smoke test

The console scripts are the ones installed beside this Python.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
from render_bench import generate_dcd  # noqa: E402  (a sibling script, not a package)

BIN = Path(sys.executable).parent
TIME = Path("/usr/bin/time")
SIDECAR_LIMIT_MIB = 1024

PARSE_ONLY = (
    "import sys, yaml\n"
    "with open(sys.argv[1], 'rb') as handle:\n"
    "    yaml.load(handle, Loader=yaml.CSafeLoader)\n"
)

WRAPPER = (
    "import resource, subprocess, sys, time\n"
    "start = time.monotonic()\n"
    "with open(sys.argv[1], 'rb') as stdin, open(sys.argv[2], 'wb') as stdout:\n"
    "    code = subprocess.run(sys.argv[3:], stdin=stdin, stdout=stdout, stderr=subprocess.DEVNULL).returncode\n"
    "usage = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
    "print(code, usage.ru_maxrss, usage.ru_utime + usage.ru_stime, time.monotonic() - start)\n"
)


def write_inputs(folder: Path, megabytes: float) -> tuple[Path, Path, int]:
    """A ResourceList and the same DCDs as a plain stream, each about ``megabytes`` MB."""
    target = int(megabytes * 1_000_000)
    resource_list = folder / "resource-list.yaml"
    stream = folder / "dcds.yaml"
    count = 0
    size = 0
    with open(resource_list, "w", encoding="utf-8") as rl, open(stream, "w", encoding="utf-8") as plain:
        rl.write("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n")
        while size < target:
            dcd = generate_dcd(count)
            meta = dcd["metadata"]
            assert isinstance(meta, dict)
            annotations = {
                "config.kubernetes.io/path": f"dcds-{count // 10:05d}.yaml",
                "internal.config.kubernetes.io/path": f"dcds-{count // 10:05d}.yaml",
                "config.kubernetes.io/index": str(count % 10),
                "internal.config.kubernetes.io/index": str(count % 10),
            }
            item = {**dcd, "metadata": {**meta, "annotations": annotations}}
            # block YAML, as kpt and kustomize write a ResourceList (a one-item list reads as one entry of items:)
            line = yaml.dump([item], Dumper=yaml.CSafeDumper, sort_keys=False, default_flow_style=False)
            rl.write(line)
            plain.write("---\n" + yaml.dump(dcd, Dumper=yaml.CSafeDumper, sort_keys=False, default_flow_style=False))
            size += len(line)
            count += 1
    return resource_list, stream, count


def measure(stdin: Path, command: list[str]) -> dict[str, float]:
    """Exit code, peak RSS (MiB), CPU seconds, wall seconds and output bytes of one child run."""
    with tempfile.NamedTemporaryFile(prefix="krm-memory-out-") as out:
        if TIME.exists():
            start = time.monotonic()
            with open(stdin, "rb") as handle:
                done = subprocess.run([str(TIME), "-v", *command], stdin=handle, stdout=out, stderr=subprocess.PIPE, text=True, check=False)
            wall = time.monotonic() - start
            fields = dict(re.findall(r"^\s*([^:\n]+):\s*(.*)$", done.stderr, re.M))
            rss_kib = int(fields["Maximum resident set size (kbytes)"])
            cpu = float(fields["User time (seconds)"]) + float(fields["System time (seconds)"])
            code = int(fields.get("Exit status", done.returncode))
        else:
            done = subprocess.run([sys.executable, "-c", WRAPPER, str(stdin), out.name, *command], capture_output=True, text=True, check=True)
            code_s, rss_s, cpu_s, wall_s = done.stdout.split()
            code, rss_kib, cpu, wall = int(code_s), int(rss_s), float(cpu_s), float(wall_s)
        return {"exit": code, "rss_mib": rss_kib / 1024, "cpu_s": cpu, "wall_s": wall, "out_mb": os.path.getsize(out.name) / 1e6}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=50.0, help="size of the generated ResourceList in MB (default 50)")
    parser.add_argument("--skip-render", action="store_true", help="measure only the KRM function")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="krm-memory-") as tmp:
        resource_list, stream, count = write_inputs(Path(tmp), args.mb)
        size_mb = resource_list.stat().st_size / 1e6
        print(f"input: {count} DCDs, ResourceList {size_mb:.1f} MB, plain stream {stream.stat().st_size / 1e6:.1f} MB")
        runs = {"krm": measure(resource_list, [str(BIN / "dynamo-render-krm")])}
        if not args.skip_render:
            runs["render"] = measure(stream, [str(BIN / "dynamo-render"), "render", "-"])
        runs["pyyaml C parse (floor)"] = measure(resource_list, [sys.executable, "-c", PARSE_ONLY, str(resource_list)])
        for name, run in runs.items():
            print(
                f"{name:24s} exit {run['exit']:.0f}  peak RSS {run['rss_mib']:7.0f} MiB  CPU {run['cpu_s']:6.1f} s  "
                f"wall {run['wall_s']:6.1f} s  output {run['out_mb']:6.1f} MB"
            )
        krm = runs["krm"]["rss_mib"]
        print(f"KRM peak RSS is {krm / SIDECAR_LIMIT_MIB:.0%} of the sidecar's {SIDECAR_LIMIT_MIB} MiB limit")
    return 0


if __name__ == "__main__":
    sys.exit(main())
