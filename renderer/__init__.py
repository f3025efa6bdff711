"""dynamo-render's pure rendering core: no I/O, no environment, no clock.

The one render API is ``renderer.bundle`` (``render_bundle``, ``stream_bundle``, ``stream_groups``),
called once per bundle; its inputs are the objects (or ``Group``s of them by origin),
``renderer.config.RenderConfig`` and the cluster facts besides the bundle
(``renderer.cluster.state.StateLayer``), its results
``renderer.results.Result``. Import them from those modules: this package file imports nothing,
so that loading one submodule stays cheap.
"""
