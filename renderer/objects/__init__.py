"""Rendered objects: workloads, Services, ingress, companions, EPP, reference integrity."""
