"""Knowing before running: static scope analysis (every `{{NAME}}` always, sometimes or never
visible) and the warnings of `check`.
May import: scenario_core.run (its plan and explanations, never sending), and every layer below."""
