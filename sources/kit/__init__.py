"""The machinery every source is built with: what a source is (spec), the registry of them, the one
HTTP session, the raw payload store, the record reader and row builder, the contracts, the clock and
the environment. It imports no provider; providers import it."""
