"""Observations into the warehouse: reference data, stage -> validate -> merge of prices and
benchmarks, plausibility bounds, GPU identity, the run log."""
