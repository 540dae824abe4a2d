//! Integration tests of `hook-protocol`, all in one test binary (one link, one executable).

mod roundtrip;
