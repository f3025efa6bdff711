"""v1alpha1 DCD/DGD admission: the API server's v1alpha1 schema and CEL rules, the webhook's v1alpha1 rules.

The conversion webhook itself (both directions) is ``renderer.conversion``.

Mirrors: config/crd/bases (v1alpha1 versions), internal/webhook/validation (v1alpha1 request path)
"""
