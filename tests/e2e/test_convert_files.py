"""``convert --in-place`` never leaves a corrupted or half-kept file.

Each case is a file form that the rewrite used to damage: a document that starts on its ``---``
line (written as ``--- apiVersion: ...``, invalid YAML), CRLF line endings, a BOM or UTF-16,
symlinks, hard links, the owner, and an edit made while the run works.
"""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest

from plugin.files import decode
from plugin.frontends import convert as convert_cmd
from plugin.yamlio.codec import load_documents

ADAPTER = ("apiVersion: nvidia.com/v1alpha1\nkind: DynamoGraphDeploymentScalingAdapter\nmetadata:\n  name: ad\n"
           "spec:\n  replicas: 2\n  dgdRef:\n    name: graph\n    serviceName: Worker\n")
ADAPTER_FLOW = ("{apiVersion: nvidia.com/v1alpha1, kind: DynamoGraphDeploymentScalingAdapter, metadata: {name: ad},"
                " spec: {replicas: 2, dgdRef: {name: graph, serviceName: Worker}}}")
CONVERTED = {"apiVersion": "nvidia.com/v1beta1", "kind": "DynamoGraphDeploymentScalingAdapter", "metadata": {"name": "ad"},
             "spec": {"replicas": 2, "dgdRef": {"name": "graph", "componentName": "Worker"}}}
CM = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"}}


def in_place(*paths: Path) -> tuple[int, str]:
    err = io.StringIO()
    code = convert_cmd.run_in_place([str(p) for p in paths], err, env={})
    return code, err.getvalue()


def objects(path: Path) -> list[object]:
    text, problems = decode(path.read_bytes(), str(path))
    assert not problems and text is not None
    docs, problems = load_documents(text, str(path))
    assert not problems
    return [d.obj for d in docs]


@pytest.mark.parametrize("text", [
    f"--- !!map {ADAPTER_FLOW}\n",
    f"--- {ADAPTER_FLOW}\n",
    f"apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: cm}}\n--- {ADAPTER_FLOW}   # trailing\n",
    f"apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: cm}}\n--- !!map {ADAPTER_FLOW}\n...\n",
], ids=["tagged-first", "flow-first", "flow-after-another", "tagged-with-end-marker"])
def test_a_document_on_its_separator_line_is_written_after_the_separator(tmp_path: Path, text: str) -> None:
    path = tmp_path / "a.yaml"
    path.write_text(text)
    code, err = in_place(path)
    assert code == 0, err
    want = [CM, CONVERTED] if text.startswith("apiVersion: v1") else [CONVERTED]
    assert objects(path) == want
    assert "\n---\napiVersion: nvidia.com/v1beta1\n" in "\n" + path.read_text()


def test_crlf_files_keep_their_line_ending(tmp_path: Path) -> None:
    path = tmp_path / "a.yaml"
    path.write_bytes(("# head\n" + "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n---\n" + ADAPTER).replace("\n", "\r\n").encode())
    code, err = in_place(path)
    assert code == 0, err
    data = path.read_bytes()
    assert data.count(b"\n") == data.count(b"\r\n") > 10
    assert objects(path) == [CM, CONVERTED]


@pytest.mark.parametrize("bom,encoding", [(b"\xef\xbb\xbf", "utf-8"), (b"\xff\xfe", "utf-16-le"), (b"\xfe\xff", "utf-16-be")])
def test_bom_and_utf16_are_kept(tmp_path: Path, bom: bytes, encoding: str) -> None:
    path = tmp_path / "a.yaml"
    path.write_bytes(bom + ("# é\n" + ADAPTER).encode(encoding))
    code, err = in_place(path)
    assert code == 0, err
    data = path.read_bytes()
    assert data.startswith(bom)
    assert data[len(bom):].decode(encoding).startswith("# é\napiVersion: nvidia.com/v1beta1\n")


def test_hard_links_and_owner_are_kept(tmp_path: Path) -> None:
    path = tmp_path / "a.yaml"
    path.write_text(ADAPTER)
    other = tmp_path / "b.yml"
    os.link(path, other)
    if os.geteuid() == 0:
        os.chown(path, 4321, 4322)
    code, err = in_place(path)
    assert code == 0, err
    assert os.stat(path).st_ino == os.stat(other).st_ino and os.stat(path).st_nlink == 2
    assert objects(other) == [CONVERTED]
    single = tmp_path / "single.yaml"
    single.write_text(ADAPTER)
    if os.geteuid() == 0:
        os.chown(single, 4321, 4322)
        code, err = in_place(single)
        assert code == 0, err
        assert (os.stat(single).st_uid, os.stat(single).st_gid) == (4321, 4322)
        assert (os.stat(path).st_uid, os.stat(path).st_gid) == (4321, 4322)


def test_symlinks_in_the_tree_are_written_through_and_links_out_are_refused(tmp_path: Path) -> None:
    tree, outside = tmp_path / "tree", tmp_path / "outside"
    tree.mkdir()
    outside.mkdir()
    (tree / "real.yaml").write_text(ADAPTER)
    (tree / "link.yaml").symlink_to("real.yaml")
    code, err = in_place(tree)
    assert code == 0, err
    assert (tree / "link.yaml").is_symlink()
    assert objects(tree / "real.yaml") == [CONVERTED]
    (outside / "far.yaml").write_text(ADAPTER)
    (tree / "far.yaml").symlink_to(outside / "far.yaml")
    code, err = in_place(tree)
    assert code == 1
    assert f"{tree / 'far.yaml'}: [error]: is a symlink to {outside / 'far.yaml'}, outside the converted tree" in err
    assert (outside / "far.yaml").read_text() == ADAPTER and (tree / "far.yaml").is_symlink()


def test_an_edit_made_during_the_run_is_detected_and_nothing_is_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first, second = tmp_path / "a.yaml", tmp_path / "b.yaml"
    first.write_text(ADAPTER)
    second.write_text(ADAPTER)
    check = convert_cmd._parses_back

    def edited_meanwhile(file: convert_cmd._File, data: bytes, expected: list[object]) -> object:
        # another program (an editor) saves the second file while the run converts it
        if file.name == str(second):
            second.write_text(ADAPTER + "# edited\n")
        return check(file, data, expected)

    monkeypatch.setattr(convert_cmd, "_parses_back", edited_meanwhile)
    code, err = in_place(first, second)
    assert code == 1
    assert f"{second}: [error]: changed on disk during the run; nothing was written" in err
    assert first.read_text() == ADAPTER
    assert second.read_text() == ADAPTER + "# edited\n"


def test_a_rewrite_that_does_not_parse_back_writes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "a.yaml"
    path.write_text(ADAPTER)
    real = convert_cmd._rewrite_yaml

    def broken(*args: object) -> object:
        got = real(*args)  # type: ignore[arg-type]
        assert got is not None
        return "--- apiVersion: [\n", got[1]

    monkeypatch.setattr(convert_cmd, "_rewrite_yaml", broken)
    code, err = in_place(path)
    assert code == 1
    assert "does not read back as the converted objects" in err
    assert path.read_text() == ADAPTER
