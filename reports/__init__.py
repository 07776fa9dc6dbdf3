"""Render the dated comparison report from the warehouse."""
