"""The lowest layer: response and message types, the error tree, request checks, secrets
redaction, tool-call ids, cost bookkeeping and the stream objects. It imports nothing else of
the package (docs/architecture.md)."""
