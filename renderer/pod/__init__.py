"""Pod shaping: base pod spec, component defaults, backends, merge, labels, names, checkpoints."""
