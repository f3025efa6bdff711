"""dynamo-render's pure rendering core: no I/O, no environment, no clock.

The one render API is ``renderer.bundle`` (``render_bundle``, ``stream_bundle``); its inputs are
``renderer.config.RenderConfig`` and ``renderer.cluster.state.ClusterState``, its results
``renderer.results.Result``. Import them from those modules: this package file imports nothing,
so that loading one submodule stays cheap.
"""
