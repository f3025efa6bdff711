"""``<<`` is a merge only as a mapping key; elsewhere go-yaml v2 (kubectl) reads the string."""

from __future__ import annotations

from plugin.yamlio.codec import dump_documents, load_documents


def test_plain_merge_sign_as_a_value_is_a_string() -> None:
    docs, results = load_documents("a: <<\nb: [<<]\n", "x.yaml")
    assert not results
    assert docs[0].obj == {"a": "<<", "b": ["<<"]}


def test_merge_key_still_merges() -> None:
    docs, results = load_documents("base: &b {x: 1}\nc:\n  <<: *b\n  z: 2\n", "x.yaml")
    assert not results
    assert docs[0].obj["c"] == {"x": 1, "z": 2}


def test_kustomize_style_unquoted_merge_sign_round_trips() -> None:
    text = dump_documents([{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "m"}, "data": {"k": "<<"}}])
    docs, results = load_documents(text.replace("'<<'", "<<"), "x.yaml")
    assert not results and docs[0].obj["data"] == {"k": "<<"}
