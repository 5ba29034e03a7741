"""The resources room: what the package ships besides Python code (models, templates, compiled accelerators), found and checked before use."""
