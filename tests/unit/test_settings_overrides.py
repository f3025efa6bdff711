"""The settings layers: values given over the settings file merge into it key by key, values below it fill its gaps."""

from __future__ import annotations

from pathlib import Path

from plugin.settings import Settings, resolve_settings


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


CONFIG = "apiVersion: config.dynamo-render.dev/v1alpha1\nkind: DynamoRenderConfig\nspec:\n"


def test_the_layers_are_defaults_below_the_file_and_given_over_it(tmp_path: Path) -> None:
    config = tmp_path / "render.yaml"
    config.write_text(CONFIG + "  namespace: from-file\n  gates: {grove: true}\n  companions: false\n")
    settings, results = resolve_settings({"config": str(config)}, below={"namespace": "below", "companions": True, "lws": False})
    assert settings is not None, [r.line() for r in results]
    # The file wins over the layer below it; what the file leaves unset comes from below.
    assert (settings.namespace, settings.companions, settings.lws, settings.grove) == ("from-file", False, False, True)
    assert settings.from_file == {"namespace", "grove", "companions"}
    # Given values win over the file; None is an explicit auto, which unsets the file's gate.
    settings, results = resolve_settings({"config": str(config), "namespace": "given", "grove": None, "companions": True})
    assert settings is not None, [r.line() for r in results]
    assert (settings.namespace, settings.companions, settings.grove, settings.config.grove_enabled) == ("given", True, None, False)
    # Nothing given anywhere: the defaults.
    settings, _ = resolve_settings(below={"namespace": ""})
    assert settings is not None and (settings.namespace, settings.companions, settings.from_file) == ("default", True, frozenset())


def test_an_operator_configuration_below_the_file_gives_way_to_the_files_own(tmp_path: Path) -> None:
    operator = "mpi: {sshSecretName: s, sshSecretNamespace: ns}\n" \
        "rbac: {plannerClusterRoleName: p, dgdrProfilingClusterRoleName: d, eppClusterRoleName: e}\n"
    (tmp_path / "op.yaml").write_text("kind: OperatorConfiguration\n" + operator)
    broken = "discovery: {backend: consul}"
    with_own = tmp_path / "own.yaml"
    with_own.write_text(CONFIG + "  operatorConfigPath: op.yaml\n")
    without = tmp_path / "without.yaml"
    without.write_text(CONFIG + "  companions: true\n")
    settings, results = resolve_settings({"config": str(with_own)}, below={"operator-config": broken})
    assert settings is not None and settings.config.operator_config_source == "given", [r.line() for r in results]
    # With no operator configuration of the file's own, the one below applies (here: refused).
    settings, results = resolve_settings({"config": str(without)}, below={"operator-config": broken})
    assert settings is None and any("operator-config.discovery.backend" in r.line() for r in results), [r.line() for r in results]
    # Given over the file, it wins over the file's own.
    settings, results = resolve_settings({"config": str(with_own), "operator-config": broken})
    assert settings is None and any("operator-config.discovery.backend" in r.line() for r in results)


def test_the_record_defaults_are_the_settings_file_defaults() -> None:
    # Settings() stands for "no settings at all" (the KRM function given only an operator configuration).
    resolved, results = resolve_settings()
    assert resolved is not None and results == []
    assert resolved == Settings().with_operator(None)[0]
