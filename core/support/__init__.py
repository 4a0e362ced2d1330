"""Support: small helpers every layer may use — reading input files within limits, printable text,
JSON depth limits, text scanning, the secret rules, the version, counts in words, and dataclasses
cheap to create (`light_dataclasses`), regular expressions compiled on first use (`lazy_patterns`), the cycle collector paused
while a block makes objects that live on (`collector`), what may be sent as a header name
(`header_names`).
May import: nothing from scenario_core (the standard library only)."""
