"""The HTTP transport: a lean HTTP/1.1 client over httptools — `client` (the facade a run sends
through: one deadline, redirects, cookies, the body read under the size cap), `request` (a
request built and checked, without httpx), `pool` (plain http://: connections kept alive per
host), `framing` (responses parsed), `via_httpx` (https:// and proxies, through httpx),
`cookies`, `body` (content codings, charset, JSON) and `errors` (RequestFailed, one-line messages).
May import: scenario_core.language, scenario_core.support (and parameters for timeouts/limits)."""
