"""The gin rummy engine: standard library only, no I/O."""
