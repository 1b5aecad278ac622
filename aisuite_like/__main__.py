"""``python -m aisuite_like`` runs the ``aisuite-like`` command."""

from __future__ import annotations

import sys

from .cli.main import main

sys.exit(main())
