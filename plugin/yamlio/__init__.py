"""YAML in and out: the safe loader and dumper, the fast emitter, line lookup for results."""
