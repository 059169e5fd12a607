"""The test suite: a package, so that the API tests can use the core tests' reference."""
