"""Robustness: fuzzing, hostile files, secrets and size limits."""
