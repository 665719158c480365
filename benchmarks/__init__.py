"""Benchmarks (not collected by pytest: files are bench_*.py). Run ``python -m benchmarks``."""
