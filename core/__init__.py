"""scenario_core: the `.scenario` language and its executor. Never imports textual or rich."""
