//! The channel a render's events travel on, from the pool thread that decodes them to the caller
//! of [`super::Kernel::render`]: read with a timeout by a blocking caller (a hook, the CLI) or
//! awaited by an async one (the MCP server), with no thread between the two. A relay thread per
//! render (a blocking read handed on to the async side) cost every MCP call two more wake-ups.
//!
//! Invariant: the receiver sees every event sent, in order, then the end once the sender is
//! dropped; a send after the receiver is gone is refused, which tells the pool its caller
//! stopped listening.

use std::collections::VecDeque;
use std::future::poll_fn;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::task::{Poll, Waker};
use std::time::Instant;

use crate::document::RenderEvent;

/// One render's events.
pub(super) fn channel() -> (EventSender, EventReceiver) {
    let shared = Arc::new(Shared::default());
    (
        EventSender {
            shared: shared.clone(),
        },
        EventReceiver { shared },
    )
}

#[derive(Debug, Default)]
struct Shared {
    state: Mutex<State>,
    /// Signalled on every send and when either side goes.
    changed: Condvar,
}

#[derive(Debug, Default)]
struct State {
    events: VecDeque<RenderEvent>,
    /// The sender was dropped: no event will come after those queued.
    sender_gone: bool,
    receiver_gone: bool,
    /// The task awaiting the next event, woken by the next send or the sender's drop.
    waker: Option<Waker>,
}

impl Shared {
    fn state(&self) -> MutexGuard<'_, State> {
        // Every critical section leaves the state consistent, so a panic elsewhere cannot taint it.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn notify(&self, mut state: MutexGuard<'_, State>) {
        let waker = state.waker.take();
        drop(state);
        self.changed.notify_all();
        if let Some(waker) = waker {
            waker.wake();
        }
    }
}

/// The pool's end.
#[derive(Debug)]
pub(super) struct EventSender {
    shared: Arc<Shared>,
}

/// The receiver is gone: nobody reads this render's events any more.
#[derive(Debug)]
pub(super) struct Disconnected;

impl EventSender {
    pub(super) fn send(&self, event: RenderEvent) -> Result<(), Disconnected> {
        let mut state = self.shared.state();
        if state.receiver_gone {
            return Err(Disconnected);
        }
        state.events.push_back(event);
        self.shared.notify(state);
        Ok(())
    }
}

impl Drop for EventSender {
    fn drop(&mut self) {
        let mut state = self.shared.state();
        state.sender_gone = true;
        self.shared.notify(state);
    }
}

/// Why a wait gave no event.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum NoEvent {
    /// Nothing by the time asked for; more may come.
    Timeout,
    /// Every event was received and the sender is gone.
    Ended,
}

/// The caller's end.
#[derive(Debug)]
pub(super) struct EventReceiver {
    shared: Arc<Shared>,
}

impl EventReceiver {
    /// The next event, waiting until `until` at most.
    pub(super) fn recv_until(&self, until: Instant) -> Result<RenderEvent, NoEvent> {
        self.recv_blocking(Some(until))
    }

    /// The next event, or `None` once every event was received and the sender is gone; waits
    /// as long as that takes (a render always ends with `complete` or its sender's drop).
    pub(super) fn blocking_recv(&self) -> Option<RenderEvent> {
        self.recv_blocking(None).ok()
    }

    fn recv_blocking(&self, until: Option<Instant>) -> Result<RenderEvent, NoEvent> {
        let mut state = self.shared.state();
        loop {
            if let Some(event) = state.events.pop_front() {
                return Ok(event);
            }
            if state.sender_gone {
                return Err(NoEvent::Ended);
            }
            state = match until {
                None => self
                    .shared
                    .changed
                    .wait(state)
                    .unwrap_or_else(PoisonError::into_inner),
                Some(until) => {
                    let now = Instant::now();
                    if now >= until {
                        return Err(NoEvent::Timeout);
                    }
                    self.shared
                        .changed
                        .wait_timeout(state, until - now)
                        .unwrap_or_else(PoisonError::into_inner)
                        .0
                }
            };
        }
    }

    /// The next event, or `None` once every event was received and the sender is gone.
    pub(super) async fn recv(&self) -> Option<RenderEvent> {
        poll_fn(|context| {
            let mut state = self.shared.state();
            if let Some(event) = state.events.pop_front() {
                return Poll::Ready(Some(event));
            }
            if state.sender_gone {
                return Poll::Ready(None);
            }
            state.waker = Some(context.waker().clone());
            Poll::Pending
        })
        .await
    }
}

impl Drop for EventReceiver {
    fn drop(&mut self) {
        let mut state = self.shared.state();
        state.receiver_gone = true;
        state.events.clear();
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::document::{LogLevel, RenderEventKind};

    fn event(n: u64) -> RenderEvent {
        RenderEvent {
            sequence: n,
            kind: RenderEventKind::Log {
                level: LogLevel::Info,
                message: n.to_string(),
                data: None,
            },
        }
    }

    #[test]
    fn a_blocking_receiver_gets_every_event_in_order_then_the_end() {
        let (sender, receiver) = channel();
        let sending = std::thread::spawn(move || {
            for n in 0..100 {
                sender.send(event(n)).unwrap();
            }
        });
        let far = Instant::now() + Duration::from_secs(10);
        let received: Vec<u64> = (0..100)
            .map(|n| {
                let event = if n % 2 == 0 {
                    receiver.recv_until(far).unwrap()
                } else {
                    receiver.blocking_recv().unwrap()
                };
                event.sequence
            })
            .collect();
        sending.join().unwrap();
        assert_eq!(received, (0..100).collect::<Vec<_>>());
        assert_eq!(receiver.recv_until(far).unwrap_err(), NoEvent::Ended);
        assert!(receiver.blocking_recv().is_none());
    }

    #[test]
    fn a_blocking_receiver_times_out_while_the_sender_is_alive() {
        let (_sender, receiver) = channel();
        let started = Instant::now();
        let outcome = receiver.recv_until(started + Duration::from_millis(30));
        assert_eq!(outcome.unwrap_err(), NoEvent::Timeout);
        assert!(started.elapsed() >= Duration::from_millis(30));
    }

    #[test]
    fn an_awaiting_receiver_is_woken_by_a_send_from_another_thread_and_by_the_end() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let (sender, receiver) = channel();
        let received = runtime.block_on(async move {
            let sending = std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(20));
                sender.send(event(7)).unwrap();
                std::thread::sleep(Duration::from_millis(20));
                sender.send(event(8)).unwrap();
            });
            let mut received = Vec::new();
            while let Some(event) = receiver.recv().await {
                received.push(event.sequence);
            }
            sending.join().unwrap();
            received
        });
        assert_eq!(received, vec![7, 8]);
    }

    #[test]
    fn a_send_after_the_receiver_is_gone_is_refused() {
        let (sender, receiver) = channel();
        drop(receiver);
        assert!(sender.send(event(0)).is_err());
    }
}
