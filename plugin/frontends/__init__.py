"""The front ends: render, KRM function, Argo CD CMP, pre-commit hooks."""
