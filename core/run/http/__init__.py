"""The HTTP transport: a lean HTTP/1.1 client over httptools — `client` (the facade a run sends
through: one deadline, redirects, the body read under the size cap), `pool` (connections kept
alive per host, https:// handed to httpx), `framing` (requests as bytes, responses parsed),
`body` (content codings, charset, JSON) and `errors` (RequestFailed, one-line messages).
May import: scenario_core.language, scenario_core.support (and parameters for timeouts/limits)."""
