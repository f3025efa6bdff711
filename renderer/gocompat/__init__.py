"""Go compatibility: typed JSON round trips, go-yaml text, quantities, runtime versions, generated type tables."""
