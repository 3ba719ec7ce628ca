"""``python -m procession``: the command line."""

from procession.cli import main

raise SystemExit(main())
