"""pytest: env.py runs only inside Alembic, so doctest collection skips it."""

collect_ignore = ["env.py"]
