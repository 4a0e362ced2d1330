"""Support: small helpers every layer may use — reading input files within limits, printable text,
JSON depth limits, text scanning, the secret rules, the version, counts in words, the
process's one policy for the cycle collector (`collector`, applied by the entry points only),
what may be sent as a header name (`header_names`), the types of parsed JSON values (`json_types`),
and core's record classes (`records`: `@dataclass` without `exec` or the `dataclasses` module).
May import: nothing from scenario_core (the standard library only)."""
