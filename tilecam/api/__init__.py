"""HTTP API of the tilecam service."""
