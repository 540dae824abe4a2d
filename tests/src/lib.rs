//! Cross-crate test suites for hookwire; the tests live in `tests/`.
