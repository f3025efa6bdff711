"""Admission: what the API server and the operator's webhooks do to an object before a controller sees it."""
