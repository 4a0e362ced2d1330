"""A transitional alias: the standard library's `dataclass`, `field`, `fields` and `replace`,
re-exported for the few modules that still import them from here. Import them from
`dataclasses` instead; this module goes once no module imports it."""

from dataclasses import dataclass, field, fields, replace

__all__ = ["dataclass", "field", "fields", "replace"]
