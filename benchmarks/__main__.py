"""``python -m benchmarks``: run every benchmark (see run.py)."""

from benchmarks.run import main

raise SystemExit(main())
