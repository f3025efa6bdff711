"""End-to-end runs of the real clients (pre-commit, kpt, kubectl, the CMP)."""
