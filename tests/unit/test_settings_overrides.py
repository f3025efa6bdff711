"""Command-line overrides merge into the settings file instead of replacing whole blocks."""

from __future__ import annotations

from pathlib import Path

from plugin.settings import resolve_settings


def test_lws_flag_keeps_the_other_gates_of_the_config_file(tmp_path: Path) -> None:
    config = tmp_path / "render.yaml"
    config.write_text(
        "apiVersion: config.dynamo-render.dev/v1alpha1\nkind: DynamoRenderConfig\n"
        "spec:\n  gates: {grove: true, lws: true}\n"
        "  operatorConfig:\n    mpi: {sshSecretName: s, sshSecretNamespace: ns}\n"
        "    rbac: {plannerClusterRoleName: p, dgdrProfilingClusterRoleName: d, eppClusterRoleName: e}\n"
    )
    settings, results = resolve_settings({"config": str(config), "lws": False})
    assert settings is not None, [r.line() for r in results]
    assert settings.grove is True
    assert settings.lws is False
    assert settings.config.lws_enabled is False and settings.config.grove_enabled is True
