//! Output caps: how much of a hook's stdout and stderr is read, and the bounded reader that
//! enforces them without ever buffering more than the cap.

use std::io;

use tokio::io::{AsyncRead, AsyncReadExt};

/// Default stdout cap: 1 MiB.
pub const DEFAULT_MAX_STDOUT_BYTES: usize = 1 << 20;

/// Default stderr cap: 64 KiB.
pub const DEFAULT_MAX_STDERR_BYTES: usize = 64 << 10;

/// How many characters of stderr an exit error carries.
pub(crate) const STDERR_TAIL_CHARS: usize = 2000;

/// How many characters of stdout and stderr reach the logs.
pub(crate) const LOG_HEAD_CHARS: usize = 200;

/// Why a bounded read stopped early.
#[derive(Debug)]
pub(crate) enum ReadError {
    /// More than the cap arrived; the buffer holds the first `cap + 1` bytes.
    OverCap(Vec<u8>),
    /// The pipe failed.
    Io(io::Error),
}

/// Reads `reader` to EOF, failing as soon as more than `cap` bytes arrive.
///
/// The buffer grows by doubling but never past `cap + 1` bytes, so a hook that prints 50 MB
/// costs at most the cap (plus one byte) of memory, and reading stops at once.
pub(crate) async fn read_capped<R: AsyncRead + Unpin>(mut reader: R, cap: usize) -> Result<Vec<u8>, ReadError> {
    let limit = cap.saturating_add(1);
    let mut buf = Vec::new();
    loop {
        if buf.len() == buf.capacity() {
            let target = buf.capacity().saturating_mul(2).max(4096).min(limit);
            buf.reserve_exact(target.saturating_sub(buf.len()).max(1));
        }
        // `read_buf` fills at most the spare capacity, which the reservation above keeps
        // within `limit`; so no read ever goes past `cap + 1` bytes.
        let n = reader.read_buf(&mut buf).await.map_err(ReadError::Io)?;
        if buf.len() > cap {
            return Err(ReadError::OverCap(buf));
        }
        if n == 0 {
            return Ok(buf);
        }
    }
}

/// `1 MiB`, `64 KiB`, `100 bytes`.
pub(crate) fn fmt_bytes(n: usize) -> String {
    const KIB: usize = 1 << 10;
    const MIB: usize = 1 << 20;
    if n >= MIB && n.is_multiple_of(MIB) {
        format!("{} MiB", n / MIB)
    } else if n >= KIB && n.is_multiple_of(KIB) {
        format!("{} KiB", n / KIB)
    } else {
        format!("{n} bytes")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn stops_one_byte_past_the_cap() {
        let data = vec![b'x'; 10_000];
        match read_capped(&data[..], 100).await {
            Err(ReadError::OverCap(buf)) => assert_eq!(buf.len(), 101),
            other => panic!("expected OverCap, got {other:?}"),
        }
        let read = read_capped(&data[..], 10_000).await.expect("fits exactly");
        assert_eq!(read.len(), 10_000);
        assert!(read.capacity() <= 10_001);
        for cap in [0, 1, 3, 4095, 4096, 4097] {
            let read = read_capped(&data[..cap], cap).await.expect("at the cap");
            assert_eq!(read.len(), cap);
            assert!(matches!(read_capped(&data[..cap + 1], cap).await, Err(ReadError::OverCap(_))));
        }
    }

    #[test]
    fn formats_sizes() {
        assert_eq!(fmt_bytes(1 << 20), "1 MiB");
        assert_eq!(fmt_bytes(64 << 10), "64 KiB");
        assert_eq!(fmt_bytes(100), "100 bytes");
    }
}
