"""``python -m tests.benchmarks``: run every benchmark (see run.py)."""

from tests.benchmarks.run import main

raise SystemExit(main())
