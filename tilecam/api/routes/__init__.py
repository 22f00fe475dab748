"""Routers of the service: one module each, discovered by :func:`tilecam.app.create_app`."""
