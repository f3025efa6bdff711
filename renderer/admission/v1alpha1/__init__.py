"""v1alpha1 DCD/DGD/DGDR/DGDSA: the conversion webhook ported (both directions)."""
