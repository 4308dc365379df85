//! Request timeouts without a runtime timer per call.
//!
//! A timer per call (reqwest's `timeout`, a `tokio::time::Sleep`) is
//! allocated, put into tokio's timer wheel when first polled and taken out
//! again when the call ends: nearly every call ends long before its timer
//! would, and on the project's machine that round trip cost about 4 % of
//! the calls per second with 16 in flight (BENCHMARKS.md). Here a call
//! that is still waiting after its first poll writes its deadline and its
//! waker into one shared table, and one thread (`psi-deadlines`) wakes
//! the calls whose deadline has passed; a call that is woken past its
//! deadline ends with a timeout error.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Mutex, MutexGuard, OnceLock};
use std::task::{Context, Poll, Waker};
use std::thread::Thread;
use std::time::{Duration, Instant};

/// The longest the watchdog sleeps while calls are waiting; a new deadline
/// earlier than its next wake wakes it at once.
const LONGEST_SLEEP: Duration = Duration::from_secs(1);
/// Empty rounds after which the watchdog sleeps until a call registers.
const IDLE_ROUNDS: u32 = 10;

/// Every call past its first poll and not finished: its deadline and waker.
struct Table {
    slots: Vec<Option<Waiting>>,
    free: Vec<u32>,
    /// When the watchdog will look next; `None` when it sleeps until woken.
    next_look: Option<Instant>,
}

struct Waiting {
    deadline: Instant,
    waker: Waker,
    expired: bool,
}

struct Watchdog {
    table: Mutex<Table>,
    thread: Thread,
}

/// Counts the deadlines the watchdog has found passed: a call reads it on
/// every poll (one atomic load) and locks the table only when it moved.
static EXPIRIES: AtomicU32 = AtomicU32::new(0);

fn watchdog() -> &'static Watchdog {
    static WATCHDOG: OnceLock<Watchdog> = OnceLock::new();
    WATCHDOG.get_or_init(|| {
        let thread = std::thread::Builder::new()
            .name("psi-deadlines".into())
            .spawn(|| watch(watchdog()))
            .expect("the psi-deadlines thread starts");
        Watchdog {
            table: Mutex::new(Table {
                slots: Vec::new(),
                free: Vec::new(),
                next_look: Some(Instant::now()),
            }),
            thread: thread.thread().clone(),
        }
    })
}

impl Watchdog {
    fn lock(&self) -> MutexGuard<'_, Table> {
        // A panic while the table is held leaves it consistent (every
        // change is one assignment), so a poisoned lock is still usable.
        self.table
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// The watchdog's loop: wake every call whose deadline has passed, then
/// sleep until the earliest deadline left (at most `LONGEST_SLEEP`).
fn watch(watchdog: &'static Watchdog) {
    let mut idle_rounds = 0;
    loop {
        let now = Instant::now();
        let sleep = {
            let mut table = watchdog.lock();
            let mut earliest: Option<Instant> = None;
            let mut waiting = 0;
            for waiting_call in table.slots.iter_mut().flatten() {
                waiting += 1;
                if waiting_call.expired {
                    continue;
                }
                if waiting_call.deadline <= now {
                    waiting_call.expired = true;
                    EXPIRIES.fetch_add(1, Ordering::Release);
                    waiting_call.waker.wake_by_ref();
                } else {
                    earliest = Some(
                        earliest.map_or(waiting_call.deadline, |e| e.min(waiting_call.deadline)),
                    );
                }
            }
            idle_rounds = if waiting == 0 { idle_rounds + 1 } else { 0 };
            let sleep = if idle_rounds > IDLE_ROUNDS {
                None
            } else {
                Some(earliest.map_or(LONGEST_SLEEP, |e| (e - now).min(LONGEST_SLEEP)))
            };
            table.next_look = sleep.map(|sleep| now + sleep);
            sleep
        };
        match sleep {
            Some(sleep) => std::thread::park_timeout(sleep),
            None => std::thread::park(),
        }
    }
}

/// When a send must be over, body included (as reqwest's own timeout
/// would have it), and the timeout it comes from. An answer carries its
/// send's deadline in its extensions, for whoever reads its body.
#[derive(Clone, Copy)]
pub(crate) struct AttemptDeadline {
    pub(crate) at: Instant,
    pub(crate) timeout: Duration,
}

/// `call`, ended with `timed_out(timeout)` when it is still waiting at
/// `deadline.at`; an output in time goes through `in_time` (which may, say,
/// stamp an answer with the deadline). Both closures capture little: every
/// call's future carries this one inside it.
pub(crate) fn within<F, T, E, S>(
    deadline: AttemptDeadline,
    call: F,
    timed_out: E,
    in_time: S,
) -> Within<F, E, S>
where
    F: Future<Output = T>,
    E: FnOnce(Duration) -> T,
    S: FnOnce(T, &AttemptDeadline) -> T,
{
    Within {
        call,
        endings: Some((timed_out, in_time)),
        entry: Entry {
            deadline,
            slot: None,
        },
    }
}

pin_project_lite::pin_project! {
    /// See [`within`].
    pub(crate) struct Within<F, E, S> {
        #[pin]
        call: F,
        endings: Option<(E, S)>,
        entry: Entry,
    }
}

impl<F, T, E, S> Future for Within<F, E, S>
where
    F: Future<Output = T>,
    E: FnOnce(Duration) -> T,
    S: FnOnce(T, &AttemptDeadline) -> T,
{
    type Output = T;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<T> {
        let this = self.project();
        if this.entry.expired() {
            this.entry.leave();
            let (timed_out, _) = this.endings.take().expect("polled after it ended");
            return Poll::Ready(timed_out(this.entry.deadline.timeout));
        }
        match this.call.poll(cx) {
            Poll::Ready(output) => {
                this.entry.leave();
                let (_, in_time) = this.endings.take().expect("polled after it ended");
                Poll::Ready(in_time(output, &this.entry.deadline))
            }
            Poll::Pending => {
                this.entry.wait(cx.waker());
                Poll::Pending
            }
        }
    }
}

/// A call's place in the table.
struct Entry {
    deadline: AttemptDeadline,
    /// The call's slot once it has waited, and the (wrapping) expiry count
    /// when it last looked: 32 bits each, as every call carries them.
    slot: Option<(u32, u32)>,
}

impl Entry {
    /// Whether the watchdog found this call's deadline passed: one atomic
    /// load unless some deadline passed since the call last looked.
    fn expired(&mut self) -> bool {
        let Some((slot, seen)) = &mut self.slot else {
            return false;
        };
        let now_seen = EXPIRIES.load(Ordering::Acquire);
        if now_seen == *seen {
            return false;
        }
        *seen = now_seen;
        let table = watchdog().lock();
        table.slots[*slot as usize]
            .as_ref()
            .is_some_and(|w| w.expired)
    }

    /// Enters the table, or keeps the waker there current.
    fn wait(&mut self, waker: &Waker) {
        let watchdog = watchdog();
        let mut table = watchdog.lock();
        if let Some((slot, _)) = self.slot {
            if let Some(waiting) = &mut table.slots[slot as usize] {
                if !waiting.waker.will_wake(waker) {
                    waiting.waker = waker.clone();
                }
            }
            return;
        }
        let seen = EXPIRIES.load(Ordering::Acquire);
        let at = self.deadline.at;
        let waiting = Waiting {
            deadline: at,
            waker: waker.clone(),
            expired: false,
        };
        let slot = match table.free.pop() {
            Some(slot) => {
                table.slots[slot as usize] = Some(waiting);
                slot
            }
            None => {
                table.slots.push(Some(waiting));
                u32::try_from(table.slots.len() - 1).expect("fewer than 2^32 calls wait at once")
            }
        };
        self.slot = Some((slot, seen));
        // Wake the watchdog only when it would look too late: under load
        // the deadlines of one policy come in order, so rarely.
        if table.next_look.is_none_or(|next| at < next) {
            table.next_look = Some(at);
            drop(table);
            watchdog.thread.unpark();
        }
    }

    /// Leaves the table (the call ended, or is dropped).
    fn leave(&mut self) {
        if let Some((slot, _)) = self.slot.take() {
            let mut table = watchdog().lock();
            table.slots[slot as usize] = None;
            table.free.push(slot);
        }
    }
}

impl Drop for Entry {
    fn drop(&mut self) {
        self.leave();
    }
}

/// The error of an attempt that timed out: a `reqwest::Error` like the one
/// reqwest's own timeout gives (`is_timeout()` is true, it carries the
/// URL), so callers and the retry policy treat both alike. reqwest offers
/// no constructor for its errors; an error read from a body is the one it
/// hands out, so the error comes from reading a body that fails with
/// `io::ErrorKind::TimedOut`. Only a call that timed out pays for this.
pub(crate) fn timeout_error(url: Option<&reqwest::Url>, after: Duration) -> reqwest::Error {
    let body = FailingBody(Some(std::io::Error::new(
        std::io::ErrorKind::TimedOut,
        format!("no answer within the request timeout of {after:?}"),
    )));
    let mut response = reqwest::Response::from(http::Response::new(reqwest::Body::wrap(body)));
    let mut read = std::pin::pin!(response.chunk());
    match read.as_mut().poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(Err(error)) => match url {
            Some(url) => error.with_url(url.clone()),
            None => error,
        },
        _ => unreachable!("a body whose first frame is an error fails at once"),
    }
}

/// A body whose first frame is its error.
struct FailingBody(Option<std::io::Error>);

impl http_body::Body for FailingBody {
    type Data = bytes::Bytes;
    type Error = std::io::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        _: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<bytes::Bytes>, std::io::Error>>> {
        Poll::Ready(self.0.take().map(Err))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_timeout_error_is_a_reqwest_timeout_with_the_url() {
        let url: reqwest::Url = "https://api.example.test/status".parse().unwrap();
        let error = timeout_error(Some(&url), Duration::from_millis(200));
        assert!(error.is_timeout(), "{error:?}");
        assert!(!error.is_connect());
        assert_eq!(error.url(), Some(&url));
        let mut chain = String::new();
        let mut source: Option<&dyn std::error::Error> = Some(&error);
        while let Some(error) = source {
            chain += &format!("{error}; ");
            source = error.source();
        }
        assert!(
            chain.contains("no answer within the request timeout of 200ms"),
            "{chain}"
        );
    }

    /// Counts the polls of a call that never ends by itself.
    #[tokio::test]
    async fn a_call_still_waiting_at_its_deadline_ends_with_the_timeout() {
        let started = Instant::now();
        let deadline = AttemptDeadline {
            at: started + Duration::from_millis(150),
            timeout: Duration::from_millis(150),
        };
        let result = within(
            deadline,
            std::future::pending::<Result<(), &str>>(),
            |_| Err("timed out"),
            |output, _| output,
        )
        .await;
        assert_eq!(result, Err("timed out"));
        let waited = started.elapsed();
        assert!(waited >= Duration::from_millis(150), "{waited:?}");
        // The watchdog wakes it when it looks; a second is its longest sleep.
        assert!(waited < Duration::from_secs(2), "{waited:?}");
    }

    /// A call that ends gives its slot back: many calls in a row reuse a
    /// few slots (other tests may hold some at the same time).
    #[tokio::test]
    async fn calls_that_end_give_their_slots_back() {
        for _ in 0..200 {
            let (send, receive) = tokio::sync::oneshot::channel::<u8>();
            let deadline = AttemptDeadline {
                at: Instant::now() + Duration::from_secs(30),
                timeout: Duration::from_secs(30),
            };
            let waiting = tokio::spawn(within(deadline, receive, |_| Ok(0), |output, _| output));
            tokio::task::yield_now().await;
            send.send(7).unwrap();
            assert_eq!(waiting.await.unwrap(), Ok(7));
        }
        assert!(watchdog().lock().slots.len() < 50);
    }
}
