"""The export room: pipelines, the export stage's wiring, exporters, near-duplicates and outputs."""
