"""JSON Schemas of the --json outputs (show.schema.json)."""
