#!/usr/bin/env python3
"""Time ``kpt fn eval --exec dynamo-render-krm`` against a pass-through exec function.

Both run on the same generated kpt package (N single-node DCDs, ten to a file) in the same
process, interleaved, so machine load hits both alike. The pass-through function is
``cat``: kpt's own cost of serialising the package, starting a process and reading its output.
The difference is what dynamo-render adds, including kpt's work on a five times larger output.
Also timed: ``cat`` on the package already rendered (kpt's cost when both its input and its
output have the rendered size), the function alone (the ResourceList piped straight into
``dynamo-render-krm``) and its start-up (``--help``).

Usage: python bench/krm_vs_passthrough.py [--dcds 1000] [--repeat 3]

The console script is the one installed beside this Python; kpt must be on PATH.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BIN = Path(sys.executable).parent

DCD = """\
apiVersion: nvidia.com/v1beta1
kind: DynamoComponentDeployment
metadata:
  name: worker-{n:05d}
  namespace: bench-{ns}
spec:
  backendFramework: vllm
  type: decode
  replicas: 2
  podTemplate:
    spec:
      containers:
        - name: main
          image: registry.example/dynamo-worker:test
          args: [--model, Qwen/Qwen3-0.6B]
          resources:
            limits:
              nvidia.com/gpu: "1"
"""

KPTFILE = """\
apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: bench
  annotations:
    config.kubernetes.io/local-config: "true"
"""


def write_package(root: Path, count: int) -> Path:
    """A kpt package of ``count`` DCDs in files of ten."""
    pkg = root / "pkg"
    pkg.mkdir()
    (pkg / "Kptfile").write_text(KPTFILE)
    for first in range(0, count, 10):
        docs = [DCD.format(n=n, ns=n % 7) for n in range(first, min(first + 10, count))]
        (pkg / f"dcds-{first // 10:04d}.yaml").write_text("---\n".join(docs))
    return pkg


def timed(args: list[str], env: dict[str, str], stdin: bytes | None = None) -> tuple[float, subprocess.CompletedProcess[bytes]]:
    start = time.perf_counter()
    done = subprocess.run(args, env=env, input=stdin, capture_output=True)
    return time.perf_counter() - start, done


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dcds", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    options = parser.parse_args(argv)

    function = BIN / "dynamo-render-krm"
    kpt = shutil.which("kpt")
    if not function.is_file() or kpt is None:
        print(f"needs {function} and kpt on PATH", file=sys.stderr)
        return 1
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}

    with tempfile.TemporaryDirectory(prefix="krm-bench-") as tmp:
        root = Path(tmp)
        pkg = write_package(root, options.dcds)
        passthrough = root / "passthrough"
        passthrough.write_text("#!/bin/sh\nexec cat\n")
        passthrough.chmod(0o755)

        # The ResourceList kpt sends, captured once with the pass-through function.
        capture = root / "capture"
        capture.write_text(f"#!/bin/sh\ntee {root / 'input.yaml'}\n")
        capture.chmod(0o755)
        _, done = timed([kpt, "fn", "eval", str(pkg), "--exec", str(capture), "-o", "stdout"], env)
        if done.returncode != 0:
            sys.stderr.write(done.stderr.decode())
            return 1
        resource_list = (root / "input.yaml").read_bytes()

        # The same package rendered, for kpt's cost at the output's size.
        rendered = root / "rendered"
        shutil.copytree(pkg, rendered)
        _, done = timed([kpt, "fn", "eval", str(rendered), "--exec", "dynamo-render-krm"], env)
        if done.returncode != 0:
            sys.stderr.write(done.stderr.decode())
            return 1

        runs: dict[str, list[float]] = {
            "kpt fn eval --exec cat (pass-through)": [],
            "kpt fn eval --exec dynamo-render-krm": [],
            "kpt fn eval --exec cat, rendered package": [],
            "dynamo-render-krm alone (stdin -> stdout)": [],
            "dynamo-render-krm --help (start-up)": [],
        }
        sizes: dict[str, int] = {}
        for _ in range(options.repeat):
            for label, args, stdin in (
                ("kpt fn eval --exec cat (pass-through)", [kpt, "fn", "eval", str(pkg), "--exec", str(passthrough), "-o", "stdout"], None),
                ("kpt fn eval --exec dynamo-render-krm", [kpt, "fn", "eval", str(pkg), "--exec", "dynamo-render-krm", "-o", "stdout"], None),
                ("kpt fn eval --exec cat, rendered package", [kpt, "fn", "eval", str(rendered), "--exec", str(passthrough), "-o", "stdout"], None),
                ("dynamo-render-krm alone (stdin -> stdout)", [str(function)], resource_list),
                ("dynamo-render-krm --help (start-up)", [str(function), "--help"], None),
            ):
                seconds, done = timed(args, env, stdin)
                if done.returncode != 0:
                    sys.stderr.write(done.stderr.decode()[-4000:])
                    return 1
                runs[label].append(seconds)
                sizes[label] = len(done.stdout)

    print(f"{options.dcds} DCDs, {len(resource_list) / 1e6:.1f} MB ResourceList in; {options.repeat} runs each, interleaved")
    print(f"{'':44} {'min s':>7} {'median s':>9} {'output MB':>10}")
    for label, times in runs.items():
        print(f"{label:44} {min(times):7.2f} {statistics.median(times):9.2f} {sizes[label] / 1e6:10.1f}")
    base = statistics.median(runs["kpt fn eval --exec cat (pass-through)"])
    ours = statistics.median(runs["kpt fn eval --exec dynamo-render-krm"])
    alone = statistics.median(runs["dynamo-render-krm alone (stdin -> stdout)"])
    print(f"kpt with dynamo-render takes {ours - base:.2f} s longer than with cat ({ours / base:.1f}x);")
    print(f"the function alone takes {alone:.2f} s ({1000 * alone / options.dcds:.2f} ms per DCD, start-up included)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
