"""The question commands (whatif, compare, serve, predict, backtest): each answered from a
private copy of the warehouse, never written back."""
