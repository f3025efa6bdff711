"""v1alpha1 DCD/DGD/DGDR/DGDSA: the conversion webhook ported (both directions).

The API server stores v1beta1 and converts v1alpha1 objects through the operator's
conversion webhook. ``to_v1beta1`` ports the v1alpha1 -> v1beta1 direction
(``dcd_to_v1beta1``, ``dgd_to_v1beta1``); ``preservation`` the annotations in which the
conversion keeps what one version cannot express.

What a converted v1beta1 object carries that a native one lacks, for the render stages:
``nvidia.com/dgd-spec`` / ``nvidia.com/dcd-spec`` hold a sparse v1alpha1 spec (top-level
``pvcs``, per-service ``dynamoNamespace``, ``ingress``, ``autoscaling``, ``annotations``,
``labels``, a non-promoted ``subComponentType``, ``frontendSidecar``, disabled features, and
the origin of each main-container field); the operator's controllers read those back
through the reverse conversion.

Mirrors: deploy/operator/api/v1alpha1 (*_conversion.go, preservation.go)
"""
