//! The hook's stdin: callers write whole lines without waiting (a non-blocking write when the
//! pipe has room, otherwise the rest is queued for the flush task), so a cancelled call never
//! leaves half a line behind and the common case costs no task switch.
//!
//! A line is a few chunks written with one vectored write: the request's own head and tail, and
//! the params shared by every hook of the fire, which are never copied into each line.

use std::{
    collections::VecDeque,
    io::IoSlice,
    sync::{Arc, Mutex},
};

use hook_core::SharedBytes;
use tokio::{net::unix::pipe, sync::Notify};

/// Above this many queued bytes, [`Outbox::send`] waits for the hook to read.
const HIGH_WATER: usize = 64 * 1024 * 1024;

/// A piece of a line.
#[derive(Debug, Clone)]
pub(crate) enum Chunk {
    /// Bytes of this line only.
    Owned(Vec<u8>),
    /// Shared bytes (a fire's serialized params), from the given offset on.
    Shared(SharedBytes, usize),
    /// Constant bytes.
    Static(&'static [u8]),
}

impl Chunk {
    /// The bytes of the chunk.
    pub(crate) fn bytes(&self) -> &[u8] {
        match self {
            Chunk::Owned(bytes) => bytes,
            Chunk::Shared(bytes, start) => bytes.get(*start..).unwrap_or_default(),
            Chunk::Static(bytes) => bytes,
        }
    }
}

/// A whole line to write, in chunks, and how much of it is written.
#[derive(Debug)]
pub(crate) struct Line {
    chunks: Vec<Chunk>,
    len: usize,
    written: usize,
}

impl Line {
    /// Where each chunk's bytes are.
    #[cfg(test)]
    pub(crate) fn chunk_addresses(&self) -> Vec<*const u8> {
        self.chunks.iter().map(|chunk| chunk.bytes().as_ptr()).collect()
    }

    /// A line of `chunks`.
    pub(crate) fn new(chunks: Vec<Chunk>) -> Line {
        let len = chunks.iter().map(|c| c.bytes().len()).sum();
        Line { chunks, len, written: 0 }
    }

    /// The whole line, copied (for tests and logs).
    #[cfg(test)]
    pub(crate) fn to_vec(&self) -> Vec<u8> {
        self.chunks.iter().flat_map(|c| c.bytes().iter().copied()).collect()
    }

    /// Bytes left to write.
    fn remaining(&self) -> usize {
        self.len - self.written
    }

    /// Writes as much as the pipe takes now, in one vectored write.
    fn write_to(&mut self, pipe: &pipe::Sender) -> std::io::Result<usize> {
        let mut skip = self.written;
        let mut slices: Vec<IoSlice<'_>> = Vec::with_capacity(self.chunks.len());
        for chunk in &self.chunks {
            let bytes = chunk.bytes();
            if skip >= bytes.len() {
                skip -= bytes.len();
                continue;
            }
            slices.push(IoSlice::new(&bytes[skip..]));
            skip = 0;
        }
        let n = pipe.try_write_vectored(&slices)?;
        self.written += n;
        Ok(n)
    }
}

#[derive(Debug)]
struct State {
    /// `None` once closed (or the hook closed its end).
    pipe: Option<Arc<pipe::Sender>>,
    /// Lines not yet (fully) written, in order, each with how much of it is written. Lines are
    /// kept, not copied: a 5 MB payload queued for eight hooks is not copied again, and its memory
    /// goes as soon as it is written.
    queued: VecDeque<Line>,
    /// Bytes left to write in `queued`.
    n_queued: usize,
}

/// Lines on their way to the hook's stdin.
#[derive(Debug)]
pub(crate) struct Outbox {
    state: Mutex<State>,
    /// Wakes the flush task: bytes were queued, or the outbox was closed.
    queued: Notify,
    /// Wakes senders waiting for room.
    drained: Notify,
}

/// The pipe is closed.
#[derive(Debug)]
pub(crate) struct Closed;

impl Outbox {
    /// An outbox on `stdin`, with the task that flushes what could not be written at once.
    pub(crate) fn start(stdin: pipe::Sender) -> Arc<Outbox> {
        let outbox = Arc::new(Outbox {
            state: Mutex::new(State { pipe: Some(Arc::new(stdin)), queued: VecDeque::new(), n_queued: 0 }),
            queued: Notify::new(),
            drained: Notify::new(),
        });
        tokio::spawn(flush(outbox.clone()));
        outbox
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Queues `line` (writing it at once when nothing is queued), waiting while more than the
    /// high-water mark is queued.
    pub(crate) async fn send(&self, line: Line) -> Result<(), Closed> {
        loop {
            let room = self.drained.notified();
            {
                let state = self.lock();
                if state.n_queued < HIGH_WATER || state.pipe.is_none() {
                    drop(state);
                    return self.try_send(line);
                }
            }
            room.await;
        }
    }

    /// Queues `line` without waiting.
    pub(crate) fn try_send(&self, mut line: Line) -> Result<(), Closed> {
        let mut state = self.lock();
        let Some(pipe) = &state.pipe else { return Err(Closed) };
        if state.queued.is_empty() {
            // Vectored writes may stop at a chunk's end with room left: go on while it takes bytes.
            while line.remaining() > 0 {
                match line.write_to(pipe) {
                    Ok(0) => break,
                    Ok(_) => {}
                    Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => break,
                    Err(_) => {
                        state.pipe = None;
                        return Err(Closed);
                    }
                }
            }
            if line.remaining() == 0 {
                return Ok(());
            }
        }
        state.n_queued += line.remaining();
        state.queued.push_back(line);
        drop(state);
        self.queued.notify_one();
        Ok(())
    }

    /// Closes stdin (the hook reads EOF); queued bytes are dropped.
    pub(crate) fn close(&self) {
        let mut state = self.lock();
        state.pipe = None;
        state.queued = VecDeque::new();
        state.n_queued = 0;
        drop(state);
        self.queued.notify_one();
        self.drained.notify_waiters();
    }
}

/// Writes queued bytes as the pipe makes room; ends when the outbox is closed.
async fn flush(outbox: Arc<Outbox>) {
    loop {
        let wait_for_room = {
            let mut state = outbox.lock();
            let Some(pipe) = state.pipe.clone() else { break };
            let mut failed = false;
            while let Some(line) = state.queued.front_mut() {
                match line.write_to(&pipe) {
                    Ok(n) => {
                        let done = line.remaining() == 0;
                        state.n_queued -= n;
                        if done {
                            state.queued.pop_front();
                        } else if n == 0 {
                            break;
                        }
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => break,
                    Err(_) => {
                        failed = true;
                        break;
                    }
                }
            }
            if failed {
                state.pipe = None;
                state.queued = VecDeque::new();
                state.n_queued = 0;
            }
            (!state.queued.is_empty()).then_some(pipe)
        };
        outbox.drained.notify_waiters();
        match wait_for_room {
            Some(pipe) => {
                tokio::select! {
                    ready = pipe.writable() => if ready.is_err() { break },
                    () = outbox.queued.notified() => {}
                }
            }
            None => outbox.queued.notified().await,
        }
    }
    outbox.drained.notify_waiters();
}
