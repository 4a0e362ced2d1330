"""Output of a run: the JSON, JUnit and HTML reports, masking of events, and curl commands.
May import: scenario_core.run (its events) and every layer below; never the analysis or the editor."""
