"""The `relais` command line: composes each package's commands, and the operator's tools (launcher, feedback export)."""
