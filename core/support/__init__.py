"""Support: small helpers every layer may use — reading input files within limits, printable text,
JSON depth limits, text scanning, the secret rules, the version, counts in words, the
process's one policy for the cycle collector (`collector`, applied by the entry points only),
and what may be sent as a header name (`header_names`).
`light_dataclasses` is a transitional alias of the standard library's `dataclasses` names.
May import: nothing from scenario_core (the standard library only)."""
