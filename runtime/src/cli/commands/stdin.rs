//! Reading a hook payload from stdin, bounded in size and in time.
//!
//! Entry: [`read_bounded`]. A host that never closes stdin (or a terminal) must not hold the hook
//! past its deadline, so the read runs on its own thread and the caller waits with a timeout; the
//! thread is simply abandoned when the process exits.

use std::io::Read as _;
use std::sync::mpsc;
use std::time::Instant;

/// Why no payload was read.
#[derive(Debug, thiserror::Error)]
pub enum StdinError {
    #[error("the payload is larger than {limit} bytes")]
    TooLarge { limit: u64 },
    #[error("reading stdin failed: {0}")]
    Io(std::io::Error),
    #[error("stdin was not closed before the deadline")]
    Timeout,
}

/// All of stdin, when it holds at most `limit` bytes and ends before `deadline`.
pub fn read_bounded(limit: u64, deadline: Instant) -> Result<Vec<u8>, StdinError> {
    let (sender, receiver) = mpsc::channel();
    std::thread::spawn(move || {
        let mut stdin = std::io::stdin().lock();
        let mut payload = Vec::new();
        let read = (&mut stdin)
            .take(limit.saturating_add(1))
            .read_to_end(&mut payload)
            .map(|_| payload);
        let too_large = matches!(&read, Ok(payload) if payload.len() as u64 > limit);
        let _ = sender.send(read);
        // Keep reading what is left of an oversized payload while the hook answers, so the host
        // finishes writing instead of meeting a closed pipe (ends with the process).
        if too_large {
            let _ = std::io::copy(&mut stdin, &mut std::io::sink());
        }
    });
    let wait = deadline.saturating_duration_since(Instant::now());
    match receiver.recv_timeout(wait) {
        Ok(Ok(payload)) if payload.len() as u64 > limit => Err(StdinError::TooLarge { limit }),
        Ok(Ok(payload)) => Ok(payload),
        Ok(Err(error)) => Err(StdinError::Io(error)),
        Err(_) => Err(StdinError::Timeout),
    }
}
