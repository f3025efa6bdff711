"""Reliability of every front end: secrets never leak, no partial output, same bytes every
time, no writable filesystem and no network needed.

- **Secrets.** Secrets in the bundle and in the cluster state are read for their
  dockerconfigjson registries (renderer/cluster/state.py). Canary values are planted in Secrets that
  are malformed in every way we could think of, next to valid and invalid DCDs; the canary may
  appear in output only inside the user's own Secret objects passed through unchanged, never in
  a message, a result, a rendered object or a log line.
- **No partial output.** A bad 500th DCD among 1,000: the CLI and the CMP print nothing on
  stdout; the KRM function returns every item unchanged, never an empty list.
- **Determinism.** The same input gives the same bytes under different ``PYTHONHASHSEED``
  values and with the input's mapping keys shuffled; rendering the output again is the
  identity.
- **Container safety.** The image runs as uid 999; the CLI works with a read-only home and
  working directory; nothing connects to the network unless ``--live`` is given.
"""

from __future__ import annotations

import base64
import io
import json
import os
import random
import re
import socket
import stat
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from plugin.frontends import cmp, krm, precommit_hydrate, precommit_validate
from plugin.options import given_values
from plugin.yamlio.codec import dump_documents, load_documents
from tests.fuzz.support import contract_problems, render
from tests.builders import dcd

ROOT = Path(__file__).resolve().parents[2]
CANARY = "CANARY-s3cr3t-9f27c1"


def _b64(data: bytes | str) -> str:
    return base64.b64encode(data.encode() if isinstance(data, str) else data).decode()


# ---------------------------------------------------------------------------------------------
# Secrets


def _secret(name: str, **fields: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": name, "namespace": "llm"}, **fields}


DOCKER = "kubernetes.io/dockerconfigjson"
VALID_AUTHS = json.dumps({"auths": {"nvcr.io": {"auth": _b64(f"user:{CANARY}"), "password": CANARY}}})


def canary_secrets() -> list[Any]:
    """Secrets holding the canary, valid and malformed in every way that still parses as YAML."""
    return [
        _secret("valid-data", type=DOCKER, data={".dockerconfigjson": _b64(VALID_AUTHS)}),
        _secret("valid-string-data", type=DOCKER, stringData={".dockerconfigjson": VALID_AUTHS}),
        _secret("bad-base64", type=DOCKER, data={".dockerconfigjson": f"{CANARY}%%%not base64"}),
        _secret("not-utf8", type=DOCKER, data={".dockerconfigjson": _b64(b"\xff\xfe" + CANARY.encode())}),
        _secret("json-array", type=DOCKER, data={".dockerconfigjson": _b64(json.dumps([CANARY]))}),
        _secret("json-string", type=DOCKER, data={".dockerconfigjson": _b64(json.dumps(CANARY))}),
        _secret("truncated-json", type=DOCKER, stringData={".dockerconfigjson": '{"auths": {"nvcr.io": {"auth": "' + CANARY}),
        _secret("auths-string", type=DOCKER, stringData={".dockerconfigjson": json.dumps({"auths": CANARY})}),
        _secret("auths-list", type=DOCKER, stringData={".dockerconfigjson": json.dumps({"auths": [CANARY]})}),
        _secret(
            "bad-registry",
            type=DOCKER,
            stringData={".dockerconfigjson": json.dumps({"auths": {f"{CANARY} bad host:port:x": {"auth": CANARY}}})},
        ),
        _secret(
            "nested-weird",
            type=DOCKER,
            stringData={".dockerconfigjson": json.dumps({"auths": {"nvcr.io": CANARY, "r.example": [CANARY], "x.example": None}})},
        ),
        _secret("string-data-object", type=DOCKER, stringData={".dockerconfigjson": {"auths": {"nvcr.io": CANARY}}}),
        _secret("data-list", type=DOCKER, data=[CANARY]),
        _secret("data-number-key", type=DOCKER, data={".dockerconfigjson": [CANARY], "other": CANARY}),
        _secret("wrong-key", type=DOCKER, data={"config.json": _b64(VALID_AUTHS)}),
        _secret("legacy-dockercfg", type="kubernetes.io/dockercfg", data={".dockercfg": _b64(json.dumps({"nvcr.io": {"auth": CANARY}}))}),
        _secret("opaque", type="Opaque", data={"token": _b64(CANARY)}, stringData={"password": CANARY}),
        _secret("huge", type=DOCKER, stringData={".dockerconfigjson": CANARY * 50_000}),
        _secret("no-type", stringData={".dockerconfigjson": VALID_AUTHS}),
        {"apiVersion": "v1", "kind": "Secret", "metadata": {"namespace": "llm"}, "type": DOCKER, "stringData": {".dockerconfigjson": VALID_AUTHS}},
        {"apiVersion": "v1", "kind": "Secret", "metadata": CANARY, "type": DOCKER, "data": {".dockerconfigjson": CANARY}},
        {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "unicode"}, "type": DOCKER, "stringData": {".dockerconfigjson": "\u202e" + CANARY + "\x00"}},
        {"apiVersion": "v1", "kind": "List", "items": [_secret("in-a-list", type=DOCKER, stringData={".dockerconfigjson": "{" + CANARY})]},
    ]


# Files whose YAML itself is broken around the canary (each fails to load as a whole).
BROKEN_SECRET_FILES = {
    "bad-tag.yaml": f"apiVersion: v1\nkind: Secret\nmetadata: {{name: t}}\nstringData:\n  password: !!int {CANARY}\n",
    "bad-bool.yaml": f"apiVersion: v1\nkind: Secret\nmetadata: {{name: t}}\nstringData:\n  password: !!bool {CANARY}\n",
    "bad-timestamp.yaml": f"apiVersion: v1\nkind: Secret\nmetadata: {{name: t}}\nstringData:\n  password: !!timestamp {CANARY}\n",
    "bad-binary.yaml": f"apiVersion: v1\nkind: Secret\nmetadata: {{name: t}}\ndata:\n  password: !!binary {CANARY}%\n",
    "python-tag.yaml": f"apiVersion: v1\nkind: Secret\nmetadata: {{name: t}}\nstringData:\n  password: !!python/str {CANARY}\n",
    "unclosed-quote.yaml": f'apiVersion: v1\nkind: Secret\nmetadata: {{name: t}}\nstringData:\n  password: "{CANARY}\n',
    "bad-escape.yaml": f'apiVersion: v1\nkind: Secret\nmetadata: {{name: t}}\nstringData:\n  password: "{CANARY}\\q"\n',
    "tab-indent.yaml": f"apiVersion: v1\nkind: Secret\nmetadata: {{name: t}}\nstringData:\n\tpassword: {CANARY}\n",
    "duplicate.yaml": f"apiVersion: v1\nkind: Secret\nmetadata: {{name: t}}\nstringData:\n  password: {CANARY}\n  password: {CANARY}\n",
    "flow-garbage.yaml": f"apiVersion: v1\nkind: Secret\nstringData: {{password: {CANARY}, ]\n",
    "inf.yaml": f"apiVersion: v1\nkind: Secret\nmetadata: {{name: t}}\nstringData: {{password: .inf, user: {CANARY}}}\n",
}
BROKEN_SECRET_BYTES = {
    "not-utf8.yaml": b"apiVersion: v1\nkind: Secret\nstringData:\n  password: " + CANARY.encode() + b"\xff\xfe\n",
    "control-char.yaml": b"apiVersion: v1\nkind: Secret\nstringData:\n  password: " + CANARY.encode() + b"\x07\n",
}


def _canary_free(text: str, where: str) -> None:
    assert CANARY not in text, f"the canary leaked into {where}:\n" + "\n".join(
        line[:300] for line in text.splitlines() if CANARY in line
    )[:3000]


def _without_input_secrets(objects: list[Any], inputs: list[Any]) -> list[Any]:
    """Output objects other than the user's own objects passed through unchanged."""
    return [obj for obj in objects if obj not in inputs]


def _write_bundle(directory: Path, objects: list[Any], broken: bool) -> list[Any]:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "bundle.yaml").write_text(dump_documents(objects), encoding="utf-8")
    if broken:
        for name, text in BROKEN_SECRET_FILES.items():
            (directory / name).write_text(text, encoding="utf-8")
        for name, data in BROKEN_SECRET_BYTES.items():
            (directory / name).write_bytes(data)
    return objects


VALID_DCDS = [dcd("web", type="frontend"), dcd("private", image="nvcr.io/nvidia/private:1.0.0", type="frontend"), dcd("other", image="r.example/a/b:1.2.3", type="frontend")]
INVALID_DCDS = [dcd("Bad_Name", type="frontend"), {**dcd("broken", type="frontend"), "spec": {"replicas": CANARY}}]


def _refused_on_decode(obj: Any) -> bool:
    """A Secret the API server refuses as it decodes it (data that is no map of strings, metadata no object)."""
    from renderer.admission.apiserver import refused_on_decode

    return isinstance(obj, dict) and bool(refused_on_decode(obj))


def test_secrets_the_api_server_refuses_are_errors_that_never_show_their_data(tmp_path: Path) -> None:
    objects = [o for o in canary_secrets() if _refused_on_decode(o)]
    assert len(objects) >= 3
    _write_bundle(tmp_path / "bundle", objects + VALID_DCDS, broken=False)
    stdout, stderr = io.StringIO(), io.StringIO()
    from plugin.frontends.render import run

    assert run([str(tmp_path / "bundle")], {}, stdout, stderr) == 1
    _canary_free(stderr.getvalue(), "stderr")
    assert stdout.getvalue() == ""
    assert len([line for line in stderr.getvalue().splitlines() if "[error]" in line]) >= len(objects)


@pytest.mark.parametrize("verbose", [False, True])
@pytest.mark.parametrize("case", ["renders", "invalid-dcds", "broken-files"])
def test_cli_never_leaks_secret_data(tmp_path: Path, case: str, verbose: bool) -> None:
    objects = canary_secrets() + VALID_DCDS + (INVALID_DCDS if case == "invalid-dcds" else [])
    if case == "renders":
        # data that is no map of strings is refused as the API server refuses it (an error, its value
        # never shown): the other cases, which fail anyway, keep these Secrets
        objects = [o for o in objects if not _refused_on_decode(o)]
    _write_bundle(tmp_path / "bundle", objects, broken=case == "broken-files")
    stdout, stderr = io.StringIO(), io.StringIO()
    from plugin.frontends.render import run

    code = run([str(tmp_path / "bundle")], given_values(dict(verbose=verbose)), stdout, stderr)
    _canary_free(stderr.getvalue(), "stderr")
    if case == "renders":
        assert code == 0, stderr.getvalue()
        inputs = [d.obj for d in load_documents((tmp_path / "bundle" / "bundle.yaml").read_text(), "b")[0]]
        rendered = _without_input_secrets([d.obj for d in load_documents(stdout.getvalue(), "out")[0]], inputs)
        assert any(o["kind"] == "Deployment" for o in rendered)
        _canary_free(dump_documents(rendered), "rendered objects")
        # the valid Secret is still used: its registry's image gets it as a pull secret
        private = next(o for o in rendered if o["kind"] == "Deployment" and o["metadata"]["name"] == "private")
        assert {"name": "valid-data"} in private["spec"]["template"]["spec"].get("imagePullSecrets", [])
    else:
        assert code == 1
        assert stdout.getvalue() == ""


def test_cluster_state_secrets_never_reach_any_output(tmp_path: Path) -> None:
    _write_bundle(tmp_path / "state", canary_secrets(), broken=False)
    _write_bundle(tmp_path / "bundle", VALID_DCDS, broken=False)
    for extra in ([], INVALID_DCDS):
        (tmp_path / "bundle" / "extra.yaml").write_text(dump_documents(extra) if extra else "", encoding="utf-8")
        run = render([tmp_path / "bundle"], cluster_state=tmp_path / "state")
        _canary_free(run.stdout, "stdout")
        _canary_free(run.stderr, "stderr")
        assert run.code == (1 if extra else 0), run.stderr


def _resource_list(items: list[Any]) -> bytes:
    return yaml.safe_dump({"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": items}).encode()


@pytest.mark.parametrize("invalid", [False, True])
def test_krm_function_never_leaks_secret_data(invalid: bool) -> None:
    items = canary_secrets() + VALID_DCDS + (INVALID_DCDS if invalid else [])
    stdout, stderr = io.StringIO(), io.StringIO()
    code = krm.run(None, stdin=lambda: _resource_list(items), stdout=stdout, stderr=stderr, env={})
    _canary_free(stderr.getvalue(), "stderr")
    out = yaml.safe_load(stdout.getvalue())
    _canary_free(json.dumps(out.get("results") or []), "results")
    inputs = [json.loads(json.dumps(i)) for i in items]
    others = [i for i in out["items"] if _strip_krm_annotations(i) not in inputs]
    _canary_free(json.dumps(others), "rendered items")
    assert code == (1 if invalid else 0)


def _strip_krm_annotations(obj: Any) -> Any:
    if not isinstance(obj, dict) or not isinstance(obj.get("metadata"), dict):
        return obj
    annotations = {
        k: v for k, v in (obj["metadata"].get("annotations") or {}).items() if not k.startswith(("internal.config.kubernetes.io/", "config.kubernetes.io/"))
    }
    metadata = {k: v for k, v in obj["metadata"].items() if k != "annotations"}
    if annotations:
        metadata["annotations"] = annotations
    return {**obj, "metadata": metadata}


def test_krm_function_with_broken_secret_text_never_leaks() -> None:
    for name, text in BROKEN_SECRET_FILES.items():
        body = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n" + textwrap.indent(
            "- " + text.replace("\n", "\n  ").rstrip(), ""
        )
        stdout, stderr = io.StringIO(), io.StringIO()
        code = krm.run(None, stdin=lambda: body.encode(), stdout=stdout, stderr=stderr, env={})
        _canary_free(stderr.getvalue(), f"stderr ({name})")
        if code != 0:
            # the input is echoed unchanged when it cannot be read; results must not quote it
            head, _, _ = stdout.getvalue().partition("\nitems:")
            _canary_free(head, f"results ({name})")


def _cmp_env(app: Path) -> dict[str, str]:
    return {"ARGOCD_APP_NAME": "app", "ARGOCD_APP_NAMESPACE": "llm", "ARGOCD_APP_SOURCE_PATH": app.name, "TMPDIR": str(app.parent)}


@pytest.mark.parametrize("case", ["renders", "invalid-dcds", "broken-files"])
def test_cmp_never_leaks_secret_data(tmp_path: Path, case: str) -> None:
    app = tmp_path / "repo" / "app"
    objects = canary_secrets() + VALID_DCDS + (INVALID_DCDS if case == "invalid-dcds" else [])
    _write_bundle(app, objects, broken=case == "broken-files")
    stdout, stderr = io.StringIO(), io.StringIO()
    code = cmp.generate(str(app), _cmp_env(app), stdout, stderr)
    _canary_free(stderr.getvalue(), "stderr")
    if case == "renders" and code == 0:
        inputs = [d.obj for d in load_documents((app / "bundle.yaml").read_text(), "b")[0]]
        rendered = _without_input_secrets([d.obj for d in load_documents(stdout.getvalue(), "out")[0]], inputs)
        _canary_free(dump_documents(rendered), "rendered objects")
    else:
        assert code == 1
        assert stdout.getvalue() == ""


@pytest.mark.parametrize("case", ["renders", "invalid-dcds", "broken-files"])
def test_precommit_validate_never_leaks_secret_data(tmp_path: Path, case: str, monkeypatch: pytest.MonkeyPatch) -> None:
    objects = canary_secrets() + VALID_DCDS + (INVALID_DCDS if case == "invalid-dcds" else [])
    _write_bundle(tmp_path / "src", objects, broken=case == "broken-files")
    monkeypatch.chdir(tmp_path)
    stdout = io.StringIO()
    files = sorted(str(p.relative_to(tmp_path)) for p in (tmp_path / "src").iterdir())
    precommit_validate.run(files, given_values(dict(verbose=True)), stdout)
    _canary_free(stdout.getvalue(), "pre-commit output")


def test_precommit_hydrate_check_never_prints_secret_data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The drift report is a diff printed in CI logs: it must not show a Secret's data."""
    _write_bundle(tmp_path / "src", canary_secrets() + VALID_DCDS, broken=False)
    (tmp_path / "out").mkdir()
    monkeypatch.chdir(tmp_path)
    stdout = io.StringIO()
    code = precommit_hydrate.run("src", "out", False, False, False, {}, stdout)
    assert code == 1  # nothing committed yet: everything differs
    _canary_free(stdout.getvalue(), "hydrate-check diff")


# ---------------------------------------------------------------------------------------------
# No partial output


def _thousand_with_a_bad_500th() -> list[dict[str, Any]]:
    objects = [dcd(f"svc-{i:04d}", type="frontend") for i in range(1000)]
    objects[499] = dcd("Bad_Name_499", type="frontend")
    return objects


def test_cli_prints_nothing_when_the_500th_of_1000_dcds_is_bad(tmp_path: Path) -> None:
    path = tmp_path / "many.yaml"
    path.write_text(dump_documents(_thousand_with_a_bad_500th()), encoding="utf-8")
    run = render([path])
    assert not contract_problems(run)
    assert (run.code, run.stdout) == (1, "")
    assert len(run.errors) == 1 and run.errors[0].index == 499 and run.errors[0].field == "metadata.name"


def test_cli_subprocess_prints_nothing_when_the_500th_is_bad(tmp_path: Path) -> None:
    """The same through the console entry point: stdout stays empty even when flushed at exit."""
    path = tmp_path / "many.yaml"
    path.write_text(dump_documents(_thousand_with_a_bad_500th()), encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "plugin", "render", str(path)], capture_output=True, cwd=ROOT, timeout=600)
    assert proc.returncode == 1
    assert proc.stdout == b""
    assert len(proc.stderr.decode().splitlines()) == 1


def test_cmp_prints_nothing_when_the_500th_of_1000_dcds_is_bad(tmp_path: Path) -> None:
    app = tmp_path / "repo" / "app"
    app.mkdir(parents=True)
    (app / "many.yaml").write_text(dump_documents(_thousand_with_a_bad_500th()), encoding="utf-8")
    stdout, stderr = io.StringIO(), io.StringIO()
    assert cmp.generate(str(app), _cmp_env(app), stdout, stderr) == 1
    assert stdout.getvalue() == ""
    assert "Bad_Name_499" in stderr.getvalue()


def test_krm_returns_every_item_unchanged_when_the_500th_of_1000_dcds_is_bad() -> None:
    items = _thousand_with_a_bad_500th()
    stdout, stderr = io.StringIO(), io.StringIO()
    code = krm.run(None, stdin=lambda: _resource_list(items), stdout=stdout, stderr=stderr, env={})
    assert code == 1
    out = yaml.safe_load(stdout.getvalue())
    assert out["kind"] == "ResourceList"
    assert [_strip_krm_annotations(i) for i in out["items"]] == items  # never empty, never half-rendered
    errors = [r for r in out["results"] if r["severity"] == "error"]
    assert len(errors) == 1 and errors[0]["resourceRef"]["name"] == "Bad_Name_499"
    assert stderr.getvalue().strip()


# ---------------------------------------------------------------------------------------------
# Determinism


def _example_bundle() -> list[Any]:
    """Every kind of input the renderer handles: DCDs (single and multinode), a DGD, cluster facts."""
    docs = [d.obj for d in load_documents((ROOT / "examples" / "vllm-agg.yaml").read_text(), "x")[0]]
    for path in sorted((ROOT / "tests" / "golden").glob("*/*/input.yaml")):
        case = path.parent
        if (case / "errors.txt").exists() or (case / "config.yaml").exists():
            continue
        docs += [d.obj for d in load_documents(path.read_text(), str(path))[0]]
    # one golden case per name: later cases reuse names
    seen: set[tuple[str, str, str]] = set()
    unique = []
    for doc in docs:
        meta = doc.get("metadata") or {}
        key = (doc.get("kind"), meta.get("namespace", ""), meta.get("name"))
        if key not in seen:
            seen.add(key)
            unique.append(doc)
    return unique


def _renders_alone(doc: Any, tmp: Path) -> bool:
    path = tmp / "one.yaml"
    path.write_text(dump_documents([doc]), encoding="utf-8")
    return render([path]).code == 0


@pytest.fixture(scope="module")
def bundle_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("determinism")
    docs = [doc for doc in _example_bundle() if _renders_alone(doc, tmp)]
    path = tmp / "bundle.yaml"
    path.write_text(dump_documents(docs), encoding="utf-8")
    run = render([path])
    assert run.code == 0, run.stderr
    assert len(run.objects()) > 50
    return path


def _cli(args: list[str], env: dict[str, str] | None = None, cwd: Path = ROOT) -> subprocess.CompletedProcess[bytes]:
    base = {k: v for k, v in os.environ.items() if k != "PYTHONHASHSEED"}
    base["PYTHONPATH"] = str(ROOT)
    return subprocess.run([sys.executable, "-m", "plugin", *args], capture_output=True, cwd=cwd, env={**base, **(env or {})}, timeout=600)


@pytest.mark.parametrize("output", ["yaml", "json"])
def test_same_bytes_under_different_hash_seeds(bundle_file: Path, output: str) -> None:
    outputs = set()
    for seed in ("0", "1", "42", "4294967295", "random"):
        proc = _cli(["render", "-o", output, str(bundle_file)], env={"PYTHONHASHSEED": seed})
        assert proc.returncode == 0, proc.stderr.decode()[-2000:]
        outputs.add(proc.stdout)
    assert len(outputs) == 1


def _shuffled(value: Any, rng: random.Random) -> Any:
    if isinstance(value, dict):
        items = list(value.items())
        rng.shuffle(items)
        return {k: _shuffled(v, rng) for k, v in items}
    if isinstance(value, list):
        return [_shuffled(v, rng) for v in value]
    return value


def _unsorted_yaml(docs: list[Any]) -> str:
    """A YAML stream that keeps the dicts' own key order (the input order a user wrote)."""
    return "".join("---\n" + json.dumps(doc, ensure_ascii=False, indent=1) + "\n" for doc in docs)


def test_shuffled_key_order_gives_the_same_bytes(bundle_file: Path, tmp_path: Path) -> None:
    docs = [d.obj for d in load_documents(bundle_file.read_text(), "b")[0]]
    expected = render([bundle_file]).stdout
    for seed in range(3):
        path = tmp_path / f"shuffled-{seed}.yaml"
        path.write_text(_unsorted_yaml(_shuffled(docs, random.Random(seed))), encoding="utf-8")
        assert render([path]).stdout == expected


def test_rendering_the_output_again_is_the_identity(bundle_file: Path, tmp_path: Path) -> None:
    first = render([bundle_file])
    out = tmp_path / "out.yaml"
    out.write_text(first.stdout, encoding="utf-8")
    second = render([out])
    assert second.code == 0, second.stderr
    assert second.stdout == first.stdout
    as_json = render([bundle_file], output="json")
    out_json = tmp_path / "out.json"
    out_json.write_text(as_json.stdout, encoding="utf-8")
    assert render([out_json], output="json").stdout == as_json.stdout


def test_the_same_input_twice_in_process_gives_the_same_bytes(bundle_file: Path) -> None:
    assert render([bundle_file]).stdout == render([bundle_file]).stdout


# ---------------------------------------------------------------------------------------------
# Container safety


def test_the_image_runs_as_uid_999() -> None:
    dockerfile = (ROOT / "Dockerfile").read_text()
    final_stage = dockerfile.split("\nFROM ")[-1]
    users = re.findall(r"^USER\s+(\S+)", final_stage, flags=re.MULTILINE)
    assert users, "the final stage sets no USER"
    assert users[-1].split(":")[0] == "999"


@pytest.fixture()
def read_only_dirs(tmp_path: Path) -> Iterator[tuple[Path, Path]]:
    home, work = tmp_path / "home", tmp_path / "work"
    home.mkdir()
    work.mkdir()
    (work / "app.yaml").write_text(dump_documents(VALID_DCDS), encoding="utf-8")
    for directory in (home, work):
        directory.chmod(stat.S_IRUSR | stat.S_IXUSR)
    try:
        yield home, work
    finally:
        for directory in (home, work):
            directory.chmod(stat.S_IRWXU)


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores directory permissions")
def test_no_writable_filesystem_is_needed(read_only_dirs: tuple[Path, Path]) -> None:
    home, work = read_only_dirs
    proc = _cli(
        ["render", "app.yaml"],
        env={"HOME": str(home), "PYTHONDONTWRITEBYTECODE": "1", "TMPDIR": str(home), "XDG_CACHE_HOME": str(home)},
        cwd=work,
    )
    assert proc.returncode == 0, proc.stderr.decode()[-2000:]
    assert b"kind: Deployment" in proc.stdout


@pytest.mark.parametrize("size", ["small", "large"])
def test_no_writable_filesystem_is_needed_even_as_root(tmp_path: Path, size: str) -> None:
    """Where permissions cannot stop root, a process-wide write guard does: no file is opened for writing.

    The large case renders more than the command keeps in memory before spilling its held-back
    output to a temporary file; with no writable place it must still succeed.
    """
    objects = list(VALID_DCDS)
    if size == "large":
        blob = "x" * 2**20
        objects += [{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"blob-{i}"}, "data": {"b": blob}} for i in range(12)]
    (tmp_path / "app.yaml").write_text(dump_documents(objects), encoding="utf-8")
    guard = textwrap.dedent(
        """
        import builtins, io, os, sys
        real_open = builtins.open
        def guarded_open(file, mode="r", *args, **kwargs):
            if any(flag in mode for flag in "wax+"):
                raise PermissionError(f"read-only filesystem: {file}")
            return real_open(file, mode, *args, **kwargs)
        builtins.open = io.open = guarded_open
        real_os_open = os.open
        def guarded_os_open(path, flags, *args, **kwargs):
            if flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT):
                raise PermissionError(f"read-only filesystem: {path}")
            return real_os_open(path, flags, *args, **kwargs)
        os.open = guarded_os_open
        sys.argv = ["dynamo-render", "render", "app.yaml"]
        from plugin.cli import main
        main()
        """
    )
    proc = subprocess.run(
        [sys.executable, "-B", "-c", guard],
        capture_output=True,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT), "HOME": str(tmp_path / "missing-home")},
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr.decode()[-2000:]
    assert b"kind: Deployment" in proc.stdout
    if size == "large":
        assert len(proc.stdout) > 12 * 2**20


BLOCKED_NETWORK = {"HTTPS_PROXY": "http://127.0.0.1:9", "HTTP_PROXY": "http://127.0.0.1:9", "https_proxy": "http://127.0.0.1:9", "http_proxy": "http://127.0.0.1:9", "NO_PROXY": ""}


def test_cli_makes_no_connection_without_live(tmp_path: Path) -> None:
    """The console entry point under a socket guard that records and refuses every connection."""
    (tmp_path / "app.yaml").write_text(dump_documents(VALID_DCDS + canary_secrets()[:2]), encoding="utf-8")
    guard = textwrap.dedent(
        """
        import socket, sys
        attempts = []
        def refuse(*args, **kwargs):
            attempts.append(args)
            sys.stderr.write(f"network connection attempted: {args!r}\\n")
            raise OSError("network is blocked in this test")
        socket.socket.connect = refuse
        socket.socket.connect_ex = refuse
        socket.create_connection = refuse
        socket.getaddrinfo = refuse
        sys.argv = ["dynamo-render", "render", "app.yaml"]
        from plugin.cli import main
        try:
            main()
        finally:
            if attempts:
                sys.stderr.write("CONNECT-ATTEMPTED\\n")
        """
    )
    proc = subprocess.run(
        [sys.executable, "-c", guard], capture_output=True, cwd=tmp_path, env={**os.environ, **BLOCKED_NETWORK, "PYTHONPATH": str(ROOT)}, timeout=600
    )
    stderr = proc.stderr.decode()
    assert proc.returncode == 0, stderr[-2000:]
    assert "CONNECT-ATTEMPTED" not in stderr
    assert b"kind: Deployment" in proc.stdout


@pytest.fixture()
def no_network(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Any, ...]]:
    attempts: list[tuple[Any, ...]] = []

    def refuse(*args: Any, **kwargs: Any) -> Any:
        attempts.append(args)
        raise OSError("network is blocked in this test")

    for name, value in BLOCKED_NETWORK.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    return attempts


def test_every_front_end_in_process_makes_no_connection(tmp_path: Path, no_network: list[tuple[Any, ...]]) -> None:
    app = tmp_path / "repo" / "app"
    _write_bundle(app, VALID_DCDS + canary_secrets()[:2], broken=False)
    run = render([app / "bundle.yaml"])
    assert run.code == 0, run.stderr
    stdout, stderr = io.StringIO(), io.StringIO()
    assert krm.run(None, stdin=lambda: _resource_list(VALID_DCDS), stdout=stdout, stderr=stderr, env={}) == 0, stderr.getvalue()
    stdout, stderr = io.StringIO(), io.StringIO()
    assert cmp.generate(str(app), _cmp_env(app), stdout, stderr) == 0, stderr.getvalue()
    assert precommit_validate.run([str(app / "bundle.yaml")], {}, io.StringIO()) == 0
    assert no_network == []
