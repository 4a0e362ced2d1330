"""Rich renderings of core results shared by the headless commands and the app: run progress and
summaries, the parameter tree. Never imports textual.
May import: scenario_core."""
