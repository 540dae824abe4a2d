//! Configuration loading: files of the three dialects into validated hook specs.
