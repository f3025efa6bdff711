"""The files the settings name are configuration, never manifests, when the rendered folder holds them.

``render deploy/`` with ``--config``, ``--operator-config`` or ``--cluster-state`` pointing inside
``deploy/`` reads those files as settings and cluster facts only: none of their documents (a
live cluster's Secrets among them) reaches the output, as in the CMP and the hydrate hook.
"""

from __future__ import annotations

import io
from pathlib import Path

import yaml

from plugin.frontends import render as render_cmd
from plugin.options import OptionValues, given_values
from tests.builders import OPERATOR_CONFIG, dcd
from tests.positions import document_start

STATE_SECRET = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "live-token", "namespace": "llm"},
                "data": {"token": "czNjcjN0"}}
SETTINGS = {"apiVersion": "config.dynamo-render.dev/v1alpha1", "kind": "DynamoRenderConfig", "metadata": {"name": "s"},
            "spec": {"companions": False}}


def _tree(tmp_path: Path) -> Path:
    deploy = tmp_path / "deploy"
    (deploy / "state").mkdir(parents=True)
    (deploy / "worker.yaml").write_text(yaml.safe_dump(dcd()))
    (deploy / "settings.yaml").write_text(yaml.safe_dump(SETTINGS))
    (deploy / "operator.yaml").write_text(OPERATOR_CONFIG)
    (deploy / "state" / "secret.yaml").write_text(yaml.safe_dump(STATE_SECRET))
    return deploy


def _run(deploy: Path, common: OptionValues) -> tuple[int, list[dict[str, object]], str]:
    out, err = io.StringIO(), io.StringIO()
    code = render_cmd.run([str(deploy)], common, out, err)
    return code, [d for d in yaml.safe_load_all(out.getvalue()) if d], err.getvalue()


def test_named_settings_files_inside_the_folder_are_read_not_rendered(tmp_path: Path) -> None:
    deploy = _tree(tmp_path)
    common = given_values(dict(
        operator_config_path=str(deploy / "operator.yaml"), config=str(deploy / "settings.yaml"),
        cluster_state=str(deploy / "state"),
    ))
    code, objects, err = _run(deploy, common)
    assert code == 0, err
    assert "is configuration" not in err and "[error]" not in err
    kinds = [o["kind"] for o in objects]
    # companions off came from the settings file; the state folder's Secret is a cluster fact only
    assert kinds == ["Deployment", "Service"]


def test_the_same_files_unnamed_are_manifests_or_warnings(tmp_path: Path) -> None:
    deploy = _tree(tmp_path)
    code, objects, err = _run(deploy, {})
    assert code == 0, err
    kinds = [o["kind"] for o in objects]
    # the state folder's Secret is an ordinary manifest now; the two settings documents are warnings
    assert "Secret" in kinds and "DynamoRenderConfig" not in kinds and "OperatorConfiguration" not in kinds
    warnings = [line for line in err.splitlines() if "[warning]" in line and "is configuration" in line]
    assert [w.split(":")[0] for w in warnings] == [str(deploy / "operator.yaml"), str(deploy / "settings.yaml")]


def test_a_document_with_a_non_string_kind_or_api_version_is_an_error_not_a_crash(tmp_path: Path) -> None:
    """Found by the fuzz test: the settings-kind check must not hash a list."""
    (tmp_path / "odd.yaml").write_text("apiVersion: [v1]\nkind: {a: b}\nmetadata: {name: x}\n")
    code, objects, err = _run(tmp_path, {})
    assert code == 1 and objects == []
    assert "apiVersion" in err and "[error]" in err


def test_local_config_documents_are_left_out_with_a_note_as_kustomize_does(tmp_path: Path) -> None:
    marked = {"metadata": {"name": "fn", "annotations": {"config.kubernetes.io/local-config": "true"}}}
    function_config = {"apiVersion": "v1", "kind": "ConfigMap", **marked, "data": {"a": "b"}}
    settings = {**SETTINGS, "metadata": marked["metadata"]}
    (tmp_path / "worker.yaml").write_text(yaml.safe_dump(dcd()))
    tools = yaml.safe_dump_all([function_config, settings])
    (tmp_path / "tools.yaml").write_text(tools)
    out, err = io.StringIO(), io.StringIO()
    code = render_cmd.run([str(tmp_path)], given_values(dict(verbose=True)), out, err)
    assert code == 0, err.getvalue()
    rendered = [d for d in yaml.safe_load_all(out.getvalue()) if d]
    assert not [o for o in rendered if o["metadata"]["name"] in ("fn", "s")]
    notes = [line for line in err.getvalue().splitlines() if "local-config" in line]
    # each note at the line its document starts
    assert [n.split(" ", 1)[0] for n in notes] == [f"{tmp_path / 'tools.yaml'}:{document_start(tools, i)}:" for i in (0, 1)]
    assert all("[info]" in n for n in notes) and "is configuration" not in err.getvalue()
