"""The tool loop: one sans-IO engine (``ToolLoop``) and the sync and async drivers that perform
what it asks (docs/tool-runner.md). Its public face is ``aisuite_like.runner``."""
