"""`python -m skyjo_env ...` is the `skyjo` command."""

from skyjo_env.cli import main

raise SystemExit(main())
