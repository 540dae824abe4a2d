//! The hook's stdin: callers write whole lines without waiting (a non-blocking write when the
//! pipe has room, otherwise the rest is queued for the flush task), so a cancelled call never
//! leaves half a line behind and the common case costs no task switch.

use std::{
    collections::VecDeque,
    sync::{Arc, Mutex},
};

use tokio::{net::unix::pipe, sync::Notify};

/// Above this many queued bytes, [`Outbox::send`] waits for the hook to read.
const HIGH_WATER: usize = 64 * 1024 * 1024;

#[derive(Debug)]
struct State {
    /// `None` once closed (or the hook closed its end).
    pipe: Option<Arc<pipe::Sender>>,
    /// Lines not yet (fully) written, in order, each with how much of it is written. Lines are
    /// kept, not copied: a 5 MB payload queued for eight hooks is not copied again, and its memory
    /// goes as soon as it is written.
    queued: VecDeque<(Vec<u8>, usize)>,
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
    pub(crate) async fn send(&self, line: Vec<u8>) -> Result<(), Closed> {
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
    pub(crate) fn try_send(&self, line: Vec<u8>) -> Result<(), Closed> {
        let mut state = self.lock();
        let Some(pipe) = &state.pipe else { return Err(Closed) };
        let written = if state.queued.is_empty() {
            match pipe.try_write(&line) {
                Ok(n) if n == line.len() => return Ok(()),
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => 0,
                Err(_) => {
                    state.pipe = None;
                    return Err(Closed);
                }
            }
        } else {
            0
        };
        state.n_queued += line.len() - written;
        state.queued.push_back((line, written));
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
            while let Some((line, written)) = state.queued.front_mut() {
                match pipe.try_write(&line[*written..]) {
                    Ok(n) => {
                        *written += n;
                        if *written == line.len() {
                            state.queued.pop_front();
                        }
                        state.n_queued -= n;
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
