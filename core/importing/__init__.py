"""Starting a scenario file from what a user already has: a curl command line, a
HAR recording, an OpenAPI description. Each reader turns its input into the neutral `model`
(requests, the values extracted from their responses and reused later, the run variables the
file needs); `scenario_core.editor`'s one writer turns that into text in either dialect.
May import: scenario_core.editor and every layer below."""
