"""Cluster facts the operator reads while rendering, as an explicit input."""
